/* SPDX-License-Identifier: GPL-2.0 */
/* conf.c: the configuration text (stdin) and the environment, checked. */
#ifndef NKCNI_CONF_H
#define NKCNI_CONF_H

#include <stdbool.h>

struct plugin;

/* The configuration text and the environment into p, checked: 0, 1 for
 * VERSION (which needs no more), -1 with p's error. p owns p->conf, not
 * text. */
int cni_setup(struct plugin *p, const char *text);
/* STATUS and GC concern the network, not one container. */
bool cni_network_command(const char *command);
/* VERSION's answer on stdout, in the version asked (0). */
int print_version(const char *asked);

/* The configuration (0, or -1 with p's error) */
bool version_supported(const char *v);
bool version_before_1(const char *v);
bool version_at_least_1_1(const char *v);
const char *command_refused(const char *command, const char *version);
int read_conf(struct plugin *p);
int need_batch_word(const struct plugin *p, int code, const char *what, const char *v);
void derive_names(struct plugin *p);

#endif
