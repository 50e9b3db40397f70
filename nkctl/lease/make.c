// SPDX-License-Identifier: GPL-2.0
/*
 * A lease made (make.h): RX queues of a physical NIC leased into a netkit
 * device with the netdev family's queue-create, under the NIC's lock: the
 * devices read, the pool's lowest free queues picked, every queue checked
 * (free, or ours already), the NIC side (nicside.h) prepared and reserved
 * before the lease and rolled back when the kernel refuses it, the rules
 * after. cli/lease.c keeps the parameters and the printing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "lease/holder.h"
#include "lease/make.h"
#include "lease/nicside.h"
#include "lease/scan.h"
#include "lease/sweep.h"
#include "netdev.h"
#include "netkit.h"
#include "netns.h"
#include "rtnl.h"

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
	return nk_queue_leased_to(q, j->nk.ifindex, j->nic->ns->here, j->here_in_phys);
}

const char *lease_mp_name(const struct nk_queue *q, char *buf, size_t len)
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
int lease_load_nic(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a,
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
	/* the dump leaves a down NIC out, and the kernel keeps its leases:
	 * which queues are free cannot be seen, which is not "none leased" */
	if (need_up && !(j->nic->link.flags & IFF_UP))
		return nk_error(NK_EXIT_EXISTS,
				"\"%s\" is down: which of its queues are leased cannot be seen; nothing was changed: lease again once it is up (ip link set dev %s up)",
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
	ret = lease_load_nic(ctx, j, a, true);
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
	struct nk_queue_holder h = { 0 };
	int ret;

	nk_queue_holder(q, &h);
	if (nk_lease_scan(ctx, &all) == 0)
		r = nk_lease_of_nic(&all, j->nic->ns, q->ifindex, q->id);
	if (r && r->nk_ifname[0])
		snprintf(holder, sizeof(holder), "\"%s\" (ifindex %d)", r->nk_ifname, r->nk_ifindex);
	else
		snprintf(holder, sizeof(holder), "ifindex %d", h.ifindex);
	if (r && r->nk_ns)
		snprintf(where, sizeof(where), "%s%s%s", r->nk_ns->here ? "" : "netns \"",
			 nk_ns_name(r->nk_ns), r->nk_ns->here ? "" : "\"");
	else if (h.has_nsid)
		snprintf(where, sizeof(where), "a namespace nkctl cannot reach (netns-id %d)", h.nsid);
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
		uint32_t nk_id, type;

		if (!q)
			return nk_error(NK_EXIT_NOTFOUND,
					"\"%s\" has no RX queue %u (it has %zu)", a->from,
					j->ids[i], nic_rx_dumped(j));
		if (leased_to_us(j, q)) {
			j->existed[i] = true;
			j->nk_ids[i] = nk_queue_lease_queue(q, &nk_id, &type) ? nk_id : 0;
			continue;
		}
		if (nk_queue_leased(q))
			return busy_error(ctx, j, a, q);
		if (lease_mp_name(q, mp, sizeof(mp)))
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
		struct nk_queue_holder h;
		char mp[64];

		if (nk_queue_holder(q, &h) && r && r->nk_ifname[0])
			used += snprintf(held + used, sizeof(held) - used, "%s%u to \"%s\"%s%s",
					 used ? ", " : "", q->id, r->nk_ifname,
					 r->nk_ns && !r->nk_ns->here ? " in netns " : "",
					 r->nk_ns && !r->nk_ns->here ? nk_ns_name(r->nk_ns) : "");
		else if (nk_queue_leased(q))
			used += snprintf(held + used, sizeof(held) - used, "%s%u to ifindex %d",
					 used ? ", " : "", q->id, h.ifindex);
		else if (q && lease_mp_name(q, mp, sizeof(mp)))
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
		nfree += nk_queue_free(nk_nic_rx_queue(nic, pool[i]));
	if (nfree < want)
		return nfree;
	/* The lowest ids: the parsed list is ascending. */
	for (size_t i = 0; i < npool && *n < want; i++)
		if (nk_queue_free(nk_nic_rx_queue(nic, pool[i])))
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
	return ret;
}

int nk_lease_make(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a)
{
	char key[NK_NIC_KEY_MAX];
	int ret = nk_feature_need(ctx, NK_FEAT_QUEUE_CREATE);

	/* What ended leases left on the NICs goes first, each NIC under its
	 * own lock: a rule of a lease gone with its pod's namespace must not
	 * steer into this one. A lease without a NIC side needs only its own
	 * queues' records undone, under the lock (nk_nic_undo_ended). */
	if (!ret && (a->reserve || a->steer.n))
		ret = nk_nic_unlease_stale(ctx);
	if (!ret)
		ret = hold_nic(ctx, a, key, sizeof(key));
	if (ret)
		return ret;
	ret = lease_locked(ctx, j, a, key);
	nk_nic_unhold(ctx, key);
	return ret;
}
