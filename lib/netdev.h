/* SPDX-License-Identifier: GPL-2.0 */
/* The netdev generic netlink family: queues and NAPI instances. */
#ifndef NKCTL_NETDEV_H
#define NKCTL_NETDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "genl.h"
#include "args.h"
#include "nl.h"

enum {
	QUEUE_HAVE_NAPI = 1 << 0,
	QUEUE_HAVE_DMABUF = 1 << 1,
	QUEUE_HAVE_IO_URING = 1 << 2,
	QUEUE_HAVE_IO_URING_RX_BUF_LEN = 1 << 3,
	QUEUE_HAVE_XSK = 1 << 4,
	QUEUE_HAVE_LEASE = 1 << 5,
	QUEUE_HAVE_LEASE_NETNS_ID = 1 << 6,
	QUEUE_HAVE_LEASE_QUEUE = 1 << 7,
	/* a memory provider of any kind: devmem, io_uring zcrx, AF_XDP */
	QUEUE_HAVE_MP = QUEUE_HAVE_DMABUF | QUEUE_HAVE_IO_URING | QUEUE_HAVE_XSK,
};

/* ifindex comes first in both: run_of() in netdev.c relies on it. */
struct nk_queue {
	int ifindex;
	uint32_t id;
	uint32_t type;           /* NK_NETDEV_QUEUE_TYPE_* */
	unsigned int have;
	uint32_t napi_id;
	uint32_t dmabuf;
	uint32_t io_uring_rx_buf_len;
	int lease_ifindex;
	uint32_t lease_queue_id, lease_queue_type;
	int32_t lease_netns_id;
};

enum {
	NAPI_HAVE_IRQ = 1 << 0,
	NAPI_HAVE_PID = 1 << 1,
	NAPI_HAVE_THREADED = 1 << 2,
	NAPI_HAVE_DEFER = 1 << 3,
	NAPI_HAVE_GRO_FLUSH = 1 << 4,
	NAPI_HAVE_IRQ_SUSPEND = 1 << 5,
};

struct nk_napi {
	int ifindex;
	uint32_t id;
	unsigned int have;
	int32_t irq;
	uint32_t pid, threaded, defer_hard_irqs;
	uint64_t gro_flush_timeout, irq_suspend_timeout;
};

struct nk_queue_list { struct nk_queue *v; size_t n, cap; };
struct nk_napi_list { struct nk_napi *v; size_t n, cap; };

/* Dumps, sorted by (ifindex, type, id) and (ifindex, id). ifindex 0: all. */
int netdev_queue_dump(struct nl_sock *s, const struct genl_family *fam,
		      int ifindex, struct nk_queue_list *out, struct nl_err *err);
int netdev_napi_dump(struct nl_sock *s, const struct genl_family *fam,
		     int ifindex, struct nk_napi_list *out, struct nl_err *err);
/* Decode one queue-get / napi-get reply message, as the dumps do; -ENOENT
 * when it lacks the ifindex or id (the dumps skip such a message). */
int netdev_parse_queue(const struct nlmsghdr *nlh, struct nk_queue *q);
int netdev_parse_napi(const struct nlmsghdr *nlh, struct nk_napi *n);
/* The order the dumps return: (ifindex, type, id) and (ifindex, id). */
void nk_queue_list_sort(struct nk_queue_list *l);
void nk_napi_list_sort(struct nk_napi_list *l);
void nk_queue_list_free(struct nk_queue_list *l);
void nk_napi_list_free(struct nk_napi_list *l);
/* First queue of ifindex and how many follow it (0 when none). */
const struct nk_queue *nk_queues_of(const struct nk_queue_list *l, int ifindex,
				    size_t *count);
const struct nk_napi *nk_napis_of(const struct nk_napi_list *l, int ifindex,
				  size_t *count);

/* queue-create: lease RX queue phys_queue of phys_ifindex (in the netns the
 * socket knows as netns_id, or -1 for its own) into netkit nk_ifindex.
 * *new_id gets the queue id on the netkit device. */
int netdev_queue_create(struct nl_sock *s, const struct genl_family *fam,
			int nk_ifindex, int phys_ifindex, uint32_t phys_queue,
			int32_t netns_id, uint32_t *new_id, struct nl_err *err);

/* dev-get: the device's xdp-features (NETDEV_XDP_ACT_* bits). */
int netdev_dev_xdp_features(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			    uint64_t *features, struct nl_err *err);
/* The words of the netdev family's enums (args.h), for printing; an unknown
 * value prints as "unknown(N)" through nk_choice_name(). */
extern const struct nk_choice netdev_queue_type_words[];
extern const struct nk_choice netdev_napi_threaded_words[];

/* Attribute names of netdev requests, for extack paths. */
extern const struct nl_attr_space netdev_queue_space;
/* A queue-id nest {id, type}, as leases and bindings carry it. */
extern const struct nl_attr_space netdev_queue_id_space;
extern const struct nl_attr_space netdev_napi_space;

#endif
