// SPDX-License-Identifier: GPL-2.0
/* STATUS (CNI 1.1): can this network take an ADD now? nkctl runs, the
 * kernel has what the configuration needs, the NIC is there and up, the
 * queue pool has a pod's worth of free queues, and the IPAM plugin says it
 * is ready (asked when its VERSION lists 1.1.0). Otherwise error 50 with
 * the reason, 51 where the pods already there lose connectivity too. */
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "cni.h"
#include "ipam.h"
#include "jsondoc.h"
#include "nksession.h"
#include "podnet.h"
#include "report.h"
#include "rtnl.h"

/* The kernel features an ADD of this configuration uses (nkctl show
 * kernel's names): the pair and its redirects, the holder and its leases. */
static const char *const needs_always[] = { "netkit", "netkit-bpf", "tcx" };
static const char *const needs_queues[] = { "netkit-single", "queue-create" };

/* A feature the probe found missing ("no"); "unknown" is not held against
 * the node (the probe could not run). */
static bool feature_missing(json_object *features, const char *name)
{
	for (size_t i = 0; i < doc_array_len(features); i++) {
		json_object *f = doc_array_at(features, i);

		const char *n = json_object_get_string(doc_member(f, "name"));
		const char *state = json_object_get_string(doc_member(f, "state"));

		if (n && !strcmp(n, name))
			return state && !strcmp(state, "no");
	}
	return false;
}

/* The first feature doc (nkctl show kernel) lacks, or NULL. */
const char *status_kernel_lacks(json_object *doc, bool queues)
{
	json_object *features = doc_member(doc_member(doc, "kernel"), "features");

	for (size_t i = 0; i < sizeof(needs_always) / sizeof(needs_always[0]); i++)
		if (feature_missing(features, needs_always[i]))
			return needs_always[i];
	for (size_t i = 0; queues && i < sizeof(needs_queues) / sizeof(needs_queues[0]); i++)
		if (feature_missing(features, needs_queues[i]))
			return needs_queues[i];
	return NULL;
}

/* Is q in the pool list ("1,3-5", as nkctl's lease ... pool)? */
bool pool_has(const char *list, unsigned long q)
{
	const char *s = list;
	char *end;

	while (s && *s) {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return false;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				return false;
		}
		if (q >= lo && q <= hi)
			return true;
		s = *end == ',' ? end + 1 : NULL;
	}
	return false;
}

/* The pool's queues (doc: nkctl nic show dev NIC) that no lease holds and
 * no memory provider uses. */
unsigned int status_pool_free(json_object *doc, const char *pool)
{
	json_object *nic = doc_array_at(doc_member(doc, "nics"), 0);
	json_object *queues = doc_member(nic, "queues");
	unsigned int n = 0;

	for (size_t i = 0; i < doc_array_len(queues); i++) {
		json_object *q = doc_array_at(queues, i);

		if (pool_has(pool, (unsigned long)json_object_get_int64(doc_member(q, "id"))) &&
		    !doc_member(q, "lease") && !doc_member(q, "dmabuf") && !doc_member(q, "io-uring") &&
		    !doc_member(q, "xsk"))
			n++;
	}
	return n;
}

struct status {
	struct plugin *p;
	struct nk_session s;
};

static int status_nic(struct status *st)
{
	struct nl_sock *r = podnet_open(-1);
	struct nk_link l = { 0 };
	int ifindex = r ? podnet_link(r, st->p->nic, &l) : -1;

	podnet_close(r);
	if (ifindex <= 0)
		return cni_error(st->p, CNI_ERR_UNAVAILABLE_LOSSY, "the NIC %s does not exist",
				 st->p->nic);
	if (!(l.flags & IFF_UP))
		return cni_error(st->p, CNI_ERR_UNAVAILABLE_LOSSY, "the NIC %s is down", st->p->nic);
	return 0;
}

static int status_pool(struct status *st)
{
	json_object *doc = NULL;
	unsigned int n;

	if (nks_run(&st->s, &doc, "nic show dev %s", st->p->nic))
		return cni_error(st->p, CNI_ERR_UNAVAILABLE, "nic show: %s", st->s.err);
	n = status_pool_free(doc, st->p->queues);
	json_object_put(doc);
	if (n < st->p->per_pod)
		return cni_error(st->p, CNI_ERR_UNAVAILABLE,
				 "the queue pool %s of %s is exhausted (%u free, a pod takes %u)",
				 st->p->queues, st->p->nic, n, st->p->per_pod);
	return 0;
}

/* The IPAM plugin's VERSION, started (GC asks it while nkctl works): 0,
 * or -1 with why (run not started: ipam_version_1_1 says no). */
int ipam_version_start(const struct plugin *p, struct ipam_run *run, char *why, size_t len)
{
	return ipam_start(p, "VERSION", p->conf_text, run, why, len);
}

/* Does the started VERSION's answer list 1.1.0 (so that the IPAM plugin
 * knows STATUS and GC)? */
bool ipam_version_1_1(struct ipam_run *run)
{
	json_object *doc, *list;
	bool found = false;

	if (ipam_finish(run)) {
		ipam_free(run);
		return false;
	}
	doc = json_tokener_parse(run->out);
	list = doc_member(doc, "supportedVersions");
	for (size_t i = 0; json_object_is_type(list, json_type_array) &&
			   i < doc_array_len(list); i++)
		found |= !strcmp(json_object_get_string(doc_array_at(list, i)), "1.1.0");
	json_object_put(doc);
	ipam_free(run);
	return found;
}

int ipam_speaks_1_1(const struct plugin *p)
{
	struct ipam_run run;
	char why[512];

	if (ipam_version_start(p, &run, why, sizeof(why)))
		return cni_error(p, CNI_ERR_UNAVAILABLE, "%s", why);
	return ipam_version_1_1(&run);
}

static int status_ipam(const struct plugin *p)
{
	struct ipam_run run;
	char why[512];
	int ret = ipam_speaks_1_1(p);

	if (ret <= 0)
		return ret;
	if (ipam_start(p, "STATUS", p->conf_text, &run, why, sizeof(why)))
		return cni_error(p, CNI_ERR_UNAVAILABLE, "%s", why);
	if (ipam_finish(&run)) {
		int code = ipam_error(&run, why, sizeof(why));

		ret = cni_error(p, code, "IPAM STATUS: %s", why);
	}
	ipam_free(&run);
	return ret < 0 ? ret : 0;
}

int cmd_status(struct plugin *p)
{
	struct status st = { .p = p };
	json_object *doc = NULL;
	const char *lacks;

	int ret = 0;

	if (nks_start(&st.s, p->nkctl, &p->locks))
		ret = cni_error(p, CNI_ERR_UNAVAILABLE, "cannot run %s", p->nkctl);
	else if (nks_run(&st.s, &doc, "show kernel"))
		ret = cni_error(p, CNI_ERR_UNAVAILABLE, "nkctl does not run: %s", st.s.err);
	lacks = ret ? NULL : status_kernel_lacks(doc, p->queues != NULL);
	if (lacks)
		ret = cni_error(p, CNI_ERR_UNAVAILABLE, "the kernel lacks %s (nkctl show kernel)",
				lacks);
	json_object_put(doc);
	if (!ret)
		ret = status_nic(&st);
	if (!ret && p->queues)
		ret = status_pool(&st);
	nks_end(&st.s);
	return ret ? ret : status_ipam(p);
}
