// SPDX-License-Identifier: GPL-2.0
/* -s: the counters show prints beside a device (as ip -s link does). */
#include <stddef.h>
#include <stdio.h>

#include "show.h"

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

void nk_print_link_stats(struct out *o, const struct nk_link *l)
{
	if (!(l->have & LINK_HAVE_STATS64))
		return;
	out_obj_open(o, "stats64");
	print_counters(o, "rx", "\n    RX:", rx_counters,
		       sizeof(rx_counters) / sizeof(rx_counters[0]), &l->stats);
	print_counters(o, "tx", "\n    TX:", tx_counters,
		       sizeof(tx_counters) / sizeof(tx_counters[0]), &l->stats);
	out_obj_close(o);
}

void nk_print_qstats(struct out *o, const struct nk_qstats *q)
{
	if (!q || !q->have)
		return;
	out_obj_open(o, "stats");
	for (size_t i = 0; i < nk_qstat_count; i++) {
		char fmt[48];

		if (!(q->have & (1u << i)))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%llu", nk_qstat_descs[i].key);
		out_uint(o, nk_qstat_descs[i].key, fmt, q->v[i]);
	}
	out_obj_close(o);
}
