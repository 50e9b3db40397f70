/* SPDX-License-Identifier: GPL-2.0 */
/* The lease table: every lease visible from the namespaces nkctl can reach. */
#ifndef NKCTL_LEASE_SCAN_H
#define NKCTL_LEASE_SCAN_H

#include <net/if.h>
#include <sys/types.h>

#include "core/ctx.h"
#include "lease/fate.h"
#include "ethtool.h"
#include "nic/nicjob.h"
#include "qstats.h"


/* One namespace of a lease by value, so that a record outlives the handles
 * of the scan that made it (monitor compares one scan's records with the
 * next's, and prints those that went). */
struct nk_lease_where {
	bool reachable;            /* false: nkctl cannot reach it (nothing else set) */
	bool here;                 /* the command's own */
	dev_t dev;
	ino_t ino;
	char spec[NK_NS_SPEC];     /* how nkctl named it; "" for the command's own */
};

/* One lease: made by nk_lease_scan, or by hand with nk_lease_set_ns. */
struct nk_lease_rec {
	/* the NIC side, where queue-get shows the lease */
	struct nk_ns *nic_ns;
	int nic_ifindex;
	char nic_ifname[IF_NAMESIZE];
	uint32_t nic_queue;
	/* the netkit side; nk_ns NULL: a namespace nkctl cannot reach (no
	 * name, no process of ours: its holder is named through nk_nsid,
	 * the netns-id the NIC's namespace knows it by, when it has one) */
	struct nk_ns *nk_ns;
	bool nk_has_nsid;
	int32_t nk_nsid;
	int nk_ifindex;
	char nk_ifname[IF_NAMESIZE];
	uint32_t nk_queue;
	/* memory provider on the NIC queue (QUEUE_HAVE_DMABUF|IO_URING|XSK) */
	unsigned int mp;
	uint32_t dmabuf;
	bool existed;              /* for lease's own output */
	/* not seen: the NIC's record says it, the kernel could not (the NIC
	 * down: nk_lease_scan adds it); look says how the NIC was. The netkit
	 * queue is then not known. */
	bool unseen;
	enum nk_look look;
	/* nic_ns and nk_ns by value: what the printer reads */
	struct nk_lease_where nic_at, nk_at;
	const struct nk_lease_nic *nic;  /* show leases only; NULL elsewhere */
	const char *xsk_map;       /* show leases only: the holder's XSK map (nkctl xsk) */
	struct nk_qstats stats;    /* -s: the NIC queue's qstats (have 0: none) */
};

struct nk_lease_list {
	struct nk_lease_rec *v;
	size_t n, cap;
	/* namespaces whose queue dump failed in the scan: their NICs' leases
	 * were not seen, which is not "none" (kept as unseen records) */
	struct nk_ns **unread;
	size_t nunread, capunread;
};

/* unlease waits this long by default for a memory provider to go (the
 * kernel's own zcrx test polls 5 s for one), at most NK_LEASE_MAX_MP_WAIT. */
#define NK_LEASE_MP_WAIT 5
#define NK_LEASE_MAX_MP_WAIT 600

/* Scan every namespace nkctl can reach (nk_ns_reachable), then add the
 * leases nkctl's NIC records name on NICs the scan could not see (down: the
 * kernel's dump leaves them out; up, but the dump of its namespace failed),
 * each marked unseen with the look: no reader can take "not in the dump"
 * for "ended". The records point at namespaces of ctx. */
int nk_lease_scan(struct nk_ctx *ctx, struct nk_lease_list *out);
void nk_lease_list_free(struct nk_lease_list *l);
/* Copy the leases held by netkit device ifindex of hns out of all into
 * *held (its own array: free(held->v)); prints the error. */
int nk_lease_pick_held(const struct nk_lease_list *all, const struct nk_ns *hns, int ifindex,
		       struct nk_lease_list *held);
/* Scan into *all and copy the leases held by netkit device ifindex of hns
 * into *held (its own array: free(held->v)); prints the error. */
int nk_lease_held_by(struct nk_ctx *ctx, struct nk_ns *hns, int ifindex,
		     struct nk_lease_list *all, struct nk_lease_list *held);
/* The live lease (one seen) held by netkit queue (ifindex, queue) of the
 * command's netns. */
const struct nk_lease_rec *nk_lease_of_netkit(const struct nk_lease_list *l, int ifindex,
					      uint32_t queue);
/* A live lease (one seen) of netkit device ifindex of the command's netns. */
const struct nk_lease_rec *nk_lease_any_of_netkit(const struct nk_lease_list *l, int ifindex);
/* The live lease (one seen) of NIC queue (ifindex, queue) of namespace ns. */
const struct nk_lease_rec *nk_lease_of_nic(const struct nk_lease_list *l,
					   const struct nk_ns *ns, int ifindex, uint32_t queue);
/* The name of the device at ifindex of ns now into name (IF_NAMESIZE):
 * false when there is none or ns cannot be reached. The read "mine" asks
 * for of a lease not seen (nk_mine_lease, lease/mine.h). */
bool nk_lease_name_now(struct nk_ns *ns, int ifindex, char *name);
/* The first lease not seen (its NIC down or unreadable) that l of hns may
 * hold (nk_mine_lease), or that is of NIC (ns, ifindex); NULL when none. */
const struct nk_lease_rec *nk_lease_unseen_held(const struct nk_lease_list *all,
						const struct nk_ns *hns, const struct nk_link *l);
const struct nk_lease_rec *nk_lease_unseen_of_nic(const struct nk_lease_list *all,
						  const struct nk_ns *ns, int ifindex);
/* A command refused because lease r of holder cannot be seen: which lease,
 * why it cannot be seen, why that matters to the command, and when to run
 * it again (or_else: what else, appended; may be NULL). Exit 4, the same
 * for every command: never "not leased". */
int nk_lease_unseen_error(const struct nk_lease_rec *r, const char *holder, const char *matters,
			  const char *again, const char *or_else);
/* The same for holder l of the command's namespace when one of its leases
 * cannot be seen ("whether that lease lives, and " matters); 0 when all
 * are seen. */
int nk_lease_refuse_unseen(struct nk_ctx *ctx, const struct nk_lease_list *all,
			   const struct nk_link *l, const char *matters, const char *again);
/* -s: fill each record's stats with its NIC queue's qstats, one dump per
 * NIC namespace; a namespace that cannot be read leaves them empty. */
void nk_lease_stats(struct nk_lease_list *l);
/* Each lease of now with its counters as rates since before, matched by its
 * NIC queue; a lease new since then has no counters. */
void nk_lease_rates(struct nk_lease_list *now, const struct nk_lease_list *before,
		    uint32_t seconds);
/* Set both namespaces of r (nk_ns NULL: one nkctl cannot reach), as
 * handles and by value. */
void nk_lease_set_ns(struct nk_lease_rec *r, struct nk_ns *nic_ns, struct nk_ns *nk_ns);
/* One lease object, as "lease", "show leases" and "unlease" print it. */
void nk_print_lease(struct out *o, const struct nk_lease_rec *r, bool with_existed);
/* Its keys alone, inside an object the caller opened (monitor's "lease"). */
void nk_print_lease_keys(struct out *o, const struct nk_lease_rec *r, bool with_existed);

#endif
