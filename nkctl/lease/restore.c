// SPDX-License-Identifier: GPL-2.0
/*
 * nic restore (restore.h): what nkctl still owns on a NIC, applied again
 * after a reset or an operator's edit; and the tests of a record against the
 * NIC that nic show and doctor print.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "ethrss.h"
#include "lease/nicside.h"
#include "nic/nicreserve.h"
#include "lease/restore.h"
#include "lease/look.h"
#include "lease/mine.h"
#include "lease/rssctx.h"
#include "nic/nicrule.h"

/* ---- what the NIC contradicts ---- */

bool nk_nic_lease_record_ended(const struct nk_nic_state *st, const struct nk_nic_seen *seen,
			       uint32_t id)
{
	for (size_t i = 0; st->exists && i < st->nleases; i++) {
		const struct nk_nic_lease *l = &st->leases[i];

		for (size_t k = 0; k < l->nleased; k++)
			if (l->leased[k] == id &&
			    nk_fate_of_queues(seen, l->leased, l->nleased) == NK_FATE_ENDED)
				return true;
	}
	return false;
}

bool nk_nic_lost_rss(const struct nk_nic_state *st, const struct nk_rss *rss, int rss_ret,
		     uint32_t q)
{
	return st->exists && !rss_ret && rss->indir_size && nk_nic_state_reserved(st, q) &&
	       nk_rss_uses(rss, q);
}

bool nk_nic_lost_split(const struct nk_nic_state *st, const struct nk_rings *rings, int rings_ret)
{
	return st->exists && st->nreserved && !rings_ret && rings->have_tcp_data_split &&
	       (rings->tcp_data_split != NK_TCP_DATA_SPLIT_ENABLED ||
		(rings->have_hds_thresh && rings->hds_thresh));
}

bool nk_nic_lost_rule(const struct nk_nic_state *st, const struct nk_ntuple_list *rules,
		      int rules_ret, const struct nk_ntuple *recorded)
{
	if (!st->exists || rules_ret || !recorded->flow_type)
		return false;
	for (size_t i = 0; i < rules->n; i++)
		if (rules->v[i].id == recorded->id && nk_mine_rule(st, &rules->v[i]))
			return false;
	return true;
}

/* ---- restore ---- */

int nk_nic_undo_ended_all(struct nic_job *j, const struct nk_nic_seen *seen, size_t *undone)
{
	const struct nk_undo_how how = { 0 };

	*undone = 0;
	if (!seen->known)
		return 0;       /* a down NIC shows no lease: nothing is decided */
	return nk_nic_undo_records(j, seen, &how, undone);
}

/* Reserved queues beyond the NIC's channels (ethtool -L to fewer): the
 * kernel keeps a leased queue, so these were only reserved. They leave the
 * record, and the saved table no longer names them. */
static int drop_vanished(struct nic_job *j, struct nk_nic_restored *done)
{
	uint32_t n = nk_nic_rx_count(j);
	size_t k = 0;

	for (size_t i = 0; i < j->st.nreserved; i++) {
		uint32_t q = j->st.reserved[i];

		if (q < n) {
			j->st.reserved[k++] = q;
			continue;
		}
		done->vanished[done->nvanished++] = q;
		nk_warn("%s has %u RX queues now: reserved queue %u went with the others and leaves nkctl's record",
			j->link.ifname, n, q);
	}
	if (!done->nvanished)
		return 0;
	j->st.nreserved = k;
	if (j->st.saved && !j->st.rss_default &&
	    nk_rss_take_queues(j->st.indir, j->st.indir_size, done->vanished, done->nvanished))
		j->st.rss_default = true;    /* it named only those: the driver's own spread */
	return nk_nic_job_save(j);
}

/* The reservation as the record says: its queues out of RSS, header split
 * on (or, with nothing reserved and no lease left, the NIC's own settings
 * back, which a release killed half-way still owes). */
static int reapply_reservation(struct nic_job *j, struct nk_nic_restored *done)
{
	bool finish = !j->st.nreserved && j->st.saved && !j->st.nleases;
	int ret;

	for (size_t i = 0; i < j->st.nreserved; i++)
		done->rss |= nk_nic_lost_rss(&j->st, &j->rss, j->rss_ret, j->st.reserved[i]);
	done->split = nk_nic_lost_split(&j->st, &j->rings, j->rings_ret);
	if (!done->rss && !done->split && !finish)
		return 0;
	/* nothing after needs the settings read again (printing rereads) */
	ret = nk_nic_need_rss(j, "nic restore");
	return ret ? ret : nk_nic_release_finish(j);
}

/* Lease l's RSS context, made again with its recorded id if the reset took
 * it; rule r then steers into it. */
static int lease_context(struct nic_job *j, struct nk_nic_lease *l, struct nk_ntuple *r)
{
	if (!l || !l->rss_context || !r->rss_context)
		return 0;
	memcpy(j->ids, l->leased, l->nleased * sizeof(l->leased[0]));
	j->n = l->nleased;
	return nk_nic_lease_context(j, l, r, 1);
}

/* Rule old (recorded, with its spec), added again by the one rule path
 * (nicrule.h): pending first with the old record kept, so a kill before the
 * new one is recorded leaves the old record for the next restore; the new
 * one is recorded in the save that forgets the old. */
static int readd_rule(struct nic_job *j, int fd, const struct nk_ntuple *old)
{
	struct nk_nic_lease *l = nk_nic_state_rule_lease(&j->st, old->id);
	struct nk_ntuple r = *old;
	uint32_t old_id = old->id;
	enum nk_rule_step failed;
	int ret = lease_context(j, l, &r);

	if (ret)
		return ret;
	ret = nk_nic_rule_add(&j->st, fd, j->link.ifname, &r, l, &old_id, &failed);
	if (ret && failed == NK_RULE_ADD)
		return nk_error_errno(-ret, "cannot add rule %u of %s again (run nic restore again to retry)",
				      old_id, j->link.ifname);
	if (ret && failed == NK_RULE_PENDING)
		return nk_error_errno(-ret, "cannot write the state of %s under %s",
				      j->link.ifname, NK_NIC_STATE_DIR);
	return ret ? nk_error_errno(-ret, "rule %u was added to %s again but cannot be recorded in %s",
				    r.id, j->link.ifname, NK_NIC_STATE_DIR) : 0;
}

/* A rule whose queue the NIC no longer has cannot be added: forgotten. */
static bool rule_fits(const struct nic_job *j, const struct nk_ntuple *r)
{
	return r->rss_context || r->action == NK_RULE_ACTION_DROP || r->action < nk_nic_rx_count(j);
}

/* Is rule r one to add again: nkctl's own (steer add), or a lease's that
 * seen judged live (one whose fate is unknown waits for the next restore)? */
static bool rule_wanted(struct nic_job *j, const struct nk_nic_seen *seen,
			const struct nk_ntuple *r)
{
	const struct nk_nic_lease *l = nk_nic_state_rule_lease(&j->st, r->id);

	return !l || nk_fate_of_queues(seen, l->leased, l->nleased) == NK_FATE_LIVE;
}

/* Every recorded rule the driver no longer has, added again (a record
 * without its spec, from an older nkctl, cannot be), those of leases only
 * while seen judges them live. */
static int readd_rules(struct nic_job *j, const struct nk_nic_seen *seen,
		       struct nk_nic_restored *done)
{
	struct nk_ntuple *lost = calloc(j->st.nrules ? j->st.nrules : 1, sizeof(*lost));
	size_t n = 0;
	int fd, ret = lost ? 0 : nk_error_errno(ENOMEM, "nic restore");

	for (size_t i = 0; !ret && i < j->st.nrules; i++)
		if (nk_nic_lost_rule(&j->st, &j->rules, j->rules_ret, &j->st.rules[i]) &&
		    rule_wanted(j, seen, &j->st.rules[i]))
			lost[n++] = j->st.rules[i];
	if (!ret && n)
		ret = nk_ns_ioctl(j->ns, &fd);
	for (size_t i = 0; !ret && i < n; i++) {
		if (rule_fits(j, &lost[i])) {
			ret = readd_rule(j, fd, &lost[i]);
			done->rules += !ret;
			continue;
		}
		nk_warn("%s has no queue %llu now: rule %u that steered there leaves nkctl's record",
			j->link.ifname, (unsigned long long)lost[i].action, lost[i].id);
		nk_nic_state_forget_rule(&j->st, lost[i].id);
		done->dropped++;
		ret = nk_nic_job_save(j);
	}
	free(lost);
	return ret;
}

int nk_nic_restore(struct nic_job *j, struct nk_nic_restored *done)
{
	struct nk_nic_seen seen;
	int ret;

	memset(done, 0, sizeof(*done));
	/* One look decides it all: a record is undone, or its rules added
	 * again, only as this look judged it. A down NIC shows no queue's
	 * lease: its leases cannot be told from ended ones, so nothing is
	 * decided on it. */
	nk_nic_seen_read(NULL, j->ns, j->link.ifindex, &seen);
	if (!seen.known)
		ret = nk_error(NK_EXIT_EXISTS,
			       "%s %s: its leases cannot be read, so nothing is restored; set it up first (ip link set dev %s up)",
			       j->link.ifname, seen.why, j->link.ifname);
	else
		ret = nk_nic_undo_ended_all(j, &seen, &done->ended);
	if (!ret)
		ret = drop_vanished(j, done);
	if (!ret)
		ret = reapply_reservation(j, done);
	if (!ret)
		ret = readd_rules(j, &seen, done);
	nk_nic_seen_free(&seen);
	return ret;
}
