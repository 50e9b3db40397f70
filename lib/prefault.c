// SPDX-License-Identifier: GPL-2.0
/* Pages of a growing buffer made present a piece at a time. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The pieces: nothing below FIRST (a small buffer's pages fault as they
 * are used), then FIRST..2*FIRST, 2*FIRST..STEP, then every STEP. */
#define PREFAULT_FIRST (16 * 1024)
#define PREFAULT_STEP (64 * 1024)

/* The start of the first piece at or after off. */
static size_t piece_at_or_after(size_t off)
{
	if (off <= PREFAULT_FIRST)
		return PREFAULT_FIRST;
	if (off <= 2 * PREFAULT_FIRST)
		return 2 * PREFAULT_FIRST;
	return (off + PREFAULT_STEP - 1) / PREFAULT_STEP * PREFAULT_STEP;
}

/* The end of the piece holding off (off >= PREFAULT_FIRST). */
static size_t piece_end(size_t off)
{
	if (off < PREFAULT_STEP)
		return off < 2 * PREFAULT_FIRST ? 2 * PREFAULT_FIRST : PREFAULT_STEP;
	return (off / PREFAULT_STEP + 1) * PREFAULT_STEP;
}

/* The pages holding bytes from..to of the buffer at base (to at most its
 * end) made present: the first holding the byte at from, the last the byte
 * before to (its page is mapped: the buffer's last byte is on it or after
 * it). A partial last page left out would fault at every piece. */
static void populate_range(void *base, size_t from, size_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)base + from) & ~(page - 1);
	uintptr_t end = ((uintptr_t)base + to + page - 1) & ~(page - 1);

	if (end > start)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

void nk_populate(void *base, size_t len)
{
	populate_range(base, 0, len);
}

void nk_prefault(void *base, size_t used, size_t add, size_t cap)
{
	size_t from = piece_at_or_after(used), to;

	/* A write that fills the first 16 KiB (or goes on past them: a
	 * document's first 16 KiB at once) has no small buffer to spare. */
	if (used < PREFAULT_FIRST && used + add >= PREFAULT_FIRST)
		from = used;
	/* A piece is made present when its first byte is written. */
	if (from >= used + add || from >= cap)
		return;
	to = piece_end(used + add - 1);
	if (to > cap)
		to = cap;
	populate_range(base, from, to);
}

/* Where transparent huge pages are always on, the first write into a
 * reserve's 2 MiB-aligned part would make 2 MiB resident (and cleared)
 * for what may be a few pages: small pages only. */
static void no_huge_pages(void *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p & ~(page - 1);

	/* From the block's first page: inside its own mapping. */
	(void)madvise((void *)start, len & ~(page - 1), MADV_NOHUGEPAGE);
}

void *nk_grow_buf(void *p, size_t used, size_t *size)
{
	void *nv = NULL;

	/* Small buffers, and those past their reserve, as before. */
	if (used >= PREFAULT_FIRST || *size < PREFAULT_FIRST)
		return realloc(p, *size);
	if (*size < NK_GROW_RESERVE) {
		nv = malloc(NK_GROW_RESERVE);
		if (nv) {
			*size = NK_GROW_RESERVE;
			no_huge_pages(nv, NK_GROW_RESERVE);
		}
	}
	if (!nv)
		nv = malloc(*size);
	if (!nv)
		return NULL;
	if (used) {
		/* What is copied (under 16 KiB here: nk_prefault's pieces start
		 * past it), a fault a page otherwise. */
		populate_range(nv, 0, used);
		memcpy(nv, p, used);
	}
	free(p);
	return nv;
}

void nk_malloc_init(void)
{
	/* A fixed threshold: glibc's own rises after a large block is freed,
	 * and large blocks would then grow by copying. */
	(void)mallopt(M_MMAP_THRESHOLD, PREFAULT_STEP);
}
