// SPDX-License-Identifier: GPL-2.0
/*
 * nlerr: send deliberately malformed netdev requests to the real kernel and
 * print the one Error: line nkctl's lib/ makes of the reply, so the tests see
 * extack messages and attribute paths decoded (lib/nl.c) without nkctl's
 * preflight checks getting in the way.
 *
 *   nlerr type-range     queue-get with queue type 7      -> (type)
 *   nlerr missing-id     queue-get without a queue id     -> (missing attribute id)
 *   nlerr lease-type     queue-create, lease queue type 7 -> (lease.queue.type)
 */
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "compat.h"
#include "err.h"
#include "genl.h"
#include "netdev.h"
#include "nl.h"

int main(int argc, char **argv)
{
	struct genl_family fam = { 0 };
	struct nl_sock s;
	struct nl_err err;
	struct nlmsghdr *nlh;
	const struct nl_attr_space *space = &netdev_queue_space;
	uint8_t cmd = NK_NETDEV_CMD_QUEUE_GET;

	/* -j after the case: the report as nkctl -j writes it */
	if (argc == 3 && !strcmp(argv[2], "-j"))
		nk_report_json(true);
	else if (argc != 2)
		return nk_error(NK_EXIT_USAGE, "usage: nlerr type-range|missing-id|lease-type [-j]");
	if (nl_open(&s, NETLINK_GENERIC, &err) || genl_resolve(&s, "netdev", &fam, &err))
		return nk_error_nl(&err, "netdev family");
	if (!strcmp(argv[1], "lease-type"))
		cmd = NK_NETDEV_CMD_QUEUE_CREATE;
	if (!genl_has_op(&fam, cmd)) {
		nl_close(&s);
		return nk_error(NK_EXIT_UNSUPPORTED, "this kernel lacks the operation");
	}
	nlh = genl_msg(&s, &fam, cmd, NLM_F_ACK);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_IFINDEX, 1);
	if (!strcmp(argv[1], "type-range")) {
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_ID, 0);
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, 7);
	} else if (!strcmp(argv[1], "missing-id")) {
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, 0);
	} else if (!strcmp(argv[1], "lease-type")) {
		struct nlattr *lease, *q;

		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, 0);
		lease = mnl_attr_nest_start(nlh, NK_NETDEV_A_QUEUE_LEASE);
		mnl_attr_put_u32(nlh, NK_NETDEV_A_LEASE_IFINDEX, 1);
		q = mnl_attr_nest_start(nlh, NK_NETDEV_A_LEASE_QUEUE);
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_ID, 0);
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QUEUE_TYPE, 7);
		mnl_attr_nest_end(nlh, q);
		mnl_attr_nest_end(nlh, lease);
	} else {
		nl_close(&s);
		return nk_error(NK_EXIT_USAGE, "unknown case \"%s\"", argv[1]);
	}
	if (nl_talk(&s, nlh, GENL_HDRLEN, space, NULL, NULL, &err) == 0) {
		printf("accepted\n");
		nl_close(&s);
		return 0;
	}
	nl_close(&s);
	return nk_error_nl(&err, "%s", argv[1]);
}
