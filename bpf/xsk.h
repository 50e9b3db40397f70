/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of bpf/xsk.bpf.c, shared with nkctl/cli/xsk.c. One XDP program per
 * NIC hands the frames of leased queues that have an AF_XDP consumer to that
 * consumer's socket: nk_xsk_queues maps a physical RX queue to the XSK map of
 * the netkit device (the holder) that leases it, and nk_xsk_slots says at
 * which index of that map the socket sits (the holder's own queue id, as a
 * VMM inserts its sockets) and whose it is (for show, doctor and the sweep).
 */
#ifndef NKCTL_BPF_XSK_H
#define NKCTL_BPF_XSK_H

#include <linux/types.h>

/* Physical RX queues of one NIC: the default size of the NIC's maps, which
 * nkctl sets to the NIC's own count (IFLA_NUM_RX_QUEUES) before loading. */
#define NK_XSK_NIC_QUEUES 1024
/* A holder's queue ids: its XSK map's size. Every holder map of a NIC must
 * have the inner template's size (XSKMAP's map_meta_equal), so it is one
 * number for all: netkit's most, as rtnetlink caps IFLA_NUM_RX_QUEUES. */
#define NK_XSK_HOLDER_QUEUES 4096

/* One physical queue with an attach: the holder's queue id (its map index),
 * the holder's ifindex and its namespace's cookie; holder 0: none. */
struct nk_xsk_slot {
	__u32 slot;
	__u32 holder;
	__u64 holder_netns;
};

#endif
