// SPDX-License-Identifier: GPL-2.0
/*
 * The RSS context of lease ... steer over several queues (rssctx.h): a
 * context whose table names exactly the leased queues, and the rules steer
 * into it (FLOW_RSS, offset 0), so the steered flows spread over all of
 * them. A driver without contexts keeps the one-queue steering, and the
 * operator is told.
 *
 * The id is chosen and recorded before the context is made, so that a kill
 * in between leaves no context the record does not name. (Recording the id
 * only once the kernel returned it would instead leave, after a kill between
 * the two, a context nobody records or deletes.) A recorded id is only an
 * intent, though, so before a context is deleted or reused the lease unit's
 * "mine" (nk_mine_rss_context, mine.c) says whether it is still the
 * lease's; one that is not is forgotten, never deleted.
 */
#include <errno.h>
#include <stdbool.h>

#include "lease/mine.h"
#include "lease/rssctx.h"
#include "ethrss.h"

/* Is the context at l's recorded id there, and the lease's? *there says
 * whether any context has that id. */
static int ctx_owned(struct nic_job *j, const struct nk_nic_lease *l, bool *there, bool *ours,
		     struct nl_err *err)
{
	struct nk_rss_ctx_list all;
	int ret = ethtool_rss_ctx_list(j->et, j->fam, j->link.ifindex, &all, err);

	*there = *ours = false;
	if (ret)
		return ret;
	*ours = nk_mine_rss_context(&all, l, there);
	nk_rss_ctx_list_free(&all);
	return 0;
}

int nk_nic_drop_context(struct nic_job *j, struct nk_nic_lease *l)
{
	bool there = true, ours = true;
	struct nl_err err;
	int ret;

	if (!l->rss_context)
		return 0;
	/* a kernel that cannot list them: the recorded id is deleted as before */
	if (!ctx_owned(j, l, &there, &ours, &err) && (!there || !ours)) {
		l->rss_context = 0;     /* gone, or another tool's: forgotten */
		return 0;
	}
	ret = ethtool_rss_ctx_delete(j->et, j->fam, j->link.ifindex, l->rss_context, &err);
	if (ret && ret != -ENOENT)
		return nk_error_nl(&err, "cannot delete RSS context %u of %s", l->rss_context,
				   j->link.ifname);
	l->rss_context = 0;
	return 0;
}

/* Record context id as the lease's, then make it: the intent first. */
static int make_context(struct nic_job *j, struct nk_nic_lease *l, uint32_t id)
{
	struct nl_err err;
	int ret;

	l->rss_context = id;
	ret = nk_nic_job_save(j);
	if (!ret && ethtool_rss_ctx_create(j->et, j->fam, j->link.ifindex, j->ids, j->n,
					   j->rss.indir_size, &id, &err)) {
		ret = nk_error_nl(&err, "cannot create an RSS context over the leased queues of %s",
				  j->link.ifname);
		/* Refused: nothing was made, and the id may be another tool's
		 * (taken meanwhile), which unlease must never delete. */
		l->rss_context = 0;
		nk_nic_state_save(&j->st);     /* best effort: the error is said */
		return ret;
	}
	if (!ret && id && id != l->rss_context) {
		l->rss_context = id;   /* not the one asked: record what it is */
		ret = nk_nic_job_save(j);
	}
	return ret;
}

int nk_nic_lease_context(struct nic_job *j, struct nk_nic_lease *l, struct nk_ntuple *rules,
			size_t nrules)
{
	struct nl_err err;
	bool have = false, exists = false, ours = true;
	uint32_t id = 0;
	int ret;

	ethtool_rss_ctx_supported(j->et, j->fam, j->link.ifindex, &have, &err);
	ret = have ? ethtool_rss_ctx_ids(j->et, j->fam, j->link.ifindex, l->rss_context, &exists,
					 &id, &err) : -EOPNOTSUPP;
	if (ret == -EOPNOTSUPP) {
		nk_warn("%s has no RSS contexts: the steered flows all go to queue %u, not spread over the %zu leased queues",
			j->link.ifname, j->ids[0], j->n);
		return 0;
	}
	if (!ret && exists)
		ret = ctx_owned(j, l, &exists, &ours, &err);
	if (ret)
		return nk_error_nl(&err, "cannot read the RSS contexts of %s", j->link.ifname);
	if (exists && !ours) {
		l->rss_context = 0;     /* another tool's took the recorded id: a new one */
		exists = false;
	}
	if (!exists)
		ret = make_context(j, l, l->rss_context ? l->rss_context : id);
	for (size_t i = 0; i < nrules && !ret; i++) {
		rules[i].rss_context = l->rss_context;
		rules[i].action = 0;
	}
	return ret;
}
