// SPDX-License-Identifier: GPL-2.0
/* nkctl/lease/mine.c: "mine", table by table, every case of the review's
 * list: a lease record held, not held, its holder's namespace unknown; a
 * rule at a recorded location; an RSS context at a recorded id; a NIC of
 * the command's own. */
#include <net/if.h>

#include "unit.h"

#include "compat.h"
#include "lease/mine.h"

/* ---- a lease nkctl recorded and the kernel cannot show ---- */

/* The name of the device at a record's place now, as the case queues it
 * (will_return: a name, or NULL for none there). Asked with nothing
 * queued, or not asked when queued, fails the test: it must be asked only
 * when the answer turns on it. */
static bool name_now(struct nk_ns *ns, int ifindex, char *name)
{
	const char *there;

	check_expected_ptr(ns);
	check_expected(ifindex);
	there = mock_ptr_type(const char *);
	if (there)
		snprintf(name, IF_NAMESIZE, "%s", there);
	return there != NULL;
}

/* Where the record says its holder was leased, from the asker's side. */
enum recorded_in {
	IN_HOLDERS_NS,          /* the asking holder's namespace */
	IN_ANOTHER_NS,          /* another namespace nkctl reaches */
	NS_UNKNOWN,             /* a namespace nkctl cannot reach */
};

struct lease_case {
	enum recorded_in in;
	int ifindex;            /* the asking holder's; the record says 5 */
	const char *name;       /* the asking holder's; the record says "nkm" */
	bool asked;             /* name_now is asked, and says... */
	const char *there;      /* ...this device is at the recorded place now */
	bool want;
	const char *what;
};

static void lease_record(void **state)
{
	const struct lease_case cases[] = {
		{ IN_HOLDERS_NS, 5, "nkm", false, NULL, true, "held: its namespace and ifindex" },
		{ IN_HOLDERS_NS, 5, "nkx", false, NULL, true,
		  "held: renamed since, its namespace and ifindex count" },
		{ IN_HOLDERS_NS, 6, "nkm", false, NULL, false,
		  "not held: another ifindex of its namespace, even of its name" },
		{ IN_ANOTHER_NS, 5, "nkx", false, NULL, false,
		  "not held: recorded elsewhere, another name" },
		{ IN_ANOTHER_NS, 6, "nkm", true, "nkm", false,
		  "not held: the recorded holder is still where it was leased" },
		{ IN_ANOTHER_NS, 6, "nkm", true, "nkz", true,
		  "held: another device at the recorded place, the holder moved" },
		{ IN_ANOTHER_NS, 6, "nkm", true, NULL, true,
		  "held: nothing at the recorded place (or out of reach), the holder moved" },
		{ NS_UNKNOWN, 6, "nkm", false, NULL, true,
		  "held: the holder's namespace unknown, its name counts" },
		{ NS_UNKNOWN, 6, "nkx", false, NULL, false,
		  "not held: the holder's namespace unknown, another name" },
	};
	struct nk_ns pod = { .dev = 1, .ino = 100 }, host = { .dev = 1, .ino = 200 };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		const struct lease_case *c = &cases[i];
		struct nk_lease_rec r = { .unseen = true, .nk_ifindex = 5 };
		struct nk_link l = { .ifindex = c->ifindex };
		bool got;

		snprintf(r.nk_ifname, sizeof(r.nk_ifname), "nkm");
		snprintf(l.ifname, sizeof(l.ifname), "%s", c->name);
		r.nk_ns = c->in == IN_HOLDERS_NS ? &pod : c->in == IN_ANOTHER_NS ? &host : NULL;
		if (c->asked) {
			expect_value(name_now, ns, cast_ptr_to_largest_integral_type(&host));
			expect_value(name_now, ifindex, 5);
			will_return(name_now, cast_ptr_to_largest_integral_type(c->there));
		}
		got = nk_mine_lease(&r, &pod, &l, name_now);
		if (got != c->want)
			fail_msg("%s: got %d", c->what, got);
	}
}

/* ---- an n-tuple rule at a recorded location ---- */

struct rule_case {
	struct nk_ntuple now;   /* what the driver has at now.id */
	bool want;
	const char *what;
};

static void rule(void **state)
{
	const struct nk_ntuple tcp = { .id = 4, .flow_type = NK_FLOW_TCP4, .have_dport = true,
				       .dport = 8080, .action = 2 };
	struct nk_ntuple recorded[] = {
		tcp,
		{ .id = 9 },    /* recorded before specs were kept: flow_type 0 */
	};
	struct rule_case cases[] = {
		{ tcp, true, "the same id, the same fields" },
		{ tcp, false, "the same id, another queue" },
		{ tcp, false, "the same id, another port" },
		{ tcp, false, "the same id, fields nkctl does not show" },
		{ tcp, true, "a recorded id without a spec: taken as nkctl's" },
		{ tcp, false, "an id nkctl did not record, the same fields" },
	};
	struct nk_nic_state *st = calloc(1, sizeof(*st));

	(void)state;
	assert_non_null(st);
	st->rules = recorded;
	st->nrules = N_ELEMS(recorded);
	cases[1].now.action = 3;
	cases[2].now.dport = 8081;
	cases[3].now.other_fields = true;
	cases[4].now.id = 9;
	cases[5].now.id = 7;
	for (size_t i = 0; i < N_ELEMS(cases); i++)
		if (nk_mine_rule(st, &cases[i].now) != cases[i].want)
			fail_msg("%s: not %d", cases[i].what, cases[i].want);
	free(st);
}

/* ---- an RSS context at a lease's recorded id ---- */

struct ctx_case {
	uint32_t context;
	uint32_t queues[4];
	size_t nqueues;
	bool more_queues;
	bool there, want;
	const char *what;
};

static void rss_context(void **state)
{
	const struct ctx_case cases[] = {
		{ 7, { 2, 3, 5 }, 3, false, true, true, "exactly the leased queues" },
		{ 7, { 2, 3 }, 2, false, true, false, "fewer queues" },
		{ 7, { 2, 3, 5, 6 }, 4, false, true, false, "more queues" },
		{ 7, { 2, 3, 6 }, 3, false, true, false, "as many queues, another one" },
		{ 7, { 2, 3, 5 }, 3, true, true, false, "more queues than the kernel listed" },
		{ 8, { 2, 3, 5 }, 3, false, false, false,
		  "no context at the recorded id (one of the same queues elsewhere)" },
	};
	struct nk_nic_lease l = { .leased = { 5, 2, 3 }, .nleased = 3, .rss_context = 7 };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		const struct ctx_case *c = &cases[i];
		struct nk_rss_ctx v[2] = { { .context = 1, .queues = { 0 }, .nqueues = 1 } };
		struct nk_rss_ctx_list all = { v, N_ELEMS(v), N_ELEMS(v) };
		bool there = !c->there, got;

		v[1].context = c->context;
		memcpy(v[1].queues, c->queues, sizeof(c->queues));
		v[1].nqueues = c->nqueues;
		v[1].more_queues = c->more_queues;
		got = nk_mine_rss_context(&all, &l, &there);
		if (got != c->want || there != c->there)
			fail_msg("%s: ours %d, there %d", c->what, got, there);
	}
}

/* ---- a NIC of the command's own ---- */

struct nic_case {
	struct nk_ns *ns;
	int ifindex;
	struct nk_ns *record_ns;        /* of its lease record; NULL: none */
	const char *record_name;
	const char *holder;             /* the holder unleased; NULL: none */
	bool want;
	const char *what;
};

static void nic(void **state)
{
	struct nk_ns a = { .dev = 1, .ino = 100 }, b = { .dev = 1, .ino = 200 };
	const struct nk_nic_at own[] = { { 1, 100, 9 } };
	const struct nic_case cases[] = {
		{ &a, 9, NULL, NULL, NULL, true, "in the own list" },
		{ &a, 10, NULL, NULL, NULL, false, "another ifindex" },
		{ &b, 9, NULL, NULL, NULL, false, "another namespace, the same ifindex" },
		{ &b, 10, &a, "nkh", "nkh", true, "a record names the holder" },
		{ &b, 10, &b, "nkh", "nkh", false,
		  "a record names the holder's name in another namespace" },
		{ &b, 10, &a, "nko", "nkh", false, "a record names another holder" },
		{ &b, 10, &a, "nkh", NULL, false, "a record, no holder asked" },
	};
	struct nk_nic_state *st = calloc(1, sizeof(*st));

	(void)state;
	assert_non_null(st);
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		const struct nic_case *c = &cases[i];
		const struct nk_mine_who who = { &a, c->holder, own, N_ELEMS(own) };
		struct nk_nic_lease rec = { 0 };

		st->leases = c->record_ns ? &rec : NULL;
		st->nleases = c->record_ns ? 1 : 0;
		if (c->record_ns) {
			rec.ns_dev = c->record_ns->dev;
			rec.ns_ino = c->record_ns->ino;
			snprintf(rec.name, sizeof(rec.name), "%s", c->record_name);
			if (nk_mine_record(&rec, &a, c->holder) != c->want)
				fail_msg("%s: the record, not %d", c->what, c->want);
		}
		if (nk_mine_nic(&who, c->ns, c->ifindex, st) != c->want)
			fail_msg("%s: not %d", c->what, c->want);
	}
	/* the holder's namespace gone from view (unlease dev ... netns of a
	 * name that names nothing now): a record of that name in any namespace */
	{
		struct nk_nic_lease rec = { .ns_dev = b.dev, .ns_ino = b.ino };

		snprintf(rec.name, sizeof(rec.name), "nkh");
		assert_true(nk_mine_record(&rec, NULL, "nkh"));
		assert_false(nk_mine_record(&rec, NULL, "nko"));
		assert_false(nk_mine_record(&rec, NULL, NULL));
	}
	/* a plain sweep: no holder, no NIC of its own */
	st->leases = NULL;
	st->nleases = 0;
	assert_false(nk_mine_nic(&(const struct nk_mine_who){ 0 }, &a, 9, st));
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lease_record),
		cmocka_unit_test(rule),
		cmocka_unit_test(rss_context),
		cmocka_unit_test(nic),
	};

	return cmocka_run_group_tests_name("mine", tests, NULL, NULL);
}
