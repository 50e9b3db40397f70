/* SPDX-License-Identifier: GPL-2.0 */
/* check.c: CHECK */
#ifndef NKCNI_CHECK_H
#define NKCNI_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct plugin;
struct nk_ipnet;

int cmd_check(struct plugin *p);
bool check_steered(const char *nic, const char *holder, json_object *leases, json_object *nics,
		   const struct nk_ipnet *want, char *why, size_t len);
/* Is the device there (in the pod's namespace, or the host's), and its
 * hardware address ("" when it has none)? */
typedef bool (*link_mac_fn)(const char *ifname, bool in_pod, char *mac, size_t len, void *data);
/* prevResult's interfaces that are the plugin's (the host side, the pod's
 * interface and holder): in their place (sandbox), with the mac they name;
 * every IP's interface index names the pod's interface. 0, or -1 with why. */
int check_interfaces(const struct plugin *p, json_object *prev, link_mac_fn fn, void *data,
		     char *why, size_t len);

#endif
