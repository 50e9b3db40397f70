// SPDX-License-Identifier: GPL-2.0
/* A queue's counters as show -s and show leases -s print them, and their
 * per-second rates: below both the device view and the lease scan. */
#include <stdio.h>

#include "core/counters.h"

/* {"stats": {key: value}} of the counters whose bit is set in have. */
void nk_print_counters(struct out *o, const struct nk_counter_desc *descs, size_t n,
			    uint32_t have, const uint64_t *v)
{
	out_obj_open(o, "stats");
	for (size_t i = 0; i < n; i++) {
		char fmt[48];

		if (!(have & (1u << i)))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%llu", descs[i].key);
		out_uint(o, descs[i].key, fmt, v[i]);
	}
	out_obj_close(o);
}

void nk_print_qstats(struct out *o, const struct nk_qstats *q)
{
	if (q && q->have)
		nk_print_counters(o, nk_qstat_descs, nk_qstat_count, q->have, q->v);
}

void nk_print_mp(struct out *o, unsigned int have, uint32_t dmabuf)
{
	if (have & QUEUE_HAVE_DMABUF)
		out_uint(o, "dmabuf", " dmabuf %llu", dmabuf);
	if (have & QUEUE_HAVE_IO_URING) {
		out_obj_open(o, "io-uring");
		out_text(o, " io-uring");
		out_obj_close(o);
	}
	if (have & QUEUE_HAVE_XSK) {
		out_obj_open(o, "xsk");
		out_text(o, " xsk");
		out_obj_close(o);
	}
}

uint64_t nk_per_second(uint64_t now, uint64_t before, uint32_t seconds)
{
	return now >= before ? (now - before) / seconds : 0;
}

void nk_qstats_rates(struct nk_qstats *q, const struct nk_qstats *before, uint32_t seconds)
{
	q->have &= before->have;
	for (size_t i = 0; i < nk_qstat_count; i++)
		q->v[i] = nk_per_second(q->v[i], before->v[i], seconds);
}
