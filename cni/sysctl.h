/* SPDX-License-Identifier: GPL-2.0 */
/* sysctl.c: what ADD sets in /proc/sys (0 or -errno) */
#ifndef NKCNI_SYSCTL_H
#define NKCNI_SYSCTL_H

struct pod_net;

int sysctl_set_in(int netns_fd, const char *path, const char *val);
int ipv6_enable_in(int netns_fd, const char *ifname);
int forwarding_enable(const struct pod_net *net);

#endif
