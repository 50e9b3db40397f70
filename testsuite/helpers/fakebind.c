// SPDX-License-Identifier: GPL-2.0
/*
 * Test double for the one step no NIC here can do: bind-rx/bind-tx are
 * answered with a made-up binding id instead of asking the kernel (whose
 * refusals the real nkctl is tested against). Linked into
 * build/helpers/nkctl-fakebind, never installed, so that the holder, its
 * state files, show bindings, unbind and "-- CMD" run for real around a
 * real dmabuf. The id is far above what the kernel hands out and unique per
 * process, so parallel tests do not collide.
 */
#include <unistd.h>

#include "devmem.h"

static uint32_t fake_id(void)
{
	return 0x40000000u | ((uint32_t)getpid() & 0x3fffffffu);
}

int netdev_bind_rx(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		   const uint32_t *ids, size_t n, int fd, uint32_t rx_page_size,
		   uint32_t *id, struct nl_err *err)
{
	(void)s; (void)fam; (void)ifindex; (void)ids; (void)n; (void)fd;
	(void)rx_page_size; (void)err;
	*id = fake_id();
	return 0;
}

int netdev_bind_tx(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		   int fd, uint32_t *id, struct nl_err *err)
{
	(void)s; (void)fam; (void)ifindex; (void)fd; (void)err;
	*id = fake_id();
	return 0;
}
