// SPDX-License-Identifier: GPL-2.0
/*
 * Leases ended (end.h): the kernel has no unlease operation; a lease ends
 * when the netkit device holding it is deleted, so unlease deletes the
 * holder (freely when it is a single-mode device), found by its name or by
 * the NIC's queues it holds, after every holder is checked (a pair only with
 * force, a lease whose NIC cannot be seen never on a guess, memory
 * providers waited for); then the NIC side the leases brought is swept.
 * cli/unlease.c keeps the parameters and the printing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "core/linkdel.h"
#include "core/lookup.h"
#include "lease/end.h"
#include "lease/holder.h"
#include "lease/look.h"
#include "lease/sweep.h"
#include "lease/wait.h"
#include "netkit.h"
#include "netns.h"
#include "rtnl.h"

/* Nothing to end: 3, or with -force 0 after the sweep of what ended leases
 * left (swept: done already), what said in u. */
static int nothing(struct nk_ctx *ctx, struct nk_unlease *u, const char *what, bool swept)
{
	int ret;

	if (!ctx->force)
		return nk_error(NK_EXIT_NOTFOUND, "%s", what);
	if (!swept && (ret = nk_nic_unlease_stale(ctx)))
		return ret;
	u->nothing = true;
	snprintf(u->what, sizeof(u->what), "%s", what);
	return 0;
}

/* Deleting one side of a pair takes the pod's link: only with force. */
static int check_pair(const struct nk_link *l, bool force)
{
	bool single = (l->netkit.have & NKA_PAIRING) &&
		      l->netkit.pairing == NK_NETKIT_DEVICE_SINGLE;

	if (!single && !force)
		return nk_error(NK_EXIT_EXISTS,
				"\"%s\" is one side of a netkit pair: ending its leases deletes the pair, the pod's link with it; hold leases in a single device, or add force",
				l->ifname);
	return 0;
}

/* Deleting the holder must not pull the rug from under a memory provider
 * still there after the wait, unless force says so. */
static int check_providers(const struct nk_link *l, const struct nk_lease_list *ended, bool force,
			   uint32_t wait)
{
	char mp[64];

	for (size_t i = 0; i < ended->n && !force; i++) {
		struct nk_queue q = { .have = ended->v[i].mp, .dmabuf = ended->v[i].dmabuf };

		if (lease_mp_name(&q, mp, sizeof(mp)))
			return nk_error(NK_EXIT_EXISTS,
					"\"%s\" queue %u (%s queue %u) is still in use by %s after %u s; deleting the device can block until it lets go: stop its user and unlease again (wait SECONDS waits longer), or add force",
					l->ifname, ended->v[i].nk_queue, ended->v[i].nic_ifname,
					ended->v[i].nic_queue, mp, wait);
	}
	return 0;
}

/* A lease of the holder that nkctl's NIC record names but the kernel could
 * not show (its NIC down or unreadable) is not a lease that ended: whether
 * a memory provider still holds its queue cannot be read, so the holder is
 * not deleted on a guess, unless force says so. */
static int check_unseen(const struct nk_lease_list *all, const struct nk_ns *hns,
			const struct nk_link *l, bool force)
{
	const struct nk_lease_rec *r = force ? NULL : nk_lease_unseen_held(all, hns, l);

	return r ? nk_lease_unseen_error(r, l->ifname,
					 "whether a memory provider still uses it cannot be read",
					 "unlease again", ", or add force") : 0;
}

/* The holder by name or ifindex; -ENODEV (what says which) when it is gone. */
static int find_holder(struct nl_sock *rt, const char *name, int ifindex, struct nk_link *l,
		       char *what, size_t len)
{
	int ret = nk_link_lookup(rt, name, ifindex, l, NULL, true);

	if (ret == -ENODEV && name)
		snprintf(what, len, "device \"%s\" does not exist", name);
	else if (ret == -ENODEV)
		snprintf(what, len, "the lease holder (ifindex %d) is gone", ifindex);
	if (ret)
		return ret;
	if (!nk_link_is_netkit(l))
		return nk_error(NK_EXIT_UNSUPPORTED, "\"%s\" is not a netkit device: it holds no leases",
				l->ifname);
	return 0;
}

/* t's holder to delete into d: its peer and redirects noted first for
 * the result. */
static int prepare_one(struct nk_ctx *ctx, struct holder_end *t, struct nk_link_del *d)
{
	struct nl_sock *rt;
	int ret = nk_ns_rtnl(t->ns, &rt);

	if (ret)
		return ret;
	d->ns = t->ns;
	d->ifindex = t->l.ifindex;
	t->has_peer = nk_peer_of(rt, &t->l, &t->peer);
	t->ngone = nk_gone_of(ctx, t->ns, &t->l, t->has_peer ? &t->peer : NULL, &t->there, t->gone);
	return 0;
}

/* Delete the holders t[0..n), several at once (each in its namespace, so
 * one after another they would wait for a hundred grace periods in turn);
 * those deleted moved to t[0..*done), in order. 0, or the first failure's
 * code, printed (the others are tried all the same: they were checked). */
static int delete_all(struct nk_ctx *ctx, struct holder_end *t, size_t n, size_t *done)
{
	struct nk_link_del *d = calloc(n ? n : 1, sizeof(*d));
	size_t ready = 0;
	int ret = d ? 0 : nk_error_errno(ENOMEM, "unlease");

	*done = 0;
	while (!ret && ready < n && !(ret = prepare_one(ctx, &t[ready], &d[ready])))
		ready++;
	nk_links_del(ctx, d, ready);
	for (size_t i = 0; i < ready; i++) {
		struct holder_end kept;

		if (d[i].ret && !ret) {
			ret = nk_error_nl(&d[i].err, "cannot delete \"%s\"", t[i].l.ifname);
		} else if (!d[i].ret) {
			kept = t[*done];
			t[*done] = t[i];
			t[i] = kept;
			++*done;
		}
	}
	free(d);
	return ret;
}

/* Each holder's leases out of all (one scan for every holder), checked:
 * a pair only with force, memory providers waited for. */
static int check_holders(struct nk_ctx *ctx, struct holder_end *t, size_t n,
			 const struct lease_args *a, uint32_t wait)
{
	uint64_t end = nk_lease_deadline(wait); /* one bound for all holders */
	struct nk_lease_list all;
	int ret = nk_lease_scan(ctx, &all);

	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	for (size_t i = 0; i < n && !ret; i++) {
		ret = check_unseen(&all, t[i].ns, &t[i].l, a->force);
		if (!ret)
			ret = nk_lease_pick_held(&all, t[i].ns, t[i].l.ifindex, &t[i].ended);
		if (!ret && !t[i].ended.n && n > 1)
			ret = nk_error(NK_EXIT_NOTFOUND, "\"%s\" holds no leases", t[i].l.ifname);
		if (!ret && t[i].ended.n)
			ret = check_pair(&t[i].l, a->force);
		if (!ret && !a->force)
			ret = nk_lease_wait_providers(ctx, t[i].ns, &t[i].l, end, &all, &t[i].ended);
		if (!ret)
			ret = check_providers(&t[i].l, &t[i].ended, a->force, wait);
	}
	nk_lease_list_free(&all);
	return ret;
}

/* The sweep after deleting t[0..n): their leases' NICs waited for (another
 * command's sweep may hold one a moment), every other NIC only tried. */
static int sweep_own(struct nk_ctx *ctx, const struct holder_end *t, size_t n)
{
	struct nk_nic_at *own;
	size_t nown = 0, cap = 0;
	int ret;

	for (size_t i = 0; i < n; i++)
		cap += t[i].ended.n;
	own = calloc(cap ? cap : 1, sizeof(*own));
	for (size_t i = 0; i < n && own; i++)
		for (size_t k = 0; k < t[i].ended.n; k++) {
			const struct nk_lease_rec *r = &t[i].ended.v[k];

			own[nown++] = (struct nk_nic_at){ .dev = r->nic_at.dev, .ino = r->nic_at.ino,
							  .ifindex = r->nic_ifindex };
		}
	ret = nk_nic_unlease_stale_own(ctx, own, nown);
	free(own);
	return ret;
}

/*
 * End every lease of the holders t[0..n) by deleting them: every holder is
 * checked (a pair only with force, memory providers waited for, up to
 * wait seconds, without force) before any is deleted; then one sweep of the
 * NIC side for all, and one result.
 */
static int unlease_holders(struct nk_ctx *ctx, struct holder_end *t, size_t n,
			   const struct lease_args *a, struct nk_unlease *u)
{
	char what[128];
	size_t done = 0;
	int ret = check_holders(ctx, t, n, a, u->wait), sweep;

	if (!ret && n == 1 && !t[0].ended.n) {
		snprintf(what, sizeof(what), "\"%s\" holds no leases", t[0].l.ifname);
		return nothing(ctx, u, what, false);
	}
	if (!ret)
		ret = delete_all(ctx, t, n, &done);
	u->done = done;
	if (!done)
		return ret;
	/* The NIC side the leases brought goes with them, once they have
	 * ended: their rules, and the queues they reserved. What fails there
	 * is a Warning (the holders are gone: this command's work is done);
	 * the next nkctl command on the NIC finishes it. */
	sweep = sweep_own(ctx, t, done);
	return ret ? ret : sweep;
}

/* Is name one of the comma-separated list? */
static bool name_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* unlease from ... holders LIST: each queue's holder must be one the
 * caller expects (a runtime's GC names its stale pods' holders): a queue
 * freed and leased again meanwhile, to another pod's, is refused whole. */
static int check_expected(const struct lease_args *a, const struct holder_end *t)
{
	if (!a->holders || name_listed(a->holders, t->l.ifname))
		return 0;
	return nk_error(NK_EXIT_EXISTS,
			"%s queue %u is leased to \"%s\", not one of the holders named (%s): leased again since; nothing was changed",
			a->from, t->first->id, t->l.ifname, a->holders);
}

/* The holder's namespace: netns NETNS, else the command's own. *gone when
 * NETNS names nothing now (its namespace deleted, or unnamed). */
static int holder_ns(struct nk_ctx *ctx, const struct lease_args *a, struct nk_ns **ns, bool *gone)
{
	int fd, ret;

	*gone = false;
	if (!a->dev_netns)
		return nk_ns_here(ctx, ns);
	ret = netns_open(a->dev_netns, &fd);
	if (ret == -ENOENT) {
		*gone = true;
		return 0;
	}
	if (!ret)
		close(fd);
	return nk_ns_get(ctx, a->dev_netns, ns);   /* says what is wrong with it */
}

/* A lease held by a device named dev that nkctl reaches by no name (its
 * namespace lives on, unnamed): *live. One nkctl recorded on a NIC it cannot
 * see is refused (unless force): whether it ended cannot be read. */
static int held_unnamed(struct nk_ctx *ctx, const struct lease_args *a, bool *live)
{
	struct nk_lease_list all;
	int ret = nk_lease_scan(ctx, &all);

	*live = false;
	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	for (size_t i = 0; i < all.n && !ret && !*live; i++) {
		const struct nk_lease_rec *r = &all.v[i];

		if (strcmp(r->nk_ifname, a->dev))
			continue;
		if (r->unseen && !a->force)
			ret = nk_lease_unseen_error(r, a->dev, "whether it ended cannot be read",
						    "unlease again", ", or add force");
		*live = !r->unseen && !r->nk_ns;
	}
	nk_lease_list_free(&all);
	return ret;
}

/* unlease dev NKDEV netns NETNS where NETNS names nothing now: the holder
 * went with its namespace, or that lives on unnamed (a process keeps it).
 * Not "ended" on a guess: wait (as for a holder gone from its namespace)
 * while nkctl's record of a live lease names the holder anywhere, or the
 * kernel shows a lease of a device of that name in a namespace nkctl
 * reaches by no name; one still there after the wait, or one whose NIC
 * cannot be seen, is refused. */
static int unlease_ns_gone(struct nk_ctx *ctx, const struct lease_args *a, struct nk_unlease *u)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	bool still = false, live = false;
	char what[128];
	int ret, i = 0;

	do {
		ret = nk_nic_unlease_gone_anywhere(ctx, a->dev, &still);
		if (!ret && !still)
			ret = held_unnamed(ctx, a, &live);
		if (ret || still || !live || ++i >= NK_NIC_GONE_WAIT_TICKS)
			break;
		nanosleep(&tick, NULL);
	} while (true);
	if (ret)
		return ret;
	if (still || live)
		return nk_error(NK_EXIT_EXISTS,
				"\"%s\" still holds leases though \"%s\" names no namespace now: its namespace lives on, unnamed (a process keeps it); nothing was changed: end what keeps it, or unlease from the NIC's queues",
				a->dev, a->dev_netns);
	snprintf(what, sizeof(what), "\"%.60s\" names no namespace now: \"%s\" went with it",
		 a->dev_netns, a->dev);
	return nothing(ctx, u, what, true);
}

/* unlease dev NKDEV: that holder, of the command's namespace or of netns. */
static int unlease_dev(struct nk_ctx *ctx, const struct lease_args *a, struct nk_unlease *u)
{
	struct holder_end *t = calloc(1, sizeof(*t));
	struct nl_sock *rt;
	char what[128];
	bool gone;
	int ret;

	if (!t)
		return nk_error_errno(ENOMEM, "unlease");
	u->t = t;
	u->n = 1;
	ret = holder_ns(ctx, a, &t->ns, &gone);
	if (!ret && gone)
		return unlease_ns_gone(ctx, a, u);
	if (!ret)
		ret = nk_ns_rtnl(t->ns, &rt);
	if (!ret)
		ret = find_holder(rt, a->dev, 0, &t->l, what, sizeof(what));
	/* A holder gone with the NIC side still recorded (an unlease killed
	 * half-way): finish that first. */
	if (ret == -ENODEV && (ret = nk_nic_unlease_gone(ctx, t->ns, a->dev)) == 0)
		ret = nothing(ctx, u, what, true);
	else if (!ret)
		ret = unlease_holders(ctx, t, 1, a, u);
	return ret;
}

/* The holders of the listed queues, each once, into t[0..*n) (0 when none
 * is leased: -force). */
static int listed_holders(struct nk_ctx *ctx, const struct lease_job *j, const char *from,
			  struct holder_end *t, size_t *n)
{
	enum nk_look look = nk_look_of(&j->nic->link, j->nic->have_queues);

	*n = 0;
	/* A NIC that is down is left out of the queue dump: its queues' leases
	 * are not seen, which is not "none" (fate.h), -force or not. */
	if (look != NK_LOOK_SEEN)
		return nk_error(NK_EXIT_EXISTS,
				"\"%s\" is %s: whether its queues are leased cannot be seen; try again once it is up",
				from, nk_look_word(look));
	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j->nic, j->ids[i]);
		size_t k = 0;

		if (!nk_queue_leased(q)) {
			if (ctx->force)
				continue;
			return nk_error(NK_EXIT_NOTFOUND, "\"%s\" queue %u is not leased%s", from,
					j->ids[i], q ? "" : " (no such RX queue)");
		}
		while (k < *n && !nk_queue_same_holder(q, t[k].first))
			k++;
		if (k == *n)
			t[(*n)++].first = q;
	}
	return 0;
}

/* A holder goes with all its leases: refuse to end others silently. */
static int check_others(const struct lease_job *j, const char *from, const struct nk_queue *first,
			bool force)
{
	struct nk_queue_holder h = { 0 };
	size_t others = 0;

	for (size_t i = 0; i < j->nic->queues.n; i++) {
		const struct nk_queue *q = &j->nic->queues.v[i];

		if (nk_queue_same_holder(q, first))
			others += !nk_id_listed(j->ids, j->n, q->id);
	}
	nk_queue_holder(first, &h);
	if (others && !force)
		return nk_error(NK_EXIT_EXISTS,
				"the holder of \"%s\" queue %u (ifindex %d) also holds %zu other queue%s of it; unleasing ends them all: list them, or add force",
				from, first->id, h.ifindex, others, others == 1 ? "" : "s");
	return 0;
}

/* t's holder found where its lease's netns id says: 0, -ENODEV when it
 * is gone (its lease ends without this command), or an error printed. */
static int find_listed(struct nk_ctx *ctx, const struct lease_job *j, struct holder_end *t,
		       char *what, size_t len)
{
	struct nk_queue_holder h = { 0 };
	struct nl_sock *rt;
	int ret;

	nk_queue_holder(t->first, &h);
	t->ns = j->nic->ns;
	if (h.has_nsid) {
		t->ns = nk_ns_by_nsid(ctx, j->nic->ns, h.nsid);
		if (!t->ns)
			return nk_error(NK_EXIT_NOTFOUND,
					"no namespace nkctl can reach has netns-id %d there", h.nsid);
	}
	ret = nk_ns_rtnl(t->ns, &rt);
	return ret ? ret : find_holder(rt, NULL, h.ifindex, &t->l, what, len);
}

/* unlease from PHYS queue LIST: the holders of those queues, one or many
 * (a runtime's GC ends many pods' leases in one command). */
static int unlease_from(struct nk_ctx *ctx, const struct lease_args *a, struct nk_unlease *u)
{
	struct lease_job *j = calloc(1, sizeof(*j));
	struct holder_end *t = NULL;
	struct nk_ns *gone_ns = NULL;
	size_t n = 0, live = 0;
	char what[160];
	int ret;

	if (!j)
		return nk_error_errno(ENOMEM, "unlease");
	ret = nk_parse_queue_list("queue", a->queue, j->ids, &j->n);
	if (!ret)
		ret = lease_load_nic(ctx, j, a, false);
	if (!ret && !(t = calloc(j->n ? j->n : 1, sizeof(*t))))
		ret = nk_error_errno(ENOMEM, "unlease");
	if (!ret)
		ret = listed_holders(ctx, j, a->from, t, &n);
	snprintf(what, sizeof(what), "no queue of \"%s\" in %s is leased", a->from, a->queue);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = check_others(j, a->from, t[i].first, a->force);
		if (!ret)
			ret = find_listed(ctx, j, &t[i], what, sizeof(what));
		if (!ret)
			ret = check_expected(a, &t[i]);
		if (ret == -ENODEV) {       /* gone since the NIC's dump */
			gone_ns = t[i].ns;
			ret = 0;
		} else if (!ret) {
			t[live++] = t[i];
		}
	}
	u->t = t;
	u->n = live;
	if (!ret && !live && gone_ns && (ret = nk_nic_unlease_gone(ctx, gone_ns, NULL)) == 0)
		ret = nothing(ctx, u, what, true);
	else if (!ret && !live)
		ret = nothing(ctx, u, what, false);
	else if (!ret)
		ret = unlease_holders(ctx, t, live, a, u);
	nk_nic_job_free(j->nic);
	free(j);
	return ret;
}

int nk_unlease(struct nk_ctx *ctx, const struct lease_args *a, struct nk_unlease *u)
{
	return a->from ? unlease_from(ctx, a, u) : unlease_dev(ctx, a, u);
}

void nk_unlease_free(struct nk_unlease *u)
{
	for (size_t i = 0; u->t && i < u->n; i++)
		free(u->t[i].ended.v);
	free(u->t);
	u->t = NULL;
	u->n = 0;
}
