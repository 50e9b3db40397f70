// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE     /* vasprintf */
#include <errno.h>
#include <stdbool.h>
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

/*
 * Where the reports go: stderr, or the sink a caller put in place to collect
 * them (nk_sink_use: a sweep undoing one record reports that record's
 * trouble as one Warning of its own). Like stderr itself, one per process.
 */
static struct nk_sink *sink_now;

struct nk_sink *nk_sink_use(struct nk_sink *s)
{
	struct nk_sink *was = sink_now;

	sink_now = s;
	return was;
}

void nk_sink_free(struct nk_sink *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static void sink_put(struct nk_sink *s, const char *line, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = (s->len + n + 1) * 2;
		char *buf = realloc(s->buf, cap);

		if (!buf) {
			s->nomem = true;
			return;
		}
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, line, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

/* One whole report line, '\n' ended, to the sink in place. */
static void emit(const char *line, size_t n)
{
	if (sink_now)
		sink_put(sink_now, line, n);
	else
		fwrite(line, 1, n, stderr);
}

/* Each line of s that starts with label (with ": "), its text into fn. */
static void sink_lines(const struct nk_sink *s, const char *label, bool want,
		       void (*fn)(const char *line, size_t n, void *arg), void *arg)
{
	size_t ll = strlen(label);

	for (const char *p = s->buf; p && *p;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
		bool is = !strncmp(p, label, ll) && p[ll] == ':' && p[ll + 1] == ' ';

		if (is == want)
			fn(p, n, arg);
		p += n;
	}
}

struct last { char *buf; size_t len; bool found; };

static void keep_last(const char *line, size_t n, void *arg)
{
	struct last *l = arg;
	size_t skip = strlen("Error: ");

	n -= line[n - 1] == '\n';
	snprintf(l->buf, l->len, "%.*s", (int)(n - skip), line + skip);
	l->found = true;
}

const char *nk_sink_last_error(const struct nk_sink *s, char *buf, size_t len)
{
	struct last l = { buf, len, false };

	sink_lines(s, "Error", true, keep_last, &l);
	if (!l.found && s->nomem)
		snprintf(buf, len, "%s (the report was lost)", strerror(ENOMEM));
	return l.found || s->nomem ? buf : NULL;
}

static void pass_on(const char *line, size_t n, void *arg)
{
	(void)arg;
	emit(line, n);
}

void nk_sink_pass_others(const struct nk_sink *s)
{
	sink_lines(s, "Error", false, pass_on, NULL);
}

/* An error is one line whatever the words in it (an argument may hold a new
 * line): control characters are printed escaped. */
static void put_escaped(FILE *f, const unsigned char *p, size_t len)
{
	while (len) {
		size_t n = 0;

		while (n < len && p[n] >= 0x20 && p[n] != 0x7f)
			n++;
		fwrite(p, 1, n, f);
		p += n;
		len -= n;
		if (!len)
			break;
		if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else
			fprintf(f, "\\x%02x", *p);
		p++;
		len--;
	}
}

/* A word longer than this (a 10,000-character device name) is shortened. */
#define NK_ERR_WORD_MAX 64

/* The line, each over-long word cut to its start and its length. */
static void put_line(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = strcspn((const char *)p, " \"");

		if (n > NK_ERR_WORD_MAX) {
			put_escaped(f, p, NK_ERR_WORD_MAX / 2);
			fprintf(f, "...(%zu characters)", n);
		} else {
			put_escaped(f, p, n);
		}
		p += n;
		if (*p)
			fputc(*p++, f);
	}
}

static void vput_line(FILE *f, const char *fmt, va_list ap)
{
	char *buf = NULL;

	if (vasprintf(&buf, fmt, ap) < 0) {
		fputs("(no memory for the message)", f);
		return;
	}
	put_line(f, buf);
	free(buf);
}

/* A report is built whole, then emitted as one line: a sink gets it whole. */
struct report {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *report_begin(struct report *r, const char *label)
{
	r->buf = NULL;
	r->len = 0;
	r->f = open_memstream(&r->buf, &r->len);
	if (!r->f)
		r->f = stderr;     /* no memory: straight out, as before */
	fprintf(r->f, "%s: ", label);
	return r->f;
}

static void report_end(struct report *r)
{
	fputc('\n', r->f);
	if (r->f == stderr)
		return;
	fclose(r->f);
	if (r->buf)
		emit(r->buf, r->len);
	free(r->buf);
}

int nk_error(int code, const char *fmt, ...)
{
	struct report r;
	va_list ap;

	va_start(ap, fmt);
	vput_line(report_begin(&r, "Error"), fmt, ap);
	va_end(ap);
	report_end(&r);
	return code;
}

void nk_warn(const char *fmt, ...)
{
	struct report r;
	va_list ap;

	va_start(ap, fmt);
	vput_line(report_begin(&r, "Warning"), fmt, ap);
	va_end(ap);
	report_end(&r);
}

int nk_error_errno(int err, const char *fmt, ...)
{
	struct report r;
	FILE *f = report_begin(&r, "Error");
	va_list ap;

	va_start(ap, fmt);
	vput_line(f, fmt, ap);
	va_end(ap);
	fprintf(f, ": %s", strerror(err));
	report_end(&r);
	return nk_exit_from_errno(err);
}

int nk_error_nl(const struct nl_err *e, const char *fmt, ...)
{
	struct report r;
	FILE *f = report_begin(&r, "Error");
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vput_line(f, fmt, ap);
		va_end(ap);
		fputs(": ", f);
	}
	put_line(f, e->msg[0] ? e->msg : strerror(e->code));
	if (e->path[0])
		fprintf(f, " (%s%s)", e->missing ? "missing attribute " : "", e->path);
	report_end(&r);
	return nk_exit_from_errno(e->code);
}

const char *nk_nl_reason(const struct nl_err *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", e->msg[0] ? e->msg : strerror(e->code),
		 e->path[0] ? " (" : "", e->path[0] && e->missing ? "missing attribute " : "",
		 e->path, e->path[0] ? ")" : "");
	return buf;
}
