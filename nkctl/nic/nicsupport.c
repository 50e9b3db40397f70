// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "compat.h"
#include "ethfeat.h"
#include "ethrss.h"
#include "core/kernel.h"
#include "netdev.h"
#include "nic/nicsupport.h"

/* The Linux 7.3 drivers with netdev_queue_mgmt_ops, which leasing needs
 * (doc/nics.md); the kernel exposes no flag for it. */
static const char *const queue_api_drivers[] = {
	"mlx5_core", "bnxt_en", "gve", "fbnic", "netdevsim", NULL,
};

static bool has_queue_api(const char *driver)
{
	for (size_t i = 0; queue_api_drivers[i]; i++)
		if (!strcmp(driver, queue_api_drivers[i]))
			return true;
	return false;
}

/* What AF_XDP through a lease gets on this NIC (nkctl xsk attach): native
 * or generic XDP, zero-copy or copy, from the netdev family's
 * xdp-features. */
static void xdp_support_read(struct nk_ns *ns, int ifindex, struct nk_nic_support *s)
{
	const struct genl_family *fam;
	struct nl_sock *nd = nk_ns_try_netdev(ns, &fam);
	struct nl_err err = { 0 };
	uint64_t features;

	if (!nd || netdev_dev_xdp_features(nd, fam, ifindex, &features, &err))
		return;
	s->xdp_known = true;
	s->xdp_native = features & NK_XDP_ACT_BASIC;
	s->xsk_zerocopy = features & NK_XDP_ACT_XSK_ZEROCOPY;
}

void nk_nic_support_read(struct nk_ns *ns, struct nl_sock *et, const struct genl_family *fam,
			 const struct nk_link *link, const struct nk_rings *rings,
			 uint32_t indir_size, const struct nk_ntuple_list *rules, int rules_ret,
			 struct nk_nic_support *s)
{
	struct nl_err err;
	int fd;

	memset(s, 0, sizeof(*s));
	if (nk_ns_ioctl(ns, &fd) == 0)
		ethtool_driver_name(fd, link->ifname, s->driver, sizeof(s->driver));
	s->queue_api = has_queue_api(s->driver);
	s->header_split = rings->have_tcp_data_split &&
			  rings->tcp_data_split != NK_TCP_DATA_SPLIT_UNKNOWN;
	s->hds_thresh = rings->have_hds_thresh;
	s->ntuple = !rules_ret;
	s->driver_picks = !rules_ret && rules->driver_picks;
	s->rule_table_size = rules_ret ? 0 : rules->table_size;
	s->indir_size = indir_size;
	s->rss_set = indir_size && genl_has_op(fam, NK_ETHTOOL_MSG_RSS_SET);
	ethtool_rss_ctx_supported(et, fam, link->ifindex, &s->rss_contexts, &err);
	if (s->rss_contexts)
		ethtool_rss_ctx_list(et, fam, link->ifindex, &s->contexts, &err);
	ethtool_feature_get(et, fam, link->ifindex, "rx-gro-hw", &s->gro_hw, &err);
	xdp_support_read(ns, link->ifindex, s);
}

bool nk_nic_gro_hw_off(struct nk_ns *ns, const struct nk_link *link)
{
	const struct genl_family *fam;
	struct nk_netdev_feature gro;
	struct nl_sock *et;
	struct nl_err err;

	return nk_ns_ethtool(ns, &et, &fam) == 0 &&
	       ethtool_feature_get(et, fam, link->ifindex, "rx-gro-hw", &gro, &err) == 0 &&
	       gro.known && gro.changeable && !gro.active;
}

void nk_nic_support_free(struct nk_nic_support *s)
{
	nk_rss_ctx_list_free(&s->contexts);
}

static void print_contexts(struct out *o, const struct nk_nic_support *s)
{
	out_arr_open(o, "rss-contexts");
	for (size_t i = 0; i < s->contexts.n; i++) {
		const struct nk_rss_ctx *c = &s->contexts.v[i];

		out_obj_open(o, NULL);
		out_uint(o, "context", "    rss context %llu:", c->context);
		out_arr_open(o, "queues");
		out_text(o, " queues");
		for (size_t k = 0; k < c->nqueues; k++)
			out_uint(o, NULL, k ? ",%llu" : " %llu", c->queues[k]);
		out_arr_close(o);
		out_flag(o, "more-queues", " (and more)", c->more_queues);
		out_text(o, "\n");
		out_obj_close(o);
	}
	out_arr_close(o);
}

void nk_nic_support_print(struct out *o, const struct nk_nic_support *s)
{
	out_obj_open(o, "support");
	out_str(o, "driver", "    support: driver %s", s->driver[0] ? s->driver : "?");
	out_bool(o, "queue-lease", ", queue leasing %s", s->queue_api);
	out_bool(o, "header-split", ", header split %s", s->header_split);
	out_bool(o, "hds-thresh", " (hds-thresh %s)", s->hds_thresh);
	if (s->gro_hw.known)
		out_bool(o, "rx-gro-hw", ", rx-gro-hw %s", s->gro_hw.active);
	out_bool(o, "ntuple", ", n-tuple %s", s->ntuple);
	if (s->ntuple) {
		out_str(o, "ntuple-locations", " (locations picked by %s", s->driver_picks ?
			"driver" : "nkctl");
		out_uint(o, "ntuple-size", ", %llu rules)", s->rule_table_size);
	}
	out_bool(o, "rss-set", ", RSS set %s", s->rss_set);
	out_uint(o, "indir-size", " (table of %llu)", s->indir_size);
	out_bool(o, "contexts", ", RSS contexts %s", s->rss_contexts);
	if (s->xdp_known) {
		out_str(o, "xdp", ", XDP %s", s->xdp_native ? "native" : "skb");
		out_str(o, "xsk", ", AF_XDP %s", s->xsk_zerocopy ? "zerocopy" : "copy");
	}
	out_text(o, "\n");
	out_obj_close(o);
	print_contexts(o, s);
}
