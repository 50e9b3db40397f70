// SPDX-License-Identifier: GPL-2.0
/* nkctl/lease/fate.c and look.c: the one judgement of a lease's fate, table
 * by table: every way a NIC can be looked at, a namespace being deleted, a
 * moved holder, the same ifindex in another namespace, a re-probed NIC under
 * a new ifindex. */
#include <net/if.h>

#include "unit.h"

#include "compat.h"
#include "lease/fate.h"
#include "lease/look.h"

#define NS_A { true, 1, 100 }
#define NS_B { true, 1, 200 }
#define NS_NONE { false, 0, 0 }

/* A NIC seen with RX queues 0..3: queue 1 leased to (A, 7), queue 2 to
 * (B, 7), queue 3 to a namespace being deleted; queue 0 free. */
static struct nk_seen_queue qs[4];
static struct nk_nic_seen nic(enum nk_look look)
{
	struct nk_nic_seen s = { .look = look, .known = look == NK_LOOK_SEEN, .ifindex = 9 };

	memset(qs, 0, sizeof(qs));
	for (int i = 0; i < 4; i++)
		qs[i].present = true;
	qs[1] = (struct nk_seen_queue){ true, true, false, { NS_A, 7 }, 0 };
	qs[2] = (struct nk_seen_queue){ true, true, false, { NS_B, 7 }, 0 };
	qs[3] = (struct nk_seen_queue){ true, true, true, { NS_NONE, 7 }, 0 };
	s.nq = 4;
	s.q = qs;
	s.why = nk_look_why(look);
	return s;
}

/* Every look but SEEN: unknown, whatever is asked. */
static void not_seen_is_unknown(void **state)
{
	const enum nk_look looks[] = { NK_LOOK_DOWN, NK_LOOK_GONE, NK_LOOK_UNREADABLE,
				       NK_LOOK_UNREACHABLE };
	const struct nk_holder_id h = { NS_A, 7 };
	const uint32_t free_q[] = { 0 };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(looks); i++) {
		struct nk_nic_seen s = nic(looks[i]);

		assert_non_null(nk_look_why(looks[i]));
		assert_int_equal(nk_fate_of_queues(&s, free_q, 1), NK_FATE_UNKNOWN);
		assert_int_equal(nk_fate_of_slot(&s, 0, &h), NK_FATE_UNKNOWN);
		assert_null(nk_seen_queue(&s, 1));
	}
	assert_null(nk_look_why(NK_LOOK_SEEN));
}

struct queues_case {
	uint32_t ids[3];
	size_t n;
	enum nk_fate want;
	const char *what;
};

/* A NIC record's lease: by its queues alone (the holder may have moved). */
static void record_by_queues(void **state)
{
	const struct queues_case cases[] = {
		{ { 0 }, 1, NK_FATE_ENDED, "a free queue: ended" },
		{ { 1 }, 1, NK_FATE_LIVE, "leased: live" },
		{ { 2 }, 1, NK_FATE_LIVE, "leased to another namespace (a moved holder): live" },
		{ { 3 }, 1, NK_FATE_UNKNOWN, "leased to a namespace being deleted: unknown" },
		{ { 7 }, 1, NK_FATE_ENDED, "a queue the NIC no longer has: ended" },
		{ { 0, 1 }, 2, NK_FATE_LIVE, "one of two leased: live" },
		{ { 0, 3 }, 2, NK_FATE_UNKNOWN, "free and going: unknown" },
		{ { 0, 7 }, 2, NK_FATE_ENDED, "free and gone: ended" },
		{ { 1, 3 }, 2, NK_FATE_LIVE, "live and going: live" },
	};
	struct nk_nic_seen s = nic(NK_LOOK_SEEN);

	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		enum nk_fate got = nk_fate_of_queues(&s, cases[i].ids, cases[i].n);

		if (got != cases[i].want)
			fail_msg("%s: got fate %d", cases[i].what, got);
	}
}

struct slot_case {
	uint32_t queue;
	struct nk_holder_id h;
	enum nk_fate want;
	const char *what;
};

/* An AF_XDP slot: ifindex together with the namespace. */
static void slot_by_holder(void **state)
{
	const struct slot_case cases[] = {
		{ 1, { NS_A, 7 }, NK_FATE_LIVE, "its own holder" },
		{ 2, { NS_A, 7 }, NK_FATE_ENDED, "the same ifindex in another namespace holds queue 2" },
		{ 0, { NS_A, 7 }, NK_FATE_ENDED, "a free queue" },
		{ 1, { NS_A, 8 }, NK_FATE_ENDED, "another ifindex of the same namespace" },
		{ 3, { NS_A, 5 }, NK_FATE_UNKNOWN, "a namespace being deleted holds queue 3" },
		{ 3, { NS_B, 7 }, NK_FATE_UNKNOWN, "a namespace being deleted holds queue 3: may be B's 7" },
		{ 1, { NS_NONE, 7 }, NK_FATE_ENDED,
		  "a holder in a namespace nkctl does not reach: queue 1 is A's 7's" },
		{ 3, { NS_NONE, 7 }, NK_FATE_UNKNOWN,
		  "a holder in a namespace nkctl does not reach, queue 3 going" },
		{ 9, { NS_A, 7 }, NK_FATE_ENDED, "a queue the NIC no longer has" },
	};
	struct nk_nic_seen s = nic(NK_LOOK_SEEN);

	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		enum nk_fate got = nk_fate_of_slot(&s, cases[i].queue, &cases[i].h);

		if (got != cases[i].want)
			fail_msg("%s: slot fate %d", cases[i].what, got);
	}
}

static void join_and_words(void **state)
{
	(void)state;
	assert_int_equal(nk_fate_join(NK_FATE_ENDED, NK_FATE_ENDED), NK_FATE_ENDED);
	assert_int_equal(nk_fate_join(NK_FATE_ENDED, NK_FATE_UNKNOWN), NK_FATE_UNKNOWN);
	assert_int_equal(nk_fate_join(NK_FATE_UNKNOWN, NK_FATE_LIVE), NK_FATE_LIVE);
	assert_int_equal(nk_fate_join(NK_FATE_LIVE, NK_FATE_ENDED), NK_FATE_LIVE);
	assert_string_equal(nk_look_word(NK_LOOK_DOWN), "down");
	assert_string_equal(nk_look_word(NK_LOOK_SEEN), "seen");
}

/* look.c from a dump: only the NIC's own RX queues (a re-probed NIC under
 * a new ifindex beside the old one's queues), holders in the NIC's own
 * namespace told, netns-id -1 going, an nsid without ctx not told. */
static void seen_from_dump(void **state)
{
	struct nk_ns ns = { .dev = 1, .ino = 100 };
	struct nk_queue v[] = {
		{ .ifindex = 9, .id = 0, .type = NK_NETDEV_QUEUE_TYPE_RX },
		{ .ifindex = 9, .id = 1, .type = NK_NETDEV_QUEUE_TYPE_RX, .have = QUEUE_HAVE_LEASE,
		  .lease_ifindex = 7 },
		{ .ifindex = 9, .id = 2, .type = NK_NETDEV_QUEUE_TYPE_RX,
		  .have = QUEUE_HAVE_LEASE | QUEUE_HAVE_LEASE_NETNS_ID | QUEUE_HAVE_DMABUF,
		  .lease_ifindex = 7, .lease_netns_id = -1 },
		{ .ifindex = 9, .id = 3, .type = NK_NETDEV_QUEUE_TYPE_RX,
		  .have = QUEUE_HAVE_LEASE | QUEUE_HAVE_LEASE_NETNS_ID, .lease_ifindex = 4,
		  .lease_netns_id = 2 },
		{ .ifindex = 9, .id = 5, .type = NK_NETDEV_QUEUE_TYPE_TX },
		{ .ifindex = 6, .id = 4, .type = NK_NETDEV_QUEUE_TYPE_RX, .have = QUEUE_HAVE_LEASE,
		  .lease_ifindex = 7 },
	};
	struct nk_queue_list ql = { v, N_ELEMS(v), N_ELEMS(v) };
	struct nk_nic_seen s;
	const struct nk_holder_id own = { { true, 1, 100 }, 7 };
	const uint32_t q4[] = { 4 };

	(void)state;
	assert_int_equal(nk_nic_seen_from(NULL, &ns, 9, NK_LOOK_SEEN, &ql, &s), 0);
	assert_int_equal(s.nq, 4);          /* RX 0..3 of ifindex 9 only */
	assert_true(s.known);
	assert_int_equal(nk_fate_of_slot(&s, 1, &own), NK_FATE_LIVE);
	assert_true(s.q[2].ns_going);
	assert_int_equal(s.q[2].mp, QUEUE_HAVE_DMABUF);
	assert_int_equal(nk_fate_of_slot(&s, 2, &own), NK_FATE_UNKNOWN);
	assert_false(s.q[3].holder.ns.known);   /* an nsid, no ctx to name it */
	assert_int_equal(nk_fate_of_slot(&s, 3, &own), NK_FATE_UNKNOWN);
	assert_int_equal(nk_fate_of_queues(&s, q4, 1), NK_FATE_ENDED); /* the old NIC's queue */
	nk_nic_seen_free(&s);

	/* down: the dump shows nothing of it, and nothing is decided */
	assert_int_not_equal(nk_nic_seen_from(NULL, &ns, 9, NK_LOOK_DOWN, &ql, &s), 0);
	assert_int_equal(nk_fate_of_queues(&s, q4, 1), NK_FATE_UNKNOWN);
	nk_nic_seen_free(&s);
	/* seen up, but the dump has no queue of it (down meanwhile) */
	assert_int_not_equal(nk_nic_seen_from(NULL, &ns, 11, NK_LOOK_SEEN, &ql, &s), 0);
	assert_int_equal(s.look, NK_LOOK_UNREADABLE);
	nk_nic_seen_free(&s);
}

/* A lease seen before and left out of a later dump: a NIC gone took it;
 * every other look is as for a slot (down, unreadable, out of reach:
 * unknown; seen: by its holder). */
static void lease_was(void **state)
{
	const struct nk_holder_id a7 = { NS_A, 7 }, b7 = { NS_B, 7 };
	struct nk_nic_seen gone = nic(NK_LOOK_GONE), down = nic(NK_LOOK_DOWN),
			   seen = nic(NK_LOOK_SEEN);

	(void)state;
	assert_int_equal(nk_fate_of_lease_was(&gone, 1, &a7), NK_FATE_ENDED);
	assert_int_equal(nk_fate_of_lease_was(&down, 1, &a7), NK_FATE_UNKNOWN);
	seen = nic(NK_LOOK_SEEN);
	assert_int_equal(nk_fate_of_lease_was(&seen, 1, &a7), NK_FATE_LIVE);
	assert_int_equal(nk_fate_of_lease_was(&seen, 1, &b7), NK_FATE_ENDED);
	assert_int_equal(nk_fate_of_lease_was(&seen, 0, &a7), NK_FATE_ENDED);
	assert_int_equal(nk_fate_of_lease_was(&seen, 3, &a7), NK_FATE_UNKNOWN);
}

/* The one look of a NIC from its link (and whether its queues were
 * dumped): down whatever the dump, unreadable when up and not dumped. */
static void look_of_link(void **state)
{
	struct nk_link up = { .flags = IFF_UP }, down = { .flags = 0 };

	(void)state;
	assert_int_equal(nk_look_of(&up, true), NK_LOOK_SEEN);
	assert_int_equal(nk_look_of(&up, false), NK_LOOK_UNREADABLE);
	assert_int_equal(nk_look_of(&down, true), NK_LOOK_DOWN);
	assert_int_equal(nk_look_of(&down, false), NK_LOOK_DOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_seen_is_unknown),
		cmocka_unit_test(record_by_queues),
		cmocka_unit_test(slot_by_holder),
		cmocka_unit_test(join_and_words),
		cmocka_unit_test(lease_was),
		cmocka_unit_test(look_of_link),
		cmocka_unit_test(seen_from_dump),
	};

	return cmocka_run_group_tests_name("fate", tests, NULL, NULL);
}
