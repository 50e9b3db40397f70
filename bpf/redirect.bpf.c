// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl's steering programs, one object with two programs that share the
 * route tables (LPM tries, one per address family):
 *
 *   nk_neigh  pod egress: on the netkit primary (or its stand-in), send
 *             IPv4/IPv6 packets to their route's target (the NIC) with
 *             bpf_redirect_neigh(), which resolves the next hop in the host's
 *             FIB; unless the host's FIB says the destination is on the link
 *             of another device (another pod's primary on this node): that
 *             packet takes the host's path, never the wire. The frames a
 *             VMM's AF_XDP socket sends in copy mode from the peer arrive
 *             bare (no protocol): they are received again, which gives them
 *             one, then go the same way (bare_frame_again).
 *   nk_peer   pod ingress: on the NIC, hand packets to their route's target
 *             (a netkit primary) with bpf_redirect_peer(), straight into the
 *             pod's namespace.
 *
 * The longest matching prefix wins, as in the kernel's FIB. Neighbour and
 * router discovery (ICMPv6 133-137) and ARP are never taken, so the host still
 * answers them. A route's target is looked up in nk_devs, a device map: its
 * entry holds the device itself, and the kernel deletes it when that device
 * unregisters, so a route whose target is gone does not match (the packet
 * takes the normal path instead of being dropped), not even when a new device
 * gets the old ifindex: nkctl alone adds entries, for devices it identified.
 * Everything else returns TC_ACT_UNSPEC (tcx/netkit "next"). Headers are read
 * relative to the network header, so L2 and L3 devices work alike.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <stdbool.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "redirect.h"

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, NK_ROUTES_MAX);
	__type(key, struct nk_lpm4);
	__type(value, struct nk_route);
} nk_routes4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, NK_ROUTES_MAX);
	__type(key, struct nk_lpm6);
	__type(value, struct nk_route);
} nk_routes6 SEC(".maps");

/* Not read here: nkctl's bookkeeping, created and pinned with the others. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, NK_TARGETS_MAX);
	__type(key, __u32);
	__type(value, struct nk_target);
} nk_targets SEC(".maps");

/* The targets that are live: ifindex -> ifindex, as the kernel keeps it. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, NK_TARGETS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} nk_devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nk_hook_info);
} nk_info SEC(".maps");

/* A frame that an AF_XDP socket sent in copy mode from a netkit peer (a
 * VMM's transmit, see nk_neigh) reaches the primary's ingress with no
 * protocol: nothing read its Ethernet header (netkit passes a frame on as
 * it is). Its network header is set (the receive path set it after the
 * Ethernet header), and its IP version says its family. Received, so that a
 * packet on its way out (no network header yet) is never read as one. */
static __always_inline bool is_bare_frame(struct __sk_buff *skb)
{
	return skb->protocol == 0 && skb->ingress_ifindex;
}

/* The packet's address family, 4 or 6, or 0 for anything else. */
static __always_inline int family(struct __sk_buff *skb)
{
	__u8 ver;

	if (skb->protocol == bpf_htons(ETH_P_IP))
		return 4;
	if (skb->protocol == bpf_htons(ETH_P_IPV6))
		return 6;
	if (!is_bare_frame(skb) ||
	    bpf_skb_load_bytes_relative(skb, 0, &ver, 1, BPF_HDR_START_NET))
		return 0;
	return ver >> 4 == 4 || ver >> 4 == 6 ? ver >> 4 : 0;
}

/* The target of the packet's route, or 0: not ours to take. */
static __always_inline __u32 route(struct __sk_buff *skb, int fam)
{
	struct nk_route *r = NULL;
	__u32 *dev;

	if (fam == 4) {
		struct nk_lpm4 k = { .prefixlen = 32 };

		if (bpf_skb_load_bytes_relative(skb, 16, k.addr, 4, BPF_HDR_START_NET))
			return 0;
		r = bpf_map_lookup_elem(&nk_routes4, &k);
	} else if (fam == 6) {
		struct nk_lpm6 k = { .prefixlen = 128 };
		__u8 nexthdr, type;

		if (bpf_skb_load_bytes_relative(skb, 6, &nexthdr, 1, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 24, k.addr, 16, BPF_HDR_START_NET))
			return 0;
		if (nexthdr == 58 /* IPPROTO_ICMPV6 */) {
			if (bpf_skb_load_bytes_relative(skb, 40, &type, 1, BPF_HDR_START_NET))
				return 0;
			if (type >= 133 && type <= 137)
				return 0; /* router/neighbour discovery, redirect */
		}
		r = bpf_map_lookup_elem(&nk_routes6, &k);
	}
	if (!r)
		return 0; /* ARP, the rest, and no route */
	/* A target that is gone (or only its ifindex reused): the normal
	 * path, not a drop. */
	dev = bpf_map_lookup_elem(&nk_devs, &r->ifindex);
	return dev ? *dev : 0;
}

/* Is dst on the link of a device other than target in the host's FIB (a
 * route without a gateway: what the host has for a pod of this node, its
 * address through the pod's primary)? Routes through a gateway, no route,
 * and a lookup the kernel refuses (forwarding off) all say no: the packet
 * goes to target as routed. One FIB lookup rather than every pod's prefix
 * in every pod's table: the host's routes are the node's pod table. */
static __always_inline bool on_other_link(struct __sk_buff *skb, int fam, __u32 target)
{
	struct bpf_fib_lookup fib = { .ifindex = skb->ifindex };
	struct nk_hook_info *info;
	__u32 key = 0, dst[4];
	long ret;

	info = bpf_map_lookup_elem(&nk_info, &key);
	if (info && info->ifindex)
		fib.ifindex = info->ifindex; /* the primary, in the host's namespace */
	if (fam == 4) {
		fib.family = 2 /* AF_INET */;
		if (bpf_skb_load_bytes_relative(skb, 12, &fib.ipv4_src, 4, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 16, &fib.ipv4_dst, 4, BPF_HDR_START_NET))
			return false;
	} else {
		fib.family = 10 /* AF_INET6 */;
		if (bpf_skb_load_bytes_relative(skb, 8, fib.ipv6_src, 16, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 24, fib.ipv6_dst, 16, BPF_HDR_START_NET))
			return false;
	}
	__builtin_memcpy(dst, fib.ipv6_dst, sizeof(dst));
	ret = bpf_fib_lookup(skb, &fib, sizeof(fib),
			     BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_SKIP_NEIGH);
	if ((ret != BPF_FIB_LKUP_RET_SUCCESS && ret != BPF_FIB_LKUP_RET_NO_NEIGH) ||
	    fib.ifindex == target)
		return false;
	/* The next hop is the destination itself: no gateway. */
	if (fib.family == 2)
		return fib.ipv4_dst == dst[0];
	return fib.ipv6_dst[0] == dst[0] && fib.ipv6_dst[1] == dst[1] &&
	       fib.ipv6_dst[2] == dst[2] && fib.ipv6_dst[3] == dst[3];
}

/* A bare frame (is_bare_frame) received again on the device it came in
 * on: bpf_redirect_neigh() needs the protocol, which a BPF program cannot
 * set, but the receive path does for a frame redirected to a device's
 * ingress (eth_type_trans, from the frame's own Ethernet header). The frame
 * comes back here with its protocol and takes the normal way. Only a frame
 * this hook would send on goes round (route() found its target), and only
 * once: the second time it has a protocol. */
static __always_inline long bare_frame_again(struct __sk_buff *skb)
{
	return bpf_redirect(skb->ifindex, BPF_F_INGRESS);
}

SEC("tc")
int nk_neigh(struct __sk_buff *skb)
{
	int fam = family(skb);
	__u32 target = fam ? route(skb, fam) : 0;

	if (!target)
		return TC_ACT_UNSPEC;
	if (skb->protocol == 0)
		return bare_frame_again(skb);
	if (on_other_link(skb, fam, target))
		return TC_ACT_UNSPEC;
	return bpf_redirect_neigh(target, NULL, 0, 0);
}

SEC("tc")
int nk_peer(struct __sk_buff *skb)
{
	int fam = family(skb);
	__u32 target = fam ? route(skb, fam) : 0;

	if (!target)
		return TC_ACT_UNSPEC;
	return bpf_redirect_peer(target, 0);
}

char LICENSE[] SEC("license") = "GPL";
