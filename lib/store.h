/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records kept one file per object in a directory of ours (the caller makes
 * it, 0700): lock an object, read its record, write it atomically. The NIC
 * state (nicstate.c) keeps its records here, the bind holders theirs
 * (holder.c: a record that is the holder's lock, below); the route table
 * (routes.c) locks its pin directories with nk_store_lock_dir.
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
#include <sys/types.h>

/* Lock object name of dir: *fd holds it until closed; without wait,
 * -EWOULDBLOCK when another holds it. 0 or -errno. */
int nk_store_lock(const char *dir, const char *name, bool wait, int *fd);
/* The same, waiting at most secs (0: not at all, -EWOULDBLOCK): -ETIMEDOUT
 * when it is still held then, with the holder's pid in *holder (from
 * /proc/locks; 0 when it cannot be told). */
int nk_store_lock_for(const char *dir, const char *name, unsigned int secs, int *fd,
		      pid_t *holder);
/* The pid holding a flock on the file fd is open on, 0 when none is seen. */
pid_t nk_flock_holder(int fd);
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

/*
 * A record that is its writer's lock for as long as the writer lives (a bind
 * holder's: readers tell a live holder by the lock). claim creates
 * <dir>/.tmp.<name> O_EXCL and locks it in *fd (one there whose lock nobody
 * holds is a killed claimer's and goes first; a held one is -EBUSY);
 * publish writes the record with put through the claim and renames it into
 * place, still locked by *fd; abandon removes a claim never published. The
 * record goes with nk_store_remove. 0 or -errno.
 */
int nk_store_claim(const char *dir, const char *name, int *fd);
int nk_store_publish(const char *dir, const char *name, int fd,
		     int (*put)(FILE *f, const void *rec), const void *rec);
int nk_store_abandon(const char *dir, const char *name);

#endif
