/* SPDX-License-Identifier: GPL-2.0 */
/* Many devices deleted at once, each by its own RTM_DELLINK (linkdel.c). */
#ifndef NKCTL_LINKDEL_H
#define NKCTL_LINKDEL_H

#include <stddef.h>

#include "core/ctx.h"
#include "nl.h"

/* How many deletions run at once: each RTM_DELLINK waits for its grace
 * periods and an rcu_barrier, mostly after rtnl is released, so several
 * overlap their waits (100 devices of 100 namespaces in the VM: 1.7 s one
 * after another, 0.5 s eight at once). */
#define NK_LINK_DEL_PARALLEL 8

/* One device to delete: its ifindex in ns; ret and err its result (0, or
 * a negative errno with the kernel's words). */
struct nk_link_del {
	struct nk_ns *ns;
	int ifindex;
	int ret;
	struct nl_err err;
};

/* Delete d[0..n) (namespaces of ctx), each its own RTM_DELLINK, up to
 * NK_LINK_DEL_PARALLEL at once (devices of one namespace one after
 * another, in one worker, through a socket of that worker's own); every
 * one is tried, whatever another's result. */
void nk_links_del(struct nk_ctx *ctx, struct nk_link_del *d, size_t n);

#endif
