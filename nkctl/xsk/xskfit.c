// SPDX-License-Identifier: GPL-2.0
/*
 * Pure rules of a holder's XSK map and its directory (xskfit.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>

#include "xsk.h"         /* bpf/xsk.h: NK_XSK_HOLDER_QUEUES */
#include "xsk/xskfit.h"

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

static bool member(const struct xsk_members *m, gid_t gid)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (m->gid[i] == gid)
			return true;
	return false;
}

enum xsk_clash xsk_access_clash(const struct xsk_access *want, const struct xsk_members *wm,
				const struct xsk_access *other, const struct xsk_members *om,
				bool share)
{
	bool w = xsk_group_reaches(want->mode), o = xsk_group_reaches(other->mode);

	if (share)
		return XSK_CLASH_NONE;
	if (want->uid && want->uid == other->uid)
		return XSK_CLASH_USER;
	if (want->gid == other->gid && ((w && o) || (want->gid && (w || o))))
		return XSK_CLASH_GROUP;
	/* A member of the other map's group reaches it through the group. */
	if ((o && want->uid && member(wm, other->gid)) || (w && other->uid && member(om, want->gid)))
		return XSK_CLASH_MEMBER;
	return XSK_CLASH_NONE;
}

void xsk_grant_format(char *buf, size_t len, const struct xsk_grant *g)
{
	snprintf(buf, len, "uid %u gid %u mode %04o map-id %u\n", (unsigned int)g->acc.uid,
		 (unsigned int)g->acc.gid, (unsigned int)(g->acc.mode & 0777), g->map_id);
}

bool xsk_grant_parse(const char *text, struct xsk_grant *g)
{
	unsigned int uid, gid, mode, id;
	int end = -1;

	if (sscanf(text, "uid %u gid %u mode %o map-id %u%n", &uid, &gid, &mode, &id, &end) != 4 ||
	    end < 0 || (text[end] && strcmp(text + end, "\n")) || mode > 0777)
		return false;
	*g = (struct xsk_grant){ { uid, gid, mode }, id };
	return true;
}
