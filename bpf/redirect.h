/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of bpf/redirect.bpf.c, shared with nkctl/cli/redirect.c. One program
 * per (device, hook) routes by destination address: an LPM trie per address
 * family maps a prefix to its target's ifindex, and a device map holds the
 * targets that are live (the kernel drops a device's entry when it goes, so a
 * reused ifindex is never a target). nkctl keeps two more maps the program
 * does not read: the hook's own identity (for show once the device is gone)
 * and each target's prefixes (so a pod's routes are found without walking the
 * tries).
 */
#ifndef NKCTL_BPF_REDIRECT_H
#define NKCTL_BPF_REDIRECT_H

#include <linux/types.h>

#define NK_ROUTES_MAX 16384       /* routes per family and hook */
#define NK_TARGETS_MAX 4096       /* targets per hook */
#define NK_TARGET_PREFIXES 32     /* prefixes per target (both families) */
/* A record holds a target's old and new prefixes together while they change
 * (nkctl's crash order), so twice as many. */
#define NK_RECORD_PREFIXES (2 * NK_TARGET_PREFIXES)
#define NK_HWADDR_LEN 8
#define NK_NAME_LEN 16

/* LPM trie keys: prefix length, then the address in network byte order. */
struct nk_lpm4 {
	__u32 prefixlen;
	__u8 addr[4];
};
struct nk_lpm6 {
	__u32 prefixlen;
	__u8 addr[16];
};

/* A route: the target, and the route's own length (an exact-match check:
 * a lookup returns the longest match, which may be a shorter prefix). */
struct nk_route {
	__u32 ifindex;
	__u32 prefixlen;
};

struct nk_prefix {
	__u8 family;             /* 4 or 6 */
	__u8 len;
	__u8 pad[2];
	__u8 addr[16];
};

/* nk_targets: a target's prefixes, by its ifindex; the name and hardware
 * address as they were when the routes were set: a device that is gone is
 * named by them, and a new device that got the old ifindex does not match
 * them (its routes are defunct, not its). */
struct nk_target {
	__u32 ifindex;
	char ifname[NK_NAME_LEN];
	__u8 hwaddr_len;
	__u8 hwaddr[NK_HWADDR_LEN];
	__u8 pad[3];
	__u32 n;
	struct nk_prefix p[NK_RECORD_PREFIXES];
};

/* nk_info[0]: the device and hook the program was attached to; changing is
 * 1 while nkctl changes the routes (left at 1 by a writer that was killed:
 * the next one sweeps the table). */
struct nk_hook_info {
	__u32 ifindex;
	__u32 hook;
	__u32 action;
	char ifname[NK_NAME_LEN];
	__u32 changing;
};

#endif
