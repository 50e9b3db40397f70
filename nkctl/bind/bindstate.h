/* SPDX-License-Identifier: GPL-2.0 */
/* The holders' binding records (bindstate.c): their state files, read, written and removed. */
#ifndef NKCTL_BINDSTATE_H
#define NKCTL_BINDSTATE_H

#include "bind/bindings.h"

/* Sort by binding id. */
void nk_binding_sort(struct nk_binding_list *l);
/* Every state file (alive or stale), sorted by id. */
int nk_binding_states(struct nk_binding_list *out);
void nk_binding_list_free(struct nk_binding_list *l);
/* The state file of a binding, and writing one (holder.c). */
void nk_binding_state_path(char *buf, size_t len, uint32_t id);
/* The record's text (holder.c writes it through lib/store). */
void nk_binding_state_format(FILE *f, const struct nk_binding *b);
/* Parse one state file; false when it is not one of ours. */
bool nk_binding_state_parse(FILE *f, struct nk_binding *b);
/* Remove the state file of a dead holder. */
void nk_binding_forget(const struct nk_binding *b);
/* SIGTERM the holder and wait until it is gone (its lock is released).
 * 0, -ESRCH when it was gone already, -ETIMEDOUT. */
int nk_binding_release(const struct nk_binding *b);
const char *nk_hold_mode_name(enum nk_hold_mode mode);

#endif
