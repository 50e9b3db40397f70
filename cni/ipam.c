// SPDX-License-Identifier: GPL-2.0
/* The delegated IPAM plugin, as the spec says: found in CNI_PATH, run with
 * the same environment and CNI_COMMAND, the network configuration on stdin.
 * It runs while nkctl does its part; ipam_finish collects its answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipam.h"
#include "cni.h"
#include "report.h"
#include "spawn.h"

int ipam_start(const struct plugin *p, const char *command, const char *stdin_text,
	       struct ipam_run *run, char *why, size_t len)
{
	char bin[4096];
	char *argv[] = { bin, NULL };
	size_t left = strlen(stdin_text);
	ssize_t n;

	memset(run, 0, sizeof(*run));
	if (path_lookup(p->cni_path, p->ipam_type, bin, sizeof(bin))) {
		snprintf(why, len, "IPAM plugin %s not found in CNI_PATH", p->ipam_type);
		return -1;
	}
	if (child_start(&run->c, argv, command, &p->locks)) {
		snprintf(why, len, "cannot start IPAM plugin %s", bin);
		return -1;
	}
	run->started = true;
	/* A configuration is far smaller than a pipe's buffer: no deadlock. */
	while (left > 0 && (n = write(run->c.in, stdin_text, left)) > 0) {
		stdin_text += n;
		left -= (size_t)n;
	}
	close(run->c.in);
	run->c.in = -1;
	return 0;
}

/* Wait for the plugin; its stdout is its result or its error object, its
 * stderr goes on to the runtime's (the plugin's own). */
int ipam_finish(struct ipam_run *run)
{
	char *err = NULL;

	if (!run->started)
		return -1;
	child_read_out_err(&run->c, &run->out, &err);
	if (err && *err) {
		cni_pass_on(err);
	}
	free(err);
	run->status = child_wait(&run->c);
	run->started = false;
	return run->out && run->status == 0 ? 0 : -1;
}

void ipam_free(struct ipam_run *run)
{
	free(run->out);
	run->out = NULL;
}

/* The code and message of a failed run, from its error object if any. */
int ipam_error(const struct ipam_run *run, char *msg, size_t len)
{
	json_object *doc = run->out ? json_tokener_parse(run->out) : NULL, *v;
	int code = CNI_ERR_STEP;

	snprintf(msg, len, "exit status %d", run->status);
	if (doc && json_object_object_get_ex(doc, "code", &v) && json_object_get_int(v) > 0)
		code = json_object_get_int(v);
	if (doc && json_object_object_get_ex(doc, "msg", &v))
		snprintf(msg, len, "%s", json_object_get_string(v));
	json_object_put(doc);
	return code;
}
