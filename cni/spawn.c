// SPDX-License-Identifier: GPL-2.0
/* Children with pipes: the IPAM plugin and nkctl run beside the plugin. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
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
/* In the child: it dies with the plugin (a runtime that kills a slow ADD
 * must not leave IPAM or nkctl racing the DEL that follows), and gets the
 * SIGPIPE the plugin ignores back. */
static void child_bind_to(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
}

/* In the child: the locks it holds with the plugin kept across exec (lock.c
 * says why it must hold them), every other descriptor of the plugin's
 * left to close-on-exec (a GC's other attachments' locks among them: an
 * IPAM plugin that left a process behind would keep them held). */
static void child_keep_locks(const struct held_locks *locks)
{
	for (size_t i = 0; locks && i < locks->n; i++)
		if (locks->fd[i] >= 0 && fcntl(locks->fd[i], F_SETFD, 0))
			_exit(127);
}

int child_start(struct child *c, char *const argv[], const char *cni_command,
		const struct held_locks *locks)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t parent = getpid();

	/* nothing to close or wait for until the child runs */
	*c = (struct child){ .pid = 0, .in = -1, .out = -1, .err = -1 };
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		goto fail;
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		goto fail;
	}
	if (c->pid == 0) {
		child_bind_to(parent);
		child_keep_locks(locks);
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

struct sink {
	int fd;
	char *buf;
	size_t len, cap;
};

/* One read of s->fd into its buffer: 0 at end of file (or on an error). */
static ssize_t sink_read(struct sink *s)
{
	char *bigger;
	ssize_t n;

	if (s->cap - s->len < 1024) {
		bigger = realloc(s->buf, s->cap ? s->cap * 2 : 4096);
		if (!bigger)
			return 0;
		s->buf = bigger;
		s->cap = s->cap ? s->cap * 2 : 4096;
	}
	do
		n = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		s->len += (size_t)n;
	s->buf[s->len] = '\0';
	return n > 0 ? n : 0;
}

/* The child's stdout and stderr, both to their end at once: a child that
 * writes much to one while the other is read would block on a full pipe.
 * Each is NUL-terminated, NULL without memory; the caller frees them. */
void child_read_out_err(struct child *c, char **out, char **err)
{
	struct sink s[2] = { { .fd = c->out }, { .fd = c->err } };
	struct pollfd pfd[2];

	for (;;) {
		nfds_t n = 0;

		for (int i = 0; i < 2; i++)
			if (s[i].fd >= 0)
				pfd[n++] = (struct pollfd){ .fd = s[i].fd, .events = POLLIN };
		if (!n)
			break;
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (nfds_t k = 0; k < n; k++)
			for (int i = 0; i < 2; i++)
				if (s[i].fd == pfd[k].fd && pfd[k].revents && !sink_read(&s[i]))
					s[i].fd = -1;
	}
	for (int i = 0; i < 2; i++)
		if (!s[i].buf)
			s[i].buf = calloc(1, 1);
	*out = s[0].buf;
	*err = s[1].buf;
}

/* Whether the child has exited, without reaping it (child_wait does). */
bool child_exited(const struct child *c)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0;
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
	if (c->pid <= 0)
		return -1;      /* never started, or reaped: waitpid(0) would take any child */
	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	c->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
