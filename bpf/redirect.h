/* SPDX-License-Identifier: GPL-2.0 */
/* The configuration of bpf/redirect.bpf.c, shared with nkctl/redirect.c. */
#ifndef NKCTL_BPF_REDIRECT_H
#define NKCTL_BPF_REDIRECT_H

#include <linux/types.h>

#define NK_REDIRECT_MAX_PREFIXES 16

/* Addresses and masks in network byte order; addr is already masked. */
struct nk_prefix4 {
	__u32 addr, mask;
};
struct nk_prefix6 {
	__u32 addr[4], mask[4];
};

struct nk_redirect_cfg {
	__u32 target_ifindex;
	__u32 keep_nd;          /* ICMPv6 ND stays local */
	__u32 n4, n6;
	struct nk_prefix4 p4[NK_REDIRECT_MAX_PREFIXES];
	struct nk_prefix6 p6[NK_REDIRECT_MAX_PREFIXES];
	/* the prefix lengths as the user gave them, for show */
	__u8 len4[NK_REDIRECT_MAX_PREFIXES];
	__u8 len6[NK_REDIRECT_MAX_PREFIXES];
};

#endif
