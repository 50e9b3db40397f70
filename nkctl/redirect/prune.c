// SPDX-License-Identifier: GPL-2.0
/*
 * What redirect prune removes (prune.h): nkctl's pins, routes and programs
 * whose device, target or namespace is gone, in the command's namespace
 * with -n, else in every one nkctl reaches and those of namespaces gone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "core/lookup.h"
#include "redirect/prune.h"

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

static void legacy_remove(struct nk_prune_legacy *lg, const char *ns)
{
	size_t i = lg->n < 8 ? lg->n++ : 7;  /* more than 8: the last named */

	snprintf(lg->dir[i], sizeof(lg->dir[i]), "%s", ns);
	lg->left[i] = rt_legacy_remove(ns) != 0;
}

/* Without -n: every namespace's directory, those of namespaces that are
 * gone (their devices with them) too, and an older nkctl's. */
static void prune_all(struct nk_ctx *ctx, const char *root, struct removed_list *l,
		      struct nk_prune_legacy *lg)
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

int nk_redirect_prune(struct nk_ctx *ctx, const char *root, struct removed_list *l,
		      struct nk_prune_legacy *lg)
{
	struct nk_link_list links = { 0 };
	char ns[NS_LEN];
	int ret;

	if (!ctx->netns) {
		prune_all(ctx, root, l, lg);
		return 0;
	}
	ret = rt_here_dir(ctx, root, ns);
	if (!ret)
		ret = nk_links_here(ctx, &links);
	if (ret)
		return ret;
	prune_ns(ns, &links, l);
	nk_link_list_free(&links);
	return 0;
}
