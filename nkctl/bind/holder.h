/* SPDX-License-Identifier: GPL-2.0 */
/* The holder process (holder.c) that keeps a binding and its dmabuf alive. */
#ifndef NKCTL_HOLDER_H
#define NKCTL_HOLDER_H

#include "bind/bindings.h"
#include "dmabuf.h"

/* Keep binding b (made on ctx->genl) and dmabuf d alive as mode says. For
 * NK_HOLD_COMMAND, cmd is the NULL-terminated command line. Prints the
 * binding once it is held. Returns the exit status. */
int nk_hold(struct nk_ctx *ctx, struct nk_binding *b, struct nk_dmabuf *d,
	    enum nk_hold_mode mode, char **cmd);

#endif
