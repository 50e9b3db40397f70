// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>

#include "compat.h"
#include "rtnl.h"

static const struct nl_attr_desc link_attrs[] = {
	{ IFLA_IFNAME, "ifname", NULL, 0 },
	{ IFLA_EXT_MASK, "ext-mask", NULL, 0 },
	{ IFLA_TARGET_NETNSID, "target-netnsid", NULL, 0 },
};
static const struct nl_attr_space link_space = NL_SPACE(link_attrs);

bool nk_link_is_netkit(const struct nk_link *l)
{
	/* kind is a char[16]: the name with its NUL in one compare (this is
	 * asked a few times a device while a large show prints). */
	return memcmp(l->kind, "netkit", sizeof("netkit")) == 0;
}

bool nk_link_has_peer(const struct nk_link *l)
{
	if (!(l->have & LINK_HAVE_LINK) || !l->link)
		return false;
	return l->link != l->ifindex || (l->have & LINK_HAVE_LINK_NETNSID);
}

static void parse_netkit(struct nk_netkit *nk, const struct nlattr *data)
{
	struct nl_attrs a;
	static const struct { uint16_t attr; unsigned int bit; size_t off; } u32s[] = {
		{ NK_IFLA_NETKIT_POLICY, NKA_POLICY, offsetof(struct nk_netkit, policy) },
		{ NK_IFLA_NETKIT_PEER_POLICY, NKA_PEER_POLICY, offsetof(struct nk_netkit, peer_policy) },
		{ NK_IFLA_NETKIT_MODE, NKA_MODE, offsetof(struct nk_netkit, mode) },
		{ NK_IFLA_NETKIT_SCRUB, NKA_SCRUB, offsetof(struct nk_netkit, scrub) },
		{ NK_IFLA_NETKIT_PEER_SCRUB, NKA_PEER_SCRUB, offsetof(struct nk_netkit, peer_scrub) },
		{ NK_IFLA_NETKIT_PAIRING, NKA_PAIRING, offsetof(struct nk_netkit, pairing) },
	};

	memset(nk, 0, sizeof(*nk));
	nl_parse_nested(&a, data, NK_IFLA_NETKIT_MAX);
	for (size_t i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		if (!a.tb[u32s[i].attr])
			continue;
		*(uint32_t *)((char *)nk + u32s[i].off) =
			(uint32_t)nl_get_uint(a.tb[u32s[i].attr]);
		nk->have |= u32s[i].bit;
	}
	if (a.tb[NK_IFLA_NETKIT_PRIMARY]) {
		nk->primary = nl_get_uint(a.tb[NK_IFLA_NETKIT_PRIMARY]) != 0;
		nk->have |= NKA_PRIMARY;
	}
	if (a.tb[NK_IFLA_NETKIT_HEADROOM]) {
		nk->headroom = (uint16_t)nl_get_uint(a.tb[NK_IFLA_NETKIT_HEADROOM]);
		nk->have |= NKA_HEADROOM;
	}
	if (a.tb[NK_IFLA_NETKIT_TAILROOM]) {
		nk->tailroom = (uint16_t)nl_get_uint(a.tb[NK_IFLA_NETKIT_TAILROOM]);
		nk->have |= NKA_TAILROOM;
	}
}

/* Copied field by field: the kernel's struct may be shorter (older) or
 * longer (newer) than the one nkctl was built with. */
static bool parse_stats64(struct nk_link_stats *s, const struct nlattr *attr)
{
	struct rtnl_link_stats64 k = { 0 };
	size_t len = mnl_attr_get_payload_len(attr);

	if (len < offsetof(struct rtnl_link_stats64, rx_length_errors))
		return false;
	memcpy(&k, mnl_attr_get_payload(attr), len < sizeof(k) ? len : sizeof(k));
	s->rx_packets = k.rx_packets;
	s->tx_packets = k.tx_packets;
	s->rx_bytes = k.rx_bytes;
	s->tx_bytes = k.tx_bytes;
	s->rx_errors = k.rx_errors;
	s->tx_errors = k.tx_errors;
	s->rx_dropped = k.rx_dropped;
	s->tx_dropped = k.tx_dropped;
	s->multicast = k.multicast;
	s->collisions = k.collisions;
	s->rx_over_errors = k.rx_over_errors;
	s->tx_carrier_errors = k.tx_carrier_errors;
	s->rx_missed_errors = k.rx_missed_errors;
	s->rx_nohandler = k.rx_nohandler;
	return true;
}

/* A hardware address attribute into buf (cut at len); its length. */
static uint8_t get_hwaddr(const struct nlattr *attr, uint8_t *buf, size_t len)
{
	size_t n = mnl_attr_get_payload_len(attr);

	if (n > len)
		n = len;
	memcpy(buf, mnl_attr_get_payload(attr), n);
	return (uint8_t)n;
}

/* One RTM_NEWLINK into *l, and when c is not NULL its counters into *c
 * (*got_stats tells whether it had them). */
static int parse_link_msg(const struct nlmsghdr *nlh, struct nk_link *l,
			  struct nk_link_stats *c, bool *got_stats)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a, info;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return -EPROTO;
	memset(l, 0, sizeof(*l));
	l->ifindex = ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	l->type = ifi->ifi_type;
	nl_parse_msg(&a, nlh, sizeof(*ifi), IFLA_MAX < 63 ? IFLA_MAX : 63);
	if (a.tb[IFLA_IFNAME])
		nl_get_str(a.tb[IFLA_IFNAME], l->ifname, sizeof(l->ifname));
	if (a.tb[IFLA_MTU]) {
		l->mtu = (uint32_t)nl_get_uint(a.tb[IFLA_MTU]);
		l->have |= LINK_HAVE_MTU;
	}
	if (a.tb[IFLA_OPERSTATE]) {
		l->operstate = (uint8_t)nl_get_uint(a.tb[IFLA_OPERSTATE]);
		l->have |= LINK_HAVE_OPERSTATE;
	}
	if (a.tb[IFLA_NUM_RX_QUEUES]) {
		l->num_rx_queues = (uint32_t)nl_get_uint(a.tb[IFLA_NUM_RX_QUEUES]);
		l->have |= LINK_HAVE_NUM_RX;
	}
	if (a.tb[IFLA_NUM_TX_QUEUES]) {
		l->num_tx_queues = (uint32_t)nl_get_uint(a.tb[IFLA_NUM_TX_QUEUES]);
		l->have |= LINK_HAVE_NUM_TX;
	}
	if (a.tb[IFLA_LINK]) {
		l->link = (int32_t)nl_get_uint(a.tb[IFLA_LINK]);
		l->have |= LINK_HAVE_LINK;
	}
	if (a.tb[IFLA_LINK_NETNSID]) {
		l->link_netnsid = (int32_t)nl_get_sint(a.tb[IFLA_LINK_NETNSID]);
		l->have |= LINK_HAVE_LINK_NETNSID;
	}
	if (a.tb[IFLA_GROUP]) {
		l->group = (uint32_t)nl_get_uint(a.tb[IFLA_GROUP]);
		l->have |= LINK_HAVE_GROUP;
	}
	if (a.tb[IFLA_ADDRESS])
		l->addr_len = get_hwaddr(a.tb[IFLA_ADDRESS], l->addr, sizeof(l->addr));
	if (c)
		*got_stats = a.tb[IFLA_STATS64] && parse_stats64(c, a.tb[IFLA_STATS64]);
	if (a.tb[IFLA_PARENT_DEV_NAME])
		nl_get_str(a.tb[IFLA_PARENT_DEV_NAME], l->parent, sizeof(l->parent));
	if (a.tb[IFLA_PARENT_DEV_BUS_NAME])
		nl_get_str(a.tb[IFLA_PARENT_DEV_BUS_NAME], l->parent_bus, sizeof(l->parent_bus));
	if (a.tb[IFLA_PHYS_PORT_NAME])
		nl_get_str(a.tb[IFLA_PHYS_PORT_NAME], l->port_name, sizeof(l->port_name));
	if (a.tb[IFLA_PERM_ADDRESS])
		l->perm_addr_len = get_hwaddr(a.tb[IFLA_PERM_ADDRESS], l->perm_addr,
					      sizeof(l->perm_addr));
	if (a.tb[IFLA_XDP]) {
		struct nl_attrs xdp;

		nl_parse_nested(&xdp, a.tb[IFLA_XDP], IFLA_XDP_PROG_ID);
		if (xdp.tb[IFLA_XDP_ATTACHED]) {
			l->xdp_attached = (uint8_t)nl_get_uint(xdp.tb[IFLA_XDP_ATTACHED]);
			l->have |= LINK_HAVE_XDP;
		}
		if (xdp.tb[IFLA_XDP_PROG_ID])
			l->xdp_prog_id = (uint32_t)nl_get_uint(xdp.tb[IFLA_XDP_PROG_ID]);
	}
	if (a.tb[IFLA_LINKINFO]) {
		nl_parse_nested(&info, a.tb[IFLA_LINKINFO], IFLA_INFO_DATA);
		if (info.tb[IFLA_INFO_KIND])
			nl_get_str(info.tb[IFLA_INFO_KIND], l->kind, sizeof(l->kind));
		if (nk_link_is_netkit(l) && info.tb[IFLA_INFO_DATA])
			parse_netkit(&l->netkit, info.tb[IFLA_INFO_DATA]);
	}
	return 0;
}

int rtnl_parse_link(const struct nlmsghdr *nlh, struct nk_link *l)
{
	return parse_link_msg(nlh, l, NULL, NULL);
}

/* Both tables start with the ifindex. */
_Static_assert(offsetof(struct nk_link, ifindex) == 0, "ifindex first");
_Static_assert(offsetof(struct nk_link_counters, ifindex) == 0, "ifindex first");

static int cmp_ifindex(const void *a, const void *b)
{
	const int *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

int rtnl_link_collect(const struct nlmsghdr *nlh, struct nk_link_list *links,
		      struct nk_link_counters_list *stats)
{
	struct nk_link_counters c;
	struct nk_link *l;
	bool got = false;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	l = nk_grow(&links->v, &links->n, &links->cap, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (parse_link_msg(nlh, l, stats ? &c.s : NULL, &got)) {
		links->n--;
		return 0;
	}
	if (got) {
		struct nk_link_counters *slot = nk_grow(&stats->v, &stats->n, &stats->cap,
							sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		c.ifindex = l->ifindex;
		*slot = c;
	}
	return 0;
}

void nk_link_list_sort(struct nk_link_list *l)
{
	nk_sort(l->v, l->n, sizeof(*l->v), cmp_ifindex);
}

struct link_dump {
	struct nk_link_list *links;
	struct nk_link_counters_list *stats; /* NULL: none kept */
};

static int link_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct link_dump *d = data;

	return rtnl_link_collect(nlh, d->links, d->stats);
}

int rtnl_link_dump_stats(struct nl_sock *s, struct nk_link_list *out,
			 struct nk_link_counters_list *stats, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_GETLINK, NLM_F_DUMP);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct link_dump d = { out, stats };
	int ret;

	ifi->ifi_family = AF_UNSPEC;
	/* Ask for no VF statistics: they only bloat the dump. */
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, 0);
	memset(out, 0, sizeof(*out));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	ret = nl_talk(s, nlh, sizeof(*ifi), &link_space, link_dump_cb, &d, err);
	if (ret) {
		nk_link_list_free(out);
		if (stats)
			nk_link_counters_list_free(stats);
		return ret;
	}
	nk_link_list_sort(out);
	if (stats)
		nk_link_counters_sort(stats);
	return 0;
}

int rtnl_link_dump(struct nl_sock *s, struct nk_link_list *out, struct nl_err *err)
{
	return rtnl_link_dump_stats(s, out, NULL, err);
}

const struct nk_link_stats *nk_link_stats_find(const struct nk_link_counters_list *l,
					       int ifindex)
{
	const struct nk_link_counters *c;

	if (!l->n)
		return NULL;
	c = bsearch(&ifindex, l->v, l->n, sizeof(*l->v), cmp_ifindex);
	return c ? &c->s : NULL;
}

void nk_link_counters_sort(struct nk_link_counters_list *l)
{
	nk_sort(l->v, l->n, sizeof(*l->v), cmp_ifindex);
}

void nk_link_counters_list_free(struct nk_link_counters_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int link_one_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	return rtnl_parse_link(nlh, data);
}

int rtnl_link_get(struct nl_sock *s, const char *name, int ifindex,
		  struct nk_link *out, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_GETLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	memset(out, 0, sizeof(*out));
	return nl_talk(s, nlh, sizeof(*ifi), &link_space, link_one_cb, out, err);
}

int rtnl_link_get_nsid(struct nl_sock *s, int32_t nsid, int ifindex, struct nk_link *out,
		       struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_GETLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	mnl_attr_put_u32(nlh, IFLA_TARGET_NETNSID, (uint32_t)nsid);
	memset(out, 0, sizeof(*out));
	return nl_talk(s, nlh, sizeof(*ifi), &link_space, link_one_cb, out, err);
}

void nk_link_list_free(struct nk_link_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct nk_link *nk_link_find(const struct nk_link_list *l, int ifindex)
{
	return l->n ? bsearch(&ifindex, l->v, l->n, sizeof(*l->v), cmp_ifindex) : NULL;
}

/* ---- addresses ---- */

int rtnl_parse_addr(const struct nlmsghdr *nlh, struct nk_addr *a)
{
	const struct ifaddrmsg *ifa;
	const struct nlattr *v;
	struct nl_attrs at;
	size_t len;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return -EPROTO;
	ifa = mnl_nlmsg_get_payload(nlh);
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return -EPROTO;
	nl_parse_msg(&at, nlh, sizeof(*ifa), IFA_MAX);
	v = ifa->ifa_family == AF_INET && at.tb[IFA_LOCAL] ? at.tb[IFA_LOCAL] : at.tb[IFA_ADDRESS];
	len = ifa->ifa_family == AF_INET ? 4 : 16;
	if (!v || mnl_attr_get_payload_len(v) < len)
		return -EPROTO;
	memset(a, 0, sizeof(*a));
	a->ifindex = (int)ifa->ifa_index;
	a->family = ifa->ifa_family;
	a->prefixlen = ifa->ifa_prefixlen;
	a->scope = ifa->ifa_scope;
	memcpy(a->addr, mnl_attr_get_payload(v), len);
	return 0;
}

static int parse_addr(const struct nlmsghdr *nlh, void *a)
{
	return rtnl_parse_addr(nlh, a);
}

int rtnl_addr_dump(struct nl_sock *s, struct nk_addr_list *out, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct nl_collect c = NL_COLLECT(out, parse_addr, RTM_NEWADDR);
	int ret;

	ifa->ifa_family = AF_UNSPEC;
	memset(out, 0, sizeof(*out));
	ret = nl_talk(s, nlh, sizeof(*ifa), NULL, nl_collect_cb, &c, err);
	if (ret)
		nk_addr_list_free(out);
	return ret;
}

void nk_addr_list_free(struct nk_addr_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static const struct nl_attr_desc nsid_attrs[] = {
	{ NETNSA_NSID, "nsid", NULL, 0 },
	{ NETNSA_FD, "fd", NULL, 0 },
};
static const struct nl_attr_space nsid_space = NL_SPACE(nsid_attrs);

static int nsid_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_attrs a;

	if (nlh->nlmsg_type != RTM_NEWNSID)
		return 0;
	nl_parse_msg(&a, nlh, sizeof(struct rtgenmsg), NETNSA_MAX);
	if (a.tb[NETNSA_NSID])
		*(int32_t *)data = (int32_t)nl_get_sint(a.tb[NETNSA_NSID]);
	return 0;
}

static int nsid_request(struct nl_sock *s, uint16_t type, int fd, int32_t *nsid,
			struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, type, NLM_F_ACK);
	struct rtgenmsg *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->rtgen_family = AF_UNSPEC;
	if (type == RTM_NEWNSID)
		mnl_attr_put_u32(nlh, NETNSA_NSID, (uint32_t)NETNSA_NSID_NOT_ASSIGNED);
	mnl_attr_put_u32(nlh, NETNSA_FD, (uint32_t)fd);
	return nl_talk(s, nlh, sizeof(*g), &nsid_space, nsid_cb, nsid, err);
}

int rtnl_nsid_get(struct nl_sock *s, int fd, int32_t *nsid, struct nl_err *err)
{
	*nsid = NETNSA_NSID_NOT_ASSIGNED;
	return nsid_request(s, RTM_GETNSID, fd, nsid, err);
}

int rtnl_nsid_assign(struct nl_sock *s, int fd, int32_t *nsid, struct nl_err *err)
{
	int ret = nsid_request(s, RTM_NEWNSID, fd, nsid, err);

	if (ret && ret != -EEXIST)
		return ret;
	return rtnl_nsid_get(s, fd, nsid, err);
}
