// SPDX-License-Identifier: GPL-2.0
/* GC (CNI 1.1): remove every attachment of this network the runtime no
 * longer knows (not in cni.dev/valid-attachments). ADD marks the host side
 * nk<hash> with an alias naming the network with its NIC (attachment_owner),
 * the container, the interface and the pod's namespace, so GC finds its
 * attachments without a list of its own and never touches another network's
 * (one of the same name on another NIC included) or another tool's devices.
 * A pod whose namespace went before any DEL took its pair and holder with
 * it (and so the alias), not the NIC side nor its address: the pod's
 * information file (ADD writes one for pods with queues) still names it.
 * All of them go in one nkctl process: one `unlease from NIC queue LIST
 * holders ...` of every stale pod's queues (as its information file says;
 * `show leases` first where one does not) (nkctl finds
 * each holder in its pod's namespace, waiting for memory providers as DEL's
 * unlease does; where that fails, each pod's own line), then every host
 * side whose holder went (or that has none: a network without queues)
 * joins GC's own device group (gc_group) and one
 * `link del group` deletes them all in one kernel operation (one wait for
 * the grace periods, not one per pod; DEL's lines for the others, and for
 * all where that line fails, as with an nkctl without it); meanwhile the
 * IPAM plugin's GC where its VERSION (asked while nkctl reads the leases)
 * lists 1.1.0, else its DEL for each, one at once a CPU (2 to 8), a slot
 * refilled as its run ends, also while nkctl deletes. nkctl deletes the
 * holders of its one unlease several at once (each in its namespace, so no
 * one group). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "gc.h"
#include "alias.h"
#include "attachname.h"
#include "cni.h"
#include "conf.h"
#include "del.h"
#include "ipam.h"
#include "jsondoc.h"
#include "linkset.h"
#include "lock.h"
#include "nksession.h"
#include "nl.h"
#include "podinfo.h"
#include "podnet.h"
#include "privdir.h"
#include "report.h"
#include "spawn.h"
#include "status.h"

/* attachment_from_info copies a checked container id into a->id. */
_Static_assert(CNI_ID_MAX < sizeof(((struct attachment *)0)->id), "a container id fits");

/* Is o the string s, all of it (a JSON string may hold a NUL)? */
static bool json_str_is(json_object *o, const char *s)
{
	return json_object_is_type(o, json_type_string) &&
	       (size_t)json_object_get_string_len(o) == strlen(s) && !strcmp(json_object_get_string(o), s);
}

bool attachment_valid(json_object *valid, const char *id, const char *ifname)
{
	for (size_t i = 0; i < json_object_array_length(valid); i++) {
		json_object *v = json_object_array_get_idx(valid, i), *c, *f;

		if (json_object_object_get_ex(v, "containerID", &c) &&
		    json_object_object_get_ex(v, "ifname", &f) && json_str_is(c, id) &&
		    json_str_is(f, ifname))
			return true;
	}
	return false;
}

struct gc {
	const struct plugin *p;
	char owner[300];            /* attachment_owner */
	json_object *valid;
	struct attachment *stale;
	size_t n, cap;
	bool nomem;
};

/* a into the stale list, once (an attachment found both by its alias and
 * by its information file). */
static void stale_add(struct gc *g, const struct attachment *a)
{
	struct attachment *bigger;

	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->stale[i].id, a->id) && !strcmp(g->stale[i].ifname, a->ifname)) {
			if (!g->stale[i].queues[0])
				memcpy(g->stale[i].queues, a->queues, sizeof(a->queues));
			return;
		}
	if (g->n == g->cap) {
		bigger = realloc(g->stale, (g->cap ? g->cap * 2 : 64) * sizeof(*bigger));
		if (!bigger) {
			g->nomem = true;
			return;
		}
		g->stale = bigger;
		g->cap = g->cap ? g->cap * 2 : 64;
	}
	g->stale[g->n++] = *a;
}

static int collect(const char *ifname, const char *alias, void *data)
{
	struct gc *g = data;
	struct attachment a;

	(void)ifname;
	if (attachment_parse(alias, g->owner, &a) && !attachment_valid(g->valid, a.id, a.ifname)) {
		a.host_alive = true;
		stale_add(g, &a);
	}
	return 0;
}

/* Each stale attachment locked, without waiting: one whose lock is held
 * (an ADD or DEL of it under way) is not stale now and is left out; one
 * that cannot be locked (a lock directory or file that is not root's
 * alone) is left out with a warning. GC holds the others' locks to its
 * end: no ADD of them starts meanwhile. */
static void lock_stale(struct gc *g)
{
	size_t k = 0;
	int ret;

	for (size_t i = 0; i < g->n; i++) {
		struct attachment *a = &g->stale[i];

		ret = attachment_lock(a->id, a->ifname, 0, &a->lock);
		if (ret && ret != -EWOULDBLOCK)
			cni_warn("GC: leaving %s %s alone: cannot lock it under %s: %s", a->id,
				 a->ifname, CNI_LOCK_DIR, private_dir_refusal(ret));
		if (ret)
			continue;
		g->stale[k++] = *a;
	}
	g->n = k;
}

/* The stale attachments' locks, for the children that work on them all
 * (nkctl's session, the IPAM plugin's own GC): NULL without memory. */
static int *stale_locks(const struct gc *g, struct held_locks *held)
{
	int *fd = malloc((g->n ? g->n : 1) * sizeof(*fd));

	for (size_t i = 0; fd && i < g->n; i++)
		fd[i] = g->stale[i].lock;
	*held = (struct held_locks){ fd, fd ? g->n : 0 };
	return fd;
}

/* GC's end: the stale attachments' locks go, their files with them. */
static void unlock_stale(struct gc *g)
{
	for (size_t i = 0; i < g->n; i++)
		attachment_unlock(g->stale[i].id, g->stale[i].ifname, g->stale[i].lock, true);
}

/* A string member of an information file: NULL when it is missing, not a
 * string, or holds a NUL (its C string would be another). */
static const char *info_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) != strlen(json_object_get_string(v)))
		return NULL;
	return json_object_get_string(v);
}

/* The NIC queues of a pod information file's "queues" ("4,5", from
 * its lease's reply) into a->queues; left "" where an entry is not a queue
 * number or they do not fit. */
static void info_queues(json_object *info, struct attachment *a)
{
	json_object *qs = doc_member(info, "queues");
	size_t n = 0;

	for (size_t i = 0; json_object_is_type(qs, json_type_array) && i < doc_array_len(qs); i++) {
		json_object *nq = doc_member(doc_array_at(qs, i), "nic-queue");
		int w = json_object_is_type(nq, json_type_int) && json_object_get_int(nq) >= 0 ?
				snprintf(a->queues + n, sizeof(a->queues) - n, "%s%d", n ? "," : "",
					 json_object_get_int(nq)) : -1;

		if (w < 0 || (size_t)w >= sizeof(a->queues) - n) {
			a->queues[0] = '\0';
			return;
		}
		n += (size_t)w;
	}
}

/* The information file name's document of network's attachment on nic
 * into a (its namespace unknown, its NIC queues as the file says): 1; 0
 * for another network's or NIC's; -1 with why for a file that is no
 * information file, names what ADD would refuse, or is not under the name
 * ADD gives it (a stranger may have written it: GC builds lock and file
 * names and nkctl's arguments from its names). The NIC too: the directory
 * is the file system's, a network's name need not be unique across
 * network namespaces (runtimes, tests), a NIC's name in one is. */
int attachment_from_info(json_object *info, const char *name, const char *network,
			 const char *nic, struct attachment *a, const char **why)
{
	const char *net = info_str(info, "network"), *id = info_str(info, "containerID"),
		   *ifname = info_str(info, "ifname"), *dev = info_str(info, "nic");
	char own[NAME_MAX + 1];

	memset(a, 0, sizeof(*a));
	*why = NULL;
	if (!net || !id || !ifname || !dev)
		*why = "\"network\", \"containerID\", \"ifname\" and \"nic\" must be strings without NUL";
	else if (container_id_refused(id))
		*why = "its \"containerID\" is no container id";
	else if (ifname_refused(ifname))
		*why = "its \"ifname\" is no interface name";
	else if (attachment_name(id, ifname, ".json", own, sizeof(own)) || strcmp(own, name))
		*why = "its name is not the one of the attachment it names";
	if (*why)
		return -1;
	if (strcmp(net, network) || strcmp(dev, nic))
		return 0;
	strcpy(a->id, id);
	strcpy(a->ifname, ifname);
	info_queues(info, a);
	return 1;
}

/* One information file for GC: a stale attachment of this network when
 * the runtime does not list it. */
static const char *collect_info_file(json_object *info, const char *name, void *data)
{
	struct gc *g = data;
	struct attachment a;
	const char *why;

	if (attachment_from_info(info, name, g->p->name, g->p->nic, &a, &why) > 0 &&
	    !attachment_valid(g->valid, a.id, a.ifname))
		stale_add(g, &a);
	return why;
}

/* The stale attachments podInfoDir's files name (a directory not there:
 * none; a network without a NIC has no files). */
static void collect_info_files(struct gc *g)
{
	if (g->p->nic)
		pod_info_scan(g->p, collect_info_file, g);
}

/* cni.dev/valid-attachments: an array of {containerID, ifname} strings;
 * an earlier text of the spec called it cni.dev/attachments, and libcni
 * sends both (cni#1101): either will do, the new name first. */
json_object *gc_valid_of(json_object *conf)
{
	json_object *valid;

	if (json_object_object_get_ex(conf, "cni.dev/valid-attachments", &valid) ||
	    json_object_object_get_ex(conf, "cni.dev/attachments", &valid))
		return valid;
	return NULL;
}

static json_object *valid_list(const struct plugin *p)
{
	json_object *valid = gc_valid_of(p->conf), *v, *c, *f;

	if (!valid || !json_object_is_type(valid, json_type_array))
		return cni_error(p, CNI_ERR_CONFIG,
				 "GC needs \"cni.dev/valid-attachments\" (or \"cni.dev/attachments\"), an array"),
		       NULL;
	for (size_t i = 0; i < json_object_array_length(valid); i++) {
		v = json_object_array_get_idx(valid, i);
		if (!json_object_object_get_ex(v, "containerID", &c) ||
		    !json_object_object_get_ex(v, "ifname", &f) ||
		    !json_object_is_type(c, json_type_string) || !json_object_is_type(f, json_type_string))
			return cni_error(p, CNI_ERR_CONFIG,
					 "\"cni.dev/valid-attachments\" entries need \"containerID\" and \"ifname\" strings"),
			       NULL;
	}
	return valid;
}

/* p as the stale attachment a's DEL would see it: the children started
 * for a alone (its IPAM DEL, its unlease in the pod) hold a's lock alone. */
static struct plugin as_attachment(const struct plugin *p, const struct attachment *a)
{
	struct plugin q = *p;

	q.id = a->id;
	q.ifname = a->ifname;
	q.netns = a->netns[0] ? a->netns : NULL;
	q.locks = (struct held_locks){ &a->lock, 1 };
	derive_names(&q);
	return q;
}

/* At most how many IPAM DELs of stale attachments run at once: their
 * process starts overlap (host-local serialises on its lock, not its
 * start). */
#define GC_IPAM_PARALLEL 8
/* How often a finished IPAM run is looked for while GC waits. */
#define GC_IPAM_TICK_MS 5

/* How many IPAM DELs run at once on a node with cpus CPUs usable: one a
 * CPU, 2 to GC_IPAM_PARALLEL. A plugin's start is CPU work (a Go runtime's
 * for host-local): more starts at once than CPUs only add switches (100 of
 * host-local's DELs on two CPUs took 7.1 s 2 at once, 9.5 s 8 at once). */
size_t gc_ipam_width(long cpus)
{
	if (cpus < 2)
		return 2;
	return cpus > GC_IPAM_PARALLEL ? GC_IPAM_PARALLEL : (size_t)cpus;
}

/* The CPUs this process may run on (1 when that cannot be read). */
static long cpus_usable(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

/* The IPAM plugin's DEL for the stale attachment a, started. */
static int ipam_del_start(const struct gc *g, const struct attachment *a, struct ipam_run *run,
			  char *why, size_t len)
{
	struct plugin q = as_attachment(g->p, a);

	setenv("CNI_CONTAINERID", q.id, 1);
	setenv("CNI_IFNAME", q.ifname, 1);
	if (q.netns)
		setenv("CNI_NETNS", q.netns, 1);
	else
		unsetenv("CNI_NETNS");
	return ipam_start(&q, "DEL", q.ipam_text, run, why, len);
}

/* The IPAM plugin's part, run beside nkctl's deletions: its GC (it knows
 * the valid list), else its DEL for each stale attachment,
 * width (gc_ipam_width) at a time, the next started as one finishes. */
struct ipam_pool {
	size_t width;			/* how many run at once */
	struct ipam_run run[GC_IPAM_PARALLEL];
	size_t of[GC_IPAM_PARALLEL];	/* the stale attachment a DEL is for */
	size_t next;			/* the next one to start a DEL for */
	bool gc;			/* the plugin's own GC runs in run[0] */
	int code;			/* the first failure's code, with why */
	char why[512];
};

static void pool_collect(const struct gc *g, struct ipam_pool *pl, size_t k)
{
	char msg[400];

	if (ipam_finish(&pl->run[k]) && !pl->code) {
		pl->code = ipam_error(&pl->run[k], msg, sizeof(msg));
		if (pl->gc)
			snprintf(pl->why, sizeof(pl->why), "%s", msg);
		else
			snprintf(pl->why, sizeof(pl->why), "IPAM DEL of %.64s: %s",
				 g->stale[pl->of[k]].id, msg);
	}
	ipam_free(&pl->run[k]);
}

/* Collect the runs that have finished and start DELs in the free slots. */
static void pool_step(const struct gc *g, struct ipam_pool *pl)
{
	char msg[400];

	for (size_t k = 0; k < pl->width; k++) {
		if (pl->run[k].started && child_exited(&pl->run[k].c))
			pool_collect(g, pl, k);
		if (pl->run[k].started || pl->gc || pl->next >= g->n)
			continue;
		pl->of[k] = pl->next++;
		if (ipam_del_start(g, &g->stale[pl->of[k]], &pl->run[k], msg, sizeof(msg)) && !pl->code) {
			pl->code = CNI_ERR_STEP;
			snprintf(pl->why, sizeof(pl->why), "%s", msg);
		}
	}
}

/* version: the IPAM plugin's VERSION, started while nkctl worked. */
static void pool_begin(const struct gc *g, struct ipam_pool *pl, struct ipam_run *version)
{
	memset(pl, 0, sizeof(*pl));
	pl->width = gc_ipam_width(cpus_usable());
	pl->gc = ipam_version_1_1(version);
	if (pl->gc && ipam_start(g->p, "GC", g->p->conf_text, &pl->run[0], pl->why, sizeof(pl->why)))
		pl->code = CNI_ERR_STEP;
	pool_step(g, pl);
}

/* Is pid one of the pool's runs? */
static bool pool_runs(const struct ipam_pool *pl, pid_t pid)
{
	for (size_t k = 0; k < pl->width; k++)
		if (pl->run[k].started && pl->run[k].c.pid == pid)
			return true;
	return false;
}

/* Every run finished: 0, or the first failure's code. A slot is refilled
 * as soon as its run ends, not in slot order: waiting for slot 0 while slot
 * 5's run has ended left that slot idle, and host-local's DELs ran in
 * batches. nkctl's session has ended by now, so GC sleeps until a child
 * exits (a look every few ms costs a hundred wakeups a second, CPU the DELs
 * need); one exited that is not the pool's (a child the process had before
 * an exec made it the plugin) is left alone, and the pool looked at every
 * GC_IPAM_TICK_MS instead. */
static int pool_end(const struct gc *g, struct ipam_pool *pl)
{
	const struct timespec tick = { 0, GC_IPAM_TICK_MS * 1000 * 1000 };
	bool busy = true;

	while (busy) {
		siginfo_t si = { 0 };

		pool_step(g, pl);
		busy = !pl->gc && pl->next < g->n;
		for (size_t k = 0; k < pl->width; k++)
			busy |= pl->run[k].started;
		if (busy && (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) || !pool_runs(pl, si.si_pid)))
			nanosleep(&tick, NULL);
	}
	return pl->code;
}

/* The NIC queues holder leases from nic ("4,5"; "" when none), from
 * `show leases`' leases; -1 when they do not fit buf. */
int holder_queue_list(json_object *leases, const char *nic, const char *holder, char *buf,
		      size_t len)
{
	size_t n = 0;

	*buf = '\0';
	for (size_t i = 0; i < doc_array_len(leases); i++) {
		json_object *l = doc_array_at(leases, i), *holder_side = doc_member(l, "lease");
		json_object *ifname = doc_member(l, "ifname"), *hname = doc_member(holder_side, "ifname");
		int w;

		if (!ifname || !hname || doc_member(l, "netns") ||
		    strcmp(json_object_get_string(ifname), nic) ||
		    strcmp(json_object_get_string(hname), holder))
			continue;
		w = snprintf(buf + n, len - n, "%s%d", n ? "," : "",
			     json_object_get_int(doc_member(l, "id")));
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

/* The stale attachment q's leases ended in the batch (unlease from the NIC's
 * queues, wherever the holder is now): 0, or -1 with why. Where that line
 * cannot (a namespace nkctl does not find from here), or `show leases`
 * shows the holder none (nkctl, not GC, says whether they ended), the
 * holder by its name in the pod's namespace, as DEL. */
static int gc_unlease(const struct plugin *q, struct nk_session *s, json_object *leases,
		      bool *ended, char *why, size_t len)
{
	char list[512];
	int ret;

	*ended = false;
	if (!q->queues || !leases || holder_queue_list(leases, q->nic, q->holder, list, sizeof(list)) ||
	    !*list)
		return unlease_in_pod(q, s, why, len);
	ret = nks_run(s, NULL, "unlease from %s queue %s holders %s wait %u", q->nic, list, q->holder,
		      CNI_UNLEASE_WAIT);
	/* refused (a provider stays, or the queue is another pod's now), or
	 * failed: the pod's own holder, by its name in its namespace, decides */
	if (ret)
		return unlease_in_pod(q, s, why, len);
	*ended = true;      /* its holder is deleted */
	return 0;
}

/* Are a's queues its information file's? Only for a pod still there (its
 * host side found): one whose namespace went took its holder with it, and
 * its queues may be another pod's now (the pool hands out the lowest free
 * one), which would refuse the line at every GC; `show leases` leaves
 * them out. */
static bool file_queues(const struct attachment *a)
{
	return a->host_alive && a->queues[0];
}

/* Every stale attachment's leases ended in one line, the union of their
 * holders' NIC queues (each one's from its information file, else from
 * `show leases`' leases; a queue the file names that is leased to another
 * holder now refuses the line as any other would) (nkctl checks every holder, waits for the providers,
 * then deletes them all and sweeps the NIC once): ended[i] says whose.
 * false when that line failed (a provider stays, a holder nkctl cannot
 * reach): nothing was deleted then, and each goes its own way. */
static bool gc_unlease_all(const struct gc *g, struct nk_session *s, json_object *leases,
			   bool *ended)
{
	char *all = NULL, *holders = NULL, one[512];
	size_t len = 0, hlen = 0;
	bool ok = true;

	for (size_t i = 0; i < g->n && ok; i++) {
		struct plugin q = as_attachment(g->p, &g->stale[i]);
		char *more, *hmore;

		ended[i] = false;
		if (q.queues && file_queues(&g->stale[i]))
			snprintf(one, sizeof(one), "%s", g->stale[i].queues);
		else if (!q.queues || !leases ||
			 holder_queue_list(leases, q.nic, q.holder, one, sizeof(one)))
			ok = false;
		if (ok && *one) {
			more = realloc(all, len + strlen(one) + 2);
			hmore = more ? realloc(holders, hlen + strlen(q.holder) + 2) : NULL;
			ok = more && hmore;
			if (more)
				all = more;
			if (hmore)
				holders = hmore;
			if (ok) {
				len += (size_t)sprintf(all + len, "%s%s", len ? "," : "", one);
				hlen += (size_t)sprintf(holders + hlen, "%s%s", hlen ? "," : "", q.holder);
			}
			ended[i] = ok;
		}
	}
	/* each queue's holder named: one leased again meanwhile (the pool
	 * hands out the lowest free queue) to another pod refuses the line,
	 * and each stale pod then gets its own line */
	if (ok && len && nks_run(s, NULL, "unlease from %s queue %s holders %s wait %u", g->p->nic,
				 all, holders, CNI_UNLEASE_WAIT))
		ok = false;
	free(all);
	free(holders);
	for (size_t i = 0; i < g->n && !ok; i++)
		ended[i] = false;
	return ok;
}

/* Where the one line failed: each stale attachment's own unlease. One a
 * provider keeps stays whole (its IPAM reservation too: no DEL for it),
 * out of g's list; the next GC takes it. */
static void gc_unlease_each(struct gc *g, struct nk_session *s, json_object *leases, bool *ended,
			    char *first, size_t len)
{
	char why[768];

	for (size_t i = 0; i < g->n;) {
		struct plugin q = as_attachment(g->p, &g->stale[i]);

		if (!gc_unlease(&q, s, leases, &ended[i], why, sizeof(why))) {
			i++;
			continue;
		}
		if (!*first)
			snprintf(first, len, "%s (container %s): %.600s", q.host, q.id, why);
		g->stale[i] = g->stale[--g->n];
		ended[i] = ended[g->n];
	}
}

/* Do all stale attachments' information files say their queues? */
static bool queues_known(const struct gc *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (!file_queues(&g->stale[i]))
			return false;
	return true;
}

uint32_t gc_group(long pid)
{
	return CNI_GC_GROUP_BASE | ((uint32_t)pid & CNI_GC_GROUP_PIDS);
}

/* The host sides that are there (host_alive) and need no line but their
 * link del (their holders deleted by the batch, ended, or a network
 * without queues, so without holders) into group: grouped[i] says which
 * joined; the IPAM pool stepped meanwhile. */
static size_t gc_group_hosts(const struct gc *g, const bool *ended, bool *grouped, uint32_t group,
			     struct ipam_pool *pool)
{
	struct nl_sock *r = podnet_open(-1);
	size_t n = 0;
	struct nl_err e;

	for (size_t i = 0; i < g->n; i++) {
		struct plugin q = as_attachment(g->p, &g->stale[i]);
		int ifindex;

		grouped[i] = false;
		if (!r || !(ended[i] || !g->p->queues) || !g->stale[i].host_alive)
			continue;
		ifindex = podnet_ifindex(r, q.host);
		grouped[i] = ifindex > 0 && !rtnl_link_set_group(r, ifindex, group, &e);
		n += grouped[i];
		pool_step(g, pool);
	}
	podnet_close(r);
	return n;
}

struct pool_at {
	const struct gc *g;
	struct ipam_pool *pool;
};

static void pool_idle(void *arg)
{
	struct pool_at *at = arg;

	pool_step(at->g, at->pool);
}

/* `link del group`, the IPAM slots refilled while the kernel deletes (a
 * slot idle for the line's second or two costs its DELs that much). */
static bool gc_group_del(const struct gc *g, struct nk_session *s, uint32_t group,
			 struct ipam_pool *pool)
{
	struct pool_at at = { g, pool };

	if (nks_send(s, "link del group %u", group))
		return false;
	nks_await(s, pool_idle, &at, GC_IPAM_TICK_MS);
	return !nks_reply(s, NULL);
}

/* Every stale attachment's devices and files gone: the grouped host sides
 * in one `link del group` (each one's own link del where that line fails),
 * the others through DEL's lines; the IPAM pool stepped meanwhile. The
 * first failure into first. */
static void gc_teardown(const struct gc *g, struct nk_session *s, const bool *ended,
			bool *grouped, struct ipam_pool *pool, char *first, size_t len)
{
	uint32_t group = gc_group((long)getpid());
	bool one = gc_group_hosts(g, ended, grouped, group, pool) && gc_group_del(g, s, group, pool);
	char why[768];

	for (size_t i = 0; i < g->n; i++) {
		struct plugin q = as_attachment(g->p, &g->stale[i]);
		int ret;

		/* grouped: its holder deleted by the batch (or none, a
		 * network without queues): no leftover holder to look for
		 * in the pod and the host, the file alone */
		if (grouped[i] && one)
			ret = pod_info_remove(&q, why, sizeof(why));
		else  /* link del alone where the host side takes the redirects */
			ret = teardown_nk(&q, s, ended[i] && g->stale[i].host_alive, why, sizeof(why));
		if (ret && !*first)
			snprintf(first, len, "%s (container %s): %.600s", q.host, q.id, why);
		pool_step(g, pool);
	}
}

/* The stale attachments: by their host sides' aliases, and by their
 * information files; 0, or -1 with GC's error. */
static int gc_collect(struct gc *g)
{
	struct nl_sock *r = podnet_open(-1);
	struct nl_err e;
	int ret = !r || rtnl_link_aliases(r, collect, g, &e) ? -1 : 0;

	podnet_close(r);
	if (ret || g->nomem)
		return cni_error(g->p, CNI_ERR_STEP, "cannot list the devices' aliases");
	collect_info_files(g);
	if (g->nomem)
		return cni_error(g->p, CNI_ERR_STEP, "out of memory");
	return 0;
}

/* Every stale attachment, locked (all of them in *all): its leases ended,
 * its devices and files gone, its addresses released; the first trouble
 * into first. The IPAM pool's answer, 0 or its CNI code. */
static int gc_stale_in(struct plugin *p, struct gc *g, struct held_locks *all,
		       struct ipam_pool *pool, char *first, size_t len, bool *ended, bool *grouped)
{
	json_object *leases = NULL;
	struct ipam_run version;
	struct nk_session s;
	bool session = g->n > 0, need_leases;

	/* nkctl's one session works on every stale attachment: it holds
	 * all their locks, as a command's children hold its one */
	if (session && nks_start(&s, p->nkctl, all)) {
		nks_end(&s);
		return cni_error(p, CNI_ERR_STEP, "cannot run %s", p->nkctl);
	}
	/* nkctl's `show leases` (needed only for those whose information
	 * file does not say their queues) runs while the IPAM plugin
	 * answers VERSION: process starts and scans that overlap */
	need_leases = session && p->queues && !queues_known(g);
	if (need_leases)
		nks_send(&s, "show leases");
	if (ipam_version_start(p, &version, first, len)) {
		if (session)
			nks_end(&s);
		return cni_error(p, CNI_ERR_UNAVAILABLE, "%s", first);
	}
	if (need_leases && nks_reply(&s, &leases))
		leases = NULL; /* each falls back to its own unlease in the pod */
	if ((need_leases && !leases) || !gc_unlease_all(g, &s, doc_member(leases, "leases"), ended)) {
		if (session && p->queues && !leases && nks_run(&s, &leases, "show leases"))
			leases = NULL; /* each falls back to its own unlease in the pod */
		gc_unlease_each(g, &s, doc_member(leases, "leases"), ended, first, len);
	}
	json_object_put(leases);
	/* The addresses of the attachments whose leases ended are released
	 * while nkctl deletes their devices (DEL does the same). */
	p->locks = *all;   /* the IPAM plugin's own GC: every stale one too */
	pool_begin(g, pool, &version);
	if (session) {
		gc_teardown(g, &s, ended, grouped, pool, first, len);
		nks_end(&s);
	}
	return pool_end(g, pool);
}

/* gc_stale_in with its per-attachment flags: which ended, which joined
 * the group. */
static int gc_stale(struct plugin *p, struct gc *g, struct held_locks *all,
		    struct ipam_pool *pool, char *first, size_t len)
{
	bool *ended = calloc(g->n ? g->n : 1, sizeof(*ended));
	bool *grouped = calloc(g->n ? g->n : 1, sizeof(*grouped));
	int code = ended && grouped ? gc_stale_in(p, g, all, pool, first, len, ended, grouped) :
				      cni_error(p, CNI_ERR_STEP, "out of memory");

	free(ended);
	free(grouped);
	return code;
}

int cmd_gc(struct plugin *p)
{
	struct gc g = { .p = p, .valid = valid_list(p) };
	struct ipam_pool pool;
	struct held_locks all;
	char first[768] = "";
	int *all_fds, code;

	attachment_owner(p, g.owner, sizeof(g.owner));
	if (!g.valid || gc_collect(&g)) {
		free(g.stale);
		return -1;
	}
	lock_stale(&g);
	all_fds = stale_locks(&g, &all);
	code = all_fds ? gc_stale(p, &g, &all, &pool, first, sizeof(first)) :
			 cni_error(p, CNI_ERR_STEP, "out of memory");
	unlock_stale(&g);
	free(g.stale);
	free(all_fds);
	if (!all_fds || cni_failed(p))
		return -1;
	if (*first)
		return cni_error(p, CNI_ERR_STEP, "%s", first);
	if (code)
		return cni_error(p, code, "IPAM GC: %s", pool.why);
	return 0;
}
