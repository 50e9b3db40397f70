// SPDX-License-Identifier: GPL-2.0
/*
 * The route-table service other commands use: after link del or unlease, the
 * devices gone are taken out of nkctl's route tables (their own tables and
 * their routes in others); doctor reads a device's table and asks which
 * target an address routes to.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "compat.h"
#include "core/lookup.h"
#include "redirect/routedrop.h"
#include "redirect/routesvc.h"

/* ---- link del, unlease ---- */

size_t nk_gone_of(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *l,
		  const struct nk_link *peer, struct nk_link *there, struct nk_gone g[NK_GONE_MAX])
{
	struct nk_ns *pns;
	struct nl_sock *rt;

	g[0].ns = ns;
	g[0].link = l;
	if (peer && peer->ifname[0]) {
		g[1].ns = ns;
		g[1].link = peer;
		return 2;
	}
	if (!peer || !(l->have & LINK_HAVE_LINK_NETNSID))
		return 1;
	pns = nk_ns_by_nsid(ctx, ns, l->link_netnsid);
	if (!pns || !(rt = nk_ns_try_rtnl(pns)) ||
	    nk_link_lookup(rt, NULL, l->link, there, NULL, true))
		return 1;
	g[1].ns = pns;
	g[1].link = there;
	return 2;
}

enum { HOOKS_MAX = 8 };

/* Which pins of each hook's table the locked directory dir holds (bit
 * 1 << PIN_*), from one listing, so that a hook without a table costs no
 * failed opens; false when it cannot be listed. */
static bool pins_held(const char *dir, unsigned int have[HOOKS_MAX])
{
	char pin[PIN_LEN];
	struct dirent *e;
	DIR *dd;
	size_t k;

	for (k = 0; k < HOOKS_MAX; k++)
		have[k] = 0;
	for (k = 0; rt_hook_words[k].name; k++)
		;
	if (k > HOOKS_MAX || !(dd = opendir(dir)))
		return false;
	while ((e = readdir(dd)))
		for (k = 0; rt_hook_words[k].name; k++)
			for (int i = 0; i < PIN_N; i++) {
				pin_path(dir, rt_hook_words[k].value, i, pin);
				if (!strcmp(strrchr(pin, '/') + 1, e->d_name))
					have[k] |= 1u << i;
			}
	closedir(dd);
	return true;
}

/* Might hook's table in dir route to gone? Its targets map alone answers
 * (one open and a lookup) where opening the whole table takes a dozen
 * calls; every directory of the namespace is asked at each link del. */
static bool may_route_to(const char *dir, uint32_t hook, const struct nk_link *gone)
{
	char pin[PIN_LEN];
	struct nk_target rec;
	struct table t;
	bool maybe;
	int ret;

	memset(&t, 0, sizeof(t));
	for (int i = 0; i < PIN_N; i++)
		t.fd[i] = -1;
	pin_path(dir, hook, PIN_TARGETS, pin);
	t.fd[PIN_TARGETS] = bpf_obj_get(pin);
	if (t.fd[PIN_TARGETS] < 0)
		return true;
	ret = target_get(&t, (uint32_t)gone->ifindex, &rec);
	maybe = ret ? ret != -ENOENT : target_is(&rec, gone);
	table_close(&t);
	return maybe;
}

/* The routes of every device of gone in the tables of one device directory
 * (its own: all), the directory locked once. */
static void forget_in(const char *dir, const struct nk_link *gone, size_t n, bool own,
		      struct removed_list *l)
{
	struct pin_dir d = { .lock_fd = -1 };
	unsigned int have[HOOKS_MAX];
	bool listed;

	snprintf(d.path, sizeof(d.path), "%s", dir);
	if (pin_dir_lock(&d, NULL, NULL, false))
		return;
	listed = pins_held(d.path, have);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		for (const struct nk_choice *h = rt_hook_words; h->name; h++, k++) {
			/* as table_complete: an older table has no device map */
			bool complete = (have[k] & ((1u << PIN_DEVS) - 1)) == (1u << PIN_DEVS) - 1;
			struct nk_target rec;
			struct table t;

			if (listed && (!(have[k] & (1u << PIN_LINK)) ||
				       (!own && complete && !may_route_to(d.path, h->value, &gone[i]))))
				continue;
			if (table_open(d.path, h->value, &t))
				continue;
			if (own || !table_complete(&t))
				remove_hook(l, d.path, &t, h->value, NULL);
			else if (target_get(&t, (uint32_t)gone[i].ifindex, &rec) == 0 &&
				 target_is(&rec, &gone[i]))
				remove_targets(l, d.path, &t, h->value, NULL, &rec, 1, NULL, 0);
			table_close(&t);
		}
	}
	pin_dir_close(&d);
}

/* The gone devices of namespace where, in its tables. */
static void forget_ns(struct nk_ns *where, const struct nk_gone *gone, size_t n,
		      struct removed_list *l)
{
	char root[ROOT_LEN], ns[NS_LEN], dir[DIR_LEN];
	struct nk_link here[NK_GONE_MAX];
	struct dirent *e;
	DIR *dd = NULL;
	size_t m = 0;

	for (size_t i = 0; i < n && m < NK_GONE_MAX; i++)
		if (gone[i].ns == where)
			here[m++] = *gone[i].link;
	if (!nk_bpffs_root(false, root, sizeof(root)) && !rt_ns_dir(where, root, ns))
		dd = opendir(ns);
	while (dd && (e = readdir(dd))) {
		int ifindex;
		bool own = false;

		if (sscanf(e->d_name, "dev%d", &ifindex) != 1)
			continue;
		for (size_t i = 0; i < n; i++)
			own |= gone[i].ns == where && gone[i].link->ifindex == ifindex;
		snprintf(dir, sizeof(dir), "%s/%.24s", ns, e->d_name);
		forget_in(dir, here, m, own, l);
	}
	if (dd)
		closedir(dd);
}

void nk_redirect_forget(struct nk_ctx *ctx, const struct nk_gone *gone, size_t n)
{
	struct removed_list l = { 0 };

	for (size_t i = 0; i < n; i++) {
		bool done = false;

		for (size_t j = 0; j < i; j++)
			done |= gone[j].ns == gone[i].ns;
		if (!done && gone[i].ns)
			forget_ns(gone[i].ns, gone, n, &l);
	}
	out_arr_open(&ctx->out, "detached");
	print_removed(&ctx->out, "detached", &l);
	out_arr_close(&ctx->out);
	removed_free(&l);
}

/* ---- readers for doctor ---- */

/* The pin directory of device ifindex of the command's namespace. */
static int dev_dir(struct nk_ctx *ctx, int ifindex, char *dir)
{
	char root[ROOT_LEN], ns[NS_LEN];
	int ret = nk_bpffs_root(false, root, sizeof(root));

	if (ret)
		return ret;
	if (rt_here_dir(ctx, root, ns))
		return -EIO;
	snprintf(dir, DIR_LEN, "%s/dev%d", ns, ifindex);
	return 0;
}

int nk_redirect_read(struct nk_ctx *ctx, int ifindex, uint32_t hook, struct nk_redirect_table *out)
{
	char dir[DIR_LEN];
	struct table t;
	int ret = dev_dir(ctx, ifindex, dir);

	memset(out, 0, sizeof(*out));
	if (!ret)
		ret = table_open(dir, hook, &t);
	if (ret)
		return ret;
	out->defunct = t.defunct;
	out->action = t.action;
	live_targets(&t, &out->targets, &out->n);
	table_close(&t);
	return 0;
}

void nk_redirect_table_free(struct nk_redirect_table *t)
{
	free(t->targets);
	memset(t, 0, sizeof(*t));
}

uint32_t nk_redirect_route(struct nk_ctx *ctx, int ifindex, uint32_t hook,
			   const struct nk_prefix *addr, uint8_t *len)
{
	char dir[DIR_LEN];
	unsigned char key[20];
	struct nk_route r = { 0 };
	struct table t;

	if (dev_dir(ctx, ifindex, dir) || table_open(dir, hook, &t))
		return 0;
	route_key(addr, key);
	if (route_fd(&t, addr) < 0 || bpf_map_lookup_elem(route_fd(&t, addr), key, &r))
		r.ifindex = 0;
	table_close(&t);
	*len = (uint8_t)r.prefixlen;
	return r.ifindex;
}

void nk_format_prefix(const struct nk_prefix *p, char *buf, size_t len)
{
	rt_format_prefix(p, buf, len);
}
