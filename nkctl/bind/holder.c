// SPDX-License-Identifier: GPL-2.0
/*
 * The holder: the process that keeps a devmem binding alive by keeping the
 * netlink socket that made it (and the dmabuf) open. It watches the bound
 * device and ends, removing its state, on SIGINT/SIGTERM or when the device
 * goes away. Three ways to hold: a detached holder (the default), in the
 * foreground, or around a command that gets the dmabuf.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "bind/bindings.h"
#include "bind/bindstate.h"
#include "bind/bindview.h"
#include "bpfutil.h"
#include "event.h"
#include "bind/holder.h"
#include "rtnl.h"
#include "store.h"

struct holder {
	struct nk_ctx *ctx;
	struct nk_binding *b;
	enum nk_hold_mode mode;
	int state_fd;            /* locked for as long as we live */
	struct nk_ev_loop ev;    /* RTNLGRP_LINK of the command's namespace, signals */
	bool ev_open;
	int status;              /* the exit status once holder_event ends the wait */
	char name[16], path[128];   /* the record in the store; its path */
	pid_t child;             /* NK_HOLD_COMMAND */
};

/* A message in the holder's voice: stderr in the foreground, syslog when
 * detached (its stderr is /dev/null). */
static void holder_say(const struct holder *h, const char *fmt, const char *arg)
{
	if (h->mode == NK_HOLD_DAEMON) {
		openlog("nkctl", LOG_PID, LOG_DAEMON);
		syslog(LOG_NOTICE, fmt, arg);
		closelog();
	} else {
		nk_error(0, fmt, arg);
	}
}

/* Is the bound device still here? Asked after the monitor lost messages. */
static bool device_present(struct nk_ctx *ctx, int ifindex)
{
	struct nl_sock *s;
	struct nk_link l;
	struct nl_err err;

	if (nk_ctx_rtnl(ctx, &s))
		return true;
	return rtnl_link_get(s, NULL, ifindex, &l, &err) != -ENODEV;
}

/* Is this link notification the deletion of the bound device? A device that
 * moves to another namespace keeps its binding, so a move is not an end. */
static bool is_deletion(const struct nlmsghdr *nlh, int ifindex)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a;

	if (nlh->nlmsg_type != RTM_DELLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
	    ifi->ifi_index != ifindex)
		return false;
	nl_parse_msg(&a, nlh, sizeof(*ifi), IFLA_MAX < 63 ? IFLA_MAX : 63);
	return !a.tb[IFLA_NEW_NETNSID] && !a.tb[IFLA_NEW_IFINDEX];
}

/* The detached holder keeps only what holds the binding. */
static void close_other_fds(const int *keep, size_t n)
{
	int fds[1024];
	size_t count = 0;
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return;
	while ((e = readdir(d)) && count < sizeof(fds) / sizeof(fds[0])) {
		int fd = atoi(e->d_name);
		bool kept = fd <= 2 || fd == dirfd(d) || e->d_name[0] == '.';

		for (size_t i = 0; i < n && !kept; i++)
			kept = fd == keep[i];
		if (!kept)
			fds[count++] = fd;
	}
	closedir(d);
	for (size_t i = 0; i < count; i++)
		close(fds[i]);
}

/* Keep the command's namespace with its sockets: its generic netlink socket
 * holds the binding (nk_hold left ctx no other namespace). */
static void close_other_fds_but_ctx(const struct nk_ctx *ctx, const int *keep, size_t n)
{
	const struct nk_ns *here = ctx->nns ? ctx->ns[0] : NULL;
	int all[10];
	size_t count = 0;

	for (size_t i = 0; i < n && count < 7; i++)
		all[count++] = keep[i];
	if (here && nl_is_open(&here->genl))
		all[count++] = mnl_socket_get_fd(here->genl.mnl);
	if (here && nl_is_open(&here->rtnl))
		all[count++] = mnl_socket_get_fd(here->rtnl.mnl);
	if (here)
		all[count++] = here->fd;
	close_other_fds(all, count);
}

/* The signals a holder waits for, through its event loop. */
static void holder_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
}

static void signals_unblock(void)
{
	sigset_t set;

	holder_sigset(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Exit status of a finished command, as a shell reports it. */
static int child_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return NK_EXIT_FAIL;
}

/* The bound device went away: the binding is over. 1 ends the wait. */
static int device_gone(struct holder *h)
{
	holder_say(h, "%s is gone; its binding ended", h->b->ifname);
	if (h->child > 0)
		kill(h->child, SIGTERM);
	if (h->mode == NK_HOLD_COMMAND)
		return 0; /* we end with the command */
	h->status = NK_EXIT_NOTFOUND;
	return 1;
}

static int holder_signal(struct holder *h, int signo)
{
	int status;

	if (signo == SIGCHLD) {
		if (h->child > 0 && waitpid(h->child, &status, WNOHANG) == h->child) {
			h->status = child_status(status);
			return 1;
		}
		return 0;
	}
	if (signo == SIGHUP && h->mode == NK_HOLD_DAEMON)
		return 0;
	if (h->child > 0) {
		/* The command decides how to end; we end with it. */
		kill(h->child, signo);
		return 0;
	}
	h->status = NK_EXIT_OK;
	return 1;
}

static int holder_event(const struct nk_ev *ev, void *data)
{
	struct holder *h = data;

	switch (ev->kind) {
	case NK_EV_SIGNAL:
		return holder_signal(h, ev->signo);
	case NK_EV_MSG:
		return is_deletion(ev->nlh, h->b->ifindex) ? device_gone(h) : 0;
	case NK_EV_LOST:
		/* Notifications were lost: ask whether the device is still here. */
		return device_present(h->ctx, h->b->ifindex) ? 0 : device_gone(h);
	default:
		return 0;
	}
}

/*
 * Wait for the end: a signal, the device's deletion, or (command mode) the
 * command's exit. Returns the exit status.
 */
static int holder_wait(struct holder *h)
{
	return nk_ev_run(&h->ev, holder_event, h) < 0 ? NK_EXIT_FAIL : h->status;
}

/* Give up the binding: socket first (the kernel unbinds), then the state,
 * then the lock, by exiting. */
static void holder_end(struct nk_ctx *ctx, struct holder *h, struct nk_dmabuf *d)
{
	nk_ctx_release(ctx);
	nk_dmabuf_close(d);
	nk_store_remove(NK_BIND_STATE_DIR, h->name);
	nk_ev_close(&h->ev);
	close(h->state_fd);
}

static int put_binding(FILE *f, const void *rec)
{
	nk_binding_state_format(f, rec);
	return 0;
}

/* The record in place, still locked by state_fd (the holder's lock). */
static int state_publish(struct holder *h)
{
	int ret = nk_store_publish(NK_BIND_STATE_DIR, h->name, h->state_fd, put_binding, h->b);

	if (ret)
		nk_store_abandon(NK_BIND_STATE_DIR, h->name);
	return ret;
}

static void print_held(struct nk_ctx *ctx, const struct nk_binding *b)
{
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "bindings");
	nk_print_binding(&ctx->out, b);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	nk_ctx_flush(ctx);
}

static void run_command(const struct nk_binding *b, const struct nk_dmabuf *d, char **cmd)
{
	char buf[32], queues[NK_BIND_MAX_QUEUES * 11 + 1] = "";
	size_t off = 0;

	signals_unblock();
	/* The dmabuf is the one descriptor the command inherits on purpose. */
	fcntl(d->fd, F_SETFD, 0);
	snprintf(buf, sizeof(buf), "%d", d->fd);
	setenv("NKCTL_DMABUF_FD", buf, 1);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)d->size);
	setenv("NKCTL_DMABUF_SIZE", buf, 1);
	snprintf(buf, sizeof(buf), "%u", b->id);
	setenv("NKCTL_BINDING_ID", buf, 1);
	setenv("NKCTL_BINDING_DIRECTION", b->rx ? "rx" : "tx", 1);
	setenv("NKCTL_IFNAME", b->ifname, 1);
	snprintf(buf, sizeof(buf), "%d", b->ifindex);
	setenv("NKCTL_IFINDEX", buf, 1);
	for (size_t i = 0; i < b->nqueues; i++)
		off += (size_t)snprintf(queues + off, sizeof(queues) - off, "%s%u",
					i ? "," : "", b->queues[i]);
	setenv("NKCTL_QUEUES", queues, 1);
	execvp(cmd[0], cmd);
	nk_error_errno(errno, "cannot run \"%s\"", cmd[0]);
	_exit(127);
}

/* The holder's events: link notifications of its namespace, its signals. */
static int holder_events(struct holder *h)
{
	sigset_t set;
	int src, ret;

	ret = nk_ev_init(&h->ev);
	if (ret)
		return nk_error_errno(-ret, "cannot watch %s", h->b->ifname);
	h->ev_open = true;
	src = nk_ev_netlink(&h->ev, NETLINK_ROUTE, false);
	ret = src < 0 ? src : nk_ev_join(&h->ev, src, RTNLGRP_LINK);
	if (ret)
		return nk_error_errno(-ret, "cannot watch %s", h->b->ifname);
	holder_sigset(&set);
	ret = nk_ev_signals(&h->ev, &set);
	if (ret < 0)
		return nk_error_errno(-ret, "cannot set up signal handling");
	return 0;
}

static int holder_setup(struct nk_ctx *ctx, struct holder *h, struct nk_binding *b,
			enum nk_hold_mode mode)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->ctx = ctx;
	h->b = b;
	h->mode = mode;
	h->state_fd = -1;
	ret = nk_private_dir(NK_RUN_DIR);
	if (!ret)
		ret = nk_private_dir(NK_BIND_STATE_DIR);
	if (ret == -EPERM)
		return nk_error(NK_EXIT_PERM,
				"%s must be a directory owned by this user with mode 0700 (no symlink); refusing to keep binding state there",
				NK_BIND_STATE_DIR);
	if (ret)
		return nk_error_errno(-ret, "cannot create %s", NK_BIND_STATE_DIR);
	nk_binding_state_path(h->path, sizeof(h->path), b->id);
	snprintf(h->name, sizeof(h->name), "%u", b->id);
	ret = nk_store_claim(NK_BIND_STATE_DIR, h->name, &h->state_fd);
	if (ret)
		return nk_error_errno(-ret, "cannot create and lock the record of binding %u in %s",
				      b->id, NK_BIND_STATE_DIR);
	ret = holder_events(h);
	if (ret)
		goto fail;
	return 0;
fail:
	nk_store_abandon(NK_BIND_STATE_DIR, h->name);
	if (h->ev_open)
		nk_ev_close(&h->ev);
	close(h->state_fd);
	signals_unblock();
	return ret;
}

static void holder_abort(struct holder *h)
{
	nk_store_abandon(NK_BIND_STATE_DIR, h->name);
	nk_ev_close(&h->ev);
	close(h->state_fd);
	signals_unblock();
}

static int hold_detached(struct nk_ctx *ctx, struct holder *h, struct nk_dmabuf *d)
{
	int keep[5] = { h->state_fd, d->fd };
	size_t nkeep = 2;
	int devnull, ret;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = nk_error_errno(errno, "cannot start the holder");
		holder_abort(h);
		return ret;
	}
	if (pid == 0) {
		int status;

		/* Detach from the caller's session and terminal. */
		setsid();
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
			close(devnull);
		}
		if (chdir("/"))
			_exit(NK_EXIT_FAIL);
		/* ctx's netlink sockets stay too: ctx->genl holds the binding. */
		for (size_t i = 0; i < h->ev.n && nkeep < 5; i++)
			keep[nkeep++] = nk_ev_fd(&h->ev, (int)i);
		close_other_fds_but_ctx(ctx, keep, nkeep);
		status = holder_wait(h);
		holder_end(ctx, h, d);
		_exit(status);
	}
	h->b->pid = pid;
	ret = state_publish(h);
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		holder_abort(h);
		return nk_error_errno(-ret, "cannot write %s", h->path);
	}
	print_held(ctx, h->b);
	/* Our copies go; the holder's keep the binding, the dmabuf and the lock. */
	close(h->state_fd);
	nk_ev_close(&h->ev);
	nk_dmabuf_close(d);
	signals_unblock();
	return NK_EXIT_OK;
}

int nk_hold(struct nk_ctx *ctx, struct nk_binding *b, struct nk_dmabuf *d,
	    enum nk_hold_mode mode, char **cmd)
{
	struct holder h;
	int ret;

	b->mode = mode;
	b->held = true;
	b->alive = true;
	/* A holder lives on in the command's namespace alone. */
	nk_ctx_forget_others(ctx);
	ret = holder_setup(ctx, &h, b, mode);
	if (ret)
		return ret;
	if (mode == NK_HOLD_DAEMON)
		return hold_detached(ctx, &h, d);

	b->pid = getpid();
	ret = state_publish(&h);
	if (ret) {
		holder_abort(&h);
		return nk_error_errno(-ret, "cannot write %s", h.path);
	}
	print_held(ctx, b);
	if (mode == NK_HOLD_COMMAND) {
		fflush(NULL);
		h.child = fork();
		if (h.child < 0) {
			ret = nk_error_errno(errno, "cannot start \"%s\"", cmd[0]);
			holder_end(ctx, &h, d);
			signals_unblock();
			return ret;
		}
		if (h.child == 0) {
			close(h.state_fd);
			nk_ev_close(&h.ev);
			run_command(b, d, cmd);
		}
	}
	ret = holder_wait(&h);
	holder_end(ctx, &h, d);
	signals_unblock();
	return ret;
}
