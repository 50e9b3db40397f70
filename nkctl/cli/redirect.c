// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl redirect attach | detach | show | prune, on the route tables of
 * routes.c (removals: routedrop.c): nkctl's steering programs
 * (bpf/redirect.bpf.c, embedded), one per (device, hook), routing by
 * destination to target devices. The program is loaded and attached on a
 * hook's first route; after that, a target's routes are map updates under
 * the device's pin-directory lock, and a target's record is read by its key
 * (no command walks every target of a table but show, prune and a table's
 * removal).
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
#include "core/cmd.h"
#include "core/lookup.h"
#include "cli/redirectprune.h"
#include "redirect/routedrop.h"

struct redirect_args {
	const char *dev, *to;
	uint32_t hook, action;
	struct nk_strlist prefixes;
	bool replace;
};
enum { R_DEV, R_TO, R_PREFIX, R_HOOK, R_ACTION, R_REPLACE };
#define RP(kw, type, field, meta, ch, req) \
	{ kw, type, offsetof(struct redirect_args, field), meta, 0, 0, ch, req, NULL }
static const struct nk_param attach_params[] = {
	[R_DEV] = RP("dev", NKP_IFNAME, dev, "DEV", NULL, true),
	[R_TO] = RP("to", NKP_IFNAME, to, "TARGET", NULL, true),
	[R_PREFIX] = RP("prefix", NKP_LIST, prefixes, "PREFIX", NULL, false),
	[R_HOOK] = RP("hook", NKP_ENUM, hook, "HOOK", rt_hook_words, false),
	[R_ACTION] = RP("action", NKP_ENUM, action, "ACTION", rt_action_words, false),
	[R_REPLACE] = RP("replace", NKP_FLAG, replace, NULL, NULL, false),
};
static const struct nk_params attach_p = {
	NK_PARAMS("redirect attach", struct redirect_args, attach_params)
};
enum { D_DEV, D_TO, D_HOOK };
static const struct nk_param detach_params[] = {
	[D_DEV] = RP("dev", NKP_IFNAME, dev, "DEV", NULL, true),
	[D_TO] = RP("to", NKP_IFNAME, to, "TARGET", NULL, false),
	[D_HOOK] = RP("hook", NKP_ENUM, hook, "HOOK", rt_hook_words, false),
};
static const struct nk_params detach_p = {
	NK_PARAMS("redirect detach", struct redirect_args, detach_params)
};
static const struct nk_param show_params[] = {
	RP("dev", NKP_IFNAME, dev, "DEV", NULL, false),
};
static const struct nk_params show_p = {
	NK_PARAMS("redirect show", struct redirect_args, show_params)
};

static int want_prefix(struct nk_target *want, const char *s)
{
	struct nk_prefix p;
	int ret = parse_prefix(s, &p);

	if (ret || rt_prefix_in(&p, want->p, want->n))
		return ret;
	if (want->n == NK_TARGET_PREFIXES)
		return nk_error(NK_EXIT_USAGE, "at most %d prefixes per target",
				NK_TARGET_PREFIXES);
	want->p[want->n++] = p;
	return 0;
}

/* The prefixes of the command line; "default" (or none) means the default
 * routes of both families. */
static int want_prefixes(const struct redirect_args *a, struct nk_target *want)
{
	static const char *const dflt[] = { "default" };
	const char *const *v = a->prefixes.n ? a->prefixes.v : dflt;
	size_t n = a->prefixes.n ? a->prefixes.n : 1;
	int ret = 0;

	want->n = 0;
	for (size_t i = 0; !ret && i < n; i++) {
		if (strcmp(v[i], "default"))
			ret = want_prefix(want, v[i]);
		else if (!(ret = want_prefix(want, "0.0.0.0/0")))
			ret = want_prefix(want, "::/0");
	}
	return ret;
}


/* What attach did, for its output. */
struct attach_result {
	bool created;
	struct change c;
};

/* A table as show and attach print it. */
struct table_view {
	const struct table *t;
	const struct nk_link *dev;      /* NULL: gone */
	uint32_t hook;
	const char *dir;
	const struct nk_target *v;
	size_t n;
	const struct nk_link_list *links; /* NULL: targets not checked */
	const struct orphan *orphans;   /* show only */
	size_t norphans;
};

static void print_table(struct out *o, const struct table_view *tv,
			const struct attach_result *res)
{
	const struct table *t = tv->t;
	char pin[PIN_LEN];

	pin_path(tv->dir, tv->hook, PIN_LINK, pin);
	out_obj_open(o, NULL);
	print_hook_id(o, t, tv->dev, tv->hook);
	if (t->action >= 0)
		out_str(o, "action", " %s", nk_choice_word(rt_action_words, (uint32_t)t->action));
	out_uint(o, "prog-id", " prog-id %llu", t->link.prog_id);
	out_uint(o, "link-id", " link-id %llu", t->link.id);
	/* As the host sees it, not through /proc/PID/root. */
	out_str(o, "pin", NULL, strncmp(pin, "/proc/", 6) ? pin : strstr(pin, "/root/") + 5);
	out_bool(o, "defunct", NULL, t->defunct);
	if (t->defunct)
		out_text(o, " DEFUNCT (the device is gone)");
	if (res) {
		out_bool(o, "changed", NULL, res->c.changed);
		out_bool(o, "replaced", NULL, res->c.replaced);
		out_text(o, res->created ? " (attached)" : res->c.replaced ? " (replaced)" :
			    res->c.changed ? " (changed)" : " (unchanged)");
	}
	print_routes(o, tv->v, tv->n, tv->links);
	if (!res)
		print_orphans(o, tv->orphans, tv->norphans,
			      "(no record: prune removes it)");
	out_text(o, "\n");
	out_obj_close(o);
}

/* ---- attach ---- */

static int busy(const struct table *t, const struct nk_link *dev, uint32_t hook, uint32_t owner,
		const char *what)
{
	struct nk_target rec;

	if (target_get(t, owner, &rec))
		snprintf(rec.ifname, sizeof(rec.ifname), "ifindex %u", owner);
	return nk_error(NK_EXIT_EXISTS,
			"%s at %s of \"%s\": routed to \"%s\" already; say \"replace\" to take it",
			what, rt_hook_name(hook), dev->ifname, rec.ifname);
}

/* Pod egress keeps one target: another target, or another prefix set of the
 * same one, needs replace. */
static int check_egress(const struct table *t, const struct nk_link *dev, uint32_t hook,
			const struct nk_target *old, const struct nk_target *want, bool replace,
			struct change *c)
{
	struct nk_target *v;
	size_t n;
	int ret = targets_list(t, &v, &n);

	for (size_t i = 0; !ret && i < n; i++) {
		if (v[i].ifindex == want->ifindex)
			continue;
		if (!replace)
			ret = busy(t, dev, hook, v[i].ifindex, "pod egress (one target per device)");
		else if ((ret = target_remove(t, &v[i])))
			ret = nk_error_errno(-ret, "cannot update the route table");
		c->replaced = true;
	}
	free(v);
	if (!ret && old->n && !rt_same_set(old, want)) {
		if (!replace)
			return busy(t, dev, hook, want->ifindex, "pod egress with other prefixes");
		c->replaced = true;
	}
	return ret;
}

/* Another target's exact prefixes need replace. */
static int check_owners(const struct table *t, const struct nk_link *dev, uint32_t hook,
			const struct nk_target *want, bool replace)
{
	char what[INET6_ADDRSTRLEN + 16];

	for (uint32_t i = 0; i < want->n; i++) {
		uint32_t owner = route_owner(t, &want->p[i]);

		if (owner && owner != want->ifindex && !replace) {
			strcpy(what, "prefix ");
			rt_format_prefix(&want->p[i], what + 7, sizeof(what) - 7);
			return busy(t, dev, hook, owner, what);
		}
	}
	return 0;
}

/* The target's record as it stands: empty when there is none, or when it is
 * a gone device's whose ifindex want's device got (its routes go first). */
static int old_record(const struct table *t, const struct nk_target *want, struct nk_target *old)
{
	int ret;

	if (target_get(t, want->ifindex, old))
		return 0;
	if (target_same(old, want)) {
		target_live_prefixes(t, old);
		return 0;
	}
	ret = target_remove(t, old);
	memset(old, 0, sizeof(*old));
	return ret;
}

static int attach_routes(const struct table *t, const struct nk_link *dev, uint32_t hook,
			 const struct nk_target *want, bool replace, struct change *c)
{
	struct nk_target old;
	int ret = table_mend(t);

	if (!ret)
		ret = old_record(t, want, &old);
	if (ret)
		return nk_error_errno(-ret, "cannot update the route table");
	if (t->action == ACTION_NEIGH)
		ret = check_egress(t, dev, hook, &old, want, replace, c);
	else
		ret = check_owners(t, dev, hook, want, replace);
	if (!ret && (ret = routes_set(t, &old, want, c)))
		ret = nk_error_errno(-ret, "cannot update the route table");
	c->changed |= c->replaced;
	return ret;
}

/* The action: as asked, or what the hook runs already, or by the prefixes:
 * pod ingress (prefixes) hands packets to the peer, pod egress goes out
 * through the NIC's neighbour. A NIC's table (redirect-peer) takes a default
 * route only when it is named: one would take the host's own traffic. */
static int attach_action(struct nk_ctx *ctx, const struct redirect_args *a, const char *dir,
			 uint32_t hook)
{
	struct table t;
	int now = -1, action;

	if (table_open(dir, hook, &t) == 0) {
		if (!t.defunct)
			now = t.action;
		table_close(&t);
	}
	if (!(ctx->given & (1ULL << R_ACTION)))
		action = now >= 0 ? now : a->prefixes.n ? ACTION_PEER : ACTION_NEIGH;
	else if (now >= 0 && now != (int)a->action)
		return -nk_error(NK_EXIT_EXISTS,
				 "%s of \"%s\" runs %s; detach it first to run %s there",
				 rt_hook_name(hook), a->dev, rt_action_words[now].name,
				 rt_action_words[a->action].name);
	else
		action = (int)a->action;
	if (action == ACTION_PEER && !a->prefixes.n)
		return -nk_error(NK_EXIT_USAGE,
				 "%s of \"%s\" routes to pods (redirect-peer): without \"prefix\" this would be a default route that takes the host's own traffic too; say \"prefix 0.0.0.0/0\" (or \"prefix default\") if that is meant",
				 rt_hook_name(hook), a->dev);
	return action;
}

static int attach_prepare(struct nk_ctx *ctx, const struct redirect_args *a, uint32_t hook,
			  struct nk_link *dev, struct nk_target *want, struct pin_dir *d, char *root,
			  char *ns)
{
	struct nk_link target;
	int ret = nk_dev(ctx, a->dev, dev);

	if (!ret)
		ret = nk_dev(ctx, a->to, &target);
	if (!ret && target.ifindex == dev->ifindex)
		ret = nk_error(NK_EXIT_USAGE, "\"to\" must be another device than \"dev\"");
	if (!ret)
		ret = want_prefixes(a, want);
	if (!ret)
		ret = rt_pin_root(root, true);
	if (!ret)
		ret = rt_here_dir(ctx, root, ns);
	if (ret)
		return ret;
	target_identify(want, &target);
	snprintf(d->path, sizeof(d->path), "%s/dev%d", ns, dev->ifindex);
	/* A refused default route makes no directory (checked again locked). */
	if (!a->prefixes.n && (ret = attach_action(ctx, a, d->path, hook)) < 0)
		return -ret;
	return pin_dir_lock(d, root, ns, true);
}

static int cmd_redirect_attach(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	uint32_t hook = (ctx->given & (1ULL << R_HOOK)) ? a->hook : NK_BPF_TCX_INGRESS;
	struct pin_dir d = { .lock_fd = -1 };
	struct attach_result res = { 0 };
	char root[ROOT_LEN], ns[NS_LEN];
	struct nk_target want;
	struct nk_link dev;
	struct table t;
	int action, ret;

	memset(&want, 0, sizeof(want));
	ret = attach_prepare(ctx, a, hook, &dev, &want, &d, root, ns);
	if (ret)
		goto out;
	action = attach_action(ctx, a, d.path, hook);
	if (action < 0) {
		ret = -action;
		goto out;
	}
	ret = table_get(ctx, &dev, hook, action, d.path, &t, &res.created);
	if (ret)
		goto out;
	ret = attach_routes(&t, &dev, hook, &want, a->replace, &res.c);
	if (!ret) {
		struct table_view tv = { &t, &dev, hook, d.path, &want, 1, NULL, NULL, 0 };

		out_begin(&ctx->out);
		out_arr_open(&ctx->out, "redirects");
		print_table(&ctx->out, &tv, &res);
		out_arr_close(&ctx->out);
		out_end(&ctx->out);
	}
	/* The first route failed: no program without routes. */
	if (ret && table_empty(&t))
		pins_remove(d.path, hook);
	table_close(&t);
out:
	pin_dir_close(&d);
	return ret;
}

/* ---- detach ---- */

/* dev and to as they are now: NULL when gone (their pins may remain). */
struct names {
	struct nl_sock *rt;
	const struct nk_link *dev, *to;
};

/* The records of the target called to: by its key when the device lives
 * (one lookup), else by the name recorded for a device that is gone. */
static int named_targets(const struct table *t, const char *to, const struct names *nm,
			 struct nk_target **v, size_t *n)
{
	size_t k = 0;
	int ret;

	*n = 0;
	if (nm->to) {
		*v = malloc(sizeof(**v));
		if (!*v)
			return -ENOMEM;
		if (target_get(t, (uint32_t)nm->to->ifindex, *v) == 0 && target_is(*v, nm->to))
			*n = 1;
		return 0;
	}
	ret = targets_list(t, v, n);
	for (size_t i = 0; !ret && i < *n; i++) {
		struct nk_link l;
		bool live = nk_link_lookup(nm->rt, NULL, (int)(*v)[i].ifindex, &l, NULL, true) == 0;

		if (!strcmp((*v)[i].ifname, to) && !(live && target_is(&(*v)[i], &l)))
			(*v)[k++] = (*v)[i];
	}
	*n = k;
	return ret;
}

/* Detach to's routes (NULL: the whole hook) from one table. */
static int detach_table(struct removed_list *l, const char *dir, uint32_t hook, const char *to,
			const struct names *nm)
{
	struct nk_target *v = NULL;
	struct orphan *o = NULL;
	size_t n = 0, no = 0;
	struct table t;
	int ret = table_open(dir, hook, &t);

	if (ret == -ENOENT)
		pins_remove(dir, hook); /* maps of an interrupted attach or detach */
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return nk_error_errno(-ret, "cannot open the pins of %s in %s", rt_hook_name(hook),
				      dir);
	if (!to || !table_complete(&t)) {
		ret = remove_hook(l, dir, &t, hook, nm->dev);
	} else {
		/* What a killed writer left is swept and said first. */
		if (t.info.changing)
			ret = table_sweep(&t, true, &o, &no);
		if (!ret)
			ret = named_targets(&t, to, nm, &v, &n);
		if (!ret)
			ret = remove_targets(l, dir, &t, hook, nm->dev, v, n, o, no);
	}
	free(v);
	free(o);
	table_close(&t);
	return ret ? nk_error_errno(-ret, "cannot update the route table") : 0;
}

/* The pin directories of the device called name: its own when it exists,
 * else those of gone devices that had that name. */
static size_t dev_dirs(const char *ns, const char *name, const struct nk_link *dev,
		       char (*dirs)[DIR_LEN], size_t max)
{
	struct dirent *e;
	size_t n = 0;
	DIR *dd;

	if (dev) {
		snprintf(dirs[0], DIR_LEN, "%s/dev%d", ns, dev->ifindex);
		return 1;
	}
	dd = opendir(ns);
	while (dd && n < max && (e = readdir(dd))) {
		int ifindex;

		if (sscanf(e->d_name, "dev%d", &ifindex) != 1)
			continue;
		snprintf(dirs[n], DIR_LEN, "%s/%.24s", ns, e->d_name);
		for (const struct nk_choice *h = rt_hook_words; h->name; h++) {
			struct table t;
			bool his;

			if (table_open(dirs[n], h->value, &t))
				continue;
			his = t.defunct && !strcmp(t.info.ifname, name);
			table_close(&t);
			if (his) {
				n++;
				break;
			}
		}
	}
	if (dd)
		closedir(dd);
	return n;
}

static int detach_dirs(struct nk_ctx *ctx, const struct redirect_args *a, const char *ns,
		       const struct names *nm, struct removed_list *l)
{
	char dirs[8][DIR_LEN];
	size_t n = dev_dirs(ns, a->dev, nm->dev, dirs, 8);
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		struct pin_dir d = { .lock_fd = -1 };

		snprintf(d.path, sizeof(d.path), "%.*s", DIR_LEN - 1, dirs[i]);
		ret = pin_dir_lock(&d, NULL, NULL, false);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		for (const struct nk_choice *h = rt_hook_words; !ret && h->name; h++)
			if (!(ctx->given & (1ULL << D_HOOK)) || h->value == a->hook)
				ret = detach_table(l, d.path, h->value, a->to, nm);
		pin_dir_close(&d);
	}
	return ret;
}

static int detach_lookup(struct nk_ctx *ctx, const struct redirect_args *a, struct names *nm,
			 struct nk_link *dev, struct nk_link *to)
{
	int ret = nk_ctx_rtnl(ctx, &nm->rt);

	if (ret)
		return ret;
	ret = nk_link_lookup(nm->rt, a->dev, 0, dev, NULL, true);
	nm->dev = ret ? NULL : dev;
	if (ret && ret != -ENODEV)
		return ret;
	ret = a->to ? nk_link_lookup(nm->rt, a->to, 0, to, NULL, true) : -ENODEV;
	nm->to = ret ? NULL : to;
	return ret && ret != -ENODEV ? ret : 0;
}

/* Found: something of to's (or the hook) went, not only orphans. */
static bool detached_any(const struct removed_list *l, const char *to)
{
	for (size_t i = 0; i < l->n; i++)
		if (!to || l->v[i].n)
			return true;
	return false;
}

static int cmd_redirect_detach(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	bool one = ctx->given & (1ULL << D_HOOK);
	struct removed_list l = { 0 };
	struct names nm = { 0 };
	char root[ROOT_LEN], ns[NS_LEN];
	struct nk_link dev, to;
	int ret;

	ret = nk_bpffs_root(false, root, sizeof(root));
	if (ret && ret != -ENOENT)
		return rt_pin_root(root, false);
	if (!ret) {
		ret = rt_here_dir(ctx, root, ns);
	} else {
		ns[0] = '\0';    /* no bpffs: nothing to detach */
		ret = 0;
	}
	if (!ret)
		ret = detach_lookup(ctx, a, &nm, &dev, &to);
	if (!ret && ns[0])
		ret = detach_dirs(ctx, a, ns, &nm, &l);
	if (!ret && !detached_any(&l, a->to) && !ctx->force)
		ret = nk_error(NK_EXIT_NOTFOUND, "nkctl has no redirect on \"%s\"%s%s%s%s", a->dev,
			       one ? " at " : "", one ? rt_hook_name(a->hook) : "",
			       a->to ? " to " : "", a->to ? a->to : "");
	if (!ret) {
		out_begin(&ctx->out);
		out_arr_open(&ctx->out, "detached");
		print_removed(&ctx->out, "detached", &l);
		out_arr_close(&ctx->out);
		out_end(&ctx->out);
	}
	removed_free(&l);
	return ret;
}

/* ---- show ---- */


/* nkctl's tables in dir (one device's): print each, note its link id. */
static void show_dir(struct out *o, const char *dir, int ifindex, const struct nk_link_list *links,
		     uint32_t *ours, size_t *nours)
{
	for (const struct nk_choice *h = rt_hook_words; h->name; h++) {
		struct table_view tv = { .hook = h->value, .dir = dir, .links = links };
		struct nk_target *v = NULL;
		struct orphan *orphans = NULL;
		struct table t;

		if (table_open(dir, h->value, &t))
			continue;
		if (*nours < 256)
			ours[(*nours)++] = t.link.id;
		live_targets(&t, &v, &tv.n);
		table_sweep(&t, false, &orphans, &tv.norphans);
		tv.t = &t;
		tv.dev = t.defunct ? NULL : nk_link_find(links, ifindex);
		tv.v = v;
		tv.orphans = orphans;
		print_table(o, &tv, NULL);
		free(v);
		free(orphans);
		table_close(&t);
	}
}

/* Every dev<ifindex> directory of this namespace, also of devices that are
 * gone (their links are defunct). Read-only: mounts nothing. */
static void show_ours(struct nk_ctx *ctx, int only, const struct nk_link_list *links,
		      uint32_t *ours, size_t *nours)
{
	char root[ROOT_LEN], ns[NS_LEN], dir[DIR_LEN];
	struct dirent *e;
	DIR *dd;

	if (nk_bpffs_root(false, root, sizeof(root)) || rt_here_dir(ctx, root, ns))
		return;
	dd = opendir(ns);
	while (dd && (e = readdir(dd))) {
		int ifindex;

		if (sscanf(e->d_name, "dev%d", &ifindex) != 1 || (only && ifindex != only))
			continue;
		snprintf(dir, sizeof(dir), "%s/%.24s", ns, e->d_name);
		show_dir(&ctx->out, dir, ifindex, links, ours, nours);
	}
	if (dd)
		closedir(dd);
}

static void print_foreign(struct out *o, const struct nk_link *l, uint32_t hook,
			  uint32_t prog_id, uint32_t link_id)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd;

	memset(&info, 0, sizeof(info));
	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd >= 0) {
		bpf_obj_get_info_by_fd(fd, &info, &len);
		close(fd);
	}
	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)l->ifindex);
	out_str(o, "ifname", "%s", l->ifname);
	out_str(o, "hook", " %s foreign", rt_hook_name(hook));
	out_uint(o, "prog-id", " prog-id %llu", prog_id);
	out_str(o, "prog-name", " %s", info.name);
	out_uint(o, "link-id", " link-id %llu\n", link_id);
	out_obj_close(o);
}

/* Programs of others on the same hooks, from BPF_PROG_QUERY. */
static void show_foreign(struct out *o, const struct nk_link *l, const uint32_t *ours,
			 size_t nours)
{
	for (const struct nk_choice *h = rt_hook_words; h->name; h++) {
		uint32_t progs[64], lids[64] = { 0 }, cnt = 64;

		if (rt_hook_is_netkit(h->value) && !(nk_link_is_netkit(l) && l->netkit.primary))
			continue;
		if (nk_bpf_query(l->ifindex, h->value, progs, lids, &cnt))
			continue;
		for (uint32_t k = 0; k < cnt && k < 64; k++) {
			bool mine = false;

			for (size_t m = 0; m < nours; m++)
				mine |= lids[k] && ours[m] == lids[k];
			if (!mine)
				print_foreign(o, l, h->value, progs[k], lids[k]);
		}
	}
}

/* A refused read is an error, not an empty list: programs and pins are read
 * with bpf(2), which wants CAP_NET_ADMIN (queries) and CAP_BPF (pins). */
static int check_readable(void)
{
	uint32_t progs[1], lids[1], cnt = 1;
	int ret = nk_bpf_query(1, NK_BPF_TCX_INGRESS, progs, lids, &cnt);

	if (ret == -EPERM || ret == -EACCES)
		return nk_error(NK_EXIT_PERM,
				"reading BPF programs needs CAP_NET_ADMIN and CAP_BPF (run as root)");
	return 0;
}

static int cmd_redirect_show(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	struct nk_link_list links = { 0 };
	struct nk_link one;
	struct nl_sock *rt;
	uint32_t ours[256];
	size_t nours = 0;
	int only = 0, ret;

	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret && a->dev) {
		ret = nk_link_lookup(rt, a->dev, 0, &one, NULL, false);
		only = one.ifindex;
	}
	if (!ret)
		ret = check_readable();
	if (!ret)
		ret = nk_links_here(ctx, &links);
	if (ret)
		return ret;
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "redirects");
	show_ours(ctx, only, &links, ours, &nours);
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "foreign");
	for (size_t i = 0; i < links.n; i++)
		if (!only || links.v[i].ifindex == only)
			show_foreign(&ctx->out, &links.v[i], ours, nours);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	nk_link_list_free(&links);
	return NK_EXIT_OK;
}


static const struct nk_cmd redirect_cmds[] = {
	{ "attach", cmd_redirect_attach, NULL, &attach_p, NULL,
	  "route prefixes of DEV's hook to TARGET with a built-in BPF program, pinned (a pod's egress: all by default)" },
	{ "detach", cmd_redirect_detach, NULL, &detach_p, NULL,
	  "remove TARGET's routes, or nkctl's programs, from DEV (with -force: none is not an error)" },
	{ "show", cmd_redirect_show, NULL, &show_p, NULL,
	  "nkctl's route tables (with orphaned routes), and the other programs on the same hooks" },
	{ "prune", cmd_redirect_prune, NULL, NULL, NULL,
	  "remove nkctl's pins, routes and programs whose device, target or namespace is gone (-n: that namespace only)" },
};
const struct nk_table nk_redirect_table = NK_TABLE("nkctl redirect", redirect_cmds);