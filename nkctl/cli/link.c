// SPDX-License-Identifier: GPL-2.0
/* nkctl link add | set | del | show: netkit devices over rtnetlink. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "compat.h"
#include "core/cmd.h"
#include "view/devview.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "netkit.h"
#include "netns.h"
#include "lease/sweep.h"
#include "redirect/routesvc.h"
#include "xsk/xsksweep.h"

/* ---- link add ---- */

struct add_args {
	const char *name, *peer, *netns, *peer_netns;
	uint32_t type, mode, policy, peer_policy, scrub, peer_scrub;
	uint32_t headroom, tailroom, rxqueues, txqueues, mtu;
	uint8_t address[6], peer_address[6];
};

/* Indexes into add_params, for the "seen" bits. */
enum {
	A_NAME, A_PEER, A_NETNS, A_PEER_NETNS, A_TYPE, A_MODE, A_POLICY, A_PEER_POLICY,
	A_SCRUB, A_PEER_SCRUB, A_HEADROOM, A_TAILROOM, A_RXQ, A_TXQ, A_MTU, A_ADDRESS,
	A_PEER_ADDRESS,
};

#define ADD(kw, type, field, meta, min, max, ch) \
	{ kw, type, offsetof(struct add_args, field), meta, min, max, ch, false, NULL }
static const struct nk_param add_params[] = {
	/* NEWNAME: completion offers no existing names here. */
	[A_NAME] = { NULL, NKP_IFNAME, offsetof(struct add_args, name), "NEWNAME", 0, 0, NULL, true,
		     NULL },
	[A_PEER] = ADD("peer", NKP_IFNAME, peer, "PEERNAME", 0, 0, NULL),
	[A_NETNS] = ADD("netns", NKP_NETNS, netns, "NETNS", 0, 0, NULL),
	[A_PEER_NETNS] = ADD("peer-netns", NKP_NETNS, peer_netns, "NETNS", 0, 0, NULL),
	[A_TYPE] = ADD("type", NKP_ENUM, type, "TYPE", 0, 0, netkit_pairing_words),
	[A_MODE] = ADD("mode", NKP_ENUM, mode, "MODE", 0, 0, netkit_mode_words),
	[A_POLICY] = ADD("policy", NKP_ENUM, policy, "POLICY", 0, 0, netkit_policy_words),
	[A_PEER_POLICY] = ADD("peer-policy", NKP_ENUM, peer_policy, "POLICY", 0, 0, netkit_policy_words),
	[A_SCRUB] = ADD("scrub", NKP_ENUM, scrub, "SCRUB", 0, 0, netkit_scrub_words),
	[A_PEER_SCRUB] = ADD("peer-scrub", NKP_ENUM, peer_scrub, "SCRUB", 0, 0, netkit_scrub_words),
	[A_HEADROOM] = ADD("headroom", NKP_U32, headroom, "N", 0, 65535, NULL),
	[A_TAILROOM] = ADD("tailroom", NKP_U32, tailroom, "N", 0, 65535, NULL),
	[A_RXQ] = ADD("rxqueues", NKP_U32, rxqueues, "N", 1, 4096, NULL),
	[A_TXQ] = ADD("txqueues", NKP_U32, txqueues, "N", 1, 4096, NULL),
	[A_MTU] = ADD("mtu", NKP_U32, mtu, "N", 68, 65535, NULL),
	[A_ADDRESS] = ADD("address", NKP_MAC, address, "MAC", 0, 0, NULL),
	[A_PEER_ADDRESS] = ADD("peer-address", NKP_MAC, peer_address, "MAC", 0, 0, NULL),
};
static const struct nk_params link_add_params = {
	NK_PARAMS("link add", struct add_args, add_params)
};

#define SEEN(bit) (seen & (1ULL << (bit)))

/* Refuse combinations the kernel would reject without saying why. */
static int check_add(const struct add_args *a, uint64_t seen)
{
	static const int peer_only[] = { A_PEER, A_PEER_NETNS, A_PEER_POLICY, A_PEER_SCRUB,
					 A_PEER_ADDRESS, A_SCRUB };
	bool l2 = SEEN(A_MODE) && a->mode == NK_NETKIT_L2;

	if (SEEN(A_TYPE) && a->type == NK_NETKIT_DEVICE_SINGLE) {
		for (size_t i = 0; i < sizeof(peer_only) / sizeof(peer_only[0]); i++)
			if (SEEN(peer_only[i]))
				return nk_error(NK_EXIT_USAGE,
						"\"%s\" cannot be used with \"type single\": a single device has no peer",
						add_params[peer_only[i]].kw);
		if (SEEN(A_POLICY) && a->policy != NK_NETKIT_PASS)
			return nk_error(NK_EXIT_USAGE,
					"a single device only takes \"policy forward\" (it drops what it sends anyway)");
	}
	if (SEEN(A_PEER) && !strcmp(a->peer, a->name))
		return nk_error(NK_EXIT_USAGE, "\"peer\" must differ from the device name");
	if ((SEEN(A_ADDRESS) || SEEN(A_PEER_ADDRESS)) && !l2)
		return nk_error(NK_EXIT_USAGE,
				"\"%s\" needs \"mode l2\": netkit l3 devices have no MAC address",
				SEEN(A_ADDRESS) ? "address" : "peer-address");
	return 0;
}

static void fill_req(struct netkit_req *r, const struct add_args *a, uint64_t seen)
{
	struct nk_netkit *nk = &r->attrs;

	r->name = a->name;
	r->peer_name = SEEN(A_PEER) ? a->peer : NULL;
	if (SEEN(A_TYPE)) {
		nk->pairing = a->type;
		/* Ask for pairing only when it matters: kernels before single mode
		 * do not know the attribute (and would ignore it). */
		if (a->type == NK_NETKIT_DEVICE_SINGLE)
			nk->have |= NKA_PAIRING;
	}
#define TAKE(bit, arg, field) \
	if (SEEN(arg)) { nk->field = a->field; nk->have |= bit; }
	TAKE(NKA_MODE, A_MODE, mode);
	TAKE(NKA_POLICY, A_POLICY, policy);
	TAKE(NKA_PEER_POLICY, A_PEER_POLICY, peer_policy);
	TAKE(NKA_SCRUB, A_SCRUB, scrub);
	TAKE(NKA_PEER_SCRUB, A_PEER_SCRUB, peer_scrub);
#undef TAKE
	if (SEEN(A_HEADROOM)) {
		nk->headroom = (uint16_t)a->headroom;
		nk->have |= NKA_HEADROOM;
	}
	if (SEEN(A_TAILROOM)) {
		nk->tailroom = (uint16_t)a->tailroom;
		nk->have |= NKA_TAILROOM;
	}
	if (SEEN(A_RXQ)) {
		r->rxqueues = a->rxqueues;
		r->set |= NKR_RXQ;
	}
	if (SEEN(A_TXQ)) {
		r->txqueues = a->txqueues;
		r->set |= NKR_TXQ;
	}
	if (SEEN(A_MTU)) {
		r->mtu = a->mtu;
		r->set |= NKR_MTU;
	}
	if (SEEN(A_ADDRESS)) {
		memcpy(r->address, a->address, 6);
		r->set |= NKR_ADDRESS;
	}
	if (SEEN(A_PEER_ADDRESS)) {
		memcpy(r->peer_address, a->peer_address, 6);
		r->set |= NKR_PEER_ADDRESS;
	}
}

static int create_error(struct nk_ctx *ctx, const struct nl_err *err, const struct netkit_req *r)
{
	bool no_kind = !err->msg[0] || strstr(err->msg, "Unknown device type");

	if (err->code == EOPNOTSUPP && no_kind && (r->set & NKR_TXQ) && r->txqueues > 1 &&
	    nk_feature_has(ctx, NK_FEAT_NETKIT))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"netkit devices have one TX queue: \"txqueues %u\" is refused by this kernel",
				r->txqueues);
	if (err->code == EOPNOTSUPP && no_kind)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"this kernel has no netkit devices (Linux %s+ with CONFIG_NETKIT)",
				nk_feature_since(NK_FEAT_NETKIT));
	if (err->code == EEXIST)
		return nk_error(NK_EXIT_EXISTS, "cannot create \"%s\": %s already exists", r->name,
				r->peer_name ? "it or its peer" : "a device of that name");
	return nk_error_nl(err, "cannot create netkit device \"%s\"", r->name);
}

/* What link add made, read back from the namespaces it went to. */
struct made {
	struct nk_ns *ns, *peer_ns;
	struct nk_link dev, peer;
};

/* Read the device and its peer back; the kernel drops attributes it does
 * not know, so what it reports is compared with what was asked. */
static int read_back(const struct netkit_req *r, struct made *m, bool single)
{
	struct nl_sock *rt;
	struct nl_err err;
	const char *bad;
	char got[64];
	int ret;

	ret = nk_ns_rtnl(m->ns, &rt);
	if (ret)
		return ret;
	if (rtnl_link_get(rt, r->name, 0, &m->dev, &err))
		return nk_error_nl(&err, "created \"%s\" but cannot read it back", r->name);
	bad = netkit_mismatch(r, &m->dev, false, got, sizeof(got));
	if (!bad && !single && m->dev.link) {
		ret = nk_ns_rtnl(m->peer_ns, &rt);
		if (ret)
			return ret;
		if (rtnl_link_get(rt, NULL, m->dev.link, &m->peer, &err))
			return nk_error_nl(&err, "created \"%s\" but cannot read its peer back",
					   r->name);
		bad = netkit_mismatch(r, &m->peer, true, got, sizeof(got));
	}
	if (bad)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"the kernel ignored \"%s\" (it reported %s): it is older than this request needs; nothing was created",
				bad, got);
	return 0;
}

static void undo_create(struct made *m, const char *name)
{
	struct nl_sock *rt = nk_ns_try_rtnl(m->ns);
	struct nl_err err;

	/* Deleting either side of a pair deletes both. */
	if (m->dev.ifindex && rt && rtnl_link_del(rt, m->dev.ifindex, &err))
		nk_warn("could not delete \"%s\" again: %s", name,
			err.msg[0] ? err.msg : strerror(err.code));
}

static void print_made(struct nk_ctx *ctx, const struct add_args *a, const struct made *m)
{
	const struct nk_link *l[2] = { &m->dev, &m->peer };
	const char *spec[2] = { a->netns, a->peer_netns ? a->peer_netns : a->netns };

	nk_print_links(ctx, l, spec, m->peer.ifindex ? 2 : 1);
}

static int cmd_link_add(struct nk_ctx *ctx, const void *args)
{
	const struct add_args *a = args;
	struct netkit_req r = { .netns_fd = -1, .peer_netns_fd = -1 };
	struct made m = { 0 };
	struct nl_sock *rt;
	struct nl_err err;
	bool single;
	int ret;

	ret = check_add(a, ctx->given);
	if (ret)
		return ret;
	fill_req(&r, a, ctx->given);
	single = (r.attrs.have & NKA_PAIRING) && r.attrs.pairing == NK_NETKIT_DEVICE_SINGLE;
	ret = nk_ns_get(ctx, a->netns, &m.ns);
	if (!ret)
		ret = nk_ns_get(ctx, a->peer_netns ? a->peer_netns : a->netns, &m.peer_ns);
	if (!ret)
		ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	r.netns_fd = a->netns ? m.ns->fd : -1;
	r.peer_netns_fd = a->peer_netns ? m.peer_ns->fd : -1;
	if (netkit_create(rt, &r, &err))
		return create_error(ctx, &err, &r);
	ret = read_back(&r, &m, single);
	if (ret) {
		undo_create(&m, r.name);
		return ret;
	}
	print_made(ctx, a, &m);
	return NK_EXIT_OK;
}

/* ---- lookups shared by set and del ---- */

/* Get NAME; not found and not netkit are errors with their exit codes. */
static int get_netkit(struct nl_sock *rt, const char *name, struct nk_link *l,
		      bool missing_ok)
{
	int ret = nk_link_lookup(rt, name, 0, l, NULL, missing_ok);

	if (ret)
		return ret;
	if (!nk_link_is_netkit(l))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is not a netkit device%s%s%s; nkctl changes only netkit devices",
				name, l->kind[0] ? " (kind " : "", l->kind, l->kind[0] ? ")" : "");
	return 0;
}

/* ---- link set ---- */

struct set_args {
	const char *name;
	uint32_t policy, peer_policy;
};
enum { S_NAME, S_POLICY, S_PEER_POLICY };
static const struct nk_param set_params[] = {
	[S_NAME] = { NULL, NKP_IFNAME, offsetof(struct set_args, name), "NAME", 0, 0, NULL, true,
		     NULL },
	[S_POLICY] = { "policy", NKP_ENUM, offsetof(struct set_args, policy), "POLICY", 0, 0,
		       netkit_policy_words, false, NULL },
	[S_PEER_POLICY] = { "peer-policy", NKP_ENUM, offsetof(struct set_args, peer_policy),
			    "POLICY", 0, 0, netkit_policy_words, false, NULL },
};
static const struct nk_params link_set_params = {
	NK_PARAMS("link set", struct set_args, set_params),
	.creation = &link_add_params,
};

/* What the change asks for, as netkit attributes. */
static struct nk_netkit set_change(const struct set_args *a, uint64_t seen)
{
	struct nk_netkit change = { 0 };

	if (seen & (1ULL << S_POLICY)) {
		change.policy = a->policy;
		change.have |= NKA_POLICY;
	}
	if (seen & (1ULL << S_PEER_POLICY)) {
		change.peer_policy = a->peer_policy;
		change.have |= NKA_PEER_POLICY;
	}
	return change;
}

/* Policies change through the primary of a pair only. */
static int check_settable(const struct nk_link *l)
{
	if ((l->netkit.have & NKA_PAIRING) && l->netkit.pairing == NK_NETKIT_DEVICE_SINGLE)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is a single device: its policy cannot change", l->ifname);
	if ((l->netkit.have & NKA_PRIMARY) && !l->netkit.primary)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is the peer: change netkit settings through its primary device (ifindex %d%s)",
				l->ifname, l->link,
				(l->have & LINK_HAVE_LINK_NETNSID) ? " in another namespace" : "");
	return 0;
}

static int cmd_link_set(struct nk_ctx *ctx, const void *args)
{
	const struct set_args *a = args;
	struct nk_netkit change = set_change(a, ctx->given);
	struct nk_link l, after;
	const struct nk_link *one[1] = { &after };
	const char *here[1] = { NULL };
	struct nl_sock *rt;
	struct nl_err err;
	int ret;

	if (!change.have)
		return nk_error(NK_EXIT_USAGE, "\"link set\" needs \"policy\" or \"peer-policy\"");
	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret)
		ret = get_netkit(rt, a->name, &l, false);
	if (!ret)
		ret = check_settable(&l);
	if (ret)
		return ret;
	if (netkit_change(rt, l.ifindex, &change, &err))
		return nk_error_nl(&err, "cannot change \"%s\"", a->name);
	if (rtnl_link_get(rt, NULL, l.ifindex, &after, &err))
		return nk_error_nl(&err, "changed \"%s\" but cannot read it back", a->name);
	if (((change.have & NKA_POLICY) && after.netkit.policy != change.policy) ||
	    ((change.have & NKA_PEER_POLICY) && after.netkit.peer_policy != change.peer_policy))
		return nk_error(NK_EXIT_FAIL, "the kernel accepted the change of \"%s\" but reports the old policy",
				a->name);
	nk_print_links(ctx, one, here, 1);
	return NK_EXIT_OK;
}

/* ---- link del ---- */

struct name_args {
	const char *name;
};
struct del_args {
	const char *name;
	uint32_t group;
};
enum { D_NAME, D_GROUP };
static const struct nk_param del_params[] = {
	[D_NAME] = { NULL, NKP_IFNAME, offsetof(struct del_args, name), "NAME", 0, 0, NULL, false,
		     NULL },
	/* as ip link delete group: 0 is every device's default group */
	[D_GROUP] = { "group", NKP_U32, offsetof(struct del_args, group), "DEVGROUP", 1, UINT32_MAX,
		      NULL, false, NULL },
};
static const struct nk_rule del_rules[] = {
	{ NK_RULE_ONE_OF, { "NAME", "group", NULL } },
};
static const struct nk_params link_del_params = {
	NK_PARAMS("link del", struct del_args, del_params),
	NK_RULES(del_rules),
};

/* -force: deleting what is already gone succeeds (CNI DEL), with the same
 * document. */
static int nothing_deleted(struct nk_ctx *ctx, const char *what)
{
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "deleted");
	out_text(&ctx->out, "nothing to delete: %s\n", what);
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "detached");
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* What link del and link del group do after the kernel deleted: the NIC
 * side of the leases that ended (a Warning where that fails, retried by the
 * next command: the devices are gone, so the document is printed), AF_XDP
 * attaches of those queues, the document, nkctl's redirects of the devices
 * gone. */
static int after_del(struct nk_ctx *ctx, const struct nk_link *l, const struct nk_link *peer,
		     size_t n, const struct nk_gone *gone, size_t ngone)
{
	int ret = nk_nic_unlease_stale(ctx);

	if (ret)
		return ret;
	nk_xsk_sweep(ctx, false, NULL);
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "deleted");
	for (size_t i = 0; i < n; i++)
		nk_print_deleted(&ctx->out, &l[i], peer[i].ifindex ? &peer[i] : NULL);
	out_arr_close(&ctx->out);
	out_text(&ctx->out, "\n");
	nk_redirect_forget(ctx, gone, ngone);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* ---- link del group ---- */

/* The netkit devices of group g in rt's namespace into m (a pair's two
 * sides both in it: the first only, which takes the other), with their
 * peers; a member that is not netkit is refused (5), none is -ENODEV. */
struct group_del {
	struct nk_link_list all;
	struct nk_link *l, *peer, *there;
	struct nk_gone *gone;
	size_t n, ngone;
};

static bool taken_with(const struct group_del *m, const struct nk_link *l)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->peer[i].ifindex == l->ifindex && !(m->l[i].have & LINK_HAVE_LINK_NETNSID))
			return true;
	return false;
}

static int group_members(struct nk_ctx *ctx, struct nk_ns *here, struct nl_sock *rt, uint32_t g,
			 struct group_del *m)
{
	struct nl_err err;
	size_t cap;

	if (rtnl_link_dump(rt, &m->all, &err))
		return nk_error_nl(&err, "cannot list the devices");
	cap = m->all.n ? m->all.n : 1;
	m->l = calloc(cap, sizeof(*m->l));
	m->peer = calloc(cap, sizeof(*m->peer));
	m->there = calloc(cap, sizeof(*m->there));
	m->gone = calloc(cap * NK_GONE_MAX, sizeof(*m->gone));
	if (!m->l || !m->peer || !m->there || !m->gone)
		return nk_error(NK_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < m->all.n; i++) {
		const struct nk_link *l = &m->all.v[i];

		if (l->group != g || taken_with(m, l))
			continue;
		if (!nk_link_is_netkit(l))
			return nk_error(NK_EXIT_UNSUPPORTED,
					"group %u has \"%s\", which is not a netkit device%s%s%s; nkctl deletes only netkit devices: nothing was deleted",
					g, l->ifname, l->kind[0] ? " (kind " : "", l->kind,
					l->kind[0] ? ")" : "");
		m->l[m->n] = *l;
		if (!nk_peer_of(rt, &m->l[m->n], &m->peer[m->n]))
			memset(&m->peer[m->n], 0, sizeof(m->peer[m->n]));
		m->n++;
	}
	/* the notes of the redirects to forget, once the list stands still */
	for (size_t i = 0; i < m->n; i++)
		m->ngone += nk_gone_of(ctx, here, &m->l[i], m->peer[i].ifindex ? &m->peer[i] : NULL,
				       &m->there[i], m->gone + m->ngone);
	return m->n ? 0 : -ENODEV;
}

static void group_del_free(struct group_del *m)
{
	nk_link_list_free(&m->all);
	free(m->l);
	free(m->peer);
	free(m->there);
	free(m->gone);
}

/* Every netkit device of the group (and each one's peer, wherever it is)
 * deleted by one RTM_DELLINK: the kernel checks all, then unregisters them
 * together, so a hundred pods' host sides wait for one grace period, not a
 * hundred. Devices that join the group meanwhile go too: the group is the
 * caller's to keep to itself. */
static int cmd_link_del_group(struct nk_ctx *ctx, uint32_t g)
{
	struct group_del m = { 0 };
	char what[64];
	struct nk_ns *here;
	struct nl_sock *rt;
	struct nl_err err;
	int ret;

	snprintf(what, sizeof(what), "group %u has no devices", g);
	ret = nk_ns_here(ctx, &here);
	if (!ret)
		ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret)
		ret = group_members(ctx, here, rt, g, &m);
	if (ret == -ENODEV)
		ret = ctx->force ? nothing_deleted(ctx, what) :
				   nk_error(NK_EXIT_NOTFOUND, "%s", what);
	else if (!ret && rtnl_link_del_group(rt, g, &err))
		ret = err.code == ENODEV && ctx->force ? nothing_deleted(ctx, what) :
			err.code == ENODEV ? nk_error(NK_EXIT_NOTFOUND, "%s", what) :
			nk_error_nl(&err, "cannot delete group %u", g);
	else if (!ret)
		ret = after_del(ctx, m.l, m.peer, m.n, m.gone, m.ngone);
	group_del_free(&m);
	return ret;
}

static int cmd_link_del(struct nk_ctx *ctx, const void *args)
{
	const struct del_args *a = args;
	struct nk_link l, peer = { 0 }, there;
	struct nk_gone gone[NK_GONE_MAX];
	struct nk_ns *here;
	struct nl_sock *rt;
	struct nl_err err;
	bool has_peer;
	size_t ngone;
	char what[64];
	int ret;

	if (!a->name)
		return cmd_link_del_group(ctx, a->group);
	snprintf(what, sizeof(what), "\"%s\" does not exist", a->name);
	ret = nk_ns_here(ctx, &here);
	if (!ret)
		ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	ret = get_netkit(rt, a->name, &l, ctx->force);
	if (ret == -ENODEV)
		return nothing_deleted(ctx, what);
	if (ret)
		return ret;
	has_peer = nk_peer_of(rt, &l, &peer);
	/* Its redirects would route to a device that is gone (or to whichever
	 * gets its ifindex next); the peer's are in its own namespace. */
	ngone = nk_gone_of(ctx, here, &l, has_peer ? &peer : NULL, &there, gone);
	if (rtnl_link_del(rt, l.ifindex, &err)) {
		if (err.code == ENODEV && ctx->force)
			return nothing_deleted(ctx, what);
		return nk_error_nl(&err, "cannot delete \"%s\"", a->name);
	}
	/* A lease holder's leases ended with it: their NIC side (rules,
	 * reservation, RSS context) goes too, as with unlease. */
	if (!has_peer)
		memset(&peer, 0, sizeof(peer));
	return after_del(ctx, &l, &peer, 1, gone, ngone);
}

/* ---- link show ---- */

static const struct nk_param show_params[] = {
	{ NULL, NKP_IFNAME, offsetof(struct name_args, name), "NAME", 0, 0, NULL, false, NULL },
};
static const struct nk_params link_show_params = {
	NK_PARAMS("link show", struct name_args, show_params)
};

static int cmd_link_show(struct nk_ctx *ctx, const void *args)
{
	const struct name_args *a = args;

	return nk_show(ctx, a->name, true);
}

static const struct nk_cmd link_cmds[] = {
	{ "add", cmd_link_add, NULL, &link_add_params, NULL,
	  "create a netkit pair or single device" },
	{ "set", cmd_link_set, NULL, &link_set_params, NULL,
	  "change the default policies (through the primary device)" },
	{ "del", cmd_link_del, NULL, &link_del_params, NULL,
	  "delete a netkit device (and its peer), or every one of a device group at once; with -force a missing one is not an error" },
	{ "show", cmd_link_show, NULL, &link_show_params, NULL,
	  "the netkit devices of the namespace, as in show" },
};
const struct nk_table nk_link_table = NK_TABLE("nkctl link", link_cmds);
