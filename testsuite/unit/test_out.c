// SPDX-License-Identifier: GPL-2.0
/* lib/out.c: the JSON contract (escaping, UTF-8, numbers, nesting, pretty
 * form) and the text side of the same calls. */
#include "unit.h"

#include "out.h"

/* Everything o wrote to its memory stream. */
struct mem {
	char *buf;
	size_t len;
	FILE *fp;
	struct out o;
};

static void mem_open(struct mem *m, bool json, bool pretty)
{
	m->buf = NULL;
	m->len = 0;
	m->fp = open_memstream(&m->buf, &m->len);
	assert_non_null(m->fp);
	out_init(&m->o, m->fp, json, pretty);
}

static const char *mem_text(struct mem *m)
{
	fflush(m->fp);
	return m->buf;
}

static void mem_close(struct mem *m)
{
	fclose(m->fp);
	free(m->buf);
}

/* The JSON document of one string value under key "k". */
static void json_of_string(const char *val, const char *want)
{
	struct mem m;

	mem_open(&m, true, false);
	out_begin(&m.o);
	out_str(&m.o, "k", "%s", val);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), want);
	mem_close(&m);
}

static void json_plain_string(void **state)
{
	(void)state;
	json_of_string("eth0", "{\"k\":\"eth0\"}\n");
	json_of_string("", "{\"k\":\"\"}\n");
}

static void json_null_string(void **state)
{
	(void)state;
	json_of_string(NULL, "{\"k\":\"\"}\n");
}

static void json_escapes(void **state)
{
	(void)state;
	json_of_string("a\"b\\c", "{\"k\":\"a\\\"b\\\\c\"}\n");
	json_of_string("\n\t\r", "{\"k\":\"\\n\\t\\r\"}\n");
	json_of_string("/", "{\"k\":\"/\"}\n");
}

static void json_controls(void **state)
{
	(void)state;
	json_of_string("\x01\x1f\x7f", "{\"k\":\"\\u0001\\u001f\\u007f\"}\n");
	json_of_string("\b\f", "{\"k\":\"\\u0008\\u000c\"}\n");
}

static void json_utf8_kept(void **state)
{
	(void)state;
	json_of_string("caf\xc3\xa9", "{\"k\":\"caf\xc3\xa9\"}\n");
	json_of_string("\xe2\x82\xac", "{\"k\":\"\xe2\x82\xac\"}\n");
	json_of_string("\xf0\x9f\x98\x80", "{\"k\":\"\xf0\x9f\x98\x80\"}\n");
	json_of_string("\xf4\x8f\xbf\xbf", "{\"k\":\"\xf4\x8f\xbf\xbf\"}\n");
}

static void json_bad_utf8_replaced(void **state)
{
	(void)state;
	/* a stray continuation byte, a cut sequence, a byte never in UTF-8 */
	json_of_string("a\x80z", "{\"k\":\"a\\ufffdz\"}\n");
	json_of_string("\xc3", "{\"k\":\"\\ufffd\"}\n");
	json_of_string("\xff", "{\"k\":\"\\ufffd\"}\n");
	json_of_string("\xe2\x82", "{\"k\":\"\\ufffd\\ufffd\"}\n");
}

static void json_overlong_and_surrogates(void **state)
{
	(void)state;
	json_of_string("\xc0\xaf", "{\"k\":\"\\ufffd\\ufffd\"}\n");
	json_of_string("\xe0\x80\xaf", "{\"k\":\"\\ufffd\\ufffd\\ufffd\"}\n");
	json_of_string("\xed\xa0\x80", "{\"k\":\"\\ufffd\\ufffd\\ufffd\"}\n");
	json_of_string("\xf4\x90\x80\x80", "{\"k\":\"\\ufffd\\ufffd\\ufffd\\ufffd\"}\n");
	json_of_string("\xf0\x80\x80\x80", "{\"k\":\"\\ufffd\\ufffd\\ufffd\\ufffd\"}\n");
}

static void json_key_escaped(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_uint(&m.o, "a\"b", NULL, 1);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "{\"a\\\"b\":1}\n");
	mem_close(&m);
}

static void json_long_string(void **state)
{
	char val[3000], want[3100];
	struct mem m;

	(void)state;
	memset(val, 'x', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	val[1000] = '"';
	snprintf(want, sizeof(want), "{\"k\":\"%.1000s\\\"%s\"}\n", val, val + 1001);
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_str(&m.o, "k", NULL, val);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), want);
	mem_close(&m);
}

static void json_numbers(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_uint(&m.o, "zero", NULL, 0);
	out_uint(&m.o, "max", NULL, UINT64_MAX);
	out_int(&m.o, "neg", NULL, -42);
	out_int(&m.o, "min", NULL, INT64_MIN);
	out_int(&m.o, "imax", NULL, INT64_MAX);
	out_end(&m.o);
	assert_string_equal(mem_text(&m),
			    "{\"zero\":0,\"max\":18446744073709551615,\"neg\":-42,"
			    "\"min\":-9223372036854775808,\"imax\":9223372036854775807}\n");
	mem_close(&m);
}

static void json_bools(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_bool(&m.o, "a", "%s", true);
	out_bool(&m.o, "b", "%s", false);
	out_flag(&m.o, "c", "x", false);
	out_flag(&m.o, "d", "x", true);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "{\"a\":true,\"b\":false,\"c\":false,\"d\":true}\n");
	mem_close(&m);
}

static void json_nesting(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_arr_open(&m.o, "list");
	out_obj_open(&m.o, NULL);
	out_uint(&m.o, "id", NULL, 1);
	out_obj_close(&m.o);
	out_obj_open(&m.o, NULL);
	out_obj_close(&m.o);
	out_uint(&m.o, NULL, NULL, 7);
	out_arr_close(&m.o);
	out_arr_open(&m.o, "empty");
	out_arr_close(&m.o);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "{\"list\":[{\"id\":1},{},7],\"empty\":[]}\n");
	mem_close(&m);
}

static void json_empty_document(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "{}\n");
	mem_close(&m);
}

static void json_pretty(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false, true);
	assert_true(m.o.json);
	out_begin(&m.o);
	out_str(&m.o, "name", NULL, "x");
	out_arr_open(&m.o, "v");
	out_uint(&m.o, NULL, NULL, 1);
	out_uint(&m.o, NULL, NULL, 2);
	out_arr_close(&m.o);
	out_obj_open(&m.o, "e");
	out_obj_close(&m.o);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "{\n  \"name\": \"x\",\n  \"v\": [\n    1,\n    2\n  ],\n"
					  "  \"e\": {}\n}\n");
	mem_close(&m);
}

static void json_text_ignored(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	out_text(&m.o, "not in JSON %d\n", 1);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "{}\n");
	mem_close(&m);
}

static void json_deep_nesting_capped(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true, false);
	out_begin(&m.o);
	for (int i = 0; i < OUT_MAX_DEPTH + 4; i++)
		out_arr_open(&m.o, i ? NULL : "a");
	for (int i = 0; i < OUT_MAX_DEPTH + 4; i++)
		out_arr_close(&m.o);
	out_end(&m.o);
	assert_true(m.o.depth >= 0 && m.o.depth < OUT_MAX_DEPTH);
	mem_close(&m);
}

static void text_formats(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false, false);
	out_begin(&m.o);
	out_str(&m.o, "name", "name %s", "eth0");
	out_uint(&m.o, "mtu", " mtu %llu", 1500);
	out_int(&m.o, "off", " off %lld", -3);
	out_bool(&m.o, "up", " up %s", true);
	out_flag(&m.o, "lease", " leased", true);
	out_flag(&m.o, "gone", " gone", false);
	out_str(&m.o, "hidden", NULL, "x");
	out_text(&m.o, "\n");
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "name eth0 mtu 1500 off -3 up yes leased\n");
	mem_close(&m);
}

static void text_containers_silent(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false, false);
	out_begin(&m.o);
	out_arr_open(&m.o, "a");
	out_obj_open(&m.o, NULL);
	out_obj_close(&m.o);
	out_arr_close(&m.o);
	out_bool(&m.o, "b", "%s", false);
	out_end(&m.o);
	assert_string_equal(mem_text(&m), "no");
	mem_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_plain_string),
		cmocka_unit_test(json_null_string),
		cmocka_unit_test(json_escapes),
		cmocka_unit_test(json_controls),
		cmocka_unit_test(json_utf8_kept),
		cmocka_unit_test(json_bad_utf8_replaced),
		cmocka_unit_test(json_overlong_and_surrogates),
		cmocka_unit_test(json_key_escaped),
		cmocka_unit_test(json_long_string),
		cmocka_unit_test(json_numbers),
		cmocka_unit_test(json_bools),
		cmocka_unit_test(json_nesting),
		cmocka_unit_test(json_empty_document),
		cmocka_unit_test(json_pretty),
		cmocka_unit_test(json_text_ignored),
		cmocka_unit_test(json_deep_nesting_capped),
		cmocka_unit_test(text_formats),
		cmocka_unit_test(text_containers_silent),
	};

	return cmocka_run_group_tests_name("out", tests, NULL, NULL);
}
