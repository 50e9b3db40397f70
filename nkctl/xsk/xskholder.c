// SPDX-License-Identifier: GPL-2.0
/*
 * The holders' side of nkctl xsk (xskholder.h): the public directory
 * <root>/nkctl-xsk and each holder's directory in it, the one place under
 * bpffs that another user (a VMM's) is handed. Everything here is reached
 * by fd: the bpffs root and the public directory are opened once and
 * checked, a holder's directory is opened O_NOFOLLOW below them and made
 * root's alone before anything in it is looked at, and what is in it is
 * named relative to that fd (a path through /proc/self/fd for bpf(2),
 * which takes paths): nothing its user renames or links there decides what
 * root changes. Whom a holder's map was granted to is root's record under
 * /run/nkctl, not the pin's metadata, which the map's owner can change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "bpfutil.h"
#include "err.h"
#include "store.h"
#include "xsk.h"         /* bpf/xsk.h: NK_XSK_HOLDER_QUEUES */
#include "xsk/xskfit.h"
#include "xsk/xskholder.h"

/* A holder directory's map, or the fresh one attach pins aside before it
 * renames it over the map (bpffs refuses dots in names). */
#define XSK_MAP_ASIDE XSK_MAP_NAME "-new"

/* ---- the public directory ---- */

/* A stream over directory fd from its start (a dup shares fd's offset,
 * which an earlier walk left at the end); NULL when it cannot be had. */
static DIR *dir_walk(int fd)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);

	if (!d && dup_fd >= 0)
		close(dup_fd);
	if (d)
		rewinddir(d);
	return d;
}

static bool dir_is_empty(int fd)
{
	DIR *d = dir_walk(fd);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* The public directory as found in fd (st): root's and writable by root
 * alone is kept; root's but writable by others is made 0755; another
 * user's (made before nkctl in a bpffs root anyone may write) is made
 * root's 0755 only while it is empty, and refused otherwise: 0, or -EPERM
 * with why said. */
static int pub_mend(int fd, const struct stat *st, const char *path, char *why, size_t len)
{
	if (!st->st_uid && !(st->st_mode & 022))
		return 0;
	if (st->st_uid && !dir_is_empty(fd)) {
		snprintf(why, len, "%s belongs to uid %u, not root, and holds what that user put there: nkctl hands its holders' maps out only from a directory of root's (remove it: rm -r %s; then mount bpffs with mode=0700)",
			 path, (unsigned int)st->st_uid, path);
		return -EPERM;
	}
	if (fchown(fd, 0, 0) || fchmod(fd, 0755)) {
		snprintf(why, len, "cannot make %s root's: %s", path, strerror(errno));
		return -errno;
	}
	/* Its owner could add to it until the chown: empty still, or refused. */
	if (st->st_uid && !dir_is_empty(fd)) {
		snprintf(why, len, "%s belonged to uid %u, and that user put something in it while nkctl took it over (remove it: rm -r %s)",
			 path, (unsigned int)st->st_uid, path);
		return -EPERM;
	}
	nk_warn("%s was uid %u's, mode %04o: made root's, 0755", path, (unsigned int)st->st_uid,
		(unsigned int)(st->st_mode & 07777));
	return 0;
}

int xsk_pub_open(const char *root, bool create, int *fd, char *why, size_t len)
{
	char path[DIR_LEN];
	struct stat st;
	int rfd, ret = 0;

	*fd = -1;
	snprintf(path, sizeof(path), "%s/" XSK_PUBLIC_DIR, root);
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0) {
		snprintf(why, len, "cannot open %s: %s", root, strerror(errno));
		return -errno;
	}
	if (create && mkdirat(rfd, XSK_PUBLIC_DIR, 0755) && errno != EEXIST) {
		ret = -errno;
		snprintf(why, len, "cannot create %s: %s", path, strerror(errno));
	}
	if (!ret)
		*fd = openat(rfd, XSK_PUBLIC_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!ret && *fd < 0) {
		ret = -errno;
		snprintf(why, len, errno == ENOENT ? "%s: none" : "cannot open %s: %s (not a directory of root's?)",
			 path, strerror(errno));
	}
	close(rfd);
	if (!ret && fstat(*fd, &st))
		ret = -errno, snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
	if (!ret)
		ret = pub_mend(*fd, &st, path, why, len);
	if (ret && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/* ---- the lock ---- */

/* How long an xsk lock is waited for: an attach holds it for seconds. */
#define XSK_LOCK_WAIT_S 60

int xsk_public_lock(bool wait, int *fd)
{
	pid_t holder = 0;
	int ret = nk_private_dir(NK_BPFFS_LOCK_DIR);

	if (!ret)
		ret = nk_store_lock_for(NK_BPFFS_LOCK_DIR, XSK_LOCK_NAME, wait ? XSK_LOCK_WAIT_S : 0,
					fd, &holder);
	if (ret == -ETIMEDOUT)
		return nk_error(NK_EXIT_EXISTS, "%s/.lock-" XSK_LOCK_NAME " is held by pid %d for over %d s: is that nkctl stuck?",
				NK_BPFFS_LOCK_DIR, (int)holder, XSK_LOCK_WAIT_S);
	return ret;
}

/* ---- names ---- */

void xsk_holder_name(unsigned long long cookie, uint32_t ifindex, char *buf)
{
	snprintf(buf, XSK_NAME_LEN, "ns%llu-dev%u", cookie, ifindex);
}

bool xsk_holder_name_parse(const char *name, unsigned long long *cookie, uint32_t *ifindex)
{
	unsigned int i;
	int end = 0;

	if (sscanf(name, "ns%llu-dev%u%n", cookie, &i, &end) != 2 || name[end])
		return false;
	*ifindex = i;
	return true;
}

/* A path to name in directory fd that bpf(2) resolves to that directory
 * whatever is renamed meanwhile. */
static void fd_path(int fd, const char *name, char *buf)
{
	snprintf(buf, PIN_LEN, "/proc/self/fd/%d/%s", fd, name);
}

/* ---- root's record of a grant ---- */

static int grant_put(FILE *f, const void *rec)
{
	char line[XSK_GRANT_LEN];

	xsk_grant_format(line, sizeof(line), rec);
	return fputs(line, f) < 0 ? -EIO : 0;
}

static int grant_write(const char *name, const struct xsk_grant *g)
{
	int ret = nk_private_dir(NK_BPFFS_LOCK_DIR);

	if (!ret)
		ret = nk_private_dir(XSK_GRANT_DIR);

	return ret ? ret : nk_store_write(XSK_GRANT_DIR, name, grant_put, g);
}

/* 0, -ENOENT when nkctl recorded none (a holder of an older nkctl's). */
static int grant_read(const char *name, struct xsk_grant *g)
{
	char line[XSK_GRANT_LEN];
	FILE *f = nk_store_open(XSK_GRANT_DIR, name);
	bool ok;

	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) && xsk_grant_parse(line, g);
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/* ---- a holder's directory ---- */

/* Directory fd made root's alone: its VMM can no longer add to it. */
static void dir_disown(int fd)
{
	if (fchown(fd, 0, 0) || fchmod(fd, 0700))
		return;  /* what stays in it keeps it; the next orphan pass tries again */
}

/* Move what directory sub holds up into dfd, under fresh names. */
static void dir_lift(int dfd, int sub, unsigned long *seq)
{
	char name[32];
	struct dirent *e;
	DIR *d = dir_walk(sub);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		do
			snprintf(name, sizeof(name), "nkup%lu", (*seq)++);
		while (renameat2(sub, e->d_name, dfd, name, RENAME_NOREPLACE) && errno == EEXIST);
	}
	closedir(d);
}

/* One pass over dfd: files unlinked, an empty directory removed, a full one
 * made root's and its entries lifted into dfd. True when it lifted any. */
static bool dir_empty_pass(int dfd, unsigned long *seq)
{
	DIR *d = dir_walk(dfd);
	struct dirent *e;
	bool lifted = false;
	int sub;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !unlinkat(dfd, e->d_name, 0) || errno != EISDIR ||
		    !unlinkat(dfd, e->d_name, AT_REMOVEDIR))
			continue;
		sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		dir_disown(sub);
		dir_lift(dfd, sub, seq);
		close(sub);
		lifted = true;
	}
	closedir(d);
	return lifted;
}

/* Everything in directory dfd (root's alone already) removed without
 * following a symlink or leaving it, however deep its VMM nested
 * directories before it lost it: each pass lifts the next level into dfd,
 * with no recursion and two fds at most, so no depth defeats it. The
 * passes end: each removes a level, and nobody adds to a directory of
 * root's. */
static void dir_empty(int dfd)
{
	unsigned long seq = 0;

	while (dir_empty_pass(dfd, &seq))
		;
}

/* The holder directory name in pub (dir: its path, for messages), opened
 * without following a symlink; an older nkctl's pin of that name, a file,
 * goes first. -errno. */
static int holder_open(int pub, const char *name, const char *dir, bool create)
{
	struct stat st;
	int fd;

	if (!fstatat(pub, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode)) {
		if (create)
			nk_warn("replaced %s: a pin of an older nkctl (a directory per holder now)", dir);
		unlinkat(pub, name, 0);
	}
	if (create && mkdirat(pub, name, 0700) && errno != EEXIST)
		return -errno;
	fd = openat(pub, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

bool holder_unpin(int pub, const char *name)
{
	struct stat st;
	bool had;
	int fd = holder_open(pub, name, name, false);

	nk_store_remove(XSK_GRANT_DIR, name);
	if (fd < 0)
		return false;
	dir_disown(fd);
	had = !fstatat(fd, XSK_MAP_NAME, &st, AT_SYMLINK_NOFOLLOW);
	dir_empty(fd);
	had = had && fstatat(fd, XSK_MAP_NAME, &st, AT_SYMLINK_NOFOLLOW);
	close(fd);
	unlinkat(pub, name, AT_REMOVEDIR);
	return had;
}

/* The map pinned in dfd, opened when it is the one root recorded granting
 * (same map id; with no record, an older nkctl's, one that fits) and
 * linked nowhere else; -1 otherwise (a misfit said). */
static int map_reuse(int dfd, const char *dir, const struct xsk_grant *was)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	struct xsk_map_shape m;
	char pin[PIN_LEN];
	struct stat st;
	const char *misfit;
	int fd;

	if (fstatat(dfd, XSK_MAP_NAME, &st, AT_SYMLINK_NOFOLLOW) || xsk_pin_foreign(&st, true))
		return -1;  /* none, or not a pin of its own (a link to a map pinned elsewhere) */
	fd_path(dfd, XSK_MAP_NAME, pin);
	fd = bpf_obj_get(pin);
	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		misfit = "type";
	} else {
		m = (struct xsk_map_shape){ info.type, info.key_size, info.value_size,
					    info.max_entries, info.map_flags };
		misfit = xsk_map_misfit(&m);
		if (!misfit && was->map_id && info.id != was->map_id)
			misfit = "id";  /* not the map root granted: replaced, quietly */
	}
	if (!misfit)
		return fd;
	if (strcmp(misfit, "id"))
		nk_warn("replaced %s/" XSK_MAP_NAME ": its %s differs from a holder's XSK map (%u entries, no flags)",
			dir, misfit, NK_XSK_HOLDER_QUEUES);
	close(fd);
	return -1;
}

/* A fresh XSK map pinned in dfd: aside, then renamed over the old pin, so
 * that a failure leaves the old one, never none. */
static int map_fresh(int dfd, const char *dir, int *fd)
{
	char tmp[PIN_LEN];
	int ret;

	unlinkat(dfd, XSK_MAP_ASIDE, 0);
	*fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "nk_xsk_holder", sizeof(uint32_t),
			     sizeof(uint32_t), NK_XSK_HOLDER_QUEUES, NULL);
	if (*fd < 0)
		return nk_error_errno(errno, "cannot create an XSK map");
	fd_path(dfd, XSK_MAP_ASIDE, tmp);
	if (bpf_obj_pin(*fd, tmp))
		return nk_error_errno(errno, "cannot pin the XSK map in %s", dir);
	if (renameat(dfd, XSK_MAP_ASIDE, dfd, XSK_MAP_NAME)) {
		ret = nk_error_errno(errno, "cannot rename the XSK map into place in %s", dir);
		unlinkat(dfd, XSK_MAP_ASIDE, 0);
		return ret;
	}
	return 0;
}

/* What root granted the holder name: its record, or for a holder an older
 * nkctl made (no record), what its directory and pin say, read once. */
static int grant_of(int dfd, const char *name, struct xsk_grant *g)
{
	struct stat st;
	int ret = grant_read(name, g);

	if (ret != -ENOENT)
		return ret;
	memset(g, 0, sizeof(*g));
	if (fstat(dfd, &st))
		return -errno;
	g->acc = (struct xsk_access){ st.st_uid, st.st_gid, 0 };
	if (!fstatat(dfd, XSK_MAP_NAME, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
		g->acc.mode = st.st_mode & 0777;
	return 0;
}

static bool grant_fits(const struct xsk_grant *was, const struct xsk_access *acc)
{
	return was->acc.uid == acc->uid && was->acc.gid == acc->gid &&
	       !xsk_access_narrowed(was->acc.mode, acc->mode);
}

int holder_map(int pub, const char *name, const char *dir, const struct xsk_access *acc,
	       int *fd, bool *fresh)
{
	struct xsk_grant was;
	int dfd, ret;

	*fd = -1;
	*fresh = false;
	dfd = holder_open(pub, name, dir, true);
	if (dfd < 0)
		return nk_error_errno(-dfd, "cannot open %s", dir);
	/* Root's alone first: the VMM that owns it can no longer put a link to
	 * another holder's map in it, nor swap one in behind a check. */
	dir_disown(dfd);
	ret = grant_of(dfd, name, &was);
	if (!ret && grant_fits(&was, acc))
		*fd = map_reuse(dfd, dir, &was);
	if (*fd < 0) {
		/* A new owner gets an empty directory and a map of its own. */
		*fresh = true;
		dir_empty(dfd);
		ret = map_fresh(dfd, dir, fd);
	} else {
		ret = 0;
	}
	/* No symlink can be there: the directory is root's alone, and its map
	 * was checked (a pin of its own) or made just now. */
	if (!ret && (fchownat(dfd, XSK_MAP_NAME, acc->uid, acc->gid, AT_SYMLINK_NOFOLLOW) ||
		     fchmodat(dfd, XSK_MAP_NAME, acc->mode, 0)))
		ret = nk_error_errno(errno, "cannot set the owner and mode of %s/" XSK_MAP_NAME, dir);
	if (!ret && !*fresh)
		ret = holder_dir_give(pub, name, dir, acc, *fd);
	close(dfd);
	return ret;
}

int holder_dir_give(int pub, const char *name, const char *dir, const struct xsk_access *acc,
		    int map_fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	struct xsk_grant now;
	int dfd, ret = 0;

	/* Recorded only now: a fresh map whose queues a kill kept from being
	 * repointed is not the recorded one, so the next attach makes it
	 * afresh and repoints them (its reuse would leave them on the old
	 * map, whose old owner's fds still write there). */
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return nk_error_errno(errno, "cannot read the XSK map of %s", dir);
	now = (struct xsk_grant){ *acc, info.id };
	ret = grant_write(name, &now);
	if (ret)
		return nk_error_errno(-ret, "cannot record whom %s is granted to", dir);
	dfd = holder_open(pub, name, dir, false);
	if (dfd < 0)
		return nk_error_errno(-dfd, "cannot open %s", dir);
	if (fchown(dfd, acc->uid, acc->gid) || fchmod(dfd, xsk_dir_mode(acc->mode)))
		ret = nk_error_errno(errno, "cannot set the owner and mode of %s", dir);
	close(dfd);
	return ret;
}

/* ---- who a grant reaches ---- */

/* The groups uid is in (its passwd entry's primary group and every group
 * that lists it), into g; 0 when the user has no passwd entry. */
static size_t groups_of(uid_t uid, gid_t *g, size_t max)
{
	struct passwd *pw = getpwuid(uid);
	int n = (int)max;

	if (!pw)
		return 0;
	if (getgrouplist(pw->pw_name, pw->pw_gid, g, &n) < 0)
		return max;  /* truncated: what fits */
	return (size_t)n;
}

int holder_pin_stat(const char *root, unsigned long long cookie, uint32_t ifindex,
		    struct stat *st)
{
	char name[XSK_NAME_LEN], why[PIN_LEN];
	int pub, dfd, ret;

	xsk_holder_name(cookie, ifindex, name);
	ret = xsk_pub_open(root, false, &pub, why, sizeof(why));
	if (ret)
		return ret;
	dfd = openat(pub, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = dfd < 0 || fstatat(dfd, XSK_MAP_NAME, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	if (dfd >= 0)
		close(dfd);
	close(pub);
	return ret;
}

int holder_granted(int pub, const char *name, struct xsk_grant *g)
{
	int dfd = holder_open(pub, name, name, false), ret;

	if (dfd < 0)
		return dfd;
	ret = grant_of(dfd, name, g);
	close(dfd);
	return ret;
}

void xsk_members_of(const struct xsk_access *acc, struct xsk_members *m)
{
	m->n = groups_of(acc->uid, m->gid, XSK_MAX_GROUPS);
}
