/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmem bindings: the netdev family's bind-rx and bind-tx. A binding lives
 * as long as the netlink socket that made it; there is no unbind request.
 */
#ifndef NKCTL_DEVMEM_H
#define NKCTL_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

#include "genl.h"
#include "nl.h"

/* bind-rx of RX queues ids[0..n) of ifindex to dmabuf fd. rx_page_size 0:
 * the kernel's default (PAGE_SIZE). *id gets the binding id. */
int netdev_bind_rx(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		   const uint32_t *ids, size_t n, int fd, uint32_t rx_page_size,
		   uint32_t *id, struct nl_err *err);
int netdev_bind_tx(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		   int fd, uint32_t *id, struct nl_err *err);

#endif
