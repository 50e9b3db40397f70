/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sweep (nicsweep.c): it undoes what each lease that has ended brought,
 * on every NIC with a state file (an unlease, one killed half-way, a holder
 * deleted or moved away with its namespace), deciding under each NIC's lock
 * alone; it also finishes a release killed after its state was saved.
 */
#ifndef NKCTL_NICSWEEP_H
#define NKCTL_NICSWEEP_H


int nk_nic_unlease_stale(struct nk_ctx *ctx);
/* For "unlease dev NAME" when hns has no NAME: if a live lease's record names
 * it (recorded in hns), wait up to NK_NIC_GONE_WAIT_TICKS tenths of a second
 * for its namespace's deletion to end the lease, undoing what ended. */
#define NK_NIC_GONE_WAIT_TICKS 300
int nk_nic_unlease_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder);

#endif
