/* SPDX-License-Identifier: GPL-2.0 */
/* Counters as show -s prints them (stats.c): a device's stats64, queues' qstats, page pools, per-second rates. */
#ifndef NKCTL_STATS_H
#define NKCTL_STATS_H

#include "core/counters.h"
#include "view/devview.h"

/* -s: the device's IFLA_STATS64 counters as "stats64". */
void nk_print_link_stats(struct out *o, const struct nk_link_stats *s);
/* rate: now's links and qstats with every counter the per-second rate since
 * before (a counter that went back, a reset, gives 0); its other lists are
 * now's, borrowed. Free with nk_view_rates_free. Returns 0, or the exit code
 * after the error is printed. */
int nk_view_rates(struct nk_view *rate, const struct nk_view *now,
		  const struct nk_view *before, uint32_t seconds);
void nk_view_rates_free(struct nk_view *rate);
/* Sleep whole seconds, resumed after a signal that did not end nkctl. */
void nk_sleep(uint32_t seconds);
/* -s: the page pools of an RX queue (by its NAPI) as "page-pools". */
void nk_print_pools(struct out *o, const struct nk_pool *p, size_t n);
/* A page pool's inflight, inflight-mem, detach-time and memory provider. */
void nk_print_pool_state(struct out *o, const struct nk_pool *p);

#endif
