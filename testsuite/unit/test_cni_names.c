// SPDX-License-Identifier: GPL-2.0
/* examples/cni: an attachment's names checked as a stranger's
 * (attachname.c), and their one encoding in file and lock names. */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "unit.h"

#include "../../examples/cni/cni.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static char long_id[CNI_ID_MAX + 2];

/* id of n characters: "a" then "-" and "b" in turn. */
static const char *id_of(size_t n)
{
	for (size_t i = 0; i < n; i++)
		long_id[i] = i == 0 ? 'a' : "-b"[i % 2];
	long_id[n] = '\0';
	return long_id;
}

static void container_ids(void **state)
{
	static const char *const good[] = { "a", "abc-1_2.3", "default-c1", "3f2a", "a-", "a.." };
	static const char *const bad[] = {
		"", "-abc", "_a", ".a", "../../../../../tmp/victim", "a/b", "a b", "a\nb", "a\x01b",
		"a\x7f", "a:b", "a%b", "a#b", "a\"b", "a\\b", "\xc3\xa9",
	};

	(void)state;
	for (size_t i = 0; i < N_ELEMS(good); i++)
		assert_null(container_id_refused(good[i]));
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_non_null(container_id_refused(bad[i]));
	assert_non_null(container_id_refused(NULL));
	assert_null(container_id_refused(id_of(CNI_ID_MAX)));
	assert_non_null(container_id_refused(id_of(CNI_ID_MAX + 1)));
}

static void ifnames(void **state)
{
	static const char *const good[] = { "eth0", "net-1", "a%b", "-", "eth0123456789ab", "e.0",
					    "\xc3\xa9" };
	static const char *const bad[] = {
		"", ".", "..", "a/b", "/", "../x", "x:1", "a b", "a\tb", "a\nb", "a\"b", "a'b", "a\\b",
		"a#b", "a\x01", "\x1b[0m", "a\x7f", "eth0123456789abc",
	};

	(void)state;
	for (size_t i = 0; i < N_ELEMS(good); i++)
		assert_null(ifname_refused(good[i]));
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_non_null(ifname_refused(bad[i]));
	assert_non_null(ifname_refused(NULL));
}

static void netns_paths(void **state)
{
	(void)state;
	assert_null(netns_refused("/run/netns/pod1"));
	assert_null(netns_refused("/proc/42/ns/net"));
	assert_non_null(netns_refused(NULL));
	assert_non_null(netns_refused(""));
	assert_non_null(netns_refused("run/netns/p"));
	assert_non_null(netns_refused("/run/netns/a b"));
	assert_non_null(netns_refused("/run/netns/a\"b"));
	assert_non_null(netns_refused("/run/netns/a\x01"));
}

/* Names without '-' or '%' in the interface read as before; those that
 * collided ("a-b" with "c", "a" with "b-c") do no more. */
static void names_encoded(void **state)
{
	char buf[NAME_MAX + 1], other[NAME_MAX + 1];

	(void)state;
	assert_int_equal(attachment_name("c1", "eth0", ".json", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "c1-eth0.json");
	assert_int_equal(attachment_name("default-c1", "eth0", "", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "default-c1-eth0");
	assert_int_equal(attachment_name("a-b", "c", "", buf, sizeof(buf)), 0);
	assert_int_equal(attachment_name("a", "b-c", "", other, sizeof(other)), 0);
	assert_string_equal(buf, "a-b-c");
	assert_string_equal(other, "a-b%2Dc");
	assert_int_equal(attachment_name("a", "b%2Dc", "", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a-b%252Dc");
	/* what the checks refuse is never encoded */
	assert_int_equal(attachment_name("../../../../../tmp/victim", "x", ".json", buf, sizeof(buf)), -1);
	assert_int_equal(attachment_name("c1", "..", ".json", buf, sizeof(buf)), -1);
	assert_int_equal(attachment_name("c1", "a/b", "", buf, sizeof(buf)), -1);
	assert_int_equal(attachment_name(NULL, "eth0", "", buf, sizeof(buf)), -1);
	/* a buffer too short */
	assert_int_equal(attachment_name("c1", "eth0", ".json", buf, 12), -1);
	assert_int_equal(attachment_name("c1", "eth0", ".json", buf, 13), 0);
	assert_int_equal(attachment_name("c1", "a-", "", buf, 6), -1);
	/* the longest, with ADD's temporary file's decoration, within NAME_MAX */
	assert_int_equal(attachment_name(id_of(CNI_ID_MAX), "---------------", ".json", buf,
					 sizeof(buf)), 0);
	assert_true(strlen(buf) + strlen("..tmp") <= NAME_MAX);
}

/* No two attachments of a set full of '-' and '%' share a name. */
static void names_distinct(void **state)
{
	static const char *const ids[] = { "a", "a-", "a-b", "a--b", "ab", "a-b-c", "a.b" };
	static const char *const ifs[] = { "b", "-b", "b-", "-", "--", "%", "%2D", "b-c", "c",
					   "b%2Dc", "2D" };
	char names[N_ELEMS(ids) * N_ELEMS(ifs)][64];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < N_ELEMS(ids); i++)
		for (size_t k = 0; k < N_ELEMS(ifs); k++) {
			assert_int_equal(attachment_name(ids[i], ifs[k], "", names[n], sizeof(names[n])), 0);
			for (size_t m = 0; m < n; m++)
				assert_string_not_equal(names[m], names[n]);
			n++;
		}
}

/* The locks of the attachments whose names collided are two locks. */
static void locks_distinct(void **state)
{
	char dir[] = "/tmp/nkcni-names-XXXXXX", path[512];
	int a, b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("NKCTL_CNI_LOCK_DIR", dir, 1);
	assert_int_equal(attachment_lock("a-b", "c", 0, &a), 0);
	assert_int_equal(attachment_lock("a", "b-c", 0, &b), 0);
	assert_int_equal(attachment_lock_path("a", "b-c", path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/a-b%2Dc"));
	attachment_unlock("a-b", "c", a, true);
	attachment_unlock("a", "b-c", b, true);
	assert_int_equal(attachment_lock("../victim", "x", 0, &a), -ENAMETOOLONG);
	unsetenv("NKCTL_CNI_LOCK_DIR");
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(container_ids),
		cmocka_unit_test(ifnames),
		cmocka_unit_test(netns_paths),
		cmocka_unit_test(names_encoded),
		cmocka_unit_test(names_distinct),
		cmocka_unit_test(locks_distinct),
	};

	return cmocka_run_group_tests_name("cni names", tests, NULL, NULL);
}
