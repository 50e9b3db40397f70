// SPDX-License-Identifier: GPL-2.0
/*
 * The reservation (nicreserve.h): need, apply, restore, release. Queues out
 * of RSS, header split on, the NIC's own settings recorded first and put
 * back by the last release.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "ethrss.h"
#include "core/kernel.h"
#include "nic/nicreserve.h"
#include "nic/nicsupport.h"

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
void reserve_add(struct nk_nic_state *st, const uint32_t *ids, size_t n)
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
		total += !nk_nic_state_reserved(&j->st, j->ids[i]);
		if (j->ids[i] >= n)
			return nk_error(NK_EXIT_NOTFOUND, "%s has no RX queue %u (it has %u channels)",
					j->link.ifname, j->ids[i], n);
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
int minimal_table(const struct nic_job *j, uint32_t *indir)
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

static void release_ids(struct nic_job *j, const uint32_t *ids, size_t n)
{
	size_t k = 0;

	if (!n) {
		j->st.nreserved = 0;
		return;
	}
	for (size_t i = 0; i < j->st.nreserved; i++) {
		bool drop = false;

		for (size_t m = 0; m < n; m++)
			drop |= ids[m] == j->st.reserved[i];
		if (!drop)
			j->st.reserved[k++] = j->st.reserved[i];
	}
	j->st.nreserved = k;
}

/* The last queue went: the NIC's own settings back, then the state. */
int nk_nic_release_finish(struct nic_job *j)
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

int nk_nic_reserve(struct nic_job *j)
{
	int ret;

	save_settings(j);
	reserve_add(&j->st, j->ids, j->n);
	ret = nk_nic_job_save(j);
	return ret ? ret : apply_reserved(j);
}

int nk_nic_unreserve(struct nic_job *j, const uint32_t *ids, size_t n)
{
	release_ids(j, ids, n);
	return nk_nic_job_save(j);
}

int nk_nic_release(struct nic_job *j, const uint32_t *ids, size_t n)
{
	int ret = nk_nic_unreserve(j, ids, n);

	return ret ? ret : nk_nic_release_finish(j);
}
