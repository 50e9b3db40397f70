// SPDX-License-Identifier: GPL-2.0
/* Children with pipes: the IPAM plugin and nkctl run beside the plugin. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cni.h"

static void close_pair(int fd[2])
{
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
}

/* name in one of the directories of a PATH-like list dirs, into bin. */
int path_lookup(const char *dirs, const char *name, char *bin, size_t len)
{
	const char *dir = dirs, *end;
	int n;

	if (strchr(name, '/'))
		return -1;
	while (dir && *dir) {
		end = strchr(dir, ':');
		n = end ? (int)(end - dir) : (int)strlen(dir);
		if (n > 0 && (size_t)snprintf(bin, len, "%.*s/%s", n, dir, name) < len &&
		    access(bin, X_OK) == 0)
			return 0;
		dir = end ? end + 1 : NULL;
	}
	return -1;
}

/* Start argv[0] (a path) with CNI_COMMAND set to cni_command when given. */
int child_start(struct child *c, char *const argv[], const char *cni_command)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		goto fail;
	c->pid = fork();
	if (c->pid < 0)
		goto fail;
	if (c->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		if (cni_command && setenv("CNI_COMMAND", cni_command, 1))
			_exit(127);
		execv(argv[0], argv);
		dprintf(2, "Error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	c->in = in[1];
	c->out = out[0];
	c->err = err[0];
	return 0;
fail:
	close_pair(in);
	close_pair(out);
	close_pair(err);
	return -1;
}

/* Everything until end of file, NUL-terminated (NULL without memory). */
char *child_read_all(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *bigger;
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		if (cap - len < 1024) {
			bigger = realloc(buf, cap *= 2);
			if (!bigger)
				break;
			buf = bigger;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

/* The child's exit status (128+N for a signal); closes what is left open. */
int child_wait(struct child *c)
{
	int st;

	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->in = c->out = c->err = -1;
	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
