// SPDX-License-Identifier: GPL-2.0
/* lib/err.c: the reports' sink. A collecting sink gets every report whole,
 * nothing dropped however long; its last error is the record's reason; the
 * other lines pass on to the sink before it. */
#include <errno.h>

#include "unit.h"

#include "err.h"
#include "nl.h"

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

/* -j: a report is one JSON object on a line, its message the text form's. */
static void json_error_document(void **state)
{
	struct nl_err e = { .code = EINVAL, .msg = "Device doesn't support \"DMA\"",
			    .path = "queues.id", .missing = false };
	struct capture c;

	(void)state;
	nk_report_json(true);
	capture_begin(&c, 2);
	assert_int_equal(nk_error_nl(&e, "bind-rx on %s", "eth0"), NK_EXIT_FAIL);
	e.missing = true;
	e.msg[0] = '\0';
	nk_error_nl(&e, NULL);
	nk_error_errno(ENODEV, "no \\ %s", "x\ny");
	nk_error(NK_EXIT_USAGE, "plain");
	nk_warn("sim1: %s", "kept");
	capture_end(&c);
	nk_report_json(false);
	assert_string_equal(c.text,
		"{\"error\":{\"message\":\"bind-rx on eth0: Device doesn't support \\\"DMA\\\" (queues.id)\","
		"\"exit\":2,\"errno\":22,\"extack\":{\"msg\":\"Device doesn't support \\\"DMA\\\"\","
		"\"bad-attr\":\"queues.id\"}}}\n"
		"{\"error\":{\"message\":\"Invalid argument (missing attribute queues.id)\",\"exit\":2,"
		"\"errno\":22,\"extack\":{\"miss-type\":\"queues.id\"}}}\n"
		"{\"error\":{\"message\":\"no \\\\ x\\\\ny: No such device\",\"exit\":3,\"errno\":19}}\n"
		"{\"error\":{\"message\":\"plain\",\"exit\":1}}\n"
		"{\"warning\":{\"message\":\"sim1: kept\"}}\n");
}

/* The form is stderr's: a sink keeps text lines (its last error is read
 * back), and what it passes on is written in stderr's form. */
static void json_sink_keeps_text(void **state)
{
	struct nk_sink s = { 0 }, *was;
	struct capture c;
	char msg[64];

	(void)state;
	nk_report_json(true);
	was = nk_sink_use(&s);
	nk_warn("other");
	nk_error(NK_EXIT_FAIL, "the reason");
	nk_sink_use(was);
	assert_string_equal(s.buf, "Warning: other\nError: the reason\n");
	assert_string_equal(nk_sink_last_error(&s, msg, sizeof(msg)), "the reason");
	capture_begin(&c, 2);
	nk_sink_pass_others(&s);
	nk_warn("sim2: %s", msg);
	capture_end(&c);
	nk_report_json(false);
	assert_string_equal(c.text, "{\"warning\":{\"message\":\"other\"}}\n"
			     "{\"warning\":{\"message\":\"sim2: the reason\"}}\n");
	nk_sink_free(&s);
}

/* Without -j the text form is as it always was. */
static void text_form_unchanged(void **state)
{
	struct nl_err e = { .code = EINVAL, .msg = "bad", .path = "queues.id" };
	struct capture c;

	(void)state;
	capture_begin(&c, 2);
	nk_error_nl(&e, "bind-rx");
	nk_warn("w");
	capture_end(&c);
	assert_string_equal(c.text, "Error: bind-rx: bad (queues.id)\nWarning: w\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(collects_whole_lines),
		cmocka_unit_test(nothing_dropped),
		cmocka_unit_test(passes_the_others_on),
		cmocka_unit_test(one_line_whatever_the_words),
		cmocka_unit_test(json_error_document),
		cmocka_unit_test(json_sink_keeps_text),
		cmocka_unit_test(text_form_unchanged),
	};

	return cmocka_run_group_tests_name("err (the reports' sink)", tests, NULL, NULL);
}
