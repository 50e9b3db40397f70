// SPDX-License-Identifier: GPL-2.0
/*
 * Many devices deleted at once (unlease of a runtime's many stale pods'
 * holders, each in its own namespace, which no one group delete reaches):
 * the deletions run in up to NK_LINK_DEL_PARALLEL forked workers, each
 * through sockets it opens itself (none shared with the parent or another
 * worker: a worker killed mid-request leaves its ACK on a socket that dies
 * with it), each result sent back through a pipe in one write (atomic:
 * below PIPE_BUF).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "core/linkdel.h"
#include "netkit.h"

struct del_result {
	size_t i;
	int ret;
	struct nl_err err;
};

_Static_assert(sizeof(struct del_result) <= PIPE_BUF, "a result is one atomic write");

/* The worker of d[i]: the one of the first device of its namespace, so a
 * worker opens one socket per namespace. */
static size_t worker_of(const struct nk_link_del *d, size_t i, size_t workers)
{
	size_t k = 0;

	while (d[k].ns != d[i].ns)
		k++;
	return k % workers;
}

/* d's device deleted through its namespace's socket in this process: the
 * parent's own, or one a worker opened after disowning the parent's. */
static void del_one(struct nk_link_del *d)
{
	struct nl_sock *rt;

	memset(&d->err, 0, sizeof(d->err));
	d->ret = nk_ns_rtnl_open(d->ns, &rt, &d->err);
	if (d->ret)
		snprintf(d->err.msg, sizeof(d->err.msg),
			 "the deleting process could not open its rtnetlink socket: %s",
			 strerror(d->err.code));
	else
		d->ret = rtnl_link_del(rt, d->ifindex, &d->err);
}

static void run_worker(struct nk_ctx *ctx, struct nk_link_del *d, size_t n, size_t w,
		       size_t workers, int out)
{
	nk_ctx_disown_sockets(ctx);
	for (size_t i = 0; i < n; i++) {
		struct del_result r = { .i = i };

		if (worker_of(d, i, workers) != w)
			continue;
		del_one(&d[i]);
		r.ret = d[i].ret;
		r.err = d[i].err;
		if (write(out, &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
	}
	_exit(0);
}

/* The results the workers sent, until every one has closed the pipe. */
static void read_results(struct nk_link_del *d, size_t n, int in)
{
	struct del_result r;

	while (read(in, &r, sizeof(r)) == (ssize_t)sizeof(r))
		if (r.i < n) {
			d[r.i].ret = r.ret;
			d[r.i].err = r.err;
		}
}

void nk_links_del(struct nk_ctx *ctx, struct nk_link_del *d, size_t n)
{
	size_t workers = n < NK_LINK_DEL_PARALLEL ? n : NK_LINK_DEL_PARALLEL, started = 0;
	pid_t pid[NK_LINK_DEL_PARALLEL];
	int p[2];

	for (size_t i = 0; i < n; i++) {
		d[i].ret = -ECHILD;     /* no worker said: not deleted */
		snprintf(d[i].err.msg, sizeof(d[i].err.msg), "the deleting process failed");
		d[i].err.code = ECHILD;
	}
	if (n < 2 || pipe(p)) {
		for (size_t i = 0; i < n; i++)
			del_one(&d[i]);
		return;
	}
	fflush(NULL);
	for (; started < workers; started++) {
		pid[started] = fork();
		if (pid[started] < 0)
			break;
		if (!pid[started]) {
			close(p[0]);
			run_worker(ctx, d, n, started, workers, p[1]);
		}
	}
	close(p[1]);
	read_results(d, n, p[0]);
	close(p[0]);
	for (size_t w = 0; w < started; w++)
		while (waitpid(pid[w], NULL, 0) < 0 && errno == EINTR)
			;
	/* a worker that could not start: its devices here, one by one */
	for (size_t i = 0; i < n && started < workers; i++)
		if (worker_of(d, i, workers) >= started)
			del_one(&d[i]);
}
