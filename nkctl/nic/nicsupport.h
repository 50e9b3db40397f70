/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a NIC's driver supports for the NIC side of a lease (doc/nics.md):
 * read from the kernel for `nic show` and doctor, never guessed from
 * netdevsim's defaults.
 */
#ifndef NKCTL_NICSUPPORT_H
#define NKCTL_NICSUPPORT_H

#include "core/ctx.h"
#include "ethfeat.h"
#include "ethrss.h"
#include "out.h"
#include "rtnl.h"

struct nk_nic_support {
	char driver[32];
	bool queue_api;          /* a driver with the queue API in Linux 7.3 */
	bool header_split;       /* it reports tcp-data-split */
	bool hds_thresh;
	bool ntuple;
	bool driver_picks;       /* RX_CLS_LOC_SPECIAL; else nkctl picks locations */
	uint32_t rule_table_size;
	bool rss_set;
	uint32_t indir_size;
	bool rss_contexts;
	struct nk_netdev_feature gro_hw;
	struct nk_rss_ctx_list contexts;
	bool xdp_known;          /* the netdev family gave its xdp-features */
	bool xdp_native;         /* NETDEV_XDP_ACT_BASIC: XDP in the driver */
	bool xsk_zerocopy;       /* NETDEV_XDP_ACT_XSK_ZEROCOPY: AF_XDP zero-copy */
};

/* Fill s for the NIC link; rings, the RSS table size and the rule list are
 * what the caller read already (rules_ret: 0 or -errno of that read). */
void nk_nic_support_read(struct nk_ns *ns, struct nl_sock *et, const struct genl_family *fam,
			 const struct nk_link *link, const struct nk_rings *rings,
			 uint32_t indir_size, const struct nk_ntuple_list *rules, int rules_ret,
			 struct nk_nic_support *s);
void nk_nic_support_free(struct nk_nic_support *s);
/* Is HW GRO (rx-gro-hw) something the driver has, can turn on, and is off?
 * mlx5 refuses header split then; nkctl says so and never changes it. */
bool nk_nic_gro_hw_off(struct nk_ns *ns, const struct nk_link *link);
/* "support" {...} and "rss-contexts" [...] of a nic. */
void nk_nic_support_print(struct out *o, const struct nk_nic_support *s);

#endif
