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
#include "out.h"

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
	if (s->drop)
		return;
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

/* stderr's form: text lines, or (-j) one JSON object a line. One per
 * process, as stderr itself. */
static bool json_now;

void nk_report_json(bool on)
{
	json_now = on;
}

static const char *json_key(const char *label)
{
	return strcmp(label, "Error") ? "warning" : "error";
}

void nk_report_write(FILE *f, bool json, const struct nk_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	struct out o;

	if (!json) {
		fprintf(f, "%s: %s\n", r->label, r->message);
		return;
	}
	/* Built whole, then written in one call: one object, one line. */
	m = open_memstream(&buf, &len);
	if (!m) {
		/* no memory for the object: the words still go out */
		fprintf(f, "%s: %s\n", r->label, r->message);
		return;
	}
	out_init(&o, m, true, false);
	out_begin(&o);
	out_obj_open(&o, json_key(r->label));
	out_str(&o, "message", NULL, r->message);
	if (!strcmp(r->label, "Error"))
		out_uint(&o, "exit", NULL, (unsigned int)r->exit);
	if (r->err > 0)
		out_uint(&o, "errno", NULL, (unsigned int)r->err);
	if (r->nl && (r->nl->msg[0] || r->nl->path[0])) {
		out_obj_open(&o, "extack");
		if (r->nl->msg[0])
			out_str(&o, "msg", NULL, r->nl->msg);
		if (r->nl->path[0])
			out_str(&o, r->nl->missing ? "miss-type" : "bad-attr", NULL, r->nl->path);
		out_obj_close(&o);
	}
	out_obj_close(&o);
	out_end(&o);
	if (!fclose(m))
		fwrite(buf, 1, len, f);
	free(buf);
}

/* One whole report to the sink in place: a sink keeps its text line. */
static void emit(const struct nk_report *r)
{
	if (sink_now) {
		char *line = NULL;
		int n = asprintf(&line, "%s: %s\n", r->label, r->message);

		if (n < 0)
			sink_now->nomem = true;
		else
			sink_put(sink_now, line, (size_t)n);
		free(line);
	} else {
		nk_report_write(stderr, json_now, r);
	}
}

/* A line a sink kept ("Label: text\n"), on to the sink in place now. */
static void emit_line(const char *line, size_t n)
{
	char label[16] = "Warning", *text;
	const char *colon = memchr(line, ':', n);
	struct nk_report r = { label, NULL, 0, 0, NULL };

	if (sink_now) {
		sink_put(sink_now, line, n);
		return;
	}
	text = strndup(line, n - (n && line[n - 1] == '\n'));
	if (!text)
		return;
	r.message = text;
	if (colon && (size_t)(colon - line) < sizeof(label) && colon[1] == ' ') {
		snprintf(label, sizeof(label), "%.*s", (int)(colon - line), line);
		r.message = text + (colon - line) + 2;
	}
	nk_report_write(stderr, json_now, &r);
	free(text);
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
	emit_line(line, n);
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

/* A report's text is built whole, then emitted as one report: a sink gets
 * it whole. */
struct report {
	FILE *f;
	char *buf;
	size_t len;
	const char *label;
};

static FILE *report_begin(struct report *r, const char *label)
{
	r->buf = NULL;
	r->len = 0;
	r->label = label;
	r->f = open_memstream(&r->buf, &r->len);
	if (!r->f) {
		r->f = stderr;     /* no memory: straight out, as text */
		fprintf(r->f, "%s: ", label);
	}
	return r->f;
}

static void report_end(struct report *r, int exit, int err, const struct nl_err *nl)
{
	struct nk_report rep = { r->label, NULL, exit, err, nl };

	if (r->f == stderr) {
		fputc('\n', r->f);
		return;
	}
	fclose(r->f);
	rep.message = r->buf ? r->buf : "";
	emit(&rep);
	free(r->buf);
}

int nk_error(int code, const char *fmt, ...)
{
	struct report r;
	va_list ap;

	va_start(ap, fmt);
	vput_line(report_begin(&r, "Error"), fmt, ap);
	va_end(ap);
	report_end(&r, code, 0, NULL);
	return code;
}

void nk_warn(const char *fmt, ...)
{
	struct report r;
	va_list ap;

	va_start(ap, fmt);
	vput_line(report_begin(&r, "Warning"), fmt, ap);
	va_end(ap);
	report_end(&r, 0, 0, NULL);
}

void nk_note(const char *label, const char *fmt, ...)
{
	struct report r;
	va_list ap;

	if (json_now && !sink_now)
		return;         /* the JSON documents on stdout say it */
	va_start(ap, fmt);
	vput_line(report_begin(&r, label), fmt, ap);
	va_end(ap);
	report_end(&r, 0, 0, NULL);
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
	report_end(&r, nk_exit_from_errno(err), err, NULL);
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
	report_end(&r, nk_exit_from_errno(e->code), e->code, e);
	return nk_exit_from_errno(e->code);
}

const char *nk_nl_reason(const struct nl_err *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", e->msg[0] ? e->msg : strerror(e->code),
		 e->path[0] ? " (" : "", e->path[0] && e->missing ? "missing attribute " : "",
		 e->path, e->path[0] ? ")" : "");
	return buf;
}
