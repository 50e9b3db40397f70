// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "args.h"
#include "err.h"

int nk_parse_u32(const char *kw, const char *s, uint32_t min, uint32_t max,
		 uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = (uint32_t)v;
	return 0;
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"%s\": expected a number from %u to %u",
			s, kw, min, max);
}

int nk_parse_size(const char *kw, const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		goto bad;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	}
	if (*end || v == 0 || v > (max >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"%s\": expected a size from 1 to %llu bytes, with an optional K, M, G or T suffix",
			s, kw, (unsigned long long)max);
}

int nk_check_ifname(const char *kw, const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= IF_NAMESIZE)
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%s\" for \"%s\": an interface name has 1 to %d characters",
				s, kw, IF_NAMESIZE - 1);
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		goto bad;
	for (const char *c = s; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			goto bad;
	return 0;
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"%s\": an interface name cannot contain '/', ':' or spaces",
			s, kw);
}

int nk_parse_mac(const char *kw, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &tail) != 6)
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%s\" for \"%s\": expected a MAC address like 02:00:00:00:00:01",
				s, kw);
	for (int i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)s[3 * i]) || !isxdigit((unsigned char)s[3 * i + 1]))
			return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"%s\": expected a MAC address like 02:00:00:00:00:01",
					s, kw);
		mac[i] = (uint8_t)b[i];
	}
	if (mac[0] & 1)
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%s\" for \"%s\": a multicast address cannot name a device",
				s, kw);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* One decimal number at *p, advancing it. */
static bool take_number(const char **p, uint32_t *v)
{
	unsigned long long n = 0;
	const char *c = *p;

	if (!isdigit((unsigned char)*c))
		return false;
	for (; isdigit((unsigned char)*c); c++) {
		n = n * 10 + (unsigned int)(*c - '0');
		if (n >= NK_MAX_QUEUES * 64ULL)
			return false;
	}
	*v = (uint32_t)n;
	*p = c;
	return true;
}

int nk_parse_queue_list(const char *kw, const char *s, uint32_t *ids, size_t *n)
{
	const char *p = s;

	*n = 0;
	for (;;) {
		uint32_t lo, hi;

		if (!take_number(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!take_number(&p, &hi))
				goto bad;
			if (hi < lo)
				return nk_error(NK_EXIT_USAGE,
						"invalid value \"%s\" for \"%s\": the range %u-%u is inverted",
						s, kw, lo, hi);
		}
		if (*n + (hi - lo) + 1 > NK_MAX_QUEUES)
			return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"%s\": more than %d queues",
					s, kw, NK_MAX_QUEUES);
		for (uint32_t q = lo; q <= hi; q++)
			ids[(*n)++] = q;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad;
	}
	qsort(ids, *n, sizeof(*ids), cmp_u32);
	for (size_t i = 1; i < *n; i++)
		if (ids[i] == ids[i - 1])
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%s\" for \"%s\": queue %u is listed twice",
					s, kw, ids[i]);
	return 0;
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"%s\": expected queue ids like 15, 14,15 or 12-15",
			s, kw);
}

static void list_choices(char *buf, size_t len, const struct nk_choice *c)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; c && c->name && used < len; c++)
		used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", c->name);
}

static void list_keywords(char *buf, size_t len, const struct nk_params *p)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n && used < len; i++)
		if (p->v[i].kw)
			used += snprintf(buf + used, len - used, "%s, ", p->v[i].kw);
	if (used < len)
		snprintf(buf + used, len - used, "help");
}

bool nk_params_has(const struct nk_params *p, const char *word)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kw && !strcmp(p->v[i].kw, word))
			return true;
	return false;
}

static int store(const struct nk_param *d, const char *kw, const char *val,
		 void *dest)
{
	void *slot = (char *)dest + d->offset;
	char choices[256];
	int ret;

	switch (d->type) {
	case NKP_STRING:
	case NKP_NETNS:
		if (!val[0])
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs a non-empty value", kw);
		*(const char **)slot = val;
		return 0;
	case NKP_IFNAME:
		ret = nk_check_ifname(kw, val);
		if (ret)
			return ret;
		*(const char **)slot = val;
		return 0;
	case NKP_U32:
		return nk_parse_u32(kw, val, d->min, d->max, slot);
	case NKP_ENUM:
		for (const struct nk_choice *c = d->choices; c && c->name; c++) {
			if (!strcmp(c->name, val)) {
				*(uint32_t *)slot = c->value;
				return 0;
			}
		}
		list_choices(choices, sizeof(choices), d->choices);
		return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"%s\": expected one of: %s",
				val, kw, choices);
	case NKP_FLAG:
		*(bool *)slot = true;
		return 0;
	case NKP_MAC:
		return nk_parse_mac(kw, val, slot);
	case NKP_LIST: {
		struct nk_strlist *l = slot;

		if (!val[0])
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs a non-empty value", kw);
		if (l->n == NK_STRLIST_MAX)
			return nk_error(NK_EXIT_USAGE, "\"%s\" given more than %d times", kw,
					NK_STRLIST_MAX);
		l->v[l->n++] = val;
		return 0;
	}
	}
	return NK_EXIT_USAGE;
}

int nk_parse_params(const struct nk_params *p, int argc, char **argv, void *dest,
		    uint64_t *seen)
{
	uint64_t given = 0;
	char kws[512];
	int ret;

	for (int i = 0; i < argc; i++) {
		const char *word = argv[i];
		const struct nk_param *d = NULL;
		size_t idx = 0;

		if (!strcmp(word, "help"))
			return NK_HELP;
		for (idx = 0; idx < p->n; idx++) {
			if (p->v[idx].kw && !strcmp(p->v[idx].kw, word)) {
				d = &p->v[idx];
				break;
			}
		}
		if (!d && i == 0) {
			/* A positional word is allowed only first. */
			for (idx = 0; idx < p->n; idx++) {
				if (!p->v[idx].kw) {
					d = &p->v[idx];
					break;
				}
			}
			if (d) {
				ret = store(d, d->meta, word, dest);
				if (ret)
					return ret;
				given |= 1ULL << idx;
				continue;
			}
		}
		if (!d) {
			list_keywords(kws, sizeof(kws), p);
			return nk_error(NK_EXIT_USAGE,
					"unknown argument \"%s\" for \"%s\"; expected one of: %s",
					word, p->cmd, kws);
		}
		if ((given & (1ULL << idx)) && d->type == NKP_FLAG)
			return nk_error(NK_EXIT_USAGE, "duplicate \"%s\"", d->kw);
		if ((given & (1ULL << idx)) && d->type != NKP_LIST)
			return nk_error(NK_EXIT_USAGE, "duplicate \"%s\": \"%s\" is the second value",
					d->kw, i + 1 < argc ? argv[i + 1] : "");
		given |= 1ULL << idx;
		if (d->type == NKP_FLAG) {
			ret = store(d, d->kw, "", dest);
		} else {
			if (i + 1 >= argc)
				return nk_error(NK_EXIT_USAGE, "\"%s\" needs a value (%s)",
						d->kw, d->meta ? d->meta : "VALUE");
			ret = store(d, d->kw, argv[++i], dest);
		}
		if (ret)
			return ret;
	}
	for (size_t idx = 0; idx < p->n; idx++) {
		const struct nk_param *d = &p->v[idx];

		if (d->required && !(given & (1ULL << idx))) {
			if (d->kw)
				return nk_error(NK_EXIT_USAGE, "\"%s\" needs \"%s %s\"", p->cmd,
						d->kw, d->meta ? d->meta : "VALUE");
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs %s", p->cmd,
					d->meta ? d->meta : "a value");
		}
	}
	if (seen)
		*seen = given;
	return 0;
}
