// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "compat.h"
#include "netkit.h"

/* Link attributes name the same things at the top level and inside
 * IFLA_NETKIT_PEER_INFO (after its struct ifinfomsg), so one table serves
 * both; it refers to itself through linkinfo -> netkit -> peer-info. */
static const struct nl_attr_desc netkit_attrs[] = {
	{ NK_IFLA_NETKIT_PEER_INFO, "peer-info", &netkit_link_space, sizeof(struct ifinfomsg) },
	{ NK_IFLA_NETKIT_POLICY, "policy", NULL, 0 },
	{ NK_IFLA_NETKIT_PEER_POLICY, "peer-policy", NULL, 0 },
	{ NK_IFLA_NETKIT_MODE, "mode", NULL, 0 },
	{ NK_IFLA_NETKIT_SCRUB, "scrub", NULL, 0 },
	{ NK_IFLA_NETKIT_PEER_SCRUB, "peer-scrub", NULL, 0 },
	{ NK_IFLA_NETKIT_HEADROOM, "headroom", NULL, 0 },
	{ NK_IFLA_NETKIT_TAILROOM, "tailroom", NULL, 0 },
	{ NK_IFLA_NETKIT_PAIRING, "pairing", NULL, 0 },
};
static const struct nl_attr_space netkit_space = NL_SPACE(netkit_attrs);
static const struct nl_attr_desc info_attrs[] = {
	{ IFLA_INFO_KIND, "kind", NULL, 0 },
	{ IFLA_INFO_DATA, "netkit", &netkit_space, 0 },
};
static const struct nl_attr_space info_space = NL_SPACE(info_attrs);
static const struct nl_attr_desc link_attrs[] = {
	{ IFLA_IFNAME, "ifname", NULL, 0 },
	{ IFLA_ADDRESS, "address", NULL, 0 },
	{ IFLA_MTU, "mtu", NULL, 0 },
	{ IFLA_NET_NS_FD, "net-ns-fd", NULL, 0 },
	{ IFLA_GROUP, "group", NULL, 0 },
	{ IFLA_NUM_TX_QUEUES, "num-tx-queues", NULL, 0 },
	{ IFLA_NUM_RX_QUEUES, "num-rx-queues", NULL, 0 },
	{ IFLA_LINKINFO, "linkinfo", &info_space, 0 },
};
const struct nl_attr_space netkit_link_space = NL_SPACE(link_attrs);

/* The words of netkit's enums, for parsing and printing alike. The kernel's
 * spec names the policies forward and blackhole; pass and drop are accepted
 * as the words ip-link uses. */
const struct nk_choice netkit_policy_words[] = {
	{ "forward", NK_NETKIT_PASS, "pass" }, { "blackhole", NK_NETKIT_DROP, "drop" },
	{ NULL, 0, NULL },
};
const struct nk_choice netkit_mode_words[] = {
	{ "l2", NK_NETKIT_L2, NULL }, { "l3", NK_NETKIT_L3, NULL }, { NULL, 0, NULL },
};
const struct nk_choice netkit_scrub_words[] = {
	{ "none", NK_NETKIT_SCRUB_NONE, NULL }, { "default", NK_NETKIT_SCRUB_DEFAULT, NULL },
	{ NULL, 0, NULL },
};
const struct nk_choice netkit_pairing_words[] = {
	{ "pair", NK_NETKIT_DEVICE_PAIR, NULL }, { "single", NK_NETKIT_DEVICE_SINGLE, NULL },
	{ NULL, 0, NULL },
};

/* Attributes that go to both ends: queue counts (netkit needs them in the
 * peer info too, or the peer has no room for leases) and the MTU. */
static void put_common(struct nlmsghdr *nlh, const struct netkit_req *r, int netns_fd,
		       const char *name, bool peer)
{
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (netns_fd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)netns_fd);
	if (r->set & NKR_RXQ)
		mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, r->rxqueues);
	if (r->set & NKR_TXQ)
		mnl_attr_put_u32(nlh, IFLA_NUM_TX_QUEUES, r->txqueues);
	if (r->set & NKR_MTU)
		mnl_attr_put_u32(nlh, IFLA_MTU, r->mtu);
	if (!peer && (r->set & NKR_ADDRESS))
		mnl_attr_put(nlh, IFLA_ADDRESS, 6, r->address);
	if (peer && (r->set & NKR_PEER_ADDRESS))
		mnl_attr_put(nlh, IFLA_ADDRESS, 6, r->peer_address);
}

static void put_u32_if(struct nlmsghdr *nlh, const struct nk_netkit *a,
		       unsigned int bit, uint16_t type, uint32_t v)
{
	if (a->have & bit)
		mnl_attr_put_u32(nlh, type, v);
}

int netkit_create(struct nl_sock *s, const struct netkit_req *r, struct nl_err *err)
{
	const struct nk_netkit *a = &r->attrs;
	bool single = (a->have & NKA_PAIRING) && a->pairing == NK_NETKIT_DEVICE_SINGLE;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct nlattr *info, *data;

	nlh = nl_msg(s, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	put_common(nlh, r, r->netns_fd, r->name, false);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "netkit");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	if (!single) {
		struct nlattr *peer = mnl_attr_nest_start(nlh, NK_IFLA_NETKIT_PEER_INFO);
		struct ifinfomsg *pifi;

		/* PEER_INFO is a struct ifinfomsg followed by link attributes;
		 * it is not flagged as a nest. */
		peer->nla_type = NK_IFLA_NETKIT_PEER_INFO;
		pifi = mnl_nlmsg_get_payload_tail(nlh);
		memset(pifi, 0, sizeof(*pifi));
		nlh->nlmsg_len += MNL_ALIGN(sizeof(*pifi));
		pifi->ifi_family = AF_UNSPEC;
		put_common(nlh, r, r->peer_netns_fd, r->peer_name, true);
		mnl_attr_nest_end(nlh, peer);
	}
	put_u32_if(nlh, a, NKA_POLICY, NK_IFLA_NETKIT_POLICY, a->policy);
	put_u32_if(nlh, a, NKA_PEER_POLICY, NK_IFLA_NETKIT_PEER_POLICY, a->peer_policy);
	put_u32_if(nlh, a, NKA_MODE, NK_IFLA_NETKIT_MODE, a->mode);
	put_u32_if(nlh, a, NKA_SCRUB, NK_IFLA_NETKIT_SCRUB, a->scrub);
	put_u32_if(nlh, a, NKA_PEER_SCRUB, NK_IFLA_NETKIT_PEER_SCRUB, a->peer_scrub);
	put_u32_if(nlh, a, NKA_PAIRING, NK_IFLA_NETKIT_PAIRING, a->pairing);
	if (a->have & NKA_HEADROOM)
		mnl_attr_put_u16(nlh, NK_IFLA_NETKIT_HEADROOM, a->headroom);
	if (a->have & NKA_TAILROOM)
		mnl_attr_put_u16(nlh, NK_IFLA_NETKIT_TAILROOM, a->tailroom);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_talk(s, nlh, sizeof(*ifi), &netkit_link_space, NULL, NULL, err);
}

int netkit_change(struct nl_sock *s, int ifindex, const struct nk_netkit *a,
		  struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_NEWLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *info, *data;

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "netkit");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	put_u32_if(nlh, a, NKA_POLICY, NK_IFLA_NETKIT_POLICY, a->policy);
	put_u32_if(nlh, a, NKA_PEER_POLICY, NK_IFLA_NETKIT_PEER_POLICY, a->peer_policy);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_talk(s, nlh, sizeof(*ifi), &netkit_link_space, NULL, NULL, err);
}

int rtnl_link_del(struct nl_sock *s, int ifindex, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_DELLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nl_talk(s, nlh, sizeof(*ifi), &netkit_link_space, NULL, NULL, err);
}

int rtnl_link_set_up(struct nl_sock *s, int ifindex, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_NEWLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_talk(s, nlh, sizeof(*ifi), &netkit_link_space, NULL, NULL, err);
}

/* No ifindex and no name: the kernel (rtnl_group_dellink) checks that every
 * member can be deleted, then deletes them all in one unregister. */
int rtnl_link_del_group(struct nl_sock *s, uint32_t group, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_DELLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, IFLA_GROUP, group);
	return nl_talk(s, nlh, sizeof(*ifi), &netkit_link_space, NULL, NULL, err);
}

/* What is the same on both sides: asked for, it must come back as asked. */
static const char *side_free_mismatch(const struct netkit_req *r, const struct nk_link *l,
				      char *got, size_t got_len)
{
	const struct nk_netkit *want = &r->attrs, *have = &l->netkit;
	const struct { bool asked; uint32_t want, have; const char *name; } same[] = {
		{ want->have & NKA_HEADROOM, want->headroom, have->headroom, "headroom" },
		{ want->have & NKA_TAILROOM, want->tailroom, have->tailroom, "tailroom" },
		{ r->set & NKR_RXQ, r->rxqueues, l->num_rx_queues, "rxqueues" },
		{ r->set & NKR_MTU, r->mtu, l->mtu, "mtu" },
	};

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		if (same[i].asked && same[i].have != same[i].want) {
			snprintf(got, got_len, "%u", same[i].have);
			return same[i].name;
		}
	}
	return NULL;
}

const char *netkit_mismatch(const struct netkit_req *r, const struct nk_link *l,
			    bool peer_side, char *got, size_t got_len)
{
	const struct nk_netkit *want = &r->attrs, *have = &l->netkit;
	/* On the peer the kernel reports the pair's attributes swapped. */
	static const struct {
		unsigned int bit, peer_bit;
		const char *name;
		size_t off, peer_off;
	} u32s[] = {
		{ NKA_MODE, NKA_MODE, "mode", offsetof(struct nk_netkit, mode),
		  offsetof(struct nk_netkit, mode) },
		{ NKA_PAIRING, NKA_PAIRING, "pairing", offsetof(struct nk_netkit, pairing),
		  offsetof(struct nk_netkit, pairing) },
		{ NKA_POLICY, NKA_PEER_POLICY, "policy", offsetof(struct nk_netkit, policy),
		  offsetof(struct nk_netkit, peer_policy) },
		{ NKA_PEER_POLICY, NKA_POLICY, "peer-policy", offsetof(struct nk_netkit, peer_policy),
		  offsetof(struct nk_netkit, policy) },
		{ NKA_SCRUB, NKA_PEER_SCRUB, "scrub", offsetof(struct nk_netkit, scrub),
		  offsetof(struct nk_netkit, peer_scrub) },
		{ NKA_PEER_SCRUB, NKA_SCRUB, "peer-scrub", offsetof(struct nk_netkit, peer_scrub),
		  offsetof(struct nk_netkit, scrub) },
	};

	if (!nk_link_is_netkit(l)) {
		snprintf(got, got_len, "kind \"%s\"", l->kind);
		return "kind";
	}
	for (size_t i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		unsigned int bit = peer_side ? u32s[i].peer_bit : u32s[i].bit;
		size_t off = peer_side ? u32s[i].peer_off : u32s[i].off;
		uint32_t w = *(const uint32_t *)((const char *)want + u32s[i].off);
		uint32_t h = *(const uint32_t *)((const char *)have + off);

		if (!(want->have & u32s[i].bit))
			continue;
		if (!(have->have & bit)) {
			snprintf(got, got_len, "nothing");
			return u32s[i].name;
		}
		if (w != h) {
			snprintf(got, got_len, "%u", h);
			return u32s[i].name;
		}
	}
	return side_free_mismatch(r, l, got, got_len);
}
