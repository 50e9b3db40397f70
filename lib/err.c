// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "nl.h"

int nk_exit_from_errno(int err)
{
	switch (err) {
	case 0:
		return NK_EXIT_OK;
	case ENOENT:
	case ENODEV:
	case ESRCH:
	case ENONET:
		return NK_EXIT_NOTFOUND;
	case EEXIST:
	case EBUSY:
	case EADDRINUSE:
		return NK_EXIT_EXISTS;
	case EOPNOTSUPP:
	case EPROTONOSUPPORT:
	case ENOSYS:
	case EAFNOSUPPORT:
		return NK_EXIT_UNSUPPORTED;
	case EPERM:
	case EACCES:
		return NK_EXIT_PERM;
	default:
		return NK_EXIT_FAIL;
	}
}

/* An error is one line whatever the words in it (an argument may hold a new
 * line): control characters are printed escaped. */
static void put_escaped(const unsigned char *p, size_t len)
{
	while (len) {
		size_t n = 0;

		while (n < len && p[n] >= 0x20 && p[n] != 0x7f)
			n++;
		fwrite(p, 1, n, stderr);
		p += n;
		len -= n;
		if (!len)
			break;
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p == '\t')
			fputs("\\t", stderr);
		else
			fprintf(stderr, "\\x%02x", *p);
		p++;
		len--;
	}
}

/* A word longer than this (a 10,000-character device name) is shortened. */
#define NK_ERR_WORD_MAX 64

/* The line, each over-long word cut to its start and its length. */
static void put_line(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = strcspn((const char *)p, " \"");

		if (n > NK_ERR_WORD_MAX) {
			put_escaped(p, NK_ERR_WORD_MAX / 2);
			fprintf(stderr, "...(%zu characters)", n);
		} else {
			put_escaped(p, n);
		}
		p += n;
		if (*p)
			fputc(*p++, stderr);
	}
}

static void vput_line(const char *fmt, va_list ap)
{
	va_list aq;
	char *buf;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	buf = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!buf) {
		vfprintf(stderr, fmt, ap);
		return;
	}
	vsnprintf(buf, (size_t)n + 1, fmt, ap);
	put_line(buf);
	free(buf);
}

static void vreport(const char *label, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", label);
	vput_line(fmt, ap);
}

int nk_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("Error", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void nk_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("Warning", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int nk_error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("Error", fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	return nk_exit_from_errno(err);
}

int nk_error_nl(const struct nl_err *e, const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	if (fmt) {
		va_start(ap, fmt);
		vput_line(fmt, ap);
		va_end(ap);
		fputs(": ", stderr);
	}
	put_line(e->msg[0] ? e->msg : strerror(e->code));
	if (e->path[0])
		fprintf(stderr, " (%s%s)", e->missing ? "missing attribute " : "",
			e->path);
	fputc('\n', stderr);
	return nk_exit_from_errno(e->code);
}

const char *nk_nl_reason(const struct nl_err *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", e->msg[0] ? e->msg : strerror(e->code),
		 e->path[0] ? " (" : "", e->path[0] && e->missing ? "missing attribute " : "",
		 e->path, e->path[0] ? ")" : "");
	return buf;
}
