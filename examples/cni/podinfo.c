// SPDX-License-Identifier: GPL-2.0
/* The pod's information file: its application learns its holder's name
 * and queue ids without nkctl (as Cilium's driver hands a pod its
 * rxQueueID). One JSON file per attachment, <podInfoDir>/<container
 * id>-<ifname>.json, which the runtime mounts into the pod (README.md);
 * written whole (rename) by ADD, removed by DEL and GC. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cni.h"

static int info_path(const struct plugin *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s-%s.json", p->info_dir, p->id, p->ifname);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* mkdir -p of dir (absolute): 0 or -1. */
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
		if (mkdir(d, 0755) && errno != EEXIST)
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

int pod_info_write(const struct plugin *p, json_object *leases, char *why, size_t len)
{
	char path[1024], tmp[1040];
	json_object *o;
	FILE *f;
	int ret = -1;

	if (info_path(p, path, sizeof(path)) || make_dirs(p->info_dir)) {
		snprintf(why, len, "cannot make %s: %s", p->info_dir, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o = info_doc(p, leases);
	f = fopen(tmp, "we");
	if (f) {
		fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		ret = fclose(f) ? -1 : rename(tmp, path);
		if (ret)
			unlink(tmp);
	}
	if (ret)
		snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
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
