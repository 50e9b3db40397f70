/* SPDX-License-Identifier: GPL-2.0 */
/* Printing of links, queues and NAPIs, shared by show and link show. */
#ifndef NKCTL_SHOW_H
#define NKCTL_SHOW_H

#include <errno.h>

#include "netdev.h"
#include "nkctl.h"
#include "rtnl.h"

struct nk_lease_list;

extern const struct nk_params nk_show_params;

/* Every device (or dev) of the current netns as {"devices": [...]}. */
int nk_show(struct nk_ctx *ctx, const char *dev, bool netkit_only);
/* One device object; netns (or NULL) is printed as "netns". */
void nk_print_link(struct out *o, const struct nk_link *l, const char *netns,
		   const struct nk_link_list *links,
		   const struct nk_queue_list *queues,
		   const struct nk_napi_list *napis,
		   const struct nk_lease_list *leases);

/* Entries of a "deleted" array: the device and, when it had one, its peer
 * (which the kernel deletes with it). */
void nk_print_deleted(struct out *o, const struct nk_link *l, const struct nk_link *peer);

const char *nk_netkit_policy_name(char *buf, size_t len, uint32_t v);
const char *nk_netkit_mode_name(char *buf, size_t len, uint32_t v);
const char *nk_netkit_scrub_name(char *buf, size_t len, uint32_t v);
const char *nk_netkit_pairing_name(char *buf, size_t len, uint32_t v);

#endif
