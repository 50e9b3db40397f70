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
 * A JSON token (separator, indentation, key and value) is put together here
 * and handed to stdio in one unlocked call: per-byte and per-piece stdio
 * calls were most of a large show's own time. nkctl has one thread.
 */
struct tok {
	FILE *fp;
	size_t n;
	char b[256];
};

#define TOK(o) { .fp = (o)->fp, .n = 0 }

static void tok_flush(struct tok *t)
{
	if (t->n)
		fwrite_unlocked(t->b, 1, t->n, t->fp);
	t->n = 0;
}

static void tok_put(struct tok *t, const char *s, size_t n)
{
	if (n > sizeof(t->b) - t->n) {
		tok_flush(t);
		if (n > sizeof(t->b)) {
			fwrite_unlocked(s, 1, n, t->fp);
			return;
		}
	}
	memcpy(t->b + t->n, s, n);
	t->n += n;
}

static void tok_c(struct tok *t, char c)
{
	if (t->n == sizeof(t->b))
		tok_flush(t);
	t->b[t->n++] = c;
}

static void tok_s(struct tok *t, const char *s)
{
	tok_put(t, s, strlen(s));
}

static void tok_uint(struct tok *t, uint64_t v)
{
	char buf[20];
	char *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	tok_put(t, p, (size_t)(buf + sizeof(buf) - p));
}

static void tok_int(struct tok *t, int64_t v)
{
	if (v < 0)
		tok_c(t, '-');
	/* Negated as unsigned: INT64_MIN has no positive counterpart. */
	tok_uint(t, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

static void json_indent(struct out *o, struct tok *t)
{
	if (!o->pretty)
		return;
	tok_c(t, '\n');
	for (int i = 0; i < o->depth; i++)
		tok_put(t, "  ", 2);
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
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static void json_escape(struct tok *t, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

	switch (c) {
	case '"':  tok_put(t, "\\\"", 2); break;
	case '\\': tok_put(t, "\\\\", 2); break;
	case '\n': tok_put(t, "\\n", 2); break;
	case '\t': tok_put(t, "\\t", 2); break;
	case '\r': tok_put(t, "\\r", 2); break;
	default:    tok_put(t, u, sizeof(u)); break; /* the other controls, DEL */
	}
}

/* JSON text is UTF-8 (RFC 8259), but a device name is any bytes: a byte that
 * is not part of well-formed UTF-8 becomes U+FFFD. Bytes that stand for
 * themselves are copied in runs. */
static void json_string(struct tok *t, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	size_t n;

	tok_c(t, '"');
	while (*p) {
		if (json_plain(*p)) {
			p++;
			continue;
		}
		if (*p >= 0x80 && (n = utf8_len(p))) {
			p += n;
			continue;
		}
		tok_put(t, (const char *)run, (size_t)(p - run));
		if (*p >= 0x80)
			tok_put(t, "\\ufffd", 6);
		else
			json_escape(t, *p);
		run = ++p;
	}
	tok_put(t, (const char *)run, (size_t)(p - run));
	tok_c(t, '"');
}

/* Separator, indentation and key before a JSON value. */
static void json_key(struct out *o, struct tok *t, const char *key)
{
	if (o->depth > 0 && !o->first[o->depth])
		tok_c(t, ',');
	o->first[o->depth] = false;
	if (o->depth > 0)
		json_indent(o, t);
	if (key) {
		json_string(t, key);
		tok_s(t, o->pretty ? ": " : ":");
	}
}

static void json_push(struct out *o, struct tok *t, char c)
{
	tok_c(t, c);
	tok_flush(t);
	if (o->depth < OUT_MAX_DEPTH - 1)
		o->depth++;
	o->first[o->depth] = true;
}

static void json_pop(struct out *o, char c)
{
	struct tok t = TOK(o);
	bool empty = o->first[o->depth];

	if (o->depth > 0)
		o->depth--;
	if (!empty)
		json_indent(o, &t);
	tok_c(&t, c);
	tok_flush(&t);
}

void out_begin(struct out *o)
{
	struct tok t = TOK(o);

	if (!o->json)
		return;
	o->depth = 0;
	o->first[0] = true;
	json_push(o, &t, '{');
}

void out_end(struct out *o)
{
	if (!o->json)
		return;
	json_pop(o, '}');
	putc_unlocked('\n', o->fp);
}

static void container_open(struct out *o, const char *key, char c)
{
	struct tok t = TOK(o);

	json_key(o, &t, key);
	json_push(o, &t, c);
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
	struct tok t = TOK(o);

	json_key(o, &t, key);
	tok_s(&t, val ? "true" : "false");
	tok_flush(&t);
}

void out_str(struct out *o, const char *key, const char *fmt, const char *val)
{
	if (o->json) {
		struct tok t = TOK(o);

		json_key(o, &t, key);
		json_string(&t, val ? val : "");
		tok_flush(&t);
	} else if (fmt) {
		fprintf(o->fp, fmt, val ? val : "");
	}
}

void out_uint(struct out *o, const char *key, const char *fmt, uint64_t val)
{
	if (o->json) {
		struct tok t = TOK(o);

		json_key(o, &t, key);
		tok_uint(&t, val);
		tok_flush(&t);
	} else if (fmt) {
		fprintf(o->fp, fmt, (unsigned long long)val);
	}
}

void out_int(struct out *o, const char *key, const char *fmt, int64_t val)
{
	if (o->json) {
		struct tok t = TOK(o);

		json_key(o, &t, key);
		tok_int(&t, val);
		tok_flush(&t);
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
