/* SPDX-License-Identifier: GPL-2.0 */
/* del.c: DEL, and ADD's undo (teardown), whose parts GC runs too */
#ifndef NKCNI_DEL_H
#define NKCNI_DEL_H

#include <stdbool.h>
#include <stddef.h>

struct plugin;
struct nk_session;

int cmd_del(struct plugin *p);
int teardown(struct plugin *p, struct nk_session *s, bool ipam, char *why, size_t len);
/* The holder's leases ended in the pod (nkctl's unlease dev ... netns on
 * the session, and its provider wait): 0, or -1 with why; teardown's first
 * step. */
int unlease_in_pod(const struct plugin *p, struct nk_session *s, char *why, size_t len);
/* nkctl's and the holder's part of teardown: 0, or -1 with why. gc: the
 * host side is there and the batch ended the holder's leases. */
int teardown_nk(const struct plugin *p, struct nk_session *s, bool gc, char *why, size_t len);
/* What teardown_nk does after nkctl's lines (a leftover holder, the pod's
 * information file): 0, or -1 with why. */
int teardown_rest(const struct plugin *p, char *why, size_t len);

#endif
