/* SPDX-License-Identifier: GPL-2.0 */
/* netdev qstats-get, scope queue: the per-queue counters a driver reports. */
#ifndef NKCTL_QSTATS_H
#define NKCTL_QSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "genl.h"
#include "nl.h"

/* One counter: its attribute, JSON key and text label. The table is the
 * single list of counters nkctl knows; an index into it is a bit of have. */
extern const struct nk_counter_desc nk_qstat_descs[];
extern const size_t nk_qstat_count;
#define NK_QSTAT_MAX 32

/* ifindex first, sorted as the queue dump (ifindex, type, id). */
struct nk_qstats {
	int ifindex;
	uint32_t type;           /* NK_NETDEV_QUEUE_TYPE_* */
	uint32_t id;
	uint32_t have;           /* bit i: nk_qstat_descs[i] was reported */
	uint64_t v[NK_QSTAT_MAX];
};

struct nk_qstats_list { struct nk_qstats *v; size_t n, cap; };

/* Every queue of every device whose driver reports queue stats (ifindex 0),
 * or of one device. A kernel without qstats-get, or a device without
 * per-queue stats, gives an empty list, not an error. */
int netdev_qstats_dump(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		       struct nk_qstats_list *out, struct nl_err *err);
/* Decode one qstats-get reply; -ENOENT without ifindex, type or id. */
int netdev_parse_qstats(const struct nlmsghdr *nlh, struct nk_qstats *q);
void nk_qstats_list_sort(struct nk_qstats_list *l);
void nk_qstats_list_free(struct nk_qstats_list *l);
const struct nk_qstats *nk_qstats_find(const struct nk_qstats_list *l, int ifindex,
				       uint32_t type, uint32_t id);

#endif
