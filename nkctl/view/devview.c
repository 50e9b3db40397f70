// SPDX-License-Identifier: GPL-2.0
/*
 * Devices as nkctl shows them (show, link show, link add/set/del): links
 * joined in memory with the netdev family's queue and NAPI dumps, three
 * dumps whatever the number of devices, and their printers.
 */
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if.h>

#include "compat.h"
#include "view/devview.h"
#include "lease/holder.h"
#include "lease/scan.h"
#include "core/lookup.h"
#include "netdev.h"
#include "rtnl.h"
#include "netkit.h"
#include "view/stats.h"

static const char *const operstates[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

static const struct { unsigned int bit; const char *name; } iff_names[] = {
	{ IFF_UP, "UP" }, { IFF_BROADCAST, "BROADCAST" }, { IFF_DEBUG, "DEBUG" },
	{ IFF_LOOPBACK, "LOOPBACK" }, { IFF_POINTOPOINT, "POINTOPOINT" },
	{ IFF_NOTRAILERS, "NOTRAILERS" }, { IFF_RUNNING, "RUNNING" },
	{ IFF_NOARP, "NOARP" }, { IFF_PROMISC, "PROMISC" }, { IFF_ALLMULTI, "ALLMULTI" },
	{ IFF_MASTER, "MASTER" }, { IFF_SLAVE, "SLAVE" }, { IFF_MULTICAST, "MULTICAST" },
	{ IFF_PORTSEL, "PORTSEL" }, { IFF_AUTOMEDIA, "AUTOMEDIA" }, { IFF_DYNAMIC, "DYNAMIC" },
	{ IFF_LOWER_UP, "LOWER_UP" }, { IFF_DORMANT, "DORMANT" }, { IFF_ECHO, "ECHO" },
};

/* Enum values print as names; a value this nkctl does not know prints as
 * "unknown(N)" so the key stays a string. */
static const char *enum_name(char *buf, size_t len, const char *const *names,
			     size_t n, uint32_t v)
{
	if (v < n && names[v])
		return names[v];
	snprintf(buf, len, "unknown(%u)", v);
	return buf;
}

const char *nk_operstate_name(uint8_t v, char *buf, size_t len)
{
	return enum_name(buf, len, operstates, 7, v);
}

void nk_print_flags(struct out *o, unsigned int flags)
{
	bool first = true;

	out_arr_open(o, "flags");
	out_text(o, "<");
	for (size_t i = 0; i < sizeof(iff_names) / sizeof(iff_names[0]); i++) {
		if (!(flags & iff_names[i].bit))
			continue;
		out_str(o, NULL, first ? "%s" : ",%s", iff_names[i].name);
		first = false;
	}
	out_text(o, "> ");
	out_arr_close(o);
}

static void print_netkit(struct out *o, const struct nk_netkit *nk)
{
	char b[32];

	out_obj_open(o, "netkit");
	out_text(o, "\n    netkit");
	if (nk->have & NKA_PRIMARY)
		out_bool(o, "primary", NULL, nk->primary);
	out_text(o, nk->primary ? " primary" : " peer");
	if (nk->have & NKA_PAIRING)
		out_str(o, "pairing", " pairing %s", nk_choice_name(netkit_pairing_words, nk->pairing, b, sizeof(b)));
	if (nk->have & NKA_MODE)
		out_str(o, "mode", " mode %s", nk_choice_name(netkit_mode_words, nk->mode, b, sizeof(b)));
	if (nk->have & NKA_POLICY)
		out_str(o, "policy", " policy %s", nk_choice_name(netkit_policy_words, nk->policy, b, sizeof(b)));
	if (nk->have & NKA_PEER_POLICY)
		out_str(o, "peer-policy", " peer-policy %s",
			nk_choice_name(netkit_policy_words, nk->peer_policy, b, sizeof(b)));
	if (nk->have & NKA_SCRUB)
		out_str(o, "scrub", " scrub %s", nk_choice_name(netkit_scrub_words, nk->scrub, b, sizeof(b)));
	if (nk->have & NKA_PEER_SCRUB)
		out_str(o, "peer-scrub", " peer-scrub %s",
			nk_choice_name(netkit_scrub_words, nk->peer_scrub, b, sizeof(b)));
	if (nk->have & NKA_HEADROOM)
		out_uint(o, "headroom", " headroom %llu", nk->headroom);
	if (nk->have & NKA_TAILROOM)
		out_uint(o, "tailroom", " tailroom %llu", nk->tailroom);
	out_obj_close(o);
}

static void print_lease(struct out *o, const struct nk_queue *q,
			const struct nk_link_list *links, const struct nk_lease_rec *rec)
{
	const struct nk_link *holder = NULL;
	struct nk_queue_holder h;
	uint32_t id, type;
	char b[24];

	if (!nk_queue_holder(q, &h))
		return;
	/* The lease names a device of another netns when netns-id is given. */
	if (!h.has_nsid)
		holder = nk_link_find(links, h.ifindex);
	out_obj_open(o, "lease");
	out_uint(o, "ifindex", " lease ifindex %llu", (unsigned int)h.ifindex);
	if (holder)
		out_str(o, "ifname", " (%s)", holder->ifname);
	else if (rec && rec->nk_ifname[0])
		out_str(o, "ifname", " (%s)", rec->nk_ifname);
	if (rec && rec->nk_ns && !rec->nk_ns->here)
		out_str(o, "netns", " netns %s", rec->nk_ns->spec);
	if (nk_queue_lease_queue(q, &id, &type)) {
		out_obj_open(o, "queue");
		out_uint(o, "id", " queue %llu", id);
		out_str(o, "type", NULL, nk_choice_name(netdev_queue_type_words, type, b, sizeof(b)));
		out_obj_close(o);
	}
	if (h.has_nsid)
		out_int(o, "netns-id", " netns-id %lld", h.nsid);
	out_obj_close(o);
}

/* On a netkit queue: the NIC queue it leases, when the scan found it. */
static void print_leased_from(struct out *o, const struct nk_lease_rec *r)
{
	out_obj_open(o, "leased-from");
	out_uint(o, "ifindex", NULL, (unsigned int)r->nic_ifindex);
	out_str(o, "ifname", " leased-from %s", r->nic_ifname);
	if (!r->nic_ns->here)
		out_str(o, "netns", " netns %s", r->nic_ns->spec);
	out_obj_open(o, "queue");
	out_uint(o, "id", " queue %llu", r->nic_queue);
	out_str(o, "type", NULL, "rx");
	out_obj_close(o);
	out_obj_close(o);
}

static void print_queue_stats(struct out *o, const struct nk_link *l, const struct nk_queue *q,
			      const struct nk_view *v)
{
	const struct nk_pool *p;
	size_t n;

	nk_print_qstats(o, nk_qstats_find(&v->qstats, l->ifindex, q->type, q->id));
	if (q->type != NK_NETDEV_QUEUE_TYPE_RX || !(q->have & QUEUE_HAVE_NAPI))
		return;
	p = nk_pools_of(&v->pools, l->ifindex, q->napi_id, &n);
	if (n)
		nk_print_pools(o, p, n);
}

static void print_queues(struct out *o, const struct nk_link *l, const struct nk_view *v)
{
	const struct nk_lease_list *leases = &v->leases;
	char b[24];
	size_t n;
	const struct nk_queue *q = nk_queues_of(&v->queues, l->ifindex, &n);

	out_arr_open(o, "queues");
	for (size_t i = 0; i < n; i++, q++) {
		out_obj_open(o, NULL);
		out_str(o, "type", "\n    queue %s",
			nk_choice_name(netdev_queue_type_words, q->type, b, sizeof(b)));
		out_uint(o, "id", " %llu", q->id);
		if (q->have & QUEUE_HAVE_NAPI)
			out_uint(o, "napi-id", " napi %llu", q->napi_id);
		if (q->have & QUEUE_HAVE_DMABUF)
			out_uint(o, "dmabuf", " dmabuf %llu", q->dmabuf);
		if (q->have & QUEUE_HAVE_IO_URING) {
			out_obj_open(o, "io-uring");
			out_text(o, " io-uring");
			if (q->have & QUEUE_HAVE_IO_URING_RX_BUF_LEN)
				out_uint(o, "rx-buf-len", " rx-buf-len %llu",
					 q->io_uring_rx_buf_len);
			out_obj_close(o);
		}
		if (q->have & QUEUE_HAVE_XSK) {
			out_obj_open(o, "xsk");
			out_text(o, " xsk");
			out_obj_close(o);
		}
		if (nk_queue_leased(q))
			print_lease(o, q, &v->links,
				    nk_lease_of_nic(leases, v->here, l->ifindex, q->id));
		if (nk_link_is_netkit(l) && q->type == NK_NETDEV_QUEUE_TYPE_RX) {
			const struct nk_lease_rec *r = nk_lease_of_netkit(leases, l->ifindex, q->id);

			if (r)
				print_leased_from(o, r);
		}
		if (v->stats)
			print_queue_stats(o, l, q, v);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void print_napis(struct out *o, const struct nk_napi *n, size_t count)
{
	char b[24];

	out_arr_open(o, "napis");
	for (size_t i = 0; i < count; i++, n++) {
		out_obj_open(o, NULL);
		out_uint(o, "id", "\n    napi %llu", n->id);
		if (n->have & NAPI_HAVE_IRQ)
			out_int(o, "irq", " irq %lld", n->irq);
		if (n->have & NAPI_HAVE_PID)
			out_uint(o, "pid", " pid %llu", n->pid);
		if (n->have & NAPI_HAVE_THREADED)
			out_str(o, "threaded", " threaded %s",
				nk_choice_name(netdev_napi_threaded_words, n->threaded, b, sizeof(b)));
		if (n->have & NAPI_HAVE_DEFER)
			out_uint(o, "defer-hard-irqs", " defer-hard-irqs %llu", n->defer_hard_irqs);
		if (n->have & NAPI_HAVE_GRO_FLUSH)
			out_uint(o, "gro-flush-timeout", " gro-flush-timeout %llu",
				 n->gro_flush_timeout);
		if (n->have & NAPI_HAVE_IRQ_SUSPEND)
			out_uint(o, "irq-suspend-timeout", " irq-suspend-timeout %llu",
				 n->irq_suspend_timeout);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void print_address(struct out *o, const struct nk_link *l)
{
	static const char hex[] = "0123456789abcdef";
	char buf[3 * sizeof(l->addr)], *p = buf;

	if (!l->addr_len)
		return;
	/* By hand: snprintf per byte was a sixth of a large show's own time. */
	for (size_t i = 0; i < l->addr_len; i++) {
		if (i)
			*p++ = ':';
		*p++ = hex[l->addr[i] >> 4];
		*p++ = hex[l->addr[i] & 0xf];
	}
	*p = '\0';
	out_str(o, "address", " address %s", buf);
}

void nk_print_link(struct out *o, const struct nk_link *l, const char *netns,
		   const struct nk_view *v)
{
	const struct nk_napi *n;
	size_t nn;
	char b[32];

	out_obj_open(o, NULL);
	out_uint(o, "ifindex", "%llu: ", (unsigned int)l->ifindex);
	out_str(o, "ifname", "%s: ", l->ifname);
	if (netns)
		out_str(o, "netns", "netns %s ", netns);
	nk_print_flags(o, l->flags);
	if (l->kind[0])
		out_str(o, "kind", "%s ", l->kind);
	if (l->have & LINK_HAVE_OPERSTATE)
		out_str(o, "operstate", "state %s",
			enum_name(b, sizeof(b), operstates, 7, l->operstate));
	if (l->have & LINK_HAVE_MTU)
		out_uint(o, "mtu", " mtu %llu", l->mtu);
	if (l->have & LINK_HAVE_NUM_RX)
		out_uint(o, "num-rx-queues", " num-rx-queues %llu", l->num_rx_queues);
	if (l->have & LINK_HAVE_NUM_TX)
		out_uint(o, "num-tx-queues", " num-tx-queues %llu", l->num_tx_queues);
	print_address(o, l);
	/* IFLA_LINK is the peer of netkit and veth; 0 means none. */
	if (nk_link_has_peer(l)) {
		const struct nk_link *peer = NULL;

		if (!(l->have & LINK_HAVE_LINK_NETNSID))
			peer = nk_link_find(&v->links, l->link);
		out_uint(o, "link", " link %llu", (unsigned int)l->link);
		if (peer)
			out_str(o, "link-ifname", " (%s)", peer->ifname);
	}
	if (l->have & LINK_HAVE_LINK_NETNSID)
		out_int(o, "link-netnsid", " link-netnsid %lld", l->link_netnsid);
	if (nk_link_is_netkit(l))
		print_netkit(o, &l->netkit);
	if (v->stats)
		nk_print_link_stats(o, nk_link_stats_find(&v->link_stats, l->ifindex));
	print_queues(o, l, v);
	n = nk_napis_of(&v->napis, l->ifindex, &nn);
	print_napis(o, n, nn);
	out_text(o, "\n");
	out_obj_close(o);
}

/* A netkit device with room for leases, or a NIC queue leased away. */
static bool has_lease_parts(const struct nk_link_list *links, const struct nk_queue_list *queues)
{
	for (size_t i = 0; i < queues->n; i++)
		if (nk_queue_leased(&queues->v[i]))
			return true;
	for (size_t i = 0; i < links->n; i++)
		if (nk_link_is_netkit(&links->v[i]) && links->v[i].num_rx_queues > 1)
			return true;
	return false;
}

/* Page pools print under an RX queue, found by its NAPI: without such a
 * queue there is nothing to print them under, and no dump to ask for. */
static bool has_rx_napi(const struct nk_queue_list *queues)
{
	for (size_t i = 0; i < queues->n; i++)
		if (queues->v[i].type == NK_NETDEV_QUEUE_TYPE_RX &&
		    (queues->v[i].have & QUEUE_HAVE_NAPI))
			return true;
	return false;
}

void nk_view_free(struct nk_view *v)
{
	nk_link_list_free(&v->links);
	nk_link_counters_list_free(&v->link_stats);
	nk_queue_list_free(&v->queues);
	nk_napi_list_free(&v->napis);
	nk_lease_list_free(&v->leases);
	nk_qstats_list_free(&v->qstats);
	nk_pool_list_free(&v->pools);
}

/* Links, queues and NAPIs of this namespace (queues and NAPIs of ifindex
 * only, when it is not 0), and the leases when this namespace can hold one. */
static int view_load(struct nk_ctx *ctx, int ifindex, struct nk_view *v)
{
	const struct genl_family *fam;
	struct nl_sock *rt, *gn;
	struct nl_err err;
	int ret;

	ret = nk_ns_here(ctx, &v->here);
	if (!ret)
		ret = nk_ns_rtnl(v->here, &rt);
	if (!ret)
		ret = nk_ns_netdev(v->here, &gn, &fam);
	if (ret)
		return ret;
	/* The whole link table even for one device: lease and peer names. */
	if (rtnl_link_dump_stats(rt, &v->links, v->stats ? &v->link_stats : NULL, &err))
		return nk_error_nl(&err, "cannot list devices");
	if (netdev_queue_dump(gn, fam, ifindex, &v->queues, &err))
		return nk_error_nl(&err, "cannot list queues");
	if (netdev_napi_dump(gn, fam, ifindex, &v->napis, &err))
		return nk_error_nl(&err, "cannot list NAPI instances");
	if (v->stats && netdev_qstats_dump(gn, fam, ifindex, &v->qstats, &err))
		return nk_error_nl(&err, "cannot read queue statistics");
	if (v->stats && has_rx_napi(&v->queues) && netdev_pool_dump(gn, fam, &v->pools, &err))
		return nk_error_nl(&err, "cannot list page pools");
	/* Leases: the NIC side is in the queue dump, the netkit side only in
	 * the NIC's namespace. Scan only when this namespace can be part of one. */
	if (has_lease_parts(&v->links, &v->queues))
		nk_lease_scan(ctx, &v->leases);
	return 0;
}

static void print_view(struct nk_ctx *ctx, const struct nk_view *v, int ifindex,
		       bool netkit_only, uint32_t interval)
{
	out_begin(&ctx->out);
	if (interval)
		out_uint(&ctx->out, "interval", "counters per second over %llu s\n", interval);
	out_arr_open(&ctx->out, "devices");
	for (size_t i = 0; i < v->links.n; i++) {
		const struct nk_link *l = &v->links.v[i];

		if ((ifindex && l->ifindex != ifindex) ||
		    (netkit_only && !nk_link_is_netkit(l)))
			continue;
		nk_print_link(&ctx->out, l, NULL, v);
	}
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

/* The device dev (or every one: *ifindex 0), refused unless netkit when
 * netkit_only. */
static int show_target(struct nk_ctx *ctx, const char *dev, bool netkit_only, int *ifindex)
{
	struct nk_link one;
	int ret;

	*ifindex = 0;
	if (!dev)
		return 0;
	ret = nk_dev(ctx, dev, &one);
	if (ret)
		return ret;
	if (netkit_only && !nk_link_is_netkit(&one))
		return nk_error(NK_EXIT_UNSUPPORTED, "\"%s\" is not a netkit device%s%s%s",
				dev, one.kind[0] ? " (kind " : "", one.kind,
				one.kind[0] ? ")" : "");
	*ifindex = one.ifindex;
	return 0;
}

int nk_show(struct nk_ctx *ctx, const char *dev, bool netkit_only)
{
	struct nk_view v = { 0 };
	int ifindex, ret;

	v.stats = ctx->stats;
	ret = show_target(ctx, dev, netkit_only, &ifindex);
	if (!ret)
		ret = view_load(ctx, ifindex, &v);
	if (!ret)
		print_view(ctx, &v, ifindex, netkit_only, 0);
	/* The large tables of a last command go with the process. */
	if (nk_ctx_keep(ctx, v.links.v))
		v.links.v = NULL;
	if (nk_ctx_keep(ctx, v.queues.v))
		v.queues.v = NULL;
	if (nk_ctx_keep(ctx, v.napis.v))
		v.napis.v = NULL;
	if (nk_ctx_keep(ctx, v.link_stats.v))
		v.link_stats.v = NULL;
	if (nk_ctx_keep(ctx, v.qstats.v))
		v.qstats.v = NULL;
	nk_view_free(&v);
	return ret;
}

/* show ... interval S [ count N ]: counters read S seconds apart, printed as
 * per-second rates, one document per interval (JSON: one per line). */
int nk_show_rates(struct nk_ctx *ctx, const char *dev, const struct nk_interval *every)
{
	struct nk_view before = { 0 }, now = { 0 }, rate = { 0 };
	uint32_t count = every->count ? every->count : 1;
	int ifindex, ret;

	before.stats = now.stats = true;
	ret = show_target(ctx, dev, false, &ifindex);
	if (!ret)
		ret = view_load(ctx, ifindex, &before);
	for (uint32_t i = 0; !ret && i < count; i++) {
		nk_sleep(every->interval);
		ret = view_load(ctx, ifindex, &now);
		if (ret)
			break;
		ret = nk_view_rates(&rate, &now, &before, every->interval);
		if (!ret) {
			print_view(ctx, &rate, ifindex, false, every->interval);
			nk_ctx_flush(ctx);
		}
		nk_view_rates_free(&rate);
		nk_view_free(&before);
		before = now;
		memset(&now, 0, sizeof(now));
		now.stats = true;
	}
	nk_view_free(&before);
	nk_view_free(&now);
	return ret;
}

void nk_print_links(struct nk_ctx *ctx, const struct nk_link *const *l,
		    const char *const *netns, size_t n)
{
	struct nk_view v = { 0 };
	struct nk_link both[2];

	/* Peer names come from the links printed together when they share a
	 * namespace. */
	for (size_t i = 0; i < n && i < 2; i++)
		both[i] = *l[i];
	v.links.v = both;
	v.links.n = n == 2 && netns[0] == netns[1] ? 2 : 1;
	if (v.links.n == 2 && both[0].ifindex > both[1].ifindex) {
		both[0] = *l[1];
		both[1] = *l[0];
	}
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "devices");
	for (size_t i = 0; i < n; i++)
		nk_print_link(&ctx->out, l[i], netns[i], &v);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

void nk_print_deleted(struct out *o, const struct nk_link *l, const struct nk_link *peer)
{
	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)l->ifindex);
	out_str(o, "ifname", "deleted %s", l->ifname);
	out_obj_close(o);
	if (!peer)
		return;
	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)peer->ifindex);
	if (peer->ifname[0])
		out_str(o, "ifname", " and its peer %s", peer->ifname);
	else
		out_text(o, " and its peer (ifindex %d in another namespace)", peer->ifindex);
	if (l->have & LINK_HAVE_LINK_NETNSID)
		out_int(o, "link-netnsid", NULL, l->link_netnsid);
	out_obj_close(o);
}
