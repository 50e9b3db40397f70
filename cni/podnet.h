/* SPDX-License-Identifier: GPL-2.0 */
/* podnet.c: lib's rtnetlink sockets in the pod's and the host's namespace */
#ifndef NKCNI_PODNET_H
#define NKCNI_PODNET_H

#include <stddef.h>

struct nl_sock;
struct nl_err;
struct nk_link;

/* A socket in netns_fd's namespace (-1: this one); NULL when it cannot be
 * opened. */
struct nl_sock *podnet_open(int netns_fd);
void podnet_close(struct nl_sock *s);
/* ifname's link into *l: its ifindex, or -errno (-ENODEV: no such device). */
int podnet_link(struct nl_sock *s, const char *ifname, struct nk_link *l);
int podnet_ifindex(struct nl_sock *s, const char *ifname);
/* l's hardware address as text ("" when it has none). */
const char *podnet_mac(const struct nk_link *l, char *buf, size_t len);
/* What the kernel said: its extack message, else the errno's text. */
const char *podnet_why(const struct nl_err *e);

#endif
