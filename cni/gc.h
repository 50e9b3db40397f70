/* SPDX-License-Identifier: GPL-2.0 */
/* gc.c: GC (CNI 1.1), every attachment of this network the runtime no
 * longer knows */
#ifndef NKCNI_GC_H
#define NKCNI_GC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct plugin;
struct attachment;

int cmd_gc(struct plugin *p);
int attachment_from_info(json_object *info, const char *name, const char *network,
			 const char *nic, struct attachment *a, const char **why);
/* Is (id, ifname) among conf's cni.dev/valid-attachments? */
json_object *gc_valid_of(json_object *conf);
bool attachment_valid(json_object *valid, const char *id, const char *ifname);
int holder_queue_list(json_object *leases, const char *nic, const char *holder, char *buf,
		      size_t len);
/* GC's device group: its stale host sides join it and go in one `link del
 * group`. CNI_GC_GROUP_BASE plus the plugin's process id (cni.h). */
uint32_t gc_group(long pid);
/* How many IPAM DELs GC runs at once with cpus CPUs usable. */
size_t gc_ipam_width(long cpus);

#endif
