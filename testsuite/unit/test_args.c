// SPDX-License-Identifier: GPL-2.0
/* lib/args.c: the value parsers (numbers, sizes, names, MACs, queue lists),
 * word tables, suggestions and the keyword-table parser. */
#include "unit.h"

#include "args.h"
#include "err.h"

static int u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char err[512];
	int ret;

	ERR_OF(err, ret = nk_parse_u32("kw", s, min, max, out));
	if (ret)
		assert_non_null(strstr(err, "Error: invalid value"));
	else
		assert_string_equal(err, "");
	return ret;
}

static void u32_plain(void **state)
{
	uint32_t v = 0;

	(void)state;
	assert_int_equal(u32("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(u32("10", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(u32("4294967295", 0, UINT32_MAX, &v), 0);
	assert_int_equal(v, UINT32_MAX);
}

static void u32_bounds(void **state)
{
	uint32_t v = 7;

	(void)state;
	assert_int_equal(u32("11", 0, 10, &v), NK_EXIT_USAGE);
	assert_int_equal(u32("0", 1, 10, &v), NK_EXIT_USAGE);
	assert_int_equal(u32("4294967296", 0, UINT32_MAX, &v), NK_EXIT_USAGE);
	assert_int_equal(v, 7);
}

static void u32_not_numbers(void **state)
{
	uint32_t v;
	const char *bad[] = { "", "-1", "+1", " 1", "1 ", "0x10", "1e3", "abc", "12a",
			      "99999999999999999999999" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_int_equal(u32(bad[i], 0, UINT32_MAX, &v), NK_EXIT_USAGE);
}

static void u32_error_names_range(void **state)
{
	char err[512];
	uint32_t v;

	(void)state;
	ERR_OF(err, nk_parse_u32("count", "99", 1, 16, &v));
	assert_string_equal(err,
			    "Error: invalid value \"99\" for \"count\": expected a number from 1 to 16\n");
}

static void u32_leading_zeros(void **state)
{
	uint32_t v;

	(void)state;
	assert_int_equal(u32("007", 0, 10, &v), 0);
	assert_int_equal(v, 7);
}

static int size(const char *s, uint64_t max, uint64_t *out)
{
	char err[512];
	int ret;

	ERR_OF(err, ret = nk_parse_size("size", s, max, out));
	assert_true(ret ? strstr(err, "expected a size") != NULL : !err[0]);
	return ret;
}

static void size_suffixes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(size("4096", UINT64_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(size("4K", UINT64_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(size("64m", UINT64_MAX, &v), 0);
	assert_int_equal(v, 64ULL << 20);
	assert_int_equal(size("2G", UINT64_MAX, &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(size("1t", UINT64_MAX, &v), 0);
	assert_int_equal(v, 1ULL << 40);
}

static void size_refused(void **state)
{
	uint64_t v;
	const char *bad[] = { "0", "0K", "", "K", "-1", "1KB", "1 K", "1P", "1.5G", " 1" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_int_equal(size(bad[i], UINT64_MAX, &v), NK_EXIT_USAGE);
}

static void size_max(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(size("1G", 1ULL << 30, &v), 0);
	assert_int_equal(size("1025M", 1ULL << 30, &v), NK_EXIT_USAGE);
	assert_int_equal(size("1073741825", 1ULL << 30, &v), NK_EXIT_USAGE);
	/* no overflow through the shift */
	assert_int_equal(size("17179869184G", UINT64_MAX, &v), NK_EXIT_USAGE);
}

static int ifname(const char *s)
{
	char err[512];
	int ret;

	ERR_OF(err, ret = nk_check_ifname("dev", s));
	assert_true(ret ? strstr(err, "Error: ") == err : !err[0]);
	return ret;
}

static void ifname_good(void **state)
{
	(void)state;
	assert_int_equal(ifname("eth0"), 0);
	assert_int_equal(ifname("a"), 0);
	assert_int_equal(ifname("123456789012345"), 0);
	assert_int_equal(ifname("nk-pod.1_x"), 0);
	assert_int_equal(ifname("..."), 0);
}

static void ifname_bad(void **state)
{
	const char *bad[] = { "", "1234567890123456", ".", "..", "a/b", "a:b", "a b", "a\tb",
			      "a\n" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_int_equal(ifname(bad[i]), NK_EXIT_USAGE);
}

static int mac(const char *s, uint8_t m[6])
{
	char err[512];
	int ret;

	ERR_OF(err, ret = nk_parse_mac("address", s, m));
	assert_true(ret ? strstr(err, "Error: ") == err : !err[0]);
	return ret;
}

static void mac_good(void **state)
{
	uint8_t m[6];
	const uint8_t want[6] = { 0x02, 0x00, 0xab, 0xCD, 0xef, 0x01 };

	(void)state;
	assert_int_equal(mac("02:00:ab:CD:ef:01", m), 0);
	assert_memory_equal(m, want, 6);
}

static void mac_bad_shape(void **state)
{
	uint8_t m[6];
	const char *bad[] = { "", "02:00:00:00:00", "02:00:00:00:00:01:", "02-00-00-00-00-01",
			      "2:0:0:0:0:1", "02:00:00:00:00:0g", "02:00:00:00:00:001",
			      " 2:00:00:00:00:01", "02:00:00:00:00: 1", "+2:00:00:00:00:01" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_int_equal(mac(bad[i], m), NK_EXIT_USAGE);
}

static void mac_multicast(void **state)
{
	uint8_t m[6];
	char err[512];
	int ret;

	(void)state;

	ERR_OF(err, ret = nk_parse_mac("address", "01:00:5e:00:00:01", m));
	assert_int_equal(ret, NK_EXIT_USAGE);
	assert_non_null(strstr(err, "multicast"));
	assert_int_equal(mac("ff:ff:ff:ff:ff:ff", m), NK_EXIT_USAGE);
	assert_int_equal(mac("fe:ff:ff:ff:ff:ff", m), 0);
}

static int qlist(const char *s, uint32_t *ids, size_t *n, char *err, size_t errlen)
{
	struct capture c;
	int ret;

	capture_begin(&c, 2);
	ret = nk_parse_queue_list("queue", s, ids, n);
	copy_text(err, errlen, capture_end(&c));
	return ret;
}

static void queues_single(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(qlist("15", ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 15);
	assert_string_equal(err, "");
}

static void queues_list_sorted(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	const uint32_t want[] = { 1, 3, 4, 5, 9 };
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(qlist("9,3-5,1", ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, N_ELEMS(want));
	assert_memory_equal(ids, want, sizeof(want));
}

static void queues_range(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(qlist("12-15", ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ids[i], 12 + i);
	assert_int_equal(qlist("7-7", ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 7);
}

static void queues_duplicate(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(qlist("3,1-4", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
	assert_non_null(strstr(err, "queue 3 is listed twice"));
	assert_int_equal(qlist("2,2", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
}

static void queues_inverted(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(qlist("5-3", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
	assert_non_null(strstr(err, "the range 5-3 is inverted"));
}

static void queues_malformed(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];
	const char *bad[] = { "", ",", "1,", ",1", "1,,2", "1-", "-1", "1--2", "a", "1 2",
			      "1, 2", "1-2-3", "0x1", "+1" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		assert_int_equal(qlist(bad[i], ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
		assert_non_null(strstr(err, "expected queue ids like"));
	}
}

static void queues_too_many(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];

	(void)state;
	assert_int_equal(qlist("0-1023", ids, &n, err, sizeof(err)), 0);
	assert_int_equal(n, NK_MAX_QUEUES);
	assert_int_equal(qlist("0-1024", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
	assert_non_null(strstr(err, "more than 1024 queues"));
	assert_int_equal(qlist("0-1023,2000", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
}

static void queues_huge_ids(void **state)
{
	uint32_t ids[NK_MAX_QUEUES];
	size_t n;
	char err[512];

	(void)state;
	/* ids stop well below 2^32: no overflow, no huge range */
	assert_int_equal(qlist("65535", ids, &n, err, sizeof(err)), 0);
	assert_int_equal(qlist("65536", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
	assert_int_equal(qlist("4294967296", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
	assert_int_equal(qlist("0-4294967295", ids, &n, err, sizeof(err)), NK_EXIT_USAGE);
}

static const struct nk_choice colours[] = {
	{ "red", 1, NULL }, { "green", 2, "verde" }, { "blue", 7, NULL }, { NULL, 0, NULL },
};

static void choice_word_and_name(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(nk_choice_word(colours, 2), "green");
	assert_null(nk_choice_word(colours, 3));
	assert_null(nk_choice_word(NULL, 1));
	assert_string_equal(nk_choice_name(colours, 7, buf, sizeof(buf)), "blue");
	assert_string_equal(nk_choice_name(colours, 42, buf, sizeof(buf)), "unknown(42)");
}

static void choice_list(void **state)
{
	char buf[64], small[8];

	(void)state;
	nk_choice_list(colours, "|", buf, sizeof(buf));
	assert_string_equal(buf, "red|green|blue");
	nk_choice_list(colours, ", ", buf, sizeof(buf));
	assert_string_equal(buf, "red, green, blue");
	nk_choice_list(colours, "|", small, sizeof(small));
	assert_true(strlen(small) < sizeof(small));
}

static const char *suggest(const char *word, const char *const *cands, size_t n)
{
	struct nk_suggest s = { word, NULL, 0 };

	for (size_t i = 0; i < n; i++)
		nk_suggest_try(&s, cands[i]);
	return s.best;
}

static void suggest_close_words(void **state)
{
	const char *const kws[] = { "dev", "queue", "from", "phys-netns", "count", "pool" };
	char buf[64];
	struct nk_suggest s = { "queeu", NULL, 0 };

	(void)state;
	assert_string_equal(suggest("queu", kws, N_ELEMS(kws)), "queue");
	assert_string_equal(suggest("qeue", kws, N_ELEMS(kws)), "queue");
	assert_string_equal(suggest("phys", kws, N_ELEMS(kws)), "phys-netns");
	assert_null(suggest("xyzzy", kws, N_ELEMS(kws)));
	nk_suggest_try(&s, "queue");
	assert_string_equal(nk_suggest_text(&s, buf, sizeof(buf)), " (did you mean \"queue\"?)");
}

static void suggest_short_words(void **state)
{
	const char *const kws[] = { "dev", "up" };
	struct nk_suggest none = { "zz", NULL, 0 };
	char buf[64];

	(void)state;
	assert_null(suggest("ab", kws, N_ELEMS(kws)));
	/* two letters: only a word they start */
	assert_null(suggest("dv", kws, N_ELEMS(kws)));
	assert_string_equal(suggest("de", kws, N_ELEMS(kws)), "dev");
	assert_null(suggest("", kws, N_ELEMS(kws)));
	assert_string_equal(nk_suggest_text(&none, buf, sizeof(buf)), "");
}

/* A table like a command's. */
struct targs {
	const char *dev;
	uint32_t count;
	uint32_t colour;
	bool force;
	uint8_t mac[6];
	struct nk_strlist prefixes;
	const char *name;
};
static const struct nk_param tparams[] = {
	{ NULL, NKP_STRING, offsetof(struct targs, name), "NAME", 0, 0, NULL, false, NULL },
	{ "dev", NKP_IFNAME, offsetof(struct targs, dev), "DEV", 0, 0, NULL, true, NULL },
	{ "count", NKP_U32, offsetof(struct targs, count), "N", 1, 16, NULL, false, NULL },
	{ "colour", NKP_ENUM, offsetof(struct targs, colour), NULL, 0, 0, colours, false, NULL },
	{ "force", NKP_FLAG, offsetof(struct targs, force), NULL, 0, 0, NULL, false, NULL },
	{ "address", NKP_MAC, offsetof(struct targs, mac), "MAC", 0, 0, NULL, false, NULL },
	{ "prefix", NKP_LIST, offsetof(struct targs, prefixes), "PREFIX", 0, 0, NULL, false, NULL },
};
static const struct nk_rule trules[] = {
	{ NK_RULE_EXCLUSIVE, { "force", "address" } },
	{ NK_RULE_NEEDS, { "colour", "count" } },
};
static const struct nk_params tp = {
	NK_PARAMS("test cmd", struct targs, tparams), NK_RULES(trules),
};

static int parse(struct targs *a, uint64_t *seen, char *err, size_t errlen, int argc, ...)
{
	char *argv[16];
	struct capture c;
	va_list ap;
	int ret;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	memset(a, 0, sizeof(*a));
	capture_begin(&c, 2);
	ret = nk_parse_params(&tp, argc, argv, a, seen);
	copy_text(err, errlen, capture_end(&c));
	return ret;
}

static void params_fill(void **state)
{
	struct targs a;
	uint64_t seen = 0;
	char err[512];
	const uint8_t m[6] = { 2, 0, 0, 0, 0, 1 };

	(void)state;
	assert_int_equal(parse(&a, &seen, err, sizeof(err), 11, "pod1", "dev", "eth0", "count",
			       "3", "colour", "verde", "address", "02:00:00:00:00:01", "prefix",
			       "10.0.0.0/8"),
			 0);
	assert_string_equal(err, "");
	assert_string_equal(a.name, "pod1");
	assert_string_equal(a.dev, "eth0");
	assert_int_equal(a.count, 3);
	assert_int_equal(a.colour, 2);
	assert_memory_equal(a.mac, m, 6);
	assert_int_equal(a.prefixes.n, 1);
	assert_false(a.force);
	assert_int_equal(seen, 1 | 2 | 4 | 8 | 32 | 64);
}

static void params_list_twice(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 6, "dev", "x", "prefix", "a", "prefix",
			       "a"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "\"prefix a\" is given twice"));
}

static void params_list_repeats(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 6, "dev", "x", "prefix", "a", "prefix",
			       "b"),
			 0);
	assert_int_equal(a.prefixes.n, 2);
	assert_string_equal(a.prefixes.v[0], "a");
	assert_string_equal(a.prefixes.v[1], "b");
}

static void params_missing_required(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 1, "force"), NK_EXIT_USAGE);
	assert_non_null(strstr(err, "dev"));
	assert_int_equal(strncmp(err, "Error: ", 7), 0);
	assert_non_null(strchr(err, '\n'));
	assert_null(strchr(err, '\n') + 1 == NULL ? NULL : strchr(strchr(err, '\n') + 1, '\n'));
}

static void params_unknown_word(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 4, "dev", "x", "cuont", "3"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "cuont"));
	assert_non_null(strstr(err, "did you mean \"count\""));
}

static void params_duplicate(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 4, "dev", "x", "dev", "y"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "dev"));
}

static void params_no_prefix_matching(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 3, "de", "x", "y"), NK_EXIT_USAGE);
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 4, "dev", "x", "forc", "y"),
			 NK_EXIT_USAGE);
}

static void params_bad_values(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 4, "dev", "x", "count", "17"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "from 1 to 16"));
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 6, "dev", "x", "count", "1", "colour",
			       "pink"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "expected one of: red, green, blue"));
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 2, "dev", "a/b"), NK_EXIT_USAGE);
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 2, "dev", ""), NK_EXIT_USAGE);
}

static void params_value_missing(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 1, "dev"), NK_EXIT_USAGE);
	assert_int_equal(strncmp(err, "Error: ", 7), 0);
}

static void params_rules(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 5, "dev", "x", "force", "address",
			       "02:00:00:00:00:01"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "force"));
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 4, "dev", "x", "colour", "red"),
			 NK_EXIT_USAGE);
	assert_non_null(strstr(err, "count"));
}

static void params_help(void **state)
{
	struct targs a;
	char err[512];

	(void)state;
	assert_int_equal(parse(&a, NULL, err, sizeof(err), 1, "help"), NK_HELP);
}

static void params_find(void **state)
{
	(void)state;
	assert_int_equal(nk_params_find(&tp, "count"), 2);
	assert_int_equal(nk_params_find(&tp, "nope"), -1);
	assert_int_equal(nk_params_find(NULL, "count"), -1);
	assert_true(nk_params_has(&tp, "prefix"));
	assert_false(nk_params_has(&tp, "NAME"));
	assert_true(nk_param_repeats(&tparams[6]));
	assert_false(nk_param_repeats(&tparams[1]));
}

static void params_usage(void **state)
{
	char buf[512];

	(void)state;
	nk_params_usage(&tp, buf, sizeof(buf), 0, 4);
	assert_non_null(strstr(buf, "dev DEV"));
	/* colour needs count: nested under it, as "pool LIST [ count N ]" */
	assert_non_null(strstr(buf, "[ count N [ colour { red | green | blue | verde } ] ]"));
	assert_non_null(strstr(buf, "[ force | address MAC ]"));
	assert_non_null(strstr(buf, "..."));
}

/* A one-of rule may name the positional word by its META: "link del
 * { NAME | group DEVGROUP }". */
struct oargs {
	const char *name;
	uint32_t group;
};
static const struct nk_param oparams[] = {
	{ NULL, NKP_IFNAME, offsetof(struct oargs, name), "NAME", 0, 0, NULL, false, NULL },
	{ "group", NKP_U32, offsetof(struct oargs, group), "DEVGROUP", 1, UINT32_MAX, NULL, false,
	  NULL },
};
static const struct nk_rule orules[] = {
	{ NK_RULE_ONE_OF, { "NAME", "group", NULL } },
};
static const struct nk_params op = {
	NK_PARAMS("link del", struct oargs, oparams), NK_RULES(orules),
};

static int oparse(struct oargs *a, char *err, size_t errlen, int argc, char **argv)
{
	struct capture c;
	int ret;

	memset(a, 0, sizeof(*a));
	capture_begin(&c, 2);
	ret = nk_parse_params(&op, argc, argv, a, NULL);
	copy_text(err, errlen, capture_end(&c));
	return ret;
}

static void params_one_of_positional(void **state)
{
	char *name[] = { "nk0" }, *group[] = { "group", "7" }, *both[] = { "nk0", "group", "7" };
	struct oargs a;
	char err[512], buf[256];

	(void)state;
	assert_int_equal(oparse(&a, err, sizeof(err), 1, name), 0);
	assert_string_equal(a.name, "nk0");
	assert_int_equal(oparse(&a, err, sizeof(err), 2, group), 0);
	assert_null(a.name);
	assert_int_equal(a.group, 7);
	assert_int_equal(oparse(&a, err, sizeof(err), 3, both), NK_EXIT_USAGE);
	assert_non_null(strstr(err, "exclude each other"));
	assert_int_equal(oparse(&a, err, sizeof(err), 0, NULL), NK_EXIT_USAGE);
	assert_non_null(strstr(err, "needs either \"NAME\" or \"group DEVGROUP\""));
	/* a keyword's lookup never takes the META for a keyword */
	assert_false(nk_params_has(&op, "NAME"));
	nk_params_usage(&op, buf, sizeof(buf), 0, 4);
	assert_string_equal(buf, "{ NAME | group DEVGROUP }");
}

static void wrap_columns(void **state)
{
	char buf[1024], text[600];
	const char *line;

	(void)state;
	memset(text, 0, sizeof(text));
	for (int i = 0; i < 60; i++)
		strcat(text, "word ");
	text[strlen(text) - 1] = '\0';
	nk_wrap(text, buf, sizeof(buf), 10, 8);
	line = buf;
	for (int first = 1; line && *line; first = 0) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		assert_true(len + (first ? 10 : 0) <= 80);
		if (!first)
			assert_int_equal(strncmp(line, "        word", 12), 0);
		line = nl ? nl + 1 : NULL;
	}
	nk_wrap("short", buf, sizeof(buf), 0, 4);
	assert_string_equal(buf, "short");
	/* a short bracket group is one item: "[ force ]" never breaks */
	nk_wrap("{ dev NKDEV | from PHYS [ phys-netns NETNS ] queue LIST } [ force ] [ wait S ]",
		buf, sizeof(buf), 10, 4);
	assert_non_null(strstr(buf, "[ force ]"));
	assert_null(strstr(buf, "{\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u32_plain),
		cmocka_unit_test(u32_bounds),
		cmocka_unit_test(u32_not_numbers),
		cmocka_unit_test(u32_error_names_range),
		cmocka_unit_test(u32_leading_zeros),
		cmocka_unit_test(size_suffixes),
		cmocka_unit_test(size_refused),
		cmocka_unit_test(size_max),
		cmocka_unit_test(ifname_good),
		cmocka_unit_test(ifname_bad),
		cmocka_unit_test(mac_good),
		cmocka_unit_test(mac_bad_shape),
		cmocka_unit_test(mac_multicast),
		cmocka_unit_test(queues_single),
		cmocka_unit_test(queues_list_sorted),
		cmocka_unit_test(queues_range),
		cmocka_unit_test(queues_duplicate),
		cmocka_unit_test(queues_inverted),
		cmocka_unit_test(queues_malformed),
		cmocka_unit_test(queues_too_many),
		cmocka_unit_test(queues_huge_ids),
		cmocka_unit_test(choice_word_and_name),
		cmocka_unit_test(choice_list),
		cmocka_unit_test(suggest_close_words),
		cmocka_unit_test(suggest_short_words),
		cmocka_unit_test(params_fill),
		cmocka_unit_test(params_list_repeats),
		cmocka_unit_test(params_list_twice),
		cmocka_unit_test(params_missing_required),
		cmocka_unit_test(params_unknown_word),
		cmocka_unit_test(params_duplicate),
		cmocka_unit_test(params_no_prefix_matching),
		cmocka_unit_test(params_bad_values),
		cmocka_unit_test(params_value_missing),
		cmocka_unit_test(params_rules),
		cmocka_unit_test(params_help),
		cmocka_unit_test(params_find),
		cmocka_unit_test(params_usage),
		cmocka_unit_test(params_one_of_positional),
		cmocka_unit_test(wrap_columns),
	};

	return cmocka_run_group_tests_name("args", tests, NULL, NULL);
}
