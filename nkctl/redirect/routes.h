/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The route-table model under nkctl redirect: pin directories and their lock,
 * one hook's pinned maps (a table), target records, and the crash order that
 * keeps the tries and the records agreeing (with the sweep that mends what a
 * killed writer left). redirect.c's commands are built on it.
 */
#ifndef NKCTL_ROUTES_H
#define NKCTL_ROUTES_H

#include <stdbool.h>
#include <stdint.h>
#include "rtnl.h"
#include "redirect/table.h"

/* ---- prefixes ---- */
void rt_format_prefix(const struct nk_prefix *p, char *buf, size_t len);
bool rt_prefix_in(const struct nk_prefix *p, const struct nk_prefix *v, uint32_t n);
bool rt_same_set(const struct nk_target *a, const struct nk_target *b);
/* ADDRESS/LENGTH (no host bits set) into p (redirect.c); 0 or the exit code
 * after the error. */
int parse_prefix(const char *s, struct nk_prefix *p);

/* ---- targets and routes ---- */
int target_get(const struct table *t, uint32_t ifindex, struct nk_target *rec);
/* Every record, by ifindex; the caller frees *v. */
int targets_list(const struct table *t, struct nk_target **v, size_t *n);
/* Keep only rec's prefixes the trie routes to it (what a killed writer's
 * record claims beyond that is not a route). */
void target_live_prefixes(const struct table *t, struct nk_target *rec);
/* The record's identity against the device now at its ifindex (NULL: none). */
bool target_is(const struct nk_target *rec, const struct nk_link *l);
void target_identify(struct nk_target *rec, const struct nk_link *l);
bool target_same(const struct nk_target *a, const struct nk_target *b);
/* Does the data path take the target's routes (its device map entry, which
 * the kernel deletes when the device goes)? */
bool target_live(const struct table *t, uint32_t ifindex);
uint32_t route_owner(const struct table *t, const struct nk_prefix *p);
int route_fd(const struct table *t, const struct nk_prefix *p);
void route_key(const struct nk_prefix *p, unsigned char key[20]);

/* What a change did, for the output. */
struct change {
	bool changed, replaced;
};
/* Make want (a target, its identity and prefixes) the target's routes,
 * taking want's prefixes from their other owners; crash order, rolled back
 * on failure. 0 or -errno. */
int routes_set(const struct table *t, const struct nk_target *old, const struct nk_target *want,
	       struct change *c);
/* Remove all of rec's routes, then its record. */
int target_remove(const struct table *t, const struct nk_target *rec);

/* Trie entries whose owner has no record that lists them. */
struct orphan {
	struct nk_prefix p;
	uint32_t ifindex;
};
/* List them (fix: remove them, drop records' claims the tries do not hold,
 * and clear the changing mark). The caller frees *v. */
int table_sweep(const struct table *t, bool fix, struct orphan **v, size_t *n);
/* Sweep when the last writer was killed mid-change (its mark is still set). */
int table_mend(const struct table *t);

#endif
