// SPDX-License-Identifier: GPL-2.0
/* nkctl/xsk/xskfit.c: when a pinned holder map is reused, the holder
 * directory's mode, and which owners may not hold two live holders' maps. */
#include "unit.h"

#include <linux/bpf.h>

#include "xsk.h"
#include "xskfit.h"

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

static void dir_mode(void **state)
{
	(void)state;
	assert_int_equal(xsk_dir_mode(0600), 0700);
	assert_int_equal(xsk_dir_mode(0400), 0700);
	assert_int_equal(xsk_dir_mode(0660), 0750);
	assert_int_equal(xsk_dir_mode(0640), 0750);
}

static void owners(void **state)
{
	(void)state;
	assert_true(xsk_owners_clash(107, 107, false));
	assert_false(xsk_owners_clash(107, 107, true));   /* share */
	assert_false(xsk_owners_clash(107, 4242, false));
	assert_false(xsk_owners_clash(0, 0, false));       /* root opens every map anyway */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_fits),
		cmocka_unit_test(dir_mode),
		cmocka_unit_test(owners),
	};

	return cmocka_run_group_tests_name("xskfit", tests, NULL, NULL);
}
