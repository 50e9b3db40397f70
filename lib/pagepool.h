/* SPDX-License-Identifier: GPL-2.0 */
/* netdev page-pool-get and page-pool-stats-get: a queue's page pools. */
#ifndef NKCTL_PAGEPOOL_H
#define NKCTL_PAGEPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "genl.h"
#include "nl.h"

enum {
	POOL_HAVE_NAPI = 1 << 0,
	POOL_HAVE_INFLIGHT = 1 << 1,
	POOL_HAVE_INFLIGHT_MEM = 1 << 2,
	POOL_HAVE_DETACH_TIME = 1 << 3,
	POOL_HAVE_DMABUF = 1 << 4,
	POOL_HAVE_IO_URING = 1 << 5,
};

/* The stats counters: attribute and JSON key; index i is bit i of stats_have. */
extern const struct nk_counter_desc nk_pool_stat_descs[];
extern const size_t nk_pool_stat_count;
#define NK_POOL_STAT_MAX 16

/* ifindex first: sorted by (ifindex, napi_id, id). */
struct nk_pool {
	int ifindex;
	uint32_t napi_id;
	uint32_t id;
	unsigned int have;
	uint64_t inflight, inflight_mem, detach_time;
	uint32_t dmabuf;
	uint32_t stats_have;
	uint64_t stats[NK_POOL_STAT_MAX];
};

struct nk_pool_list { struct nk_pool *v; size_t n, cap; };

/* Every page pool of the namespace with its stats (stats_have 0 when the
 * kernel has no page-pool-stats-get or was built without them). */
int netdev_pool_dump(struct nl_sock *s, const struct genl_family *fam,
		     struct nk_pool_list *out, struct nl_err *err);
int netdev_parse_pool(const struct nlmsghdr *nlh, struct nk_pool *p);
/* Decode one page-pool-stats-get reply into the pool of l it names. */
int netdev_parse_pool_stats(const struct nlmsghdr *nlh, struct nk_pool_list *l);
void nk_pool_list_sort(struct nk_pool_list *l);
void nk_pool_list_free(struct nk_pool_list *l);
/* The pools of (ifindex, napi_id): first and count. */
const struct nk_pool *nk_pools_of(const struct nk_pool_list *l, int ifindex,
				  uint32_t napi_id, size_t *count);

#endif
