/* SPDX-License-Identifier: GPL-2.0 */
/* lease.c: the pod's queues of the pool (lease ... pool) */
#ifndef NKCNI_LEASE_H
#define NKCNI_LEASE_H

#include <stddef.h>
#include <json-c/json.h>

struct plugin;
struct nk_session;

int lease_from_pool(const struct plugin *p, struct nk_session *s, const char *dsts,
		    json_object **doc, char *why, size_t len);

#endif
