/* SPDX-License-Identifier: GPL-2.0 */
/* ipam.c: the delegated IPAM plugin, run beside the rest */
#ifndef NKCNI_IPAM_H
#define NKCNI_IPAM_H

#include <stdbool.h>
#include <stddef.h>

#include "spawn.h"

struct plugin;

struct ipam_run {
	struct child c;
	bool started;
	char *out;
	int status;
};

int ipam_start(const struct plugin *p, const char *command, const char *stdin_text,
	       struct ipam_run *run, char *why, size_t len);
int ipam_finish(struct ipam_run *run);
void ipam_free(struct ipam_run *run);
int ipam_error(const struct ipam_run *run, char *msg, size_t len);

#endif
