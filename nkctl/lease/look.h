/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One look at a NIC for the fate judgement (look.c): its link state, one
 * RX queue dump, and each lease's holder as ifindex with its namespace (the
 * lease's netns-id, named through the command's namespaces). Read once and
 * asked for every record, slot and holder of that NIC (fate.h).
 */
#ifndef NKCTL_LEASE_LOOK_H
#define NKCTL_LEASE_LOOK_H

#include "core/ctx.h"
#include "lease/fate.h"
#include "netdev.h"
#include "rtnl.h"

/* Look at the NIC ifindex of ns. ctx names the namespaces of holders in
 * other namespaces (NULL: those are not told apart; enough for a NIC
 * record's fate, not for a slot's). Never fails: what cannot be read is
 * seen->look. */
void nk_nic_seen_read(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, struct nk_nic_seen *seen);
/* The same from a dump already read (q: queues of any devices of ns, with
 * look what the link said; only ifindex's are taken). */
int nk_nic_seen_from(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, enum nk_look look,
		     const struct nk_queue_list *q, struct nk_nic_seen *seen);
void nk_nic_seen_free(struct nk_nic_seen *seen);
/* The look of a NIC whose link l was read (and, dumped, its queues): down,
 * up but its queues unread (unreadable), or seen. Every reader of a NIC's
 * state asks this, never its flags. */
enum nk_look nk_look_of(const struct nk_link *l, bool dumped);
/* The identity of ns for a holder id. */
struct nk_ns_id nk_ns_id_of(const struct nk_ns *ns);

#endif
