// SPDX-License-Identifier: GPL-2.0
/* nkctl/xsk/xskfit.c: when a pinned holder map is reused, what at a pin
 * is not nkctl's, the holder directory's mode, and which owners may not
 * hold two live holders' maps. */
#include "unit.h"

#include <linux/bpf.h>

#include "xsk.h"
#include "xsk/xskfit.h"

static void map_fits(void **state)
{
	const struct xsk_map_shape ok = { BPF_MAP_TYPE_XSKMAP, 4, 4, NK_XSK_HOLDER_QUEUES, 0 };
	struct xsk_map_shape m = ok;

	(void)state;
	assert_null(xsk_map_misfit(&ok));
	m.max_entries = 256;  /* an older nkctl's */
	assert_string_equal(xsk_map_misfit(&m), "size");
	m = ok, m.type = BPF_MAP_TYPE_HASH;
	assert_string_equal(xsk_map_misfit(&m), "type");
	m = ok, m.value_size = 8;
	assert_string_equal(xsk_map_misfit(&m), "type");
	m = ok, m.flags = BPF_F_RDONLY;
	assert_string_equal(xsk_map_misfit(&m), "flags");
}

static void pin_foreign(void **state)
{
	const struct stat ok = { .st_mode = S_IFREG | 0600, .st_nlink = 1 };
	struct stat st = ok;

	(void)state;
	assert_null(xsk_pin_foreign(&ok, true));
	assert_string_equal(xsk_pin_foreign(&ok, false), "not on bpffs");
	st.st_nlink = 2;  /* another tenant's map linked in */
	assert_string_equal(xsk_pin_foreign(&st, true), "a hard link");
	st = ok, st.st_mode = S_IFLNK | 0777;
	assert_string_equal(xsk_pin_foreign(&st, true), "a symbolic link");
	st = ok, st.st_mode = S_IFDIR | 0700, st.st_nlink = 2;
	assert_string_equal(xsk_pin_foreign(&st, true), "a directory");
	st = ok, st.st_mode = S_IFIFO | 0600;
	assert_string_equal(xsk_pin_foreign(&st, true), "not a pinned object");
}

static void dir_mode(void **state)
{
	(void)state;
	assert_int_equal(xsk_dir_mode(0600), 0700);
	assert_int_equal(xsk_dir_mode(0400), 0700);
	assert_int_equal(xsk_dir_mode(0660), 0750);
	assert_int_equal(xsk_dir_mode(0640), 0750);
}

static void narrowed(void **state)
{
	(void)state;
	assert_true(xsk_access_narrowed(0640, 0600));   /* the group's read */
	assert_true(xsk_access_narrowed(0660, 0640));   /* the group's write */
	assert_true(xsk_access_narrowed(0604, 0600));   /* others' */
	assert_false(xsk_access_narrowed(0600, 0640));  /* widened */
	assert_false(xsk_access_narrowed(0640, 0640));
	assert_false(xsk_access_narrowed(0600, 0400));  /* the owner keeps its map anyway */
}

static enum xsk_clash clash(uid_t u1, gid_t g1, mode_t m1, uid_t u2, gid_t g2, mode_t m2,
			    bool share)
{
	struct xsk_access a = { u1, g1, m1 }, b = { u2, g2, m2 };

	return xsk_access_clash(&a, NULL, &b, NULL, share);
}

static void owners(void **state)
{
	(void)state;
	assert_int_equal(clash(107, 107, 0600, 107, 107, 0600, false), XSK_CLASH_USER);
	assert_int_equal(clash(107, 107, 0600, 107, 107, 0600, true), XSK_CLASH_NONE); /* share */
	assert_int_equal(clash(107, 0, 0600, 4242, 0, 0600, false), XSK_CLASH_NONE);
	/* root opens every map anyway */
	assert_int_equal(clash(0, 0, 0600, 0, 0, 0600, false), XSK_CLASH_NONE);
}

static void groups(void **state)
{
	(void)state;
	/* one group that reaches both maps */
	assert_int_equal(clash(107, 500, 0660, 108, 500, 0640, false), XSK_CLASH_GROUP);
	assert_int_equal(clash(107, 500, 0660, 108, 500, 0640, true), XSK_CLASH_NONE);
	/* the group of one VMM reaches the other's map */
	assert_int_equal(clash(107, 500, 0600, 108, 500, 0640, false), XSK_CLASH_GROUP);
	assert_int_equal(clash(107, 500, 0640, 108, 500, 0600, false), XSK_CLASH_GROUP);
	/* neither grants its group anything: the group reaches neither */
	assert_int_equal(clash(107, 500, 0600, 108, 500, 0600, false), XSK_CLASH_NONE);
	/* other groups */
	assert_int_equal(clash(107, 500, 0660, 108, 501, 0660, false), XSK_CLASH_NONE);
	/* root's group, the default: only when both grant it */
	assert_int_equal(clash(107, 0, 0640, 108, 0, 0600, false), XSK_CLASH_NONE);
	assert_int_equal(clash(107, 0, 0600, 108, 0, 0640, false), XSK_CLASH_NONE);
	assert_int_equal(clash(107, 0, 0640, 108, 0, 0640, false), XSK_CLASH_GROUP);
	/* the same owner is said as such, whatever the groups */
	assert_int_equal(clash(107, 500, 0660, 107, 500, 0660, false), XSK_CLASH_USER);
}

/* Supplementary groups: a user that is a member of the group another map
 * grants reaches that map through it, whatever its own primary group. */
static void members(void **state)
{
	struct xsk_access a = { 107, 107, 0600 }, b = { 108, 500, 0640 };
	struct xsk_members ma = { { 107, 500 }, 2 }, mb = { { 500 }, 1 }, none = { { 0 }, 0 };

	(void)state;
	assert_int_equal(xsk_access_clash(&a, &ma, &b, &mb, false), XSK_CLASH_MEMBER);
	assert_int_equal(xsk_access_clash(&a, &ma, &b, &mb, true), XSK_CLASH_NONE);
	assert_int_equal(xsk_access_clash(&a, &none, &b, &mb, false), XSK_CLASH_NONE);
	/* the other way round: this map grants its group, the other's user is in it */
	a.mode = 0640, b.mode = 0600, a.gid = 600, mb.gid[1] = 600, mb.n = 2;
	assert_int_equal(xsk_access_clash(&a, &none, &b, &mb, false), XSK_CLASH_MEMBER);
	/* a group that grants nothing reaches nothing */
	a.mode = 0600;
	assert_int_equal(xsk_access_clash(&a, &ma, &b, &mb, false), XSK_CLASH_NONE);
	/* root, a member of everything in effect, opens every map anyway */
	a = (struct xsk_access){ 0, 0, 0600 }, b.mode = 0640;
	ma = (struct xsk_members){ { 0, 500 }, 2 };
	assert_int_equal(xsk_access_clash(&a, &ma, &b, &mb, false), XSK_CLASH_NONE);
}

/* Root's record of a grant: what is written reads back; anything else is
 * no record. */
static void grants(void **state)
{
	struct xsk_grant g = { { 4242, 100, 0660 }, 77 }, r;
	char line[XSK_GRANT_LEN];

	(void)state;
	xsk_grant_format(line, sizeof(line), &g);
	assert_string_equal(line, "uid 4242 gid 100 mode 0660 map-id 77\n");
	assert_true(xsk_grant_parse(line, &r));
	assert_int_equal(r.acc.uid, 4242);
	assert_int_equal(r.acc.gid, 100);
	assert_int_equal(r.acc.mode, 0660);
	assert_int_equal(r.map_id, 77);
	assert_true(xsk_grant_parse("uid 0 gid 0 mode 0600 map-id 1", &r));
	assert_false(xsk_grant_parse("", &r));
	assert_false(xsk_grant_parse("uid 1 gid 2 mode 0600", &r));             /* no map id */
	assert_false(xsk_grant_parse("uid 1 gid 2 mode 01777 map-id 3\n", &r)); /* not a map's mode */
	assert_false(xsk_grant_parse("uid 1 gid 2 mode 0600 map-id 3 x\n", &r));
	assert_false(xsk_grant_parse("uid x gid 2 mode 0600 map-id 3\n", &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_fits),
		cmocka_unit_test(pin_foreign),
		cmocka_unit_test(dir_mode),
		cmocka_unit_test(owners),
		cmocka_unit_test(groups),
		cmocka_unit_test(members),
		cmocka_unit_test(grants),
		cmocka_unit_test(narrowed),
	};

	return cmocka_run_group_tests_name("xskfit", tests, NULL, NULL);
}
