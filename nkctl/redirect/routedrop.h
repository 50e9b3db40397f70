/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Removals from nkctl's route tables and their output (routedrop.c): used by
 * the redirect commands and by the route-table service (routesvc.c).
 */
#ifndef NKCTL_ROUTEDROP_H
#define NKCTL_ROUTEDROP_H

#include "redirect/routes.h"

/* What detach, prune or link del took from one device and hook. */
struct removed {
	struct table t;                 /* fds closed: for its names */
	uint32_t hook;
	bool dev_live;
	struct nk_link dev;
	struct nk_target *v;
	size_t n;
	struct orphan *orphans;
	size_t norphans;
	bool hook_removed;
};

struct removed_list {
	struct removed *v;
	size_t n;
};

void removed_free(struct removed_list *l);
/* One object per entry: "VERB DEV HOOK" and what it held. */
void print_removed(struct out *o, const char *verb, const struct removed_list *l);
/* Remove the whole hook (detach without to, a defunct table, link del):
 * what it held goes into the list. */
int remove_hook(struct removed_list *l, const char *dir, const struct table *t,
		uint32_t hook, const struct nk_link *dev);
/* Remove the given targets' routes; the program goes with the last. */
int remove_targets(struct removed_list *l, const char *dir, const struct table *t,
		   uint32_t hook, const struct nk_link *dev, const struct nk_target *v,
		   size_t n, const struct orphan *orphans, size_t norphans);
/* A table's records as routed now: the prefixes the tries hold for each,
 * targets without any left out. The caller frees *v. */
void live_targets(const struct table *t, struct nk_target **v, size_t *n);

/* Routes as a "routes" array (links: check each target against the device
 * now at its ifindex; NULL: not checked). */
void print_routes(struct out *o, const struct nk_target *v, size_t n,
		  const struct nk_link_list *links);
/* Trie entries without a record, as an "orphans" array, each followed by why. */
void print_orphans(struct out *o, const struct orphan *v, size_t n, const char *why);
/* The device and hook of a table: the live device, or what was recorded. */
void print_hook_id(struct out *o, const struct table *t, const struct nk_link *dev,
		   uint32_t hook);

#endif
