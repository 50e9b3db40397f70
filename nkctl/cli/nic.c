// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl nic show|reserve|release: the NIC side of a lease. reserve takes
 * queues out of RSS (the indirection table spreads hashed traffic over the
 * other queues only, with equal weights) and turns header split on with
 * hds-thresh 0; release puts back what the NIC had before the first
 * reservation, from the state file written before anything was changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "core/counters.h"
#include "core/cmd.h"
#include "lease/scan.h"
#include "core/lookup.h"
#include "netdev.h"
#include "lease/holder.h"
#include "lease/nicside.h"
#include "lease/look.h"
#include "nic/nicsupport.h"
#include "nic/nicreserve.h"
#include "lease/restore.h"
#include "nic/nicrule.h"
#include "rtnl.h"

struct nic_args {
	const char *dev, *queue;
	bool force;
};

#define NP(kw, type, field, meta, req) \
	{ kw, type, offsetof(struct nic_args, field), meta, 0, 0, NULL, req, NULL }
static const struct nk_param show_params[] = {
	NP("dev", NKP_IFNAME, dev, "PHYS", false),
};
static const struct nk_params nic_show_params = {
	NK_PARAMS("nic show", struct nic_args, show_params)
};
static const struct nk_param reserve_params[] = {
	NP("dev", NKP_IFNAME, dev, "PHYS", true),
	NP("queue", NKP_STRING, queue, "LIST", true),
};
static const struct nk_params nic_reserve_params = {
	NK_PARAMS("nic reserve", struct nic_args, reserve_params)
};
static const struct nk_param release_params[] = {
	NP("dev", NKP_IFNAME, dev, "PHYS", true),
	NP("queue", NKP_STRING, queue, "LIST", false),
	NP("force", NKP_FLAG, force, NULL, false),
};
/* force overrides the refusal of a listed queue that is leased; a release
 * of everything is always refused while a lease holds a reserved queue. */
static const struct nk_rule release_rules[] = {
	{ NK_RULE_NEEDS, { "force", "queue" } },
};
static const struct nk_params nic_release_params = {
	NK_PARAMS("nic release", struct nic_args, release_params), NK_RULES(release_rules),
};
static const struct nk_param restore_params[] = {
	NP("dev", NKP_IFNAME, dev, "PHYS", true),
};
static const struct nk_params nic_restore_params = {
	NK_PARAMS("nic restore", struct nic_args, restore_params)
};

/* ---- printing ---- */

static void print_queue_set(struct out *o, const char *key, const char *label,
			    const struct nk_rss *r, uint32_t nq)
{
	bool first = true;

	for (uint32_t i = 0; i < r->indir_size; i++)
		if (r->indir[i] >= nq)
			nq = r->indir[i] + 1;
	out_arr_open(o, key);
	out_text(o, "%s", label);
	for (uint32_t q = 0; q < nq; q++) {
		if (!nk_rss_uses(r, q))
			continue;
		out_uint(o, NULL, first ? " %llu" : ",%llu", q);
		first = false;
	}
	out_arr_close(o);
}

static void print_rings(struct out *o, const struct nic_job *j)
{
	if (!j->ch_ret) {
		out_obj_open(o, "channels");
		out_uint(o, "rx", "    channels rx %llu", j->ch.rx);
		out_uint(o, "tx", " tx %llu", j->ch.tx);
		out_uint(o, "combined", " combined %llu", j->ch.combined);
		out_uint(o, "other", " other %llu\n", j->ch.other);
		out_obj_close(o);
	}
	if (j->rings_ret)
		return;
	out_text(o, "    rings");
	if (j->rings.have_rx)
		out_uint(o, "rx-ring", " rx %llu", j->rings.rx);
	if (j->rings.have_tcp_data_split)
		out_str(o, "tcp-data-split", " tcp-data-split %s",
			nk_tcp_data_split_name(j->rings.tcp_data_split));
	if (j->rings.have_hds_thresh)
		out_uint(o, "hds-thresh", " hds-thresh %llu", j->rings.hds_thresh);
	if (nk_nic_lost_split(&j->st, &j->rings, j->rings_ret))
		out_flag(o, "header-split-lost",
			 " (lost: nkctl's reservation turned header split on: nic restore)", true);
	out_text(o, "\n");
}

static void print_rss(struct out *o, const struct nic_job *j)
{
	if (j->rss_ret || !j->rss.indir_size) {
		out_text(o, "    rss: %s\n", j->rss_ret == -E2BIG ?
			 "the indirection table is larger than nkctl handles" :
			 "no indirection table (the driver has no RSS operations)");
		return;
	}
	out_obj_open(o, "rss");
	out_uint(o, "indir-size", "    rss: indirection table of %llu entries,", j->rss.indir_size);
	print_queue_set(o, "queues", " hashed to queues", &j->rss, nk_nic_rx_count(j));
	out_bool(o, "default", NULL, nk_rss_is_default(&j->rss, nk_nic_rx_count(j)));
	out_text(o, "\n");
	out_obj_close(o);
}

static void print_rules(struct out *o, const struct nic_job *j)
{
	if (j->rules_ret) {
		out_text(o, "    n-tuple rules: %s\n", j->rules_ret == -EOPNOTSUPP ?
			 "not supported by the driver" : strerror(-j->rules_ret));
		return;
	}
	out_arr_open(o, "rules");
	for (size_t i = 0; i < j->rules.n; i++)
		nk_print_rule(o, &j->rules.v[i], j->st.exists &&
			      nk_nic_state_has_rule(&j->st, j->rules.v[i].id), false);
	/* recorded, and the driver no longer has them: said, not hidden */
	for (size_t i = 0; j->st.exists && i < j->st.nrules; i++)
		if (nk_nic_lost_rule(&j->st, &j->rules, j->rules_ret, &j->st.rules[i]))
			nk_print_rule(o, &j->st.rules[i], true, true);
	out_arr_close(o);
}

static void print_mp(struct out *o, const struct nk_queue *q)
{
	nk_print_mp(o, q->have, q->dmabuf);
}

static void print_lease(struct out *o, const struct nic_job *j, const struct nk_lease_list *leases,
			const struct nk_queue *q)
{
	const struct nk_lease_rec *r = nk_lease_of_nic(leases, j->ns, j->link.ifindex, q->id);
	struct nk_queue_holder h;

	if (!nk_queue_holder(q, &h))
		return;
	out_obj_open(o, "lease");
	out_uint(o, "ifindex", NULL, (unsigned int)h.ifindex);
	if (r && r->nk_ifname[0])
		out_str(o, "ifname", " leased to %s", r->nk_ifname);
	else
		out_text(o, " leased to ifindex %d", h.ifindex);
	if (r && r->nk_ns && !r->nk_ns->here)
		out_str(o, "netns", " (netns %s)", r->nk_ns->spec);
	else if (!r || !r->nk_ns)
		out_text(o, " (in a namespace nkctl cannot reach)");
	out_obj_close(o);
}

/* Reserved queues the NIC no longer has (ethtool -L to fewer): in the
 * record until nic restore reconciles it, and said so. */
static void print_vanished(struct out *o, const struct nic_job *j, uint32_t n)
{
	for (size_t i = 0; j->st.exists && i < j->st.nreserved; i++) {
		if (j->st.reserved[i] < n)
			continue;
		out_obj_open(o, NULL);
		out_uint(o, "id", "    queue %llu:", j->st.reserved[i]);
		out_flag(o, "reserved", " reserved", true);
		out_str(o, "lost", " (lost: %s: the NIC has no such queue now)", "queue");
		out_text(o, "\n");
		out_obj_close(o);
	}
}

static void print_queues(struct out *o, const struct nic_job *j, const struct nk_lease_list *leases)
{
	uint32_t n = nk_nic_rx_count(j);
	enum nk_look look = nk_look_of(&j->link, j->have_queues);
	struct nk_nic_seen seen;

	/* the one judgement, from the queues read already (a record's
	 * holder's namespace is not needed for its fate) */
	nk_nic_seen_from(NULL, j->ns, j->link.ifindex, look, &j->queues, &seen);

	out_arr_open(o, "queues");
	for (uint32_t id = 0; id < n; id++) {
		const struct nk_queue *q = nk_nic_rx_queue(j, id);
		bool reserved = j->st.exists && nk_nic_state_reserved(&j->st, id);
		bool rss = !j->rss_ret && j->rss.indir_size && nk_rss_uses(&j->rss, id);

		out_obj_open(o, NULL);
		out_uint(o, "id", "    queue %llu:", id);
		out_bool(o, "reserved", NULL, reserved);
		if (reserved)
			out_text(o, " reserved");
		if (nk_nic_lease_record_ended(&j->st, &seen, id))
			out_str(o, "lost", " (lost: %s: nkctl's record of an ended lease, undone by the next sweep or nic restore)", "lease");
		else if (nk_nic_lost_rss(&j->st, &j->rss, j->rss_ret, id))
			out_str(o, "lost", " (lost: %s: in RSS again; nic restore)", "rss");
		if (!j->rss_ret && j->rss.indir_size) {
			out_bool(o, "rss", NULL, rss);
			out_text(o, rss ? " rss" : " no-rss");
		}
		if (nk_queue_leased(q))
			print_lease(o, j, leases, q);
		if (q)
			print_mp(o, q);
		out_text(o, "\n");
		out_obj_close(o);
	}
	print_vanished(o, j, n);
	out_arr_close(o);
	nk_nic_seen_free(&seen);
}

/* What the driver supports, read here: it is only printed. */
static void print_support(struct out *o, const struct nic_job *j)
{
	struct nk_nic_support s;

	nk_nic_support_read(j->ns, j->et, j->fam, &j->link, &j->rings,
			    j->rss_ret ? 0 : j->rss.indir_size, &j->rules, j->rules_ret, &s);
	nk_nic_support_print(o, &s);
	nk_nic_support_free(&s);
}

/* What nic restore did. */
static void print_restored(struct out *o, const struct nk_nic_restored *d)
{
	out_obj_open(o, "restored");
	out_uint(o, "ended", "    restored: %llu ended lease records undone,", d->ended);
	out_arr_open(o, "vanished");
	out_text(o, " vanished queues");
	for (size_t i = 0; i < d->nvanished; i++)
		out_uint(o, NULL, " %llu", d->vanished[i]);
	out_text(o, d->nvanished ? "," : " none,");
	out_arr_close(o);
	out_bool(o, "rss", " rss %s,", d->rss);
	out_bool(o, "header-split", " header-split %s,", d->split);
	out_uint(o, "rules", " %llu rules added again,", d->rules);
	out_uint(o, "rules-dropped", " %llu dropped\n", d->dropped);
	out_obj_close(o);
}

static void print_nic(struct out *o, const struct nic_job *j, const struct nk_lease_list *leases,
		      const struct nk_nic_restored *done)
{
	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)j->link.ifindex);
	out_str(o, "ifname", "%s:\n", j->link.ifname);
	if (done)
		print_restored(o, done);
	print_support(o, j);
	print_rings(o, j);
	print_rss(o, j);
	print_rules(o, j);
	print_queues(o, j, leases);
	out_obj_close(o);
}

static void print_doc(struct nk_ctx *ctx, const struct nic_job *j,
		      const struct nk_lease_list *leases, const struct nk_nic_restored *done)
{
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "nics");
	print_nic(&ctx->out, j, leases, done);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

static int cmd_nic_show(struct nk_ctx *ctx, const void *args)
{
	const struct nic_args *a = args;
	struct nk_link_list links = { 0 };
	struct nk_lease_list leases = { 0 };
	struct nl_sock *rt;
	struct nl_err err;
	struct nic_job *j;
	int ret = 0;

	if (a->dev) {
		j = nk_nic_job_new();
		ret = j ? nk_nic_job_load(ctx, a->dev, NULL, j) : NK_EXIT_FAIL;
		if (!ret) {
			nk_lease_scan(ctx, &leases);
			print_doc(ctx, j, &leases, NULL);
		}
		nk_lease_list_free(&leases);
		nk_nic_job_free(j);
		return ret;
	}
	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret && rtnl_link_dump(rt, &links, &err))
		ret = nk_error_nl(&err, "cannot list devices");
	if (ret)
		return ret;
	nk_lease_scan(ctx, &leases);
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "nics");
	for (size_t i = 0; i < links.n; i++) {
		if (!links.v[i].parent[0])
			continue;
		j = nk_nic_job_new();
		if (!j)
			break;
		if (nk_nic_job_load(ctx, NULL, &links.v[i], j) == 0)
			print_nic(&ctx->out, j, &leases, NULL);
		nk_nic_job_free(j);
	}
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	nk_lease_list_free(&leases);
	nk_link_list_free(&links);
	return NK_EXIT_OK;
}

/* The NIC dev, locked and read, with the queues of the command; with
 * -force, -ENODEV quietly when there is no dev. */
static int begin(struct nk_ctx *ctx, const struct nic_args *a, struct nic_job **jp)
{
	struct nic_job *j = nk_nic_job_new();
	struct nl_sock *rt;
	int ret;

	*jp = j;
	if (!j)
		return NK_EXIT_FAIL;
	if (a->queue && (ret = nk_parse_queue_list("queue", a->queue, j->ids, &j->n)))
		return ret;
	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret)
		ret = nk_link_lookup(rt, a->dev, 0, &j->link, NULL, ctx->force);
	if (!ret)
		ret = nk_nic_job_lock(ctx, j);
	return ret ? ret : nk_nic_job_load(ctx, NULL, &j->link, j);
}

/* Print the NIC as the change left it. */
static void print_after(struct nk_ctx *ctx, struct nic_job *j, const struct nk_nic_restored *done)
{
	struct nk_lease_list leases = { 0 };

	nk_nic_job_reread(j);
	nk_lease_scan(ctx, &leases);
	print_doc(ctx, j, &leases, done);
	nk_lease_list_free(&leases);
}

static int cmd_nic_reserve(struct nk_ctx *ctx, const void *args)
{
	struct nk_nic_seen seen = { 0 };
	struct nic_job *j;
	size_t undone;
	int ret = begin(ctx, args, &j);

	/* what a reset ended goes first, as a sweep would undo it */
	if (!ret) {
		nk_nic_seen_read(NULL, j->ns, j->link.ifindex, &seen);
		ret = nk_nic_undo_ended_all(j, &seen, &undone);
		nk_nic_seen_free(&seen);
	}
	if (!ret)
		ret = nk_nic_need_rss(j, "nic reserve");
	if (!ret)
		ret = nk_nic_check_reserve(j);
	if (!ret)
		ret = nk_nic_check_providers(j);
	if (!ret)
		ret = nk_nic_reserve(j);
	if (!ret)
		print_after(ctx, j, NULL);
	nk_nic_job_free(j);
	return ret;
}

/* ---- release ---- */

/* A release of everything while a lease holds a reserved queue: refused,
 * force or not (its holder would read host traffic); unlease ends both. */
static int refuse_leased(struct nk_ctx *ctx, const struct nic_job *j, const struct nk_queue *q)
{
	struct nk_lease_list all = { 0 };
	const struct nk_lease_rec *r;
	char lease[IF_NAMESIZE + NK_NS_SPEC + 64], cmd[IF_NAMESIZE + NK_NS_SPEC + 64];
	int ret;

	nk_lease_scan(ctx, &all);
	r = nk_lease_of_nic(&all, j->ns, j->link.ifindex, q->id);
	if (r && r->nk_ifname[0] && r->nk_ns) {
		bool here = r->nk_ns->here;

		snprintf(lease, sizeof(lease), "\"%s\"%s%s", r->nk_ifname, here ? "" : " in netns ",
			 here ? "" : nk_ns_name(r->nk_ns));
		snprintf(cmd, sizeof(cmd), "nkctl%s%s unlease dev %s", here && !ctx->netns ? "" : " -n ",
			 here ? (ctx->netns ? ctx->netns : "") : nk_ns_name(r->nk_ns), r->nk_ifname);
	} else {
		struct nk_queue_holder h = { 0 };

		nk_queue_holder(q, &h);
		snprintf(lease, sizeof(lease), "ifindex %d", h.ifindex);
		snprintf(cmd, sizeof(cmd), "nkctl%s%s unlease from %s queue %u",
			 ctx->netns ? " -n " : "", ctx->netns ? ctx->netns : "", j->link.ifname, q->id);
	}
	ret = nk_error(NK_EXIT_EXISTS,
		       "%s queue %u is reserved and leased to %s: released, it would get host traffic its holder reads; end the lease first (%s)",
		       j->link.ifname, q->id, lease, cmd);
	nk_lease_list_free(&all);
	return ret;
}

static int check_release_all(struct nk_ctx *ctx, const struct nic_job *j)
{
	for (size_t i = 0; i < j->st.nreserved; i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j, j->st.reserved[i]);

		if (nk_queue_leased(q))
			return refuse_leased(ctx, j, q);
	}
	return 0;
}

/* Reserved queues of a NIC whose leases cannot be read (down: the dump
 * skips it) may be leased: never put back into RSS on a guess. */
static int check_readable(const struct nic_job *j, bool force)
{
	struct nk_nic_seen seen;
	int ret = 0;

	if (force || (!j->st.nreserved && !j->st.nleases))
		return 0;
	nk_nic_seen_read(NULL, j->ns, j->link.ifindex, &seen);
	if (!seen.known)
		ret = nk_error(NK_EXIT_EXISTS,
			       "%s %s: whether its reserved queues are leased cannot be read, and released they would get host traffic a lease holder reads; nothing was changed: bring it up and run it again, or add force",
			       j->link.ifname, seen.why);
	nk_nic_seen_free(&seen);
	return ret;
}

static int check_release(struct nk_ctx *ctx, const struct nic_job *j, bool force)
{
	int ret = check_readable(j, force);

	if (ret)
		return ret;
	if (!j->n)
		return check_release_all(ctx, j);
	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j, j->ids[i]);
		struct nk_queue_holder h;

		if (!nk_nic_state_reserved(&j->st, j->ids[i]) && !ctx->force)
			return nk_error(NK_EXIT_NOTFOUND, "%s queue %u is not reserved", j->link.ifname,
					j->ids[i]);
		if (nk_queue_holder(q, &h) && !force)
			return nk_error(NK_EXIT_EXISTS,
					"%s queue %u is still leased (to ifindex %d): released, it would get RSS traffic its lease holder reads; unlease first, or add force",
					j->link.ifname, q->id, h.ifindex);
	}
	return 0;
}

/* -force and a NIC that is not there: nothing to do, an empty document. */
static int print_absent(struct nk_ctx *ctx, struct nic_job *j, const char *dev, const char *what)
{
	nk_nic_job_free(j);
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "nics");
	out_arr_close(&ctx->out);
	out_text(&ctx->out, "%s does not exist: nothing to %s\n", dev, what);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

static int cmd_nic_release(struct nk_ctx *ctx, const void *args)
{
	const struct nic_args *a = args;
	struct nic_job *j;
	int ret = begin(ctx, a, &j);

	if (ret == -ENODEV)
		return print_absent(ctx, j, a->dev, "release");
	if (!ret && (!j->st.exists || (!j->st.nreserved && !j->st.saved && (j->n || !j->st.nrules)))) {
		if (!ctx->force)
			ret = nk_error(NK_EXIT_NOTFOUND, "%s has no queue reserved by nkctl",
				       j->link.ifname);
		else
			print_after(ctx, j, NULL);
		nk_nic_job_free(j);
		return ret;
	}
	if (!ret)
		ret = check_release(ctx, j, a->force);
	if (!ret)
		ret = nk_nic_need_rss(j, "nic release");
	if (!ret)
		ret = j->n ? nk_nic_release(j, j->ids, j->n) : nk_nic_release_all(j);
	if (!ret) {
		nk_nic_state_load(j->ns, &j->link, &j->st);
		print_after(ctx, j, NULL);
	}
	nk_nic_job_free(j);
	return ret;
}

/* ---- restore ---- */

static int cmd_nic_restore(struct nk_ctx *ctx, const void *args)
{
	const struct nic_args *a = args;
	struct nk_nic_restored done;
	struct nic_job *j;
	int ret = begin(ctx, a, &j);

	if (ret == -ENODEV)
		return print_absent(ctx, j, a->dev, "restore");
	if (!ret && !j->st.exists && !ctx->force)
		ret = nk_error(NK_EXIT_NOTFOUND, "%s has nothing recorded by nkctl: nothing to restore",
			       j->link.ifname);
	if (!ret)
		ret = j->st.exists ? nk_nic_restore(j, &done) : (memset(&done, 0, sizeof(done)), 0);
	if (!ret) {
		nk_nic_state_load(j->ns, &j->link, &j->st);
		print_after(ctx, j, &done);
	}
	nk_nic_job_free(j);
	return ret;
}

static const struct nk_cmd nic_cmds[] = {
	{ "show", cmd_nic_show, NULL, &nic_show_params, NULL,
	  "channels, rings, RSS, n-tuple rules and queues of a NIC" },
	{ "reserve", cmd_nic_reserve, NULL, &nic_reserve_params, NULL,
	  "take queues out of RSS and turn header split on, recording what was there" },
	{ "release", cmd_nic_release, NULL, &nic_release_params, NULL,
	  "put queues back into RSS; the last one restores the NIC's own settings" },
	{ "restore", cmd_nic_restore, NULL, &nic_restore_params, NULL,
	  "apply again what nkctl owns on a NIC that was reset or edited (RSS, header split, rules)" },
};
const struct nk_table nk_nic_table = NK_TABLE("nkctl nic", nic_cmds);
