/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmabufs for devmem bindings: udmabuf over a sealed memfd (optionally of
 * 2 MiB huge pages), a dma-heap allocation, or a descriptor the caller hands
 * in. Every failure names the step that failed, so the caller can say what to
 * fix.
 */
#ifndef NKCTL_DMABUF_H
#define NKCTL_DMABUF_H

#include <stdbool.h>
#include <stdint.h>

#define NK_HUGEPAGE_SIZE (2u << 20)
#define NK_DMA_HEAP_DIR "/dev/dma_heap"
#define NK_UDMABUF_DEV "/dev/udmabuf"

enum nk_dmabuf_kind {
	NK_DMABUF_UDMABUF,
	NK_DMABUF_HEAP,
	NK_DMABUF_FD,
};

struct nk_dmabuf {
	enum nk_dmabuf_kind kind;
	int fd;                  /* the dmabuf, O_CLOEXEC unless given by the caller */
	uint64_t size;
	bool hugepages;
	char heap[64];           /* NK_DMABUF_HEAP */
};

/* On failure: -errno, and *step says which step ("open /dev/udmabuf",
 * "memfd_create", ...). */
int nk_dmabuf_udmabuf(uint64_t size, bool hugepages, struct nk_dmabuf *d,
		      const char **step);
int nk_dmabuf_heap(const char *name, uint64_t size, struct nk_dmabuf *d,
		   const char **step);
/* Adopt fd: it must be a dmabuf (-ENOTTY when it is something else). */
int nk_dmabuf_adopt(int fd, struct nk_dmabuf *d, const char **step);
void nk_dmabuf_close(struct nk_dmabuf *d);

const char *nk_dmabuf_kind_name(enum nk_dmabuf_kind kind);
/* Free 2 MiB huge pages from /proc/meminfo, or -1 when unknown. */
long nk_hugepages_free(void);

#endif
