// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* fputs_unlocked, fwrite_unlocked */
#include <stdarg.h>
#include <string.h>

#include "out.h"

void out_init(struct out *o, FILE *fp, bool json, bool pretty)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
	o->json = json || pretty;
	o->pretty = pretty;
}

/*
 * JSON is written a byte or a run at a time without stdio's lock: nkctl
 * has one thread, and the lock per byte was most of a large show's time.
 */
static void put_c(FILE *fp, char c)
{
	putc_unlocked(c, fp);
}

static void put_n(FILE *fp, const char *s, size_t n)
{
	if (n)
		fwrite_unlocked(s, 1, n, fp);
}

static void put_s(FILE *fp, const char *s)
{
	fputs_unlocked(s, fp);
}

static void put_uint(FILE *fp, uint64_t v)
{
	char buf[20];
	char *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_n(fp, p, (size_t)(buf + sizeof(buf) - p));
}

static void put_int(FILE *fp, int64_t v)
{
	if (v < 0)
		put_c(fp, '-');
	/* Negated as unsigned: INT64_MIN has no positive counterpart. */
	put_uint(fp, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

static void json_indent(struct out *o)
{
	if (!o->pretty)
		return;
	put_c(o->fp, '\n');
	for (int i = 0; i < o->depth; i++)
		put_n(o->fp, "  ", 2);
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n;
	unsigned int cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The escape of a byte that cannot stand for itself in a JSON string, or
 * NULL: printable ASCII but the quote and the backslash. */
static const char *json_escape(unsigned char c, char *buf, size_t len)
{
	switch (c) {
	case '"':  return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\t': return "\\t";
	case '\r': return "\\r";
	default:
		if (c < 0x20 || c == 0x7f) {
			snprintf(buf, len, "\\u%04x", c);
			return buf;
		}
		return NULL;
	}
}

/* JSON text is UTF-8 (RFC 8259), but a device name is any bytes: a byte that
 * is not part of well-formed UTF-8 becomes U+FFFD. Bytes that stand for
 * themselves go out in runs. */
static void json_string(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char buf[8];

	put_c(fp, '"');
	while (*p) {
		const char *esc;
		size_t n;

		if (*p >= 0x80) {
			n = utf8_len(p);
			esc = n ? NULL : "\\ufffd";
		} else {
			n = 1;
			esc = json_escape(*p, buf, sizeof(buf));
		}
		if (!esc) {
			p += n;
			continue;
		}
		put_n(fp, (const char *)run, (size_t)(p - run));
		put_s(fp, esc);
		run = ++p;
	}
	put_n(fp, (const char *)run, (size_t)(p - run));
	put_c(fp, '"');
}

/* Separator, indentation and key before a JSON value. */
static void json_key(struct out *o, const char *key)
{
	if (o->depth > 0 && !o->first[o->depth])
		put_c(o->fp, ',');
	o->first[o->depth] = false;
	if (o->depth > 0)
		json_indent(o);
	if (key) {
		json_string(o->fp, key);
		put_s(o->fp, o->pretty ? ": " : ":");
	}
}

static void json_push(struct out *o, char c)
{
	put_c(o->fp, c);
	if (o->depth < OUT_MAX_DEPTH - 1)
		o->depth++;
	o->first[o->depth] = true;
}

static void json_pop(struct out *o, char c)
{
	bool empty = o->first[o->depth];

	if (o->depth > 0)
		o->depth--;
	if (!empty)
		json_indent(o);
	put_c(o->fp, c);
}

void out_begin(struct out *o)
{
	if (!o->json)
		return;
	o->depth = 0;
	o->first[0] = true;
	json_push(o, '{');
}

void out_end(struct out *o)
{
	if (!o->json)
		return;
	json_pop(o, '}');
	put_c(o->fp, '\n');
}

void out_obj_open(struct out *o, const char *key)
{
	if (!o->json)
		return;
	json_key(o, key);
	json_push(o, '{');
}

void out_obj_close(struct out *o)
{
	if (o->json)
		json_pop(o, '}');
}

void out_arr_open(struct out *o, const char *key)
{
	if (!o->json)
		return;
	json_key(o, key);
	json_push(o, '[');
}

void out_arr_close(struct out *o)
{
	if (o->json)
		json_pop(o, ']');
}

void out_str(struct out *o, const char *key, const char *fmt, const char *val)
{
	if (o->json) {
		json_key(o, key);
		json_string(o->fp, val ? val : "");
	} else if (fmt) {
		fprintf(o->fp, fmt, val ? val : "");
	}
}

void out_uint(struct out *o, const char *key, const char *fmt, uint64_t val)
{
	if (o->json) {
		json_key(o, key);
		put_uint(o->fp, val);
	} else if (fmt) {
		fprintf(o->fp, fmt, (unsigned long long)val);
	}
}

void out_int(struct out *o, const char *key, const char *fmt, int64_t val)
{
	if (o->json) {
		json_key(o, key);
		put_int(o->fp, val);
	} else if (fmt) {
		fprintf(o->fp, fmt, (long long)val);
	}
}

void out_bool(struct out *o, const char *key, const char *fmt, bool val)
{
	if (o->json) {
		json_key(o, key);
		put_s(o->fp, val ? "true" : "false");
	} else if (fmt) {
		fprintf(o->fp, fmt, val ? "yes" : "no");
	}
}

void out_flag(struct out *o, const char *key, const char *fmt, bool val)
{
	if (o->json) {
		json_key(o, key);
		put_s(o->fp, val ? "true" : "false");
	} else if (fmt && val) {
		fputs(fmt, o->fp);
	}
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	vfprintf(o->fp, fmt, ap);
	va_end(ap);
}
