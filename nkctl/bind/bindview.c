// SPDX-License-Identifier: GPL-2.0
/*
 * The bindings as nkctl sees them, read-only: holders' state files joined
 * with what the kernel's queue-get says (its dmabuf attribute shows RX
 * bindings nkctl did not make, too), and how one is printed. Read by show
 * bindings and unbind (bind.c), show, monitor and doctor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bindings.h"
#include "bind/bindstate.h"
#include "bind/bindview.h"
#include "compat.h"
#include "netdev.h"
#include "rtnl.h"

const char *nk_size_word(uint64_t size, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	uint64_t v = size;
	int u = -1;

	while (u < 3 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	if (u >= 0)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void print_size(struct out *o, uint64_t size)
{
	char word[32];

	out_uint(o, "size", NULL, size);
	out_text(o, " %s", nk_size_word(size, word, sizeof(word)));
}

void nk_print_binding(struct out *o, const struct nk_binding *b)
{
	nk_print_binding_as(o, NULL, b);
}

void nk_print_binding_as(struct out *o, const char *key, const struct nk_binding *b)
{
	out_obj_open(o, key);
	out_uint(o, "id", "binding %llu", b->id);
	out_str(o, "direction", " %s", b->rx ? "rx" : "tx");
	out_uint(o, "ifindex", NULL, (unsigned int)b->ifindex);
	out_str(o, "ifname", " dev %s", b->ifname);
	if (b->netns[0])
		out_str(o, "netns", " (netns %s)", b->netns);
	if (b->rx) {
		out_arr_open(o, "queues");
		out_text(o, " queues");
		for (size_t i = 0; i < b->nqueues; i++) {
			out_obj_open(o, NULL);
			out_uint(o, "id", i ? ",%llu" : " %llu", b->queues[i]);
			out_str(o, "type", NULL, "rx");
			out_obj_close(o);
		}
		out_arr_close(o);
		if (b->rx_page_size)
			out_uint(o, "rx-page-size", " rx-page-size %llu", b->rx_page_size);
	}
	if (b->have_phys) {
		out_obj_open(o, "phys");
		out_uint(o, "ifindex", NULL, (unsigned int)b->phys_ifindex);
		out_str(o, "ifname", " via %s", b->phys_ifname);
		if (b->phys_netns[0])
			out_str(o, "netns", " (netns %s)", b->phys_netns);
		out_obj_close(o);
	}
	if (b->have_dmabuf) {
		out_obj_open(o, "dmabuf");
		out_str(o, "source", " dmabuf %s", nk_dmabuf_kind_name(b->kind));
		if (b->kind == NK_DMABUF_HEAP)
			out_str(o, "heap", " %s", b->heap);
		print_size(o, b->size);
		out_bool(o, "hugepages", NULL, b->hugepages);
		if (b->hugepages)
			out_text(o, " hugepages");
		out_obj_close(o);
	}
	if (b->held) {
		out_obj_open(o, "holder");
		out_uint(o, "pid", " holder pid %llu", (unsigned int)b->pid);
		out_str(o, "mode", " (%s)", nk_hold_mode_name(b->mode));
		out_bool(o, "alive", NULL, b->alive);
		if (!b->alive)
			out_text(o, " STALE: the holder is gone");
		out_obj_close(o);
	} else {
		out_text(o, " (not made by nkctl)");
	}
	out_text(o, "\n");
	out_obj_close(o);
}

static struct nk_binding *list_find(struct nk_binding_list *l, uint32_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].id == id)
			return &l->v[i];
	return NULL;
}

/* Queue q of dev shows binding q->dmabuf: add it, or add to it. */
static int note_queue_binding(struct nk_binding_list *l, const struct nk_queue *q,
			      const struct nk_link *dev)
{
	struct nk_binding *b = list_find(l, q->dmabuf);

	if (b && b->held)
		return 0;
	if (!b) {
		b = nk_grow(&l->v, &l->n, &l->cap, sizeof(*b));
		if (!b)
			return nk_error_errno(ENOMEM, "cannot list bindings");
		memset(b, 0, sizeof(*b));
		b->id = q->dmabuf;
		b->rx = true;
	} else if (b->ifindex != dev->ifindex && nk_link_is_netkit(dev)) {
		/* The netkit device is the one bound: the first one seen was the NIC. */
		b->have_phys = true;
		b->phys_ifindex = b->ifindex;
		snprintf(b->phys_ifname, sizeof(b->phys_ifname), "%s", b->ifname);
		b->nqueues = 0;
	} else if (b->ifindex != dev->ifindex) {
		b->have_phys = true;
		b->phys_ifindex = dev->ifindex;
		snprintf(b->phys_ifname, sizeof(b->phys_ifname), "%s", dev->ifname);
		return 0;
	}
	b->ifindex = dev->ifindex;
	snprintf(b->ifname, sizeof(b->ifname), "%s", dev->ifname);
	if (b->nqueues < NK_BIND_MAX_QUEUES)
		b->queues[b->nqueues++] = q->id;
	return 0;
}

/*
 * Add the RX bindings queue-get shows in this namespace that no state file
 * knows. A leased queue shows its binding on the netkit device and on the
 * NIC: the netkit device is the bound one, the NIC the DMA device.
 */
static int add_kernel_bindings(struct nk_ctx *ctx, struct nk_binding_list *l,
			       bool *kernel_ok)
{
	const struct genl_family *fam;
	struct nk_link_list links;
	struct nk_queue_list ql;
	struct nl_sock *rt, *gn;
	struct nl_err err;
	int ret;

	*kernel_ok = false;
	ret = nk_ctx_rtnl(ctx, &rt);
	if (!ret)
		ret = nk_ctx_netdev(ctx, &gn, &fam);
	if (ret)
		return ret;
	if (!genl_has_op(fam, NK_NETDEV_CMD_QUEUE_GET))
		return 0;
	if (rtnl_link_dump(rt, &links, &err))
		return nk_error_nl(&err, "cannot list devices");
	if (netdev_queue_dump(gn, fam, 0, &ql, &err)) {
		nk_link_list_free(&links);
		return nk_error_nl(&err, "cannot list queues");
	}
	*kernel_ok = true;
	for (size_t i = 0; i < ql.n && !ret; i++) {
		const struct nk_link *dev = nk_link_find(&links, ql.v[i].ifindex);

		if ((ql.v[i].have & QUEUE_HAVE_DMABUF) && dev)
			ret = note_queue_binding(l, &ql.v[i], dev);
	}
	nk_queue_list_free(&ql);
	nk_link_list_free(&links);
	return ret;
}

/* The bindings of the command's namespace: state files, then the kernel's. */
int nk_bindings_load(struct nk_ctx *ctx, struct nk_binding_list *out, bool *kernel_ok)
{
	struct nk_binding_list all;
	struct nk_ns *here;
	int ret = nk_ns_here(ctx, &here);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	ret = nk_binding_states(&all);
	if (ret)
		return nk_error_errno(-ret, "cannot read %s", NK_BIND_STATE_DIR);
	for (size_t i = 0; i < all.n; i++) {
		struct nk_binding *b;

		if (!nk_ns_is(here, all.v[i].ns_dev, all.v[i].ns_ino))
			continue;
		b = nk_grow(&out->v, &out->n, &out->cap, sizeof(*b));
		if (!b) {
			nk_binding_list_free(&all);
			return nk_error_errno(ENOMEM, "cannot list bindings");
		}
		*b = all.v[i];
	}
	nk_binding_list_free(&all);
	ret = add_kernel_bindings(ctx, out, kernel_ok);
	if (ret) {
		nk_binding_list_free(out);
		return ret;
	}
	nk_binding_sort(out);
	return 0;
}
