/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AF_XDP model under nkctl xsk (xsksvc.c). Pins: the NIC's program, link
 * and queue maps in nkctl's private tree, <root>/nkctl/<netns>/xsk<ifindex>/
 * (locked as the route tables' directories are); each holder's XSK map in
 * a directory of its own, <root>/nkctl-xsk/ns<netns cookie>-dev<ifindex>/map
 * (the directory 0700, both owned as attach was told: a VMM is handed that
 * one directory, a bind mount, and reaches no other holder's map; that side
 * is xskholder.h's). Crash
 * order: attach pins the holder's map before the NIC's maps point at it and
 * writes the slot (the switch) last; detach clears the slot, then the
 * queue, then unpins (when no NIC's directory names the holder any more);
 * the NIC's last detach unpins its link (the program goes).
 */
#ifndef NKCTL_XSKSVC_H
#define NKCTL_XSKSVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ctx.h"
#include "fate.h"
#include "netdev.h"
#include "routes.h"
#include "xskfit.h"
#include "xskholder.h"
#include "xsk.h"         /* bpf/xsk.h: the maps */

enum { XPIN_LINK, XPIN_QUEUES, XPIN_SLOTS, XPIN_N };

/* One NIC's program and maps, its directory locked. */
struct xsk_nic {
	struct pin_dir d;
	int fd[XPIN_N];             /* -1: not pinned */
};

/* The NIC's directory of namespace directory nsdir, locked, its pins
 * opened. -ENOENT quietly when there is none and create is false. */
int xsk_nic_open(const char *root, const char *nsdir, int ifindex, bool create,
		 struct xsk_nic *n);
void xsk_nic_close(struct xsk_nic *n);
void xsk_nic_unpin(struct xsk_nic *n);
/* All pins there and the link's device alive. */
bool xsk_nic_live(const struct xsk_nic *n);
/* Load (on the pinned maps when they are there, else on new ones sized for
 * nic_queues RX queues, 0: a default, pinned), attach through a link made
 * in the NIC's namespace ns and pinned last. */
int xsk_nic_make(struct xsk_nic *n, struct nk_ns *ns, int ifindex, const char *ifname,
		 bool native, uint32_t nic_queues);
int ns_cookie_of(struct nk_ns *ns, const char *root, unsigned long long *cookie);
/* The holder's directory, and the pin of its map in it, into buf[PIN_LEN]. */
void holder_dir(const char *root, unsigned long long cookie, uint32_t ifindex, char *buf);
void holder_pin(const char *root, unsigned long long cookie, uint32_t ifindex, char *buf);

/* Every slot of a NIC (its slots map's size: the NIC's RX queues when it
 * was made), read in one call; -EIO when it cannot be. */
struct nk_xsk_slots {
	uint32_t n;
	struct nk_xsk_slot *v;
};
int slots_read(const struct xsk_nic *n, struct nk_xsk_slots *all);
void slots_free(struct nk_xsk_slots *all);
/* The queue goes first, its slot (the switch) last. */
int slot_set(const struct xsk_nic *n, uint32_t q, int map_fd, const struct nk_xsk_slot *s);
bool nic_used(const struct xsk_nic *n);

/* The holder's directory and map unpinned unless a slot of any NIC
 * directory names it (or one cannot be read). Only under the public lock
 * (xsk_public_lock): an attach holds it from its look at a holder's map to
 * the slot that names it. */
struct nk_xsk_pruned;
void holder_unpin_unnamed(const char *root, uint32_t holder, uint64_t cookie,
			  struct nk_xsk_pruned *pruned);
/* How a map for acc clashes with the map of another holder that a NIC's
 * slot names (xsk_access_clash), the other's directory into other[PIN_LEN];
 * XSK_CLASH_NONE when none does; an error when the slots cannot be read. */
int xsk_owner_taken(const char *root, int pub, uint32_t holder, uint64_t cookie,
		    const struct xsk_access *acc, bool share, char *other);

enum xsk_lock {
	XSK_LOCK_WAIT,      /* take it, waiting for an attach under way */
	XSK_LOCK_HELD,      /* the caller holds it (attach's own sweep) */
};

/* The pins a sweep, prune or detach removed (holder maps, NIC programs). */
struct nk_xsk_pruned {
	char (*pin)[PIN_LEN];
	size_t n;
};
void nk_xsk_pruned_free(struct nk_xsk_pruned *p);

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

/* The pin of the holder map that NIC queue q of (ns, ifindex) goes to, into
 * pin[PIN_LEN]: true when nkctl prepared it for AF_XDP. */
bool nk_xsk_pin_of(struct nk_ns *ns, int ifindex, uint32_t q, char *pin);
/* Would holder map pin, as st says it is, clash with another live
 * holder's map (the holder was attached with share)? */
bool nk_xsk_pin_shared(const char *pin, const struct stat *st);
/* The same for many queues in one command (show leases): the bpffs root is
 * looked for once, a namespace's directory once while the queues asked
 * about stay in it. Start it zeroed. */
struct nk_xsk_reader {
	bool looked;            /* root_ret is known */
	int root_ret;
	char root[ROOT_LEN];
	const struct nk_ns *ns; /* whose directory nsdir is (NULL: none yet) */
	int nsdir_ret;
	char nsdir[NS_LEN];
};
bool nk_xsk_pin_read(struct nk_xsk_reader *rd, struct nk_ns *ns, int ifindex, uint32_t q,
		     char *pin);
/* Has nkctl an AF_XDP program on NIC (ns, ifindex)? *prog_id: the program
 * its link runs, 0 when the link is defunct. */
bool nk_xsk_nic_prog(struct nk_ns *ns, int ifindex, uint32_t *prog_id);
/* Each NIC of namespace ns that nkctl prepared queues of, with its slots
 * as read (without its lock: a reader's view) and the bpffs root. */
typedef void (*nk_xsk_nic_fn)(void *arg, const char *root, int ifindex,
			      const struct nk_xsk_slots *all);
void nk_xsk_each_nic(struct nk_ns *ns, nk_xsk_nic_fn fn, void *arg);

#endif
