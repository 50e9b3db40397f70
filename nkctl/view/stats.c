// SPDX-License-Identifier: GPL-2.0
/* -s: the counters show prints beside a device (as ip -s link does). */
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/counters.h"
#include "view/stats.h"

struct counter {
	const char *key;
	const char *fmt;
	size_t off;
};

#define C(key, fmt, field) { key, fmt, offsetof(struct nk_link_stats, field) }
static const struct counter rx_counters[] = {
	C("bytes", " bytes %llu", rx_bytes),
	C("packets", " packets %llu", rx_packets),
	C("errors", " errors %llu", rx_errors),
	C("dropped", " dropped %llu", rx_dropped),
	C("over-errors", " overrun %llu", rx_over_errors),
	C("missed", " missed %llu", rx_missed_errors),
	C("multicast", " mcast %llu", multicast),
	C("nohandler", " nohandler %llu", rx_nohandler),
};
static const struct counter tx_counters[] = {
	C("bytes", " bytes %llu", tx_bytes),
	C("packets", " packets %llu", tx_packets),
	C("errors", " errors %llu", tx_errors),
	C("dropped", " dropped %llu", tx_dropped),
	C("carrier-errors", " carrier %llu", tx_carrier_errors),
	C("collisions", " collisions %llu", collisions),
};
#undef C

static void print_counters(struct out *o, const char *key, const char *label,
			   const struct counter *c, size_t n, const struct nk_link_stats *s)
{
	out_obj_open(o, key);
	out_text(o, "%s", label);
	for (size_t i = 0; i < n; i++)
		out_uint(o, c[i].key, c[i].fmt,
			 *(const uint64_t *)((const char *)s + c[i].off));
	out_obj_close(o);
}

void nk_print_link_stats(struct out *o, const struct nk_link_stats *s)
{
	if (!s)
		return;
	out_obj_open(o, "stats64");
	print_counters(o, "rx", "\n    RX:", rx_counters,
		       sizeof(rx_counters) / sizeof(rx_counters[0]), s);
	print_counters(o, "tx", "\n    TX:", tx_counters,
		       sizeof(tx_counters) / sizeof(tx_counters[0]), s);
	out_obj_close(o);
}

static void link_rates(struct nk_link_stats *s, const struct nk_link_stats *before,
		       uint32_t seconds)
{
	uint64_t *n = (uint64_t *)s;
	const uint64_t *b = (const uint64_t *)before;

	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		n[i] = nk_per_second(n[i], b[i], seconds);
}

static void *dup_array(const void *v, size_t n, size_t size)
{
	void *p = malloc(n ? n * size : 1);

	if (p && n)
		memcpy(p, v, n * size);
	return p;
}

int nk_view_rates(struct nk_view *rate, const struct nk_view *now,
		  const struct nk_view *before, uint32_t seconds)
{
	struct nk_link_counters_list *ls = &rate->link_stats;
	size_t kept = 0;

	*rate = *now;
	rate->link_stats.v = dup_array(now->link_stats.v, now->link_stats.n,
				       sizeof(*now->link_stats.v));
	rate->qstats.v = dup_array(now->qstats.v, now->qstats.n, sizeof(*now->qstats.v));
	if (!rate->link_stats.v || !rate->qstats.v) {
		nk_view_rates_free(rate);
		return nk_error_errno(ENOMEM, "cannot compute the rates");
	}
	/* A device without counters before has no rate: left out. */
	for (size_t i = 0; i < ls->n; i++) {
		const struct nk_link_stats *b = nk_link_stats_find(&before->link_stats,
								   ls->v[i].ifindex);

		if (!b)
			continue;
		ls->v[kept] = ls->v[i];
		link_rates(&ls->v[kept++].s, b, seconds);
	}
	ls->n = kept;
	for (size_t i = 0; i < rate->qstats.n; i++) {
		struct nk_qstats *q = &rate->qstats.v[i];
		const struct nk_qstats *b = nk_qstats_find(&before->qstats, q->ifindex,
							   q->type, q->id);

		if (b)
			nk_qstats_rates(q, b, seconds);
		else
			q->have = 0;
	}
	return 0;
}

void nk_view_rates_free(struct nk_view *rate)
{
	free(rate->link_stats.v);
	free(rate->qstats.v);
	memset(rate, 0, sizeof(*rate));
}

void nk_sleep(uint32_t seconds)
{
	struct timespec t = { .tv_sec = seconds }, left;

	while (nanosleep(&t, &left) && errno == EINTR)
		t = left;
}

static void print_pool_stats(struct out *o, const struct nk_pool *p)
{
	if (p->stats_have)
		nk_print_counters(o, nk_pool_stat_descs, nk_pool_stat_count, p->stats_have, p->stats);
}

void nk_print_pool_state(struct out *o, const struct nk_pool *p)
{
	if (p->have & POOL_HAVE_INFLIGHT)
		out_uint(o, "inflight", " inflight %llu", p->inflight);
	if (p->have & POOL_HAVE_INFLIGHT_MEM)
		out_uint(o, "inflight-mem", " inflight-mem %llu", p->inflight_mem);
	if (p->have & POOL_HAVE_DETACH_TIME)
		out_uint(o, "detach-time", " detached %llu", p->detach_time);
	if (p->have & POOL_HAVE_DMABUF)
		out_uint(o, "dmabuf", " dmabuf %llu", p->dmabuf);
	if (p->have & POOL_HAVE_IO_URING) {
		out_obj_open(o, "io-uring");
		out_text(o, " io-uring");
		out_obj_close(o);
	}
}

void nk_print_pools(struct out *o, const struct nk_pool *p, size_t n)
{
	out_arr_open(o, "page-pools");
	for (size_t i = 0; i < n; i++, p++) {
		out_obj_open(o, NULL);
		out_uint(o, "id", "\n      page-pool %llu", p->id);
		nk_print_pool_state(o, p);
		print_pool_stats(o, p);
		out_obj_close(o);
	}
	out_arr_close(o);
}
