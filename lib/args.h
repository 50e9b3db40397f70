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
};

struct nk_choice {
	const char *name;
	uint32_t value;
};

#define NK_STRLIST_MAX 32
struct nk_strlist {
	const char *v[NK_STRLIST_MAX];
	size_t n;
};

struct nk_param {
	const char *kw;               /* NULL: a positional word (first only) */
	enum nk_param_type type;
	size_t offset;                /* where the value goes in the dest struct */
	const char *meta;             /* shown in errors and help, e.g. "NAME" */
	uint32_t min, max;            /* NKP_U32 */
	const struct nk_choice *choices; /* NKP_ENUM, NULL-terminated */
	bool required;
};

struct nk_params {
	const char *cmd;              /* "show", "link add": named in errors */
	size_t n;
	const struct nk_param *v;
};
#define NK_PARAMS(name, arr) { name, sizeof(arr) / sizeof((arr)[0]), arr }

/*
 * Parse argv against p into dest. *seen (may be NULL) gets a bit per table
 * entry that was given. Returns 0, NK_HELP, or NK_EXIT_USAGE after printing.
 */
int nk_parse_params(const struct nk_params *p, int argc, char **argv, void *dest,
		    uint64_t *seen);

/* Is word one of p's keywords? */
bool nk_params_has(const struct nk_params *p, const char *word);

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

#endif
