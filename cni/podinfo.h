/* SPDX-License-Identifier: GPL-2.0 */
/* podinfo.c: what the pod's application reads (README.md): the holder's
 * name and queues in <podInfoDir>/<container id>-<ifname>.json
 * (attachment_name), at most CNI_INFO_MAX bytes (cni.h). */
#ifndef NKCNI_PODINFO_H
#define NKCNI_PODINFO_H

#include <stddef.h>
#include <json-c/json.h>

struct plugin;

int pod_info_write(const struct plugin *p, json_object *leases, char *why, size_t len);
int pod_info_remove(const struct plugin *p, char *why, size_t len);
/* GC's look at one information file, its document and its name in the
 * directory: NULL when it is taken or another network's, else why it is
 * not one to act on (pod_info_scan warns, naming the file). */
typedef const char *(*pod_info_fn)(json_object *info, const char *name, void *data);
/* fn for each *.json file of podInfoDir that is a JSON object in a regular
 * file of root's, in a directory of root's no one else can write; one
 * warning on stderr for each file (or the directory) refused. */
void pod_info_scan(const struct plugin *p, pod_info_fn fn, void *data);

#endif
