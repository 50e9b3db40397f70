// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/bpf.h>

#include "bpfutil.h"

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

int nk_bpffs_ensure(void)
{
	struct statfs st;

	if (statfs(NK_BPFFS, &st) == 0 && (uint32_t)st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", NK_BPFFS, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700"))
		return -errno;
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
