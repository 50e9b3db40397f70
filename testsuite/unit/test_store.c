// SPDX-License-Identifier: GPL-2.0
/* lib/store.c: lock an object, read its record, write it atomically; a record
 * that is its writer's lock (claim, publish, abandon). In a scratch
 * directory: the files are the contract (.lock-NAME stays, .tmp.NAME is a
 * writer's, NAME the record). */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "store.h"

static char dir[] = "/tmp/nkctl-unit-store-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static bool exists(const char *prefix, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s%s", dir, prefix, name);
	return access(path, F_OK) == 0;
}

/* The record's text, or "" when it has none. */
static const char *record(const char *name, char *buf, size_t len)
{
	FILE *f = nk_store_open(dir, name);
	size_t n;

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int put_text(FILE *f, const void *rec)
{
	fputs(rec, f);
	return 0;
}

static int put_fails(FILE *f, const void *rec)
{
	(void)f;
	(void)rec;
	return -ENOSPC;
}

static void write_then_read(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(nk_store_write(dir, "a", put_text, "one\n"), 0);
	assert_string_equal(record("a", buf, sizeof(buf)), "one\n");
	assert_int_equal(nk_store_write(dir, "a", put_text, "two\n"), 0);
	assert_string_equal(record("a", buf, sizeof(buf)), "two\n");
	assert_false(exists(".tmp.", "a"));
}

static void failed_write_keeps_old_record(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(nk_store_write(dir, "b", put_text, "kept\n"), 0);
	assert_int_equal(nk_store_write(dir, "b", put_fails, NULL), -ENOSPC);
	assert_string_equal(record("b", buf, sizeof(buf)), "kept\n");
	assert_false(exists(".tmp.", "b"));
}

static void killed_writers_temp_goes(void **state)
{
	char path[256], buf[64];
	int fd;

	(void)state;
	/* What a writer killed before its rename leaves. */
	snprintf(path, sizeof(path), "%s/.tmp.c", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(nk_store_lock(dir, "c", true, &fd), 0);
	assert_false(exists(".tmp.", "c"));
	assert_int_equal(nk_store_write(dir, "c", put_text, "new\n"), 0);
	close(fd);
	assert_string_equal(record("c", buf, sizeof(buf)), "new\n");
}

static void lock_excludes_and_stays(void **state)
{
	int a, b;

	(void)state;
	assert_int_equal(nk_store_lock(dir, "d", false, &a), 0);
	assert_int_equal(nk_store_lock(dir, "d", false, &b), -EWOULDBLOCK);
	close(a);
	assert_int_equal(nk_store_lock(dir, "d", false, &b), 0);
	close(b);
	assert_true(exists(".lock-", "d"));
}

static void remove_takes_record_and_temp(void **state)
{
	char path[256];
	int fd;

	(void)state;
	assert_int_equal(nk_store_write(dir, "e", put_text, "x\n"), 0);
	snprintf(path, sizeof(path), "%s/.tmp.e", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(nk_store_remove(dir, "e"), 0);
	assert_false(exists("", "e"));
	assert_false(exists(".tmp.", "e"));
	assert_int_equal(nk_store_remove(dir, "e"), 0);
	assert_null(nk_store_open(dir, "e"));
	assert_int_equal(errno, ENOENT);
}

static void claim_publish_keeps_the_lock(void **state)
{
	char path[256], buf[64];
	int fd, other;

	(void)state;
	assert_int_equal(nk_store_claim(dir, "7", &fd), 0);
	assert_true(exists(".tmp.", "7"));
	assert_false(exists("", "7"));
	assert_int_equal(nk_store_publish(dir, "7", fd, put_text, "held\n"), 0);
	assert_false(exists(".tmp.", "7"));
	assert_string_equal(record("7", buf, sizeof(buf)), "held\n");
	/* Readers tell a live writer by the record's lock. */
	snprintf(path, sizeof(path), "%s/7", dir);
	other = open(path, O_RDONLY);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_SH | LOCK_NB), -1);
	close(fd);
	assert_int_equal(flock(other, LOCK_SH | LOCK_NB), 0);
	close(other);
}

static void claim_held_is_busy_dead_goes(void **state)
{
	char path[256];
	struct stat a, b;
	int fd, again, dead;

	(void)state;
	assert_int_equal(nk_store_claim(dir, "8", &fd), 0);
	assert_int_equal(nk_store_claim(dir, "8", &again), -EBUSY);
	assert_int_equal(again, -1);
	close(fd);
	/* Its writer gone (the lock free): the next claim replaces it. */
	snprintf(path, sizeof(path), "%s/.tmp.8", dir);
	dead = open(path, O_RDONLY);
	assert_true(dead >= 0);
	assert_int_equal(nk_store_claim(dir, "8", &fd), 0);
	assert_int_equal(fstat(dead, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_true(a.st_ino != b.st_ino);
	close(dead);
	assert_int_equal(nk_store_abandon(dir, "8"), 0);
	assert_false(exists(".tmp.", "8"));
	close(fd);
	assert_int_equal(nk_store_abandon(dir, "8"), 0);
}

static void lock_dir_replaced_is_stale(void **state)
{
	char sub[256];
	int fd;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/pins", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(nk_store_lock_dir(sub, &fd), 0);
	close(fd);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(nk_store_lock_dir(sub, &fd), -ENOENT);
}

static void names_too_long(void **state)
{
	char name[5000];
	int fd;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(nk_store_write(dir, name, put_text, "x"), -ENAMETOOLONG);
	assert_int_equal(nk_store_lock(dir, name, false, &fd), -ENAMETOOLONG);
	assert_int_equal(nk_store_claim(dir, name, &fd), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_then_read),
		cmocka_unit_test(failed_write_keeps_old_record),
		cmocka_unit_test(killed_writers_temp_goes),
		cmocka_unit_test(lock_excludes_and_stays),
		cmocka_unit_test(remove_takes_record_and_temp),
		cmocka_unit_test(claim_publish_keeps_the_lock),
		cmocka_unit_test(claim_held_is_busy_dead_goes),
		cmocka_unit_test(lock_dir_replaced_is_stale),
		cmocka_unit_test(names_too_long),
	};

	return cmocka_run_group_tests_name("store", tests, setup, teardown);
}
