/* SPDX-License-Identifier: GPL-2.0 */
/* A link's settings that are not netkit's (its namespace, alias and group),
 * and the aliases of a namespace's links. */
#ifndef NKCTL_LINKSET_H
#define NKCTL_LINKSET_H

#include <stdint.h>

#include "nl.h"

/* Move ifindex into the namespace of netns_fd. */
int rtnl_link_move(struct nl_sock *s, int ifindex, int netns_fd, struct nl_err *err);
/* IFLA_IFALIAS, as "ip link set ... alias" sets it. */
int rtnl_link_set_alias(struct nl_sock *s, int ifindex, const char *alias, struct nl_err *err);
int rtnl_link_set_group(struct nl_sock *s, int ifindex, uint32_t group, struct nl_err *err);

/* Called for each link that has an alias; a negative errno stops the walk
 * and is its answer. */
typedef int (*rtnl_alias_fn)(const char *ifname, const char *alias, void *data);
/* Every alias of the socket's namespace. */
int rtnl_link_aliases(struct nl_sock *s, rtnl_alias_fn fn, void *data, struct nl_err *err);

#endif
