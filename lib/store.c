// SPDX-License-Identifier: GPL-2.0
/* Lock an object, read its record, write it atomically (store.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "store.h"

/* <dir>/<prefix><name>; -ENAMETOOLONG when it does not fit. */
static int store_path(char *buf, size_t len, const char *dir, const char *prefix,
		      const char *name)
{
	int n = snprintf(buf, len, "%s/%s%s", dir, prefix, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int nk_store_lock(const char *dir, const char *name, bool wait, int *fd)
{
	char path[PATH_MAX];
	int ret = store_path(path, sizeof(path), dir, ".lock-", name);

	if (ret)
		return ret;
	*fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*fd < 0)
		return -errno;
	if (flock(*fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
		ret = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
		close(*fd);
		return ret;
	}
	/* Temporary files are written under this lock: one there now is a
	 * killed writer's, whose record may never be written again. */
	if (!store_path(path, sizeof(path), dir, ".tmp.", name))
		unlink(path);
	return 0;
}

pid_t nk_flock_holder(int fd)
{
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	char line[256];
	FILE *f;
	int pid, id = 0;

	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!id && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj, &min, &ino) == 4 &&
		    maj == major(st.st_dev) && min == minor(st.st_dev) && ino == st.st_ino)
			id = pid;
	fclose(f);
	return (pid_t)id;
}

int nk_store_lock_for(const char *dir, const char *name, unsigned int secs, int *fd,
		      pid_t *holder)
{
	/* Looked at every 20 ms: a holder a user could stall is not waited
	 * for in the kernel, so the wait has an end. */
	unsigned long tries = secs * 50UL;
	int ret = nk_store_lock(dir, name, false, fd), lfd;
	char path[PATH_MAX];

	for (; ret == -EWOULDBLOCK && tries; tries--) {
		usleep(20000);
		ret = nk_store_lock(dir, name, false, fd);
	}
	*holder = 0;
	if (ret != -EWOULDBLOCK || !secs)
		return ret;
	if (!store_path(path, sizeof(path), dir, ".lock-", name) &&
	    (lfd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		*holder = nk_flock_holder(lfd);
		close(lfd);
	}
	return -ETIMEDOUT;
}

/* Is fd still the file at path (not removed or replaced meanwhile)? */
static bool is_file_at(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int nk_store_lock_dir(const char *path, int *fd)
{
	int ret;

	*fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	if (flock(*fd, LOCK_EX)) {
		ret = -errno;
		close(*fd);
		*fd = -1;
		return ret;
	}
	if (is_file_at(*fd, path))
		return 0;
	close(*fd);
	*fd = -1;
	return -ESTALE;
}

FILE *nk_store_open(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int ret = store_path(path, sizeof(path), dir, "", name);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	return fopen(path, "re");
}

/* The object's own temporary file, new: one a killed writer left goes. */
static int open_tmp(const char *tmp)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 && errno == EEXIST) {
		if (unlink(tmp) && errno != ENOENT)
			return -errno;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	return fd < 0 ? -errno : fd;
}

static int fill(int fd, int (*put)(FILE *f, const void *rec), const void *rec)
{
	FILE *f = fdopen(fd, "w");
	int ret;

	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = put(f, rec);
	if ((fflush(f) || ferror(f) || fsync(fileno(f))) && !ret)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int nk_store_write(const char *dir, const char *name, int (*put)(FILE *f, const void *rec),
		   const void *rec)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd, ret = store_path(path, sizeof(path), dir, "", name);

	if (!ret)
		ret = store_path(tmp, sizeof(tmp), dir, ".tmp.", name);
	if (ret)
		return ret;
	fd = open_tmp(tmp);
	if (fd < 0)
		return fd;
	ret = fill(fd, put, rec);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	sync_dir(dir);
	return 0;
}

/* A killed claimer's temporary file at tmp goes; one whose lock is held, or
 * that is no longer the file at tmp, stays. 0, or -EBUSY when it is held. */
static int drop_dead_claim(const char *tmp)
{
	int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (flock(fd, LOCK_EX | LOCK_NB))
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
	else if (is_file_at(fd, tmp))
		unlink(tmp);
	close(fd);
	return ret;
}

int nk_store_claim(const char *dir, const char *name, int *fd)
{
	char tmp[PATH_MAX];
	int ret = store_path(tmp, sizeof(tmp), dir, ".tmp.", name);

	for (int tries = 0; !ret && tries < 3; tries++) {
		*fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (*fd < 0) {
			ret = errno == EEXIST ? drop_dead_claim(tmp) : -errno;
			continue;
		}
		if (!flock(*fd, LOCK_EX | LOCK_NB))
			return 0;
		ret = -errno;
		close(*fd);
		unlink(tmp);
	}
	*fd = -1;
	return ret ? ret : -EBUSY;
}

int nk_store_publish(const char *dir, const char *name, int fd,
		     int (*put)(FILE *f, const void *rec), const void *rec)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int dupfd, ret = store_path(path, sizeof(path), dir, "", name);

	if (!ret)
		ret = store_path(tmp, sizeof(tmp), dir, ".tmp.", name);
	if (ret)
		return ret;
	/* fill closes what it is given; the claim's fd keeps the lock. */
	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	ret = fill(dupfd, put, rec);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		return ret;
	sync_dir(dir);
	return 0;
}

int nk_store_abandon(const char *dir, const char *name)
{
	char tmp[PATH_MAX];
	int ret = store_path(tmp, sizeof(tmp), dir, ".tmp.", name);

	return ret ? ret : unlink(tmp) && errno != ENOENT ? -errno : 0;
}

int nk_store_remove(const char *dir, const char *name)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int ret = store_path(path, sizeof(path), dir, "", name);

	if (!ret)
		ret = store_path(tmp, sizeof(tmp), dir, ".tmp.", name);
	if (ret)
		return ret;
	unlink(tmp);
	return unlink(path) && errno != ENOENT ? -errno : 0;
}
