// SPDX-License-Identifier: GPL-2.0
/* What the plugin says: the command's error (the first one recorded is
 * the cause) and its CNI error object, warnings, a child's stderr. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "cni.h"

/* The length of the well-formed UTF-8 sequence at s (RFC 3629), 0 when
 * there is none. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned int n;
	uint32_t cp, min;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/* s as well-formed UTF-8 in buf, any other byte as U+FFFD: JSON text is
 * UTF-8, and the configuration's strings (json-c takes any bytes) and a
 * message cut short need not be. */
static const char *utf8_clean(const char *s, char *buf, size_t len)
{
	size_t used = 0;

	while (*s && used + 4 < len) {
		size_t n = utf8_seq((const unsigned char *)s);

		memcpy(buf + used, n ? s : "\xef\xbf\xbd", n ? n : 3);
		used += n ? n : 3;
		s += n ? n : 1;
	}
	buf[used] = '\0';
	return buf;
}

int cni_error(const struct plugin *p, int code, const char *fmt, ...)
{
	va_list ap;

	if (p->err->code)
		return -1;      /* the first is the cause, the rest its echoes */
	p->err->code = code;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void cni_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("nkctl-cni: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cni_pass_on(const char *text)
{
	fputs(text, stderr);
	fflush(stderr);
}

bool cni_failed(const struct plugin *p)
{
	return p->err->code != 0;
}

void cni_print_error(const struct plugin *p)
{
	json_object *o = json_object_new_object();
	char clean[3 * sizeof(p->err->msg)];

	json_object_object_add(o, "cniVersion",
			       json_object_new_string(p->version && *p->version ?
						      utf8_clean(p->version, clean, sizeof(clean)) :
						      "1.0.0"));
	json_object_object_add(o, "code", json_object_new_int(p->err->code));
	json_object_object_add(o, "msg",
			       json_object_new_string(utf8_clean(p->err->msg, clean, sizeof(clean))));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	fflush(stdout);
}
