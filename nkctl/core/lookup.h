/* SPDX-License-Identifier: GPL-2.0 */
/* Device lookups every command makes, with their errors (lookup.c). */
#ifndef NKCTL_LOOKUP_H
#define NKCTL_LOOKUP_H

#include <stdbool.h>

#include "core/ctx.h"
#include "rtnl.h"

struct nk_link;
/* Get a device by name (or by ifindex when name is NULL). Not found is exit
 * status 3 with an error naming where (NULL: nothing), or -ENODEV without a
 * word when missing_ok. */
int nk_link_lookup(struct nl_sock *s, const char *name, int ifindex, struct nk_link *l,
		   const char *where, bool missing_ok);
/* l's peer by IFLA_LINK (named only when it is in the same namespace);
 * false when l has none. */
bool nk_peer_of(struct nl_sock *s, const struct nk_link *l, struct nk_link *peer);
/* Device name of the command's namespace: not found is exit status 3. */
int nk_dev(struct nk_ctx *ctx, const char *name, struct nk_link *l);

/* Every device of the command's namespace; 0, or the exit code after the
 * error is printed. */
int nk_links_here(struct nk_ctx *ctx, struct nk_link_list *links);

#endif
