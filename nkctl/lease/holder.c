// SPDX-License-Identifier: GPL-2.0
/* A queue dump's lease attributes (holder.h): the one reader of them. */
#include "lease/holder.h"

bool nk_queue_leased(const struct nk_queue *q)
{
	return q && (q->have & QUEUE_HAVE_LEASE);
}

bool nk_queue_holder(const struct nk_queue *q, struct nk_queue_holder *h)
{
	if (!nk_queue_leased(q))
		return false;
	h->ifindex = q->lease_ifindex;
	h->has_nsid = q->have & QUEUE_HAVE_LEASE_NETNS_ID;
	h->nsid = h->has_nsid ? q->lease_netns_id : 0;
	return true;
}

bool nk_queue_lease_queue(const struct nk_queue *q, uint32_t *id, uint32_t *type)
{
	if (!nk_queue_leased(q) || !(q->have & QUEUE_HAVE_LEASE_QUEUE))
		return false;
	*id = q->lease_queue_id;
	*type = q->lease_queue_type;
	return true;
}

bool nk_queue_leased_to(const struct nk_queue *q, int ifindex, bool nic_here, int32_t nsid)
{
	struct nk_queue_holder h;

	if (!nk_queue_holder(q, &h) || h.ifindex != ifindex)
		return false;
	return nic_here ? !h.has_nsid : h.has_nsid && h.nsid == nsid;
}

bool nk_queue_same_holder(const struct nk_queue *a, const struct nk_queue *b)
{
	struct nk_queue_holder x, y;

	return nk_queue_holder(a, &x) && nk_queue_holder(b, &y) && x.ifindex == y.ifindex &&
	       x.has_nsid == y.has_nsid && (!x.has_nsid || x.nsid == y.nsid);
}

bool nk_queue_free(const struct nk_queue *q)
{
	return q && !(q->have & (QUEUE_HAVE_LEASE | QUEUE_HAVE_MP));
}

bool nk_queue_foreign_mp(const struct nk_queue *q)
{
	return q && !nk_queue_leased(q) && (q->have & QUEUE_HAVE_MP);
}
