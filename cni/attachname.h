/* SPDX-License-Identifier: GPL-2.0 */
/* attachname.c: an attachment's names, checked as a stranger's (NULL when
 * fine, else what is wrong, to follow the name in a message), and the one
 * encoding of container id and interface in file and lock names
 * (CNI_ID_MAX, cni.h). */
#ifndef NKCNI_ATTACHNAME_H
#define NKCNI_ATTACHNAME_H

#include <stdbool.h>
#include <stddef.h>

bool spec_name(const char *s);
const char *container_id_refused(const char *id);
const char *ifname_refused(const char *ifname);
const char *netns_refused(const char *netns);
int attachment_name(const char *id, const char *ifname, const char *suffix, char *buf, size_t len);

#endif
