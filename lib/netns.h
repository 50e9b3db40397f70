/* SPDX-License-Identifier: GPL-2.0 */
/* Network namespaces by name (/run/netns/NAME) or path (/proc/PID/ns/net). */
#ifndef NKCTL_NETNS_H
#define NKCTL_NETNS_H

#define NETNS_RUN_DIR "/run/netns"

/* Open a netns; *fd gets an O_CLOEXEC descriptor. Returns 0 or -errno
 * (-EINVAL: a bad name or a file that is not a network namespace). */
int netns_open(const char *spec, int *fd);
/* setns() into fd; no remounts. Returns 0 or -errno. */
int netns_enter(int fd);
/* A descriptor of the calling thread's current netns. */
int netns_open_current(int *fd);

#endif
