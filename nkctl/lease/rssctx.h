/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RSS context of a lease over several queues (rssctx.c): a context
 * whose table names exactly the leased queues, which the lease's rules
 * steer into, so the steered flows spread over all of them. Its id is
 * recorded with the lease before it is made, and a context at that id is
 * taken as the lease's only when its table names exactly the lease's
 * queues (nk_mine_rss_context, lease/mine.h: asked before it is deleted or
 * reused).
 */
#ifndef NKCTL_LEASE_RSSCTX_H
#define NKCTL_LEASE_RSSCTX_H

#include "nic/nicjob.h"

/* Make (or reuse) the context of lease l over j->ids and point rules[nrules]
 * into it; a driver without contexts keeps the one-queue steering and the
 * operator is told. 0, or the exit code after the error. */
int nk_nic_lease_context(struct nic_job *j, struct nk_nic_lease *l, struct nk_ntuple *rules,
			size_t nrules);
/* Delete lease l's context, after its rules (the kernel keeps a context a
 * rule names); one already gone is fine. Not saved. */
int nk_nic_drop_context(struct nic_job *j, struct nk_nic_lease *l);

#endif
