// SPDX-License-Identifier: GPL-2.0
/* One look at a NIC for the fate judgement (look.h). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "core/lookup.h"
#include "lease/holder.h"
#include "lease/look.h"
#include "rtnl.h"

struct nk_ns_id nk_ns_id_of(const struct nk_ns *ns)
{
	struct nk_ns_id id = { 0 };

	if (ns) {
		id.known = true;
		id.dev = ns->dev;
		id.ino = ns->ino;
	}
	return id;
}

enum nk_look nk_look_of(const struct nk_link *l, bool dumped)
{
	if (!(l->flags & IFF_UP))
		return NK_LOOK_DOWN;
	return dumped ? NK_LOOK_SEEN : NK_LOOK_UNREADABLE;
}

/* The link's part of a look (no dump): gone, down, out of reach, or
 * NK_LOOK_SEEN when up (the dump may still fail). */
static enum nk_look nic_look(struct nk_ns *ns, int ifindex)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link link;

	if (!rt)
		return NK_LOOK_UNREACHABLE;
	if (nk_link_lookup(rt, NULL, ifindex, &link, NULL, true))
		return NK_LOOK_GONE;
	return nk_look_of(&link, true);
}

static void holder_of(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_queue *e,
		      struct nk_seen_queue *q)
{
	struct nk_queue_holder h;

	if (!nk_queue_holder(e, &h))
		return;
	q->leased = true;
	q->mp = e->have & QUEUE_HAVE_MP;
	q->holder.ifindex = h.ifindex;
	if (!h.has_nsid) {
		q->holder.ns = nk_ns_id_of(ns);      /* the NIC's own namespace */
		return;
	}
	/* A namespace that cleanup_net has begun to take apart has lost its
	 * nsids first: its leases read netns-id -1 until its devices go. */
	if (h.nsid < 0) {
		q->ns_going = true;
		return;
	}
	if (ctx)
		q->holder.ns = nk_ns_id_of(nk_ns_by_nsid(ctx, ns, h.nsid));
}

int nk_nic_seen_from(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, enum nk_look look,
		     const struct nk_queue_list *ql, struct nk_nic_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	seen->ifindex = ifindex;
	seen->look = look;
	for (size_t i = 0; look == NK_LOOK_SEEN && i < ql->n; i++)
		if (ql->v[i].ifindex == ifindex && ql->v[i].type == NK_NETDEV_QUEUE_TYPE_RX &&
		    ql->v[i].id >= seen->nq)
			seen->nq = ql->v[i].id + 1;
	if (look == NK_LOOK_SEEN && !seen->nq)
		seen->look = NK_LOOK_UNREADABLE;   /* went down after the look, or no queue */
	if (seen->look == NK_LOOK_SEEN) {
		seen->q = calloc(seen->nq, sizeof(*seen->q));
		if (!seen->q)
			seen->look = NK_LOOK_UNREADABLE;  /* cannot say: kept, as for a down NIC */
	}
	for (size_t i = 0; seen->q && i < ql->n; i++) {
		const struct nk_queue *e = &ql->v[i];

		if (e->ifindex != ifindex || e->type != NK_NETDEV_QUEUE_TYPE_RX)
			continue;
		seen->q[e->id].present = true;
		holder_of(ctx, ns, e, &seen->q[e->id]);
	}
	seen->known = seen->look == NK_LOOK_SEEN;
	seen->why = nk_look_why(seen->look);
	return seen->known ? 0 : -ENODATA;
}

void nk_nic_seen_read(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, struct nk_nic_seen *seen)
{
	struct nk_queue_list ql = { 0 };
	enum nk_look look = nic_look(ns, ifindex);

	if (look == NK_LOOK_SEEN) {
		const struct genl_family *fam;
		struct nl_sock *s = nk_ns_try_netdev(ns, &fam);
		struct nl_err err;

		if (!s || netdev_queue_dump(s, fam, ifindex, &ql, &err))
			look = NK_LOOK_UNREADABLE;
	}
	nk_nic_seen_from(ctx, ns, ifindex, look, &ql, seen);
	nk_queue_list_free(&ql);
}

void nk_nic_seen_free(struct nk_nic_seen *seen)
{
	free(seen->q);
	memset(seen, 0, sizeof(*seen));
}
