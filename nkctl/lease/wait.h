/* SPDX-License-Identifier: GPL-2.0 */
/* unlease's wait for a memory provider still on a leased queue (wait.c). */
#ifndef NKCTL_LEASE_WAIT_H
#define NKCTL_LEASE_WAIT_H

#include "lease/scan.h"

/* The monotonic time in ms seconds from now: one deadline for every
 * holder of one unlease. */
uint64_t nk_lease_deadline(uint32_t seconds);
/* Wait until the deadline end for the memory providers on the leases held
 * by l (of hns) to go, scanning again into *all and *held; says on stderr
 * that it waits. Returns 0 (what is left is in *held) or the exit code of
 * an error. */
int nk_lease_wait_providers(struct nk_ctx *ctx, struct nk_ns *hns, const struct nk_link *l,
			    uint64_t end, struct nk_lease_list *all, struct nk_lease_list *held);

#endif
