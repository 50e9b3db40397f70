/* SPDX-License-Identifier: GPL-2.0 */
/* privdir.c: podInfoDir and the lock directory. */
#ifndef NKCNI_PRIVDIR_H
#define NKCNI_PRIVDIR_H

#include <stdbool.h>

/* dir opened without following a link, a directory of this user's that no
 * one else can write (own_mode: made 0700 instead, ADD's podInfoDir): its
 * fd, or -errno (-ENOTDIR a link or not a directory, -EPERM not ours or
 * writable by others). private_dir_refusal says which, for a message. */
int private_dir_open(const char *dir, bool own_mode);
const char *private_dir_refusal(int err);

#endif
