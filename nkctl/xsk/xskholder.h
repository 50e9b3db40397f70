/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The holders' side of nkctl xsk (xskholder.c): <root>/nkctl-xsk, the one
 * directory under bpffs nkctl hands to other users, and each holder's
 * directory in it, <root>/nkctl-xsk/ns<netns cookie>-dev<ifindex>/map.
 *
 * Who may write where: the bpffs root and nkctl-xsk are root's and
 * writable by root alone (nkctl-xsk 0755: a VMM's user searches it to its
 * own directory; one another user made is taken over only empty, else
 * refused); a holder's directory is its VMM user's (0700, 0750 when its
 * group reaches the map) and everything in it is that user's to change, so
 * nkctl reaches it by fd, makes it root's alone before it looks in it, and
 * decides from its own record (/run/nkctl/xsk/<holder>, root's, 0700), never
 * from what the directory holds. nkctl's lock for all of it is
 * /run/nkctl/.lock-xsk, which no other user can open.
 */
#ifndef NKCTL_XSKHOLDER_H
#define NKCTL_XSKHOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "redirect/routes.h"      /* DIR_LEN, PIN_LEN */
#include "xsk/xskfit.h"

#define XSK_PUBLIC_DIR "nkctl-xsk"
#define XSK_MAP_NAME "map"
#define XSK_GRANT_DIR "/run/nkctl/xsk"
#define XSK_LOCK_NAME "xsk"
#define XSK_NAME_LEN 48

/* <root>/nkctl-xsk opened into *fd (made 0755 when create), checked: a
 * directory of root's that only root writes. One of root's that others may
 * write is made 0755, one another user made is made root's while empty (a
 * warning says so); else -EPERM, and -ENOENT when there is none and
 * !create: why says it, with the command that repairs it. */
int xsk_pub_open(const char *root, bool create, int *fd, char *why, size_t len);

/* nkctl's xsk lock, /run/nkctl/.lock-xsk, exclusive: attach holds it from
 * its look at a holder's map (pinned before a slot names it) and the
 * owners' check to its last slot; a holder's map is unpinned only under it
 * (the orphan pass of detach and of the sweep takes it), so that a detach
 * or sweep beside an attach never takes a map that attach is pointing a
 * slot at. With wait, waited for up to a minute, then an error naming the
 * pid that holds it; without, -EWOULDBLOCK when held. */
int xsk_public_lock(bool wait, int *fd);

/* A holder's directory name in nkctl-xsk, into buf[XSK_NAME_LEN], and back. */
void xsk_holder_name(unsigned long long cookie, uint32_t ifindex, char *buf);
bool xsk_holder_name_parse(const char *name, unsigned long long *cookie, uint32_t *ifindex);

/* The holder directory name in pub (dir: its path, for messages) and its
 * map: reused when root's record grants it to acc's user and group with no
 * access taken away, and the pin is that map (its id), linked nowhere else;
 * else the directory is emptied and a new map pinned (*fresh, and the
 * directory stays root's, the grant unrecorded, until holder_dir_give). The
 * map gets acc's owner and mode. */
int holder_map(int pub, const char *name, const char *dir, const struct xsk_access *acc,
	       int *fd, bool *fresh);
/* The grant recorded (map_fd's map for acc), then the directory's owner as
 * acc says, mode 0700 (0750: xsk_dir_mode). */
int holder_dir_give(int pub, const char *name, const char *dir, const struct xsk_access *acc,
		    int map_fd);
/* The holder's directory, everything in it however deep, and its record
 * gone (the directory made root's first, so that its VMM cannot add to it
 * meanwhile); true when its map was there and went. Only under the lock. */
bool holder_unpin(int pub, const char *name);
/* What root granted the holder name (its record; an older nkctl's holder's
 * directory and pin, read by fd); -ENOENT when there is no such holder. */
int holder_granted(int pub, const char *name, struct xsk_grant *g);
/* The holder's map as it is now (for printing: its owner and mode), read
 * by fd without following a link; -errno. */
int holder_pin_stat(const char *root, unsigned long long cookie, uint32_t ifindex,
		    struct stat *st);
/* The groups acc's user is in, from the user database. */
void xsk_members_of(const struct xsk_access *acc, struct xsk_members *m);

#endif
