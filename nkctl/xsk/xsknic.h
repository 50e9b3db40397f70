/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AF_XDP model under nkctl xsk (xsknic.c, xsksweep.c, xskread.c). Pins: the NIC's program, link
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
#ifndef NKCTL_XSKNIC_H
#define NKCTL_XSKNIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/ctx.h"
#include "lease/fate.h"
#include "netdev.h"
#include "redirect/routes.h"
#include "xsk/xskfit.h"
#include "xsk/xskholder.h"
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

/* The name of pin which (XPIN_*) in a NIC's directory, and its path in n's
 * into buf[PIN_LEN]. */
const char *xsk_pin_name(int which);
void xsk_pin_path(const struct xsk_nic *n, int which, char *buf);
/* The slots of a slots map fd. */
int xsk_slots_read_fd(int fd, struct nk_xsk_slots *all);
/* Does any slot go to a holder? */
bool xsk_slots_used(const struct nk_xsk_slots *all);

enum xsk_lock {
	XSK_LOCK_WAIT,      /* take it, waiting for an attach under way */
	XSK_LOCK_HELD,      /* the caller holds it (attach's own sweep) */
};

#endif
