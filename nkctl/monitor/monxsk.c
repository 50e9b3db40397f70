// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl monitor's AF_XDP snapshots: the NIC queues xsk attach prepared
 * (object xsk) and the devices' XDP programs (object xdp). Neither sends a
 * notification (an XDP program attached through a BPF link, or gone with
 * its link's pin, says nothing on rtnetlink): the periodic re-dump compares
 * them with the last snapshot, as it does leases.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monsnap.h"
#include "monitor/monxsk.h"
#include "lease/look.h"
#include "rtnl.h"
#include "xsk/xskread.h"
#include "xsk/xsksweep.h"

/* One namespace being read: its devices name the NICs and the holders. */
struct xsk_scan {
	int32_t nsid;
	struct nk_ns_id ns;
	unsigned long long cookie;
	const struct nk_link_list *links;
	struct mon_xsks *out;
	int err;
};

static const char *name_in(const struct nk_link_list *l, int ifindex)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].ifindex == ifindex)
			return l->v[i].ifname;
	return "";
}

static void xsk_of_nic(void *arg, const char *root, int ifindex, const struct nk_xsk_slots *all)
{
	struct xsk_scan *sc = arg;

	for (uint32_t q = 0; q < all->n && !sc->err; q++) {
		const struct nk_xsk_slot *s = &all->v[q];
		struct mon_xsk *x;

		if (!s->holder)
			continue;
		x = nk_grow(&sc->out->v, &sc->out->n, &sc->out->cap, sizeof(*x));
		if (!x) {
			sc->err = -ENOMEM;
			return;
		}
		memset(x, 0, sizeof(*x));
		x->nsid = sc->nsid;
		x->nic_ns = sc->ns;
		x->nic_ifindex = ifindex;
		x->nic_queue = q;
		x->queue = s->slot;
		x->holder = s->holder;
		x->holder_netns = s->holder_netns;
		snprintf(x->nic, sizeof(x->nic), "%s", name_in(sc->links, ifindex));
		if (s->holder_netns == sc->cookie)
			snprintf(x->holder_name, sizeof(x->holder_name), "%s",
				 name_in(sc->links, (int)s->holder));
		holder_pin(root, s->holder_netns, s->holder, x->pin);
	}
}

/* The devices of links with an XDP program, nkctl's AF_XDP one told. */
static int xdp_of(struct nk_ns *ns, int32_t nsid, const struct nk_link_list *links,
		  struct mon_xdps *out)
{
	for (size_t i = 0; i < links->n; i++) {
		const struct nk_link *l = &links->v[i];
		struct mon_xdp *x;
		uint32_t ours;

		if (!(l->have & LINK_HAVE_XDP) || !l->xdp_attached || !l->xdp_prog_id)
			continue;
		x = nk_grow(&out->v, &out->n, &out->cap, sizeof(*x));
		if (!x)
			return -ENOMEM;
		memset(x, 0, sizeof(*x));
		x->nsid = nsid;
		x->ifindex = l->ifindex;
		x->prog_id = l->xdp_prog_id;
		x->nkctl = nk_xsk_nic_prog(ns, l->ifindex, &ours) && ours == l->xdp_prog_id;
		memcpy(x->ifname, l->ifname, sizeof(x->ifname));
	}
	return 0;
}

struct xsk_scan_out {
	struct mon_xsks *xsks;
	struct mon_xdps *xdps;
};

static int scan_ns(struct nk_ns *ns, int32_t nsid, void *arg)
{
	struct xsk_scan_out *o = arg;
	struct mon_xdps *xdps = o->xdps;
	struct xsk_scan sc = { .nsid = nsid, .ns = nk_ns_id_of(ns), .out = o->xsks };
	struct nl_sock *s = nk_ns_try_rtnl(ns);
	struct nk_link_list links;
	char root[ROOT_LEN];
	struct nl_err err;
	int ret;

	if (!s || rtnl_link_dump(s, &links, &err))
		return -EIO;
	sc.links = &links;
	ret = xdp_of(ns, nsid, &links, xdps);
	if (!ret && !nk_bpffs_root(false, root, sizeof(root)) && !ns_cookie_of(ns, root, &sc.cookie)) {
		nk_xsk_each_nic(ns, xsk_of_nic, &sc);
		ret = sc.err;
	}
	nk_link_list_free(&links);
	return ret;
}

/* The command's namespace and, with all-nsid, every namespace nkctl
 * reaches that has an nsid here (as the link snapshot). */
static int xsk_scan_all(struct monitor *m, struct mon_xsks *xsks, struct mon_xdps *xdps)
{
	struct xsk_scan_out o = { xsks, xdps };

	memset(xsks, 0, sizeof(*xsks));
	memset(xdps, 0, sizeof(*xdps));
	return mon_each_ns(m, scan_ns, &o);
}

/* ---- xsk ---- */

static bool xsk_same(const struct mon_xsk *a, const struct mon_xsk *b)
{
	return a->nsid == b->nsid && a->nic_ifindex == b->nic_ifindex &&
	       a->nic_queue == b->nic_queue && a->queue == b->queue && a->holder == b->holder &&
	       a->holder_netns == b->holder_netns;
}

static const struct mon_xsk *xsk_find(const struct mon_xsks *l, const struct mon_xsk *x)
{
	for (size_t i = 0; i < l->n; i++)
		if (xsk_same(&l->v[i], x))
			return &l->v[i];
	return NULL;
}

/* Why a prepared queue went, asked of the kernel as its going is seen:
 * its NIC went (nic-gone; its namespace too), its holder or the holder's
 * namespace went (holder-gone: ip link del, or nkctl unlease, which
 * deletes a single holder), the one judgement (fate.h) says the queue is
 * no longer leased to the holder (unleased), else the lease stands and
 * its slot was cleared (detached: xsk detach). c names the namespaces by
 * their cookies. */
static const char *xsk_end_reason(struct monitor *m, const struct mon_xsk *x,
				  const struct xsk_ns_cookies *c)
{
	struct nk_holder_id h = { .ifindex = (int)x->holder };
	struct nk_nic_seen seen;
	struct nk_ns *ns = NULL;
	const char *why;

	if (!x->nic_ns.known || nk_ns_find(m->ctx, x->nic_ns.dev, x->nic_ns.ino, &ns) || !ns)
		return "nic-gone";
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].cookie == x->holder_netns)
			h.ns = c->v[i].id;
	nk_nic_seen_read(m->ctx, ns, x->nic_ifindex, &seen);
	if (seen.look == NK_LOOK_GONE)
		why = "nic-gone";
	else if (!h.ns.known || !mon_dev_exists(m->ctx, h.ns.dev, h.ns.ino, h.ifindex))
		why = "holder-gone";
	else
		why = nk_fate_of_slot(&seen, x->nic_queue, &h) == NK_FATE_ENDED ? "unleased" :
										   "detached";
	nk_nic_seen_free(&seen);
	return why;
}

static int xsk_print(struct monitor *m, const char *action, const struct mon_xsk *x,
		     const char *reason)
{
	struct out *o = &m->ctx->out;

	mon_begin(m, MON_XSK, action, x->nsid);
	out_obj_open(o, "xsk");
	out_uint(o, "ifindex", x->holder_name[0] ? NULL : "ifindex %llu", x->holder);
	if (x->holder_name[0])
		out_str(o, "ifname", "%s", x->holder_name);
	out_uint(o, "queue", " queue %llu", x->queue);
	out_uint(o, "nic-ifindex", x->nic[0] ? NULL : " nic ifindex %llu", (unsigned int)x->nic_ifindex);
	if (x->nic[0])
		out_str(o, "nic", " nic %s", x->nic);
	out_uint(o, "nic-queue", " queue %llu", x->nic_queue);
	out_str(o, "pin", " pin %s", x->pin);
	out_obj_close(o);
	if (reason)
		out_str(o, "reason", " (%s)", reason);
	out_text(o, "\n");
	return mon_end(m);
}

static int xsks_diff(struct monitor *m, const struct mon_xsks *now)
{
	struct xsk_ns_cookies cookies = { 0 };
	char root[ROOT_LEN];
	bool looked = false;
	int ret = 0;

	for (size_t i = 0; m->want[MON_XSK] && i < m->xsks.n && !ret; i++) {
		if (xsk_find(now, &m->xsks.v[i]))
			continue;
		if (!looked && !nk_bpffs_root(false, root, sizeof(root)))
			xsk_ns_cookies_read(m->ctx, root, &cookies);
		looked = true;
		ret = xsk_print(m, "del", &m->xsks.v[i], xsk_end_reason(m, &m->xsks.v[i], &cookies));
	}
	xsk_ns_cookies_free(&cookies);
	for (size_t i = 0; m->want[MON_XSK] && i < now->n && !ret; i++)
		if (!xsk_find(&m->xsks, &now->v[i]))
			ret = xsk_print(m, "new", &now->v[i], NULL);
	return ret;
}

/* ---- xdp ---- */

static const struct mon_xdp *xdp_find(const struct mon_xdps *l, const struct mon_xdp *x)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].nsid == x->nsid && l->v[i].ifindex == x->ifindex)
			return &l->v[i];
	return NULL;
}

static int xdp_print(struct monitor *m, const char *action, const struct mon_xdp *x)
{
	struct out *o = &m->ctx->out;

	mon_begin(m, MON_XDP, action, x->nsid);
	out_obj_open(o, "xdp");
	out_uint(o, "ifindex", "%llu: ", (unsigned int)x->ifindex);
	out_str(o, "ifname", "%s", x->ifname);
	out_uint(o, "prog-id", " prog %llu", x->prog_id);
	out_bool(o, "nkctl", NULL, x->nkctl);
	out_text(o, x->nkctl ? " (nkctl's AF_XDP program)\n" : "\n");
	out_obj_close(o);
	return mon_end(m);
}

static int xdps_diff(struct monitor *m, const struct mon_xdps *now)
{
	int ret = 0;

	for (size_t i = 0; m->want[MON_XDP] && i < m->xdps.n && !ret; i++)
		if (!xdp_find(now, &m->xdps.v[i]))
			ret = xdp_print(m, "del", &m->xdps.v[i]);
	for (size_t i = 0; m->want[MON_XDP] && i < now->n && !ret; i++) {
		const struct mon_xdp *old = xdp_find(&m->xdps, &now->v[i]);

		if (!old)
			ret = xdp_print(m, "new", &now->v[i]);
		else if (old->prog_id != now->v[i].prog_id || old->nkctl != now->v[i].nkctl)
			ret = xdp_print(m, "change", &now->v[i]);
	}
	return ret;
}

int mon_xsk_sync(struct monitor *m, bool print)
{
	struct mon_xsks xsks;
	struct mon_xdps xdps;
	int ret = 0;

	if (xsk_scan_all(m, &xsks, &xdps)) {
		free(xsks.v);
		free(xdps.v);
		return 0; /* keep the old snapshots; the next re-dump tries again */
	}
	/* The program first: an attach shows its program, then its queues. */
	if (print)
		ret = xdps_diff(m, &xdps);
	if (print && !ret)
		ret = xsks_diff(m, &xsks);
	mon_xsk_free(m);
	m->xsks = xsks;
	m->xdps = xdps;
	return ret;
}

void mon_xsk_free(struct monitor *m)
{
	free(m->xsks.v);
	free(m->xdps.v);
	memset(&m->xsks, 0, sizeof(m->xsks));
	memset(&m->xdps, 0, sizeof(m->xdps));
}
