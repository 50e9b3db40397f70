// SPDX-License-Identifier: GPL-2.0
/* rtnetlink (libmnl) for what nkctl does not do: the pod's and the host
 * side's addresses and routes, bringing links up, moving the lease holder
 * into the pod. A socket keeps the namespace it was opened in, so one
 * socket per namespace serves the whole command. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "cni.h"

struct rtnl {
	struct mnl_socket *nl;
	unsigned int seq, portid;
};

/* A socket in netns_fd's namespace (-1: this one). */
struct rtnl *rtnl_open_in(int netns_fd)
{
	int here = -1;
	struct rtnl *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (netns_fd >= 0) {
		here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (here < 0 || setns(netns_fd, CLONE_NEWNET)) {
			if (here >= 0)
				close(here);
			free(r);
			return NULL;
		}
	}
	r->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (r->nl && mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID)) {
		mnl_socket_close(r->nl);
		r->nl = NULL;
	}
	if (here >= 0) {
		/* Without the way back the plugin would go on in the pod. */
		if (setns(here, CLONE_NEWNET))
			abort();
		close(here);
	}
	if (!r->nl) {
		free(r);
		return NULL;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	r->seq = (unsigned int)time(NULL);
	return r;
}

void rtnl_close(struct rtnl *r)
{
	if (!r)
		return;
	mnl_socket_close(r->nl);
	free(r);
}

static struct nlmsghdr *msg_new(struct rtnl *r, char *buf, int type, int flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = (unsigned short)type;
	nlh->nlmsg_flags = (unsigned short)(NLM_F_REQUEST | flags);
	nlh->nlmsg_seq = ++r->seq;
	return nlh;
}

/* Send and run the answer through cb (a dump, or the ack): 0 or -errno. */
static int talk(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[32768]; /* a dump's batch of messages */
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(r->nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, r->portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static int ack(struct rtnl *r, struct nlmsghdr *nlh)
{
	return talk(r, nlh, NULL, NULL);
}

static struct ifinfomsg *link_msg(struct rtnl *r, char *buf, int type, int flags, int ifindex)
{
	struct nlmsghdr *nlh = msg_new(r, buf, type, flags);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return ifi;
}

struct link_info {
	int ifindex;
	char *mac;
	size_t mac_len;
	unsigned int flags, mtu;
};

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct link_info *li = data;
	const struct nlattr *a;
	size_t off = 0;

	li->ifindex = ifi->ifi_index;
	li->flags = ifi->ifi_flags;
	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		const unsigned char *b = mnl_attr_get_payload(a);

		if (mnl_attr_get_type(a) == IFLA_MTU && mnl_attr_get_payload_len(a) >= 4)
			li->mtu = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) != IFLA_ADDRESS || !li->mac)
			continue;
		for (uint16_t i = 0; i < mnl_attr_get_payload_len(a) && off + 4 <= li->mac_len; i++)
			off += (size_t)snprintf(li->mac + off, li->mac_len - off, "%s%02x", i ? ":" : "",
						b[i]);
	}
	return MNL_CB_OK;
}

/* The device's ifindex and, when mac is given, its hardware address as
 * text; -errno (-ENODEV when there is no such device). */
static int link_query(struct rtnl *r, const char *ifname, struct link_info *li)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	if (li->mac && li->mac_len)
		*li->mac = '\0';
	link_msg(r, buf, RTM_GETLINK, NLM_F_ACK, 0);
	mnl_attr_put_strz((struct nlmsghdr *)buf, IFLA_IFNAME, ifname);
	ret = talk(r, (struct nlmsghdr *)buf, link_cb, li);
	return ret ? ret : li->ifindex;
}

int rtnl_link_get(struct rtnl *r, const char *ifname, char *mac, size_t mac_len)
{
	struct link_info li = { 0, mac, mac_len, 0, 0 };

	return link_query(r, ifname, &li);
}

int rtnl_link_state(struct rtnl *r, const char *ifname, char *mac, size_t mac_len,
		    unsigned int *flags, unsigned int *mtu)
{
	struct link_info li = { 0, mac, mac_len, 0, 0 };
	int ret = link_query(r, ifname, &li);

	*flags = li.flags;
	*mtu = li.mtu;
	return ret;
}

int rtnl_ifindex(struct rtnl *r, const char *ifname)
{
	return rtnl_link_get(r, ifname, NULL, 0);
}

int rtnl_link_up(struct rtnl *r, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ifinfomsg *ifi = link_msg(r, buf, RTM_NEWLINK, NLM_F_ACK, ifindex);

	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return ack(r, (struct nlmsghdr *)buf);
}

int rtnl_link_move(struct rtnl *r, int ifindex, int netns_fd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	link_msg(r, buf, RTM_NEWLINK, NLM_F_ACK, ifindex);
	mnl_attr_put_u32((struct nlmsghdr *)buf, IFLA_NET_NS_FD, (uint32_t)netns_fd);
	return ack(r, (struct nlmsghdr *)buf);
}

int rtnl_link_del(struct rtnl *r, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	link_msg(r, buf, RTM_DELLINK, NLM_F_ACK, ifindex);
	return ack(r, (struct nlmsghdr *)buf);
}

int rtnl_link_set_alias(struct rtnl *r, int ifindex, const char *alias)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	link_msg(r, buf, RTM_NEWLINK, NLM_F_ACK, ifindex);
	mnl_attr_put_strz((struct nlmsghdr *)buf, IFLA_IFALIAS, alias);
	return ack(r, (struct nlmsghdr *)buf);
}

int rtnl_link_set_group(struct rtnl *r, int ifindex, uint32_t group)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	link_msg(r, buf, RTM_NEWLINK, NLM_F_ACK, ifindex);
	mnl_attr_put_u32((struct nlmsghdr *)buf, IFLA_GROUP, group);
	return ack(r, (struct nlmsghdr *)buf);
}

struct alias_walk {
	rtnl_alias_fn fn;
	void *data;
};

static int alias_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const char *ifname = NULL, *alias = NULL;
	struct alias_walk *w = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(*ifi)) {
		if (mnl_attr_get_type(a) == IFLA_IFNAME && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			ifname = mnl_attr_get_str(a);
		if (mnl_attr_get_type(a) == IFLA_IFALIAS && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			alias = mnl_attr_get_str(a);
	}
	if (ifname && alias)
		w->fn(ifname, alias, w->data);
	return MNL_CB_OK;
}

int rtnl_link_aliases(struct rtnl *r, rtnl_alias_fn fn, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct alias_walk w = { fn, data };

	link_msg(r, buf, RTM_GETLINK, NLM_F_DUMP, 0);
	return talk(r, (struct nlmsghdr *)buf, alias_cb, &w);
}

static size_t addr_len(const struct ipnet *a)
{
	return a->family == AF_INET ? 4 : 16;
}

/* The address with its prefix length; IPv6 without duplicate address
 * detection (the pod's address is IPAM's, and DAD would hold it back). */
int rtnl_addr_add(struct rtnl *r, int ifindex, const struct ipnet *a)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_new(r, buf, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

	ifa->ifa_family = (unsigned char)a->family;
	ifa->ifa_prefixlen = (unsigned char)a->plen;
	ifa->ifa_index = (unsigned int)ifindex;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	if (a->family == AF_INET6)
		ifa->ifa_flags = IFA_F_NODAD;
	mnl_attr_put(nlh, IFA_LOCAL, addr_len(a), a->addr);
	mnl_attr_put(nlh, IFA_ADDRESS, addr_len(a), a->addr);
	return ack(r, nlh);
}

/* dst through ifindex, via gw when given (else on the link). */
int rtnl_route_add(struct rtnl *r, int ifindex, const struct ipnet *dst, const struct ipnet *gw)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	/* Never replace: as a second network (Multus's net1) the pod's routes
	 * of its first network stay. */
	struct nlmsghdr *nlh = msg_new(r, buf, RTM_NEWROUTE, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
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
	return ack(r, nlh);
}

/* ---- reading back (CHECK) ---- */

struct match {
	int ifindex;
	const struct ipnet *want, *gw;
	bool found;
};

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= RTA_MAX && !mnl_attr_validate(a, MNL_TYPE_UNSPEC))
		tb[type] = a;
	return MNL_CB_OK;
}

static bool attr_is(const struct nlattr *a, const struct ipnet *n)
{
	return a && mnl_attr_get_payload_len(a) == addr_len(n) &&
	       !memcmp(mnl_attr_get_payload(a), n->addr, addr_len(n));
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct match *m = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };

	if ((int)ifa->ifa_index != m->ifindex || ifa->ifa_family != m->want->family ||
	    ifa->ifa_prefixlen != m->want->plen)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, tb);
	if (attr_is(tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS], m->want))
		m->found = true;
	return MNL_CB_OK;
}

bool rtnl_has_addr(struct rtnl *r, int ifindex, const struct ipnet *a)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_new(r, buf, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct match m = { ifindex, a, NULL, false };

	ifa->ifa_family = (unsigned char)a->family;
	return !talk(r, nlh, addr_cb, &m) && m.found;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct match *m = data;
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };

	/* Any table: a chained sbr moves the pod's routes out of main. */
	if (rtm->rtm_family != m->want->family || rtm->rtm_dst_len != m->want->plen ||
	    rtm->rtm_type != RTN_UNICAST)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*rtm), attr_cb, tb);
	if (!tb[RTA_OIF] || (int)mnl_attr_get_u32(tb[RTA_OIF]) != m->ifindex)
		return MNL_CB_OK;
	if (m->want->plen && !attr_is(tb[RTA_DST], m->want))
		return MNL_CB_OK;
	if (m->gw ? !attr_is(tb[RTA_GATEWAY], m->gw) : tb[RTA_GATEWAY] != NULL)
		return MNL_CB_OK;
	m->found = true;
	return MNL_CB_OK;
}

bool rtnl_has_route(struct rtnl *r, int ifindex, const struct ipnet *dst, const struct ipnet *gw)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_new(r, buf, RTM_GETROUTE, NLM_F_DUMP);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct match m = { ifindex, dst, gw, false };

	rtm->rtm_family = (unsigned char)dst->family;
	return !talk(r, nlh, route_cb, &m) && m.found;
}
