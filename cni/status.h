/* SPDX-License-Identifier: GPL-2.0 */
/* status.c: STATUS, its judgements of nkctl's documents, and whether the
 * IPAM plugin speaks 1.1.0 */
#ifndef NKCNI_STATUS_H
#define NKCNI_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct plugin;
struct ipam_run;

int cmd_status(struct plugin *p);
const char *status_kernel_lacks(json_object *doc, bool queues);
bool pool_has(const char *list, unsigned long q);
unsigned int status_pool_free(json_object *doc, const char *pool);
/* Does the IPAM plugin's VERSION list 1.1.0? In one, or started, then read. */
/* 1, 0, or -1 with p's error (the IPAM plugin does not run). */
int ipam_speaks_1_1(const struct plugin *p);
/* 0, or -1 with why (run not started). */
int ipam_version_start(const struct plugin *p, struct ipam_run *run, char *why, size_t len);
bool ipam_version_1_1(struct ipam_run *run);

#endif
