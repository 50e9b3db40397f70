// SPDX-License-Identifier: GPL-2.0
/* lib/ethrss.c and lib/ethtool.c: the RSS minimal edit, the table helpers,
 * rule location choice, flow types. */
#include <errno.h>

#include "unit.h"

#include "ethrss.h"

static size_t count_of(const uint32_t *t, uint32_t n, uint32_t q)
{
	size_t c = 0;

	for (uint32_t i = 0; i < n; i++)
		c += t[i] == q;
	return c;
}

static void take_moves_only_taken(void **state)
{
	uint32_t t[8] = { 0, 1, 2, 3, 0, 1, 2, 3 }, was[8];
	const uint32_t take[] = { 3 };

	(void)state;
	memcpy(was, t, sizeof(t));
	assert_int_equal(nk_rss_take_queues(t, 8, take, 1), 0);
	assert_int_equal(count_of(t, 8, 3), 0);
	for (int i = 0; i < 8; i++)
		if (was[i] != 3)
			assert_int_equal(t[i], was[i]);
}

static void take_spreads_to_least_loaded(void **state)
{
	uint32_t t[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	const uint32_t take[] = { 3 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 8, take, 1), 0);
	/* two entries freed: the lowest of equals first, then the next */
	assert_int_equal(t[3], 0);
	assert_int_equal(t[7], 1);
}

static void take_several(void **state)
{
	uint32_t t[12] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5 };
	const uint32_t take[] = { 4, 5 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 12, take, 2), 0);
	assert_int_equal(count_of(t, 12, 4) + count_of(t, 12, 5), 0);
	for (uint32_t q = 0; q < 4; q++)
		assert_int_equal(count_of(t, 12, q), 3);
}

static void take_keeps_excluded_out(void **state)
{
	/* the operator kept queue 0 out (a weighted table) */
	uint32_t t[6] = { 1, 2, 3, 1, 2, 3 };
	const uint32_t take[] = { 3 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 6, take, 1), 0);
	assert_int_equal(count_of(t, 6, 0), 0);
	assert_int_equal(count_of(t, 6, 3), 0);
	assert_int_equal(count_of(t, 6, 1) + count_of(t, 6, 2), 6);
}

static void take_none_left(void **state)
{
	uint32_t t[4] = { 2, 3, 2, 3 };
	const uint32_t take[] = { 2, 3 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 4, take, 2), -ENOSPC);
}

static void take_absent_queue(void **state)
{
	uint32_t t[4] = { 0, 1, 0, 1 }, was[4];
	const uint32_t take[] = { 7 };

	(void)state;
	memcpy(was, t, sizeof(t));
	assert_int_equal(nk_rss_take_queues(t, 4, take, 1), 0);
	assert_memory_equal(t, was, sizeof(t));
}

static void take_empty_table(void **state)
{
	uint32_t t[1] = { 0 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 0, NULL, 0), 0);
}

static void take_uneven_load(void **state)
{
	/* queue 0 holds 4 entries, 1 holds 1: the freed entries go to 1 */
	uint32_t t[7] = { 0, 0, 0, 0, 1, 2, 2 };
	const uint32_t take[] = { 2 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 7, take, 1), 0);
	assert_int_equal(t[5], 1);
	assert_int_equal(t[6], 1);
}

static void take_large_ids(void **state)
{
	/* sized by the table, not by the largest queue id */
	uint32_t t[4] = { 100000, 5, 100000, 5 };
	const uint32_t take[] = { 100000 };

	(void)state;
	assert_int_equal(nk_rss_take_queues(t, 4, take, 1), 0);
	assert_int_equal(count_of(t, 4, 5), 4);
}

static void take_then_restore(void **state)
{
	uint32_t saved[16], t[16];
	const uint32_t take[] = { 1, 2 };

	(void)state;
	for (uint32_t i = 0; i < 16; i++)
		saved[i] = i % 4;
	memcpy(t, saved, sizeof(t));
	assert_int_equal(nk_rss_take_queues(t, 16, take, 2), 0);
	/* from the saved table with fewer taken: each kept queue its own entries */
	memcpy(t, saved, sizeof(t));
	assert_int_equal(nk_rss_take_queues(t, 16, take + 1, 1), 0);
	for (uint32_t i = 0; i < 16; i++)
		if (saved[i] != 2)
			assert_int_equal(t[i], saved[i]);
	memcpy(t, saved, sizeof(t));
	assert_int_equal(nk_rss_take_queues(t, 16, take, 0), 0);
	assert_memory_equal(t, saved, sizeof(t));
}

static void rss_default_spread(void **state)
{
	static struct nk_rss r;

	(void)state;
	r.indir_size = 8;
	for (uint32_t i = 0; i < 8; i++)
		r.indir[i] = i % 4;
	assert_true(nk_rss_is_default(&r, 4));
	assert_false(nk_rss_is_default(&r, 3));
	r.indir[5] = 0;
	assert_false(nk_rss_is_default(&r, 4));
	assert_true(nk_rss_uses(&r, 0));
	assert_false(nk_rss_uses(&r, 7));
}

static void channels_rx(void **state)
{
	struct nk_channels c = { .have = true, .combined = 8, .rx = 2 };

	(void)state;
	assert_int_equal(nk_channels_rx(&c), 10);
	c.rx = 0;
	assert_int_equal(nk_channels_rx(&c), 8);
}

static void free_location_lowest(void **state)
{
	struct nk_ntuple v[3] = { { .id = 0 }, { .id = 2 }, { .id = 1 } };
	struct nk_ntuple_list l = { v, 3, 3, 8, false };
	uint32_t loc = 99;

	(void)state;
	assert_int_equal(nk_ntuple_free_loc(&l, &loc), 0);
	assert_int_equal(loc, 3);
	v[1].id = 5;
	assert_int_equal(nk_ntuple_free_loc(&l, &loc), 0);
	assert_int_equal(loc, 2);
}

static void free_location_empty_and_full(void **state)
{
	struct nk_ntuple v[2] = { { .id = 0 }, { .id = 1 } };
	struct nk_ntuple_list l = { v, 0, 2, 2, false };
	uint32_t loc = 99;

	(void)state;
	assert_int_equal(nk_ntuple_free_loc(&l, &loc), 0);
	assert_int_equal(loc, 0);
	l.n = 2;
	assert_int_equal(nk_ntuple_free_loc(&l, &loc), -ENOSPC);
	l.table_size = 0;
	assert_int_equal(nk_ntuple_free_loc(&l, &loc), -ENOSPC);
}

static void free_location_ignores_beyond_table(void **state)
{
	struct nk_ntuple v[1] = { { .id = 4000 } };
	struct nk_ntuple_list l = { v, 1, 1, 1, false };
	uint32_t loc = 99;

	(void)state;
	assert_int_equal(nk_ntuple_free_loc(&l, &loc), 0);
	assert_int_equal(loc, 0);
}

static void flow_types(void **state)
{
	char buf[32];

	(void)state;
	assert_true(nk_flow_is_v6(NK_FLOW_TCP6));
	assert_true(nk_flow_is_v6(NK_FLOW_IP6));
	assert_false(nk_flow_is_v6(NK_FLOW_UDP4));
	assert_true(nk_flow_has_ports(NK_FLOW_UDP6));
	assert_false(nk_flow_has_ports(NK_FLOW_IP4));
	assert_string_equal(nk_choice_name(nk_flow_type_words, NK_FLOW_TCP4, buf, sizeof(buf)),
			    "tcp4");
}

static void ntuple_decode_short(void **state)
{
	struct nk_ntuple r;
	char buf[8] = { 0 };

	(void)state;
	assert_int_equal(ethtool_ntuple_decode(buf, sizeof(buf), &r), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(take_moves_only_taken),
		cmocka_unit_test(take_spreads_to_least_loaded),
		cmocka_unit_test(take_several),
		cmocka_unit_test(take_keeps_excluded_out),
		cmocka_unit_test(take_none_left),
		cmocka_unit_test(take_absent_queue),
		cmocka_unit_test(take_empty_table),
		cmocka_unit_test(take_uneven_load),
		cmocka_unit_test(take_large_ids),
		cmocka_unit_test(take_then_restore),
		cmocka_unit_test(rss_default_spread),
		cmocka_unit_test(channels_rx),
		cmocka_unit_test(free_location_lowest),
		cmocka_unit_test(free_location_empty_and_full),
		cmocka_unit_test(free_location_ignores_beyond_table),
		cmocka_unit_test(flow_types),
		cmocka_unit_test(ntuple_decode_short),
	};

	return cmocka_run_group_tests_name("ethrss", tests, NULL, NULL);
}
