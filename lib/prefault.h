/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NKCTL_PREFAULT_H
#define NKCTL_PREFAULT_H

#include <stddef.h>

/*
 * A buffer of cap bytes at base whose first used bytes are filled is about
 * to take add more: when they enter a new piece of it (16 to 32 KiB, 32 to
 * 64 KiB, then every 64 KiB), the pages of that piece (up to cap) are made
 * present in one call (MADV_POPULATE_WRITE) rather than by a fault each,
 * which took twice as long on the machines measured. The first 16 KiB are
 * left to fault: most buffers stay small. Nothing (silently) on a kernel
 * without it (before 5.14). Contents are never changed.
 */
void nk_prefault(void *base, size_t used, size_t add, size_t cap);
/* The whole pages of the first len bytes at base made present at once: a
 * buffer about to be written there. */
void nk_populate(void *base, size_t len);

/*
 * realloc(p, *size) for a growing buffer of which the first used bytes are
 * kept. When it reaches 16 KiB it gets NK_GROW_RESERVE bytes at once (*size
 * says so), address space that costs nothing until written: it then grows
 * in place, where realloc would move it to new addresses at each doubling
 * and every page moved costs a fault again on machines whose page tables
 * are shadowed by the host. Its first pages are made present before the
 * copy into it. Only past the reserve (or when it cannot be had) does it
 * move. A reserve keeps to small pages (MADV_NOHUGEPAGE). NULL when out of
 * memory (p is then still valid).
 */
#define NK_GROW_RESERVE (16 * 1024 * 1024)
void *nk_grow_buf(void *p, size_t used, size_t *size);
/* At start: blocks of 64 KiB or more get a mapping of their own. */
void nk_malloc_init(void);

#endif
