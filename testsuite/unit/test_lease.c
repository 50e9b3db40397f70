// SPDX-License-Identifier: GPL-2.0
/* nkctl/lease/make.c: lease ... pool picks the lowest free queues. */
#include "unit.h"

#include "compat.h"
#include "lease/make.h"
#include "nic/nicjob.h"

static struct nk_queue queues[16];
static struct nic_job job;

/* The job of a NIC at ifindex 3 whose queue dump is l. */
static const struct nic_job *job_of(const struct nk_queue_list *l)
{
	memset(&job, 0, sizeof(job));
	job.link.ifindex = 3;
	job.queues = *l;
	return &job;
}

/* RX queues 0..n-1 of ifindex 3, and a TX queue 0. */
static struct nk_queue_list nic(size_t n)
{
	struct nk_queue_list l = { queues, 0, N_ELEMS(queues) };

	memset(queues, 0, sizeof(queues));
	for (size_t i = 0; i < n; i++) {
		queues[l.n].ifindex = 3;
		queues[l.n].id = (uint32_t)i;
		queues[l.n++].type = NK_NETDEV_QUEUE_TYPE_RX;
	}
	queues[l.n].ifindex = 3;
	queues[l.n++].type = NK_NETDEV_QUEUE_TYPE_TX;
	return l;
}

static void pick_lowest_free(void **state)
{
	struct nk_queue_list l = nic(8);
	const uint32_t pool[] = { 4, 5, 6, 7 };
	uint32_t ids[8];
	size_t n = 0;

	(void)state;
	queues[4].have = QUEUE_HAVE_LEASE;
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 4, 2, ids, &n), 3);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 5);
	assert_int_equal(ids[1], 6);
}

static void pick_skips_memory_providers(void **state)
{
	struct nk_queue_list l = nic(8);
	const uint32_t pool[] = { 1, 2, 3 };
	uint32_t ids[8];
	size_t n = 0;

	(void)state;
	queues[1].have = QUEUE_HAVE_DMABUF;
	queues[2].have = QUEUE_HAVE_XSK | QUEUE_HAVE_NAPI;
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 3, 1, ids, &n), 1);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 3);
}

static void pick_not_enough(void **state)
{
	struct nk_queue_list l = nic(4);
	const uint32_t pool[] = { 2, 3 };
	uint32_t ids[8];
	size_t n = 0;

	(void)state;
	queues[3].have = QUEUE_HAVE_IO_URING;
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 2, 2, ids, &n), 1);
	assert_int_equal(n, 0);
}

static void pick_queue_nic_lacks(void **state)
{
	struct nk_queue_list l = nic(4);
	const uint32_t pool[] = { 3, 9, 10 };
	uint32_t ids[8];
	size_t n = 0;

	(void)state;
	/* 9 and 10 are no RX queues of the NIC: never free */
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 3, 1, ids, &n), 1);
	assert_int_equal(ids[0], 3);
	n = 0;
	assert_int_equal(lease_pool_pick(job_of(&l), pool + 1, 2, 1, ids, &n), 0);
	assert_int_equal(n, 0);
}

static void pick_ignores_tx_queues(void **state)
{
	struct nk_queue_list l = nic(0);
	const uint32_t pool[] = { 0 };
	uint32_t ids[8];
	size_t n = 0;

	(void)state;
	/* only a TX queue 0: not a candidate */
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 1, 1, ids, &n), 0);
	assert_int_equal(n, 0);
}

static void pick_whole_pool(void **state)
{
	struct nk_queue_list l = nic(6);
	const uint32_t pool[] = { 0, 1, 2, 3, 4, 5 };
	uint32_t ids[8];
	size_t n = 0;

	(void)state;
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 6, 6, ids, &n), 6);
	assert_int_equal(n, 6);
	assert_memory_equal(ids, pool, sizeof(pool));
}

static void pick_appends(void **state)
{
	struct nk_queue_list l = nic(6);
	const uint32_t pool[] = { 4, 5 };
	uint32_t ids[8] = { 1 };
	size_t n = 1;

	(void)state;
	/* want counts what ids already holds */
	assert_int_equal(lease_pool_pick(job_of(&l), pool, 2, 2, ids, &n), 2);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pick_lowest_free),
		cmocka_unit_test(pick_skips_memory_providers),
		cmocka_unit_test(pick_not_enough),
		cmocka_unit_test(pick_queue_nic_lacks),
		cmocka_unit_test(pick_ignores_tx_queues),
		cmocka_unit_test(pick_whole_pool),
		cmocka_unit_test(pick_appends),
	};

	return cmocka_run_group_tests_name("lease (pool pick)", tests, NULL, NULL);
}
