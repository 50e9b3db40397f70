// SPDX-License-Identifier: GPL-2.0
/* nkctl/core/linkdel.c: every device's result comes back from its worker,
 * and no worker reads or leaves anything on the parent's socket. */
#include "unit.h"
#include "nlunread.h"

#include <errno.h>
#include <limits.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "core/linkdel.h"

/* Devices no namespace has: each answer is the kernel's refusal (ENODEV,
 * or EPERM without CAP_NET_ADMIN), nothing deleted. A reply left unread
 * on the parent's socket before is still there after: a worker talking
 * on that socket would have read it (nl_talk drops a stale reply), and a
 * worker killed there would have left its own. */
static void workers_talk_on_sockets_of_their_own(void **state)
{
	struct nk_link_del d[3] = { 0 };
	struct nk_ctx ctx;
	struct nk_ns *ns;
	struct nl_sock *s;
	ssize_t before;

	(void)state;
	nk_ctx_init(&ctx);
	assert_int_equal(nk_ns_here(&ctx, &ns), 0);
	assert_int_equal(nk_ns_rtnl(ns, &s), 0);
	assert_true(send_unread(s));
	before = unread_on(s);
	assert_true(before > 0);
	for (size_t i = 0; i < 3; i++)
		d[i] = (struct nk_link_del){ .ns = ns, .ifindex = INT_MAX - (int)i };
	nk_links_del(&ctx, d, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_true(d[i].ret < 0);
		assert_int_not_equal(d[i].ret, -ECHILD);  /* a worker answered */
		assert_int_equal(d[i].err.code, -d[i].ret);
	}
	assert_true(nl_is_open(&ns->rtnl));
	assert_int_equal(unread_on(s), before);
	nk_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(workers_talk_on_sockets_of_their_own),
	};

	return cmocka_run_group_tests_name("linkdel", tests, NULL, NULL);
}
