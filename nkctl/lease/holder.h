/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A queue dump's lease attributes, read here and nowhere else (holder.c):
 * whether a NIC queue is leased, to which holder (its ifindex with the
 * netns-id the NIC's namespace names its namespace by, when not its own),
 * and whether two leases have one holder (on a netkit queue the dump names
 * the NIC's queue it leases the same way). The structure test refuses a
 * read of them anywhere else. Pure: unit tests cover every case.
 */
#ifndef NKCTL_LEASE_HOLDER_H
#define NKCTL_LEASE_HOLDER_H

#include <stdbool.h>
#include <stdint.h>

#include "netdev.h"

/* A lease's holder as the NIC's namespace names it. */
struct nk_queue_holder {
	int ifindex;
	bool has_nsid;        /* in another namespace: nsid names it */
	int32_t nsid;         /* -1: a namespace being deleted */
};

/* Does the dump show q leased? */
bool nk_queue_leased(const struct nk_queue *q);
/* q's holder into *h: false when q is not leased. */
bool nk_queue_holder(const struct nk_queue *q, struct nk_queue_holder *h);
/* The netkit queue that leased q feeds, when the dump names it. */
bool nk_queue_lease_queue(const struct nk_queue *q, uint32_t *id, uint32_t *type);
/* Is q leased to device ifindex of a namespace the NIC's names nsid, or,
 * nic_here, of the NIC's own namespace (the dump then names none)? */
bool nk_queue_leased_to(const struct nk_queue *q, int ifindex, bool nic_here, int32_t nsid);
/* Do leased queues a and b of one NIC have one holder (ifindex together
 * with its namespace)? */
bool nk_queue_same_holder(const struct nk_queue *a, const struct nk_queue *b);
/* Free for a lease: not leased, no memory provider. */
bool nk_queue_free(const struct nk_queue *q);
/* A memory provider on q that is not a lease's. */
bool nk_queue_foreign_mp(const struct nk_queue *q);

#endif
