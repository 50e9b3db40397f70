// SPDX-License-Identifier: GPL-2.0
/*
 * One NIC's AF_XDP program and maps under nkctl xsk (xsknic.h): pinned,
 * loaded, attached; the holders' pins' names; the slots of its queues.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "netdev.h"
#include "netns.h"
#include "lease/look.h"
#include "xsk/xskfit.h"
#include "xsk/xsknic.h"
#include "xsk.skel.h"

static const char *const pin_names[XPIN_N] = { "link", "queues", "slots" };

/* ---- pins ---- */

void xsk_nic_close(struct xsk_nic *n)
{
	for (int i = 0; i < XPIN_N; i++)
		if (n->fd[i] >= 0)
			close(n->fd[i]);
	pin_dir_close(&n->d);
}

void xsk_pin_path(const struct xsk_nic *n, int which, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/%s", n->d.path, pin_names[which]);
}

/* The NIC's directory of the namespace directory nsdir, locked, its pins
 * opened. -ENOENT quietly when there is none and create is false. */
int xsk_nic_open(const char *root, const char *nsdir, int ifindex, bool create,
			struct xsk_nic *n)
{
	char pin[PIN_LEN];
	int ret;

	memset(n, 0, sizeof(*n));
	n->d.lock_fd = -1;
	for (int i = 0; i < XPIN_N; i++)
		n->fd[i] = -1;
	snprintf(n->d.path, sizeof(n->d.path), "%s/xsk%d", nsdir, ifindex);
	ret = pin_dir_lock(&n->d, root, nsdir, create);
	if (ret)
		return ret;
	for (int i = 0; i < XPIN_N; i++) {
		xsk_pin_path(n, i, pin);
		n->fd[i] = bpf_obj_get(pin);
	}
	return 0;
}

void xsk_nic_unpin(struct xsk_nic *n)
{
	char pin[PIN_LEN];

	for (int i = 0; i < XPIN_N; i++) {
		xsk_pin_path(n, i, pin);
		unlink(pin);
	}
}

/* A link pinned whose device is gone (or a half-made set) is no program. */
bool xsk_nic_live(const struct xsk_nic *n)
{
	struct nk_bpf_link info;

	for (int i = 0; i < XPIN_N; i++)
		if (n->fd[i] < 0)
			return false;
	return !nk_bpf_link_info(n->fd[XPIN_LINK], &info) && info.ifindex;
}

static uint32_t map_size(int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

/* The skeleton opened, using the NIC's pinned maps when both are there and
 * hold its queues (a link gone, or its program taken off the device: the
 * queues the holders prepared stay prepared; *reused says so), else sized
 * for the NIC's nic_queues RX queues: no queue of the NIC is beyond them. */
static struct nk_xsk *skel_open(const struct xsk_nic *n, uint32_t nic_queues, bool *reused)
{
	struct nk_xsk *skel = nk_xsk__open();

	*reused = false;
	if (skel && n->fd[XPIN_QUEUES] >= 0 && n->fd[XPIN_SLOTS] >= 0 &&
	    map_size(n->fd[XPIN_SLOTS]) >= nic_queues) {
		if (!bpf_map__reuse_fd(skel->maps.nk_xsk_queues, n->fd[XPIN_QUEUES]) &&
		    !bpf_map__reuse_fd(skel->maps.nk_xsk_slots, n->fd[XPIN_SLOTS])) {
			*reused = true;
			return skel;
		}
		nk_xsk__destroy(skel);  /* maps of another shape: made anew */
		skel = nk_xsk__open();
	}
	if (skel && (bpf_map__set_max_entries(skel->maps.nk_xsk_queues, nic_queues) ||
		     bpf_map__set_max_entries(skel->maps.nk_xsk_slots, nic_queues))) {
		nk_xsk__destroy(skel);
		return NULL;
	}
	return skel;
}

static int maps_pin(struct xsk_nic *n, struct nk_xsk *skel)
{
	char pin[PIN_LEN];

	xsk_pin_path(n, XPIN_QUEUES, pin);
	if (bpf_obj_pin(bpf_map__fd(skel->maps.nk_xsk_queues), pin))
		return nk_error_errno(errno, "cannot pin a map at %s", pin);
	xsk_pin_path(n, XPIN_SLOTS, pin);
	if (bpf_obj_pin(bpf_map__fd(skel->maps.nk_xsk_slots), pin))
		return nk_error_errno(errno, "cannot pin a map at %s", pin);
	return 0;
}

static void fds_reopen(struct xsk_nic *n)
{
	char pin[PIN_LEN];

	for (int i = 0; i < XPIN_N; i++) {
		if (n->fd[i] >= 0)
			close(n->fd[i]);
		xsk_pin_path(n, i, pin);
		n->fd[i] = bpf_obj_get(pin);
	}
}

/* BPF_LINK_CREATE, which finds the ifindex in the caller's namespace. */
struct link_create {
	int prog_fd, ifindex, fd;
	const struct bpf_link_create_opts *opts;
};

static int link_create(void *arg)
{
	struct link_create *c = arg;

	c->fd = bpf_link_create(c->prog_fd, c->ifindex, BPF_XDP, c->opts);
	return c->fd < 0 ? -errno : 0;
}

/* The XDP link of the NIC ifindex of namespace ns, made there. */
static int nic_link_create(struct nk_ns *ns, int prog_fd, int ifindex,
			   const struct bpf_link_create_opts *opts)
{
	struct link_create c = { prog_fd, ifindex, -1, opts };
	int ret = netns_run(ns->here ? -1 : ns->fd, link_create, &c);

	if (ret)
		errno = -ret;
	return ret ? -1 : c.fd;
}

/* Load the program (on the NIC's pinned maps when they are there, else on
 * new ones, pinned), attach it to the NIC through a link and pin that last:
 * a directory without its link is remade by the next one. */
int xsk_nic_make(struct xsk_nic *n, struct nk_ns *ns, int ifindex, const char *ifname,
		 bool native, uint32_t nic_queues)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = native ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE);
	struct nk_xsk *skel;
	char pin[PIN_LEN];
	bool reused;
	int ret = 0, link_fd;

	skel = skel_open(n, nic_queues ? nic_queues : NK_XSK_NIC_QUEUES, &reused);
	if (!skel || nk_xsk__load(skel)) {
		ret = nk_error_errno(errno, "cannot load the AF_XDP redirect program");
		nk_xsk__destroy(skel);
		return ret;
	}
	xsk_pin_path(n, XPIN_LINK, pin);
	if (reused)
		unlink(pin);  /* a defunct link's */
	else
		xsk_nic_unpin(n);
	ret = reused ? 0 : maps_pin(n, skel);
	link_fd = ret ? -1 : nic_link_create(ns, bpf_program__fd(skel->progs.nk_xsk), ifindex, &opts);
	if (!ret && link_fd < 0)
		ret = nk_error_errno(errno, "cannot attach the XDP program to \"%s\"%s", ifname,
				     errno == EBUSY || errno == EEXIST ?
				     " (another XDP program is attached)" : "");
	if (!ret && bpf_obj_pin(link_fd, pin))
		ret = nk_error_errno(errno, "cannot pin the link at %s", pin);
	if (link_fd >= 0)
		close(link_fd);
	if (ret && !reused)
		xsk_nic_unpin(n);
	nk_xsk__destroy(skel);
	fds_reopen(n);
	return ret;
}

/* The netns cookie of ns, read from its pin directory's name. */
int ns_cookie_of(struct nk_ns *ns, const char *root, unsigned long long *cookie)
{
	char dir[NS_LEN];
	unsigned long ino;
	const char *base;
	int ret = rt_ns_dir(ns, root, dir);

	if (ret)
		return ret;
	base = strrchr(dir, '/');
	if (!base || !rt_ns_dir_name(base + 1, &ino, cookie))
		return nk_error(NK_EXIT_FAIL, "cannot read the network namespace's cookie");
	return 0;
}

void holder_dir(const char *root, unsigned long long cookie, uint32_t ifindex, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/" XSK_PUBLIC_DIR "/ns%llu-dev%u", root, cookie, ifindex);
}

void holder_pin(const char *root, unsigned long long cookie, uint32_t ifindex, char *buf)
{
	snprintf(buf, PIN_LEN, "%s/" XSK_PUBLIC_DIR "/ns%llu-dev%u/" XSK_MAP_NAME, root, cookie,
		 ifindex);
}

/* ---- slots ---- */

/* Every slot of the slots map fd in one call (a loop of lookups would be a
 * syscall per queue); -EIO, and none, when it cannot be read. */
int xsk_slots_read_fd(int fd, struct nk_xsk_slots *all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t out_batch, count = map_size(fd), *keys = calloc(count ? count : 1, sizeof(*keys));
	int ret = 0;

	all->v = calloc(count ? count : 1, sizeof(*all->v));
	all->n = count;
	if (!count || !all->v || !keys ||
	    (bpf_map_lookup_batch(fd, NULL, &out_batch, keys, all->v, &count, &opts) &&
	     errno != ENOENT)) {
		all->n = 0;
		ret = -EIO;
	}
	free(keys);
	return ret;
}

int slots_read(const struct xsk_nic *n, struct nk_xsk_slots *all)
{
	return xsk_slots_read_fd(n->fd[XPIN_SLOTS], all);
}

void slots_free(struct nk_xsk_slots *all)
{
	free(all->v);
	all->v = NULL;
	all->n = 0;
}

/* The queue goes first, its slot (the switch) last. */
int slot_set(const struct xsk_nic *n, uint32_t q, int map_fd, const struct nk_xsk_slot *s)
{
	if (bpf_map_update_elem(n->fd[XPIN_QUEUES], &q, &map_fd, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(n->fd[XPIN_SLOTS], &q, s, BPF_ANY))
		return -errno;
	return 0;
}

bool xsk_slots_used(const struct nk_xsk_slots *all)
{
	for (uint32_t q = 0; q < all->n; q++)
		if (all->v[q].holder)
			return true;
	return false;
}

bool nic_used(const struct xsk_nic *n)
{
	struct nk_xsk_slots all;
	bool used;

	used = slots_read(n, &all) || xsk_slots_used(&all);  /* unknown: keep */
	slots_free(&all);
	return used;
}

/* The name of pin which in a NIC's directory. */
const char *xsk_pin_name(int which)
{
	return pin_names[which];
}
