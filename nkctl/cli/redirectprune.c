// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl redirect prune: nkctl's pins, routes and programs whose device,
 * target or namespace is gone, removed (in the command's namespace with -n,
 * else in every one nkctl reaches), and the AF_XDP preparations of queues no
 * longer leased swept.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "compat.h"
#include "lookup.h"
#include "redirectprune.h"
#include "routedrop.h"
#include "xsksvc.h"

/* Remove what is dead in one hook's pins: all of it when its device is gone
 * (or it has no route left), else orphans and the routes whose target is gone
 * or is another device now (links NULL: the namespace is out of reach, its
 * targets cannot be checked). */
static void prune_table(struct removed_list *l, const char *dir, uint32_t hook,
			const struct nk_link_list *links)
{
	struct nk_target *v = NULL;
	struct orphan *o = NULL;
	size_t n = 0, no = 0, k = 0;
	struct table t;
	int ret = table_open(dir, hook, &t);

	if (ret == -ENOENT)
		pins_remove(dir, hook); /* maps of an interrupted attach */
	if (ret)
		return;
	if (t.defunct || !table_complete(&t) || table_empty(&t)) {
		remove_hook(l, dir, &t, hook, NULL);
		table_close(&t);
		return;
	}
	if (table_sweep(&t, true, &o, &no) == 0 && links && targets_list(&t, &v, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (!target_is(&v[i], nk_link_find(links, (int)v[i].ifindex)))
				v[k++] = v[i];
	remove_targets(l, dir, &t, hook, links ? nk_link_find(links, (int)t.link.ifindex) : NULL, v,
		       k, o, no);
	free(v);
	free(o);
	table_close(&t);
}

/* Every table of the namespace directory ns. */
static void prune_ns(const char *ns, const struct nk_link_list *links, struct removed_list *l)
{
	struct dirent *e;
	DIR *dd = opendir(ns);

	while (dd && (e = readdir(dd))) {
		struct pin_dir d = { .lock_fd = -1 };
		int ifindex;

		if (sscanf(e->d_name, "dev%d", &ifindex) != 1)
			continue;
		snprintf(d.path, sizeof(d.path), "%s/%.24s", ns, e->d_name);
		if (pin_dir_lock(&d, NULL, NULL, false))
			continue;
		for (const struct nk_choice *h = rt_hook_words; h->name; h++)
			prune_table(l, d.path, h->value, links);
		pin_dir_close(&d);
	}
	if (dd)
		closedir(dd);
	rmdir(ns); /* fails while pins stay: fine */
}

/* The devices of the namespace whose pin directory is dir, when nkctl
 * reaches it (inode and cookie both: a reused inode is another namespace). */
static bool ns_links(struct nk_ctx *ctx, const char *root, const char *dir,
		     struct nk_link_list *links)
{
	struct nk_ns *const *list;
	struct nl_err err;
	char path[NS_LEN];
	size_t n;

	if (nk_ns_reachable(ctx, &list, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		struct nl_sock *rt;

		if (rt_ns_dir(list[i], root, path) || strcmp(path, dir))
			continue;
		rt = nk_ns_try_rtnl(list[i]);
		return rt && rtnl_link_dump(rt, links, &err) == 0;
	}
	return false;
}

/* The directories of an older nkctl that prune removed (or could not). */
struct legacy {
	size_t n;
	char dir[8][NS_LEN];
	bool left[8];
};

static void legacy_remove(struct legacy *lg, const char *ns)
{
	size_t i = lg->n < 8 ? lg->n++ : 7;  /* more than 8: the last named */

	snprintf(lg->dir[i], sizeof(lg->dir[i]), "%s", ns);
	lg->left[i] = rt_legacy_remove(ns) != 0;
}

static void print_legacy(struct out *o, const struct legacy *lg)
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

/* Without -n: every namespace's directory, those of namespaces that are
 * gone (their devices with them) too, and an older nkctl's. */
static void prune_all(struct nk_ctx *ctx, const char *root, struct removed_list *l,
		      struct legacy *lg)
{
	char top[ROOT_LEN + 8], ns[NS_LEN];
	unsigned long long cookie;
	unsigned long ino;
	struct dirent *e;
	DIR *dd;

	snprintf(top, sizeof(top), "%s/nkctl", root);
	dd = opendir(top);
	while (dd && (e = readdir(dd))) {
		struct nk_link_list links = { 0 };
		bool known;

		snprintf(ns, sizeof(ns), "%s/%.40s", top, e->d_name);
		if (rt_ns_dir_legacy(e->d_name))
			legacy_remove(lg, ns);
		if (!rt_ns_dir_name(e->d_name, &ino, &cookie))
			continue;
		known = ns_links(ctx, root, ns, &links);
		prune_ns(ns, known ? &links : NULL, l);
		nk_link_list_free(&links);
	}
	if (dd)
		closedir(dd);
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
	struct nk_link_list links = { 0 };
	struct removed_list l = { 0 };
	char root[ROOT_LEN], ns[NS_LEN];
	struct legacy lg = { 0 };
	int ret;

	(void)args;
	ret = nk_bpffs_root(false, root, sizeof(root));
	if (ret && ret != -ENOENT)
		return rt_pin_root(root, false);
	if (!ret && ctx->netns) {
		ret = rt_here_dir(ctx, root, ns);
		if (!ret)
			ret = nk_links_here(ctx, &links);
		if (ret)
			return ret;
		prune_ns(ns, &links, &l);
		nk_link_list_free(&links);
	} else if (!ret) {
		prune_all(ctx, root, &l, &lg);
	}
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
