// SPDX-License-Identifier: GPL-2.0
/* The plugin's own directories (podInfoDir, the lock directory): opened
 * without following a link, and only when they are the plugin's user's
 * (root's) and no one else may write in them; what is in them is then
 * reached through the directory's descriptor alone (openat, unlinkat,
 * renameat with O_NOFOLLOW), never by a path someone could swap a link
 * into. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privdir.h"

int private_dir_open(const char *dir, bool own_mode)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (own_mode ? fchmod(fd, 0700) != 0 : (st.st_mode & 022) != 0)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

const char *private_dir_refusal(int err)
{
	if (err == -ENOTDIR)
		return "a link or not a directory";
	if (err == -EPERM)
		return "not a directory of root's that only root can write (chown root: it, chmod 0700 it)";
	return strerror(-err);
}
