// SPDX-License-Identifier: GPL-2.0
/* CHECK: every address and route of prevResult in the pod, the leases and
 * a steering rule per address on a leased queue RSS leaves alone, the NIC
 * route for every address, the egress redirect; the IPAM plugin's CHECK
 * runs meanwhile. The first thing missing is the error. */
#include <fcntl.h>
#include <stdarg.h>
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

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static bool is_true(json_object *o, const char *key)
{
	return json_object_get_boolean(member(o, key));
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = member(o, key);

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
static bool is_ours(const struct check *c, json_object *l)
{
	return !strcmp(str(l, "ifname"), c->p->nic) && !member(l, "netns") &&
	       !strcmp(str(member(l, "lease"), "ifname"), c->p->holder);
}

/* A rule of one of the pod's leases sending want to that lease's queue. */
static bool steered(const struct check *c, json_object *leases, const struct ipnet *want)
{
	for (size_t i = 0; i < json_object_array_length(leases); i++) {
		json_object *l = json_object_array_get_idx(leases, i), *rules = member(l, "rules");
		int id = json_object_get_int(member(l, "id"));

		for (size_t j = 0; is_ours(c, l) && j < json_object_array_length(rules); j++) {
			json_object *rule = json_object_array_get_idx(rules, j);

			if (same_addr(str(rule, "dst"), want, false) &&
			    json_object_get_int(member(rule, "queue")) == id)
				return true;
		}
	}
	return false;
}

/* The holder's leases of the NIC: enough of them, out of RSS, and a rule
 * for every address on one of them. */
static void check_leases(struct check *c, json_object *doc)
{
	json_object *leases = member(doc, "leases");
	unsigned int n = 0;
	char buf[64];

	for (size_t i = 0; i < json_object_array_length(leases); i++) {
		json_object *l = json_object_array_get_idx(leases, i);

		if (!is_ours(c, l))
			continue;
		n++;
		if (c->p->steer && is_true(l, "rss"))
			check_fail(c, "RSS of %s still uses the leased queue %d", c->p->nic,
				   json_object_get_int(member(l, "id")));
	}
	if (n < c->p->per_pod)
		check_fail(c, "the container holds %u leases of %s, not %u", n, c->p->nic,
			   c->p->per_pod);
	for (size_t a = 0; c->p->steer && a < c->net.n_ip; a++)
		if (!steered(c, leases, &c->net.ip[a].addr))
			check_fail(c, "%s does not steer %s to a leased queue", c->p->nic,
				   ipnet_str(&c->net.ip[a].addr, false, buf, sizeof(buf)));
}

/* A live route of one of doc's redirects to target, with every prefix. */
static bool has_route(json_object *doc, const char *target, const struct ipnet *want)
{
	json_object *redirects = member(doc, "redirects");

	for (size_t i = 0; i < json_object_array_length(redirects); i++) {
		json_object *rd = json_object_array_get_idx(redirects, i), *routes;

		if (is_true(rd, "defunct"))
			continue;
		routes = member(rd, "routes");
		for (size_t j = 0; j < json_object_array_length(routes); j++) {
			json_object *rt = json_object_array_get_idx(routes, j), *pfx;
			bool found = !want;

			if (is_true(rt, "defunct") || strcmp(str(member(rt, "target"), "ifname"), target))
				continue;
			pfx = member(rt, "prefixes");
			for (size_t k = 0; want && k < json_object_array_length(pfx); k++)
				found |= same_addr(json_object_get_string(json_object_array_get_idx(pfx, k)),
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
	if (nks_run(&c->s, &egress, "redirect show dev %s", c->p->host) ||
	    !has_route(egress, c->p->nic, NULL))
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
	if (ipam_start(p, "CHECK", p->conf_text, &c.ipam, why, sizeof(why)))
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
