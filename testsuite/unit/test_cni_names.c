// SPDX-License-Identifier: GPL-2.0
/* cni: an attachment's names checked as a stranger's
 * (attachname.c), their one encoding in file and lock names, the plugin's
 * directories (privdir.c), GC's reading of podInfoDir (podinfo.c, gc.c),
 * and which locks a child holds (spawn.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"

#include "../../cni/attachname.h"
#include "../../cni/cni.h"
#include "../../cni/gc.h"
#include "../../cni/lock.h"
#include "../../cni/podinfo.h"
#include "../../cni/privdir.h"
#include "../../cni/spawn.h"

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

static char *tmp_dir(void)
{
	char *dir = strdup("/tmp/nkcni-names-XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void rm_rf(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* The plugin's directories: a link, another user's or one others may
 * write is refused; podInfoDir of ADD's is made 0700 instead. */
static void private_dirs(void **state)
{
	char *dir = tmp_dir(), sub[256], link[256];
	struct stat st;
	int fd;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/d", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	assert_int_equal(private_dir_open(sub, false), -ENOENT);
	assert_int_equal(mkdir(sub, 0700), 0);
	fd = private_dir_open(sub, false);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(sub, link), 0);
	assert_int_equal(private_dir_open(link, false), -ENOTDIR);
	assert_non_null(strstr(private_dir_refusal(-ENOTDIR), "link"));
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(private_dir_open(sub, false), -EPERM);
	assert_non_null(strstr(private_dir_refusal(-EPERM), "root"));
	assert_int_equal(chmod(sub, 0720), 0);
	assert_int_equal(private_dir_open(sub, false), -EPERM);
	fd = private_dir_open(sub, true);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	if (!geteuid()) {
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_int_equal(private_dir_open(sub, false), -EPERM);
		assert_int_equal(private_dir_open(sub, true), -EPERM);
	}
	rm_rf(dir);
}

/* Locks under the names that collided are two locks; a lock file a link
 * put in place, or a lock directory others may write, is refused and
 * nothing outside is touched. */
static void locks_distinct_and_checked(void **state)
{
	char *dir = tmp_dir(), locks[256], victim[256], path[512];
	struct stat st;
	int a, b, fd;

	(void)state;
	snprintf(locks, sizeof(locks), "%s/locks", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	setenv("NKCTL_CNI_LOCK_DIR", locks, 1);
	assert_int_equal(attachment_lock("a-b", "c", 0, &a), 0);
	assert_int_equal(attachment_lock("a", "b-c", 0, &b), 0);
	assert_true(fcntl(a, F_GETFD) & FD_CLOEXEC);
	attachment_unlock("a-b", "c", a, true);
	attachment_unlock("a", "b-c", b, true);
	assert_int_equal(attachment_lock("../victim", "x", 0, &fd), -EINVAL);
	/* a link at a lock's name is not followed */
	write_file(dir, "victim", "keep", 4);
	snprintf(path, sizeof(path), "%s/c1-eth0", locks);
	assert_int_equal(symlink(victim, path), 0);
	assert_true(attachment_lock("c1", "eth0", 0, &fd) < 0);
	assert_int_equal(fd, -1);
	assert_int_equal(unlink(path), 0);
	/* a FIFO there is not waited on */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(attachment_lock("c1", "eth0", 0, &fd), -EPERM);
	assert_int_equal(unlink(path), 0);
	/* a directory others may write */
	assert_int_equal(chmod(locks, 0777), 0);
	assert_int_equal(attachment_lock("c1", "eth0", 0, &fd), -EPERM);
	assert_int_equal(chmod(locks, 0700), 0);
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 4);
	unsetenv("NKCTL_CNI_LOCK_DIR");
	rm_rf(dir);
}

/* A child keeps across exec the locks it is handed and no other: the lock
 * of the attachment it works on stays held by it after the plugin lets
 * go, the others do not. */
static void child_holds_its_locks(void **state)
{
	char *dir = tmp_dir();
	char *argv[] = { "/bin/sleep", "30", NULL };
	int fd[3], again;
	struct held_locks one = { &fd[1], 1 };
	struct child c;

	(void)state;
	setenv("NKCTL_CNI_LOCK_DIR", dir, 1);
	assert_int_equal(attachment_lock("p0", "eth0", 0, &fd[0]), 0);
	assert_int_equal(attachment_lock("p1", "eth0", 0, &fd[1]), 0);
	assert_int_equal(attachment_lock("p2", "eth0", 0, &fd[2]), 0);
	assert_int_equal(child_start(&c, argv, NULL, &one), 0);
	/* the child has exec'ed once its stdin's other end is closed on
	 * exec; sleep never reads it, so wait for /proc to show sleep */
	for (int i = 0; i < 500; i++) {
		char exe[64], target[64] = "";

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)c.pid);
		if (readlink(exe, target, sizeof(target) - 1) > 0 && strstr(target, "sleep"))
			break;
		usleep(10000);
	}
	/* the parent's descriptors stay close-on-exec */
	for (int i = 0; i < 3; i++) {
		assert_true(fcntl(fd[i], F_GETFD) & FD_CLOEXEC);
		close(fd[i]);
	}
	assert_int_equal(attachment_lock("p0", "eth0", 0, &again), 0);
	close(again);
	assert_int_equal(attachment_lock("p1", "eth0", 0, &again), -EWOULDBLOCK);
	assert_int_equal(attachment_lock("p2", "eth0", 0, &again), 0);
	close(again);
	kill(c.pid, SIGKILL);
	child_wait(&c);
	assert_int_equal(attachment_lock("p1", "eth0", 0, &again), 0);
	close(again);
	unsetenv("NKCTL_CNI_LOCK_DIR");
	rm_rf(dir);
}

struct taken {
	char ids[8][300];
	size_t n;
	size_t calls;
};

/* As GC takes a file: network "nk" on "eth1". */
static const char *take_info(json_object *info, const char *name, void *data)
{
	struct taken *t = data;
	struct attachment a;
	const char *why;

	t->calls++;
	if (attachment_from_info(info, name, "nk", "eth1", &a, &why) > 0 && t->n < 8)
		snprintf(t->ids[t->n++], sizeof(t->ids[0]), "%s/%s", a.id, a.ifname);
	return why;
}

/* {"network":"nk","nic":"eth1", ...rest} */
static void write_info(const char *dir, const char *name, const char *rest)
{
	char text[1200];

	snprintf(text, sizeof(text), "{\"network\":\"nk\",\"nic\":\"eth1\",%s}\n", rest);
	write_file(dir, name, text, strlen(text));
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Information files a stranger wrote: every one is skipped with one
 * warning naming it, and GC's remove of what they name touches nothing
 * outside the directory. */
static void info_files_crafted(void **state)
{
	static const struct {
		const char *name, *rest;
	} crafted[] = {
		{ "victim-x.json", "\"containerID\":\"../../../../../tmp/victim\",\"ifname\":\"x\"" },
		{ "slash.json", "\"containerID\":\"a/b\",\"ifname\":\"eth0\"" },
		{ "dots.json", "\"containerID\":\"c1\",\"ifname\":\"..\"" },
		{ "ifslash.json", "\"containerID\":\"c1\",\"ifname\":\"e/0\"" },
		{ "nul.json", "\"containerID\":\"c1\\u0000/../x\",\"ifname\":\"eth0\"" },
		{ "ctl.json", "\"containerID\":\"c1\",\"ifname\":\"e\\u001b0\"" },
		{ "newline.json", "\"containerID\":\"c\\n1\",\"ifname\":\"eth0\"" },
		{ "long-if.json", "\"containerID\":\"c1\",\"ifname\":\"eth0123456789abcd\"" },
		{ "int.json", "\"containerID\":5,\"ifname\":\"eth0\"" },
		{ "array.json", "\"containerID\":\"c1\",\"ifname\":[\"eth0\"]" },
		{ "null.json", "\"containerID\":null,\"ifname\":\"eth0\"" },
		{ "noif.json", "\"containerID\":\"c1\"" },
		/* well-formed, but not under its own name */
		{ "c9-eth0.json", "\"containerID\":\"c1\",\"ifname\":\"eth0\"" },
		{ "a-b-c.json", "\"containerID\":\"a\",\"ifname\":\"b-c\"" },
	};
	static const char other_net[] =
		"{\"network\":\"other\",\"nic\":\"eth1\",\"containerID\":\"c2\",\"ifname\":\"eth0\"}";
	char *dir = tmp_dir(), info[256], victim[256], path[512], why[256], longer[512];
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e, .name = "nk", .nic = "eth1", .command = "GC" };
	struct taken t = { 0 };
	struct capture cap;
	const char *err;
	struct stat st;
	size_t files = 0;

	(void)state;
	snprintf(info, sizeof(info), "%s/info", dir);
	snprintf(victim, sizeof(victim), "%s/victim-x.json", dir);
	assert_int_equal(mkdir(info, 0700), 0);
	p.info_dir = info;
	write_file(dir, "victim-x.json", "keep", 4);
	for (size_t i = 0; i < N_ELEMS(crafted); i++, files++)
		write_info(info, crafted[i].name, crafted[i].rest);
	/* an overlong id */
	snprintf(longer, sizeof(longer), "\"containerID\":\"%s\",\"ifname\":\"eth0\"",
		 id_of(CNI_ID_MAX + 1));
	write_info(info, "long-id.json", longer);
	files++;
	/* not JSON, JSON with more after it, a NUL byte, an array, a link,
	 * a FIFO, a file too long */
	write_file(info, "junk.json", "not json", 8);
	write_file(info, "more.json", "{} {}", 5);
	write_file(info, "nulbyte.json", "{\"a\":1}\0x", 9);
	write_file(info, "list.json", "[1]", 3);
	snprintf(path, sizeof(path), "%s/link.json", info);
	assert_int_equal(symlink(victim, path), 0);
	snprintf(path, sizeof(path), "%s/fifo.json", info);
	assert_int_equal(mkfifo(path, 0600), 0);
	write_file(info, "huge.json", "{", 1);
	snprintf(path, sizeof(path), "%s/huge.json", info);
	assert_int_equal(truncate(path, CNI_INFO_MAX + 1), 0);
	files += 7;
	/* no business of GC's: ADD's temporary file, another kind of file */
	write_info(info, ".c1-eth0.json.tmp", "\"containerID\":\"../x\",\"ifname\":\"eth0\"");
	write_file(info, "README", "x", 1);
	/* the good ones: this network's (one with a '-' in its interface),
	 * another network's */
	write_info(info, "c1-eth0.json", "\"containerID\":\"c1\",\"ifname\":\"eth0\"");
	write_info(info, "a-b%2Dc.json", "\"containerID\":\"a\",\"ifname\":\"b-c\"");
	write_file(info, "c2-eth0.json", other_net, strlen(other_net));

	capture_begin(&cap, 2);
	pod_info_scan(&p, take_info, &t);
	err = capture_end(&cap);
	assert_true(strlen(err) < sizeof(cap.text) - 1);
	assert_int_equal(count_lines(err), files);
	for (size_t i = 0; i < N_ELEMS(crafted); i++)
		assert_non_null(strstr(err, crafted[i].name));
	assert_non_null(strstr(err, "link.json: is a link"));
	assert_non_null(strstr(err, "fifo.json: is not a regular file"));
	assert_null(strstr(err, ".tmp"));
	assert_null(strstr(err, "c2-eth0"));
	assert_int_equal(t.n, 2);
	assert_true((!strcmp(t.ids[0], "c1/eth0") && !strcmp(t.ids[1], "a/b-c")) ||
		    (!strcmp(t.ids[1], "c1/eth0") && !strcmp(t.ids[0], "a/b-c")));
	/* what GC removes is what it took, in the directory; a name the
	 * checks refuse is never joined into a path */
	p.id = "../victim";
	p.ifname = "x";
	assert_int_equal(pod_info_remove(&p, why, sizeof(why)), 0);
	assert_int_equal(stat(victim, &st), 0);
	p.id = "a";
	p.ifname = "b-c";
	assert_int_equal(pod_info_remove(&p, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/a-b%%2Dc.json", info);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/a-b-c.json", info);
	assert_int_equal(access(path, F_OK), 0);

	/* a directory others may write: one warning, no file read */
	assert_int_equal(chmod(info, 0777), 0);
	t.calls = 0;
	capture_begin(&cap, 2);
	pod_info_scan(&p, take_info, &t);
	err = capture_end(&cap);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, info));
	assert_int_equal(t.calls, 0);
	assert_int_equal(pod_info_remove(&p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, info));
	/* none at all: nothing said */
	p.info_dir = victim;
	capture_begin(&cap, 2);
	pod_info_scan(&p, take_info, &t);
	err = capture_end(&cap);
	assert_int_equal(count_lines(err), 1);   /* a file, not a directory */
	snprintf(path, sizeof(path), "%s/none", dir);
	p.info_dir = path;
	capture_begin(&cap, 2);
	pod_info_scan(&p, take_info, &t);
	err = capture_end(&cap);
	assert_string_equal(err, "");
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 4);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(container_ids),
		cmocka_unit_test(ifnames),
		cmocka_unit_test(netns_paths),
		cmocka_unit_test(names_encoded),
		cmocka_unit_test(names_distinct),
		cmocka_unit_test(private_dirs),
		cmocka_unit_test(locks_distinct_and_checked),
		cmocka_unit_test(child_holds_its_locks),
		cmocka_unit_test(info_files_crafted),
	};

	return cmocka_run_group_tests_name("cni names", tests, NULL, NULL);
}
