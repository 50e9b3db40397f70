// SPDX-License-Identifier: GPL-2.0
/*
 * RSS beyond reading and writing the main table: the minimal edit that keeps
 * reserved queues out, writes that are read back, and additional contexts
 * (the ethtool family's rss-create-act and rss-delete-act, Linux 6.13+).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "ethrss.h"

/* ETHTOOL_A_RSS_* and ETHTOOL_A_HEADER_DEV_INDEX (stable ABI). */
enum { A_RSS_HEADER = 1, A_RSS_CONTEXT = 2, A_RSS_INDIR = 4, A_RSS_MAX = 8, A_HEADER_DEV_INDEX = 1 };

static bool taken(uint32_t q, const uint32_t *take, size_t ntake)
{
	for (size_t i = 0; i < ntake; i++)
		if (take[i] == q)
			return true;
	return false;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Index of q in the sorted distinct queues qs[0..n). */
static size_t queue_index(const uint32_t *qs, size_t n, uint32_t q)
{
	const uint32_t *p = bsearch(&q, qs, n, sizeof(*qs), cmp_u32);

	return p ? (size_t)(p - qs) : n;
}

int nk_rss_take_queues(uint32_t *indir, uint32_t n, const uint32_t *take, size_t ntake)
{
	/* the distinct queues of the table, whether each is taken, and how
	 * many entries keep each: sized by the table, not by the largest
	 * queue id; taken asked once a queue, not once an entry (a GC's
	 * hundred reserved queues on a table of hundreds of entries) */
	uint32_t *qs = malloc((n ? n : 1) * sizeof(*qs));
	uint32_t *load = calloc(n ? n : 1, sizeof(*load));
	bool *gone = calloc(n ? n : 1, sizeof(*gone));
	size_t nq = 0;
	int ret = 0;

	if (!qs || !load || !gone) {
		free(qs);
		free(load);
		free(gone);
		return -ENOMEM;
	}
	memcpy(qs, indir, n * sizeof(*qs));
	qsort(qs, n, sizeof(*qs), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (!nq || qs[nq - 1] != qs[i])
			qs[nq++] = qs[i];
	for (size_t k = 0; k < nq; k++)
		gone[k] = taken(qs[k], take, ntake);
	/* Entries move only to queues that stay; taken ones count as absent. */
	for (uint32_t i = 0; i < n; i++) {
		size_t k = queue_index(qs, nq, indir[i]);

		load[k] += !gone[k];
	}
	for (uint32_t i = 0; i < n && !ret; i++) {
		size_t best = nq;

		if (!gone[queue_index(qs, nq, indir[i])])
			continue;
		for (size_t k = 0; k < nq; k++)
			if (load[k] && !gone[k] && (best == nq || load[k] < load[best]))
				best = k;
		if (best == nq) {
			ret = -ENOSPC;
			break;
		}
		indir[i] = qs[best];
		load[best]++;
	}
	free(qs);
	free(load);
	free(gone);
	return ret;
}

int ethtool_rss_set_checked(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			    const uint32_t *want, const uint32_t *prev, uint32_t n,
			    struct nl_err *err)
{
	struct nk_rss *got = malloc(sizeof(*got));
	uint32_t bad = 0;
	int ret;

	if (!got) {
		nl_err_set(err, ENOMEM, NULL);
		return -ENOMEM;
	}
	ret = ethtool_rss_set_indir(s, fam, ifindex, want, n, err);
	if (!ret)
		ret = ethtool_rss_get(s, fam, ifindex, got, err);
	if (!ret) {
		while (bad < n && bad < got->indir_size && got->indir[bad] == want[bad])
			bad++;
		if (bad < n || got->indir_size != n) {
			char msg[160];

			snprintf(msg, sizeof(msg),
				 "the driver kept a different table (entry %u reads back as %u, not %u); the previous table was written back",
				 bad, bad < got->indir_size ? got->indir[bad] : 0, bad < n ? want[bad] : 0);
			/* best effort: the error that matters is the mismatch */
			ethtool_rss_set_indir(s, fam, ifindex, prev, n, err);
			nl_err_set(err, EIO, msg);
			ret = -EIO;
		}
	}
	free(got);
	return ret;
}

/* ---- contexts ---- */

static void add_queue(struct nk_rss_ctx *c, uint32_t q)
{
	size_t k = c->nqueues;

	for (size_t i = 0; i < c->nqueues; i++)
		if (c->queues[i] == q)
			return;
	if (k == NK_RSS_CTX_MAX_QUEUES) {
		c->more_queues = true;
		return;
	}
	while (k > 0 && c->queues[k - 1] > q) {
		c->queues[k] = c->queues[k - 1];
		k--;
	}
	c->queues[k] = q;
	c->nqueues++;
}

int ethtool_parse_rss_ctx(const struct nlmsghdr *nlh, struct nk_rss_ctx *c)
{
	struct nl_attrs a, h;
	const uint32_t *t;
	size_t len;

	memset(c, 0, sizeof(*c));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -EPROTO;
	nl_parse_msg(&a, nlh, GENL_HDRLEN, A_RSS_MAX);
	if (!a.tb[A_RSS_HEADER])
		return -EPROTO;
	nl_parse_nested(&h, a.tb[A_RSS_HEADER], A_HEADER_DEV_INDEX);
	if (!h.tb[A_HEADER_DEV_INDEX])
		return -EPROTO;
	c->ifindex = (int)nl_get_uint(h.tb[A_HEADER_DEV_INDEX]);
	if (a.tb[A_RSS_CONTEXT])
		c->context = (uint32_t)nl_get_uint(a.tb[A_RSS_CONTEXT]);
	if (!a.tb[A_RSS_INDIR])
		return 0;
	t = mnl_attr_get_payload(a.tb[A_RSS_INDIR]);
	len = mnl_attr_get_payload_len(a.tb[A_RSS_INDIR]) / sizeof(uint32_t);
	c->indir_size = (uint32_t)len;
	for (size_t i = 0; i < len; i++) {
		uint32_t q;

		memcpy(&q, t + i, sizeof(q));   /* attribute payloads are only 4-aligned */
		add_queue(c, q);
	}
	return 0;
}

static int ctx_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nk_rss_ctx_list *l = data;
	struct nk_rss_ctx *c = nk_grow(&l->v, &l->n, &l->cap, sizeof(*c));

	if (!c)
		return -ENOMEM;
	/* the dump starts with each device's main table: not a context */
	if (ethtool_parse_rss_ctx(nlh, c) || !c->context || c->ifindex != l->v[0].ifindex)
		l->n--;
	return 0;
}

int ethtool_rss_ctx_list(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			 struct nk_rss_ctx_list *out, struct nl_err *err)
{
	struct nlmsghdr *nlh;
	struct nk_rss_ctx *first;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!genl_has_op(fam, NK_ETHTOOL_MSG_RSS_CREATE_ACT)) {
		nl_err_set(err, EOPNOTSUPP, "this kernel has no ethtool rss-create-act");
		return -EOPNOTSUPP;
	}
	/* element 0 carries the ifindex the callback filters on */
	first = nk_grow(&out->v, &out->n, &out->cap, sizeof(*first));
	if (!first) {
		nl_err_set(err, ENOMEM, NULL);
		return -ENOMEM;
	}
	first->ifindex = ifindex;
	nlh = ethtool_request(s, fam, NK_ETHTOOL_MSG_RSS_GET, NLM_F_DUMP, ifindex);
	ret = nl_talk(s, nlh, GENL_HDRLEN, &ethtool_rss_space, ctx_cb, out, err);
	if (ret) {
		nk_rss_ctx_list_free(out);
		return ret;
	}
	memmove(out->v, out->v + 1, (out->n - 1) * sizeof(*out->v));
	out->n--;
	return 0;
}

int ethtool_rss_ctx_ids(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			uint32_t id, bool *exists, uint32_t *lowest_free, struct nl_err *err)
{
	struct nk_rss_ctx_list l;
	bool taken = true;
	int ret = ethtool_rss_ctx_list(s, fam, ifindex, &l, err);

	*exists = false;
	*lowest_free = 0;
	if (ret)
		return ret;
	for (size_t i = 0; i < l.n; i++)
		*exists |= id && l.v[i].context == id;
	/* ids start at 1; at most n of the first n+1 are taken */
	for (uint32_t c = 1; taken && c <= l.n + 1; c++) {
		taken = false;
		for (size_t i = 0; i < l.n && !taken; i++)
			taken = l.v[i].context == c;
		if (!taken)
			*lowest_free = c;
	}
	nk_rss_ctx_list_free(&l);
	return 0;
}

int ethtool_rss_ctx_supported(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			      bool *yes, struct nl_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	*yes = false;
	if (!genl_has_op(fam, NK_ETHTOOL_MSG_RSS_CREATE_ACT))
		return 0;
	nlh = ethtool_request(s, fam, NK_ETHTOOL_MSG_RSS_GET, NLM_F_ACK, ifindex);
	mnl_attr_put_u32(nlh, A_RSS_CONTEXT, UINT32_MAX);
	ret = nl_talk(s, nlh, GENL_HDRLEN, &ethtool_rss_space, NULL, NULL, err);
	*yes = ret == -ENOENT || ret == 0;
	return ret == -ENOENT || ret == -EOPNOTSUPP || ret == 0 ? 0 : ret;
}

void nk_rss_ctx_list_free(struct nk_rss_ctx_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int created_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nk_rss_ctx c;

	if (!ethtool_parse_rss_ctx(nlh, &c))
		*(uint32_t *)data = c.context;
	return 0;
}

int ethtool_rss_ctx_create(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			   const uint32_t *queues, size_t nq, uint32_t indir_size,
			   uint32_t *context, struct nl_err *err)
{
	struct nlmsghdr *nlh;
	uint32_t *indir;
	int ret;

	if (!nq || !indir_size || indir_size > NK_RSS_MAX_INDIR) {
		nl_err_set(err, EINVAL, "no queues or no indirection table for an RSS context");
		return -EINVAL;
	}
	indir = malloc(indir_size * sizeof(*indir));
	if (!indir) {
		nl_err_set(err, ENOMEM, NULL);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < indir_size; i++)
		indir[i] = queues[i % nq];
	nlh = ethtool_request(s, fam, NK_ETHTOOL_MSG_RSS_CREATE_ACT, NLM_F_ACK, ifindex);
	if (*context)
		mnl_attr_put_u32(nlh, A_RSS_CONTEXT, *context);
	*context = 0;
	mnl_attr_put(nlh, A_RSS_INDIR, indir_size * sizeof(*indir), indir);
	free(indir);
	ret = nl_talk(s, nlh, GENL_HDRLEN, &ethtool_rss_space, created_cb, context, err);
	if (!ret && !*context) {
		nl_err_set(err, EPROTO, "rss-create-act answered without a context id");
		ret = -EPROTO;
	}
	return ret;
}

int ethtool_rss_ctx_delete(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			   uint32_t context, struct nl_err *err)
{
	struct nlmsghdr *nlh = ethtool_request(s, fam, NK_ETHTOOL_MSG_RSS_DELETE_ACT, NLM_F_ACK,
					       ifindex);

	mnl_attr_put_u32(nlh, A_RSS_CONTEXT, context);
	return nl_talk(s, nlh, GENL_HDRLEN, &ethtool_rss_space, NULL, NULL, err);
}
