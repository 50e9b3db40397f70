/* SPDX-License-Identifier: GPL-2.0 */
/* Leases ended by deleting their holders (end.c). */
#ifndef NKCTL_LEASE_END_H
#define NKCTL_LEASE_END_H

#include "core/ctx.h"
#include "lease/make.h"
#include "lease/scan.h"
#include "redirect/routesvc.h"

/* One holder unlease deletes: the device, the leases that end with it and
 * what goes along (its peer, nkctl's redirects of both). */
struct holder_end {
	struct nk_ns *ns;
	const struct nk_queue *first;   /* unlease from: a NIC queue it holds */
	struct nk_link l, peer, there;
	bool has_peer;
	struct nk_lease_list ended;
	struct nk_gone gone[NK_GONE_MAX];
	size_t ngone;
};

/* What one unlease did: the holders t[0..n), of which t[0..done) were
 * deleted (their leases ended in t[i].ended); or, with -force, nothing to
 * end (what says why). */
struct nk_unlease {
	uint32_t wait;          /* seconds for memory providers to go (in) */
	struct holder_end *t;
	size_t n, done;
	bool nothing;
	char what[160];
};

/* unlease dev NKDEV or from PHYS queue LIST [holders ...] as a asks: 0, or
 * the exit code after the error (u->done holders may have gone all the
 * same: the caller's AF_XDP sweep follows them). Free u with
 * nk_unlease_free. */
int nk_unlease(struct nk_ctx *ctx, const struct lease_args *a, struct nk_unlease *u);
void nk_unlease_free(struct nk_unlease *u);

#endif
