// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl monitor's event records: one record begun (time, namespace, object,
 * action) and ended (written at once, the count kept, a closed output
 * stopping the monitor). The notifications (monitor.c) and the snapshots
 * (monsnap.c) print through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "monitor/monrecord.h"

/* The record's "object" and its text tag. */
static const char *const obj_names[MON_N] = {
	[MON_LINK] = "link", [MON_NSID] = "nsid", [MON_NETDEV] = "netdev",
	[MON_PAGE_POOL] = "page-pool", [MON_LEASE] = "lease", [MON_BINDING] = "binding",
	[MON_HOLDER] = "holder", [MON_XSK] = "xsk", [MON_XDP] = "xdp", [MON_LOST] = "lost",
};
static const char *const obj_tags[MON_N] = {
	[MON_LINK] = "LINK", [MON_NSID] = "NSID", [MON_NETDEV] = "NETDEV",
	[MON_PAGE_POOL] = "PAGE-POOL", [MON_LEASE] = "LEASE", [MON_BINDING] = "BINDING",
	[MON_HOLDER] = "HOLDER", [MON_XSK] = "XSK", [MON_XDP] = "XDP", [MON_LOST] = "LOST",
};

static void now_iso(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char sec[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", sec, ts.tv_nsec / 1000);
}

/* The name nkctl knows the namespace by that has nsid here, or NULL. */
const char *mon_nsid_name(struct monitor *m, int32_t nsid)
{
	struct nk_ns *ns = m->lookups ? nk_ns_by_nsid(m->ctx, m->here, nsid) : NULL;

	return ns && ns->spec[0] ? ns->spec : NULL;
}

void mon_begin(struct monitor *m, enum mon_obj obj, const char *action, int32_t nsid)
{
	struct out *o = &m->ctx->out;
	const char *name;

	out_begin(o);
	out_obj_open(o, "event");
	if (m->ctx->timestamp) {
		char ts[64];

		now_iso(ts, sizeof(ts));
		out_str(o, "time", "[%s] ", ts);
	}
	if (nsid >= 0) {
		out_int(o, "nsid", "[nsid %lld", nsid);
		name = mon_nsid_name(m, nsid);
		if (name)
			out_str(o, "netns", " %s", name);
		out_text(o, "] ");
	}
	out_str(o, "object", NULL, obj_names[obj]);
	out_text(o, "[%s] ", obj_tags[obj]);
	out_str(o, "action", "%s ", action);
}

/* stdout is gone (a closed pipe: the reader is done, which is no error).
 * What is still buffered goes nowhere, so exit sees a clean stream. */
static int output_closed(struct monitor *m, int err)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	clearerr(stdout);
	m->status = err == EPIPE ? NK_EXIT_OK : nk_error_errno(err, "cannot write the output");
	return 1;
}

int mon_end(struct monitor *m)
{
	struct out *o = &m->ctx->out;

	out_obj_close(o);
	out_end(o);
	errno = 0;
	nk_ctx_flush(m->ctx);
	if (ferror(stdout))
		return output_closed(m, errno ? errno : EIO);
	m->printed++;
	return m->count && m->printed >= m->count;
}

/* fn for the monitor's own namespace, then (all-nsid) every other one it
 * reaches that has an nsid there. */
int mon_each_ns(struct monitor *m, int (*fn)(struct nk_ns *ns, int32_t nsid, void *arg), void *arg)
{
	struct nk_ns *const *all;
	size_t n;
	int ret;

	ret = fn(m->here, NK_EV_NSID_LOCAL, arg);
	if (ret || !m->all_nsid)
		return ret;
	nk_ctx_forget_others(m->ctx);
	if (nk_ns_reachable(m->ctx, &all, &n))
		return 0;
	for (size_t i = 0; i < n && !ret; i++) {
		int32_t id = all[i] == m->here ? -1 : nk_ns_nsid_of(m->here, all[i]);

		if (id >= 0)
			ret = fn(all[i], id, arg);
	}
	return ret;
}
