// SPDX-License-Identifier: GPL-2.0
/*
 * One lock per attachment (container id + interface name): a file of
 * CNI_LOCK_DIR, flock'ed, named by attachment_name (attachname.c). ADD
 * takes it before anything else, and its children (nkctl, the IPAM plugin)
 * hold it too: a flock lasts while any process holds the open file, so the
 * lock is free only when the last process of that ADD is gone, also after
 * the runtime killed the plugin and a child still finishes the syscall it
 * was in. The descriptor is close-on-exec all the same: GC holds many,
 * and child_start hands a child only the ones of the attachments it works
 * on (struct held_locks). DEL and CHECK wait for it (bounded:
 * CNI_LOCK_WAIT_MS, then error 11, try again later); GC skips an
 * attachment whose lock is held (an ADD or DEL of it is under way: not
 * stale now). The directory is root's, 0700: a lock file is reached through
 * its descriptor alone, and one that is not a regular file of root's is
 * refused.
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

#include "lock.h"
#include "attachname.h"
#include "cni.h"
#include "privdir.h"

/* The lock directory: NKCTL_CNI_LOCK_DIR (tests), else CNI_LOCK_DIR. */
static const char *lock_dir(void)
{
	const char *d = getenv("NKCTL_CNI_LOCK_DIR");

	return d && *d == '/' ? d : CNI_LOCK_DIR;
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

/* The directory, made where missing, checked, opened: its fd or -errno. */
static int lock_dir_open(void)
{
	int ret = make_lock_dir();

	return ret ? ret : private_dir_open(lock_dir(), false);
}

/* name in dfd, opened (made where missing) without following a link: a
 * regular file of this user's, or -errno. */
static int lock_file_open(int dfd, const char *name)
{
	int f = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	if (f < 0)
		return -errno;
	if (fstat(f, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(f);
		return -EPERM;
	}
	return f;
}

/* Is f (flock'ed) still the file at name? A DEL that finished removed the
 * file it locked: that one is not the lock any more, name's is. */
static bool lock_file_current(int dfd, const char *name, int f)
{
	struct stat a, b;

	return !fstat(f, &a) && !fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* One try: 0 with *fd, -EWOULDBLOCK when it is held, 1 to try again at
 * once (a DEL removed it meanwhile), -errno. */
static int lock_try(int dfd, const char *name, int *fd)
{
	int f = lock_file_open(dfd, name), ret;

	if (f < 0)
		return f;
	if (flock(f, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
		close(f);
		return ret;
	}
	if (!lock_file_current(dfd, name, f)) {
		close(f);
		return 1;
	}
	*fd = f;
	return 0;
}

int attachment_lock(const char *id, const char *ifname, unsigned int wait_ms, int *fd)
{
	const struct timespec tick = { 0, CNI_LOCK_TICK_MS * 1000 * 1000 };
	unsigned int waited = 0;
	char name[NAME_MAX + 1];
	int dfd, ret;

	*fd = -1;
	if (attachment_name(id, ifname, "", name, sizeof(name)))
		return -EINVAL;
	if ((dfd = lock_dir_open()) < 0)
		return dfd;
	for (;;) {
		ret = lock_try(dfd, name, fd);
		if (ret == 1)
			continue;
		if (ret != -EWOULDBLOCK || waited >= wait_ms)
			break;
		nanosleep(&tick, NULL);
		waited += CNI_LOCK_TICK_MS;
	}
	close(dfd);
	return ret;
}

void attachment_unlock(const char *id, const char *ifname, int fd, bool gone)
{
	char name[NAME_MAX + 1];
	int dfd;

	if (fd < 0)
		return;
	/* the attachment is gone: its lock file too, while it is held */
	if (gone && !attachment_name(id, ifname, "", name, sizeof(name)) &&
	    (dfd = private_dir_open(lock_dir(), false)) >= 0) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
	close(fd);
}
