// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl's route tables as pinned (routes.h): one program per (device, hook)
 * routes by destination through LPM tries; the link and the maps are pinned
 * side by side under
 * <bpffs>/nkctl/net<netns inode>-<netns cookie>/dev<ifindex>/<hook>[-v4|-v6|-targets|-info|-devs].
 *
 * Crash order: a target's record lists every prefix the tries route to it,
 * at every moment. A change marks the table (info.changing), writes the
 * record with the old and new prefixes together, then the target's device
 * map entry (what makes its routes live in the data path), then the trie
 * entries, then the final record, and clears the mark; removal takes the trie
 * entries first, then the record, then the device map entry. A writer killed in between leaves the mark set
 * and records that claim more than the tries hold, never a route without a
 * record; the next writer sweeps (table_mend).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "kernel.h"
#include "lookup.h"
#include "netns.h"
#include "routes.h"
#include "store.h"
#include "redirect.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* The hooks, by their attach type; a hook's word is also its pins' name. */
const struct nk_choice rt_hook_words[] = {
	{ "tcx-ingress", NK_BPF_TCX_INGRESS, NULL }, { "tcx-egress", NK_BPF_TCX_EGRESS, NULL },
	{ "netkit-primary", NK_BPF_NETKIT_PRIMARY, NULL },
	{ "netkit-peer", NK_BPF_NETKIT_PEER, NULL }, { NULL, 0, NULL },
};

bool rt_hook_is_netkit(uint32_t hook)
{
	return hook == NK_BPF_NETKIT_PRIMARY || hook == NK_BPF_NETKIT_PEER;
}

const char *rt_hook_name(uint32_t hook)
{
	return nk_choice_word(rt_hook_words, hook);
}

const struct nk_choice rt_action_words[] = {
	{ "redirect-neigh", ACTION_NEIGH, NULL }, { "redirect-peer", ACTION_PEER, NULL },
	{ NULL, 0, NULL },
};
/* The program of bpf/redirect.bpf.c that does each action. */
static const char *const action_progs[ACTION_N] = {
	[ACTION_NEIGH] = "nk_neigh", [ACTION_PEER] = "nk_peer",
};

/* ---- prefixes ---- */

void rt_format_prefix(const struct nk_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
}

static bool prefix_eq(const struct nk_prefix *a, const struct nk_prefix *b)
{
	return a->family == b->family && a->len == b->len && !memcmp(a->addr, b->addr, 16);
}

bool rt_prefix_in(const struct nk_prefix *p, const struct nk_prefix *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (prefix_eq(p, &v[i]))
			return true;
	return false;
}

bool rt_same_set(const struct nk_target *a, const struct nk_target *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (!rt_prefix_in(&a->p[i], b->p, b->n))
			return false;
	return true;
}

/* ---- pin directories ---- */

int rt_pin_root(char *root, bool may_mount)
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

static int ns_cookie(struct nk_ns *ns, unsigned long long *cookie)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	socklen_t len = sizeof(*cookie);

	if (!rt || getsockopt(mnl_socket_get_fd(rt->mnl), SOL_SOCKET, SO_NETNS_COOKIE, cookie,
			      &len))
		return -EIO;
	return 0;
}

int rt_ns_dir(struct nk_ns *ns, const char *root, char *buf)
{
	unsigned long long cookie;

	if (ns_cookie(ns, &cookie))
		return nk_error(NK_EXIT_FAIL, "cannot read the network namespace's cookie");
	snprintf(buf, NS_LEN, "%s/nkctl/net%lu-%llu", root, (unsigned long)ns->ino, cookie);
	return 0;
}

int rt_here_dir(struct nk_ctx *ctx, const char *root, char *buf)
{
	struct nk_ns *here;
	int ret = nk_ns_here(ctx, &here);

	return ret ? ret : rt_ns_dir(here, root, buf);
}

bool rt_ns_dir_name(const char *name, unsigned long *ino, unsigned long long *cookie)
{
	int end = 0;

	return sscanf(name, "net%lu-%llu%n", ino, cookie, &end) == 2 && !name[end];
}

bool rt_ns_dir_legacy(const char *name)
{
	unsigned long ino;
	int end = 0;

	return sscanf(name, "net%lu%n", &ino, &end) == 1 && end && !name[end];
}

/* Unlink every pin of a device directory. */
static void pins_remove_all(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *e;

	while (dd && (e = readdir(dd)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(dd), e->d_name, 0);
	if (dd)
		closedir(dd);
}

int rt_legacy_remove(const char *ns)
{
	DIR *dd = opendir(ns);
	struct dirent *e;
	struct stat st;

	while (dd && (e = readdir(dd))) {
		struct pin_dir d = { .lock_fd = -1 };

		if (strncmp(e->d_name, "dev", 3))
			continue;
		snprintf(d.path, sizeof(d.path), "%s/%.24s", ns, e->d_name);
		if (pin_dir_lock(&d, NULL, NULL, false))
			continue;
		pins_remove_all(d.path);
		pin_dir_close(&d); /* the namespace's directory too, once empty */
	}
	if (dd)
		closedir(dd);
	rmdir(ns);
	return stat(ns, &st) == 0 ? -EBUSY : 0;
}

static int make_dirs(const char *root, const char *ns, const char *dev)
{
	char top[DIR_LEN];
	const char *const dirs[] = { top, ns, dev };
	int ret;

	snprintf(top, sizeof(top), "%s/nkctl", root);
	for (size_t i = 0; i < 3; i++) {
		ret = nk_private_dir(dirs[i]);
		if (ret == -ENOENT)
			return ret;  /* a parent removed meanwhile: again */
		if (ret == -EPERM)
			return nk_error(NK_EXIT_PERM,
					"%s is not a directory of ours with mode 0700; refusing to use it",
					dirs[i]);
		if (ret)
			return nk_error_errno(-ret, "cannot create %s", dirs[i]);
	}
	return 0;
}

int pin_dir_lock(struct pin_dir *d, const char *root, const char *ns, bool create)
{
	for (int tries = 0; tries < 1000; tries++) {
		int ret = create ? make_dirs(root, ns, d->path) : 0;

		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		ret = nk_store_lock_dir(d->path, &d->lock_fd);
		/* -ESTALE: removed by the writer before us; lock the one there now. */
		if (ret == -ESTALE || (ret == -ENOENT && create))
			continue;
		if (ret == -ENOENT)
			return -ENOENT;
		if (ret)
			return nk_error_errno(-ret, "cannot lock %s", d->path);
		return 0;
	}
	return nk_error(NK_EXIT_EXISTS, "cannot lock %s: it keeps being removed", d->path);
}

void pin_dir_close(struct pin_dir *d)
{
	char *slash;

	/* Removed while locked: a waiter sees that and takes the next one. */
	if (d->lock_fd >= 0 && rmdir(d->path) == 0 && (slash = strrchr(d->path, '/'))) {
		*slash = '\0';
		rmdir(d->path); /* the namespace's, when it was the last */
		*slash = '/';
	}
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
}

/* ---- one hook's table ---- */

static const char *const pin_suffix[PIN_N] = { "", "-v4", "-v6", "-targets", "-info", "-devs" };

void pin_path(const char *dir, uint32_t hook, int which, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/%s%s", dir, rt_hook_name(hook), pin_suffix[which]);
}

void pins_remove(const char *dir, uint32_t hook)
{
	char pin[PIN_LEN];

	for (int i = 0; i < PIN_N; i++) {
		pin_path(dir, hook, i, pin);
		unlink(pin);
	}
}

void table_close(struct table *t)
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

int table_open(const char *dir, uint32_t hook, struct table *t)
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
	/* A table without its info record is shown by ifindex (info zeroed). */
	if (t->fd[PIN_INFO] >= 0 && bpf_map_lookup_elem(t->fd[PIN_INFO], &key, &t->info))
		memset(&t->info, 0, sizeof(t->info));
	return 0;
}

/* Without PIN_DEVS: a table an older nkctl made, whose program routes to
 * bare ifindexes; it works as it did until table_get moves it on. */
bool table_complete(const struct table *t)
{
	for (int i = 0; i < PIN_DEVS; i++)
		if (t->fd[i] < 0)
			return false;
	return true;
}

/* Is the table empty of targets now (its program may go)? */
bool table_empty(const struct table *t)
{
	uint32_t key = 0, next;

	return bpf_map_get_next_key(t->fd[PIN_TARGETS], &key, &next) != 0;
}

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
		ret = nk_feature_need(ctx, rt_hook_is_netkit(hook) ? NK_FEAT_NETKIT_BPF : NK_FEAT_TCX);
		if (ret)
			return ret;
		why = "the kernel refused this hook for this device";
		break;
	case EEXIST:
		why = "the hook is full or the program is attached already";
		break;
	default:
		return nk_error_errno(err, "cannot attach to %s of \"%s\"", rt_hook_name(hook), dev);
	}
	/* The wrong kind or role of device: "not supported by this device". */
	return nk_error(err == EEXIST ? NK_EXIT_EXISTS : NK_EXIT_UNSUPPORTED,
			"cannot attach to %s of \"%s\": %s (%s)", rt_hook_name(hook), dev, why,
			strerror(err));
}

/* The skeleton's program of action, the only one loaded, with the maps of
 * an existing table when t is given. */
static struct nk_redirect *prog_load(int action, const struct table *t)
{
	struct nk_redirect *skel = nk_redirect__open();
	int ret;

	/* the callers' exit status is 2 whatever the errno: the report says so */
	if (!skel) {
		nk_error(NK_EXIT_FAIL, "cannot load the redirect program: %s", strerror(errno));
		return NULL;
	}
	bpf_program__set_autoload(skel->progs.nk_neigh, action == ACTION_NEIGH);
	bpf_program__set_autoload(skel->progs.nk_peer, action == ACTION_PEER);
	ret = 0;
	if (t)  /* each returns -errno: the first failure's is kept */
		ret = bpf_map__reuse_fd(skel->maps.nk_routes4, t->fd[PIN_V4]);
	if (t && !ret)
		ret = bpf_map__reuse_fd(skel->maps.nk_routes6, t->fd[PIN_V6]);
	if (t && !ret)
		ret = bpf_map__reuse_fd(skel->maps.nk_targets, t->fd[PIN_TARGETS]);
	if (t && !ret)
		ret = bpf_map__reuse_fd(skel->maps.nk_info, t->fd[PIN_INFO]);
	if (!ret)
		ret = nk_redirect__load(skel);
	if (ret) {
		nk_error(NK_EXIT_FAIL, "cannot load the redirect program: %s",
			 strerror(ret < 0 ? -ret : EINVAL));
		nk_redirect__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Pin the skeleton's maps beside where the link goes. */
static int pin_maps(const struct nk_redirect *skel, const char *dir, uint32_t hook)
{
	const struct bpf_map *maps[PIN_N] = {
		NULL, skel->maps.nk_routes4, skel->maps.nk_routes6, skel->maps.nk_targets,
		skel->maps.nk_info, skel->maps.nk_devs,
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
 * the hook through a link and pin that (last: a table without its link is
 * not a table, and the next writer starts over). */
static int table_create(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int action,
			const char *dir)
{
	struct nk_hook_info info = { (uint32_t)dev->ifindex, hook, (uint32_t)action, "", 0 };
	struct nk_redirect *skel;
	struct bpf_program *prog;
	char pin[PIN_LEN];
	uint32_t key = 0;
	int link_fd, ret;

	pins_remove(dir, hook); /* a defunct or half-made one */
	snprintf(info.ifname, sizeof(info.ifname), "%s", dev->ifname);
	skel = prog_load(action, NULL);
	if (!skel)
		return NK_EXIT_FAIL;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.nk_info), &key, &info, BPF_ANY)) {
		ret = nk_error_errno(errno, "cannot record the table's device");
		goto out;
	}
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

/* The live targets of an older table into its new device map: those whose
 * device at the recorded ifindex is still the recorded one. */
static void devs_fill(struct nk_ctx *ctx, const struct table *t, int devs_fd)
{
	struct nk_target *v;
	struct nl_sock *rt;
	struct nk_link l;
	size_t n;

	if (nk_ctx_rtnl(ctx, &rt) || targets_list(t, &v, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (nk_link_lookup(rt, NULL, (int)v[i].ifindex, &l, NULL, true) == 0 &&
		    target_is(&v[i], &l))
			bpf_map_update_elem(devs_fd, &v[i].ifindex, &v[i].ifindex, BPF_ANY);
	free(v);
}

/* Move a table an older nkctl made (no device map) onto this program, in
 * place: its routes stay. The device map is filled, the link switched to the
 * new program, and the map pinned last: a writer killed before the pin
 * leaves a table without PIN_DEVS, which the next one moves again. */
static int table_upgrade(struct nk_ctx *ctx, uint32_t hook, const char *dir, struct table *t)
{
	struct nk_redirect *skel = prog_load(t->action, t);
	struct bpf_program *prog;
	char pin[PIN_LEN];
	int ret = 0;

	if (!skel)
		return NK_EXIT_FAIL;
	devs_fill(ctx, t, bpf_map__fd(skel->maps.nk_devs));
	prog = t->action == ACTION_NEIGH ? skel->progs.nk_neigh : skel->progs.nk_peer;
	pin_path(dir, hook, PIN_DEVS, pin);
	if (bpf_link_update(t->fd[PIN_LINK], bpf_program__fd(prog), NULL))
		ret = nk_error_errno(errno, "cannot move the table of %s in %s onto this nkctl's program",
				     rt_hook_name(hook), dir);
	else if (bpf_obj_pin(bpf_map__fd(skel->maps.nk_devs), pin))
		ret = nk_error_errno(errno, "cannot pin a map at %s", pin);
	nk_redirect__destroy(skel);
	table_close(t);
	return ret ? ret : table_open(dir, hook, t);
}

int table_get(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int action,
	      const char *dir, struct table *t, bool *created)
{
	int ret = table_open(dir, hook, t);

	*created = false;
	if (ret == 0 && !t->defunct && table_complete(t) && t->action >= 0 &&
	    t->fd[PIN_DEVS] < 0) {
		ret = table_upgrade(ctx, hook, dir, t);
		if (ret > 0)
			return ret;
	}
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
		return nk_error_errno(-ret, "cannot open the pins of %s in %s", rt_hook_name(hook),
				      dir);
	return 0;
}

/* ---- targets and routes ---- */

int target_get(const struct table *t, uint32_t ifindex, struct nk_target *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (t->fd[PIN_TARGETS] < 0 || bpf_map_lookup_elem(t->fd[PIN_TARGETS], &ifindex, rec))
		return -errno;
	if (rec->n > NK_RECORD_PREFIXES)
		rec->n = NK_RECORD_PREFIXES;
	return 0;
}

int targets_list(const struct table *t, struct nk_target **v, size_t *n)
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

			if (!nv) {
				free(*v);
				*v = NULL;
				*n = 0;
				return -ENOMEM;
			}
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

int route_fd(const struct table *t, const struct nk_prefix *p)
{
	return t->fd[p->family == 6 ? PIN_V6 : PIN_V4];
}

void route_key(const struct nk_prefix *p, unsigned char key[20])
{
	uint32_t len = p->len;

	memcpy(key, &len, 4);
	memcpy(key + 4, p->addr, p->family == 6 ? 16 : 4);
}

uint32_t route_owner(const struct table *t, const struct nk_prefix *p)
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

static int route_del(const struct table *t, const struct nk_prefix *p)
{
	unsigned char key[20];

	route_key(p, key);
	return bpf_map_delete_elem(route_fd(t, p), key) && errno != ENOENT ? -errno : 0;
}

void target_live_prefixes(const struct table *t, struct nk_target *rec)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < rec->n; i++)
		if (route_owner(t, &rec->p[i]) == rec->ifindex)
			rec->p[k++] = rec->p[i];
	rec->n = k;
}

void target_identify(struct nk_target *rec, const struct nk_link *l)
{
	rec->ifindex = (uint32_t)l->ifindex;
	snprintf(rec->ifname, sizeof(rec->ifname), "%s", l->ifname);
	rec->hwaddr_len = l->addr_len <= NK_HWADDR_LEN ? l->addr_len : NK_HWADDR_LEN;
	memcpy(rec->hwaddr, l->addr, rec->hwaddr_len);
}

bool target_same(const struct nk_target *a, const struct nk_target *b)
{
	return a->ifindex == b->ifindex && !strncmp(a->ifname, b->ifname, NK_NAME_LEN) &&
	       a->hwaddr_len == b->hwaddr_len && a->hwaddr_len <= NK_HWADDR_LEN &&
	       !memcmp(a->hwaddr, b->hwaddr, a->hwaddr_len);
}

bool target_is(const struct nk_target *rec, const struct nk_link *l)
{
	struct nk_target now;

	if (!l)
		return false;
	target_identify(&now, l);
	return target_same(rec, &now);
}

/* The target's device map entry: the kernel takes the device by ifindex in
 * nkctl's namespace, the one whose identity the caller checked. */
static int dev_put(const struct table *t, uint32_t ifindex)
{
	if (t->fd[PIN_DEVS] < 0)
		return 0; /* an older table (see table_complete) */
	return bpf_map_update_elem(t->fd[PIN_DEVS], &ifindex, &ifindex, BPF_ANY) ? -errno : 0;
}

static int dev_del(const struct table *t, uint32_t ifindex)
{
	if (t->fd[PIN_DEVS] < 0)
		return 0;
	return bpf_map_delete_elem(t->fd[PIN_DEVS], &ifindex) && errno != ENOENT ? -errno : 0;
}

bool target_live(const struct table *t, uint32_t ifindex)
{
	uint32_t v;

	return t->fd[PIN_DEVS] < 0 || bpf_map_lookup_elem(t->fd[PIN_DEVS], &ifindex, &v) == 0;
}

/* Store rec (n 0: forget the target). */
static int target_put(const struct table *t, const struct nk_target *rec)
{
	if (!rec->n)
		return bpf_map_delete_elem(t->fd[PIN_TARGETS], &rec->ifindex) && errno != ENOENT ?
			       -errno : 0;
	return bpf_map_update_elem(t->fd[PIN_TARGETS], &rec->ifindex, rec, BPF_ANY) ? -errno : 0;
}

/* The mark of a change in progress (see the top). */
static int table_mark(const struct table *t, uint32_t changing)
{
	struct nk_hook_info info = t->info;
	uint32_t key = 0;

	info.changing = changing;
	return bpf_map_update_elem(t->fd[PIN_INFO], &key, &info, BPF_ANY) ? -errno : 0;
}

/* Take p away from the target owner's record (after the trie moved it). */
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

/* The prefixes of a change, with who held them before. */
struct moves {
	uint32_t n;
	uint32_t prev[NK_TARGET_PREFIXES];
	const struct nk_prefix *p[NK_TARGET_PREFIXES];
};

/* Put the trie back as it was before moves (a failed change). */
static void moves_undo(const struct table *t, const struct moves *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (m->prev[i])
			route_set(t, m->p[i], m->prev[i]);
		else
			route_del(t, m->p[i]);
}

/* want's trie entries that it does not hold yet (replace takes them). */
static int routes_add(const struct table *t, const struct nk_target *want, struct moves *m)
{
	int ret = 0;

	m->n = 0;
	for (uint32_t i = 0; !ret && i < want->n; i++) {
		uint32_t owner = route_owner(t, &want->p[i]);

		if (owner == want->ifindex)
			continue;
		m->prev[m->n] = owner;
		m->p[m->n] = &want->p[i];
		ret = route_set(t, &want->p[i], want->ifindex);
		if (!ret)
			m->n++;
	}
	return ret;
}

/* When old and want together do not fit in a record (old as a killed
 * writer left it), old's routes that go are removed first. */
static void old_fit(const struct table *t, struct nk_target *old, const struct nk_target *want)
{
	uint32_t k = 0, extra = 0;

	for (uint32_t i = 0; i < want->n; i++)
		extra += !rt_prefix_in(&want->p[i], old->p, old->n);
	if (old->n + extra <= NK_RECORD_PREFIXES)
		return;
	for (uint32_t i = 0; i < old->n; i++)
		if (rt_prefix_in(&old->p[i], want->p, want->n))
			old->p[k++] = old->p[i];
		else if (route_owner(t, &old->p[i]) == old->ifindex)
			route_del(t, &old->p[i]);
	old->n = k;
}

int routes_set(const struct table *t, const struct nk_target *old, const struct nk_target *want,
	       struct change *c)
{
	struct nk_target both = *old;
	struct moves m = { 0 };
	int ret;

	if (rt_same_set(old, want) && !strcmp(old->ifname, want->ifname)) {
		/* Unchanged, unless the trie lost some (a killed writer). */
		for (uint32_t i = 0; i < want->n; i++)
			if (route_owner(t, &want->p[i]) != want->ifindex)
				goto change;
		if (!want->n || target_live(t, want->ifindex))
			return 0;
	}
change:
	both.ifindex = want->ifindex;
	memcpy(both.ifname, want->ifname, sizeof(both.ifname));
	both.hwaddr_len = want->hwaddr_len;
	memcpy(both.hwaddr, want->hwaddr, sizeof(both.hwaddr));
	ret = table_mark(t, 1);
	if (!ret)
		old_fit(t, &both, want);
	for (uint32_t i = 0; i < want->n; i++)
		if (!rt_prefix_in(&want->p[i], both.p, both.n))
			both.p[both.n++] = want->p[i];
	if (!ret)
		ret = target_put(t, &both);
	if (!ret && want->n)
		ret = dev_put(t, want->ifindex);
	if (!ret)
		ret = routes_add(t, want, &m);
	if (ret) {
		moves_undo(t, &m);
		if (old->n) {
			target_put(t, old);
		} else {
			target_put(t, &(struct nk_target){ .ifindex = want->ifindex });
			dev_del(t, want->ifindex);
		}
		table_mark(t, 0);
		return ret;
	}
	c->changed = true;
	for (uint32_t i = 0; i < m.n; i++)
		if (m.prev[i]) {
			target_drop_prefix(t, m.prev[i], m.p[i]);
			c->replaced = true;
		}
	for (uint32_t i = 0; i < old->n; i++)
		if (!rt_prefix_in(&old->p[i], want->p, want->n) &&
		    route_owner(t, &old->p[i]) == want->ifindex)
			route_del(t, &old->p[i]);
	ret = target_put(t, want);
	if (!ret && !want->n)
		ret = dev_del(t, want->ifindex);
	if (!ret)
		ret = table_mark(t, 0);
	return ret;
}

int target_remove(const struct table *t, const struct nk_target *rec)
{
	struct nk_target gone = { .ifindex = rec->ifindex };
	int ret = table_mark(t, 1);

	for (uint32_t i = 0; !ret && i < rec->n; i++)
		if (route_owner(t, &rec->p[i]) == rec->ifindex)
			ret = route_del(t, &rec->p[i]);
	if (!ret)
		ret = target_put(t, &gone);
	if (!ret)
		ret = dev_del(t, rec->ifindex);
	if (!ret)
		ret = table_mark(t, 0);
	return ret;
}

/* ---- the sweep ---- */

static int orphan_add(struct orphan **v, size_t *n, const struct nk_prefix *p, uint32_t ifindex)
{
	struct orphan *nv;

	if (!(*n & (*n + 1)) || !*v) {  /* grow at 0, 1, 3, 7, ... */
		nv = realloc(*v, (2 * *n + 2) * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[*n].p = *p;
	(*v)[(*n)++].ifindex = ifindex;
	return 0;
}

/* Walk one family's trie: entries whose owner's record does not list them. */
static int sweep_trie(const struct table *t, uint8_t family, struct orphan **v, size_t *n)
{
	int fd = t->fd[family == 6 ? PIN_V6 : PIN_V4];
	size_t alen = family == 6 ? 16 : 4;
	/* A prefix length above the trie's maximum starts the walk at the
	 * leftmost entry (the trie's rule for an invalid key), without a NULL
	 * key (valgrind flags it). */
	unsigned char key[20] = { 0xff, 0xff, 0xff, 0xff }, next[20];
	int ret = 0;

	if (fd < 0)
		return 0;
	while (!ret && bpf_map_get_next_key(fd, key, next) == 0) {
		struct nk_prefix p = { .family = family };
		struct nk_target rec;
		struct nk_route r;
		uint32_t len;

		memcpy(key, next, sizeof(key));
		if (bpf_map_lookup_elem(fd, key, &r))
			continue;
		memcpy(&len, key, 4);
		p.len = (uint8_t)len;
		memcpy(p.addr, key + 4, alen);
		if (target_get(t, r.ifindex, &rec) || !rt_prefix_in(&p, rec.p, rec.n))
			ret = orphan_add(v, n, &p, r.ifindex);
	}
	return ret;
}

/* Device map entries without a record (a removal killed before its last
 * step) go. */
static void sweep_devs(const struct table *t)
{
	uint32_t key = 0, next;
	struct nk_target rec;

	while (t->fd[PIN_DEVS] >= 0 && bpf_map_get_next_key(t->fd[PIN_DEVS], &key, &next) == 0) {
		key = next;
		if (target_get(t, key, &rec) == -ENOENT)
			dev_del(t, key);
	}
}

/* Records keep only what the tries route to them; empty ones go. */
static void sweep_records(const struct table *t)
{
	struct nk_target *v;
	size_t n;

	if (targets_list(t, &v, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t had = v[i].n;

		target_live_prefixes(t, &v[i]);
		if (v[i].n != had)
			target_put(t, &v[i]);
	}
	free(v);
}

int table_sweep(const struct table *t, bool fix, struct orphan **v, size_t *n)
{
	int ret;

	*v = NULL;
	*n = 0;
	ret = sweep_trie(t, 4, v, n);
	if (!ret)
		ret = sweep_trie(t, 6, v, n);
	if (ret || !fix)
		return ret;
	for (size_t i = 0; i < *n; i++)
		route_del(t, &(*v)[i].p);
	sweep_records(t);
	sweep_devs(t);
	return table_mark(t, 0);
}

int table_mend(const struct table *t)
{
	struct orphan *v;
	size_t n;
	int ret;

	if (!t->info.changing)
		return 0;
	ret = table_sweep(t, true, &v, &n);
	free(v);
	return ret;
}

/* ---- prefixes ---- */

/* ADDRESS/LENGTH as redirect attach ... prefix takes it: no host bits set. */
int parse_prefix(const char *s, struct nk_prefix *p)
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
