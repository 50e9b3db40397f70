// SPDX-License-Identifier: GPL-2.0
/* NIC state files: "key value" lines, kept in the store (store.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfutil.h"
#include "nic/nicstate.h"
#include "nl.h"
#include "store.h"

#define STATE_MAGIC "nkctl-nic 1"

/* The name of a first-format file: "<netns-dev>-<netns-ino>-<ifindex>". */
static void legacy_name(char *buf, size_t len, dev_t dev, ino_t ino, int ifindex)
{
	snprintf(buf, len, "%llu-%llu-%d", (unsigned long long)dev, (unsigned long long)ino,
		 ifindex);
}

bool legacy_parse(const char *name, struct nk_nic_state *st)
{
	unsigned long long dev, ino;
	int ifindex, end = 0;

	if (sscanf(name, "%llu-%llu-%d%n", &dev, &ino, &ifindex, &end) != 3 || name[end])
		return false;
	st->ns_dev = (dev_t)dev;
	st->ns_ino = (ino_t)ino;
	st->ifindex = ifindex;
	return true;
}

static void perm_str(const struct nk_link *nic, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nic->perm_addr_len && used + 3 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%02x", i ? ":" : "",
					 nic->perm_addr[i]);
}

/* Only characters that are safe in a file name. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '.' || *s == ':' || *s == '_' || *s == '-'))
			*s = '_';
}

void nk_nic_key(const struct nk_ns *ns, const struct nk_link *nic, char *key, size_t len)
{
	char perm[3 * 32];

	perm_str(nic, perm, sizeof(perm));
	if (nic->parent[0])
		snprintf(key, len, "%s-%s%s%s", nic->parent_bus[0] ? nic->parent_bus : "dev",
			 nic->parent, nic->port_name[0] || perm[0] ? "-" : "",
			 nic->port_name[0] ? nic->port_name : perm);
	else if (perm[0])
		snprintf(key, len, "perm-%s", perm);
	else
		snprintf(key, len, "ns-%llu-%llu-%d", (unsigned long long)ns->dev,
			 (unsigned long long)ns->ino, nic->ifindex);
	sanitize(key);
}

static int state_dirs(void)
{
	int ret = nk_private_dir(NK_NIC_RUN_DIR);

	return ret ? ret : nk_private_dir(NK_NIC_STATE_DIR);
}

int nk_nic_lock(const char *key, bool wait, int *fd)
{
	int ret = state_dirs();

	return ret ? ret : nk_store_lock(NK_NIC_STATE_DIR, key, wait, fd);
}

/* "1 2 3" into v (at most max): digits by hand, not strtoul per number
 * (show leases reads three lists a lease). A word that does not start with
 * a digit counts 0, and a number goes on only while digits do. */
static size_t parse_list(char *val, uint32_t *v, size_t max)
{
	const char *p = val;
	size_t n = 0;

	while (n < max) {
		uint32_t x = 0;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		for (; *p >= '0' && *p <= '9'; p++)
			x = x * 10 + (uint32_t)(*p - '0');
		while (*p && *p != ' ')
			p++;
		v[n++] = x;
	}
	return n;
}

/* One "a,b,c" field of a lease line ("-" for none). */
static size_t parse_csv(char *field, uint32_t *v)
{
	for (char *c = field; *c; c++)
		*c = *c == ',' ? ' ' : *c;
	return strcmp(field, "-") ? parse_list(field, v, NK_NIC_LEASE_MAX) : 0;
}

/* The next number (after spaces) into *v, or false when none starts there. */
static bool next_num(const char **p, unsigned long long *v)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (**p < '0' || **p > '9')
		return false;
	*v = strtoull(*p, &end, 10);
	*p = end;
	return true;
}

/* The next number with an optional '-' (an ifindex, written with %d) into
 * *v, wrapped to an int as the record's writer would print it. */
static bool next_int(const char **p, int *v)
{
	unsigned long long u;
	bool neg;

	while (**p == ' ')
		(*p)++;
	neg = **p == '-';
	if (neg)
		(*p)++;
	if (!next_num(p, &u))
		return false;
	*v = (int)(uint32_t)(neg ? 0 - u : u);
	return true;
}

/* The next word of a spec into w[len], or false when there is none. */
static bool next_word(const char **p, char *w, size_t len)
{
	size_t n;

	while (**p == ' ')
		(*p)++;
	n = strcspn(*p, " ");
	if (!n)
		return false;
	/* Cut to len - 1 as snprintf would, without its cost per rule. */
	memcpy(w, *p, n < len ? n : len - 1);
	w[n < len ? n : len - 1] = '\0';
	*p += n;
	return true;
}

/* "lease DEV INO IFINDEX RESERVED RULES LEASED NAME [CONTEXT]" (lists as a,b
 * or "-"; CONTEXT, the RSS context of a multi-queue lease's rules, only when
 * it has one). */
static void parse_lease(char *val, struct nk_nic_state *st)
{
	struct nk_nic_lease *l;
	unsigned long long dev, ino, context = 0;
	int ifindex;
	char q[1024], r[1024], leased[1024], name[IF_NAMESIZE];
	const char *p = val;

	/* By hand, not sscanf: show leases reads a line a lease. */
	if (!next_num(&p, &dev) || !next_num(&p, &ino) || !next_int(&p, &ifindex) ||
	    !next_word(&p, q, sizeof(q)) || !next_word(&p, r, sizeof(r)) ||
	    !next_word(&p, leased, sizeof(leased)) || !next_word(&p, name, sizeof(name)))
		return;
	next_num(&p, &context);
	l = nk_grow(&st->leases, &st->nleases, &st->leases_cap, sizeof(*l));
	if (!l) {
		st->nomem = true;
		return;
	}
	memset(l, 0, sizeof(*l));
	l->ns_dev = (dev_t)dev;
	l->ns_ino = (ino_t)ino;
	l->ifindex = ifindex;
	memcpy(l->name, name, sizeof(l->name));
	l->nqueues = parse_csv(q, l->queues);
	l->nrules = parse_csv(r, l->rules);
	l->nleased = parse_csv(leased, l->leased);
	l->rss_context = (uint32_t)context;
}

/* Hex by hand, not a printf or strtoul per byte: a NIC with hundreds of
 * pods' rules has its record written and read at every sweep. */
static void hex_put(FILE *f, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[2 + 2 * 16];
	size_t k = 0;

	buf[k++] = ' ';
	for (size_t i = 0; i < n && i < 16; i++) {
		buf[k++] = digits[b[i] >> 4];
		buf[k++] = digits[b[i] & 15];
	}
	buf[k] = '\0';
	fputs(buf, f);
}

/* One hex digit's value, or -1. */
static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* As strtoul of each two-digit pair did: a bad digit ends the pair there. */
static void hex_get(const char *s, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n && s[2 * i] && s[2 * i + 1]; i++) {
		int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);

		b[i] = (uint8_t)(hi < 0 ? 0 : lo < 0 ? hi : hi * 16 + lo);
	}
}

/* A rule's spec: "FLOW BITS SRC DST SPORT DPORT ACTION [CONTEXT]"; false when
 * malformed. Read by hand, not sscanf: a record with hundreds of rules is
 * read at every sweep. */
static bool parse_spec(const char *val, struct nk_ntuple *r)
{
	unsigned long long flow, bits, sport, dport, action, context = 0;
	char src[40], dst[40];
	const char *p = val;

	memset(r, 0, sizeof(*r));
	if (!next_num(&p, &flow) || !next_num(&p, &bits) || !next_word(&p, src, sizeof(src)) ||
	    !next_word(&p, dst, sizeof(dst)) || !next_num(&p, &sport) || !next_num(&p, &dport) ||
	    !next_num(&p, &action))
		return false;
	next_num(&p, &context);
	r->rss_context = (uint32_t)context;
	r->flow_type = (uint32_t)flow;
	r->have_src = bits & 1;
	r->have_dst = bits & 2;
	r->have_sport = bits & 4;
	r->have_dport = bits & 8;
	hex_get(src, r->src, 16);
	hex_get(dst, r->dst, 16);
	r->sport = (uint16_t)sport;
	r->dport = (uint16_t)dport;
	r->action = action;
	return true;
}

/* "rule ID SPEC": the spec of recorded rule ID. */
static void parse_rule_spec(const char *val, struct nk_nic_state *st)
{
	char *end;
	unsigned long id = strtoul(val, &end, 10);
	struct nk_ntuple r;

	if (end == val || !parse_spec(end, &r))
		return;
	for (size_t i = 0; i < st->nrules; i++)
		if (st->rules[i].id == id) {
			st->rules[i] = r;
			st->rules[i].id = (uint32_t)id;
		}
}

static void put_spec(FILE *f, const char *key, const struct nk_ntuple *r)
{
	fprintf(f, "%s %u %u", key, r->flow_type,
		r->have_src | r->have_dst << 1 | r->have_sport << 2 | r->have_dport << 3);
	hex_put(f, r->src, 16);
	hex_put(f, r->dst, 16);
	fprintf(f, " %u %u %llu", r->sport, r->dport, (unsigned long long)r->action);
	if (r->rss_context)
		fprintf(f, " %u", r->rss_context);
	fprintf(f, "\n");
}

bool nk_ntuple_same(const struct nk_ntuple *a, const struct nk_ntuple *b)
{
	size_t alen = nk_flow_is_v6(a->flow_type) ? 16 : 4;

	return a->flow_type == b->flow_type && a->have_src == b->have_src &&
	       a->have_dst == b->have_dst && a->have_sport == b->have_sport &&
	       a->have_dport == b->have_dport && !a->other_fields && !b->other_fields &&
	       (!a->have_src || !memcmp(a->src, b->src, alen)) &&
	       (!a->have_dst || !memcmp(a->dst, b->dst, alen)) &&
	       (!a->have_sport || a->sport == b->sport) &&
	       (!a->have_dport || a->dport == b->dport) && a->action == b->action &&
	       a->rss_context == b->rss_context;
}

/* "rules ID ID...": the ids nkctl recorded, specs on "rule" lines. */
static void parse_rule_ids(char *val, struct nk_nic_state *st)
{
	char *tok, *save = NULL;

	st->nrules = 0;
	for (tok = strtok_r(val, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		struct nk_ntuple *r = nk_grow(&st->rules, &st->nrules, &st->rules_cap, sizeof(*r));

		if (!r) {
			st->nomem = true;
			return;
		}
		memset(r, 0, sizeof(*r));
		r->id = (uint32_t)strtoul(tok, NULL, 10);
	}
}

/* "netns DEV INO": where the NIC was last seen. */
static void parse_netns(const char *val, struct nk_nic_state *st)
{
	unsigned long long dev, ino;

	if (sscanf(val, "%llu %llu", &dev, &ino) == 2) {
		st->ns_dev = (dev_t)dev;
		st->ns_ino = (ino_t)ino;
	}
}

void parse_line(char *line, struct nk_nic_state *st)
{
	char *val = strchr(line, ' ');
	unsigned long long u;

	if (!val)
		val = line + strlen(line);
	else
		*val++ = '\0';
	u = strtoull(val, NULL, 10);
	if (!strcmp(line, "ifname"))
		snprintf(st->ifname, sizeof(st->ifname), "%s", val);
	else if (!strcmp(line, "ifindex"))
		st->ifindex = (int)u;
	else if (!strcmp(line, "netns"))
		parse_netns(val, st);
	else if (!strcmp(line, "parent"))
		snprintf(st->parent, sizeof(st->parent), "%s", val);
	else if (!strcmp(line, "port"))
		snprintf(st->port, sizeof(st->port), "%s", val);
	else if (!strcmp(line, "perm"))
		snprintf(st->perm, sizeof(st->perm), "%s", val);
	else if (!strcmp(line, "reserved"))
		st->nreserved = parse_list(val, st->reserved, NK_MAX_QUEUES);
	else if (!strcmp(line, "saved"))
		st->saved = u != 0;
	else if (!strcmp(line, "tcp-data-split")) {
		st->have_tds = true;
		st->tds = (uint32_t)u;
	} else if (!strcmp(line, "hds-thresh")) {
		st->have_hds = true;
		st->hds = (uint32_t)u;
	} else if (!strcmp(line, "rss-default"))
		st->rss_default = u != 0;
	else if (!strcmp(line, "indir"))
		st->indir_size = (uint32_t)parse_list(val, st->indir, NK_RSS_MAX_INDIR);
	else if (!strcmp(line, "rules"))
		parse_rule_ids(val, st);
	else if (!strcmp(line, "rule"))
		parse_rule_spec(val, st);
	else if (!strcmp(line, "lease"))
		parse_lease(val, st);
	else if (!strcmp(line, "pending"))
		st->have_pending = parse_spec(val, &st->pending);
}

/* A line of the lists that nk_nic_state_read_head leaves out. */
static bool is_list_line(const char *line)
{
	static const char *const keys[] = { "reserved ", "indir ", "rules", "rule ", "pending " };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(line, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/* With head (not NULL): the lists left out, *head set when a lease is. */
static int state_parse(FILE *f, struct nk_nic_state *st, bool *head)
{
	char *line = NULL;
	size_t cap = 0;
	bool magic = false;

	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!magic) {
			magic = !strcmp(line, STATE_MAGIC);
			if (!magic)
				break;
			continue;
		}
		if (head && !strncmp(line, "lease ", 6))
			*head = true;
		else if (!head || !is_list_line(line))
			parse_line(line, st);
	}
	free(line);
	if (!magic)
		return -EBADMSG;
	st->exists = true;
	return st->nomem ? -ENOMEM : 0;
}

int nk_nic_state_parse(FILE *f, struct nk_nic_state *st)
{
	return state_parse(f, st, NULL);
}

int nk_nic_state_parse_head(FILE *f, struct nk_nic_state *st, bool *leases)
{
	*leases = false;
	return state_parse(f, st, leases);
}

void nk_nic_state_free(struct nk_nic_state *st)
{
	free(st->rules);
	free(st->leases);
	memset(st, 0, sizeof(*st));
}

static int state_read(const char *name, struct nk_nic_state *st, bool *head)
{
	FILE *f;
	int ret;

	nk_nic_state_free(st);
	snprintf(st->key, sizeof(st->key), "%s", name);
	if (legacy_parse(name, st))     /* where it was: in the name */
		snprintf(st->legacy, sizeof(st->legacy), "%s", name);
	f = nk_store_open(NK_NIC_STATE_DIR, name);
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	ret = state_parse(f, st, head);
	fclose(f);
	return ret;
}

int nk_nic_state_read(const char *name, struct nk_nic_state *st)
{
	return state_read(name, st, NULL);
}

int nk_nic_state_read_head(const char *name, struct nk_nic_state *st, bool *leases)
{
	*leases = false; /* also when there is no file */
	return state_read(name, st, leases);
}

bool nk_nic_state_is_of(const struct nk_nic_state *st, const struct nk_ns *ns,
			const struct nk_link *nic)
{
	char key[NK_NIC_KEY_MAX], perm[3 * 32];

	/* A first-format record names its bus device, if any: no other is
	 * adopted, one from before parents were kept is. */
	if (st->legacy[0] && !strcmp(st->key, st->legacy))
		return !st->parent[0] || !strcmp(st->parent, nic->parent);
	nk_nic_key(ns, nic, key, sizeof(key));
	perm_str(nic, perm, sizeof(perm));
	/* What the file says of its NIC must be what its name says too. */
	if (strcmp(st->key, key) || (st->perm[0] && strcmp(st->perm, perm)) ||
	    (st->parent[0] && strcmp(st->parent, nic->parent)) ||
	    (st->port[0] && strcmp(st->port, nic->port_name)))
		return false;
	/* Known by its place only: another name there is another device. */
	return nic->parent[0] || perm[0] || !strcmp(st->ifname, nic->ifname);
}

/* Who a NIC is, for an error: "NAME, bus device B port P, permanent address A". */
static void whose(char *buf, size_t len, const char *ifname, const char *parent, const char *port,
		  const char *perm)
{
	snprintf(buf, len, "%s, bus device %s%s%s%s%s", ifname, parent[0] ? parent : "none",
		 port[0] ? " port " : "", port, perm[0] ? ", permanent address " : "", perm);
}

int nk_nic_state_stranger(const struct nk_nic_state *st, const struct nk_link *nic)
{
	char was[256], is[256], perm[3 * 32];

	perm_str(nic, perm, sizeof(perm));
	whose(was, sizeof(was), st->ifname, st->parent, st->port, st->perm);
	whose(is, sizeof(is), nic->ifname, nic->parent, nic->port_name, perm);
	return nk_error(NK_EXIT_FAIL,
			"the state %s/%s found for %s (ifindex %d) was recorded for another NIC (%s), not %s: not adopted, nothing was changed; remove that file once it is no longer needed",
			NK_NIC_STATE_DIR, st->key, nic->ifname, nic->ifindex, was, is);
}

int nk_nic_state_load(const struct nk_ns *ns, const struct nk_link *nic,
		      struct nk_nic_state *st)
{
	char key[NK_NIC_KEY_MAX], legacy[NK_NIC_KEY_MAX];
	int ret;

	nk_nic_key(ns, nic, key, sizeof(key));
	ret = nk_nic_state_read(key, st);
	if (!ret && !st->exists) {
		legacy_name(legacy, sizeof(legacy), ns->dev, ns->ino, nic->ifindex);
		ret = nk_nic_state_read(legacy, st);
	}
	if (!ret && st->exists && !nk_nic_state_is_of(st, ns, nic))
		return -ESTALE;
	if (ret)
		return ret;
	if (!st->exists)
		st->legacy[0] = '\0';
	/* This NIC's, wherever it is now and whatever it is called. */
	snprintf(st->key, sizeof(st->key), "%s", key);
	st->ns_dev = ns->dev;
	st->ns_ino = ns->ino;
	st->ifindex = nic->ifindex;
	snprintf(st->ifname, sizeof(st->ifname), "%s", nic->ifname);
	snprintf(st->parent, sizeof(st->parent), "%s", nic->parent);
	snprintf(st->port, sizeof(st->port), "%s", nic->port_name);
	perm_str(nic, st->perm, sizeof(st->perm));
	return 0;
}

static void put_list(FILE *f, const char *key, const uint32_t *v, size_t n)
{
	fprintf(f, "%s", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %u", v[i]);
	fprintf(f, "\n");
}

static void put_csv(FILE *f, const uint32_t *v, size_t n)
{
	fprintf(f, " ");
	if (!n)
		fprintf(f, "-");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", v[i]);
}

void nk_nic_state_format(FILE *f, const struct nk_nic_state *st)
{
	fprintf(f, STATE_MAGIC "\nifname %s\nifindex %d\nnetns %llu %llu\n", st->ifname,
		st->ifindex, (unsigned long long)st->ns_dev, (unsigned long long)st->ns_ino);
	if (st->parent[0])
		fprintf(f, "parent %s\n", st->parent);
	if (st->port[0])
		fprintf(f, "port %s\n", st->port);
	if (st->perm[0])
		fprintf(f, "perm %s\n", st->perm);
	put_list(f, "reserved", st->reserved, st->nreserved);
	fprintf(f, "saved %d\n", st->saved);
	if (st->saved) {
		if (st->have_tds)
			fprintf(f, "tcp-data-split %u\n", st->tds);
		if (st->have_hds)
			fprintf(f, "hds-thresh %u\n", st->hds);
		fprintf(f, "rss-default %d\n", st->rss_default);
		put_list(f, "indir", st->indir, st->indir_size);
	}
	fprintf(f, "rules");
	for (size_t i = 0; i < st->nrules; i++)
		fprintf(f, " %u", st->rules[i].id);
	fprintf(f, "\n");
	for (size_t i = 0; i < st->nrules; i++) {
		char key[32];

		snprintf(key, sizeof(key), "rule %u", st->rules[i].id);
		if (st->rules[i].flow_type)
			put_spec(f, key, &st->rules[i]);
	}
	if (st->have_pending)
		put_spec(f, "pending", &st->pending);
	for (size_t i = 0; i < st->nleases; i++) {
		const struct nk_nic_lease *l = &st->leases[i];

		fprintf(f, "lease %llu %llu %d", (unsigned long long)l->ns_dev,
			(unsigned long long)l->ns_ino, l->ifindex);
		put_csv(f, l->queues, l->nqueues);
		put_csv(f, l->rules, l->nrules);
		put_csv(f, l->leased, l->nleased);
		fprintf(f, " %s", l->name[0] ? l->name : "-");
		if (l->rss_context)
			fprintf(f, " %u", l->rss_context);
		fprintf(f, "\n");
	}
}

static int put_state(FILE *f, const void *rec)
{
	nk_nic_state_format(f, rec);
	return 0;
}

static int drop_legacy(const struct nk_nic_state *st)
{
	if (!st->legacy[0] || !strcmp(st->legacy, st->key))
		return 0;
	return nk_store_remove(NK_NIC_STATE_DIR, st->legacy);
}

int nk_nic_state_save(const struct nk_nic_state *st)
{
	int ret = st->nomem ? -ENOMEM : state_dirs();    /* never a record with lines lost */

	if (!ret)
		ret = nk_store_write(NK_NIC_STATE_DIR, st->key, put_state, st);
	if (ret)
		return ret;
	/* A first-format file goes once its record is under the key. */
	drop_legacy(st);
	return 0;
}

int nk_nic_state_drop(const struct nk_nic_state *st)
{
	int ret = drop_legacy(st), gone = nk_store_remove(NK_NIC_STATE_DIR, st->key);

	return gone ? gone : ret;
}

int nk_nic_state_store(const struct nk_nic_state *st)
{
	bool empty = !st->nreserved && !st->saved && !st->nrules && !st->nleases &&
		     !st->have_pending;

	return empty ? nk_nic_state_drop(st) : nk_nic_state_save(st);
}

bool nk_nic_state_reserved(const struct nk_nic_state *st, uint32_t q)
{
	return nk_id_listed(st->reserved, st->nreserved, q);
}

bool nk_nic_state_has_rule(const struct nk_nic_state *st, uint32_t id)
{
	for (size_t i = 0; i < st->nrules; i++)
		if (st->rules[i].id == id)
			return true;
	return false;
}

bool nk_nic_state_add_rule(struct nk_nic_state *st, const struct nk_ntuple *r)
{
	struct nk_ntuple *slot;

	if (nk_nic_state_has_rule(st, r->id))
		nk_nic_state_forget_rule(st, r->id);
	slot = nk_grow(&st->rules, &st->nrules, &st->rules_cap, sizeof(*slot));
	if (!slot)
		return false;
	*slot = *r;
	return true;
}

/* Remove id from v[*n]. */
static void drop_id(uint32_t *v, size_t *n, uint32_t id)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++)
		if (v[i] != id)
			v[k++] = v[i];
	*n = k;
}

void nk_nic_state_forget_rule(struct nk_nic_state *st, uint32_t id)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nrules; i++)
		if (st->rules[i].id != id)
			st->rules[k++] = st->rules[i];
	st->nrules = k;
	/* A lease's record names it no more: the location may be reused. */
	for (size_t i = 0; i < st->nleases; i++)
		drop_id(st->leases[i].rules, &st->leases[i].nrules, id);
}

struct nk_nic_lease *nk_nic_state_lease(struct nk_nic_state *st, uint32_t q)
{
	for (size_t i = 0; i < st->nleases; i++)
		if (nk_id_listed(st->leases[i].leased, st->leases[i].nleased, q))
			return &st->leases[i];
	return NULL;
}

struct nk_nic_lease *nk_nic_state_rule_lease(struct nk_nic_state *st, uint32_t id)
{
	for (size_t i = 0; i < st->nleases; i++)
		if (nk_id_listed(st->leases[i].rules, st->leases[i].nrules, id))
			return &st->leases[i];
	return NULL;
}

struct nk_nic_lease *nk_nic_state_lease_add(struct nk_nic_state *st, const uint32_t *ids,
					    size_t n)
{
	struct nk_nic_lease *l = n ? nk_nic_state_lease(st, ids[0]) : NULL;

	if (l)
		return l;
	l = nk_grow(&st->leases, &st->nleases, &st->leases_cap, sizeof(*l));
	if (!l)
		return NULL;
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < n && i < NK_NIC_LEASE_MAX; i++)
		l->leased[l->nleased++] = ids[i];
	return l;
}

void nk_nic_state_lease_drop(struct nk_nic_state *st, const struct nk_nic_lease *l)
{
	size_t i = (size_t)(l - st->leases);

	if (i >= st->nleases)
		return;
	memmove(&st->leases[i], &st->leases[i + 1], (st->nleases - i - 1) * sizeof(*l));
	st->nleases--;
}

bool nk_nic_state_lease_holds(const struct nk_nic_state *st, const struct nk_nic_lease *except,
			      uint32_t q)
{
	for (size_t i = 0; i < st->nleases; i++)
		if (&st->leases[i] != except && nk_id_listed(st->leases[i].queues, st->leases[i].nqueues, q))
			return true;
	return false;
}

int nk_nic_resolve_pending(int fd, const char *ifname, struct nk_nic_state *st)
{
	struct nk_ntuple_list rules;
	int ret;

	if (!st->have_pending)
		return 0;
	ret = ethtool_ntuple_list(fd, ifname, &rules);
	if (ret)
		return ret;
	/* The rule a killed nkctl added but never recorded: nobody owns it. */
	for (size_t i = 0; i < rules.n && !ret; i++)
		if (!nk_nic_state_has_rule(st, rules.v[i].id) &&
		    nk_ntuple_same(&rules.v[i], &st->pending)) {
			ret = ethtool_ntuple_del(fd, ifname, rules.v[i].id);
			break;
		}
	nk_ntuple_list_free(&rules);
	if (ret)
		return ret;
	st->have_pending = false;
	return nk_nic_state_save(st);
}
