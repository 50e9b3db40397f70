/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Mine" (mine.c): whether something the kernel shows is nkctl's, decided
 * here and nowhere else: a lease nkctl recorded and the kernel cannot show,
 * an n-tuple rule at a recorded location, an RSS context at a recorded id,
 * a NIC whose lock the command waits for. Pure: each takes the record nkctl
 * wrote and what the caller read of the kernel, and answers; no netlink, no
 * file, no lock (testsuite/unit/test_mine.c, case by case).
 */
#ifndef NKCTL_LEASE_MINE_H
#define NKCTL_LEASE_MINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ctx.h"
#include "ethrss.h"
#include "lease/scan.h"
#include "lease/sweep.h"
#include "nic/nicstate.h"
#include "rtnl.h"

/* May holder l of namespace hns hold the lease r records (one not seen)?
 * Its ifindex there; or its name, when r's holder was recorded in another
 * namespace and is no longer there (moved since, as a pod's holder is).
 * name_now reads the name of the device at ifindex of ns (never NULL) now
 * into name (IF_NAMESIZE), false when there is none or ns cannot be
 * reached; it is asked only when the answer turns on it (a NIC down with
 * hundreds of recorded leases would cost a lookup each otherwise). */
bool nk_mine_lease(const struct nk_lease_rec *r, const struct nk_ns *hns, const struct nk_link *l,
		   bool (*name_now)(struct nk_ns *ns, int ifindex, char *name));
/* Is the rule the driver has at now->id still the one NIC record st
 * recorded there (same spec; a record without one counts as the same)? */
bool nk_mine_rule(const struct nk_nic_state *st, const struct nk_ntuple *now);
/* Is the context at lease l's recorded id, among all the kernel has, the
 * lease's? *there says whether any context has that id. */
bool nk_mine_rss_context(const struct nk_rss_ctx_list *all, const struct nk_nic_lease *l,
			 bool *there);
/* Does NIC record l (a lease's) name holder, recorded in namespace hns
 * (NULL: in any, the holder's namespace gone from view)? Never with holder
 * NULL. */
bool nk_mine_record(const struct nk_nic_lease *l, const struct nk_ns *hns, const char *holder);

/* Who the command is, for nk_mine_nic: the holder it unleases (NULL: none),
 * recorded in namespace hns, and own[0..nown), its own leases' NICs. */
struct nk_mine_who {
	const struct nk_ns *hns;
	const char *holder;
	const struct nk_nic_at *own;
	size_t nown;
};
/* Is the NIC of record st, at ifindex of ns, one of the command's own
 * (whose lock it waits for)? */
bool nk_mine_nic(const struct nk_mine_who *who, const struct nk_ns *ns, int ifindex,
		 const struct nk_nic_state *st);

#endif
