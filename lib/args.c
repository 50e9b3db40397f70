// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdarg.h>
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

/* snprintf at buf + *used, never past len; *used stays < len. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

const char *nk_choice_word(const struct nk_choice *choices, uint32_t v)
{
	for (const struct nk_choice *c = choices; c && c->name; c++)
		if (c->value == v)
			return c->name;
	return NULL;
}

const char *nk_choice_name(const struct nk_choice *choices, uint32_t v, char *buf,
			   size_t len)
{
	const char *w = nk_choice_word(choices, v);

	if (w)
		return w;
	snprintf(buf, len, "unknown(%u)", v);
	return buf;
}

void nk_choice_list(const struct nk_choice *choices, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct nk_choice *c = choices; c && c->name; c++)
		append(buf, len, &used, "%s%s", used ? sep : "", c->name);
}

void nk_choice_words(const struct nk_choice *choices, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct nk_choice *c = choices; c && c->name; c++)
		append(buf, len, &used, "%s%s", used ? sep : "", c->name);
	for (const struct nk_choice *c = choices; c && c->name; c++)
		if (c->alias)
			append(buf, len, &used, "%s%s", used ? sep : "", c->alias);
}

/* Edit distance of a and b, or more than max (then it stops counting). */
static size_t edits(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la >= 64 || lb >= 64 || (la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

void nk_suggest_try(struct nk_suggest *s, const char *cand)
{
	size_t len = strlen(s->word), score;

	if (!cand || !cand[0] || !len)
		return;
	/* A prefix beats any edit (nkctl has no abbreviations: it only says). */
	score = !strncmp(cand, s->word, len) ? 0 : edits(s->word, cand, 2) + 1;
	if (score > 3 || (len < 3 && score > 1))
		return;
	if (!s->best || score < s->score) {
		s->best = cand;
		s->score = score;
	}
}

const char *nk_suggest_text(const struct nk_suggest *s, char *buf, size_t len)
{
	if (!s->best)
		return "";
	snprintf(buf, len, " (did you mean \"%s\"?)", s->best);
	return buf;
}

static void list_keywords(char *buf, size_t len, const struct nk_params *p)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kw)
			append(buf, len, &used, "%s, ", p->v[i].kw);
	append(buf, len, &used, "help");
}

int nk_params_find(const struct nk_params *p, const char *kw)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->v[i].kw && !strcmp(p->v[i].kw, kw))
			return (int)i;
	return -1;
}

/* A rule's member: a keyword, or the positional word by its META ("link
 * del { NAME | group DEVGROUP }"). */
static int rule_find(const struct nk_params *p, const char *kw)
{
	int i = nk_params_find(p, kw);

	for (size_t k = 0; i < 0 && p && k < p->n; k++)
		if (!p->v[k].kw && p->v[k].meta && !strcmp(p->v[k].meta, kw))
			i = (int)k;
	return i;
}

bool nk_params_has(const struct nk_params *p, const char *word)
{
	return nk_params_find(p, word) >= 0;
}

static const struct nk_choice *find_choice(const struct nk_choice *c, const char *word)
{
	for (; c && c->name; c++)
		if (!strcmp(c->name, word) || (c->alias && !strcmp(c->alias, word)))
			return c;
	return NULL;
}

static int store(const struct nk_param *d, const char *kw, const char *val,
		 void *dest)
{
	void *slot = (char *)dest + d->offset;
	const struct nk_choice *c;
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
		c = find_choice(d->choices, val);
		if (c) {
			*(uint32_t *)slot = c->value;
			return 0;
		}
		nk_choice_list(d->choices, ", ", choices, sizeof(choices));
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
		for (size_t i = 0; i < l->n; i++)
			if (!strcmp(l->v[i], val))
				return nk_error(NK_EXIT_USAGE, "\"%s %s\" is given twice", kw, val);
		l->v[l->n++] = val;
		return 0;
	}
	case NKP_CUSTOM:
	case NKP_REST:
		break;
	}
	return NK_EXIT_USAGE;
}

/* How a keyword reads in a message: "-- CMD" for the rest. */
static const char *display(const struct nk_param *d)
{
	return d->type == NKP_REST ? "-- CMD" : d->kw ? d->kw : d->meta;
}

/* The words of one keyword, for "needs" messages: "queue LIST". */
static void word_and_meta(const struct nk_param *d, char *buf, size_t len)
{
	if (d->type == NKP_FLAG || d->type == NKP_REST || !d->kw)
		snprintf(buf, len, "%s", display(d));
	else
		snprintf(buf, len, "%s %s", d->kw, d->meta ? d->meta : "VALUE");
}

static int check_rule(const struct nk_params *p, const struct nk_rule *r, uint64_t given)
{
	const struct nk_param *hit[NK_RULE_MAX] = { NULL };
	char names[256], a[64];
	size_t n = 0, used = 0, k;

	names[0] = '\0';
	for (k = 0; k < NK_RULE_MAX && r->kws[k]; k++) {
		int i = rule_find(p, r->kws[k]);

		if (i < 0)
			continue;
		word_and_meta(&p->v[i], a, sizeof(a));
		append(names, sizeof(names), &used, "%s\"%s\"",
		       k ? (r->kind == NK_RULE_ONE_OF ? " or " : ", ") : "", a);
		if (given & (1ULL << i))
			hit[n++] = &p->v[i];
	}
	switch (r->kind) {
	case NK_RULE_EXCLUSIVE:
	case NK_RULE_ONE_OF:
		if (n > 1)
			return nk_error(NK_EXIT_USAGE, "\"%s\" and \"%s\" exclude each other",
					display(hit[0]), display(hit[1]));
		if (!n && r->kind == NK_RULE_ONE_OF)
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs %s%s", p->cmd,
					k > 1 ? "either " : "", names);
		return 0;
	case NK_RULE_NEEDS:
		if (given & (1ULL << nk_params_find(p, r->kws[0])) &&
		    !(given & (1ULL << nk_params_find(p, r->kws[1])))) {
			word_and_meta(&p->v[nk_params_find(p, r->kws[1])], a, sizeof(a));
			return nk_error(NK_EXIT_USAGE, "\"%s %s\" needs \"%s\"", p->cmd, r->kws[0], a);
		}
		return 0;
	}
	return 0;
}

static int check_required(const struct nk_params *p, uint64_t given)
{
	for (size_t idx = 0; idx < p->n; idx++) {
		const struct nk_param *d = &p->v[idx];

		if (!d->required || (given & (1ULL << idx)))
			continue;
		if (d->kw)
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs \"%s %s\"", p->cmd,
					d->kw, d->meta ? d->meta : "VALUE");
		return nk_error(NK_EXIT_USAGE, "\"%s\" needs %s", p->cmd,
				d->meta ? d->meta : "a value");
	}
	for (size_t i = 0; i < p->nrules; i++) {
		int ret = check_rule(p, &p->rules[i], given);

		if (ret)
			return ret;
	}
	return 0;
}

/* A keyword another table takes but this one refuses: fixed at creation. */
static int refuse_creation_only(const struct nk_params *p, const char *word)
{
	if (!p->creation || !nk_params_has(p->creation, word))
		return 0;
	return nk_error(NK_EXIT_USAGE,
			"\"%s\" can only be given when the device is created (%s); \"%s\" does not take it",
			word, p->creation->cmd, p->cmd);
}

static int take_positional(const struct nk_params *p, const char *word, void *dest,
			   uint64_t *given)
{
	for (size_t idx = 0; idx < p->n; idx++) {
		if (p->v[idx].kw)
			continue;
		*given |= 1ULL << idx;
		return store(&p->v[idx], p->v[idx].meta, word, dest);
	}
	return -1;
}

/* One keyword at argv[*i] with its value(s); advances *i past them. */
static int take_keyword(const struct nk_params *p, size_t idx, int argc, char **argv, int *i,
			void *dest, uint64_t *given)
{
	const struct nk_param *d = &p->v[idx];
	void *slot = (char *)dest + d->offset;
	int ret;

	if ((*given & (1ULL << idx)) && !nk_param_repeats(d)) {
		if (d->type == NKP_FLAG || d->type == NKP_CUSTOM || d->type == NKP_REST)
			return nk_error(NK_EXIT_USAGE, "duplicate \"%s\"", d->kw);
		return nk_error(NK_EXIT_USAGE, "duplicate \"%s\": \"%s\" is the second value",
				d->kw, *i + 1 < argc ? argv[*i + 1] : "");
	}
	*given |= 1ULL << idx;
	switch (d->type) {
	case NKP_FLAG:
		return store(d, d->kw, "", dest);
	case NKP_REST:
		if (*i + 1 >= argc)
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs a command to run", d->kw);
		*(char ***)slot = &argv[*i + 1];
		*i = argc - 1;
		return 0;
	case NKP_CUSTOM:
		ret = d->parse(d, argc - *i - 1, argv + *i + 1, slot);
		if (ret < 0)
			return -ret;
		*i += ret;
		return 0;
	default:
		if (*i + 1 >= argc)
			return nk_error(NK_EXIT_USAGE, "\"%s\" needs a value (%s)",
					d->kw, d->meta ? d->meta : "VALUE");
		*i += 1;
		return store(d, d->kw, argv[*i], dest);
	}
}

static int unknown_word(const struct nk_params *p, const char *word)
{
	struct nk_suggest sg = { .word = word };
	char kws[512], hint[96];

	if (word[0] == '-')
		return nk_error(NK_EXIT_USAGE,
				"unknown argument \"%s\" for \"%s\": options go before the object (nkctl %s %s ...)",
				word, p->cmd, word, p->cmd);
	for (size_t i = 0; i < p->n; i++)
		nk_suggest_try(&sg, p->v[i].kw);
	list_keywords(kws, sizeof(kws), p);
	return nk_error(NK_EXIT_USAGE, "unknown argument \"%s\" for \"%s\"%s; expected one of: %s",
			word, p->cmd, nk_suggest_text(&sg, hint, sizeof(hint)), kws);
}

int nk_parse_params(const struct nk_params *p, int argc, char **argv, void *dest,
		    uint64_t *seen)
{
	uint64_t given = 0;
	int ret;

	for (int i = 0; i < argc; i++) {
		const char *word = argv[i];
		int idx = nk_params_find(p, word);

		if (idx >= 0) {
			ret = take_keyword(p, (size_t)idx, argc, argv, &i, dest, &given);
			if (ret)
				return ret;
			continue;
		}
		if (!strcmp(word, "help"))
			return NK_HELP;
		/* A positional word is allowed only first. */
		if (i == 0) {
			ret = take_positional(p, word, dest, &given);
			if (ret >= 0) {
				if (ret)
					return ret;
				continue;
			}
		}
		ret = refuse_creation_only(p, word);
		if (ret)
			return ret;
		return unknown_word(p, word);
	}
	ret = check_required(p, given);
	if (ret)
		return ret;
	if (seen)
		*seen = given;
	return 0;
}

/* ---- usage synopses, generated from the tables ---- */

/* Add n bytes of item after a space, or on a new line indented by indent
 * when they would pass column 80; *col is where the line stands. */
static void put_wrapped(char *buf, size_t len, size_t *used, size_t *col, size_t indent,
			const char *item, size_t n)
{
	if (*used && *col + 1 + n > 80) {
		append(buf, len, used, "\n%*s", (int)indent, "");
		*col = indent;
	} else if (*used) {
		append(buf, len, used, " ");
		(*col)++;
	}
	append(buf, len, used, "%.*s", (int)n, item);
	*col += n;
}

/* Choices too many to stand inline: the synopsis names them META and lists
 * them below ("HOOK := { ... }"). */
static bool long_enum(const struct nk_param *d)
{
	char choices[192];

	if (d->type != NKP_ENUM || !d->meta)
		return false;
	nk_choice_words(d->choices, "|", choices, sizeof(choices));
	return strlen(choices) > 24;
}

/* One keyword as the synopsis shows it, without brackets. */
static void param_words(const struct nk_param *d, char *buf, size_t len)
{
	char choices[192];

	if (!d->kw) {
		snprintf(buf, len, "%s", d->meta);
	} else if (d->type == NKP_FLAG) {
		snprintf(buf, len, "%s", d->kw);
	} else if (d->type == NKP_REST) {
		snprintf(buf, len, "%s %s [ ARGS... ]", d->kw, d->meta ? d->meta : "CMD");
	} else if (d->type == NKP_ENUM && !long_enum(d)) {
		nk_choice_words(d->choices, " | ", choices, sizeof(choices));
		snprintf(buf, len, "%s { %s }", d->kw, choices);
	} else {
		snprintf(buf, len, "%s %s", d->kw, d->meta ? d->meta : "VALUE");
	}
}

bool nk_param_repeats(const struct nk_param *d)
{
	return d->type == NKP_LIST || (d->type == NKP_CUSTOM && d->max > 1);
}

/* The optional keywords that need keyword idx (a NEEDS rule, not in a
 * group of their own): the synopsis nests them after it, "pool LIST
 * [ count N ]". */
static bool nested_under(const struct nk_params *p, size_t dep, size_t idx);
static const struct nk_rule *group_of(const struct nk_params *p, size_t idx, size_t *first);

static void param_words_nested(const struct nk_params *p, size_t idx, char *buf, size_t len)
{
	size_t used = 0;
	char w[256];

	param_words(&p->v[idx], w, sizeof(w));
	buf[0] = '\0';
	append(buf, len, &used, "%s", w);
	for (size_t k = 0; k < p->n; k++) {
		if (!nested_under(p, k, idx))
			continue;
		param_words(&p->v[k], w, sizeof(w));
		append(buf, len, &used, " [ %s ]%s", w, nk_param_repeats(&p->v[k]) ? "..." : "");
	}
}

static void param_item(const struct nk_params *p, size_t idx, char *buf, size_t len)
{
	const struct nk_param *d = &p->v[idx];
	size_t used = 0;
	char w[400];

	param_words_nested(p, idx, w, sizeof(w));
	buf[0] = '\0';
	if (d->required)
		append(buf, len, &used, "%s", w);
	else
		append(buf, len, &used, "[ %s ]%s", w, nk_param_repeats(d) ? "..." : "");
}

/* The rule that groups keyword idx in the synopsis, if any. */
static const struct nk_rule *group_of(const struct nk_params *p, size_t idx, size_t *first)
{
	for (size_t r = 0; r < p->nrules; r++) {
		const struct nk_rule *rule = &p->rules[r];
		bool member = false;

		if (rule->kind == NK_RULE_NEEDS)
			continue;
		*first = SIZE_MAX;
		for (size_t k = 0; k < NK_RULE_MAX && rule->kws[k]; k++) {
			int i = rule_find(p, rule->kws[k]);

			if (i >= 0 && (size_t)i < *first)
				*first = (size_t)i;
			member |= i >= 0 && (size_t)i == idx;
		}
		if (member)
			return rule;
	}
	return NULL;
}

static bool nested_under(const struct nk_params *p, size_t dep, size_t idx)
{
	size_t first;

	if (p->v[dep].required || group_of(p, dep, &first))
		return false;
	for (size_t r = 0; r < p->nrules; r++) {
		const struct nk_rule *rule = &p->rules[r];

		if (rule->kind == NK_RULE_NEEDS && rule->kws[0] && rule->kws[1] &&
		    nk_params_find(p, rule->kws[0]) == (int)dep &&
		    nk_params_find(p, rule->kws[1]) == (int)idx)
			return true;
	}
	return false;
}

int nk_params_nested(const struct nk_params *p, size_t dep)
{
	for (size_t i = 0; i < p->n; i++)
		if (nested_under(p, dep, i))
			return (int)i;
	return -1;
}

static void group_item(const struct nk_params *p, const struct nk_rule *rule, char *buf,
		       size_t len)
{
	bool one_of = rule->kind == NK_RULE_ONE_OF;
	size_t used = 0;
	char w[512];

	buf[0] = '\0';
	append(buf, len, &used, "%s", one_of ? "{ " : "[ ");
	for (size_t k = 0; k < NK_RULE_MAX && rule->kws[k]; k++) {
		int i = rule_find(p, rule->kws[k]);

		if (i < 0)
			continue;
		param_words_nested(p, (size_t)i, w, sizeof(w));
		append(buf, len, &used, "%s%s", k ? " | " : "", w);
	}
	append(buf, len, &used, "%s", one_of ? " }" : " ]");
}

/* The "META := { a | b }" lines below a synopsis: long enums (once per
 * META) and the table's own definitions. */
void nk_params_defs(const struct nk_params *p, char *buf, size_t len)
{
	size_t used = strlen(buf);
	char item[512];

	for (size_t i = 0; i < p->n; i++) {
		bool seen = false;

		if (!long_enum(&p->v[i]))
			continue;
		for (size_t k = 0; k < i; k++)
			seen |= long_enum(&p->v[k]) && !strcmp(p->v[k].meta, p->v[i].meta);
		if (seen)
			continue;
		nk_choice_words(p->v[i].choices, " | ", item, sizeof(item));
		append(buf, len, &used, "\n       %s := { %s }", p->v[i].meta, item);
	}
	if (p->defs)
		append(buf, len, &used, "\n       %s", p->defs);
}

void nk_params_usage(const struct nk_params *p, char *buf, size_t len, size_t first_col,
		     size_t indent)
{
	size_t used = 0, col = first_col;
	char item[512];

	buf[0] = '\0';
	for (size_t i = 0; i < p->n; i++) {
		size_t first;
		const struct nk_rule *rule = group_of(p, i, &first);

		if ((rule && first != i) || nk_params_nested(p, i) >= 0)
			continue;
		if (rule)
			group_item(p, rule, item, sizeof(item));
		else
			param_item(p, i, item, sizeof(item));
		put_wrapped(buf, len, &used, &col, indent, item, strlen(item));
	}
	nk_params_defs(p, buf, len);
}

/* How many bytes of text, from a "[" or "{" word, up to and with its
 * matching closing word; 0 when it does not close. */
static size_t bracket_span(const char *text)
{
	const char *p = text;
	int depth = 0;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (n == 1 && (*p == '[' || *p == '{'))
			depth++;
		else if (n && (*p == ']' || *p == '}'))
			depth--;
		p += n;
		if (!depth)
			return (size_t)(p - text);
		p += strspn(p, " ");
	}
	return 0;
}

/* A bracketed group short enough to stay on one line is one item:
 * "[ force ]" never breaks. */
#define NK_WRAP_GROUP 40

void nk_wrap(const char *text, char *buf, size_t len, size_t first_col, size_t indent)
{
	size_t used = 0, col = first_col;
	const char *p = text;

	buf[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, " ");

		if (n == 1 && (*p == '[' || *p == '{')) {
			size_t span = bracket_span(p);

			if (span && span <= NK_WRAP_GROUP)
				n = span + strcspn(p + span, " ");
			else if (p[1] == ' ')   /* never "{" alone at a line's end */
				n = 1 + strspn(p + 1, " ") + strcspn(p + 1 + strspn(p + 1, " "), " ");
		}
		put_wrapped(buf, len, &used, &col, indent, p, n);
		p += n;
		p += strspn(p, " ");
	}
}

bool nk_id_listed(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}
