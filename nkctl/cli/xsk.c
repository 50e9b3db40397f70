// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl xsk attach|detach|show: make the leased queues of a single netkit
 * device (the holder) ready for an AF_XDP consumer, a VMM's af-xdp backend.
 *
 * The XDP program that redirects into AF_XDP sockets cannot sit on netkit
 * (XDP_SETUP_PROG is refused there): it sits on the physical NIC, one per NIC
 * (bpf/xsk.bpf.c), and sees the physical queue. Each holder gets its own XSK
 * map, pinned where an unprivileged VMM may open it (owner, group and mode
 * as given), indexed by the holder's queue ids; the NIC's program maps each
 * prepared physical queue to its holder's map and index.
 *
 * The pins, the crash order and the sweep are the model's (xsk/xsknic.h, xsksweep.h); this
 * file has the parameters, the checks (a single netkit holder, its leases,
 * the NIC's xdp-features) and the printing.
 */
#include <errno.h>
#include <inttypes.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "core/cmd.h"
#include "compat.h"
#include "lease/scan.h"
#include "core/lookup.h"
#include "netdev.h"
#include "netkit.h"
#include "lease/look.h"
#include "redirect/routes.h"
#include "xsk/xsksweep.h"

struct xsk_args {
	const char *dev, *user, *group, *mode;
	uint32_t queue;
	bool share;
};

#define XP(kw, type, field, meta, min, max, req) \
	{ kw, type, offsetof(struct xsk_args, field), meta, min, max, NULL, req, NULL }
static const struct nk_param attach_params[] = {
	XP("dev", NKP_IFNAME, dev, "HOLDER", 0, 0, true),
	XP("queue", NKP_U32, queue, "QUEUE", 0, NK_XSK_HOLDER_QUEUES - 1, false),
	XP("user", NKP_STRING, user, "USER", 0, 0, false),
	XP("group", NKP_STRING, group, "GROUP", 0, 0, false),
	XP("mode", NKP_STRING, mode, "MODE", 0, 0, false),
	XP("share", NKP_FLAG, share, NULL, 0, 0, false),
};
static const struct nk_params xsk_attach_params = {
	NK_PARAMS("xsk attach", struct xsk_args, attach_params)
};
static const struct nk_param detach_params[] = {
	XP("dev", NKP_IFNAME, dev, "HOLDER", 0, 0, true),
	XP("queue", NKP_U32, queue, "QUEUE", 0, NK_XSK_HOLDER_QUEUES - 1, false),
};
static const struct nk_params xsk_detach_params = {
	NK_PARAMS("xsk detach", struct xsk_args, detach_params)
};
static const struct nk_param show_params[] = {
	XP("dev", NKP_IFNAME, dev, "HOLDER", 0, 0, false),
};
static const struct nk_params xsk_show_params = {
	NK_PARAMS("xsk show", struct xsk_args, show_params)
};

/* ---- attach ---- */

static int parse_access(const struct xsk_args *a, struct xsk_access *acc)
{
	char *end;

	acc->uid = 0;
	acc->gid = 0;
	acc->mode = 0600;
	if (a->user) {
		struct passwd *pw = getpwnam(a->user);
		unsigned long v = strtoul(a->user, &end, 10);

		if (pw)
			acc->uid = pw->pw_uid, acc->gid = pw->pw_gid;
		else if (*end || end == a->user || v > 0xfffffffe)
			return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"user\": no such user",
					a->user);
		else
			acc->uid = (uid_t)v;
	}
	if (a->group) {
		struct group *gr = getgrnam(a->group);
		unsigned long v = strtoul(a->group, &end, 10);

		if (gr)
			acc->gid = gr->gr_gid;
		else if (*end || end == a->group || v > 0xfffffffe)
			return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"group\": no such group",
					a->group);
		else
			acc->gid = (gid_t)v;
	}
	if (a->mode) {
		unsigned long v = strtoul(a->mode, &end, 8);

		if (*end || end == a->mode || v > 0666)
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%s\" for \"mode\": an octal mode up to 0666",
					a->mode);
		acc->mode = (mode_t)v;
	}
	return 0;
}

/* The bpffs root's mode, -1 when it cannot be read. */
static int root_mode(const char *root)
{
	struct stat st;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), mode = -1;

	if (fd >= 0 && !fstat(fd, &st))
		mode = (int)(st.st_mode & 07777);
	if (fd >= 0)
		close(fd);
	return mode;
}

/* bpffs is mounted 0700 as a rule (systemd, nkctl itself): a VMM that is
 * not root reaches the pin only through a bind mount of its holder's
 * directory. */
static void warn_unreachable(const char *root, const char *dir)
{
	int mode = root_mode(root);

	if (mode >= 0 && !(mode & S_IXOTH))
		nk_warn("%s is not searchable by other users (mode %04o): bind-mount %s where the VMM runs (a hostPath volume) to reach the pin",
			root, (unsigned int)mode, dir);
}

/* A bpffs root other users may write (the kernel's default mode, 1777,
 * where a node agent mounted it so): nkctl-xsk in it is checked, but the
 * operator should know what else such a root exposes. */
static void warn_root_open(const char *root)
{
	int mode = root_mode(root);

	if (mode >= 0 && (mode & 022))
		nk_warn("%s has mode %04o: any user can make entries beside nkctl's (a directory of its own in nkctl-xsk's place is refused); mount bpffs with mode=0700",
			root, (unsigned int)mode);
}

/* What one attached queue is, for printing. */
struct xsk_queue {
	uint32_t queue, nic_queue;
	char nic[IF_NAMESIZE];
	bool zerocopy, native;
};

static int nic_features(const struct nk_lease_rec *r, uint64_t *features)
{
	const struct genl_family *fam;
	struct nl_err err = { 0 };
	struct nl_sock *s;
	int ret = nk_ns_netdev(r->nic_ns, &s, &fam);

	if (ret)
		return ret;
	if (netdev_dev_xdp_features(s, fam, r->nic_ifindex, features, &err))
		return nk_error_nl(&err, "cannot read the XDP features of \"%s\"", r->nic_ifname);
	return 0;
}

/* The NIC's RX queues as allocated (IFLA_NUM_RX_QUEUES: no channel count
 * goes beyond them), which size its maps; 0 when unknown. */
static uint32_t nic_rx_queues(const struct nk_lease_rec *r)
{
	struct nl_sock *rt = nk_ns_try_rtnl(r->nic_ns);
	struct nk_link nic;

	if (!rt || nk_link_lookup(rt, NULL, r->nic_ifindex, &nic, NULL, true))
		return 0;
	return nic.num_rx_queues;
}

/* Under the NIC directory's lock, before the slot is written: the queue
 * still leased to the holder (the lease read before may have ended since),
 * by the one judgement; the slot it replaces, of a holder whose lease
 * ended, into *old. */
static int slot_recheck(struct nk_ctx *ctx, const struct xsk_nic *n, const struct nk_lease_rec *r,
			const struct nk_holder_id *h, struct nk_xsk_slot *old)
{
	struct nk_nic_seen seen;
	enum nk_fate fate;

	memset(old, 0, sizeof(*old));
	if (bpf_map_lookup_elem(n->fd[XPIN_SLOTS], &r->nic_queue, old))
		memset(old, 0, sizeof(*old));
	nk_nic_seen_read(ctx, r->nic_ns, r->nic_ifindex, &seen);
	fate = nk_fate_of_slot(&seen, r->nic_queue, h);
	nk_nic_seen_free(&seen);
	if (fate == NK_FATE_ENDED)
		return nk_error(NK_EXIT_NOTFOUND, "queue %u of \"%s\" is no longer leased to the holder",
				r->nic_queue, r->nic_ifname);
	return 0;
}

static int attach_one(struct nk_ctx *ctx, const char *root, const struct nk_lease_rec *r,
		      const struct nk_holder_id *h, int map_fd, uint64_t cookie,
		      struct xsk_queue *out)
{
	struct nk_xsk_slot s = { r->nk_queue, (uint32_t)r->nk_ifindex, cookie }, old;
	char nsdir[NS_LEN];
	struct xsk_nic n;
	uint64_t features;
	int ret;

	ret = nic_features(r, &features);
	if (ret)
		return ret;
	out->queue = r->nk_queue;
	out->nic_queue = r->nic_queue;
	snprintf(out->nic, sizeof(out->nic), "%s", r->nic_ifname);
	out->zerocopy = features & NK_XDP_ACT_XSK_ZEROCOPY;
	out->native = features & NK_XDP_ACT_BASIC;
	ret = rt_ns_dir(r->nic_ns, root, nsdir);
	if (!ret)
		ret = xsk_nic_open(root, nsdir, r->nic_ifindex, true, &n);
	if (ret)
		return ret;
	if (!xsk_nic_live(&n))
		ret = xsk_nic_make(&n, r->nic_ns, r->nic_ifindex, r->nic_ifname, out->native,
				   nic_rx_queues(r));
	if (!ret)
		ret = slot_recheck(ctx, &n, r, h, &old);
	if (!ret && slot_set(&n, r->nic_queue, map_fd, &s))
		ret = nk_error_errno(errno, "cannot prepare queue %u of \"%s\"", r->nic_queue,
				     r->nic_ifname);
	if (ret && !nic_used(&n))
		xsk_nic_unpin(&n);
	xsk_nic_close(&n);
	/* the holder the queue went to before (deleted behind nkctl's back)
	 * loses its map when no NIC names it any more */
	if (!ret && old.holder && (old.holder != s.holder || old.holder_netns != cookie))
		holder_unpin_unnamed(root, old.holder, old.holder_netns, NULL);
	return ret;
}

/* up: the holder's IFF_UP, which its sockets need (net/xdp/xsk.c checks
 * the bound device in poll, sendmsg and recvmsg: a socket of a holder that
 * is down is never readable, and its kick fails ENETDOWN); -1: not known
 * (a holder in a namespace this command is not in), left out. */
static void print_holder(struct out *o, const char *dev, const char *pin, const struct stat *st,
			 int up)
{
	char mode[8], dir[PIN_LEN];
	char *slash;

	snprintf(mode, sizeof(mode), "%04o", (unsigned int)(st->st_mode & 0777));
	snprintf(dir, sizeof(dir), "%s", pin);
	if ((slash = strrchr(dir, '/')))
		*slash = 0;
	out_str(o, "ifname", "%s", dev);
	out_str(o, "pin", " pin %s", pin);
	out_str(o, "dir", NULL, dir);
	out_uint(o, "owner", " owner %" PRIu64, st->st_uid);
	out_uint(o, "group", " group %" PRIu64, st->st_gid);
	out_str(o, "mode", " mode %s", mode);
	if (up >= 0)
		out_bool(o, "up", NULL, up);
	out_text(o, up ? "\n" : ", DOWN: its sockets are never readable in poll() and cannot send (ip link set dev HOLDER up)\n");
}

/* How a socket through the queue can send, on 7.3: zero-copy through the
 * NIC's queue where the NIC has AF_XDP zero-copy; in copy mode not at all
 * (the holder has one TX queue and netkit's single device drops what it
 * transmits: doc/kernel-notes.md). */
static const char *tx_word(const struct xsk_queue *q)
{
	return q->zerocopy ? "zerocopy" : "none";
}

static void print_queue(struct out *o, const struct xsk_queue *q)
{
	out_obj_open(o, NULL);
	out_uint(o, "queue", "    queue %" PRIu64, q->queue);
	out_str(o, "nic", " nic %s", q->nic);
	out_uint(o, "nic-queue", " queue %" PRIu64, q->nic_queue);
	out_str(o, "xdp", " xdp %s", q->native ? "native" : "skb");
	out_str(o, "bind", " bind %s", q->zerocopy ? "zerocopy" : "copy");
	out_str(o, "tx", " tx %s\n", tx_word(q));
	out_obj_close(o);
}

/* A queue whose lease ended (its holder deleted behind nkctl's back, a
 * command killed before its sweep) until a sweep removes it. */
static void print_leased(struct out *o, bool leased)
{
	out_bool(o, "leased", NULL, leased);
	out_text(o, leased ? "\n" : ", the lease ended (nkctl redirect prune removes it)\n");
}

/* The holder: a single netkit device of the command's namespace. */
static int holder_get(struct nk_ctx *ctx, const char *dev, struct nk_link *l)
{
	int ret = nk_dev(ctx, dev, l);

	if (ret)
		return ret;
	if (strcmp(l->kind, "netkit"))
		return nk_error(NK_EXIT_UNSUPPORTED, "\"%s\" is not a netkit device", dev);
	if (l->netkit.pairing != NK_NETKIT_DEVICE_SINGLE)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"\"%s\" is a netkit pair: AF_XDP needs a single netkit device (link add ... pairing single)",
				dev);
	return 0;
}

static int holder_leases(struct nk_ctx *ctx, const struct nk_link *l, const struct xsk_args *a,
			 bool queue_given, struct nk_lease_list *all, struct nk_lease_list *held)
{
	struct nk_ns *here;
	size_t k = 0;
	int ret = nk_ns_here(ctx, &here);

	if (!ret)
		ret = nk_lease_held_by(ctx, here, l->ifindex, all, held);
	if (ret)
		return ret;
	ret = nk_lease_refuse_unseen(ctx, all, l, "which holder queue it feeds cannot be read",
				     "xsk attach again");
	if (ret)
		return ret;
	for (size_t i = 0; i < held->n; i++)
		if (!queue_given || held->v[i].nk_queue == a->queue)
			held->v[k++] = held->v[i];
	held->n = k;
	if (!k && queue_given)
		return nk_error(NK_EXIT_NOTFOUND, "queue %u of \"%s\" is not leased", a->queue, a->dev);
	if (!k)
		return nk_error(NK_EXIT_NOTFOUND, "\"%s\" leases no queue", a->dev);
	for (size_t i = 0; i < k; i++)
		if (!held->v[i].nic_ns)
			return nk_error(NK_EXIT_NOTFOUND,
					"the NIC of queue %u of \"%s\" is in a namespace nkctl cannot reach",
					held->v[i].nk_queue, a->dev);
	return 0;
}

/* The holder up, last (its slots are written): a VMM's socket is woken in
 * poll() and can kick its TX ring only on a device that is up. */
static int holder_up(struct nk_ctx *ctx, struct nk_link *l)
{
	struct nl_err err = { 0 };
	struct nl_sock *rt;
	int ret = nk_ctx_rtnl(ctx, &rt);

	if (ret)
		return ret;
	if (rtnl_link_set_up(rt, l->ifindex, &err))
		return nk_error_nl(&err, "cannot bring \"%s\" up", l->ifname);
	l->flags |= IFF_UP;
	return 0;
}

/* Another live holder's map that a user or group reaching this one's
 * reaches too (xsk_access_clash): refused unless share. One that a slot
 * still names may be of a holder deleted behind nkctl's back (libvirt
 * deletes a VM's holder with ip): the sweep judges, and the maps are
 * asked again. */
static int owner_check(struct nk_ctx *ctx, const char *root, int pub, const struct nk_link *l,
		       uint64_t cookie, const struct xsk_access *acc, bool share)
{
	char other[PIN_LEN];
	int ret = xsk_owner_taken(root, pub, (uint32_t)l->ifindex, cookie, acc, share, other);

	if (ret > 0) {
		xsk_sweep_locked(ctx);
		ret = xsk_owner_taken(root, pub, (uint32_t)l->ifindex, cookie, acc, share, other);
	}
	if (ret < 0)
		return nk_error_errno(-ret, "cannot read the NICs' AF_XDP slots");
	if (ret == XSK_CLASH_USER)
		return nk_error(NK_EXIT_EXISTS,
				"user %u already owns the map of another holder (%s): its VMM could open both (share allows it)",
				(unsigned int)acc->uid, other);
	if (ret == XSK_CLASH_GROUP)
		return nk_error(NK_EXIT_EXISTS,
				"group %u is the group of the map of another holder (%s) too, and reaches one of them: a VMM of that group could open both (share allows it)",
				(unsigned int)acc->gid, other);
	if (ret == XSK_CLASH_MEMBER)
		return nk_error(NK_EXIT_EXISTS,
				"user %u, or the user of the map of another holder (%s), is a member of the other map's group, which reaches that map: its VMM could open both (share allows it)",
				(unsigned int)acc->uid, other);
	return 0;
}

/* The holder's directory and map, with its owner; a fresh map (a new
 * owner, or the pin did not fit) gets every NIC queue already going to the
 * holder (through another attach) pointed at it before the directory is
 * the owner's. */
static int holder_prepare(struct nk_ctx *ctx, const char *root, int pub, const struct nk_link *l,
			  uint64_t cookie, const struct xsk_access *acc, int *map_fd)
{
	struct remove_what w = { .holder = (uint32_t)l->ifindex, .cookie = cookie,
				 .all_queues = true, .repoint = true };
	char dir[PIN_LEN], name[XSK_NAME_LEN];
	bool fresh;
	int ret;

	holder_dir(root, cookie, (uint32_t)l->ifindex, dir);
	xsk_holder_name(cookie, (uint32_t)l->ifindex, name);
	ret = holder_map(pub, name, dir, acc, map_fd, &fresh);
	if (!ret && fresh) {
		w.map_fd = *map_fd;
		remove_everywhere(ctx, root, &w);
		/* A queue left on the old map would steer into what the old
		 * owner's fds still write: the directory stays root's. */
		ret = w.repoint_failed ?
		      nk_error(NK_EXIT_FAIL, "cannot point every queue of \"%s\" at its new map (%zu not done); %s stays root's: run xsk attach again",
			       l->ifname, w.repoint_failed, dir) :
		      holder_dir_give(pub, name, dir, acc, *map_fd);
	}
	return ret;
}

static void print_attached(struct nk_ctx *ctx, const struct nk_link *l, const char *pin,
			   const struct stat *st, const struct xsk_queue *q, size_t n)
{
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "xsk");
	out_obj_open(&ctx->out, NULL);
	print_holder(&ctx->out, l->ifname, pin, st, 1);
	out_arr_open(&ctx->out, "queues");
	for (size_t i = 0; i < n; i++)
		print_queue(&ctx->out, &q[i]);
	out_arr_close(&ctx->out);
	out_obj_close(&ctx->out);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

static int cmd_xsk_attach(struct nk_ctx *ctx, const void *args)
{
	const struct xsk_args *a = args;
	struct nk_lease_list all = { 0 }, held = { 0 };
	struct xsk_queue *q = NULL;
	char root[ROOT_LEN], why[PIN_LEN], pin[PIN_LEN], dir[PIN_LEN];
	unsigned long long cookie;
	struct nk_holder_id h;
	struct nk_ns *here;
	struct xsk_access acc;
	struct nk_link l;
	struct stat st;
	size_t done = 0;
	int ret, publock = -1, pub = -1, map_fd = -1;

	ret = parse_access(a, &acc);
	if (!ret)
		ret = holder_get(ctx, a->dev, &l);
	if (!ret)
		ret = holder_leases(ctx, &l, a, (ctx->given & (1u << 1)), &all, &held);
	if (!ret)
		ret = rt_pin_root(root, true);
	if (!ret && (ret = xsk_public_lock(true, &publock)) < 0)
		ret = nk_error_errno(-ret, "cannot lock " NK_BPFFS_LOCK_DIR "/.lock-" XSK_LOCK_NAME);
	if (!ret && (ret = xsk_pub_open(root, true, &pub, why, sizeof(why))))
		ret = nk_error_errno(-ret, "%s", why);
	if (!ret)
		warn_root_open(root);
	if (!ret)
		ret = nk_ns_here(ctx, &here);
	if (!ret)
		ret = ns_cookie_of(here, root, &cookie);
	if (!ret)
		ret = owner_check(ctx, root, pub, &l, cookie, &acc, a->share);
	if (!ret)
		ret = holder_prepare(ctx, root, pub, &l, cookie, &acc, &map_fd);
	if (!ret && !(q = calloc(held.n, sizeof(*q))))
		ret = nk_error_errno(ENOMEM, "xsk attach");
	h = (struct nk_holder_id){ .ifindex = l.ifindex };
	if (!ret)
		h.ns = nk_ns_id_of(here);
	for (size_t i = 0; !ret && i < held.n; i++, done++)
		ret = attach_one(ctx, root, &held.v[i], &h, map_fd, cookie, &q[i]);
	if (!ret && !(l.flags & IFF_UP))
		ret = holder_up(ctx, &l);
	if (!ret)
		holder_pin(root, cookie, (uint32_t)l.ifindex, pin);
	if (!ret && (ret = holder_pin_stat(root, cookie, (uint32_t)l.ifindex, &st)))
		ret = nk_error_errno(-ret, "cannot read %s", pin);
	if (!ret && acc.uid) {
		holder_dir(root, cookie, (uint32_t)l.ifindex, dir);
		warn_unreachable(root, dir);
	}
	if (!ret)
		print_attached(ctx, &l, pin, &st, q, done);
	if (map_fd >= 0)
		close(map_fd);
	if (pub >= 0)
		close(pub);
	if (publock >= 0)
		close(publock);
	free(q);
	nk_lease_list_free(&all);
	free(held.v);
	return ret;
}

static int cmd_xsk_detach(struct nk_ctx *ctx, const void *args)
{
	const struct xsk_args *a = args;
	struct remove_what w = { 0 };
	unsigned long long cookie;
	char root[ROOT_LEN];
	struct nk_ns *here;
	struct nk_link l;
	size_t gone;
	int ret;

	ret = nk_dev(ctx, a->dev, &l);
	if (!ret)
		ret = rt_pin_root(root, false);
	if (!ret)
		ret = nk_ns_here(ctx, &here);
	if (!ret)
		ret = ns_cookie_of(here, root, &cookie);
	if (ret)
		return ret;
	w.holder = (uint32_t)l.ifindex;
	w.cookie = cookie;
	w.all_queues = !(ctx->given & (1u << 1));
	w.queue = a->queue;
	gone = remove_everywhere(ctx, root, &w);
	/* the maps of the holders no slot names now (and any a killed
	 * command left), under the public lock: not while an attach points a
	 * slot at one */
	xsk_orphans_remove(root, XSK_LOCK_WAIT, NULL);
	if (!gone && !ctx->force)
		return nk_error(NK_EXIT_NOTFOUND, "\"%s\" has no queue prepared for AF_XDP", a->dev);
	out_begin(&ctx->out);
	out_obj_open(&ctx->out, "xsk-detached");
	out_str(&ctx->out, "ifname", "detached %s", l.ifname);
	out_uint(&ctx->out, "queues", " (%" PRIu64 " queues)\n", gone);
	out_obj_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* ---- show ---- */

struct show_filter {
	struct nk_ns *here;
	unsigned long long cookie;
	int holder;      /* 0: all */
	const struct xsk_ns_cookies *cookies;   /* slots' holders, for "leased" */
};

static void show_nic(struct nk_ctx *ctx, struct nk_ns *ns, const char *root, const char *nsdir,
		     int ifindex, const struct show_filter *f)
{
	struct nl_sock *rt = nk_ns_try_rtnl(ns);
	struct nk_link nic = { 0 }, h;
	struct nk_xsk_slots all = { 0 };
	struct xsk_nic n;
	char pin[PIN_LEN];
	struct stat st;
	uint64_t features = 0;
	const struct genl_family *fam;
	struct nl_sock *gn = nk_ns_try_netdev(ns, &fam);
	struct nl_err err = { 0 };
	struct nk_nic_seen seen;

	if (xsk_nic_open(root, nsdir, ifindex, false, &n))
		return;
	if (n.fd[XPIN_SLOTS] >= 0)
		slots_read(&n, &all);
	if (rt)
		nk_link_lookup(rt, NULL, ifindex, &nic, NULL, true);
	if (gn)
		netdev_dev_xdp_features(gn, fam, ifindex, &features, &err);
	nk_nic_seen_read(ctx, ns, ifindex, &seen);
	for (uint32_t q = 0; q < all.n; q++) {
		const struct nk_xsk_slot s = all.v[q];
		struct xsk_queue xq = { 0 };
		char name[IF_NAMESIZE + 16];
		struct nl_sock *hrt;
		int up;

		if (!s.holder)
			continue;
		if (f->holder && (s.holder != (uint32_t)f->holder || s.holder_netns != f->cookie))
			continue;
		hrt = s.holder_netns == f->cookie ? nk_ns_try_rtnl(f->here) : NULL;
		up = -1;
		if (hrt && !nk_link_lookup(hrt, NULL, (int)s.holder, &h, NULL, true))
			snprintf(name, sizeof(name), "%s", h.ifname), up = !!(h.flags & IFF_UP);
		else
			snprintf(name, sizeof(name), "ifindex%u", s.holder);
		holder_pin(root, s.holder_netns, s.holder, pin);
		memset(&st, 0, sizeof(st));
		holder_pin_stat(root, s.holder_netns, s.holder, &st);
		xq.queue = s.slot;
		xq.nic_queue = q;
		snprintf(xq.nic, sizeof(xq.nic), "%s", nic.ifname[0] ? nic.ifname : "?");
		xq.zerocopy = features & NK_XDP_ACT_XSK_ZEROCOPY;
		xq.native = features & NK_XDP_ACT_BASIC;
		out_obj_open(&ctx->out, NULL);
		print_holder(&ctx->out, name, pin, &st, up);
		out_arr_open(&ctx->out, "queues");
		print_queue(&ctx->out, &xq);
		out_arr_close(&ctx->out);
		out_bool(&ctx->out, "program", "    program on the NIC: %s", xsk_nic_live(&n));
		print_leased(&ctx->out, xsk_slot_fate(&seen, q, &s, f->cookies) == NK_FATE_LIVE);
		out_obj_close(&ctx->out);
	}
	xsk_nic_close(&n);
	nk_nic_seen_free(&seen);
	slots_free(&all);
}

static int cmd_xsk_show(struct nk_ctx *ctx, const void *args)
{
	const struct xsk_args *a = args;
	struct xsk_ns_cookies cookies = { 0 };
	struct show_filter f = { .cookies = &cookies };
	struct nk_ns *const *list;
	char root[ROOT_LEN];
	struct nk_ns *here;
	struct nk_link l;
	size_t n;
	int ret;

	ret = nk_ns_here(ctx, &here);
	f.here = here;
	if (!ret && a->dev)
		ret = nk_dev(ctx, a->dev, &l);
	if (ret)
		return ret;
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "xsk");
	if (!rt_pin_root(root, false) && !ns_cookie_of(here, root, &f.cookie) &&
	    !nk_ns_reachable(ctx, &list, &n) && !xsk_ns_cookies_read(ctx, root, &cookies)) {
		f.holder = a->dev ? l.ifindex : 0;
		for (size_t i = 0; i < n; i++) {
			char nsdir[NS_LEN];
			struct dirent *e;
			DIR *dd;

			if (rt_ns_dir(list[i], root, nsdir))
				continue;
			dd = opendir(nsdir);
			while (dd && (e = readdir(dd))) {
				int ifindex, end = 0;

				if (sscanf(e->d_name, "xsk%d%n", &ifindex, &end) == 1 && !e->d_name[end])
					show_nic(ctx, list[i], root, nsdir, ifindex, &f);
			}
			if (dd)
				closedir(dd);
		}
	}
	xsk_ns_cookies_free(&cookies);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

static const struct nk_cmd xsk_cmds[] = {
	{ "attach", cmd_xsk_attach, NULL, &xsk_attach_params, NULL,
	  "prepare the leased queues of a single netkit device for AF_XDP sockets, and bring it up" },
	{ "detach", cmd_xsk_detach, NULL, &xsk_detach_params, NULL,
	  "remove what attach prepared (the XDP program goes with the NIC's last)" },
	{ "show", cmd_xsk_show, NULL, &xsk_show_params, NULL,
	  "queues prepared for AF_XDP: pin, owner, mode, holder up, NIC queue, copy or zero-copy, TX" },
};
const struct nk_table nk_xsk_table = NK_TABLE("nkctl xsk", xsk_cmds);
