// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* fwrite_unlocked */
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
 * JSON is put together in o->buf and handed to fp when that is full and at
 * the document's end: per-token stdio calls were most of a large show's own
 * time. A value is written through reserve(): room for its longest form,
 * then plain stores. nkctl has one thread.
 */

/* Hand what is held to fp. */
static void spill(struct out *o)
{
	if (o->len)
		fwrite_unlocked(o->buf, 1, o->len, o->fp);
	o->len = 0;
}

/* Room for n more bytes: where they go, or NULL when n is more than the
 * buffer holds (what was there has gone to fp; the caller writes to fp). */
static inline char *reserve(struct out *o, size_t n)
{
	if (sizeof(o->buf) - o->len >= n)
		return o->buf + o->len;
	spill(o);
	return n <= sizeof(o->buf) ? o->buf : NULL;
}

/* The bytes up to end were written at the reserved place. */
static inline void commit(struct out *o, const char *end)
{
	o->len = (size_t)(end - o->buf);
}

static inline void put(struct out *o, const char *s, size_t n)
{
	char *d = reserve(o, n);

	if (!d) {
		fwrite_unlocked(s, 1, n, o->fp);
		return;
	}
	memcpy(d, s, n);
	o->len += n;
}

static inline void put_c(struct out *o, char c)
{
	char *d = reserve(o, 1);

	*d = c;
	o->len++;
}

/* v in decimal at d (20 bytes at most); the end. */
static char *uint_at(char *d, uint64_t v)
{
	size_t n = 1;

	for (uint64_t t = v; t >= 10; t /= 10)
		n++;
	d += n;
	for (char *p = d; p > d - n; v /= 10)
		*--p = (char)('0' + v % 10);
	return d;
}

static void put_uint(struct out *o, uint64_t v)
{
	commit(o, uint_at(reserve(o, 20), v));
}

static void put_int(struct out *o, int64_t v)
{
	char *d = reserve(o, 21);

	if (v < 0)
		*d++ = '-';
	/* Negated as unsigned: INT64_MIN has no positive counterpart. */
	commit(o, uint_at(d, v < 0 ? -(uint64_t)v : (uint64_t)v));
}

static void json_indent(struct out *o)
{
	size_t n = 2 * (size_t)o->depth;
	char *d;

	if (!o->pretty)
		return;
	d = reserve(o, 1 + n); /* at most 31 bytes: always there */
	*d++ = '\n';
	memset(d, ' ', n);
	commit(o, d + n);
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

/* A byte that stands for itself: printable ASCII but for the quote and the
 * backslash. */
static const bool json_plain[256] = {
	[' ' ... '!'] = true, ['#' ... '['] = true, [']' ... '~'] = true,
};

/* The escaped form of c at d (six bytes at most); the end. */
static char *json_escape(char *d, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	*d++ = '\\';
	switch (c) {
	case '"':  *d++ = '"'; break;
	case '\\': *d++ = '\\'; break;
	case '\n': *d++ = 'n'; break;
	case '\t': *d++ = 't'; break;
	case '\r': *d++ = 'r'; break;
	default: /* the other controls, DEL */
		memcpy(d, "u00", 3);
		d[3] = hex[c >> 4];
		d[4] = hex[c & 0xf];
		d += 5;
		break;
	}
	return d;
}

/* The characters starting before stop (a sequence may run on past it) at
 * d, at most six bytes for each byte; *pp moves past them, the end of d
 * returned. JSON text is UTF-8 (RFC 8259), but a device name is any bytes:
 * a byte that is not part of well-formed UTF-8 becomes U+FFFD. */
static char *json_chars(char *d, const unsigned char **pp, const unsigned char *stop)
{
	const unsigned char *p = *pp;
	size_t n;

	while (p < stop) {
		if (json_plain[*p]) {
			*d++ = (char)*p++;
		} else if (*p >= 0x80 && (n = utf8_len(p))) {
			memcpy(d, p, n);
			d += n;
			p += n;
		} else if (*p >= 0x80) {
			memcpy(d, "\\ufffd", 6);
			d += 6;
			p++;
		} else {
			d = json_escape(d, *p++);
		}
	}
	*pp = p;
	return d;
}

/* s (len bytes) as a JSON string. */
static void json_string_n(struct out *o, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char *d = reserve(o, 6 * len + 2);
	char tmp[6 * (64 + 3)];

	if (d) {
		*d++ = '"';
		d = json_chars(d, &p, end);
		*d++ = '"';
		commit(o, d);
		return;
	}
	/* Longer than the buffer holds: in pieces. */
	put_c(o, '"');
	while (p < end) {
		const unsigned char *stop = end - p > 64 ? p + 64 : end;

		put(o, tmp, (size_t)(json_chars(tmp, &p, stop) - tmp));
	}
	put_c(o, '"');
}

/* Most strings (names, keys, words) are short and stand for themselves. */
#define SHORT_STR 64

/* s quoted at d, where there is room for SHORT_STR + 2 bytes, when it is
 * short and plain: the end; else NULL (nothing counted yet). */
static inline char *short_string_at(char *d, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	*d++ = '"';
	/* The terminating NUL is not plain: the copy stops there at the latest. */
	while (i < SHORT_STR && json_plain[p[i]]) {
		d[i] = (char)p[i];
		i++;
	}
	if (p[i])
		return NULL;
	d[i] = '"';
	return d + i + 1;
}

static void json_string(struct out *o, const char *s)
{
	char *d = short_string_at(reserve(o, SHORT_STR + 2), s);

	if (d)
		commit(o, d);
	else
		json_string_n(o, s, strlen(s));
}

/* Separator, indentation and key before a JSON value, put together in one
 * place. */
static void json_key(struct out *o, const char *key)
{
	size_t indent = o->pretty && o->depth > 0 ? 2 * (size_t)o->depth : 0;
	char *d = reserve(o, 2 + indent + SHORT_STR + 4), *k;

	if (o->depth > 0 && !o->first[o->depth])
		*d++ = ',';
	o->first[o->depth] = false;
	if (indent) {
		*d++ = '\n';
		memset(d, ' ', indent);
		d += indent;
	}
	if (!key) {
		commit(o, d);
		return;
	}
	k = short_string_at(d, key);
	if (!k) { /* a long key, or one with characters to escape */
		commit(o, d);
		json_string_n(o, key, strlen(key));
		k = reserve(o, 2);
	}
	*k++ = ':';
	if (o->pretty)
		*k++ = ' ';
	commit(o, k);
}

static void json_push(struct out *o, char c)
{
	put_c(o, c);
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
	put_c(o, c);
}

void out_flush(struct out *o)
{
	spill(o);
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
	put_c(o, '\n');
	out_flush(o);
}

static void container_open(struct out *o, const char *key, char c)
{
	json_key(o, key);
	json_push(o, c);
}

void out_obj_open(struct out *o, const char *key)
{
	if (o->json)
		container_open(o, key, '{');
}

void out_obj_close(struct out *o)
{
	if (o->json)
		json_pop(o, '}');
}

void out_arr_open(struct out *o, const char *key)
{
	if (o->json)
		container_open(o, key, '[');
}

void out_arr_close(struct out *o)
{
	if (o->json)
		json_pop(o, ']');
}

static void json_bool(struct out *o, const char *key, bool val)
{
	json_key(o, key);
	if (val)
		put(o, "true", 4);
	else
		put(o, "false", 5);
}

void out_str(struct out *o, const char *key, const char *fmt, const char *val)
{
	if (o->json) {
		json_key(o, key);
		json_string(o, val ? val : "");
	} else if (fmt) {
		fprintf(o->fp, fmt, val ? val : "");
	}
}

void out_uint(struct out *o, const char *key, const char *fmt, uint64_t val)
{
	if (o->json) {
		json_key(o, key);
		put_uint(o, val);
	} else if (fmt) {
		fprintf(o->fp, fmt, (unsigned long long)val);
	}
}

void out_int(struct out *o, const char *key, const char *fmt, int64_t val)
{
	if (o->json) {
		json_key(o, key);
		put_int(o, val);
	} else if (fmt) {
		fprintf(o->fp, fmt, (long long)val);
	}
}

void out_bool(struct out *o, const char *key, const char *fmt, bool val)
{
	if (o->json)
		json_bool(o, key, val);
	else if (fmt)
		fprintf(o->fp, fmt, val ? "yes" : "no");
}

void out_flag(struct out *o, const char *key, const char *fmt, bool val)
{
	if (o->json)
		json_bool(o, key, val);
	else if (fmt && val)
		fputs(fmt, o->fp);
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
