// SPDX-License-Identifier: GPL-2.0
/*
 * The command context: the namespaces a command reaches, each opened once
 * with its netlink sockets, and the whole-document JSON output.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "core/ctx.h"
#include "netns.h"
#include "rtnl.h"

void nk_ctx_init(struct nk_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
}

static void ns_close_sockets(struct nk_ns *ns)
{
	if (nl_is_open(&ns->rtnl))
		nl_close(&ns->rtnl);
	if (nl_is_open(&ns->genl))
		nl_close(&ns->genl);
	if (ns->ioctl_fd >= 0)
		close(ns->ioctl_fd);
	ns->ioctl_fd = -1;
}

static void ns_free(struct nk_ns *ns)
{
	ns_close_sockets(ns);
	if (ns->fd >= 0)
		close(ns->fd);
	free(ns);
}

/* A forked child's descriptors of these sockets are the parent's sockets
 * themselves: what the child leaves unread on one (killed mid-request)
 * would be the parent's next read. Closing the child's leaves the
 * parent's open. The families stay resolved: their ids are the kernel's,
 * not a socket's. */
void nk_ctx_disown_sockets(struct nk_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nns; i++)
		ns_close_sockets(ctx->ns[i]);
}

void nk_ctx_forget_others(struct nk_ctx *ctx)
{
	for (size_t i = 1; i < ctx->nns; i++)
		ns_free(ctx->ns[i]);
	ctx->nns = ctx->nns ? 1 : 0;
	if (ctx->nns)
		ctx->ns[0]->nsid_viewer = NULL; /* its viewers are gone */
	ctx->ns_enumerated = false;
}

void nk_ctx_end_command(struct nk_ctx *ctx)
{
	/* Namespaces opened for a last command close at the exit. */
	if (!ctx->ends_process)
		nk_ctx_forget_others(ctx);
	ctx->given = 0;
}

bool nk_ctx_keep(struct nk_ctx *ctx, void *p)
{
	if (!ctx->ends_process || ctx->nkept == NK_CTX_KEPT_MAX)
		return false;
	if (!p)
		return true; /* nothing to hold */
	ctx->kept[ctx->nkept++] = p;
	return true;
}

void nk_ctx_release(struct nk_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nns; i++)
		ns_free(ctx->ns[i]);
	free(ctx->ns);
	ctx->ns = NULL;
	free(ctx->nsid_hints);
	ctx->nsid_hints = NULL;
	ctx->nnsid_hints = ctx->nsid_hints_cap = 0;
	ctx->nns = ctx->ns_cap = 0;
	ctx->ns_enumerated = false;
}

/* The document in one write(2) (stdio splits it at its buffer's size).
 * Should the write fail, stdio writes the rest: its error flag and errno
 * tell main and monitor what happened. */
static void write_whole(const char *p, size_t n)
{
	ssize_t w = 0;

	if (fflush(stdout))
		return;
	while (n && ((w = write(STDOUT_FILENO, p, n)) > 0 || (w < 0 && errno == EINTR))) {
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
	}
	if (n) {
		fwrite(p, 1, n, stdout);
		fflush(stdout);
	}
}

void nk_ctx_flush(struct nk_ctx *ctx)
{
	sigset_t hold, old;

	out_flush(&ctx->out);
	if (!ctx->json_mem) {
		fflush(stdout);
		return;
	}
	if (fflush(ctx->json_mem) || !ctx->json_len)
		return;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGPIPE);
	sigprocmask(SIG_BLOCK, &hold, &old);
	write_whole(ctx->json_buf, ctx->json_len);
	rewind(ctx->json_mem);
	ctx->json_len = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ---- opening namespaces ---- */

int nk_netns_open(const char *spec, int *fd)
{
	int ret = netns_open(spec, fd);

	if (ret == -EINVAL)
		return nk_error(NK_EXIT_USAGE, "\"%s\" is not a network namespace name or path", spec);
	if (ret == -ENOENT)
		return nk_error(NK_EXIT_NOTFOUND, "network namespace \"%s\" does not exist", spec);
	if (ret == -ELOOP)
		return nk_error(NK_EXIT_USAGE,
				"%s/%s is a symbolic link, not a namespace: nkctl does not follow links there",
				NETNS_RUN_DIR, spec);
	if (ret)
		return nk_error_errno(-ret, "cannot open network namespace \"%s\"", spec);
	return 0;
}

int nk_ctx_enter(struct nk_ctx *ctx)
{
	int fd, ret = nk_netns_open(ctx->netns, &fd);

	if (ret)
		return ret;
	ret = netns_enter(fd);
	close(fd);
	if (ret == -EINVAL)
		return nk_error(NK_EXIT_USAGE, "\"%s\" is not a network namespace", ctx->netns);
	if (ret)
		return nk_error_errno(-ret, "cannot enter network namespace \"%s\"", ctx->netns);
	return 0;
}

/* Keep fd as a namespace of ctx, or hand back the one it already is. */
static struct nk_ns *ns_adopt(struct nk_ctx *ctx, const char *spec, int fd)
{
	struct nk_ns *ns, **slot;
	struct stat st;

	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	for (size_t i = 0; i < ctx->nns; i++) {
		if (ctx->ns[i]->dev == st.st_dev && ctx->ns[i]->ino == st.st_ino) {
			close(fd);
			return ctx->ns[i];
		}
	}
	ns = calloc(1, sizeof(*ns));
	slot = ns ? nk_grow(&ctx->ns, &ctx->nns, &ctx->ns_cap, sizeof(*ctx->ns)) : NULL;
	if (!slot) {
		free(ns);
		close(fd);
		return NULL;
	}
	snprintf(ns->spec, sizeof(ns->spec), "%s", spec);
	ns->fd = fd;
	ns->ioctl_fd = -1;
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	ns->here = ctx->nns == 1;
	*slot = ns;
	return ns;
}

int nk_ns_here(struct nk_ctx *ctx, struct nk_ns **ns)
{
	int fd, ret;

	if (ctx->nns) {
		*ns = ctx->ns[0];
		return 0;
	}
	ret = netns_open_current(&fd);
	if (ret)
		return nk_error_errno(-ret, "cannot identify this network namespace");
	*ns = ns_adopt(ctx, "", fd);
	return *ns ? 0 : nk_error_errno(errno ? errno : ENOMEM, "cannot identify this network namespace");
}

int nk_ns_get(struct nk_ctx *ctx, const char *spec, struct nk_ns **ns)
{
	int fd, ret = nk_ns_here(ctx, ns);

	if (ret || !spec)
		return ret;
	ret = nk_netns_open(spec, &fd);
	if (ret)
		return ret;
	*ns = ns_adopt(ctx, spec, fd);
	return *ns ? 0 : nk_error_errno(errno ? errno : ENOMEM, "cannot open network namespace \"%s\"", spec);
}

int nk_ns_reachable(struct nk_ctx *ctx, struct nk_ns *const **list, size_t *n)
{
	struct nk_ns *here;
	struct dirent *e;
	DIR *d;
	int fd, ret = nk_ns_here(ctx, &here);

	if (ret)
		return ret;
	if (!ctx->ns_enumerated) {
		if (netns_open("/proc/1/ns/net", &fd) == 0)
			ns_adopt(ctx, "/proc/1/ns/net", fd);
		d = opendir(NETNS_RUN_DIR);
		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.' && netns_open(e->d_name, &fd) == 0)
				ns_adopt(ctx, e->d_name, fd);
		if (d)
			closedir(d);
		ctx->ns_enumerated = true;
	}
	*list = ctx->ns;
	*n = ctx->nns;
	return 0;
}

/* The namespaces the command opened already are searched first: the one a
 * state file names is nearly always the command's own, and opening every
 * namespace under /run/netns costs a node with many pods dearly. */
static struct nk_ns *ns_opened(struct nk_ctx *ctx, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < ctx->nns; i++)
		if (nk_ns_is(ctx->ns[i], dev, ino))
			return ctx->ns[i];
	return NULL;
}

int nk_ns_find(struct nk_ctx *ctx, dev_t dev, ino_t ino, struct nk_ns **ns)
{
	struct nk_ns *const *all;
	size_t n;
	int ret = nk_ns_here(ctx, ns);

	if (ret)
		return ret;
	*ns = ns_opened(ctx, dev, ino);
	if (!*ns && !ctx->ns_enumerated && !(ret = nk_ns_reachable(ctx, &all, &n)))
		*ns = ns_opened(ctx, dev, ino);
	return ret;
}

/* An nsid once given stays while both namespaces live, so it is kept; "none
 * yet" (-1) is asked again: the kernel gives one when a device moves. */
int32_t nk_ns_nsid_of(struct nk_ns *viewer, struct nk_ns *ns)
{
	struct nl_sock *s;
	struct nl_err err;
	int32_t id = -1;

	if (viewer == ns)
		return -1;
	if (ns->nsid_viewer == viewer)
		return ns->nsid;
	s = nk_ns_try_rtnl(viewer);
	if (!s || rtnl_nsid_get(s, ns->fd, &id, &err) || id < 0)
		return -1;
	ns->nsid_viewer = viewer;
	ns->nsid = id;
	return id;
}

static bool hint_of(const struct nk_nsid_hint *h, const struct nk_ns *viewer)
{
	return h->vdev == viewer->dev && h->vino == viewer->ino;
}

/* Every namespace's nsid in viewer, as hints for the lines that follow. */
static void hints_learn(struct nk_ctx *ctx, struct nk_ns *viewer, struct nk_ns *const *all,
			size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < ctx->nnsid_hints; i++)
		if (!hint_of(&ctx->nsid_hints[i], viewer))
			ctx->nsid_hints[kept++] = ctx->nsid_hints[i];
	ctx->nnsid_hints = kept;
	for (size_t i = 0; i < n; i++) {
		int32_t id = all[i]->spec[0] ? nk_ns_nsid_of(viewer, all[i]) : -1;
		struct nk_nsid_hint *h = id >= 0 ? nk_grow(&ctx->nsid_hints, &ctx->nnsid_hints,
							   &ctx->nsid_hints_cap, sizeof(*h)) : NULL;

		if (!h)
			continue;
		h->vdev = viewer->dev;
		h->vino = viewer->ino;
		h->nsid = id;
		snprintf(h->spec, sizeof(h->spec), "%s", all[i]->spec);
	}
}

/* The namespace a hint names for nsid, opened and asked again (a name
 * may since be another namespace's); NULL when there is none or it is
 * wrong. */
static struct nk_ns *hinted(struct nk_ctx *ctx, struct nk_ns *viewer, int32_t nsid)
{
	for (size_t i = 0; i < ctx->nnsid_hints; i++) {
		const struct nk_nsid_hint *h = &ctx->nsid_hints[i];
		struct nk_ns *ns;
		int fd;

		if (h->nsid != nsid || !hint_of(h, viewer))
			continue;
		if (netns_open(h->spec, &fd))
			return NULL;
		ns = ns_adopt(ctx, h->spec, fd);
		return ns && ns != viewer && nk_ns_nsid_of(viewer, ns) == nsid ? ns : NULL;
	}
	return NULL;
}

/* The namespace among those opened that viewer calls nsid, or NULL. */
static struct nk_ns *opened_with_nsid(struct nk_ctx *ctx, struct nk_ns *viewer, int32_t nsid)
{
	for (size_t i = 0; i < ctx->nns; i++)
		if (ctx->ns[i] != viewer && nk_ns_nsid_of(viewer, ctx->ns[i]) == nsid)
			return ctx->ns[i];
	return NULL;
}

struct nk_ns *nk_ns_by_nsid(struct nk_ctx *ctx, struct nk_ns *viewer, int32_t nsid)
{
	struct nk_ns *const *all, *found = opened_with_nsid(ctx, viewer, nsid);
	size_t n;

	/* those opened already, then a hint, then every one */
	if (found || ctx->ns_enumerated)
		return found;
	found = hinted(ctx, viewer, nsid);
	if (found || nk_ns_reachable(ctx, &all, &n))
		return found;
	hints_learn(ctx, viewer, all, n);
	return opened_with_nsid(ctx, viewer, nsid);
}

bool nk_ns_is(const struct nk_ns *ns, dev_t dev, ino_t ino)
{
	return ns->dev == dev && ns->ino == ino;
}

const char *nk_ns_name(const struct nk_ns *ns)
{
	return ns->here || !ns->spec[0] ? "this namespace" : ns->spec;
}

/* ---- sockets ---- */

static int ns_sock(struct nk_ns *ns, struct nl_sock *s, int proto, struct nl_err *err)
{
	if (nl_is_open(s))
		return 0;
	return netns_nl_open(s, proto, ns->here ? -1 : ns->fd, err);
}

static int ns_sock_error(const struct nk_ns *ns, const struct nl_err *err, const char *what)
{
	if (ns->here)
		return nk_error_nl(err, "cannot open %s socket", what);
	return nk_error_nl(err, "cannot open %s socket in \"%s\"", what, nk_ns_name(ns));
}

int nk_ns_rtnl_open(struct nk_ns *ns, struct nl_sock **s, struct nl_err *err)
{
	int ret = ns_sock(ns, &ns->rtnl, NETLINK_ROUTE, err);

	if (!ret)
		*s = &ns->rtnl;
	return ret;
}

int nk_ns_rtnl(struct nk_ns *ns, struct nl_sock **s)
{
	struct nl_err err;

	if (nk_ns_rtnl_open(ns, s, &err))
		return ns_sock_error(ns, &err, "an rtnetlink");
	return 0;
}

int nk_ns_netdev(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam)
{
	struct nl_err err;

	if (ns_sock(ns, &ns->genl, NETLINK_GENERIC, &err))
		return ns_sock_error(ns, &err, "a generic netlink");
	if (genl_resolve(&ns->genl, "netdev", &ns->netdev, &err))
		return nk_error_nl(&err, "cannot resolve the netdev family");
	*s = &ns->genl;
	*fam = &ns->netdev;
	return 0;
}

/* A scan's sockets: the functions above with their reports dropped. */
struct nl_sock *nk_ns_try_rtnl(struct nk_ns *ns)
{
	struct nk_sink none = NK_SINK_DROP, *was = nk_sink_use(&none);
	struct nl_sock *s = NULL;

	nk_ns_rtnl(ns, &s);
	nk_sink_use(was);
	return s;
}

struct nl_sock *nk_ns_try_netdev(struct nk_ns *ns, const struct genl_family **fam)
{
	struct nk_sink none = NK_SINK_DROP, *was = nk_sink_use(&none);
	struct nl_sock *s = NULL;

	nk_ns_netdev(ns, &s, fam);
	nk_sink_use(was);
	return s;
}

int nk_ctx_rtnl(struct nk_ctx *ctx, struct nl_sock **s)
{
	struct nk_ns *here;
	int ret = nk_ns_here(ctx, &here);

	return ret ? ret : nk_ns_rtnl(here, s);
}

int nk_ctx_netdev(struct nk_ctx *ctx, struct nl_sock **s, const struct genl_family **fam)
{
	struct nk_ns *here;
	int ret = nk_ns_here(ctx, &here);

	return ret ? ret : nk_ns_netdev(here, s, fam);
}

int nk_ns_ethtool_family(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam)
{
	struct nl_err err;

	if (ns_sock(ns, &ns->genl, NETLINK_GENERIC, &err))
		return ns_sock_error(ns, &err, "a generic netlink");
	if (genl_resolve(&ns->genl, "ethtool", &ns->ethtool, &err))
		return nk_error_nl(&err, "cannot resolve the ethtool netlink family");
	*s = &ns->genl;
	*fam = &ns->ethtool;
	return 0;
}

int nk_ns_ioctl(struct nk_ns *ns, int *fd)
{
	int ret;

	if (ns->ioctl_fd < 0) {
		ret = netns_socket(ns->here ? -1 : ns->fd, AF_INET, SOCK_DGRAM, &ns->ioctl_fd);
		if (ret)
			return nk_error_errno(-ret, "cannot open a socket in %s", nk_ns_name(ns));
	}
	*fd = ns->ioctl_fd;
	return 0;
}
