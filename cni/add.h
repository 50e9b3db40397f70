/* SPDX-License-Identifier: GPL-2.0 */
/* add.c: ADD, and its result */
#ifndef NKCNI_ADD_H
#define NKCNI_ADD_H

#include <stddef.h>
#include <json-c/json.h>

struct plugin;
struct pod_net;
struct nl_sock;

int cmd_add(struct plugin *p);
/* Routes that name no gateway get their family's; no route is added that
 * IPAM did not return. */
void pod_net_routes(struct pod_net *net);
/* "A,B" (steer dst) and " prefix A/32 prefix B/128" (the NIC route). */
void address_words(const struct pod_net *net, char *dsts, size_t dlen, char *prefixes,
		   size_t plen);
/* The ADD result on stdout, in the shape of p->version, after prevResult's:
 * the pair and the holder, every address, every route, the dns. */
void print_result(const struct plugin *p, const struct pod_net *net, struct nl_sock *host,
		  struct nl_sock *pod, json_object *ipam);

#endif
