// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl doctor, the pod's redirects: egress on the primary's netkit-primary
 * hook must send to the NIC that owns the pod's lease; the NIC's route table
 * (tcx-ingress) must send each of the pod's addresses to this pod's primary.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "compat.h"
#include "doctor/doctorpath.h"
#include "redirect.h"

static void keep_fix(struct dr_pod *p, const char *fix)
{
	if (!p->redirect_fix[0])
		snprintf(p->redirect_fix, sizeof(p->redirect_fix), "%s", fix);
}

/* The NIC the pod's egress must reach: its lease's. */
static struct dr_nic *lease_nic(struct dr_pod *p)
{
	return p->leases.n ? dr_nic_of(p, p->leases.v[0].nic_ns, p->leases.v[0].nic_ifindex) : NULL;
}

static void egress_fix(struct dr_pod *p, const struct dr_nic *n, const char *tail, char *fix,
		       size_t len)
{
	char ns[DR_NS_ARG_LEN];

	snprintf(fix, len, "nkctl %sredirect attach dev %s to %s%s",
		 dr_ns_arg(p->ctx, p->here, ns, sizeof(ns)), p->primary.ifname, n->link.ifname, tail);
	keep_fix(p, fix);
}

static void egress_missing(struct dr_report *r, struct dr_pod *p, const struct dr_nic *want)
{
	char fix[DR_FIX_LEN];

	if (!want) {
		p->redirects_unknown = true;
		dr_check(r, "egress-redirect", DR_SKIP, NULL,
			 "nkctl has no redirect on %s, and no lease names the NIC it should send to",
			 p->primary.ifname);
		return;
	}
	/* Egress through the host's stack (nkctl-cni's default, for
	 * kube-proxy and netfilter): fine while the host routes it. */
	if (dr_host_forwards(p)) {
		dr_check(r, "egress-redirect", DR_OK, NULL,
			 "no egress redirect on %s: the host routes the pod's packets (forwarding on)",
			 p->primary.ifname);
		return;
	}
	egress_fix(p, want, "", fix, sizeof(fix));
	dr_check(r, "egress-redirect", DR_FAIL, fix,
		 "nkctl has no egress redirect on %s: the pod's packets enter the host's stack instead of leaving through %s",
		 p->primary.ifname, want->link.ifname);
}

void dr_check_egress(struct dr_report *r, struct dr_pod *p)
{
	struct dr_nic *want = lease_nic(p);
	const struct nk_target *t;
	char fix[DR_FIX_LEN];

	if (want && want->ns != p->here) {
		p->redirects_unknown = true;
		dr_check(r, "egress-redirect", DR_SKIP, NULL,
			 "the pod's NIC %s is in another namespace than %s: a redirect reaches only devices of its own",
			 want->link.ifname, p->primary.ifname);
		return;
	}
	if (p->egress_ret && p->egress_ret != -ENOENT) {
		p->redirects_unknown = true;
		dr_check(r, "egress-redirect", DR_SKIP, NULL, "cannot read nkctl's pins of %s: %s",
			 p->primary.ifname, strerror(-p->egress_ret));
		return;
	}
	if (p->egress_ret || !p->egress.n || p->egress.defunct) {
		egress_missing(r, p, want);
		return;
	}
	t = &p->egress.targets[0];
	if (want && t->ifindex != (uint32_t)want->link.ifindex) {
		egress_fix(p, want, " replace", fix, sizeof(fix));
		dr_check(r, "egress-redirect", DR_FAIL, fix,
			 "%s sends the pod's packets to %s, not to %s that owns its lease",
			 p->primary.ifname, t->ifname, want->link.ifname);
		return;
	}
	p->egress_ok = true;
	dr_check(r, "egress-redirect", DR_OK, NULL, "%s sends the pod's packets to %s",
		 p->primary.ifname, t->ifname);
}

/* ---- ingress: the NIC's route table ---- */

static void to_prefix(const struct nk_addr *a, struct nk_prefix *p)
{
	memset(p, 0, sizeof(*p));
	p->family = a->family == AF_INET6 ? 6 : 4;
	p->len = a->family == AF_INET6 ? 128 : 32;
	memcpy(p->addr, a->addr, a->family == AF_INET6 ? 16 : 4);
}

/* What the NIC's table says of each pod address. */
struct ingress {
	struct nk_redirect_table t;
	uint32_t target[NK_TARGET_PREFIXES];
	uint8_t len[NK_TARGET_PREFIXES];
	size_t n;
	bool replace;              /* another target holds an address exactly */
};

static const char *target_name(const struct ingress *in, uint32_t ifindex)
{
	for (size_t i = 0; i < in->t.n; i++)
		if (in->t.targets[i].ifindex == ifindex)
			return in->t.targets[i].ifname;
	return "?";
}

/* One attach that gives the primary its routes plus every address it lacks. */
static void ingress_fix(struct dr_pod *p, const struct dr_nic *n, const struct ingress *in,
			char *fix, size_t len)
{
	char ns[DR_NS_ARG_LEN], buf[64];
	size_t used = (size_t)snprintf(fix, len, "nkctl %sredirect attach dev %s to %s",
				       dr_ns_arg(p->ctx, p->here, ns, sizeof(ns)), n->link.ifname,
				       p->primary.ifname);

	for (size_t i = 0; i < in->t.n; i++) {
		const struct nk_target *t = &in->t.targets[i];

		for (uint32_t k = 0; t->ifindex == (uint32_t)p->primary.ifindex && k < t->n &&
		     k < NK_TARGET_PREFIXES && used < len; k++) {
			nk_format_prefix(&t->p[k], buf, sizeof(buf));
			used += (size_t)snprintf(fix + used, len - used, " prefix %s", buf);
		}
	}
	for (size_t i = 0; i < in->n && used < len; i++) {
		struct nk_prefix pf;

		if (in->target[i] == (uint32_t)p->primary.ifindex)
			continue;
		to_prefix(&p->addrs.v[i], &pf);
		nk_format_prefix(&pf, buf, sizeof(buf));
		used += (size_t)snprintf(fix + used, len - used, " prefix %s", buf);
	}
	if (in->replace && used < len)
		snprintf(fix + used, len - used, " replace");
	keep_fix(p, fix);
}

static void ingress_lookup(struct dr_pod *p, const struct dr_nic *n, struct ingress *in)
{
	in->n = p->addrs.n < NK_TARGET_PREFIXES ? p->addrs.n : NK_TARGET_PREFIXES;
	for (size_t i = 0; i < in->n; i++) {
		struct nk_prefix pf;

		to_prefix(&p->addrs.v[i], &pf);
		in->target[i] = nk_redirect_route(p->ctx, n->link.ifindex, NK_BPF_TCX_INGRESS, &pf,
						  &in->len[i]);
		in->replace |= in->target[i] && in->target[i] != (uint32_t)p->primary.ifindex &&
			       in->len[i] == pf.len;
	}
}

static void ingress_report(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n,
			   const struct ingress *in, const char *fix)
{
	char s[64];

	p->ingress_ok = true;
	for (size_t i = 0; i < in->n; i++) {
		dr_addr_str(&p->addrs.v[i], s, sizeof(s));
		if (in->target[i] == (uint32_t)p->primary.ifindex) {
			dr_check(r, "ingress-route", DR_OK, NULL, "%s routes %s (/%u) to %s",
				 n->link.ifname, s, in->len[i], p->primary.ifname);
			continue;
		}
		p->ingress_ok = false;
		if (!in->target[i])
			dr_check(r, "ingress-route", DR_FAIL, fix,
				 "%s has no route for %s: the pod's replies never reach it",
				 n->link.ifname, s);
		else
			dr_check(r, "ingress-route", DR_FAIL, fix,
				 "%s routes %s (/%u) to %s, another pod, not to %s", n->link.ifname, s,
				 in->len[i], target_name(in, in->target[i]), p->primary.ifname);
	}
}

void dr_check_ingress(struct dr_report *r, struct dr_pod *p)
{
	struct dr_nic *n = dr_pod_nic(p);
	struct ingress in;
	char fix[DR_FIX_LEN];
	int ret;

	if (!n || !n->found || n->ns != p->here || !p->addrs.n) {
		p->redirects_unknown = true;
		dr_check(r, "ingress-route", DR_SKIP, NULL, "%s",
			 !n || !n->found ? "no NIC to read routes from: the pod has no lease and no egress redirect" :
			 n->ns != p->here ? "the pod's NIC is in another namespace than its primary" :
			 "the pod has no global address to route");
		return;
	}
	memset(&in, 0, sizeof(in));
	ret = nk_redirect_read(p->ctx, n->link.ifindex, NK_BPF_TCX_INGRESS, &in.t);
	if (ret && ret != -ENOENT) {
		p->redirects_unknown = true;
		dr_check(r, "ingress-route", DR_SKIP, NULL, "cannot read nkctl's pins of %s: %s",
			 n->link.ifname, strerror(-ret));
		return;
	}
	ingress_lookup(p, n, &in);
	fix[0] = '\0';
	for (size_t i = 0; i < in.n && !fix[0]; i++)
		if (in.target[i] != (uint32_t)p->primary.ifindex)
			ingress_fix(p, n, &in, fix, sizeof(fix));
	ingress_report(r, p, n, &in, fix);
	nk_redirect_table_free(&in.t);
}
