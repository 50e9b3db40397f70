// SPDX-License-Identifier: GPL-2.0
/*
 * A whole JSON document is built in memory before it is written. glibc's
 * open_memstream() grows by allocating, copying and zeroing at every
 * doubling, which was a fifth of a large `show`'s time; this stream grows
 * in place in a reserve of address space (nk_grow_buf).
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "docbuf.h"
#include "prefault.h"

#define DOCBUF_FIRST (64 * 1024)

struct docbuf {
	char **buf;
	size_t *len; /* also the position: writes append here */
	size_t cap;
};

static bool docbuf_reserve(struct docbuf *d, size_t need)
{
	size_t cap = d->cap ? d->cap : DOCBUF_FIRST;
	char *nb;

	if (need <= d->cap)
		return true;
	while (cap < need)
		cap *= 2;
	nb = nk_grow_buf(*d->buf, *d->len, &cap);
	if (!nb)
		return false;
	*d->buf = nb;
	d->cap = cap;
	return true;
}

/* fopencookie: the bytes taken, 0 on error (never negative). */
static ssize_t docbuf_write(void *cookie, const char *data, size_t n)
{
	struct docbuf *d = cookie;

	/* One more byte for the terminating NUL open_memstream() promises. */
	if (!docbuf_reserve(d, *d->len + n + 1)) {
		errno = ENOMEM;
		return 0;
	}
	nk_prefault(*d->buf, *d->len, n, d->cap);
	memcpy(*d->buf + *d->len, data, n);
	*d->len += n;
	(*d->buf)[*d->len] = '\0';
	return (ssize_t)n;
}

/* Only what rewind() and ftell() need: a position within what was written. */
static int docbuf_seek(void *cookie, off64_t *off, int whence)
{
	struct docbuf *d = cookie;
	off64_t to = *off + (whence == SEEK_CUR ? (off64_t)*d->len : 0);

	if (whence == SEEK_END || to < 0 || (size_t)to > *d->len) {
		errno = EINVAL;
		return -1;
	}
	*d->len = (size_t)to;
	*off = to;
	return 0;
}

static int docbuf_close(void *cookie)
{
	free(cookie);
	return 0;
}

FILE *docbuf_open(char **buf, size_t *len)
{
	static const cookie_io_functions_t io = {
		.write = docbuf_write, .seek = docbuf_seek, .close = docbuf_close,
	};
	struct docbuf *d = calloc(1, sizeof(*d));
	FILE *fp;

	if (!d)
		return NULL;
	*buf = NULL;
	*len = 0;
	d->buf = buf;
	d->len = len;
	fp = fopencookie(d, "w", io);
	if (!fp)
		free(d);
	return fp;
}
