// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl doctor [ dev NKDEV ]: check a pod's whole path, from the kernel's
 * features to the netkit pair, its leases, the NIC side, bindings, redirects,
 * forwarding and MTU, and say for each problem the command that fixes it.
 * One line per check; exit status 7 when a check failed.
 *
 * This file: the command and the kernel, device, MTU and forwarding checks.
 * What a pod is made of is gathered in doctorpod.c; the NIC side is
 * doctornic.c, redirects doctorpath.c; every check is printed by
 * doctorreport.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "core/cmd.h"
#include "doctor/doctornic.h"
#include "doctor/doctorpath.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "netkit.h"
#include "bind/bindstate.h"

struct doctor_args {
	const char *dev;
};
static const struct nk_param doctor_params[] = {
	{ "dev", NKP_IFNAME, offsetof(struct doctor_args, dev), "NKDEV", 0, 0, NULL, false, NULL },
};
const struct nk_params cmd_doctor_params = {
	NK_PARAMS("doctor", struct doctor_args, doctor_params)
};

/* ---- kernel ---- */

/* The features a pod's path uses: without the first three nothing works;
 * the others only limit what the pod may have. */
static const struct { enum nk_feature id; enum dr_status missing; } kernel_rows[] = {
	{ NK_FEAT_NETKIT, DR_FAIL }, { NK_FEAT_NETKIT_BPF, DR_FAIL }, { NK_FEAT_TCX, DR_FAIL },
	{ NK_FEAT_QUEUE_GET, DR_WARN }, { NK_FEAT_QUEUE_CREATE, DR_WARN },
	{ NK_FEAT_LEASE_NETNS_ID, DR_WARN }, { NK_FEAT_ETHTOOL_RSS_GET, DR_WARN },
};

static void check_kernel(struct dr_report *r)
{

	for (size_t i = 0; i < NK_ARRAY_SIZE(kernel_rows); i++) {
		enum nk_feature id = kernel_rows[i].id;
		char msg[256];

		if (nk_feature_has(r->ctx, id)) {
			dr_check(r, "kernel", DR_OK, NULL, "%s (Linux %s+)", nk_feature_name(id),
				 nk_feature_since(id));
			continue;
		}
		nk_feature_missing(id, msg, sizeof(msg));
		dr_check(r, "kernel", kernel_rows[i].missing, NULL, "%s", msg);
	}
}

/* ---- device ---- */

/* The pod's namespace by name, or NULL when it is the command's own. */
static const char *pod_netns(struct dr_pod *p, char *buf, size_t len)
{
	const char *w;

	if (p->pod_ns == p->here)
		return NULL;
	w = dr_ns_word(p->ctx, p->pod_ns, buf, len);
	return w ? w : "(unnamed)";
}

/* " in netns NAME" for details, or "". */
static const char *where(struct dr_pod *p, char *buf, size_t len)
{
	char name[NK_NS_SPEC];
	const char *w = pod_netns(p, name, sizeof(name));

	if (!w)
		return "";
	snprintf(buf, len, " in netns %s", w);
	return buf;
}

static void check_device(struct dr_report *r, struct dr_pod *p)
{
	const struct nk_link *l = &p->primary;
	char fix[DR_FIX_LEN], ip[DR_IP_LEN], wb[NK_NS_SPEC + 16], mode[32], pol[32];
	size_t leased = 0;

	if (!(l->flags & IFF_UP)) {
		snprintf(fix, sizeof(fix), "%slink set dev %s up", dr_ip(r->ctx, p->here, ip, sizeof(ip)),
			 l->ifname);
		dr_check(r, "device", DR_FAIL, fix, "%s is down", l->ifname);
		return;
	}
	if (!p->pod_ns) {
		dr_check(r, "device", DR_SKIP, NULL,
			 "the peer (ifindex %d) is in a namespace nkctl cannot reach (netns-id %d)",
			 l->link, l->link_netnsid);
		return;
	}
	if (!p->have_peer) {
		dr_check(r, "device", DR_FAIL, NULL, "the peer of %s (ifindex %d) is gone", l->ifname,
			 l->link);
		return;
	}
	if (!(p->peer.flags & IFF_UP)) {
		snprintf(fix, sizeof(fix), "%slink set dev %s up",
			 dr_ip(r->ctx, p->pod_ns, ip, sizeof(ip)), p->peer.ifname);
		dr_check(r, "device", DR_FAIL, fix, "the peer %s%s is down", p->peer.ifname,
			 where(p, wb, sizeof(wb)));
		return;
	}
	for (size_t i = 0; i < p->leases.n; i++)
		leased += p->leases.v[i].nk_ifindex == p->peer.ifindex;
	dr_check(r, "device", DR_OK, NULL,
		 "%s up, netkit pair, mode %s, policy %s; peer %s%s up, %u RX queue%s: %zu leased, %zu free for leases",
		 l->ifname, nk_choice_name(netkit_mode_words, l->netkit.mode, mode, sizeof(mode)),
		 nk_choice_name(netkit_policy_words, l->netkit.policy, pol, sizeof(pol)),
		 p->peer.ifname, where(p, wb, sizeof(wb)), p->peer.num_rx_queues,
		 p->peer.num_rx_queues == 1 ? "" : "s", leased,
		 p->peer.num_rx_queues > leased + 1 ? p->peer.num_rx_queues - leased - 1 : 0);
}

/* ---- MTU ---- */

static void check_mtu(struct dr_report *r, struct dr_pod *p)
{
	const struct dr_nic *nic = dr_pod_nic(p);
	char fix[DR_FIX_LEN], ip[DR_IP_LEN], ip2[DR_IP_LEN];
	uint32_t mtu = p->primary.mtu;

	if (!p->have_peer)
		return;
	if (p->peer.mtu != mtu) {
		snprintf(fix, sizeof(fix), "%slink set dev %s mtu %u",
			 dr_ip(r->ctx, p->pod_ns, ip, sizeof(ip)), p->peer.ifname, mtu);
		dr_check(r, "mtu", DR_FAIL, fix, "%s has MTU %u, its peer %s %u", p->primary.ifname,
			 mtu, p->peer.ifname, p->peer.mtu);
		return;
	}
	if (!nic || !nic->found) {
		dr_check(r, "mtu", DR_OK, NULL, "%s and %s: %u", p->primary.ifname, p->peer.ifname, mtu);
		return;
	}
	if (mtu > nic->link.mtu) {
		snprintf(fix, sizeof(fix), "%slink set dev %s mtu %u && %slink set dev %s mtu %u",
			 dr_ip(r->ctx, p->here, ip, sizeof(ip)), p->primary.ifname, nic->link.mtu,
			 dr_ip(r->ctx, p->pod_ns, ip2, sizeof(ip2)), p->peer.ifname, nic->link.mtu);
		dr_check(r, "mtu", DR_FAIL, fix,
			 "the pod's MTU %u is larger than %u of %s: its larger packets cannot leave",
			 mtu, nic->link.mtu, nic->link.ifname);
		return;
	}
	dr_check(r, "mtu", DR_OK, NULL, "%s and %s: %u, %s: %u", p->primary.ifname, p->peer.ifname,
		 mtu, nic->link.ifname, nic->link.mtu);
}

/* ---- forwarding ---- */

static void check_forwarding(struct dr_report *r, struct dr_pod *p)
{
	int v4 = dr_sysctl("/proc/sys/net/ipv4/ip_forward");
	int v6 = dr_sysctl("/proc/sys/net/ipv6/conf/all/forwarding");

	if (p->egress_ok && p->ingress_ok) {
		dr_check(r, "forwarding", DR_OK, NULL,
			 "the redirects carry the pod's traffic both ways; the host does not route it (ip_forward %d, IPv6 forwarding %d)",
			 v4, v6);
		return;
	}
	if (dr_host_forwards(p)) {
		dr_check(r, "forwarding", DR_OK, NULL,
			 "the host routes what the redirects do not carry (ip_forward %d, IPv6 forwarding %d)",
			 v4, v6);
		return;
	}
	if (p->redirects_unknown) {
		dr_check(r, "forwarding", DR_SKIP, NULL,
			 "the redirects could not be checked, and the host does not route the pod's traffic (ip_forward %d, IPv6 forwarding %d)",
			 v4, v6);
		return;
	}
	dr_check(r, "forwarding", DR_WARN, p->redirect_fix,
		 "without both redirects the pod's traffic must be routed by the host, whose forwarding is off (ip_forward %d, IPv6 forwarding %d)",
		 v4, v6);
}

/* ---- one pod ---- */

static void check_pod(struct nk_ctx *ctx, struct dr_report *r, const struct nk_link *primary,
		      const struct nk_lease_list *leases, const struct nk_binding_list *bst)
{
	struct dr_pod *p = calloc(1, sizeof(*p));
	struct out *o = &ctx->out;
	char name[NK_NS_SPEC];
	const char *netns;

	if (!p) {
		nk_error_errno(ENOMEM, "doctor");
		r->fails++;
		return;
	}
	p->ctx = ctx;
	p->primary = *primary;
	dr_pod_gather(p, leases, bst);
	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)primary->ifindex);
	out_str(o, "ifname", "pod %s", primary->ifname);
	if (p->have_peer) {
		out_obj_open(o, "peer");
		out_uint(o, "ifindex", NULL, (unsigned int)p->peer.ifindex);
		out_str(o, "ifname", " (peer %s", p->peer.ifname);
		netns = pod_netns(p, name, sizeof(name));
		if (netns)
			out_str(o, "netns", " in netns %s", netns);
		out_text(o, ")");
		out_obj_close(o);
	}
	out_text(o, ":\n");
	out_arr_open(o, "checks");
	check_device(r, p);
	check_mtu(r, p);
	if (p->have_peer) {
		dr_check_leases(r, p);
		dr_check_nic_side(r, p);
		dr_check_bindings(r, p);
	}
	dr_check_egress(r, p);
	dr_check_ingress(r, p);
	if (p->have_peer)
		check_forwarding(r, p);
	out_arr_close(o);
	out_obj_close(o);
	dr_pod_free(p);
	free(p);
}

/* ---- the command ---- */

/* dev NKDEV: a netkit primary of a pair, or a refusal that says why not. */
static int named_primary(struct nk_ctx *ctx, const char *dev, struct nk_link *l)
{
	int ret = nk_dev(ctx, dev, l);

	if (!ret && !nk_link_is_netkit(l))
		ret = nk_feature_need(ctx, NK_FEAT_NETKIT);
	if (ret)
		return ret;
	if (!nk_link_is_netkit(l))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is not a netkit device: doctor checks a pod from the primary of its netkit pair",
				dev);
	if (dr_is_single(l))
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is a single netkit device (a lease holder): doctor checks a pod from the primary of its netkit pair",
				dev);
	if (!l->netkit.primary)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is the peer of a netkit pair: run doctor on its primary (ifindex %d%s)",
				dev, l->link,
				(l->have & LINK_HAVE_LINK_NETNSID) ? " in another namespace" : "");
	return 0;
}

/* Every netkit primary of a pair in the command's namespace. */
static int all_primaries(struct nk_ctx *ctx, struct nk_link_list *out)
{
	struct nk_link_list links;
	struct nl_sock *rt;
	struct nl_err err;
	int ret = nk_ctx_rtnl(ctx, &rt);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	if (rtnl_link_dump(rt, &links, &err))
		return nk_error_nl(&err, "cannot list devices");
	for (size_t i = 0; i < links.n; i++) {
		struct nk_link *l;

		if (!nk_link_is_netkit(&links.v[i]) || !links.v[i].netkit.primary ||
		    dr_is_single(&links.v[i]))
			continue;
		l = nk_grow(&out->v, &out->n, &out->cap, sizeof(*l));
		if (l)
			*l = links.v[i];
	}
	nk_link_list_free(&links);
	return 0;
}

static int select_pods(struct nk_ctx *ctx, const struct doctor_args *a, struct nk_link_list *pods)
{
	struct nk_link *l;
	int ret;

	if (!a->dev)
		return all_primaries(ctx, pods);
	memset(pods, 0, sizeof(*pods));
	l = nk_grow(&pods->v, &pods->n, &pods->cap, sizeof(*l));
	if (!l)
		return nk_error_errno(ENOMEM, "doctor");
	ret = named_primary(ctx, a->dev, l);
	if (ret)
		nk_link_list_free(pods);
	return ret;
}

static void print_summary(struct out *o, const struct dr_report *r, size_t npods)
{
	out_uint(o, "failed", "%llu failed", r->fails);
	out_uint(o, "warnings", ", %llu warnings", r->warns);
	out_text(o, " (%zu pod%s)\n", npods, npods == 1 ? "" : "s");
}

int cmd_doctor(struct nk_ctx *ctx, const void *args)
{
	struct dr_report r = { .ctx = ctx };
	struct nk_lease_list leases = { 0 };
	struct nk_binding_list bst = { 0 };
	struct nk_link_list pods;
	struct out *o = &ctx->out;
	int ret = select_pods(ctx, args, &pods);

	if (ret)
		return ret;
	nk_lease_scan(ctx, &leases);
	nk_binding_states(&bst);
	out_begin(o);
	out_obj_open(o, "doctor");
	out_text(o, "kernel:\n");
	out_arr_open(o, "checks");
	check_kernel(&r);
	out_arr_close(o);
	out_arr_open(o, "pods");
	for (size_t i = 0; i < pods.n; i++)
		check_pod(ctx, &r, &pods.v[i], &leases, &bst);
	out_arr_close(o);
	print_summary(o, &r, pods.n);
	out_obj_close(o);
	out_end(o);
	nk_link_list_free(&pods);
	nk_lease_list_free(&leases);
	nk_binding_list_free(&bst);
	return r.fails ? NK_EXIT_CHECK : NK_EXIT_OK;
}
