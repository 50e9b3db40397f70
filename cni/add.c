// SPDX-License-Identifier: GPL-2.0
/* ADD: IPAM runs while nkctl makes the pair, the holder and (with
 * egressRedirect) the egress redirect; then the lease with a steering rule
 * per address, the pod's information file, the NIC route for every
 * address, the addresses and routes over rtnetlink, the result. By default
 * the pod's egress goes through the host's stack (README.md, Kubernetes).
 * Any failure undoes everything (teardown) before the error object. */
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "add.h"
#include "alias.h"
#include "cni.h"
#include "conf.h"
#include "del.h"
#include "ipam.h"
#include "ipconf.h"
#include "ipnet.h"
#include "lease.h"
#include "linkset.h"
#include "netkit.h"
#include "nksession.h"
#include "nl.h"
#include "podinfo.h"
#include "podnet.h"
#include "report.h"
#include "rtnl.h"
#include "sysctl.h"

struct add {
	struct plugin *p;
	struct nk_session s;
	struct ipam_run ipam;
	bool ipam_added;
	struct pod_net net;
	int netns_fd;
	struct nl_sock *host, *pod;
};

/* Undo everything, IPAM's ADD too whenever it ran (an address it handed
 * out before a later step failed must not leak); the error is ADD's: -1.
 * cmd_add ends the nkctl session after. */
static __attribute__((format(printf, 3, 4))) int add_fail(struct add *a, int code,
							   const char *fmt, ...)
{
	char msg[768], why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->ipam.started) {
		ipam_finish(&a->ipam);
		a->ipam_added = true;
	}
	teardown(a->p, &a->s, a->ipam_added, why, sizeof(why));
	return cni_error(a->p, code, "%s", msg);
}

#define add_abort(a, ...) add_fail(a, CNI_ERR_STEP, __VA_ARGS__)

static __attribute__((format(printf, 3, 4))) int nk_step(struct add *a, const char *what,
							    const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (nks_run(&a->s, NULL, "%s", line))
		return add_abort(a, "%s: %s", what, a->s.err);
	return 0;
}

/* IPAM's answer: every address, each family's gateway, its routes with the
 * family's gateway where they name none. */
static int collect_ipam(struct add *a, json_object **result)
{
	struct pod_net *net = &a->net;
	char why[512], ignored[768];
	int code;

	a->ipam_added = true; /* even a failed ADD may have reserved: DEL it */
	if (ipam_finish(&a->ipam)) {
		code = ipam_error(&a->ipam, why, sizeof(why));
		teardown(a->p, &a->s, true, ignored, sizeof(ignored));
		return cni_error(a->p, code, "IPAM: %s", why);
	}
	*result = json_tokener_parse(a->ipam.out);
	if (pod_net_parse(*result, net, why, sizeof(why)))
		return add_abort(a, "%s", why);
	for (size_t i = 0; i < net->n_ip; i++) {
		int f = net->ip[i].addr.family;

		if ((f == AF_INET && !net->has_gw4) || (f == AF_INET6 && !net->has_gw6))
			return add_abort(a, "IPAM returned no %s gateway (the host side's address)",
					 f == AF_INET ? "IPv4" : "IPv6");
	}
	pod_net_routes(net);
	return 0;
}

/* Only the routes IPAM returned, never a default of the plugin's own: as a
 * second network the pod's default route is its first network's. */
void pod_net_routes(struct pod_net *net)
{
	for (size_t i = 0; i < net->n_route; i++) {
		struct pod_route *r = &net->route[i];

		if (!r->has_gw && (r->dst.family == AF_INET ? net->has_gw4 : net->has_gw6)) {
			r->gw = r->dst.family == AF_INET ? net->gw4 : net->gw6;
			r->has_gw = true;
		}
	}
}

/* "A,B" (steer dst) and "prefix A/32 prefix B/128" (the NIC route). */
void address_words(const struct pod_net *net, char *dsts, size_t dlen, char *prefixes,
			  size_t plen)
{
	size_t d = 0, q = 0;
	char buf[64];

	*dsts = *prefixes = '\0';
	for (size_t i = 0; i < net->n_ip; i++) {
		struct nk_ipnet host = net->ip[i].addr;

		host.plen = host.family == AF_INET ? 32 : 128;
		d += (size_t)snprintf(dsts + d, dlen - d, "%s%s", i ? "," : "",
				      ipnet_str(&host, false, buf, sizeof(buf)));
		q += (size_t)snprintf(prefixes + q, plen - q, " prefix %s",
				      ipnet_str(&host, true, buf, sizeof(buf)));
	}
}

/* The holder into the pod; the pod's addresses, link and routes; the host
 * side's gateway addresses and a route to each pod address. */
static int configure(struct add *a)
{
	struct pod_net *net = &a->net;
	int pod_if, host_if, holder_if, err;
	struct nk_ipnet gw_host;
	struct nl_err e;

	if (!a->host)
		a->host = podnet_open(-1);
	a->pod = podnet_open(a->netns_fd);
	if (!a->host || !a->pod)
		return add_abort(a, "cannot open rtnetlink in the host or the pod");
	if (a->p->queues) {
		holder_if = podnet_ifindex(a->host, a->p->holder);
		if (holder_if < 0 || rtnl_link_move(a->host, holder_if, a->netns_fd, &e))
			return add_abort(a, "cannot move the lease holder %s into the pod",
					 a->p->holder);
	}
	pod_if = podnet_ifindex(a->pod, a->p->ifname);
	host_if = podnet_ifindex(a->host, a->p->host);
	if (pod_if < 0 || host_if < 0)
		return add_abort(a, "the pair %s/%s is gone", a->p->host, a->p->ifname);
	if (net->has_gw6 && ((err = ipv6_enable_in(a->netns_fd, a->p->ifname)) ||
			     (err = ipv6_enable_in(-1, a->p->host))))
		return add_abort(a, "cannot enable IPv6 on the pair: %s", strerror(-err));
	if ((err = forwarding_enable(net)))
		return add_abort(a, "cannot enable forwarding in the host: %s", strerror(-err));
	for (size_t i = 0; i < net->n_ip; i++)
		if (rtnl_addr_add(a->pod, pod_if, &net->ip[i].addr, &e))
			return add_abort(a, "address on %s: %s", a->p->ifname, podnet_why(&e));
	if (rtnl_link_set_up(a->pod, pod_if, &e) || rtnl_link_set_up(a->host, host_if, &e))
		return add_abort(a, "cannot bring the pair up: %s", podnet_why(&e));
	for (int f = 0; f < 2; f++) {
		if (!(f ? net->has_gw6 : net->has_gw4))
			continue;
		gw_host = f ? net->gw6 : net->gw4;
		gw_host.plen = f ? 128 : 32;
		if (rtnl_addr_add(a->host, host_if, &gw_host, &e) ||
		    rtnl_route_add(a->pod, pod_if, &gw_host, NULL, &e))
			return add_abort(a, "gateway: %s", podnet_why(&e));
	}
	for (size_t i = 0; i < net->n_route; i++)
		if (rtnl_route_add(a->pod, pod_if, &net->route[i].dst,
				   net->route[i].has_gw ? &net->route[i].gw : NULL, &e))
			return add_abort(a, "route in the pod: %s", podnet_why(&e));
	for (size_t i = 0; i < net->n_ip; i++) {
		struct nk_ipnet host = net->ip[i].addr;

		host.plen = host.family == AF_INET ? 32 : 128;
		if (rtnl_route_add(a->host, host_if, &host, NULL, &e))
			return add_abort(a, "route to the pod: %s", podnet_why(&e));
	}
	return 0;
}

/* The host side's alias names the attachment (gc.c): GC finds it so. */
static int mark_attachment(struct add *a)
{
	char alias[512];
	int ifindex;

	struct nl_err e;

	a->host = podnet_open(-1);
	ifindex = a->host ? podnet_ifindex(a->host, a->p->host) : -1;
	if (attachment_alias(a->p, alias, sizeof(alias)) || ifindex < 0 ||
	    rtnl_link_set_alias(a->host, ifindex, alias, &e))
		return add_abort(a, "cannot mark %s with its attachment (its alias)", a->p->host);
	return 0;
}

static json_object *jstr(const struct nk_ipnet *n, bool with_plen)
{
	char buf[64];

	return json_object_new_string(ipnet_str(n, with_plen, buf, sizeof(buf)));
}

/* A result's interface: podman wants the hardware address of each; 1.1.0
 * has its MTU. */
static json_object *interface(const struct plugin *p, struct nl_sock *r, const char *name,
			      const char *sandbox)
{
	json_object *o = json_object_new_object();
	bool there;
	struct nk_link l;
	char mac[100];

	json_object_object_add(o, "name", json_object_new_string(name));
	there = podnet_link(r, name, &l) > 0;
	if (there && *podnet_mac(&l, mac, sizeof(mac)))
		json_object_object_add(o, "mac", json_object_new_string(mac));
	if (there && l.mtu && version_at_least_1_1(p->version))
		json_object_object_add(o, "mtu", json_object_new_int((int)l.mtu));
	if (sandbox)
		json_object_object_add(o, "sandbox", json_object_new_string(sandbox));
	return o;
}

/* A copy of prevResult's array key (a chain's earlier plugins), or a new one. */
static json_object *prev_array(const struct plugin *p, const char *key)
{
	json_object *prev, *v, *copy = NULL;

	if (json_object_object_get_ex(p->conf, "prevResult", &prev) &&
	    json_object_object_get_ex(prev, key, &v) && json_object_is_type(v, json_type_array))
		json_object_deep_copy(v, &copy, NULL);
	return copy ? copy : json_object_new_array();
}

static bool has_members(json_object *o)
{
	return json_object_is_type(o, json_type_object) && json_object_object_length(o) > 0;
}

/* The configuration's "dns" (as ptp), else IPAM's, else prevResult's. */
static json_object *result_dns(const struct plugin *p, json_object *ipam)
{
	json_object *prev, *dns;

	if (json_object_object_get_ex(p->conf, "dns", &dns) && has_members(dns))
		return json_object_get(dns);
	if (json_object_object_get_ex(ipam, "dns", &dns) && has_members(dns))
		return json_object_get(dns);
	if (json_object_object_get_ex(p->conf, "prevResult", &prev) &&
	    json_object_object_get_ex(prev, "dns", &dns) && has_members(dns))
		return json_object_get(dns);
	return json_object_new_object();
}

static json_object *result_ip(const struct plugin *p, const struct pod_ip *ip, int ifindex)
{
	json_object *o = json_object_new_object();

	if (version_before_1(p->version))
		json_object_object_add(o, "version",
				       json_object_new_string(ip->addr.family == AF_INET ? "4" : "6"));
	json_object_object_add(o, "interface", json_object_new_int(ifindex));
	json_object_object_add(o, "address", jstr(&ip->addr, true));
	if (ip->has_gw)
		json_object_object_add(o, "gateway", jstr(&ip->gw, false));
	return o;
}

/* Exactly what was configured, after what a chain's earlier plugins
 * returned (prevResult): the pair, the lease holder in the pod, every
 * address (on the pod's interface), every route, the DNS settings; in the
 * shape of the configuration's cniVersion. */
void print_result(const struct plugin *p, const struct pod_net *net, struct nl_sock *host,
		  struct nl_sock *pod, json_object *ipam)
{
	json_object *o = json_object_new_object(), *ifs = prev_array(p, "interfaces");
	json_object *ips = prev_array(p, "ips"), *routes = prev_array(p, "routes");
	int pod_index;

	json_object_array_add(ifs, interface(p, host, p->host, NULL));
	pod_index = (int)json_object_array_length(ifs);
	json_object_array_add(ifs, interface(p, pod, p->ifname, p->netns));
	if (p->queues)
		json_object_array_add(ifs, interface(p, pod, p->holder, p->netns));
	for (size_t i = 0; i < net->n_ip; i++)
		json_object_array_add(ips, result_ip(p, &net->ip[i], pod_index));
	for (size_t i = 0; i < net->n_route; i++) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "dst", jstr(&net->route[i].dst, true));
		if (net->route[i].has_gw)
			json_object_object_add(r, "gw", jstr(&net->route[i].gw, false));
		json_object_array_add(routes, r);
	}
	json_object_object_add(o, "cniVersion", json_object_new_string(p->version));
	json_object_object_add(o, "interfaces", ifs);
	json_object_object_add(o, "ips", ips);
	json_object_object_add(o, "routes", routes);
	json_object_object_add(o, "dns", result_dns(p, ipam));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/* ADD's steps after its checks; any failure has undone them (add_fail). */
static int add_steps(struct add *a, json_object **ipam)
{
	struct plugin *p = a->p;
	char why[768], dsts[512], prefixes[768];
	json_object *leases = NULL;
	int ret;

	if (ipam_start(p, "ADD", p->ipam_text, &a->ipam, why, sizeof(why)))
		return add_abort(a, "%s", why);
	if (nk_step(a, "link add", "link add %s peer %s peer-netns %s", p->host, p->ifname,
		    p->netns) || mark_attachment(a))
		return -1;
	if (p->queues && nk_step(a, "lease holder", "link add %s type single rxqueues %u",
				 p->holder, p->per_pod + 1))
		return -1;
	if (p->egress_redirect && nk_step(a, "redirect (pod egress)", "redirect attach dev %s to %s",
					  p->host, p->nic))
		return -1;
	if (collect_ipam(a, ipam))
		return -1;
	address_words(&a->net, dsts, sizeof(dsts), prefixes, sizeof(prefixes));
	if (p->queues && (ret = lease_from_pool(p, &a->s, dsts, &leases, why, sizeof(why))))
		return add_fail(a, ret == 4 ? CNI_ERR_TRY_LATER : CNI_ERR_STEP, "%s", why);
	ret = p->queues ? pod_info_write(p, leases, why, sizeof(why)) : 0;
	json_object_put(leases);
	if (ret)
		return add_abort(a, "pod information: %s", why);
	if (nk_step(a, "redirect (pod ingress)", "redirect attach dev %s to %s%s", p->nic, p->host,
		    prefixes) || configure(a))
		return -1;
	return 0;
}

/* The spec: an interface that exists in the container is an error (its
 * result is the runtime's to keep). A host side without it is what a killed
 * ADD left: start from nothing. */
static int add_fresh(struct add *a)
{
	struct plugin *p = a->p;
	char why[768];
	bool in_pod;

	a->pod = podnet_open(a->netns_fd);
	in_pod = a->pod && podnet_ifindex(a->pod, p->ifname) > 0;
	podnet_close(a->pod);
	a->pod = NULL;
	if (in_pod)
		return cni_error(p, CNI_ERR_STEP, "%s already exists in the container", p->ifname);
	a->host = podnet_open(-1);
	if (a->host && podnet_ifindex(a->host, p->host) > 0)
		teardown(p, &a->s, true, why, sizeof(why));
	podnet_close(a->host);
	a->host = NULL;
	return 0;
}

int cmd_add(struct plugin *p)
{
	struct add a = { .p = p, .netns_fd = -1 };
	json_object *ipam = NULL;
	int ret;

	if (p->netns && *p->netns)
		a.netns_fd = open(p->netns, O_RDONLY | O_CLOEXEC);
	if (a.netns_fd < 0)
		return cni_error(p, CNI_ERR_ENV, "CNI_NETNS is not set or does not exist");
	ret = nks_start(&a.s, p->nkctl, &p->locks);
	if (ret)
		ret = cni_error(p, CNI_ERR_STEP, "cannot run %s", p->nkctl);
	if (!ret)
		ret = add_fresh(&a);
	if (!ret)
		ret = add_steps(&a, &ipam);
	nks_end(&a.s);
	if (!ret)
		print_result(p, &a.net, a.host, a.pod, ipam);
	json_object_put(ipam);
	ipam_free(&a.ipam);
	podnet_close(a.host);
	podnet_close(a.pod);
	close(a.netns_fd);
	return ret;
}
