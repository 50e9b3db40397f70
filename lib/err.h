/* SPDX-License-Identifier: GPL-2.0 */
/* Exit codes and the one-line "Error: ..." reports on stderr. */
#ifndef NKCTL_ERR_H
#define NKCTL_ERR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Documented in nkctl(8), EXIT STATUS. Never renumber. */
enum nk_exit {
	NK_EXIT_OK = 0,
	NK_EXIT_USAGE = 1,       /* bad command line */
	NK_EXIT_FAIL = 2,        /* the kernel or the operation failed */
	NK_EXIT_NOTFOUND = 3,    /* device, namespace, queue, ... does not exist */
	NK_EXIT_EXISTS = 4,      /* already exists, or busy */
	NK_EXIT_UNSUPPORTED = 5, /* not supported by this kernel or device */
	NK_EXIT_PERM = 6,        /* permission denied */
	NK_EXIT_CHECK = 7,       /* doctor: a check failed */
};

struct nl_err;

/* Map a positive errno to an exit code. */
int nk_exit_from_errno(int err);

/* Print "Error: <fmt>" and return code. */
int nk_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "Error: <fmt>: <extack or strerror> (<attribute path>)" and return the
 * exit code of the netlink error. fmt may be NULL. */
int nk_error_nl(const struct nl_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What nk_error_nl says after the colon: the extack message (or strerror)
 * and the attribute path, for errors that say more around it. */
const char *nk_nl_reason(const struct nl_err *e, char *buf, size_t len);

/* Print "Error: <fmt>: <strerror(err)>" and return the mapped exit code. */
int nk_error_errno(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "Warning: ..." on stderr; returns nothing. */
void nk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<label>: ..." on stderr, in the text form only (with -j, stdout's
 * documents say it): where a batch line failed ("Batch: FILE:LINE ..."). */
void nk_note(const char *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * stderr's form (nkctl -j): each report one JSON object on a line of its own,
 * {"error": {"message", "exit", "errno", "extack": {"msg", "bad-attr" or
 * "miss-type"}}} or {"warning": {"message"}}, "message" being the text the
 * line form prints after "Error: " or "Warning: " (doc/json.md, "Errors
 * and warnings"). Off: the "Error: ..." and "Warning: ..." lines.
 */
void nk_report_json(bool on);

/* One report, as nk_report_write prints it. */
struct nk_report {
	const char *label;          /* "Error" or "Warning" */
	const char *message;        /* the line's text after the label */
	int exit;                   /* an error's exit status */
	int err;                    /* its errno, 0 if none */
	const struct nl_err *nl;    /* its netlink error (extack), or NULL */
};
/* r to f, as a text line or (json) a JSON object on one line. */
void nk_report_write(FILE *f, bool json, const struct nk_report *r);

/*
 * Where the reports above go: stderr, or a sink a caller puts in place to
 * collect them and decide what they are to it. A sweep undoing one record
 * of another NIC collects that record's reports, then says its trouble as
 * one Warning of its own and passes the other lines on: one policy, in the
 * caller, nothing dropped (the sink grows), no file descriptor swapped.
 */
struct nk_sink {
	char *buf;          /* the lines, each '\n' ended, "Error: " or "Warning: " first */
	size_t len, cap;
	bool nomem;         /* a line was lost for memory */
	bool drop;          /* keeps nothing (NK_SINK_DROP) */
};
/* A sink that keeps nothing, for a caller to whom a failure is an answer,
 * not news (a scan over namespaces, a feature or a lock only asked about):
 * struct nk_sink none = NK_SINK_DROP, *was = nk_sink_use(&none); ... */
#define NK_SINK_DROP { .drop = true }
/* Reports go to s from now on (NULL: stderr); returns where they went. */
struct nk_sink *nk_sink_use(struct nk_sink *s);
void nk_sink_free(struct nk_sink *s);
/* The text of the last error in s (after "Error: "), into buf; NULL when
 * there was none. */
const char *nk_sink_last_error(const struct nk_sink *s, char *buf, size_t len);
/* Every line of s but its errors (warnings said meanwhile) to the sink in
 * place now. */
void nk_sink_pass_others(const struct nk_sink *s);

#endif
