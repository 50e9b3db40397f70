// SPDX-License-Identifier: GPL-2.0
/* ADD: IPAM runs while nkctl makes the pair, the holder and the egress
 * redirect; then the lease with a steering rule per address, the NIC route
 * for every address, the addresses and routes over rtnetlink, the result.
 * Any failure undoes everything (teardown) before the error object. */
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cni.h"

struct add {
	struct plugin *p;
	struct nk_session s;
	struct ipam_run ipam;
	bool ipam_added;
	struct pod_net net;
	int netns_fd;
	struct rtnl *host, *pod;
};

static _Noreturn __attribute__((format(printf, 2, 3))) void add_abort(struct add *a, const char *fmt,
								   ...)
{
	char msg[768], why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->ipam.started)
		ipam_finish(&a->ipam);
	teardown(a->p, &a->s, a->ipam_added, why, sizeof(why));
	nks_end(&a->s);
	cni_fail(a->p, CNI_ERR_STEP, "%s", msg);
}

static __attribute__((format(printf, 3, 4))) void nk_step(struct add *a, const char *what,
							     const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (nks_run(&a->s, NULL, "%s", line))
		add_abort(a, "%s: %s", what, a->s.err);
}

/* IPAM's answer: every address, each family's gateway, its routes with the
 * family's gateway where they name none, and a default route per family. */
static void collect_ipam(struct add *a, json_object **result)
{
	struct pod_net *net = &a->net;
	char why[512], ignored[768];
	int code;

	a->ipam_added = true; /* even a failed ADD may have reserved: DEL it */
	if (ipam_finish(&a->ipam)) {
		code = ipam_error(&a->ipam, why, sizeof(why));
		teardown(a->p, &a->s, true, ignored, sizeof(ignored));
		nks_end(&a->s);
		cni_fail(a->p, code, "IPAM: %s", why);
	}
	*result = json_tokener_parse(a->ipam.out);
	if (pod_net_parse(*result, net, why, sizeof(why)))
		add_abort(a, "%s", why);
	for (size_t i = 0; i < net->n_ip; i++) {
		int f = net->ip[i].addr.family;

		if ((f == AF_INET && !net->has_gw4) || (f == AF_INET6 && !net->has_gw6))
			add_abort(a, "IPAM returned no %s gateway (the host side's address)",
				  f == AF_INET ? "IPv4" : "IPv6");
	}
	pod_net_routes(net);
}

void pod_net_routes(struct pod_net *net)
{
	for (size_t i = 0; i < net->n_route; i++) {
		struct pod_route *r = &net->route[i];

		if (!r->has_gw && (r->dst.family == AF_INET ? net->has_gw4 : net->has_gw6)) {
			r->gw = r->dst.family == AF_INET ? net->gw4 : net->gw6;
			r->has_gw = true;
		}
	}
	for (int f = 0; f < 2; f++) {
		struct pod_route def = { .dst = { .family = f ? AF_INET6 : AF_INET } };
		bool have = f ? net->has_gw6 : net->has_gw4;

		for (size_t i = 0; have && i < net->n_route; i++)
			if (net->route[i].dst.family == def.dst.family && net->route[i].dst.plen == 0)
				have = false;
		if (!have || net->n_route == CNI_MAX_ROUTES)
			continue;
		def.gw = f ? net->gw6 : net->gw4;
		def.has_gw = true;
		net->route[net->n_route++] = def;
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
		struct ipnet host = net->ip[i].addr;

		host.plen = host.family == AF_INET ? 32 : 128;
		d += (size_t)snprintf(dsts + d, dlen - d, "%s%s", i ? "," : "",
				      ipnet_str(&host, false, buf, sizeof(buf)));
		q += (size_t)snprintf(prefixes + q, plen - q, " prefix %s",
				      ipnet_str(&host, true, buf, sizeof(buf)));
	}
}

/* The holder into the pod; the pod's addresses, link and routes; the host
 * side's gateway addresses and a route to each pod address. */
static void configure(struct add *a)
{
	struct pod_net *net = &a->net;
	int pod_if, host_if, holder_if, err;
	struct ipnet gw_host;

	a->host = rtnl_open_in(-1);
	a->pod = rtnl_open_in(a->netns_fd);
	if (!a->host || !a->pod)
		add_abort(a, "cannot open rtnetlink in the host or the pod");
	if (a->p->queues) {
		holder_if = rtnl_ifindex(a->host, a->p->holder);
		if (holder_if < 0 || rtnl_link_move(a->host, holder_if, a->netns_fd))
			add_abort(a, "cannot move the lease holder %s into the pod", a->p->holder);
	}
	pod_if = rtnl_ifindex(a->pod, a->p->ifname);
	host_if = rtnl_ifindex(a->host, a->p->host);
	if (pod_if < 0 || host_if < 0)
		add_abort(a, "the pair %s/%s is gone", a->p->host, a->p->ifname);
	for (size_t i = 0; i < net->n_ip; i++)
		if ((err = rtnl_addr_add(a->pod, pod_if, &net->ip[i].addr)))
			add_abort(a, "address on %s: %s", a->p->ifname, strerror(-err));
	if (rtnl_link_up(a->pod, pod_if) || rtnl_link_up(a->host, host_if))
		add_abort(a, "cannot bring the pair up");
	for (int f = 0; f < 2; f++) {
		if (!(f ? net->has_gw6 : net->has_gw4))
			continue;
		gw_host = f ? net->gw6 : net->gw4;
		gw_host.plen = f ? 128 : 32;
		if ((err = rtnl_addr_add(a->host, host_if, &gw_host)) ||
		    (err = rtnl_route_add(a->pod, pod_if, &gw_host, NULL)))
			add_abort(a, "gateway: %s", strerror(-err));
	}
	for (size_t i = 0; i < net->n_route; i++)
		if ((err = rtnl_route_add(a->pod, pod_if, &net->route[i].dst,
					  net->route[i].has_gw ? &net->route[i].gw : NULL)))
			add_abort(a, "route in the pod: %s", strerror(-err));
	for (size_t i = 0; i < net->n_ip; i++) {
		struct ipnet host = net->ip[i].addr;

		host.plen = host.family == AF_INET ? 32 : 128;
		if ((err = rtnl_route_add(a->host, host_if, &host, NULL)))
			add_abort(a, "route to the pod: %s", strerror(-err));
	}
}

static json_object *jstr(const struct ipnet *n, bool with_plen)
{
	char buf[64];

	return json_object_new_string(ipnet_str(n, with_plen, buf, sizeof(buf)));
}

/* A result's interface: podman wants the hardware address of each. */
static json_object *interface(struct rtnl *r, const char *name, const char *sandbox)
{
	json_object *o = json_object_new_object();
	char mac[64];

	json_object_object_add(o, "name", json_object_new_string(name));
	if (rtnl_link_get(r, name, mac, sizeof(mac)) > 0 && *mac)
		json_object_object_add(o, "mac", json_object_new_string(mac));
	if (sandbox)
		json_object_object_add(o, "sandbox", json_object_new_string(sandbox));
	return o;
}

/* Exactly what was configured: the pair, every address, every route. */
void print_result(const struct plugin *p, const struct pod_net *net, struct rtnl *host,
		  struct rtnl *pod, json_object *ipam)
{
	json_object *o = json_object_new_object(), *ifs = json_object_new_array();
	json_object *ips = json_object_new_array(), *routes = json_object_new_array(), *dns;

	json_object_array_add(ifs, interface(host, p->host, NULL));
	json_object_array_add(ifs, interface(pod, p->ifname, p->netns));
	for (size_t i = 0; i < net->n_ip; i++) {
		json_object *ip = json_object_new_object();

		json_object_object_add(ip, "interface", json_object_new_int(1));
		json_object_object_add(ip, "address", jstr(&net->ip[i].addr, true));
		if (net->ip[i].has_gw)
			json_object_object_add(ip, "gateway", jstr(&net->ip[i].gw, false));
		json_object_array_add(ips, ip);
	}
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
	if (json_object_object_get_ex(ipam, "dns", &dns))
		json_object_object_add(o, "dns", json_object_get(dns));
	else
		json_object_object_add(o, "dns", json_object_new_object());
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

int cmd_add(struct plugin *p)
{
	struct add a = { .p = p, .netns_fd = -1 };
	char why[768], dsts[512], prefixes[768];
	json_object *ipam = NULL;

	if (p->netns && *p->netns)
		a.netns_fd = open(p->netns, O_RDONLY | O_CLOEXEC);
	if (a.netns_fd < 0)
		cni_fail(p, CNI_ERR_ENV, "CNI_NETNS is not set or does not exist");
	if (nks_start(&a.s, p->nkctl))
		cni_fail(p, CNI_ERR_STEP, "cannot run %s", p->nkctl);
	/* ADD again for the same container: start from nothing. */
	a.host = rtnl_open_in(-1);
	if (a.host && rtnl_ifindex(a.host, p->host) > 0)
		teardown(p, &a.s, true, why, sizeof(why));
	rtnl_close(a.host);
	a.host = NULL;
	if (ipam_start(p, "ADD", p->conf_text, &a.ipam, why, sizeof(why)))
		add_abort(&a, "%s", why);
	nk_step(&a, "link add", "link add %s peer %s peer-netns %s", p->host, p->ifname, p->netns);
	if (p->queues)
		nk_step(&a, "lease holder", "link add %s type single rxqueues %u", p->holder,
			p->per_pod + 1);
	nk_step(&a, "redirect (pod egress)", "redirect attach dev %s to %s", p->host, p->nic);
	collect_ipam(&a, &ipam);
	address_words(&a.net, dsts, sizeof(dsts), prefixes, sizeof(prefixes));
	if (p->queues && lease_from_pool(p, &a.s, dsts, why, sizeof(why)))
		add_abort(&a, "%s", why);
	nk_step(&a, "redirect (pod ingress)", "redirect attach dev %s to %s%s", p->nic, p->host,
		prefixes);
	configure(&a);
	nks_end(&a.s);
	print_result(p, &a.net, a.host, a.pod, ipam);
	json_object_put(ipam);
	ipam_free(&a.ipam);
	rtnl_close(a.host);
	rtnl_close(a.pod);
	close(a.netns_fd);
	return 0;
}
