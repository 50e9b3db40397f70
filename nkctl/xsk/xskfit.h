/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure rules of a holder's XSK map and its directory (xskfit.c): whether a
 * pinned map may be reused, the directory's mode, and which owners may not
 * hold two live holders' maps. Unit tests cover them (test_xskfit.c).
 */
#ifndef NKCTL_XSKFIT_H
#define NKCTL_XSKFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A pinned map's shape, as BPF_OBJ_GET_INFO_BY_FD gives it. */
struct xsk_map_shape {
	uint32_t type, key_size, value_size, max_entries, flags;
};

/* NULL when a pinned map is a holder's XSK map as nkctl makes it (type,
 * key and value sizes, NK_XSK_HOLDER_QUEUES entries, no flags: the NIC's
 * inner template refuses any other), else what differs ("type", "size",
 * "flags"): it is replaced. */
const char *xsk_map_misfit(const struct xsk_map_shape *m);
/* NULL when what sits at a holder's pin (st, read without following a
 * link; on_bpffs: its directory is on bpffs) is a pin as nkctl makes
 * them: a regular file of bpffs with one name. Else what it is instead:
 * "a symbolic link", "a directory", "a hard link", "not a pinned object"
 * or "not on bpffs". The VMM owns that directory and may put any of them
 * there (a link to another tenant's map), so none is taken for nkctl's. */
const char *xsk_pin_foreign(const struct stat *st, bool on_bpffs);
/* The holder directory's mode for its pin's mode: 0700, and group search
 * (0750) when the pin grants its group read or write. */
mode_t xsk_dir_mode(mode_t pin_mode);
/* Who a holder's map is for: its owner, group and mode. */
struct xsk_access {
	uid_t uid;
	gid_t gid;
	mode_t mode;
};
/* Does the group of a map with this mode reach it (read or write)? */
bool xsk_group_reaches(mode_t mode);
/* Does a pin's mode going from was to now take access away from its group
 * or from others? Then the map is made anew, as for a new owner: a VMM of
 * that group keeps the fds of the old one it opened, not access to the
 * new one. */
bool xsk_access_narrowed(mode_t was, mode_t now);
/* How attaching a map for want clashes with a live holder's map other:
 * XSK_CLASH_USER, the same owner (but root, which opens every map anyway);
 * XSK_CLASH_GROUP, the same group and that group reaches one of them (both
 * grant their group access, or one does and the group is not root's: the
 * group a map is given is its VMM's, which would reach the other map
 * through it); never with share. */
enum xsk_clash { XSK_CLASH_NONE, XSK_CLASH_USER, XSK_CLASH_GROUP, XSK_CLASH_MEMBER };
/* The groups a map's user is in (every one, not only the primary): a user
 * reaches a map whose group it is in as a member, too. */
#define XSK_MAX_GROUPS 64
struct xsk_members {
	gid_t gid[XSK_MAX_GROUPS];
	size_t n;
};
/* XSK_CLASH_MEMBER when one map grants its group access and the other
 * map's user is in that group (members: want's, other's; NULL: none). */
enum xsk_clash xsk_access_clash(const struct xsk_access *want, const struct xsk_members *wm,
				const struct xsk_access *other, const struct xsk_members *om,
				bool share);

/* Root's record of a holder's map: whom attach granted it to and which
 * map it is (its id), one line "uid U gid G mode 0MMM map-id N". Clashes
 * and reuse are decided from it, never from the pin's owner, group and
 * mode, which the map's owner can change. */
struct xsk_grant {
	struct xsk_access acc;
	uint32_t map_id;
};
#define XSK_GRANT_LEN 96
void xsk_grant_format(char *buf, size_t len, const struct xsk_grant *g);
/* True when text is such a line (a mode up to 0777, every field there). */
bool xsk_grant_parse(const char *text, struct xsk_grant *g);

#endif
