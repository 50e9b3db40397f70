/* SPDX-License-Identifier: GPL-2.0 */
/* What every unit test includes: cmocka, and a capture of standard error
 * (or output) so that a test checks the one "Error:" line a refusal prints
 * and the run shows only cmocka's lines. */
#ifndef NKCTL_UNIT_H
#define NKCTL_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

/* Redirects fd (1 or 2) into a temporary file until capture_end. */
struct capture {
	int fd, saved;
	FILE *f;
	char text[4096];
};

static inline void capture_begin(struct capture *c, int fd)
{
	c->fd = fd;
	fflush(fd == 1 ? stdout : stderr);
	c->f = tmpfile();
	assert_non_null(c->f);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->f), fd) >= 0);
}

/* What was written meanwhile (truncated to the buffer), NUL-terminated. */
static inline const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(c->fd == 1 ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->f);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
	c->text[n] = '\0';
	fclose(c->f);
	return c->text;
}

/* src into dst[len], cut to fit. */
static inline void copy_text(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Standard error of one call, e.g. ERR_OF(err, ret = nk_parse_u32(...)). */
#define ERR_OF(text, call)                                   \
	do {                                                     \
		struct capture cap_;                                 \
		capture_begin(&cap_, 2);                             \
		call;                                                \
		copy_text(text, sizeof(text), capture_end(&cap_));       \
	} while (0)

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#endif
