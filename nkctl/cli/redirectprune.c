// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl redirect prune: nkctl's pins, routes and programs whose device,
 * target or namespace is gone, removed (redirect/prune.c), and the AF_XDP
 * preparations of queues no longer leased swept; what went, printed.
 */
#include <errno.h>

#include "cli/redirectprune.h"
#include "redirect/prune.h"
#include "xsk/xsksweep.h"

static void print_legacy(struct out *o, const struct nk_prune_legacy *lg)
{
	out_arr_open(o, "old-pins");
	for (size_t i = 0; i < lg->n; i++) {
		out_obj_open(o, NULL);
		out_str(o, "pin", "%s", lg->dir[i]);
		out_bool(o, "removed", NULL, !lg->left[i]);
		out_obj_close(o);
		out_text(o, lg->left[i] ? ": pins of an older nkctl (net<inode>, no netns cookie) that could not all be removed\n" :
					  ": pins of an older nkctl (net<inode>, no netns cookie) removed, their redirects detached: attach them again\n");
	}
	out_arr_close(o);
}

/* The AF_XDP pins the sweep removed: holders' maps, NICs' programs. */
static void print_xsk_pruned(struct out *o, const struct nk_xsk_pruned *xp)
{
	out_arr_open(o, "xsk-pruned");
	for (size_t i = 0; i < xp->n; i++) {
		out_obj_open(o, NULL);
		out_str(o, "pin", "pruned %s", xp->pin[i]);
		out_text(o, " (AF_XDP: its queue is no longer leased, or no queue names it)\n");
		out_obj_close(o);
	}
	out_arr_close(o);
}

int cmd_redirect_prune(struct nk_ctx *ctx, const void *args)
{
	struct nk_xsk_pruned xp = { 0 };
	struct removed_list l = { 0 };
	struct nk_prune_legacy lg = { 0 };
	char root[ROOT_LEN];
	int ret;

	(void)args;
	ret = nk_bpffs_root(false, root, sizeof(root));
	if (ret && ret != -ENOENT)
		return rt_pin_root(root, false);
	if (!ret && (ret = nk_redirect_prune(ctx, root, &l, &lg)))
		return ret;
	nk_xsk_sweep(ctx, true, &xp);  /* AF_XDP attaches of queues no longer leased */
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "pruned");
	print_removed(&ctx->out, "pruned", &l);
	out_arr_close(&ctx->out);
	print_legacy(&ctx->out, &lg);
	print_xsk_pruned(&ctx->out, &xp);
	out_end(&ctx->out);
	removed_free(&l);
	nk_xsk_pruned_free(&xp);
	return NK_EXIT_OK;
}
