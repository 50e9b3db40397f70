/* SPDX-License-Identifier: GPL-2.0 */
/* What redirect prune removes (prune.c). */
#ifndef NKCTL_REDIRECT_PRUNE_H
#define NKCTL_REDIRECT_PRUNE_H

#include "core/ctx.h"
#include "redirect/routedrop.h"

/* The directories of an older nkctl that prune removed (or could not); more
 * than 8: the last one named. */
struct nk_prune_legacy {
	size_t n;
	char dir[8][NS_LEN];
	bool left[8];
};

/* Remove what is dead under root's pins into *l: of the command's namespace
 * with -n, else of every namespace (those gone too) and an older nkctl's
 * directories (*lg). 0, or the exit code after the error. */
int nk_redirect_prune(struct nk_ctx *ctx, const char *root, struct removed_list *l,
		      struct nk_prune_legacy *lg);

#endif
