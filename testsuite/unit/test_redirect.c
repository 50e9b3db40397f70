// SPDX-License-Identifier: GPL-2.0
/* nkctl/cli/redirect.c and routes.c: prefixes parsed, printed, compared; pin
 * directory names; trie keys; target identity. */
#include "unit.h"

#include "compat.h"
#include "err.h"
#include "redirect/routes.h"

static int prefix(const char *s, struct nk_prefix *p)
{
	char err[512];
	int ret;

	ERR_OF(err, ret = parse_prefix(s, p));
	assert_true(ret ? strncmp(err, "Error: ", 7) == 0 : !err[0]);
	return ret;
}

static void prefix_v4(void **state)
{
	struct nk_prefix p;
	char buf[64];

	(void)state;
	assert_int_equal(prefix("10.1.0.0/16", &p), 0);
	assert_int_equal(p.family, 4);
	assert_int_equal(p.len, 16);
	assert_memory_equal(p.addr, "\x0a\x01\x00\x00", 4);
	rt_format_prefix(&p, buf, sizeof(buf));
	assert_string_equal(buf, "10.1.0.0/16");
}

static void prefix_v6(void **state)
{
	struct nk_prefix p;
	char buf[64];

	(void)state;
	assert_int_equal(prefix("fd00::/64", &p), 0);
	assert_int_equal(p.family, 6);
	assert_int_equal(p.len, 64);
	rt_format_prefix(&p, buf, sizeof(buf));
	assert_string_equal(buf, "fd00::/64");
	assert_int_equal(prefix("::/0", &p), 0);
	assert_int_equal(prefix("fd00::5/128", &p), 0);
}

static void prefix_host_bits(void **state)
{
	struct nk_prefix p;
	char err[512];
	int ret;

	(void)state;
	ERR_OF(err, ret = parse_prefix("10.1.0.1/16", &p));
	assert_int_equal(ret, NK_EXIT_USAGE);
	assert_non_null(strstr(err, "host bits are set"));
	assert_int_equal(prefix("fd00::1/64", &p), NK_EXIT_USAGE);
	assert_int_equal(prefix("10.1.0.1/32", &p), 0);
	assert_int_equal(prefix("0.0.0.0/0", &p), 0);
}

static void prefix_malformed(void **state)
{
	struct nk_prefix p;
	const char *bad[] = { "10.0.0.0", "10.0.0.0/", "10.0.0.0/33", "fd00::/129",
			      "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0/8", "x/8", "/8",
			      "10.0.0.0/0008", "10.0.0.0/8/8", "" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_int_equal(prefix(bad[i], &p), NK_EXIT_USAGE);
}

static void prefix_round_trip(void **state)
{
	const char *good[] = { "0.0.0.0/0", "192.168.1.0/24", "10.0.0.5/32", "::/0",
			       "2001:db8::/32", "fd00:1:2:3::/64", "fd00::9/128" };
	struct nk_prefix p, q;
	char buf[64];

	(void)state;
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		assert_int_equal(prefix(good[i], &p), 0);
		rt_format_prefix(&p, buf, sizeof(buf));
		assert_string_equal(buf, good[i]);
		assert_int_equal(prefix(buf, &q), 0);
		assert_memory_equal(&p, &q, sizeof(p));
	}
}

static void prefix_sets(void **state)
{
	struct nk_target a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(prefix("10.0.0.0/8", &a.p[0]), 0);
	assert_int_equal(prefix("fd00::/8", &a.p[1]), 0);
	a.n = 2;
	b.p[0] = a.p[1];
	b.p[1] = a.p[0];
	b.n = 2;
	assert_true(rt_same_set(&a, &b));
	assert_true(rt_prefix_in(&a.p[1], b.p, b.n));
	b.p[1].len = 9;
	assert_false(rt_same_set(&a, &b));
	b.n = 1;
	assert_false(rt_same_set(&a, &b));
	assert_false(rt_prefix_in(&a.p[0], b.p, 0));
}

static void ns_dir_names(void **state)
{
	unsigned long ino;
	unsigned long long cookie;

	(void)state;
	assert_true(rt_ns_dir_name("net4026531840-7", &ino, &cookie));
	assert_int_equal(ino, 4026531840UL);
	assert_int_equal(cookie, 7);
	assert_false(rt_ns_dir_name("net4026531840", &ino, &cookie));
	assert_false(rt_ns_dir_name("net1-2x", &ino, &cookie));
	assert_false(rt_ns_dir_name("dev1-2", &ino, &cookie));
	assert_true(rt_ns_dir_legacy("net4026531840"));
	assert_false(rt_ns_dir_legacy("net4026531840-7"));
	assert_false(rt_ns_dir_legacy("net"));
}

static void trie_keys(void **state)
{
	struct nk_prefix p;
	unsigned char key[20];
	uint32_t len;

	(void)state;
	assert_int_equal(prefix("10.2.0.0/16", &p), 0);
	memset(key, 0xee, sizeof(key));
	route_key(&p, key);
	memcpy(&len, key, 4);
	assert_int_equal(len, 16);
	assert_memory_equal(key + 4, "\x0a\x02\x00\x00", 4);
	assert_int_equal(prefix("fd00::/8", &p), 0);
	route_key(&p, key);
	assert_int_equal(key[4], 0xfd);
}

static void target_identity(void **state)
{
	struct nk_link l;
	struct nk_target a, b;

	(void)state;
	memset(&l, 0, sizeof(l));
	memset(&a, 0, sizeof(a));
	l.ifindex = 5;
	snprintf(l.ifname, sizeof(l.ifname), "nk0");
	l.addr_len = 6;
	memcpy(l.addr, "\x02\x00\x00\x00\x00\x05", 6);
	target_identify(&a, &l);
	assert_true(target_is(&a, &l));
	assert_false(target_is(&a, NULL));
	b = a;
	assert_true(target_same(&a, &b));
	b.hwaddr[5] = 6;
	assert_false(target_same(&a, &b));
	l.addr[5] = 9;
	assert_false(target_is(&a, &l));
	/* a long hardware address is cut to what the record holds */
	l.addr_len = 20;
	target_identify(&b, &l);
	assert_int_equal(b.hwaddr_len, NK_HWADDR_LEN);
}

static void hook_words(void **state)
{
	(void)state;
	assert_string_equal(rt_hook_name(NK_BPF_TCX_INGRESS), "tcx-ingress");
	assert_true(rt_hook_is_netkit(NK_BPF_NETKIT_PEER));
	assert_false(rt_hook_is_netkit(NK_BPF_TCX_EGRESS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prefix_v4),
		cmocka_unit_test(prefix_v6),
		cmocka_unit_test(prefix_host_bits),
		cmocka_unit_test(prefix_malformed),
		cmocka_unit_test(prefix_round_trip),
		cmocka_unit_test(prefix_sets),
		cmocka_unit_test(ns_dir_names),
		cmocka_unit_test(trie_keys),
		cmocka_unit_test(target_identity),
		cmocka_unit_test(hook_words),
	};

	return cmocka_run_group_tests_name("redirect", tests, NULL, NULL);
}
