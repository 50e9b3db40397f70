// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl's steering programs, one object with two programs:
 *
 *   nk_neigh  pod egress: on the netkit primary (or its stand-in), send IPv4
 *             and IPv6 to target_ifindex with bpf_redirect_neigh(), which
 *             resolves the next hop in the host's FIB. Neighbour discovery
 *             (ICMPv6 133-137) and ARP stay local so the host still answers.
 *   nk_peer   pod ingress: on the NIC, hand packets whose destination is in
 *             one of the prefixes to the netkit primary target_ifindex with
 *             bpf_redirect_peer(), straight into the pod's namespace.
 *
 * Everything else returns TC_ACT_UNSPEC (tcx/netkit "next"): the kernel's
 * normal path. Configuration lives in .rodata, set by nkctl before load.
 * Headers are read relative to the network header, so L2 and L3 devices
 * (netkit mode l3 has no link-layer header) work alike.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "redirect.h"

const volatile struct nk_redirect_cfg cfg = {};

static __always_inline int match4(__u32 dst)
{
	if (!cfg.n4 && !cfg.n6)
		return 1;
	for (__u32 i = 0; i < NK_REDIRECT_MAX_PREFIXES; i++) {
		if (i >= cfg.n4)
			break;
		if ((dst & cfg.p4[i].mask) == cfg.p4[i].addr)
			return 1;
	}
	return 0;
}

static __always_inline int match6(const __u32 dst[4])
{
	if (!cfg.n4 && !cfg.n6)
		return 1;
	for (__u32 i = 0; i < NK_REDIRECT_MAX_PREFIXES; i++) {
		if (i >= cfg.n6)
			break;
		if ((dst[0] & cfg.p6[i].mask[0]) == cfg.p6[i].addr[0] &&
		    (dst[1] & cfg.p6[i].mask[1]) == cfg.p6[i].addr[1] &&
		    (dst[2] & cfg.p6[i].mask[2]) == cfg.p6[i].addr[2] &&
		    (dst[3] & cfg.p6[i].mask[3]) == cfg.p6[i].addr[3])
			return 1;
	}
	return 0;
}

/* 1 when the packet is IPv4/IPv6 for a configured destination; ND is not. */
static __always_inline int wanted(struct __sk_buff *skb)
{
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		__u32 dst;

		if (bpf_skb_load_bytes_relative(skb, 16, &dst, 4, BPF_HDR_START_NET))
			return 0;
		return match4(dst);
	}
	if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		__u8 nexthdr, type;
		__u32 dst[4];

		if (bpf_skb_load_bytes_relative(skb, 6, &nexthdr, 1, BPF_HDR_START_NET) ||
		    bpf_skb_load_bytes_relative(skb, 24, dst, 16, BPF_HDR_START_NET))
			return 0;
		if (nexthdr == 58 /* IPPROTO_ICMPV6 */ && cfg.keep_nd) {
			if (bpf_skb_load_bytes_relative(skb, 40, &type, 1, BPF_HDR_START_NET))
				return 0;
			if (type >= 133 && type <= 137)
				return 0; /* router/neighbour discovery, redirect */
		}
		return match6(dst);
	}
	return 0; /* ARP and the rest */
}

SEC("tc")
int nk_neigh(struct __sk_buff *skb)
{
	if (!wanted(skb))
		return TC_ACT_UNSPEC;
	return bpf_redirect_neigh(cfg.target_ifindex, NULL, 0, 0);
}

SEC("tc")
int nk_peer(struct __sk_buff *skb)
{
	if (!wanted(skb))
		return TC_ACT_UNSPEC;
	return bpf_redirect_peer(cfg.target_ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";
