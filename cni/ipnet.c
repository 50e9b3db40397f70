// SPDX-License-Identifier: GPL-2.0
/* Addresses and prefixes of either family, and a CNI result's "ips" and
 * "routes" (an IPAM plugin's answer, or CHECK's prevResult). */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ipnet.h"
#include "cni.h"

/* "10.1.0.5/16", "fd00::5/64", or without "/N" when need_plen is false
 * (a host address then). */
int ipnet_parse(const char *s, bool need_plen, struct nk_ipnet *n)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long plen;

	memset(n, 0, sizeof(*n));
	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	else if (need_plen)
		return -1;
	n->family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(n->family, buf, n->addr) != 1)
		return -1;
	n->plen = n->family == AF_INET ? 32 : 128;
	if (slash) {
		plen = strtoul(slash, &end, 10);
		if (!*slash || *end || plen > n->plen)
			return -1;
		n->plen = (unsigned int)plen;
	}
	return 0;
}

const char *ipnet_str(const struct nk_ipnet *n, bool with_plen, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(n->family, n->addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (with_plen)
		snprintf(buf, len, "%s/%u", a, n->plen);
	else
		snprintf(buf, len, "%s", a);
	return buf;
}

bool ipnet_addr_eq(const struct nk_ipnet *a, const struct nk_ipnet *b)
{
	return a->family == b->family &&
	       !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static int parse_ips(json_object *ips, struct pod_net *net, char *why, size_t len)
{
	size_t n = ips ? json_object_array_length(ips) : 0;

	if (n == 0 || n > CNI_MAX_IPS) {
		snprintf(why, len, "IPAM returned %zu addresses (1 to %d)", n, CNI_MAX_IPS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(ips, i);
		struct pod_ip *ip = &net->ip[net->n_ip++];
		const char *a = get_str(o, "address"), *gw = get_str(o, "gateway");

		if (ipnet_parse(a, true, &ip->addr)) {
			snprintf(why, len, "IPAM returned a bad address \"%s\"", a ? a : "");
			return -1;
		}
		if (!gw)
			continue;
		if (ipnet_parse(gw, false, &ip->gw) || ip->gw.family != ip->addr.family) {
			snprintf(why, len, "IPAM returned a bad gateway \"%s\"", gw);
			return -1;
		}
		ip->has_gw = true;
		/* Each family's first gateway is the host side's address. */
		if (ip->gw.family == AF_INET && !net->has_gw4) {
			net->gw4 = ip->gw;
			net->has_gw4 = true;
		} else if (ip->gw.family == AF_INET6 && !net->has_gw6) {
			net->gw6 = ip->gw;
			net->has_gw6 = true;
		}
	}
	return 0;
}

static int parse_routes(json_object *routes, struct pod_net *net, char *why, size_t len)
{
	size_t n = routes ? json_object_array_length(routes) : 0;

	if (n > CNI_MAX_ROUTES) {
		snprintf(why, len, "more than %d routes", CNI_MAX_ROUTES);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(routes, i);
		struct pod_route *r = &net->route[net->n_route++];
		const char *dst = get_str(o, "dst"), *gw = get_str(o, "gw");

		if (ipnet_parse(dst, true, &r->dst) ||
		    (gw && (ipnet_parse(gw, false, &r->gw) || r->gw.family != r->dst.family))) {
			snprintf(why, len, "a bad route \"%s\"", dst ? dst : "");
			return -1;
		}
		r->has_gw = gw != NULL;
	}
	return 0;
}

int pod_net_parse(json_object *result, struct pod_net *net, char *why, size_t len)
{
	json_object *ips = NULL, *routes = NULL;

	memset(net, 0, sizeof(*net));
	if (!result || !json_object_is_type(result, json_type_object)) {
		snprintf(why, len, "the result is not a JSON object");
		return -1;
	}
	json_object_object_get_ex(result, "ips", &ips);
	json_object_object_get_ex(result, "routes", &routes);
	if ((ips && !json_object_is_type(ips, json_type_array)) ||
	    (routes && !json_object_is_type(routes, json_type_array))) {
		snprintf(why, len, "\"ips\" and \"routes\" must be arrays");
		return -1;
	}
	return parse_ips(ips, net, why, len) || parse_routes(routes, net, why, len) ? -1 : 0;
}
