/* SPDX-License-Identifier: GPL-2.0 */
/* lock.c: one lock per attachment (see there), a file of CNI_LOCK_DIR
 * (cni.h). */
#ifndef NKCNI_LOCK_H
#define NKCNI_LOCK_H

#include <stdbool.h>

/* Lock (id, ifname), waiting up to wait_ms: 0 with *fd, -EWOULDBLOCK when
 * another process holds it still, -errno. */
int attachment_lock(const char *id, const char *ifname, unsigned int wait_ms, int *fd);
/* Let go of fd; gone: the attachment is gone, its lock file removed too. */
void attachment_unlock(const char *id, const char *ifname, int fd, bool gone);

#endif
