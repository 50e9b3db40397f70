// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: nkctl's state-file parsers.
 *
 * Every input goes, as a file's content, to each parser, which takes what is
 * its own by the magic line:
 *   - the NIC state record (nk_nic_state_parse, nicstate.c; every format
 *     nkctl has written: "rules" as ids only, leases without the leased
 *     queues, name or RSS context, rules and pending without a context);
 *   - the binding record the holder writes (nk_binding_state_parse,
 *     bindstate.c);
 * what the writers write (nk_nic_state_format, nk_binding_state_format)
 * goes to a memory stream;
 *   - the route table's names and records (routes.c): the input as a pin
 *     directory's name (net<ino>-<cookie>, the older net<ino>), and its bytes
 *     as a target record as a map lookup returns it;
 *   - nkctl xsk's grant record (xsk_grant_parse, xskfit.c) and a holder
 *     directory's name (xsk_holder_name_parse, xskholder.c).
 *
 * Contracts checked (abort on violation):
 *   - no parser reads or writes out of bounds (ASan) or hits undefined
 *     behaviour (UBSan);
 *   - parse -> format -> parse gives the same record, for everything the
 *     format keeps, and formatting that record again gives the same text;
 *   - the counts a record holds stay within its arrays, and the lookups on
 *     a parsed NIC record find what it lists;
 *   - a directory name parses back from its formatted values.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "bind/bindstate.h"
#include "lease/mine.h"
#include "nic/nicstate.h"
#include "redirect/routes.h"
#include "xsk/xskfit.h"
#include "xsk/xskholder.h"
#include "fuzz_die.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *real_stderr;
static FILE *devnull;
/* Records are large (a NIC's is ~100 KB): kept off the stack. */
static struct nk_nic_state nic1, nic2, nic3;
static struct nk_binding bind1, bind2;

#define die(what, detail, output, len) \
	fuzz_die(real_stderr, "fuzz_state", what, detail, output, len)

FUZZ_QUIET_HARNESS()

/* ---- files in memory ---- */

/* A stream over buf[0..len) (fmemopen refuses an empty buffer). Its stdio
 * buffer is the harness's: a fresh 8 KiB one per stream, new pages under
 * ASan's quarantine, halved the executions per second. One stream is open
 * at a time. */
static FILE *open_bytes(const char *buf, size_t len)
{
	static const char empty[1];
	static char stdio_buf[BUFSIZ];
	FILE *f = len ? fmemopen((void *)buf, len, "r") : fmemopen((void *)empty, 1, "r");

	if (!f || setvbuf(f, stdio_buf, _IOFBF, sizeof(stdio_buf)))
		abort();
	if (!len)
		fgetc(f);   /* at its end: an empty file */
	return f;
}

/* A stream into memory for a formatter. */
static FILE *open_text(char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	if (!f)
		abort();
	return f;
}

static void close_text(FILE *f)
{
	if (fflush(f) || ferror(f) || fclose(f))
		abort();
}

/* ---- NIC state ---- */

static int nic_parse(const char *buf, size_t len, struct nk_nic_state *st)
{
	FILE *f = open_bytes(buf, len);
	int ret;

	nk_nic_state_free(st);     /* the last input's arrays; zeroed */
	ret = nk_nic_state_parse(f, st);
	fclose(f);
	if (ret && ret != -EBADMSG && ret != -ENOMEM)
		die("nk_nic_state_parse", "neither 0 nor -EBADMSG nor -ENOMEM", buf, len);
	if (ret != -ENOMEM && !ret != st->exists)
		die("nk_nic_state_parse", "exists does not say what it returned", buf, len);
	return ret;
}

/* The record's text as nk_nic_state_save writes it; the caller frees it. */
static char *nic_format(const struct nk_nic_state *st, size_t *len)
{
	char *text;
	FILE *f = open_text(&text, len);

	nk_nic_state_format(f, st);
	close_text(f);
	return text;
}

static void nic_bounds(const struct nk_nic_state *st, const char *buf, size_t len)
{
	if (st->nreserved > NK_MAX_QUEUES || st->indir_size > NK_RSS_MAX_INDIR ||
	    st->nrules > st->rules_cap || st->nleases > st->leases_cap)
		die("nk_nic_state_parse", "a count beyond its array", buf, len);
	for (size_t i = 0; i < st->nleases; i++) {
		const struct nk_nic_lease *l = &st->leases[i];

		if (l->nqueues > NK_NIC_LEASE_MAX || l->nrules > NK_NIC_LEASE_MAX ||
		    l->nleased > NK_NIC_LEASE_MAX)
			die("nk_nic_state_parse", "a lease's count beyond its array", buf, len);
		if (!memchr(l->name, '\0', sizeof(l->name)))
			die("nk_nic_state_parse", "a lease's name without its NUL", buf, len);
	}
	if (!memchr(st->ifname, '\0', sizeof(st->ifname)) ||
	    !memchr(st->parent, '\0', sizeof(st->parent)) ||
	    !memchr(st->port, '\0', sizeof(st->port)) || !memchr(st->perm, '\0', sizeof(st->perm)))
		die("nk_nic_state_parse", "a name without its NUL", buf, len);
}

static bool spec_same(const struct nk_ntuple *a, const struct nk_ntuple *b)
{
	return a->id == b->id && a->flow_type == b->flow_type && a->have_src == b->have_src &&
	       a->have_dst == b->have_dst && a->have_sport == b->have_sport &&
	       a->have_dport == b->have_dport && !memcmp(a->src, b->src, 16) &&
	       !memcmp(a->dst, b->dst, 16) && a->sport == b->sport && a->dport == b->dport &&
	       a->action == b->action && a->rss_context == b->rss_context &&
	       a->other_fields == b->other_fields;
}

static bool list_same(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

static bool lease_same(const struct nk_nic_lease *a, const struct nk_nic_lease *b)
{
	return a->ns_dev == b->ns_dev && a->ns_ino == b->ns_ino && a->ifindex == b->ifindex &&
	       !strcmp(a->name, b->name) && list_same(a->queues, a->nqueues, b->queues, b->nqueues) &&
	       list_same(a->rules, a->nrules, b->rules, b->nrules) &&
	       list_same(a->leased, a->nleased, b->leased, b->nleased) &&
	       a->rss_context == b->rss_context;
}

/* What the format keeps: the settings only while saved, a rule's spec only
 * with a flow type (flow type 0 is a record from before specs were kept). */
static const char *nic_differs(const struct nk_nic_state *a, const struct nk_nic_state *b)
{
	if (strcmp(a->ifname, b->ifname) || a->ifindex != b->ifindex || a->ns_dev != b->ns_dev ||
	    a->ns_ino != b->ns_ino)
		return "where the NIC was";
	if (strcmp(a->parent, b->parent) || strcmp(a->port, b->port) || strcmp(a->perm, b->perm))
		return "who the NIC is";
	if (!list_same(a->reserved, a->nreserved, b->reserved, b->nreserved))
		return "reserved";
	if (a->saved != b->saved)
		return "saved";
	if (a->saved && (a->have_tds != b->have_tds || a->have_hds != b->have_hds ||
			 (a->have_tds && a->tds != b->tds) || (a->have_hds && a->hds != b->hds) ||
			 a->rss_default != b->rss_default ||
			 !list_same(a->indir, a->indir_size, b->indir, b->indir_size)))
		return "the saved settings";
	if (a->nrules != b->nrules)
		return "the number of rules";
	for (size_t i = 0; i < a->nrules; i++)
		if (a->rules[i].flow_type ? !spec_same(&a->rules[i], &b->rules[i]) :
		    a->rules[i].id != b->rules[i].id || b->rules[i].flow_type)
			return "a rule";
	if (a->nleases != b->nleases)
		return "the number of leases";
	for (size_t i = 0; i < a->nleases; i++)
		if (!lease_same(&a->leases[i], &b->leases[i]))
			return "a lease";
	if (a->have_pending != b->have_pending ||
	    (a->have_pending && !spec_same(&a->pending, &b->pending)))
		return "pending";
	return NULL;
}

/* The lookups on a parsed record find what it lists. */
static void nic_lookups(const char *buf, size_t len)
{
	for (size_t i = 0; i < nic1.nrules; i++)
		if (!nk_nic_state_has_rule(&nic1, nic1.rules[i].id) ||
		    !nk_mine_rule(&nic1, &nic1.rules[i]))
			die("nk_nic_state_has_rule", "a listed rule is not found or not ours", buf,
			    len);
	for (size_t i = 0; i < nic1.nreserved; i++)
		if (!nk_nic_state_reserved(&nic1, nic1.reserved[i]))
			die("nk_nic_state_reserved", "a listed queue is not found", buf, len);
	for (size_t i = 0; i < nic1.nleases; i++) {
		const struct nk_nic_lease *l = &nic1.leases[i];

		if (l->nleased && !nk_nic_state_lease(&nic1, l->leased[0]))
			die("nk_nic_state_lease", "a leased queue's lease is not found", buf, len);
		for (size_t k = 0; k < l->nqueues; k++)
			nk_nic_state_lease_holds(&nic1, l, l->queues[k]);
	}
	/* Forgetting a rule forgets it everywhere, the leases' lists too. */
	if (nic1.nrules) {
		uint32_t id = nic1.rules[0].id;

		nic3 = nic1;
		nk_nic_state_forget_rule(&nic3, id);
		if (nk_nic_state_has_rule(&nic3, id))
			die("nk_nic_state_forget_rule", "the rule is still there", buf, len);
		for (size_t i = 0; i < nic3.nleases; i++)
			for (size_t k = 0; k < nic3.leases[i].nrules; k++)
				if (nic3.leases[i].rules[k] == id)
					die("nk_nic_state_forget_rule", "a lease still names the rule",
					    buf, len);
		if (nic1.nleases)
			nk_nic_state_lease_drop(&nic3, &nic3.leases[0]);
	}
}

static void fuzz_nic(const char *buf, size_t len)
{
	char *text1, *text2;
	size_t len1, len2;
	const char *why;

	if (nic_parse(buf, len, &nic1))
		return;
	nic_bounds(&nic1, buf, len);
	text1 = nic_format(&nic1, &len1);
	if (nic_parse(text1, len1, &nic2))
		die("round trip", "nkctl's own NIC record does not parse", text1, len1);
	nic_bounds(&nic2, text1, len1);
	why = nic_differs(&nic1, &nic2);
	if (why)
		die("NIC record round trip", why, text1, len1);
	text2 = nic_format(&nic2, &len2);
	if (len1 != len2 || memcmp(text1, text2, len1))
		die("NIC record round trip", "formatted twice, two texts", text2, len2);
	nic_lookups(buf, len);
	free(text1);
	free(text2);
}

/* ---- binding state ---- */

static bool bind_parse(const char *buf, size_t len, struct nk_binding *b)
{
	FILE *f = open_bytes(buf, len);
	bool ok = nk_binding_state_parse(f, b);

	fclose(f);
	if (b->nqueues > NK_BIND_MAX_QUEUES)
		die("nk_binding_state_parse", "more queues than the array holds", buf, len);
	if (!memchr(b->netns, '\0', sizeof(b->netns)) ||
	    !memchr(b->ifname, '\0', sizeof(b->ifname)) ||
	    !memchr(b->phys_ifname, '\0', sizeof(b->phys_ifname)) ||
	    !memchr(b->phys_netns, '\0', sizeof(b->phys_netns)) ||
	    !memchr(b->heap, '\0', sizeof(b->heap)))
		die("nk_binding_state_parse", "a name without its NUL", buf, len);
	return ok;
}

static char *bind_format(const struct nk_binding *b, size_t *len)
{
	char *text;
	FILE *f = open_text(&text, len);

	nk_binding_state_format(f, b);
	close_text(f);
	return text;
}

static const char *bind_differs(const struct nk_binding *a, const struct nk_binding *b)
{
	if (a->id != b->id || a->rx != b->rx)
		return "id or direction";
	if (a->ns_dev != b->ns_dev || a->ns_ino != b->ns_ino || strcmp(a->netns, b->netns) ||
	    a->ifindex != b->ifindex || strcmp(a->ifname, b->ifname))
		return "the device";
	if (a->have_phys != b->have_phys ||
	    (a->have_phys && (a->phys_ifindex != b->phys_ifindex ||
			      strcmp(a->phys_ifname, b->phys_ifname) ||
			      strcmp(a->phys_netns, b->phys_netns))))
		return "the physical device";
	if (!list_same(a->queues, a->nqueues, b->queues, b->nqueues) ||
	    a->rx_page_size != b->rx_page_size)
		return "the queues";
	if (a->kind != b->kind || a->size != b->size || a->hugepages != b->hugepages ||
	    strcmp(a->heap, b->heap))
		return "the dmabuf";
	if (a->pid != b->pid || a->mode != b->mode)
		return "the holder";
	return NULL;
}

static void fuzz_binding(const char *buf, size_t len)
{
	char *text1, *text2;
	size_t len1, len2;
	const char *why;

	if (!bind_parse(buf, len, &bind1))
		return;
	if (!bind1.id)
		die("nk_binding_state_parse", "a record of binding id 0 taken", buf, len);
	text1 = bind_format(&bind1, &len1);
	if (!bind_parse(text1, len1, &bind2))
		die("round trip", "nkctl's own binding record does not parse", text1, len1);
	why = bind_differs(&bind1, &bind2);
	if (why)
		die("binding record round trip", why, text1, len1);
	text2 = bind_format(&bind2, &len2);
	if (len1 != len2 || memcmp(text1, text2, len1))
		die("binding record round trip", "formatted twice, two texts", text2, len2);
	free(text1);
	free(text2);
}

/* ---- the route table ---- */

/* A pin directory's name parses back from its values; no name is both. */
static void fuzz_dir_name(const char *name)
{
	unsigned long ino, ino2;
	unsigned long long cookie, cookie2;
	char again[64];
	bool current = rt_ns_dir_name(name, &ino, &cookie), legacy = rt_ns_dir_legacy(name);

	if (current && legacy)
		die("rt_ns_dir_name", "a name of both formats", name, strlen(name));
	if (current) {
		snprintf(again, sizeof(again), "net%lu-%llu", ino, cookie);
		if (!rt_ns_dir_name(again, &ino2, &cookie2) || ino2 != ino || cookie2 != cookie ||
		    rt_ns_dir_legacy(again))
			die("rt_ns_dir_name", "does not parse back", again, strlen(again));
	}
}

/* The bytes as root's record of an xsk grant (xskfit.c) and as a holder
 * directory's name (xskholder.c): what parses formats and parses back to
 * the same. */
static void fuzz_xsk(const char *buf)
{
	struct xsk_grant g, g2;
	unsigned long long cookie, cookie2;
	uint32_t ifindex, ifindex2;
	char line[XSK_GRANT_LEN], name[XSK_NAME_LEN];

	if (xsk_grant_parse(buf, &g)) {
		xsk_grant_format(line, sizeof(line), &g);
		if (!xsk_grant_parse(line, &g2) || memcmp(&g, &g2, sizeof(g)))
			die("xsk_grant_parse", "does not parse back", line, strlen(line));
	}
	if (xsk_holder_name_parse(buf, &cookie, &ifindex)) {
		xsk_holder_name(cookie, ifindex, name);
		if (!xsk_holder_name_parse(name, &cookie2, &ifindex2) || cookie2 != cookie ||
		    ifindex2 != ifindex)
			die("xsk_holder_name_parse", "does not parse back", name, strlen(name));
	}
}

/* The bytes as a target record from the map: the clamp target_get applies,
 * then what show and the writers do with one. */
static void fuzz_target(const uint8_t *data, size_t size)
{
	struct nk_target rec;
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned char key[20];

	memset(&rec, 0, sizeof(rec));
	memcpy(&rec, data, size < sizeof(rec) ? size : sizeof(rec));
	if (rec.n > NK_RECORD_PREFIXES)
		rec.n = NK_RECORD_PREFIXES;
	for (uint32_t i = 0; i < rec.n; i++) {
		rt_format_prefix(&rec.p[i], buf, sizeof(buf));
		if (!memchr(buf, '\0', sizeof(buf)) || !strchr(buf, '/'))
			die("rt_format_prefix", "not ADDR/LEN", buf, strnlen(buf, sizeof(buf)));
		route_key(&rec.p[i], key);
	}
	/* rt_same_set walks every prefix through rt_prefix_in. */
	if (!rt_same_set(&rec, &rec))
		die("rt_same_set", "a record differs from itself", NULL, 0);
	if (target_same(&rec, &rec) != (rec.hwaddr_len <= NK_HWADDR_LEN))
		die("target_same", "a record is not itself", NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	fuzz_nic(buf, size);
	fuzz_binding(buf, size);
	fuzz_dir_name(buf);
	fuzz_xsk(buf);
	fuzz_target(data, size);
	free(buf);
	return 0;
}
