// SPDX-License-Identifier: GPL-2.0
/* The pod's information file: its application learns its holder's name
 * and queue ids without nkctl (as Cilium's driver hands a pod its
 * rxQueueID). One JSON file per attachment, <podInfoDir>/<container
 * id>-<ifname>.json (attachment_name: an interface's '-' and '%' escaped),
 * which the runtime mounts into the pod (README.md); written whole (a
 * temporary file, then rename) by ADD into a directory of root's, 0700,
 * removed by DEL and GC, read by GC: all through the directory's
 * descriptor (privdir.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "podinfo.h"
#include "attachname.h"
#include "cni.h"
#include "privdir.h"
#include "report.h"

/* The file's name in podInfoDir. */
static int info_name(const struct plugin *p, char *buf, size_t len)
{
	return attachment_name(p->id, p->ifname, ".json", buf, len);
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
	if (make_dirs(p->info_dir))
		return -errno;
	return private_dir_open(p->info_dir, true);
}

/* Written through a temporary file created there (O_EXCL, O_NOFOLLOW: never
 * through a link someone put in its place), then renamed over the file. */
int pod_info_write(const struct plugin *p, json_object *leases, char *why, size_t len)
{
	char name[NAME_MAX + 1], tmp[NAME_MAX + 1];
	json_object *o;
	const char *text;
	int dfd, fd = -1, ret = -1;

	if (info_name(p, name, sizeof(name)) ||
	    snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp)) {
		snprintf(why, len, "no information file name for %s %s", p->id, p->ifname);
		return -1;
	}
	if ((dfd = open_info_dir(p)) < 0) {
		snprintf(why, len, "cannot make %s (a directory of root's, not a link): %s",
			 p->info_dir, private_dir_refusal(dfd));
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
		snprintf(why, len, "cannot write %s/%s: %s", p->info_dir, name, strerror(errno));
	close(dfd);
	json_object_put(o);
	return ret;
}

/* 0 when the file is gone (or never was, or its directory is not there);
 * -1 with why when it stays, or the directory is not one to touch. */
int pod_info_remove(const struct plugin *p, char *why, size_t len)
{
	char name[NAME_MAX + 1];
	int dfd, ret = 0;

	if (!p->id || !p->ifname || info_name(p, name, sizeof(name)))
		return 0;
	dfd = private_dir_open(p->info_dir, false);
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0) {
		snprintf(why, len, "cannot remove the pod's information file: %s is %s", p->info_dir,
			 private_dir_refusal(dfd));
		return -1;
	}
	if (unlinkat(dfd, name, 0) && errno != ENOENT) {
		snprintf(why, len, "cannot remove %s/%s: %s", p->info_dir, name, strerror(errno));
		ret = -1;
	}
	close(dfd);
	return ret;
}

/* The text of name in dfd: a regular file of root's, opened without
 * following a link or waiting on a FIFO, of at most CNI_INFO_MAX bytes,
 * none of them NUL. NULL with why. */
static char *info_file_read(int dfd, const char *name, const char **why)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *text = NULL;

	*why = NULL;
	if (fd < 0)
		*why = errno == ELOOP ? "is a link" : "cannot be opened";
	else if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		*why = "is not a regular file of root's";
	else if (st.st_size > CNI_INFO_MAX)
		*why = "is longer than an information file";
	else if (!(text = malloc((size_t)st.st_size + 1)))
		*why = "out of memory";
	else if (read(fd, text, (size_t)st.st_size) != st.st_size)
		*why = "cannot be read whole";
	else if ((text[st.st_size] = '\0', strlen(text) != (size_t)st.st_size))
		*why = "holds a NUL byte";
	if (fd >= 0)
		close(fd);
	if (*why) {
		free(text);
		return NULL;
	}
	return text;
}

/* text, all of it, as one JSON object (and white space after it), or NULL. */
static json_object *info_file_parse(const char *text)
{
	size_t len = strlen(text), end;
	json_tokener *tok = json_tokener_new();
	json_object *o = tok && len <= CNI_INFO_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;

	end = tok ? json_tokener_get_parse_end(tok) : 0;
	if (o && (json_tokener_get_error(tok) != json_tokener_success ||
		  end + strspn(text + end, " \t\r\n") != len || !json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	if (tok)
		json_tokener_free(tok);
	return o;
}

/* A name for a message: what is not printable as \xNN. */
static const char *printable(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++)
		n += (size_t)snprintf(buf + n, len - n, (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ?
				      "\\x%02x" : "%c", (unsigned char)*s);
	buf[n] = '\0';
	return buf;
}

static void info_warn(const struct plugin *p, const char *name, const char *why)
{
	char safe[4 * NAME_MAX + 8];

	cni_warn("%s: ignoring %s/%s: %s", p->command, p->info_dir,
		 printable(name, safe, sizeof(safe)), why);
}

void pod_info_scan(const struct plugin *p, pod_info_fn fn, void *data)
{
	int dfd = private_dir_open(p->info_dir, false);
	struct dirent *e;
	DIR *d;

	if (dfd == -ENOENT)
		return;
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		cni_warn("%s: ignoring %s: %s", p->command, p->info_dir,
			 dfd < 0 ? private_dir_refusal(dfd) : strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		const char *why = NULL;
		json_object *info = NULL;
		char *text;

		/* ADD's temporary files (".NAME.json.tmp") and anything not a
		 * .json file are none of GC's business */
		if (n < 6 || strcmp(e->d_name + n - 5, ".json") || e->d_name[0] == '.')
			continue;
		text = info_file_read(dirfd(d), e->d_name, &why);
		if (text && !(info = info_file_parse(text)))
			why = "is not a JSON object";
		if (info)
			why = fn(info, e->d_name, data);
		if (why)
			info_warn(p, e->d_name, why);
		json_object_put(info);
		free(text);
	}
	closedir(d);
}
