// SPDX-License-Identifier: GPL-2.0
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

static void json_indent(struct out *o)
{
	if (!o->pretty)
		return;
	fputc('\n', o->fp);
	for (int i = 0; i < o->depth; i++)
		fputs("  ", o->fp);
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

/* JSON text is UTF-8 (RFC 8259), but a device name is any bytes: a byte that
 * is not part of well-formed UTF-8 becomes U+FFFD. */
static void json_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n;

		switch (*p) {
		case '"':  fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\t': fputs("\\t", fp); break;
		case '\r': fputs("\\r", fp); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(fp, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, fp);
			} else if ((n = utf8_len(p))) {
				fwrite(p, 1, n, fp);
				p += n - 1;
			} else {
				fputs("\\ufffd", fp);
			}
		}
	}
	fputc('"', fp);
}

/* Separator, indentation and key before a JSON value. */
static void json_key(struct out *o, const char *key)
{
	if (o->depth > 0 && !o->first[o->depth])
		fputc(',', o->fp);
	o->first[o->depth] = false;
	if (o->depth > 0)
		json_indent(o);
	if (key) {
		json_string(o->fp, key);
		fputs(o->pretty ? ": " : ":", o->fp);
	}
}

static void json_push(struct out *o, char c)
{
	fputc(c, o->fp);
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
	fputc(c, o->fp);
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
	fputc('\n', o->fp);
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
		fprintf(o->fp, "%llu", (unsigned long long)val);
	} else if (fmt) {
		fprintf(o->fp, fmt, (unsigned long long)val);
	}
}

void out_int(struct out *o, const char *key, const char *fmt, int64_t val)
{
	if (o->json) {
		json_key(o, key);
		fprintf(o->fp, "%lld", (long long)val);
	} else if (fmt) {
		fprintf(o->fp, fmt, (long long)val);
	}
}

void out_bool(struct out *o, const char *key, const char *fmt, bool val)
{
	if (o->json) {
		json_key(o, key);
		fputs(val ? "true" : "false", o->fp);
	} else if (fmt) {
		fprintf(o->fp, fmt, val ? "yes" : "no");
	}
}

void out_flag(struct out *o, const char *key, const char *fmt, bool val)
{
	if (o->json) {
		json_key(o, key);
		fputs(val ? "true" : "false", o->fp);
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
