// SPDX-License-Identifier: GPL-2.0
/* CHECK: every address and route of prevResult in the pod, the leases and
 * a steering rule per address on a leased queue RSS leaves alone, the NIC
 * route for every address, the egress redirect with egressRedirect; the
 * IPAM plugin's CHECK runs meanwhile. The first thing missing is the error. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cni.h"

struct check {
	struct plugin *p;
	struct pod_net net;
	struct nk_session s;
	struct ipam_run ipam;
};

static _Noreturn __attribute__((format(printf, 2, 3))) void check_fail(struct check *c,
								     const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->ipam.started)
		ipam_finish(&c->ipam);
	nks_end(&c->s);
	cni_fail(c->p, CNI_ERR_STEP, "%s", msg);
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

static bool same_addr(const char *s, const struct ipnet *want, bool with_plen)
{
	struct ipnet n;

	return !ipnet_parse(s, with_plen, &n) && ipnet_addr_eq(&n, want) &&
	       (!with_plen || n.plen == want->plen);
}

static struct ipnet host_of(const struct ipnet *a)
{
	struct ipnet h = *a;

	h.plen = h.family == AF_INET ? 32 : 128;
	return h;
}

static void check_pod(struct check *c)
{
	const struct pod_net *net = &c->net;
	int fd = open(c->p->netns, O_RDONLY | O_CLOEXEC);
	struct rtnl *r = fd >= 0 ? rtnl_open_in(fd) : NULL;
	int ifindex = r ? rtnl_ifindex(r, c->p->ifname) : -1;
	char buf[64];

	if (fd >= 0)
		close(fd);
	if (ifindex < 0)
		check_fail(c, "%s is missing in the container", c->p->ifname);
	for (size_t i = 0; i < net->n_ip; i++)
		if (!rtnl_has_addr(r, ifindex, &net->ip[i].addr))
			check_fail(c, "%s does not have %s", c->p->ifname,
				   ipnet_str(&net->ip[i].addr, true, buf, sizeof(buf)));
	for (size_t i = 0; i < net->n_route; i++)
		if (!rtnl_has_route(r, ifindex, &net->route[i].dst,
				    net->route[i].has_gw ? &net->route[i].gw : NULL))
			check_fail(c, "the container has no route to %s",
				   ipnet_str(&net->route[i].dst, true, buf, sizeof(buf)));
	rtnl_close(r);
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
 * context, whose table names its queues. */
static bool context_is_pods(const char *nic, const char *holder, json_object *leases,
			    json_object *nics, int64_t ctx)
{
	json_object *n = doc_array_at(doc_member(nics, "nics"), 0);
	json_object *contexts = doc_member(n, "rss-contexts");

	for (size_t i = 0; i < doc_array_len(contexts); i++) {
		json_object *c = doc_array_at(contexts, i), *qs = doc_member(c, "queues");
		bool all = doc_array_len(qs) > 0;

		if (json_object_get_int64(doc_member(c, "context")) != ctx)
			continue;
		for (size_t k = 0; k < doc_array_len(qs); k++)
			all &= pod_holds(nic, holder, leases,
					 json_object_get_int(doc_array_at(qs, k)));
		return all;
	}
	return false;
}

/* A rule of one of the pod's leases sending want to that lease's queue, or
 * into an RSS context over the pod's queues (nics: nkctl nic show dev NIC,
 * may be NULL where no lease has a context). */
bool check_steered(const char *nic, const char *holder, json_object *leases, json_object *nics,
		   const struct ipnet *want)
{
	for (size_t i = 0; i < doc_array_len(leases); i++) {
		json_object *l = doc_array_at(leases, i), *rules = doc_member(l, "rules");
		int id = json_object_get_int(doc_member(l, "id"));

		for (size_t j = 0; is_ours(nic, holder, l) && j < doc_array_len(rules); j++) {
			json_object *rule = doc_array_at(rules, j), *ctx = doc_member(rule, "context");

			if (!same_addr(str(rule, "dst"), want, false))
				continue;
			if (ctx ? context_is_pods(nic, holder, leases, nics, json_object_get_int64(ctx)) :
				  json_object_get_int(doc_member(rule, "queue")) == id)
				return true;
		}
	}
	return false;
}

/* The holder's leases of the NIC: enough of them, out of RSS, and a rule
 * for every address on one of them (or on their RSS context). */
static void check_leases(struct check *c, json_object *doc)
{
	json_object *leases = doc_member(doc, "leases"), *nics = NULL;
	unsigned int n = 0;
	char buf[64];

	for (size_t i = 0; i < doc_array_len(leases); i++) {
		json_object *l = doc_array_at(leases, i);

		if (!is_ours(c->p->nic, c->p->holder, l))
			continue;
		n++;
		if (c->p->steer && is_true(l, "rss"))
			check_fail(c, "RSS of %s still uses the leased queue %d", c->p->nic,
				   json_object_get_int(doc_member(l, "id")));
	}
	if (n < c->p->per_pod)
		check_fail(c, "the container holds %u leases of %s, not %u", n, c->p->nic,
			   c->p->per_pod);
	if (c->p->steer && c->p->per_pod > 1 && nks_run(&c->s, &nics, "nic show dev %s", c->p->nic))
		check_fail(c, "nic show: %s", c->s.err);
	for (size_t a = 0; c->p->steer && a < c->net.n_ip; a++)
		if (!check_steered(c->p->nic, c->p->holder, leases, nics, &c->net.ip[a].addr)) {
			json_object_put(nics);
			check_fail(c, "%s does not steer %s to a leased queue", c->p->nic,
				   ipnet_str(&c->net.ip[a].addr, false, buf, sizeof(buf)));
		}
	json_object_put(nics);
}

/* A live route of one of doc's redirects to target, with every prefix. */
static bool has_route(json_object *doc, const char *target, const struct ipnet *want)
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

static void check_nk(struct check *c)
{
	json_object *leases = NULL, *egress = NULL, *ingress = NULL;
	char buf[64];

	if (nks_run(&c->s, NULL, "link show %s", c->p->host))
		check_fail(c, "the host side %s is missing", c->p->host);
	if (c->p->queues) {
		if (nks_run(&c->s, &leases, "show leases"))
			check_fail(c, "show leases: %s", c->s.err);
		check_leases(c, leases);
		json_object_put(leases);
	}
	if (c->p->egress_redirect && (nks_run(&c->s, &egress, "redirect show dev %s", c->p->host) ||
				      !has_route(egress, c->p->nic, NULL)))
		check_fail(c, "the egress redirect of %s to %s is missing", c->p->host, c->p->nic);
	if (nks_run(&c->s, &ingress, "redirect show dev %s", c->p->nic))
		check_fail(c, "%s has no routes: %s", c->p->nic, c->s.err);
	for (size_t i = 0; i < c->net.n_ip; i++) {
		struct ipnet h = host_of(&c->net.ip[i].addr);

		if (!has_route(ingress, c->p->host, &h))
			check_fail(c, "%s does not route %s to %s", c->p->nic,
				   ipnet_str(&h, false, buf, sizeof(buf)), c->p->host);
	}
	json_object_put(egress);
	json_object_put(ingress);
}

int cmd_check(struct plugin *p)
{
	struct check c = { .p = p };
	json_object *prev;
	char why[512];

	if (!p->netns || access(p->netns, F_OK))
		cni_fail(p, CNI_ERR_ENV, "CNI_NETNS is not set or does not exist");
	if (!json_object_object_get_ex(p->conf, "prevResult", &prev))
		cni_fail(p, CNI_ERR_CONFIG, "CHECK needs prevResult");
	if (pod_net_parse(prev, &c.net, why, sizeof(why)))
		cni_fail(p, CNI_ERR_CONFIG, "prevResult: %s", why);
	if (nks_start(&c.s, p->nkctl))
		cni_fail(p, CNI_ERR_STEP, "cannot run %s", p->nkctl);
	if (ipam_start(p, "CHECK", p->ipam_text, &c.ipam, why, sizeof(why)))
		check_fail(&c, "%s", why);
	check_pod(&c);
	check_nk(&c);
	if (ipam_finish(&c.ipam)) {
		int code = ipam_error(&c.ipam, why, sizeof(why));

		nks_end(&c.s);
		cni_fail(p, code, "IPAM CHECK: %s", why);
	}
	ipam_free(&c.ipam);
	nks_end(&c.s);
	return 0;
}
