// SPDX-License-Identifier: GPL-2.0
/* dmabuf creation: udmabuf, dma-heap, or a descriptor handed in. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "compat.h"
#include "dmabuf.h"

/* Bookworm's headers predate some of these. */
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#define NK_MFD_HUGE_2MB (21U << 26)
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SHRINK 0x0002
#endif
#define NK_DMA_BUF_MAGIC 0x444d4142  /* "DMAB": the dmabuf pseudo file system */

struct nk_udmabuf_create {
	uint32_t memfd;
	uint32_t flags;
	uint64_t offset;
	uint64_t size;
};

struct nk_dma_heap_alloc {
	uint64_t len;
	uint32_t fd;
	uint32_t fd_flags;
	uint64_t heap_flags;
};

_Static_assert(sizeof(struct nk_udmabuf_create) == 24, "udmabuf_create is 24 bytes");
_Static_assert(sizeof(struct nk_dma_heap_alloc) == 24, "dma_heap_allocation_data is 24 bytes");

static int fail(const char **step, const char *what)
{
	int err = errno;

	*step = what;
	return -err;
}

static void dmabuf_init(struct nk_dmabuf *d, enum nk_dmabuf_kind kind)
{
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->fd = -1;
}

int nk_dmabuf_udmabuf(uint64_t size, bool hugepages, struct nk_dmabuf *d,
		      const char **step)
{
	struct nk_udmabuf_create create = { 0 };
	unsigned int mfd_flags = MFD_ALLOW_SEALING;
	int dev, memfd, fd, ret;

	dmabuf_init(d, NK_DMABUF_UDMABUF);
	d->size = size;
	d->hugepages = hugepages;
	if (hugepages)
		mfd_flags |= MFD_HUGETLB | NK_MFD_HUGE_2MB;

	dev = open(NK_UDMABUF_DEV, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return fail(step, "open " NK_UDMABUF_DEV);
	/* memfd_create through syscall(): glibc 2.36 has it, but without
	 * MFD_HUGE_* in every header set. */
	memfd = syscall(SYS_memfd_create, "nkctl-dmabuf", mfd_flags | 0x0001U /* CLOEXEC */);
	if (memfd < 0) {
		ret = fail(step, hugepages ? "memfd_create of huge pages" : "memfd_create");
		goto out_dev;
	}
	/* udmabuf wants the memfd unable to shrink under the device. */
	if (fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		ret = fail(step, "seal the memfd");
		goto out_memfd;
	}
	if (ftruncate(memfd, (off_t)size)) {
		ret = fail(step, "size the memfd");
		goto out_memfd;
	}
	create.memfd = (uint32_t)memfd;
	create.flags = NK_UDMABUF_FLAGS_CLOEXEC;
	create.size = size;
	fd = ioctl(dev, NK_UDMABUF_CREATE, &create);
	if (fd < 0) {
		ret = fail(step, "create the udmabuf");
		goto out_memfd;
	}
	d->fd = fd;
	ret = 0;
out_memfd:
	close(memfd);      /* the udmabuf holds the pages */
out_dev:
	close(dev);
	return ret;
}

int nk_dmabuf_heap(const char *name, uint64_t size, struct nk_dmabuf *d,
		   const char **step)
{
	struct nk_dma_heap_alloc alloc = { 0 };
	char path[128];
	int heap, ret;

	dmabuf_init(d, NK_DMABUF_HEAP);
	d->size = size;
	snprintf(d->heap, sizeof(d->heap), "%s", name);
	snprintf(path, sizeof(path), NK_DMA_HEAP_DIR "/%s", name);
	heap = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (heap < 0)
		return fail(step, "open the dma-heap");
	alloc.len = size;
	alloc.fd_flags = O_RDWR | O_CLOEXEC;
	if (ioctl(heap, NK_DMA_HEAP_IOCTL_ALLOC, &alloc) < 0) {
		ret = fail(step, "allocate from the dma-heap");
	} else {
		d->fd = (int)alloc.fd;
		ret = 0;
	}
	close(heap);
	return ret;
}

int nk_dmabuf_adopt(int fd, struct nk_dmabuf *d, const char **step)
{
	struct statfs sfs;
	off_t end;

	dmabuf_init(d, NK_DMABUF_FD);
	if (fstatfs(fd, &sfs))
		return fail(step, "inspect the descriptor");
	if (sfs.f_type != NK_DMA_BUF_MAGIC) {
		*step = "inspect the descriptor";
		return -ENOTTY;
	}
	/* A dmabuf reports its size as its end. */
	end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return fail(step, "read the dmabuf size");
	lseek(fd, 0, SEEK_SET);
	d->fd = fd;
	d->size = (uint64_t)end;
	return 0;
}

void nk_dmabuf_close(struct nk_dmabuf *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

const char *nk_dmabuf_kind_name(enum nk_dmabuf_kind kind)
{
	switch (kind) {
	case NK_DMABUF_UDMABUF: return "udmabuf";
	case NK_DMABUF_HEAP: return "heap";
	case NK_DMABUF_FD: return "fd";
	}
	return "unknown";
}

long nk_hugepages_free(void)
{
	char line[128];
	long free_pages = -1, size_kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Free: %ld", &free_pages);
		sscanf(line, "Hugepagesize: %ld kB", &size_kb);
	}
	fclose(f);
	/* Only the default huge page size is counted there. */
	if (size_kb != (long)(NK_HUGEPAGE_SIZE >> 10))
		return -1;
	return free_pages;
}
