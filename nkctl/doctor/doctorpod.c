// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl doctor: what one pod is made of, gathered once before its checks:
 * the peer and its namespace, the pod's addresses, its leases and bindings,
 * the NICs it uses (its leases', its egress redirect's target) and its
 * egress redirect.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "compat.h"
#include "doctor/doctorpod.h"
#include "core/lookup.h"
#include "lease/mine.h"
#include "netkit.h"
#include "redirect.h"

bool dr_is_single(const struct nk_link *l)
{
	return nk_link_is_netkit(l) && (l->netkit.have & NKA_PAIRING) &&
	       l->netkit.pairing == NK_NETKIT_DEVICE_SINGLE;
}

/* Does device ifindex of the pod's namespace belong to the pod: its peer,
 * or (in a namespace of its own) any single netkit device there, or one
 * that is gone. */
bool dr_pod_device(const struct dr_pod *p, int ifindex)
{
	const struct nk_link *l;

	if (p->have_peer && ifindex == p->peer.ifindex)
		return true;
	if (p->pod_ns == p->here)
		return false;
	l = nk_link_find(&p->pod_links, ifindex);
	return !l || dr_is_single(l);
}

static void gather_peer(struct dr_pod *p)
{
	struct nk_addr_list all = { 0 };
	const struct nk_link *peer;
	struct nl_sock *rt;
	struct nl_err err;

	p->pod_ns = (p->primary.have & LINK_HAVE_LINK_NETNSID) ?
		    nk_ns_by_nsid(p->ctx, p->here, p->primary.link_netnsid) : p->here;
	rt = p->pod_ns ? nk_ns_try_rtnl(p->pod_ns) : NULL;
	if (!rt || rtnl_link_dump(rt, &p->pod_links, &err))
		return;
	peer = nk_link_find(&p->pod_links, p->primary.link);
	if (peer && nk_link_is_netkit(peer)) {
		p->peer = *peer;
		p->have_peer = true;
	}
	if (!p->have_peer || rtnl_addr_dump(rt, &all, &err))
		return;
	for (size_t i = 0; i < all.n; i++) {
		struct nk_addr *a;

		if (all.v[i].ifindex != p->peer.ifindex || all.v[i].scope != RT_SCOPE_UNIVERSE)
			continue;
		a = nk_grow(&p->addrs.v, &p->addrs.n, &p->addrs.cap, sizeof(*a));
		if (a)
			*a = all.v[i];
	}
	nk_addr_list_free(&all);
}

/* Is r a lease of the pod's? One not seen (its NIC down) names its holder
 * as it was leased: the lease unit (lease/mine.h) says whether a device of
 * the pod may be that holder (moved into the pod since, as the CNI plugin
 * does). */
static bool pod_holds(const struct dr_pod *p, const struct nk_lease_rec *r)
{
	if (!r->unseen)
		return r->nk_ns == p->pod_ns && dr_pod_device(p, r->nk_ifindex);
	for (size_t i = 0; i < p->pod_links.n; i++)
		if (dr_pod_device(p, p->pod_links.v[i].ifindex) &&
		    nk_mine_lease(r, p->pod_ns, &p->pod_links.v[i], nk_lease_name_now))
			return true;
	return p->have_peer && nk_mine_lease(r, p->pod_ns, &p->peer, nk_lease_name_now);
}

static void gather_leases(struct dr_pod *p, const struct nk_lease_list *all,
			  const struct nk_binding_list *bst)
{
	for (size_t i = 0; p->pod_ns && i < all->n; i++) {
		struct nk_lease_rec *r;

		if (!pod_holds(p, &all->v[i]))
			continue;
		r = nk_grow(&p->leases.v, &p->leases.n, &p->leases.cap, sizeof(*r));
		if (r)
			*r = all->v[i];
	}
	for (size_t i = 0; p->pod_ns && i < bst->n; i++) {
		struct nk_binding *b;

		if (!nk_ns_is(p->pod_ns, bst->v[i].ns_dev, bst->v[i].ns_ino) || !bst->v[i].rx ||
		    !dr_pod_device(p, bst->v[i].ifindex))
			continue;
		b = nk_grow(&p->bindings.v, &p->bindings.n, &p->bindings.cap, sizeof(*b));
		if (b)
			*b = bst->v[i];
	}
}

static void add_nic(struct dr_pod *p, struct nk_ns *ns, int ifindex)
{
	struct dr_nic *n;
	struct nl_sock *rt;

	if (dr_nic_of(p, ns, ifindex) || p->nnics == DR_MAX_NICS)
		return;
	n = &p->nics[p->nnics++];
	n->ns = ns;
	n->link.ifindex = ifindex;
	rt = nk_ns_try_rtnl(ns);
	n->found = rt && nk_link_lookup(rt, NULL, ifindex, &n->link, NULL, true) == 0;
	if (n->found && !nk_link_is_netkit(&n->link))
		nk_nic_view_read(p->ctx, ns, &n->link, &n->view);
}

static void gather_nics(struct dr_pod *p)
{
	for (size_t i = 0; i < p->leases.n; i++)
		add_nic(p, p->leases.v[i].nic_ns, p->leases.v[i].nic_ifindex);
	/* The pod's packets reach the primary's tcx-ingress (attach's default)
	 * or, before it, its netkit-primary hook. */
	p->egress_ret = nk_redirect_read(p->ctx, p->primary.ifindex, NK_BPF_TCX_INGRESS, &p->egress);
	if (p->egress_ret == -ENOENT)
		p->egress_ret = nk_redirect_read(p->ctx, p->primary.ifindex, NK_BPF_NETKIT_PRIMARY,
						 &p->egress);
	if (!p->egress_ret && p->egress.n)
		add_nic(p, p->here, (int)p->egress.targets[0].ifindex);
}

void dr_pod_free(struct dr_pod *p)
{
	nk_link_list_free(&p->pod_links);
	nk_addr_list_free(&p->addrs);
	nk_lease_list_free(&p->leases);
	free(p->bindings.v);
	for (size_t i = 0; i < p->nnics; i++)
		nk_nic_view_free(p->nics[i].view);
	nk_redirect_table_free(&p->egress);
}

struct dr_nic *dr_nic_of(struct dr_pod *p, const struct nk_ns *ns, int ifindex)
{
	for (size_t i = 0; i < p->nnics; i++)
		if (p->nics[i].ns == ns && p->nics[i].link.ifindex == ifindex)
			return &p->nics[i];
	return NULL;
}

struct dr_nic *dr_pod_nic(struct dr_pod *p)
{
	return p->nnics ? &p->nics[0] : NULL;
}

bool dr_lease_bound(const struct dr_pod *p, const struct nk_lease_rec *r)
{
	if (r->mp)
		return true;
	for (size_t i = 0; i < p->bindings.n; i++) {
		const struct nk_binding *b = &p->bindings.v[i];

		for (size_t k = 0; b->alive && b->ifindex == r->nk_ifindex && k < b->nqueues; k++)
			if (b->queues[k] == r->nk_queue)
				return true;
	}
	return false;
}

void dr_pod_gather(struct dr_pod *p, const struct nk_lease_list *leases,
		   const struct nk_binding_list *bst)
{
	nk_ns_here(p->ctx, &p->here);
	gather_peer(p);
	gather_leases(p, leases, bst);
	gather_nics(p);
}

/* A sysctl's integer value, -1 when it cannot be read. */
int dr_sysctl(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Does the host forward every family the pod has addresses of? */
bool dr_host_forwards(const struct dr_pod *p)
{
	int v4 = dr_sysctl("/proc/sys/net/ipv4/ip_forward");
	int v6 = dr_sysctl("/proc/sys/net/ipv6/conf/all/forwarding");
	bool want4 = false, want6 = false;

	for (size_t i = 0; i < p->addrs.n; i++) {
		want4 |= p->addrs.v[i].family == AF_INET;
		want6 |= p->addrs.v[i].family == AF_INET6;
	}
	return (!want4 || v4 > 0) && (!want6 || v6 > 0) && (want4 || want6);
}
