// SPDX-License-Identifier: GPL-2.0
/*
 * Detach and the sweep (xsksweep.h): the queues of a holder, or every slot
 * the fate judgement says ended, cleared in crash order on every NIC nkctl
 * reaches; the holders' maps no slot names any more, unpinned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "netdev.h"
#include "netns.h"
#include "lease/look.h"
#include "xsk/xskfit.h"
#include "xsk/xsksweep.h"

void nk_xsk_pruned_add(struct nk_xsk_pruned *p, const char *pin)
{
	char (*v)[PIN_LEN];

	if (!p || !(v = realloc(p->pin, (p->n + 1) * sizeof(*v))))
		return;
	p->pin = v;
	snprintf(p->pin[p->n++], PIN_LEN, "%s", pin);
}

void nk_xsk_pruned_free(struct nk_xsk_pruned *p)
{
	free(p->pin);
	p->pin = NULL;
	p->n = 0;
}

/* The slot (the switch) first, then the queue. */
static void slot_clear(const struct xsk_nic *n, uint32_t q)
{
	struct nk_xsk_slot none = { 0 };

	bpf_map_update_elem(n->fd[XPIN_SLOTS], &q, &none, BPF_ANY);
	bpf_map_delete_elem(n->fd[XPIN_QUEUES], &q);
}

static bool named_anywhere(const char *root, uint32_t holder, uint64_t cookie);

void holder_unpin_unnamed(const char *root, uint32_t holder, uint64_t cookie,
			  struct nk_xsk_pruned *pruned)
{
	char pin[PIN_LEN], name[XSK_NAME_LEN], why[PIN_LEN];
	int pub;

	if (named_anywhere(root, holder, cookie) || xsk_pub_open(root, false, &pub, why, sizeof(why)))
		return;
	xsk_holder_name(cookie, holder, name);
	holder_pin(root, cookie, holder, pin);
	if (holder_unpin(pub, name))
		nk_xsk_pruned_add(pruned, pin);
	close(pub);
}

/* Clear queue q (all: the NIC's slots as read, updated here). Its
 * holder's map, when no slot names it any more, is left to the orphan pass
 * that follows under the public lock (xsk_orphans_remove): unpinned here,
 * outside it, it could go between an attach's reuse of it and that
 * attach's slot naming it. */
static void slot_remove(struct xsk_nic *n, uint32_t q, struct nk_xsk_slots *all)
{
	slot_clear(n, q);
	memset(&all->v[q], 0, sizeof(all->v[q]));
}

/* ---- detach, sweep ---- */

/* The slot's holder: its ifindex with its namespace, named by the cookie
 * the slot records (not known: a namespace nkctl does not reach). */
static struct nk_holder_id slot_holder(const struct xsk_ns_cookies *c, const struct nk_xsk_slot *s)
{
	struct nk_holder_id h = { .ifindex = (int)s->holder };

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].cookie == s->holder_netns)
			h.ns = c->v[i].id;
	return h;
}

enum nk_fate xsk_slot_fate(const struct nk_nic_seen *seen, uint32_t q, const struct nk_xsk_slot *s,
			   const struct xsk_ns_cookies *c)
{
	struct nk_holder_id h = slot_holder(c, s);

	return nk_fate_of_slot(seen, q, &h);
}

/* The sweep's question, asked of the one judgement: has what slot s of
 * NIC queue q goes to ended? For prune, a slot is a lease seen before
 * (a NIC gone took it, and the program, with it). */
static bool slot_ended(const struct remove_what *w, uint32_t q, const struct nk_xsk_slot *s)
{
	struct nk_holder_id h = slot_holder(&w->cookies, s);

	return (w->prune ? nk_fate_of_lease_was(w->seen, q, &h) :
			   nk_fate_of_slot(w->seen, q, &h)) == NK_FATE_ENDED;
}

/* Detach what w says on NIC ifindex (of namespace directory nsdir); how
 * many queues went. A NIC whose program serves no queue any more (the last
 * one went, or an attach was killed before its first slot) loses it; one
 * whose link is dead (its program detached by another tool) but whose
 * slots still name holders keeps its maps: their holders' pins stay named,
 * and the next attach puts the program back on them. */
static size_t remove_from(const char *root, const char *nsdir, int ifindex,
			  struct remove_what *w)
{
	struct nk_xsk_slots all = { 0 };
	struct xsk_nic n;
	size_t gone = 0;

	if (xsk_nic_open(root, nsdir, ifindex, false, &n)) {
		w->repoint_failed += w->repoint;
		return 0;
	}
	/* Slots there but unreadable: nothing is known, nothing goes. */
	if (n.fd[XPIN_SLOTS] >= 0 && slots_read(&n, &all)) {
		w->repoint_failed += w->repoint;
		slots_free(&all);
		xsk_nic_close(&n);
		return 0;
	}
	for (uint32_t q = 0; q < all.n; q++) {
		const struct nk_xsk_slot *s = &all.v[q];

		if (!s->holder)
			continue;
		if (w->sweep ? !slot_ended(w, q, s) :
		    (s->holder != w->holder || s->holder_netns != w->cookie ||
		     (!w->all_queues && s->slot != w->queue)))
			continue;
		if (w->repoint && bpf_map_update_elem(n.fd[XPIN_QUEUES], &q, &w->map_fd, BPF_ANY))
			w->repoint_failed++;
		else if (w->repoint)
			gone++;
		else
			slot_remove(&n, q, &all), gone++;
	}
	if (!w->repoint && !xsk_slots_used(&all)) {
		char pin[PIN_LEN];

		xsk_pin_path(&n, XPIN_LINK, pin);
		if (n.fd[XPIN_LINK] >= 0)
			nk_xsk_pruned_add(w->pruned, pin);
		xsk_nic_unpin(&n);
	}
	xsk_nic_close(&n);
	slots_free(&all);
	return gone;
}

/* remove_from on every NIC directory of namespace ns. */
static size_t for_each_nic(struct nk_ns *ns, const char *root, struct remove_what *w)
{
	char nsdir[NS_LEN];
	struct dirent *e;
	size_t gone = 0;
	DIR *dd;

	if (rt_ns_dir(ns, root, nsdir))
		return 0;
	dd = opendir(nsdir);
	while (dd && (e = readdir(dd))) {
		int ifindex, end = 0;
		struct nk_nic_seen seen = { 0 };

		if (sscanf(e->d_name, "xsk%d%n", &ifindex, &end) != 1 || e->d_name[end])
			continue;
		if (w->sweep) {
			nk_nic_seen_read(w->ctx, ns, ifindex, &seen);
			w->seen = &seen;
		}
		gone += remove_from(root, nsdir, ifindex, w);
		nk_nic_seen_free(&seen);
		w->seen = NULL;
	}
	if (dd)
		closedir(dd);
	return gone;
}

int xsk_ns_cookies_read(struct nk_ctx *ctx, const char *root, struct xsk_ns_cookies *c)
{
	struct nk_ns *const *list;
	size_t n;

	memset(c, 0, sizeof(*c));
	if (nk_ns_reachable(ctx, &list, &n) || !(c->v = calloc(n ? n : 1, sizeof(*c->v))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned long long cookie;

		if (ns_cookie_of(list[i], root, &cookie))
			continue;
		c->v[c->n].cookie = cookie;
		c->v[c->n++].id = nk_ns_id_of(list[i]);
	}
	return 0;
}

void xsk_ns_cookies_free(struct xsk_ns_cookies *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

size_t remove_everywhere(struct nk_ctx *ctx, const char *root, struct remove_what *w)
{
	struct nk_ns *const *list;
	size_t n, gone = 0;

	if (nk_ns_reachable(ctx, &list, &n)) {
		w->repoint_failed += w->repoint;
		return 0;
	}
	/* the sweep names each slot's holder by its namespace's cookie */
	if (w->sweep && xsk_ns_cookies_read(ctx, root, &w->cookies))
		return 0;
	w->ctx = ctx;
	for (size_t i = 0; i < n; i++)
		gone += for_each_nic(list[i], root, w);
	xsk_ns_cookies_free(&w->cookies);
	return gone;
}

/* The holders every NIC directory's slots name, in any namespace's
 * directory (a namespace out of reach keeps its holders' pins). */
struct holder_refs {
	struct nk_xsk_slot *v;
	size_t n;
};

static int refs_of_nic(const char *nicdir, struct holder_refs *r)
{
	struct nk_xsk_slots all;
	char pin[PIN_LEN];
	struct nk_xsk_slot *v;
	int fd, ret;

	snprintf(pin, sizeof(pin), "%.200s/%s", nicdir, xsk_pin_name(XPIN_SLOTS));
	fd = bpf_obj_get(pin);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ret = xsk_slots_read_fd(fd, &all);
	close(fd);
	for (uint32_t q = 0; q < all.n && !ret; q++) {
		if (!all.v[q].holder)
			continue;
		v = realloc(r->v, (r->n + 1) * sizeof(*v));
		if (!v)
			ret = -ENOMEM;
		else
			r->v = v, r->v[r->n++] = all.v[q];
	}
	slots_free(&all);
	return ret;
}

/* Every NIC directory's holders; an error when one cannot be read (then
 * no pin is an orphan for sure). */
static int refs_collect(const char *root, struct holder_refs *r)
{
	char top[ROOT_LEN + 8], ns[NS_LEN], nic[DIR_LEN];
	struct dirent *e, *f;
	DIR *dd, *nd;
	int ret = 0;

	snprintf(top, sizeof(top), "%s/nkctl", root);
	dd = opendir(top);
	while (dd && !ret && (e = readdir(dd))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(ns, sizeof(ns), "%s/%.40s", top, e->d_name);
		nd = opendir(ns);
		while (nd && !ret && (f = readdir(nd))) {
			if (strncmp(f->d_name, "xsk", 3))
				continue;
			snprintf(nic, sizeof(nic), "%s/%.24s", ns, f->d_name);
			ret = refs_of_nic(nic, r);
		}
		if (nd)
			closedir(nd);
	}
	if (dd)
		closedir(dd);
	return ret;
}

static bool refs_name(const struct holder_refs *r, uint32_t holder, uint64_t cookie)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].holder == holder && r->v[i].holder_netns == cookie)
			return true;
	return false;
}

/* Does a slot of any NIC directory name the holder? Yes when one cannot be
 * read: its pin is kept. */
static bool named_anywhere(const char *root, uint32_t holder, uint64_t cookie)
{
	struct holder_refs refs = { 0 };
	bool named = refs_collect(root, &refs) || refs_name(&refs, holder, cookie);

	free(refs.v);
	return named;
}

int xsk_owner_taken(const char *root, int pub, uint32_t holder, uint64_t cookie,
		    const struct xsk_access *acc, bool share, char *other)
{
	struct holder_refs refs = { 0 };
	struct xsk_members wm, om;
	struct xsk_grant o;
	char name[XSK_NAME_LEN];
	int ret = refs_collect(root, &refs);

	xsk_members_of(acc, &wm);
	for (size_t i = 0; !ret && i < refs.n; i++) {
		const struct nk_xsk_slot *s = &refs.v[i];

		if (s->holder == holder && s->holder_netns == cookie)
			continue;
		xsk_holder_name(s->holder_netns, s->holder, name);
		if (holder_granted(pub, name, &o))
			continue;
		xsk_members_of(&o.acc, &om);
		if ((ret = xsk_access_clash(acc, &wm, &o.acc, &om, share)))
			holder_dir(root, s->holder_netns, s->holder, other);
	}
	free(refs.v);
	return ret;
}

/* The holders' directories no NIC directory's slot names, removed. */
static void orphans_remove(int pub, const char *root, struct nk_xsk_pruned *pruned)
{
	struct holder_refs refs = { 0 };
	char pin[PIN_LEN];
	struct dirent *e;
	int fd = refs_collect(root, &refs) ? -1 : dup(pub);
	DIR *dd = fd < 0 ? NULL : fdopendir(fd);

	if (!dd && fd >= 0)
		close(fd);
	if (dd)
		rewinddir(dd);  /* the dup shares pub's offset: from the start */
	while (dd && (e = readdir(dd))) {
		unsigned long long cookie;
		uint32_t holder;

		if (!xsk_holder_name_parse(e->d_name, &cookie, &holder) ||
		    refs_name(&refs, holder, cookie))
			continue;
		holder_pin(root, cookie, holder, pin);
		if (holder_unpin(pub, e->d_name))
			nk_xsk_pruned_add(pruned, pin);
	}
	if (dd)
		closedir(dd);
	free(refs.v);
}

/* The orphan pass with pub open (lock: take the xsk lock first). */
static void orphans_pass(int pub, const char *root, enum xsk_lock how, struct nk_xsk_pruned *pruned)
{
	int lock = -1;

	if (how != XSK_LOCK_WAIT || !xsk_public_lock(true, &lock))
		orphans_remove(pub, root, pruned);
	if (lock >= 0)
		close(lock);
}

/* <root>/nkctl-xsk opened for a pass: -ENOENT quietly (nkctl never
 * prepared a queue for AF_XDP here), a refusal said as a warning. */
static int pub_for_pass(const char *root, int *pub)
{
	char why[PIN_LEN];
	int ret = xsk_pub_open(root, false, pub, why, sizeof(why));

	if (ret && ret != -ENOENT)
		nk_warn("AF_XDP holders' maps are not swept: %s", why);
	return ret;
}

void xsk_orphans_remove(const char *root, enum xsk_lock how, struct nk_xsk_pruned *pruned)
{
	int pub;

	if (pub_for_pass(root, &pub))
		return;
	orphans_pass(pub, root, how, pruned);
	close(pub);
}

static void sweep(struct nk_ctx *ctx, bool prune, enum xsk_lock how, struct nk_xsk_pruned *pruned)
{
	struct remove_what w = { .sweep = true, .prune = prune, .pruned = pruned };
	char root[ROOT_LEN];
	int pub;

	if (nk_bpffs_root(false, root, sizeof(root)) || pub_for_pass(root, &pub))
		return;
	remove_everywhere(ctx, root, &w);
	orphans_pass(pub, root, how, pruned);
	close(pub);
}

void nk_xsk_sweep(struct nk_ctx *ctx, bool prune, struct nk_xsk_pruned *pruned)
{
	sweep(ctx, prune, XSK_LOCK_WAIT, pruned);
}

void xsk_sweep_locked(struct nk_ctx *ctx)
{
	sweep(ctx, false, XSK_LOCK_HELD, NULL);
}
