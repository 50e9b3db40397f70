/* SPDX-License-Identifier: GPL-2.0 */
/* ipnet.c: addresses of both families; a result's ips and routes. */
#ifndef NKCNI_IPNET_H
#define NKCNI_IPNET_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct nk_ipnet;
struct pod_net;

int ipnet_parse(const char *s, bool need_plen, struct nk_ipnet *n);
const char *ipnet_str(const struct nk_ipnet *n, bool with_plen, char *buf, size_t len);
bool ipnet_addr_eq(const struct nk_ipnet *a, const struct nk_ipnet *b);
int pod_net_parse(json_object *result, struct pod_net *net, char *why, size_t len);

#endif
