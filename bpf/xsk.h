/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of bpf/xsk.bpf.c, shared with nkctl/xsk.c. One XDP program per
 * NIC hands the frames of leased queues that have an AF_XDP consumer to that
 * consumer's socket: nk_xsk_queues maps a physical RX queue to the XSK map of
 * the netkit device (the holder) that leases it, and nk_xsk_slots says at
 * which index of that map the socket sits (the holder's own queue id, as a
 * VMM inserts its sockets) and whose it is (for show, doctor and the sweep).
 */
#ifndef NKCTL_BPF_XSK_H
#define NKCTL_BPF_XSK_H

#include <linux/types.h>

#define NK_XSK_NIC_QUEUES 1024    /* physical RX queues of one NIC */
#define NK_XSK_HOLDER_QUEUES 256  /* a holder's queue ids: its XSK map's size */

/* One physical queue with an attach: the holder's queue id (its map index),
 * the holder's ifindex and its namespace's cookie; holder 0: none. */
struct nk_xsk_slot {
	__u32 slot;
	__u32 holder;
	__u64 holder_netns;
};

#endif
