/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure rules of a holder's XSK map and its directory (xskfit.c): whether a
 * pinned map may be reused, the directory's mode, and which owners may not
 * hold two live holders' maps. Unit tests cover them (test_xskfit.c).
 */
#ifndef NKCTL_XSKFIT_H
#define NKCTL_XSKFIT_H

#include <stdbool.h>
#include <stdint.h>
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
/* The holder directory's mode for its pin's mode: 0700, and group search
 * (0750) when the pin grants its group read or write. */
mode_t xsk_dir_mode(mode_t pin_mode);
/* Does attaching a map for owner want clash with a live holder's map owned
 * by other? Only one live holder per owner but for root (which opens every
 * map anyway), unless the command says they share. */
bool xsk_owners_clash(uid_t want, uid_t other, bool share);

#endif
