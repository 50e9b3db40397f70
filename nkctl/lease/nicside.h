/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lease's NIC side (nicside.c): lease ... reserve|steer, in this order
 * under the NIC's lock: prepare (the lease's NIC job loaded in full, a record
 * of an ended lease on its queues undone, the driver checked; nothing
 * changed yet); reserve (record the lease, take its queues out of RSS)
 * before the lease is made, so hashed traffic never lands on a leased queue;
 * then the lease, and rollback if it failed; then steer (the RSS context of
 * several queues, each rule by nicrule.h's protocol). A kill in between
 * leaves a record whose queues the kernel shows no lease on: the next sweep
 * (lease/sweep.h) or lease of those queues undoes it.
 */
#ifndef NKCTL_LEASE_NICSIDE_H
#define NKCTL_LEASE_NICSIDE_H

#include "lease/fate.h"
#include "nic/nicjob.h"

/* A lease without a NIC side of queues of j's NIC (j->ns, j->link known),
 * under the NIC's lock (the lease holds it): a record of an ended lease on
 * any of them is undone first, as nk_nic_lease_prepare does, so its rules
 * never steer into the new lease. */
int nk_nic_undo_ended(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n);
/* The lease's NIC job j (j->ns, j->link known; its queues may be read
 * already) for queues: locked, loaded, ended records undone, and checked to
 * reserve queues and, with rules (their number), to hold n-tuple rules:
 * the driver's table must have room for them, said before any change. */
/* Refuse to reserve a queue of j->ids that has a memory provider that is
 * not a lease's (reserving would not stop what already uses it). */
int nk_nic_check_providers(const struct nic_job *j);
int nk_nic_lease_prepare(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n,
			 size_t rules);
int nk_nic_lease_reserve(struct nic_job *j, const struct nk_ns *holder_ns,
			 const struct nk_link *holder);
int nk_nic_lease_rollback(struct nic_job *j);
int nk_nic_lease_steer(struct nic_job *j, struct nk_ntuple *rules, size_t nrules);

/* How nk_nic_undo_records goes about it: only the records naming a queue of
 * only[0..nonly) (nonly 0: all); with refuse_unknown, a record whose fate is
 * unknown is the command's error (a lease onto its queues), else it is kept;
 * one, when set, undoes each record (false: it failed and said so; the next
 * record is tried), else nk_nic_lease_undo does and its error ends the loop. */
struct nk_undo_how {
	const uint32_t *only;
	size_t nonly;
	bool refuse_unknown;
	bool (*one)(struct nic_job *j, struct nk_nic_lease *l, void *arg);
	void *arg;
};
/* The one undo loop: every record of j's NIC (locked, loaded) that seen,
 * one look at it, judges ended is undone, each on its own, the NIC's
 * settings read again after each; how many in *undone (may be NULL). 0, or
 * the exit code after the error (-EAGAIN: one said it failed). */
int nk_nic_undo_records(struct nic_job *j, const struct nk_nic_seen *seen,
			const struct nk_undo_how *how, size_t *undone);
/* Undo what lease record l brought: its rules and context, then its queues. */
int nk_nic_lease_undo(struct nic_job *j, struct nk_nic_lease *l);
/* nic release of everything: every queue out of the reserved set (saved),
 * nkctl's rules deleted (steer add's too), the leases' RSS contexts and
 * records dropped, then the NIC's own settings back. Here, not in
 * nic/nicreserve.c: a rule and a context are deleted only once the lease
 * unit says they are still nkctl's. */
int nk_nic_release_all(struct nic_job *j);

#endif
