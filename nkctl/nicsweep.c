// SPDX-License-Identifier: GPL-2.0
/* The sweep of what ended leases left (nicsweep.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"
#include "lookup.h"
#include "niclease.h"
#include "nicreserve.h"
#include "nicsweep.h"
#include "rtnl.h"

/* The job of the NIC ifindex of ns, locked, loaded and settled; NULL after
 * printing an error (*ret), or with *ret -ENODEV when the NIC is gone. */
static struct nic_job *open_nic_job(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, int *ret)
{
	struct nic_job *j = nk_nic_job_new();
	struct nk_link link;
	struct nl_sock *rt;

	if (!j) {
		*ret = NK_EXIT_FAIL;
		return NULL;
	}
	j->ns = ns;
	*ret = nk_ns_rtnl(ns, &rt);
	if (!*ret)
		*ret = nk_link_lookup(rt, NULL, ifindex, &j->link, nk_ns_name(ns), true);
	link = j->link;
	if (!*ret)
		*ret = nk_nic_job_lock(ctx, j);
	if (!*ret)
		*ret = nk_nic_job_load(ctx, NULL, &link, j);
	if (*ret) {
		nk_nic_job_free(j);
		return NULL;
	}
	return j;
}

/* One NIC state file: undo the record of the lease of NIC queue q there. */
static int unlease_nic(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, uint32_t q)
{
	struct nk_nic_lease *l;
	int ret;
	struct nic_job *j = open_nic_job(ctx, ns, ifindex, &ret);

	/* Decided again on what was read under the lock: a lease that took the
	 * queue meanwhile keeps its record. */
	l = j ? nk_nic_state_lease(&j->st, q) : NULL;
	if (l && l->nleased && nk_nic_lease_ended(ns, ifindex, l))
		ret = nk_nic_lease_undo(j, l);
	if (j)
		nk_nic_job_free(j);
	return ret == -ENODEV ? 0 : ret;
}

/* A release killed after it saved the state and before the NIC was restored
 * leaves saved settings with nothing reserved or leased: restore them now. */
static int resume_release(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex)
{
	int ret;
	struct nic_job *j = open_nic_job(ctx, ns, ifindex, &ret);

	if (j && j->st.exists && j->st.saved && !j->st.nreserved && !j->st.nleases)
		ret = nk_nic_release_finish(j);
	if (j)
		nk_nic_job_free(j);
	return ret == -ENODEV ? 0 : ret;
}

/* Does a record of a live lease name holder, recorded in namespace hns? */
static bool names_holder(struct nk_ns *ns, int ifindex, const struct nk_nic_lease *l,
			 const struct nk_ns *hns, const char *holder)
{
	return holder && nk_ns_is(hns, l->ns_dev, l->ns_ino) && !strcmp(l->name, holder) &&
	       !nk_nic_lease_ended(ns, ifindex, l);
}

static bool record_leases(const struct nk_nic_lease *l, uint32_t q)
{
	for (size_t k = 0; k < l->nleased; k++)
		if (l->leased[k] == q)
			return true;
	return false;
}

/* The reachable namespace other than hns where a live lease of record l is
 * held now (its holder was moved there), or NULL. A namespace on its way out
 * is not reachable by name, so its leases are waited for, not reported. */
static struct nk_ns *lease_moved_to(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex,
				    const struct nk_nic_lease *l, const struct nk_ns *hns)
{
	const struct genl_family *fam;
	struct nl_sock *s = nk_ns_try_netdev(ns, &fam);
	struct nk_queue_list q = { 0 };
	struct nk_ns *where = NULL;
	struct nl_err err;

	if (!s || netdev_queue_dump(s, fam, ifindex, &q, &err))
		return NULL;
	for (size_t i = 0; i < q.n && !where; i++) {
		const struct nk_queue *e = &q.v[i];

		if (e->type != NK_NETDEV_QUEUE_TYPE_RX || !nk_nic_lease_lives(e) ||
		    !record_leases(l, e->id))
			continue;
		where = (e->have & QUEUE_HAVE_LEASE_NETNS_ID) ?
			nk_ns_by_nsid(ctx, ns, e->lease_netns_id) : ns;
		if (where && nk_ns_is(where, hns->dev, hns->ino))
			where = NULL;
	}
	nk_queue_list_free(&q);
	return where;
}

/* Is the NIC of st at ifindex of ns? */
static bool nic_at(struct nk_ns *ns, int ifindex, const struct nk_nic_state *st)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link link;

	return rt && !nk_link_lookup(rt, NULL, ifindex, &link, NULL, true) &&
	       nk_nic_state_is_of(st, ns, &link);
}

/* A live lease names the holder that is not in hns: either its namespace
 * is being deleted (wait: *named) or it was moved to a namespace that lives
 * on (say where, exit 3: waiting would not end it). */
static int holder_moved(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex,
			const struct nk_nic_lease *l, const struct nk_ns *hns, bool *named)
{
	struct nk_ns *where = lease_moved_to(ctx, ns, ifindex, l, hns);

	*named = true;
	if (!where)
		return 0;
	return nk_error(NK_EXIT_NOTFOUND, "\"%s\" holds its leases in %s now, not in %s: run it there",
			l->name, nk_ns_name(where), nk_ns_name(hns));
}

/* The NIC of st in ns, looked for by its key; its ifindex, or 0. */
static int nic_in(struct nk_ns *ns, const struct nk_nic_state *st)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link_list links = { 0 };
	struct nl_err err;
	int ifindex = 0;

	if (!rt || rtnl_link_dump(rt, &links, &err))
		return 0;
	for (size_t i = 0; i < links.n && !ifindex; i++)
		if ((links.v[i].parent[0] || links.v[i].perm_addr_len) &&
		    nk_nic_state_is_of(st, ns, &links.v[i]))
			ifindex = links.v[i].ifindex;
	nk_link_list_free(&links);
	return ifindex;
}

/* Where the NIC of the record st is now: where it was last seen, or, moved
 * to another namespace, wherever its key is found. NULL when nowhere nkctl
 * reaches (or, for a NIC known by its place, not there any more): its record
 * is left alone. */
static struct nk_ns *find_nic(struct nk_ctx *ctx, const struct nk_nic_state *st, int *ifindex)
{
	struct nk_ns *ns, *const *all;
	size_t n;

	/* where it was last seen: among the namespaces the command holds
	 * first (nk_ns_find opens every one only when those do not have it) */
	if (!nk_ns_find(ctx, st->ns_dev, st->ns_ino, &ns) && ns && nic_at(ns, st->ifindex, st)) {
		*ifindex = st->ifindex;
		return ns;
	}
	if (st->legacy[0] || !strncmp(st->key, "ns-", 3) || nk_ns_reachable(ctx, &all, &n))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((*ifindex = nic_in(all[i], st)))
			return all[i];
	return NULL;
}

/* One state file: undo the records of leases that ended (see below). */
static int unlease_file(struct nk_ctx *ctx, const char *name, const struct nk_ns *hns,
			const char *holder, bool *named)
{
	struct nk_nic_state *st = malloc(sizeof(*st));
	struct nk_ns *ns = NULL;
	int ifindex = 0, ret = 0;

	if (!st)
		return nk_error_errno(ENOMEM, "cannot read %s/%s", NK_NIC_STATE_DIR, name);
	if (!nk_nic_state_read(name, st) && st->exists)
		ns = find_nic(ctx, st, &ifindex);
	for (size_t k = 0; ns && k < st->nleases && !ret; k++) {
		const struct nk_nic_lease *l = &st->leases[k];

		if (l->nleased && nk_nic_lease_ended(ns, ifindex, l))
			ret = unlease_nic(ctx, ns, ifindex, l->leased[0]);
		else if (named && names_holder(ns, ifindex, l, hns, holder))
			ret = holder_moved(ctx, ns, ifindex, l, hns, named);
	}
	if (ns && !ret && st->saved && !st->nreserved && !st->nleases)
		ret = resume_release(ctx, ns, ifindex);
	free(st);
	return ret;
}

/* Every NIC state file: undo the records of leases that ended, each under
 * its NIC's lock alone. With holder, say whether a record of a live lease
 * still names it (see below). */
static int unlease_records(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder,
			   bool *named)
{
	struct dirent *e;
	DIR *d = opendir(NK_NIC_STATE_DIR);
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (e = readdir(d)))
		if (e->d_name[0] != '.')
			ret = unlease_file(ctx, e->d_name, hns, holder, named);
	closedir(d);
	return ret;
}

int nk_nic_unlease_stale(struct nk_ctx *ctx)
{
	return unlease_records(ctx, NULL, NULL, NULL);
}

/* The holder's namespace is being deleted (a pod's, before its CNI DEL):
 * the kernel ends its leases once the namespace's devices are gone, a little
 * after "ip netns del" returns. Wait for that, then undo their records. */
int nk_nic_unlease_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	bool named = true;
	int ret = 0;

	for (int i = 0; i < NK_NIC_GONE_WAIT_TICKS && named && !ret; i++) {
		named = false;
		ret = unlease_records(ctx, hns, holder, &named);
		if (named)
			nanosleep(&tick, NULL);
	}
	return ret;
}
