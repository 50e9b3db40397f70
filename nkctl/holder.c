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
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "bindings.h"
#include "bpfutil.h"
#include "rtnl.h"

struct holder {
	struct nk_binding *b;
	enum nk_hold_mode mode;
	int state_fd;            /* locked for as long as we live */
	int monitor_fd;          /* RTNLGRP_LINK of the command's namespace */
	int signal_fd;
	char tmp_path[160], path[128];
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

static int monitor_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
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

/* Read link notifications; true when the device was deleted. A device that
 * moves to another namespace keeps its binding, so a move is not an end. */
static bool device_gone(struct nk_ctx *ctx, const struct holder *h)
{
	char buf[16384];
	ssize_t got;

	while ((got = recv(h->monitor_fd, buf, sizeof(buf), 0)) != 0) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int len = (int)got;

		if (got < 0) {
			if (errno == ENOBUFS)
				return !device_present(ctx, h->b->ifindex);
			return false;
		}
		for (; nl_msg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
			struct nl_attrs a;

			if (nlh->nlmsg_type != RTM_DELLINK ||
			    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi) ||
			    ifi->ifi_index != h->b->ifindex)
				continue;
			nl_parse_msg(&a, nlh, sizeof(*ifi), IFLA_MAX < 63 ? IFLA_MAX : 63);
			if (a.tb[IFLA_NEW_NETNSID] || a.tb[IFLA_NEW_IFINDEX])
				continue;
			return true;
		}
	}
	return false;
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
	int all[9];
	size_t count = 0;

	for (size_t i = 0; i < n && count < 6; i++)
		all[count++] = keep[i];
	if (here && nl_is_open(&here->genl))
		all[count++] = mnl_socket_get_fd(here->genl.mnl);
	if (here && nl_is_open(&here->rtnl))
		all[count++] = mnl_socket_get_fd(here->rtnl.mnl);
	if (here)
		all[count++] = here->fd;
	close_other_fds(all, count);
}

/* The signals a holder waits for, through its signalfd. */
static void holder_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
}

static int signals_block(void)
{
	sigset_t set;

	holder_sigset(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
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

/*
 * Wait for the end: a signal, the device's deletion, or (command mode) the
 * command's exit. Returns the exit status.
 */
static int holder_wait(struct nk_ctx *ctx, struct holder *h)
{
	struct pollfd p[2] = {
		{ .fd = h->signal_fd, .events = POLLIN },
		{ .fd = h->monitor_fd, .events = POLLIN },
	};

	for (;;) {
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NK_EXIT_FAIL;
		}
		if (p[1].revents && device_gone(ctx, h)) {
			holder_say(h, "%s is gone; its binding ended", h->b->ifname);
			if (h->child > 0)
				kill(h->child, SIGTERM);
			if (h->mode != NK_HOLD_COMMAND)
				return NK_EXIT_NOTFOUND;
		}
		while (read(h->signal_fd, &si, sizeof(si)) == sizeof(si)) {
			int status;

			if (si.ssi_signo == SIGCHLD) {
				if (h->child > 0 && waitpid(h->child, &status, WNOHANG) == h->child)
					return child_status(status);
				continue;
			}
			if (si.ssi_signo == SIGHUP && h->mode == NK_HOLD_DAEMON)
				continue;
			if (h->child > 0) {
				/* The command decides how to end; we end with it. */
				kill(h->child, (int)si.ssi_signo);
				continue;
			}
			return NK_EXIT_OK;
		}
	}
}

/* Give up the binding: socket first (the kernel unbinds), then the state,
 * then the lock, by exiting. */
static void holder_end(struct nk_ctx *ctx, struct holder *h, struct nk_dmabuf *d)
{
	nk_ctx_release(ctx);
	nk_dmabuf_close(d);
	unlink(h->path);
	close(h->monitor_fd);
	close(h->signal_fd);
	close(h->state_fd);
}

static int state_publish(struct holder *h)
{
	int ret = nk_binding_state_write(h->state_fd, h->b);

	if (!ret && rename(h->tmp_path, h->path))
		ret = -errno;
	if (ret)
		unlink(h->tmp_path);
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
	fprintf(stderr, "Error: cannot run \"%s\": %s\n", cmd[0], strerror(errno));
	_exit(127);
}

static int holder_setup(struct holder *h, struct nk_binding *b, enum nk_hold_mode mode)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->b = b;
	h->mode = mode;
	h->state_fd = h->monitor_fd = h->signal_fd = -1;
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
	snprintf(h->tmp_path, sizeof(h->tmp_path), NK_BIND_STATE_DIR "/.%u.%d", b->id,
		 (int)getpid());
	h->state_fd = open(h->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			   0600);
	if (h->state_fd < 0)
		return nk_error_errno(errno, "cannot create %s", h->tmp_path);
	if (flock(h->state_fd, LOCK_EX | LOCK_NB)) {
		ret = nk_error_errno(errno, "cannot lock %s", h->tmp_path);
		goto fail;
	}
	h->monitor_fd = monitor_open();
	if (h->monitor_fd < 0) {
		ret = nk_error_errno(-h->monitor_fd, "cannot watch %s", b->ifname);
		goto fail;
	}
	h->signal_fd = signals_block();
	if (h->signal_fd < 0) {
		ret = nk_error_errno(errno, "cannot set up signal handling");
		goto fail;
	}
	return 0;
fail:
	unlink(h->tmp_path);
	if (h->monitor_fd >= 0)
		close(h->monitor_fd);
	close(h->state_fd);
	return ret;
}

static void holder_abort(struct holder *h)
{
	unlink(h->tmp_path);
	close(h->monitor_fd);
	close(h->signal_fd);
	close(h->state_fd);
	signals_unblock();
}

static int hold_detached(struct nk_ctx *ctx, struct holder *h, struct nk_dmabuf *d)
{
	int keep[4] = { h->state_fd, h->monitor_fd, h->signal_fd, d->fd };
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
		close_other_fds_but_ctx(ctx, keep, 4);
		status = holder_wait(ctx, h);
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
	close(h->monitor_fd);
	close(h->signal_fd);
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
	ret = holder_setup(&h, b, mode);
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
			close(h.monitor_fd);
			close(h.signal_fd);
			run_command(b, d, cmd);
		}
	}
	ret = holder_wait(ctx, &h);
	holder_end(ctx, &h, d);
	signals_unblock();
	return ret;
}
