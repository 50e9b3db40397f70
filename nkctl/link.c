// SPDX-License-Identifier: GPL-2.0
/* nkctl link add | set | del | show: netkit devices over rtnetlink. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "compat.h"
#include "netkit.h"
#include "netns.h"
#include "show.h"

static const struct nk_choice pairing_choices[] = {
	{ "pair", NK_NETKIT_DEVICE_PAIR }, { "single", NK_NETKIT_DEVICE_SINGLE }, { NULL, 0 },
};
static const struct nk_choice mode_choices[] = {
	{ "l2", NK_NETKIT_L2 }, { "l3", NK_NETKIT_L3 }, { NULL, 0 },
};
/* pass/drop as in the design; forward/blackhole as the kernel's spec and
 * show name them. */
static const struct nk_choice policy_choices[] = {
	{ "pass", NK_NETKIT_PASS }, { "drop", NK_NETKIT_DROP },
	{ "forward", NK_NETKIT_PASS }, { "blackhole", NK_NETKIT_DROP }, { NULL, 0 },
};
static const struct nk_choice scrub_choices[] = {
	{ "none", NK_NETKIT_SCRUB_NONE }, { "default", NK_NETKIT_SCRUB_DEFAULT }, { NULL, 0 },
};

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
	{ kw, type, offsetof(struct add_args, field), meta, min, max, ch, false }
static const struct nk_param add_params[] = {
	/* NEWNAME: completion offers no existing names here. */
	[A_NAME] = { NULL, NKP_IFNAME, offsetof(struct add_args, name), "NEWNAME", 0, 0, NULL, true },
	[A_PEER] = ADD("peer", NKP_IFNAME, peer, "NEWNAME", 0, 0, NULL),
	[A_NETNS] = ADD("netns", NKP_NETNS, netns, "NETNS", 0, 0, NULL),
	[A_PEER_NETNS] = ADD("peer-netns", NKP_NETNS, peer_netns, "NETNS", 0, 0, NULL),
	[A_TYPE] = ADD("type", NKP_ENUM, type, "pair|single", 0, 0, pairing_choices),
	[A_MODE] = ADD("mode", NKP_ENUM, mode, "l2|l3", 0, 0, mode_choices),
	[A_POLICY] = ADD("policy", NKP_ENUM, policy, "pass|drop", 0, 0, policy_choices),
	[A_PEER_POLICY] = ADD("peer-policy", NKP_ENUM, peer_policy, "pass|drop", 0, 0, policy_choices),
	[A_SCRUB] = ADD("scrub", NKP_ENUM, scrub, "none|default", 0, 0, scrub_choices),
	[A_PEER_SCRUB] = ADD("peer-scrub", NKP_ENUM, peer_scrub, "none|default", 0, 0, scrub_choices),
	[A_HEADROOM] = ADD("headroom", NKP_U32, headroom, "N", 0, 65535, NULL),
	[A_TAILROOM] = ADD("tailroom", NKP_U32, tailroom, "N", 0, 65535, NULL),
	[A_RXQ] = ADD("rxqueues", NKP_U32, rxqueues, "N", 1, 4096, NULL),
	[A_TXQ] = ADD("txqueues", NKP_U32, txqueues, "N", 1, 4096, NULL),
	[A_MTU] = ADD("mtu", NKP_U32, mtu, "N", 68, 65535, NULL),
	[A_ADDRESS] = ADD("address", NKP_MAC, address, "MAC", 0, 0, NULL),
	[A_PEER_ADDRESS] = ADD("peer-address", NKP_MAC, peer_address, "MAC", 0, 0, NULL),
};
static const struct nk_params link_add_params = NK_PARAMS("link add", add_params);

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
					"a single device only takes \"policy pass\" (it drops what it sends anyway)");
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

static int create_error(const struct nl_err *err, const struct netkit_req *r)
{
	if (err->code == EOPNOTSUPP && (!err->msg[0] || strstr(err->msg, "Unknown device type")))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"this kernel has no netkit devices (Linux 6.7+ with CONFIG_NETKIT)%s",
				(r->set & NKR_TXQ) && r->txqueues > 1 ?
				", or it allows only 1 TX queue" : "");
	if (err->code == EEXIST)
		return nk_error(NK_EXIT_EXISTS, "cannot create \"%s\": %s already exists", r->name,
				r->peer_name ? "it or its peer" : "a device of that name");
	return nk_error_nl(err, "cannot create netkit device \"%s\"", r->name);
}

/* A socket in netns fd (-1: here) to read back or clean up with. */
static int open_rtnl_in(struct nl_sock *s, int fd, const char *spec)
{
	struct nl_err err;

	if (netns_nl_open(s, NETLINK_ROUTE, fd, &err))
		return nk_error_nl(&err, "cannot open an rtnetlink socket in \"%s\"",
				   spec ? spec : "this namespace");
	return 0;
}

static int cmd_link_add(struct nk_ctx *ctx, int argc, char **argv)
{
	struct add_args a = { 0 };
	struct netkit_req r = { .netns_fd = -1, .peer_netns_fd = -1 };
	struct nl_sock *rt, here = { 0 }, there = { 0 };
	struct nk_link dev = { 0 }, peer = { 0 };
	struct nk_link_list both = { 0 };
	static const struct nk_queue_list no_queues;
	static const struct nk_napi_list no_napis;
	const char *peer_spec, *bad;
	struct nl_err err;
	uint64_t seen = 0;
	bool single, peer_apart;
	char got[64];
	int ret;

	ret = nk_parse_params(&link_add_params, argc, argv, &a, &seen);
	if (ret)
		return ret;
	ret = check_add(&a, seen);
	if (ret)
		return ret;
	fill_req(&r, &a, seen);
	single = (r.attrs.have & NKA_PAIRING) && r.attrs.pairing == NK_NETKIT_DEVICE_SINGLE;
	if (a.netns && (ret = nk_netns_open(a.netns, &r.netns_fd)))
		goto out;
	if (a.peer_netns && (ret = nk_netns_open(a.peer_netns, &r.peer_netns_fd)))
		goto out;
	ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		goto out;
	if (netkit_create(rt, &r, &err)) {
		ret = create_error(&err, &r);
		goto out;
	}

	/* Read back what the kernel made: it drops attributes it does not know. */
	ret = open_rtnl_in(&here, r.netns_fd, a.netns);
	if (ret)
		goto out;
	if (rtnl_link_get(&here, r.name, 0, &dev, &err)) {
		ret = nk_error_nl(&err, "created \"%s\" but cannot read it back", r.name);
		goto out;
	}
	bad = netkit_mismatch(&r, &dev, false, got, sizeof(got));
	peer_apart = r.peer_netns_fd >= 0;
	peer_spec = peer_apart ? a.peer_netns : a.netns;
	if (!bad && !single && dev.link) {
		ret = open_rtnl_in(&there, peer_apart ? r.peer_netns_fd : r.netns_fd, peer_spec);
		if (ret)
			goto undo;
		if (rtnl_link_get(&there, NULL, dev.link, &peer, &err)) {
			ret = nk_error_nl(&err, "created \"%s\" but cannot read its peer back", r.name);
			goto undo;
		}
		bad = netkit_mismatch(&r, &peer, true, got, sizeof(got));
	}
	if (bad) {
		ret = nk_error(NK_EXIT_UNSUPPORTED,
			       "the kernel ignored \"%s\" (it reported %s): it is older than this request needs; nothing was created",
			       bad, got);
		goto undo;
	}

	both.v = (struct nk_link[2]){ dev, peer };
	both.n = peer.ifindex && !peer_apart ? 2 : 1;
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "devices");
	nk_print_link(&ctx->out, &dev, a.netns, &both, &no_queues, &no_napis, NULL);
	if (peer.ifindex)
		nk_print_link(&ctx->out, &peer, peer_spec, &both, &no_queues, &no_napis, NULL);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	ret = NK_EXIT_OK;
	goto out;
undo:
	/* Deleting either side of a pair deletes both. */
	if (dev.ifindex && rtnl_link_del(&here, dev.ifindex, &err))
		nk_warn("could not delete \"%s\" again: %s", r.name,
			err.msg[0] ? err.msg : strerror(err.code));
out:
	if (nl_is_open(&here))
		nl_close(&here);
	if (nl_is_open(&there))
		nl_close(&there);
	if (r.netns_fd >= 0)
		close(r.netns_fd);
	if (r.peer_netns_fd >= 0)
		close(r.peer_netns_fd);
	return ret;
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
	[S_NAME] = { NULL, NKP_IFNAME, offsetof(struct set_args, name), "NAME", 0, 0, NULL, true },
	[S_POLICY] = { "policy", NKP_ENUM, offsetof(struct set_args, policy), "pass|drop", 0, 0,
		       policy_choices, false },
	[S_PEER_POLICY] = { "peer-policy", NKP_ENUM, offsetof(struct set_args, peer_policy),
			    "pass|drop", 0, 0, policy_choices, false },
};
static const struct nk_params link_set_params = NK_PARAMS("link set", set_params);

/* Keywords of "link add" that the kernel fixes at creation. */
static const char *const creation_only[] = {
	"type", "mode", "scrub", "peer-scrub", "headroom", "tailroom", "rxqueues", "txqueues",
	"peer", "netns", "peer-netns", "address", "peer-address", "mtu", NULL,
};

static int cmd_link_set(struct nk_ctx *ctx, int argc, char **argv)
{
	struct set_args a = { 0 };
	struct nk_netkit change = { 0 };
	struct nk_link l, after;
	struct nk_link_list one = { 0 };
	static const struct nk_queue_list no_queues;
	static const struct nk_napi_list no_napis;
	struct nl_sock *rt;
	struct nl_err err;
	uint64_t seen = 0;
	int ret;

	for (int i = 1; i < argc; i++)
		for (const char *const *c = creation_only; *c; c++)
			if (!strcmp(argv[i], *c))
				return nk_error(NK_EXIT_USAGE,
						"\"%s\" can only be given when the device is created (link add); \"link set\" changes policy and peer-policy",
						*c);
	ret = nk_parse_params(&link_set_params, argc, argv, &a, &seen);
	if (ret)
		return ret;
	if (!(seen & ((1ULL << S_POLICY) | (1ULL << S_PEER_POLICY))))
		return nk_error(NK_EXIT_USAGE, "\"link set\" needs \"policy\" or \"peer-policy\"");
	ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	ret = get_netkit(rt, a.name, &l, false);
	if (ret)
		return ret;
	if ((l.netkit.have & NKA_PAIRING) && l.netkit.pairing == NK_NETKIT_DEVICE_SINGLE)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is a single device: its policy cannot change", a.name);
	if ((l.netkit.have & NKA_PRIMARY) && !l.netkit.primary)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is the peer: change netkit settings through its primary device (ifindex %d%s)",
				a.name, l.link,
				(l.have & LINK_HAVE_LINK_NETNSID) ? " in another namespace" : "");
	if (seen & (1ULL << S_POLICY)) {
		change.policy = a.policy;
		change.have |= NKA_POLICY;
	}
	if (seen & (1ULL << S_PEER_POLICY)) {
		change.peer_policy = a.peer_policy;
		change.have |= NKA_PEER_POLICY;
	}
	if (netkit_change(rt, l.ifindex, &change, &err))
		return nk_error_nl(&err, "cannot change \"%s\"", a.name);
	if (rtnl_link_get(rt, NULL, l.ifindex, &after, &err))
		return nk_error_nl(&err, "changed \"%s\" but cannot read it back", a.name);
	if (((change.have & NKA_POLICY) && after.netkit.policy != change.policy) ||
	    ((change.have & NKA_PEER_POLICY) && after.netkit.peer_policy != change.peer_policy))
		return nk_error(NK_EXIT_FAIL, "the kernel accepted the change of \"%s\" but reports the old policy",
				a.name);
	one.v = &after;
	one.n = 1;
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "devices");
	nk_print_link(&ctx->out, &after, NULL, &one, &no_queues, &no_napis, NULL);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* ---- link del ---- */

struct name_args {
	const char *name;
};
static const struct nk_param del_params[] = {
	{ NULL, NKP_IFNAME, offsetof(struct name_args, name), "NAME", 0, 0, NULL, true },
};
static const struct nk_params link_del_params = NK_PARAMS("link del", del_params);

static int cmd_link_del(struct nk_ctx *ctx, int argc, char **argv)
{
	struct name_args a = { 0 };
	struct nk_link l, peer = { 0 };
	struct nl_sock *rt;
	struct nl_err err;
	bool has_peer;
	int ret;

	ret = nk_parse_params(&link_del_params, argc, argv, &a, NULL);
	if (ret)
		return ret;
	ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	ret = get_netkit(rt, a.name, &l, ctx->force);
	if (ret == -ENODEV) {
		/* -force: deleting what is already gone succeeds (CNI DEL). */
		out_begin(&ctx->out);
		out_arr_open(&ctx->out, "deleted");
		out_text(&ctx->out, "nothing to delete: \"%s\" does not exist\n", a.name);
		out_arr_close(&ctx->out);
		out_end(&ctx->out);
		return NK_EXIT_OK;
	}
	if (ret)
		return ret;
	has_peer = nk_peer_of(rt, &l, &peer);
	if (rtnl_link_del(rt, l.ifindex, &err)) {
		if (err.code == ENODEV && ctx->force)
			return NK_EXIT_OK;
		return nk_error_nl(&err, "cannot delete \"%s\"", a.name);
	}
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "deleted");
	nk_print_deleted(&ctx->out, &l, has_peer ? &peer : NULL);
	out_arr_close(&ctx->out);
	out_text(&ctx->out, "\n");
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* ---- link show ---- */

static const struct nk_param show_params[] = {
	{ NULL, NKP_IFNAME, offsetof(struct name_args, name), "NAME", 0, 0, NULL, false },
};
static const struct nk_params link_show_params = NK_PARAMS("link show", show_params);

static int cmd_link_show(struct nk_ctx *ctx, int argc, char **argv)
{
	struct name_args a = { 0 };
	int ret = nk_parse_params(&link_show_params, argc, argv, &a, NULL);

	if (ret)
		return ret;
	return nk_show(ctx, a.name, true);
}

static const struct nk_cmd link_cmds[] = {
	{ "add", cmd_link_add, NULL, &link_add_params,
	  "NAME [ peer PEERNAME ] [ netns NETNS ] [ peer-netns NETNS ] [ type pair|single ]\n"
	  "                 [ mode l2|l3 ] [ policy pass|drop ] [ peer-policy pass|drop ]\n"
	  "                 [ scrub none|default ] [ peer-scrub none|default ] [ headroom N ]\n"
	  "                 [ tailroom N ] [ rxqueues N ] [ txqueues N ] [ mtu N ]\n"
	  "                 [ address MAC ] [ peer-address MAC ]",
	  "create a netkit pair or single device" },
	{ "set", cmd_link_set, NULL, &link_set_params,
	  "NAME [ policy pass|drop ] [ peer-policy pass|drop ]",
	  "change the default policies (through the primary device)" },
	{ "del", cmd_link_del, NULL, &link_del_params, "NAME",
	  "delete a netkit device (and its peer); with -force a missing one is not an error" },
	{ "show", cmd_link_show, NULL, &link_show_params, "[ NAME ]",
	  "the netkit devices of the namespace, as in show" },
};
const struct nk_table nk_link_table = NK_TABLE("nkctl link", link_cmds);
