// SPDX-License-Identifier: GPL-2.0
/*
 * One hook's table (table.h): the program and maps of one (device, hook)
 * under its pin directory, opened, made, and moved onto this nkctl's program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "redirect/routes.h"
#include "redirect.skel.h"

const struct nk_choice rt_action_words[] = {
	{ "redirect-neigh", ACTION_NEIGH, NULL }, { "redirect-peer", ACTION_PEER, NULL },
	{ NULL, 0, NULL },
};
/* The program of bpf/redirect.bpf.c that does each action. */
static const char *const action_progs[ACTION_N] = {
	[ACTION_NEIGH] = "nk_neigh", [ACTION_PEER] = "nk_peer",
};

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
