/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one nkctl monitor holds (struct monitor), and its event records
 * (monrecord.c), under the notifications (monitor.c) and the snapshots
 * (monsnap.c).
 */
#ifndef NKCTL_MONRECORD_H
#define NKCTL_MONRECORD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bind/bindings.h"
#include "core/ctx.h"
#include "event.h"
#include "lease/fate.h"
#include "lease/scan.h"
#include "pagepool.h"

/* What monitor reports, in the order of its keywords. */
enum mon_obj {
	MON_LINK, MON_NSID, MON_NETDEV, MON_PAGE_POOL, MON_LEASE, MON_BINDING, MON_HOLDER,
	MON_XSK, MON_XDP, MON_LOST,
	MON_N
};

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

/* A NIC queue xsk attach prepared, as the xsk snapshot keeps it
 * (monxsk.c): where the NIC is (its nsid, and its namespace by identity),
 * its queue, the holder's queue, ifindex and
 * namespace cookie, names where known, the holder map's pin. */
struct mon_xsk {
	int32_t nsid;
	struct nk_ns_id nic_ns;          /* the NIC's namespace, for a del's reason */
	int nic_ifindex;
	uint32_t nic_queue, queue, holder;
	uint64_t holder_netns;
	char nic[IF_NAMESIZE], holder_name[IF_NAMESIZE];
	char pin[256];
};
struct mon_xsks { struct mon_xsk *v; size_t n, cap; };

/* A device's XDP program: its id, and whether it is nkctl's AF_XDP one. */
struct mon_xdp {
	int32_t nsid;
	int ifindex;
	uint32_t prog_id;
	bool nkctl;
	char ifname[IF_NAMESIZE];
};
struct mon_xdps { struct mon_xdp *v; size_t n, cap; };


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
	struct mon_xsks xsks;              /* queues prepared for AF_XDP */
	struct mon_xdps xdps;              /* devices with an XDP program */
};

/* One event record: mon_begin, its object's keys, mon_end. mon_end returns
 * non-zero when the monitor must stop (count reached, output closed). */
void mon_begin(struct monitor *m, enum mon_obj obj, const char *action, int32_t nsid);
int mon_end(struct monitor *m);
/* The name nkctl knows the namespace by that has nsid here, or NULL. */
const char *mon_nsid_name(struct monitor *m, int32_t nsid);
int mon_each_ns(struct monitor *m, int (*fn)(struct nk_ns *ns, int32_t nsid, void *arg), void *arg);

#endif
