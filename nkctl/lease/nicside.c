// SPDX-License-Identifier: GPL-2.0
/*
 * The lease's NIC side (nicside.h): prepare, reserve, steer, rollback, the
 * undo of one lease record with the guarded delete of its rules, and the
 * release of everything.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "core/lookup.h"
#include "lease/holder.h"
#include "lease/nicside.h"
#include "lease/look.h"
#include "lease/mine.h"
#include "lease/rssctx.h"
#include "nic/nicreserve.h"
#include "nic/nicrule.h"

/* A record on a queue being leased whose lease cannot be read: never taken
 * over nor undone on a guess. */
static int refuse_unknown(const struct nic_job *j, const struct nk_nic_lease *l,
			  const struct nk_nic_seen *seen)
{
	return nk_error(NK_EXIT_EXISTS,
			"%s queue %u is recorded as leased to \"%s\", and whether that lease ended cannot be read (%s %s); nothing was changed: run it again once %s is up",
			j->link.ifname, l->leased[0], l->name, j->link.ifname, seen->why,
			j->link.ifname);
}

/* Does record l name a queue of only[0..n) (n 0: every record does)? */
static bool record_on(const struct nk_nic_lease *l, const uint32_t *only, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (nk_id_listed(l->leased, l->nleased, only[i]))
			return true;
	return !n;
}

int nk_nic_undo_records(struct nic_job *j, const struct nk_nic_seen *seen,
			const struct nk_undo_how *how, size_t *undone)
{
	/* decided on one look before any undo (an undo moves st's records):
	 * each ended record by its first queue */
	uint32_t *firsts = calloc(j->st.nleases + 1, sizeof(*firsts));
	size_t n = 0;
	bool failed = false;
	int ret = firsts ? 0 : nk_error_errno(ENOMEM, "%s", j->link.ifname);

	if (undone)
		*undone = 0;
	for (size_t k = 0; !ret && k < j->st.nleases; k++) {
		const struct nk_nic_lease *l = &j->st.leases[k];
		enum nk_fate fate;

		if (!l->nleased || !record_on(l, how->only, how->nonly))
			continue;
		fate = nk_fate_of_queues(seen, l->leased, l->nleased);
		if (fate == NK_FATE_UNKNOWN && how->refuse_unknown)
			ret = refuse_unknown(j, l, seen);
		else if (fate == NK_FATE_ENDED)
			firsts[n++] = l->leased[0];
	}
	for (size_t i = 0; !ret && i < n; i++) {
		struct nk_nic_lease *l = nk_nic_state_lease(&j->st, firsts[i]);
		bool ok;

		if (!l)
			continue;       /* another record's undo took it */
		/* how->one says its failure itself, and the next record is tried */
		ok = how->one ? how->one(j, l, how->arg) : !(ret = nk_nic_lease_undo(j, l));
		failed |= !ok;
		if (ok && undone)
			(*undone)++;
		nk_nic_job_reread(j);   /* the table the undo set */
	}
	free(firsts);
	return ret ? ret : failed ? -EAGAIN : 0;
}

/* Under the lock, before a lease of queues: a record of an ended lease on
 * any of them (its holder went after the last sweep) is undone first, so its
 * rules never steer into the new lease and its record is not taken over;
 * one whose fate is unknown refuses the lease. */
static int undo_ended_on(struct nic_job *j, const uint32_t *queues, size_t n)
{
	const struct nk_undo_how how = { .only = queues, .nonly = n, .refuse_unknown = true };
	struct nk_nic_seen seen;
	int ret;

	nk_nic_seen_read(NULL, j->ns, j->link.ifindex, &seen);
	ret = nk_nic_undo_records(j, &seen, &how, NULL);
	nk_nic_seen_free(&seen);
	return ret;
}

/* Job j for queues: locked, loaded, and a record of an ended lease on any
 * of the queues undone (what every lease does first). */
static int settle_queues(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n)
{
	int ret;

	memcpy(j->ids, queues, n * sizeof(*queues));
	j->n = n;
	ret = nk_nic_job_lock(ctx, j);
	if (!ret)
		ret = nk_nic_job_load(ctx, NULL, &j->link, j);
	return ret ? ret : undo_ended_on(j, queues, n);
}

int nk_nic_undo_ended(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n)
{
	struct nk_nic_state *st = calloc(1, sizeof(*st));
	bool recorded = false;

	if (!st)
		return nk_error_errno(ENOMEM, "cannot read the state of %s", j->link.ifname);
	if (!nk_nic_state_load(j->ns, &j->link, st) && st->exists)
		for (size_t i = 0; i < n; i++)
			recorded |= nk_nic_state_lease(st, queues[i]) != NULL;
	nk_nic_state_free(st);
	free(st);
	if (!recorded)
		return 0;       /* the common case: one state read, no NIC read */
	return settle_queues(ctx, j, queues, n);
}

/* A lease adding nrules rules: room for them in the driver's table, said
 * before any change (the driver would refuse the last ones after the lease
 * was made). */
static int check_rule_room(const struct nic_job *j, size_t nrules)
{
	size_t table = j->rules.table_size;

	if (!nrules || !table || j->rules.n + nrules <= table)
		return 0;
	return nk_error(NK_EXIT_EXISTS,
			"lease ... steer: the n-tuple rule table of %s is full (%zu of %zu locations used, %zu more needed); nothing was changed",
			j->link.ifname, j->rules.n, table, nrules);
}

int nk_nic_check_providers(const struct nic_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j, j->ids[i]);

		if (nk_queue_foreign_mp(q) && !nk_nic_state_reserved(&j->st, q->id))
			return nk_error(NK_EXIT_EXISTS,
					"%s queue %u has a memory provider that is not a lease's; reserving it would not stop what already uses it",
					j->link.ifname, q->id);
	}
	return 0;
}

int nk_nic_lease_prepare(struct nk_ctx *ctx, struct nic_job *j, const uint32_t *queues, size_t n,
			 size_t rules)
{
	int ret;

	if (n > NK_NIC_LEASE_MAX)
		return nk_error(NK_EXIT_USAGE,
				"lease ... reserve|steer: at most %d queues in one lease (%zu asked); nothing was changed",
				NK_NIC_LEASE_MAX, n);
	ret = settle_queues(ctx, j, queues, n);
	if (!ret)
		ret = nk_nic_need_rss(j, "lease ... steer");
	if (!ret)
		ret = nk_nic_check_reserve(j);
	if (!ret)
		ret = nk_nic_check_providers(j);
	if (!ret && rules && j->rules_ret == -EOPNOTSUPP)
		ret = nk_error(NK_EXIT_UNSUPPORTED,
			       "lease ... steer: the driver of %s has no n-tuple flow steering rules; nothing was changed",
			       j->link.ifname);
	else if (!ret && rules && j->rules_ret)
		ret = nk_error_errno(-j->rules_ret, "cannot list the n-tuple rules of %s",
				     j->link.ifname);
	return ret ? ret : check_rule_room(j, rules);
}

/* Does the driver have a rule the lease recorded that is the same as r? */
static bool lease_has_rule(const struct nic_job *j, const struct nk_nic_lease *l,
			   const struct nk_ntuple *r)
{
	for (size_t i = 0; i < j->rules.n; i++)
		for (size_t k = 0; k < l->nrules; k++)
			if (l->rules[k] == j->rules.v[i].id && nk_ntuple_same(&j->rules.v[i], r))
				return true;
	return false;
}

int nk_nic_lease_reserve(struct nic_job *j, const struct nk_ns *holder_ns,
			 const struct nk_link *holder)
{
	struct nk_nic_lease *l;

	j->new_record = !nk_nic_state_lease(&j->st, j->ids[0]);
	l = nk_nic_state_lease_add(&j->st, j->ids, j->n);
	if (!l)
		return nk_error_errno(ENOMEM, "%s: cannot record the lease; nothing was changed",
				      j->link.ifname);
	l->ns_dev = holder_ns->dev;
	l->ns_ino = holder_ns->ino;
	l->ifindex = holder->ifindex;
	snprintf(l->name, sizeof(l->name), "%s", holder->ifname);
	/* The lease owns the queues it reserved, not those reserved before. */
	for (size_t i = 0; i < j->n; i++)
		if (!nk_nic_state_reserved(&j->st, j->ids[i]) && l->nqueues < NK_NIC_LEASE_MAX)
			l->queues[l->nqueues++] = j->ids[i];
	return nk_nic_reserve(j);
}

int nk_nic_lease_steer(struct nic_job *j, struct nk_ntuple *rules, size_t nrules)
{
	struct nk_nic_lease *l = nk_nic_state_lease(&j->st, j->ids[0]);
	int fd, ret = l ? 0 : nk_error(NK_EXIT_FAIL, "%s: the lease's record is gone", j->link.ifname);
	enum nk_rule_step failed;

	if (!ret && nrules && j->n > 1)
		ret = nk_nic_lease_context(j, l, rules, nrules);
	if (!ret && nrules)
		ret = nk_ns_ioctl(j->ns, &fd);
	for (size_t i = 0; i < nrules && !ret; i++) {
		if (lease_has_rule(j, l, &rules[i]))
			continue;     /* a re-run: the lease has it already */
		ret = nk_nic_rule_add(&j->st, fd, j->link.ifname, &rules[i], l, NULL, &failed);
		if (ret && failed == NK_RULE_ADD)
			return nk_error_errno(-ret, "cannot add the rule steering %s traffic to %s %s %llu (the lease stands: run the command again to retry, or unlease)",
					      nk_flow_is_v6(rules[i].flow_type) ? "IPv6" : "IPv4",
					      j->link.ifname, rules[i].rss_context ? "RSS context" : "queue",
					      rules[i].rss_context ? (unsigned long long)rules[i].rss_context :
					      (unsigned long long)rules[i].action);
		if (ret)
			return nk_error_errno(-ret, "cannot write the state of %s under %s; nothing was changed",
					      j->link.ifname, NK_NIC_STATE_DIR);
	}
	return ret;
}

/* Delete nkctl's rule id if the driver still has there the rule st
 * recorded, and forget it (not saved): a location the driver gave to
 * another rule since (after a steer del, or another tool's) is left alone.
 * Either way nkctl forgets it. 0, or the exit code after the error. */
static int delete_rule(struct nk_nic_state *st, int fd, const char *ifname, uint32_t id)
{
	struct nk_ntuple now;
	/* that location alone: a whole-table read per rule would make a
	 * NIC with hundreds of pods' rules slow to clean */
	int ret = ethtool_ntuple_get(fd, ifname, id, &now);

	if (ret && ret != -ENOENT && ret != -EINVAL)
		return nk_error_errno(-ret, "cannot read rule %u of %s", id, ifname);
	if (!ret && nk_mine_rule(st, &now))
		ret = ethtool_ntuple_del(fd, ifname, id);
	if (ret == -ENOENT || ret == -EINVAL)
		ret = 0;
	if (ret)
		return nk_error_errno(-ret, "cannot delete rule %u of %s", id, ifname);
	nk_nic_state_forget_rule(st, id);
	return 0;
}

int nk_nic_lease_undo(struct nic_job *j, struct nk_nic_lease *l)
{
	uint32_t drop[NK_NIC_LEASE_MAX];
	size_t ndrop = 0;
	int fd, ret = nk_ns_ioctl(j->ns, &fd);

	while (!ret && l->nrules) {
		/* forgotten from l too */
		ret = delete_rule(&j->st, fd, j->link.ifname, l->rules[l->nrules - 1]);
	}
	if (!ret)
		ret = nk_nic_drop_context(j, l);
	if (ret)
		return ret;
	for (size_t i = 0; i < l->nqueues; i++)
		if (!nk_nic_state_lease_holds(&j->st, l, l->queues[i]))
			drop[ndrop++] = l->queues[i];
	nk_nic_state_lease_drop(&j->st, l);
	if (!ndrop) {
		ret = nk_nic_state_store(&j->st);
		return ret ? nk_error_errno(-ret, "cannot update the state of %s under %s",
					    j->link.ifname, NK_NIC_STATE_DIR) : 0;
	}
	return nk_nic_release(j, drop, ndrop);     /* the queues no other lease holds */
}

/* Release of everything: nkctl's rules go too, and the leases' records. */
static int drop_rules(struct nic_job *j)
{
	int fd, ret = j->st.nrules ? nk_ns_ioctl(j->ns, &fd) : 0;

	while (!ret && j->st.nrules) {
		ret = delete_rule(&j->st, fd, j->link.ifname, j->st.rules[j->st.nrules - 1].id);
		if (!ret)
			ret = nk_nic_job_save(j);
	}
	for (size_t k = 0; k < j->st.nleases && !ret; k++)
		ret = nk_nic_drop_context(j, &j->st.leases[k]);
	if (!ret)
		j->st.nleases = 0;
	return ret;
}

int nk_nic_release_all(struct nic_job *j)
{
	int ret = nk_nic_unreserve(j, NULL, 0);

	if (!ret)
		ret = drop_rules(j);
	return ret ? ret : nk_nic_release_finish(j);
}

int nk_nic_lease_rollback(struct nic_job *j)
{
	struct nk_nic_lease *l = j->new_record ? nk_nic_state_lease(&j->st, j->ids[0]) : NULL;

	return l ? nk_nic_lease_undo(j, l) : 0;
}
