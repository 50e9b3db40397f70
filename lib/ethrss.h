/* SPDX-License-Identifier: GPL-2.0 */
/* RSS (ethrss.c): minimal edits of the table, checked writes, additional contexts. */
#ifndef NKCTL_ETHRSS_H
#define NKCTL_ETHRSS_H

#include "ethtool.h"

/* Move every entry of indir[0..n) that names a queue of take[0..ntake) to the
 * least-loaded queue the table already uses that take does not name (the
 * lowest of equals). Other entries are left alone, so a queue the operator
 * kept out of the table stays out. 0, or -ENOSPC when no queue would be left. */
int nk_rss_take_queues(uint32_t *indir, uint32_t n, const uint32_t *take, size_t ntake);
/* rss-set of want[0..n), then read back: on any difference prev[0..n) is
 * written back and -EIO returned (err says which entry). */
int ethtool_rss_set_checked(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			    const uint32_t *want, const uint32_t *prev, uint32_t n,
			    struct nl_err *err);

/* An additional RSS context (rss-create-act): its own table spreading the
 * flows steered into it over a set of queues. */
#define NK_RSS_CTX_MAX_QUEUES 256
struct nk_rss_ctx {
	int ifindex;
	uint32_t context;                       /* 0: the device's main table */
	uint32_t indir_size;
	uint32_t queues[NK_RSS_CTX_MAX_QUEUES]; /* distinct, ascending */
	size_t nqueues;
	bool more_queues;                       /* beyond NK_RSS_CTX_MAX_QUEUES */
};
struct nk_rss_ctx_list {
	struct nk_rss_ctx *v;
	size_t n, cap;
};
/* The contexts (not 0) of ifindex; -EOPNOTSUPP when the kernel cannot dump them. */
int ethtool_rss_ctx_list(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			 struct nk_rss_ctx_list *out, struct nl_err *err);
void nk_rss_ctx_list_free(struct nk_rss_ctx_list *l);
/* Does the driver have RSS contexts? Asks for one that cannot exist: the
 * kernel answers -ENOENT when the driver has contexts, -EOPNOTSUPP when not. */
int ethtool_rss_ctx_supported(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			      bool *yes, struct nl_err *err);
/* The lowest context id no context of ifindex has (for rss-create-act with
 * a chosen id), and whether context id exists. */
int ethtool_rss_ctx_ids(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			uint32_t id, bool *exists, uint32_t *lowest_free, struct nl_err *err);
/* A context whose table of indir_size entries names queues[0..nq) in turn.
 * *context: the id to create (0: the kernel chooses); then the id it got. */
int ethtool_rss_ctx_create(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			   const uint32_t *queues, size_t nq, uint32_t indir_size,
			   uint32_t *context, struct nl_err *err);
int ethtool_rss_ctx_delete(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			   uint32_t context, struct nl_err *err);
/* An rss-get reply (do or dump) or rss-create-act reply into c; -EPROTO when
 * it is not one. The fuzzer drives it. */
int ethtool_parse_rss_ctx(const struct nlmsghdr *nlh, struct nk_rss_ctx *c);

#endif
