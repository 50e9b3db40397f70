/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sweep (sweep.c): it undoes what each lease that has ended brought,
 * on every NIC with a state file (an unlease, one killed half-way, a holder
 * deleted or moved away with its namespace), deciding under each NIC's lock
 * alone; it also finishes a release killed after its state was saved.
 * A lease has ended only when the kernel says so (nicside.h): a NIC that
 * is down, gone or unreadable keeps its records. Each NIC and each record
 * is handled on its own: a failure is one Warning naming the NIC, the record
 * and the kernel's message, retried by the next command, never the
 * command's error.
 */
#ifndef NKCTL_LEASE_SWEEP_H
#define NKCTL_LEASE_SWEEP_H

#include <sys/types.h>

/* A NIC by its namespace and ifindex. */
struct nk_nic_at {
	dev_t dev;
	ino_t ino;
	int ifindex;
};

/* 0: what fails is said as Warnings. A busy NIC is left to its lock
 * holder or the next command (waiting would chain every command on the node
 * to the busiest NIC)... */
int nk_nic_unlease_stale(struct nk_ctx *ctx);
/* ...except the NICs own[0..n), the command's own leases' (an unlease's):
 * their locks are waited for, so that the command's work is done when it
 * returns. */
int nk_nic_unlease_stale_own(struct nk_ctx *ctx, const struct nk_nic_at *own, size_t n);
/* For "unlease dev NAME" when hns has no NAME: if a live lease's record names
 * it (recorded in hns), wait up to NK_NIC_GONE_WAIT_TICKS tenths of a second
 * for its namespace's deletion to end the lease, undoing what ended (a
 * lease of unknown state, its NIC down, is not waited for). Exit 3 when
 * the holder lives on in another namespace. */
#define NK_NIC_GONE_WAIT_TICKS 300
int nk_nic_unlease_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder);
/* The same when the holder's namespace is gone from view (the name that
 * named it names nothing now): records naming holder in any namespace;
 * *still says whether a live lease's record names it after the wait (its
 * namespace lives on, unnamed). A lease of unknown state is not waited for
 * (the caller asks the scan's unseen records). */
int nk_nic_unlease_gone_anywhere(struct nk_ctx *ctx, const char *holder, bool *still);

#endif
