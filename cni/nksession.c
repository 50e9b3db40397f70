// SPDX-License-Identifier: GPL-2.0
/* One nkctl process per CNI command: `nkctl -j -force -batch -` reads one
 * command per line and answers each with one JSON document on one line
 * (a failed line with {"error": {..., "status"}}, its error object on
 * stderr first: {"error": {"message", ...}}, told from a warning's
 * {"warning": ...} by its shape). -force: the batch goes on after a failure, and removing what is
 * gone already succeeds, so teardown can be repeated. */
#define _GNU_SOURCE     /* vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nksession.h"
#include "spawn.h"

int nks_start(struct nk_session *s, const char *nkctl, const struct held_locks *locks)
{
	char *argv[] = { (char *)nkctl, "-j", "-force", "-batch", "-", NULL };

	memset(s, 0, sizeof(*s));
	if (child_start(&s->c, argv, NULL, locks))
		return -1;
	s->out = fdopen(s->c.out, "r");
	if (!s->out) {
		child_wait(&s->c);
		return -1;
	}
	s->c.out = -1; /* the FILE owns it now */
	fcntl(s->c.err, F_SETFL, O_NONBLOCK);
	return 0;
}

/* One command line, of any length (GC's unlease lists every stale pod's
 * queues): 0, 1 when it cannot be formatted (out of memory), 2 when nkctl
 * is gone. */
static int nks_vsend(struct nk_session *s, const char *fmt, va_list ap)
{
	char *line = NULL;
	ssize_t w = 0;
	int n = vasprintf(&line, fmt, ap);

	if (n < 0)
		return 1;
	line[n] = '\n';  /* over the terminating NUL: the line is n + 1 bytes */
	for (size_t off = 0; !s->dead && off < (size_t)n + 1; off += (size_t)w)
		if ((w = write(s->c.in, line + off, (size_t)n + 1 - off)) <= 0)
			s->dead = true;
	free(line);
	return s->dead ? 2 : 0;
}

/* Write one command line (no newline in fmt). */
int nks_send(struct nk_session *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = nks_vsend(s, fmt, ap);
	va_end(ap);
	return ret ? -1 : 0;
}

/* The command's own error in one line of nkctl -j's stderr: an object
 * {"error": {"message", "exit", ...}} (doc/json.md), its message into msg.
 * A warning ({"warning": ...}, e.g. a sweep's about another pod's NIC
 * record) or anything else is not it, whatever its words. */
bool nk_error_line(const char *line, char *msg, size_t len)
{
	json_object *d = json_tokener_parse(line), *e, *m;
	bool hit = d && json_object_is_type(d, json_type_object) &&
		   json_object_object_get_ex(d, "error", &e) &&
		   json_object_is_type(e, json_type_object) &&
		   json_object_object_get_ex(e, "message", &m) &&
		   json_object_is_type(m, json_type_string);

	if (hit)
		snprintf(msg, len, "%s", json_object_get_string(m));
	json_object_put(d);
	return hit;
}

/* Moves the first whole error object's message of s->pend into s->err and
 * drops it with what came before it; false if there is none yet. */
static bool take_error(struct nk_session *s)
{
	char *line = s->pend, *end = s->pend + s->npend, *nl;

	while ((nl = memchr(line, '\n', (size_t)(end - line)))) {
		bool hit;

		*nl = '\0';
		hit = nk_error_line(line, s->err, sizeof(s->err));
		line = nl + 1;
		if (hit) {
			s->npend = (size_t)(end - line);
			memmove(s->pend, line, s->npend);
			return true;
		}
	}
	s->npend = (size_t)(end - line);
	memmove(s->pend, line, s->npend);
	return false;
}

/* A failed reply's message: nkctl may have run several commands of the
 * batch before their replies are read, so stderr can hold the messages of
 * later commands too; each failed reply takes the first one left. */
static void read_error(struct nk_session *s)
{
	ssize_t n;

	while (!take_error(s)) {
		if (s->npend == sizeof(s->pend))
			s->npend = 0;	/* a line longer than the buffer: drop it */
		n = read(s->c.err, s->pend + s->npend, sizeof(s->pend) - s->npend);
		if (n <= 0) {
			snprintf(s->err, sizeof(s->err), "nkctl failed without a message");
			return;
		}
		s->npend += (size_t)n;
	}
}

/* The answer to the next command sent: 0 with *doc (owned by the caller,
 * NULL to drop it), or nkctl's exit status for that line with s->err. */
int nks_reply(struct nk_session *s, json_object **doc)
{
	char *line = NULL;
	size_t cap = 0;
	json_object *d, *e, *st;
	int ret = 0;

	if (doc)
		*doc = NULL;
	if (s->dead || getline(&line, &cap, s->out) < 0) {
		free(line);
		s->dead = true;
		snprintf(s->err, sizeof(s->err), "nkctl ended early");
		return 2;
	}
	d = json_tokener_parse(line);
	free(line);
	if (!d) {
		snprintf(s->err, sizeof(s->err), "nkctl answered something that is not JSON");
		return 2;
	}
	if (json_object_object_get_ex(d, "error", &e) && json_object_object_get_ex(e, "status", &st)) {
		ret = json_object_get_int(st);
		read_error(s);
		json_object_put(d);
		return ret ? ret : 2;
	}
	if (doc)
		*doc = d;
	else
		json_object_put(d);
	return 0;
}

void nks_await(struct nk_session *s, void (*idle)(void *), void *arg, int tick_ms)
{
	struct pollfd pfd = { .fd = s->out ? fileno(s->out) : -1, .events = POLLIN };

	while (!s->dead && pfd.fd >= 0 && poll(&pfd, 1, tick_ms) == 0)
		idle(arg);
}

int nks_run(struct nk_session *s, json_object **doc, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = nks_vsend(s, fmt, ap);
	va_end(ap);
	if (ret) {
		snprintf(s->err, sizeof(s->err), ret == 1 ? "out of memory" : "nkctl ended early");
		return ret;
	}
	return nks_reply(s, doc);
}

/* Close nkctl's input and wait for it: its exit status. */
int nks_end(struct nk_session *s)
{
	int st;

	if (s->out)
		fclose(s->out);
	s->out = NULL;
	st = child_wait(&s->c);
	return st;
}
