// SPDX-License-Identifier: GPL-2.0
/*
 * The lease table. The kernel shows a lease only on the NIC's queue (queue-get
 * with its lease nest); the netkit side learns of it only by looking at every
 * namespace that could hold the NIC. nkctl looks at those it can reach: its
 * own, the initial namespace and the named ones under /run/netns.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "compat.h"
#include "leases.h"
#include "netdev.h"
#include "netns.h"
#include "rtnl.h"

struct cand {
	char spec[NK_NS_SPEC];   /* "" for the command's namespace */
	int fd;
	dev_t dev;
	ino_t ino;
	struct nl_sock rtnl, genl;
	struct genl_family netdev;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static void cand_add(struct cands *c, const char *spec, int fd)
{
	struct stat st;
	struct cand *x;

	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].dev == st.st_dev && c->v[i].ino == st.st_ino) {
			close(fd);
			return;
		}
	}
	x = nk_grow(&c->v, &c->n, &c->cap, sizeof(*x));
	if (!x) {
		close(fd);
		return;
	}
	memset(x, 0, sizeof(*x));
	snprintf(x->spec, sizeof(x->spec), "%s", spec);
	x->fd = fd;
	x->dev = st.st_dev;
	x->ino = st.st_ino;
}

static void cands_collect(struct cands *c)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if (netns_open_current(&fd) == 0)
		cand_add(c, "", fd);
	if (netns_open("/proc/1/ns/net", &fd) == 0)
		cand_add(c, "/proc/1/ns/net", fd);
	d = opendir(NETNS_RUN_DIR);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && netns_open(e->d_name, &fd) == 0)
			cand_add(c, e->d_name, fd);
	if (d)
		closedir(d);
}

static void cands_free(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (nl_is_open(&c->v[i].rtnl))
			nl_close(&c->v[i].rtnl);
		if (nl_is_open(&c->v[i].genl))
			nl_close(&c->v[i].genl);
		close(c->v[i].fd);
	}
	free(c->v);
}

static struct nl_sock *cand_rtnl(struct cand *c)
{
	struct nl_err err;

	if (!nl_is_open(&c->rtnl) && netns_nl_open(&c->rtnl, NETLINK_ROUTE, c->fd, &err))
		return NULL;
	return &c->rtnl;
}

static void name_of(struct cand *c, int ifindex, char *buf, size_t len)
{
	struct nl_sock *s = cand_rtnl(c);
	struct nk_link l;
	struct nl_err err;

	buf[0] = '\0';
	if (s && rtnl_link_get(s, NULL, ifindex, &l, &err) == 0)
		snprintf(buf, len, "%s", l.ifname);
}

/* The candidate that the netns of viewer knows as nsid. */
static struct cand *cand_by_nsid(struct cands *c, struct cand *viewer, int32_t nsid)
{
	struct nl_sock *s = cand_rtnl(viewer);
	struct nl_err err;

	for (size_t i = 0; s && i < c->n; i++) {
		int32_t id;

		if (rtnl_nsid_get(s, c->v[i].fd, &id, &err) == 0 && id == nsid)
			return &c->v[i];
	}
	return NULL;
}

static int scan_one(struct cands *c, struct cand *nic_ns, struct nk_lease_list *out)
{
	struct nk_queue_list qs;
	struct nl_err err;

	if (!nl_is_open(&nic_ns->genl) &&
	    netns_nl_open(&nic_ns->genl, NETLINK_GENERIC, nic_ns->fd, &err))
		return 0;
	if (genl_resolve(&nic_ns->genl, "netdev", &nic_ns->netdev, &err) ||
	    !genl_has_op(&nic_ns->netdev, NK_NETDEV_CMD_QUEUE_CREATE))
		return 0; /* no leases on this kernel */
	if (netdev_queue_dump(&nic_ns->genl, &nic_ns->netdev, 0, &qs, &err))
		return 0;
	for (size_t i = 0; i < qs.n; i++) {
		const struct nk_queue *q = &qs.v[i];
		struct cand *holder;
		struct nk_lease_rec *r;

		if (!(q->have & QUEUE_HAVE_LEASE))
			continue;
		r = nk_grow(&out->v, &out->n, &out->cap, sizeof(*r));
		if (!r) {
			nk_queue_list_free(&qs);
			return -ENOMEM;
		}
		memset(r, 0, sizeof(*r));
		snprintf(r->nic_ns, sizeof(r->nic_ns), "%s", nic_ns->spec);
		r->nic_dev = nic_ns->dev;
		r->nic_ino = nic_ns->ino;
		r->nic_ifindex = q->ifindex;
		r->nic_queue = q->id;
		name_of(nic_ns, q->ifindex, r->nic_ifname, sizeof(r->nic_ifname));
		r->nk_ifindex = q->lease_ifindex;
		r->nk_queue = q->lease_queue_id;
		r->mp = q->have & (QUEUE_HAVE_DMABUF | QUEUE_HAVE_IO_URING | QUEUE_HAVE_XSK);
		r->dmabuf = q->dmabuf;
		holder = (q->have & QUEUE_HAVE_LEASE_NETNS_ID) ?
			 cand_by_nsid(c, nic_ns, q->lease_netns_id) : nic_ns;
		if (holder) {
			r->nk_found = true;
			r->nk_dev = holder->dev;
			r->nk_ino = holder->ino;
			snprintf(r->nk_ns, sizeof(r->nk_ns), "%s", holder->spec);
			name_of(holder, q->lease_ifindex, r->nk_ifname, sizeof(r->nk_ifname));
		}
	}
	nk_queue_list_free(&qs);
	return 0;
}

int nk_lease_scan(struct nk_ctx *ctx, struct nk_lease_list *out)
{
	struct cands c = { 0 };
	int ret = 0;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	cands_collect(&c);
	for (size_t i = 0; i < c.n && !ret; i++)
		ret = scan_one(&c, &c.v[i], out);
	cands_free(&c);
	return ret;
}

void nk_lease_list_free(struct nk_lease_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct nk_lease_rec *nk_lease_of_netkit(const struct nk_lease_list *l, int ifindex,
					      uint32_t queue)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].nk_found && !l->v[i].nk_ns[0] && l->v[i].nk_ifindex == ifindex &&
		    l->v[i].nk_queue == queue)
			return &l->v[i];
	return NULL;
}

/* Is (dev, ino) the namespace of fd (-1: the command's own)? */
static bool ns_is(dev_t dev, ino_t ino, int fd)
{
	struct stat st;
	int cur = -1;
	bool same;

	if (fd < 0 && netns_open_current(&cur))
		return false;
	same = fstat(fd < 0 ? cur : fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
	if (cur >= 0)
		close(cur);
	return same;
}

bool nk_lease_held_in(const struct nk_lease_rec *r, int fd)
{
	return r->nk_found && ns_is(r->nk_dev, r->nk_ino, fd);
}

const struct nk_lease_rec *nk_lease_of_nic(const struct nk_lease_list *l, int fd,
					   int ifindex, uint32_t queue)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].nic_ifindex == ifindex && l->v[i].nic_queue == queue &&
		    ns_is(l->v[i].nic_dev, l->v[i].nic_ino, fd))
			return &l->v[i];
	return NULL;
}

void nk_print_lease(struct out *o, const struct nk_lease_rec *r, bool with_existed)
{
	out_obj_open(o, NULL);
	out_uint(o, "ifindex", NULL, (unsigned int)r->nic_ifindex);
	out_str(o, "ifname", "%s", r->nic_ifname);
	if (r->nic_ns[0])
		out_str(o, "netns", " (netns %s)", r->nic_ns);
	out_uint(o, "id", " queue %llu", r->nic_queue);
	out_str(o, "type", NULL, "rx");
	out_obj_open(o, "lease");
	out_uint(o, "ifindex", NULL, (unsigned int)r->nk_ifindex);
	if (r->nk_ifname[0])
		out_str(o, "ifname", " -> %s", r->nk_ifname);
	else
		out_text(o, " -> ifindex %d", r->nk_ifindex);
	if (r->nk_found && r->nk_ns[0])
		out_str(o, "netns", " (netns %s)", r->nk_ns);
	else if (!r->nk_found)
		out_text(o, " (in a namespace nkctl cannot reach)");
	out_obj_open(o, "queue");
	out_uint(o, "id", " queue %llu", r->nk_queue);
	out_str(o, "type", NULL, "rx");
	out_obj_close(o);
	out_obj_close(o);
	if (r->mp & QUEUE_HAVE_DMABUF)
		out_uint(o, "dmabuf", " dmabuf %llu", r->dmabuf);
	if (r->mp & QUEUE_HAVE_IO_URING) {
		out_obj_open(o, "io-uring");
		out_text(o, " io-uring");
		out_obj_close(o);
	}
	if (r->mp & QUEUE_HAVE_XSK) {
		out_obj_open(o, "xsk");
		out_text(o, " xsk");
		out_obj_close(o);
	}
	if (with_existed) {
		out_bool(o, "existed", NULL, r->existed);
		out_text(o, r->existed ? " (existed)" : " (new)");
	}
	out_text(o, "\n");
	out_obj_close(o);
}

int cmd_show_leases(struct nk_ctx *ctx, int argc, char **argv)
{
	struct nk_lease_list l;
	int ret;

	ret = nk_no_args("show leases", argc, argv);
	if (ret)
		return ret;
	ret = nk_lease_scan(ctx, &l);
	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "leases");
	for (size_t i = 0; i < l.n; i++)
		nk_print_lease(&ctx->out, &l.v[i], false);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	nk_lease_list_free(&l);
	return NK_EXIT_OK;
}
