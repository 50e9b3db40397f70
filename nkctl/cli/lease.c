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
#include <arpa/inet.h>

#include "compat.h"
#include "cmd.h"
#include "devview.h"
#include "kernel.h"
#include "lease.h"
#include "leaseview.h"
#include "leasewait.h"
#include "lookup.h"
#include "netdev.h"
#include "netkit.h"
#include "netns.h"
#include "niclease.h"
#include "nicsweep.h"
#include "routesvc.h"
#include "rtnl.h"
#include "xsksvc.h"

#define NK_LEASE_MAX_STEER 8

/* steer dst ADDR[,ADDR...]: the addresses whose traffic goes to the lease. */
struct steer_list {
	size_t n;
	uint8_t addr[NK_LEASE_MAX_STEER][16];
	bool v6[NK_LEASE_MAX_STEER];
};

struct lease_args {
	const char *dev, *from, *phys_netns, *queue, *pool;
	uint32_t count;
	uint32_t wait;                    /* unlease: seconds for providers to go */
	bool force, reserve;
	struct steer_list steer;
};

static int parse_one_addr(const char *s, struct steer_list *l)
{
	if (l->n == NK_LEASE_MAX_STEER)
		return nk_error(NK_EXIT_USAGE, "at most %d addresses after \"steer dst\"",
				NK_LEASE_MAX_STEER);
	if (inet_pton(AF_INET, s, l->addr[l->n]) == 1) {
		l->v6[l->n++] = false;
		return 0;
	}
	if (inet_pton(AF_INET6, s, l->addr[l->n]) == 1) {
		l->v6[l->n++] = true;
		return 0;
	}
	return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"dst\": not an IPv4 or IPv6 address", s);
}

/* The words after "steer": "dst ADDR[,ADDR...]"; steer may repeat, adding
 * to the same list. */
static int parse_steer(const struct nk_param *d, int argc, char **argv, void *slot)
{
	struct steer_list *l = slot;
	char buf[512], *tok, *save = NULL;

	(void)d;
	if (argc < 1 || strcmp(argv[0], "dst"))
		return -nk_error(NK_EXIT_USAGE, "\"steer\" needs \"dst ADDR\"");
	if (argc < 2 || !argv[1][0])
		return -nk_error(NK_EXIT_USAGE, "\"steer dst\" needs an ADDR");
	snprintf(buf, sizeof(buf), "%s", argv[1]);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (parse_one_addr(tok, l))
			return -NK_EXIT_USAGE;
	if (!l->n)
		return -nk_error(NK_EXIT_USAGE, "\"steer dst\" needs an ADDR");
	return 2;
}

/* For completion and help: the word after "steer". */
static const struct nk_choice steer_words[] = { { "dst", 0, NULL }, { NULL, 0, NULL } };

#define LP(kw, type, field, meta, req) \
	{ kw, type, offsetof(struct lease_args, field), meta, 0, 0, NULL, req, NULL }
static const struct nk_param lease_params[] = {
	LP("dev", NKP_IFNAME, dev, "NKDEV", true),
	LP("from", NKP_IFNAME, from, "PHYS", true),
	LP("phys-netns", NKP_NETNS, phys_netns, "NETNS", false),
	LP("queue", NKP_STRING, queue, "LIST", false),
	LP("pool", NKP_STRING, pool, "LIST", false),
	{ "count", NKP_U32, offsetof(struct lease_args, count), "N", 1, NK_MAX_QUEUES, NULL,
	  false, NULL },
	LP("reserve", NKP_FLAG, reserve, NULL, false),
	{ "steer", NKP_CUSTOM, offsetof(struct lease_args, steer), "dst ADDR[,ADDR...]", 0,
	  NK_LEASE_MAX_STEER, steer_words, false, parse_steer },
};
/* The exact queues, or how many of a pool. */
static const struct nk_rule lease_rules[] = {
	{ NK_RULE_ONE_OF, { "queue", "pool" } },
	{ NK_RULE_NEEDS, { "count", "pool" } },
};
const struct nk_params cmd_lease_params = {
	NK_PARAMS("lease", struct lease_args, lease_params), NK_RULES(lease_rules),
};

enum { UNLEASE_WAIT = 5 };        /* its row in unlease_params */
static const struct nk_param unlease_params[] = {
	LP("dev", NKP_IFNAME, dev, "NKDEV", false),
	LP("from", NKP_IFNAME, from, "PHYS", false),
	LP("phys-netns", NKP_NETNS, phys_netns, "NETNS", false),
	LP("queue", NKP_STRING, queue, "LIST", false),
	LP("force", NKP_FLAG, force, NULL, false),
	[UNLEASE_WAIT] = { "wait", NKP_U32, offsetof(struct lease_args, wait), "SECONDS", 0,
			   NK_LEASE_MAX_MP_WAIT, NULL, false, NULL },
};
/* Either the holder, or the NIC's queues. */
static const struct nk_rule unlease_rules[] = {
	{ NK_RULE_ONE_OF, { "dev", "from" } },
	{ NK_RULE_EXCLUSIVE, { "dev", "queue" } },
	{ NK_RULE_EXCLUSIVE, { "dev", "phys-netns" } },
	{ NK_RULE_NEEDS, { "from", "queue" } },
};
const struct nk_params cmd_unlease_params = {
	NK_PARAMS("unlease", struct lease_args, unlease_params), NK_RULES(unlease_rules),
};

/* What one command works on: the netkit device here, the NIC maybe
 * elsewhere, read once as the NIC job (its namespace, link and queues). */
struct lease_job {
	struct nic_job *nic;
	struct nk_link nk;
	uint32_t ids[NK_MAX_QUEUES];
	uint32_t nk_ids[NK_MAX_QUEUES];   /* netkit queue per leased id */
	bool existed[NK_MAX_QUEUES];
	size_t n;
	uint32_t pool[NK_MAX_QUEUES];     /* pool LIST: the queues to choose from */
	size_t npool;
	size_t made;                      /* leases this command made */
	int32_t here_in_phys;             /* our netns as the NIC's netns names it */
};

/* The RX queues the NIC's dump shows. */
static size_t nic_rx_dumped(const struct lease_job *j)
{
	size_t n = 0;

	for (size_t i = 0; i < j->nic->queues.n; i++)
		n += j->nic->queues.v[i].type == NK_NETDEV_QUEUE_TYPE_RX;
	return n;
}

/* Is q leased to j->nk (a device of our namespace)? */
static bool leased_to_us(const struct lease_job *j, const struct nk_queue *q)
{
	if (!(q->have & QUEUE_HAVE_LEASE) || q->lease_ifindex != j->nk.ifindex)
		return false;
	if (j->nic->ns->here)
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

/* Open the NIC's namespace, get the NIC and dump its queues: the NIC job,
 * which the NIC side of the lease loads in full. */
static int load_nic(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a,
		    bool need_up)
{
	const struct genl_family *fam;
	struct nl_sock *prt, *pgn;
	struct nl_err err;
	int ret;

	j->nic = nk_nic_job_new();
	if (!j->nic)
		return NK_EXIT_FAIL;
	ret = nk_ns_get(ctx, a->phys_netns, &j->nic->ns);
	if (!ret)
		ret = nk_ns_rtnl(j->nic->ns, &prt);
	if (!ret)
		ret = nk_link_lookup(prt, a->from, 0, &j->nic->link, nk_ns_name(j->nic->ns), false);
	if (ret)
		return ret;
	if (nk_link_is_netkit(&j->nic->link))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is a netkit device: leases come from a physical NIC", a->from);
	if (need_up && !(j->nic->link.flags & IFF_UP))
		return nk_error(NK_EXIT_FAIL,
				"\"%s\" is down and shows no queues; bring it up first (ip link set %s up)",
				a->from, a->from);
	ret = nk_ns_netdev(j->nic->ns, &pgn, &fam);
	if (ret)
		return ret;
	if (nk_nic_job_queues(j->nic, pgn, fam, &err))
		return nk_error_nl(&err, "cannot list the queues of \"%s\"", a->from);
	return 0;
}

/* Look up the netkit device (here) and the NIC (in phys), with their rules. */
static int load_devices(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a)
{
	struct nk_ns *here;
	int ret;

	ret = nk_dev(ctx, a->dev, &j->nk);
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
	if (!ret)
		ret = nk_ns_here(ctx, &here);
	if (ret)
		return ret;
	j->here_in_phys = nk_ns_nsid_of(j->nic->ns, here);
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
		r = nk_lease_of_nic(&all, j->nic->ns, q->ifindex, q->id);
	if (r && r->nk_ifname[0])
		snprintf(holder, sizeof(holder), "\"%s\" (ifindex %d)", r->nk_ifname, r->nk_ifindex);
	else
		snprintf(holder, sizeof(holder), "ifindex %d", q->lease_ifindex);
	if (r && r->nk_ns)
		snprintf(where, sizeof(where), "%s%s%s", r->nk_ns->here ? "" : "netns \"",
			 nk_ns_name(r->nk_ns), r->nk_ns->here ? "" : "\"");
	else if (q->have & QUEUE_HAVE_LEASE_NETNS_ID)
		snprintf(where, sizeof(where), "a namespace nkctl cannot reach (netns-id %d)",
			 q->lease_netns_id);
	else
		snprintf(where, sizeof(where), "%s", nk_ns_name(j->nic->ns));
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
		const struct nk_queue *q = nk_nic_rx_queue(j->nic, j->ids[i]);

		if (!q)
			return nk_error(NK_EXIT_NOTFOUND,
					"\"%s\" has no RX queue %u (it has %zu)", a->from,
					j->ids[i], nic_rx_dumped(j));
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
	for (size_t i = 0; i < j->nic->queues.n; i++)
		held += leased_to_us(j, &j->nic->queues.v[i]);
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
	char done[512] = "", reason[400], held[600];
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
	if (used)
		snprintf(held, sizeof(held), "leases held now: %s queue %s", j->nic->link.ifname, done);
	else
		snprintf(held, sizeof(held), "no lease was made");
	return nk_error(code, "cannot lease \"%s\" queue %u into \"%s\": %s%s%s; %s",
			j->nic->link.ifname, j->ids[failed], j->nk.ifname,
			nk_nl_reason(err, reason, sizeof(reason)), hint ? "; " : "", hint ? hint : "",
			held);
}

/* The lease objects of show leases, NIC side included, with "existed". */
static void print_leases(struct nk_ctx *ctx, const struct lease_job *j, struct nk_ns *here)
{
	struct nk_nic_reader rd = { 0 };
	struct nk_lease_nic nic;
	struct nk_lease_rec r;

	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "leases");
	for (size_t i = 0; i < j->n; i++) {
		memset(&r, 0, sizeof(r));
		nk_lease_set_ns(&r, j->nic->ns, here);
		r.nic_ifindex = j->nic->link.ifindex;
		snprintf(r.nic_ifname, sizeof(r.nic_ifname), "%s", j->nic->link.ifname);
		r.nic_queue = j->ids[i];
		r.nk_ifindex = j->nk.ifindex;
		snprintf(r.nk_ifname, sizeof(r.nk_ifname), "%s", j->nk.ifname);
		r.nk_queue = j->nk_ids[i];
		r.existed = j->existed[i];
		if (nk_nic_lease_info(ctx, &rd, j->nic->ns, j->nic->link.ifindex, j->ids[i], &nic))
			r.nic = &nic;
		nk_print_lease(&ctx->out, &r, true);
	}
	nk_nic_reader_free(&rd);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

/* queue-create names the NIC's namespace by the id ours gives it: find or
 * assign one. -1 when the NIC is here. */
static int phys_nsid(struct nk_ctx *ctx, const struct lease_job *j, const char *spec,
		     int32_t *nsid)
{
	struct nl_sock *rt;
	struct nl_err err;
	int ret;

	*nsid = -1;
	if (j->nic->ns->here)
		return 0;
	ret = nk_ctx_rtnl(ctx, &rt);
	if (ret)
		return ret;
	if (rtnl_nsid_get(rt, j->nic->ns->fd, nsid, &err) == 0 && *nsid < 0 &&
	    rtnl_nsid_assign(rt, j->nic->ns->fd, nsid, &err)) {
		if (err.code == EPERM)
			return nk_error(NK_EXIT_PERM,
					"assigning a netns id to \"%s\" needs CAP_NET_ADMIN in the initial user namespace",
					spec);
		return nk_error_nl(&err, "cannot assign a netns id to \"%s\"", spec);
	}
	if (*nsid < 0)
		return nk_error(NK_EXIT_FAIL, "no netns id for \"%s\"", spec);
	return 0;
}

static int lease_queues(struct nk_ctx *ctx, struct lease_job *j, int32_t nsid)
{
	const struct genl_family *fam;
	struct nl_sock *gn;
	struct nl_err err;
	int ret = nk_ctx_netdev(ctx, &gn, &fam);

	for (size_t i = 0; i < j->n && !ret; i++) {
		if (j->existed[i])
			continue;
		if (netdev_queue_create(gn, fam, j->nk.ifindex, j->nic->link.ifindex, j->ids[i],
					nsid, &j->nk_ids[i], &err))
			ret = lease_error(&err, j, i);
		else
			j->made++;
	}
	return ret;
}

/* The NIC side after the lease: one rule per address to the first leased
 * queue, recorded with the lease. */
static int steer_lease(struct lease_job *j, const struct steer_list *sl)
{
	struct nk_ntuple rules[NK_LEASE_MAX_STEER];

	memset(rules, 0, sizeof(rules));
	for (size_t i = 0; i < sl->n; i++) {
		rules[i].flow_type = sl->v6[i] ? NK_FLOW_IP6 : NK_FLOW_IP4;
		rules[i].have_dst = true;
		memcpy(rules[i].dst, sl->addr[i], 16);
		rules[i].action = j->ids[0];
	}
	return nk_nic_lease_steer(j->nic, rules, sl->n);
}

/* Is q free for a pool lease: no lease, no memory provider? */
static bool queue_free(const struct nk_queue *q)
{
	return q && !(q->have & (QUEUE_HAVE_LEASE | QUEUE_HAVE_MP));
}

/* An exhausted pool: one line naming it and who holds its queues. */
static int pool_busy(struct nk_ctx *ctx, const struct lease_job *j, const struct lease_args *a,
		     size_t nfree)
{
	struct nk_lease_list all = { 0 };
	char held[512] = "";
	size_t used = 0;

	nk_lease_scan(ctx, &all);
	for (size_t i = 0; i < j->npool && used < sizeof(held); i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j->nic, j->pool[i]);
		const struct nk_lease_rec *r = q ? nk_lease_of_nic(&all, j->nic->ns, q->ifindex,
								   q->id) : NULL;
		char mp[64];

		if (q && (q->have & QUEUE_HAVE_LEASE) && r && r->nk_ifname[0])
			used += snprintf(held + used, sizeof(held) - used, "%s%u to \"%s\"%s%s",
					 used ? ", " : "", q->id, r->nk_ifname,
					 r->nk_ns && !r->nk_ns->here ? " in netns " : "",
					 r->nk_ns && !r->nk_ns->here ? nk_ns_name(r->nk_ns) : "");
		else if (q && (q->have & QUEUE_HAVE_LEASE))
			used += snprintf(held + used, sizeof(held) - used, "%s%u to ifindex %d",
					 used ? ", " : "", q->id, q->lease_ifindex);
		else if (q && mp_name(q, mp, sizeof(mp)))
			used += snprintf(held + used, sizeof(held) - used, "%s%u by %s",
					 used ? ", " : "", q->id, mp);
	}
	nk_lease_list_free(&all);
	return nk_error(NK_EXIT_EXISTS, "\"%s\" pool %s has %zu free queue%s, %u asked; held: %s",
			a->from, a->pool, nfree, nfree == 1 ? "" : "s", a->count ? a->count : 1,
			used ? held : "none (queues the NIC does not have)");
}

/* pool LIST [count N]: the lowest N queues of the pool that are free, read
 * under the lock that every lease holds until its lease is made. */
size_t lease_pool_pick(const struct nic_job *nic, const uint32_t *pool, size_t npool,
		       size_t want, uint32_t *ids, size_t *n)
{
	size_t nfree = 0;

	for (size_t i = 0; i < npool; i++)
		nfree += queue_free(nk_nic_rx_queue(nic, pool[i]));
	if (nfree < want)
		return nfree;
	/* The lowest ids: the parsed list is ascending. */
	for (size_t i = 0; i < npool && *n < want; i++)
		if (queue_free(nk_nic_rx_queue(nic, pool[i])))
			ids[(*n)++] = pool[i];
	return nfree;
}

static int pick_from_pool(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a)
{
	size_t want = a->count ? a->count : 1;
	size_t nfree = lease_pool_pick(j->nic, j->pool, j->npool, want, j->ids, &j->n);

	return nfree < want ? pool_busy(ctx, j, a, nfree) : 0;
}

/* Make the leases; when the kernel refused the first, give back what the
 * NIC side took for them. After a partial failure the leases made keep it
 * (out of RSS), recorded: their unlease undoes it. */
static int lease_or_rollback(struct nk_ctx *ctx, struct lease_job *j, bool nic_side,
			     int32_t nsid)
{
	int ret = lease_queues(ctx, j, nsid);

	if (ret && nic_side && !j->made)
		nk_nic_lease_rollback(j->nic);
	return ret;
}

/* The lock of the NIC the lease comes from (every lease holds it, so that
 * what it decides on stays true until its lease is made). */
static int hold_nic(struct nk_ctx *ctx, const struct lease_args *a, char *key, size_t len)
{
	struct nk_ns *phys;
	struct nl_sock *rt;
	struct nk_link nic;
	int ret = nk_ns_get(ctx, a->phys_netns, &phys);

	if (!ret)
		ret = nk_ns_rtnl(phys, &rt);
	if (!ret)
		ret = nk_link_lookup(rt, a->from, 0, &nic, nk_ns_name(phys), false);
	return ret ? ret : nk_nic_hold_link(ctx, phys, &nic, key, len);
}

/* The NIC read under the lock is the one locked (not another that took its
 * name meanwhile). */
static int check_locked(const struct lease_job *j, const char *key)
{
	char now[NK_NIC_KEY_MAX];

	nk_nic_key(j->nic->ns, &j->nic->link, now, sizeof(now));
	return strcmp(now, key) ? nk_error(NK_EXIT_EXISTS,
					   "\"%s\" changed while nkctl waited for its lock; nothing was changed, try again",
					   j->nic->link.ifname) : 0;
}

/* Under the NIC lock: the queues, checked; the NIC side reserved; the
 * leases; the rules. */
static int lease_locked(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a,
			const char *key)
{
	bool nic_side = a->reserve || a->steer.n;
	struct nk_ns *here;
	int32_t nsid = -1;
	int ret = 0;

	ret = load_devices(ctx, j, a);
	if (!ret)
		ret = check_locked(j, key);
	if (!ret && a->pool)
		ret = pick_from_pool(ctx, j, a);
	if (!ret)
		ret = preflight(ctx, j, a);
	if (!ret && !nic_side)
		ret = nk_nic_undo_ended(ctx, j->nic, j->ids, j->n);
	if (!ret && nic_side)
		ret = nk_nic_lease_prepare(ctx, j->nic, j->ids, j->n, a->steer.n);
	if (!ret)
		ret = phys_nsid(ctx, j, a->phys_netns, &nsid);
	if (!ret)
		ret = nk_ns_here(ctx, &here);
	if (!ret && nic_side)
		ret = nk_nic_lease_reserve(j->nic, here, &j->nk);
	if (!ret)
		ret = lease_or_rollback(ctx, j, nic_side, nsid);
	if (!ret && nic_side)
		ret = steer_lease(j, &a->steer);
	if (!ret)
		print_leases(ctx, j, here);
	return ret;
}

int cmd_lease(struct nk_ctx *ctx, const void *args)
{
	const struct lease_args *a = args;
	char key[NK_NIC_KEY_MAX];
	struct lease_job *j;
	int ret;

	j = calloc(1, sizeof(*j));
	if (!j)
		return nk_error_errno(ENOMEM, "lease");
	ret = a->queue ? nk_parse_queue_list("queue", a->queue, j->ids, &j->n) :
			 nk_parse_queue_list("pool", a->pool, j->pool, &j->npool);
	if (!ret)
		ret = nk_feature_need(ctx, NK_FEAT_QUEUE_CREATE);
	/* What ended leases left on the NICs goes first, each NIC under its
	 * own lock: a rule of a lease gone with its pod's namespace must not
	 * steer into this one. A lease without a NIC side needs only its own
	 * queues' records undone, under the lock (nk_nic_undo_ended). */
	if (!ret && (a->reserve || a->steer.n))
		ret = nk_nic_unlease_stale(ctx);
	if (!ret)
		ret = hold_nic(ctx, a, key, sizeof(key));
	if (!ret) {
		ret = lease_locked(ctx, j, a, key);
		nk_nic_job_free(j->nic);
		nk_nic_unhold(ctx, key);
	} else {
		nk_nic_job_free(j->nic);
	}
	free(j);
	return ret;
}

/* ---- unlease ---- */

/* One holder unlease deletes: the device, the leases that end with it and
 * what goes along (its peer, nkctl's redirects of both). */
struct holder_end {
	struct nk_ns *ns;
	const struct nk_queue *first;   /* unlease from: a NIC queue it holds */
	struct nk_link l, peer, there;
	bool has_peer;
	struct nk_lease_list ended;
	struct nk_gone gone[NK_GONE_MAX];
	size_t ngone;
};

static void holder_ends_free(struct holder_end *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].ended.v);
	free(t);
}

/* Print the unlease result: the leases that ended, the devices deleted to
 * end them, and nkctl's redirects that went with those (as link del does). */
static int print_unleased(struct nk_ctx *ctx, const struct holder_end *t, size_t n)
{
	struct nk_gone *gone = calloc(n * NK_GONE_MAX, sizeof(*gone));
	struct out *o = &ctx->out;
	size_t ngone = 0;

	if (!gone)
		return nk_error_errno(ENOMEM, "unlease");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].ngone; k++)
			gone[ngone++] = t[i].gone[k];
	out_begin(o);
	out_arr_open(o, "unleased");
	out_text(o, "ended:\n");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].ended.n; k++)
			nk_print_lease(o, &t[i].ended.v[k], false);
	out_arr_close(o);
	out_arr_open(o, "deleted");
	for (size_t i = 0; i < n; i++) {
		out_text(o, i ? "\n" : "");
		nk_print_deleted(o, &t[i].l, t[i].has_peer ? &t[i].peer : NULL);
	}
	out_arr_close(o);
	out_text(o, "\n");
	nk_redirect_forget(ctx, gone, ngone);
	out_end(o);
	free(gone);
	return NK_EXIT_OK;
}

/* Nothing to end: 3, or with -force 0 after the sweep of what ended leases
 * left (swept: done already). */
static int nothing_to_unlease(struct nk_ctx *ctx, const char *what, bool swept)
{
	int ret;

	if (!ctx->force)
		return nk_error(NK_EXIT_NOTFOUND, "%s", what);
	if (!swept && (ret = nk_nic_unlease_stale(ctx)))
		return ret;
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "unleased");
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "deleted");
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "detached");
	out_arr_close(&ctx->out);
	out_text(&ctx->out, "nothing to unlease: %s\n", what);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* Deleting one side of a pair takes the pod's link: only with force. */
static int check_pair(const struct nk_link *l, bool force)
{
	bool single = (l->netkit.have & NKA_PAIRING) &&
		      l->netkit.pairing == NK_NETKIT_DEVICE_SINGLE;

	if (!single && !force)
		return nk_error(NK_EXIT_EXISTS,
				"\"%s\" is one side of a netkit pair: ending its leases deletes the pair, the pod's link with it; hold leases in a single device, or add force",
				l->ifname);
	return 0;
}

/* Deleting the holder must not pull the rug from under a memory provider
 * still there after the wait, unless force says so. */
static int check_providers(const struct nk_link *l, const struct nk_lease_list *ended, bool force,
			   uint32_t wait)
{
	char mp[64];

	for (size_t i = 0; i < ended->n && !force; i++) {
		struct nk_queue q = { .have = ended->v[i].mp, .dmabuf = ended->v[i].dmabuf };

		if (mp_name(&q, mp, sizeof(mp)))
			return nk_error(NK_EXIT_EXISTS,
					"\"%s\" queue %u (%s queue %u) is still in use by %s after %u s; deleting the device can block until it lets go: stop its user and unlease again (wait SECONDS waits longer), or add force",
					l->ifname, ended->v[i].nk_queue, ended->v[i].nic_ifname,
					ended->v[i].nic_queue, mp, wait);
	}
	return 0;
}

/* The holder by name or ifindex; -ENODEV (what says which) when it is gone. */
static int find_holder(struct nl_sock *rt, const char *name, int ifindex, struct nk_link *l,
		       char *what, size_t len)
{
	int ret = nk_link_lookup(rt, name, ifindex, l, NULL, true);

	if (ret == -ENODEV && name)
		snprintf(what, len, "device \"%s\" does not exist", name);
	else if (ret == -ENODEV)
		snprintf(what, len, "the lease holder (ifindex %d) is gone", ifindex);
	if (ret)
		return ret;
	if (!nk_link_is_netkit(l))
		return nk_error(NK_EXIT_UNSUPPORTED, "\"%s\" is not a netkit device: it holds no leases",
				l->ifname);
	return 0;
}

/* Delete t's holder, its peer and redirects noted first for the result. */
static int delete_one(struct nk_ctx *ctx, struct holder_end *t)
{
	struct nl_sock *rt;
	struct nl_err err;
	int ret = nk_ns_rtnl(t->ns, &rt);

	if (ret)
		return ret;
	t->has_peer = nk_peer_of(rt, &t->l, &t->peer);
	t->ngone = nk_gone_of(ctx, t->ns, &t->l, t->has_peer ? &t->peer : NULL, &t->there, t->gone);
	if (rtnl_link_del(rt, t->l.ifindex, &err))
		return nk_error_nl(&err, "cannot delete \"%s\"", t->l.ifname);
	return 0;
}

/* How long unlease waits for memory providers: wait SECONDS, or the default. */
static uint32_t mp_wait(const struct nk_ctx *ctx, const struct lease_args *a)
{
	return (ctx->given & (1ull << UNLEASE_WAIT)) ? a->wait : NK_LEASE_MP_WAIT;
}

/* Each holder's leases out of all (one scan for every holder), checked:
 * a pair only with force, memory providers waited for. */
static int check_holders(struct nk_ctx *ctx, struct holder_end *t, size_t n,
			 const struct lease_args *a)
{
	uint32_t wait = mp_wait(ctx, a);
	uint64_t end = nk_lease_deadline(wait); /* one bound for all holders */
	struct nk_lease_list all;
	int ret = nk_lease_scan(ctx, &all);

	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	for (size_t i = 0; i < n && !ret; i++) {
		ret = nk_lease_pick_held(&all, t[i].ns, t[i].l.ifindex, &t[i].ended);
		if (!ret && !t[i].ended.n && n > 1)
			ret = nk_error(NK_EXIT_NOTFOUND, "\"%s\" holds no leases", t[i].l.ifname);
		if (!ret && t[i].ended.n)
			ret = check_pair(&t[i].l, a->force);
		if (!ret && !a->force)
			ret = nk_lease_wait_providers(ctx, t[i].ns, &t[i].l, end, &all, &t[i].ended);
		if (!ret)
			ret = check_providers(&t[i].l, &t[i].ended, a->force, wait);
	}
	nk_lease_list_free(&all);
	return ret;
}

/* The sweep after deleting t[0..n): their leases' NICs waited for (another
 * command's sweep may hold one a moment), every other NIC only tried. */
static int sweep_own(struct nk_ctx *ctx, const struct holder_end *t, size_t n)
{
	struct nk_nic_at *own;
	size_t nown = 0, cap = 0;
	int ret;

	for (size_t i = 0; i < n; i++)
		cap += t[i].ended.n;
	own = calloc(cap ? cap : 1, sizeof(*own));
	for (size_t i = 0; i < n && own; i++)
		for (size_t k = 0; k < t[i].ended.n; k++) {
			const struct nk_lease_rec *r = &t[i].ended.v[k];

			own[nown++] = (struct nk_nic_at){ .dev = r->nic_at.dev, .ino = r->nic_at.ino,
							  .ifindex = r->nic_ifindex };
		}
	ret = nk_nic_unlease_stale_own(ctx, own, nown);
	free(own);
	return ret;
}

/*
 * End every lease of the holders t[0..n) by deleting them: every holder is
 * checked (a pair only with force, memory providers waited for, up to
 * wait seconds, without force) before any is deleted; then one sweep of the
 * NIC side for all, and one result.
 */
static int unlease_holders(struct nk_ctx *ctx, struct holder_end *t, size_t n,
			   const struct lease_args *a)
{
	char what[128];
	size_t done = 0;
	int ret = check_holders(ctx, t, n, a), sweep;

	if (!ret && n == 1 && !t[0].ended.n) {
		snprintf(what, sizeof(what), "\"%s\" holds no leases", t[0].l.ifname);
		return nothing_to_unlease(ctx, what, false);
	}
	while (!ret && done < n && !(ret = delete_one(ctx, &t[done])))
		done++;
	if (!done)
		return ret;
	/* The NIC side the leases brought goes with them, once they have
	 * ended: their rules, and the queues they reserved. What fails there
	 * is a Warning (the holders are gone: this command's work is done);
	 * the next nkctl command on the NIC finishes it. */
	sweep = sweep_own(ctx, t, done);
	nk_xsk_sweep(ctx, NULL);  /* AF_XDP attaches of the queues that ended */
	if (ret || sweep)
		return ret ? ret : sweep;
	return print_unleased(ctx, t, n);
}

/* unlease dev NKDEV: that holder, of the command's namespace. */
static int unlease_dev(struct nk_ctx *ctx, const struct lease_args *a)
{
	struct holder_end *t = calloc(1, sizeof(*t));
	struct nl_sock *rt;
	char what[128];
	int ret;

	if (!t)
		return nk_error_errno(ENOMEM, "unlease");
	ret = nk_ns_here(ctx, &t->ns);
	if (!ret)
		ret = nk_ns_rtnl(t->ns, &rt);
	if (!ret)
		ret = find_holder(rt, a->dev, 0, &t->l, what, sizeof(what));
	/* A holder gone with the NIC side still recorded (an unlease killed
	 * half-way): finish that first. */
	if (ret == -ENODEV && (ret = nk_nic_unlease_gone(ctx, t->ns, a->dev)) == 0)
		ret = nothing_to_unlease(ctx, what, true);
	else if (!ret)
		ret = unlease_holders(ctx, t, 1, a);
	holder_ends_free(t, 1);
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

/* The holders of the listed queues, each once, into t[0..*n) (0 when none
 * is leased: -force). */
static int listed_holders(struct nk_ctx *ctx, const struct lease_job *j, const char *from,
			  struct holder_end *t, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < j->n; i++) {
		const struct nk_queue *q = nk_nic_rx_queue(j->nic, j->ids[i]);
		size_t k = 0;

		if (!q || !(q->have & QUEUE_HAVE_LEASE)) {
			if (ctx->force)
				continue;
			return nk_error(NK_EXIT_NOTFOUND, "\"%s\" queue %u is not leased%s", from,
					j->ids[i], q ? "" : " (no such RX queue)");
		}
		while (k < *n && !same_holder(q, t[k].first))
			k++;
		if (k == *n)
			t[(*n)++].first = q;
	}
	return 0;
}

/* A holder goes with all its leases: refuse to end others silently. */
static int check_others(const struct lease_job *j, const char *from, const struct nk_queue *first,
			bool force)
{
	size_t others = 0;

	for (size_t i = 0; i < j->nic->queues.n; i++) {
		const struct nk_queue *q = &j->nic->queues.v[i];

		if ((q->have & QUEUE_HAVE_LEASE) && same_holder(q, first))
			others += !nk_id_listed(j->ids, j->n, q->id);
	}
	if (others && !force)
		return nk_error(NK_EXIT_EXISTS,
				"the holder of \"%s\" queue %u (ifindex %d) also holds %zu other queue%s of it; unleasing ends them all: list them, or add force",
				from, first->id, first->lease_ifindex, others, others == 1 ? "" : "s");
	return 0;
}

/* t's holder found where its lease's netns id says: 0, -ENODEV when it
 * is gone (its lease ends without this command), or an error printed. */
static int find_listed(struct nk_ctx *ctx, const struct lease_job *j, struct holder_end *t,
		       char *what, size_t len)
{
	struct nl_sock *rt;
	int ret;

	t->ns = j->nic->ns;
	if (t->first->have & QUEUE_HAVE_LEASE_NETNS_ID) {
		t->ns = nk_ns_by_nsid(ctx, j->nic->ns, t->first->lease_netns_id);
		if (!t->ns)
			return nk_error(NK_EXIT_NOTFOUND,
					"no namespace nkctl can reach has netns-id %d there",
					t->first->lease_netns_id);
	}
	ret = nk_ns_rtnl(t->ns, &rt);
	return ret ? ret : find_holder(rt, NULL, t->first->lease_ifindex, &t->l, what, len);
}

/* unlease from PHYS queue LIST: the holders of those queues, one or many
 * (a runtime's GC ends many pods' leases in one command). */
static int unlease_from(struct nk_ctx *ctx, const struct lease_args *a)
{
	struct lease_job *j = calloc(1, sizeof(*j));
	struct holder_end *t = NULL;
	struct nk_ns *gone_ns = NULL;
	size_t n = 0, live = 0;
	char what[160];
	int ret;

	if (!j)
		return nk_error_errno(ENOMEM, "unlease");
	ret = nk_parse_queue_list("queue", a->queue, j->ids, &j->n);
	if (!ret)
		ret = load_nic(ctx, j, a, false);
	if (!ret && !(t = calloc(j->n ? j->n : 1, sizeof(*t))))
		ret = nk_error_errno(ENOMEM, "unlease");
	if (!ret)
		ret = listed_holders(ctx, j, a->from, t, &n);
	snprintf(what, sizeof(what), "no queue of \"%s\" in %s is leased", a->from, a->queue);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = check_others(j, a->from, t[i].first, a->force);
		if (!ret)
			ret = find_listed(ctx, j, &t[i], what, sizeof(what));
		if (ret == -ENODEV) {       /* gone since the NIC's dump */
			gone_ns = t[i].ns;
			ret = 0;
		} else if (!ret) {
			t[live++] = t[i];
		}
	}
	if (!ret && !live && gone_ns && (ret = nk_nic_unlease_gone(ctx, gone_ns, NULL)) == 0)
		ret = nothing_to_unlease(ctx, what, true);
	else if (!ret && !live)
		ret = nothing_to_unlease(ctx, what, false);
	else if (!ret)
		ret = unlease_holders(ctx, t, live, a);
	if (t)
		holder_ends_free(t, live);
	nk_nic_job_free(j->nic);
	free(j);
	return ret;
}

int cmd_unlease(struct nk_ctx *ctx, const void *args)
{
	const struct lease_args *a = args;

	return a->from ? unlease_from(ctx, a) : unlease_dev(ctx, a);
}
