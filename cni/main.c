// SPDX-License-Identifier: GPL-2.0
/* nkctl-cni: the command's dispatch (README.md beside this file): the
 * configuration read (conf.c), nkctl found, the attachment locked, the
 * command run, its error printed (report.c). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "add.h"
#include "check.h"
#include "cni.h"
#include "conf.h"
#include "del.h"
#include "gc.h"
#include "lock.h"
#include "privdir.h"
#include "report.h"
#include "spawn.h"
#include "status.h"

static int find_nkctl(struct plugin *p, char *buf, size_t len)
{
	const char *env = getenv("NKCTL");
	bool status = !strcmp(p->command, "STATUS");

	if (env && strchr(env, '/')) {
		/* DEL does what it can without nkctl (del.c) */
		p->nkctl = access(env, X_OK) && !strcmp(p->command, "DEL") ? NULL : env;
		return 0;
	}
	if (path_lookup(getenv("PATH"), env && *env ? env : "nkctl", buf, len)) {
		/* DEL does what it can without nkctl (del.c) */
		if (!strcmp(p->command, "DEL")) {
			p->nkctl = NULL;
			return 0;
		}
		return cni_error(p, status ? CNI_ERR_UNAVAILABLE : CNI_ERR_CONFIG,
				 "nkctl is not on PATH (or set NKCTL to its path)");
	}
	p->nkctl = buf;
	return 0;
}
/* A container's command holds its attachment's lock (lock.c) from here to
 * its exit, and its children with it (p->locks); -1 in *fd for the
 * network's commands. One held by another ADD, DEL or CHECK of it (or by
 * a killed ADD's children) is waited for, then error 11. */
static int lock_attachment(struct plugin *p, int *fd)
{
	int ret;

	*fd = -1;
	if (cni_network_command(p->command))
		return 0;
	ret = attachment_lock(p->id, p->ifname, CNI_LOCK_WAIT_MS, fd);
	if (ret == -EWOULDBLOCK)
		return cni_error(p, CNI_ERR_TRY_LATER,
				 "%s %s: another ADD, DEL or CHECK of this attachment (or what a killed one started) still runs after %u s; try again",
				 p->id, p->ifname, CNI_LOCK_WAIT_MS / 1000);
	if (ret)
		return cni_error(p, CNI_ERR_STEP, "cannot lock the attachment %s %s under %s: %s",
				 p->id, p->ifname, CNI_LOCK_DIR, private_dir_refusal(ret));
	p->locks = (struct held_locks){ fd, 1 };
	return 0;
}

/* The container's or the network's command. */
static int run_command(struct plugin *p)
{
	static const struct {
		const char *name;
		int (*fn)(struct plugin *p);
	} commands[] = {
		{ "ADD", cmd_add }, { "DEL", cmd_del }, { "CHECK", cmd_check },
		{ "STATUS", cmd_status }, { "GC", cmd_gc },
	};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(p->command, commands[i].name))
			return commands[i].fn(p);
	return cni_error(p, CNI_ERR_ENV, "unknown CNI_COMMAND %s", p->command);
}

int main(void)
{
	struct cni_err err = { 0 };
	struct plugin p = { .err = &err };
	char nkctl[4096];
	char *text;
	int ret, lock = -1;

	/* nkctl or the IPAM plugin dying must come back as EPIPE and a CNI
	 * error object (and DEL's teardown), not kill the plugin silently. */
	signal(SIGPIPE, SIG_IGN);
	text = child_read_all(0);
	ret = cni_setup(&p, text);
	if (ret == 1)
		ret = print_version(p.version);
	else if (!ret && !find_nkctl(&p, nkctl, sizeof(nkctl)) && !lock_attachment(&p, &lock))
		ret = run_command(&p);
	if (lock >= 0)
		attachment_unlock(p.id, p.ifname, lock, !strcmp(p.command, "DEL") && !ret);
	if (cni_failed(&p)) {
		cni_print_error(&p);
		ret = 1;
	}
	json_object_put(p.ipam_conf);
	json_object_put(p.conf);
	free(text);
	return ret;
}
