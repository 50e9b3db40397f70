/* SPDX-License-Identifier: GPL-2.0 */
/* Netdev features by their ethtool names (ethfeat.c). */
#ifndef NKCTL_ETHFEAT_H
#define NKCTL_ETHFEAT_H

#include "ethtool.h"

/* One netdev feature by its ethtool name (rx-gro-hw, ...). */
struct nk_netdev_feature {
	bool known;        /* the kernel listed it */
	bool changeable;   /* in the hw set: user space may turn it on or off */
	bool wanted, active;
};
int ethtool_feature_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			const char *name, struct nk_netdev_feature *f, struct nl_err *err);
/* A features-get reply (verbose bitsets) into f; -EPROTO when not one. */
int ethtool_parse_feature(const struct nlmsghdr *nlh, const char *name, struct nk_netdev_feature *f);

#endif
