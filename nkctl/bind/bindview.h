/* SPDX-License-Identifier: GPL-2.0 */
/* Bindings as read (bindview.c): holders' state joined with the kernel's, printed. */
#ifndef NKCTL_BINDVIEW_H
#define NKCTL_BINDVIEW_H

#include "bind/bindings.h"
#include "out.h"

/* A size as the dmabuf keyword takes it: 64M, 2G, 4096. */
const char *nk_size_word(uint64_t size, char *buf, size_t len);
/* One binding object, as bind-rx, bind-tx, show bindings and unbind print it. */
void nk_print_binding(struct out *o, const struct nk_binding *b);
/* The same under key (inside an object). */
void nk_print_binding_as(struct out *o, const char *key, const struct nk_binding *b);
/* The bindings of the command's namespace: the state files of holders there
 * (alive or stale), then those the kernel shows on its queues that no state
 * file knows; sorted by id. *kernel_ok: the queues could be read. Prints the
 * error and returns the exit code on failure. */
int nk_bindings_load(struct nk_ctx *ctx, struct nk_binding_list *out, bool *kernel_ok);

#endif
