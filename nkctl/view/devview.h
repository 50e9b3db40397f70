/* SPDX-License-Identifier: GPL-2.0 */
/* Devices as nkctl shows them, with their queues, NAPIs and counters
 * (devview.c, stats.c): shared by show, link and show leases. */
#ifndef NKCTL_DEVVIEW_H
#define NKCTL_DEVVIEW_H

#include <errno.h>

#include "netdev.h"
#include "rtnl.h"

#include "lease/scan.h"
#include "pagepool.h"
#include "qstats.h"

/* What show prints from: the dumps of one namespace. A printer is handed
 * the view; lists a command did not dump stay empty. */
struct nk_view {
	struct nk_link_list links;
	struct nk_link_counters_list link_stats; /* -s only */
	struct nk_queue_list queues;
	struct nk_napi_list napis;
	struct nk_lease_list leases;
	struct nk_qstats_list qstats;  /* -s only */
	struct nk_pool_list pools;     /* -s only */
	struct nk_ns *here;        /* whose queues these are (lease look-ups) */
	bool stats;                /* -s: print the counters */
};
void nk_view_free(struct nk_view *v);

/* Every device (or dev) of the current netns as {"devices": [...]}. */
int nk_show(struct nk_ctx *ctx, const char *dev, bool netkit_only);
/* One device object; netns (or NULL) is printed as "netns". */
void nk_print_link(struct out *o, const struct nk_link *l, const char *netns,
		   const struct nk_view *v);
/* The {"devices": [...]} document of links alone (link add, link set). */
void nk_print_links(struct nk_ctx *ctx, const struct nk_link *const *l, const char *const *netns,
		    size_t n);

/* A device's ifi_flags as "flags": ["UP", ...] (text "<UP,...> "), and its
 * IFLA_OPERSTATE as a word. */
void nk_print_flags(struct out *o, unsigned int flags);
const char *nk_operstate_name(uint8_t v, char *buf, size_t len);

/* "interval SECONDS [ count N ]": counters read that far apart, printed as
 * per-second rates (show, show leases). */
struct nk_interval {
	uint32_t interval, count;
};
#define NK_INTERVAL_PARAMS(type, member)					\
	{ "interval", NKP_U32, offsetof(type, member) + offsetof(struct nk_interval, interval), \
	  "SECONDS", 1, 3600, NULL, false, NULL },				\
	{ "count", NKP_U32, offsetof(type, member) + offsetof(struct nk_interval, count), \
	  "N", 1, 1000000, NULL, false, NULL }
#define NK_INTERVAL_RULE { NK_RULE_NEEDS, { "count", "interval" } }
/* show ... interval S [ count N ]: dev's counters (NULL: every device's)
 * read S seconds apart, printed as per-second rates, one document per
 * interval (JSON: one per line). */
int nk_show_rates(struct nk_ctx *ctx, const char *dev, const struct nk_interval *every);
struct nk_show_leases_args {
	struct nk_interval every;
};

/* Entries of a "deleted" array: the device and, when it had one, its peer
 * (which the kernel deletes with it). */
void nk_print_deleted(struct out *o, const struct nk_link *l, const struct nk_link *peer);

#endif
