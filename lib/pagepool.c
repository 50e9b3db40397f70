// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "compat.h"
#include "pagepool.h"

#define P(name, key) { NK_NETDEV_A_PAGE_POOL_STATS_##name, key }
const struct nk_counter_desc nk_pool_stat_descs[] = {
	P(ALLOC_FAST, "alloc-fast"), P(ALLOC_SLOW, "alloc-slow"),
	P(ALLOC_SLOW_HIGH_ORDER, "alloc-slow-high-order"), P(ALLOC_EMPTY, "alloc-empty"),
	P(ALLOC_REFILL, "alloc-refill"), P(ALLOC_WAIVE, "alloc-waive"),
	P(RECYCLE_CACHED, "recycle-cached"), P(RECYCLE_CACHE_FULL, "recycle-cache-full"),
	P(RECYCLE_RING, "recycle-ring"), P(RECYCLE_RING_FULL, "recycle-ring-full"),
	P(RECYCLE_RELEASED_REFCNT, "recycle-released-refcnt"),
};
#undef P
const size_t nk_pool_stat_count = sizeof(nk_pool_stat_descs) / sizeof(nk_pool_stat_descs[0]);
_Static_assert(sizeof(nk_pool_stat_descs) / sizeof(nk_pool_stat_descs[0]) <= NK_POOL_STAT_MAX,
	       "stats[] is too short");

int netdev_parse_pool(const struct nlmsghdr *nlh, struct nk_pool *p)
{
	static const struct { uint16_t attr; unsigned int bit; size_t off; } u64s[] = {
		{ NK_NETDEV_A_PAGE_POOL_INFLIGHT, POOL_HAVE_INFLIGHT, offsetof(struct nk_pool, inflight) },
		{ NK_NETDEV_A_PAGE_POOL_INFLIGHT_MEM, POOL_HAVE_INFLIGHT_MEM,
		  offsetof(struct nk_pool, inflight_mem) },
		{ NK_NETDEV_A_PAGE_POOL_DETACH_TIME, POOL_HAVE_DETACH_TIME,
		  offsetof(struct nk_pool, detach_time) },
	};
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_PAGE_POOL_MAX);
	if (!a.tb[NK_NETDEV_A_PAGE_POOL_ID])
		return -ENOENT;
	memset(p, 0, sizeof(*p));
	p->id = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_PAGE_POOL_ID]);
	if (a.tb[NK_NETDEV_A_PAGE_POOL_IFINDEX])
		p->ifindex = (int)nl_get_uint(a.tb[NK_NETDEV_A_PAGE_POOL_IFINDEX]);
	if (a.tb[NK_NETDEV_A_PAGE_POOL_NAPI_ID]) {
		p->napi_id = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_PAGE_POOL_NAPI_ID]);
		p->have |= POOL_HAVE_NAPI;
	}
	for (size_t i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++) {
		if (!a.tb[u64s[i].attr])
			continue;
		*(uint64_t *)((char *)p + u64s[i].off) = nl_get_uint(a.tb[u64s[i].attr]);
		p->have |= u64s[i].bit;
	}
	if (a.tb[NK_NETDEV_A_PAGE_POOL_DMABUF]) {
		p->dmabuf = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_PAGE_POOL_DMABUF]);
		p->have |= POOL_HAVE_DMABUF;
	}
	if (a.tb[NK_NETDEV_A_PAGE_POOL_IO_URING])
		p->have |= POOL_HAVE_IO_URING;
	return 0;
}

static int parse_cb(const struct nlmsghdr *nlh, void *p)
{
	return netdev_parse_pool(nlh, p);
}

static struct nk_pool *pool_by_id(struct nk_pool_list *l, uint32_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].id == id)
			return &l->v[i];
	return NULL;
}

int netdev_parse_pool_stats(const struct nlmsghdr *nlh, struct nk_pool_list *l)
{
	struct nl_attrs a, info;
	struct nk_pool *p;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_PAGE_POOL_STATS_MAX);
	if (!a.tb[NK_NETDEV_A_PAGE_POOL_STATS_INFO])
		return 0;
	nl_parse_nested(&info, a.tb[NK_NETDEV_A_PAGE_POOL_STATS_INFO], NK_NETDEV_A_PAGE_POOL_MAX);
	if (!info.tb[NK_NETDEV_A_PAGE_POOL_ID])
		return 0;
	p = pool_by_id(l, (uint32_t)nl_get_uint(info.tb[NK_NETDEV_A_PAGE_POOL_ID]));
	if (!p)
		return 0; /* created between the two dumps */
	for (size_t i = 0; i < nk_pool_stat_count; i++) {
		const struct nlattr *attr = a.tb[nk_pool_stat_descs[i].attr];

		if (!attr)
			continue;
		p->stats[i] = nl_get_uint(attr);
		p->stats_have |= 1u << i;
	}
	return 0;
}

static int stats_cb(const struct nlmsghdr *nlh, void *l)
{
	return netdev_parse_pool_stats(nlh, l);
}

static int cmp_pool(const void *a, const void *b)
{
	const struct nk_pool *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->napi_id != y->napi_id)
		return x->napi_id < y->napi_id ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void nk_pool_list_sort(struct nk_pool_list *l)
{
	nk_sort(l->v, l->n, sizeof(*l->v), cmp_pool);
}

void nk_pool_list_free(struct nk_pool_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct nk_pool *nk_pools_of(const struct nk_pool_list *l, int ifindex,
				  uint32_t napi_id, size_t *count)
{
	size_t lo = 0, hi = l->n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nk_pool *p = &l->v[mid];

		if (p->ifindex < ifindex || (p->ifindex == ifindex && p->napi_id < napi_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < l->n && l->v[end].ifindex == ifindex &&
	     l->v[end].napi_id == napi_id; end++)
		;
	*count = end - lo;
	return *count ? &l->v[lo] : NULL;
}

int netdev_pool_dump(struct nl_sock *s, const struct genl_family *fam,
		     struct nk_pool_list *out, struct nl_err *err)
{
	struct nl_collect c = NL_COLLECT(out, parse_cb, 0);
	int ret = 0;

	nl_collect_begin(&c);
	if (genl_has_op(fam, NK_NETDEV_CMD_PAGE_POOL_GET))
		ret = nl_talk(s, genl_msg(s, fam, NK_NETDEV_CMD_PAGE_POOL_GET, NLM_F_DUMP),
			      GENL_HDRLEN, NULL, nl_collect_cb, &c, err);
	/* Stats only with CONFIG_PAGE_POOL_STATS: the op is absent otherwise. */
	if (!ret && out->n && genl_has_op(fam, NK_NETDEV_CMD_PAGE_POOL_STATS_GET))
		ret = nl_talk(s, genl_msg(s, fam, NK_NETDEV_CMD_PAGE_POOL_STATS_GET, NLM_F_DUMP),
			      GENL_HDRLEN, NULL, stats_cb, out, err);
	return nl_collect_end(&c, ret, cmp_pool);
}
