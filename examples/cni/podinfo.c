// SPDX-License-Identifier: GPL-2.0
/* The pod's information file: its application learns its holder's name
 * and queue ids without nkctl (as Cilium's driver hands a pod its
 * rxQueueID). One JSON file per attachment, <podInfoDir>/<container
 * id>-<ifname>.json (attachment_name: an interface's '-' and '%' escaped),
 * which the runtime mounts into the pod (README.md);
 * written whole (a temporary file, then rename) by ADD into a directory
 * of 0700, removed by DEL and GC. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cni.h"

/* The file's name in podInfoDir. */
static int info_name(const struct plugin *p, char *buf, size_t len)
{
	return attachment_name(p->id, p->ifname, ".json", buf, len);
}

static int info_path(const struct plugin *p, char *buf, size_t len)
{
	char name[NAME_MAX + 1];
	int n;

	if (info_name(p, name, sizeof(name)))
		return -1;
	n = snprintf(buf, len, "%s/%s", p->info_dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* mkdir -p of dir (absolute): 0 or -1. /run/nkctl, if made here, is 0700,
 * as nkctl requires of it (its NIC state); the others 0755. */
static int make_dirs(const char *dir)
{
	char d[600];
	size_t n = strlen(dir);

	if (n >= sizeof(d))
		return -1;
	memcpy(d, dir, n + 1);
	for (char *s = d + 1; ; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(d, strcmp(d, NK_CNI_RUN_DIR) ? 0755 : 0700) && errno != EEXIST)
			return -1;
		if (!(*s = c))
			return 0;
	}
}

/* {"holder", "queues": [{"id", "nic-queue"}]} ... from the lease's reply. */
static json_object *info_doc(const struct plugin *p, json_object *leases)
{
	json_object *o = json_object_new_object(), *qs = json_object_new_array(), *arr, *l, *q;

	json_object_object_add(o, "network", json_object_new_string(p->name));
	json_object_object_add(o, "containerID", json_object_new_string(p->id));
	json_object_object_add(o, "ifname", json_object_new_string(p->ifname));
	json_object_object_add(o, "holder", json_object_new_string(p->holder));
	json_object_object_add(o, "nic", json_object_new_string(p->nic));
	if (!json_object_object_get_ex(leases, "leases", &arr))
		arr = NULL;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *id, *one;

		if (!json_object_object_get_ex(e, "lease", &l) ||
		    !json_object_object_get_ex(l, "queue", &q) || !json_object_object_get_ex(e, "id", &id))
			continue;
		if (json_object_is_type(q, json_type_object) && !json_object_object_get_ex(q, "id", &q))
			continue;
		one = json_object_new_object();
		json_object_object_add(one, "id", json_object_get(q));
		json_object_object_add(one, "nic-queue", json_object_get(id));
		json_object_array_add(qs, one);
	}
	json_object_object_add(o, "queues", qs);
	return o;
}

/* The information directory, made 0700 where missing (its parents 0755)
 * and opened without following a link: a directory under a shared root
 * that someone else made, or a link put in its place, is refused. */
static int open_info_dir(const struct plugin *p)
{
	struct stat st;
	int fd;

	if (make_dirs(p->info_dir))
		return -1;
	fd = open(p->info_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_uid != geteuid() || fchmod(fd, 0700)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Written through a temporary file created there (O_EXCL, O_NOFOLLOW: never
 * through a link someone put in its place), then renamed over the file. */
int pod_info_write(const struct plugin *p, json_object *leases, char *why, size_t len)
{
	char path[1024], name[NAME_MAX + 1], tmp[NAME_MAX + 1];
	json_object *o;
	const char *text;
	int dfd, fd = -1, ret = -1;

	if (info_path(p, path, sizeof(path)) || info_name(p, name, sizeof(name)) ||
	    snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp) ||
	    (dfd = open_info_dir(p)) < 0) {
		snprintf(why, len, "cannot make %s (a directory of this user's, not a link): %s",
			 p->info_dir, strerror(errno));
		return -1;
	}
	unlinkat(dfd, tmp, 0);        /* a killed ADD's (never followed) */
	o = info_doc(p, leases);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		size_t n = strlen(text);

		ret = write(fd, text, n) == (ssize_t)n && write(fd, "\n", 1) == 1 ? 0 : -1;
		ret = close(fd) || ret ? -1 : renameat(dfd, tmp, dfd, name);
		if (ret)
			unlinkat(dfd, tmp, 0);
	}
	if (ret)
		snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
	close(dfd);
	json_object_put(o);
	return ret;
}

/* 0 when the file is gone (or never was). */
int pod_info_remove(const struct plugin *p)
{
	char path[1024];

	if (!p->id || !p->ifname || info_path(p, path, sizeof(path)))
		return 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}
