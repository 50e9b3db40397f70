// SPDX-License-Identifier: GPL-2.0
/*
 * The lease table. The kernel shows a lease only on the NIC's queue (queue-get
 * with its lease nest); the netkit side learns of it only by looking at every
 * namespace that could hold the NIC. nkctl looks at those it can reach: its
 * own, the initial namespace and the named ones under /run/netns.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "compat.h"
#include "core/cmd.h"

#include "core/lookup.h"
#include "lease/holder.h"
#include "lease/look.h"
#include "lease/mine.h"
#include "lease/scan.h"
#include "netdev.h"
#include "netns.h"
#include "nic/nicstate.h"
#include "nic/nicrule.h"
#include "rtnl.h"
#include "core/counters.h"

/*
 * The names of the leases' devices. A namespace with more than NAMES_BY_GET
 * of them to name is asked for its links once, in a dump; one with fewer,
 * a device at a time (a dump of a namespace of many devices to name one or
 * two would cost more). Was: one RTM_GETLINK per lease and side, 500 for
 * 250 leases of one NIC, the same NIC's name 250 times.
 */
#define NAMES_BY_GET 4

struct names {
	struct nk_ns *ns;
	struct nk_link_list links; /* dumped: more than NAMES_BY_GET to name */
	bool dumped;
};

static void name_of(struct names *nm, struct nk_ns *ns, int ifindex, char *buf, size_t len)
{
	struct nl_sock *s = nk_ns_try_rtnl(ns);
	const struct nk_link *found;
	struct nk_link l;
	struct nl_err err;

	buf[0] = '\0';
	if (nm && nm->dumped) {
		found = nk_link_find(&nm->links, ifindex);
		if (found)
			snprintf(buf, len, "%s", found->ifname);
	} else if (s && rtnl_link_get(s, NULL, ifindex, &l, &err) == 0) {
		snprintf(buf, len, "%s", l.ifname);
	}
}

/* How many names the leases from first on need in ns. */
static size_t names_in(const struct nk_lease_list *l, size_t first, const struct nk_ns *ns)
{
	size_t n = 0;

	for (size_t i = first; i < l->n; i++)
		n += (l->v[i].nic_ns == ns) + (l->v[i].nk_ns == ns);
	return n;
}

/* ns's names: dumped when it has many to give. NULL: none held (named a
 * device at a time). */
static struct names *names_of(struct names *nm, size_t *n, size_t cap,
			      const struct nk_lease_list *l, size_t first, struct nk_ns *ns)
{
	struct nl_sock *s;
	struct nl_err err;

	for (size_t i = 0; i < *n; i++)
		if (nm[i].ns == ns)
			return &nm[i];
	if (*n == cap || names_in(l, first, ns) <= NAMES_BY_GET)
		return NULL;
	nm[*n].ns = ns;
	s = nk_ns_try_rtnl(ns);
	nm[*n].dumped = s && !rtnl_link_dump(s, &nm[*n].links, &err);
	return &nm[(*n)++];
}

/* The holder of a namespace nkctl cannot reach, by the netns-id the NIC's
 * namespace knows it by: the name a pod's holder keeps after its namespace
 * file went (a process keeping the namespace). */
static void name_unreachable(struct nk_lease_rec *r)
{
	struct nl_sock *s = nk_ns_try_rtnl(r->nic_ns);
	struct nk_link l;
	struct nl_err err;

	if (s && !rtnl_link_get_nsid(s, r->nk_nsid, r->nk_ifindex, &l, &err))
		snprintf(r->nk_ifname, sizeof(r->nk_ifname), "%s", l.ifname);
}

/* Both sides' names of the leases from first on. */
static int name_leases(struct nk_lease_list *l, size_t first)
{
	size_t n = 0, cap = 2 * (l->n - first);
	struct names *nm = calloc(cap, sizeof(*nm));

	if (!nm)
		return -ENOMEM;
	for (size_t i = first; i < l->n; i++) {
		struct nk_lease_rec *r = &l->v[i];

		name_of(names_of(nm, &n, cap, l, first, r->nic_ns), r->nic_ns, r->nic_ifindex,
			r->nic_ifname, sizeof(r->nic_ifname));
		if (r->nk_ns)
			name_of(names_of(nm, &n, cap, l, first, r->nk_ns), r->nk_ns, r->nk_ifindex,
				r->nk_ifname, sizeof(r->nk_ifname));
		else if (r->nk_has_nsid)
			name_unreachable(r);
	}
	for (size_t i = 0; i < n; i++)
		nk_link_list_free(&nm[i].links);
	free(nm);
	return 0;
}

static int add_lease(struct nk_ctx *ctx, struct nk_ns *nic_ns, const struct nk_queue *q,
		     struct nk_lease_list *out)
{
	struct nk_lease_rec *r = nk_grow(&out->v, &out->n, &out->cap, sizeof(*r));
	struct nk_queue_holder h = { 0 };
	uint32_t type;

	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	nk_queue_holder(q, &h);
	r->nic_ifindex = q->ifindex;
	r->nic_queue = q->id;
	r->nk_ifindex = h.ifindex;
	nk_queue_lease_queue(q, &r->nk_queue, &type);
	r->mp = q->have & QUEUE_HAVE_MP;
	r->dmabuf = q->dmabuf;
	nk_lease_set_ns(r, nic_ns, h.has_nsid ? nk_ns_by_nsid(ctx, nic_ns, h.nsid) : nic_ns);
	r->nk_has_nsid = h.has_nsid;
	r->nk_nsid = h.nsid;
	return 0;
}

/* A namespace whose leases could not be read: its NICs' records say them. */
static int note_unread(struct nk_lease_list *out, struct nk_ns *ns)
{
	struct nk_ns **slot = nk_grow(&out->unread, &out->nunread, &out->capunread,
				      sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	*slot = ns;
	return 0;
}

static bool was_unread(const struct nk_lease_list *l, const struct nk_ns *ns)
{
	for (size_t i = 0; i < l->nunread; i++)
		if (l->unread[i] == ns)
			return true;
	return false;
}

static int scan_one(struct nk_ctx *ctx, struct nk_ns *nic_ns, struct nk_lease_list *out)
{
	const struct genl_family *fam;
	struct nk_queue_list qs;
	struct nl_sock *s = nk_ns_try_netdev(nic_ns, &fam);
	struct nl_err err;
	size_t first = out->n;
	int ret = 0;

	if (!s || !genl_has_op(fam, NK_NETDEV_CMD_QUEUE_CREATE))
		return 0; /* no leases on this kernel */
	if (netdev_queue_dump(s, fam, 0, &qs, &err))
		return note_unread(out, nic_ns);
	for (size_t i = 0; i < qs.n && !ret; i++)
		if (nk_queue_leased(&qs.v[i]))
			ret = add_lease(ctx, nic_ns, &qs.v[i], out);
	nk_queue_list_free(&qs);
	if (!ret && out->n > first)
		ret = name_leases(out, first);
	return ret;
}


/* The leases record l names on queues of NIC st (at ifindex of ns, not
 * seen: look says how it was), into out. */
static int add_recorded(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_nic_state *st,
			const struct nk_nic_lease *l, enum nk_look look, struct nk_lease_list *out)
{
	struct nk_ns *hns = NULL;

	if (nk_ns_find(ctx, l->ns_dev, l->ns_ino, &hns))
		hns = NULL;
	for (size_t k = 0; k < l->nleased; k++) {
		struct nk_lease_rec *r = nk_grow(&out->v, &out->n, &out->cap, sizeof(*r));

		if (!r)
			return -ENOMEM;
		memset(r, 0, sizeof(*r));
		r->nic_ifindex = st->ifindex;
		r->nic_queue = l->leased[k];
		snprintf(r->nic_ifname, sizeof(r->nic_ifname), "%s", st->ifname);
		r->nk_ifindex = l->ifindex;
		snprintf(r->nk_ifname, sizeof(r->nk_ifname), "%s", l->name);
		r->unseen = true;
		r->look = look;
		nk_lease_set_ns(r, ns, hns);
	}
	return 0;
}

/* One NIC record: its leases when its NIC is where it was last seen and the
 * scan could not see it: down (the dump leaves it out), or up in a
 * namespace whose dump failed. A NIC gone ends its leases with its holders;
 * one up in a namespace dumped was in the scan. The link the record is
 * checked against says it: no queue dump of its own. */
static int add_unseen_of(struct nk_ctx *ctx, const char *name, struct nk_lease_list *out)
{
	struct nk_nic_state *st = calloc(1, sizeof(*st));
	struct nk_ns *ns = NULL;
	struct nl_sock *rt;
	struct nk_link link;
	enum nk_look look;
	bool leases;
	int ret = 0;

	if (!st)
		return -ENOMEM;
	/* Its lists only when they are needed: every record is looked at. */
	if (nk_nic_state_read_head(name, st, &leases) || !st->exists || !leases ||
	    nk_ns_find(ctx, st->ns_dev, st->ns_ino, &ns) || !ns || !(rt = nk_ns_try_rtnl(ns)) ||
	    nk_link_lookup(rt, NULL, st->ifindex, &link, NULL, true) ||
	    !nk_nic_state_is_of(st, ns, &link))
		goto out;
	look = nk_look_of(&link, !was_unread(out, ns));
	if (look == NK_LOOK_SEEN || nk_nic_state_read(name, st))
		goto out;
	snprintf(st->ifname, sizeof(st->ifname), "%s", link.ifname);
	for (size_t i = 0; i < st->nleases && !ret; i++)
		ret = add_recorded(ctx, ns, st, &st->leases[i], look, out);
out:
	nk_nic_state_free(st);
	free(st);
	return ret;
}

static void scan_unseen(struct nk_ctx *ctx, struct nk_lease_list *out)
{
	DIR *d = opendir(NK_NIC_STATE_DIR);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && add_unseen_of(ctx, e->d_name, out))
			break;
	if (d)
		closedir(d);
}

int nk_lease_scan(struct nk_ctx *ctx, struct nk_lease_list *out)
{
	struct nk_ns *const *all;
	size_t n;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = nk_ns_reachable(ctx, &all, &n);
	if (ret)
		return -EIO;
	for (size_t i = 0; i < n && !ret; i++)
		ret = scan_one(ctx, all[i], out);
	/* a NIC down hides its leases from the dump: listed from nkctl's
	 * records, as not seen, never as none */
	if (!ret)
		scan_unseen(ctx, out);
	return ret;
}

void nk_lease_list_free(struct nk_lease_list *l)
{
	free(l->v);
	free(l->unread);
	memset(l, 0, sizeof(*l));
}

int nk_lease_pick_held(const struct nk_lease_list *all, const struct nk_ns *hns, int ifindex,
		       struct nk_lease_list *held)
{
	memset(held, 0, sizeof(*held));
	held->v = calloc(all->n ? all->n : 1, sizeof(*held->v));
	if (!held->v)
		return nk_error_errno(ENOMEM, "cannot scan the leases");
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].nk_ifindex == ifindex && all->v[i].nk_ns == hns)
			held->v[held->n++] = all->v[i];
	return 0;
}

int nk_lease_held_by(struct nk_ctx *ctx, struct nk_ns *hns, int ifindex,
		     struct nk_lease_list *all, struct nk_lease_list *held)
{
	int ret = nk_lease_scan(ctx, all);

	memset(held, 0, sizeof(*held));
	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	return nk_lease_pick_held(all, hns, ifindex, held);
}

const struct nk_lease_rec *nk_lease_of_netkit(const struct nk_lease_list *l, int ifindex,
					      uint32_t queue)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].unseen && l->v[i].nk_ns && l->v[i].nk_ns->here &&
		    l->v[i].nk_ifindex == ifindex && l->v[i].nk_queue == queue)
			return &l->v[i];
	return NULL;
}

const struct nk_lease_rec *nk_lease_any_of_netkit(const struct nk_lease_list *l, int ifindex)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].unseen && l->v[i].nk_ns && l->v[i].nk_ns->here &&
		    l->v[i].nk_ifindex == ifindex)
			return &l->v[i];
	return NULL;
}

const struct nk_lease_rec *nk_lease_of_nic(const struct nk_lease_list *l,
					   const struct nk_ns *ns, int ifindex, uint32_t queue)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].unseen && l->v[i].nic_ns == ns && l->v[i].nic_ifindex == ifindex &&
		    l->v[i].nic_queue == queue)
			return &l->v[i];
	return NULL;
}

bool nk_lease_name_now(struct nk_ns *ns, int ifindex, char *name)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link l;

	if (!rt || nk_link_lookup(rt, NULL, ifindex, &l, NULL, true))
		return false;
	snprintf(name, IF_NAMESIZE, "%s", l.ifname);
	return true;
}

const struct nk_lease_rec *nk_lease_unseen_held(const struct nk_lease_list *all,
						const struct nk_ns *hns, const struct nk_link *l)
{
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].unseen && nk_mine_lease(&all->v[i], hns, l, nk_lease_name_now))
			return &all->v[i];
	return NULL;
}

const struct nk_lease_rec *nk_lease_unseen_of_nic(const struct nk_lease_list *all,
						  const struct nk_ns *ns, int ifindex)
{
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].unseen && all->v[i].nic_ns == ns && all->v[i].nic_ifindex == ifindex)
			return &all->v[i];
	return NULL;
}

int nk_lease_refuse_unseen(struct nk_ctx *ctx, const struct nk_lease_list *all,
			   const struct nk_link *l, const char *matters, const char *again)
{
	const struct nk_lease_rec *r;
	struct nk_ns *here;
	char why[256];

	if (nk_ns_here(ctx, &here) || !(r = nk_lease_unseen_held(all, here, l)))
		return 0;
	snprintf(why, sizeof(why), "whether that lease lives, and %s", matters);
	return nk_lease_unseen_error(r, l->ifname, why, again, NULL);
}

int nk_lease_unseen_error(const struct nk_lease_rec *r, const char *holder, const char *matters,
			  const char *again, const char *or_else)
{
	return nk_error(NK_EXIT_EXISTS,
			"\"%s\" holds %s queue %u, which nkctl cannot see (the NIC is %s): %s; nothing was changed: %s once %s %s%s",
			holder, r->nic_ifname, r->nic_queue, nk_look_word(r->look), matters, again,
			r->nic_ifname, r->look == NK_LOOK_DOWN ? "is up" : "can be read",
			or_else ? or_else : "");
}

static void print_nic_side(struct out *o, const struct nk_lease_nic *n)
{
	out_bool(o, "reserved", NULL, n->reserved);
	if (n->reserved)
		out_text(o, " reserved");
	if (n->have_rss) {
		out_bool(o, "rss", NULL, n->rss);
		out_text(o, n->rss ? " (receives RSS traffic)" : " out-of-rss");
	}
	/* Whole rule objects in JSON; their ids on the lease's text line. */
	out_arr_open(o, "rules");
	for (size_t i = 0; i < n->nrules; i++) {
		if (o->json)
			nk_print_rule(o, &n->rules[i], true, false);
		else
			out_text(o, "%s%u", i ? "," : " rule ", n->rules[i].id);
	}
	out_arr_close(o);
}

static void where_of(struct nk_lease_where *w, const struct nk_ns *ns)
{
	memset(w, 0, sizeof(*w));
	if (!ns)
		return;
	w->reachable = true;
	w->here = ns->here;
	w->dev = ns->dev;
	w->ino = ns->ino;
	if (!ns->here)
		snprintf(w->spec, sizeof(w->spec), "%s", ns->spec);
}

void nk_lease_set_ns(struct nk_lease_rec *r, struct nk_ns *nic_ns, struct nk_ns *nk_ns)
{
	r->nic_ns = nic_ns;
	r->nk_ns = nk_ns;
	where_of(&r->nic_at, nic_ns);
	where_of(&r->nk_at, nk_ns);
}

void nk_print_lease(struct out *o, const struct nk_lease_rec *r, bool with_existed)
{
	out_obj_open(o, NULL);
	nk_print_lease_keys(o, r, with_existed);
	out_obj_close(o);
}

void nk_print_lease_keys(struct out *o, const struct nk_lease_rec *r, bool with_existed)
{
	out_uint(o, "ifindex", NULL, (unsigned int)r->nic_ifindex);
	out_str(o, "ifname", "%s", r->nic_ifname);
	if (!r->nic_at.here)
		out_str(o, "netns", " (netns %s)", r->nic_at.spec);
	out_uint(o, "id", " queue %llu", r->nic_queue);
	out_str(o, "type", NULL, "rx");
	out_obj_open(o, "lease");
	out_uint(o, "ifindex", NULL, (unsigned int)r->nk_ifindex);
	if (r->nk_ifname[0])
		out_str(o, "ifname", " -> %s", r->nk_ifname);
	else
		out_text(o, " -> ifindex %d", r->nk_ifindex);
	if (r->nk_at.reachable && !r->nk_at.here)
		out_str(o, "netns", " (netns %s)", r->nk_at.spec);
	else if (!r->nk_at.reachable)
		out_text(o, " (in a namespace nkctl cannot reach)");
	if (!r->unseen) {
		out_obj_open(o, "queue");
		out_uint(o, "id", " queue %llu", r->nk_queue);
		out_str(o, "type", NULL, "rx");
		out_obj_close(o);
	}
	out_obj_close(o);
	out_bool(o, "seen", NULL, !r->unseen);
	if (r->unseen) {
		out_str(o, "nic-state", " (not seen: its NIC is %s; as nkctl recorded it)",
			nk_look_word(r->look));
	}
	nk_print_mp(o, r->mp, r->dmabuf);
	if (r->xsk_map)
		out_str(o, "xsk-map", " xsk-map %s", r->xsk_map);
	if (r->nic)
		print_nic_side(o, r->nic);
	nk_print_qstats(o, r->stats.have ? &r->stats : NULL);
	if (with_existed) {
		out_bool(o, "existed", NULL, r->existed);
		out_text(o, r->existed ? " (existed)" : " (new)");
	}
	out_text(o, "\n");
}

static void stats_of_ns(struct nk_lease_list *l, size_t first)
{
	struct nk_ns *ns = l->v[first].nic_ns;
	const struct genl_family *fam;
	struct nl_sock *s = nk_ns_try_netdev(ns, &fam);
	struct nk_qstats_list q;
	struct nl_err err;

	if (!s || netdev_qstats_dump(s, fam, 0, &q, &err))
		return;
	for (size_t i = first; i < l->n; i++) {
		const struct nk_qstats *st;

		if (l->v[i].nic_ns != ns)
			continue;
		st = nk_qstats_find(&q, l->v[i].nic_ifindex, NK_NETDEV_QUEUE_TYPE_RX,
				    l->v[i].nic_queue);
		if (st)
			l->v[i].stats = *st;
	}
	nk_qstats_list_free(&q);
}

void nk_lease_stats(struct nk_lease_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = l->v[j].nic_ns == l->v[i].nic_ns;
		if (!seen)
			stats_of_ns(l, i);
	}
}

void nk_lease_rates(struct nk_lease_list *now, const struct nk_lease_list *before,
		    uint32_t seconds)
{
	for (size_t i = 0; i < now->n; i++) {
		struct nk_lease_rec *r = &now->v[i];
		const struct nk_lease_rec *b = NULL;

		for (size_t k = 0; k < before->n && !b; k++)
			if (before->v[k].nic_ns == r->nic_ns &&
			    before->v[k].nic_ifindex == r->nic_ifindex &&
			    before->v[k].nic_queue == r->nic_queue)
				b = &before->v[k];
		if (b)
			nk_qstats_rates(&r->stats, &b->stats, seconds);
		else
			r->stats.have = 0;
	}
}
