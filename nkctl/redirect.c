// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl redirect attach | detach | show: nkctl's own steering programs
 * (bpf/redirect.bpf.c, embedded) attached through bpf links and pinned under
 * /sys/fs/bpf/nkctl/net<netns inode>/dev<ifindex>/<hook>, so they outlive
 * nkctl. A re-attach with the same configuration changes nothing; another
 * configuration replaces the program in the link atomically.
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

/* The hooks, by their attach type; a hook's word is also its pin's name. */
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
};
enum { R_DEV, R_TO, R_PREFIX, R_HOOK, R_ACTION };
#define RP(kw, type, field, meta, ch, req) \
	{ kw, type, offsetof(struct redirect_args, field), meta, 0, 0, ch, req, NULL }
static const struct nk_param attach_params[] = {
	[R_DEV] = RP("dev", NKP_IFNAME, dev, "DEV", NULL, true),
	[R_TO] = RP("to", NKP_IFNAME, to, "TARGET", NULL, true),
	[R_PREFIX] = RP("prefix", NKP_LIST, prefixes, "PREFIX", NULL, false),
	[R_HOOK] = RP("hook", NKP_ENUM, hook, "HOOK", hook_words, false),
	[R_ACTION] = RP("action", NKP_ENUM, action, "ACTION", action_words, false),
};
static const struct nk_params attach_p = {
	NK_PARAMS("redirect attach", struct redirect_args, attach_params)
};
static const struct nk_param detach_params[] = {
	RP("dev", NKP_IFNAME, dev, "DEV", NULL, true),
	RP("hook", NKP_ENUM, hook, "HOOK", hook_words, false),
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

static int parse_prefix(const char *s, struct nk_redirect_cfg *cfg)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	unsigned char bytes[16], mask[16] = { 0 };
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
	if (family == AF_INET) {
		if (cfg->n4 == NK_REDIRECT_MAX_PREFIXES)
			goto full;
		memcpy(&cfg->p4[cfg->n4].addr, bytes, 4);
		memcpy(&cfg->p4[cfg->n4].mask, mask, 4);
		cfg->len4[cfg->n4++] = (uint8_t)len;
	} else {
		if (cfg->n6 == NK_REDIRECT_MAX_PREFIXES)
			goto full;
		memcpy(cfg->p6[cfg->n6].addr, bytes, 16);
		memcpy(cfg->p6[cfg->n6].mask, mask, 16);
		cfg->len6[cfg->n6++] = (uint8_t)len;
	}
	return 0;
full:
	return nk_error(NK_EXIT_USAGE, "at most %d IPv4 and %d IPv6 prefixes",
			NK_REDIRECT_MAX_PREFIXES, NK_REDIRECT_MAX_PREFIXES);
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"prefix\": expected ADDRESS/LENGTH, e.g. 10.1.0.0/24 or fd00::/64",
			s);
}

static void print_prefixes(struct out *o, const struct nk_redirect_cfg *cfg)
{
	char buf[INET6_ADDRSTRLEN + 8], a[INET6_ADDRSTRLEN];

	out_arr_open(o, "prefixes");
	for (uint32_t i = 0; i < cfg->n4 && i < NK_REDIRECT_MAX_PREFIXES; i++) {
		inet_ntop(AF_INET, &cfg->p4[i].addr, a, sizeof(a));
		snprintf(buf, sizeof(buf), "%s/%u", a, cfg->len4[i]);
		out_str(o, NULL, " prefix %s", buf);
	}
	for (uint32_t i = 0; i < cfg->n6 && i < NK_REDIRECT_MAX_PREFIXES; i++) {
		inet_ntop(AF_INET6, cfg->p6[i].addr, a, sizeof(a));
		snprintf(buf, sizeof(buf), "%s/%u", a, cfg->len6[i]);
		out_str(o, NULL, " prefix %s", buf);
	}
	out_arr_close(o);
}

/* ---- pins ---- */

#define NS_DIR_LEN 96     /* NK_BPFFS/nkctl/net<inode> */
#define PIN_LEN 512

struct pin_dir {
	char ns[NS_DIR_LEN];
	char dev[NS_DIR_LEN + 32];  /* .../dev<ifindex> */
	int lock_fd;
};

/* The pin directory of the command's namespace, by its inode. */
static int ns_dir(struct nk_ctx *ctx, char *buf, size_t len)
{
	struct nk_ns *here;
	int ret = nk_ns_here(ctx, &here);

	if (!ret)
		snprintf(buf, len, NK_BPFFS "/nkctl/net%lu", (unsigned long)here->ino);
	return ret;
}

/* The device's pin directory, created 0700 and locked (serialises nkctl
 * invocations on the same device); create false: only when it exists. */
static int pin_dir_open(struct nk_ctx *ctx, struct pin_dir *d, int ifindex, bool create)
{
	int ret;

	d->lock_fd = -1;
	ret = nk_bpffs_ensure();
	if (ret)
		return nk_error_errno(-ret, "cannot mount bpffs on " NK_BPFFS);
	ret = ns_dir(ctx, d->ns, sizeof(d->ns));
	if (ret)
		return ret;
	snprintf(d->dev, sizeof(d->dev), "%s/dev%d", d->ns, ifindex);
	if (!create && access(d->dev, F_OK))
		return -ENOENT;
	if (create) {
		const char *const dirs[] = { NK_BPFFS "/nkctl", d->ns, d->dev };

		for (size_t i = 0; i < 3; i++) {
			ret = nk_private_dir(dirs[i]);
			if (ret == -EPERM)
				return nk_error(NK_EXIT_PERM,
						"%s is not a directory of ours with mode 0700; refusing to use it",
						dirs[i]);
			if (ret)
				return nk_error_errno(-ret, "cannot create %s", dirs[i]);
		}
	}
	d->lock_fd = open(d->dev, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->lock_fd < 0 || flock(d->lock_fd, LOCK_EX))
		return nk_error_errno(errno, "cannot lock %s", d->dev);
	return 0;
}

static void pin_dir_close(struct pin_dir *d)
{
	if (d->lock_fd >= 0)
		close(d->lock_fd); /* drops the lock */
	d->lock_fd = -1;
}

/* What a pinned link runs: its program's name and .rodata configuration. */
struct pinned {
	struct nk_bpf_link link;
	int action;              /* -1: not one of ours */
	struct nk_redirect_cfg cfg;
	bool defunct;            /* the device is gone */
};

static int read_pinned(int link_fd, struct pinned *p)
{
	struct bpf_prog_info pinfo;
	uint32_t len = sizeof(pinfo), map_ids[8] = { 0 };
	int prog_fd, ret;

	memset(p, 0, sizeof(*p));
	p->action = -1;
	ret = nk_bpf_link_info(link_fd, &p->link);
	if (ret)
		return ret;
	p->defunct = p->link.ifindex == 0;
	prog_fd = bpf_prog_get_fd_by_id(p->link.prog_id);
	if (prog_fd < 0)
		return p->defunct ? 0 : -errno;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.nr_map_ids = 8;
	pinfo.map_ids = (uint64_t)(uintptr_t)map_ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &pinfo, &len) == 0) {
		for (int a = 0; a < ACTION_N; a++)
			if (!strcmp(pinfo.name, action_progs[a]))
				p->action = a;
		for (uint32_t i = 0; i < pinfo.nr_map_ids && i < 8; i++) {
			struct bpf_map_info minfo;
			uint32_t mlen = sizeof(minfo);
			int map_fd = bpf_map_get_fd_by_id(map_ids[i]);
			uint32_t key = 0;

			if (map_fd < 0)
				continue;
			memset(&minfo, 0, sizeof(minfo));
			if (bpf_obj_get_info_by_fd(map_fd, &minfo, &mlen) == 0 &&
			    strstr(minfo.name, ".rodata") && minfo.value_size >= sizeof(p->cfg)) {
				char *val = calloc(1, minfo.value_size);

				if (val && bpf_map_lookup_elem(map_fd, &key, val) == 0)
					memcpy(&p->cfg, val, sizeof(p->cfg));
				free(val);
			}
			close(map_fd);
		}
	}
	close(prog_fd);
	return 0;
}

/* A program loaded with cfg; the caller destroys the skeleton. */
static int load_program(struct nk_redirect **skel, int action,
			const struct nk_redirect_cfg *cfg, int *prog_fd)
{
	struct bpf_program *prog;
	int ret;

	*skel = nk_redirect__open();
	if (!*skel)
		return -errno;
	(*skel)->rodata->cfg = *cfg;
	/* Only the program asked for is loaded. */
	bpf_program__set_autoload((*skel)->progs.nk_neigh, action == ACTION_NEIGH);
	bpf_program__set_autoload((*skel)->progs.nk_peer, action == ACTION_PEER);
	ret = nk_redirect__load(*skel);
	if (ret)
		return ret;
	prog = action == ACTION_NEIGH ? (*skel)->progs.nk_neigh : (*skel)->progs.nk_peer;
	*prog_fd = bpf_program__fd(prog);
	return 0;
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

static void print_redirect(struct out *o, const struct nk_link *dev, uint32_t hook,
			   const struct pinned *p, const struct nk_link_list *links,
			   const char *pin, int changed)
{
	const struct nk_link *target = nk_link_find(links, (int)p->cfg.target_ifindex);

	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)dev->ifindex);
	out_str(o, "ifname", "%s", dev->ifname[0] ? dev->ifname : "?");
	out_str(o, "hook", " %s", hook_name(hook));
	if (p->action >= 0)
		out_str(o, "action", " %s", nk_choice_word(action_words, (uint32_t)p->action));
	out_obj_open(o, "target");
	out_uint(o, "ifindex", NULL, p->cfg.target_ifindex);
	out_str(o, "ifname", " to %s", target ? target->ifname : "?");
	out_obj_close(o);
	print_prefixes(o, &p->cfg);
	out_uint(o, "prog-id", " prog-id %llu", p->link.prog_id);
	out_uint(o, "link-id", " link-id %llu", p->link.id);
	out_str(o, "pin", NULL, pin);
	out_bool(o, "defunct", NULL, p->defunct);
	if (p->defunct)
		out_text(o, " DEFUNCT (the device is gone)");
	if (changed >= 0) {
		out_bool(o, "changed", NULL, changed);
		out_text(o, changed ? " (attached)" : " (unchanged)");
	}
	out_text(o, "\n");
	out_obj_close(o);
}

/* The program's configuration from the command line. */
static int attach_cfg(const struct redirect_args *a, const struct nk_link *target,
		      struct nk_redirect_cfg *cfg)
{
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < a->prefixes.n; i++) {
		ret = parse_prefix(a->prefixes.v[i], cfg);
		if (ret)
			return ret;
	}
	cfg->target_ifindex = (uint32_t)target->ifindex;
	cfg->keep_nd = 1;
	return 0;
}

/* A new link for prog on the hook, pinned at pin. Returns the link's fd. */
static int attach_new(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int prog_fd,
		      const char *pin, int *link_fd)
{
	*link_fd = bpf_link_create(prog_fd, dev->ifindex, (enum bpf_attach_type)hook, NULL);
	if (*link_fd < 0)
		return attach_error(ctx, errno, dev->ifname, hook);
	/* Closing an unpinned link detaches it again. */
	if (bpf_obj_pin(*link_fd, pin))
		return nk_error_errno(errno, "cannot pin the link at %s", pin);
	return 0;
}

/*
 * Make the pinned link at pin run action with cfg: nothing when it does
 * already (*changed false), a program swapped inside the live link when it
 * runs another one, a new link when there is none or its device is gone.
 */
static int attach_pinned(struct nk_ctx *ctx, const struct nk_link *dev, uint32_t hook, int action,
			 const struct nk_redirect_cfg *cfg, const char *pin, int *link_fd,
			 bool *changed)
{
	struct nk_redirect *skel = NULL;
	struct pinned now;
	bool live;
	int prog_fd, ret;

	*link_fd = bpf_obj_get(pin);
	live = *link_fd >= 0 && read_pinned(*link_fd, &now) == 0 && !now.defunct;
	*changed = !live || now.action != action || memcmp(&now.cfg, cfg, sizeof(*cfg));
	if (!*changed)
		return 0;
	if (!live && *link_fd >= 0) {
		/* A defunct one (its device was deleted): start afresh. */
		close(*link_fd);
		*link_fd = -1;
		unlink(pin);
	}
	ret = load_program(&skel, action, cfg, &prog_fd);
	if (ret)
		ret = nk_error_errno(-ret, "cannot load the redirect program");
	else if (live && bpf_link_update(*link_fd, prog_fd, NULL))
		ret = nk_error_errno(errno, "cannot replace the program of %s", pin);
	else if (!live)
		ret = attach_new(ctx, dev, hook, prog_fd, pin, link_fd);
	nk_redirect__destroy(skel);
	return ret;
}

static void print_attached(struct nk_ctx *ctx, const struct nk_link *dev,
			   const struct nk_link *target, uint32_t hook, const struct pinned *p,
			   const char *pin, bool changed)
{
	struct nk_link_list links;

	links.v = (struct nk_link[2]){ *dev, *target };
	links.n = 2;
	if (links.v[0].ifindex > links.v[1].ifindex) {
		links.v[0] = *target;
		links.v[1] = *dev;
	}
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "redirects");
	print_redirect(&ctx->out, dev, hook, p, &links, pin, changed);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

static int cmd_redirect_attach(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	uint32_t hook = (ctx->given & (1ULL << R_HOOK)) ? a->hook : NK_BPF_TCX_INGRESS;
	struct nk_redirect_cfg cfg;
	struct nk_link dev, target;
	struct pin_dir d = { .lock_fd = -1 };
	struct pinned now;
	char pin[PIN_LEN];
	int action, link_fd = -1, ret;
	bool changed;

	/* Pod ingress (prefixes) hands packets to the peer; pod egress goes
	 * out through the NIC's neighbour. */
	action = (ctx->given & (1ULL << R_ACTION)) ? (int)a->action :
		 a->prefixes.n ? ACTION_PEER : ACTION_NEIGH;
	ret = nk_dev(ctx, a->dev, &dev);
	if (!ret)
		ret = nk_dev(ctx, a->to, &target);
	if (!ret && target.ifindex == dev.ifindex)
		ret = nk_error(NK_EXIT_USAGE, "\"to\" must be another device than \"dev\"");
	if (!ret)
		ret = attach_cfg(a, &target, &cfg);
	if (!ret)
		ret = pin_dir_open(ctx, &d, dev.ifindex, true);
	if (ret)
		goto out;
	snprintf(pin, sizeof(pin), "%s/%s", d.dev, hook_name(hook));
	ret = attach_pinned(ctx, &dev, hook, action, &cfg, pin, &link_fd, &changed);
	if (!ret && read_pinned(link_fd, &now))
		ret = nk_error_errno(errno, "cannot read back %s", pin);
	if (!ret)
		print_attached(ctx, &dev, &target, hook, &now, pin, changed);
out:
	if (link_fd >= 0)
		close(link_fd);
	pin_dir_close(&d);
	return ret;
}

static void print_detached(struct nk_ctx *ctx, const struct nk_link *dev, const uint32_t *done,
			   size_t n)
{
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "detached");
	for (size_t i = 0; i < n; i++) {
		out_obj_open(&ctx->out, NULL);
		out_uint(&ctx->out, "ifindex", NULL, (unsigned int)dev->ifindex);
		out_str(&ctx->out, "ifname", "detached %s", dev->ifname);
		out_str(&ctx->out, "hook", " %s\n", hook_name(done[i]));
		out_obj_close(&ctx->out);
	}
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

static int cmd_redirect_detach(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	bool one = ctx->given & (1ULL << 1);   /* hook */
	struct pin_dir d = { .lock_fd = -1 };
	struct nk_link dev;
	char pin[PIN_LEN];
	uint32_t done[HOOK_N];
	size_t n = 0;
	int ret;

	ret = nk_dev(ctx, a->dev, &dev);
	if (ret)
		return ret;
	ret = pin_dir_open(ctx, &d, dev.ifindex, false);
	if (ret && ret != -ENOENT)
		return ret;
	for (const struct nk_choice *h = hook_words; ret == 0 && h->name; h++) {
		if (one && h->value != a->hook)
			continue;
		snprintf(pin, sizeof(pin), "%s/%s", d.dev, h->name);
		/* The pin holds the link: unlinking it detaches the program. */
		if (unlink(pin) == 0)
			done[n++] = h->value;
	}
	if (ret == 0)
		rmdir(d.dev); /* fails while other hooks stay pinned: fine */
	pin_dir_close(&d);
	if (!n && !ctx->force)
		return nk_error(NK_EXIT_NOTFOUND, "nkctl has no redirect on \"%s\"%s%s", a->dev,
				one ? " at " : "", one ? hook_name(a->hook) : "");
	print_detached(ctx, &dev, done, n);
	return NK_EXIT_OK;
}

/* ---- show ---- */

/* nkctl's pins in dir (one device's): print each, note its link id. */
static void show_pins(struct out *o, const char *dir, int ifindex,
		      const struct nk_link_list *links, uint32_t *ours, size_t *nours)
{
	char pin[PIN_LEN];

	for (const struct nk_choice *h = hook_words; h->name; h++) {
		const struct nk_link *l = nk_link_find(links, ifindex);
		struct nk_link gone = { .ifindex = ifindex };
		struct pinned p;
		int fd;

		snprintf(pin, sizeof(pin), "%s/%s", dir, h->name);
		fd = bpf_obj_get(pin);
		if (fd < 0)
			continue;
		if (read_pinned(fd, &p) == 0) {
			if (*nours < 256)
				ours[(*nours)++] = p.link.id;
			print_redirect(o, l && !p.defunct ? l : &gone, h->value, &p, links, pin, -1);
		}
		close(fd);
	}
}

/* Every dev<ifindex> directory of this namespace, also of devices that are
 * gone (their links are defunct). */
static void show_ours(struct nk_ctx *ctx, int only, const struct nk_link_list *links,
		      uint32_t *ours, size_t *nours)
{
	char ns[NS_DIR_LEN], dir[NS_DIR_LEN + 300];
	struct dirent *e;
	DIR *dd;

	if (nk_bpffs_ensure() || ns_dir(ctx, ns, sizeof(ns)))
		return;
	dd = opendir(ns);
	while (dd && (e = readdir(dd))) {
		int ifindex;

		if (sscanf(e->d_name, "dev%d", &ifindex) != 1 || (only && ifindex != only))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", ns, e->d_name);
		show_pins(&ctx->out, dir, ifindex, links, ours, nours);
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

static int cmd_redirect_show(struct nk_ctx *ctx, const void *args)
{
	const struct redirect_args *a = args;
	struct nk_link_list links = { 0 };
	struct nk_link one;
	struct nl_sock *rt;
	struct nl_err err;
	uint32_t ours[256];
	size_t nours = 0;
	int only = 0, ret;

	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret && a->dev) {
		ret = nk_link_lookup(rt, a->dev, 0, &one, NULL, false);
		only = one.ifindex;
	}
	if (ret)
		return ret;
	if (rtnl_link_dump(rt, &links, &err))
		return nk_error_nl(&err, "cannot list devices");
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
	  "steer DEV's packets to TARGET with a built-in BPF program, pinned" },
	{ "detach", cmd_redirect_detach, NULL, &detach_p, NULL,
	  "remove nkctl's programs from DEV (with -force: none is not an error)" },
	{ "show", cmd_redirect_show, NULL, &show_p, NULL,
	  "nkctl's programs with their configuration, and the others on the same hooks" },
};
const struct nk_table nk_redirect_table = NK_TABLE("nkctl redirect", redirect_cmds);
