// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "compat.h"
#include "devmem.h"
#include "netdev.h"

static const struct nl_attr_desc dmabuf_attrs[] = {
	{ NK_NETDEV_A_DMABUF_IFINDEX, "ifindex", NULL, 0 },
	{ NK_NETDEV_A_DMABUF_QUEUES, "queues", &netdev_queue_id_space, 0 },
	{ NK_NETDEV_A_DMABUF_FD, "fd", NULL, 0 },
	{ NK_NETDEV_A_DMABUF_RX_PAGE_SIZE, "rx-page-size", NULL, 0 },
};
static const struct nl_attr_space dmabuf_space = NL_SPACE(dmabuf_attrs);

static int bind_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_DMABUF_RX_PAGE_SIZE);
	if (!a.tb[NK_NETDEV_A_DMABUF_ID])
		return -EPROTO;
	*(uint32_t *)data = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_DMABUF_ID]);
	return 0;
}

static int bind_send(struct nl_sock *s, struct nlmsghdr *nlh, uint32_t *id,
		     struct nl_err *err)
{
	*id = 0;
	return nl_talk(s, nlh, GENL_HDRLEN, &dmabuf_space, bind_cb, id, err);
}

int netdev_bind_rx(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		   const uint32_t *ids, size_t n, int fd, uint32_t rx_page_size,
		   uint32_t *id, struct nl_err *err)
{
	struct nlmsghdr *nlh = genl_msg(s, fam, NK_NETDEV_CMD_BIND_RX, NLM_F_ACK);

	mnl_attr_put_u32(nlh, NK_NETDEV_A_DMABUF_IFINDEX, (uint32_t)ifindex);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_DMABUF_FD, (uint32_t)fd);
	if (rx_page_size)
		mnl_attr_put_u32(nlh, NK_NETDEV_A_DMABUF_RX_PAGE_SIZE, rx_page_size);
	/* queues is a multi-attr: one nest per queue. */
	for (size_t i = 0; i < n; i++) {
		struct nlattr *q = mnl_attr_nest_start(nlh, NK_NETDEV_A_DMABUF_QUEUES);

		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_ID, ids[i]);
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, NK_NETDEV_QUEUE_TYPE_RX);
		mnl_attr_nest_end(nlh, q);
	}
	return bind_send(s, nlh, id, err);
}

int netdev_bind_tx(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		   int fd, uint32_t *id, struct nl_err *err)
{
	struct nlmsghdr *nlh = genl_msg(s, fam, NK_NETDEV_CMD_BIND_TX, NLM_F_ACK);

	mnl_attr_put_u32(nlh, NK_NETDEV_A_DMABUF_IFINDEX, (uint32_t)ifindex);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_DMABUF_FD, (uint32_t)fd);
	return bind_send(s, nlh, id, err);
}
