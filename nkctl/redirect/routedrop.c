// SPDX-License-Identifier: GPL-2.0
/*
 * Taking routes away from nkctl's route tables (routes.h), and the list of
 * what went, printed: a whole hook's table, or some targets' routes (detach,
 * prune, and the cleanup after link del and unlease in routesvc.c). The
 * printers of routes, orphans and a table's device and hook are shared with
 * redirect show and attach.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "compat.h"
#include "redirect/routedrop.h"

/* One target's routes; live: the device now at its ifindex (NULL with
 * check: gone, so defunct; check false: not looked at). */
static void print_route(struct out *o, const struct nk_target *r, bool check,
			const struct nk_link *live)
{
	bool defunct = check && !target_is(r, live);
	char buf[INET6_ADDRSTRLEN + 8];

	out_obj_open(o, NULL);
	out_obj_open(o, "target");
	out_uint(o, "ifindex", NULL, r->ifindex);
	out_str(o, "ifname", "\n\tto %s", r->ifname);
	out_obj_close(o);
	out_arr_open(o, "prefixes");
	for (uint32_t i = 0; i < r->n && i < NK_RECORD_PREFIXES; i++) {
		rt_format_prefix(&r->p[i], buf, sizeof(buf));
		out_str(o, NULL, " prefix %s", buf);
	}
	out_arr_close(o);
	out_bool(o, "defunct", NULL, defunct);
	if (defunct)
		out_text(o, live ? " DEFUNCT (the target is gone: another device has its ifindex)" :
			 " DEFUNCT (the target is gone)");
	out_obj_close(o);
}

void print_routes(struct out *o, const struct nk_target *v, size_t n,
		  const struct nk_link_list *links)
{
	out_arr_open(o, "routes");
	for (size_t i = 0; i < n; i++)
		print_route(o, &v[i], links, links ? nk_link_find(links, (int)v[i].ifindex) : NULL);
	out_arr_close(o);
}

void print_orphans(struct out *o, const struct orphan *v, size_t n, const char *why)
{
	char buf[INET6_ADDRSTRLEN + 8];

	out_arr_open(o, "orphans");
	for (size_t i = 0; i < n; i++) {
		rt_format_prefix(&v[i].p, buf, sizeof(buf));
		out_obj_open(o, NULL);
		out_str(o, "prefix", "\n\tORPHAN prefix %s", buf);
		out_uint(o, "ifindex", " to ifindex %llu", v[i].ifindex);
		out_text(o, " %s", why);
		out_obj_close(o);
	}
	out_arr_close(o);
}

/* The device and hook of a table: the live device, or what was recorded. */
void print_hook_id(struct out *o, const struct table *t, const struct nk_link *dev,
		   uint32_t hook)
{
	char name[IF_NAMESIZE + 8];

	if (dev)
		snprintf(name, sizeof(name), "%s", dev->ifname);
	else if (t->info.ifname[0])
		snprintf(name, sizeof(name), "%s", t->info.ifname);
	else
		snprintf(name, sizeof(name), "dev%u", t->info.ifindex);
	out_uint(o, "ifindex", NULL, dev ? (unsigned int)dev->ifindex : t->info.ifindex);
	out_str(o, "ifname", "%s", name);
	out_str(o, "hook", " %s", rt_hook_name(hook));
}



static struct removed *removed_add(struct removed_list *l, const struct table *t, uint32_t hook,
				   const struct nk_link *dev)
{
	struct removed *nv = realloc(l->v, (l->n + 1) * sizeof(*nv)), *r;

	if (!nv)
		return NULL;
	l->v = nv;
	r = memset(&nv[l->n++], 0, sizeof(*r));
	r->t = *t;
	r->hook = hook;
	r->dev_live = dev && !t->defunct;
	if (r->dev_live)
		r->dev = *dev;
	return r;
}

void removed_free(struct removed_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].v);
		free(l->v[i].orphans);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void print_removed(struct out *o, const char *verb, const struct removed_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct removed *r = &l->v[i];

		out_obj_open(o, NULL);
		out_text(o, "%s ", verb);
		print_hook_id(o, &r->t, r->dev_live ? &r->dev : NULL, r->hook);
		out_bool(o, "hook-removed", NULL, r->hook_removed);
		if (r->hook_removed)
			out_text(o, " (program detached)");
		print_routes(o, r->v, r->n, NULL);
		print_orphans(o, r->orphans, r->norphans, "(no record)");
		out_text(o, "\n");
		out_obj_close(o);
	}
}

/* Remove the whole hook (detach without to, a defunct table, link del):
 * what it held goes into the list. */
int remove_hook(struct removed_list *l, const char *dir, const struct table *t,
		uint32_t hook, const struct nk_link *dev)
{
	struct removed *r = removed_add(l, t, hook, dev);

	if (!r)
		return -ENOMEM;
	targets_list(t, &r->v, &r->n);
	for (size_t i = 0; i < r->n; i++)
		target_live_prefixes(t, &r->v[i]);
	table_sweep(t, false, &r->orphans, &r->norphans);
	r->hook_removed = true;
	pins_remove(dir, hook);
	return 0;
}

/* Remove the given targets' routes; the program goes with the last. */
int remove_targets(struct removed_list *l, const char *dir, const struct table *t,
		   uint32_t hook, const struct nk_link *dev, const struct nk_target *v,
		   size_t n, const struct orphan *orphans, size_t norphans)
{
	struct removed *r;
	int ret = 0;

	/* Empty: a detach killed between the last record and the program. */
	if (!n && !norphans && !table_empty(t))
		return 0;
	r = removed_add(l, t, hook, dev);
	if (!r)
		return -ENOMEM;
	r->v = n ? malloc(n * sizeof(*v)) : NULL;
	r->orphans = norphans ? malloc(norphans * sizeof(*orphans)) : NULL;
	if ((n && !r->v) || (norphans && !r->orphans))
		return -ENOMEM;
	if (norphans)
		memcpy(r->orphans, orphans, norphans * sizeof(*orphans));
	r->norphans = norphans;
	for (size_t i = 0; !ret && i < n; i++) {
		r->v[r->n] = v[i];
		target_live_prefixes(t, &r->v[r->n]);
		ret = target_remove(t, &v[i]);
		r->n++;
	}
	if (!ret && table_empty(t)) {
		r->hook_removed = true;
		pins_remove(dir, hook);
	}
	return ret;
}


/* A table's records as routed now: the prefixes the tries hold for each,
 * targets without any left out. */
void live_targets(const struct table *t, struct nk_target **v, size_t *n)
{
	size_t k = 0;

	targets_list(t, v, n);
	for (size_t i = 0; i < *n; i++) {
		target_live_prefixes(t, &(*v)[i]);
		if ((*v)[i].n)
			(*v)[k++] = (*v)[i];
	}
	*n = k;
}
