// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl steer add|del|show: n-tuple flow steering rules through the
 * SIOCETHTOOL ioctl, issued in the NIC's namespace. The driver picks the
 * rule's location (RX_CLS_LOC_ANY); that id is printed and recorded in the
 * NIC's state file (nicrule.h), so nic show tells nkctl's rules from others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "core/cmd.h"
#include "core/lookup.h"
#include "nic/nicjob.h"
#include "nic/nicrule.h"
#include "rtnl.h"

struct steer_args {
	const char *dev, *src, *dst;
	uint32_t flow_type, sport, dport, queue, id;
};

#define SP(kw, type, field, meta, min, max, ch, req) \
	{ kw, type, offsetof(struct steer_args, field), meta, min, max, ch, req, NULL }
static const struct nk_param add_params[] = {
	SP("dev", NKP_IFNAME, dev, "PHYS", 0, 0, NULL, true),
	SP("flow-type", NKP_ENUM, flow_type, "FLOW", 0, 0, nk_flow_type_words, true),
	SP("src", NKP_STRING, src, "ADDR", 0, 0, NULL, false),
	SP("dst", NKP_STRING, dst, "ADDR", 0, 0, NULL, false),
	SP("src-port", NKP_U32, sport, "PORT", 1, 65535, NULL, false),
	SP("dst-port", NKP_U32, dport, "PORT", 1, 65535, NULL, false),
	SP("queue", NKP_U32, queue, "QUEUE", 0, 0xffff, NULL, true),
};
static const struct nk_params steer_add_params = {
	NK_PARAMS("steer add", struct steer_args, add_params)
};
static const struct nk_param del_params[] = {
	SP("dev", NKP_IFNAME, dev, "PHYS", 0, 0, NULL, true),
	SP("id", NKP_U32, id, "ID", 0, 0xfffffff0, NULL, true),
};
static const struct nk_params steer_del_params = {
	NK_PARAMS("steer del", struct steer_args, del_params)
};
static const struct nk_param show_params[] = {
	SP("dev", NKP_IFNAME, dev, "PHYS", 0, 0, NULL, false),
};
static const struct nk_params steer_show_params = {
	NK_PARAMS("steer show", struct steer_args, show_params)
};

/* ADDR of the flow type's family into a. */
static int parse_addr(const char *kw, const char *s, uint32_t flow_type, uint8_t *a)
{
	bool v6 = nk_flow_is_v6(flow_type);

	if (inet_pton(v6 ? AF_INET6 : AF_INET, s, a) == 1)
		return 0;
	return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"%s\": not an IPv%c address (flow-type %s)",
			s, kw, v6 ? '6' : '4', nk_choice_word(nk_flow_type_words, flow_type));
}

static int build_rule(const struct steer_args *a, struct nk_ntuple *r)
{
	memset(r, 0, sizeof(*r));
	r->flow_type = a->flow_type;
	r->action = a->queue;
	if (a->src && parse_addr("src", a->src, a->flow_type, r->src))
		return NK_EXIT_USAGE;
	if (a->dst && parse_addr("dst", a->dst, a->flow_type, r->dst))
		return NK_EXIT_USAGE;
	r->have_src = a->src != NULL;
	r->have_dst = a->dst != NULL;
	r->have_sport = a->sport != 0;
	r->have_dport = a->dport != 0;
	r->sport = (uint16_t)a->sport;
	r->dport = (uint16_t)a->dport;
	if ((r->have_sport || r->have_dport) && !nk_flow_has_ports(r->flow_type))
		return nk_error(NK_EXIT_USAGE, "\"%s\" needs flow-type tcp4, udp4, tcp6 or udp6",
				r->have_sport ? "src-port" : "dst-port");
	return 0;
}

/* Queue q must be one the NIC has (its RX ring count). */
static int check_queue(int fd, const char *dev, uint32_t q)
{
	uint32_t n;
	int ret = ethtool_rx_rings(fd, dev, &n);

	if (ret)
		return nk_nic_ntuple_error(ret, dev, "steer add");
	if (q >= n)
		return nk_error(NK_EXIT_NOTFOUND, "%s has no RX queue %u (it has %u)", dev, q, n);
	return 0;
}

static int cmd_steer_add(struct nk_ctx *ctx, const void *args)
{
	const struct steer_args *a = args;
	char key[NK_NIC_KEY_MAX];
	struct nk_ntuple r;
	struct nk_link l;
	struct nk_ns *ns;
	int fd, ret;

	ret = build_rule(a, &r);
	if (!ret)
		ret = nk_dev(ctx, a->dev, &l);
	if (!ret)
		ret = nk_ns_here(ctx, &ns);
	if (!ret)
		ret = nk_ns_ioctl(ns, &fd);
	if (!ret)
		ret = check_queue(fd, l.ifname, a->queue);
	if (ret)
		return ret;
	ret = nk_nic_hold_link(ctx, ns, &l, key, sizeof(key));
	if (ret)
		return ret;
	ret = nk_nic_steer_add(ns, &l, fd, &r);
	nk_nic_unhold(ctx, key);
	if (ret)
		return ret;
	out_begin(&ctx->out);
	out_str(&ctx->out, "ifname", "%s:\n", l.ifname);
	out_arr_open(&ctx->out, "rules");
	nk_print_rule(&ctx->out, &r, true, false);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

static int cmd_steer_del(struct nk_ctx *ctx, const void *args)
{
	const struct steer_args *a = args;
	char key[NK_NIC_KEY_MAX];
	struct nk_link l;
	struct nk_ns *ns;
	int fd, ret;
	bool absent = false;

	ret = nk_dev(ctx, a->dev, &l);
	if (!ret)
		ret = nk_ns_here(ctx, &ns);
	if (!ret)
		ret = nk_ns_ioctl(ns, &fd);
	if (ret)
		return ret;
	ret = nk_nic_hold_link(ctx, ns, &l, key, sizeof(key));
	if (ret)
		return ret;
	ret = ethtool_ntuple_del(fd, l.ifname, a->id);
	if (ret == -ENOENT || ret == -EINVAL) {
		absent = true;
		ret = ctx->force ? 0 : nk_error(NK_EXIT_NOTFOUND, "%s has no rule %u", l.ifname, a->id);
	} else if (ret) {
		ret = nk_nic_ntuple_error(ret, l.ifname, "steer del");
	}
	if (!ret)
		nk_nic_steer_forget(ns, &l, a->id);
	nk_nic_unhold(ctx, key);
	if (ret)
		return ret;
	out_begin(&ctx->out);
	out_str(&ctx->out, "ifname", "%s:", l.ifname);
	out_uint(&ctx->out, "id", " rule %llu", a->id);
	out_bool(&ctx->out, "deleted", NULL, !absent);
	out_text(&ctx->out, absent ? " was not there\n" : " deleted\n");
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* One NIC's rules; *supported false when its driver has none. */
static int show_one(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *l, bool one)
{
	struct nk_ntuple_list rules;
	struct nk_nic_state st = { 0 };
	int fd, ret = nk_ns_ioctl(ns, &fd);

	if (ret)
		return ret;
	ret = ethtool_ntuple_list(fd, l->ifname, &rules);
	if (ret && !one)
		return 0;
	if (ret)
		return nk_nic_ntuple_error(ret, l->ifname, "steer show");
	if (nk_nic_state_load(ns, l, &st))
		st.exists = false;     /* unreadable, or another NIC's: not shown */
	out_obj_open(&ctx->out, NULL);
	out_uint(&ctx->out, "ifindex", NULL, (unsigned int)l->ifindex);
	out_str(&ctx->out, "ifname", "%s:", l->ifname);
	out_uint(&ctx->out, "table-size", " %llu rule locations\n", rules.table_size);
	out_arr_open(&ctx->out, "rules");
	for (size_t i = 0; i < rules.n; i++)
		nk_print_rule(&ctx->out, &rules.v[i], st.exists &&
			      nk_nic_state_has_rule(&st, rules.v[i].id), false);
	out_arr_close(&ctx->out);
	out_obj_close(&ctx->out);
	nk_ntuple_list_free(&rules);
	nk_nic_state_free(&st);
	return 0;
}

static int cmd_steer_show(struct nk_ctx *ctx, const void *args)
{
	const struct steer_args *a = args;
	struct nk_link_list links = { 0 };
	struct nk_link l;
	struct nl_sock *rt;
	struct nl_err err;
	struct nk_ns *ns;
	int ret;

	ret = nk_ns_here(ctx, &ns);
	if (!ret && a->dev)
		ret = nk_dev(ctx, a->dev, &l);
	if (!ret && !a->dev) {
		ret = nk_ctx_rtnl(ctx, &rt);
		if (!ret && rtnl_link_dump(rt, &links, &err))
			ret = nk_error_nl(&err, "cannot list devices");
	}
	if (ret)
		return ret;
	if (a->dev) {
		/* Errors first, so a failure prints no document. */
		struct nk_ntuple_list probe;
		int fd;

		ret = nk_ns_ioctl(ns, &fd);
		if (!ret && (ret = ethtool_ntuple_list(fd, l.ifname, &probe)))
			return nk_nic_ntuple_error(ret, l.ifname, "steer show");
		if (ret)
			return ret;
		nk_ntuple_list_free(&probe);
	}
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "nics");
	if (a->dev)
		ret = show_one(ctx, ns, &l, true);
	for (size_t i = 0; i < links.n && !ret; i++)
		if (links.v[i].parent[0])
			ret = show_one(ctx, ns, &links.v[i], false);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	nk_link_list_free(&links);
	return ret;
}

static const struct nk_cmd steer_cmds[] = {
	{ "add", cmd_steer_add, NULL, &steer_add_params, NULL,
	  "add an n-tuple rule steering a flow to an RX queue" },
	{ "del", cmd_steer_del, NULL, &steer_del_params, NULL,
	  "delete an n-tuple rule by id; with -force a missing one is not an error" },
	{ "show", cmd_steer_show, NULL, &steer_show_params, NULL,
	  "the n-tuple rules of one NIC or of every NIC of the namespace" },
};
const struct nk_table nk_steer_table = NK_TABLE("nkctl steer", steer_cmds);
