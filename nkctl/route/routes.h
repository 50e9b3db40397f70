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
#include "args.h"
#include "bpfutil.h"
#include "ctx.h"
#include "redirect.h"
#include "rtnl.h"

#define ROOT_LEN 64
#define NS_LEN 128
#define DIR_LEN 192
#define PIN_LEN 256

extern const struct nk_choice rt_hook_words[];
const char *rt_hook_name(uint32_t hook);
bool rt_hook_is_netkit(uint32_t hook);

enum { ACTION_NEIGH, ACTION_PEER, ACTION_N };
extern const struct nk_choice rt_action_words[];

/* ---- prefixes ---- */
void rt_format_prefix(const struct nk_prefix *p, char *buf, size_t len);
bool rt_prefix_in(const struct nk_prefix *p, const struct nk_prefix *v, uint32_t n);
bool rt_same_set(const struct nk_target *a, const struct nk_target *b);
/* ADDRESS/LENGTH (no host bits set) into p (redirect.c); 0 or the exit code
 * after the error. */
int parse_prefix(const char *s, struct nk_prefix *p);

/* ---- pin directories ---- */
/* The host's bpffs, or an error that says why not. */
int rt_pin_root(char *root, bool may_mount);
/* The pin directory of namespace ns: <root>/nkctl/net<inode>-<netns cookie>
 * (the cookie is never reused, an inode is). */
int rt_ns_dir(struct nk_ns *ns, const char *root, char *buf);
int rt_here_dir(struct nk_ctx *ctx, const char *root, char *buf);
/* Parse a namespace directory's name: false when it is not one. */
bool rt_ns_dir_name(const char *name, unsigned long *ino, unsigned long long *cookie);

/* A namespace directory of an nkctl before netns cookies: net<inode>. */
bool rt_ns_dir_legacy(const char *name);
/* Remove such a directory, every pin in it (their programs detach): its
 * namespace cannot be told from a later one with that inode, and its records
 * name no device. 0, or -EBUSY when something is left. */
int rt_legacy_remove(const char *ns);

/* A device's pin directory, locked: serialises nkctl's writers on it. */
struct pin_dir {
	char path[DIR_LEN];
	int lock_fd;
};
/* Lock d->path (create: make it and its parents first). The lock is taken on
 * the directory and checked to still be the path's after flock(): a
 * directory removed meanwhile is not a lock. -ENOENT quietly when it does not
 * exist and create is false. */
int pin_dir_lock(struct pin_dir *d, const char *root, const char *ns, bool create);
/* Remove the directory if empty (and its namespace's, if empty), while
 * still holding the lock; then unlock. */
void pin_dir_close(struct pin_dir *d);

/* ---- one hook's table ---- */
enum { PIN_LINK, PIN_V4, PIN_V6, PIN_TARGETS, PIN_INFO, PIN_DEVS, PIN_N };
void pin_path(const char *dir, uint32_t hook, int which, char *buf);
/* Unpinning the link detaches the program; the maps go with it. */
void pins_remove(const char *dir, uint32_t hook);

struct table {
	int fd[PIN_N];          /* -1: not pinned */
	struct nk_bpf_link link;
	struct nk_hook_info info;
	int action;             /* -1: not one of ours */
	bool defunct;           /* the device is gone */
};
/* 0, -ENOENT (no link pinned) or -errno; missing maps open as fd -1. */
int table_open(const char *dir, uint32_t hook, struct table *t);
void table_close(struct table *t);
bool table_complete(const struct table *t);
/* Is the table empty of targets now (its program may go)? */
bool table_empty(const struct table *t);
/* The hook's live table, made when there is none (or a defunct one). */
int table_get(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int action,
	      const char *dir, struct table *t, bool *created);

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
