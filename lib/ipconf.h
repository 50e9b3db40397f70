/* SPDX-License-Identifier: GPL-2.0 */
/* A device's addresses and routes: add one, or ask whether it is there
 * (what a CNI plugin's ADD and CHECK do in a pod). */
#ifndef NKCTL_IPCONF_H
#define NKCTL_IPCONF_H

#include <stdbool.h>

#include "nl.h"

/* An address or a prefix: AF_INET (4 bytes of addr) or AF_INET6. */
struct nk_ipnet {
	int family;
	unsigned char addr[16];
	unsigned int plen;
};

/* a on ifindex, with its prefix length; IPv6 without duplicate address
 * detection. Replaces the same address. */
int rtnl_addr_add(struct nl_sock *s, int ifindex, const struct nk_ipnet *a, struct nl_err *err);
/* dst through ifindex in the main table, via gw when given (else on the
 * link); never replaces a route (-EEXIST). */
int rtnl_route_add(struct nl_sock *s, int ifindex, const struct nk_ipnet *dst,
		   const struct nk_ipnet *gw, struct nl_err *err);
/* Is a on ifindex (same prefix length)? false with err->code 0 when it is
 * not, with err->code set when the addresses could not be read. */
bool rtnl_addr_has(struct nl_sock *s, int ifindex, const struct nk_ipnet *a, struct nl_err *err);
/* Is there a unicast route to dst (any table) out of ifindex, via gw (NULL:
 * none)? As rtnl_addr_has. */
bool rtnl_route_has(struct nl_sock *s, int ifindex, const struct nk_ipnet *dst,
		    const struct nk_ipnet *gw, struct nl_err *err);

#endif
