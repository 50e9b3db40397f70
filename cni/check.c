// SPDX-License-Identifier: GPL-2.0
/* CHECK: prevResult's interfaces of the plugin in their place with their
 * hardware addresses, every address and route of prevResult in the pod
 * (routes in any table: sbr moves them), the gateways on the host side and
 * routed to, the host's route to every pod address, the leases and
 * a steering rule per address on a leased queue RSS leaves alone, the NIC
 * route for every address, the egress redirect with egressRedirect; the
 * IPAM plugin's CHECK runs meanwhile. The first thing missing is the error. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "cni.h"
#include "ipam.h"
#include "ipconf.h"
#include "ipnet.h"
#include "jsondoc.h"
#include "nksession.h"
#include "nl.h"
#include "podnet.h"
#include "report.h"
#include "rtnl.h"

struct check {
	struct plugin *p;
	struct pod_net net;
	struct nk_session s;
	struct ipam_run ipam;
};

/* The first thing missing, CHECK's error: -1 (cmd_check ends the rest). */
static __attribute__((format(printf, 2, 3))) int check_fail(struct check *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cni_error(c->p, CNI_ERR_STEP, "%s", msg);
}

static bool is_true(json_object *o, const char *key)
{
	return json_object_get_boolean(doc_member(o, key));
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = doc_member(o, key);

	return v ? json_object_get_string(v) : "";
}

static bool same_addr(const char *s, const struct nk_ipnet *want, bool with_plen)
{
	struct nk_ipnet n;

	return !ipnet_parse(s, with_plen, &n) && ipnet_addr_eq(&n, want) &&
	       (!with_plen || n.plen == want->plen);
}

static struct nk_ipnet host_of(const struct nk_ipnet *a)
{
	struct nk_ipnet h = *a;

	h.plen = h.family == AF_INET ? 32 : 128;
	return h;
}

/* Where one of the plugin's devices lives: in the pod (true), in the host
 * (false); -1 for a name that is not the plugin's. */
static int own_device(const struct plugin *p, const char *name)
{
	if (!strcmp(name, p->ifname) || (p->queues && !strcmp(name, p->holder)))
		return 1;
	return strcmp(name, p->host) ? -1 : 0;
}

/* One of prevResult's interfaces: the plugin's in its place with its mac;
 * another plugin's (a chain's) is left to it. Is it the pod's interface? */
static int check_interface(const struct plugin *p, json_object *o, size_t i, link_mac_fn fn,
			   void *data, bool *pod_if, char *why, size_t len)
{
	json_object *name = doc_member(o, "name"), *sb = doc_member(o, "sandbox");
	json_object *mac = doc_member(o, "mac");
	const char *sandbox = sb ? json_object_get_string(sb) : "";
	char live[64];
	int in_pod;

	*pod_if = false;
	if (!json_object_is_type(name, json_type_string)) {
		snprintf(why, len, "interfaces[%zu] has no name", i);
		return -1;
	}
	in_pod = own_device(p, json_object_get_string(name));
	if (in_pod < 0)
		return 0;
	if (in_pod ? strcmp(sandbox, p->netns) : !!*sandbox) {
		snprintf(why, len, "interfaces[%zu] %s: sandbox \"%s\", not %s", i,
			 json_object_get_string(name), sandbox, in_pod ? p->netns : "the host's (none)");
		return -1;
	}
	if (!fn(json_object_get_string(name), in_pod, live, sizeof(live), data)) {
		snprintf(why, len, "%s is missing in the %s", json_object_get_string(name),
			 in_pod ? "container" : "host");
		return -1;
	}
	if (mac && strcasecmp(json_object_get_string(mac), live)) {
		snprintf(why, len, "%s's hardware address is %s, not %s", json_object_get_string(name),
			 *live ? live : "none", json_object_get_string(mac));
		return -1;
	}
	*pod_if = !strcmp(json_object_get_string(name), p->ifname);
	return 0;
}

int check_interfaces(const struct plugin *p, json_object *prev, link_mac_fn fn, void *data,
		     char *why, size_t len)
{
	json_object *ifs = doc_member(prev, "interfaces"), *ips = doc_member(prev, "ips");
	size_t n = doc_array_len(ifs);
	bool pod_if, *is_pod = calloc(n ? n : 1, sizeof(*is_pod)), seen = false;
	int ret = 0;

	if (!is_pod) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (size_t i = 0; !ret && i < n; i++) {
		ret = check_interface(p, doc_array_at(ifs, i), i, fn, data, &pod_if, why, len);
		is_pod[i] = pod_if;
		seen |= pod_if;
	}
	if (!ret && n && !seen) {
		snprintf(why, len, "interfaces names no %s in %s", p->ifname, p->netns);
		ret = -1;
	}
	for (size_t i = 0; !ret && i < doc_array_len(ips); i++) {
		json_object *idx = doc_member(doc_array_at(ips, i), "interface");
		int64_t k = idx ? json_object_get_int64(idx) : 0;

		if (idx && (!json_object_is_type(idx, json_type_int) || k < 0 || (size_t)k >= n ||
			    !is_pod[k])) {
			snprintf(why, len, "ips[%zu] names interface %s, not %s in the container", i,
				 json_object_get_string(idx), p->ifname);
			ret = -1;
		}
	}
	free(is_pod);
	return ret;
}

/* check_interfaces' view of the kernel: rtnl in the pod and the host. */
struct live_links {
	struct nl_sock *pod, *host;
};

static bool live_mac(const char *ifname, bool in_pod, char *mac, size_t len, void *data)
{
	struct live_links *l = data;
	struct nk_link link;

	if (podnet_link(in_pod ? l->pod : l->host, ifname, &link) <= 0)
		return false;
	podnet_mac(&link, mac, len);
	return true;
}

/* Is a on ifindex? A failure to read the addresses fails CHECK itself. */
static bool pod_has_addr(struct check *c, struct nl_sock *r, int ifindex, const struct nk_ipnet *a)
{
	struct nl_err e;
	bool has = rtnl_addr_has(r, ifindex, a, &e);

	if (e.code)
		check_fail(c, "cannot read the addresses: %s", podnet_why(&e));
	return has;
}

static bool pod_has_route(struct check *c, struct nl_sock *r, int ifindex,
			  const struct nk_ipnet *dst, const struct nk_ipnet *gw)
{
	struct nl_err e;
	bool has = rtnl_route_has(r, ifindex, dst, gw, &e);

	if (e.code)
		check_fail(c, "cannot read the routes: %s", podnet_why(&e));
	return has;
}

static int check_pod(struct check *c, struct nl_sock *r, int ifindex)
{
	const struct pod_net *net = &c->net;
	char buf[64];

	for (size_t i = 0; i < net->n_ip; i++)
		if (!pod_has_addr(c, r, ifindex, &net->ip[i].addr))
			return check_fail(c, "%s does not have %s", c->p->ifname,
				   ipnet_str(&net->ip[i].addr, true, buf, sizeof(buf)));
	for (size_t i = 0; i < net->n_route; i++)
		if (!pod_has_route(c, r, ifindex, &net->route[i].dst,
			       net->route[i].has_gw ? &net->route[i].gw : NULL))
			return check_fail(c, "the container has no route to %s",
				   ipnet_str(&net->route[i].dst, true, buf, sizeof(buf)));
	return 0;
}

/* Each family's gateway: on the host side, and routed to in the pod. */
static int check_gateways(struct check *c, struct nl_sock *pod, int pod_if, struct nl_sock *host,
			   int host_if)
{
	char buf[64];

	for (int f = 0; f < 2; f++) {
		struct nk_ipnet gw;

		if (!(f ? c->net.has_gw6 : c->net.has_gw4))
			continue;
		gw = host_of(f ? &c->net.gw6 : &c->net.gw4);
		ipnet_str(&gw, false, buf, sizeof(buf));
		if (!pod_has_addr(c, host, host_if, &gw))
			return check_fail(c, "the host side %s does not hold the gateway %s", c->p->host, buf);
		if (!pod_has_route(c, pod, pod_if, &gw, NULL))
			return check_fail(c, "the container has no route to its gateway %s", buf);
	}
	return 0;
}

/* The host's route to every pod address through the host side. */
static int check_host_routes(struct check *c, struct nl_sock *host, int host_if)
{
	char buf[64];

	for (size_t i = 0; i < c->net.n_ip; i++) {
		struct nk_ipnet h = host_of(&c->net.ip[i].addr);

		if (!pod_has_route(c, host, host_if, &h, NULL))
			return check_fail(c, "the host has no route to %s through %s",
				   ipnet_str(&h, false, buf, sizeof(buf)), c->p->host);
	}
	return 0;
}

/* The kernel's side: prevResult's interfaces, the pod's addresses, routes
 * and gateways, the host side's gateway addresses and routes. */
static int check_links_in(struct check *c, json_object *prev, struct live_links *l)
{
	int pod_if = l->pod ? podnet_ifindex(l->pod, c->p->ifname) : -1;
	int host_if = l->host ? podnet_ifindex(l->host, c->p->host) : -1;
	char why[512];

	if (pod_if < 0)
		return check_fail(c, "%s is missing in the container", c->p->ifname);
	if (host_if < 0)
		return check_fail(c, "the host side %s is missing", c->p->host);
	if (check_interfaces(c->p, prev, live_mac, l, why, sizeof(why)))
		return check_fail(c, "prevResult: %s", why);
	if (check_pod(c, l->pod, pod_if) || check_gateways(c, l->pod, pod_if, l->host, host_if))
		return -1;
	return check_host_routes(c, l->host, host_if);
}

static int check_links(struct check *c, json_object *prev)
{
	int fd = open(c->p->netns, O_RDONLY | O_CLOEXEC);
	struct live_links l = { fd >= 0 ? podnet_open(fd) : NULL, podnet_open(-1) };
	int ret = check_links_in(c, prev, &l);

	if (fd >= 0)
		close(fd);
	podnet_close(l.pod);
	podnet_close(l.host);
	return ret;
}

/* A lease of the NIC (in this namespace) whose holder is the pod's. */
static bool is_ours(const char *nic, const char *holder, json_object *l)
{
	return !strcmp(str(l, "ifname"), nic) && !doc_member(l, "netns") &&
	       !strcmp(str(doc_member(l, "lease"), "ifname"), holder);
}

/* Is queue q one of the pod's leases? */
static bool pod_holds(const char *nic, const char *holder, json_object *leases, int q)
{
	for (size_t i = 0; i < doc_array_len(leases); i++) {
		json_object *l = doc_array_at(leases, i);

		if (is_ours(nic, holder, l) && json_object_get_int(doc_member(l, "id")) == q)
			return true;
	}
	return false;
}

/* Does RSS context ctx of the NIC (nics: nic show dev NIC) spread over the
 * pod's leased queues only? A multi-queue lease steers into its own
 * context, whose table names its queues. false with why. */
static bool context_is_pods(const char *nic, const char *holder, json_object *leases,
			    json_object *nics, int64_t ctx, char *why, size_t len)
{
	json_object *n = doc_array_at(doc_member(nics, "nics"), 0);
	json_object *contexts = doc_member(n, "rss-contexts");

	for (size_t i = 0; i < doc_array_len(contexts); i++) {
		json_object *c = doc_array_at(contexts, i), *qs = doc_member(c, "queues");

		if (json_object_get_int64(doc_member(c, "context")) != ctx)
			continue;
		if (!doc_array_len(qs)) {
			snprintf(why, len, "RSS context %lld of %s names no queue", (long long)ctx, nic);
			return false;
		}
		for (size_t k = 0; k < doc_array_len(qs); k++) {
			int q = json_object_get_int(doc_array_at(qs, k));

			if (!pod_holds(nic, holder, leases, q)) {
				snprintf(why, len, "RSS context %lld of %s spreads over queue %d, not a leased one",
					 (long long)ctx, nic, q);
				return false;
			}
		}
		return true;
	}
	snprintf(why, len, "%s has no RSS context %lld", nic, (long long)ctx);
	return false;
}

/* Is rule (of one of the pod's leases, queue id) good for want? false with
 * why when it names want but sends it elsewhere. */
static bool rule_steers(const char *nic, const char *holder, json_object *leases,
			json_object *nics, json_object *rule, int id, char *why, size_t len)
{
	json_object *ctx = doc_member(rule, "context");
	int q = json_object_get_int(doc_member(rule, "queue"));
	char inner[256];

	if (ctx) {
		if (context_is_pods(nic, holder, leases, nics, json_object_get_int64(ctx), inner,
				    sizeof(inner)))
			return true;
		snprintf(why, len, "rule %d into RSS context %lld: %s",
			 json_object_get_int(doc_member(rule, "id")),
			 (long long)json_object_get_int64(ctx), inner);
		return false;
	}
	if (q == id)
		return true;
	snprintf(why, len, "rule %d sends it to queue %d, not the leased %d",
		 json_object_get_int(doc_member(rule, "id")), q, id);
	return false;
}

/* A rule of one of the pod's leases sending want to that lease's queue, or
 * into an RSS context over the pod's queues (nics: nkctl nic show dev NIC,
 * may be NULL where no lease has a context). false with why. */
bool check_steered(const char *nic, const char *holder, json_object *leases, json_object *nics,
		   const struct nk_ipnet *want, char *why, size_t len)
{
	snprintf(why, len, "no rule of the pod's leases names it");
	for (size_t i = 0; i < doc_array_len(leases); i++) {
		json_object *l = doc_array_at(leases, i), *rules = doc_member(l, "rules");
		int id = json_object_get_int(doc_member(l, "id"));

		for (size_t j = 0; is_ours(nic, holder, l) && j < doc_array_len(rules); j++) {
			json_object *rule = doc_array_at(rules, j);

			if (same_addr(str(rule, "dst"), want, false) &&
			    rule_steers(nic, holder, leases, nics, rule, id, why, len))
				return true;
		}
	}
	return false;
}

/* The holder's leases of the NIC: enough of them, out of RSS, and a rule
 * for every address on one of them (or on their RSS context). */
static int check_leases(struct check *c, json_object *doc)
{
	json_object *leases = doc_member(doc, "leases"), *nics = NULL;
	unsigned int n = 0;
	char buf[64], why[512];

	for (size_t i = 0; i < doc_array_len(leases); i++) {
		json_object *l = doc_array_at(leases, i);

		if (!is_ours(c->p->nic, c->p->holder, l))
			continue;
		/* nkctl's judgement, not ours: a lease recorded on a NIC it
		 * cannot see is neither there nor gone */
		if (doc_member(l, "seen") && !is_true(l, "seen"))
			return check_fail(c, "the lease of %s queue %d cannot be seen now (the NIC is %s): whether it lives cannot be read; bring %s up and check again",
					  c->p->nic, json_object_get_int(doc_member(l, "id")),
					  str(l, "nic-state"), c->p->nic);
		n++;
		if (c->p->steer && is_true(l, "rss"))
			return check_fail(c, "RSS of %s still uses the leased queue %d", c->p->nic,
					  json_object_get_int(doc_member(l, "id")));
	}
	if (n < c->p->per_pod)
		return check_fail(c, "the container holds %u leases of %s, not %u", n, c->p->nic,
				  c->p->per_pod);
	if (c->p->steer && c->p->per_pod > 1 && nks_run(&c->s, &nics, "nic show dev %s", c->p->nic))
		return check_fail(c, "nic show: %s", c->s.err);
	for (size_t a = 0; c->p->steer && a < c->net.n_ip; a++)
		if (!check_steered(c->p->nic, c->p->holder, leases, nics, &c->net.ip[a].addr, why,
				   sizeof(why))) {
			json_object_put(nics);
			return check_fail(c, "%s does not steer %s to a leased queue: %s", c->p->nic,
					  ipnet_str(&c->net.ip[a].addr, false, buf, sizeof(buf)), why);
		}
	json_object_put(nics);
	return 0;
}

/* A live route of one of doc's redirects to target, with every prefix. */
static bool has_route(json_object *doc, const char *target, const struct nk_ipnet *want)
{
	json_object *redirects = doc_member(doc, "redirects");

	for (size_t i = 0; i < doc_array_len(redirects); i++) {
		json_object *rd = doc_array_at(redirects, i), *routes;

		if (is_true(rd, "defunct"))
			continue;
		routes = doc_member(rd, "routes");
		for (size_t j = 0; j < doc_array_len(routes); j++) {
			json_object *rt = doc_array_at(routes, j), *pfx;
			bool found = !want;

			if (is_true(rt, "defunct") || strcmp(str(doc_member(rt, "target"), "ifname"), target))
				continue;
			pfx = doc_member(rt, "prefixes");
			for (size_t k = 0; want && k < doc_array_len(pfx); k++)
				found |= same_addr(json_object_get_string(doc_array_at(pfx, k)),
						   want, true);
			if (found)
				return true;
		}
	}
	return false;
}

/* The ingress routes: every pod address routed to the host side. */
static int check_ingress(struct check *c, json_object *ingress)
{
	char buf[64];

	for (size_t i = 0; i < c->net.n_ip; i++) {
		struct nk_ipnet h = host_of(&c->net.ip[i].addr);

		if (!has_route(ingress, c->p->host, &h))
			return check_fail(c, "%s does not route %s to %s", c->p->nic,
					  ipnet_str(&h, false, buf, sizeof(buf)), c->p->host);
	}
	return 0;
}

static int check_nk(struct check *c)
{
	json_object *doc = NULL;
	int ret;

	if (nks_run(&c->s, NULL, "link show %s", c->p->host))
		return check_fail(c, "the host side %s is missing", c->p->host);
	if (c->p->queues) {
		ret = nks_run(&c->s, &doc, "show leases") ?
		      check_fail(c, "show leases: %s", c->s.err) : check_leases(c, doc);
		json_object_put(doc);
		doc = NULL;
		if (ret)
			return ret;
	}
	if (c->p->egress_redirect) {
		ret = nks_run(&c->s, &doc, "redirect show dev %s", c->p->host) ||
		      !has_route(doc, c->p->nic, NULL);
		json_object_put(doc);
		doc = NULL;
		if (ret)
			return check_fail(c, "the egress redirect of %s to %s is missing", c->p->host,
					  c->p->nic);
	}
	ret = nks_run(&c->s, &doc, "redirect show dev %s", c->p->nic) ?
	      check_fail(c, "%s has no routes: %s", c->p->nic, c->s.err) : check_ingress(c, doc);
	json_object_put(doc);
	return ret;
}

/* The IPAM plugin's CHECK runs while the rest is checked. */
static int check_all(struct check *c, json_object *prev)
{
	char why[512];
	int ret;

	if (nks_start(&c->s, c->p->nkctl, &c->p->locks))
		return cni_error(c->p, CNI_ERR_STEP, "cannot run %s", c->p->nkctl);
	if (ipam_start(c->p, "CHECK", c->p->ipam_text, &c->ipam, why, sizeof(why)))
		return check_fail(c, "%s", why);
	ret = check_links(c, prev);
	if (!ret)
		ret = check_nk(c);
	if (ipam_finish(&c->ipam) && !ret) {
		int code = ipam_error(&c->ipam, why, sizeof(why));

		ret = cni_error(c->p, code, "IPAM CHECK: %s", why);
	}
	return ret;
}

int cmd_check(struct plugin *p)
{
	struct check c = { .p = p };
	json_object *prev;
	char why[512];
	int ret;

	if (!p->netns || access(p->netns, F_OK))
		return cni_error(p, CNI_ERR_ENV, "CNI_NETNS is not set or does not exist");
	if (!json_object_object_get_ex(p->conf, "prevResult", &prev))
		return cni_error(p, CNI_ERR_CONFIG, "CHECK needs prevResult");
	if (pod_net_parse(prev, &c.net, why, sizeof(why)))
		return cni_error(p, CNI_ERR_CONFIG, "prevResult: %s", why);
	ret = check_all(&c, prev);
	ipam_finish(&c.ipam);   /* after a failure, still running: reaped */
	ipam_free(&c.ipam);
	nks_end(&c.s);
	return ret;
}
