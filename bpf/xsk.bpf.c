// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl's AF_XDP program, attached to a physical NIC (native XDP where the
 * driver has it, else generic): a frame received on a physical queue that a
 * netkit holder leases and that "nkctl xsk attach" prepared goes to the
 * socket in the holder's XSK map at the holder's queue id; the kernel accepts
 * it for a socket bound to (holder, that queue) because the queue is leased
 * (xsk_dev_queue_valid). A frame of any other queue, or of a prepared queue
 * whose map slot is still empty (no consumer yet), goes to the stack.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xsk.h"

struct nk_xsk_inner {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, NK_XSK_HOLDER_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, NK_XSK_NIC_QUEUES);
	__type(key, __u32);
	__array(values, struct nk_xsk_inner);
} nk_xsk_queues SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NK_XSK_NIC_QUEUES);
	__type(key, __u32);
	__type(value, struct nk_xsk_slot);
} nk_xsk_slots SEC(".maps");

SEC("xdp")
int nk_xsk(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;
	struct nk_xsk_slot *s;
	void *xsks;

	s = bpf_map_lookup_elem(&nk_xsk_slots, &queue);
	if (!s || !s->holder)
		return XDP_PASS;
	xsks = bpf_map_lookup_elem(&nk_xsk_queues, &queue);
	if (!xsks)
		return XDP_PASS;
	return bpf_redirect_map(xsks, s->slot, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
