/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where nkctl's route tables are pinned (pins.c): the hooks, the pin
 * directories and their lock, the pins of one hook.
 */
#ifndef NKCTL_REDIRECT_PINS_H
#define NKCTL_REDIRECT_PINS_H

#include <stdbool.h>
#include <stdint.h>
#include "args.h"
#include "core/ctx.h"

#define ROOT_LEN 64
#define NS_LEN 128
#define DIR_LEN 192
#define PIN_LEN 256

extern const struct nk_choice rt_hook_words[];
const char *rt_hook_name(uint32_t hook);
bool rt_hook_is_netkit(uint32_t hook);

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

/* ---- one hook's pins ---- */
enum { PIN_LINK, PIN_V4, PIN_V6, PIN_TARGETS, PIN_INFO, PIN_DEVS, PIN_N };
void pin_path(const char *dir, uint32_t hook, int which, char *buf);
/* Unpinning the link detaches the program; the maps go with it. */
void pins_remove(const char *dir, uint32_t hook);

#endif
