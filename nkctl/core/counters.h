/* SPDX-License-Identifier: GPL-2.0 */
/* A queue's counters and memory providers printed, and rates (counters.c). */
#ifndef NKCTL_COUNTERS_H
#define NKCTL_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"
#include "netdev.h"
#include "qstats.h"

/* {"stats": {key: value}} of the counters of descs[0..n) whose bit is set
 * in have. */
void nk_print_counters(struct out *o, const struct nk_counter_desc *descs, size_t n,
		       uint32_t have, const uint64_t *v);
/* -s: one queue's qstats as "stats" (nothing when q is NULL). */
void nk_print_qstats(struct out *o, const struct nk_qstats *q);
/* A NIC queue's memory provider (have: QUEUE_HAVE_DMABUF|IO_URING|XSK) as
 * show leases and nic show print it. */
void nk_print_mp(struct out *o, unsigned int have, uint32_t dmabuf);
/* A counter's per-second rate since before (a counter that went back, a
 * reset, gives 0). */
uint64_t nk_per_second(uint64_t now, uint64_t before, uint32_t seconds);
/* One lease's NIC queue counters as per-second rates since before. */
void nk_qstats_rates(struct nk_qstats *q, const struct nk_qstats *before, uint32_t seconds);

#endif
