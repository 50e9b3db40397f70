// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: arbitrary bytes as the kernel's replies behind
 * "nkctl show", decoded and printed by nkctl's own code.
 *
 * The input is a receive buffer: a stream of nlmsghdr messages walked with
 * nl_msg_ok() and mnl_nlmsg_next() as nl_talk() does. Each message goes where nl_talk would
 * send it:
 *   - NLM_F_REQUEST set: a request nkctl sent (the kernel never sets the
 *     flag); it is what the extack offsets of later errors point into;
 *   - NLMSG_ERROR, NLMSG_DONE: nl_decode_error() against the last request,
 *     then the one "Error:" line nk_error_nl() makes of it;
 *   - RTM_NEWLINK: rtnl_parse_link(), as the link dump;
 *   - RTM_NEWADDR (20) also: rtnl_parse_addr(), as doctor's address dump;
 *   - any other type >= 20 (a generic netlink family id: the netdev family):
 *     netdev_parse_queue() for queue-get, netdev_parse_napi() for napi-get,
 *     netdev_parse_qstats() for qstats-get, all three for any other command
 *     (a dump callback sees whatever comes); netdev_parse_pool() for
 *     page-pool-get, netdev_parse_pool_stats() for page-pool-stats-get.
 *     The same message also goes to the ethtool decoders (rings, channels,
 *     RSS) and, as a struct ethtool_rx_flow_spec, to the n-tuple rule
 *     decoder; the rules are printed as "steer show" prints them.
 * The lists are then sorted as the dumps sort them and printed as "show",
 * (with -s for inputs whose length is a multiple of 4: stats64 and qstats),
 * "show leases" and "link del" print them (nk_print_link, nk_print_lease,
 * nk_print_deleted): as text and as JSON (pretty for inputs of odd length,
 * compact for the others). Each JSON document
 * must be valid JSON (jsoncheck.h) and each error exactly one Error: line
 * (with -j, one JSON error object on a line);
 * the harness aborts when not.
 *
 * The same buffer is then one datagram of notifications as "nkctl monitor"
 * receives it (nk_ev_walk): once as rtnetlink (RTM_NEWLINK, RTM_DELLINK,
 * RTM_NEWNSID, RTM_DELNSID), once as the netdev family (dev-*-ntf,
 * page-pool-*-ntf, whatever the message type), through mon_notification()
 * with its link snapshot kept across messages; each record it prints must
 * be one valid JSON document (or a text line). Every message also goes to
 * genl_parse_family(), the CTRL_CMD_GETFAMILY decoder with its multicast
 * groups.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "compat.h"
#include "view/devview.h"
#include "err.h"
#include "ethfeat.h"
#include "ethrss.h"
#include "ethtool.h"
#include "nic/nicrule.h"
#include "lease/scan.h"
#include "cli/monitor.h"
#include "netdev.h"
#include "netkit.h"
#include "netns.h"
#include "nl.h"
#include "out.h"
#include "rtnl.h"
#include "jsoncheck.h"
#include "fuzz_die.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *real_stderr; /* the harness's own complaints */
static FILE *devnull;

#define die(what, detail, output, len) \
	fuzz_die(real_stderr, "fuzz_netlink", what, detail, output, len)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fuzz_hide_stderr(&real_stderr);
	return 0;
}

/* ---- the requests that extack offsets point into ---- */

/* The family header and attribute names of a request, by its type. */
static void request_space(const struct nlmsghdr *req, size_t *hdrlen,
			  const struct nl_attr_space **space)
{
	*hdrlen = 0;
	*space = NULL;
	if (!req)
		return;
	if (req->nlmsg_type >= RTM_NEWLINK && req->nlmsg_type <= RTM_SETLINK) {
		*hdrlen = sizeof(struct ifinfomsg);
		*space = &netkit_link_space;
	} else if (req->nlmsg_type >= NLMSG_MIN_TYPE) {
		const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);

		*hdrlen = GENL_HDRLEN;
		*space = mnl_nlmsg_get_payload_len(req) >= GENL_HDRLEN &&
			 g->cmd == NK_NETDEV_CMD_NAPI_GET ?
			 &netdev_napi_space : &netdev_queue_space;
	}
}

/* ---- errors ---- */

static void check_error(const struct nlmsghdr *nlh, const struct nlmsghdr *req)
{
	const struct nl_attr_space *space;
	struct nl_err err;
	char *buf = NULL;
	size_t hdrlen, len = 0, at;
	FILE *m;
	int ret, code, lines = 0;

	request_space(req, &hdrlen, &space);
	memset(&err, 0xa5, sizeof(err)); /* nothing may be left unset */
	ret = nl_decode_error(nlh, req, hdrlen, space, &err);
	/* nl.h: 0, or a negative errno with err filled in. */
	if (ret > 0)
		die("nl_decode_error", "returned a positive value", NULL, 0);
	if (ret == 0)
		return;
	if (err.code != -ret || err.code <= 0)
		die("nl_decode_error", "err.code is not the returned errno", NULL, 0);
	if (strnlen(err.msg, sizeof(err.msg)) == sizeof(err.msg) ||
	    strnlen(err.path, sizeof(err.path)) == sizeof(err.path))
		die("nl_decode_error", "an unterminated message or path", NULL, 0);
	/* What the user sees: one Error: line. */
	m = open_memstream(&buf, &len);
	if (!m)
		abort();
	stderr = m;
	code = nk_error_nl(&err, "cannot list devices");
	stderr = devnull;
	fclose(m);
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	if (len < 8 || strncmp(buf, "Error: ", 7) || lines != 1 || buf[len - 1] != '\n' ||
	    strlen(buf) != len)
		die("nk_error_nl", "not exactly one Error: line", buf, len);
	if (code < NK_EXIT_USAGE || code > NK_EXIT_PERM)
		die("nk_error_nl", "an exit status outside the documented ones", buf, len);
	free(buf);
	/* With -j: one valid JSON object on one line, an error's. */
	m = open_memstream(&buf, &len);
	if (!m)
		abort();
	stderr = m;
	nk_report_json(true);
	nk_error_nl(&err, "cannot list devices");
	nk_report_json(false);
	stderr = devnull;
	fclose(m);
	if (len < 12 || strncmp(buf, "{\"error\":{", 10) || memchr(buf, '\n', len) != buf + len - 1 ||
	    strlen(buf) != len || jsoncheck(buf, len, &at))
		die("nk_error_nl", "not exactly one JSON error object on a line", buf, len);
	free(buf);
}

/* ---- the lists, as the dumps build them ---- */

struct lists {
	struct nk_view v;
	struct nk_ntuple_list rules;
	/* the namespaces lease records point at: this one, and made-up others */
	struct nk_ns here;
	struct nk_ns **others;
	size_t nothers, cap;
};

/* A namespace of another name, as nk_ns_reachable() would have found it. */
static struct nk_ns *other_ns(struct lists *L, const char *spec)
{
	struct nk_ns **slot = nk_grow(&L->others, &L->nothers, &L->cap, sizeof(*slot));

	if (!slot || !(*slot = calloc(1, sizeof(**slot))))
		abort();
	snprintf((*slot)->spec, sizeof((*slot)->spec), "%s", spec);
	(*slot)->fd = -1;
	return *slot;
}

static void add_link(struct lists *L, const struct nlmsghdr *nlh)
{
	size_t n = L->v.links.n;
	const struct nk_link *l;

	if (rtnl_link_collect(nlh, &L->v.links, &L->v.link_stats))
		abort();
	if (L->v.links.n == n)
		return;
	l = &L->v.links.v[n];
	if (strnlen(l->ifname, sizeof(l->ifname)) == sizeof(l->ifname) ||
	    strnlen(l->kind, sizeof(l->kind)) == sizeof(l->kind) ||
	    l->addr_len > sizeof(l->addr))
		die("rtnl_parse_link", "an unterminated name or an address too long", NULL, 0);
}

/* An address as doctor reads it; the address is printed as it prints it. */
static void check_addr(const struct nlmsghdr *nlh)
{
	char buf[INET6_ADDRSTRLEN];
	struct nk_addr a;

	if (rtnl_parse_addr(nlh, &a))
		return;
	if (a.family != AF_INET && a.family != AF_INET6)
		die("rtnl_parse_addr", "an address of another family", NULL, 0);
	if (!inet_ntop(a.family, a.addr, buf, sizeof(buf)))
		die("rtnl_parse_addr", "an address inet_ntop refuses", NULL, 0);
}

/* The minimal edit: when it succeeds no entry names the queue taken out,
 * and no entry names a queue the table did not use before. */
static void check_rss_edit(struct nk_rss *rss, uint32_t take)
{
	static struct nk_rss before;

	before = *rss;
	if (nk_rss_take_queues(rss->indir, rss->indir_size, &take, 1))
		return;
	for (uint32_t i = 0; i < rss->indir_size; i++)
		if (rss->indir[i] == take || !nk_rss_uses(&before, rss->indir[i]))
			die("nk_rss_take_queues", "an entry names a taken or unused queue", NULL, 0);
}

/* RSS context replies and features-get's verbose bitsets. */
static void check_rss_ctx_and_feature(const struct nlmsghdr *nlh)
{
	static struct nk_rss_ctx c;
	struct nk_netdev_feature f;

	if (ethtool_parse_rss_ctx(nlh, &c) == 0) {
		if (c.nqueues > NK_RSS_CTX_MAX_QUEUES)
			die("ethtool_parse_rss_ctx", "more queues than its array", NULL, 0);
		for (size_t i = 1; i < c.nqueues; i++)
			if (c.queues[i - 1] >= c.queues[i])
				die("ethtool_parse_rss_ctx", "queues not distinct and ascending", NULL, 0);
	}
	if (ethtool_parse_feature(nlh, "rx-gro-hw", &f) == 0 && !f.known && f.changeable)
		die("ethtool_parse_feature", "changeable but not listed", NULL, 0);
}

/* The ethtool family's replies and n-tuple flow specs. */
static void add_ethtool(struct lists *L, const struct nlmsghdr *nlh)
{
	static struct nk_rss rss;
	struct nk_rings rings;
	struct nk_channels ch;
	struct nk_ntuple *r;
	size_t plen = mnl_nlmsg_get_payload_len(nlh);

	ethtool_parse_rings(nlh, &rings);
	ethtool_parse_channels(nlh, &ch);
	if (ethtool_parse_rss(nlh, &rss) == 0 && rss.indir_size > NK_RSS_MAX_INDIR)
		die("ethtool_parse_rss", "an indirection table beyond its array", NULL, 0);
	nk_rss_is_default(&rss, nk_channels_rx(&ch));
	nk_rss_uses(&rss, rings.rx);
	check_rss_edit(&rss, rings.rx);
	check_rss_ctx_and_feature(nlh);
	if (plen < GENL_HDRLEN)
		return;
	r = nk_grow(&L->rules.v, &L->rules.n, &L->rules.cap, sizeof(*r));
	if (!r)
		abort();
	if (ethtool_ntuple_decode((const char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN,
				  plen - GENL_HDRLEN, r))
		L->rules.n--;
}

static void add_netdev(struct lists *L, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	int cmd = mnl_nlmsg_get_payload_len(nlh) >= GENL_HDRLEN ? g->cmd : -1;
	struct nk_queue q;
	struct nk_napi n;
	struct nk_qstats st;
	struct nk_pool pool;

	if (cmd != NK_NETDEV_CMD_QUEUE_GET && cmd != NK_NETDEV_CMD_NAPI_GET &&
	    netdev_parse_qstats(nlh, &st) == 0) {
		struct nk_qstats *slot = nk_grow(&L->v.qstats.v, &L->v.qstats.n, &L->v.qstats.cap,
						  sizeof(*slot));
		if (!slot)
			abort();
		*slot = st;
	}
	if (cmd == NK_NETDEV_CMD_PAGE_POOL_GET && netdev_parse_pool(nlh, &pool) == 0) {
		struct nk_pool *slot = nk_grow(&L->v.pools.v, &L->v.pools.n, &L->v.pools.cap,
					       sizeof(*slot));
		if (!slot)
			abort();
		*slot = pool;
	}
	if (cmd == NK_NETDEV_CMD_PAGE_POOL_STATS_GET)
		netdev_parse_pool_stats(nlh, &L->v.pools);
	if (cmd != NK_NETDEV_CMD_NAPI_GET && netdev_parse_queue(nlh, &q) == 0) {
		struct nk_queue *slot = nk_grow(&L->v.queues.v, &L->v.queues.n, &L->v.queues.cap,
						 sizeof(*slot));
		if (!slot)
			abort();
		*slot = q;
	}
	if (cmd != NK_NETDEV_CMD_QUEUE_GET && netdev_parse_napi(nlh, &n) == 0) {
		struct nk_napi *slot = nk_grow(&L->v.napis.v, &L->v.napis.n, &L->v.napis.cap,
						sizeof(*slot));
		if (!slot)
			abort();
		*slot = n;
	}
}

static void name_of(const struct lists *L, int ifindex, char *buf, size_t len)
{
	const struct nk_link *l = nk_link_find(&L->v.links, ifindex);

	snprintf(buf, len, "%s", l ? l->ifname : "");
}

/* The lease table nk_lease_scan() would build from these queues if this were
 * the only namespace (nkctl/lease/scan.c scan_one): holders named through the
 * link list, a netns-id naming another namespace ("nsN", or unreachable when
 * odd). */
static void make_leases(struct lists *L)
{
	const struct nk_qstats *st;
	char spec[64];

	for (size_t i = 0; i < L->v.queues.n; i++) {
		const struct nk_queue *q = &L->v.queues.v[i];
		struct nk_lease_rec *r;

		if (!(q->have & QUEUE_HAVE_LEASE))
			continue;
		r = nk_grow(&L->v.leases.v, &L->v.leases.n, &L->v.leases.cap, sizeof(*r));
		if (!r)
			abort();
		memset(r, 0, sizeof(*r));
		r->nic_ns = &L->here;
		r->nic_ifindex = q->ifindex;
		r->nic_queue = q->id;
		name_of(L, q->ifindex, r->nic_ifname, sizeof(r->nic_ifname));
		r->nk_ifindex = q->lease_ifindex;
		r->nk_queue = q->lease_queue_id;
		r->mp = q->have & (QUEUE_HAVE_DMABUF | QUEUE_HAVE_IO_URING | QUEUE_HAVE_XSK);
		r->dmabuf = q->dmabuf;
		r->existed = q->id & 1;
		st = nk_qstats_find(&L->v.qstats, q->ifindex, NK_NETDEV_QUEUE_TYPE_RX, q->id);
		if (st)
			r->stats = *st;
		if (!(q->have & QUEUE_HAVE_LEASE_NETNS_ID)) {
			r->nk_ns = &L->here;
			name_of(L, q->lease_ifindex, r->nk_ifname, sizeof(r->nk_ifname));
		} else if (!(q->lease_netns_id & 1)) {
			snprintf(spec, sizeof(spec), "ns%d", (int)q->lease_netns_id);
			r->nk_ns = other_ns(L, spec);
		}
		if (q->id & 2) {
			/* as if this dump had come from another namespace */
			snprintf(spec, sizeof(spec), "nic \"%u\"", q->id);
			r->nic_ns = other_ns(L, spec);
		}
	}
}

/* ---- printing ---- */

enum { MODE_TEXT, MODE_JSON, MODE_PRETTY };
enum { DOC_SHOW, DOC_LEASES, DOC_DELETED, DOC_RULES, NDOCS };

/* One command's output: "show", "show leases" or "link del". */
static void print_doc(FILE *fp, int mode, int doc, const struct lists *L)
{
	struct out o;

	out_init(&o, fp, mode != MODE_TEXT, mode == MODE_PRETTY);
	out_begin(&o);
	switch (doc) {
	case DOC_SHOW:
		out_arr_open(&o, "devices");
		for (size_t i = 0; i < L->v.links.n; i++)
			nk_print_link(&o, &L->v.links.v[i], i % 3 == 2 ? "pod\t\"1\"" : NULL, &L->v);
		break;
	case DOC_LEASES:
		out_arr_open(&o, "leases");
		for (size_t i = 0; i < L->v.leases.n; i++)
			nk_print_lease(&o, &L->v.leases.v[i], i & 1);
		break;
	case DOC_RULES:
		out_arr_open(&o, "nics");
		out_obj_open(&o, NULL);
		out_str(&o, "ifname", "%s:\n", "eth0");
		out_arr_open(&o, "rules");
		for (size_t i = 0; i < L->rules.n; i++)
			nk_print_rule(&o, &L->rules.v[i], i & 1, i & 2);
		out_arr_close(&o);
		out_obj_close(&o);
		break;
	case DOC_DELETED:
		out_arr_open(&o, "deleted");
		for (size_t i = 0; i < L->v.links.n; i++) {
			const struct nk_link *l = &L->v.links.v[i], *peer = NULL;
			struct nk_link other = { .ifindex = l->link };

			/* link del: the peer named when in this namespace */
			if (nk_link_has_peer(l)) {
				if (!(l->have & LINK_HAVE_LINK_NETNSID))
					peer = nk_link_find(&L->v.links, l->link);
				if (!peer)
					peer = &other;
			}
			nk_print_deleted(&o, l, peer);
		}
		break;
	}
	out_arr_close(&o);
	out_end(&o);
}

static void check_json(int mode, int doc, const struct lists *L)
{
	char *buf = NULL, detail[128];
	size_t len = 0, at;
	const char *why;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	print_doc(m, mode, doc, L);
	fclose(m);
	if (strlen(buf) != len)
		die("JSON", "a NUL byte in the output", buf, len);
	why = jsoncheck(buf, len, &at);
	if (why) {
		snprintf(detail, sizeof(detail), "%s (document %d, %s, offset %zu)", why, doc,
			 mode == MODE_PRETTY ? "pretty" : "compact", at);
		die("invalid JSON", detail, buf, len);
	}
	if (!len || buf[len - 1] != '\n')
		die("JSON", "the document does not end in a new line", buf, len);
	free(buf);
}

/* ---- nkctl monitor's notifications ---- */

struct mon_fuzz {
	struct monitor *m;
	FILE *fp;
	char **buf;
	size_t *len;
	size_t done;      /* what was checked already */
	bool json;
};

/* What one notification printed: nothing, or one whole document. */
static void mon_check(struct mon_fuzz *f)
{
	const char *doc, *why;
	size_t n, at;
	char detail[96];

	fflush(f->fp);
	n = *f->len - f->done;
	if (!n)
		return;
	doc = *f->buf + f->done;
	f->done = *f->len;
	if (!f->json)
		return;
	if (strnlen(doc, n) != n)
		die("JSON", "a NUL byte in a monitor record", doc, n);
	why = jsoncheck(doc, n, &at);
	if (why) {
		snprintf(detail, sizeof(detail), "%s (monitor record, offset %zu)", why, at);
		die("invalid JSON", detail, doc, n);
	}
}

static int mon_cb(const struct nk_ev *ev, void *data)
{
	struct mon_fuzz *f = data;

	mon_notification(f->m, ev);
	mon_check(f);
	return 0;
}

static void fuzz_monitor(const char *buf, size_t size)
{
	struct nk_ctx ctx;
	struct monitor m;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	struct mon_fuzz f = { &m, fp, &out, &len, 0, size & 1 };
	int32_t nsid = size & 4 ? 3 : NK_EV_NSID_LOCAL;

	if (!fp)
		abort();
	nk_ctx_init(&ctx);
	ctx.json = f.json;
	ctx.timestamp = size & 2;
	out_init(&ctx.out, fp, f.json, false);
	memset(&m, 0, sizeof(m));
	m.ctx = &ctx;
	for (int i = 0; i < MON_N; i++)
		m.want[i] = true;
	nk_ev_walk(buf, size, 0, NETLINK_ROUTE, nsid, mon_cb, &f);
	nk_ev_walk(buf, size, 1, NETLINK_GENERIC, nsid, mon_cb, &f);
	mon_snap_free(&m);
	fclose(fp);
	free(out);
}

static void fuzz_family(const char *buf, size_t size)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	int len = (int)size;

	for (; nl_msg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		struct genl_family fam;

		memset(&fam, 0, sizeof(fam));
		if (!genl_parse_family(nlh, &fam) && fam.nmcast > GENL_MAX_MCAST)
			die("family", "more multicast groups than room", NULL, 0);
		genl_mcast_id(&fam, "mgmt");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lists L;
	const struct nlmsghdr *nlh, *req = NULL;
	char *buf;
	int len;

	if (size > 1 << 20)
		return 0;
	/* A receive buffer is aligned like any malloc'd one (nl_sock.rbuf). */
	buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	memset(&L, 0, sizeof(L));
	L.here.here = true;
	L.here.fd = -1;
	L.v.here = &L.here;
	len = (int)size;
	for (nlh = (const void *)buf; nl_msg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_flags & NLM_F_REQUEST) {
			req = nlh;
			continue;
		}
		if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE)
			check_error(nlh, req);
		else if (nlh->nlmsg_type == RTM_NEWLINK)
			add_link(&L, nlh);
		else if (nlh->nlmsg_type > RTM_SETLINK) {
			if (nlh->nlmsg_type == RTM_NEWADDR)
				check_addr(nlh);
			add_netdev(&L, nlh);
			add_ethtool(&L, nlh);
		}
	}
	/* The order the dumps give, which the lookups rely on. */
	nk_link_list_sort(&L.v.links);
	nk_link_counters_sort(&L.v.link_stats);
	nk_queue_list_sort(&L.v.queues);
	nk_napi_list_sort(&L.v.napis);
	nk_qstats_list_sort(&L.v.qstats);
	nk_pool_list_sort(&L.v.pools);
	L.v.stats = (size & 3) == 0;
	make_leases(&L);

	/* Text, and JSON compact or pretty (by the input's length: either way
	 * half the work of both). */
	for (int doc = 0; doc < NDOCS; doc++) {
		print_doc(devnull, MODE_TEXT, doc, &L);
		check_json(size & 1 ? MODE_PRETTY : MODE_JSON, doc, &L);
	}

	fuzz_monitor(buf, size);
	fuzz_family(buf, size);

	nk_view_free(&L.v);
	nk_ntuple_list_free(&L.rules);
	for (size_t i = 0; i < L.nothers; i++)
		free(L.others[i]);
	free(L.others);
	free(buf);
	return 0;
}
