// SPDX-License-Identifier: GPL-2.0
/* nkctl/nic/nicstate.c: the NIC state file's lines written and read back,
 * records of older nkctl versions, damaged lines, keys, and the record's
 * rule and lease bookkeeping. */
#include <fcntl.h>

#include "unit.h"

#include "lease/mine.h"
#include "nic/nicstate.h"
#include "nl.h"

#define MAGIC "nkctl-nic 1"

/* The lines of a state file, as nk_nic_state_read takes them: false when
 * the first is not the magic. */
static bool parse_text(const char *text, struct nk_nic_state *st)
{
	char *copy = strdup(text), *save = NULL, *line;
	bool magic = false;

	assert_non_null(copy);
	memset(st, 0, sizeof(*st));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!magic) {
			magic = !strcmp(line, MAGIC);
			if (!magic)
				break;
			continue;
		}
		parse_line(line, st);
	}
	free(copy);
	return magic;
}

/* What nk_nic_state_format writes for st (the caller frees it). */
static char *format(const struct nk_nic_state *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	nk_nic_state_format(f, st);
	assert_int_equal(fclose(f), 0);
	assert_non_null(text);
	return text;
}

static struct nk_nic_state *state_new(void)
{
	struct nk_nic_state *st = calloc(1, sizeof(*st));

	assert_non_null(st);
	return st;
}

static void state_free(struct nk_nic_state *st)
{
	nk_nic_state_free(st);
	free(st);
}

/* A new rule, zeroed, at the end of st's growing array. */
static struct nk_ntuple *rule_slot(struct nk_nic_state *st)
{
	struct nk_ntuple *r = nk_grow(&st->rules, &st->nrules, &st->rules_cap, sizeof(*r));

	assert_non_null(r);
	memset(r, 0, sizeof(*r));
	return r;
}

static struct nk_nic_lease *lease_slot(struct nk_nic_state *st)
{
	struct nk_nic_lease *l = nk_grow(&st->leases, &st->nleases, &st->leases_cap, sizeof(*l));

	assert_non_null(l);
	memset(l, 0, sizeof(*l));
	return l;
}

/* A state with every field: two rules with specs, a pending one, a lease
 * with a context, the saved settings. */
static struct nk_nic_state *full_state(void)
{
	struct nk_nic_state *st = state_new();
	struct nk_ntuple *r;
	struct nk_nic_lease *l;

	snprintf(st->ifname, sizeof(st->ifname), "eth1");
	st->ifindex = 7;
	st->ns_dev = 4;
	st->ns_ino = 4026531840ULL;
	snprintf(st->parent, sizeof(st->parent), "0000:01:00.0");
	snprintf(st->port, sizeof(st->port), "p0");
	snprintf(st->perm, sizeof(st->perm), "02:00:00:00:00:01");
	st->reserved[0] = 6;
	st->reserved[1] = 7;
	st->nreserved = 2;
	st->saved = true;
	st->have_tds = true;
	st->tds = 1;
	st->have_hds = true;
	st->hds = 256;
	st->indir_size = 8;
	for (uint32_t i = 0; i < 8; i++)
		st->indir[i] = i % 4;
	r = rule_slot(st);
	r->id = 1023;
	r->flow_type = NK_FLOW_TCP4;
	r->have_dst = r->have_dport = true;
	memcpy(r->dst, "\x0a\x01\x00\x05", 4);
	r->dport = 8080;
	r->action = 6;
	r = rule_slot(st);
	r->id = 5;
	r->flow_type = NK_FLOW_IP6;
	r->have_src = true;
	memcpy(r->src, "\xfd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09", 16);
	r->action = 1;
	r->rss_context = 3;
	st->have_pending = true;
	st->pending.flow_type = NK_FLOW_UDP4;
	st->pending.have_sport = true;
	st->pending.sport = 53;
	st->pending.action = NK_RULE_ACTION_DROP;
	l = lease_slot(st);
	l->ns_dev = 4;
	l->ns_ino = 4026532000ULL;
	l->ifindex = 12;
	snprintf(l->name, sizeof(l->name), "nl0123456789");
	l->queues[0] = 6;
	l->queues[1] = 7;
	l->nqueues = 2;
	l->rules[0] = 5;
	l->nrules = 1;
	l->leased[0] = 6;
	l->leased[1] = 7;
	l->nleased = 2;
	l->rss_context = 3;
	return st;
}

static void assert_rule_equal(const struct nk_ntuple *a, const struct nk_ntuple *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->flow_type, b->flow_type);
	assert_true(nk_ntuple_same(a, b));
	assert_memory_equal(a->src, b->src, 16);
	assert_memory_equal(a->dst, b->dst, 16);
}

static void assert_state_equal(const struct nk_nic_state *a, const struct nk_nic_state *b)
{
	assert_string_equal(a->ifname, b->ifname);
	assert_int_equal(a->ifindex, b->ifindex);
	assert_int_equal(a->ns_dev, b->ns_dev);
	assert_int_equal(a->ns_ino, b->ns_ino);
	assert_string_equal(a->parent, b->parent);
	assert_string_equal(a->port, b->port);
	assert_string_equal(a->perm, b->perm);
	assert_int_equal(a->nreserved, b->nreserved);
	assert_memory_equal(a->reserved, b->reserved, a->nreserved * sizeof(uint32_t));
	assert_int_equal(a->saved, b->saved);
	assert_int_equal(a->have_tds, b->have_tds);
	assert_int_equal(a->tds, b->tds);
	assert_int_equal(a->have_hds, b->have_hds);
	assert_int_equal(a->hds, b->hds);
	assert_int_equal(a->rss_default, b->rss_default);
	assert_int_equal(a->indir_size, b->indir_size);
	assert_memory_equal(a->indir, b->indir, a->indir_size * sizeof(uint32_t));
	assert_int_equal(a->nrules, b->nrules);
	for (size_t i = 0; i < a->nrules; i++)
		assert_rule_equal(&a->rules[i], &b->rules[i]);
	assert_int_equal(a->have_pending, b->have_pending);
	if (a->have_pending)
		assert_true(nk_ntuple_same(&a->pending, &b->pending));
	assert_int_equal(a->nleases, b->nleases);
	for (size_t i = 0; i < a->nleases; i++) {
		const struct nk_nic_lease *x = &a->leases[i], *y = &b->leases[i];

		assert_int_equal(x->ns_dev, y->ns_dev);
		assert_int_equal(x->ns_ino, y->ns_ino);
		assert_int_equal(x->ifindex, y->ifindex);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->nqueues, y->nqueues);
		assert_memory_equal(x->queues, y->queues, x->nqueues * sizeof(uint32_t));
		assert_int_equal(x->nrules, y->nrules);
		assert_memory_equal(x->rules, y->rules, x->nrules * sizeof(uint32_t));
		assert_int_equal(x->nleased, y->nleased);
		assert_memory_equal(x->leased, y->leased, x->nleased * sizeof(uint32_t));
		assert_int_equal(x->rss_context, y->rss_context);
	}
}

static void round_trip_full(void **state)
{
	struct nk_nic_state *st = full_state(), *back = state_new();
	char *text = format(st);

	(void)state;
	assert_int_equal(strncmp(text, MAGIC "\n", strlen(MAGIC) + 1), 0);
	assert_true(parse_text(text, back));
	assert_state_equal(st, back);
	free(text);
	state_free(st);
	state_free(back);
}

/* The head of a record: where and who, none of its lists, and whether it
 * records a lease (show leases reads every record so). */
static void head_leaves_lists_out(void **state)
{
	struct nk_nic_state *st = full_state(), *head = state_new(), *none = state_new();
	char *text = format(st);
	FILE *f = fmemopen(text, strlen(text), "r");
	bool leases;

	(void)state;
	assert_non_null(f);
	assert_int_equal(nk_nic_state_parse_head(f, head, &leases), 0);
	fclose(f);
	assert_true(head->exists && leases);
	assert_string_equal(head->ifname, st->ifname);
	assert_int_equal(head->ifindex, st->ifindex);
	assert_true(head->ns_dev == st->ns_dev && head->ns_ino == st->ns_ino);
	assert_string_equal(head->parent, st->parent);
	assert_string_equal(head->port, st->port);
	assert_string_equal(head->perm, st->perm);
	assert_true(head->saved && head->have_tds && head->tds == st->tds);
	assert_int_equal(head->nreserved, 0);
	assert_int_equal(head->indir_size, 0);
	assert_int_equal(head->nrules, 0);
	assert_int_equal(head->nleases, 0);
	assert_false(head->have_pending);
	free(text);
	/* no lease line: none said */
	st->nleases = 0;
	text = format(st);
	f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(nk_nic_state_parse_head(f, none, &leases), 0);
	fclose(f);
	assert_false(leases);
	free(text);
	state_free(st);
	state_free(head);
	state_free(none);
}

static void round_trip_twice_same_text(void **state)
{
	struct nk_nic_state *st = full_state(), *back = state_new();
	char *a = format(st), *b;

	(void)state;
	assert_true(parse_text(a, back));
	b = format(back);
	assert_string_equal(a, b);
	free(a);
	free(b);
	state_free(st);
	state_free(back);
}

static void round_trip_empty(void **state)
{
	struct nk_nic_state *st = state_new(), *back = state_new();
	char *text = format(st);

	(void)state;
	assert_string_equal(text, MAGIC "\nifname \nifindex 0\nnetns 0 0\nreserved\nsaved 0\nrules\n");
	assert_true(parse_text(text, back));
	assert_state_equal(st, back);
	free(text);
	state_free(st);
	state_free(back);
}

static void round_trip_rss_default(void **state)
{
	struct nk_nic_state *st = full_state(), *back = state_new();
	char *text;

	(void)state;
	st->rss_default = true;
	st->have_hds = false;
	text = format(st);
	assert_null(strstr(text, "hds-thresh"));
	assert_true(parse_text(text, back));
	assert_true(back->rss_default);
	assert_false(back->have_hds);
	free(text);
	state_free(st);
	state_free(back);
}

static void unsaved_settings_not_written(void **state)
{
	struct nk_nic_state *st = full_state(), *back = state_new();
	char *text;

	(void)state;
	st->saved = false;
	text = format(st);
	assert_null(strstr(text, "indir"));
	assert_null(strstr(text, "tcp-data-split"));
	assert_true(parse_text(text, back));
	assert_int_equal(back->indir_size, 0);
	assert_false(back->have_tds);
	free(text);
	state_free(st);
	state_free(back);
}

static void round_trip_large_table(void **state)
{
	struct nk_nic_state *st = state_new(), *back = state_new();
	char *text;

	(void)state;
	st->saved = true;
	st->indir_size = NK_RSS_MAX_INDIR;
	for (uint32_t i = 0; i < st->indir_size; i++)
		st->indir[i] = i % 1000;
	for (uint32_t i = 0; i < NK_MAX_QUEUES; i++)
		st->reserved[i] = i;
	st->nreserved = NK_MAX_QUEUES;
	text = format(st);
	assert_true(parse_text(text, back));
	assert_state_equal(st, back);
	free(text);
	state_free(st);
	state_free(back);
}

static void round_trip_many_leases(void **state)
{
	struct nk_nic_state *st = state_new(), *back = state_new();
	char *text;

	(void)state;
	/* 250 steered pods on one NIC: a lease and a rule each */
	for (uint32_t i = 0; i < 250; i++) {
		struct nk_nic_lease *l = lease_slot(st);
		struct nk_ntuple *r = rule_slot(st);

		l->ifindex = (int)i + 100;
		snprintf(l->name, sizeof(l->name), "holder%u", i);
		for (uint32_t k = 0; k < NK_NIC_LEASE_MAX; k++)
			l->queues[l->nqueues++] = i * NK_NIC_LEASE_MAX + k;
		l->leased[l->nleased++] = i;
		r->id = 511 - i;
		r->flow_type = NK_FLOW_IP4;
		r->have_dst = true;
		memcpy(r->dst, "\x0a\x02\x00", 3);
		r->dst[3] = (uint8_t)i;
		r->action = i;
		l->rules[l->nrules++] = r->id;
	}
	text = format(st);
	assert_true(parse_text(text, back));
	assert_state_equal(st, back);
	free(text);
	state_free(st);
	state_free(back);
}

/* First-format records: rules before specs were kept, leases before RSS
 * contexts, no parent, port or perm lines. */
static void old_rules_without_specs(void **state)
{
	struct nk_nic_state *st = state_new();
	struct nk_ntuple r = { .id = 4, .flow_type = NK_FLOW_TCP4, .action = 2 };

	(void)state;
	assert_true(parse_text(MAGIC "\nifname eth0\nifindex 3\nreserved 2\nsaved 0\nrules 4 9\n", st));
	assert_int_equal(st->nrules, 2);
	assert_int_equal(st->rules[0].id, 4);
	assert_int_equal(st->rules[0].flow_type, 0);
	assert_int_equal(st->rules[1].id, 9);
	/* a rule recorded without its spec is taken as nkctl's */
	assert_true(nk_mine_rule(st, &r));
	state_free(st);
}

static void old_rules_written_back_without_specs(void **state)
{
	struct nk_nic_state *st = state_new();
	char *text;

	(void)state;
	assert_true(parse_text(MAGIC "\nrules 4 9\n", st));
	text = format(st);
	assert_non_null(strstr(text, "\nrules 4 9\n"));
	assert_null(strstr(text, "\nrule "));
	free(text);
	state_free(st);
}

static void old_lease_without_context(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(parse_text(MAGIC "\nlease 4 4026532000 12 6,7 - 6 nkhold\n", st));
	assert_int_equal(st->nleases, 1);
	assert_int_equal(st->leases[0].ifindex, 12);
	assert_int_equal(st->leases[0].nqueues, 2);
	assert_int_equal(st->leases[0].nrules, 0);
	assert_int_equal(st->leases[0].nleased, 1);
	assert_string_equal(st->leases[0].name, "nkhold");
	assert_int_equal(st->leases[0].rss_context, 0);
	state_free(st);
}

static void old_spec_without_context(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(parse_text(MAGIC "\nrules 2\nrule 2 1 2 00000000000000000000000000000000 "
				     "0a000001000000000000000000000000 0 0 5\n",
			       st));
	assert_int_equal(st->rules[0].flow_type, NK_FLOW_TCP4);
	assert_true(st->rules[0].have_dst);
	assert_false(st->rules[0].have_src);
	assert_memory_equal(st->rules[0].dst, "\x0a\x00\x00\x01", 4);
	assert_int_equal(st->rules[0].action, 5);
	assert_int_equal(st->rules[0].rss_context, 0);
	state_free(st);
}

static void legacy_names(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(legacy_parse("4-4026531840-7", st));
	assert_int_equal(st->ns_dev, 4);
	assert_int_equal(st->ns_ino, 4026531840ULL);
	assert_int_equal(st->ifindex, 7);
	assert_false(legacy_parse("pci-0000:01:00.0-p0", st));
	assert_false(legacy_parse("perm-02:00:00:00:00:01", st));
	assert_false(legacy_parse("4-4026531840-7x", st));
	assert_false(legacy_parse("4-4026531840", st));
	assert_false(legacy_parse("", st));
	state_free(st);
}

static void corrupt_no_magic(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_false(parse_text("nkctl-nic 2\nifname eth0\n", st));
	assert_false(parse_text("ifname eth0\n" MAGIC "\n", st));
	assert_false(parse_text("", st));
	state_free(st);
}

static void corrupt_unknown_keys_ignored(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(parse_text(MAGIC "\nfuture-key 1 2 3\nifindex 9\n\n \nsaved\nifname\n", st));
	assert_int_equal(st->ifindex, 9);
	assert_false(st->saved);
	assert_string_equal(st->ifname, "");
	state_free(st);
}

static void corrupt_short_lease_ignored(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(parse_text(MAGIC "\nlease 4 5 6 1,2 -\nlease x y z\nlease\n", st));
	assert_int_equal(st->nleases, 0);
	state_free(st);
}

static void corrupt_bad_spec_ignored(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(parse_text(MAGIC "\nrules 3\nrule 3 1 2 zz\nrule x 1 2 a b 0 0 1\npending 1\n",
			       st));
	assert_int_equal(st->nrules, 1);
	assert_int_equal(st->rules[0].id, 3);
	assert_int_equal(st->rules[0].flow_type, 0);
	assert_false(st->have_pending);
	state_free(st);
}

static void corrupt_spec_of_unknown_rule(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	assert_true(parse_text(MAGIC "\nrules 1\nrule 2 1 0 00 00 0 0 5\n", st));
	assert_int_equal(st->nrules, 1);
	assert_int_equal(st->rules[0].id, 1);
	assert_int_equal(st->rules[0].flow_type, 0);
	state_free(st);
}

static void corrupt_overlong_values_cut(void **state)
{
	struct nk_nic_state *st = state_new();
	char text[16384];
	size_t used;

	(void)state;
	used = (size_t)snprintf(text, sizeof(text), MAGIC "\nifname %s\nparent %s\nrules",
				"averyveryverylongname", "0123456789012345678901234567890123456789");
	for (int i = 0; i < 266; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, " %d", i);
	snprintf(text + used, sizeof(text) - used, "\n");
	assert_true(parse_text(text, st));
	assert_int_equal(strlen(st->ifname), IF_NAMESIZE - 1);
	assert_int_equal(strlen(st->parent), sizeof(st->parent) - 1);
	assert_int_equal(st->nrules, 266);      /* no cap of nkctl's: all kept */
	state_free(st);
}

static void corrupt_too_many_leases(void **state)
{
	struct nk_nic_state *st = state_new();
	char *text = calloc(1, 64 * 1100 + 32);
	size_t used;

	(void)state;
	assert_non_null(text);
	used = (size_t)sprintf(text, MAGIC "\n");
	for (int i = 0; i < 1100; i++)
		used += (size_t)sprintf(text + used, "lease 1 2 %d %d - %d h%d\n", i, i, i, i);
	assert_true(parse_text(text, st));
	assert_int_equal(st->nleases, 1100);    /* all kept: the array grows */
	free(text);
	state_free(st);
}

static void corrupt_lease_lists_capped(void **state)
{
	struct nk_nic_state *st = state_new();
	char text[2048];
	size_t used;

	(void)state;
	used = (size_t)sprintf(text, MAGIC "\nlease 1 2 3 ");
	for (int i = 0; i < NK_NIC_LEASE_MAX + 20; i++)
		used += (size_t)sprintf(text + used, "%s%d", i ? "," : "", i);
	sprintf(text + used, " - - name\n");
	assert_true(parse_text(text, st));
	assert_int_equal(st->nleases, 1);
	assert_int_equal(st->leases[0].nqueues, NK_NIC_LEASE_MAX);
	state_free(st);
}

static struct nk_link link_of(const char *ifname, const char *bus, const char *parent,
			      const char *port, const uint8_t *perm, size_t perm_len)
{
	struct nk_link l;

	memset(&l, 0, sizeof(l));
	l.ifindex = 7;
	snprintf(l.ifname, sizeof(l.ifname), "%s", ifname);
	snprintf(l.parent_bus, sizeof(l.parent_bus), "%s", bus);
	snprintf(l.parent, sizeof(l.parent), "%s", parent);
	snprintf(l.port_name, sizeof(l.port_name), "%s", port);
	if (perm_len)
		memcpy(l.perm_addr, perm, perm_len);
	l.perm_addr_len = (uint8_t)perm_len;
	return l;
}

static const uint8_t perm1[6] = { 2, 0, 0, 0, 0, 1 };

static void key_forms(void **state)
{
	struct nk_ns ns = { .dev = 4, .ino = 99 };
	struct nk_link l;
	char key[NK_NIC_KEY_MAX];

	(void)state;
	l = link_of("eth0", "pci", "0000:01:00.0", "p0", perm1, 6);
	nk_nic_key(&ns, &l, key, sizeof(key));
	assert_string_equal(key, "pci-0000:01:00.0-p0");
	l = link_of("eth0", "pci", "0000:01:00.0", "", perm1, 6);
	nk_nic_key(&ns, &l, key, sizeof(key));
	assert_string_equal(key, "pci-0000:01:00.0-02:00:00:00:00:01");
	l = link_of("eth0", "", "netdevsim1", "", NULL, 0);
	nk_nic_key(&ns, &l, key, sizeof(key));
	assert_string_equal(key, "dev-netdevsim1");
	l = link_of("eth0", "", "", "", perm1, 6);
	nk_nic_key(&ns, &l, key, sizeof(key));
	assert_string_equal(key, "perm-02:00:00:00:00:01");
	l = link_of("eth0", "", "", "", NULL, 0);
	nk_nic_key(&ns, &l, key, sizeof(key));
	assert_string_equal(key, "ns-4-99-7");
}

static void key_sanitized(void **state)
{
	struct nk_ns ns = { .dev = 1, .ino = 2 };
	struct nk_link l = link_of("eth0", "pci", "a/../b c", "p 0", NULL, 0);
	char key[NK_NIC_KEY_MAX];

	(void)state;
	nk_nic_key(&ns, &l, key, sizeof(key));
	assert_string_equal(key, "pci-a_.._b_c-p_0");
	assert_null(strchr(key, '/'));
}

static void is_of_checks_identity(void **state)
{
	struct nk_ns ns = { .dev = 4, .ino = 99 };
	struct nk_link l = link_of("eth0", "pci", "0000:01:00.0", "p0", perm1, 6);
	struct nk_nic_state *st = state_new();
	uint8_t other[6] = { 2, 0, 0, 0, 0, 2 };

	(void)state;
	nk_nic_key(&ns, &l, st->key, sizeof(st->key));
	snprintf(st->parent, sizeof(st->parent), "0000:01:00.0");
	snprintf(st->perm, sizeof(st->perm), "02:00:00:00:00:01");
	assert_true(nk_nic_state_is_of(st, &ns, &l));
	/* renamed and moved: still its record */
	snprintf(l.ifname, sizeof(l.ifname), "ens1");
	assert_true(nk_nic_state_is_of(st, &ns, &l));
	/* another card in that slot */
	memcpy(l.perm_addr, other, 6);
	assert_false(nk_nic_state_is_of(st, &ns, &l));
	state_free(st);
}

static void is_of_place_only(void **state)
{
	struct nk_ns ns = { .dev = 4, .ino = 99 };
	struct nk_link l = link_of("veth0", "", "", "", NULL, 0);
	struct nk_nic_state *st = state_new();

	(void)state;
	nk_nic_key(&ns, &l, st->key, sizeof(st->key));
	snprintf(st->ifname, sizeof(st->ifname), "veth0");
	assert_true(nk_nic_state_is_of(st, &ns, &l));
	snprintf(l.ifname, sizeof(l.ifname), "veth9");
	assert_false(nk_nic_state_is_of(st, &ns, &l));
	state_free(st);
}

static void is_of_legacy_file(void **state)
{
	struct nk_ns ns = { .dev = 4, .ino = 99 };
	struct nk_link l = link_of("eth0", "pci", "0000:01:00.0", "", NULL, 0);
	struct nk_nic_state *st = state_new();

	(void)state;
	snprintf(st->key, sizeof(st->key), "4-99-7");
	snprintf(st->legacy, sizeof(st->legacy), "4-99-7");
	assert_true(nk_nic_state_is_of(st, &ns, &l));
	snprintf(st->parent, sizeof(st->parent), "0000:01:00.0");
	assert_true(nk_nic_state_is_of(st, &ns, &l));
	snprintf(st->parent, sizeof(st->parent), "0000:02:00.0");
	assert_false(nk_nic_state_is_of(st, &ns, &l));
	state_free(st);
}

static void ntuple_same_fields(void **state)
{
	struct nk_ntuple a = { .id = 1, .flow_type = NK_FLOW_TCP4, .have_dst = true,
			       .dport = 80, .action = 3 };
	struct nk_ntuple b = a;

	(void)state;
	memcpy(a.dst, "\x0a\x00\x00\x01", 4);
	memcpy(b.dst, "\x0a\x00\x00\x01", 4);
	b.id = 9;
	/* ports not matched on are not compared, nor bytes past IPv4's four */
	b.dport = 81;
	b.dst[8] = 0xff;
	assert_true(nk_ntuple_same(&a, &b));
	b.action = 4;
	assert_false(nk_ntuple_same(&a, &b));
	b.action = 3;
	b.rss_context = 1;
	assert_false(nk_ntuple_same(&a, &b));
	b.rss_context = 0;
	b.other_fields = true;
	assert_false(nk_ntuple_same(&a, &b));
	b.other_fields = false;
	b.dst[3] = 2;
	assert_false(nk_ntuple_same(&a, &b));
}

static void rules_add_forget(void **state)
{
	struct nk_nic_state *st = full_state();
	struct nk_ntuple r = { .id = 5, .flow_type = NK_FLOW_TCP4, .action = 2 };

	(void)state;
	assert_true(nk_nic_state_has_rule(st, 5));
	/* re-adding at a location replaces the record there */
	assert_true(nk_nic_state_add_rule(st, &r));
	assert_int_equal(st->nrules, 2);
	assert_true(nk_mine_rule(st, &r));
	r.action = 3;
	assert_false(nk_mine_rule(st, &r));
	nk_nic_state_forget_rule(st, 5);
	assert_false(nk_nic_state_has_rule(st, 5));
	/* and the lease that named it names it no more */
	assert_int_equal(st->leases[0].nrules, 0);
	state_free(st);
}

/* Past the old cap of 256 every rule is recorded (it used to be dropped
 * silently, the rule left in the NIC unrecorded). */
static void rules_grow(void **state)
{
	struct nk_nic_state *st = state_new();
	struct nk_ntuple r = { .flow_type = NK_FLOW_TCP4 };

	(void)state;
	for (uint32_t i = 0; i < 1024; i++) {
		r.id = i;
		assert_true(nk_nic_state_add_rule(st, &r));
	}
	assert_int_equal(st->nrules, 1024);
	assert_true(nk_nic_state_has_rule(st, 300));
	r.id = 0;
	assert_true(nk_nic_state_add_rule(st, &r));     /* the same id: replaced */
	assert_int_equal(st->nrules, 1024);
	state_free(st);
}

static void leases_add_find_drop(void **state)
{
	struct nk_nic_state *st = state_new();
	const uint32_t a[] = { 3, 4 }, b[] = { 9 };
	struct nk_nic_lease *la, *lb;

	(void)state;
	la = nk_nic_state_lease_add(st, a, 2);
	assert_non_null(la);
	la->queues[la->nqueues++] = 3;
	lb = nk_nic_state_lease_add(st, b, 1);
	assert_non_null(lb);
	lb->queues[lb->nqueues++] = 9;
	assert_int_equal(st->nleases, 2);
	/* the same queues again: the record already there */
	assert_ptr_equal(nk_nic_state_lease_add(st, a, 2), la);
	assert_ptr_equal(nk_nic_state_lease(st, 4), la);
	assert_null(nk_nic_state_lease(st, 5));
	assert_true(nk_nic_state_lease_holds(st, NULL, 9));
	assert_false(nk_nic_state_lease_holds(st, lb, 9));
	nk_nic_state_lease_drop(st, la);
	assert_int_equal(st->nleases, 1);
	assert_int_equal(st->leases[0].leased[0], 9);
	assert_null(nk_nic_state_lease(st, 3));
	state_free(st);
}

static void leases_grow(void **state)
{
	struct nk_nic_state *st = state_new();

	(void)state;
	for (uint32_t i = 0; i < 256; i++)
		assert_non_null(nk_nic_state_lease_add(st, &i, 1));
	assert_int_equal(st->nleases, 256);
	for (uint32_t i = 0; i < 256; i++)
		assert_int_equal(nk_nic_state_lease(st, i)->leased[0], i);
	state_free(st);
}

static void reserved_lookup(void **state)
{
	struct nk_nic_state *st = full_state();

	(void)state;
	assert_true(nk_nic_state_reserved(st, 6));
	assert_true(nk_nic_state_reserved(st, 7));
	assert_false(nk_nic_state_reserved(st, 0));
	state_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_full),
		cmocka_unit_test(round_trip_twice_same_text),
		cmocka_unit_test(head_leaves_lists_out),
		cmocka_unit_test(round_trip_empty),
		cmocka_unit_test(round_trip_rss_default),
		cmocka_unit_test(unsaved_settings_not_written),
		cmocka_unit_test(round_trip_large_table),
		cmocka_unit_test(round_trip_many_leases),
		cmocka_unit_test(old_rules_without_specs),
		cmocka_unit_test(old_rules_written_back_without_specs),
		cmocka_unit_test(old_lease_without_context),
		cmocka_unit_test(old_spec_without_context),
		cmocka_unit_test(legacy_names),
		cmocka_unit_test(corrupt_no_magic),
		cmocka_unit_test(corrupt_unknown_keys_ignored),
		cmocka_unit_test(corrupt_short_lease_ignored),
		cmocka_unit_test(corrupt_bad_spec_ignored),
		cmocka_unit_test(corrupt_spec_of_unknown_rule),
		cmocka_unit_test(corrupt_overlong_values_cut),
		cmocka_unit_test(corrupt_too_many_leases),
		cmocka_unit_test(corrupt_lease_lists_capped),
		cmocka_unit_test(key_forms),
		cmocka_unit_test(key_sanitized),
		cmocka_unit_test(is_of_checks_identity),
		cmocka_unit_test(is_of_place_only),
		cmocka_unit_test(is_of_legacy_file),
		cmocka_unit_test(ntuple_same_fields),
		cmocka_unit_test(rules_add_forget),
		cmocka_unit_test(rules_grow),
		cmocka_unit_test(leases_add_find_drop),
		cmocka_unit_test(leases_grow),
		cmocka_unit_test(reserved_lookup),
	};

	return cmocka_run_group_tests_name("nicstate", tests, NULL, NULL);
}
