/* SPDX-License-Identifier: GPL-2.0 */
/* nksession.c: one `nkctl -j -force -batch -`, fed one line at a time */
#ifndef NKCNI_NKSESSION_H
#define NKCNI_NKSESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "spawn.h"

struct held_locks;

struct nk_session {
	struct child c;
	FILE *out;
	char err[512];
	char pend[4096];	/* stderr read but not yet matched to a reply */
	size_t npend;
	bool dead;
};

int nks_start(struct nk_session *s, const char *nkctl, const struct held_locks *locks);
int nks_send(struct nk_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nks_reply(struct nk_session *s, json_object **doc);
/* Until nkctl's next answer can be read (nothing of it read yet: every
 * earlier answer taken), idle(arg) every tick_ms: GC's IPAM slots refilled
 * while nkctl deletes. */
void nks_await(struct nk_session *s, void (*idle)(void *), void *arg, int tick_ms);
int nks_run(struct nk_session *s, json_object **doc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int nks_end(struct nk_session *s);
/* One line of nkctl -j's stderr: is it the command's error object? Its
 * message into msg when it is (a warning never is). */
bool nk_error_line(const char *line, char *msg, size_t len);

#endif
