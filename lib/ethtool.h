/* SPDX-License-Identifier: GPL-2.0 */
/* The ethtool generic netlink family, read only: ring parameters. */
#ifndef NKCTL_ETHTOOL_H
#define NKCTL_ETHTOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "genl.h"
#include "nl.h"

/* ETHTOOL_A_RINGS_TCP_DATA_SPLIT values. */
enum {
	NK_TCP_DATA_SPLIT_UNKNOWN = 0,
	NK_TCP_DATA_SPLIT_DISABLED = 1,
	NK_TCP_DATA_SPLIT_ENABLED = 2,
};

struct nk_rings {
	bool have_tcp_data_split, have_hds_thresh;
	uint32_t tcp_data_split;
	uint32_t hds_thresh;
};

/* rings-get of ifindex; fam is the resolved "ethtool" family. */
int ethtool_rings_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		      struct nk_rings *out, struct nl_err *err);
const char *nk_tcp_data_split_name(uint32_t v);

#endif
