// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "compat.h"
#include "netdev.h"

static const struct nl_attr_desc queue_id_attrs[] = {
	{ NK_NETDEV_A_QUEUE_ID, "id", NULL , 0 },
	{ NK_NETDEV_A_QUEUE_TYPE, "type", NULL , 0 },
};
const struct nl_attr_space netdev_queue_id_space = NL_SPACE(queue_id_attrs);
static const struct nl_attr_desc lease_attrs[] = {
	{ NK_NETDEV_A_LEASE_IFINDEX, "ifindex", NULL , 0 },
	{ NK_NETDEV_A_LEASE_QUEUE, "queue", &netdev_queue_id_space , 0 },
	{ NK_NETDEV_A_LEASE_NETNS_ID, "netns-id", NULL , 0 },
};
static const struct nl_attr_space lease_space = NL_SPACE(lease_attrs);
static const struct nl_attr_desc queue_attrs[] = {
	{ NK_NETDEV_A_QUEUE_ID, "id", NULL , 0 },
	{ NK_NETDEV_A_QUEUE_IFINDEX, "ifindex", NULL , 0 },
	{ NK_NETDEV_A_QUEUE_TYPE, "type", NULL , 0 },
	{ NK_NETDEV_A_QUEUE_LEASE, "lease", &lease_space , 0 },
};
const struct nl_attr_space netdev_queue_space = NL_SPACE(queue_attrs);
static const struct nl_attr_desc create_attrs[] = {
	{ NK_NETDEV_A_QUEUE_IFINDEX, "ifindex", NULL, 0 },
	{ NK_NETDEV_A_QUEUE_TYPE, "type", NULL, 0 },
	{ NK_NETDEV_A_QUEUE_LEASE, "lease", &lease_space, 0 },
};
static const struct nl_attr_space create_space = NL_SPACE(create_attrs);
static const struct nl_attr_desc napi_attrs[] = {
	{ NK_NETDEV_A_NAPI_IFINDEX, "ifindex", NULL , 0 },
	{ NK_NETDEV_A_NAPI_ID, "id", NULL , 0 },
};
const struct nl_attr_space netdev_napi_space = NL_SPACE(napi_attrs);

const struct nk_choice netdev_queue_type_words[] = {
	{ "rx", NK_NETDEV_QUEUE_TYPE_RX, NULL }, { "tx", NK_NETDEV_QUEUE_TYPE_TX, NULL },
	{ NULL, 0, NULL },
};

const struct nk_choice netdev_napi_threaded_words[] = {
	{ "disabled", 0, NULL }, { "enabled", 1, NULL }, { "busy-poll", 2, NULL },
	{ NULL, 0, NULL },
};

static void parse_lease(struct nk_queue *q, const struct nlattr *nest)
{
	struct nl_attrs a, qa;

	nl_parse_nested(&a, nest, NK_NETDEV_A_LEASE_MAX);
	q->have |= QUEUE_HAVE_LEASE;
	if (a.tb[NK_NETDEV_A_LEASE_IFINDEX])
		q->lease_ifindex = (int)nl_get_uint(a.tb[NK_NETDEV_A_LEASE_IFINDEX]);
	if (a.tb[NK_NETDEV_A_LEASE_NETNS_ID]) {
		q->lease_netns_id = (int32_t)nl_get_sint(a.tb[NK_NETDEV_A_LEASE_NETNS_ID]);
		q->have |= QUEUE_HAVE_LEASE_NETNS_ID;
	}
	if (a.tb[NK_NETDEV_A_LEASE_QUEUE]) {
		nl_parse_nested(&qa, a.tb[NK_NETDEV_A_LEASE_QUEUE], NK_NETDEV_A_QUEUE_TYPE);
		q->have |= QUEUE_HAVE_LEASE_QUEUE;
		if (qa.tb[NK_NETDEV_A_QUEUE_ID])
			q->lease_queue_id = (uint32_t)nl_get_uint(qa.tb[NK_NETDEV_A_QUEUE_ID]);
		if (qa.tb[NK_NETDEV_A_QUEUE_TYPE])
			q->lease_queue_type = (uint32_t)nl_get_uint(qa.tb[NK_NETDEV_A_QUEUE_TYPE]);
	}
}

int netdev_parse_queue(const struct nlmsghdr *nlh, struct nk_queue *q)
{
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_QUEUE_MAX);
	if (!a.tb[NK_NETDEV_A_QUEUE_IFINDEX] || !a.tb[NK_NETDEV_A_QUEUE_ID])
		return -ENOENT;
	memset(q, 0, sizeof(*q));
	q->ifindex = (int)nl_get_uint(a.tb[NK_NETDEV_A_QUEUE_IFINDEX]);
	q->id = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QUEUE_ID]);
	if (a.tb[NK_NETDEV_A_QUEUE_TYPE])
		q->type = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QUEUE_TYPE]);
	if (a.tb[NK_NETDEV_A_QUEUE_NAPI_ID]) {
		q->napi_id = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QUEUE_NAPI_ID]);
		q->have |= QUEUE_HAVE_NAPI;
	}
	if (a.tb[NK_NETDEV_A_QUEUE_DMABUF]) {
		q->dmabuf = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QUEUE_DMABUF]);
		q->have |= QUEUE_HAVE_DMABUF;
	}
	if (a.tb[NK_NETDEV_A_QUEUE_IO_URING]) {
		struct nl_attrs io;

		q->have |= QUEUE_HAVE_IO_URING;
		nl_parse_nested(&io, a.tb[NK_NETDEV_A_QUEUE_IO_URING],
				NK_NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN);
		if (io.tb[NK_NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN]) {
			q->io_uring_rx_buf_len = (uint32_t)nl_get_uint(
				io.tb[NK_NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN]);
			q->have |= QUEUE_HAVE_IO_URING_RX_BUF_LEN;
		}
	}
	if (a.tb[NK_NETDEV_A_QUEUE_XSK])
		q->have |= QUEUE_HAVE_XSK;
	if (a.tb[NK_NETDEV_A_QUEUE_LEASE])
		parse_lease(q, a.tb[NK_NETDEV_A_QUEUE_LEASE]);
	return 0;
}

static int parse_queue(const struct nlmsghdr *nlh, void *q)
{
	return netdev_parse_queue(nlh, q);
}

int netdev_parse_napi(const struct nlmsghdr *nlh, struct nk_napi *n)
{
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_NAPI_MAX);
	if (!a.tb[NK_NETDEV_A_NAPI_IFINDEX] || !a.tb[NK_NETDEV_A_NAPI_ID])
		return -ENOENT;
	memset(n, 0, sizeof(*n));
	n->ifindex = (int)nl_get_uint(a.tb[NK_NETDEV_A_NAPI_IFINDEX]);
	n->id = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_NAPI_ID]);
	if (a.tb[NK_NETDEV_A_NAPI_IRQ]) {
		n->irq = (int32_t)nl_get_sint(a.tb[NK_NETDEV_A_NAPI_IRQ]);
		n->have |= NAPI_HAVE_IRQ;
	}
	if (a.tb[NK_NETDEV_A_NAPI_PID]) {
		n->pid = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_NAPI_PID]);
		n->have |= NAPI_HAVE_PID;
	}
	if (a.tb[NK_NETDEV_A_NAPI_THREADED]) {
		n->threaded = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_NAPI_THREADED]);
		n->have |= NAPI_HAVE_THREADED;
	}
	if (a.tb[NK_NETDEV_A_NAPI_DEFER_HARD_IRQS]) {
		n->defer_hard_irqs = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_NAPI_DEFER_HARD_IRQS]);
		n->have |= NAPI_HAVE_DEFER;
	}
	if (a.tb[NK_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT]) {
		n->gro_flush_timeout = nl_get_uint(a.tb[NK_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT]);
		n->have |= NAPI_HAVE_GRO_FLUSH;
	}
	if (a.tb[NK_NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT]) {
		n->irq_suspend_timeout = nl_get_uint(a.tb[NK_NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT]);
		n->have |= NAPI_HAVE_IRQ_SUSPEND;
	}
	return 0;
}

static int parse_napi(const struct nlmsghdr *nlh, void *n)
{
	return netdev_parse_napi(nlh, n);
}

static int cmp_queue(const void *a, const void *b)
{
	const struct nk_queue *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_napi(const void *a, const void *b)
{
	const struct nk_napi *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void nk_queue_list_sort(struct nk_queue_list *l)
{
	nk_sort(l->v, l->n, sizeof(*l->v), cmp_queue);
}

void nk_napi_list_sort(struct nk_napi_list *l)
{
	nk_sort(l->v, l->n, sizeof(*l->v), cmp_napi);
}

/* One dump request of cmd, optionally filtered by an ifindex attribute. */
static int netdev_dump(struct nl_sock *s, const struct genl_family *fam,
		       uint8_t cmd, uint16_t ifindex_attr, int ifindex,
		       const struct nl_attr_space *space, struct nl_collect *c,
		       struct nl_err *err)
{
	struct nlmsghdr *nlh;

	if (!genl_has_op(fam, cmd))
		return 0; /* an older kernel: nothing to list */
	nlh = genl_msg(s, fam, cmd, NLM_F_DUMP);
	if (ifindex)
		mnl_attr_put_u32(nlh, ifindex_attr, (uint32_t)ifindex);
	return nl_talk(s, nlh, GENL_HDRLEN, space, nl_collect_cb, c, err);
}

int netdev_queue_dump(struct nl_sock *s, const struct genl_family *fam,
		      int ifindex, struct nk_queue_list *out, struct nl_err *err)
{
	struct nl_collect c = NL_COLLECT(out, parse_queue, 0);

	nl_collect_begin(&c);
	return nl_collect_end(&c, netdev_dump(s, fam, NK_NETDEV_CMD_QUEUE_GET,
					      NK_NETDEV_A_QUEUE_IFINDEX, ifindex,
					      &netdev_queue_space, &c, err), cmp_queue);
}

int netdev_napi_dump(struct nl_sock *s, const struct genl_family *fam,
		     int ifindex, struct nk_napi_list *out, struct nl_err *err)
{
	struct nl_collect c = NL_COLLECT(out, parse_napi, 0);

	nl_collect_begin(&c);
	return nl_collect_end(&c, netdev_dump(s, fam, NK_NETDEV_CMD_NAPI_GET,
					      NK_NETDEV_A_NAPI_IFINDEX, ifindex,
					      &netdev_napi_space, &c, err), cmp_napi);
}

static int create_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_QUEUE_MAX);
	if (!a.tb[NK_NETDEV_A_QUEUE_ID])
		return -EPROTO;
	*(uint32_t *)data = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QUEUE_ID]);
	return 0;
}

int netdev_queue_create(struct nl_sock *s, const struct genl_family *fam,
			int nk_ifindex, int phys_ifindex, uint32_t phys_queue,
			int32_t netns_id, uint32_t *new_id, struct nl_err *err)
{
	struct nlmsghdr *nlh = genl_msg(s, fam, NK_NETDEV_CMD_QUEUE_CREATE, NLM_F_ACK);
	struct nlattr *lease, *queue;

	mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_IFINDEX, (uint32_t)nk_ifindex);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, NK_NETDEV_QUEUE_TYPE_RX);
	/* mnl_attr_nest_start sets NLA_F_NESTED, which the kernel requires. */
	lease = mnl_attr_nest_start(nlh, NK_NETDEV_A_QUEUE_LEASE);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_LEASE_IFINDEX, (uint32_t)phys_ifindex);
	queue = mnl_attr_nest_start(nlh, NK_NETDEV_A_LEASE_QUEUE);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_ID, phys_queue);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, NK_NETDEV_QUEUE_TYPE_RX);
	mnl_attr_nest_end(nlh, queue);
	if (netns_id >= 0)
		mnl_attr_put_u32(nlh, NK_NETDEV_A_LEASE_NETNS_ID, (uint32_t)netns_id);
	mnl_attr_nest_end(nlh, lease);
	*new_id = UINT32_MAX;
	return nl_talk(s, nlh, GENL_HDRLEN, &create_space, create_cb, new_id, err);
}

static const struct nl_attr_desc dev_attrs[] = {
	{ NK_NETDEV_A_DEV_IFINDEX, "ifindex", NULL, 0 },
};
static const struct nl_attr_space dev_space = NL_SPACE(dev_attrs);

static int dev_xdp_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_DEV_XDP_FEATURES);
	if (a.tb[NK_NETDEV_A_DEV_XDP_FEATURES])
		*(uint64_t *)data = nl_get_uint(a.tb[NK_NETDEV_A_DEV_XDP_FEATURES]);
	return 0;
}

int netdev_dev_xdp_features(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			    uint64_t *features, struct nl_err *err)
{
	struct nlmsghdr *nlh = genl_msg(s, fam, NK_NETDEV_CMD_DEV_GET, NLM_F_ACK);

	mnl_attr_put_u32(nlh, NK_NETDEV_A_DEV_IFINDEX, (uint32_t)ifindex);
	*features = 0;
	return nl_talk(s, nlh, GENL_HDRLEN, &dev_space, dev_xdp_cb, features, err);
}

void nk_queue_list_free(struct nk_queue_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void nk_napi_list_free(struct nk_napi_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * Lists are sorted by ifindex, the first member of both element types:
 * binary search for the first element of ifindex and count the run.
 */
static const void *run_of(const void *base, size_t n, size_t size, int ifindex,
			  size_t *count)
{
	const char *v = base;
	size_t lo = 0, hi = n, end;

#define IFINDEX_AT(i) (*(const int *)(v + (i) * size))
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (IFINDEX_AT(mid) < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && IFINDEX_AT(end) == ifindex; end++)
		;
#undef IFINDEX_AT
	*count = end - lo;
	return *count ? v + lo * size : NULL;
}

const struct nk_queue *nk_queues_of(const struct nk_queue_list *l, int ifindex,
				    size_t *count)
{
	return run_of(l->v, l->n, sizeof(*l->v), ifindex, count);
}

const struct nk_napi *nk_napis_of(const struct nk_napi_list *l, int ifindex,
				  size_t *count)
{
	return run_of(l->v, l->n, sizeof(*l->v), ifindex, count);
}
