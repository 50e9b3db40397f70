/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel features (kernel.c): one row per feature; show kernel lists them, a
 * command that needs one asks. No Linux version is written anywhere else.
 */
#ifndef NKCTL_KERNEL_H
#define NKCTL_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ctx.h"

enum nk_feature {
	NK_FEAT_NETDEV, NK_FEAT_QUEUE_GET, NK_FEAT_NAPI_GET, NK_FEAT_BIND_RX, NK_FEAT_BIND_TX,
	NK_FEAT_RX_PAGE_SIZE, NK_FEAT_QUEUE_CREATE, NK_FEAT_LEASE_NETNS_ID, NK_FEAT_NETKIT,
	NK_FEAT_NETKIT_SINGLE, NK_FEAT_TCX, NK_FEAT_NETKIT_BPF, NK_FEAT_UDMABUF, NK_FEAT_DMA_HEAP,
	NK_FEAT_ETHTOOL_CHANNELS, NK_FEAT_ETHTOOL_RINGS, NK_FEAT_ETHTOOL_RSS_GET,
	NK_FEAT_ETHTOOL_RSS_SET,
	NK_FEAT_N
};
/* 0 when the kernel has it (or it cannot tell); else "this kernel has no
 * ... (needs Linux X+)" and the exit code. */
int nk_feature_need(struct nk_ctx *ctx, enum nk_feature id);
/* Does the kernel have it? A question, not a requirement: nothing said
 * (false also when the probe could not run). */
bool nk_feature_has(struct nk_ctx *ctx, enum nk_feature id);
/* The first Linux release with it, for messages that say more. */
const char *nk_feature_since(enum nk_feature id);
/* "this kernel has no NOUN (WHAT needs Linux X+)", as nk_feature_need says. */
void nk_feature_missing(enum nk_feature id, char *buf, size_t len);
/* Its row's name in show kernel ("netkit", "queue-create"). */
const char *nk_feature_name(enum nk_feature id);
/* The ethtool family on ns's generic netlink socket; a kernel without it
 * is exit status 5. */
int nk_ns_ethtool(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam);
/* Every feature in order, each probed once (the probes share what they learn
 * within one walk): fn gets its id, whether the kernel has it, the state
 * ("yes", "no", or "unknown" when the probe could not run) and a detail ("":
 * none). For show kernel. */
typedef void (*nk_feature_fn)(enum nk_feature id, bool supported, const char *state,
			      const char *detail, void *data);
void nk_features_probe(struct nk_ctx *ctx, nk_feature_fn fn, void *data);

#endif
