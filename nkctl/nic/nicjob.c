// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC job (nicjob.h): one NIC read under the per-NIC lock (hold, load,
 * settle, save), and the read-only views of show leases and doctor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "netdev.h"
#include "nic/nicjob.h"
#include "rtnl.h"

struct nic_job *nk_nic_job_new(void)
{
	struct nic_job *j = calloc(1, sizeof(*j));

	if (!j)
		nk_error_errno(ENOMEM, "cannot read the NIC");
	return j;
}

/* The lock of key when this command holds it already, else NULL; *in_order
 * false when it holds one that sorts after key. */
static struct nk_nic_held *held(struct nk_ctx *ctx, const char *key, bool *in_order)
{
	*in_order = true;
	for (size_t i = 0; i < ctx->nnic_locks; i++) {
		if (!strcmp(ctx->nic_locks[i].key, key))
			return &ctx->nic_locks[i];
		if (strcmp(ctx->nic_locks[i].key, key) > 0)
			*in_order = false;
	}
	return NULL;
}

/* The lock of key, waiting for it when may_wait and the order allows.
 * When the caller would not wait (!may_wait) and another holds it: -EBUSY,
 * its report said to the sink in place (a sweep's collecting sink drops
 * it: another command's busy NIC is not news to a sweep). */
static int hold(struct nk_ctx *ctx, const char *key, bool may_wait)
{
	struct nk_nic_held *h;
	bool in_order;
	int fd, ret;

	h = held(ctx, key, &in_order);
	if (h) {
		h->depth++;
		return 0;
	}
	if (ctx->nnic_locks == NK_NIC_HELD_MAX)
		return nk_error(NK_EXIT_FAIL, "cannot lock NIC %s: %d NIC locks held already", key,
				NK_NIC_HELD_MAX);
	/* Locks are taken in the order of their keys; one out of order is only
	 * tried, so that two commands never wait for each other. */
	ret = nk_nic_lock(key, in_order && may_wait, &fd);
	if (ret == -EWOULDBLOCK && !may_wait) {
		nk_error(NK_EXIT_EXISTS, "NIC %s is locked by another nkctl", key);
		return -EBUSY;
	}
	if (ret == -EPERM)
		return nk_error(NK_EXIT_PERM,
				"%s must be a directory owned by this user with mode 0700 (no symlink); refusing to keep NIC state there",
				NK_NIC_STATE_DIR);
	if (ret == -EWOULDBLOCK)
		return nk_error(NK_EXIT_EXISTS,
				"NIC %s is locked by another nkctl, and waiting for it here could deadlock; try again",
				key);
	if (ret)
		return nk_error_errno(-ret, "cannot lock NIC %s under %s", key, NK_NIC_STATE_DIR);
	h = &ctx->nic_locks[ctx->nnic_locks++];
	snprintf(h->key, sizeof(h->key), "%s", key);
	h->fd = fd;
	h->depth = 1;
	return 0;
}

int nk_nic_hold(struct nk_ctx *ctx, const char *key)
{
	return hold(ctx, key, true);
}

void nk_nic_unhold(struct nk_ctx *ctx, const char *key)
{
	bool in_order;
	struct nk_nic_held *h = held(ctx, key, &in_order);

	if (!h || --h->depth)
		return;
	close(h->fd);
	*h = ctx->nic_locks[--ctx->nnic_locks];
}

int nk_nic_hold_link(struct nk_ctx *ctx, const struct nk_ns *ns, const struct nk_link *nic,
		     char *key, size_t len)
{
	nk_nic_key(ns, nic, key, len);
	return nk_nic_hold(ctx, key);
}

int nk_nic_job_lock(struct nk_ctx *ctx, struct nic_job *j)
{
	int ret = j->ns ? 0 : nk_ns_here(ctx, &j->ns);

	if (!ret && !j->link.ifindex)
		ret = nk_error(NK_EXIT_FAIL, "internal error: a NIC lock asked before the NIC is known");
	if (!ret) {
		nk_nic_key(j->ns, &j->link, j->lock_key, sizeof(j->lock_key));
		ret = hold(ctx, j->lock_key, !j->lock_if_free);
	}
	if (!ret)
		j->locked = ctx;
	return ret;
}

void nk_nic_job_free(struct nic_job *j)
{
	if (!j)
		return;
	nk_queue_list_free(&j->queues);
	nk_ntuple_list_free(&j->rules);
	nk_nic_state_free(&j->st);
	if (j->locked)
		nk_nic_unhold(j->locked, j->lock_key);
	free(j);
}

/* The settings nkctl manages, read afresh. */
static int read_settings(struct nic_job *j)
{
	struct nl_err err;

	j->ch_ret = ethtool_channels_get(j->et, j->fam, j->link.ifindex, &j->ch, &err);
	j->rings_ret = ethtool_rings_get(j->et, j->fam, j->link.ifindex, &j->rings, &err);
	j->rss_ret = genl_has_op(j->fam, NK_ETHTOOL_MSG_RSS_GET) ?
		     ethtool_rss_get(j->et, j->fam, j->link.ifindex, &j->rss, &err) : -EOPNOTSUPP;
	if (!j->rss_ret && j->rss.too_big)
		j->rss_ret = -E2BIG;
	if (j->ch_ret == -EPERM || j->rings_ret == -EPERM)
		return nk_error(NK_EXIT_PERM, "reading the settings of %s needs CAP_NET_ADMIN",
				j->link.ifname);
	return 0;
}

/* Under the lock: finish what a killed nkctl left (a rule added but not
 * recorded). */
static int settle(struct nic_job *j)
{
	int fd, ret;

	if (!j->st.exists || !j->st.have_pending)
		return 0;
	ret = nk_ns_ioctl(j->ns, &fd);
	if (!ret)
		ret = nk_nic_resolve_pending(fd, j->link.ifname, &j->st);
	if (ret)
		return nk_error_errno(-ret, "cannot settle the rule a killed nkctl was adding to %s",
				      j->link.ifname);
	nk_ntuple_list_free(&j->rules);
	j->rules_ret = ethtool_ntuple_list(fd, j->link.ifname, &j->rules);
	return 0;
}

int nk_nic_job_queues(struct nic_job *j, struct nl_sock *gn, const struct genl_family *fam,
		      struct nl_err *err)
{
	int ret = netdev_queue_dump(gn, fam, j->link.ifindex, &j->queues, err);

	j->have_queues = !ret;
	return ret;
}

int nk_nic_job_load(struct nk_ctx *ctx, const char *dev, const struct nk_link *known,
		    struct nic_job *j)
{
	const struct genl_family *nfam;
	struct nl_sock *gn;
	struct nl_err err;
	int fd, ret;

	ret = j->ns ? 0 : nk_ns_here(ctx, &j->ns);
	if (!ret && known)
		j->link = *known;
	else if (!ret)
		ret = nk_dev(ctx, dev, &j->link);
	if (!ret)
		ret = nk_ns_ethtool(j->ns, &j->et, &j->fam);
	if (!ret)
		ret = read_settings(j);
	if (ret)
		return ret;
	if (!j->have_queues && nk_ns_netdev(j->ns, &gn, &nfam) == 0 &&
	    genl_has_op(nfam, NK_NETDEV_CMD_QUEUE_GET))
		nk_nic_job_queues(j, gn, nfam, &err);
	j->rules_ret = j->no_rules ? -ENODATA : nk_ns_ioctl(j->ns, &fd);
	if (!j->rules_ret)
		j->rules_ret = ethtool_ntuple_list(fd, j->link.ifname, &j->rules);
	ret = nk_nic_state_load(j->ns, &j->link, &j->st);
	if (ret == -ESTALE && !j->locked) {
		nk_nic_state_free(&j->st);     /* not this NIC's: not shown */
		ret = 0;
	}
	if (ret == -ESTALE)
		return nk_nic_state_stranger(&j->st, &j->link);
	if (ret)
		return nk_error_errno(-ret, "cannot read the state of %s under %s", j->link.ifname,
				      NK_NIC_STATE_DIR);
	/* Read under the lock: what another nkctl changed is seen, and what a
	 * killed one left is settled. */
	return j->locked ? settle(j) : 0;
}

const struct nk_queue *nk_nic_rx_queue(const struct nic_job *j, uint32_t id)
{
	for (size_t i = 0; i < j->queues.n; i++)
		if (j->queues.v[i].type == NK_NETDEV_QUEUE_TYPE_RX && j->queues.v[i].id == id &&
		    j->queues.v[i].ifindex == j->link.ifindex)
			return &j->queues.v[i];
	return NULL;
}

uint32_t nk_nic_rx_count(const struct nic_job *j)
{
	uint32_t n = j->ch_ret ? 0 : nk_channels_rx(&j->ch);

	return n ? n : j->link.num_rx_queues;
}

int nk_nic_job_save(struct nic_job *j)
{
	int ret = nk_nic_state_save(&j->st);

	j->st.exists = !ret;
	return ret ? nk_error_errno(-ret, "cannot write the state of %s under %s; nothing was changed",
				    j->link.ifname, NK_NIC_STATE_DIR) : 0;
}

/* Read back what the changes made, for the printed document. */
void nk_nic_job_reread(struct nic_job *j)
{
	int fd;

	read_settings(j);
	nk_ntuple_list_free(&j->rules);
	j->rules_ret = j->no_rules ? -ENODATA : nk_ns_ioctl(j->ns, &fd);
	if (!j->rules_ret)
		j->rules_ret = ethtool_ntuple_list(fd, j->link.ifname, &j->rules);
}

/* Does rule r bring traffic to queue q of lease l: to the queue itself, or
 * into the lease's RSS context (action 0 is an offset into it)? */
static bool steers_into(const struct nk_ntuple *r, const struct nk_nic_lease *l, uint32_t q)
{
	if (r->rss_context)
		return l->rss_context && r->rss_context == l->rss_context;
	return r->action == q;
}

void nk_nic_reader_free(struct nk_nic_reader *rd)
{
	nk_nic_job_free(rd->j);
	free(rd->reserved);
	free(rd->rss);
	free(rd->leased);
	free(rd->rules);
	memset(rd, 0, sizeof(*rd));
}

static int cmp_key_at(const void *a, const void *b)
{
	const struct nk_nic_key_at *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* v[0..n) sorted by key, then at. */
static void key_at_sort(struct nk_nic_key_at *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_key_at);
}

static struct nk_nic_key_at *key_at_new(size_t n)
{
	return calloc(n ? n : 1, sizeof(struct nk_nic_key_at));
}

/* The first element of v[0..n) whose key is key, or n. */
static size_t key_at_find(const struct nk_nic_key_at *v, size_t n, uint32_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].key == key ? lo : n;
}

/* rd's look-up tables from its job's record, RSS table and rules. */
static bool reader_index(struct nk_nic_reader *rd)
{
	const struct nic_job *j = rd->j;
	size_t nleased = 0;

	for (size_t i = 0; i < j->st.nleases; i++)
		nleased += j->st.leases[i].nleased;
	rd->reserved = key_at_new(j->st.nreserved);
	rd->rss = key_at_new(j->rss.indir_size);
	rd->leased = key_at_new(nleased);
	rd->rules = key_at_new(j->rules.n);
	if (!rd->reserved || !rd->rss || !rd->leased || !rd->rules)
		return false;
	for (size_t i = 0; i < j->st.nreserved; i++)
		rd->reserved[rd->nreserved++] = (struct nk_nic_key_at){ j->st.reserved[i], 0 };
	for (uint32_t i = 0; i < j->rss.indir_size; i++)
		rd->rss[rd->nrss++] = (struct nk_nic_key_at){ j->rss.indir[i], 0 };
	for (size_t i = 0; i < j->st.nleases; i++)
		for (size_t k = 0; k < j->st.leases[i].nleased; k++)
			rd->leased[rd->nleased++] =
				(struct nk_nic_key_at){ j->st.leases[i].leased[k], (uint32_t)i };
	for (size_t i = 0; i < j->rules.n; i++)
		rd->rules[rd->nrules++] = (struct nk_nic_key_at){ j->rules.v[i].id, (uint32_t)i };
	key_at_sort(rd->reserved, rd->nreserved);
	key_at_sort(rd->rss, rd->nrss);
	key_at_sort(rd->leased, rd->nleased);
	key_at_sort(rd->rules, rd->nrules);
	return true;
}

/* rd's job for NIC ifindex of ns, read unless it is the last one read. */
static bool reader_load(struct nk_ctx *ctx, struct nk_nic_reader *rd, struct nk_ns *ns,
			int ifindex)
{
	struct nk_link link;
	struct nl_sock *rt;

	if (rd->j && rd->ns == ns && rd->ifindex == ifindex)
		return rd->ok;
	nk_nic_reader_free(rd);
	rd->ns = ns;
	rd->ifindex = ifindex;
	rd->j = nk_nic_job_new();
	if (!rd->j || !(rt = nk_ns_try_rtnl(ns)) || nk_link_lookup(rt, NULL, ifindex, &link, NULL, true))
		return false;
	rd->j->ns = ns;
	/* What a lease shows of its NIC (reserved, RSS, rules) needs no
	 * queue dump of the NIC: the scan's has the leases already. */
	rd->j->have_queues = true;
	rd->ok = !nk_nic_job_load(ctx, NULL, &link, rd->j) && reader_index(rd);
	return rd->ok;
}

bool nk_nic_lease_info(struct nk_ctx *ctx, struct nk_nic_reader *rd, struct nk_ns *ns,
		       int ifindex, uint32_t q, struct nk_lease_nic *out)
{
	const struct nk_nic_lease *l = NULL;
	struct nk_nic_key_at hits[NK_NIC_LEASE_MAX * 4];
	size_t nhits = 0, at;
	struct nic_job *j;

	memset(out, 0, sizeof(*out));
	if (!reader_load(ctx, rd, ns, ifindex))
		return false;
	j = rd->j;
	out->reserved = j->st.exists && key_at_find(rd->reserved, rd->nreserved, q) < rd->nreserved;
	out->have_rss = !j->rss_ret && j->rss.indir_size;
	out->rss = out->have_rss && key_at_find(rd->rss, rd->nrss, q) < rd->nrss;
	/* the first record that leases q */
	at = key_at_find(rd->leased, rd->nleased, q);
	if (j->st.exists && at < rd->nleased)
		l = &j->st.leases[rd->leased[at].at];
	/* its rules that steer into q, in the NIC's order of its rules (key:
	 * the rule's place, at: the record's mention) */
	for (size_t k = 0; l && k < l->nrules; k++)
		for (at = key_at_find(rd->rules, rd->nrules, l->rules[k]);
		     at < rd->nrules && rd->rules[at].key == l->rules[k] &&
		     nhits < sizeof(hits) / sizeof(hits[0]); at++)
			if (steers_into(&j->rules.v[rd->rules[at].at], l, q))
				hits[nhits++] = (struct nk_nic_key_at){ rd->rules[at].at, (uint32_t)k };
	key_at_sort(hits, nhits);
	for (size_t h = 0; h < nhits && out->nrules < NK_LEASE_NIC_RULES; h++)
		out->rules[out->nrules++] = j->rules.v[hits[h].key];
	return true;
}

int nk_nic_view_read(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *nic,
		     struct nk_nic_view **out)
{
	struct nic_job *j = nk_nic_job_new();
	struct nk_nic_view *v = calloc(1, sizeof(*v));
	int ret = j && v ? 0 : nk_error_errno(ENOMEM, "doctor");

	*out = NULL;
	if (!ret) {
		j->ns = ns;
		ret = nk_nic_job_load(ctx, NULL, nic, j);
	}
	if (!ret) {
		v->rings = j->rings;
		v->rings_ret = j->rings_ret;
		v->rss = j->rss;
		v->rss_ret = j->rss_ret;
		v->rules = j->rules;
		v->rules_ret = j->rules_ret;
		memset(&j->rules, 0, sizeof(j->rules));
		v->st = j->st;     /* its arrays move with it */
		memset(&j->st, 0, sizeof(j->st));
		*out = v;
		v = NULL;
	}
	nk_nic_job_free(j);
	free(v);
	return ret;
}

void nk_nic_view_free(struct nk_nic_view *v)
{
	if (!v)
		return;
	nk_ntuple_list_free(&v->rules);
	nk_nic_state_free(&v->st);
	free(v);
}