// SPDX-License-Identifier: GPL-2.0
/* nkctl/core/ctx.c: nk_ctx_keep holds a last command's tables until the
 * exit, and nothing of a command that is not the process's last; a forked
 * child that disowns its parent's sockets leaves nothing on them. */
#include "unit.h"
#include "nlunread.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/rtnetlink.h>

#include "core/ctx.h"

static void batch_line_keeps_nothing(void **state)
{
	struct nk_ctx ctx;
	int x;

	(void)state;
	nk_ctx_init(&ctx);
	assert_false(nk_ctx_keep(&ctx, &x));
	assert_int_equal(ctx.nkept, 0);
}

static void last_command_keeps_until_full(void **state)
{
	struct nk_ctx ctx;
	int x[NK_CTX_KEPT_MAX + 1];

	(void)state;
	nk_ctx_init(&ctx);
	ctx.ends_process = true;
	for (size_t i = 0; i < NK_CTX_KEPT_MAX; i++)
		assert_true(nk_ctx_keep(&ctx, &x[i]));
	assert_ptr_equal(ctx.kept[NK_CTX_KEPT_MAX - 1], &x[NK_CTX_KEPT_MAX - 1]);
	/* full: the caller frees it itself */
	assert_false(nk_ctx_keep(&ctx, &x[NK_CTX_KEPT_MAX]));
	assert_int_equal(ctx.nkept, NK_CTX_KEPT_MAX);
}

static void null_takes_no_room(void **state)
{
	struct nk_ctx ctx;

	(void)state;
	nk_ctx_init(&ctx);
	ctx.ends_process = true;
	assert_true(nk_ctx_keep(&ctx, NULL));
	assert_int_equal(ctx.nkept, 0);
}

/* The child's exit status: 0 when it sent its unread request through the
 * socket it has (disown: one of its own, not its parent's parent_portid). */
static int child_leaves_a_reply(struct nk_ctx *ctx, struct nk_ns *ns, bool disown)
{
	uint32_t parent_portid = ns->rtnl.portid;
	struct nl_sock *s;
	struct nl_err err;
	int status = -1;
	pid_t pid = fork();

	if (!pid) {
		if (disown)
			nk_ctx_disown_sockets(ctx);
		if (nk_ns_rtnl_open(ns, &s, &err) || (disown && s->portid == parent_portid))
			_exit(2);
		_exit(send_unread(s) ? 0 : 3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* What a child's request leaves on the parent's socket (-1: nothing);
 * with disown, the parent's socket still works after. */
static ssize_t reply_left(bool disown)
{
	struct nk_ctx ctx;
	struct nk_ns *ns;
	struct nl_sock *s;
	ssize_t left;

	nk_ctx_init(&ctx);
	assert_int_equal(nk_ns_here(&ctx, &ns), 0);
	assert_int_equal(nk_ns_rtnl(ns, &s), 0);
	assert_int_equal(child_leaves_a_reply(&ctx, ns, disown), 0);
	left = unread_on(s);
	if (disown) {
		assert_true(nl_is_open(&ns->rtnl));
		assert_true(send_unread(s));
		assert_true(unread_on(s) > 0);
	}
	nk_ctx_release(&ctx);
	return left;
}

/* what the next test would miss were the probe blind */
static void shared_socket_keeps_childs_reply(void **state)
{
	(void)state;
	assert_true(reply_left(false) > 0);
}

static void disowned_child_leaves_nothing(void **state)
{
	(void)state;
	assert_true(reply_left(true) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_line_keeps_nothing),
		cmocka_unit_test(last_command_keeps_until_full),
		cmocka_unit_test(null_takes_no_room),
		cmocka_unit_test(shared_socket_keeps_childs_reply),
		cmocka_unit_test(disowned_child_leaves_nothing),
	};

	return cmocka_run_group_tests_name("ctx", tests, NULL, NULL);
}
