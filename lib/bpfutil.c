// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/bpf.h>

#include "bpfutil.h"
#include "store.h"

#define BPF_FS_MAGIC 0xcafe4a11

static long sys_bpf(int cmd, void *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size);
}

static void put32(unsigned char *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static void put64(unsigned char *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static uint32_t get32(const unsigned char *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, 4);
	return v;
}

int nk_bpf_link_info(int fd, struct nk_bpf_link *out)
{
	/* struct bpf_link_info is 64 bytes in 7.3; tcx and netkit keep ifindex
	 * and attach_type at offsets 16 and 20 of it. */
	unsigned char info[64] = { 0 }, attr[16] = { 0 };

	put32(attr, 0, (uint32_t)fd);            /* info.bpf_fd */
	put32(attr, 4, sizeof(info));            /* info.info_len */
	put64(attr, 8, (uint64_t)(uintptr_t)info);
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, attr, sizeof(attr)) < 0)
		return -errno;
	out->type = get32(info, 0);
	out->id = get32(info, 4);
	out->prog_id = get32(info, 8);
	out->ifindex = get32(info, 16);
	out->attach_type = get32(info, 20);
	return 0;
}

int nk_bpf_query(int ifindex, uint32_t attach_type, uint32_t *prog_ids,
		 uint32_t *link_ids, uint32_t *count)
{
	/* query: target 0, attach_type 4, query_flags 8, attach_flags 12,
	 * prog_ids 16, count 24, prog_attach_flags 32, link_ids 40,
	 * link_attach_flags 48, revision 56. */
	unsigned char attr[64] = { 0 };

	put32(attr, 0, (uint32_t)ifindex);
	put32(attr, 4, attach_type);
	put64(attr, 16, (uint64_t)(uintptr_t)prog_ids);
	put32(attr, 24, *count);
	put64(attr, 40, (uint64_t)(uintptr_t)link_ids);
	if (sys_bpf(BPF_PROG_QUERY, attr, sizeof(attr)) < 0 && errno != ENOSPC)
		return -errno;
	*count = get32(attr, 24);
	return 0;
}

static bool is_bpffs(const char *path, struct stat *st)
{
	struct statfs fs;

	return statfs(path, &fs) == 0 && (uint32_t)fs.f_type == BPF_FS_MAGIC && stat(path, st) == 0;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');  /* after the command name, which may hold anything */
	return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

static bool mntns_of(pid_t pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return stat(path, st) == 0;
}

/*
 * The process whose mount namespace is the host's: PID 1, or when its
 * namespaces cannot be read (a container), the outermost ancestor whose can.
 * 0 when none.
 */
static pid_t host_pid(void)
{
	struct stat st;
	pid_t best = 0, pid;

	if (mntns_of(1, &st))
		return 1;
	pid = getpid();
	for (int i = 0; i < 256 && pid > 1; i++, pid = parent_of(pid))
		if (mntns_of(pid, &st))
			best = pid;
	return best;
}

/*
 * Mount bpffs on NK_BPFFS unless it is one: under a lock, looking again once
 * it is held, so that commands starting at once on a fresh machine mount one
 * bpffs between them and all use it (two stacked mounts hide the lower one's
 * pins from everyone who comes later).
 */
static int mount_bpffs_once(void)
{
	struct stat st;
	int fd, ret = nk_private_dir(NK_BPFFS_LOCK_DIR);

	if (!ret)
		ret = nk_store_lock(NK_BPFFS_LOCK_DIR, "bpffs", true, &fd);
	if (ret)
		return ret;
	if (!is_bpffs(NK_BPFFS, &st) &&
	    mount("bpf", NK_BPFFS, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700"))
		ret = -errno;
	close(fd);  /* drops the lock */
	return ret;
}

int nk_bpffs_root(bool may_mount, char *buf, size_t len)
{
	struct stat here, host, self, init;
	bool here_ok = is_bpffs(NK_BPFFS, &here);
	pid_t hp = host_pid();
	char host_path[64];

	if (!hp || !mntns_of(getpid(), &self) || !mntns_of(hp, &init) ||
	    (self.st_dev == init.st_dev && self.st_ino == init.st_ino)) {
		/* The host's mount namespace (or no way to tell). */
		if (!here_ok && !may_mount)
			return -ENOENT;
		if (!here_ok) {
			int ret = mount_bpffs_once();

			if (ret)
				return ret;
		}
		snprintf(buf, len, "%s", NK_BPFFS);
		return 0;
	}
	snprintf(host_path, sizeof(host_path), "/proc/%d/root%s", (int)hp, NK_BPFFS);
	if (!is_bpffs(host_path, &host))
		return -EXDEV;
	/* The same bpffs seen from here (bind-mounted in): the short path. */
	snprintf(buf, len, "%s", here_ok && here.st_dev == host.st_dev ? NK_BPFFS : host_path);
	return 0;
}

int nk_private_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}
