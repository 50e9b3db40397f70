/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event layer: netlink sockets joined to multicast groups (rtnetlink
 * groups by number, generic netlink groups by name), a periodic timer, a
 * watched directory and signals, all served by one receive loop that hands
 * each thing that happened to one callback. A socket that overran its
 * receive buffer (ENOBUFS) is reported as NK_EV_LOST so the caller can
 * resync. No globals: everything lives in struct nk_ev_loop.
 */
#ifndef NKCTL_EVENT_H
#define NKCTL_EVENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "genl.h"
#include "nl.h"

#define NK_EV_MAX_SOURCES 8
#define NK_EV_RECV_BUF (64 * 1024)
/* The nsid of a message from the socket's own namespace. */
#define NK_EV_NSID_LOCAL (-1)

enum nk_ev_kind {
	NK_EV_MSG,      /* one netlink notification: nlh, nsid */
	NK_EV_LOST,     /* a socket lost notifications (ENOBUFS): resync */
	NK_EV_TIMER,    /* the periodic timer fired (ticks: how many times) */
	NK_EV_FILE,     /* something changed in the watched directory: name, mask */
	NK_EV_SIGNAL,   /* signo arrived */
};

struct nk_ev {
	enum nk_ev_kind kind;
	int source;                     /* the socket (nk_ev_netlink's return) */
	int proto;                      /* its NETLINK_* protocol */
	const struct nlmsghdr *nlh;
	int32_t nsid;                   /* NK_EV_NSID_LOCAL, or the sender's nsid */
	uint64_t ticks;
	const char *name;               /* NK_EV_FILE: the entry, "" for the dir */
	uint32_t mask;                  /* NK_EV_FILE: IN_* bits */
	int signo;
};

/* Return 0 to go on, anything else to end the loop with that value. */
typedef int (*nk_ev_cb)(const struct nk_ev *ev, void *data);

enum nk_ev_type { NK_EVS_NETLINK, NK_EVS_TIMER, NK_EVS_INOTIFY, NK_EVS_SIGNAL };

struct nk_ev_source {
	enum nk_ev_type type;
	int fd;
	int proto;                      /* NK_EVS_NETLINK */
	bool all_nsid;
};

struct nk_ev_loop {
	struct nk_ev_source src[NK_EV_MAX_SOURCES];
	size_t n;
	char *buf;                      /* NK_EV_RECV_BUF bytes, shared by every source */
};

int nk_ev_init(struct nk_ev_loop *l);
/* Close every source. */
void nk_ev_close(struct nk_ev_loop *l);

/*
 * A netlink socket of protocol proto (in the calling thread's namespace),
 * bound to no group yet; all_nsid: also hear every namespace that has an
 * nsid here (NETLINK_LISTEN_ALL_NSID). Returns its source index or -errno.
 */
int nk_ev_netlink(struct nk_ev_loop *l, int proto, bool all_nsid);
/* Join multicast group (RTNLGRP_*, or a generic netlink group id). */
int nk_ev_join(struct nk_ev_loop *l, int source, uint32_t group);
/* Join fam's multicast group by name; -ENOENT when fam has no such group. */
int nk_ev_join_genl(struct nk_ev_loop *l, int source, const struct genl_family *fam,
		    const char *name);
/* A timer firing every ms milliseconds. Source index or -errno. */
int nk_ev_timer(struct nk_ev_loop *l, unsigned int ms);
/* Watch directory path for entries created, removed, moved or closed after
 * writing. Source index or -errno. */
int nk_ev_watch_dir(struct nk_ev_loop *l, const char *path);
/* Take the signals of set through the loop (they are blocked meanwhile).
 * Source index or -errno. */
int nk_ev_signals(struct nk_ev_loop *l, const sigset_t *set);
/* The file descriptor of a source (to keep across fork, to close in a child). */
int nk_ev_fd(const struct nk_ev_loop *l, int source);

/* Serve every source until cb returns non-zero (returned) or poll fails
 * (-errno). */
int nk_ev_run(struct nk_ev_loop *l, nk_ev_cb cb, void *data);

/*
 * Walk the netlink messages of one datagram of len bytes, calling cb with
 * NK_EV_MSG for each notification (errors, acks and NLMSG_DONE are skipped).
 * What nk_ev_run does after recvmsg; exposed for the fuzzer. Returns cb's
 * first non-zero value, or 0.
 */
int nk_ev_walk(const void *buf, size_t len, int source, int proto, int32_t nsid,
	       nk_ev_cb cb, void *data);

#endif
