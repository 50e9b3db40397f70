/* SPDX-License-Identifier: GPL-2.0 */
/* One hook's table (table.c): its program and pinned maps. */
#ifndef NKCTL_REDIRECT_TABLE_H
#define NKCTL_REDIRECT_TABLE_H

#include "bpfutil.h"
#include "redirect.h"
#include "redirect/pins.h"

enum { ACTION_NEIGH, ACTION_PEER, ACTION_N };
extern const struct nk_choice rt_action_words[];

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

#endif
