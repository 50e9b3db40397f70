// SPDX-License-Identifier: GPL-2.0
/* "Mine" (mine.h): what of the kernel's is nkctl's, decided in one place. */
#include <net/if.h>
#include <string.h>

#include "lease/mine.h"

/*
 * A lease record names its holder as it was at lease time. The holder may
 * have moved to another namespace since (a pod's is, by the CNI plugin), so
 * one of its name recorded in another namespace, and no longer there, may
 * be l, and counts too.
 */
bool nk_mine_lease(const struct nk_lease_rec *r, const struct nk_ns *hns, const struct nk_link *l,
		   bool (*name_now)(struct nk_ns *ns, int ifindex, char *name))
{
	char there[IF_NAMESIZE];

	if (r->nk_ns == hns)
		return r->nk_ifindex == l->ifindex;
	if (strcmp(r->nk_ifname, l->ifname))
		return false;
	/* still where it was leased: that device, another of the same name */
	return !r->nk_ns || !name_now(r->nk_ns, r->nk_ifindex, there) ||
	       strcmp(there, r->nk_ifname);
}

/*
 * A rule's location is the driver's to give again: after a steer del, or to
 * another tool's rule. So the rule at a recorded location is nkctl's only
 * while it is the one recorded there. A record from before specs were kept
 * (flow_type 0) cannot tell, and is taken as nkctl's.
 */
bool nk_mine_rule(const struct nk_nic_state *st, const struct nk_ntuple *now)
{
	for (size_t i = 0; i < st->nrules; i++)
		if (st->rules[i].id == now->id)
			return !st->rules[i].flow_type || nk_ntuple_same(&st->rules[i], now);
	return false;
}

/* Does context c spread over exactly the queues lease l leases? */
static bool spreads_over_lease(const struct nk_rss_ctx *c, const struct nk_nic_lease *l)
{
	if (c->more_queues || c->nqueues != l->nleased)
		return false;
	for (size_t k = 0; k < l->nleased; k++) {
		bool found = false;

		for (size_t i = 0; i < c->nqueues && !found; i++)
			found = c->queues[i] == l->leased[k];
		if (!found)
			return false;
	}
	return true;
}

/*
 * A lease's context id is recorded before the context is made (rssctx.c),
 * so a recorded id is only an intent: after a kill in between, another
 * tool's "ethtool -X ... context new" may take it. So a context is nkctl's
 * only when the kernel has it at the recorded id AND its table spreads over
 * exactly the lease's queues (the recorded queue set).
 */
bool nk_mine_rss_context(const struct nk_rss_ctx_list *all, const struct nk_nic_lease *l,
			 bool *there)
{
	bool ours = false;

	*there = false;
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].context == l->rss_context) {
			*there = true;
			ours = spreads_over_lease(&all->v[i], l);
		}
	return ours;
}

bool nk_mine_record(const struct nk_nic_lease *l, const struct nk_ns *hns, const char *holder)
{
	return holder && (!hns || nk_ns_is(hns, l->ns_dev, l->ns_ino)) && !strcmp(l->name, holder);
}

/*
 * The sweep waits for the lock of the command's own NICs only, so that its
 * work is done when it returns: those of its own leases, and those whose
 * records name the holder it unleases. Another command's busy NIC is left
 * to its lock holder or the next command (waiting would chain every command
 * on the node to the busiest NIC).
 */
bool nk_mine_nic(const struct nk_mine_who *who, const struct nk_ns *ns, int ifindex,
		 const struct nk_nic_state *st)
{
	for (size_t k = 0; k < st->nleases; k++)
		if (nk_mine_record(&st->leases[k], who->hns, who->holder))
			return true;
	for (size_t i = 0; i < who->nown; i++)
		if (who->own[i].ifindex == ifindex &&
		    nk_ns_is(ns, who->own[i].dev, who->own[i].ino))
			return true;
	return false;
}
