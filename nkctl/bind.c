// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl bind-rx / bind-tx: make a dmabuf, check the device that will do the
 * DMA (for a netkit device: the NIC its queues are leased from), bind, and
 * hand the binding to a holder (holder.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bindings.h"
#include "compat.h"
#include "devmem.h"
#include "ethtool.h"
#include "netdev.h"
#include "rtnl.h"

#define NK_MAX_DMABUF_SIZE (1ULL << 40)

struct bind_args {
	const char *dev, *queue, *size;
	uint32_t rx_page_size;
	bool hugepages, foreground;
	/* dmabuf SOURCE, taken out of argv before the keyword table sees it */
	bool have_source;
	enum nk_dmabuf_kind kind;
	const char *heap;
	uint32_t fd;
	/* -- CMD ARGS... */
	char **cmd;
	/* never set: "dmabuf" is in the tables for help and completion only */
	const char *dmabuf_listed;
};

#define BP(kw, type, field, meta, min, max, req) \
	{ kw, type, offsetof(struct bind_args, field), meta, min, max, NULL, req }
static const struct nk_param bind_rx_params[] = {
	BP("dev", NKP_IFNAME, dev, "DEV", 0, 0, true),
	BP("queue", NKP_STRING, queue, "LIST", 0, 0, true),
	BP("dmabuf", NKP_STRING, dmabuf_listed, "SOURCE", 0, 0, false),
	BP("size", NKP_STRING, size, "SIZE", 0, 0, false),
	BP("hugepages", NKP_FLAG, hugepages, NULL, 0, 0, false),
	BP("rx-page-size", NKP_U32, rx_page_size, "N", 4096, 1u << 30, false),
	BP("foreground", NKP_FLAG, foreground, NULL, 0, 0, false),
};
const struct nk_params nk_bind_rx_params = NK_PARAMS("bind-rx", bind_rx_params);

static const struct nk_param bind_tx_params[] = {
	BP("dev", NKP_IFNAME, dev, "DEV", 0, 0, true),
	BP("dmabuf", NKP_STRING, dmabuf_listed, "SOURCE", 0, 0, false),
	BP("size", NKP_STRING, size, "SIZE", 0, 0, false),
	BP("hugepages", NKP_FLAG, hugepages, NULL, 0, 0, false),
	BP("foreground", NKP_FLAG, foreground, NULL, 0, 0, false),
};
const struct nk_params nk_bind_tx_params = NK_PARAMS("bind-tx", bind_tx_params);

/* Keywords whose next word is a value, so "dmabuf" there is no SOURCE. */
static bool takes_value(const struct nk_params *p, const char *word)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kw && !strcmp(p->v[i].kw, word))
			return p->v[i].type != NKP_FLAG && strcmp(word, "dmabuf");
	return false;
}

/*
 * Take "dmabuf { udmabuf | heap NAME | fd N }" and "-- CMD..." out of argv;
 * the other words go to rest (argc of them) for the keyword table.
 */
static int split_args(const struct nk_params *p, int argc, char **argv,
		      struct bind_args *a, char **rest, int *nrest)
{
	*nrest = 0;
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "--")) {
			if (i + 1 >= argc)
				return nk_error(NK_EXIT_USAGE, "\"--\" needs a command to run");
			a->cmd = &argv[i + 1];
			break;
		}
		if (takes_value(p, w) && i + 1 < argc) {
			rest[(*nrest)++] = argv[i++];
			rest[(*nrest)++] = argv[i];
			continue;
		}
		if (strcmp(w, "dmabuf")) {
			rest[(*nrest)++] = argv[i];
			continue;
		}
		if (a->have_source)
			return nk_error(NK_EXIT_USAGE, "duplicate \"dmabuf\"");
		if (i + 1 >= argc)
			return nk_error(NK_EXIT_USAGE,
					"\"dmabuf\" needs a SOURCE: udmabuf, heap NAME or fd N");
		a->have_source = true;
		w = argv[++i];
		if (!strcmp(w, "udmabuf")) {
			a->kind = NK_DMABUF_UDMABUF;
		} else if (!strcmp(w, "heap") || !strcmp(w, "fd")) {
			bool heap = w[0] == 'h';

			if (i + 1 >= argc)
				return nk_error(NK_EXIT_USAGE, "\"dmabuf %s\" needs %s", w,
						heap ? "a heap NAME (e.g. system)" : "a descriptor number N");
			a->kind = heap ? NK_DMABUF_HEAP : NK_DMABUF_FD;
			if (heap) {
				a->heap = argv[++i];
				if (!a->heap[0] || strchr(a->heap, '/') || !strcmp(a->heap, ".") ||
				    !strcmp(a->heap, "..") || strlen(a->heap) >= 64)
					return nk_error(NK_EXIT_USAGE,
							"invalid value \"%s\" for \"heap\": a heap name under %s",
							a->heap, NK_DMA_HEAP_DIR);
			} else if (nk_parse_u32("fd", argv[++i], 0, 0x7fffffff, &a->fd)) {
				return NK_EXIT_USAGE;
			}
		} else {
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%s\" for \"dmabuf\": expected one of: udmabuf, heap, fd",
					w);
		}
	}
	return 0;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* What the kernel would refuse later, said now and in words. */
static int check_source(const char *cmd, const struct bind_args *a, uint64_t *size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	long free_huge;

	*size = 0;
	if (!a->have_source)
		return nk_error(NK_EXIT_USAGE,
				"\"%s\" needs \"dmabuf SOURCE\" (udmabuf size SIZE [ hugepages ], heap NAME size SIZE or fd N)",
				cmd);
	if (a->kind == NK_DMABUF_FD) {
		if (a->size || a->hugepages)
			return nk_error(NK_EXIT_USAGE,
					"\"%s\" does not go with \"dmabuf fd\": the dmabuf has its own size",
					a->size ? "size" : "hugepages");
		if (fcntl((int)a->fd, F_GETFD) < 0)
			return nk_error(NK_EXIT_USAGE, "invalid value \"%u\" for \"fd\": no such open descriptor",
					a->fd);
		return 0;
	}
	if (!a->size)
		return nk_error(NK_EXIT_USAGE, "\"dmabuf %s\" needs \"size SIZE\"",
				nk_dmabuf_kind_name(a->kind));
	if (nk_parse_size("size", a->size, NK_MAX_DMABUF_SIZE, size))
		return NK_EXIT_USAGE;
	if (a->hugepages && a->kind != NK_DMABUF_UDMABUF)
		return nk_error(NK_EXIT_USAGE, "\"hugepages\" goes only with \"dmabuf udmabuf\"");
	if (*size % page)
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%s\" for \"size\": not a multiple of the page size (%llu bytes)",
				a->size, (unsigned long long)page);
	if (a->hugepages && *size % NK_HUGEPAGE_SIZE)
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%s\" for \"size\": with \"hugepages\" it must be a multiple of 2M",
				a->size);
	if (a->rx_page_size && !is_pow2(a->rx_page_size))
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%u\" for \"rx-page-size\": not a power of 2",
				a->rx_page_size);
	if (a->kind == NK_DMABUF_UDMABUF && a->rx_page_size > page && !a->hugepages)
		return nk_error(NK_EXIT_USAGE,
				"\"rx-page-size %u\" needs \"hugepages\": every buffer of a binding must be contiguous and aligned to it",
				a->rx_page_size);
	if (a->hugepages && a->rx_page_size > NK_HUGEPAGE_SIZE)
		return nk_error(NK_EXIT_USAGE,
				"invalid value \"%u\" for \"rx-page-size\": at most 2M (the huge page size)",
				a->rx_page_size);
	if (a->hugepages) {
		free_huge = nk_hugepages_free();
		if (free_huge >= 0 && (uint64_t)free_huge < *size / NK_HUGEPAGE_SIZE)
			return nk_error(NK_EXIT_FAIL,
					"not enough free 2M huge pages: %ld free, %llu needed (add some: echo N > /proc/sys/vm/nr_hugepages)",
					free_huge, (unsigned long long)(*size / NK_HUGEPAGE_SIZE));
	}
	return 0;
}

static int make_dmabuf(const struct bind_args *a, uint64_t size, struct nk_dmabuf *d)
{
	const char *step = "";
	int ret;

	switch (a->kind) {
	case NK_DMABUF_UDMABUF:
		ret = nk_dmabuf_udmabuf(size, a->hugepages, d, &step);
		if (ret == -ENOENT && !strcmp(step, "open " NK_UDMABUF_DEV))
			return nk_error(NK_EXIT_UNSUPPORTED,
					"udmabuf is not available: %s is missing (kernel option CONFIG_UDMABUF; modprobe udmabuf)",
					NK_UDMABUF_DEV);
		break;
	case NK_DMABUF_HEAP:
		ret = nk_dmabuf_heap(a->heap, size, d, &step);
		if (ret == -ENOENT && !strcmp(step, "open the dma-heap"))
			return nk_error(NK_EXIT_NOTFOUND, "dma-heap \"%s\" does not exist under %s",
					a->heap, NK_DMA_HEAP_DIR);
		break;
	default:
		ret = nk_dmabuf_adopt((int)a->fd, d, &step);
		if (ret == -ENOTTY)
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%u\" for \"fd\": descriptor %u is not a dmabuf",
					a->fd, a->fd);
		break;
	}
	if (ret == -ENOMEM && a->hugepages)
		return nk_error(NK_EXIT_FAIL,
				"cannot %s: out of 2M huge pages (add some: echo N > /proc/sys/vm/nr_hugepages)",
				step);
	if (ret)
		return nk_error_errno(-ret, "cannot %s", step);
	return 0;
}

/* The device doing the DMA, and what the preflight learned on the way. */
struct dma_target {
	struct nk_ns ns;
	struct nk_link nic;
	bool other;            /* not the device bound (netkit: the NIC) */
	char ns_spec[NK_NS_SPEC];
	uint32_t nic_queues[NK_BIND_MAX_QUEUES];
};

static void target_close(struct dma_target *t)
{
	nk_ns_close(&t->ns);
}

/* For a netkit device: the leases behind its queues, all from one NIC. */
static int resolve_leases(struct nk_ctx *ctx, const struct nk_link *dev, const uint32_t *ids,
			  size_t n, bool rx, struct dma_target *t)
{
	struct nk_lease_list leases;
	const struct nk_lease_rec *first = NULL;
	int ret;

	ret = nk_lease_scan(ctx, &leases);
	if (ret)
		return ret;
	if (!rx) {
		for (size_t i = 0; i < leases.n && !first; i++)
			if (leases.v[i].nk_found && !leases.v[i].nk_ns[0] &&
			    leases.v[i].nk_ifindex == dev->ifindex)
				first = &leases.v[i];
		if (!first && !ctx->force)
			ret = nk_error(NK_EXIT_UNSUPPORTED,
				       "%s is a netkit device without a leased queue: bind-tx needs the DMA device of a lease (nkctl lease dev %s from PHYS queue N)",
				       dev->ifname, dev->ifname);
	}
	for (size_t i = 0; rx && i < n && !ret; i++) {
		const struct nk_lease_rec *r = nk_lease_of_netkit(&leases, dev->ifindex, ids[i]);

		if (!r) {
			if (!ctx->force)
				ret = nk_error(NK_EXIT_UNSUPPORTED,
					       "queue %u of %s is not leased from a NIC, so no device can DMA into it (nkctl lease dev %s from PHYS queue N)",
					       ids[i], dev->ifname, dev->ifname);
			continue;
		}
		if (!first)
			first = r;
		t->nic_queues[i] = r->nic_queue;
		if (!ctx->force && r->mp)
			ret = nk_error(NK_EXIT_EXISTS,
				       "queue %u of %s (queue %u of %s) already has a memory provider%s",
				       ids[i], dev->ifname, r->nic_queue, r->nic_ifname,
				       r->mp & QUEUE_HAVE_DMABUF ? " (a dmabuf binding)" : "");
	}
	if (!ret && first) {
		t->other = true;
		snprintf(t->ns_spec, sizeof(t->ns_spec), "%s", first->nic_ns);
		t->nic.ifindex = first->nic_ifindex;
		snprintf(t->nic.ifname, sizeof(t->nic.ifname), "%s", first->nic_ifname);
	}
	nk_lease_list_free(&leases);
	return ret;
}

/* For a NIC itself: its queues must be its own, not leased out. */
static int check_own_queues(struct nk_ctx *ctx, const struct nk_link *dev, const uint32_t *ids,
			    size_t n, struct dma_target *t)
{
	struct nk_queue_list ql;
	const struct genl_family *fam;
	struct nl_sock *s;
	struct nl_err err;
	const struct nk_queue *q;
	size_t count;
	int ret;

	ret = nk_ctx_netdev(ctx, &s, &fam);
	if (ret)
		return ret;
	ret = netdev_queue_dump(s, fam, dev->ifindex, &ql, &err);
	if (ret)
		return nk_error_nl(&err, "cannot list the queues of %s", dev->ifname);
	q = nk_queues_of(&ql, dev->ifindex, &count);
	for (size_t i = 0; i < n && !ret; i++) {
		const struct nk_queue *found = NULL;

		t->nic_queues[i] = ids[i];
		for (size_t k = 0; k < count; k++)
			if (q[k].type == NK_NETDEV_QUEUE_TYPE_RX && q[k].id == ids[i])
				found = &q[k];
		/* A device that is down lists no queues: the kernel decides. */
		if (!found && count)
			ret = nk_error(NK_EXIT_NOTFOUND, "%s has no RX queue %u", dev->ifname, ids[i]);
		else if (found && ctx->force)
			continue;
		else if (found && (found->have & QUEUE_HAVE_LEASE))
			ret = nk_error(NK_EXIT_EXISTS,
				       "queue %u of %s is leased to a netkit device (ifindex %d): bind through the netkit device",
				       ids[i], dev->ifname, found->lease_ifindex);
		else if (found && (found->have & (QUEUE_HAVE_DMABUF | QUEUE_HAVE_IO_URING | QUEUE_HAVE_XSK)))
			ret = nk_error(NK_EXIT_EXISTS, "queue %u of %s already has a memory provider%s",
				       ids[i], dev->ifname,
				       found->have & QUEUE_HAVE_DMABUF ? " (a dmabuf binding)" : "");
	}
	nk_queue_list_free(&ql);
	return ret;
}

/* On the device doing the DMA: header split on, threshold 0, no XDP. */
static int check_nic(struct nk_ctx *ctx, struct dma_target *t)
{
	struct genl_family ethtool = { 0 };
	const struct genl_family *fam;
	struct nl_sock *rt, *gn;
	struct nk_rings rings;
	struct nl_err err;
	const char *dev;
	int ret;

	ret = nk_ns_open(&t->ns, t->ns_spec[0] ? t->ns_spec : NULL);
	if (!ret)
		ret = nk_ns_rtnl(ctx, &t->ns, &rt);
	if (!ret)
		ret = nk_link_lookup(rt, NULL, t->nic.ifindex, &t->nic, nk_ns_name(&t->ns), false);
	if (ret)
		return ret;
	dev = t->nic.ifname;
	if ((t->nic.have & LINK_HAVE_XDP) && t->nic.xdp_attached)
		return nk_error(NK_EXIT_EXISTS,
				"%s has an XDP program attached (id %u), which devmem cannot work with (detach it: ip link set dev %s xdp off)",
				dev, t->nic.xdp_prog_id, dev);
	ret = nk_ns_netdev(ctx, &t->ns, &gn, &fam);
	if (ret)
		return ret;
	if (genl_resolve(gn, "ethtool", &ethtool, &err))
		return nk_error_nl(&err, "cannot resolve the ethtool netlink family");
	if (!ethtool.present)
		return 0;     /* no ethtool netlink: the kernel will say */
	ret = ethtool_rings_get(gn, &ethtool, t->nic.ifindex, &rings, &err);
	if (ret == -EOPNOTSUPP)
		return nk_error(NK_EXIT_FAIL,
				"%s does not report its ring parameters, so tcp-data-split cannot be on there (devmem needs header split)",
				dev);
	if (ret)
		return nk_error_nl(&err, "cannot read the ring parameters of %s", dev);
	if (rings.tcp_data_split != NK_TCP_DATA_SPLIT_ENABLED)
		return nk_error(NK_EXIT_FAIL,
				"tcp-data-split is %s on %s; devmem needs header split (ethtool -G %s tcp-data-split on)",
				nk_tcp_data_split_name(rings.tcp_data_split), dev, dev);
	if (rings.have_hds_thresh && rings.hds_thresh)
		return nk_error(NK_EXIT_FAIL,
				"hds-thresh is %u on %s; devmem needs 0 (ethtool -G %s hds-thresh 0)",
				rings.hds_thresh, dev, dev);
	return 0;
}

static void binding_fill(struct nk_ctx *ctx, struct nk_binding *b, const struct nk_link *dev,
			 const struct dma_target *t, const struct nk_dmabuf *d, bool rx)
{
	memset(b, 0, sizeof(*b));
	b->rx = rx;
	nk_current_netns(&b->ns_dev, &b->ns_ino);
	snprintf(b->netns, sizeof(b->netns), "%s", ctx->netns ? ctx->netns : "");
	b->ifindex = dev->ifindex;
	snprintf(b->ifname, sizeof(b->ifname), "%s", dev->ifname);
	if (t->other) {
		b->have_phys = true;
		b->phys_ifindex = t->nic.ifindex;
		snprintf(b->phys_ifname, sizeof(b->phys_ifname), "%s", t->nic.ifname);
		snprintf(b->phys_netns, sizeof(b->phys_netns), "%s", t->ns_spec);
	}
	b->have_dmabuf = true;
	b->kind = d->kind;
	b->size = d->size;
	b->hugepages = d->hugepages;
	snprintf(b->heap, sizeof(b->heap), "%s", d->heap);
}

/* What the kernel's refusal means, in one line. */
static int bind_failed(const struct nl_err *err, const char *cmd, const struct nk_link *dev)
{
	if (err->code == EPERM)
		return nk_error_nl(err, "%s on %s needs CAP_NET_ADMIN", cmd, dev->ifname);
	if (err->code == EOPNOTSUPP && !err->msg[0])
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s on %s: the device does not support devmem (no queue management operations)",
				cmd, dev->ifname);
	return nk_error_nl(err, "%s on %s", cmd, dev->ifname);
}

static int bind_cmd(struct nk_ctx *ctx, int argc, char **argv, bool rx)
{
	const struct nk_params *p = rx ? &nk_bind_rx_params : &nk_bind_tx_params;
	const char *cmd = p->cmd;
	struct bind_args a = { 0 };
	struct dma_target t = { 0 };
	struct nk_dmabuf d = { .fd = -1 };
	const struct genl_family *fam;
	uint32_t ids[NK_MAX_QUEUES];
	struct nk_binding *b = NULL;
	struct nl_sock *rt, *gn;
	struct nk_link dev;
	struct nl_err err;
	uint64_t size;
	size_t n = 0;
	char **rest;
	int nrest, ret;

	t.ns.fd = -1;
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest)
		return nk_error_errno(ENOMEM, "%s", cmd);
	ret = split_args(p, argc, argv, &a, rest, &nrest);
	if (!ret)
		ret = nk_parse_params(p, nrest, rest, &a, NULL);
	free(rest);
	if (ret)
		return ret;
	if (a.foreground && a.cmd)
		return nk_error(NK_EXIT_USAGE, "\"foreground\" and \"-- CMD\" exclude each other");
	if (rx) {
		ret = nk_parse_queue_list("queue", a.queue, ids, &n);
		if (ret)
			return ret;
		if (n > NK_BIND_MAX_QUEUES)
			return nk_error(NK_EXIT_USAGE, "at most %d queues in one binding",
					NK_BIND_MAX_QUEUES);
	}
	ret = check_source(cmd, &a, &size);
	if (ret)
		return ret;

	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret)
		ret = nk_link_lookup(rt, a.dev, 0, &dev, ctx->netns, false);
	if (!ret)
		ret = nk_ctx_netdev(ctx, &gn, &fam);
	if (ret)
		return ret;
	if (!genl_has_op(fam, rx ? NK_NETDEV_CMD_BIND_RX : NK_NETDEV_CMD_BIND_TX))
		return nk_error(NK_EXIT_UNSUPPORTED, "this kernel has no netdev %s (devmem %s needs Linux %s)",
				cmd, rx ? "RX" : "TX", rx ? "6.12+" : "6.15+");

	/* A dmabuf handed in is checked before anything else. */
	if (a.kind == NK_DMABUF_FD) {
		ret = make_dmabuf(&a, size, &d);
		if (ret)
			return ret;
	}
	/* Preflight, unless -force asks to let the kernel decide. */
	if (!ctx->force && !nk_link_is_netkit(&dev) && !dev.parent[0])
		ret = nk_error(NK_EXIT_UNSUPPORTED,
			       "%s is a virtual device%s%s%s without a DMA device: devmem needs a NIC whose driver manages its queues (mlx5, bnxt, gve), or a netkit device with queues leased from one",
			       dev.ifname, dev.kind[0] ? " (" : "", dev.kind, dev.kind[0] ? ")" : "");
	else if (nk_link_is_netkit(&dev))
		ret = resolve_leases(ctx, &dev, ids, n, rx, &t);
	else if (rx)
		ret = check_own_queues(ctx, &dev, ids, n, &t);
	if (!ret && rx && !ctx->force) {
		if (!t.other)
			t.nic = dev;
		if (t.other || !nk_link_is_netkit(&dev))
			ret = check_nic(ctx, &t);
	}
	if (ret)
		goto out;

	if (a.kind != NK_DMABUF_FD)
		ret = make_dmabuf(&a, size, &d);
	if (ret)
		goto out;
	b = calloc(1, sizeof(*b));
	if (!b) {
		ret = nk_error_errno(ENOMEM, "%s", cmd);
		goto out;
	}
	binding_fill(ctx, b, &dev, &t, &d, rx);
	b->nqueues = n;
	memcpy(b->queues, ids, n * sizeof(ids[0]));
	b->rx_page_size = a.rx_page_size;
	if (rx)
		ret = netdev_bind_rx(gn, fam, dev.ifindex, ids, n, d.fd, a.rx_page_size,
				     &b->id, &err);
	else
		ret = netdev_bind_tx(gn, fam, dev.ifindex, d.fd, &b->id, &err);
	if (ret) {
		ret = bind_failed(&err, cmd, &dev);
		goto out;
	}
	target_close(&t);
	ret = nk_hold(ctx, b, &d, a.foreground ? NK_HOLD_FOREGROUND :
				  a.cmd ? NK_HOLD_COMMAND : NK_HOLD_DAEMON, a.cmd);
	free(b);
	return ret;
out:
	free(b);
	if (a.kind != NK_DMABUF_FD)
		nk_dmabuf_close(&d);
	target_close(&t);
	return ret;
}

int cmd_bind_rx(struct nk_ctx *ctx, int argc, char **argv)
{
	return bind_cmd(ctx, argc, argv, true);
}

int cmd_bind_tx(struct nk_ctx *ctx, int argc, char **argv)
{
	return bind_cmd(ctx, argc, argv, false);
}
