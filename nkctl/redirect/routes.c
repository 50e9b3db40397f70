// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl's route tables as pinned (routes.h): one program per (device, hook)
 * routes by destination through LPM tries; the link and the maps are pinned
 * side by side under
 * <bpffs>/nkctl/net<netns inode>-<netns cookie>/dev<ifindex>/<hook>[-v4|-v6|-targets|-info|-devs].
 *
 * Crash order: a target's record lists every prefix the tries route to it,
 * at every moment. A change marks the table (info.changing), writes the
 * record with the old and new prefixes together, then the target's device
 * map entry (what makes its routes live in the data path), then the trie
 * entries, then the final record, and clears the mark; removal takes the trie
 * entries first, then the record, then the device map entry. A writer killed in between leaves the mark set
 * and records that claim more than the tries hold, never a route without a
 * record; the next writer sweeps (table_mend).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "compat.h"
#include "redirect/routes.h"

/* ---- prefixes ---- */

void rt_format_prefix(const struct nk_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
}

static bool prefix_eq(const struct nk_prefix *a, const struct nk_prefix *b)
{
	return a->family == b->family && a->len == b->len && !memcmp(a->addr, b->addr, 16);
}

bool rt_prefix_in(const struct nk_prefix *p, const struct nk_prefix *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (prefix_eq(p, &v[i]))
			return true;
	return false;
}

bool rt_same_set(const struct nk_target *a, const struct nk_target *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (!rt_prefix_in(&a->p[i], b->p, b->n))
			return false;
	return true;
}

/* ---- targets and routes ---- */

int target_get(const struct table *t, uint32_t ifindex, struct nk_target *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (t->fd[PIN_TARGETS] < 0 || bpf_map_lookup_elem(t->fd[PIN_TARGETS], &ifindex, rec))
		return -errno;
	if (rec->n > NK_RECORD_PREFIXES)
		rec->n = NK_RECORD_PREFIXES;
	return 0;
}

int targets_list(const struct table *t, struct nk_target **v, size_t *n)
{
	/* Ifindex 0 is never a key, so it starts the walk at the first one
	 * (a hash map's rule for a missing key) without a NULL key. */
	uint32_t key = 0, next;
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	if (t->fd[PIN_TARGETS] < 0)
		return 0;
	while (bpf_map_get_next_key(t->fd[PIN_TARGETS], &key, &next) == 0) {
		key = next;
		if (*n == cap) {
			struct nk_target *nv = realloc(*v, (cap = cap ? 2 * cap : 8) * sizeof(**v));

			if (!nv) {
				free(*v);
				*v = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*v = nv;
		}
		if (target_get(t, key, &(*v)[*n]) == 0)
			(*n)++;
	}
	for (size_t i = 1; i < *n; i++)    /* insertion sort: few, mostly sorted */
		for (size_t j = i; j > 0 && (*v)[j - 1].ifindex > (*v)[j].ifindex; j--) {
			struct nk_target tmp = (*v)[j];

			(*v)[j] = (*v)[j - 1];
			(*v)[j - 1] = tmp;
		}
	return 0;
}

int route_fd(const struct table *t, const struct nk_prefix *p)
{
	return t->fd[p->family == 6 ? PIN_V6 : PIN_V4];
}

void route_key(const struct nk_prefix *p, unsigned char key[20])
{
	uint32_t len = p->len;

	memcpy(key, &len, 4);
	memcpy(key + 4, p->addr, p->family == 6 ? 16 : 4);
}

uint32_t route_owner(const struct table *t, const struct nk_prefix *p)
{
	unsigned char key[20];
	struct nk_route r;

	route_key(p, key);
	if (bpf_map_lookup_elem(route_fd(t, p), key, &r) || r.prefixlen != p->len)
		return 0;
	return r.ifindex;
}

static int route_set(const struct table *t, const struct nk_prefix *p, uint32_t ifindex)
{
	unsigned char key[20];
	struct nk_route r = { .ifindex = ifindex, .prefixlen = p->len };

	route_key(p, key);
	return bpf_map_update_elem(route_fd(t, p), key, &r, BPF_ANY) ? -errno : 0;
}

static int route_del(const struct table *t, const struct nk_prefix *p)
{
	unsigned char key[20];

	route_key(p, key);
	return bpf_map_delete_elem(route_fd(t, p), key) && errno != ENOENT ? -errno : 0;
}

void target_live_prefixes(const struct table *t, struct nk_target *rec)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < rec->n; i++)
		if (route_owner(t, &rec->p[i]) == rec->ifindex)
			rec->p[k++] = rec->p[i];
	rec->n = k;
}

void target_identify(struct nk_target *rec, const struct nk_link *l)
{
	rec->ifindex = (uint32_t)l->ifindex;
	snprintf(rec->ifname, sizeof(rec->ifname), "%s", l->ifname);
	rec->hwaddr_len = l->addr_len <= NK_HWADDR_LEN ? l->addr_len : NK_HWADDR_LEN;
	memcpy(rec->hwaddr, l->addr, rec->hwaddr_len);
}

bool target_same(const struct nk_target *a, const struct nk_target *b)
{
	return a->ifindex == b->ifindex && !strncmp(a->ifname, b->ifname, NK_NAME_LEN) &&
	       a->hwaddr_len == b->hwaddr_len && a->hwaddr_len <= NK_HWADDR_LEN &&
	       !memcmp(a->hwaddr, b->hwaddr, a->hwaddr_len);
}

bool target_is(const struct nk_target *rec, const struct nk_link *l)
{
	struct nk_target now;

	if (!l)
		return false;
	target_identify(&now, l);
	return target_same(rec, &now);
}

/* The target's device map entry: the kernel takes the device by ifindex in
 * nkctl's namespace, the one whose identity the caller checked. */
static int dev_put(const struct table *t, uint32_t ifindex)
{
	if (t->fd[PIN_DEVS] < 0)
		return 0; /* an older table (see table_complete) */
	return bpf_map_update_elem(t->fd[PIN_DEVS], &ifindex, &ifindex, BPF_ANY) ? -errno : 0;
}

static int dev_del(const struct table *t, uint32_t ifindex)
{
	if (t->fd[PIN_DEVS] < 0)
		return 0;
	return bpf_map_delete_elem(t->fd[PIN_DEVS], &ifindex) && errno != ENOENT ? -errno : 0;
}

bool target_live(const struct table *t, uint32_t ifindex)
{
	uint32_t v;

	return t->fd[PIN_DEVS] < 0 || bpf_map_lookup_elem(t->fd[PIN_DEVS], &ifindex, &v) == 0;
}

/* Store rec (n 0: forget the target). */
static int target_put(const struct table *t, const struct nk_target *rec)
{
	if (!rec->n)
		return bpf_map_delete_elem(t->fd[PIN_TARGETS], &rec->ifindex) && errno != ENOENT ?
			       -errno : 0;
	return bpf_map_update_elem(t->fd[PIN_TARGETS], &rec->ifindex, rec, BPF_ANY) ? -errno : 0;
}

/* The mark of a change in progress (see the top). */
static int table_mark(const struct table *t, uint32_t changing)
{
	struct nk_hook_info info = t->info;
	uint32_t key = 0;

	info.changing = changing;
	return bpf_map_update_elem(t->fd[PIN_INFO], &key, &info, BPF_ANY) ? -errno : 0;
}

/* Take p away from the target owner's record (after the trie moved it). */
static int target_drop_prefix(const struct table *t, uint32_t owner, const struct nk_prefix *p)
{
	struct nk_target rec;
	uint32_t k = 0;

	if (target_get(t, owner, &rec))
		return 0;
	for (uint32_t i = 0; i < rec.n; i++)
		if (!prefix_eq(&rec.p[i], p))
			rec.p[k++] = rec.p[i];
	rec.n = k;
	return target_put(t, &rec);
}

/* The prefixes of a change, with who held them before. */
struct moves {
	uint32_t n;
	uint32_t prev[NK_TARGET_PREFIXES];
	const struct nk_prefix *p[NK_TARGET_PREFIXES];
};

/* Put the trie back as it was before moves (a failed change). */
static void moves_undo(const struct table *t, const struct moves *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (m->prev[i])
			route_set(t, m->p[i], m->prev[i]);
		else
			route_del(t, m->p[i]);
}

/* want's trie entries that it does not hold yet (replace takes them). */
static int routes_add(const struct table *t, const struct nk_target *want, struct moves *m)
{
	int ret = 0;

	m->n = 0;
	for (uint32_t i = 0; !ret && i < want->n; i++) {
		uint32_t owner = route_owner(t, &want->p[i]);

		if (owner == want->ifindex)
			continue;
		m->prev[m->n] = owner;
		m->p[m->n] = &want->p[i];
		ret = route_set(t, &want->p[i], want->ifindex);
		if (!ret)
			m->n++;
	}
	return ret;
}

/* When old and want together do not fit in a record (old as a killed
 * writer left it), old's routes that go are removed first. */
static void old_fit(const struct table *t, struct nk_target *old, const struct nk_target *want)
{
	uint32_t k = 0, extra = 0;

	for (uint32_t i = 0; i < want->n; i++)
		extra += !rt_prefix_in(&want->p[i], old->p, old->n);
	if (old->n + extra <= NK_RECORD_PREFIXES)
		return;
	for (uint32_t i = 0; i < old->n; i++)
		if (rt_prefix_in(&old->p[i], want->p, want->n))
			old->p[k++] = old->p[i];
		else if (route_owner(t, &old->p[i]) == old->ifindex)
			route_del(t, &old->p[i]);
	old->n = k;
}

int routes_set(const struct table *t, const struct nk_target *old, const struct nk_target *want,
	       struct change *c)
{
	struct nk_target both = *old;
	struct moves m = { 0 };
	int ret;

	if (rt_same_set(old, want) && !strcmp(old->ifname, want->ifname)) {
		/* Unchanged, unless the trie lost some (a killed writer). */
		for (uint32_t i = 0; i < want->n; i++)
			if (route_owner(t, &want->p[i]) != want->ifindex)
				goto change;
		if (!want->n || target_live(t, want->ifindex))
			return 0;
	}
change:
	both.ifindex = want->ifindex;
	memcpy(both.ifname, want->ifname, sizeof(both.ifname));
	both.hwaddr_len = want->hwaddr_len;
	memcpy(both.hwaddr, want->hwaddr, sizeof(both.hwaddr));
	ret = table_mark(t, 1);
	if (!ret)
		old_fit(t, &both, want);
	for (uint32_t i = 0; i < want->n; i++)
		if (!rt_prefix_in(&want->p[i], both.p, both.n))
			both.p[both.n++] = want->p[i];
	if (!ret)
		ret = target_put(t, &both);
	if (!ret && want->n)
		ret = dev_put(t, want->ifindex);
	if (!ret)
		ret = routes_add(t, want, &m);
	if (ret) {
		moves_undo(t, &m);
		if (old->n) {
			target_put(t, old);
		} else {
			target_put(t, &(struct nk_target){ .ifindex = want->ifindex });
			dev_del(t, want->ifindex);
		}
		table_mark(t, 0);
		return ret;
	}
	c->changed = true;
	for (uint32_t i = 0; i < m.n; i++)
		if (m.prev[i]) {
			target_drop_prefix(t, m.prev[i], m.p[i]);
			c->replaced = true;
		}
	for (uint32_t i = 0; i < old->n; i++)
		if (!rt_prefix_in(&old->p[i], want->p, want->n) &&
		    route_owner(t, &old->p[i]) == want->ifindex)
			route_del(t, &old->p[i]);
	ret = target_put(t, want);
	if (!ret && !want->n)
		ret = dev_del(t, want->ifindex);
	if (!ret)
		ret = table_mark(t, 0);
	return ret;
}

int target_remove(const struct table *t, const struct nk_target *rec)
{
	struct nk_target gone = { .ifindex = rec->ifindex };
	int ret = table_mark(t, 1);

	for (uint32_t i = 0; !ret && i < rec->n; i++)
		if (route_owner(t, &rec->p[i]) == rec->ifindex)
			ret = route_del(t, &rec->p[i]);
	if (!ret)
		ret = target_put(t, &gone);
	if (!ret)
		ret = dev_del(t, rec->ifindex);
	if (!ret)
		ret = table_mark(t, 0);
	return ret;
}

/* ---- the sweep ---- */

static int orphan_add(struct orphan **v, size_t *n, const struct nk_prefix *p, uint32_t ifindex)
{
	struct orphan *nv;

	if (!(*n & (*n + 1)) || !*v) {  /* grow at 0, 1, 3, 7, ... */
		nv = realloc(*v, (2 * *n + 2) * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[*n].p = *p;
	(*v)[(*n)++].ifindex = ifindex;
	return 0;
}

/* Walk one family's trie: entries whose owner's record does not list them. */
static int sweep_trie(const struct table *t, uint8_t family, struct orphan **v, size_t *n)
{
	int fd = t->fd[family == 6 ? PIN_V6 : PIN_V4];
	size_t alen = family == 6 ? 16 : 4;
	/* A prefix length above the trie's maximum starts the walk at the
	 * leftmost entry (the trie's rule for an invalid key), without a NULL
	 * key (valgrind flags it). */
	unsigned char key[20] = { 0xff, 0xff, 0xff, 0xff }, next[20];
	int ret = 0;

	if (fd < 0)
		return 0;
	while (!ret && bpf_map_get_next_key(fd, key, next) == 0) {
		struct nk_prefix p = { .family = family };
		struct nk_target rec;
		struct nk_route r;
		uint32_t len;

		memcpy(key, next, sizeof(key));
		if (bpf_map_lookup_elem(fd, key, &r))
			continue;
		memcpy(&len, key, 4);
		p.len = (uint8_t)len;
		memcpy(p.addr, key + 4, alen);
		if (target_get(t, r.ifindex, &rec) || !rt_prefix_in(&p, rec.p, rec.n))
			ret = orphan_add(v, n, &p, r.ifindex);
	}
	return ret;
}

/* Device map entries without a record (a removal killed before its last
 * step) go. */
static void sweep_devs(const struct table *t)
{
	uint32_t key = 0, next;
	struct nk_target rec;

	while (t->fd[PIN_DEVS] >= 0 && bpf_map_get_next_key(t->fd[PIN_DEVS], &key, &next) == 0) {
		key = next;
		if (target_get(t, key, &rec) == -ENOENT)
			dev_del(t, key);
	}
}

/* Records keep only what the tries route to them; empty ones go. */
static void sweep_records(const struct table *t)
{
	struct nk_target *v;
	size_t n;

	if (targets_list(t, &v, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t had = v[i].n;

		target_live_prefixes(t, &v[i]);
		if (v[i].n != had)
			target_put(t, &v[i]);
	}
	free(v);
}

int table_sweep(const struct table *t, bool fix, struct orphan **v, size_t *n)
{
	int ret;

	*v = NULL;
	*n = 0;
	ret = sweep_trie(t, 4, v, n);
	if (!ret)
		ret = sweep_trie(t, 6, v, n);
	if (ret || !fix)
		return ret;
	for (size_t i = 0; i < *n; i++)
		route_del(t, &(*v)[i].p);
	sweep_records(t);
	sweep_devs(t);
	return table_mark(t, 0);
}

int table_mend(const struct table *t)
{
	struct orphan *v;
	size_t n;
	int ret;

	if (!t->info.changing)
		return 0;
	ret = table_sweep(t, true, &v, &n);
	free(v);
	return ret;
}

/* ---- prefixes ---- */

/* ADDRESS/LENGTH as redirect attach ... prefix takes it: no host bits set. */
int parse_prefix(const char *s, struct nk_prefix *p)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	unsigned char bytes[16] = { 0 }, mask[16] = { 0 };
	uint32_t len, max;
	int family;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		goto bad;
	memcpy(addr, s, slash - s);
	addr[slash - s] = '\0';
	family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	max = family == AF_INET6 ? 128 : 32;
	if (inet_pton(family, addr, bytes) != 1 || !slash[1] ||
	    strspn(slash + 1, "0123456789") != strlen(slash + 1) || strlen(slash + 1) > 3)
		goto bad;
	len = (uint32_t)atoi(slash + 1);
	if (len > max)
		goto bad;
	for (uint32_t i = 0; i < len; i++)
		mask[i / 8] |= (unsigned char)(0x80 >> (i % 8));
	for (uint32_t i = 0; i < max / 8; i++) {
		if (bytes[i] & ~mask[i])
			return nk_error(NK_EXIT_USAGE,
					"invalid value \"%s\" for \"prefix\": host bits are set", s);
	}
	memset(p, 0, sizeof(*p));
	p->family = family == AF_INET6 ? 6 : 4;
	p->len = (uint8_t)len;
	memcpy(p->addr, bytes, 16);
	return 0;
bad:
	return nk_error(NK_EXIT_USAGE,
			"invalid value \"%s\" for \"prefix\": expected ADDRESS/LENGTH, e.g. 10.1.0.0/24 or fd00::/64",
			s);
}
