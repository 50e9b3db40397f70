// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include "ipconf.h"

static const struct nl_attr_desc addr_attrs[] = {
	{ IFA_ADDRESS, "address", NULL, 0 },
	{ IFA_LOCAL, "local", NULL, 0 },
};
static const struct nl_attr_space addr_space = NL_SPACE(addr_attrs);
static const struct nl_attr_desc route_attrs[] = {
	{ RTA_DST, "dst", NULL, 0 },
	{ RTA_OIF, "oif", NULL, 0 },
	{ RTA_GATEWAY, "gateway", NULL, 0 },
};
static const struct nl_attr_space route_space = NL_SPACE(route_attrs);

static size_t addr_len(const struct nk_ipnet *a)
{
	return a->family == AF_INET ? 4 : 16;
}

int rtnl_addr_add(struct nl_sock *s, int ifindex, const struct nk_ipnet *a, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

	ifa->ifa_family = (unsigned char)a->family;
	ifa->ifa_prefixlen = (unsigned char)a->plen;
	ifa->ifa_index = (unsigned int)ifindex;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	/* The address is IPAM's: DAD would only hold it back. */
	if (a->family == AF_INET6)
		ifa->ifa_flags = IFA_F_NODAD;
	mnl_attr_put(nlh, IFA_LOCAL, addr_len(a), a->addr);
	mnl_attr_put(nlh, IFA_ADDRESS, addr_len(a), a->addr);
	return nl_talk(s, nlh, sizeof(*ifa), &addr_space, NULL, NULL, err);
}

int rtnl_route_add(struct nl_sock *s, int ifindex, const struct nk_ipnet *dst,
		   const struct nk_ipnet *gw, struct nl_err *err)
{
	/* Never replace: as a second network (Multus's net1) the pod's routes
	 * of its first network stay. */
	struct nlmsghdr *nlh = nl_msg(s, RTM_NEWROUTE, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

	rtm->rtm_family = (unsigned char)dst->family;
	rtm->rtm_dst_len = (unsigned char)dst->plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_scope = gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	if (dst->plen)
		mnl_attr_put(nlh, RTA_DST, addr_len(dst), dst->addr);
	if (gw)
		mnl_attr_put(nlh, RTA_GATEWAY, addr_len(gw), gw->addr);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	return nl_talk(s, nlh, sizeof(*rtm), &route_space, NULL, NULL, err);
}

/* ---- reading back ---- */

struct match {
	int ifindex;
	const struct nk_ipnet *want, *gw;
	bool found;
};

static bool attr_is(const struct nlattr *a, const struct nk_ipnet *n)
{
	return a && mnl_attr_get_payload_len(a) == addr_len(n) &&
	       !memcmp(mnl_attr_get_payload(a), n->addr, addr_len(n));
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct match *m = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs at;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    (int)ifa->ifa_index != m->ifindex || ifa->ifa_family != m->want->family ||
	    ifa->ifa_prefixlen != m->want->plen)
		return 0;
	nl_parse_msg(&at, nlh, sizeof(*ifa), IFA_MAX);
	if (attr_is(at.tb[IFA_LOCAL] ? at.tb[IFA_LOCAL] : at.tb[IFA_ADDRESS], m->want))
		m->found = true;
	return 0;
}

/* A dump of type, of m's family (the first byte of its header, hdrlen long:
 * ifaddrmsg and rtmsg alike), in which cb looks for m. */
static bool dump_finds(struct nl_sock *s, uint16_t type, size_t hdrlen, nl_data_cb cb,
		       struct match *m, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, type, NLM_F_DUMP);
	unsigned char *family = mnl_nlmsg_put_extra_header(nlh, hdrlen);

	*family = (unsigned char)m->want->family;
	err->code = 0;
	return !nl_talk(s, nlh, hdrlen, NULL, cb, m, err) && m->found;
}

bool rtnl_addr_has(struct nl_sock *s, int ifindex, const struct nk_ipnet *a, struct nl_err *err)
{
	struct match m = { ifindex, a, NULL, false };

	return dump_finds(s, RTM_GETADDR, sizeof(struct ifaddrmsg), addr_cb, &m, err);
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct match *m = data;
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs at;

	/* Any table: a chained sbr moves the pod's routes out of main. */
	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    rtm->rtm_family != m->want->family || rtm->rtm_dst_len != m->want->plen ||
	    rtm->rtm_type != RTN_UNICAST)
		return 0;
	nl_parse_msg(&at, nlh, sizeof(*rtm), RTA_MAX);
	if (!at.tb[RTA_OIF] || (int)nl_get_uint(at.tb[RTA_OIF]) != m->ifindex)
		return 0;
	if (m->want->plen && !attr_is(at.tb[RTA_DST], m->want))
		return 0;
	if (m->gw ? !attr_is(at.tb[RTA_GATEWAY], m->gw) : at.tb[RTA_GATEWAY] != NULL)
		return 0;
	m->found = true;
	return 0;
}

bool rtnl_route_has(struct nl_sock *s, int ifindex, const struct nk_ipnet *dst,
		    const struct nk_ipnet *gw, struct nl_err *err)
{
	struct match m = { ifindex, dst, gw, false };

	return dump_finds(s, RTM_GETROUTE, sizeof(struct rtmsg), route_cb, &m, err);
}
