// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl bind-rx / bind-tx: make a dmabuf, check the device that will do the
 * DMA (for a netkit device: the NIC its queues are leased from), bind, and
 * hand the binding to a holder (holder.c). nkctl show bindings and nkctl
 * unbind: the bindings as bindview.c reads them, selected by id or device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind/bindings.h"
#include "bind/bindstate.h"
#include "bind/bindview.h"
#include "compat.h"
#include "core/cmd.h"
#include "devmem.h"
#include "ethtool.h"
#include "bind/holder.h"
#include "core/kernel.h"
#include "core/lookup.h"
#include "lease/holder.h"
#include "lease/scan.h"
#include "netdev.h"
#include "rtnl.h"

#define NK_MAX_DMABUF_SIZE (1ULL << 40)

/* dmabuf { udmabuf | heap NAME | fd N } */
struct dmabuf_source {
	bool given;
	enum nk_dmabuf_kind kind;
	const char *heap;
	uint32_t fd;
};

struct bind_args {
	const char *dev, *queue, *size;
	uint32_t rx_page_size;
	bool hugepages, foreground, no_preflight;
	struct dmabuf_source src;
	char **cmd;               /* -- CMD ARGS... */
};

static int parse_heap_name(const char *name)
{
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= 64)
		return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"heap\": a heap name under %s",
				name, NK_DMA_HEAP_DIR);
	return 0;
}

/* The words after "dmabuf": the source and, for heap and fd, its value. */
static int parse_source(const struct nk_param *d, int argc, char **argv, void *slot)
{
	struct dmabuf_source *src = slot;
	bool heap;

	(void)d;
	if (argc < 1)
		return -nk_error(NK_EXIT_USAGE, "\"dmabuf\" needs a SOURCE: udmabuf, heap NAME or fd N");
	src->given = true;
	if (!strcmp(argv[0], "udmabuf")) {
		src->kind = NK_DMABUF_UDMABUF;
		return 1;
	}
	if (strcmp(argv[0], "heap") && strcmp(argv[0], "fd"))
		return -nk_error(NK_EXIT_USAGE,
				 "invalid value \"%s\" for \"dmabuf\": expected one of: udmabuf, heap, fd",
				 argv[0]);
	heap = argv[0][0] == 'h';
	if (argc < 2)
		return -nk_error(NK_EXIT_USAGE, "\"dmabuf %s\" needs %s", argv[0],
				 heap ? "a heap NAME (e.g. system)" : "a descriptor number N");
	src->kind = heap ? NK_DMABUF_HEAP : NK_DMABUF_FD;
	if (heap) {
		src->heap = argv[1];
		return parse_heap_name(src->heap) ? -NK_EXIT_USAGE : 2;
	}
	return nk_parse_u32("fd", argv[1], 0, 0x7fffffff, &src->fd) ? -NK_EXIT_USAGE : 2;
}

#define BP(kw, type, field, meta, min, max, req) \
	{ kw, type, offsetof(struct bind_args, field), meta, min, max, NULL, req, NULL }
/* For completion and help: the first word of each source. */
static const struct nk_choice source_words[] = {
	{ "udmabuf", NK_DMABUF_UDMABUF, NULL }, { "heap", NK_DMABUF_HEAP, NULL },
	{ "fd", NK_DMABUF_FD, NULL }, { NULL, 0, NULL },
};
#define BP_SOURCE \
	{ "dmabuf", NKP_CUSTOM, offsetof(struct bind_args, src), "SOURCE", 0, 0, source_words, \
	  true, parse_source }
static const struct nk_param bind_rx_param[] = {
	BP("dev", NKP_IFNAME, dev, "DEV", 0, 0, true),
	BP("queue", NKP_STRING, queue, "LIST", 0, 0, true),
	BP_SOURCE,
	BP("size", NKP_STRING, size, "SIZE", 0, 0, false),
	BP("hugepages", NKP_FLAG, hugepages, NULL, 0, 0, false),
	BP("rx-page-size", NKP_U32, rx_page_size, "N", 4096, 1u << 30, false),
	BP("no-preflight", NKP_FLAG, no_preflight, NULL, 0, 0, false),
	BP("foreground", NKP_FLAG, foreground, NULL, 0, 0, false),
	BP("--", NKP_REST, cmd, "CMD", 0, 0, false),
};
static const struct nk_param bind_tx_param[] = {
	BP("dev", NKP_IFNAME, dev, "DEV", 0, 0, true),
	BP_SOURCE,
	BP("size", NKP_STRING, size, "SIZE", 0, 0, false),
	BP("hugepages", NKP_FLAG, hugepages, NULL, 0, 0, false),
	BP("no-preflight", NKP_FLAG, no_preflight, NULL, 0, 0, false),
	BP("foreground", NKP_FLAG, foreground, NULL, 0, 0, false),
	BP("--", NKP_REST, cmd, "CMD", 0, 0, false),
};
static const struct nk_rule bind_rules[] = {
	{ NK_RULE_EXCLUSIVE, { "foreground", "--" } },
};
#define BIND_SOURCE_DEF "SOURCE := { udmabuf | heap NAME | fd N }"
const struct nk_params cmd_bind_rx_params = {
	NK_PARAMS("bind-rx", struct bind_args, bind_rx_param), NK_RULES(bind_rules),
	.defs = BIND_SOURCE_DEF,
};
const struct nk_params cmd_bind_tx_params = {
	NK_PARAMS("bind-tx", struct bind_args, bind_tx_param), NK_RULES(bind_rules),
	.defs = BIND_SOURCE_DEF,
};

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* What the kernel would refuse later, said now and in words. */
static int check_source(const struct bind_args *a, uint64_t *size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	long free_huge;

	*size = 0;
	if (a->src.kind == NK_DMABUF_FD) {
		if (a->size || a->hugepages)
			return nk_error(NK_EXIT_USAGE,
					"\"%s\" does not go with \"dmabuf fd\": the dmabuf has its own size",
					a->size ? "size" : "hugepages");
		if (fcntl((int)a->src.fd, F_GETFD) < 0)
			return nk_error(NK_EXIT_USAGE, "invalid value \"%u\" for \"fd\": no such open descriptor",
					a->src.fd);
		return 0;
	}
	if (!a->size)
		return nk_error(NK_EXIT_USAGE, "\"dmabuf %s\" needs \"size SIZE\"",
				nk_dmabuf_kind_name(a->src.kind));
	if (nk_parse_size("size", a->size, NK_MAX_DMABUF_SIZE, size))
		return NK_EXIT_USAGE;
	if (a->hugepages && a->src.kind != NK_DMABUF_UDMABUF)
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
	if (a->src.kind == NK_DMABUF_UDMABUF && a->rx_page_size > page && !a->hugepages)
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

	switch (a->src.kind) {
	case NK_DMABUF_UDMABUF:
		ret = nk_dmabuf_udmabuf(size, a->hugepages, d, &step);
		if (ret == -ENOENT && !strcmp(step, "open " NK_UDMABUF_DEV))
			return nk_error(NK_EXIT_UNSUPPORTED,
					"udmabuf is not available: %s is missing (kernel option CONFIG_UDMABUF; modprobe udmabuf)",
					NK_UDMABUF_DEV);
		break;
	case NK_DMABUF_HEAP:
		ret = nk_dmabuf_heap(a->src.heap, size, d, &step);
		if (ret == -ENOENT && !strcmp(step, "open the dma-heap"))
			return nk_error(NK_EXIT_NOTFOUND, "dma-heap \"%s\" does not exist under %s",
					a->src.heap, NK_DMA_HEAP_DIR);
		break;
	default:
		ret = nk_dmabuf_adopt((int)a->src.fd, d, &step);
		if (ret == -ENOTTY)
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%u\" for \"fd\": descriptor %u is not a dmabuf",
					a->src.fd, a->src.fd);
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
	struct nk_ns *ns;      /* where nic lives */
	struct nk_link nic;
	bool other;            /* not the device bound (netkit: the NIC) */
	uint32_t nic_queues[NK_BIND_MAX_QUEUES];
	int64_t rss_queue;     /* a bound NIC queue RSS still feeds, or -1 */
	char queue_words[256]; /* the NIC queues as a LIST, for hints */
};

/* bind-rx on a netkit device: every queue leased, none with a provider. */
static int check_leased_queues(const struct nk_lease_list *leases, const struct nk_link *dev,
			       const uint32_t *ids, size_t n, bool checked,
			       const struct nk_lease_rec **first, struct dma_target *t)
{
	for (size_t i = 0; i < n; i++) {
		const struct nk_lease_rec *r = nk_lease_of_netkit(leases, dev->ifindex, ids[i]);

		if (!r && checked)
			return nk_error(NK_EXIT_UNSUPPORTED,
					"queue %u of %s is not leased from a NIC, so no device can DMA into it (nkctl lease dev %s from PHYS queue N)",
					ids[i], dev->ifname, dev->ifname);
		if (!r)
			continue;
		if (!*first)
			*first = r;
		t->nic_queues[i] = r->nic_queue;
		if (checked && r->mp)
			return nk_error(NK_EXIT_EXISTS,
					"queue %u of %s (queue %u of %s) already has a memory provider%s",
					ids[i], dev->ifname, r->nic_queue, r->nic_ifname,
					r->mp & QUEUE_HAVE_DMABUF ? " (a dmabuf binding)" : "");
	}
	return 0;
}

/* For a netkit device: the leases behind its queues, all from one NIC. */
static int resolve_leases(struct nk_ctx *ctx, const struct nk_link *dev, const uint32_t *ids,
			  size_t n, bool rx, bool checked, struct dma_target *t)
{
	struct nk_lease_list leases;
	const struct nk_lease_rec *first = NULL;
	int ret;

	ret = nk_lease_scan(ctx, &leases);
	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	/* a lease whose NIC cannot be seen: which NIC does the DMA cannot be
	 * read, which is not "not leased" */
	ret = nk_lease_refuse_unseen(ctx, &leases, dev,
				     rx ? "which of its queues DMA into the device's cannot be read" :
					  "which device would DMA for it cannot be read",
				     rx ? "bind-rx again" : "bind-tx again");
	if (ret) {
		nk_lease_list_free(&leases);
		return ret;
	}
	if (rx) {
		ret = check_leased_queues(&leases, dev, ids, n, checked, &first, t);
	} else {
		/* the NIC of one of its leases does the DMA */
		first = nk_lease_any_of_netkit(&leases, dev->ifindex);
		if (!first && checked)
			ret = nk_error(NK_EXIT_UNSUPPORTED,
				       "%s is a netkit device without a leased queue: bind-tx needs the DMA device of a lease (nkctl lease dev %s from PHYS queue N)",
				       dev->ifname, dev->ifname);
	}
	if (!ret && first) {
		t->other = true;
		t->ns = first->nic_ns;
		t->nic.ifindex = first->nic_ifindex;
		snprintf(t->nic.ifname, sizeof(t->nic.ifname), "%s", first->nic_ifname);
	}
	nk_lease_list_free(&leases);
	return ret;
}

/* Why queue q of a NIC cannot be bound directly, or 0. */
static int own_queue_error(const struct nk_link *dev, uint32_t id, const struct nk_queue *q)
{
	struct nk_queue_holder h;

	if (nk_queue_holder(q, &h))
		return nk_error(NK_EXIT_EXISTS,
				"queue %u of %s is leased to a netkit device (ifindex %d): bind through the netkit device",
				id, dev->ifname, h.ifindex);
	if (q->have & QUEUE_HAVE_MP)
		return nk_error(NK_EXIT_EXISTS, "queue %u of %s already has a memory provider%s",
				id, dev->ifname,
				q->have & QUEUE_HAVE_DMABUF ? " (a dmabuf binding)" : "");
	return 0;
}

/* For a NIC itself: its queues must be its own, not leased out. */
static int check_own_queues(struct nk_ctx *ctx, const struct nk_link *dev, const uint32_t *ids,
			    size_t n, bool checked, struct dma_target *t)
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
		else if (found && checked)
			ret = own_queue_error(dev, ids[i], found);
	}
	nk_queue_list_free(&ql);
	return ret;
}

/* Header split on, threshold 0, on the NIC (ethtool netlink). */
static int check_rings(struct nl_sock *gn, const struct genl_family *et, const struct nk_link *nic,
		       const char *queues)
{
	const char *dev = nic->ifname;
	struct nk_rings rings;
	struct nl_err err;
	int ret;

	ret = ethtool_rings_get(gn, et, nic->ifindex, &rings, &err);
	if (ret == -EOPNOTSUPP)
		return nk_error(NK_EXIT_FAIL,
				"%s does not report its ring parameters, so tcp-data-split cannot be on there (devmem needs header split)",
				dev);
	if (ret)
		return nk_error_nl(&err, "cannot read the ring parameters of %s", dev);
	if (rings.tcp_data_split != NK_TCP_DATA_SPLIT_ENABLED)
		return nk_error(NK_EXIT_FAIL,
				"tcp-data-split is %s on %s; devmem needs header split (nkctl nic reserve dev %s queue %s)",
				nk_tcp_data_split_name(rings.tcp_data_split), dev, dev, queues);
	if (rings.have_hds_thresh && rings.hds_thresh)
		return nk_error(NK_EXIT_FAIL,
				"hds-thresh is %u on %s; devmem needs 0 (nkctl nic reserve dev %s queue %s)",
				rings.hds_thresh, dev, dev, queues);
	return 0;
}

/* The first bound queue that RSS still feeds (host flows hashed onto it
 * land in the dmabuf), or -1; warned about once the binding exists. */
static int64_t rss_fed(struct nl_sock *gn, const struct genl_family *et, const struct nk_link *nic,
		       const uint32_t *q, size_t n)
{
	struct nk_rss *rss = calloc(1, sizeof(*rss));
	struct nl_err err;
	int64_t found = -1;

	if (rss && genl_has_op(et, NK_ETHTOOL_MSG_RSS_GET) &&
	    ethtool_rss_get(gn, et, nic->ifindex, rss, &err) == 0)
		for (size_t i = 0; i < n && found < 0; i++)
			if (nk_rss_uses(rss, q[i]))
				found = q[i];
	free(rss);
	return found;
}

/* The NIC queues as a LIST for the hints. */
static void queue_words(const uint32_t *q, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "", q[i]);
}

/* Header split and RSS on the NIC, through the ethtool family. */
static int check_nic_queues(struct dma_target *t, size_t n)
{
	const struct genl_family *fam;
	struct nl_sock *gn;
	struct nl_err err;
	int ret = nk_ns_netdev(t->ns, &gn, &fam);

	if (ret)
		return ret;
	if (genl_resolve(gn, "ethtool", &t->ns->ethtool, &err))
		return nk_error_nl(&err, "cannot resolve the ethtool netlink family");
	if (!t->ns->ethtool.present)
		return 0;     /* no ethtool netlink: the kernel will say */
	queue_words(t->nic_queues, n, t->queue_words, sizeof(t->queue_words));
	ret = check_rings(gn, &t->ns->ethtool, &t->nic, t->queue_words);
	if (!ret)
		t->rss_queue = rss_fed(gn, &t->ns->ethtool, &t->nic, t->nic_queues, n);
	return ret;
}

/* On the device doing the DMA: no XDP, and the rings as devmem needs them. */
static int check_nic(struct dma_target *t, size_t n)
{
	struct nl_sock *rt;
	const char *dev;
	int ret;

	ret = nk_ns_rtnl(t->ns, &rt);
	if (!ret)
		ret = nk_link_lookup(rt, NULL, t->nic.ifindex, &t->nic, nk_ns_name(t->ns), false);
	if (ret)
		return ret;
	dev = t->nic.ifname;
	if ((t->nic.have & LINK_HAVE_XDP) && t->nic.xdp_attached)
		return nk_error(NK_EXIT_EXISTS,
				"%s has an XDP program attached (id %u), which devmem cannot work with (detach it: ip link set dev %s xdp off)",
				dev, t->nic.xdp_prog_id, dev);
	return check_nic_queues(t, n);
}

static void binding_fill(struct nk_ctx *ctx, struct nk_binding *b, const struct nk_link *dev,
			 const struct dma_target *t, const struct nk_dmabuf *d, bool rx)
{
	struct nk_ns *here;

	memset(b, 0, sizeof(*b));
	b->rx = rx;
	if (nk_ns_here(ctx, &here) == 0) {
		b->ns_dev = here->dev;
		b->ns_ino = here->ino;
	}
	snprintf(b->netns, sizeof(b->netns), "%s", ctx->netns ? ctx->netns : "");
	b->ifindex = dev->ifindex;
	snprintf(b->ifname, sizeof(b->ifname), "%s", dev->ifname);
	if (t->other) {
		b->have_phys = true;
		b->phys_ifindex = t->nic.ifindex;
		snprintf(b->phys_ifname, sizeof(b->phys_ifname), "%s", t->nic.ifname);
		snprintf(b->phys_netns, sizeof(b->phys_netns), "%s", t->ns->spec);
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

/* One bind request: what was asked, and what the steps found. */
struct bind_job {
	const struct bind_args *a;
	const char *cmd;
	bool rx;
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	uint64_t size;
	struct nk_link dev;
	struct dma_target t;
	struct nk_dmabuf d;
};

/* Everything that needs no kernel: queues, source, sizes. */
static int bind_validate(struct bind_job *j)
{
	int ret;

	if (j->rx) {
		ret = nk_parse_queue_list("queue", j->a->queue, j->ids, &j->n);
		if (ret)
			return ret;
		if (j->n > NK_BIND_MAX_QUEUES)
			return nk_error(NK_EXIT_USAGE, "at most %d queues in one binding",
					NK_BIND_MAX_QUEUES);
	}
	return check_source(j->a, &j->size);
}

/*
 * What the kernel would refuse or get wrong, said first: a device that can
 * DMA, queues that are free, a NIC set up for devmem. no-preflight leaves
 * all of it to the kernel.
 */
static int bind_preflight(struct nk_ctx *ctx, struct bind_job *j)
{
	bool checked = !j->a->no_preflight, netkit = nk_link_is_netkit(&j->dev);
	int ret = 0;

	if (checked && !netkit && !j->dev.parent[0])
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s is a virtual device%s%s%s without a DMA device: devmem needs a NIC whose driver manages its queues (mlx5, bnxt, gve), or a netkit device with queues leased from one",
				j->dev.ifname, j->dev.kind[0] ? " (" : "", j->dev.kind,
				j->dev.kind[0] ? ")" : "");
	if (netkit)
		ret = resolve_leases(ctx, &j->dev, j->ids, j->n, j->rx, checked, &j->t);
	else if (j->rx)
		ret = check_own_queues(ctx, &j->dev, j->ids, j->n, checked, &j->t);
	if (ret || !j->rx || !checked)
		return ret;
	if (!j->t.other) {
		j->t.nic = j->dev;
		ret = nk_ns_here(ctx, &j->t.ns);
	}
	if (!ret && (j->t.other || !netkit))
		ret = check_nic(&j->t, j->n);
	return ret;
}

/* Bind on the device and hand the binding to its holder. */
static int bind_and_hold(struct nk_ctx *ctx, struct bind_job *j)
{
	const struct genl_family *fam;
	struct nk_binding *b;
	struct nl_sock *gn;
	struct nl_err err;
	int ret;

	ret = nk_ctx_netdev(ctx, &gn, &fam);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return nk_error_errno(ENOMEM, "%s", j->cmd);
	binding_fill(ctx, b, &j->dev, &j->t, &j->d, j->rx);
	b->nqueues = j->n;
	memcpy(b->queues, j->ids, j->n * sizeof(j->ids[0]));
	b->rx_page_size = j->a->rx_page_size;
	if (j->rx)
		ret = netdev_bind_rx(gn, fam, j->dev.ifindex, j->ids, j->n, j->d.fd,
				     j->a->rx_page_size, &b->id, &err);
	else
		ret = netdev_bind_tx(gn, fam, j->dev.ifindex, j->d.fd, &b->id, &err);
	if (ret) {
		ret = bind_failed(&err, j->cmd, &j->dev);
		if (j->a->src.kind != NK_DMABUF_FD)
			nk_dmabuf_close(&j->d);
	} else {
		if (j->t.rss_queue >= 0)
			nk_warn("queue %lld of %s still receives RSS traffic: host flows hashed onto it land in the dmabuf (nkctl nic reserve dev %s queue %s)",
				(long long)j->t.rss_queue, j->t.nic.ifname, j->t.nic.ifname,
				j->t.queue_words);
		/* The holder owns the dmabuf from here on. */
		ret = nk_hold(ctx, b, &j->d, j->a->foreground ? NK_HOLD_FOREGROUND :
				 j->a->cmd ? NK_HOLD_COMMAND : NK_HOLD_DAEMON, j->a->cmd);
	}
	free(b);
	return ret;
}

static int bind_cmd(struct nk_ctx *ctx, const struct bind_args *a, bool rx)
{
	struct bind_job *j = calloc(1, sizeof(*j));
	bool adopted;
	int ret;

	if (!j)
		return nk_error_errno(ENOMEM, "bind");
	j->a = a;
	j->rx = rx;
	j->cmd = rx ? "bind-rx" : "bind-tx";
	j->d.fd = -1;
	j->t.rss_queue = -1;
	adopted = a->src.kind == NK_DMABUF_FD;
	ret = bind_validate(j);
	if (!ret)
		ret = nk_dev(ctx, a->dev, &j->dev);
	if (!ret)
		ret = nk_feature_need(ctx, rx ? NK_FEAT_BIND_RX : NK_FEAT_BIND_TX);
	/* A dmabuf handed in is checked before anything else. */
	if (!ret && adopted)
		ret = make_dmabuf(a, j->size, &j->d);
	if (!ret)
		ret = bind_preflight(ctx, j);
	if (!ret && !adopted)
		ret = make_dmabuf(a, j->size, &j->d);
	if (!ret)
		ret = bind_and_hold(ctx, j);
	else if (!adopted)
		nk_dmabuf_close(&j->d);
	free(j);
	return ret;
}

int cmd_bind_rx(struct nk_ctx *ctx, const void *args)
{
	return bind_cmd(ctx, args, true);
}

int cmd_bind_tx(struct nk_ctx *ctx, const void *args)
{
	return bind_cmd(ctx, args, false);
}

/* ---- show bindings, unbind ---- */

struct select_args {
	const char *dev;
	uint32_t id;
};

static const struct nk_param select_params[] = {
	{ "dev", NKP_IFNAME, offsetof(struct select_args, dev), "DEV", 0, 0, NULL, false, NULL },
	{ "id", NKP_U32, offsetof(struct select_args, id), "ID", 1, UINT32_MAX, NULL, false, NULL },
};
const struct nk_params cmd_show_bindings_params = {
	NK_PARAMS("show bindings", struct select_args, select_params)
};
static const struct nk_rule unbind_rules[] = {
	{ NK_RULE_ONE_OF, { "id", "dev" } },
};
const struct nk_params cmd_unbind_params = {
	NK_PARAMS("unbind", struct select_args, select_params), NK_RULES(unbind_rules),
};

static bool selected(const struct nk_binding *b, const struct select_args *a)
{
	return (!a->id || b->id == a->id) && (!a->dev || !strcmp(b->ifname, a->dev));
}

static bool any_selected(const struct nk_binding_list *l, const struct select_args *a)
{
	for (size_t i = 0; i < l->n; i++)
		if (selected(&l->v[i], a))
			return true;
	return false;
}

int cmd_show_bindings(struct nk_ctx *ctx, const void *args)
{
	const struct select_args *a = args;
	struct nk_binding_list l;
	bool kernel_ok;
	int ret;

	ret = nk_bindings_load(ctx, &l, &kernel_ok);
	if (ret)
		return ret;
	/* A typo is not "no bindings": a device nothing names must exist. */
	if (a->dev && !any_selected(&l, a)) {
		struct nk_link dev;

		ret = nk_dev(ctx, a->dev, &dev);
		if (ret) {
			nk_binding_list_free(&l);
			return ret;
		}
	}
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "bindings");
	for (size_t i = 0; i < l.n; i++)
		if (selected(&l.v[i], a))
			nk_print_binding(&ctx->out, &l.v[i]);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
	nk_binding_list_free(&l);
	return NK_EXIT_OK;
}

/* What unbind found among the selected bindings. */
struct unbind_result {
	struct nk_binding_list done;            /* released now */
	const struct nk_binding *stale, *foreign;
};

/* End the holder of b; a dead one only leaves its state file to remove. */
static int release_one(struct nk_binding *b, struct unbind_result *r)
{
	struct nk_binding *slot;
	int ret = b->alive ? nk_binding_release(b) : -ESRCH;

	if (ret == -ESRCH) {
		/* Its holder died (SIGKILL, OOM): the kernel has let go already. */
		nk_binding_forget(b);
		r->stale = b;
		return 0;
	}
	if (ret)
		return nk_error_errno(-ret, "cannot end the holder of binding %u (pid %d)",
				      b->id, (int)b->pid);
	b->alive = false;
	slot = nk_grow(&r->done.v, &r->done.n, &r->done.cap, sizeof(*slot));
	if (!slot)
		return nk_error_errno(ENOMEM, "unbind");
	*slot = *b;
	return 0;
}

/* Nothing was released: why, as one error. */
static int nothing_unbound(struct nk_ctx *ctx, const struct select_args *a,
			   const struct unbind_result *r)
{
	if (r->stale)
		return nk_error(NK_EXIT_NOTFOUND,
				"binding %u is no longer held: its holder (pid %d) died; removed its stale state",
				r->stale->id, (int)r->stale->pid);
	if (r->foreign)
		return nk_error(NK_EXIT_NOTFOUND,
				"binding %u was not made by nkctl: it ends when the process that made it closes its netlink socket",
				r->foreign->id);
	if (a->id)
		return nk_error(NK_EXIT_NOTFOUND, "binding %u does not exist%s%s", a->id,
				ctx->netns ? " in " : "", ctx->netns ? ctx->netns : "");
	return nk_error(NK_EXIT_NOTFOUND, "%s has no binding held by nkctl", a->dev);
}

int cmd_unbind(struct nk_ctx *ctx, const void *args)
{
	const struct select_args *a = args;
	struct unbind_result r = { 0 };
	struct nk_binding_list l;
	bool kernel_ok;
	int ret;

	ret = nk_bindings_load(ctx, &l, &kernel_ok);
	if (ret)
		return ret;
	for (size_t i = 0; i < l.n && !ret; i++) {
		if (!selected(&l.v[i], a))
			continue;
		if (l.v[i].held)
			ret = release_one(&l.v[i], &r);
		else
			r.foreign = &l.v[i];
	}
	/* -force: a binding that is already gone is not an error. */
	if (!ret && !r.done.n && !(ctx->force && !r.foreign))
		ret = nothing_unbound(ctx, a, &r);
	if (!ret) {
		out_begin(&ctx->out);
		out_arr_open(&ctx->out, "unbound");
		if (!r.done.n)
			out_text(&ctx->out, "nothing to unbind\n");
		for (size_t i = 0; i < r.done.n; i++)
			nk_print_binding(&ctx->out, &r.done.v[i]);
		out_arr_close(&ctx->out);
		out_end(&ctx->out);
	}
	free(r.done.v);
	nk_binding_list_free(&l);
	return ret;
}
