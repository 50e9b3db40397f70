/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarative keyword parsing: a command lists its keywords in a table and
 * nk_parse_params() fills a struct, reporting unknown, missing, duplicate and
 * invalid arguments in one "Error:" line that names the valid choices.
 * Keywords match exactly; there is no prefix matching.
 */
#ifndef NKCTL_ARGS_H
#define NKCTL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returned instead of an exit code when the user asked for "help". */
#define NK_HELP (-1)

enum nk_param_type {
	NKP_STRING,   /* any non-empty word */
	NKP_IFNAME,   /* an interface name: 1..15 bytes, no '/', no space */
	NKP_NETNS,    /* a netns name or a path */
	NKP_U32,      /* decimal, within [min, max] */
	NKP_ENUM,     /* one of choices, stored as its value (uint32_t) */
	NKP_FLAG,     /* keyword alone; stores true (bool) */
	NKP_MAC,      /* aa:bb:cc:dd:ee:ff into uint8_t[6] */
	NKP_LIST,     /* repeatable keyword: values into struct nk_strlist */
	NKP_CUSTOM,   /* parse() takes the words after the keyword */
	NKP_REST,     /* "--": every word after it, as a NULL-ended char ** */
};

/*
 * One word table per enum: parsing and printing use the same rows. alias is
 * another word parsing accepts for the same value (never printed).
 */
struct nk_choice {
	const char *name;
	uint32_t value;
	const char *alias;
};

/* The name of value v in choices (NULL-terminated), or NULL. */
const char *nk_choice_word(const struct nk_choice *choices, uint32_t v);
/* The same, or "unknown(v)" in buf. */
const char *nk_choice_name(const struct nk_choice *choices, uint32_t v, char *buf,
			   size_t len);
/* "a|b|c": the names of choices, for help and errors. */
void nk_choice_list(const struct nk_choice *choices, const char *sep, char *buf, size_t len);
/* The same with the aliases after the names: what the synopsis and
 * completion offer. */
void nk_choice_words(const struct nk_choice *choices, const char *sep, char *buf, size_t len);

#define NK_STRLIST_MAX 32
struct nk_strlist {
	const char *v[NK_STRLIST_MAX];
	size_t n;
};

struct nk_param;
/*
 * A custom parser: argv[0..argc) are the words after the keyword. Returns how
 * many it took (0 or more), or minus an exit code after printing an error.
 */
typedef int (*nk_param_parser)(const struct nk_param *d, int argc, char **argv, void *slot);

struct nk_param {
	const char *kw;               /* NULL: a positional word (first only) */
	enum nk_param_type type;
	size_t offset;                /* where the value goes in the dest struct */
	const char *meta;             /* shown in errors and help, e.g. "NAME" */
	uint32_t min, max;            /* NKP_U32; NKP_CUSTOM: max > 1 lets it repeat */
	const struct nk_choice *choices; /* NKP_ENUM, NULL-terminated */
	bool required;
	nk_param_parser parse;        /* NKP_CUSTOM */
};

/* May the keyword be given more than once (NKP_LIST, a repeatable custom)? */
bool nk_param_repeats(const struct nk_param *d);

/* Rules between keywords, checked after parsing, named by their keywords
 * (the positional word by its META). */
enum nk_rule_kind {
	NK_RULE_EXCLUSIVE,            /* at most one of kws */
	NK_RULE_ONE_OF,               /* exactly one of kws */
	NK_RULE_NEEDS,                /* kws[0] given needs kws[1] */
};
#define NK_RULE_MAX 4
struct nk_rule {
	enum nk_rule_kind kind;
	const char *kws[NK_RULE_MAX]; /* NULL-terminated when fewer */
};

struct nk_params {
	const char *cmd;              /* "show", "link add": named in errors */
	size_t n;
	const struct nk_param *v;
	size_t size;                  /* of the struct the values go into */
	const struct nk_rule *rules;
	size_t nrules;
	/* Keywords of this table that are refused with "only at creation":
	 * (link set refuses what only link add takes). */
	const struct nk_params *creation;
	/* A "META := { ... }" line the synopsis prints below, for a META the
	 * keywords cannot spell out (a custom parser's words), or NULL. */
	const char *defs;
};
#define NK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NK_PARAMS(name, type, arr) \
	.cmd = name, .n = NK_ARRAY_SIZE(arr), .v = arr, .size = sizeof(type)
#define NK_RULES(arr) .rules = arr, .nrules = NK_ARRAY_SIZE(arr)

/*
 * Parse argv against p into dest. *seen (may be NULL) gets a bit per table
 * entry that was given. Returns 0, NK_HELP, or NK_EXIT_USAGE after printing.
 */
int nk_parse_params(const struct nk_params *p, int argc, char **argv, void *dest,
		    uint64_t *seen);

/* Is word one of p's keywords? */
bool nk_params_has(const struct nk_params *p, const char *word);
/*
 * The closest word to one the user mistyped: offer each candidate, then read
 * best (NULL when none is close: a prefix of it, or at most two edits away).
 */
struct nk_suggest {
	const char *word;
	const char *best;
	size_t score;
};
void nk_suggest_try(struct nk_suggest *s, const char *cand);
/* " (did you mean \"best\"?)" or "", to follow the unknown word. */
const char *nk_suggest_text(const struct nk_suggest *s, char *buf, size_t len);

/* The index of keyword kw in p, or -1. */
int nk_params_find(const struct nk_params *p, const char *kw);

/*
 * The synopsis of p: positional first, required keywords as "kw META",
 * optional ones in [ ], lists with "...", enums as "a|b", an exclusive rule of
 * optional keywords as [ a | b ], a one-of rule as { a | b }. Wrapped at 80
 * columns with continuation lines indented by indent.
 */
/* text broken at spaces so that no line passes 80 columns, the first line
 * starting at column first_col and the others indented by indent. */
void nk_wrap(const char *text, char *buf, size_t len, size_t first_col, size_t indent);
void nk_params_usage(const struct nk_params *p, char *buf, size_t len, size_t first_col,
		     size_t indent);
/* The keyword (its index) that optional keyword dep needs and is nested
 * under in the synopsis ("pool LIST [ count N ]"), or -1. */
int nk_params_nested(const struct nk_params *p, size_t dep);
/* The "META := { ... }" lines of p, appended to buf (each on a line of its
 * own): after a synopsis a command spells out itself. */
void nk_params_defs(const struct nk_params *p, char *buf, size_t len);

/* Stand-alone validators (also used by the table parser); 0 or NK_EXIT_USAGE
 * after printing an error that names kw. */
int nk_parse_u32(const char *kw, const char *s, uint32_t min, uint32_t max,
		 uint32_t *out);
int nk_check_ifname(const char *kw, const char *s);
/* A size in bytes: 1..max, with an optional K, M, G or T (binary) suffix. */
int nk_parse_size(const char *kw, const char *s, uint64_t max, uint64_t *out);
int nk_parse_mac(const char *kw, const char *s, uint8_t mac[6]);

#define NK_MAX_QUEUES 1024
/* A queue list: "15", "14,15", "12-15", "1,3-5". Ascending ids into ids[]
 * (room for NK_MAX_QUEUES); duplicates and inverted ranges are errors. */
int nk_parse_queue_list(const char *kw, const char *s, uint32_t *ids, size_t *n);
/* Is x one of v's n ids (queues, rule locations)? */
bool nk_id_listed(const uint32_t *v, size_t n, uint32_t x);

#endif
