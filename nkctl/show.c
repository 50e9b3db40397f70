// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl show [ dev NAME ]: links joined in memory with the netdev family's
 * queue and NAPI dumps. Three dumps whatever the number of devices.
 */
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if.h>

#include "compat.h"
#include "leases.h"
#include "netdev.h"
#include "rtnl.h"
#include "show.h"
#include "bindings.h"

struct show_args {
	const char *dev;
};

static const struct nk_param show_params[] = {
	{ "dev", NKP_IFNAME, offsetof(struct show_args, dev), "NAME", 0, 0, NULL, false },
};
const struct nk_params nk_show_params = NK_PARAMS("show", show_params);

static const struct nk_cmd show_cmds[] = {
	{ NULL, cmd_show_devices, NULL, &nk_show_params, "[ dev NAME ]",
	  "every device of the namespace (or one) with its queues and NAPIs" },
	{ "kernel", cmd_show_kernel, NULL, NULL, "",
	  "which netkit, queue-lease, devmem and BPF features this kernel has" },
	{ "leases", cmd_show_leases, NULL, NULL, "",
	  "every RX queue lease visible from the namespaces nkctl can reach" },
	{ "bindings", cmd_show_bindings, NULL, &nk_show_bindings_params, "[ dev DEV ] [ id ID ]",
	  "devmem dmabuf bindings of the namespace: held by nkctl (alive or stale) or seen on queues" },
};
const struct nk_table nk_show_table = NK_TABLE("nkctl show", show_cmds);

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

const char *nk_netkit_policy_name(char *buf, size_t len, uint32_t v)
{
	static const char *const names[] = { [NK_NETKIT_PASS] = "forward",
					      [NK_NETKIT_DROP] = "blackhole" };
	return enum_name(buf, len, names, sizeof(names) / sizeof(names[0]), v);
}

const char *nk_netkit_mode_name(char *buf, size_t len, uint32_t v)
{
	static const char *const names[] = { [NK_NETKIT_L2] = "l2", [NK_NETKIT_L3] = "l3" };
	return enum_name(buf, len, names, 2, v);
}

const char *nk_netkit_scrub_name(char *buf, size_t len, uint32_t v)
{
	static const char *const names[] = { [NK_NETKIT_SCRUB_NONE] = "none",
					      [NK_NETKIT_SCRUB_DEFAULT] = "default" };
	return enum_name(buf, len, names, 2, v);
}

const char *nk_netkit_pairing_name(char *buf, size_t len, uint32_t v)
{
	static const char *const names[] = { [NK_NETKIT_DEVICE_PAIR] = "pair",
					      [NK_NETKIT_DEVICE_SINGLE] = "single" };
	return enum_name(buf, len, names, 2, v);
}

static void print_flags(struct out *o, unsigned int flags)
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
		out_str(o, "pairing", " pairing %s", nk_netkit_pairing_name(b, sizeof(b), nk->pairing));
	if (nk->have & NKA_MODE)
		out_str(o, "mode", " mode %s", nk_netkit_mode_name(b, sizeof(b), nk->mode));
	if (nk->have & NKA_POLICY)
		out_str(o, "policy", " policy %s", nk_netkit_policy_name(b, sizeof(b), nk->policy));
	if (nk->have & NKA_PEER_POLICY)
		out_str(o, "peer-policy", " peer-policy %s",
			nk_netkit_policy_name(b, sizeof(b), nk->peer_policy));
	if (nk->have & NKA_SCRUB)
		out_str(o, "scrub", " scrub %s", nk_netkit_scrub_name(b, sizeof(b), nk->scrub));
	if (nk->have & NKA_PEER_SCRUB)
		out_str(o, "peer-scrub", " peer-scrub %s",
			nk_netkit_scrub_name(b, sizeof(b), nk->peer_scrub));
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

	/* The lease names a device of another netns when netns-id is given. */
	if (!(q->have & QUEUE_HAVE_LEASE_NETNS_ID))
		holder = nk_link_find(links, q->lease_ifindex);
	out_obj_open(o, "lease");
	out_uint(o, "ifindex", " lease ifindex %llu", (unsigned int)q->lease_ifindex);
	if (holder)
		out_str(o, "ifname", " (%s)", holder->ifname);
	else if (rec && rec->nk_ifname[0])
		out_str(o, "ifname", " (%s)", rec->nk_ifname);
	if (rec && rec->nk_found && rec->nk_ns[0])
		out_str(o, "netns", " netns %s", rec->nk_ns);
	if (q->have & QUEUE_HAVE_LEASE_QUEUE) {
		out_obj_open(o, "queue");
		out_uint(o, "id", " queue %llu", q->lease_queue_id);
		out_str(o, "type", NULL, nk_queue_type_name(q->lease_queue_type));
		out_obj_close(o);
	}
	if (q->have & QUEUE_HAVE_LEASE_NETNS_ID)
		out_int(o, "netns-id", " netns-id %lld", q->lease_netns_id);
	out_obj_close(o);
}

/* On a netkit queue: the NIC queue it leases, when the scan found it. */
static void print_leased_from(struct out *o, const struct nk_lease_rec *r)
{
	out_obj_open(o, "leased-from");
	out_uint(o, "ifindex", NULL, (unsigned int)r->nic_ifindex);
	out_str(o, "ifname", " leased-from %s", r->nic_ifname);
	if (r->nic_ns[0])
		out_str(o, "netns", " netns %s", r->nic_ns);
	out_obj_open(o, "queue");
	out_uint(o, "id", " queue %llu", r->nic_queue);
	out_str(o, "type", NULL, "rx");
	out_obj_close(o);
	out_obj_close(o);
}

static void print_queues(struct out *o, const struct nk_link *l, const struct nk_queue *q,
			 size_t n, const struct nk_link_list *links,
			 const struct nk_lease_list *leases)
{
	out_arr_open(o, "queues");
	for (size_t i = 0; i < n; i++, q++) {
		out_obj_open(o, NULL);
		out_str(o, "type", "\n    queue %s", nk_queue_type_name(q->type));
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
		if (q->have & QUEUE_HAVE_LEASE)
			print_lease(o, q, links,
				    leases ? nk_lease_of_nic(leases, -1, l->ifindex, q->id) : NULL);
		if (leases && nk_link_is_netkit(l) && q->type == NK_NETDEV_QUEUE_TYPE_RX) {
			const struct nk_lease_rec *r = nk_lease_of_netkit(leases, l->ifindex, q->id);

			if (r)
				print_leased_from(o, r);
		}
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void print_napis(struct out *o, const struct nk_napi *n, size_t count)
{
	out_arr_open(o, "napis");
	for (size_t i = 0; i < count; i++, n++) {
		out_obj_open(o, NULL);
		out_uint(o, "id", "\n    napi %llu", n->id);
		if (n->have & NAPI_HAVE_IRQ)
			out_int(o, "irq", " irq %lld", n->irq);
		if (n->have & NAPI_HAVE_PID)
			out_uint(o, "pid", " pid %llu", n->pid);
		if (n->have & NAPI_HAVE_THREADED)
			out_str(o, "threaded", " threaded %s", nk_napi_threaded_name(n->threaded));
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
	char buf[3 * sizeof(l->addr) + 1];
	size_t used = 0;

	if (!l->addr_len)
		return;
	for (size_t i = 0; i < l->addr_len; i++)
		used += snprintf(buf + used, sizeof(buf) - used, "%s%02x", i ? ":" : "",
				 l->addr[i]);
	out_str(o, "address", " address %s", buf);
}

void nk_print_link(struct out *o, const struct nk_link *l, const char *netns,
		   const struct nk_link_list *links,
		   const struct nk_queue_list *queues,
		   const struct nk_napi_list *napis,
		   const struct nk_lease_list *leases)
{
	const struct nk_queue *q;
	const struct nk_napi *n;
	size_t nq, nn;
	char b[32];

	out_obj_open(o, NULL);
	out_uint(o, "ifindex", "%llu: ", (unsigned int)l->ifindex);
	out_str(o, "ifname", "%s: ", l->ifname);
	if (netns)
		out_str(o, "netns", "netns %s ", netns);
	print_flags(o, l->flags);
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
			peer = nk_link_find(links, l->link);
		out_uint(o, "link", " link %llu", (unsigned int)l->link);
		if (peer)
			out_str(o, "link-ifname", " (%s)", peer->ifname);
	}
	if (l->have & LINK_HAVE_LINK_NETNSID)
		out_int(o, "link-netnsid", " link-netnsid %lld", l->link_netnsid);
	if (nk_link_is_netkit(l))
		print_netkit(o, &l->netkit);
	q = nk_queues_of(queues, l->ifindex, &nq);
	print_queues(o, l, q, nq, links, leases);
	n = nk_napis_of(napis, l->ifindex, &nn);
	print_napis(o, n, nn);
	out_text(o, "\n");
	out_obj_close(o);
}

/* A netkit device with room for leases, or a NIC queue leased away. */
static bool has_lease_parts(const struct nk_link_list *links, const struct nk_queue_list *queues)
{
	for (size_t i = 0; i < queues->n; i++)
		if (queues->v[i].have & QUEUE_HAVE_LEASE)
			return true;
	for (size_t i = 0; i < links->n; i++)
		if (nk_link_is_netkit(&links->v[i]) && links->v[i].num_rx_queues > 1)
			return true;
	return false;
}

int nk_show(struct nk_ctx *ctx, const char *dev, bool netkit_only)
{
	struct nk_link_list links = { 0 };
	struct nk_queue_list queues = { 0 };
	struct nk_napi_list napis = { 0 };
	struct nk_lease_list leases = { 0 };
	const struct genl_family *fam;
	struct nl_sock *rt, *gn;
	struct nl_err err;
	int ifindex = 0, ret;

	ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	ret = nk_ctx_netdev(ctx, &gn, &fam);
	if (ret)
		return ret;
	if (dev) {
		struct nk_link one;

		ret = nk_link_lookup(rt, dev, 0, &one, NULL, false);
		if (ret)
			return ret;
		if (netkit_only && !nk_link_is_netkit(&one))
			return nk_error(NK_EXIT_UNSUPPORTED, "\"%s\" is not a netkit device%s%s%s",
					dev, one.kind[0] ? " (kind " : "", one.kind,
					one.kind[0] ? ")" : "");
		ifindex = one.ifindex;
	}
	/* The whole link table even for one device: lease and peer names. */
	ret = rtnl_link_dump(rt, &links, &err);
	if (ret) {
		ret = nk_error_nl(&err, "cannot list devices");
		goto out;
	}
	ret = netdev_queue_dump(gn, fam, ifindex, &queues, &err);
	if (ret) {
		ret = nk_error_nl(&err, "cannot list queues");
		goto out;
	}
	ret = netdev_napi_dump(gn, fam, ifindex, &napis, &err);
	if (ret) {
		ret = nk_error_nl(&err, "cannot list NAPI instances");
		goto out;
	}
	/* Leases: the NIC side is in the queue dump, the netkit side only in
	 * the NIC's namespace. Scan only when this namespace can be part of one. */
	if (has_lease_parts(&links, &queues))
		nk_lease_scan(ctx, &leases);
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "devices");
	for (size_t i = 0; i < links.n; i++) {
		const struct nk_link *l = &links.v[i];

		if ((ifindex && l->ifindex != ifindex) || (netkit_only && !nk_link_is_netkit(l)))
			continue;
		nk_print_link(&ctx->out, l, NULL, &links, &queues, &napis, &leases);
	}
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
out:
	nk_link_list_free(&links);
	nk_queue_list_free(&queues);
	nk_napi_list_free(&napis);
	nk_lease_list_free(&leases);
	return ret;
}

int cmd_show_devices(struct nk_ctx *ctx, int argc, char **argv)
{
	struct show_args args = { 0 };
	int ret;

	ret = nk_parse_params(&nk_show_params, argc, argv, &args, NULL);
	if (ret)
		return ret;
	return nk_show(ctx, args.dev, false);
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

