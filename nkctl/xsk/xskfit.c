// SPDX-License-Identifier: GPL-2.0
/*
 * Pure rules of a holder's XSK map and its directory (xskfit.h).
 */
#include <stddef.h>
#include <linux/bpf.h>

#include "xsk.h"         /* bpf/xsk.h: NK_XSK_HOLDER_QUEUES */
#include "xskfit.h"

const char *xsk_map_misfit(const struct xsk_map_shape *m)
{
	if (m->type != BPF_MAP_TYPE_XSKMAP || m->key_size != sizeof(__u32) ||
	    m->value_size != sizeof(__u32))
		return "type";
	if (m->max_entries != NK_XSK_HOLDER_QUEUES)
		return "size";
	if (m->flags)
		return "flags";
	return NULL;
}

const char *xsk_pin_foreign(const struct stat *st, bool on_bpffs)
{
	if (S_ISLNK(st->st_mode))
		return "a symbolic link";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (!S_ISREG(st->st_mode))
		return "not a pinned object";
	if (!on_bpffs)
		return "not on bpffs";
	/* another name of the same map: the VMM linked it in from elsewhere */
	if (st->st_nlink != 1)
		return "a hard link";
	return NULL;
}

bool xsk_group_reaches(mode_t mode)
{
	return mode & 0060;
}

bool xsk_access_narrowed(mode_t was, mode_t now)
{
	return was & ~now & 0066;
}

mode_t xsk_dir_mode(mode_t pin_mode)
{
	return xsk_group_reaches(pin_mode) ? 0750 : 0700;
}

enum xsk_clash xsk_access_clash(const struct xsk_access *want, const struct xsk_access *other,
				bool share)
{
	bool w = xsk_group_reaches(want->mode), o = xsk_group_reaches(other->mode);

	if (share)
		return XSK_CLASH_NONE;
	if (want->uid && want->uid == other->uid)
		return XSK_CLASH_USER;
	if (want->gid == other->gid && ((w && o) || (want->gid && (w || o))))
		return XSK_CLASH_GROUP;
	return XSK_CLASH_NONE;
}
