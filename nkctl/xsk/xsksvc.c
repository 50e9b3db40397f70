// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_XDP model under nkctl xsk (xsksvc.h): the NIC's pinned program and
 * maps, the holders' pinned XSK maps, the crash order of a queue's slot, and
 * the sweep that link del, unlease and redirect prune run.
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
#include "nicseen.h"
#include "xskfit.h"
#include "xsksvc.h"
#include "xsk.skel.h"

static const char *const xpin_name[XPIN_N] = { "link", "queues", "slots" };

/* ---- pins ---- */


void xsk_nic_close(struct xsk_nic *n)
{
	for (int i = 0; i < XPIN_N; i++)
		if (n->fd[i] >= 0)
			close(n->fd[i]);
	pin_dir_close(&n->d);
}

static void xpin_path(const struct xsk_nic *n, int which, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/%s", n->d.path, xpin_name[which]);
}

/* The NIC's directory of the namespace directory nsdir, locked, its pins
 * opened. -ENOENT quietly when there is none and create is false. */
int xsk_nic_open(const char *root, const char *nsdir, int ifindex, bool create,
			struct xsk_nic *n)
{
	char pin[PIN_LEN];
	int ret;

	memset(n, 0, sizeof(*n));
	n->d.lock_fd = -1;
	for (int i = 0; i < XPIN_N; i++)
		n->fd[i] = -1;
	snprintf(n->d.path, sizeof(n->d.path), "%s/xsk%d", nsdir, ifindex);
	ret = pin_dir_lock(&n->d, root, nsdir, create);
	if (ret)
		return ret;
	for (int i = 0; i < XPIN_N; i++) {
		xpin_path(n, i, pin);
		n->fd[i] = bpf_obj_get(pin);
	}
	return 0;
}

static void pruned_add(struct nk_xsk_pruned *p, const char *pin)
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

void xsk_nic_unpin(struct xsk_nic *n)
{
	char pin[PIN_LEN];

	for (int i = 0; i < XPIN_N; i++) {
		xpin_path(n, i, pin);
		unlink(pin);
	}
}

/* A link pinned whose device is gone (or a half-made set) is no program. */
bool xsk_nic_live(const struct xsk_nic *n)
{
	struct nk_bpf_link info;

	for (int i = 0; i < XPIN_N; i++)
		if (n->fd[i] < 0)
			return false;
	return !nk_bpf_link_info(n->fd[XPIN_LINK], &info) && info.ifindex;
}

static uint32_t map_size(int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

/* The skeleton opened, using the NIC's pinned maps when both are there and
 * hold its queues (a link gone, or its program taken off the device: the
 * queues the holders prepared stay prepared; *reused says so), else sized
 * for the NIC's nic_queues RX queues: no queue of the NIC is beyond them. */
static struct nk_xsk *skel_open(const struct xsk_nic *n, uint32_t nic_queues, bool *reused)
{
	struct nk_xsk *skel = nk_xsk__open();

	*reused = false;
	if (skel && n->fd[XPIN_QUEUES] >= 0 && n->fd[XPIN_SLOTS] >= 0 &&
	    map_size(n->fd[XPIN_SLOTS]) >= nic_queues) {
		if (!bpf_map__reuse_fd(skel->maps.nk_xsk_queues, n->fd[XPIN_QUEUES]) &&
		    !bpf_map__reuse_fd(skel->maps.nk_xsk_slots, n->fd[XPIN_SLOTS])) {
			*reused = true;
			return skel;
		}
		nk_xsk__destroy(skel);  /* maps of another shape: made anew */
		skel = nk_xsk__open();
	}
	if (skel && (bpf_map__set_max_entries(skel->maps.nk_xsk_queues, nic_queues) ||
		     bpf_map__set_max_entries(skel->maps.nk_xsk_slots, nic_queues))) {
		nk_xsk__destroy(skel);
		return NULL;
	}
	return skel;
}

static int maps_pin(struct xsk_nic *n, struct nk_xsk *skel)
{
	char pin[PIN_LEN];

	xpin_path(n, XPIN_QUEUES, pin);
	if (bpf_obj_pin(bpf_map__fd(skel->maps.nk_xsk_queues), pin))
		return nk_error_errno(errno, "cannot pin a map at %s", pin);
	xpin_path(n, XPIN_SLOTS, pin);
	if (bpf_obj_pin(bpf_map__fd(skel->maps.nk_xsk_slots), pin))
		return nk_error_errno(errno, "cannot pin a map at %s", pin);
	return 0;
}

static void fds_reopen(struct xsk_nic *n)
{
	char pin[PIN_LEN];

	for (int i = 0; i < XPIN_N; i++) {
		if (n->fd[i] >= 0)
			close(n->fd[i]);
		xpin_path(n, i, pin);
		n->fd[i] = bpf_obj_get(pin);
	}
}

/* BPF_LINK_CREATE, which finds the ifindex in the caller's namespace. */
struct link_create {
	int prog_fd, ifindex, fd;
	const struct bpf_link_create_opts *opts;
};

static int link_create(void *arg)
{
	struct link_create *c = arg;

	c->fd = bpf_link_create(c->prog_fd, c->ifindex, BPF_XDP, c->opts);
	return c->fd < 0 ? -errno : 0;
}

/* The XDP link of the NIC ifindex of namespace ns, made there. */
static int nic_link_create(struct nk_ns *ns, int prog_fd, int ifindex,
			   const struct bpf_link_create_opts *opts)
{
	struct link_create c = { prog_fd, ifindex, -1, opts };
	int ret = netns_run(ns->here ? -1 : ns->fd, link_create, &c);

	if (ret)
		errno = -ret;
	return ret ? -1 : c.fd;
}

/* Load the program (on the NIC's pinned maps when they are there, else on
 * new ones, pinned), attach it to the NIC through a link and pin that last:
 * a directory without its link is remade by the next one. */
int xsk_nic_make(struct xsk_nic *n, struct nk_ns *ns, int ifindex, const char *ifname,
		 bool native, uint32_t nic_queues)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = native ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE);
	struct nk_xsk *skel;
	char pin[PIN_LEN];
	bool reused;
	int ret = 0, link_fd;

	skel = skel_open(n, nic_queues ? nic_queues : NK_XSK_NIC_QUEUES, &reused);
	if (!skel || nk_xsk__load(skel)) {
		ret = nk_error_errno(errno, "cannot load the AF_XDP redirect program");
		nk_xsk__destroy(skel);
		return ret;
	}
	xpin_path(n, XPIN_LINK, pin);
	if (reused)
		unlink(pin);  /* a defunct link's */
	else
		xsk_nic_unpin(n);
	ret = reused ? 0 : maps_pin(n, skel);
	link_fd = ret ? -1 : nic_link_create(ns, bpf_program__fd(skel->progs.nk_xsk), ifindex, &opts);
	if (!ret && link_fd < 0)
		ret = nk_error_errno(errno, "cannot attach the XDP program to \"%s\"%s", ifname,
				     errno == EBUSY || errno == EEXIST ?
				     " (another XDP program is attached)" : "");
	if (!ret && bpf_obj_pin(link_fd, pin))
		ret = nk_error_errno(errno, "cannot pin the link at %s", pin);
	if (link_fd >= 0)
		close(link_fd);
	if (ret && !reused)
		xsk_nic_unpin(n);
	nk_xsk__destroy(skel);
	fds_reopen(n);
	return ret;
}

/* The netns cookie of ns, read from its pin directory's name. */
int ns_cookie_of(struct nk_ns *ns, const char *root, unsigned long long *cookie)
{
	char dir[NS_LEN];
	unsigned long ino;
	const char *base;
	int ret = rt_ns_dir(ns, root, dir);

	if (ret)
		return ret;
	base = strrchr(dir, '/');
	if (!base || !rt_ns_dir_name(base + 1, &ino, cookie))
		return nk_error(NK_EXIT_FAIL, "cannot read the network namespace's cookie");
	return 0;
}

void holder_dir(const char *root, unsigned long long cookie, uint32_t ifindex, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/" XSK_PUBLIC_DIR "/ns%llu-dev%u", root, cookie, ifindex);
}

void holder_pin(const char *root, unsigned long long cookie, uint32_t ifindex, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/" XSK_PUBLIC_DIR "/ns%llu-dev%u/" XSK_MAP_NAME, root, cookie,
		 ifindex);
}

/* ---- slots ---- */

/* Every slot of the slots map fd in one call (a loop of lookups would be a
 * syscall per queue); -EIO, and none, when it cannot be read. */
static int slots_read_fd(int fd, struct nk_xsk_slots *all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t out_batch, count = map_size(fd), *keys = calloc(count ? count : 1, sizeof(*keys));
	int ret = 0;

	all->v = calloc(count ? count : 1, sizeof(*all->v));
	all->n = count;
	if (!count || !all->v || !keys ||
	    (bpf_map_lookup_batch(fd, NULL, &out_batch, keys, all->v, &count, &opts) &&
	     errno != ENOENT)) {
		all->n = 0;
		ret = -EIO;
	}
	free(keys);
	return ret;
}

int slots_read(const struct xsk_nic *n, struct nk_xsk_slots *all)
{
	return slots_read_fd(n->fd[XPIN_SLOTS], all);
}

void slots_free(struct nk_xsk_slots *all)
{
	free(all->v);
	all->v = NULL;
	all->n = 0;
}

/* The queue goes first, its slot (the switch) last. */
int slot_set(const struct xsk_nic *n, uint32_t q, int map_fd, const struct nk_xsk_slot *s)
{
	if (bpf_map_update_elem(n->fd[XPIN_QUEUES], &q, &map_fd, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(n->fd[XPIN_SLOTS], &q, s, BPF_ANY))
		return -errno;
	return 0;
}

/* The slot (the switch) first, then the queue. */
static void slot_clear(const struct xsk_nic *n, uint32_t q)
{
	struct nk_xsk_slot none = { 0 };

	bpf_map_update_elem(n->fd[XPIN_SLOTS], &q, &none, BPF_ANY);
	bpf_map_delete_elem(n->fd[XPIN_QUEUES], &q);
}

static bool any_used(const struct nk_xsk_slots *all)
{
	for (uint32_t q = 0; q < all->n; q++)
		if (all->v[q].holder)
			return true;
	return false;
}

bool nic_used(const struct xsk_nic *n)
{
	struct nk_xsk_slots all;
	bool used;

	used = slots_read(n, &all) || any_used(&all);  /* unknown: keep */
	slots_free(&all);
	return used;
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
		pruned_add(pruned, pin);
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
 * NIC queue q goes to ended? */
static bool slot_ended(const struct remove_what *w, uint32_t q, const struct nk_xsk_slot *s)
{
	if (w->prune && w->seen->look == NK_LOOK_GONE)
		return true;
	return xsk_slot_fate(w->seen, q, s, &w->cookies) == NK_FATE_ENDED;
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
	if (!w->repoint && !any_used(&all)) {
		char pin[PIN_LEN];

		xpin_path(&n, XPIN_LINK, pin);
		if (n.fd[XPIN_LINK] >= 0)
			pruned_add(w->pruned, pin);
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

	snprintf(pin, sizeof(pin), "%.200s/%s", nicdir, xpin_name[XPIN_SLOTS]);
	fd = bpf_obj_get(pin);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ret = slots_read_fd(fd, &all);
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
			pruned_add(pruned, pin);
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


/* ---- readers (show leases, doctor) ---- */

/* The pin name of the NIC ifindex's XSK directory in nsdir, opened: -1
 * when nkctl prepared nothing there. */
static int open_pin_in(const char *nsdir, int ifindex, const char *name)
{
	char path[PIN_LEN];

	snprintf(path, sizeof(path), "%s/xsk%d/%s", nsdir, ifindex, name);
	return bpf_obj_get(path);
}

/* The same in ns (root set). */
static int open_nic_pin(struct nk_ns *ns, int ifindex, const char *name, char *root)
{
	char nsdir[NS_LEN];

	if (nk_bpffs_root(false, root, ROOT_LEN) || rt_ns_dir(ns, root, nsdir))
		return -1;
	return open_pin_in(nsdir, ifindex, name);
}

bool nk_xsk_pin_read(struct nk_xsk_reader *rd, struct nk_ns *ns, int ifindex, uint32_t q,
		     char *pin)
{
	struct nk_xsk_slot s = { 0 };
	int fd;

	if (!rd->looked) {
		rd->root_ret = nk_bpffs_root(false, rd->root, sizeof(rd->root));
		rd->looked = true;
	}
	if (rd->root_ret)
		return false;
	if (rd->ns != ns) {
		rd->nsdir_ret = rt_ns_dir(ns, rd->root, rd->nsdir);
		rd->ns = ns;
	}
	if (rd->nsdir_ret)
		return false;
	fd = open_pin_in(rd->nsdir, ifindex, "slots");
	if (fd < 0)
		return false;
	if (bpf_map_lookup_elem(fd, &q, &s))
		s.holder = 0;
	close(fd);
	if (s.holder)
		holder_pin(rd->root, s.holder_netns, s.holder, pin);
	return s.holder != 0;
}

bool nk_xsk_pin_of(struct nk_ns *ns, int ifindex, uint32_t q, char *pin)
{
	struct nk_xsk_reader rd = { 0 };

	return nk_xsk_pin_read(&rd, ns, ifindex, q, pin);
}

bool nk_xsk_nic_prog(struct nk_ns *ns, int ifindex, uint32_t *prog_id)
{
	char root[ROOT_LEN];
	struct nk_bpf_link info;
	int fd = open_nic_pin(ns, ifindex, "link", root);

	*prog_id = 0;
	if (fd < 0)
		return false;
	if (!nk_bpf_link_info(fd, &info) && info.ifindex)
		*prog_id = info.prog_id;
	close(fd);
	return true;
}

bool nk_xsk_pin_shared(const char *pin, const struct stat *st)
{
	struct xsk_grant g = { { st->st_uid, st->st_gid, st->st_mode & 0777 }, 0 };
	const char *at = strstr(pin, "/" XSK_PUBLIC_DIR "/");
	char root[PIN_LEN], other[PIN_LEN], name[XSK_NAME_LEN], why[PIN_LEN];
	unsigned long long cookie;
	uint32_t holder;
	bool shared;
	int pub;

	if (!at)
		return false;
	/* the holder directory's name: what stands between nkctl-xsk/ and /map */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(at + sizeof(XSK_PUBLIC_DIR) + 1, "/"),
		 at + sizeof(XSK_PUBLIC_DIR) + 1);
	if (!xsk_holder_name_parse(name, &cookie, &holder))
		return false;
	snprintf(root, sizeof(root), "%.*s", (int)(at - pin), pin);
	if (xsk_pub_open(root, false, &pub, why, sizeof(why)))
		return false;
	/* What root granted, where it recorded it: not the pin's own say. */
	holder_granted(pub, name, &g);
	shared = xsk_owner_taken(root, pub, holder, cookie, &g.acc, false, other) > 0;
	close(pub);
	return shared;
}

void nk_xsk_each_nic(struct nk_ns *ns, nk_xsk_nic_fn fn, void *arg)
{
	char root[ROOT_LEN], nsdir[NS_LEN];
	struct dirent *e;
	DIR *dd = NULL;

	if (!nk_bpffs_root(false, root, sizeof(root)) && !rt_ns_dir(ns, root, nsdir))
		dd = opendir(nsdir);
	while (dd && (e = readdir(dd))) {
		struct nk_xsk_slots all;
		int ifindex, end = 0, fd;

		if (sscanf(e->d_name, "xsk%d%n", &ifindex, &end) != 1 || e->d_name[end])
			continue;
		fd = open_nic_pin(ns, ifindex, xpin_name[XPIN_SLOTS], root);
		if (fd < 0)
			continue;
		if (!slots_read_fd(fd, &all))
			fn(arg, root, ifindex, &all);
		slots_free(&all);
		close(fd);
	}
	if (dd)
		closedir(dd);
}
