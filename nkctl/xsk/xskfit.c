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

mode_t xsk_dir_mode(mode_t pin_mode)
{
	return (pin_mode & 0060) ? 0750 : 0700;
}

bool xsk_owners_clash(uid_t want, uid_t other, bool share)
{
	return want != 0 && want == other && !share;
}
