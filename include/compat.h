/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel constants that Debian bookworm's linux-libc-dev (6.1) lacks.
 *
 * Netlink core, nlctrl and IFLA_NUM_*_QUEUES are in bookworm's headers and
 * are used from there. Every name here carries an NK_ prefix so the header never collides with a newer
 * <linux/...> header that defines the same enumerators. Values were read from
 * the BTF and genl tables of the Debian 7.3.4 kernel (see doc/kernel-notes.md).
 */
#ifndef NKCTL_COMPAT_H
#define NKCTL_COMPAT_H

/* ---- netdev generic netlink family ("netdev", version 1) ---- */
#define NK_NETDEV_FAMILY_NAME "netdev"
enum {
	NK_NETDEV_CMD_DEV_GET = 1,
	NK_NETDEV_CMD_PAGE_POOL_GET = 5,
	NK_NETDEV_CMD_QUEUE_GET = 10,
	NK_NETDEV_CMD_NAPI_GET = 11,
	NK_NETDEV_CMD_QSTATS_GET = 12,
	NK_NETDEV_CMD_BIND_RX = 13,
	NK_NETDEV_CMD_NAPI_SET = 14,
	NK_NETDEV_CMD_BIND_TX = 15,
	NK_NETDEV_CMD_QUEUE_CREATE = 16,
	NK_NETDEV_CMD_MAX_KNOWN = 16,
};
enum {
	NK_NETDEV_A_QUEUE_ID = 1,
	NK_NETDEV_A_QUEUE_IFINDEX = 2,
	NK_NETDEV_A_QUEUE_TYPE = 3,
	NK_NETDEV_A_QUEUE_NAPI_ID = 4,
	NK_NETDEV_A_QUEUE_DMABUF = 5,
	NK_NETDEV_A_QUEUE_IO_URING = 6,
	NK_NETDEV_A_QUEUE_XSK = 7,
	NK_NETDEV_A_QUEUE_LEASE = 8,
	NK_NETDEV_A_QUEUE_MAX = 8,
};
enum { NK_NETDEV_QUEUE_TYPE_RX = 0, NK_NETDEV_QUEUE_TYPE_TX = 1 };
enum {
	NK_NETDEV_A_LEASE_IFINDEX = 1,
	NK_NETDEV_A_LEASE_QUEUE = 2,
	NK_NETDEV_A_LEASE_NETNS_ID = 3,
	NK_NETDEV_A_LEASE_MAX = 3,
};
enum { NK_NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN = 1 };
enum {
	NK_NETDEV_A_NAPI_IFINDEX = 1,
	NK_NETDEV_A_NAPI_ID = 2,
	NK_NETDEV_A_NAPI_IRQ = 3,
	NK_NETDEV_A_NAPI_PID = 4,
	NK_NETDEV_A_NAPI_DEFER_HARD_IRQS = 5,
	NK_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT = 6,
	NK_NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT = 7,
	NK_NETDEV_A_NAPI_THREADED = 8,
	NK_NETDEV_A_NAPI_MAX = 8,
};
enum {
	NK_NETDEV_A_DMABUF_IFINDEX = 1,
	NK_NETDEV_A_DMABUF_QUEUES = 2,
	NK_NETDEV_A_DMABUF_FD = 3,
	NK_NETDEV_A_DMABUF_ID = 4,
	NK_NETDEV_A_DMABUF_RX_PAGE_SIZE = 5,
};

/* ---- rtnetlink: link attributes newer than 6.1 and netkit ---- */
enum {
	NK_IFLA_NETKIT_PEER_INFO = 1,
	NK_IFLA_NETKIT_PRIMARY = 2,
	NK_IFLA_NETKIT_POLICY = 3,
	NK_IFLA_NETKIT_PEER_POLICY = 4,
	NK_IFLA_NETKIT_MODE = 5,
	NK_IFLA_NETKIT_SCRUB = 6,
	NK_IFLA_NETKIT_PEER_SCRUB = 7,
	NK_IFLA_NETKIT_HEADROOM = 8,
	NK_IFLA_NETKIT_TAILROOM = 9,
	NK_IFLA_NETKIT_PAIRING = 10,
	NK_IFLA_NETKIT_MAX = 10,
};
enum { NK_NETKIT_NEXT = -1, NK_NETKIT_PASS = 0, NK_NETKIT_DROP = 2, NK_NETKIT_REDIRECT = 7 };
enum { NK_NETKIT_L2 = 0, NK_NETKIT_L3 = 1 };
enum { NK_NETKIT_SCRUB_NONE = 0, NK_NETKIT_SCRUB_DEFAULT = 1 };
enum { NK_NETKIT_DEVICE_PAIR = 0, NK_NETKIT_DEVICE_SINGLE = 1 };

/* ---- BPF attach and link types newer than 6.1 ---- */
#define NK_BPF_TCX_INGRESS      46
#define NK_BPF_TCX_EGRESS       47
#define NK_BPF_NETKIT_PRIMARY   54
#define NK_BPF_NETKIT_PEER      55
#define NK_BPF_LINK_TYPE_TCX    11
#define NK_BPF_LINK_TYPE_NETKIT 13

/* ---- devmem socket API (asm-generic) ---- */
#define NK_SO_DEVMEM_LINEAR   78
#define NK_SO_DEVMEM_DMABUF   79
#define NK_SO_DEVMEM_DONTNEED 80
#define NK_MSG_SOCK_DEVMEM    0x2000000

/* ---- udmabuf and dma-heap ioctls ---- */
#define NK_UDMABUF_CREATE        0x40187542u
#define NK_UDMABUF_FLAGS_CLOEXEC 0x01
#define NK_DMA_HEAP_IOCTL_ALLOC  0xC0184800u
#define NK_DMA_BUF_IOCTL_SYNC    0x40086200u

#endif
