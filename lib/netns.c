// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/vfs.h>

#include "netns.h"
#include "nl.h"


static int valid_name(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len < NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

#define NSFS_MAGIC 0x6e736673

/*
 * A namespace file lives on nsfs. Which kind it is, setns(CLONE_NEWNET)
 * checks when it is used (EINVAL); asking with the NS_GET_NSTYPE ioctl
 * here would be exact but valgrind does not know that ioctl.
 */
static bool is_ns_fd(int fd)
{
	struct statfs st;

	return fstatfs(fd, &st) == 0 && (unsigned long)st.f_type == NSFS_MAGIC;
}

int netns_open(const char *spec, int *fd)
{
	char path[PATH_MAX];
	int f;

	if (strchr(spec, '/')) {
		/* A path such as /proc/PID/ns/net is a magic link: follow it. */
		f = open(spec, O_RDONLY | O_CLOEXEC);
	} else {
		if (!valid_name(spec))
			return -EINVAL;
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, spec);
		/* A name is a bind mount under /run/netns, never a symlink. */
		f = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (f < 0)
		return -errno;
	if (!is_ns_fd(f)) {
		close(f);
		return -EINVAL;
	}
	*fd = f;
	return 0;
}

int netns_enter(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

int netns_open_current(int *fd)
{
	int f = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (f < 0)
		return -errno;
	*fd = f;
	return 0;
}

int netns_nl_open(struct nl_sock *s, int proto, int fd, struct nl_err *err)
{
	int cur = -1, ret;

	if (fd < 0)
		return nl_open(s, proto, err);
	ret = netns_open_current(&cur);
	if (ret) {
		nl_err_set(err, -ret, NULL);
		return ret;
	}
	ret = netns_enter(fd);
	if (ret) {
		nl_err_set(err, -ret, NULL);
		close(cur);
		return ret;
	}
	ret = nl_open(s, proto, err);
	/* Staying in the wrong namespace would be worse than stopping. */
	if (netns_enter(cur))
		abort();
	close(cur);
	return ret;
}

int netns_run(int fd, int (*fn)(void *arg), void *arg)
{
	int cur = -1, ret;

	if (fd < 0)
		return fn(arg);
	ret = netns_open_current(&cur);
	if (!ret)
		ret = netns_enter(fd);
	if (ret) {
		if (cur >= 0)
			close(cur);
		return ret;
	}
	ret = fn(arg);
	/* Staying in the wrong namespace would be worse than stopping. */
	if (netns_enter(cur))
		abort();
	close(cur);
	return ret;
}

struct socket_args {
	int family, type, s;
};

static int make_socket(void *arg)
{
	struct socket_args *a = arg;

	a->s = socket(a->family, a->type | SOCK_CLOEXEC, 0);
	return a->s < 0 ? -errno : 0;
}

int netns_socket(int fd, int family, int type, int *out)
{
	struct socket_args a = { family, type, -1 };
	int ret = netns_run(fd, make_socket, &a);

	if (!ret)
		*out = a.s;
	return ret;
}
