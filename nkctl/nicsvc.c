// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC-side service (nicsvc.h): a NIC read under the per-NIC lock, its
 * reservation (queues out of RSS, header split on, the NIC's own settings
 * recorded first and put back by the last release), the record of what each
 * lease brought, and the sweep that undoes what ended leases left.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "kernel.h"
#include "lookup.h"
#include "netdev.h"
#include "nicsupport.h"
#include "nicsvc.h"
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

int nk_nic_hold(struct nk_ctx *ctx, const char *key)
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
	ret = nk_nic_lock(key, in_order, &fd);
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
	if (!ret)
		ret = nk_nic_hold_link(ctx, j->ns, &j->link, j->lock_key, sizeof(j->lock_key));
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
	if (nk_ns_netdev(j->ns, &gn, &nfam) == 0 && genl_has_op(nfam, NK_NETDEV_CMD_QUEUE_GET))
		netdev_queue_dump(gn, nfam, j->link.ifindex, &j->queues, &err);
	j->rules_ret = nk_ns_ioctl(j->ns, &fd);
	if (!j->rules_ret)
		j->rules_ret = ethtool_ntuple_list(fd, j->link.ifname, &j->rules);
	ret = nk_nic_state_load(j->ns, &j->link, &j->st);
	if (ret == -ESTALE && !j->locked) {
		memset(&j->st, 0, sizeof(j->st));     /* not this NIC's: not shown */
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


/* ---- reserve ---- */

/* What reserve and release need of the driver, said before any change. */
int nk_nic_need_rss(const struct nic_job *j, const char *cmd)
{
	const char *dev = j->link.ifname;

	if (!genl_has_op(j->fam, NK_ETHTOOL_MSG_RSS_SET))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s: this kernel has no ethtool rss-set (keeping queues out of RSS needs Linux %s+); nothing was changed",
				cmd, nk_feature_since(NK_FEAT_ETHTOOL_RSS_SET));
	if (j->rss_ret == -E2BIG)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s: the RSS indirection table of %s is larger than %d entries, which nkctl does not handle; nothing was changed",
				cmd, dev, NK_RSS_MAX_INDIR);
	if (j->rss_ret || !j->rss.indir_size)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s: the driver of %s has no RSS indirection table, so queues cannot be kept out of RSS; nothing was changed",
				cmd, dev);
	if (j->rings_ret || !j->rings.have_tcp_data_split)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s: the driver of %s does not report tcp-data-split, so header split cannot be turned on; nothing was changed",
				cmd, dev);
	if (j->ch_ret || !nk_nic_rx_count(j))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s: the driver of %s does not report its channels; nothing was changed",
				cmd, dev);
	return 0;
}

/* Add ids to the reserved set (kept ascending). */
static void reserve_add(struct nk_nic_state *st, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = st->nreserved;

		if (nk_nic_state_reserved(st, ids[i]))
			continue;
		while (k > 0 && st->reserved[k - 1] > ids[i]) {
			st->reserved[k] = st->reserved[k - 1];
			k--;
		}
		st->reserved[k] = ids[i];
		st->nreserved++;
	}
}

int nk_nic_check_reserve(const struct nic_job *j)
{
	uint32_t n = nk_nic_rx_count(j);
	size_t total = j->st.nreserved;     /* and the listed ones not yet (ids are distinct) */

	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j, j->ids[i]);

		total += !nk_nic_state_reserved(&j->st, j->ids[i]);

		if (j->ids[i] >= n)
			return nk_error(NK_EXIT_NOTFOUND, "%s has no RX queue %u (it has %u channels)",
					j->link.ifname, j->ids[i], n);
		if (q && !(q->have & QUEUE_HAVE_LEASE) && !nk_nic_state_reserved(&j->st, q->id) &&
		    (q->have & QUEUE_HAVE_MP))
			return nk_error(NK_EXIT_EXISTS,
					"%s queue %u has a memory provider that is not a lease's; reserving it would not stop what already uses it",
					j->link.ifname, q->id);
	}
	if (total >= n)
		return nk_error(NK_EXIT_FAIL,
				"%s: reserving %s would leave no queue for RSS (it has %u); at least one must stay",
				j->link.ifname, total == j->n ? "these queues" : "these queues with those reserved already",
				n);
	return 0;
}

/* The NIC's own settings, kept until release puts them back. */
static void save_settings(struct nic_job *j)
{
	struct nk_nic_state *st = &j->st;

	snprintf(st->ifname, sizeof(st->ifname), "%s", j->link.ifname);
	if (st->saved)
		return;
	st->saved = true;
	st->have_tds = j->rings.have_tcp_data_split;
	st->tds = j->rings.tcp_data_split;
	st->have_hds = j->rings.have_hds_thresh;
	st->hds = j->rings.hds_thresh;
	st->indir_size = j->rss.indir_size;
	memcpy(st->indir, j->rss.indir, j->rss.indir_size * sizeof(uint32_t));
	st->rss_default = nk_rss_is_default(&j->rss, nk_nic_rx_count(j));
}

/* The table for the reserved set: the NIC's own table with only the
 * entries that name a reserved queue moved, each to the least-loaded queue
 * that stays (queues the operator kept out stay out). The saved table is
 * the base while it fits the driver's, so a released queue gets its own
 * entries back. */
static int minimal_table(const struct nic_job *j, uint32_t *indir)
{
	const struct nk_nic_state *st = &j->st;
	bool saved_fits = st->saved && st->indir_size == j->rss.indir_size;

	memcpy(indir, saved_fits ? st->indir : j->rss.indir, j->rss.indir_size * sizeof(uint32_t));
	if (nk_rss_take_queues(indir, j->rss.indir_size, st->reserved, st->nreserved))
		return nk_error(NK_EXIT_FAIL,
				"%s: the RSS table would have no queue left without the reserved ones (it spreads only over queues being reserved)",
				j->link.ifname);
	return 0;
}

static int set_error(const struct nic_job *j, const struct nl_err *err, const char *what)
{
	if (err->code == EPERM)
		return nk_error_nl(err, "setting the %s of %s needs CAP_NET_ADMIN", what,
				   j->link.ifname);
	return nk_error_nl(err, "cannot set the %s of %s", what, j->link.ifname);
}

/* Header split was refused: name a prerequisite that is off, if the
 * driver has one nkctl knows (mlx5 wants HW GRO); nkctl never turns it on. */
static int split_error(const struct nic_job *j, const struct nl_err *err)
{
	if (err->code != EPERM && nk_nic_gro_hw_off(j->ns, &j->link))
		return nk_error(NK_EXIT_FAIL,
				"cannot turn header split on for %s%s%s%s: HW GRO (rx-gro-hw) is off, which drivers such as mlx5 need first; turn it on with: ethtool -K %s rx-gro-hw on",
				j->link.ifname, err->msg[0] ? " (kernel: " : "", err->msg,
				err->msg[0] ? ")" : "", j->link.ifname);
	return set_error(j, err, "tcp-data-split and hds-thresh");
}

/* Make the NIC match the state: table from the reserved set, header split. */
static int apply_reserved(struct nic_job *j)
{
	uint32_t *indir = calloc(NK_RSS_MAX_INDIR, sizeof(uint32_t));
	struct nk_rings want = { 0 };
	struct nl_err err;
	int ret;

	if (!indir)
		return nk_error_errno(ENOMEM, "nic reserve");
	ret = minimal_table(j, indir);
	if (!ret && memcmp(indir, j->rss.indir, j->rss.indir_size * sizeof(uint32_t)) &&
	    ethtool_rss_set_checked(j->et, j->fam, j->link.ifindex, indir, j->rss.indir,
				    j->rss.indir_size, &err))
		ret = set_error(j, &err, "RSS indirection table");
	free(indir);
	want.have_tcp_data_split = j->rings.tcp_data_split != NK_TCP_DATA_SPLIT_ENABLED;
	want.tcp_data_split = NK_TCP_DATA_SPLIT_ENABLED;
	want.have_hds_thresh = j->rings.have_hds_thresh && j->rings.hds_thresh;
	want.hds_thresh = 0;
	if (!ret && (want.have_tcp_data_split || want.have_hds_thresh) &&
	    ethtool_rings_set_split(j->et, j->fam, j->link.ifindex, &want, &err))
		ret = split_error(j, &err);
	return ret;
}

/* Put back what the NIC had; the state says what. */
static int restore(struct nic_job *j)
{
	struct nk_rings want = { 0 };
	struct nl_err err;
	const struct nk_nic_state *st = &j->st;
	bool same = st->indir_size == j->rss.indir_size &&
		    !memcmp(st->indir, j->rss.indir, st->indir_size * sizeof(uint32_t));

	if (st->rss_default && ethtool_rss_set_indir(j->et, j->fam, j->link.ifindex, NULL, 0, &err))
		return set_error(j, &err, "RSS indirection table");
	/* read back; a table of another size (the channels changed) cannot be
	 * compared with what it replaces, so it is only written */
	if (!st->rss_default && !same &&
	    (st->indir_size == j->rss.indir_size ?
	     ethtool_rss_set_checked(j->et, j->fam, j->link.ifindex, st->indir, j->rss.indir,
				     st->indir_size, &err) :
	     ethtool_rss_set_indir(j->et, j->fam, j->link.ifindex, st->indir, st->indir_size, &err)))
		return set_error(j, &err, "RSS indirection table");
	want.have_tcp_data_split = st->have_tds && st->tds != j->rings.tcp_data_split;
	want.tcp_data_split = st->tds;
	want.have_hds_thresh = st->have_hds && st->hds != j->rings.hds_thresh;
	want.hds_thresh = st->hds;
	if ((want.have_tcp_data_split || want.have_hds_thresh) &&
	    ethtool_rings_set_split(j->et, j->fam, j->link.ifindex, &want, &err))
		return set_error(j, &err, "tcp-data-split and hds-thresh");
	return 0;
}

static int save_state(struct nic_job *j)
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
	j->rules_ret = nk_ns_ioctl(j->ns, &fd);
	if (!j->rules_ret)
		j->rules_ret = ethtool_ntuple_list(fd, j->link.ifname, &j->rules);
}


static void release_ids(struct nic_job *j)
{
	size_t k = 0;

	if (!j->n) {
		j->st.nreserved = 0;
		return;
	}
	for (size_t i = 0; i < j->st.nreserved; i++) {
		bool drop = false;

		for (size_t m = 0; m < j->n; m++)
			drop |= j->ids[m] == j->st.reserved[i];
		if (!drop)
			j->st.reserved[k++] = j->st.reserved[i];
	}
	j->st.nreserved = k;
}

/* The last queue went: the NIC's own settings back, then the state. */
static int finish_release(struct nic_job *j)
{
	int ret;

	if (j->st.nreserved)
		return apply_reserved(j);
	if (j->st.saved && (ret = restore(j)))
		return ret;
	j->st.saved = false;
	ret = nk_nic_state_store(&j->st);
	if (ret)
		return nk_error_errno(-ret, "%s is restored but its state under %s cannot be updated",
				      j->link.ifname, NK_NIC_STATE_DIR);
	return 0;
}

/* Delete nkctl's rule id if the driver still has there the rule nkctl
 * recorded: a location the driver gave to another rule since (after a steer
 * del, or another tool's) is left alone. Either way nkctl forgets it. */
static int delete_recorded_rule(struct nic_job *j, int fd, uint32_t id)
{
	struct nk_ntuple_list now;
	int ret = ethtool_ntuple_list(fd, j->link.ifname, &now);

	if (ret)
		return nk_error_errno(-ret, "cannot list the n-tuple rules of %s", j->link.ifname);
	for (size_t i = 0; !ret && i < now.n; i++)
		if (now.v[i].id == id && nk_nic_state_rule_is_ours(&j->st, &now.v[i]))
			ret = ethtool_ntuple_del(fd, j->link.ifname, id);
	nk_ntuple_list_free(&now);
	if (ret == -ENOENT || ret == -EINVAL)
		ret = 0;
	if (ret)
		return nk_error_errno(-ret, "cannot delete rule %u of %s", id, j->link.ifname);
	nk_nic_state_forget_rule(&j->st, id);
	return 0;
}

/* The lease's RSS context, after its rules (the kernel keeps a context a
 * rule names); one already gone is fine. */
static int drop_context(struct nic_job *j, struct nk_nic_lease *l)
{
	struct nl_err err;
	int ret;

	if (!l->rss_context)
		return 0;
	ret = ethtool_rss_ctx_delete(j->et, j->fam, j->link.ifindex, l->rss_context, &err);
	if (ret && ret != -ENOENT)
		return nk_error_nl(&err, "cannot delete RSS context %u of %s", l->rss_context,
				   j->link.ifname);
	l->rss_context = 0;
	return 0;
}

/* Release of everything: nkctl's rules go too, and the leases' records. */
static int drop_rules(struct nic_job *j)
{
	int fd, ret = j->st.nrules ? nk_ns_ioctl(j->ns, &fd) : 0;

	while (!ret && j->st.nrules) {
		ret = delete_recorded_rule(j, fd, j->st.rules[j->st.nrules - 1].id);
		if (!ret)
			ret = save_state(j);
	}
	for (size_t k = 0; k < j->st.nleases && !ret; k++)
		ret = drop_context(j, &j->st.leases[k]);
	if (!ret)
		j->st.nleases = 0;
	return ret;
}

int nk_nic_reserve(struct nic_job *j)
{
	int ret;

	save_settings(j);
	reserve_add(&j->st, j->ids, j->n);
	ret = save_state(j);
	return ret ? ret : apply_reserved(j);
}

int nk_nic_release(struct nic_job *j)
{
	int ret;

	release_ids(j);
	ret = save_state(j);
	if (!ret && !j->n)
		ret = drop_rules(j);
	return ret ? ret : finish_release(j);
}

/* ---- the lease's side: lease ... steer, unlease ---- */

static int undo_lease(struct nic_job *j, struct nk_nic_lease *l);
static bool lease_ended(struct nk_ns *ns, int ifindex, const struct nk_nic_lease *l);

/* Under the lock, before a lease of queues: a record of an ended lease on
 * any of them (its holder went after the last sweep) is undone first, so its
 * rules never steer into the new lease and its record is not taken over. */
static int undo_ended_on(struct nic_job *j, const uint32_t *queues, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		struct nk_nic_lease *l = nk_nic_state_lease(&j->st, queues[i]);

		if (!l || !lease_ended(j->ns, j->link.ifindex, l))
			continue;
		ret = undo_lease(j, l);
		memcpy(j->ids, queues, n * sizeof(*queues));   /* undo_lease used them */
		j->n = n;
		nk_nic_job_reread(j);
	}
	return ret;
}

/* Job j on nic of ns for queues: locked, loaded, and a record of an ended
 * lease on any of the queues undone (what every lease does first). */
static int settle_queues(struct nk_ctx *ctx, struct nic_job *j, struct nk_ns *ns,
			 const struct nk_link *nic, const uint32_t *queues, size_t n)
{
	int ret;

	j->ns = ns;
	j->link = *nic;
	memcpy(j->ids, queues, n * sizeof(*queues));
	j->n = n;
	ret = nk_nic_job_lock(ctx, j);
	if (!ret)
		ret = nk_nic_job_load(ctx, NULL, nic, j);
	return ret ? ret : undo_ended_on(j, queues, n);
}

int nk_nic_undo_ended(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *nic,
		      const uint32_t *queues, size_t n)
{
	struct nk_nic_state *st = malloc(sizeof(*st));
	bool recorded = false;
	struct nic_job *j;
	int ret;

	if (!st)
		return nk_error_errno(ENOMEM, "cannot read the state of %s", nic->ifname);
	if (!nk_nic_state_load(ns, nic, st) && st->exists)
		for (size_t i = 0; i < n; i++)
			recorded |= nk_nic_state_lease(st, queues[i]) != NULL;
	free(st);
	if (!recorded)
		return 0;       /* the common case: one state read, no NIC read */
	j = nk_nic_job_new();
	if (!j)
		return NK_EXIT_FAIL;
	ret = settle_queues(ctx, j, ns, nic, queues, n);
	nk_nic_job_free(j);
	return ret;
}

int nk_nic_lease_prepare(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *nic,
			 const uint32_t *queues, size_t n, bool rules, struct nic_job **out)
{
	struct nic_job *j = nk_nic_job_new();
	int ret;

	*out = j;
	if (!j)
		return NK_EXIT_FAIL;
	if (n > NK_NIC_LEASE_MAX)
		return nk_error(NK_EXIT_USAGE,
				"lease ... reserve|steer: at most %d queues in one lease (%zu asked); nothing was changed",
				NK_NIC_LEASE_MAX, n);
	ret = settle_queues(ctx, j, ns, nic, queues, n);
	if (!ret)
		ret = nk_nic_need_rss(j, "lease ... steer");
	if (!ret)
		ret = nk_nic_check_reserve(j);
	if (!ret && rules && j->rules_ret == -EOPNOTSUPP)
		ret = nk_error(NK_EXIT_UNSUPPORTED,
			       "lease ... steer: the driver of %s has no n-tuple flow steering rules; nothing was changed",
			       nic->ifname);
	else if (!ret && rules && j->rules_ret)
		ret = nk_error_errno(-j->rules_ret, "cannot list the n-tuple rules of %s", nic->ifname);
	return ret;
}

/* Does the driver have a rule the lease recorded that is the same as r? */
static bool lease_has_rule(const struct nic_job *j, const struct nk_nic_lease *l,
			   const struct nk_ntuple *r)
{
	for (size_t i = 0; i < j->rules.n; i++)
		for (size_t k = 0; k < l->nrules; k++)
			if (l->rules[k] == j->rules.v[i].id && nk_ntuple_same(&j->rules.v[i], r))
				return true;
	return false;
}

/* Record a rule the lease added, in the lease's record and the NIC's list. */
static int record_lease_rule(struct nic_job *j, struct nk_nic_lease *l, const struct nk_ntuple *r)
{
	if (l->nrules < NK_NIC_LEASE_MAX)
		l->rules[l->nrules++] = r->id;
	nk_nic_state_add_rule(&j->st, r);
	return save_state(j);
}

/*
 * lease ... steer over several queues: an RSS context whose table names
 * exactly the leased queues, and the rules steer into it (FLOW_RSS, offset
 * 0), so the steered flows spread over all of them. A driver without
 * contexts keeps the one-queue steering, and the operator is told. The id
 * is chosen and recorded before the context is made, so that a kill in
 * between leaves no context the record does not name (unlease and the sweep
 * delete it; absent is fine); a re-run makes the recorded one if it is not
 * there and reuses it if it is.
 */
/* Record context id as the lease's, then make it: the intent first. */
static int make_context(struct nic_job *j, struct nk_nic_lease *l, uint32_t id)
{
	struct nl_err err;
	int ret;

	l->rss_context = id;
	ret = save_state(j);
	if (!ret && ethtool_rss_ctx_create(j->et, j->fam, j->link.ifindex, j->ids, j->n,
					   j->rss.indir_size, &id, &err)) {
		ret = nk_error_nl(&err, "cannot create an RSS context over the leased queues of %s",
				  j->link.ifname);
		/* Refused: nothing was made, and the id may be another tool's
		 * (taken meanwhile), which unlease must never delete. */
		l->rss_context = 0;
		nk_nic_state_save(&j->st);     /* best effort: the error is said */
		return ret;
	}
	if (!ret && id && id != l->rss_context) {
		l->rss_context = id;   /* not the one asked: record what it is */
		ret = save_state(j);
	}
	return ret;
}

static int lease_context(struct nic_job *j, struct nk_nic_lease *l, struct nk_ntuple *rules,
			 size_t nrules)
{
	struct nl_err err;
	bool have = false, exists = false;
	uint32_t id = 0;
	int ret;

	ethtool_rss_ctx_supported(j->et, j->fam, j->link.ifindex, &have, &err);
	ret = have ? ethtool_rss_ctx_ids(j->et, j->fam, j->link.ifindex, l->rss_context, &exists,
					 &id, &err) : -EOPNOTSUPP;
	if (ret == -EOPNOTSUPP) {
		nk_warn("%s has no RSS contexts: the steered flows all go to queue %u, not spread over the %zu leased queues",
			j->link.ifname, j->ids[0], j->n);
		return 0;
	}
	if (ret)
		return nk_error_nl(&err, "cannot read the RSS contexts of %s", j->link.ifname);
	if (!exists)
		ret = make_context(j, l, l->rss_context ? l->rss_context : id);
	for (size_t i = 0; i < nrules && !ret; i++) {
		rules[i].rss_context = l->rss_context;
		rules[i].action = 0;
	}
	return ret;
}

int nk_nic_lease_reserve(struct nic_job *j, const struct nk_ns *holder_ns,
			 const struct nk_link *holder)
{
	struct nk_nic_lease *l;
	int ret;

	save_settings(j);
	j->new_record = !nk_nic_state_lease(&j->st, j->ids[0]);
	l = nk_nic_state_lease_add(&j->st, j->ids, j->n);
	if (!l)
		return nk_error(NK_EXIT_FAIL, "%s: too many leases recorded (at most %d)",
				j->link.ifname, NK_NIC_MAX_LEASES);
	l->ns_dev = holder_ns->dev;
	l->ns_ino = holder_ns->ino;
	l->ifindex = holder->ifindex;
	snprintf(l->name, sizeof(l->name), "%s", holder->ifname);
	/* The lease owns the queues it reserved, not those reserved before. */
	for (size_t i = 0; i < j->n; i++)
		if (!nk_nic_state_reserved(&j->st, j->ids[i]) && l->nqueues < NK_NIC_LEASE_MAX)
			l->queues[l->nqueues++] = j->ids[i];
	reserve_add(&j->st, j->ids, j->n);
	ret = save_state(j);
	return ret ? ret : apply_reserved(j);
}

int nk_nic_lease_steer(struct nic_job *j, struct nk_ntuple *rules, size_t nrules)
{
	struct nk_nic_lease *l = nk_nic_state_lease(&j->st, j->ids[0]);
	int fd, ret = l ? 0 : nk_error(NK_EXIT_FAIL, "%s: the lease's record is gone", j->link.ifname);

	if (!ret && nrules && j->n > 1)
		ret = lease_context(j, l, rules, nrules);
	if (!ret && nrules)
		ret = nk_ns_ioctl(j->ns, &fd);
	for (size_t i = 0; i < nrules && !ret; i++) {
		if (lease_has_rule(j, l, &rules[i]))
			continue;     /* a re-run: the lease has it already */
		j->st.pending = rules[i];
		j->st.have_pending = true;
		ret = save_state(j);
		if (!ret && (ret = ethtool_ntuple_add(fd, j->link.ifname, &rules[i])))
			return nk_error_errno(-ret, "cannot add the rule steering %s traffic to %s %s %llu (the lease stands: run the command again to retry, or unlease)",
					      nk_flow_is_v6(rules[i].flow_type) ? "IPv6" : "IPv4",
					      j->link.ifname, rules[i].rss_context ? "RSS context" : "queue",
					      rules[i].rss_context ? (unsigned long long)rules[i].rss_context :
					      (unsigned long long)rules[i].action);
		j->st.have_pending = false;
		if (!ret)
			ret = record_lease_rule(j, l, &rules[i]);
	}
	return ret;
}

/* Undo what one lease record brought: its rules, then its queues. */
static int undo_lease(struct nic_job *j, struct nk_nic_lease *l)
{
	uint32_t drop[NK_NIC_LEASE_MAX];
	size_t ndrop = 0;
	int fd, ret = nk_ns_ioctl(j->ns, &fd);

	while (!ret && l->nrules) {
		/* forgotten from l too */
		ret = delete_recorded_rule(j, fd, l->rules[l->nrules - 1]);
	}
	if (!ret)
		ret = drop_context(j, l);
	if (ret)
		return ret;
	for (size_t i = 0; i < l->nqueues; i++)
		if (!nk_nic_state_lease_holds(&j->st, l, l->queues[i]))
			drop[ndrop++] = l->queues[i];
	nk_nic_state_lease_drop(&j->st, l);
	memcpy(j->ids, drop, ndrop * sizeof(drop[0]));
	j->n = ndrop;
	if (!ndrop) {
		ret = nk_nic_state_store(&j->st);
		return ret ? nk_error_errno(-ret, "cannot update the state of %s under %s",
					    j->link.ifname, NK_NIC_STATE_DIR) : 0;
	}
	release_ids(j);
	ret = save_state(j);
	return ret ? ret : finish_release(j);
}

/* Is NIC queue q leased, and not to a namespace being deleted? Seen from the
 * NIC, a holder in another namespace has that namespace's nsid, allocated
 * on demand; a namespace that cleanup_net has begun to take apart has lost
 * its nsids first, so its leases read netns-id -1 until its devices go. */
static bool lease_lives(const struct nk_queue *q)
{
	return (q->have & QUEUE_HAVE_LEASE) &&
	       !((q->have & QUEUE_HAVE_LEASE_NETNS_ID) && q->lease_netns_id < 0);
}

/* Has the lease of record l ended: does the kernel show no live lease on any
 * of its NIC queues? A NIC that cannot be read keeps its records. */
static bool lease_ended(struct nk_ns *ns, int ifindex, const struct nk_nic_lease *l)
{
	const struct genl_family *fam;
	struct nl_sock *s = nk_ns_try_netdev(ns, &fam);
	struct nk_queue_list q = { 0 };
	struct nl_err err;
	bool ended = true;

	if (!s || netdev_queue_dump(s, fam, ifindex, &q, &err))
		return false;
	for (size_t i = 0; i < q.n; i++)
		for (size_t k = 0; k < l->nleased; k++)
			if (q.v[i].type == NK_NETDEV_QUEUE_TYPE_RX && q.v[i].id == l->leased[k] &&
			    lease_lives(&q.v[i]))
				ended = false;
	nk_queue_list_free(&q);
	return ended;
}

int nk_nic_lease_rollback(struct nic_job *j)
{
	struct nk_nic_lease *l = j->new_record ? nk_nic_state_lease(&j->st, j->ids[0]) : NULL;

	return l ? undo_lease(j, l) : 0;
}

/* The job of the NIC ifindex of ns, locked, loaded and settled; NULL after
 * printing an error (*ret), or with *ret -ENODEV when the NIC is gone. */
static struct nic_job *open_nic_job(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, int *ret)
{
	struct nic_job *j = nk_nic_job_new();
	struct nk_link link;
	struct nl_sock *rt;

	if (!j) {
		*ret = NK_EXIT_FAIL;
		return NULL;
	}
	j->ns = ns;
	*ret = nk_ns_rtnl(ns, &rt);
	if (!*ret)
		*ret = nk_link_lookup(rt, NULL, ifindex, &j->link, nk_ns_name(ns), true);
	link = j->link;
	if (!*ret)
		*ret = nk_nic_job_lock(ctx, j);
	if (!*ret)
		*ret = nk_nic_job_load(ctx, NULL, &link, j);
	if (*ret) {
		nk_nic_job_free(j);
		return NULL;
	}
	return j;
}

/* One NIC state file: undo the record of the lease of NIC queue q there. */
static int unlease_nic(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, uint32_t q)
{
	struct nk_nic_lease *l;
	int ret;
	struct nic_job *j = open_nic_job(ctx, ns, ifindex, &ret);

	/* Decided again on what was read under the lock: a lease that took the
	 * queue meanwhile keeps its record. */
	l = j ? nk_nic_state_lease(&j->st, q) : NULL;
	if (l && l->nleased && lease_ended(ns, ifindex, l))
		ret = undo_lease(j, l);
	if (j)
		nk_nic_job_free(j);
	return ret == -ENODEV ? 0 : ret;
}

/* A release killed after it saved the state and before the NIC was restored
 * leaves saved settings with nothing reserved or leased: restore them now. */
static int resume_release(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex)
{
	int ret;
	struct nic_job *j = open_nic_job(ctx, ns, ifindex, &ret);

	if (j && j->st.exists && j->st.saved && !j->st.nreserved && !j->st.nleases)
		ret = finish_release(j);
	if (j)
		nk_nic_job_free(j);
	return ret == -ENODEV ? 0 : ret;
}

/* Does a record of a live lease name holder, recorded in namespace hns? */
static bool names_holder(struct nk_ns *ns, int ifindex, const struct nk_nic_lease *l,
			 const struct nk_ns *hns, const char *holder)
{
	return holder && nk_ns_is(hns, l->ns_dev, l->ns_ino) && !strcmp(l->name, holder) &&
	       !lease_ended(ns, ifindex, l);
}

static bool record_leases(const struct nk_nic_lease *l, uint32_t q)
{
	for (size_t k = 0; k < l->nleased; k++)
		if (l->leased[k] == q)
			return true;
	return false;
}

/* The reachable namespace other than hns where a live lease of record l is
 * held now (its holder was moved there), or NULL. A namespace on its way out
 * is not reachable by name, so its leases are waited for, not reported. */
static struct nk_ns *lease_moved_to(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex,
				    const struct nk_nic_lease *l, const struct nk_ns *hns)
{
	const struct genl_family *fam;
	struct nl_sock *s = nk_ns_try_netdev(ns, &fam);
	struct nk_queue_list q = { 0 };
	struct nk_ns *where = NULL;
	struct nl_err err;

	if (!s || netdev_queue_dump(s, fam, ifindex, &q, &err))
		return NULL;
	for (size_t i = 0; i < q.n && !where; i++) {
		const struct nk_queue *e = &q.v[i];

		if (e->type != NK_NETDEV_QUEUE_TYPE_RX || !lease_lives(e) ||
		    !record_leases(l, e->id))
			continue;
		where = (e->have & QUEUE_HAVE_LEASE_NETNS_ID) ?
			nk_ns_by_nsid(ctx, ns, e->lease_netns_id) : ns;
		if (where && nk_ns_is(where, hns->dev, hns->ino))
			where = NULL;
	}
	nk_queue_list_free(&q);
	return where;
}

/* Is the NIC of st at ifindex of ns? */
static bool nic_at(struct nk_ns *ns, int ifindex, const struct nk_nic_state *st)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link link;

	return rt && !nk_link_lookup(rt, NULL, ifindex, &link, NULL, true) &&
	       nk_nic_state_is_of(st, ns, &link);
}

/* A live lease names the holder that is not in hns: either its namespace
 * is being deleted (wait: *named) or it was moved to a namespace that lives
 * on (say where, exit 3: waiting would not end it). */
static int holder_moved(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex,
			const struct nk_nic_lease *l, const struct nk_ns *hns, bool *named)
{
	struct nk_ns *where = lease_moved_to(ctx, ns, ifindex, l, hns);

	*named = true;
	if (!where)
		return 0;
	return nk_error(NK_EXIT_NOTFOUND, "\"%s\" holds its leases in %s now, not in %s: run it there",
			l->name, nk_ns_name(where), nk_ns_name(hns));
}

/* The NIC of st in ns, looked for by its key; its ifindex, or 0. */
static int nic_in(struct nk_ns *ns, const struct nk_nic_state *st)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link_list links = { 0 };
	struct nl_err err;
	int ifindex = 0;

	if (!rt || rtnl_link_dump(rt, &links, &err))
		return 0;
	for (size_t i = 0; i < links.n && !ifindex; i++)
		if ((links.v[i].parent[0] || links.v[i].perm_addr_len) &&
		    nk_nic_state_is_of(st, ns, &links.v[i]))
			ifindex = links.v[i].ifindex;
	nk_link_list_free(&links);
	return ifindex;
}

/* Where the NIC of the record st is now: where it was last seen, or, moved
 * to another namespace, wherever its key is found. NULL when nowhere nkctl
 * reaches (or, for a NIC known by its place, not there any more): its record
 * is left alone. */
static struct nk_ns *find_nic(struct nk_ctx *ctx, const struct nk_nic_state *st, int *ifindex)
{
	struct nk_ns *ns, *const *all;
	size_t n;

	/* where it was last seen: among the namespaces the command holds
	 * first (nk_ns_find opens every one only when those do not have it) */
	if (!nk_ns_find(ctx, st->ns_dev, st->ns_ino, &ns) && ns && nic_at(ns, st->ifindex, st)) {
		*ifindex = st->ifindex;
		return ns;
	}
	if (st->legacy[0] || !strncmp(st->key, "ns-", 3) || nk_ns_reachable(ctx, &all, &n))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((*ifindex = nic_in(all[i], st)))
			return all[i];
	return NULL;
}

/* One state file: undo the records of leases that ended (see below). */
static int unlease_file(struct nk_ctx *ctx, const char *name, const struct nk_ns *hns,
			const char *holder, bool *named)
{
	struct nk_nic_state *st = malloc(sizeof(*st));
	struct nk_ns *ns = NULL;
	int ifindex = 0, ret = 0;

	if (!st)
		return nk_error_errno(ENOMEM, "cannot read %s/%s", NK_NIC_STATE_DIR, name);
	if (!nk_nic_state_read(name, st) && st->exists)
		ns = find_nic(ctx, st, &ifindex);
	for (size_t k = 0; ns && k < st->nleases && !ret; k++) {
		const struct nk_nic_lease *l = &st->leases[k];

		if (l->nleased && lease_ended(ns, ifindex, l))
			ret = unlease_nic(ctx, ns, ifindex, l->leased[0]);
		else if (named && names_holder(ns, ifindex, l, hns, holder))
			ret = holder_moved(ctx, ns, ifindex, l, hns, named);
	}
	if (ns && !ret && st->saved && !st->nreserved && !st->nleases)
		ret = resume_release(ctx, ns, ifindex);
	free(st);
	return ret;
}

/* Every NIC state file: undo the records of leases that ended, each under
 * its NIC's lock alone. With holder, say whether a record of a live lease
 * still names it (see below). */
static int unlease_records(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder,
			   bool *named)
{
	struct dirent *e;
	DIR *d = opendir(NK_NIC_STATE_DIR);
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (e = readdir(d)))
		if (e->d_name[0] != '.')
			ret = unlease_file(ctx, e->d_name, hns, holder, named);
	closedir(d);
	return ret;
}

int nk_nic_unlease_stale(struct nk_ctx *ctx)
{
	return unlease_records(ctx, NULL, NULL, NULL);
}

/* The holder's namespace is being deleted (a pod's, before its CNI DEL):
 * the kernel ends its leases once the namespace's devices are gone, a little
 * after "ip netns del" returns. Wait for that, then undo their records. */
int nk_nic_unlease_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	bool named = true;
	int ret = 0;

	for (int i = 0; i < NK_NIC_GONE_WAIT_TICKS && named && !ret; i++) {
		named = false;
		ret = unlease_records(ctx, hns, holder, &named);
		if (named)
			nanosleep(&tick, NULL);
	}
	return ret;
}

/* Does rule r bring traffic to queue q of lease l: to the queue itself, or
 * into the lease's RSS context (action 0 is an offset into it)? */
static bool steers_into(const struct nk_ntuple *r, const struct nk_nic_lease *l, uint32_t q)
{
	if (r->rss_context)
		return l->rss_context && r->rss_context == l->rss_context;
	return r->action == q;
}

bool nk_nic_lease_info(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, uint32_t q,
		       struct nk_lease_nic *out)
{
	struct nic_job *j = nk_nic_job_new();
	struct nk_link link;
	struct nl_sock *rt;
	const struct nk_nic_lease *l = NULL;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (!j || !(rt = nk_ns_try_rtnl(ns)) || nk_link_lookup(rt, NULL, ifindex, &link, NULL, true))
		goto out;
	j->ns = ns;
	if (nk_nic_job_load(ctx, NULL, &link, j))
		goto out;
	ok = true;
	out->reserved = j->st.exists && nk_nic_state_reserved(&j->st, q);
	out->have_rss = !j->rss_ret && j->rss.indir_size;
	out->rss = out->have_rss && nk_rss_uses(&j->rss, q);
	if (j->st.exists)
		l = nk_nic_state_lease(&j->st, q);
	for (size_t i = 0; l && i < j->rules.n && out->nrules < NK_LEASE_NIC_RULES; i++)
		for (size_t k = 0; k < l->nrules; k++)
			if (l->rules[k] == j->rules.v[i].id && steers_into(&j->rules.v[i], l, q))
				out->rules[out->nrules++] = j->rules.v[i];
out:
	nk_nic_job_free(j);
	return ok;
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
		v->st = j->st;
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
	free(v);
}