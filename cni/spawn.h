/* SPDX-License-Identifier: GPL-2.0 */
/* spawn.c: a child with pipes on its stdin, stdout and stderr */
#ifndef NKCNI_SPAWN_H
#define NKCNI_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct held_locks;

struct child {
	pid_t pid;
	int in, out, err;
};

int path_lookup(const char *dirs, const char *name, char *bin, size_t len);
int child_start(struct child *c, char *const argv[], const char *cni_command,
		const struct held_locks *locks);
char *child_read_all(int fd);
void child_read_out_err(struct child *c, char **out, char **err);
bool child_exited(const struct child *c);
int child_wait(struct child *c);

#endif
