/* SPDX-License-Identifier: GPL-2.0 */
/* Network namespaces by name (/run/netns/NAME) or path (/proc/PID/ns/net). */
#ifndef NKCTL_NETNS_H
#define NKCTL_NETNS_H

#define NETNS_RUN_DIR "/run/netns"

/* Open a netns; *fd gets an O_CLOEXEC descriptor. Returns 0 or -errno
 * (-EINVAL: a bad name, or a file that is no namespace; -ELOOP: a name
 * that is a symlink, never followed; that it is a network
 * namespace is checked by setns() when it is used). */
int netns_open(const char *spec, int *fd);
/* setns() into fd; no remounts. Returns 0 or -errno. */
int netns_enter(int fd);
/* A descriptor of the calling thread's current netns. */
int netns_open_current(int *fd);

struct nl_sock;
struct nl_err;
/* Open a netlink socket that lives in netns fd (-1: the current one); the
 * calling thread's netns is restored before returning. */
int netns_nl_open(struct nl_sock *s, int proto, int fd, struct nl_err *err);

/* A socket(family, type) that lives in netns fd (-1: the current one), for
 * ioctls that act in its namespace; *out gets it (O_CLOEXEC). */
int netns_socket(int fd, int family, int type, int *out);

/* Run fn(arg) in netns fd (-1: the current one), the calling thread's
 * netns restored after it: for calls that resolve an ifindex in the
 * caller's namespace (BPF_LINK_CREATE). fn's value, or -errno when the
 * namespace cannot be entered. */
int netns_run(int fd, int (*fn)(void *arg), void *arg);

#endif
