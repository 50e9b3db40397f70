// SPDX-License-Identifier: GPL-2.0
/* lib/err.c: the reports' sink. A collecting sink gets every report whole,
 * nothing dropped however long; its last error is the record's reason; the
 * other lines pass on to the sink before it. */
#include <errno.h>

#include "unit.h"

#include "err.h"

static void collects_whole_lines(void **state)
{
	struct nk_sink s = { 0 }, *was;
	char msg[16384];

	(void)state;
	was = nk_sink_use(&s);
	assert_int_equal(nk_error(NK_EXIT_EXISTS, "first %s", "error"), NK_EXIT_EXISTS);
	nk_warn("said meanwhile");
	assert_int_equal(nk_error_errno(ENODEV, "second"), NK_EXIT_NOTFOUND);
	assert_ptr_equal(nk_sink_use(was), &s);
	assert_string_equal(s.buf, "Error: first error\nWarning: said meanwhile\nError: second: No such device\n");
	assert_string_equal(nk_sink_last_error(&s, msg, sizeof(msg)), "second: No such device");
	nk_sink_free(&s);
	assert_null(s.buf);
}

static void nothing_dropped(void **state)
{
	struct nk_sink s = { 0 }, *was;
	char msg[16384], words[8192];
	size_t n = 0;

	(void)state;
	for (int i = 0; n + 16 < sizeof(words); i++)
		n += (size_t)snprintf(words + n, sizeof(words) - n, "word%d ", i);
	was = nk_sink_use(&s);
	nk_error(NK_EXIT_FAIL, "%s", words);
	nk_sink_use(was);
	assert_true(s.len > 4096);
	assert_non_null(nk_sink_last_error(&s, msg, sizeof(msg)));
	assert_int_equal(strlen(msg), strlen(words));
	nk_sink_free(&s);
}

static void passes_the_others_on(void **state)
{
	struct nk_sink outer = { 0 }, inner = { 0 }, *was;
	char msg[64];

	(void)state;
	was = nk_sink_use(&outer);
	nk_sink_use(&inner);
	nk_warn("kept");
	nk_error(NK_EXIT_FAIL, "the record's reason");
	nk_sink_use(&outer);
	nk_sink_pass_others(&inner);
	nk_sink_use(was);
	assert_string_equal(outer.buf, "Warning: kept\n");
	assert_string_equal(nk_sink_last_error(&inner, msg, sizeof(msg)), "the record's reason");
	assert_null(nk_sink_last_error(&outer, msg, sizeof(msg)));
	nk_sink_free(&inner);
	nk_sink_free(&outer);
}

static void one_line_whatever_the_words(void **state)
{
	struct nk_sink s = { 0 }, *was;

	(void)state;
	was = nk_sink_use(&s);
	nk_error(NK_EXIT_USAGE, "a\nb\tc");
	nk_sink_use(was);
	assert_string_equal(s.buf, "Error: a\\nb\\tc\n");
	nk_sink_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(collects_whole_lines),
		cmocka_unit_test(nothing_dropped),
		cmocka_unit_test(passes_the_others_on),
		cmocka_unit_test(one_line_whatever_the_words),
	};

	return cmocka_run_group_tests_name("err (the reports' sink)", tests, NULL, NULL);
}
