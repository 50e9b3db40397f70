// SPDX-License-Identifier: GPL-2.0
/* nkctl/nic/nicreserve.c: the reserved set, and the RSS table the reservation
 * writes (from the saved table while it fits, so a release gives entries
 * back). */
#include "unit.h"

#include "nic/nicreserve.h"

static struct nic_job *job(uint32_t size, uint32_t nq)
{
	struct nic_job *j = calloc(1, sizeof(*j));

	assert_non_null(j);
	snprintf(j->link.ifname, sizeof(j->link.ifname), "eth0");
	j->rss.indir_size = size;
	for (uint32_t i = 0; i < size; i++)
		j->rss.indir[i] = i % nq;
	return j;
}

static void reserve_add_sorted_distinct(void **state)
{
	struct nic_job *j = job(0, 1);
	const uint32_t a[] = { 7, 3 }, b[] = { 5, 3, 9 };

	(void)state;
	reserve_add(&j->st, a, 2);
	reserve_add(&j->st, b, 3);
	assert_int_equal(j->st.nreserved, 4);
	assert_int_equal(j->st.reserved[0], 3);
	assert_int_equal(j->st.reserved[1], 5);
	assert_int_equal(j->st.reserved[2], 7);
	assert_int_equal(j->st.reserved[3], 9);
	free(j);
}

static void table_without_reserved(void **state)
{
	struct nic_job *j = job(16, 4);
	uint32_t t[16];
	const uint32_t r[] = { 3 };

	(void)state;
	reserve_add(&j->st, r, 1);
	assert_int_equal(minimal_table(j, t), 0);
	for (int i = 0; i < 16; i++) {
		assert_int_not_equal(t[i], 3);
		if (j->rss.indir[i] != 3)
			assert_int_equal(t[i], j->rss.indir[i]);
	}
	free(j);
}

static void table_from_saved(void **state)
{
	struct nic_job *j = job(8, 4);
	uint32_t t[8];
	const uint32_t r[] = { 2 };

	(void)state;
	/* the NIC's table now misses queue 1 (reserved before, now released) */
	j->st.saved = true;
	j->st.indir_size = 8;
	memcpy(j->st.indir, j->rss.indir, sizeof(t));
	for (int i = 0; i < 8; i++)
		if (j->rss.indir[i] == 1)
			j->rss.indir[i] = 0;
	reserve_add(&j->st, r, 1);
	assert_int_equal(minimal_table(j, t), 0);
	/* queue 1 gets its own entries back */
	for (int i = 0; i < 8; i++)
		if (j->st.indir[i] != 2)
			assert_int_equal(t[i], j->st.indir[i]);
	free(j);
}

static void table_saved_of_other_size(void **state)
{
	struct nic_job *j = job(8, 4);
	uint32_t t[8];

	(void)state;
	/* the channels changed since: the NIC's table is the base */
	j->st.saved = true;
	j->st.indir_size = 4;
	assert_int_equal(minimal_table(j, t), 0);
	assert_memory_equal(t, j->rss.indir, sizeof(t));
	free(j);
}

static void table_nothing_left(void **state)
{
	struct nic_job *j = job(4, 2);
	uint32_t t[4];
	const uint32_t r[] = { 0, 1 };
	char err[512];
	int ret;

	(void)state;
	reserve_add(&j->st, r, 2);
	ERR_OF(err, ret = minimal_table(j, t));
	assert_int_not_equal(ret, 0);
	assert_non_null(strstr(err, "eth0: the RSS table would have no queue left"));
	free(j);
}

static void table_restored_when_all_released(void **state)
{
	struct nic_job *j = job(8, 4);
	uint32_t t[8];

	(void)state;
	j->st.saved = true;
	j->st.indir_size = 8;
	memcpy(j->st.indir, j->rss.indir, sizeof(t));
	for (int i = 0; i < 8; i++)
		j->rss.indir[i] = 0;
	assert_int_equal(minimal_table(j, t), 0);
	assert_memory_equal(t, j->st.indir, sizeof(t));
	free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reserve_add_sorted_distinct),
		cmocka_unit_test(table_without_reserved),
		cmocka_unit_test(table_from_saved),
		cmocka_unit_test(table_saved_of_other_size),
		cmocka_unit_test(table_nothing_left),
		cmocka_unit_test(table_restored_when_all_released),
	};

	return cmocka_run_group_tests_name("nicreserve (reserved table)", tests, NULL, NULL);
}
