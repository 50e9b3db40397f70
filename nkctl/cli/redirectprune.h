/* SPDX-License-Identifier: GPL-2.0 */
/* redirect prune (redirectprune.c), a row of redirect.c's table. */
#ifndef NKCTL_REDIRECTPRUNE_H
#define NKCTL_REDIRECTPRUNE_H

#include "core/ctx.h"

int cmd_redirect_prune(struct nk_ctx *ctx, const void *args);

#endif
