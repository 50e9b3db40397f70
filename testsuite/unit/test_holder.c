// SPDX-License-Identifier: GPL-2.0
/* nkctl/lease/holder.c: who holds a NIC queue's lease, as the queue dump
 * says (every case of the review's list: no lease, a holder of the NIC's
 * own namespace, one named by netns-id, one whose namespace is being
 * deleted, netkit queue ids); and scan.c's finders of a recorded lease the
 * kernel cannot show (whether it may be a holder's is mine.c's:
 * test_mine.c). */
#include "unit.h"

#include "compat.h"
#include "lease/holder.h"
#include "lease/scan.h"

/* A queue leased to ifindex, by netns-id nsid when has_nsid. */
static struct nk_queue leased(int ifindex, bool has_nsid, int32_t nsid)
{
	struct nk_queue q = { .type = NK_NETDEV_QUEUE_TYPE_RX, .have = QUEUE_HAVE_LEASE };

	q.lease_ifindex = ifindex;
	if (has_nsid) {
		q.have |= QUEUE_HAVE_LEASE_NETNS_ID;
		q.lease_netns_id = nsid;
	}
	return q;
}

static void not_leased(void **state)
{
	struct nk_queue q = { .type = NK_NETDEV_QUEUE_TYPE_RX };
	struct nk_queue_holder h;
	uint32_t id, type;

	(void)state;
	assert_false(nk_queue_leased(&q));
	assert_false(nk_queue_leased(NULL));
	assert_false(nk_queue_holder(&q, &h));
	assert_false(nk_queue_lease_queue(&q, &id, &type));
	assert_false(nk_queue_leased_to(&q, 0, true, 0));
	assert_false(nk_queue_same_holder(&q, &q));
	assert_true(nk_queue_free(&q));
	assert_false(nk_queue_free(NULL));
	assert_false(nk_queue_foreign_mp(&q));
}

static void holder_here_and_elsewhere(void **state)
{
	struct nk_queue here = leased(7, false, 0), there = leased(7, true, 3);
	struct nk_queue_holder h;

	(void)state;
	assert_true(nk_queue_holder(&here, &h));
	assert_int_equal(h.ifindex, 7);
	assert_false(h.has_nsid);
	assert_true(nk_queue_holder(&there, &h));
	assert_true(h.has_nsid);
	assert_int_equal(h.nsid, 3);
	/* a holder is ifindex together with its namespace */
	assert_true(nk_queue_leased_to(&here, 7, true, 0));
	assert_false(nk_queue_leased_to(&here, 7, false, 3));
	assert_true(nk_queue_leased_to(&there, 7, false, 3));
	assert_false(nk_queue_leased_to(&there, 7, false, 4));
	assert_false(nk_queue_leased_to(&there, 7, true, 0));
	assert_false(nk_queue_leased_to(&there, 8, false, 3));
	assert_false(nk_queue_free(&here));
}

static void one_holder_or_two(void **state)
{
	struct nk_queue a = leased(7, true, 3), b = leased(7, true, 3), c = leased(7, true, 4),
			d = leased(7, false, 0), e = leased(8, true, 3);

	(void)state;
	assert_true(nk_queue_same_holder(&a, &b));
	assert_false(nk_queue_same_holder(&a, &c));   /* same ifindex, another namespace */
	assert_false(nk_queue_same_holder(&a, &d));   /* the NIC's own namespace */
	assert_false(nk_queue_same_holder(&a, &e));
	assert_true(nk_queue_same_holder(&d, &d));
}

/* netns-id -1: a namespace being deleted, its lease still held; a holder
 * like any other to these readers (the judgement calls it unknown). */
static void namespace_going(void **state)
{
	struct nk_queue q = leased(9, true, -1);
	struct nk_queue_holder h;

	(void)state;
	assert_true(nk_queue_leased(&q));
	assert_true(nk_queue_holder(&q, &h));
	assert_int_equal(h.nsid, -1);
	assert_false(nk_queue_leased_to(&q, 9, false, 3));
}

static void netkit_queue_and_providers(void **state)
{
	struct nk_queue q = leased(7, false, 0), mp = { .have = QUEUE_HAVE_DMABUF };
	uint32_t id = 99, type = 99;

	(void)state;
	assert_false(nk_queue_lease_queue(&q, &id, &type));
	q.have |= QUEUE_HAVE_LEASE_QUEUE;
	q.lease_queue_id = 2;
	q.lease_queue_type = NK_NETDEV_QUEUE_TYPE_RX;
	assert_true(nk_queue_lease_queue(&q, &id, &type));
	assert_int_equal(id, 2);
	assert_int_equal(type, NK_NETDEV_QUEUE_TYPE_RX);
	/* a provider on a leased queue is the lease's; on a free one, not */
	q.have |= QUEUE_HAVE_XSK;
	assert_false(nk_queue_foreign_mp(&q));
	assert_true(nk_queue_foreign_mp(&mp));
	assert_false(nk_queue_free(&mp));
}

/* A lease nkctl recorded and the kernel cannot show, found by the holder
 * that may hold it: its record's namespace nkctl cannot reach, so its name
 * counts. */
static void unseen_held(void **state)
{
	struct nk_ns pod = { .here = false }, host = { .here = true };
	struct nk_lease_rec r = { .unseen = true, .nk_ifindex = 5, .nk_ns = NULL };
	struct nk_link mine = { .ifindex = 5 }, other = { .ifindex = 6 };
	struct nk_lease_list l = { &r, 1, 1, NULL, 0, 0 };

	(void)state;
	snprintf(r.nk_ifname, sizeof(r.nk_ifname), "nkm");
	snprintf(mine.ifname, sizeof(mine.ifname), "nkm");
	snprintf(other.ifname, sizeof(other.ifname), "nkx");
	assert_ptr_equal(nk_lease_unseen_held(&l, &pod, &mine), &r);
	assert_null(nk_lease_unseen_held(&l, &pod, &other));
	/* a seen lease is never "unseen held", nor found by the finders of
	 * live leases when it is not seen */
	r.unseen = false;
	assert_null(nk_lease_unseen_held(&l, &pod, &mine));
	r.unseen = true;
	r.nk_ns = &host;
	assert_null(nk_lease_of_netkit(&l, 5, 0));
	assert_null(nk_lease_any_of_netkit(&l, 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_leased),
		cmocka_unit_test(holder_here_and_elsewhere),
		cmocka_unit_test(one_holder_or_two),
		cmocka_unit_test(namespace_going),
		cmocka_unit_test(netkit_queue_and_providers),
		cmocka_unit_test(unseen_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
