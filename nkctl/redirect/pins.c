// SPDX-License-Identifier: GPL-2.0
/*
 * Where nkctl's route tables are pinned (pins.h): the hooks, the pin
 * directories <bpffs>/nkctl/net<netns inode>-<netns cookie>/dev<ifindex>/
 * and their lock, and the pins of one hook in one of them.
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

#include "bpfutil.h"
#include "compat.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "netns.h"
#include "redirect/pins.h"
#include "store.h"

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

/* ---- one hook's pins ---- */
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
