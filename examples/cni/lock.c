// SPDX-License-Identifier: GPL-2.0
/*
 * One lock per attachment (container id + interface name): a file of
 * CNI_LOCK_DIR, flock'ed, named by attachment_name (attachname.c). ADD takes it before anything else, and its
 * children (nkctl, the IPAM plugin) inherit the descriptor (it is not
 * close-on-exec): a flock lasts while any process holds the open file, so
 * the lock is free only when the last process of that ADD is gone, also
 * after the runtime killed the plugin and a child still finishes the
 * syscall it was in. DEL and CHECK wait for it (bounded: CNI_LOCK_WAIT_MS,
 * then error 11, try again later); GC skips an attachment whose lock is
 * held (an ADD or DEL of it is under way: not stale now).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cni.h"

/* The lock directory: NKCTL_CNI_LOCK_DIR (tests), else CNI_LOCK_DIR. */
static const char *lock_dir(void)
{
	const char *d = getenv("NKCTL_CNI_LOCK_DIR");

	return d && *d == '/' ? d : CNI_LOCK_DIR;
}

int attachment_lock_path(const char *id, const char *ifname, char *buf, size_t len)
{
	char name[NAME_MAX + 1];
	int n;

	if (attachment_name(id, ifname, "", name, sizeof(name)))
		return -1;
	n = snprintf(buf, len, "%s/%s", lock_dir(), name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Its directory, 0700 (and /run/nkctl before it for the default, 0700 too:
 * nkctl keeps its NIC state there and refuses any other mode, so a plugin
 * that runs before any nkctl on a fresh node must not make it 0755). */
static int make_lock_dir(void)
{
	const char *d = lock_dir();

	if (!strcmp(d, CNI_LOCK_DIR) && mkdir(NK_CNI_RUN_DIR, 0700) && errno != EEXIST)
		return -errno;
	return mkdir(d, 0700) && errno != EEXIST ? -errno : 0;
}

int attachment_lock(const char *id, const char *ifname, unsigned int wait_ms, int *fd)
{
	const struct timespec tick = { 0, CNI_LOCK_TICK_MS * 1000 * 1000 };
	unsigned int waited = 0;
	struct stat a, b;
	char path[600];
	int f, ret;

	*fd = -1;
	if (attachment_lock_path(id, ifname, path, sizeof(path)))
		return -ENAMETOOLONG;
	if ((ret = make_lock_dir()))
		return ret;
	for (;;) {
		/* not O_CLOEXEC: the children hold the lock too */
		f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
		if (f < 0)
			return -errno;
		if (!flock(f, LOCK_EX | LOCK_NB)) {
			/* a DEL that finished removed the file it locked: that
			 * one is not the lock any more, the path's is */
			if (!fstat(f, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino) {
				*fd = f;
				return 0;
			}
			close(f);
			continue;
		}
		ret = errno;
		close(f);
		if (ret != EWOULDBLOCK)
			return -ret;
		if (waited >= wait_ms)
			return -EWOULDBLOCK;
		nanosleep(&tick, NULL);
		waited += CNI_LOCK_TICK_MS;
	}
}

void attachment_unlock(const char *id, const char *ifname, int fd, bool gone)
{
	char path[600];

	if (fd < 0)
		return;
	/* the attachment is gone: its lock file too, while it is held */
	if (gone && !attachment_lock_path(id, ifname, path, sizeof(path)))
		unlink(path);
	close(fd);
}
