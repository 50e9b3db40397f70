// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>

#include "event.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int nk_ev_init(struct nk_ev_loop *l)
{
	memset(l, 0, sizeof(*l));
	l->buf = malloc(NK_EV_RECV_BUF);
	return l->buf ? 0 : -ENOMEM;
}

void nk_ev_close(struct nk_ev_loop *l)
{
	for (size_t i = 0; i < l->n; i++)
		close(l->src[i].fd);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

int nk_ev_fd(const struct nk_ev_loop *l, int source)
{
	return source >= 0 && (size_t)source < l->n ? l->src[source].fd : -1;
}

/* Take fd as a new source, or close it when there is no room. */
static int add_source(struct nk_ev_loop *l, enum nk_ev_type type, int fd, int proto,
		      bool all_nsid)
{
	if (fd < 0)
		return -errno;
	if (l->n == NK_EV_MAX_SOURCES) {
		close(fd);
		return -ENOSPC;
	}
	l->src[l->n] = (struct nk_ev_source){ type, fd, proto, all_nsid };
	return (int)l->n++;
}

static int fail_close(int fd)
{
	int err = -errno;

	close(fd);
	return err;
}

int nk_ev_netlink(struct nk_ev_loop *l, int proto, bool all_nsid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, proto);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fail_close(fd);
	if (all_nsid &&
	    setsockopt(fd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one, sizeof(one)))
		return fail_close(fd);
	return add_source(l, NK_EVS_NETLINK, fd, proto, all_nsid);
}

int nk_ev_join(struct nk_ev_loop *l, int source, uint32_t group)
{
	int fd = nk_ev_fd(l, source);

	if (fd < 0 || !group)
		return -EINVAL;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)))
		return -errno;
	return 0;
}

int nk_ev_join_genl(struct nk_ev_loop *l, int source, const struct genl_family *fam,
		    const char *name)
{
	uint32_t id = genl_mcast_id(fam, name);

	return id ? nk_ev_join(l, source, id) : -ENOENT;
}

int nk_ev_timer(struct nk_ev_loop *l, unsigned int ms)
{
	struct itimerspec it = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	it.it_interval = it.it_value;
	if (timerfd_settime(fd, 0, &it, NULL))
		return fail_close(fd);
	return add_source(l, NK_EVS_TIMER, fd, 0, false);
}

int nk_ev_watch_dir(struct nk_ev_loop *l, const char *path)
{
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (inotify_add_watch(fd, path, IN_CREATE | IN_DELETE | IN_MOVED_TO |
			      IN_MOVED_FROM | IN_CLOSE_WRITE | IN_ONLYDIR) < 0)
		return fail_close(fd);
	return add_source(l, NK_EVS_INOTIFY, fd, 0, false);
}

int nk_ev_signals(struct nk_ev_loop *l, const sigset_t *set)
{
	if (sigprocmask(SIG_BLOCK, set, NULL))
		return -errno;
	return add_source(l, NK_EVS_SIGNAL, signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK),
			  0, false);
}

int nk_ev_walk(const void *buf, size_t len, int source, int proto, int32_t nsid,
	       nk_ev_cb cb, void *data)
{
	const struct nlmsghdr *nlh = buf;
	int left = len > (size_t)INT32_MAX ? INT32_MAX : (int)len;
	struct nk_ev ev = { .kind = NK_EV_MSG, .source = source, .proto = proto,
			    .nsid = nsid };

	for (; nl_msg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		int ret;

		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		ev.nlh = nlh;
		ret = cb(&ev, data);
		if (ret)
			return ret;
	}
	return 0;
}

/* The sender's nsid from the control messages, or NK_EV_NSID_LOCAL. */
static int32_t msg_nsid(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		int32_t nsid;

		if (c->cmsg_level != SOL_NETLINK || c->cmsg_type != NETLINK_LISTEN_ALL_NSID ||
		    c->cmsg_len < CMSG_LEN(sizeof(nsid)))
			continue;
		memcpy(&nsid, CMSG_DATA(c), sizeof(nsid));
		return nsid;
	}
	return NK_EV_NSID_LOCAL;
}

/* One datagram: >0 its length, 0 nothing more for now, -ENOBUFS, -errno. */
static ssize_t recv_dgram(struct nk_ev_loop *l, int fd, int32_t *nsid)
{
	char control[CMSG_SPACE(sizeof(int32_t)) * 2];
	struct iovec iov = { l->buf, NK_EV_RECV_BUF };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof(control) };
	ssize_t n;

	do {
		n = recvmsg(fd, &mh, MSG_TRUNC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	/* A notification larger than the buffer is cut: say lost, resync. */
	if ((size_t)n > NK_EV_RECV_BUF)
		return -ENOBUFS;
	*nsid = msg_nsid(&mh);
	return n;
}

/* After an overrun, what is still queued is older than any re-dump the
 * caller makes next: drop it, or it would be applied on top of the re-dump. */
static void drain(struct nk_ev_loop *l, int fd)
{
	int32_t nsid;
	ssize_t n;

	do
		n = recv_dgram(l, fd, &nsid);
	while (n > 0 || n == -ENOBUFS);
}

static int report_lost(struct nk_ev_loop *l, int i, nk_ev_cb cb, void *data)
{
	struct nk_ev ev = { .kind = NK_EV_LOST, .source = i, .proto = l->src[i].proto,
			    .nsid = NK_EV_NSID_LOCAL };

	drain(l, l->src[i].fd);
	return cb(&ev, data);
}

/* At most NK_EV_BATCH datagrams per round, so that the other sources (a
 * signal) are served during a flood. */
#define NK_EV_BATCH 256

static int serve_netlink(struct nk_ev_loop *l, int i, nk_ev_cb cb, void *data)
{
	const struct nk_ev_source *s = &l->src[i];

	for (int round = 0; round < NK_EV_BATCH; round++) {
		int32_t nsid = NK_EV_NSID_LOCAL;
		ssize_t n = recv_dgram(l, s->fd, &nsid);
		int ret;

		if (n == -ENOBUFS) {
			ret = report_lost(l, i, cb, data);
		} else if (n < 0) {
			return (int)n;
		} else if (n == 0) {
			return 0;
		} else {
			ret = nk_ev_walk(l->buf, (size_t)n, i, s->proto, nsid, cb, data);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int serve_timer(struct nk_ev_loop *l, int i, nk_ev_cb cb, void *data)
{
	struct nk_ev ev = { .kind = NK_EV_TIMER, .source = i };

	if (read(l->src[i].fd, &ev.ticks, sizeof(ev.ticks)) != sizeof(ev.ticks))
		return 0;
	return cb(&ev, data);
}

static int serve_inotify(struct nk_ev_loop *l, int i, nk_ev_cb cb, void *data)
{
	ssize_t n;

	while ((n = read(l->src[i].fd, l->buf, NK_EV_RECV_BUF)) > 0) {
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
			const struct inotify_event *ie = (const void *)(l->buf + off);
			struct nk_ev ev = { .kind = NK_EV_FILE, .source = i, .mask = ie->mask,
					    .name = ie->len ? ie->name : "" };
			int ret = cb(&ev, data);

			if (ret)
				return ret;
			off += (ssize_t)sizeof(*ie) + ie->len;
		}
	}
	return 0;
}

static int serve_signal(struct nk_ev_loop *l, int i, nk_ev_cb cb, void *data)
{
	struct signalfd_siginfo si;

	while (read(l->src[i].fd, &si, sizeof(si)) == sizeof(si)) {
		struct nk_ev ev = { .kind = NK_EV_SIGNAL, .source = i, .signo = (int)si.ssi_signo };
		int ret = cb(&ev, data);

		if (ret)
			return ret;
	}
	return 0;
}

static int serve(struct nk_ev_loop *l, int i, nk_ev_cb cb, void *data)
{
	switch (l->src[i].type) {
	case NK_EVS_NETLINK:
		return serve_netlink(l, i, cb, data);
	case NK_EVS_TIMER:
		return serve_timer(l, i, cb, data);
	case NK_EVS_INOTIFY:
		return serve_inotify(l, i, cb, data);
	case NK_EVS_SIGNAL:
		return serve_signal(l, i, cb, data);
	}
	return 0;
}

int nk_ev_run(struct nk_ev_loop *l, nk_ev_cb cb, void *data)
{
	struct pollfd p[NK_EV_MAX_SOURCES];

	for (size_t i = 0; i < l->n; i++)
		p[i] = (struct pollfd){ .fd = l->src[i].fd, .events = POLLIN };
	for (;;) {
		if (poll(p, l->n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* Signals first: an end asked for is not kept waiting behind a flood. */
		for (int pass = 0; pass < 2; pass++) {
			for (size_t k = 0; k < l->n; k++) {
				int ret;

				if (!p[k].revents || (l->src[k].type == NK_EVS_SIGNAL) != !pass)
					continue;
				ret = serve(l, (int)k, cb, data);
				if (ret)
					return ret;
			}
		}
	}
}
