// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl redirect attach | detach | show | prune: nkctl's steering programs
 * (bpf/redirect.bpf.c, embedded). One program per (device, hook) routes by
 * destination: LPM tries map prefixes to target devices. The link and the
 * maps are pinned side by side under
 * <bpffs>/nkctl/net<netns inode>/dev<ifindex>/<hook>[-v4|-v6|-targets|-info],
 * so they outlive nkctl. The program is loaded and attached on a hook's first
 * route; after that, a target's routes are map updates. A lock on the
 * device's directory serialises nkctl invocations on the device.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfutil.h"
#include "compat.h"
#include "netns.h"
#include "nkctl.h"
#include "redirect.h"
#include "redirect.skel.h"
#include "rtnl.h"

/* The hooks, by their attach type; a hook's word is also its pins' name. */
static const struct nk_choice hook_words[] = {
	{ "tcx-ingress", NK_BPF_TCX_INGRESS, NULL }, { "tcx-egress", NK_BPF_TCX_EGRESS, NULL },
	{ "netkit-primary", NK_BPF_NETKIT_PRIMARY, NULL },
	{ "netkit-peer", NK_BPF_NETKIT_PEER, NULL }, { NULL, 0, NULL },
};
#define HOOK_N (NK_ARRAY_SIZE(hook_words) - 1)

static bool hook_is_netkit(uint32_t hook)
{
	return hook == NK_BPF_NETKIT_PRIMARY || hook == NK_BPF_NETKIT_PEER;
}

static const char *hook_name(uint32_t hook)
{
	return nk_choice_word(hook_words, hook);
}

enum { ACTION_NEIGH, ACTION_PEER, ACTION_N };
static const struct nk_choice action_words[] = {
	{ "redirect-neigh", ACTION_NEIGH, NULL }, { "redirect-peer", ACTION_PEER, NULL },
	{ NULL, 0, NULL },
};
/* The program of bpf/redirect.bpf.c that does each action. */
static const char *const action_progs[ACTION_N] = {
	[ACTION_NEIGH] = "nk_neigh", [ACTION_PEER] = "nk_peer",
};

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
	[R_HOOK] = RP("hook", NKP_ENUM, hook, "HOOK", hook_words, false),
	[R_ACTION] = RP("action", NKP_ENUM, action, "ACTION", action_words, false),
	[R_REPLACE] = RP("replace", NKP_FLAG, replace, NULL, NULL, false),
};
static const struct nk_params attach_p = {
	NK_PARAMS("redirect attach", struct redirect_args, attach_params)
};
enum { D_DEV, D_TO, D_HOOK };
static const struct nk_param detach_params[] = {
	[D_DEV] = RP("dev", NKP_IFNAME, dev, "DEV", NULL, true),
	[D_TO] = RP("to", NKP_IFNAME, to, "TARGET", NULL, false),
	[D_HOOK] = RP("hook", NKP_ENUM, hook, "HOOK", hook_words, false),
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

/* ---- prefixes ---- */

static int parse_prefix(const char *s, struct nk_prefix *p)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	unsigned char bytes[16] = { 0 }, mask[16] = { 0 };
	uint32_t len, max;
	int family;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		goto bad;
	memcpy(addr, s, slash - s);
	addr[slash - s] = '\0';
	family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	max = family == AF_INET6 ? 128 : 32;
	if (inet_pton(family, addr, bytes) != 1 || !slash[1] ||
	    strspn(slash + 1, "0123456789") != strlen(slash + 1) || strlen(slash + 1) > 3)
		goto bad;
	len = (uint32_t)atoi(slash + 1);
	if (len > max)
		goto bad;
	for (uint32_t i = 0; i < len; i++)
		mask[i / 8] |= (unsigned char)(0x80 >> (i % 8));
	for (uint32_t i = 0; i < max / 8; i++) {
		if (bytes[i] & ~mask[i])
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%s\" for \"prefix\": host bits are set", s);
	}
	memset(p, 0, sizeof(*p));
	p->family = family == AF_INET6 ? 6 : 4;
	p->len = (uint8_t)len;
	memcpy(p->addr, bytes, 16);
	return 0;
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"prefix\": expected ADDRESS/LENGTH, e.g. 10.1.0.0/24 or fd00::/64",
			s);
}

static void format_prefix(const struct nk_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
}

static bool prefix_eq(const struct nk_prefix *a, const struct nk_prefix *b)
{
	return a->family == b->family && a->len == b->len && !memcmp(a->addr, b->addr, 16);
}

static bool prefix_in(const struct nk_prefix *p, const struct nk_prefix *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (prefix_eq(p, &v[i]))
			return true;
	return false;
}

/* The prefixes of the command line; none means the default routes. */
static int want_prefixes(const struct redirect_args *a, struct nk_target *want)
{
	static const char *const dflt[] = { "0.0.0.0/0", "::/0" };
	const char *const *v = a->prefixes.n ? a->prefixes.v : dflt;
	size_t n = a->prefixes.n ? a->prefixes.n : 2;
	struct nk_prefix p;
	int ret;

	want->n = 0;
	for (size_t i = 0; i < n; i++) {
		ret = parse_prefix(v[i], &p);
		if (ret)
			return ret;
		if (prefix_in(&p, want->p, want->n))
			continue;
		if (want->n == NK_TARGET_PREFIXES)
			return nk_error(NK_EXIT_USAGE, "at most %d prefixes per target",
					NK_TARGET_PREFIXES);
		want->p[want->n++] = p;
	}
	return 0;
}

static bool same_set(const struct nk_target *a, const struct nk_target *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (!prefix_in(&a->p[i], b->p, b->n))
			return false;
	return true;
}

/* ---- pins ---- */

#define ROOT_LEN 64
#define NS_LEN 128
#define DIR_LEN 192
#define PIN_LEN 256

/* Where the pins are: the host's bpffs, or an error that says why not. */
static int pin_root(char *root, bool may_mount)
{
	int ret = nk_bpffs_root(may_mount, root, ROOT_LEN);

	if (ret == -EXDEV)
		return nk_error(NK_EXIT_FAIL,
				"%s here is not the host's bpffs (a private mount namespace, as \"ip netns exec\" makes) and the host's is not reachable through /proc/PID/root: pins made here would vanish when nkctl exits; run \"nkctl -n NETNS redirect ...\" instead",
				NK_BPFFS);
	if (ret)
		return nk_error_errno(-ret, "cannot mount bpffs on " NK_BPFFS);
	return 0;
}

/* The pin directory of the command's namespace, by its inode. */
static int ns_dir(struct nk_ctx *ctx, const char *root, char *buf)
{
	struct nk_ns *here;
	int ret = nk_ns_here(ctx, &here);

	if (!ret)
		snprintf(buf, NS_LEN, "%s/nkctl/net%lu", root, (unsigned long)here->ino);
	return ret;
}

/* A device's pin directory, locked (serialises nkctl invocations on the same
 * device). */
struct pin_dir {
	char path[DIR_LEN];
	int lock_fd;
};

static int make_dirs(const char *root, const char *ns, const char *dev)
{
	char top[DIR_LEN];
	const char *const dirs[] = { top, ns, dev };
	int ret;

	snprintf(top, sizeof(top), "%s/nkctl", root);
	for (size_t i = 0; i < 3; i++) {
		ret = nk_private_dir(dirs[i]);
		if (ret == -EPERM)
			return nk_error(NK_EXIT_PERM,
					"%s is not a directory of ours with mode 0700; refusing to use it",
					dirs[i]);
		if (ret)
			return nk_error_errno(-ret, "cannot create %s", dirs[i]);
	}
	return 0;
}

/* Lock the directory at d->path; create: make it first. -ENOENT quietly when
 * it does not exist and create is false. */
static int pin_dir_lock(struct pin_dir *d, const char *root, const char *ns, bool create)
{
	int ret;

	if (create) {
		ret = make_dirs(root, ns, d->path);
		if (ret)
			return ret;
	}
	d->lock_fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->lock_fd < 0 && errno == ENOENT && !create)
		return -ENOENT;
	if (d->lock_fd < 0 || flock(d->lock_fd, LOCK_EX))
		return nk_error_errno(errno, "cannot lock %s", d->path);
	return 0;
}

static void pin_dir_close(struct pin_dir *d)
{
	char *slash;

	if (d->lock_fd >= 0)
		close(d->lock_fd); /* drops the lock */
	d->lock_fd = -1;
	/* Fail while pins stay: fine. */
	if (rmdir(d->path) == 0 && (slash = strrchr(d->path, '/'))) {
		*slash = '\0';
		rmdir(d->path);     /* the namespace's directory */
		*slash = '/';
	}
}

/* The pins of one hook. */
enum { PIN_LINK, PIN_V4, PIN_V6, PIN_TARGETS, PIN_INFO, PIN_N };
static const char *const pin_suffix[PIN_N] = { "", "-v4", "-v6", "-targets", "-info" };

static void pin_path(const char *dir, uint32_t hook, int which, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/%s%s", dir, hook_name(hook), pin_suffix[which]);
}

/* Unpinning the link detaches the program; the maps go with it. */
static void pins_remove(const char *dir, uint32_t hook)
{
	char pin[PIN_LEN];

	for (int i = 0; i < PIN_N; i++) {
		pin_path(dir, hook, i, pin);
		unlink(pin);
	}
}

/* One hook's route table as pinned. */
struct table {
	int fd[PIN_N];          /* -1: not pinned */
	struct nk_bpf_link link;
	struct nk_hook_info info;
	int action;             /* -1: not one of ours */
	bool defunct;           /* the device is gone */
};

static void table_close(struct table *t)
{
	for (int i = 0; i < PIN_N; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	for (int i = 0; i < PIN_N; i++)
		t->fd[i] = -1;
}

static int prog_action(uint32_t prog_id)
{
	struct bpf_prog_info pinfo;
	uint32_t len = sizeof(pinfo);
	int fd = bpf_prog_get_fd_by_id(prog_id), action = -1;

	if (fd < 0)
		return -1;
	memset(&pinfo, 0, sizeof(pinfo));
	if (bpf_obj_get_info_by_fd(fd, &pinfo, &len) == 0)
		for (int a = 0; a < ACTION_N; a++)
			if (!strcmp(pinfo.name, action_progs[a]))
				action = a;
	close(fd);
	return action;
}

/* The hook's pins in dir: 0, -ENOENT (no link pinned) or -errno. A table
 * whose maps are missing (an interrupted creation) opens with their fds -1. */
static int table_open(const char *dir, uint32_t hook, struct table *t)
{
	char pin[PIN_LEN];
	uint32_t key = 0;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < PIN_N; i++) {
		pin_path(dir, hook, i, pin);
		t->fd[i] = bpf_obj_get(pin);
	}
	t->action = -1;
	if (t->fd[PIN_LINK] < 0) {
		int err = errno;

		table_close(t);
		return err == ENOENT ? -ENOENT : -err;
	}
	if (nk_bpf_link_info(t->fd[PIN_LINK], &t->link)) {
		table_close(t);
		return -errno;
	}
	t->defunct = t->link.ifindex == 0;
	t->action = prog_action(t->link.prog_id);
	if (t->fd[PIN_INFO] >= 0)
		bpf_map_lookup_elem(t->fd[PIN_INFO], &key, &t->info);
	return 0;
}

static bool table_complete(const struct table *t)
{
	for (int i = 0; i < PIN_N; i++)
		if (t->fd[i] < 0)
			return false;
	return true;
}

/* ---- targets and routes ---- */

static int target_get(const struct table *t, uint32_t ifindex, struct nk_target *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (bpf_map_lookup_elem(t->fd[PIN_TARGETS], &ifindex, rec))
		return -errno;
	return 0;
}

/* Every target of the table, by ifindex. The caller frees *v. */
static int targets_list(const struct table *t, struct nk_target **v, size_t *n)
{
	/* Ifindex 0 is never a key, so it starts the walk at the first one
	 * (a hash map's rule for a missing key) without a NULL key. */
	uint32_t key = 0, next;
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	if (t->fd[PIN_TARGETS] < 0)
		return 0;
	while (bpf_map_get_next_key(t->fd[PIN_TARGETS], &key, &next) == 0) {
		key = next;
		if (*n == cap) {
			struct nk_target *nv = realloc(*v, (cap = cap ? 2 * cap : 8) * sizeof(**v));

			if (!nv)
				return -ENOMEM;
			*v = nv;
		}
		if (target_get(t, key, &(*v)[*n]) == 0)
			(*n)++;
	}
	for (size_t i = 1; i < *n; i++)    /* insertion sort: few, mostly sorted */
		for (size_t j = i; j > 0 && (*v)[j - 1].ifindex > (*v)[j].ifindex; j--) {
			struct nk_target tmp = (*v)[j];

			(*v)[j] = (*v)[j - 1];
			(*v)[j - 1] = tmp;
		}
	return 0;
}

static int route_fd(const struct table *t, const struct nk_prefix *p)
{
	return t->fd[p->family == 6 ? PIN_V6 : PIN_V4];
}

/* The LPM key of p: {prefixlen, address}. */
static void route_key(const struct nk_prefix *p, unsigned char key[20])
{
	uint32_t len = p->len;

	memcpy(key, &len, 4);
	memcpy(key + 4, p->addr, p->family == 6 ? 16 : 4);
}

/* Who holds exactly p: its ifindex, or 0. */
static uint32_t route_owner(const struct table *t, const struct nk_prefix *p)
{
	unsigned char key[20];
	struct nk_route r;

	route_key(p, key);
	if (bpf_map_lookup_elem(route_fd(t, p), key, &r) || r.prefixlen != p->len)
		return 0;
	return r.ifindex;
}

static int route_set(const struct table *t, const struct nk_prefix *p, uint32_t ifindex)
{
	unsigned char key[20];
	struct nk_route r = { .ifindex = ifindex, .prefixlen = p->len };

	route_key(p, key);
	return bpf_map_update_elem(route_fd(t, p), key, &r, BPF_ANY) ? -errno : 0;
}

static void route_del(const struct table *t, const struct nk_prefix *p)
{
	unsigned char key[20];

	route_key(p, key);
	bpf_map_delete_elem(route_fd(t, p), key);
}

/* Store rec (n 0: forget the target). */
static int target_put(const struct table *t, const struct nk_target *rec)
{
	if (!rec->n)
		return bpf_map_delete_elem(t->fd[PIN_TARGETS], &rec->ifindex) && errno != ENOENT ?
			       -errno : 0;
	return bpf_map_update_elem(t->fd[PIN_TARGETS], &rec->ifindex, rec, BPF_ANY) ? -errno : 0;
}

/* Remove all of a target's routes. */
static int target_remove(const struct table *t, const struct nk_target *rec)
{
	struct nk_target gone = { .ifindex = rec->ifindex };

	for (uint32_t i = 0; i < rec->n && i < NK_TARGET_PREFIXES; i++)
		if (route_owner(t, &rec->p[i]) == rec->ifindex)
			route_del(t, &rec->p[i]);
	return target_put(t, &gone);
}

/* Take p away from the target owner (replace). */
static int target_drop_prefix(const struct table *t, uint32_t owner, const struct nk_prefix *p)
{
	struct nk_target rec;
	uint32_t k = 0;

	if (target_get(t, owner, &rec))
		return 0;
	for (uint32_t i = 0; i < rec.n; i++)
		if (!prefix_eq(&rec.p[i], p))
			rec.p[k++] = rec.p[i];
	rec.n = k;
	return target_put(t, &rec);
}

/* ---- the program ---- */

static int attach_error(struct nk_ctx *ctx, int err, const char *dev, uint32_t hook)
{
	const char *why;
	int ret;

	switch (err) {
	case EACCES:
		why = "netkit programs attach through the primary device; this is the peer";
		break;
	case ENXIO:
		why = "this hook needs a netkit primary device";
		break;
	case EOPNOTSUPP:
		why = "a single netkit device has no netkit hooks";
		break;
	case EINVAL:
		ret = nk_feature_need(ctx, hook_is_netkit(hook) ? NK_FEAT_NETKIT_BPF : NK_FEAT_TCX);
		if (ret)
			return ret;
		why = "the kernel refused this hook for this device";
		break;
	case EEXIST:
		why = "the hook is full or the program is attached already";
		break;
	default:
		return nk_error_errno(err, "cannot attach to %s of \"%s\"", hook_name(hook), dev);
	}
	/* The wrong kind or role of device: "not supported by this device". */
	return nk_error(err == EEXIST ? NK_EXIT_EXISTS : NK_EXIT_UNSUPPORTED,
			"cannot attach to %s of \"%s\": %s (%s)", hook_name(hook), dev, why,
			strerror(err));
}

/* Pin the skeleton's maps beside where the link goes. */
static int pin_maps(const struct nk_redirect *skel, const char *dir, uint32_t hook)
{
	const struct bpf_map *maps[PIN_N] = {
		NULL, skel->maps.nk_routes4, skel->maps.nk_routes6, skel->maps.nk_targets,
		skel->maps.nk_info,
	};
	char pin[PIN_LEN];

	for (int i = PIN_V4; i < PIN_N; i++) {
		pin_path(dir, hook, i, pin);
		if (bpf_obj_pin(bpf_map__fd(maps[i]), pin))
			return nk_error_errno(errno, "cannot pin a map at %s", pin);
	}
	return 0;
}

/* Load the program of action with empty route tables, pin them, attach it to
 * the hook through a link and pin that: a hook's first route. */
static int table_create(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int action,
			const char *dir)
{
	struct nk_hook_info info = { (uint32_t)dev->ifindex, hook, (uint32_t)action, "" };
	struct nk_redirect *skel;
	struct bpf_program *prog;
	char pin[PIN_LEN];
	uint32_t key = 0;
	int link_fd, ret;

	pins_remove(dir, hook);  /* a defunct or half-made one */
	snprintf(info.ifname, sizeof(info.ifname), "%s", dev->ifname);
	skel = nk_redirect__open();
	if (!skel)
		return nk_error_errno(errno, "cannot load the redirect program");
	/* Only the program asked for is loaded. */
	bpf_program__set_autoload(skel->progs.nk_neigh, action == ACTION_NEIGH);
	bpf_program__set_autoload(skel->progs.nk_peer, action == ACTION_PEER);
	ret = nk_redirect__load(skel);
	if (ret) {
		ret = nk_error_errno(-ret, "cannot load the redirect program");
		goto out;
	}
	bpf_map_update_elem(bpf_map__fd(skel->maps.nk_info), &key, &info, BPF_ANY);
	ret = pin_maps(skel, dir, hook);
	if (ret)
		goto out;
	prog = action == ACTION_NEIGH ? skel->progs.nk_neigh : skel->progs.nk_peer;
	link_fd = bpf_link_create(bpf_program__fd(prog), dev->ifindex, (enum bpf_attach_type)hook,
				  NULL);
	if (link_fd < 0) {
		ret = attach_error(ctx, errno, dev->ifname, hook);
		goto out;
	}
	/* Closing an unpinned link detaches it again. */
	pin_path(dir, hook, PIN_LINK, pin);
	if (bpf_obj_pin(link_fd, pin))
		ret = nk_error_errno(errno, "cannot pin the link at %s", pin);
	close(link_fd);
out:
	if (ret)
		pins_remove(dir, hook);
	nk_redirect__destroy(skel);
	return ret;
}

/* The hook's live table, made when there is none (or only a defunct one). */
static int table_get(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int action,
		     const char *dir, struct table *t, bool *created)
{
	int ret = table_open(dir, hook, t);

	*created = false;
	if (ret == 0 && (t->defunct || !table_complete(t) || t->action < 0)) {
		table_close(t);
		ret = -ENOENT;
	}
	if (ret == -ENOENT) {
		ret = table_create(ctx, dev, hook, action, dir);
		if (ret)
			return ret;
		*created = true;
		ret = table_open(dir, hook, t);
	}
	if (ret)
		return nk_error_errno(-ret, "cannot open the pins of %s in %s", hook_name(hook), dir);
	return 0;
}

/* ---- output ---- */

static void print_route(struct out *o, const struct nk_target *r, const struct nk_link_list *links)
{
	const struct nk_link *l = links ? nk_link_find(links, (int)r->ifindex) : NULL;
	bool defunct = links && !l;
	char buf[INET6_ADDRSTRLEN + 8];

	out_obj_open(o, NULL);
	out_obj_open(o, "target");
	out_uint(o, "ifindex", NULL, r->ifindex);
	out_str(o, "ifname", "\n\tto %s", l ? l->ifname : r->ifname);
	out_obj_close(o);
	out_arr_open(o, "prefixes");
	for (uint32_t i = 0; i < r->n && i < NK_TARGET_PREFIXES; i++) {
		format_prefix(&r->p[i], buf, sizeof(buf));
		out_str(o, NULL, " prefix %s", buf);
	}
	out_arr_close(o);
	out_bool(o, "defunct", NULL, defunct);
	if (defunct)
		out_text(o, " DEFUNCT (the target is gone)");
	out_obj_close(o);
}

static void print_routes(struct out *o, const struct nk_target *v, size_t n,
			 const struct nk_link_list *links)
{
	out_arr_open(o, "routes");
	for (size_t i = 0; i < n; i++)
		print_route(o, &v[i], links);
	out_arr_close(o);
}

/* The device and hook of a table: the live device, or what was recorded. */
static void print_hook_id(struct out *o, const struct table *t, const struct nk_link *dev,
			  uint32_t hook, const char *fmt)
{
	char name[IF_NAMESIZE + 8];

	if (dev)
		snprintf(name, sizeof(name), "%s", dev->ifname);
	else if (t->info.ifname[0])
		snprintf(name, sizeof(name), "%s", t->info.ifname);
	else
		snprintf(name, sizeof(name), "dev%u", t->info.ifindex);
	out_uint(o, "ifindex", NULL, dev ? (unsigned int)dev->ifindex : t->info.ifindex);
	out_str(o, "ifname", fmt, name);
	out_str(o, "hook", " %s", hook_name(hook));
}

/* What attach did, for its output. */
struct attach_result {
	bool created, changed, replaced;
};

static void print_table(struct out *o, const struct table *t, const struct nk_link *dev,
			uint32_t hook, const char *dir, const struct nk_target *v, size_t n,
			const struct nk_link_list *links, const struct attach_result *res)
{
	char pin[PIN_LEN];

	pin_path(dir, hook, PIN_LINK, pin);
	out_obj_open(o, NULL);
	print_hook_id(o, t, dev, hook, "%s");
	if (t->action >= 0)
		out_str(o, "action", " %s", nk_choice_word(action_words, (uint32_t)t->action));
	out_uint(o, "prog-id", " prog-id %llu", t->link.prog_id);
	out_uint(o, "link-id", " link-id %llu", t->link.id);
	/* As the host sees it, not through /proc/PID/root. */
	out_str(o, "pin", NULL, strncmp(pin, "/proc/", 6) ? pin : strstr(pin, "/root/") + 5);
	out_bool(o, "defunct", NULL, t->defunct);
	if (t->defunct)
		out_text(o, " DEFUNCT (the device is gone)");
	if (res) {
		out_bool(o, "changed", NULL, res->changed);
		out_bool(o, "replaced", NULL, res->replaced);
		out_text(o, res->created ? " (attached)" : res->replaced ? " (replaced)" :
			    res->changed ? " (changed)" : " (unchanged)");
	}
	print_routes(o, v, n, links);
	out_text(o, "\n");
	out_obj_close(o);
}

/* One removed table or set of routes (detach, prune). */
static void print_removed(struct out *o, const struct table *t, const struct nk_link *dev,
			  uint32_t hook, const char *verb, const struct nk_target *v, size_t n,
			  bool hook_removed)
{
	out_obj_open(o, NULL);
	out_text(o, "%s ", verb);
	print_hook_id(o, t, dev, hook, "%s");
	out_bool(o, "hook-removed", NULL, hook_removed);
	if (hook_removed)
		out_text(o, " (program detached)");
	print_routes(o, v, n, NULL);
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
			what, hook_name(hook), dev->ifname, rec.ifname);
}

/* Pod egress keeps one target: another target, or another prefix set of the
 * same one, needs replace. */
static int check_egress(const struct table *t, const struct nk_link *dev, uint32_t hook,
			const struct nk_target *old, const struct nk_target *want, bool replace,
			struct attach_result *res)
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
		res->replaced = true;
	}
	free(v);
	if (!ret && old->n && !same_set(old, want)) {
		if (!replace)
			return busy(t, dev, hook, want->ifindex, "pod egress with other prefixes");
		res->replaced = true;
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
			format_prefix(&want->p[i], what + 7, sizeof(what) - 7);
			return busy(t, dev, hook, owner, what);
		}
	}
	return 0;
}

/*
 * Make want (a target and its prefixes) the target's routes: new routes
 * first, then the old ones that go, so the target's traffic never stops;
 * other targets' routes are untouched except the prefixes replace takes.
 */
static int routes_apply(const struct table *t, const struct nk_target *old,
			const struct nk_target *want, struct attach_result *res)
{
	int ret = 0;

	for (uint32_t i = 0; !ret && i < want->n; i++) {
		uint32_t owner = route_owner(t, &want->p[i]);

		if (owner == want->ifindex)
			continue;
		ret = route_set(t, &want->p[i], want->ifindex);
		if (!ret && owner) {
			ret = target_drop_prefix(t, owner, &want->p[i]);
			res->replaced = true;
		}
		res->changed = true;
	}
	for (uint32_t i = 0; !ret && i < old->n; i++) {
		if (prefix_in(&old->p[i], want->p, want->n))
			continue;
		if (route_owner(t, &old->p[i]) == want->ifindex)
			route_del(t, &old->p[i]);
		res->changed = true;
	}
	if (!ret && (!same_set(old, want) || strcmp(old->ifname, want->ifname)))
		ret = target_put(t, want);
	if (ret)
		return nk_error_errno(-ret, "cannot update the route table");
	res->changed |= res->replaced;
	return 0;
}

static int attach_routes(struct nk_ctx *ctx, const struct table *t, const struct nk_link *dev,
			 uint32_t hook, const struct nk_target *want, bool replace,
			 struct attach_result *res)
{
	struct nk_target old;
	int ret;

	target_get(t, want->ifindex, &old);
	if (t->action == ACTION_NEIGH)
		ret = check_egress(t, dev, hook, &old, want, replace, res);
	else
		ret = check_owners(t, dev, hook, want, replace);
	(void)ctx;
	return ret ? ret : routes_apply(t, &old, want, res);
}

/* The action: as asked, or what the hook runs already, or by the prefixes:
 * pod ingress (prefixes) hands packets to the peer, pod egress goes out
 * through the NIC's neighbour. */
static int attach_action(struct nk_ctx *ctx, const struct redirect_args *a, const char *dir,
			 uint32_t hook)
{
	struct table t;
	int now = -1;

	if (table_open(dir, hook, &t) == 0) {
		if (!t.defunct)
			now = t.action;
		table_close(&t);
	}
	if (!(ctx->given & (1ULL << R_ACTION)))
		return now >= 0 ? now : a->prefixes.n ? ACTION_PEER : ACTION_NEIGH;
	if (now >= 0 && now != (int)a->action)
		return -nk_error(NK_EXIT_EXISTS,
				 "%s of \"%s\" runs %s; detach it first to run %s there",
				 hook_name(hook), a->dev, action_words[now].name,
				 action_words[a->action].name);
	return (int)a->action;
}

static int attach_prepare(struct nk_ctx *ctx, const struct redirect_args *a, struct nk_link *dev,
			  struct nk_target *want, struct pin_dir *d, char *root, char *ns)
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
		ret = pin_root(root, true);
	if (!ret)
		ret = ns_dir(ctx, root, ns);
	if (ret)
		return ret;
	want->ifindex = (uint32_t)target.ifindex;
	snprintf(want->ifname, sizeof(want->ifname), "%s", target.ifname);
	snprintf(d->path, sizeof(d->path), "%s/dev%d", ns, dev->ifindex);
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
	ret = attach_prepare(ctx, a, &dev, &want, &d, root, ns);
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
	ret = attach_routes(ctx, &t, &dev, hook, &want, a->replace, &res);
	if (!ret) {
		out_begin(&ctx->out);
		out_arr_open(&ctx->out, "redirects");
		print_table(&ctx->out, &t, &dev, hook, d.path, &want, 1, NULL, &res);
		out_arr_close(&ctx->out);
		out_end(&ctx->out);
	}
	table_close(&t);
	/* The first route failed: no program without routes. */
	if (ret && res.created)
		pins_remove(d.path, hook);
out:
	pin_dir_close(&d);
	return ret;
}

/* ---- detach ---- */

/* The names of detach, looked up one by one (a dump of every device would
 * cost more than the map updates): NULL when the device is gone. */
struct detach_names {
	struct nl_sock *rt;
	const struct nk_link *dev, *to;
};

/* Is r the target called to: its live device, or, when that is gone, the
 * name recorded for it with its ifindex gone too. */
static bool target_named(const struct nk_target *r, const char *to, const struct detach_names *dn)
{
	struct nk_link l;

	if (dn->to)
		return r->ifindex == (uint32_t)dn->to->ifindex;
	return !strcmp(r->ifname, to) &&
	       nk_link_lookup(dn->rt, NULL, (int)r->ifindex, &l, NULL, true) != 0;
}

/* Remove the routes of to (NULL: the whole hook); the program goes with the
 * last route. Prints what went; *done counts it. dry: only count. */
static int detach_table(struct nk_ctx *ctx, const char *dir, uint32_t hook, const char *to,
			const struct detach_names *dn, bool dry, size_t *done)
{
	struct nk_target *v;
	struct table t;
	size_t n, k = 0;
	int ret = table_open(dir, hook, &t);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return nk_error_errno(-ret, "cannot open the pins of %s in %s", hook_name(hook), dir);
	ret = targets_list(&t, &v, &n);
	for (size_t i = 0; !ret && i < n; i++) {
		if (to && !target_named(&v[i], to, dn))
			continue;
		v[k++] = v[i];
		if (to && !dry)
			ret = target_remove(&t, &v[i]);
	}
	if (ret) {
		ret = nk_error_errno(-ret, "cannot update the route table");
	} else if ((!to || k) && dry) {
		(*done)++;
	} else if (!to || k) {
		bool all = !to || k == n;

		if (all)
			pins_remove(dir, hook);
		print_removed(&ctx->out, &t, t.defunct ? NULL : dn->dev, hook, "detached", v, k, all);
		(*done)++;
	}
	free(v);
	table_close(&t);
	return ret;
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
		for (const struct nk_choice *h = hook_words; h->name; h++) {
			struct table t;

			if (table_open(dirs[n], h->value, &t))
				continue;
			if (t.defunct && !strcmp(t.info.ifname, name)) {
				n++;
				table_close(&t);
				break;
			}
			table_close(&t);
		}
	}
	if (dd)
		closedir(dd);
	return n;
}

static int detach_dirs(struct nk_ctx *ctx, const struct redirect_args *a, const char *ns,
		       const struct detach_names *dn, bool dry, size_t *done)
{
	char dirs[8][DIR_LEN];
	size_t n = dev_dirs(ns, a->dev, dn->dev, dirs, 8);
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		struct pin_dir d = { .lock_fd = -1 };

		snprintf(d.path, sizeof(d.path), "%s", dirs[i]);
		ret = dry ? 0 : pin_dir_lock(&d, NULL, NULL, false);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		for (const struct nk_choice *h = hook_words; !ret && h->name; h++)
			if (!(ctx->given & (1ULL << D_HOOK)) || h->value == a->hook)
				ret = detach_table(ctx, d.path, h->value, a->to, dn, dry, done);
		if (!dry)
			pin_dir_close(&d);
	}
	return ret;
}

/* dev and to as they are now (missing: gone, maybe with pins to remove). */
static int detach_lookup(struct nk_ctx *ctx, const struct redirect_args *a, struct detach_names *dn,
			 struct nk_link *dev, struct nk_link *to)
{
	int ret = nk_ctx_rtnl(ctx, &dn->rt);

	if (ret)
		return ret;
	ret = nk_link_lookup(dn->rt, a->dev, 0, dev, NULL, true);
	dn->dev = ret ? NULL : dev;
	if (ret && ret != -ENODEV)
		return ret;
	ret = a->to ? nk_link_lookup(dn->rt, a->to, 0, to, NULL, true) : -ENODEV;
	dn->to = ret ? NULL : to;
	return ret && ret != -ENODEV ? ret : 0;
}

static int cmd_redirect_detach(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	bool one = ctx->given & (1ULL << D_HOOK);
	struct detach_names dn = { 0 };
	char root[ROOT_LEN], ns[NS_LEN];
	struct nk_link dev, to;
	size_t found = 0, done = 0;
	int ret;

	ret = nk_bpffs_root(false, root, sizeof(root));
	if (ret && ret != -ENOENT)
		return pin_root(root, false);
	if (!ret)
		ret = ns_dir(ctx, root, ns);
	else
		ns[0] = '\0';    /* no bpffs: nothing to detach */
	if (!ret)
		ret = detach_lookup(ctx, a, &dn, &dev, &to);
	/* Not found is decided before anything is printed. */
	if (!ret && ns[0])
		ret = detach_dirs(ctx, a, ns, &dn, true, &found);
	if (!ret && !found && !ctx->force)
		ret = nk_error(NK_EXIT_NOTFOUND, "nkctl has no redirect on \"%s\"%s%s%s%s", a->dev,
			       one ? " at " : "", one ? hook_name(a->hook) : "",
			       a->to ? " to " : "", a->to ? a->to : "");
	if (!ret) {
		out_begin(&ctx->out);
		out_arr_open(&ctx->out, "detached");
		if (found)
			ret = detach_dirs(ctx, a, ns, &dn, false, &done);
		out_arr_close(&ctx->out);
		out_end(&ctx->out);
	}
	return ret;
}

/* ---- show ---- */

static int here_links(struct nk_ctx *ctx, struct nk_link_list *links)
{
	struct nl_sock *rt;
	struct nl_err err;
	int ret = nk_ctx_rtnl(ctx, &rt);

	if (ret)
		return ret;
	if (rtnl_link_dump(rt, links, &err))
		return nk_error_nl(&err, "cannot list devices");
	return 0;
}


/* nkctl's tables in dir (one device's): print each, note its link id. */
static void show_dir(struct out *o, const char *dir, int ifindex, const struct nk_link_list *links,
		     uint32_t *ours, size_t *nours)
{
	for (const struct nk_choice *h = hook_words; h->name; h++) {
		struct nk_target *v = NULL;
		struct table t;
		size_t n = 0;

		if (table_open(dir, h->value, &t))
			continue;
		if (*nours < 256)
			ours[(*nours)++] = t.link.id;
		targets_list(&t, &v, &n);
		print_table(o, &t, t.defunct ? NULL : nk_link_find(links, ifindex), h->value, dir, v, n,
			    links, NULL);
		free(v);
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

	if (nk_bpffs_root(false, root, sizeof(root)) || ns_dir(ctx, root, ns))
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
	out_str(o, "hook", " %s foreign", hook_name(hook));
	out_uint(o, "prog-id", " prog-id %llu", prog_id);
	out_str(o, "prog-name", " %s", info.name);
	out_uint(o, "link-id", " link-id %llu\n", link_id);
	out_obj_close(o);
}

/* Programs of others on the same hooks, from BPF_PROG_QUERY. */
static void show_foreign(struct out *o, const struct nk_link *l, const uint32_t *ours,
			 size_t nours)
{
	for (const struct nk_choice *h = hook_words; h->name; h++) {
		uint32_t progs[64], lids[64] = { 0 }, cnt = 64;

		if (hook_is_netkit(h->value) && !(nk_link_is_netkit(l) && l->netkit.primary))
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
		ret = here_links(ctx, &links);
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

/* ---- prune ---- */

/* Remove what is dead in one hook's pins: all of it when its device is gone
 * (or it has no route left), else the routes whose target is gone (links
 * NULL: the namespace is out of reach, its targets cannot be checked). */
static void prune_table(struct out *o, const char *dir, uint32_t hook,
			const struct nk_link_list *links)
{
	struct nk_target *v = NULL;
	size_t n = 0, k = 0;
	struct table t;
	int ret = table_open(dir, hook, &t);

	if (ret == -ENOENT) {
		pins_remove(dir, hook); /* maps of an interrupted attach */
		return;
	}
	if (ret || targets_list(&t, &v, &n))
		goto out;
	if (t.defunct || !table_complete(&t) || !n) {
		pins_remove(dir, hook);
		print_removed(o, &t, NULL, hook, "pruned", v, n, true);
		goto out;
	}
	for (size_t i = 0; links && i < n; i++)
		if (!nk_link_find(links, (int)v[i].ifindex) && target_remove(&t, &v[i]) == 0)
			v[k++] = v[i];
	if (k == n)
		pins_remove(dir, hook);
	if (k)
		print_removed(o, &t, nk_link_find(links, (int)t.link.ifindex), hook, "pruned", v, k,
			      k == n);
out:
	free(v);
	table_close(&t);
}

/* The devices of the namespace with inode ino, when nkctl reaches it. */
static bool ns_links(struct nk_ctx *ctx, unsigned long ino, struct nk_link_list *links)
{
	struct nk_ns *const *list;
	struct nl_err err;
	size_t n;

	if (nk_ns_reachable(ctx, &list, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		struct nl_sock *rt;

		if ((unsigned long)list[i]->ino != ino)
			continue;
		rt = nk_ns_try_rtnl(list[i]);
		return rt && rtnl_link_dump(rt, links, &err) == 0;
	}
	return false;
}

static void prune_ns(struct nk_ctx *ctx, const char *root, const char *name)
{
	struct nk_link_list links = { 0 };
	char ns[NS_LEN];
	unsigned long ino;
	struct dirent *e;
	bool known;
	DIR *dd;

	if (sscanf(name, "net%lu", &ino) != 1)
		return;
	snprintf(ns, sizeof(ns), "%s/nkctl/%.24s", root, name);
	known = ns_links(ctx, ino, &links);
	dd = opendir(ns);
	while (dd && (e = readdir(dd))) {
		struct pin_dir d = { .lock_fd = -1 };
		int ifindex;

		if (sscanf(e->d_name, "dev%d", &ifindex) != 1)
			continue;
		snprintf(d.path, sizeof(d.path), "%s/%.24s", ns, e->d_name);
		if (pin_dir_lock(&d, NULL, NULL, false))
			continue;
		for (const struct nk_choice *h = hook_words; h->name; h++)
			prune_table(&ctx->out, d.path, h->value, known ? &links : NULL);
		pin_dir_close(&d);
	}
	if (dd)
		closedir(dd);
	rmdir(ns); /* fails while pins stay: fine */
	nk_link_list_free(&links);
}

static int cmd_redirect_prune(struct nk_ctx *ctx, const void *args)
{
	char root[ROOT_LEN], top[DIR_LEN];
	struct dirent *e;
	DIR *dd = NULL;
	int ret;

	(void)args;
	ret = nk_bpffs_root(false, root, sizeof(root));
	if (ret && ret != -ENOENT)
		return pin_root(root, false);
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "pruned");
	if (!ret) {
		snprintf(top, sizeof(top), "%s/nkctl", root);
		dd = opendir(top);
	}
	while (dd && (e = readdir(dd)))
		prune_ns(ctx, root, e->d_name);
	if (dd)
		closedir(dd);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* ---- readers for doctor ---- */

/* The pin directory of device ifindex of the command's namespace. */
static int dev_dir(struct nk_ctx *ctx, int ifindex, char *dir)
{
	char root[ROOT_LEN], ns[NS_LEN];
	int ret = nk_bpffs_root(false, root, sizeof(root));

	if (ret)
		return ret;
	if (ns_dir(ctx, root, ns))
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
	ret = targets_list(&t, &out->targets, &out->n);
	table_close(&t);
	return ret;
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
	format_prefix(p, buf, len);
}

static const struct nk_cmd redirect_cmds[] = {
	{ "attach", cmd_redirect_attach, NULL, &attach_p, NULL,
	  "route prefixes (default: all) of DEV's hook to TARGET with a built-in BPF program, pinned" },
	{ "detach", cmd_redirect_detach, NULL, &detach_p, NULL,
	  "remove TARGET's routes, or nkctl's programs, from DEV (with -force: none is not an error)" },
	{ "show", cmd_redirect_show, NULL, &show_p, NULL,
	  "nkctl's route tables, and the other programs on the same hooks" },
	{ "prune", cmd_redirect_prune, NULL, NULL, NULL,
	  "remove nkctl's pins, routes and programs whose device or namespace is gone" },
};
const struct nk_table nk_redirect_table = NK_TABLE("nkctl redirect", redirect_cmds);
