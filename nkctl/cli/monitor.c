// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl monitor: one process subscribed to rtnetlink's link and nsid groups
 * and the netdev family's mgmt and page-pool groups, printing one record per
 * event (a text line, or a JSON document per line). Leases, bindings,
 * holders, AF_XDP queues and XDP programs have no notification of their
 * own: they come from re-dumps on related events, on changes in nkctl's
 * state directory and every MON_REDUMP_MS, compared with the last snapshot
 * (monsnap.c, monxsk.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <linux/genetlink.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "bpfutil.h"
#include "compat.h"
#include "core/cmd.h"
#include "core/kernel.h"
#include "cli/monitor.h"
#include "monitor/monxsk.h"
#include "pagepool.h"

struct monitor_args {
	bool all_nsid;
	uint32_t count;
	bool obj[MON_LOST];
};

#define OBJ(kw, id) { kw, NKP_FLAG, offsetof(struct monitor_args, obj) + (id) * sizeof(bool), \
		      NULL, 0, 0, NULL, false, NULL }
static const struct nk_param monitor_params[] = {
	{ "all-nsid", NKP_FLAG, offsetof(struct monitor_args, all_nsid), NULL, 0, 0, NULL, false,
	  NULL },
	{ "count", NKP_U32, offsetof(struct monitor_args, count), "N", 1, 1000000000, NULL, false,
	  NULL },
	OBJ("link", MON_LINK),
	OBJ("nsid", MON_NSID),
	OBJ("netdev", MON_NETDEV),
	OBJ("page-pool", MON_PAGE_POOL),
	OBJ("lease", MON_LEASE),
	OBJ("binding", MON_BINDING),
	OBJ("holder", MON_HOLDER),
	OBJ("xsk", MON_XSK),
	OBJ("xdp", MON_XDP),
};
#undef OBJ
const struct nk_params cmd_monitor_params = {
	NK_PARAMS("monitor", struct monitor_args, monitor_params),
	.defs = "OBJECT := { link | nsid | netdev | page-pool | lease | binding | holder |\n"
		"                   xsk | xdp }",
};

/* ---- the kernel's notifications ---- */

/* Leases and bindings may have changed with this device: look again. */
static int related_resync(struct monitor *m)
{
	int ret = 0;

	if (m->lookups && m->want[MON_LEASE])
		ret = mon_leases_sync(m, true);
	if (!ret && m->lookups && m->want[MON_BINDING])
		ret = mon_bindings_sync(m, true);
	return ret;
}

static int on_link(struct monitor *m, const struct nk_ev *ev)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(ev->nlh);
	bool related;
	int ret;

	if (mnl_nlmsg_get_payload_len(ev->nlh) < sizeof(*ifi))
		return 0;
	related = mon_link_in_lease(m, ev->nsid, ifi->ifi_index);
	ret = mon_link_event(m, ev->nlh, ev->nsid);
	if (!ret && (related || mon_link_in_lease(m, ev->nsid, ifi->ifi_index)))
		ret = related_resync(m);
	return ret;
}

static int on_nsid(struct monitor *m, const struct nk_ev *ev)
{
	struct nl_attrs a;
	const char *name;
	int32_t id;

	if (!m->want[MON_NSID])
		return 0;
	nl_parse_msg(&a, ev->nlh, sizeof(struct rtgenmsg), NETNSA_MAX < 63 ? NETNSA_MAX : 63);
	if (!a.tb[NETNSA_NSID])
		return 0;
	id = (int32_t)nl_get_sint(a.tb[NETNSA_NSID]);
	mon_begin(m, MON_NSID, ev->nlh->nlmsg_type == RTM_DELNSID ? "del" : "new", ev->nsid);
	out_obj_open(&m->ctx->out, "namespace");
	out_int(&m->ctx->out, "id", "nsid %lld", id);
	if (m->lookups)
		nk_ctx_forget_others(m->ctx);  /* a namespace named since the last look */
	name = ev->nlh->nlmsg_type == RTM_NEWNSID && ev->nsid < 0 ? mon_nsid_name(m, id) : NULL;
	if (name)
		out_str(&m->ctx->out, "netns", " (netns %s)", name);
	out_text(&m->ctx->out, "\n");
	out_obj_close(&m->ctx->out);
	return mon_end(m);
}

static int on_rtnl(struct monitor *m, const struct nk_ev *ev)
{
	switch (ev->nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		return on_link(m, ev);
	case RTM_NEWNSID:
	case RTM_DELNSID:
		return on_nsid(m, ev);
	default:
		return 0;
	}
}

static const char *ntf_action(uint8_t cmd, uint8_t add, uint8_t del)
{
	return cmd == add ? "new" : cmd == del ? "del" : "change";
}

static int on_netdev(struct monitor *m, const struct nk_ev *ev, uint8_t cmd)
{
	struct out *o = &m->ctx->out;
	struct nl_attrs a;
	int ifindex;

	if (!m->want[MON_NETDEV])
		return 0;
	nl_parse_msg(&a, ev->nlh, GENL_HDRLEN, NK_NETDEV_A_DEV_IFINDEX);
	if (!a.tb[NK_NETDEV_A_DEV_IFINDEX])
		return 0;
	ifindex = (int)nl_get_uint(a.tb[NK_NETDEV_A_DEV_IFINDEX]);
	mon_begin(m, MON_NETDEV, ntf_action(cmd, NK_NETDEV_CMD_DEV_ADD_NTF,
					      NK_NETDEV_CMD_DEV_DEL_NTF), ev->nsid);
	out_obj_open(o, "netdev");
	out_uint(o, "ifindex", "ifindex %llu", (unsigned int)ifindex);
	mon_print_ifname(m, ev->nsid, ifindex, " (%s)");
	out_text(o, "\n");
	out_obj_close(o);
	return mon_end(m);
}

static int on_page_pool(struct monitor *m, const struct nk_ev *ev, uint8_t cmd)
{
	struct nk_pool p;
	int ret = 0;

	if (!netdev_parse_pool(ev->nlh, &p)) {
		if (ev->nsid < 0)
			mon_pool_event(m, &p, cmd == NK_NETDEV_CMD_PAGE_POOL_DEL_NTF);
		ret = mon_print_pool(m, ntf_action(cmd, NK_NETDEV_CMD_PAGE_POOL_ADD_NTF,
						   NK_NETDEV_CMD_PAGE_POOL_DEL_NTF), &p, ev->nsid);
	}
	/* A binding comes and goes with a queue's memory provider: pools too. */
	if (!ret && ev->nsid < 0 && m->lookups && m->want[MON_BINDING])
		ret = mon_bindings_sync(m, true);
	return ret;
}

static int on_genl(struct monitor *m, const struct nk_ev *ev)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(ev->nlh);

	if (mnl_nlmsg_get_payload_len(ev->nlh) < GENL_HDRLEN)
		return 0;
	switch (g->cmd) {
	case NK_NETDEV_CMD_DEV_ADD_NTF:
	case NK_NETDEV_CMD_DEV_DEL_NTF:
	case NK_NETDEV_CMD_DEV_CHANGE_NTF:
		return on_netdev(m, ev, g->cmd);
	case NK_NETDEV_CMD_PAGE_POOL_ADD_NTF:
	case NK_NETDEV_CMD_PAGE_POOL_DEL_NTF:
	case NK_NETDEV_CMD_PAGE_POOL_CHANGE_NTF:
		return on_page_pool(m, ev, g->cmd);
	default:
		return 0;
	}
}

int mon_notification(struct monitor *m, const struct nk_ev *ev)
{
	return ev->proto == NETLINK_ROUTE ? on_rtnl(m, ev) : on_genl(m, ev);
}

/* ---- re-dumps ---- */

/* The periodic look at what sends no notification. */
static int redump(struct monitor *m)
{
	int ret = 0;

	if (m->want[MON_LEASE])
		ret = mon_leases_sync(m, true);
	if (!ret && m->want[MON_BINDING])
		ret = mon_bindings_sync(m, true);
	if (!ret && m->want[MON_HOLDER])
		ret = mon_holders_sync(m, true);
	if (!ret && (m->want[MON_XSK] || m->want[MON_XDP]))
		ret = mon_xsk_sync(m, true);
	return ret;
}

/* A notification was lost: say so, then print what differs from the
 * snapshots (never a silent gap). */
static int on_lost(struct monitor *m, const struct nk_ev *ev)
{
	int ret;

	mon_begin(m, MON_LOST, "resync", NK_EV_NSID_LOCAL);
	out_str(&m->ctx->out, "source", "events lost on %s; what changed meanwhile follows\n",
		ev->proto == NETLINK_ROUTE ? "rtnetlink" : "generic netlink");
	ret = mon_end(m);
	if (!ret)
		ret = mon_links_sync(m, true);
	if (!ret && m->want[MON_PAGE_POOL] && m->genl_src >= 0)
		ret = mon_pools_sync(m, true);
	return ret ? ret : redump(m);
}

/* Something changed in the binding state directory: a holder started or
 * ended (its files being written are hidden: ".ID.PID"). */
static int on_state_file(struct monitor *m, const struct nk_ev *ev)
{
	int ret = 0;

	if (ev->name[0] == '.' && !(ev->mask & IN_Q_OVERFLOW))
		return 0;
	if (m->want[MON_HOLDER])
		ret = mon_holders_sync(m, true);
	if (!ret && m->want[MON_BINDING])
		ret = mon_bindings_sync(m, true);
	return ret;
}

static int on_event(const struct nk_ev *ev, void *data)
{
	struct monitor *m = data;

	switch (ev->kind) {
	case NK_EV_SIGNAL:
		m->status = NK_EXIT_OK;
		return 1;
	case NK_EV_LOST:
		return on_lost(m, ev);
	case NK_EV_TIMER:
		return redump(m);
	case NK_EV_FILE:
		return on_state_file(m, ev);
	case NK_EV_MSG:
		return mon_notification(m, ev);
	}
	return 0;
}

/* ---- setting up ---- */

static int rtnl_source(struct monitor *m)
{
	int src = nk_ev_netlink(&m->ev, NETLINK_ROUTE, m->all_nsid);
	int ret = src < 0 ? src : nk_ev_join(&m->ev, src, RTNLGRP_LINK);

	if (!ret && m->want[MON_NSID])
		ret = nk_ev_join(&m->ev, src, RTNLGRP_NSID);
	if (ret)
		return nk_error_errno(-ret, "cannot subscribe to rtnetlink notifications");
	m->rtnl_src = src;
	return 0;
}

/* The netdev family's groups, by name. A kernel without the family (or
 * the group) is an error only when that object was asked for. */
static int genl_source(struct monitor *m, bool asked_netdev, bool asked_pool)
{
	const struct genl_family *fam;
	struct nl_sock *s;
	int src, ret;

	if (!m->want[MON_NETDEV] && !m->want[MON_PAGE_POOL] && !m->want[MON_BINDING])
		return 0;
	ret = nk_ctx_netdev(m->ctx, &s, &fam);
	if (ret)
		return ret;
	if (!fam->present)
		return asked_netdev || asked_pool ? nk_feature_need(m->ctx, NK_FEAT_NETDEV) : 0;
	src = nk_ev_netlink(&m->ev, NETLINK_GENERIC, m->all_nsid);
	if (src < 0)
		return nk_error_errno(-src, "cannot subscribe to netdev notifications");
	m->genl_src = src;
	ret = m->want[MON_NETDEV] ? nk_ev_join_genl(&m->ev, src, fam, NK_NETDEV_MCGRP_MGMT) : 0;
	if (ret == -ENOENT && !asked_netdev)
		ret = 0;
	if (!ret && (m->want[MON_PAGE_POOL] || m->want[MON_BINDING]))
		ret = nk_ev_join_genl(&m->ev, src, fam, NK_NETDEV_MCGRP_PAGE_POOL);
	if (ret == -ENOENT && !asked_pool)
		ret = 0;
	if (ret == -ENOENT)
		return nk_error(NK_EXIT_UNSUPPORTED, "this kernel's netdev family has no %s notifications",
				asked_pool ? "page-pool" : "mgmt");
	if (ret)
		return nk_error_errno(-ret, "cannot subscribe to netdev notifications");
	return 0;
}

/* Holders record themselves in NK_BIND_STATE_DIR: watch it. Where it cannot
 * be made or watched, the periodic re-dump still sees them. */
static void state_source(struct monitor *m)
{
	if (!m->want[MON_HOLDER] && !m->want[MON_BINDING])
		return;
	if (nk_private_dir(NK_RUN_DIR) || nk_private_dir(NK_BIND_STATE_DIR))
		return;
	nk_ev_watch_dir(&m->ev, NK_BIND_STATE_DIR);
}

static int other_sources(struct monitor *m)
{
	sigset_t set;
	int ret = 0;

	if (m->want[MON_LEASE] || m->want[MON_BINDING] || m->want[MON_HOLDER] ||
	    m->want[MON_XSK] || m->want[MON_XDP])
		ret = nk_ev_timer(&m->ev, MON_REDUMP_MS);
	state_source(m);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (ret >= 0)
		ret = nk_ev_signals(&m->ev, &set);
	return ret < 0 ? nk_error_errno(-ret, "cannot set up the event loop") : 0;
}

/* The snapshots the first events are compared with, taken after
 * subscribing so that nothing falls between. */
static void first_snapshots(struct monitor *m)
{
	mon_links_sync(m, false);
	if (m->want[MON_PAGE_POOL] && m->genl_src >= 0)
		mon_pools_sync(m, false);
	if (m->want[MON_LEASE])
		mon_leases_sync(m, false);
	if (m->want[MON_BINDING])
		mon_bindings_sync(m, false);
	if (m->want[MON_HOLDER])
		mon_holders_sync(m, false);
	if (m->want[MON_XSK] || m->want[MON_XDP])
		mon_xsk_sync(m, false);
}

static int monitor_setup(struct nk_ctx *ctx, const struct monitor_args *a, struct monitor *m)
{
	bool any = false;
	int ret;

	memset(m, 0, sizeof(*m));
	m->ctx = ctx;
	m->all_nsid = a->all_nsid;
	m->lookups = true;
	m->count = a->count;
	m->rtnl_src = m->genl_src = -1;
	for (int i = 0; i < MON_LOST; i++)
		any |= a->obj[i];
	for (int i = 0; i < MON_LOST; i++)
		m->want[i] = a->obj[i] || !any;
	m->want[MON_LOST] = true;
	ret = nk_ns_here(ctx, &m->here);
	if (ret)
		return ret;
	ret = nk_ev_init(&m->ev);
	if (ret)
		return nk_error_errno(-ret, "cannot set up the event loop");
	ret = rtnl_source(m);
	if (!ret)
		ret = genl_source(m, a->obj[MON_NETDEV], a->obj[MON_PAGE_POOL]);
	if (!ret)
		ret = other_sources(m);
	return ret;
}

static void monitor_teardown(struct monitor *m)
{
	sigset_t set;

	nk_ev_close(&m->ev);
	mon_snap_free(m);
	mon_xsk_free(m);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int cmd_monitor(struct nk_ctx *ctx, const void *args)
{
	struct monitor m;
	int ret;

	/* A closed pipe ends the monitor quietly (EPIPE), never by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	ret = monitor_setup(ctx, args, &m);
	if (!ret) {
		first_snapshots(&m);
		ret = nk_ev_run(&m.ev, on_event, &m);
		ret = ret < 0 ? nk_error_errno(-ret, "the event loop failed") : m.status;
	}
	monitor_teardown(&m);
	return ret;
}
