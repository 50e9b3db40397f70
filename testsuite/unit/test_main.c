// SPDX-License-Identifier: GPL-2.0
/* nkctl/cli/main.c: -batch lines split into words. */
#include <errno.h>

#include "unit.h"

#include "core/cmd.h"
#include "cli/main.h"

static int split(const char *line, char **words, int max, char *buf, size_t len)
{
	snprintf(buf, len, "%s", line);
	return split_words(buf, words, max);
}

static void words_by_blanks(void **state)
{
	char buf[256], *w[8];

	(void)state;
	assert_int_equal(split("link  add\tnk0 \n", w, 8, buf, sizeof(buf)), 3);
	assert_string_equal(w[0], "link");
	assert_string_equal(w[1], "add");
	assert_string_equal(w[2], "nk0");
}

static void empty_and_blank_lines(void **state)
{
	char buf[64], *w[4];

	(void)state;
	assert_int_equal(split("", w, 4, buf, sizeof(buf)), 0);
	assert_int_equal(split("   \t ", w, 4, buf, sizeof(buf)), 0);
	assert_int_equal(split("\n", w, 4, buf, sizeof(buf)), 0);
}

static void comments(void **state)
{
	char buf[64], *w[4];

	(void)state;
	assert_int_equal(split("# all of it", w, 4, buf, sizeof(buf)), 0);
	assert_int_equal(split("  show # the rest", w, 4, buf, sizeof(buf)), 1);
	assert_string_equal(w[0], "show");
	/* inside a word '#' is a character */
	assert_int_equal(split("a#b", w, 4, buf, sizeof(buf)), 1);
	assert_string_equal(w[0], "a#b");
}

static void quotes_group(void **state)
{
	char buf[128], *w[4];

	(void)state;
	assert_int_equal(split("exec \"a b\" 'c \"d\"'", w, 4, buf, sizeof(buf)), 3);
	assert_string_equal(w[1], "a b");
	assert_string_equal(w[2], "c \"d\"");
}

static void quotes_inside_word(void **state)
{
	char buf[128], *w[4];

	(void)state;
	assert_int_equal(split("pre\"fix suf\"fix x", w, 4, buf, sizeof(buf)), 2);
	assert_string_equal(w[0], "prefix suffix");
	assert_string_equal(w[1], "x");
}

static void empty_quotes(void **state)
{
	char buf[64], *w[4];

	(void)state;
	assert_int_equal(split("a \"\" b", w, 4, buf, sizeof(buf)), 3);
	assert_string_equal(w[1], "");
}

static void quoted_hash(void **state)
{
	char buf[64], *w[4];

	(void)state;
	assert_int_equal(split("\"# not a comment\"", w, 4, buf, sizeof(buf)), 1);
	assert_string_equal(w[0], "# not a comment");
}

static void unclosed_quote(void **state)
{
	char buf[64], *w[4];

	(void)state;
	assert_int_equal(split("a \"b c", w, 4, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(split("'", w, 4, buf, sizeof(buf)), -EINVAL);
}

static void too_many_words(void **state)
{
	char buf[64], *w[3];

	(void)state;
	assert_int_equal(split("a b c", w, 3, buf, sizeof(buf)), 3);
	assert_int_equal(split("a b c d", w, 3, buf, sizeof(buf)), -E2BIG);
	/* a comment after the last word is not one more */
	assert_int_equal(split("a b c # d", w, 3, buf, sizeof(buf)), 3);
}

static void crlf(void **state)
{
	char buf[64], *w[4];

	(void)state;
	assert_int_equal(split("show\r\n", w, 4, buf, sizeof(buf)), 1);
	assert_string_equal(w[0], "show");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words_by_blanks),
		cmocka_unit_test(empty_and_blank_lines),
		cmocka_unit_test(comments),
		cmocka_unit_test(quotes_group),
		cmocka_unit_test(quotes_inside_word),
		cmocka_unit_test(empty_quotes),
		cmocka_unit_test(quoted_hash),
		cmocka_unit_test(unclosed_quote),
		cmocka_unit_test(too_many_words),
		cmocka_unit_test(crlf),
	};

	return cmocka_run_group_tests_name("main (batch words)", tests, NULL, NULL);
}
