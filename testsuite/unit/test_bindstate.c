// SPDX-License-Identifier: GPL-2.0
/* nkctl/bind/bindstate.c: the holder's binding record (what holder.c writes and
 * show bindings and unbind read), old and damaged records; the size words
 * the record's dmabuf is shown with (bindings.c). */
#include "unit.h"

#include "args.h"
#include "bind/bindstate.h"
#include "bind/bindview.h"

static bool parse_string(const char *text, struct nk_binding *b)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool ok;

	assert_non_null(f);
	ok = nk_binding_state_parse(f, b);
	fclose(f);
	return ok;
}

static void full_binding(struct nk_binding *b)
{
	memset(b, 0, sizeof(*b));
	b->id = 42;
	b->rx = true;
	b->ns_dev = 4;
	b->ns_ino = 4026532100ULL;
	snprintf(b->netns, sizeof(b->netns), "pod-a");
	b->ifindex = 9;
	snprintf(b->ifname, sizeof(b->ifname), "nk0");
	b->have_phys = true;
	b->phys_ifindex = 3;
	snprintf(b->phys_ifname, sizeof(b->phys_ifname), "eth1");
	snprintf(b->phys_netns, sizeof(b->phys_netns), "/proc/1/ns/net");
	b->queues[0] = 6;
	b->queues[1] = 7;
	b->nqueues = 2;
	b->rx_page_size = 16384;
	b->kind = NK_DMABUF_HEAP;
	b->size = 64ULL << 20;
	b->hugepages = true;
	snprintf(b->heap, sizeof(b->heap), "system");
	b->pid = 1234;
	b->mode = NK_HOLD_COMMAND;
}

/* Write b into a real file and parse it back. */
static void round_trip(const struct nk_binding *b, struct nk_binding *back)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	nk_binding_state_format(f, b);
	assert_int_equal(fflush(f), 0);
	rewind(f);
	assert_true(nk_binding_state_parse(f, back));
	fclose(f);
}

static void round_trip_full(void **state)
{
	struct nk_binding b, back;

	(void)state;
	full_binding(&b);
	round_trip(&b, &back);
	assert_int_equal(back.id, 42);
	assert_true(back.rx);
	assert_int_equal(back.ns_dev, 4);
	assert_int_equal(back.ns_ino, 4026532100ULL);
	assert_string_equal(back.netns, "pod-a");
	assert_int_equal(back.ifindex, 9);
	assert_string_equal(back.ifname, "nk0");
	assert_true(back.have_phys);
	assert_int_equal(back.phys_ifindex, 3);
	assert_string_equal(back.phys_ifname, "eth1");
	assert_string_equal(back.phys_netns, "/proc/1/ns/net");
	assert_int_equal(back.nqueues, 2);
	assert_int_equal(back.queues[1], 7);
	assert_int_equal(back.rx_page_size, 16384);
	assert_int_equal(back.kind, NK_DMABUF_HEAP);
	assert_int_equal(back.size, 64ULL << 20);
	assert_true(back.hugepages);
	assert_string_equal(back.heap, "system");
	assert_int_equal(back.pid, 1234);
	assert_int_equal(back.mode, NK_HOLD_COMMAND);
	assert_true(back.held);
	assert_true(back.have_dmabuf);
}

static void round_trip_tx_plain(void **state)
{
	struct nk_binding b, back;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.id = 1;
	b.kind = NK_DMABUF_UDMABUF;
	b.mode = NK_HOLD_DAEMON;
	round_trip(&b, &back);
	assert_false(back.rx);
	assert_false(back.have_phys);
	assert_int_equal(back.nqueues, 0);
	assert_string_equal(back.netns, "");
	assert_int_equal(back.kind, NK_DMABUF_UDMABUF);
	assert_int_equal(back.mode, NK_HOLD_DAEMON);
}

static void round_trip_kinds_and_modes(void **state)
{
	struct nk_binding b, back;

	(void)state;
	full_binding(&b);
	b.kind = NK_DMABUF_FD;
	b.mode = NK_HOLD_FOREGROUND;
	round_trip(&b, &back);
	assert_int_equal(back.kind, NK_DMABUF_FD);
	assert_int_equal(back.mode, NK_HOLD_FOREGROUND);
}

static void round_trip_max_queues(void **state)
{
	struct nk_binding b, back;

	(void)state;
	full_binding(&b);
	for (uint32_t i = 0; i < NK_BIND_MAX_QUEUES; i++)
		b.queues[i] = 1000 + i;
	b.nqueues = NK_BIND_MAX_QUEUES;
	round_trip(&b, &back);
	assert_int_equal(back.nqueues, NK_BIND_MAX_QUEUES);
	assert_memory_equal(back.queues, b.queues, sizeof(b.queues));
}

static void refused_without_magic(void **state)
{
	struct nk_binding b;

	(void)state;
	assert_false(parse_string("", &b));
	assert_false(parse_string("nkctl-binding 2\nid 3\n", &b));
	assert_false(parse_string("id 3\nnkctl-binding 1\n", &b));
}

static void refused_without_id(void **state)
{
	struct nk_binding b;

	(void)state;
	assert_false(parse_string("nkctl-binding 1\nifname x\n", &b));
	assert_false(parse_string("nkctl-binding 1\nid 0\n", &b));
	assert_false(parse_string("nkctl-binding 1\nid\n", &b));
}

static void old_record_minimal(void **state)
{
	struct nk_binding b;

	(void)state;
	/* before rx-page-size, phys and mode lines */
	assert_true(parse_string("nkctl-binding 1\nid 5\ndirection rx\nifindex 2\nifname eth0\n"
				 "queues 1 2 3\nsource udmabuf\nsize 4096\npid 10\n",
				 &b));
	assert_int_equal(b.id, 5);
	assert_int_equal(b.nqueues, 3);
	assert_int_equal(b.rx_page_size, 0);
	assert_false(b.have_phys);
	assert_int_equal(b.mode, NK_HOLD_DAEMON);
}

static void damaged_lines_ignored(void **state)
{
	struct nk_binding b;

	(void)state;
	assert_true(parse_string("nkctl-binding 1\nid 8\nnonsense\nfuture-key 1\nmode nosuch\n"
				 "source what\nifname averyveryverylongname\n",
				 &b));
	assert_int_equal(b.id, 8);
	assert_int_equal(b.mode, NK_HOLD_DAEMON);
	assert_int_equal(b.kind, NK_DMABUF_UDMABUF);
	assert_int_equal(strlen(b.ifname), IF_NAMESIZE - 1);
}

static void damaged_too_many_queues(void **state)
{
	struct nk_binding b;
	char text[8192];
	size_t used = (size_t)sprintf(text, "nkctl-binding 1\nid 8\nqueues");

	(void)state;
	for (int i = 0; i < NK_BIND_MAX_QUEUES + 50; i++)
		used += (size_t)sprintf(text + used, " %d", i);
	sprintf(text + used, "\n");
	assert_true(parse_string(text, &b));
	assert_int_equal(b.nqueues, NK_BIND_MAX_QUEUES);
}

static void mode_names(void **state)
{
	(void)state;
	assert_string_equal(nk_hold_mode_name(NK_HOLD_DAEMON), "daemon");
	assert_string_equal(nk_hold_mode_name(NK_HOLD_FOREGROUND), "foreground");
	assert_string_equal(nk_hold_mode_name(NK_HOLD_COMMAND), "command");
	assert_string_equal(nk_hold_mode_name((enum nk_hold_mode)7), "unknown");
}

static void sort_by_id(void **state)
{
	struct nk_binding v[3];
	struct nk_binding_list l = { v, 3, 3 };

	(void)state;
	memset(v, 0, sizeof(v));
	v[0].id = 9;
	v[1].id = 2;
	v[2].id = 5;
	nk_binding_sort(&l);
	assert_int_equal(v[0].id, 2);
	assert_int_equal(v[1].id, 5);
	assert_int_equal(v[2].id, 9);
}

static void size_words(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(nk_size_word(4096, buf, sizeof(buf)), "4K");
	assert_string_equal(nk_size_word(64ULL << 20, buf, sizeof(buf)), "64M");
	assert_string_equal(nk_size_word(3ULL << 30, buf, sizeof(buf)), "3G");
	assert_string_equal(nk_size_word(1ULL << 50, buf, sizeof(buf)), "1024T");
	assert_string_equal(nk_size_word(1000, buf, sizeof(buf)), "1000");
	assert_string_equal(nk_size_word(1536, buf, sizeof(buf)), "1536");
}

static void size_word_parses_back(void **state)
{
	const uint64_t sizes[] = { 4096, 1536, 64ULL << 20, 5ULL << 30, 7ULL << 40 };
	char buf[32];
	uint64_t back;

	(void)state;
	for (size_t i = 0; i < N_ELEMS(sizes); i++) {
		assert_int_equal(nk_parse_size("size", nk_size_word(sizes[i], buf, sizeof(buf)),
					       UINT64_MAX, &back),
				 0);
		assert_int_equal(back, sizes[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_full),
		cmocka_unit_test(round_trip_tx_plain),
		cmocka_unit_test(round_trip_kinds_and_modes),
		cmocka_unit_test(round_trip_max_queues),
		cmocka_unit_test(refused_without_magic),
		cmocka_unit_test(refused_without_id),
		cmocka_unit_test(old_record_minimal),
		cmocka_unit_test(damaged_lines_ignored),
		cmocka_unit_test(damaged_too_many_queues),
		cmocka_unit_test(mode_names),
		cmocka_unit_test(sort_by_id),
		cmocka_unit_test(size_words),
		cmocka_unit_test(size_word_parses_back),
	};

	return cmocka_run_group_tests_name("bindstate", tests, NULL, NULL);
}
