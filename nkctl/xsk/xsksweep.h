/* SPDX-License-Identifier: GPL-2.0 */
/* Detach and the sweep (xsksweep.c). */
#ifndef NKCTL_XSKSWEEP_H
#define NKCTL_XSKSWEEP_H

#include "xsk/xsknic.h"

/* The pins a sweep, prune or detach removed (holder maps, NIC programs). */
struct nk_xsk_pruned {
	char (*pin)[PIN_LEN];
	size_t n;
};
void nk_xsk_pruned_add(struct nk_xsk_pruned *p, const char *pin);
void nk_xsk_pruned_free(struct nk_xsk_pruned *p);

/* The holder's directory and map unpinned unless a slot of any NIC
 * directory names it (or one cannot be read). Only under the public lock
 * (xsk_public_lock): an attach holds it from its look at a holder's map to
 * the slot that names it. */
void holder_unpin_unnamed(const char *root, uint32_t holder, uint64_t cookie,
			  struct nk_xsk_pruned *pruned);
/* How a map for acc clashes with the map of another holder that a NIC's
 * slot names (xsk_access_clash), the other's directory into other[PIN_LEN];
 * XSK_CLASH_NONE when none does; an error when the slots cannot be read. */
int xsk_owner_taken(const char *root, int pub, uint32_t holder, uint64_t cookie,
		    const struct xsk_access *acc, bool share, char *other);

/* What to detach: the queues going to (holder, cookie), or only its queue
 * (holder's queue id); or, for the sweep, the queues no longer leased to the
 * holder they go to. */
/* The reachable namespaces' cookies (their XSK pins' names) with their
 * identities: how a slot's holder namespace is named for the judgement. */
struct xsk_ns_cookies {
	struct {
		uint64_t cookie;
		struct nk_ns_id id;
	} *v;
	size_t n;
};
int xsk_ns_cookies_read(struct nk_ctx *ctx, const char *root, struct xsk_ns_cookies *c);
void xsk_ns_cookies_free(struct xsk_ns_cookies *c);

struct remove_what {
	uint32_t holder;
	uint64_t cookie;
	bool all_queues;
	uint32_t queue;
	/* instead of detaching, point the NIC's queue at map_fd (a fresh map);
	 * repoint_failed counts what could not be (a queue, a NIC directory) */
	bool repoint;
	int map_fd;
	size_t repoint_failed;
	/* instead, the sweep: every slot the fate judgement says ended */
	bool sweep;
	bool prune;                          /* the sweep of redirect prune: a NIC gone ends all */
	struct nk_ctx *ctx;
	const struct nk_nic_seen *seen;      /* the sweep: one look at the NIC */
	struct xsk_ns_cookies cookies;       /* the sweep: the reachable namespaces */
	struct nk_xsk_pruned *pruned;        /* NULL: not recorded */
};

/* The fate of what slot s of NIC queue q goes to (fate.h), its holder's
 * namespace named by c. */
enum nk_fate xsk_slot_fate(const struct nk_nic_seen *seen, uint32_t q, const struct nk_xsk_slot *s,
			   const struct xsk_ns_cookies *c);
/* Detach what w says on every NIC of the namespaces nkctl reaches; how many
 * queues went. */
size_t remove_everywhere(struct nk_ctx *ctx, const char *root, struct remove_what *w);
/* Unpin the holders' maps no slot of any NIC names (their last slot
 * cleared by detach or the sweep, or a command killed between a slot and
 * its pin), under the public lock taken as how says. */
void xsk_orphans_remove(const char *root, enum xsk_lock how, struct nk_xsk_pruned *pruned);

/* After link del, unlease and redirect prune: detach each queue the fate
 * judgement (fate.h) says no longer goes to its holder (ifindex with its
 * namespace): not leased, or leased to another holder, on a NIC seen. A NIC
 * down, unreadable or out of reach keeps all of its; a NIC gone keeps its
 * too but for prune (its program went with it). Then the orphans; what went
 * into pruned (NULL: not recorded). */
void nk_xsk_sweep(struct nk_ctx *ctx, bool prune, struct nk_xsk_pruned *pruned);
/* The same in attach, which holds the public lock. */
void xsk_sweep_locked(struct nk_ctx *ctx);

#endif
