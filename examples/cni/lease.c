// SPDX-License-Identifier: GPL-2.0
/* The pod's queues of the pool: `lease ... queue Q` on the first free ones,
 * where the kernel is the arbiter: a queue another ADD took meanwhile makes
 * lease fail with exit status 4, and the next free ones are tried. No lock
 * file, and nothing to go stale when a plugin is killed. */
#include <stdlib.h>
#include <string.h>

#include "cni.h"

#define MAX_QUEUE 4096

/* The pool "2-5,8" as a bitmap; -1 when it is not one. */
static int pool_parse(const char *pool, unsigned char *in)
{
	char *copy = strdup(pool), *save = NULL, *part, *end;
	int ret = 0;

	if (!copy)
		return -1;
	for (part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
		unsigned long lo = strtoul(part, &end, 10), hi = lo;

		if (end == part)
			ret = -1;
		else if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (ret || *end || lo > hi || hi >= MAX_QUEUE) {
			ret = -1;
			break;
		}
		for (unsigned long q = lo; q <= hi; q++)
			in[q] = 1;
	}
	free(copy);
	return ret;
}

/* The NIC queues leased now, from `show leases` (the NIC in this namespace). */
static int mark_leased(const struct plugin *p, struct nk_session *s, unsigned char *used)
{
	json_object *doc, *leases, *l, *v;
	int ret = nks_run(s, &doc, "show leases");

	if (ret)
		return ret;
	if (json_object_object_get_ex(doc, "leases", &leases))
		for (size_t i = 0; i < json_object_array_length(leases); i++) {
			l = json_object_array_get_idx(leases, i);
			if (json_object_object_get_ex(l, "netns", &v) ||
			    !json_object_object_get_ex(l, "ifname", &v) ||
			    strcmp(json_object_get_string(v), p->nic) ||
			    !json_object_object_get_ex(l, "id", &v))
				continue;
			if (json_object_get_int(v) >= 0 && json_object_get_int(v) < MAX_QUEUE)
				used[json_object_get_int(v)] = 1;
		}
	json_object_put(doc);
	return 0;
}

/* "Q1,Q2": the first per_pod queues of the pool not in used. */
static bool pick(const struct plugin *p, const unsigned char *in, const unsigned char *used,
		 char *list, size_t len)
{
	unsigned int n = 0;
	size_t off = 0;

	*list = '\0';
	for (int q = 0; q < MAX_QUEUE && n < p->per_pod; q++)
		if (in[q] && !used[q]) {
			off += (size_t)snprintf(list + off, len - off, "%s%d", n ? "," : "", q);
			n++;
		}
	return n == p->per_pod && off < len;
}

/* Another ADD won these queues (or something else uses them): not again. */
static void drop_picked(unsigned char *in, const char *list)
{
	char *end;

	for (const char *q = list; *q; q = *end ? end + 1 : end) {
		unsigned long n = strtoul(q, &end, 10);

		if (n < MAX_QUEUE)
			in[n] = 0;
	}
}

/* Lease per_pod free queues of the pool into the holder, steering dsts
 * (comma-separated, may be empty) to the first. 0, or fails the ADD's way:
 * the caller's abort with why. */
int lease_from_pool(const struct plugin *p, struct nk_session *s, const char *dsts, char *why,
		    size_t len)
{
	unsigned char in[MAX_QUEUE] = { 0 }, used[MAX_QUEUE];
	char list[256];
	int ret;

	if (pool_parse(p->queues, in)) {
		snprintf(why, len, "\"queues\" \"%s\" is not a list of queues such as 2-5,8", p->queues);
		return -1;
	}
	/* Each try that loses drops its queues: at most the pool's size tries. */
	for (int tries = 0; tries < MAX_QUEUE; tries++) {
		memset(used, 0, sizeof(used));
		ret = mark_leased(p, s, used);
		if (ret) {
			snprintf(why, len, "show leases: %s", s->err);
			return -1;
		}
		if (!pick(p, in, used, list, sizeof(list))) {
			snprintf(why, len, "the queue pool %s of %s is exhausted", p->queues, p->nic);
			return -1;
		}
		if (p->steer && *dsts)
			ret = nks_run(s, NULL, "lease dev %s from %s queue %s steer dst %s", p->holder,
				      p->nic, list, dsts);
		else
			ret = nks_run(s, NULL, "lease dev %s from %s queue %s", p->holder, p->nic, list);
		if (ret != 4)
			break;
		drop_picked(in, list);
	}
	if (ret) {
		snprintf(why, len, "lease: %s", s->err);
		return -1;
	}
	return 0;
}
