/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nkctl monitor's snapshots (monsnap.c): the devices, leases, bindings,
 * holders and page pools it last saw, and their records.
 */
#ifndef NKCTL_MONSNAP_H
#define NKCTL_MONSNAP_H

#include "monitor/monrecord.h"

/* Take the first snapshot quietly, or re-take it and print what changed.
 * Each returns 0 or mon_end's stop. */
int mon_links_sync(struct monitor *m, bool print);
int mon_leases_sync(struct monitor *m, bool print);
int mon_bindings_sync(struct monitor *m, bool print);
int mon_holders_sync(struct monitor *m, bool print);
void mon_snap_free(struct monitor *m);
/* The queues xsk attach prepared and the devices' XDP programs (monxsk.c):
 * no notification tells them, the re-dump compares. */
/* Page pools: the snapshot follows the notifications (a new or changed pool
 * is kept, a deleted one dropped); a resync re-dumps them. */
int mon_pools_sync(struct monitor *m, bool print);
void mon_pool_event(struct monitor *m, const struct nk_pool *p, bool gone);
/* One page-pool record. */
int mon_print_pool(struct monitor *m, const char *action, const struct nk_pool *p,
		   int32_t nsid);
/* fn for the command's namespace (nsid NK_EV_NSID_LOCAL) and, with
 * all-nsid, for every namespace nkctl reaches that has an nsid here; stops
 * at fn's first non-zero. */
/* The snapshot's entry for (nsid, ifindex), or NULL. */
struct mon_link *mon_link_find(struct mon_links *l, int32_t nsid, int ifindex);
/* A notification about a link: update the snapshot and print new, change
 * (name, flags, MTU, state) or del. */
int mon_link_event(struct monitor *m, const struct nlmsghdr *nlh, int32_t nsid);
/* Is (nsid, ifindex) a netkit device or one end of a known lease? */
bool mon_link_in_lease(const struct monitor *m, int32_t nsid, int ifindex);
/* Does device ifindex exist in namespace (dev, ino)? false when nkctl
 * does not reach it. */
bool mon_dev_exists(struct nk_ctx *ctx, dev_t dev, ino_t ino, int ifindex);
/* "ifname" of the device, when the snapshot knows it. */
void mon_print_ifname(struct monitor *m, int32_t nsid, int ifindex, const char *fmt);

#endif
