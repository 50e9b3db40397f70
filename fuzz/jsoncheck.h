/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict JSON checker for the fuzz harnesses: one RFC 8259 value (here:
 * the object nkctl prints), valid UTF-8 in strings, no duplicate keys in an
 * object, and doc/json.md's "a key never changes type" across the document.
 * jsoncheck() returns NULL when the text is fine, else what is wrong, with
 * *at the offset where it was found.
 */
#ifndef NKCTL_FUZZ_JSONCHECK_H
#define NKCTL_FUZZ_JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define JC_MAX_DEPTH 64
#define JC_MAX_KEYS 64     /* per object */
#define JC_MAX_NAMES 128   /* distinct keys in a document */
#define JC_KEY_LEN 48

struct jc {
	const char *s, *p, *end;
	const char *why;
	int depth;
	size_t nnames;
	struct { char key[JC_KEY_LEN]; char type; } names[JC_MAX_NAMES];
};

static bool jc_fail(struct jc *j, const char *why)
{
	if (!j->why)
		j->why = why;
	return false;
}

static void jc_ws(struct jc *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jc_lit(struct jc *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return jc_fail(j, "bad literal");
	j->p += n;
	return true;
}

static int jc_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One UTF-8 sequence at j->p (RFC 3629: no overlongs, no surrogates). */
static bool jc_utf8(struct jc *j)
{
	const unsigned char *u = (const unsigned char *)j->p;
	size_t left = (size_t)(j->end - j->p), n;
	unsigned int cp;

	if (u[0] < 0x80) {
		n = 1;
		cp = u[0];
	} else if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		cp = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		cp = u[0] & 0x0f;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		cp = u[0] & 0x07;
	} else {
		return jc_fail(j, "invalid UTF-8 lead byte in a string");
	}
	if (left < n)
		return jc_fail(j, "truncated UTF-8 sequence in a string");
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return jc_fail(j, "invalid UTF-8 continuation byte in a string");
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return jc_fail(j, "overlong or out-of-range UTF-8 in a string");
	if (cp >= 0xd800 && cp <= 0xdfff)
		return jc_fail(j, "UTF-8 encoded surrogate in a string");
	j->p += n;
	return true;
}

/* A string; its raw text (between the quotes) goes to *raw, *rawlen. */
static bool jc_string(struct jc *j, const char **raw, size_t *rawlen)
{
	if (j->p >= j->end || *j->p != '"')
		return jc_fail(j, "expected a string");
	j->p++;
	*raw = j->p;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;

		if (c < 0x20)
			return jc_fail(j, "unescaped control character in a string");
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end)
				return jc_fail(j, "truncated escape");
			switch (*j->p) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				j->p++;
				break;
			case 'u':
				if (j->end - j->p < 5)
					return jc_fail(j, "truncated \\u escape");
				for (int i = 1; i <= 4; i++)
					if (jc_hex(j->p[i]) < 0)
						return jc_fail(j, "bad \\u escape");
				j->p += 5;
				break;
			default:
				return jc_fail(j, "bad escape");
			}
			continue;
		}
		if (!jc_utf8(j))
			return false;
	}
	if (j->p >= j->end)
		return jc_fail(j, "unterminated string");
	*rawlen = (size_t)(j->p - *raw);
	j->p++;
	return true;
}

static bool jc_number(struct jc *j)
{
	const char *start = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end)
		return jc_fail(j, "truncated number");
	if (*j->p == '0') {
		j->p++;
	} else if (*j->p >= '1' && *j->p <= '9') {
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	} else {
		return jc_fail(j, "bad number");
	}
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jc_fail(j, "bad fraction");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jc_fail(j, "bad exponent");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	return j->p > start;
}

static bool jc_value(struct jc *j, char *type);

/* Record that key has a value of type; fail when it had another before. */
static bool jc_key_type(struct jc *j, const char *key, size_t len, char type)
{
	if (len >= JC_KEY_LEN)
		return true; /* not one of nkctl's keys: nothing to compare */
	for (size_t i = 0; i < j->nnames; i++) {
		if (strlen(j->names[i].key) == len && !memcmp(j->names[i].key, key, len)) {
			if (j->names[i].type != type)
				return jc_fail(j, "a key changes type within the document");
			return true;
		}
	}
	if (j->nnames == JC_MAX_NAMES)
		return jc_fail(j, "more distinct keys than the checker holds");
	memcpy(j->names[j->nnames].key, key, len);
	j->names[j->nnames].key[len] = '\0';
	j->names[j->nnames++].type = type;
	return true;
}

static bool jc_object(struct jc *j)
{
	struct { const char *k; size_t n; } keys[JC_MAX_KEYS];
	size_t nkeys = 0;

	j->p++; /* '{' */
	jc_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return true;
	}
	for (;;) {
		const char *k;
		size_t klen;
		char type;

		jc_ws(j);
		if (!jc_string(j, &k, &klen))
			return false;
		for (size_t i = 0; i < nkeys; i++)
			if (keys[i].n == klen && !memcmp(keys[i].k, k, klen))
				return jc_fail(j, "duplicate key in an object");
		if (nkeys == JC_MAX_KEYS)
			return jc_fail(j, "more keys in an object than the checker holds");
		keys[nkeys].k = k;
		keys[nkeys++].n = klen;
		jc_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return jc_fail(j, "expected ':'");
		j->p++;
		jc_ws(j);
		if (!jc_value(j, &type) || !jc_key_type(j, k, klen, type))
			return false;
		jc_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return true;
		}
		return jc_fail(j, "expected ',' or '}'");
	}
}

static bool jc_array(struct jc *j)
{
	char type;

	j->p++; /* '[' */
	jc_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return true;
	}
	for (;;) {
		jc_ws(j);
		if (!jc_value(j, &type))
			return false;
		jc_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return true;
		}
		return jc_fail(j, "expected ',' or ']'");
	}
}

/* type: 'o'bject, 'a'rray, 's'tring, 'n'umber, 'b'oolean, 'z' null. */
static bool jc_value(struct jc *j, char *type)
{
	const char *raw;
	size_t rawlen;
	bool ok;

	if (j->p >= j->end)
		return jc_fail(j, "expected a value");
	switch (*j->p) {
	case '{':
	case '[':
		if (++j->depth > JC_MAX_DEPTH)
			return jc_fail(j, "nested too deep");
		*type = *j->p == '{' ? 'o' : 'a';
		ok = *j->p == '{' ? jc_object(j) : jc_array(j);
		j->depth--;
		return ok;
	case '"':
		*type = 's';
		return jc_string(j, &raw, &rawlen);
	case 't':
		*type = 'b';
		return jc_lit(j, "true");
	case 'f':
		*type = 'b';
		return jc_lit(j, "false");
	case 'n':
		*type = 'z';
		return jc_lit(j, "null");
	default:
		*type = 'n';
		return jc_number(j);
	}
}

/* NULL when buf[0..len) is one JSON object (and white space), else why not. */
static const char *jsoncheck(const char *buf, size_t len, size_t *at)
{
	static struct jc j; /* big (the key table): not on the stack */
	char type;

	j.why = NULL;
	j.depth = 0;
	j.nnames = 0;
	j.s = j.p = buf;
	j.end = buf + len;
	jc_ws(&j);
	if (j.p >= j.end || *j.p != '{')
		jc_fail(&j, "the document is not an object");
	else if (jc_value(&j, &type)) {
		jc_ws(&j);
		if (j.p != j.end)
			jc_fail(&j, "text after the top-level value");
	}
	*at = (size_t)(j.p - j.s);
	return j.why;
}

#endif
