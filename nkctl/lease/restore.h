/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nic restore (restore.c): a NIC that came back different (devlink
 * reload, re-probe, a driver reset) or that an operator edited (ethtool -X,
 * ethtool -N delete, ethtool -L) gets back what nkctl still owns on it: the
 * records of leases that ended are undone first, reserved queues the NIC no
 * longer has are dropped from the record, then the reservation (queues out
 * of RSS, header split), the RSS contexts of live leases and nkctl's
 * recorded rules are applied again. Holders are never made again: a new
 * holder would have a new ifindex and the application's sockets are gone
 * (doc/nics.md). Every step is one nkctl already makes crash-safe, or
 * recorded before it is made: a kill anywhere is healed by running it again.
 */
#ifndef NKCTL_LEASE_RESTORE_H
#define NKCTL_LEASE_RESTORE_H

#include "lease/fate.h"
#include "nic/nicjob.h"

/* What a restore did, for its document. */
struct nk_nic_restored {
	size_t ended;                    /* records of ended leases undone */
	uint32_t vanished[NK_MAX_QUEUES];  /* reserved queues the NIC no longer has */
	size_t nvanished;
	bool rss;                        /* reserved queues taken out of RSS again */
	bool split;                      /* header split turned on again */
	size_t rules;                    /* rules added again */
	size_t dropped;                  /* rules forgotten: their queue is gone */
};

/* Under j's lock: the records of leases the kernel ended (their holders
 * went with a reset) undone as the sweep does, each queue back in RSS, each
 * rule gone, as seen (one look at j's NIC) judges them; *undone of them.
 * Nothing on a NIC not seen (down: its leases cannot be read). 0, or the
 * exit code after the error. */
int nk_nic_undo_ended_all(struct nic_job *j, const struct nk_nic_seen *seen, size_t *undone);
/* Restore job j (locked and loaded): 0, or the exit code after the error. */
int nk_nic_restore(struct nic_job *j, struct nk_nic_restored *done);

/* What the NIC contradicts in nkctl's record of it (nic show, doctor). */
/* Does a lease record name NIC queue id, the record's lease ended as the
 * one judgement reads it from seen (fate.h: never on a NIC down or
 * unreadable, nor for a lease whose namespace cannot be told)? */
bool nk_nic_lease_record_ended(const struct nk_nic_state *st, const struct nk_nic_seen *seen,
			       uint32_t id);
/* A reserved queue q the NIC's RSS table names again. */
bool nk_nic_lost_rss(const struct nk_nic_state *st, const struct nk_rss *rss, int rss_ret,
		     uint32_t q);
/* Header split off (or hds-thresh not 0) while nkctl reserves queues. */
bool nk_nic_lost_split(const struct nk_nic_state *st, const struct nk_rings *rings, int rings_ret);
/* A rule nkctl recorded (with its spec) that the driver no longer has. */
bool nk_nic_lost_rule(const struct nk_nic_state *st, const struct nk_ntuple_list *rules,
		      int rules_ret, const struct nk_ntuple *recorded);

#endif
