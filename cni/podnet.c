// SPDX-License-Identifier: GPL-2.0
/* The plugin's rtnetlink sockets: lib's, one per namespace (the pod's and
 * the host's). A socket keeps the namespace it was opened in, so one serves
 * the whole command. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "podnet.h"
#include "netns.h"
#include "nl.h"
#include "rtnl.h"

struct nl_sock *podnet_open(int netns_fd)
{
	struct nl_sock *s = calloc(1, sizeof(*s));
	struct nl_err err;

	if (s && netns_nl_open(s, NETLINK_ROUTE, netns_fd, &err)) {
		free(s);
		s = NULL;
	}
	return s;
}

void podnet_close(struct nl_sock *s)
{
	if (!s)
		return;
	nl_close(s);
	free(s);
}

int podnet_link(struct nl_sock *s, const char *ifname, struct nk_link *l)
{
	struct nl_err err;
	int ret = rtnl_link_get(s, ifname, 0, l, &err);

	return ret ? ret : l->ifindex;
}

int podnet_ifindex(struct nl_sock *s, const char *ifname)
{
	struct nk_link l;

	return podnet_link(s, ifname, &l);
}

const char *podnet_mac(const struct nk_link *l, char *buf, size_t len)
{
	size_t off = 0;

	*buf = '\0';
	for (size_t i = 0; i < l->addr_len && off + 4 <= len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%02x", i ? ":" : "", l->addr[i]);
	return buf;
}

const char *podnet_why(const struct nl_err *e)
{
	return *e->msg ? e->msg : strerror(e->code);
}
