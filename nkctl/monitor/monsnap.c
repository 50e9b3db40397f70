// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl monitor's snapshots: the devices, leases, bindings and holders it
 * last saw. A re-dump is compared with them to print what the kernel does
 * not announce (leases, bindings, holders) and, after lost notifications,
 * what changed meanwhile. Each is as large as what it mirrors: memory stays
 * bounded whatever the rate of events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "compat.h"
#include "view/devview.h"
#include "core/lookup.h"
#include "monitor/monsnap.h"
#include "lease/look.h"
#include "netdev.h"
#include "rtnl.h"
#include "bind/bindview.h"
#include "bind/bindstate.h"
#include "view/stats.h"

/* ---- devices ---- */

struct mon_link *mon_link_find(struct mon_links *l, int32_t nsid, int ifindex)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].nsid == nsid && l->v[i].ifindex == ifindex)
			return &l->v[i];
	return NULL;
}

/* "ifname" of the device, when the snapshot knows it. */
void mon_print_ifname(struct monitor *m, int32_t nsid, int ifindex, const char *fmt)
{
	const struct mon_link *l = mon_link_find(&m->links, nsid, ifindex);

	if (l)
		out_str(&m->ctx->out, "ifname", fmt, l->ifname);
}

static void link_from(struct mon_link *ml, const struct nk_link *l, int32_t nsid)
{
	memset(ml, 0, sizeof(*ml));
	ml->nsid = nsid;
	ml->ifindex = l->ifindex;
	ml->flags = l->flags;
	ml->have = l->have & (LINK_HAVE_MTU | LINK_HAVE_OPERSTATE);
	ml->mtu = l->mtu;
	ml->operstate = l->operstate;
	memcpy(ml->ifname, l->ifname, sizeof(ml->ifname));
	memcpy(ml->kind, l->kind, sizeof(ml->kind));
}

/* What a change is: name, flags, MTU or operational state. */
static bool link_same(const struct mon_link *a, const struct mon_link *b)
{
	return !strcmp(a->ifname, b->ifname) && a->flags == b->flags && a->mtu == b->mtu &&
	       a->operstate == b->operstate;
}

static void print_link(struct out *o, const struct mon_link *l)
{
	char b[32];

	out_obj_open(o, "link");
	out_uint(o, "ifindex", "%llu: ", (unsigned int)l->ifindex);
	out_str(o, "ifname", "%s: ", l->ifname);
	nk_print_flags(o, l->flags);
	if (l->kind[0])
		out_str(o, "kind", "%s ", l->kind);
	if (l->have & LINK_HAVE_OPERSTATE)
		out_str(o, "operstate", "state %s", nk_operstate_name(l->operstate, b, sizeof(b)));
	if (l->have & LINK_HAVE_MTU)
		out_uint(o, "mtu", " mtu %llu", l->mtu);
	out_text(o, "\n");
	out_obj_close(o);
}

static int link_print(struct monitor *m, const char *action, const struct mon_link *l)
{
	if (!m->want[MON_LINK])
		return 0;
	mon_begin(m, MON_LINK, action, l->nsid);
	print_link(&m->ctx->out, l);
	return mon_end(m);
}

static void link_remove(struct mon_links *l, struct mon_link *e)
{
	*e = l->v[--l->n];
}

int mon_link_event(struct monitor *m, const struct nlmsghdr *nlh, int32_t nsid)
{
	struct mon_link ml, *old, *slot;
	struct nk_link l;

	if (rtnl_parse_link(nlh, &l))
		return 0;
	link_from(&ml, &l, nsid);
	old = mon_link_find(&m->links, nsid, ml.ifindex);
	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (old) {
			if (!ml.kind[0])
				memcpy(ml.kind, old->kind, sizeof(ml.kind));
			link_remove(&m->links, old);
		}
		return link_print(m, "del", &ml);
	}
	if (old && link_same(old, &ml))
		return 0;
	if (old) {
		*old = ml;
		return link_print(m, "change", &ml);
	}
	slot = nk_grow(&m->links.v, &m->links.n, &m->links.cap, sizeof(*slot));
	if (slot)
		*slot = ml;
	return link_print(m, "new", &ml);
}

static int links_of(struct nl_sock *s, int32_t nsid, struct mon_links *out)
{
	struct nk_link_list l;
	struct nl_err err;

	if (rtnl_link_dump(s, &l, &err))
		return -err.code;
	for (size_t i = 0; i < l.n; i++) {
		struct mon_link *ml = nk_grow(&out->v, &out->n, &out->cap, sizeof(*ml));

		if (!ml) {
			nk_link_list_free(&l);
			return -ENOMEM;
		}
		link_from(ml, &l.v[i], nsid);
	}
	nk_link_list_free(&l);
	return 0;
}

/* One namespace's devices; the command's own must be readable, another
 * that went meanwhile is skipped. */
static int links_in(struct nk_ns *ns, int32_t nsid, void *out)
{
	struct nl_sock *s = nk_ns_try_rtnl(ns);

	if (!s)
		return nsid == NK_EV_NSID_LOCAL ? -EIO : 0;
	return links_of(s, nsid, out);
}

/* The devices of the command's namespace and, with all-nsid, of every
 * namespace nkctl reaches that has an nsid here. */
static int links_dump(struct monitor *m, struct mon_links *out)
{
	memset(out, 0, sizeof(*out));
	return mon_each_ns(m, links_in, out);
}

/* What differs between the snapshot and now, printed; the snapshot becomes now. */
static int links_diff(struct monitor *m, struct mon_links *now)
{
	int ret = 0;

	for (size_t i = 0; i < m->links.n && !ret; i++)
		if (!mon_link_find(now, m->links.v[i].nsid, m->links.v[i].ifindex))
			ret = link_print(m, "del", &m->links.v[i]);
	for (size_t i = 0; i < now->n && !ret; i++) {
		struct mon_link *old = mon_link_find(&m->links, now->v[i].nsid, now->v[i].ifindex);

		if (!old)
			ret = link_print(m, "new", &now->v[i]);
		else if (!link_same(old, &now->v[i]))
			ret = link_print(m, "change", &now->v[i]);
	}
	return ret;
}

int mon_links_sync(struct monitor *m, bool print)
{
	struct mon_links now;
	int ret = 0;

	if (links_dump(m, &now)) {
		free(now.v);
		return 0; /* keep the old snapshot; the next resync tries again */
	}
	if (print)
		ret = links_diff(m, &now);
	free(m->links.v);
	m->links = now;
	return ret;
}

/* ---- leases ---- */

/* The same lease: the same NIC queue, held by the same netkit queue. */
static bool lease_same(const struct nk_lease_rec *a, const struct nk_lease_rec *b)
{
	return a->nic_at.dev == b->nic_at.dev && a->nic_at.ino == b->nic_at.ino &&
	       a->nic_ifindex == b->nic_ifindex && a->nic_queue == b->nic_queue &&
	       a->nk_at.reachable == b->nk_at.reachable && a->nk_at.dev == b->nk_at.dev &&
	       a->nk_at.ino == b->nk_at.ino && a->nk_ifindex == b->nk_ifindex &&
	       a->nk_queue == b->nk_queue;
}

static const struct nk_lease_rec *lease_find(const struct nk_lease_list *l,
					     const struct nk_lease_rec *x)
{
	for (size_t i = 0; i < l->n; i++)
		if (lease_same(&l->v[i], x))
			return &l->v[i];
	return NULL;
}

bool mon_dev_exists(struct nk_ctx *ctx, dev_t dev, ino_t ino, int ifindex)
{
	struct nk_link link;
	struct nl_sock *rt;
	struct nk_ns *ns;

	return !nk_ns_find(ctx, dev, ino, &ns) && ns && (rt = nk_ns_try_rtnl(ns)) &&
	       !nk_link_lookup(rt, NULL, ifindex, &link, NULL, true);
}

/* Does device ifindex exist in the namespace where w says? false when it
 * cannot be reached. */
static bool dev_exists(struct nk_ctx *ctx, const struct nk_lease_where *w, int ifindex)
{
	return w->reachable && mon_dev_exists(ctx, w->dev, w->ino, ifindex);
}

/* One look at a NIC, taken for the first lease of it missing from a dump
 * and asked for the others (a GC's hundred unleases: one queue dump, not a
 * hundred). */
struct nic_look {
	bool taken;
	dev_t dev;
	ino_t ino;
	int ifindex;
	struct nk_nic_seen seen;
};

static void nic_look_at(struct nk_ctx *ctx, const struct nk_lease_rec *r, struct nic_look *l)
{
	struct nk_ns *ns;

	if (l->taken && l->dev == r->nic_at.dev && l->ino == r->nic_at.ino &&
	    l->ifindex == r->nic_ifindex)
		return;
	nk_nic_seen_free(&l->seen);
	l->taken = true;
	l->dev = r->nic_at.dev;
	l->ino = r->nic_at.ino;
	l->ifindex = r->nic_ifindex;
	memset(&l->seen, 0, sizeof(l->seen));
	l->seen.look = NK_LOOK_GONE;   /* its namespace not found: it went with it */
	if (!nk_ns_find(ctx, l->dev, l->ino, &ns) && ns)
		nk_nic_seen_read(ctx, ns, l->ifindex, &l->seen);
}

/* A lease gone from the dump has ended only when the fate judgement says so
 * (nk_fate_of_lease_was), from a look taken now: not while its NIC is down
 * or out of reach (the dump leaves such a NIC's queues out, and its leases
 * live on), nor when the look shows it leased still (the NIC came up
 * between the dump and the look); a NIC that is gone took it along. */
static bool lease_kept(struct nk_ctx *ctx, const struct nk_lease_rec *r, struct nic_look *l)
{
	struct nk_holder_id h = { .ifindex = r->nk_ifindex };

	if (!r->nic_at.reachable)
		return false;
	nic_look_at(ctx, r, l);
	if (r->nk_at.reachable)
		h.ns = (struct nk_ns_id){ .known = true, .dev = r->nk_at.dev, .ino = r->nk_at.ino };
	return nk_fate_of_lease_was(&l->seen, r->nic_queue, &h) != NK_FATE_ENDED;
}

/* Why a lease ended, asked of the kernel as the end is seen: the NIC went
 * (devlink reload, re-probe, a move: the kernel deleted its single holders
 * with it), its holder went (deleted, or its namespace), or both stand and
 * it was unleased. */
static const char *lease_end_reason(struct monitor *m, const struct nk_lease_rec *r)
{
	if (!dev_exists(m->ctx, &r->nic_at, r->nic_ifindex))
		return "nic-gone";
	if (!dev_exists(m->ctx, &r->nk_at, r->nk_ifindex))
		return "holder-gone";
	return "unleased";
}

static int lease_print(struct monitor *m, const char *action, const struct nk_lease_rec *r)
{
	const char *reason = strcmp(action, "del") ? NULL : lease_end_reason(m, r);

	mon_begin(m, MON_LEASE, action, NK_EV_NSID_LOCAL);
	out_obj_open(&m->ctx->out, "lease");
	nk_print_lease_keys(&m->ctx->out, r, false);
	out_obj_close(&m->ctx->out);
	if (reason)
		out_str(&m->ctx->out, "reason", " (%s)", reason);
	return mon_end(m);
}

/* Every lease nkctl sees now, from the namespaces it reaches now. The
 * records keep their namespaces by value only: the handles go with the
 * next scan. */
static int leases_scan(struct monitor *m, struct nk_lease_list *out)
{
	int ret;

	size_t k = 0;

	nk_ctx_forget_others(m->ctx);
	ret = nk_lease_scan(m->ctx, out);
	/* the leases seen: one not seen is kept from the last scan, as
	 * lease_kept judges, and said when it does end */
	for (size_t i = 0; i < out->n; i++)
		if (!out->v[i].unseen) {
			out->v[k] = out->v[i];
			out->v[k].nic_ns = out->v[k].nk_ns = NULL;
			k++;
		}
	out->n = k;
	return ret;
}

int mon_leases_sync(struct monitor *m, bool print)
{
	struct nic_look look = { 0 };
	struct nk_lease_list now;
	int ret = 0;

	if (leases_scan(m, &now)) {
		nk_lease_list_free(&now);
		return 0;
	}
	for (size_t i = 0; i < m->leases.n && !ret; i++) {
		struct nk_lease_rec *kept;

		if (lease_find(&now, &m->leases.v[i]))
			continue;
		/* not seen is not ended: kept, and said when it does end */
		if (lease_kept(m->ctx, &m->leases.v[i], &look)) {
			kept = nk_grow(&now.v, &now.n, &now.cap, sizeof(*kept));
			if (kept)
				*kept = m->leases.v[i];
			continue;
		}
		if (print)
			ret = lease_print(m, "del", &m->leases.v[i]);
	}
	for (size_t i = 0; print && i < now.n && !ret; i++)
		if (!lease_find(&m->leases, &now.v[i]))
			ret = lease_print(m, "new", &now.v[i]);
	nk_nic_seen_free(&look.seen);
	nk_lease_list_free(&m->leases);
	m->leases = now;
	return ret;
}

bool mon_link_in_lease(const struct monitor *m, int32_t nsid, int ifindex)
{
	struct mon_link *l;

	if (nsid != NK_EV_NSID_LOCAL)
		return false;
	l = mon_link_find((struct mon_links *)&m->links, nsid, ifindex);
	if (l && !strcmp(l->kind, "netkit"))
		return true;
	for (size_t i = 0; i < m->leases.n; i++) {
		const struct nk_lease_rec *e = &m->leases.v[i];

		if ((e->nic_at.here && e->nic_ifindex == ifindex) ||
		    (e->nk_at.here && e->nk_ifindex == ifindex))
			return true;
	}
	return false;
}

/* ---- bindings and holders ---- */

static const struct nk_binding *binding_find(const struct nk_binding_list *l, uint32_t id,
					     pid_t pid, bool by_pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].id == id && (!by_pid || l->v[i].pid == pid))
			return &l->v[i];
	return NULL;
}

static int keep_binding(struct nk_binding_list *l, const struct nk_binding *b)
{
	struct nk_binding *slot = nk_grow(&l->v, &l->n, &l->cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	*slot = *b;
	return 0;
}

static int binding_print(struct monitor *m, const char *action, const struct nk_binding *b)
{
	mon_begin(m, MON_BINDING, action, NK_EV_NSID_LOCAL);
	nk_print_binding_as(&m->ctx->out, "binding", b);
	return mon_end(m);
}

static void print_holder(struct out *o, const struct nk_binding *b)
{
	out_obj_open(o, "holder");
	out_uint(o, "binding", "binding %llu", b->id);
	out_uint(o, "pid", " pid %llu", (unsigned int)b->pid);
	out_str(o, "mode", " (%s)", nk_hold_mode_name(b->mode));
	out_str(o, "direction", " %s", b->rx ? "rx" : "tx");
	out_uint(o, "ifindex", NULL, (unsigned int)b->ifindex);
	out_str(o, "ifname", " dev %s", b->ifname);
	if (b->netns[0])
		out_str(o, "netns", " (netns %s)", b->netns);
	out_text(o, "\n");
	out_obj_close(o);
}

static int holder_print(struct monitor *m, const char *action, const struct nk_binding *b)
{
	mon_begin(m, MON_HOLDER, action, NK_EV_NSID_LOCAL);
	print_holder(&m->ctx->out, b);
	return mon_end(m);
}

/* Old entries missing from now (del), then new ones (new); the list becomes
 * now. by_pid: a holder is (binding, pid). */
static int bindings_diff(struct monitor *m, struct nk_binding_list *old,
			 struct nk_binding_list *now, bool print, bool by_pid,
			 int (*emit)(struct monitor *, const char *, const struct nk_binding *),
			 const char *gone, const char *came)
{
	int ret = 0;

	for (size_t i = 0; print && i < old->n && !ret; i++)
		if (!binding_find(now, old->v[i].id, old->v[i].pid, by_pid))
			ret = emit(m, gone, &old->v[i]);
	for (size_t i = 0; print && i < now->n && !ret; i++)
		if (!binding_find(old, now->v[i].id, now->v[i].pid, by_pid))
			ret = emit(m, came, &now->v[i]);
	nk_binding_list_free(old);
	*old = *now;
	return ret;
}

int mon_bindings_sync(struct monitor *m, bool print)
{
	struct nk_binding_list all, now = { 0 };
	bool kernel_ok;

	if (nk_bindings_load(m->ctx, &all, &kernel_ok))
		return 0;
	/* A stale state file is no binding: the kernel let go with its holder. */
	for (size_t i = 0; i < all.n; i++)
		if ((!all.v[i].held || all.v[i].alive) && keep_binding(&now, &all.v[i])) {
			nk_binding_list_free(&all);
			nk_binding_list_free(&now);
			return 0;
		}
	nk_binding_list_free(&all);
	return bindings_diff(m, &m->bindings, &now, print, false, binding_print, "del", "new");
}

int mon_holders_sync(struct monitor *m, bool print)
{
	struct nk_binding_list all, now = { 0 };

	if (nk_binding_states(&all))
		return 0;
	for (size_t i = 0; i < all.n; i++) {
		const struct nk_binding *b = &all.v[i];

		if (!b->alive || (!m->all_nsid && !nk_ns_is(m->here, b->ns_dev, b->ns_ino)))
			continue;
		if (keep_binding(&now, b)) {
			nk_binding_list_free(&all);
			nk_binding_list_free(&now);
			return 0;
		}
	}
	nk_binding_list_free(&all);
	return bindings_diff(m, &m->holders, &now, print, true, holder_print, "exit", "start");
}

/* ---- page pools ---- */

int mon_print_pool(struct monitor *m, const char *action, const struct nk_pool *p,
		   int32_t nsid)
{
	struct out *o = &m->ctx->out;

	if (!m->want[MON_PAGE_POOL])
		return 0;
	mon_begin(m, MON_PAGE_POOL, action, nsid);
	out_obj_open(o, "page-pool");
	out_uint(o, "id", "page-pool %llu", p->id);
	if (p->ifindex) {
		out_uint(o, "ifindex", " ifindex %llu", (unsigned int)p->ifindex);
		mon_print_ifname(m, nsid, p->ifindex, " (%s)");
	}
	if (p->have & POOL_HAVE_NAPI)
		out_uint(o, "napi-id", " napi-id %llu", p->napi_id);
	nk_print_pool_state(o, p);
	out_text(o, "\n");
	out_obj_close(o);
	return mon_end(m);
}

static struct nk_pool *pool_find(struct nk_pool_list *l, uint32_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].id == id)
			return &l->v[i];
	return NULL;
}

void mon_pool_event(struct monitor *m, const struct nk_pool *p, bool gone)
{
	struct nk_pool *old = pool_find(&m->pools, p->id);

	if (gone && old)
		*old = m->pools.v[--m->pools.n];
	else if (old)
		*old = *p;
	else if (!gone && (old = nk_grow(&m->pools.v, &m->pools.n, &m->pools.cap, sizeof(*old))))
		*old = *p;
}

int mon_pools_sync(struct monitor *m, bool print)
{
	const struct genl_family *fam;
	struct nl_sock *s = nk_ns_try_netdev(m->here, &fam);
	struct nk_pool_list now;
	struct nl_err err;
	int ret = 0;

	if (!s || !genl_has_op(fam, NK_NETDEV_CMD_PAGE_POOL_GET) ||
	    netdev_pool_dump(s, fam, &now, &err))
		return 0;
	for (size_t i = 0; print && i < m->pools.n && !ret; i++)
		if (!pool_find(&now, m->pools.v[i].id))
			ret = mon_print_pool(m, "del", &m->pools.v[i], NK_EV_NSID_LOCAL);
	for (size_t i = 0; print && i < now.n && !ret; i++)
		if (!pool_find(&m->pools, now.v[i].id))
			ret = mon_print_pool(m, "new", &now.v[i], NK_EV_NSID_LOCAL);
	nk_pool_list_free(&m->pools);
	m->pools = now;
	return ret;
}

void mon_snap_free(struct monitor *m)
{
	free(m->links.v);
	nk_lease_list_free(&m->leases);
	nk_binding_list_free(&m->bindings);
	nk_binding_list_free(&m->holders);
	nk_pool_list_free(&m->pools);
	memset(&m->links, 0, sizeof(m->links));
}
