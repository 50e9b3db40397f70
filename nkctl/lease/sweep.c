// SPDX-License-Identifier: GPL-2.0
/* The sweep of what ended leases left (sweep.h). */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "core/lookup.h"
#include "lease/nicside.h"
#include "lease/look.h"
#include "lease/mine.h"
#include "nic/nicreserve.h"
#include "lease/sweep.h"
#include "rtnl.h"

/* The job of the NIC ifindex of ns, locked, loaded and settled; NULL after
 * printing an error (*ret), or with *ret -ENODEV when the NIC is gone. */
static struct nic_job *open_nic_job(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, bool own,
				    int *ret)
{
	struct nic_job *j = nk_nic_job_new();
	struct nk_link link;
	struct nl_sock *rt;

	if (!j) {
		*ret = NK_EXIT_FAIL;
		return NULL;
	}
	j->ns = ns;
	/* the undo reads each rule at its location: a NIC with hundreds of
	 * pods' rules is not read whole at every sweep */
	j->no_rules = true;
	/* Another command's NIC, busy: its lock holder or the next command
	 * sweeps it; waiting here would chain every command on the node to the
	 * busiest NIC. The command's own holder's NIC is waited for. */
	j->lock_if_free = !own;
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

/*
 * The undo's services report as they do for the commands that call them
 * ("Error: ..."). In a sweep a failure is one record's, not the command's:
 * its reports are collected in a sink of its own (lib/err.h), and its error
 * becomes one Warning naming the NIC and the record; the record stays for
 * the next command to retry. Warnings said meanwhile pass on as they were.
 */
struct said {
	struct nk_sink sink;
	struct nk_sink *was;
};

static void said_begin(struct said *s)
{
	memset(&s->sink, 0, sizeof(s->sink));
	s->was = nk_sink_use(&s->sink);
}

/* Back to the sink before; the last error's text into msg. */
static void said_end(struct said *s, char *msg, size_t len)
{
	nk_sink_use(s->was);
	if (!nk_sink_last_error(&s->sink, msg, len))
		snprintf(msg, len, "no reason given");
	nk_sink_pass_others(&s->sink);
	nk_sink_free(&s->sink);
}

/* "1,2,3": a record's queues, for a warning. */
static void queue_words(const struct nk_nic_lease *l, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < l->nleased && used + 12 < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", k ? "," : "", l->leased[k]);
}

/* Undo ended record l on its own (the undo loop's how->one): a failure is
 * its warning, and what was undone before it stays undone. false when it
 * failed. */
static bool undo_one(struct nic_job *j, struct nk_nic_lease *l, void *arg)
{
	uint32_t q = l->leased[0];
	char queues[256], name[IF_NAMESIZE], msg[1024];
	struct said s;
	int ret;

	(void)arg;
	queue_words(l, queues, sizeof(queues));
	snprintf(name, sizeof(name), "%s", l->name);
	said_begin(&s);
	ret = nk_nic_lease_undo(j, l);
	said_end(&s, msg, sizeof(msg));
	/* The record gone, only the NIC's own settings were left to put back
	 * (header split refused while a memory provider is still bound): that
	 * step stays pending in the NIC's record. */
	if (ret && !nk_nic_state_lease(&j->st, q))
		nk_warn("%s: the ended lease of \"%s\" (queues %s) is undone but the NIC's own settings are not back yet: %s; pending in its record, the next nkctl command retries",
			j->link.ifname, name, queues, msg);
	else if (ret)
		nk_warn("%s: the NIC side of the ended lease of \"%s\" (queues %s) is not all undone: %s; its record is kept and the next nkctl command retries",
			j->link.ifname, name, queues, msg);
	return !ret;
}

/* A release (or an undo) stopped after its state was saved leaves saved
 * settings with nothing reserved or leased: restore them now. A step the
 * kernel refuses for now (header split while a memory provider is still
 * bound) stays pending in the record. */
static void resume_release(struct nic_job *j)
{
	char msg[1024];
	struct said s;
	int ret;

	if (!j->st.exists || !j->st.saved || j->st.nreserved || j->st.nleases)
		return;
	said_begin(&s);
	ret = nk_nic_release_finish(j);
	said_end(&s, msg, sizeof(msg));
	if (ret)
		nk_warn("%s: restoring its own settings (nothing of nkctl's is left on it) is pending: %s; the next nkctl command retries",
			j->link.ifname, msg);
}

/* Under the NIC's lock, decided again on what was read under it (a lease
 * that took a queue meanwhile keeps its record): each ended record undone
 * on its own, then what a stopped release still owes. One queue dump for
 * all the records. */
static void settle_nic(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, const char *ifname,
		       bool own)
{
	const struct nk_undo_how how = { .one = undo_one };
	struct nk_nic_seen seen;
	bool failed;
	char msg[1024];
	struct said s;
	struct nic_job *j;
	int ret;

	said_begin(&s);
	j = open_nic_job(ctx, ns, ifindex, own, &ret);
	said_end(&s, msg, sizeof(msg));
	if (!j) {
		if (ret != -ENODEV && ret != -EBUSY)
			nk_warn("%s: what its ended leases left is not undone: %s; the next nkctl command retries",
				ifname, msg);
		return;
	}
	nk_nic_seen_read(ctx, ns, ifindex, &seen);
	failed = nk_nic_undo_records(j, &seen, &how, NULL) != 0;
	nk_nic_seen_free(&seen);
	if (!failed)     /* else said once already: retried by the next command */
		resume_release(j);
	nk_nic_job_free(j);
}

/* The reachable namespace other than hns where a live lease of record l is
 * held now (its holder was moved there), or NULL. A namespace on its way out
 * is not reachable by name, so its leases are waited for, not reported. */
static struct nk_ns *lease_moved_to(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex,
				    const struct nk_nic_lease *l, const struct nk_ns *hns)
{
	struct nk_ns *where = NULL;
	struct nk_nic_seen seen;

	/* whose each queue's lease is, as the one look at the NIC tells it */
	nk_nic_seen_read(ctx, ns, ifindex, &seen);
	for (size_t k = 0; k < l->nleased && !where; k++) {
		const struct nk_seen_queue *q = nk_seen_queue(&seen, l->leased[k]);

		if (!q || !q->leased || q->ns_going || !q->holder.ns.known ||
		    nk_ns_is(hns, q->holder.ns.dev, q->holder.ns.ino) ||
		    nk_ns_find(ctx, q->holder.ns.dev, q->holder.ns.ino, &where))
			where = NULL;
	}
	nk_nic_seen_free(&seen);
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

/* What the records of one NIC ask for, decided on one queue dump read
 * without the lock: settle (some lease ended, or a release is owed), and,
 * with holder, whether a live lease's record names it. */
static int look_at_nic(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex,
		       const struct nk_nic_state *st, const struct nk_ns *hns, const char *holder,
		       bool *named, bool *settle)
{
	struct nk_nic_seen seen;
	int ret = 0;

	nk_nic_seen_read(ctx, ns, ifindex, &seen);
	*settle = st->saved && !st->nreserved && !st->nleases;
	for (size_t k = 0; k < st->nleases && !ret; k++) {
		const struct nk_nic_lease *l = &st->leases[k];
		enum nk_fate fate = l->nleased ? nk_fate_of_queues(&seen, l->leased, l->nleased) :
					      NK_FATE_LIVE;

		*settle |= fate == NK_FATE_ENDED;
		if (!named || !l->nleased || !nk_mine_record(l, hns, holder))
			continue;
		/* Live: moved elsewhere, or its namespace on its way out; unknown
		 * on a NIC seen: its namespace on its way out (netns-id -1), the
		 * kernel still holding the lease: both waited for. Unknown on a
		 * NIC not seen (down): kept, and not waited for. */
		if (fate == NK_FATE_LIVE && hns)
			ret = holder_moved(ctx, ns, ifindex, l, hns, named);
		else if (fate == NK_FATE_LIVE)
			*named = true;  /* any namespace: it lives, wherever it is */
		else if (fate == NK_FATE_UNKNOWN && seen.known)
			*named = true;
	}
	nk_nic_seen_free(&seen);
	return ret;
}

/* What a sweep is asked for: with who's holder, whether a live lease's
 * record still names it (*named); who, for the NICs whose lock it waits for. */
struct sweep_for {
	struct nk_mine_who who;
	bool *named;
};

/* One state file: undo the records of leases that ended. Its NIC's
 * trouble is its warning, never the command's error; only a live lease
 * naming the command's own holder elsewhere is (holder_moved). */
static int unlease_file(struct nk_ctx *ctx, const char *name, const struct sweep_for *f)
{
	const struct nk_ns *hns = f->who.hns;
	const char *holder = f->who.holder;
	bool *named = f->named;
	struct nk_nic_state *st = calloc(1, sizeof(*st));
	struct nk_ns *ns = NULL;
	bool settle = false;
	int ifindex = 0, ret = 0;

	if (!st) {
		nk_warn("%s/%s: not read: %s; the next nkctl command retries", NK_NIC_STATE_DIR, name,
			strerror(ENOMEM));
		return 0;
	}
	ret = nk_nic_state_read(name, st);
	if (ret)
		nk_warn("%s/%s: not read: %s; its NIC is left as it is", NK_NIC_STATE_DIR, name,
			strerror(-ret));
	if (!ret && st->exists)
		ns = find_nic(ctx, st, &ifindex);     /* NULL: absent, its records kept */
	ret = ns ? look_at_nic(ctx, ns, ifindex, st, hns, holder, named, &settle) : 0;
	if (ns && settle)
		settle_nic(ctx, ns, ifindex, st->ifname, nk_mine_nic(&f->who, ns, ifindex, st));
	nk_nic_state_free(st);
	free(st);
	return ret;
}

/* Every NIC state file: undo the records of leases that ended, each NIC
 * under its own lock alone, each record on its own. With holder, say
 * whether a record of a live lease still names it (see below). */
static int unlease_records(struct nk_ctx *ctx, const struct sweep_for *f)
{
	struct dirent *e;
	DIR *d = opendir(NK_NIC_STATE_DIR);
	int ret = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && !ret)
			ret = unlease_file(ctx, e->d_name, f);
	closedir(d);
	return ret;
}

int nk_nic_unlease_stale(struct nk_ctx *ctx)
{
	return nk_nic_unlease_stale_own(ctx, NULL, 0);
}

int nk_nic_unlease_stale_own(struct nk_ctx *ctx, const struct nk_nic_at *own, size_t n)
{
	struct sweep_for f = { .who = { .own = own, .nown = n } };

	return unlease_records(ctx, &f);
}

/* The holder's namespace is being deleted (a pod's, before its CNI DEL):
 * the kernel ends its leases once the namespace's devices are gone, a little
 * after "ip netns del" returns. Wait for that, then undo their records. */
static int wait_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder, bool *named)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	const struct sweep_for f = { .who = { .hns = hns, .holder = holder }, .named = named };
	int ret = 0;

	*named = true;
	for (int i = 0; i < NK_NIC_GONE_WAIT_TICKS && *named && !ret; i++) {
		*named = false;
		ret = unlease_records(ctx, &f);
		if (*named && i + 1 < NK_NIC_GONE_WAIT_TICKS)
			nanosleep(&tick, NULL);
	}
	return ret;
}

int nk_nic_unlease_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder)
{
	bool named;

	return wait_gone(ctx, hns, holder, &named);
}

int nk_nic_unlease_gone_anywhere(struct nk_ctx *ctx, const char *holder, bool *still)
{
	return wait_gone(ctx, NULL, holder, still);
}
