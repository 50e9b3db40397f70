// SPDX-License-Identifier: GPL-2.0
/* nkctl/core/ctx.c: nk_ctx_keep holds a last command's tables until the
 * exit, and nothing of a command that is not the process's last. */
#include "unit.h"

#include "ctx.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_line_keeps_nothing),
		cmocka_unit_test(last_command_keeps_until_full),
		cmocka_unit_test(null_takes_no_room),
	};

	return cmocka_run_group_tests_name("ctx", tests, NULL, NULL);
}
