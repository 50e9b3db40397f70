/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What other commands ask of nkctl's route tables (routesvc.c): link del and
 * unlease take the devices they delete out of them; doctor reads them.
 */
#ifndef NKCTL_ROUTESVC_H
#define NKCTL_ROUTESVC_H

#include <stddef.h>
#include <stdint.h>

#include "core/ctx.h"


/* nkctl's route table on one hook of a device of the command's namespace,
 * as the redirect commands keep it (read by doctor). */
struct nk_target;
struct nk_prefix;
enum { NK_REDIRECT_NEIGH, NK_REDIRECT_PEER };
struct nk_redirect_table {
	bool defunct;              /* its device is gone */
	int action;                /* NK_REDIRECT_*, -1: not a program of nkctl */
	struct nk_target *targets; /* by ifindex */
	size_t n;
};
/* 0, -ENOENT when nkctl has no table there, or -errno. */
int nk_redirect_read(struct nk_ctx *ctx, int ifindex, uint32_t hook, struct nk_redirect_table *t);
void nk_redirect_table_free(struct nk_redirect_table *t);
/* The target of the longest route matching addr (its len: the address's
 * full length), 0 when none; *len gets the route's prefix length. */
uint32_t nk_redirect_route(struct nk_ctx *ctx, int ifindex, uint32_t hook,
			   const struct nk_prefix *addr, uint8_t *len);
void nk_format_prefix(const struct nk_prefix *p, char *buf, size_t len);
/* A device that is deleted, in the namespace it is in. */
#define NK_GONE_MAX 2   /* a device and its peer */
struct nk_gone {
	struct nk_ns *ns;
	const struct nk_link *link;
};
/* Before deleting l (of ns) and its peer (as nk_peer_of gave it, or NULL):
 * both as nk_redirect_forget wants them, the peer looked up into *there in
 * its own namespace when that is another one nkctl reaches. Returns how
 * many. */
size_t nk_gone_of(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *l,
		  const struct nk_link *peer, struct nk_link *there, struct nk_gone g[NK_GONE_MAX]);
/* After link del or unlease: remove nkctl's pins of the n devices gone and
 * their routes in the tables of their namespaces; prints a "detached" list
 * of what went. */
void nk_redirect_forget(struct nk_ctx *ctx, const struct nk_gone *gone, size_t n);

#endif
