/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reservation (nicreserve.c) of nic reserve|release and of leases with a
 * NIC side: queues out of RSS (the NIC's own table with only their entries
 * moved), header split on with hds-thresh 0, the NIC's own settings recorded
 * before the first change and put back by the last release. The state is
 * written before the NIC is changed.
 */
#ifndef NKCTL_NICRESERVE_H
#define NKCTL_NICRESERVE_H

#include "nic/nicjob.h"

/* What reserve, release and lease ... reserve need of the driver and of the
 * queues j->ids, said before any change (cmd names the command). */
int nk_nic_need_rss(const struct nic_job *j, const char *cmd);
int nk_nic_check_reserve(const struct nic_job *j);
/* (Whether a queue of j->ids has a memory provider that is not a lease's
 * is the lease unit's: nk_nic_check_providers, lease/nicside.h.) */
/* Add ids to the reserved set (kept ascending). */
void reserve_add(struct nk_nic_state *st, const uint32_t *ids, size_t n);
/* The table for the reserved set into indir (room for j->rss.indir_size):
 * the saved table, or the NIC's, minimally edited; 0 or the exit code. */
int minimal_table(const struct nic_job *j, uint32_t *indir);
/* Reserve j->ids: state first, then the NIC. */
int nk_nic_reserve(struct nic_job *j);
/* Take ids[0..n) (none: every queue) out of the reserved set, saved; the
 * NIC is not changed yet (nk_nic_release_finish). */
int nk_nic_unreserve(struct nic_job *j, const uint32_t *ids, size_t n);
/* Release ids[0..n) (n > 0); the last queue puts the NIC's own settings
 * back. (Everything, with nkctl's rules, the leases' RSS contexts and
 * records, is the lease unit's: nk_nic_release_all, lease/nicside.h.) */
int nk_nic_release(struct nic_job *j, const uint32_t *ids, size_t n);
/* The NIC as its state says after a release saved it: the reserved set
 * applied, or with none left the NIC's own settings back and the state
 * updated (what a release killed half-way still owes). */
int nk_nic_release_finish(struct nic_job *j);

#endif
