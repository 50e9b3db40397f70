/* SPDX-License-Identifier: GPL-2.0 */
/* Unit-test helpers: a netlink reply left unread on a socket, as a process
 * killed between its send and its read leaves one (test_ctx.c,
 * test_linkdel.c). */
#ifndef NKCTL_UNIT_NLUNREAD_H
#define NKCTL_UNIT_NLUNREAD_H

#include <stdbool.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "nl.h"

/* A request on s whose reply stays unread. Loopback (ifindex 1) is in
 * every namespace. */
static inline bool send_unread(struct nl_sock *s)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_GETLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = 1;
	return mnl_socket_sendto(s->mnl, nlh, nlh->nlmsg_len) == (ssize_t)nlh->nlmsg_len;
}

/* How many bytes wait to be read on s (-1: none). */
static inline ssize_t unread_on(const struct nl_sock *s)
{
	char buf[8192];

	return recv(mnl_socket_get_fd(s->mnl), buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC);
}

#endif
