/* SPDX-License-Identifier: GPL-2.0 */
/* alias.c: a device's alias names its attachment, so that GC finds them */
#ifndef NKCNI_ALIAS_H
#define NKCNI_ALIAS_H

#include <stdbool.h>
#include <stddef.h>

struct plugin;
struct attachment;

int attachment_alias(const struct plugin *p, char *buf, size_t len);
void attachment_owner(const struct plugin *p, char *buf, size_t len);
bool attachment_parse(const char *alias, const char *owner, struct attachment *a);

#endif
