// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "ethtool.h"

/* Numbers of the ethtool netlink ABI (include/uapi/linux/ethtool_netlink*.h),
 * stable since 5.6; bookworm's 6.1 headers lack HDS_THRESH. */
#define NK_ETHTOOL_MSG_RINGS_GET          15
#define NK_ETHTOOL_A_RINGS_HEADER         1
#define NK_ETHTOOL_A_RINGS_TCP_DATA_SPLIT 11
#define NK_ETHTOOL_A_RINGS_HDS_THRESH     17
#define NK_ETHTOOL_A_RINGS_MAX            18
#define NK_ETHTOOL_A_HEADER_DEV_INDEX     1

static const struct nl_attr_desc header_attrs[] = {
	{ NK_ETHTOOL_A_HEADER_DEV_INDEX, "dev-index", NULL, 0 },
};
static const struct nl_attr_space header_space = NL_SPACE(header_attrs);
static const struct nl_attr_desc rings_attrs[] = {
	{ NK_ETHTOOL_A_RINGS_HEADER, "header", &header_space, 0 },
};
static const struct nl_attr_space rings_space = NL_SPACE(rings_attrs);

static int rings_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nk_rings *r = data;
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_ETHTOOL_A_RINGS_MAX);
	if (a.tb[NK_ETHTOOL_A_RINGS_TCP_DATA_SPLIT]) {
		r->have_tcp_data_split = true;
		r->tcp_data_split = (uint32_t)nl_get_uint(a.tb[NK_ETHTOOL_A_RINGS_TCP_DATA_SPLIT]);
	}
	if (a.tb[NK_ETHTOOL_A_RINGS_HDS_THRESH]) {
		r->have_hds_thresh = true;
		r->hds_thresh = (uint32_t)nl_get_uint(a.tb[NK_ETHTOOL_A_RINGS_HDS_THRESH]);
	}
	return 0;
}

int ethtool_rings_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		      struct nk_rings *out, struct nl_err *err)
{
	struct nlmsghdr *nlh = genl_msg(s, fam, NK_ETHTOOL_MSG_RINGS_GET, NLM_F_ACK);
	struct nlattr *hdr;

	memset(out, 0, sizeof(*out));
	hdr = mnl_attr_nest_start(nlh, NK_ETHTOOL_A_RINGS_HEADER);
	mnl_attr_put_u32(nlh, NK_ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)ifindex);
	mnl_attr_nest_end(nlh, hdr);
	return nl_talk(s, nlh, GENL_HDRLEN, &rings_space, rings_cb, out, err);
}

const char *nk_tcp_data_split_name(uint32_t v)
{
	switch (v) {
	case NK_TCP_DATA_SPLIT_UNKNOWN: return "unknown";
	case NK_TCP_DATA_SPLIT_DISABLED: return "off";
	case NK_TCP_DATA_SPLIT_ENABLED: return "on";
	}
	return "unknown";
}
