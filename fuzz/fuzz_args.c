// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: nkctl's argument parser (lib/args.c).
 *
 * The input is a command line: words separated by NUL bytes. The first word
 * picks a parameter table by its command name ("link add", "lease", ...;
 * any other word picks one by its first byte): every table of nkctl's real
 * command tree (found by walking nk_top_table, so new commands are covered as
 * they are added) and two of the harness's own, one with a parameter of every
 * NKP_ type and a positional word ("fuzz all"). The other words are the
 * command's argv. The first 8 of them also go to the stand-alone validators
 * (nk_parse_u32, nk_parse_queue_list, nk_check_ifname, nk_parse_mac), all of
 * them to nk_params_has.
 *
 * Contracts checked (abort on violation):
 *   - a failure prints exactly one "Error:" line on stderr, a success or
 *     "help" prints nothing;
 *   - what a success stores obeys the table: non-empty strings pointing into
 *     argv, valid interface names, numbers within [min, max], enum values
 *     from the choices, unicast MACs that print back as given, lists within
 *     NK_STRLIST_MAX, every required parameter given;
 *   - a queue list is ascending without duplicates, at most NK_MAX_QUEUES.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <net/if.h>

#include "args.h"
#include "core/cmd.h"
#include "err.h"
#include "fuzz_die.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *real_stderr;
static FILE *devnull;
/* stderr of the call under test: one stream over a fixed buffer (cheaper than
 * a memstream each time), rewound before a call and read after it. */
static char cap_buf[1 << 16];
static FILE *cap_fp;

#define die(what, detail, output, len) \
	fuzz_die(real_stderr, "fuzz_args", what, detail, output, len)

/* ---- the tables ---- */

struct fz_all {
	const char *s, *ifname, *netns, *pos;
	uint32_t u, e;
	bool flag;
	uint8_t mac[6];
	struct nk_strlist list;
	const char *custom;
	char **rest;
};

static const struct nk_choice fz_choices[] = {
	{ "l2", 0, NULL }, { "l3", 1, "layer3" }, { "forward", 7, "pass" }, { "", 9, NULL },
	{ NULL, 0, NULL },
};

/* A custom parser that takes one word after its keyword, or refuses "bad". */
static int fz_custom(const struct nk_param *d, int argc, char **argv, void *slot)
{
	(void)d;
	if (argc < 1 || !strcmp(argv[0], "bad"))
		return -nk_error(NK_EXIT_USAGE, "custom needs a good word");
	*(const char **)slot = argv[0];
	return 1;
}

/* A parameter of every type, a positional word and required ones. */
static const struct nk_param fz_all_params[] = {
	{ NULL, NKP_IFNAME, offsetof(struct fz_all, pos), "NAME", 0, 0, NULL, false, NULL },
	{ "str", NKP_STRING, offsetof(struct fz_all, s), "STR", 0, 0, NULL, false, NULL },
	{ "dev", NKP_IFNAME, offsetof(struct fz_all, ifname), "NAME", 0, 0, NULL, true, NULL },
	{ "netns", NKP_NETNS, offsetof(struct fz_all, netns), "NETNS", 0, 0, NULL, false, NULL },
	{ "num", NKP_U32, offsetof(struct fz_all, u), "N", 1, 4096, NULL, false, NULL },
	{ "mode", NKP_ENUM, offsetof(struct fz_all, e), "MODE", 0, 0, fz_choices, false, NULL },
	{ "force", NKP_FLAG, offsetof(struct fz_all, flag), NULL, 0, 0, NULL, false, NULL },
	{ "address", NKP_MAC, offsetof(struct fz_all, mac), "MAC", 0, 0, NULL, false, NULL },
	{ "prefix", NKP_LIST, offsetof(struct fz_all, list), "PREFIX", 0, 0, NULL, false, NULL },
	{ "custom", NKP_CUSTOM, offsetof(struct fz_all, custom), "WORD", 0, 0, NULL, false,
	  fz_custom },
	{ "--", NKP_REST, offsetof(struct fz_all, rest), "CMD", 0, 0, NULL, false, NULL },
};
static const struct nk_rule fz_rules[] = {
	{ NK_RULE_EXCLUSIVE, { "force", "--" } },
	{ NK_RULE_NEEDS, { "custom", "str" } },
};
static const struct nk_params fz_all = {
	NK_PARAMS("fuzz all", struct fz_all, fz_all_params), NK_RULES(fz_rules),
};

/* One with nothing but a required positional and a required keyword. */
struct fz_req { const char *pos; uint32_t max; };
static const struct nk_param fz_req_params[] = {
	{ NULL, NKP_STRING, offsetof(struct fz_req, pos), NULL, 0, 0, NULL, true, NULL },
	{ "max", NKP_U32, offsetof(struct fz_req, max), NULL, 0, UINT32_MAX, NULL, true, NULL },
};
static const struct nk_params fz_req = {
	NK_PARAMS("fuzz required", struct fz_req, fz_req_params)
};

#define MAX_TABLES 64
static const struct nk_params *tables[MAX_TABLES];
static size_t ntables;

static void add_table(const struct nk_params *p)
{
	for (size_t i = 0; i < ntables; i++)
		if (tables[i] == p)
			return;
	if (ntables == MAX_TABLES)
		die("tables", "more parameter tables than the harness holds", NULL, 0);
	/* nk_parse_params keeps a 64-bit mask of the parameters given. */
	if (p->n > 64)
		die("tables", "a table with more than 64 parameters", NULL, 0);
	tables[ntables++] = p;
}

static void walk(const struct nk_table *t, int depth)
{
	if (depth > 8)
		die("tables", "the command tree is deeper than 8", NULL, 0);
	for (size_t i = 0; i < t->n; i++) {
		if (t->cmds[i].params)
			add_table(t->cmds[i].params);
		if (t->cmds[i].sub)
			walk(t->cmds[i].sub, depth + 1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fuzz_hide_stderr(&real_stderr);
	cap_fp = fmemopen(cap_buf, sizeof(cap_buf), "w");
	if (!cap_fp)
		abort();
	add_table(&fz_all);
	add_table(&fz_req);
	add_table(&cmd_lease_params);
	add_table(&cmd_unlease_params);
	walk(&nk_top_table, 0);
	return 0;
}

/* ---- stderr of one call ---- */

struct capture { char *buf; size_t len; };

static void cap_start(struct capture *c)
{
	(void)c;
	rewind(cap_fp);
	stderr = cap_fp;
}

/* The output of a call that returned ret (0 or NK_HELP: silence). */
static void cap_check(struct capture *c, const char *what, int ret)
{
	size_t lines = 0;
	long pos;

	stderr = devnull;
	fflush(cap_fp);
	pos = ftell(cap_fp);
	if (pos < 0 || (size_t)pos >= sizeof(cap_buf) - 1)
		die(what, "an error longer than the harness's buffer", NULL, 0);
	c->buf = cap_buf;
	c->len = (size_t)pos;
	for (size_t i = 0; i < c->len; i++)
		lines += c->buf[i] == '\n';
	if (ret == 0 || ret == NK_HELP) {
		if (c->len)
			die(what, "printed on stderr although it succeeded", c->buf, c->len);
	} else if (ret != NK_EXIT_USAGE) {
		die(what, "returned something else than 0, NK_HELP or NK_EXIT_USAGE", c->buf,
		    c->len);
	} else if (lines != 1 || c->len < 8 || strncmp(c->buf, "Error: ", 7) ||
		   c->buf[c->len - 1] != '\n' || memchr(c->buf, '\0', c->len)) {
		die(what, "not exactly one Error: line", c->buf, c->len);
	}
}

/* ---- what a successful parse stored ---- */

static bool in_argv(const char *v, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (v == argv[i])
			return true;
	return false;
}

static bool ifname_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	return true;
}

static size_t slot_size(enum nk_param_type t)
{
	switch (t) {
	case NKP_STRING: case NKP_IFNAME: case NKP_NETNS: return sizeof(const char *);
	case NKP_U32: case NKP_ENUM: return sizeof(uint32_t);
	case NKP_FLAG: return sizeof(bool);
	case NKP_MAC: return 6;
	case NKP_LIST: return sizeof(struct nk_strlist);
	case NKP_CUSTOM: return 1;   /* its own: at least a byte */
	case NKP_REST: return sizeof(char **);
	}
	die("tables", "a parameter of unknown type", NULL, 0);
	return 0;
}

static void check_stored(const struct nk_params *p, const void *dest, uint64_t seen,
			 int argc, char **argv)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct nk_param *d = &p->v[i];
		const void *slot = (const char *)dest + d->offset;
		char why[160];

		if (!(seen & (1ULL << i))) {
			if (d->required)
				die("nk_parse_params", "a required parameter is missing", NULL, 0);
			continue;
		}
		snprintf(why, sizeof(why), "\"%s\" of \"%s\": ", d->kw ? d->kw : "(positional)",
			 p->cmd);
		switch (d->type) {
		case NKP_STRING:
		case NKP_NETNS: {
			const char *v = *(const char *const *)slot;

			if (!v || !v[0] || !in_argv(v, argc, argv))
				die("nk_parse_params", strcat(why, "not a non-empty word"), NULL, 0);
			break;
		}
		case NKP_IFNAME: {
			const char *v = *(const char *const *)slot;

			if (!v || !in_argv(v, argc, argv) || !ifname_ok(v))
				die("nk_parse_params", strcat(why, "an invalid interface name"), NULL, 0);
			break;
		}
		case NKP_U32: {
			uint32_t v = *(const uint32_t *)slot;

			if (v < d->min || v > d->max)
				die("nk_parse_params", strcat(why, "a number out of range"), NULL, 0);
			break;
		}
		case NKP_ENUM: {
			uint32_t v = *(const uint32_t *)slot;
			bool found = false;

			for (const struct nk_choice *c = d->choices; c && c->name; c++)
				found |= c->value == v;
			if (!found)
				die("nk_parse_params", strcat(why, "a value not among the choices"), NULL, 0);
			break;
		}
		case NKP_FLAG:
			if (!*(const bool *)slot)
				die("nk_parse_params", strcat(why, "a flag given but not set"), NULL, 0);
			break;
		case NKP_MAC:
			if (((const uint8_t *)slot)[0] & 1)
				die("nk_parse_params", strcat(why, "a multicast MAC"), NULL, 0);
			break;
		case NKP_LIST: {
			const struct nk_strlist *l = slot;

			if (l->n == 0 || l->n > NK_STRLIST_MAX)
				die("nk_parse_params", strcat(why, "a list of bad length"), NULL, 0);
			for (size_t k = 0; k < l->n; k++)
				if (!l->v[k][0] || !in_argv(l->v[k], argc, argv))
					die("nk_parse_params", strcat(why, "a bad list element"), NULL, 0);
			break;
		}
		case NKP_CUSTOM:
			break;    /* its parser's business */
		case NKP_REST: {
			char *const *rest = *(char **const *)slot;

			if (!rest || rest <= argv || rest >= argv + argc || strcmp(rest[-1], d->kw))
				die("nk_parse_params", strcat(why, "a rest not after its keyword"), NULL, 0);
			break;
		}
		}
	}
}

static void fuzz_table(const struct nk_params *p, int argc, char **argv)
{
	struct capture c;
	size_t size = 1;
	uint64_t seen = 0;
	void *dest;
	int ret;

	/* Exactly as big as the table says: an out-of-table store is caught. */
	for (size_t i = 0; i < p->n; i++) {
		size_t end = p->v[i].offset + slot_size(p->v[i].type);

		if (end > size)
			size = end;
	}
	if (size > p->size)
		die("tables", "a parameter stored past the table's struct size", p->cmd, 0);
	size = p->size;
	dest = calloc(1, size);
	if (!dest)
		abort();
	cap_start(&c);
	ret = nk_parse_params(p, argc, argv, dest, &seen);
	cap_check(&c, "nk_parse_params", ret);
	if (ret == 0)
		check_stored(p, dest, seen, argc, argv);
	free(dest);
}

/* ---- the stand-alone validators ---- */

static void fuzz_word(const char *w)
{
	static uint32_t ids[NK_MAX_QUEUES]; /* exactly the room args.h promises */
	struct capture c;
	uint8_t mac[6];
	uint32_t v;
	size_t n;
	int ret;

	cap_start(&c);
	ret = nk_parse_u32("num", w, 0, UINT32_MAX, &v);
	cap_check(&c, "nk_parse_u32", ret);
	if (ret == 0) {
		/* all digits, and the value they spell */
		char back[16];

		for (const char *p = w; *p; p++)
			if (!isdigit((unsigned char)*p))
				die("nk_parse_u32", "accepted a non-digit", NULL, 0);
		snprintf(back, sizeof(back), "%u", v);
		if (strcmp(back, w + strspn(w, "0")) && !(v == 0 && w[strspn(w, "0")] == '\0'))
			die("nk_parse_u32", "the value does not spell the word", NULL, 0);
	}
	cap_start(&c);
	ret = nk_parse_u32("rxqueues", w, 1, 1024, &v);
	cap_check(&c, "nk_parse_u32", ret);
	if (ret == 0 && (v < 1 || v > 1024))
		die("nk_parse_u32", "a value outside [min, max]", NULL, 0);

	cap_start(&c);
	ret = nk_parse_queue_list("queue", w, ids, &n);
	cap_check(&c, "nk_parse_queue_list", ret);
	if (ret == 0) {
		if (n == 0 || n > NK_MAX_QUEUES)
			die("nk_parse_queue_list", "a list of bad length", NULL, 0);
		for (size_t i = 1; i < n; i++)
			if (ids[i] <= ids[i - 1])
				die("nk_parse_queue_list", "not strictly ascending", NULL, 0);
	}

	cap_start(&c);
	ret = nk_check_ifname("dev", w);
	cap_check(&c, "nk_check_ifname", ret);
	if ((ret == 0) != ifname_ok(w))
		die("nk_check_ifname", "disagrees with the kernel's dev_valid_name rules", NULL, 0);

	cap_start(&c);
	ret = nk_parse_mac("address", w, mac);
	cap_check(&c, "nk_parse_mac", ret);
	if (ret == 0) {
		char back[18];

		snprintf(back, sizeof(back), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
			 mac[2], mac[3], mac[4], mac[5]);
		if (strcasecmp(back, w))
			die("nk_parse_mac", "the address does not print back as given", NULL, 0);
		if (mac[0] & 1)
			die("nk_parse_mac", "accepted a multicast address", NULL, 0);
	}
}

#define MAX_WORDS 96
#define MAX_VALIDATED 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_WORDS + 1];
	const struct nk_params *p = NULL;
	size_t i, len;
	int argc = 0;

	if (size < 1 || size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* The table: named by the first word, or picked by its first byte. */
	len = strlen(buf);
	for (size_t t = 0; t < ntables && !p; t++)
		if (!strcmp(tables[t]->cmd, buf))
			p = tables[t];
	if (!p)
		p = tables[(unsigned char)buf[0] % ntables];
	/* The words, each NUL-terminated in its own allocation (as argv). */
	for (i = len + 1; i < size && argc < MAX_WORDS; ) {
		len = strlen(buf + i);
		argv[argc] = strdup(buf + i);
		if (!argv[argc])
			abort();
		argc++;
		i += len + 1;
	}
	argv[argc] = NULL;

	fuzz_table(p, argc, argv);
	/* The validators on the first words (errors are costly to format). */
	for (int k = 0; k < argc && k < MAX_VALIDATED; k++)
		fuzz_word(argv[k]);
	for (int k = 0; k < argc; k++)
		(void)nk_params_has(p, argv[k]);

	for (int k = 0; k < argc; k++)
		free(argv[k]);
	free(buf);
	return 0;
}
