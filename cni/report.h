/* SPDX-License-Identifier: GPL-2.0 */
/* report.c: a command's error, returned up to main, which prints it (the
 * CNI error object on stdout, exit status 1), and the plugin's other words
 * on stderr. */
#ifndef NKCNI_REPORT_H
#define NKCNI_REPORT_H

#include <stdbool.h>

struct plugin;

/* cni_error records the first error (the cause: the rest are its echoes)
 * in p->err and returns -1. */
int cni_error(const struct plugin *p, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool cni_failed(const struct plugin *p);
/* The plugin's other words on stderr (the runtime logs them): a warning
 * ("nkctl-cni: warning: ..."), or a child's stderr passed on as it is. */
void cni_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cni_pass_on(const char *text);
void cni_print_error(const struct plugin *p);

#endif
