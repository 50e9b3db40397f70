/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lease's NIC side (niclease.c): lease ... reserve|steer, in this order
 * under the NIC's lock: prepare (the lease's NIC job loaded in full, a record
 * of an ended lease on its queues undone, the driver checked; nothing
 * changed yet); reserve (record the lease, take its queues out of RSS)
 * before the lease is made, so hashed traffic never lands on a leased queue;
 * then the lease, and rollback if it failed; then steer (the RSS context of
 * several queues, each rule by nicrule.h's protocol). A kill in between
 * leaves a record whose queues the kernel shows no lease on: the next sweep
 * (nicsweep.h) or lease of those queues undoes it.
 */
#ifndef NKCTL_NICLEASE_H
#define NKCTL_NICLEASE_H

#include "nicjob.h"

/* A lease without a NIC side of queues of j's NIC (j->ns, j->link known),
 * under the NIC's lock (the lease holds it): a record of an ended lease on
 * any of them is undone first, as nk_nic_lease_prepare does, so its rules
 * never steer into the new lease. */
int nk_nic_undo_ended(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n);
/* The lease's NIC job j (j->ns, j->link known; its queues may be read
 * already) for queues: locked, loaded, ended records undone, and checked to
 * reserve queues and, with rules (their number), to hold n-tuple rules:
 * the driver's table must have room for them, said before any change. */
int nk_nic_lease_prepare(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n,
			 size_t rules);
int nk_nic_lease_reserve(struct nic_job *j, const struct nk_ns *holder_ns,
			 const struct nk_link *holder);
int nk_nic_lease_rollback(struct nic_job *j);
int nk_nic_lease_steer(struct nic_job *j, struct nk_ntuple *rules, size_t nrules);

/* Undo what lease record l brought: its rules and context, then its queues. */
int nk_nic_lease_undo(struct nic_job *j, struct nk_nic_lease *l);
/* Is NIC queue q leased, and not to a namespace being deleted? */
bool nk_nic_lease_lives(const struct nk_queue *q);
/*
 * Has the lease of record l ended? Only the kernel says so: the NIC is up
 * and its queue dump shows no live lease on any of the record's queues.
 * A NIC that is down (the dump skips it; the kernel ends no lease on down),
 * gone, or whose dump fails is UNKNOWN: its records are kept, never undone
 * on a guess. A holder deleted meanwhile is seen once the NIC reads again:
 * from the NIC's side nkctl cannot tell a deleted holder from one moved to
 * a pod's namespace, and the lease outlives a move.
 */
enum nk_lease_fate { NK_LEASE_LIVE, NK_LEASE_ENDED, NK_LEASE_UNKNOWN };
/* What the kernel shows of one NIC's queues, read once for all its records:
 * known false (why says why) when it cannot say. */
struct nk_nic_seen {
	bool known;
	const char *why;          /* "is down", "is gone", ... */
	int ifindex;
	struct nk_queue_list q;
	bool *live;               /* live[id]: RX queue id has a live lease */
	uint32_t nlive;           /* room in live: the largest RX queue id + 1 */
};
void nk_nic_seen_read(struct nk_ns *ns, int ifindex, struct nk_nic_seen *seen);
void nk_nic_seen_free(struct nk_nic_seen *seen);
enum nk_lease_fate nk_nic_seen_fate(const struct nk_nic_seen *seen, const struct nk_nic_lease *l);
/* One record's fate (NIC ifindex of ns), read afresh. */
enum nk_lease_fate nk_nic_lease_fate(struct nk_ns *ns, int ifindex, const struct nk_nic_lease *l);
bool nk_nic_lease_ended(struct nk_ns *ns, int ifindex, const struct nk_nic_lease *l);

#endif
