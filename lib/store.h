/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records kept one file per object in a directory of ours (the caller makes
 * it, 0700): lock an object, read its record, write it atomically. The NIC
 * state (nicstate.c) keeps its records here; the route table (routes.c)
 * locks its pin directories with nk_store_lock_dir.
 *
 * An object is locked by an exclusive flock on a lock file of its own,
 * <dir>/.lock-<name>, never removed (removing it would let two writers lock
 * two files). Its record <dir>/<name> is written under that lock through a
 * temporary file of its own, <dir>/.tmp.<name>, created O_EXCL (one left by
 * a writer killed before its rename is removed when the lock is taken and
 * before each write: under the lock no one else writes it), flushed and fsynced, then renamed over the record and the
 * directory fsynced: a reader sees the old record or the new one, whole.
 */
#ifndef NKCTL_STORE_H
#define NKCTL_STORE_H

#include <stdbool.h>
#include <stdio.h>

/* Lock object name of dir: *fd holds it until closed; without wait,
 * -EWOULDBLOCK when another holds it. 0 or -errno. */
int nk_store_lock(const char *dir, const char *name, bool wait, int *fd);
/* Lock a directory that is itself the object, one its last user removes
 * while holding the lock (the route table's pin directories): *fd holds it
 * until closed. -ESTALE when the directory locked is no longer the one at
 * path (removed meanwhile: lock the one there now), -ENOENT when there is
 * none; 0 or -errno. */
int nk_store_lock_dir(const char *path, int *fd);
/* The record of name for reading; NULL with errno (ENOENT: none). */
FILE *nk_store_open(const char *dir, const char *name);
/* Write the record of name (0600) with put(f, rec) under the object's lock:
 * put returns 0 or -errno; a failed write leaves the old record. 0 or
 * -errno. */
int nk_store_write(const char *dir, const char *name, int (*put)(FILE *f, const void *rec),
		   const void *rec);
/* Remove the record of name (and a temporary file a killed writer left).
 * 0 (also when there was none) or -errno. */
int nk_store_remove(const char *dir, const char *name);

#endif
