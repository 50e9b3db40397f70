/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nkctl monitor's own header (monitor.c: the loop and the kernel's
 * notifications; monsnap.c: the snapshots it diffs to tell what the kernel
 * does not announce, and to resync after lost notifications).
 */
#ifndef NKCTL_MONITOR_H
#define NKCTL_MONITOR_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bindings.h"
#include "event.h"
#include "leases.h"
#include "nkctl.h"
#include "pagepool.h"

/* What monitor reports, in the order of its keywords. */
enum mon_obj {
	MON_LINK, MON_NSID, MON_NETDEV, MON_PAGE_POOL, MON_LEASE, MON_BINDING, MON_HOLDER,
	MON_LOST,
	MON_N
};

/* The periodic re-dump of leases, bindings and holders (queue-create and
 * bind-rx send no notification). Documented in nkctl-monitor(8). */
#define MON_REDUMP_MS 1000

/* A device as the link snapshot keeps it. nsid: NK_EV_NSID_LOCAL for the
 * command's namespace, else the id it gives the device's namespace. */
struct mon_link {
	int32_t nsid;
	int ifindex;
	unsigned int flags;
	unsigned int have;        /* LINK_HAVE_MTU, LINK_HAVE_OPERSTATE */
	uint32_t mtu;
	uint8_t operstate;
	char ifname[IF_NAMESIZE];
	char kind[16];
};
struct mon_links { struct mon_link *v; size_t n, cap; };


struct monitor {
	struct nk_ctx *ctx;
	bool want[MON_N];
	bool all_nsid;
	bool lookups;              /* name namespaces, re-dump on related events
				      (false: decode and print only, the fuzzer) */
	uint32_t count;            /* 0: no limit */
	uint64_t printed;
	int status;                /* the exit status once the loop ends */
	struct nk_ns *here;
	struct nk_ev_loop ev;
	int rtnl_src, genl_src;
	struct mon_links links;
	struct nk_lease_list leases;       /* namespaces by value only */
	struct nk_binding_list bindings;   /* alive ones, and the kernel's */
	struct nk_binding_list holders;    /* alive holders' state */
	struct nk_pool_list pools;         /* the command's namespace's page pools */
};

/* One event record: mon_begin, its object's keys, mon_end. mon_end returns
 * non-zero when the monitor must stop (count reached, output closed). */
void mon_begin(struct monitor *m, enum mon_obj obj, const char *action, int32_t nsid);
int mon_end(struct monitor *m);

/* One notification (NK_EV_MSG) of rtnetlink or the netdev family: decoded,
 * printed, snapshots updated. 0, or non-zero to stop. */
int mon_notification(struct monitor *m, const struct nk_ev *ev);

/* Snapshots (monsnap.c): take the first one quietly, or re-take it and print
 * what changed. Each returns 0 or mon_end's stop. */
int mon_links_sync(struct monitor *m, bool print);
int mon_leases_sync(struct monitor *m, bool print);
int mon_bindings_sync(struct monitor *m, bool print);
int mon_holders_sync(struct monitor *m, bool print);
void mon_snap_free(struct monitor *m);
/* Page pools: the snapshot follows the notifications (a new or changed pool
 * is kept, a deleted one dropped); a resync re-dumps them. */
int mon_pools_sync(struct monitor *m, bool print);
void mon_pool_event(struct monitor *m, const struct nk_pool *p, bool gone);
/* One page-pool record (monitor.c). */
int mon_print_pool(struct monitor *m, const char *action, const struct nk_pool *p,
		   int32_t nsid);
/* The snapshot's entry for (nsid, ifindex), or NULL. */
struct mon_link *mon_link_find(struct mon_links *l, int32_t nsid, int ifindex);
/* A notification about a link: update the snapshot and print new, change
 * (name, flags, MTU, state) or del. */
int mon_link_event(struct monitor *m, const struct nlmsghdr *nlh, int32_t nsid);
/* Is (nsid, ifindex) a netkit device or one end of a known lease? */
bool mon_link_in_lease(const struct monitor *m, int32_t nsid, int ifindex);

#endif
