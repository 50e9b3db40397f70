// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl lease / unlease: RX queues of a physical NIC leased into a netkit
 * device with the netdev family's queue-create. The kernel has no unlease
 * operation: a lease ends when the netkit device holding it is deleted, so
 * unlease deletes the holder (freely when it is a single-mode device).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "leases.h"
#include "netdev.h"
#include "netkit.h"
#include "netns.h"
#include "nkctl.h"
#include "rtnl.h"
#include "show.h"

struct lease_args {
	const char *dev, *from, *phys_netns, *queue;
	bool force;
};

#define LP(kw, type, field, meta, req) \
	{ kw, type, offsetof(struct lease_args, field), meta, 0, 0, NULL, req }
static const struct nk_param lease_params[] = {
	LP("dev", NKP_IFNAME, dev, "NKDEV", true),
	LP("from", NKP_IFNAME, from, "PHYS", true),
	LP("phys-netns", NKP_NETNS, phys_netns, "NETNS", false),
	LP("queue", NKP_STRING, queue, "LIST", true),
};
const struct nk_params nk_lease_params = NK_PARAMS("lease", lease_params);

static const struct nk_param unlease_params[] = {
	LP("dev", NKP_IFNAME, dev, "NKDEV", false),
	LP("from", NKP_IFNAME, from, "PHYS", false),
	LP("phys-netns", NKP_NETNS, phys_netns, "NETNS", false),
	LP("queue", NKP_STRING, queue, "LIST", false),
	LP("force", NKP_FLAG, force, NULL, false),
};
const struct nk_params nk_unlease_params = NK_PARAMS("unlease", unlease_params);

/* What one command works on: the netkit device here, the NIC maybe elsewhere. */
struct lease_job {
	struct nk_ns phys;
	struct nk_link nk, nic;
	struct nk_queue_list nic_queues;
	uint32_t ids[NK_MAX_QUEUES];
	uint32_t nk_ids[NK_MAX_QUEUES];   /* netkit queue per leased id */
	bool existed[NK_MAX_QUEUES];
	size_t n;
	int32_t here_in_phys;             /* our netns as the NIC's netns names it */
};

static const struct nk_queue *nic_rx_queue(const struct lease_job *j, uint32_t id)
{
	for (size_t i = 0; i < j->nic_queues.n; i++) {
		const struct nk_queue *q = &j->nic_queues.v[i];

		if (q->type == NK_NETDEV_QUEUE_TYPE_RX && q->id == id)
			return q;
	}
	return NULL;
}

static size_t nic_rx_count(const struct lease_job *j)
{
	size_t n = 0;

	for (size_t i = 0; i < j->nic_queues.n; i++)
		n += j->nic_queues.v[i].type == NK_NETDEV_QUEUE_TYPE_RX;
	return n;
}

/* Is q leased to j->nk (a device of our namespace)? */
static bool leased_to_us(const struct lease_job *j, const struct nk_queue *q)
{
	if (!(q->have & QUEUE_HAVE_LEASE) || q->lease_ifindex != j->nk.ifindex)
		return false;
	if (j->phys.here)
		return !(q->have & QUEUE_HAVE_LEASE_NETNS_ID);
	return (q->have & QUEUE_HAVE_LEASE_NETNS_ID) && q->lease_netns_id == j->here_in_phys;
}

static const char *mp_name(const struct nk_queue *q, char *buf, size_t len)
{
	if (q->have & QUEUE_HAVE_DMABUF)
		snprintf(buf, len, "a devmem dmabuf binding (id %u)", q->dmabuf);
	else if (q->have & QUEUE_HAVE_IO_URING)
		snprintf(buf, len, "an io_uring zero-copy receive ring");
	else if (q->have & QUEUE_HAVE_XSK)
		snprintf(buf, len, "an AF_XDP socket");
	else
		return NULL;
	return buf;
}

/* Open the NIC's namespace, get the NIC and dump its queues. */
static int load_nic(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a,
		    bool need_up)
{
	const struct genl_family *fam;
	struct nl_sock *prt, *pgn;
	struct nl_err err;
	int ret;

	ret = nk_ns_open(&j->phys, a->phys_netns);
	if (ret)
		return ret;
	ret = nk_ns_rtnl(ctx, &j->phys, &prt);
	if (ret)
		return ret;
	ret = nk_link_lookup(prt, a->from, 0, &j->nic, nk_ns_name(&j->phys), false);
	if (ret)
		return ret;
	if (nk_link_is_netkit(&j->nic))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is a netkit device: leases come from a physical NIC", a->from);
	if (need_up && !(j->nic.flags & IFF_UP))
		return nk_error(NK_EXIT_FAIL,
				"\"%s\" is down and shows no queues; bring it up first (ip link set %s up)",
				a->from, a->from);
	ret = nk_ns_netdev(ctx, &j->phys, &pgn, &fam);
	if (ret)
		return ret;
	if (netdev_queue_dump(pgn, fam, j->nic.ifindex, &j->nic_queues, &err))
		return nk_error_nl(&err, "cannot list the queues of \"%s\"", a->from);
	return 0;
}

/* Look up the netkit device (here) and the NIC (in phys), with their rules. */
static int load_devices(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a)
{
	struct nl_sock *rt, *prt;
	struct nl_err err;
	int ret, cur;

	ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	ret = nk_link_lookup(rt, a->dev, 0, &j->nk, NULL, false);
	if (ret)
		return ret;
	if (!nk_link_is_netkit(&j->nk))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is not a netkit device%s%s%s: leases go into netkit devices",
				a->dev, j->nk.kind[0] ? " (kind " : "", j->nk.kind,
				j->nk.kind[0] ? ")" : "");
	if (j->nk.netkit.primary &&
	    !((j->nk.netkit.have & NKA_PAIRING) && j->nk.netkit.pairing == NK_NETKIT_DEVICE_SINGLE))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is the primary of a netkit pair: leases go to its peer (ifindex %d%s) or to a single device",
				a->dev, j->nk.link,
				(j->nk.have & LINK_HAVE_LINK_NETNSID) ? " in another namespace" : "");
	ret = load_nic(ctx, j, a, true);
	if (ret)
		return ret;
	ret = nk_ns_rtnl(ctx, &j->phys, &prt);
	if (ret)
		return ret;
	j->here_in_phys = -1;
	if (!j->phys.here && netns_open_current(&cur) == 0) {
		if (rtnl_nsid_get(prt, cur, &j->here_in_phys, &err))
			j->here_in_phys = -1;
		close(cur);
	}
	return 0;
}

/* A NIC queue leased to someone else: name the holder and its namespace. */
static int busy_error(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a,
		      const struct nk_queue *q)
{
	struct nk_lease_list all = { 0 };
	const struct nk_lease_rec *r = NULL;
	char holder[64], where[NK_NS_SPEC + 32];
	int ret;

	if (nk_lease_scan(ctx, &all) == 0)
		r = nk_lease_of_nic(&all, j->phys.here ? -1 : j->phys.fd, q->ifindex, q->id);
	if (r && r->nk_ifname[0])
		snprintf(holder, sizeof(holder), "\"%s\" (ifindex %d)", r->nk_ifname, r->nk_ifindex);
	else
		snprintf(holder, sizeof(holder), "ifindex %d", q->lease_ifindex);
	if (r && r->nk_found)
		snprintf(where, sizeof(where), "%s%s%s", r->nk_ns[0] ? "netns \"" : "this namespace",
			 r->nk_ns, r->nk_ns[0] ? "\"" : "");
	else if (q->have & QUEUE_HAVE_LEASE_NETNS_ID)
		snprintf(where, sizeof(where), "a namespace nkctl cannot reach (netns-id %d)",
			 q->lease_netns_id);
	else
		snprintf(where, sizeof(where), "%s", nk_ns_name(&j->phys));
	ret = nk_error(NK_EXIT_EXISTS, "\"%s\" queue %u is already leased to %s in %s", a->from,
		       q->id, holder, where);
	nk_lease_list_free(&all);
	return ret;
}

/* Every asked queue exists, is free or already ours; room on the netkit. */
static int preflight(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a)
{
	const struct genl_family *fam;
	struct nk_queue_list mine = { 0 };
	struct nl_sock *gn;
	struct nl_err err;
	size_t used = 1, need = 0, held = 0;
	char mp[64];
	int ret;

	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nic_rx_queue(j, j->ids[i]);

		if (!q)
			return nk_error(NK_EXIT_NOTFOUND,
					"\"%s\" has no RX queue %u (it has %zu)", a->from,
					j->ids[i], nic_rx_count(j));
		if (leased_to_us(j, q)) {
			j->existed[i] = true;
			j->nk_ids[i] = q->lease_queue_id;
			continue;
		}
		if (q->have & QUEUE_HAVE_LEASE)
			return busy_error(ctx, j, a, q);
		if (mp_name(q, mp, sizeof(mp)))
			return nk_error(NK_EXIT_EXISTS, "\"%s\" queue %u is in use by %s",
					a->from, q->id, mp);
		need++;
	}
	/* Queues the netkit device has: its own dump when it is up, else queue
	 * 0 plus what it leased from this NIC (other NICs cannot lease into
	 * the same device: the kernel refuses mixing). */
	for (size_t i = 0; i < j->nic_queues.n; i++)
		held += leased_to_us(j, &j->nic_queues.v[i]);
	used += held;
	if (j->nk.flags & IFF_UP) {
		ret = nk_ctx_netdev(ctx, &gn, &fam);
		if (ret)
			return ret;
		if (netdev_queue_dump(gn, fam, j->nk.ifindex, &mine, &err) == 0) {
			size_t rx = 0;

			for (size_t i = 0; i < mine.n; i++)
				rx += mine.v[i].type == NK_NETDEV_QUEUE_TYPE_RX;
			if (rx)
				used = rx;
		}
		nk_queue_list_free(&mine);
	}
	if (need && used + need > j->nk.num_rx_queues)
		return nk_error(NK_EXIT_FAIL,
				"\"%s\" has room for %zu more lease%s, %zu asked: it was created with rxqueues %u (queue 0 is its own)",
				a->dev, j->nk.num_rx_queues > used ? j->nk.num_rx_queues - used : 0,
				j->nk.num_rx_queues - used == 1 ? "" : "s", need, j->nk.num_rx_queues);
	return 0;
}

/* The kernel's refusals, with what to do about them. */
static int lease_error(const struct nl_err *err, const struct lease_job *j, size_t failed)
{
	static const struct { const char *msg; int code; const char *hint; } known[] = {
		{ "Lease device is a virtual device", NK_EXIT_UNSUPPORTED,
		  "leases come from a physical NIC" },
		{ "Lease device does not support queue management", NK_EXIT_UNSUPPORTED,
		  "its driver has no queue API (mlx5, bnxt, gve and netdevsim have)" },
		{ "Leasing queues from different devices not supported", NK_EXIT_UNSUPPORTED,
		  "the netkit device already holds leases of another NIC" },
		{ "netkit can only lease against the peer device", NK_EXIT_UNSUPPORTED,
		  "lease into the peer or a single device" },
		{ "netkit maximum queue limit reached", NK_EXIT_FAIL,
		  "create the device with more rxqueues" },
		{ "Device does not support queue creation", NK_EXIT_UNSUPPORTED,
		  "leases go into netkit devices" },
	};
	char done[512] = "";
	size_t used = 0;
	int code = nk_exit_from_errno(err->code);
	const char *hint = NULL;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strstr(err->msg, known[i].msg)) {
			code = known[i].code;
			hint = known[i].hint;
			break;
		}
	}
	if (err->code == EPERM)
		hint = "queue-create needs CAP_NET_ADMIN in the initial user namespace";
	for (size_t i = 0; i < j->n && used < sizeof(done); i++)
		if (i < failed || j->existed[i])
			used += snprintf(done + used, sizeof(done) - used, "%s%u->%u",
					 used ? ", " : "", j->ids[i], j->nk_ids[i]);
	fprintf(stderr, "Error: cannot lease \"%s\" queue %u into \"%s\": %s", j->nic.ifname,
		j->ids[failed], j->nk.ifname, err->msg[0] ? err->msg : strerror(err->code));
	if (err->path[0])
		fprintf(stderr, " (%s%s)", err->missing ? "missing attribute " : "", err->path);
	if (hint)
		fprintf(stderr, "; %s", hint);
	if (used)
		fprintf(stderr, "; leases held now: %s queue %s", j->nic.ifname, done);
	else
		fprintf(stderr, "; no lease was made");
	fputc('\n', stderr);
	return code;
}

static void print_leases(struct nk_ctx *ctx, const struct lease_job *j)
{
	struct nk_lease_rec r;

	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "leases");
	for (size_t i = 0; i < j->n; i++) {
		memset(&r, 0, sizeof(r));
		if (!j->phys.here)
			snprintf(r.nic_ns, sizeof(r.nic_ns), "%s", j->phys.spec);
		r.nic_ifindex = j->nic.ifindex;
		snprintf(r.nic_ifname, sizeof(r.nic_ifname), "%s", j->nic.ifname);
		r.nic_queue = j->ids[i];
		r.nk_found = true;
		r.nk_ifindex = j->nk.ifindex;
		snprintf(r.nk_ifname, sizeof(r.nk_ifname), "%s", j->nk.ifname);
		r.nk_queue = j->nk_ids[i];
		r.existed = j->existed[i];
		nk_print_lease(&ctx->out, &r, true);
	}
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

int cmd_lease(struct nk_ctx *ctx, int argc, char **argv)
{
	struct lease_args a = { 0 };
	struct lease_job *j;
	const struct genl_family *fam;
	struct nl_sock *rt, *gn;
	struct nl_err err;
	int32_t nsid = -1;
	int ret;

	ret = nk_parse_params(&nk_lease_params, argc, argv, &a, NULL);
	if (ret)
		return ret;
	j = calloc(1, sizeof(*j));
	if (!j)
		return nk_error_errno(ENOMEM, "lease");
	j->phys.fd = -1;
	ret = nk_parse_queue_list("queue", a.queue, j->ids, &j->n);
	if (ret)
		goto out;
	ret = nk_ctx_netdev(ctx, &gn, &fam);
	if (ret)
		goto out;
	if (!genl_has_op(fam, NK_NETDEV_CMD_QUEUE_CREATE)) {
		ret = nk_error(NK_EXIT_UNSUPPORTED,
			       "this kernel has no netdev queue-create (queue leasing needs Linux 7.1+)");
		goto out;
	}
	ret = load_devices(ctx, j, &a);
	if (ret)
		goto out;
	ret = preflight(ctx, j, &a);
	if (ret)
		goto out;
	if (!j->phys.here) {
		/* queue-create names the NIC's namespace by its id here. */
		ret = nk_ctx_rtnl(ctx, &rt);
		if (ret)
			goto out;
		if (rtnl_nsid_get(rt, j->phys.fd, &nsid, &err) == 0 && nsid < 0 &&
		    rtnl_nsid_assign(rt, j->phys.fd, &nsid, &err)) {
			ret = err.code == EPERM ?
			      nk_error(NK_EXIT_PERM,
				       "assigning a netns id to \"%s\" needs CAP_NET_ADMIN in the initial user namespace",
				       a.phys_netns) :
			      nk_error_nl(&err, "cannot assign a netns id to \"%s\"", a.phys_netns);
			goto out;
		}
		if (nsid < 0) {
			ret = nk_error(NK_EXIT_FAIL, "no netns id for \"%s\"", a.phys_netns);
			goto out;
		}
	}
	for (size_t i = 0; i < j->n; i++) {
		if (j->existed[i])
			continue;
		if (netdev_queue_create(gn, fam, j->nk.ifindex, j->nic.ifindex, j->ids[i], nsid,
					&j->nk_ids[i], &err)) {
			ret = lease_error(&err, j, i);
			goto out;
		}
	}
	print_leases(ctx, j);
	ret = NK_EXIT_OK;
out:
	nk_queue_list_free(&j->nic_queues);
	nk_ns_close(&j->phys);
	free(j);
	return ret;
}

/* ---- unlease ---- */

/* Print the unlease result: the leases that ended, and the devices deleted
 * to end them. */
static void print_unleased(struct nk_ctx *ctx, const struct nk_lease_list *ended,
			   const struct nk_link *l, const struct nk_link *peer)
{
	struct out *o = &ctx->out;

	out_begin(o);
	out_arr_open(o, "unleased");
	out_text(o, "ended:\n");
	for (size_t i = 0; i < ended->n; i++)
		nk_print_lease(o, &ended->v[i], false);
	out_arr_close(o);
	out_arr_open(o, "deleted");
	nk_print_deleted(o, l, peer);
	out_arr_close(o);
	out_text(o, "\n");
	out_end(o);
}

static int nothing_to_unlease(struct nk_ctx *ctx, const char *what)
{
	if (!ctx->force)
		return nk_error(NK_EXIT_NOTFOUND, "%s", what);
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "unleased");
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "deleted");
	out_arr_close(&ctx->out);
	out_text(&ctx->out, "nothing to unlease: %s\n", what);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/*
 * End every lease of the netkit device name (or ifindex) in hns by deleting
 * it: freely for a single device, with force for one side of a pair (it takes
 * the pod's pair with it) or while a memory provider still uses a queue.
 */
static int unlease_holder(struct nk_ctx *ctx, struct nk_ns *hns, const char *name,
			  int ifindex, bool force)
{
	struct nk_lease_list all = { 0 }, ended = { 0 };
	struct nk_link l, peer = { 0 };
	struct nl_sock *rt;
	struct nl_err err;
	char what[128], mp[64];
	bool single, has_peer;
	int ret;

	ret = nk_ns_rtnl(ctx, hns, &rt);
	if (ret)
		return ret;
	ret = nk_link_lookup(rt, name, ifindex, &l, NULL, true);
	if (ret == -ENODEV) {
		if (name)
			snprintf(what, sizeof(what), "device \"%s\" does not exist", name);
		else
			snprintf(what, sizeof(what), "the lease holder (ifindex %d) is gone", ifindex);
		return nothing_to_unlease(ctx, what);
	}
	if (ret)
		return ret;
	if (!nk_link_is_netkit(&l))
		return nk_error(NK_EXIT_UNSUPPORTED, "\"%s\" is not a netkit device: it holds no leases",
				l.ifname);
	single = (l.netkit.have & NKA_PAIRING) && l.netkit.pairing == NK_NETKIT_DEVICE_SINGLE;
	/* Its leases, as the NICs show them (the device may well be down). */
	ret = nk_lease_scan(ctx, &all);
	if (ret) {
		ret = nk_error_errno(-ret, "cannot scan the leases");
		goto out;
	}
	ended.v = calloc(all.n ? all.n : 1, sizeof(*ended.v));
	if (!ended.v) {
		ret = nk_error_errno(ENOMEM, "unlease");
		goto out;
	}
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i].nk_ifindex == l.ifindex && nk_lease_held_in(&all.v[i], hns->here ? -1 : hns->fd))
			ended.v[ended.n++] = all.v[i];
	if (!ended.n) {
		snprintf(what, sizeof(what), "\"%s\" holds no leases", l.ifname);
		ret = nothing_to_unlease(ctx, what);
		goto out;
	}
	for (size_t i = 0; i < ended.n && !force; i++) {
		struct nk_queue q = { .have = ended.v[i].mp, .dmabuf = ended.v[i].dmabuf };

		if (mp_name(&q, mp, sizeof(mp))) {
			ret = nk_error(NK_EXIT_EXISTS,
				       "\"%s\" queue %u is in use by %s; deleting the device can block until it lets go: stop it first, or add force",
				       l.ifname, ended.v[i].nk_queue, mp);
			goto out;
		}
	}
	if (!single && !force) {
		ret = nk_error(NK_EXIT_EXISTS,
			       "\"%s\" is one side of a netkit pair: ending its leases deletes the pair, the pod's link with it; hold leases in a single device, or add force",
			       l.ifname);
		goto out;
	}
	has_peer = nk_peer_of(rt, &l, &peer);
	if (rtnl_link_del(rt, l.ifindex, &err)) {
		ret = nk_error_nl(&err, "cannot delete \"%s\"", l.ifname);
		goto out;
	}
	print_unleased(ctx, &ended, &l, has_peer ? &peer : NULL);
	ret = NK_EXIT_OK;
out:
	free(ended.v);
	nk_lease_list_free(&all);
	return ret;
}

/* Two NIC queues leased to the same device: same ifindex in the same
 * namespace (an ifindex alone repeats across namespaces). */
static bool same_holder(const struct nk_queue *a, const struct nk_queue *b)
{
	bool a_ns = a->have & QUEUE_HAVE_LEASE_NETNS_ID, b_ns = b->have & QUEUE_HAVE_LEASE_NETNS_ID;

	return a->lease_ifindex == b->lease_ifindex && a_ns == b_ns &&
	       (!a_ns || a->lease_netns_id == b->lease_netns_id);
}

static int unlease_from(struct nk_ctx *ctx, const struct lease_args *a)
{
	struct lease_job *j = calloc(1, sizeof(*j));
	struct nk_ns holder_ns = { .fd = -1 };
	struct nl_sock *prt;
	const struct nk_queue *first = NULL;
	char what[160], spec[300];
	size_t others = 0;
	int ret;

	if (!j)
		return nk_error_errno(ENOMEM, "unlease");
	ret = nk_parse_queue_list("queue", a->queue, j->ids, &j->n);
	if (ret)
		goto out;
	ret = load_nic(ctx, j, a, false);
	if (ret)
		goto out;
	ret = nk_ns_rtnl(ctx, &j->phys, &prt);
	if (ret)
		goto out;
	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nic_rx_queue(j, j->ids[i]);

		if (!q || !(q->have & QUEUE_HAVE_LEASE)) {
			if (ctx->force)
				continue;
			ret = nk_error(NK_EXIT_NOTFOUND, "\"%s\" queue %u is not leased%s", a->from,
				       j->ids[i], q ? "" : " (no such RX queue)");
			goto out;
		}
		if (!first) {
			first = q;
		} else if (!same_holder(q, first)) {
			ret = nk_error(NK_EXIT_FAIL,
				       "\"%s\" queues %u and %u are held by different devices: unlease one holder at a time",
				       a->from, first->id, q->id);
			goto out;
		}
	}
	if (!first) {
		snprintf(what, sizeof(what), "no queue of \"%s\" in %s is leased", a->from, a->queue);
		ret = nothing_to_unlease(ctx, what);
		goto out;
	}
	/* The holder goes with all its leases: refuse to end others silently. */
	for (size_t i = 0; i < j->nic_queues.n; i++) {
		const struct nk_queue *q = &j->nic_queues.v[i];
		bool listed = false;

		if (!(q->have & QUEUE_HAVE_LEASE) || !same_holder(q, first))
			continue;
		for (size_t k = 0; k < j->n; k++)
			listed |= j->ids[k] == q->id;
		others += !listed;
	}
	if (others && !a->force) {
		ret = nk_error(NK_EXIT_EXISTS,
			       "the holder of \"%s\" queue %u (ifindex %d) also holds %zu other queue%s of it; unleasing ends them all: list them, or add force",
			       a->from, first->id, first->lease_ifindex, others, others == 1 ? "" : "s");
		goto out;
	}
	if (first->have & QUEUE_HAVE_LEASE_NETNS_ID) {
		ret = nk_ns_find_by_nsid(ctx, prt, first->lease_netns_id, &holder_ns, spec,
					 sizeof(spec));
		if (ret)
			goto out;
		ret = unlease_holder(ctx, &holder_ns, NULL, first->lease_ifindex, a->force);
	} else {
		ret = unlease_holder(ctx, &j->phys, NULL, first->lease_ifindex, a->force);
	}
out:
	nk_ns_close(&holder_ns);
	nk_queue_list_free(&j->nic_queues);
	nk_ns_close(&j->phys);
	free(j);
	return ret;
}

int cmd_unlease(struct nk_ctx *ctx, int argc, char **argv)
{
	struct lease_args a = { 0 };
	struct nk_ns here;
	int ret;

	ret = nk_parse_params(&nk_unlease_params, argc, argv, &a, NULL);
	if (ret)
		return ret;
	if (!a.dev == !a.from)
		return nk_error(NK_EXIT_USAGE, "\"unlease\" needs either \"dev NKDEV\" or \"from PHYS queue LIST\"");
	if (a.dev && (a.queue || a.phys_netns))
		return nk_error(NK_EXIT_USAGE,
				"\"unlease dev\" takes no \"%s\": it ends every lease of the device",
				a.queue ? "queue" : "phys-netns");
	if (a.from && !a.queue)
		return nk_error(NK_EXIT_USAGE, "\"unlease from\" needs \"queue LIST\"");
	if (a.from)
		return unlease_from(ctx, &a);
	nk_ns_open(&here, NULL);
	ret = unlease_holder(ctx, &here, a.dev, 0, a.force);
	nk_ns_close(&here);
	return ret;
}

