// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl doctor, the NIC side of a pod: its leases (and the ones nkctl
 * recorded that have ended), the NIC's RSS table, header split, n-tuple
 * steering of the pod's addresses, XDP beside a memory provider, and the
 * pod's devmem bindings.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/statfs.h>

#include "doctor/doctornic.h"
#include "lease/restore.h"
#include "lease/look.h"
#include "nic/nicsupport.h"
#include "core/lookup.h"
#include "xsk/xskread.h"
#include "xsk/xskfit.h"
#include "bind/bindview.h"

/* ---- leases ---- */

/* Does the pod lease NIC queue q (its leases as the lease scan listed them)? */
static bool pod_leases(const struct dr_pod *p, const struct dr_nic *n, uint32_t q)
{
	for (size_t i = 0; i < p->leases.n; i++)
		if (p->leases.v[i].nic_ns == n->ns && p->leases.v[i].nic_ifindex == n->link.ifindex &&
		    p->leases.v[i].nic_queue == q)
			return true;
	return false;
}

/* The NIC queues a lease record leased (recorded with it). */
static size_t record_queues(const struct nk_nic_lease *l, uint32_t *q, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < l->nleased && k < max; i++)
		q[k++] = l->leased[i];
	return k;
}

static size_t fmt_queues(char *buf, size_t len, const uint32_t *q, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "", q[i]);
	return used;
}

/* "steer dst A,B" of the pod's addresses, or "". */
static void steer_words(const struct dr_pod *p, char *buf, size_t len)
{
	size_t used = 0;
	char a[INET6_ADDRSTRLEN];

	buf[0] = '\0';
	for (size_t i = 0; i < p->addrs.n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : " steer dst ",
					 dr_addr_str(&p->addrs.v[i], a, sizeof(a)));
}

/* A name for a new holder that no device of the pod's namespace has. */
static void free_name(const struct dr_pod *p, char *name, size_t len)
{
	for (int k = 0; k < 26; k++) {
		bool used = false;

		snprintf(name, len, "nkl%d%.*s", p->primary.ifindex, k ? 1 : 0, &"abcdefghijklmnopqrstuvwxyz"[k]);
		for (size_t i = 0; i < p->pod_links.n && !used; i++)
			used = !strcmp(p->pod_links.v[i].ifname, name);
		if (!used)
			return;
	}
}

/*
 * The commands that make the lease again, in a new single device: first an
 * unlease of that (absent) name, which finishes what gone holders left on
 * the NIC (their rules, their reservations), so that the new lease owns
 * its queues and rules; then the holder and the lease.
 */
static void lease_again_fix(const struct dr_pod *p, const struct dr_nic *n, const uint32_t *q,
			size_t nq, char *fix, size_t len)
{
	char ns[DR_NS_ARG_LEN], pn[DR_NS_WORD_LEN + 16] = "", word[NK_NS_SPEC], qw[DR_NS_WORD_LEN];
	char qs[128], steer[512] = "";
	char name[IF_NAMESIZE];
	const char *w;
	bool rss = n->view->rss_ret == 0 && n->view->rss.indir_size;

	free_name(p, name, sizeof(name));
	dr_ns_arg(p->ctx, p->pod_ns, ns, sizeof(ns));
	if (n->ns != p->pod_ns) {
		w = dr_ns_word(p->ctx, n->ns, word, sizeof(word));
		snprintf(pn, sizeof(pn), " phys-netns %s", w ? dr_shell_word(w, qw, sizeof(qw)) : "NETNS");
	}
	fmt_queues(qs, sizeof(qs), q, nq);
	if (n->view->rules_ret == 0)
		steer_words(p, steer, sizeof(steer));
	snprintf(fix, len, "nkctl %s-force unlease dev %s && nkctl %slink add %s type single rxqueues %zu && nkctl %slease dev %s from %s%s queue %s%s%s",
		 ns, name, ns, name, nq + 1, ns, name, n->link.ifname, pn, qs, rss ? " reserve" : "", steer);
}

/* Lease records of nkctl for a holder in the pod's namespace whose lease
 * has ended, as the one judgement (fate.h) reads it from one look at the
 * NIC: the sweep undoes exactly these. A NIC down or unreadable, or a lease
 * whose namespace cannot be told, is no ended lease. */
static size_t check_ended(struct dr_report *r, struct dr_pod *p, struct dr_nic *n)
{
	const struct nk_nic_state *st = &n->view->st;
	struct nk_nic_seen seen;
	size_t found = 0;

	if (!st->exists || !st->nleases)
		return 0;
	nk_nic_seen_read(p->ctx, n->ns, n->link.ifindex, &seen);
	for (size_t i = 0; i < st->nleases; i++) {
		const struct nk_nic_lease *l = &st->leases[i];
		uint32_t q[NK_NIC_LEASE_MAX * 2];
		size_t nq;
		char fix[DR_FIX_LEN], qs[128];

		if (!nk_ns_is(p->pod_ns, l->ns_dev, l->ns_ino) || !dr_pod_device(p, l->ifindex))
			continue;
		nq = record_queues(l, q, NK_ARRAY_SIZE(q));
		if (nk_fate_of_queues(&seen, q, nq) != NK_FATE_ENDED)
			continue;
		found++;
		fmt_queues(qs, sizeof(qs), q, nq);
		if (nq)
			lease_again_fix(p, n, q, nq, fix, sizeof(fix));
		dr_check(r, "lease", DR_FAIL, nq ? fix : NULL,
			 "nkctl leased %s queue %s to ifindex %d of the pod's namespace: that lease has ended (the device is gone or holds it no more); its reservation and rules are still recorded",
			 n->link.ifname, nq ? qs : "(unknown)", l->ifindex);
	}
	nk_nic_seen_free(&seen);
	return found;
}

/* A lease of the pod that nkctl recorded on a NIC it cannot see (down,
 * unreadable): not ok, not ended; whether it lives cannot be read. */
static void check_unseen(struct dr_report *r, struct dr_pod *p, const struct nk_lease_rec *l)
{
	char fix[DR_FIX_LEN], ip[DR_IP_LEN];
	bool down = l->look == NK_LOOK_DOWN;

	if (down && l->nic_ns)
		snprintf(fix, sizeof(fix), "%slink set dev %s up", dr_ip(p->ctx, l->nic_ns, ip, sizeof(ip)),
			 l->nic_ifname);
	dr_check(r, "lease", DR_FAIL, down && l->nic_ns ? fix : NULL,
		 "%s <- %s queue %u cannot be seen now (the NIC is %s): whether the pod's lease lives cannot be read; nkctl keeps what it brought",
		 l->nk_ifname, l->nic_ifname, l->nic_queue, nk_look_word(l->look));
}

void dr_check_leases(struct dr_report *r, struct dr_pod *p)
{
	size_t ended = 0;

	for (size_t i = 0; i < p->leases.n; i++) {
		const struct nk_lease_rec *l = &p->leases.v[i];

		if (l->unseen) {
			check_unseen(r, p, l);
			continue;
		}
		dr_check(r, "lease", DR_OK, NULL, "%s queue %u <- %s queue %u%s%s", l->nk_ifname,
			 l->nk_queue, l->nic_ifname, l->nic_queue, l->nic_ns->here ? "" : " in netns ",
			 l->nic_ns->here ? "" : nk_ns_name(l->nic_ns));
	}
	for (size_t i = 0; i < p->nnics; i++)
		if (p->nics[i].view)
			ended += check_ended(r, p, &p->nics[i]);
	if (!p->leases.n && !ended)
		dr_check(r, "lease", DR_OK, NULL,
			 "no lease: the pod's traffic shares the NIC's queues with everyone else");
}

/* ---- the NIC side ---- */

static void check_nic(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n)
{
	char fix[DR_FIX_LEN], ip[DR_IP_LEN];

	if (!n->found) {
		dr_check(r, "nic", DR_FAIL, NULL, "the NIC (ifindex %d in %s) is gone", n->link.ifindex,
			 nk_ns_name(n->ns));
		return;
	}
	if (!(n->link.flags & IFF_UP)) {
		snprintf(fix, sizeof(fix), "%slink set dev %s up", dr_ip(p->ctx, n->ns, ip, sizeof(ip)),
			 n->link.ifname);
		dr_check(r, "nic", DR_FAIL, fix, "%s is down", n->link.ifname);
		return;
	}
	dr_check(r, "nic", DR_OK, NULL, "%s up%s%s", n->link.ifname, n->ns->here ? "" : " in netns ",
		 n->ns->here ? "" : nk_ns_name(n->ns));
}

static void reserve_fix(const struct dr_pod *p, const struct dr_nic *n, uint32_t q, char *fix,
			size_t len)
{
	char ns[DR_NS_ARG_LEN];

	snprintf(fix, len, "nkctl %snic reserve dev %s queue %u", dr_ns_arg(p->ctx, n->ns, ns, sizeof(ns)),
		 n->link.ifname, q);
}

/* What heals a NIC whose reset or operator's edit took what nkctl recorded. */
static void restore_fix(const struct dr_pod *p, const struct dr_nic *n, char *fix, size_t len)
{
	char ns[DR_NS_ARG_LEN];

	snprintf(fix, len, "nkctl %snic restore dev %s", dr_ns_arg(p->ctx, n->ns, ns, sizeof(ns)),
		 n->link.ifname);
}

static void check_rss(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n,
		      const struct nk_lease_rec *l)
{
	const struct nk_nic_view *v = n->view;
	char fix[DR_FIX_LEN];

	if (v->rss_ret || !v->rss.indir_size) {
		dr_check(r, "rss", DR_SKIP, NULL,
			 "%s has no RSS indirection table nkctl can read: whether queue %u receives others' flows is unknown",
			 n->link.ifname, l->nic_queue);
		return;
	}
	if (nk_nic_lost_rss(&v->st, &v->rss, v->rss_ret, l->nic_queue)) {
		restore_fix(p, n, fix, sizeof(fix));
		dr_check(r, "rss", DR_FAIL, fix,
			 "%s queue %u receives RSS traffic again although nkctl reserved it (the NIC was reset or its table edited): others' flows land on the pod's queue",
			 n->link.ifname, l->nic_queue);
		return;
	}
	if (nk_rss_uses(&v->rss, l->nic_queue)) {
		reserve_fix(p, n, l->nic_queue, fix, sizeof(fix));
		dr_check(r, "rss", DR_FAIL, fix,
			 "%s queue %u receives RSS traffic: others' flows land on the pod's queue",
			 n->link.ifname, l->nic_queue);
		return;
	}
	dr_check(r, "rss", DR_OK, NULL, "%s queue %u is out of RSS", n->link.ifname, l->nic_queue);
}

static void check_header_split(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n,
			       const struct nk_lease_rec *l)
{
	const struct nk_rings *g = &n->view->rings;
	char fix[DR_FIX_LEN];

	if (!dr_lease_bound(p, l))
		return;
	if (n->view->rings_ret || !g->have_tcp_data_split) {
		dr_check(r, "header-split", DR_SKIP, NULL,
			 "the driver of %s does not report tcp-data-split", n->link.ifname);
		return;
	}
	if (g->tcp_data_split != NK_TCP_DATA_SPLIT_ENABLED || (g->have_hds_thresh && g->hds_thresh)) {
		if (nk_nic_lost_split(&n->view->st, g, n->view->rings_ret))
			restore_fix(p, n, fix, sizeof(fix));
		else
			reserve_fix(p, n, l->nic_queue, fix, sizeof(fix));
		dr_check(r, "header-split", DR_FAIL, fix,
			 "%s has tcp-data-split %s, hds-thresh %u: the memory provider bound to queue %u gets no payloads%s",
			 n->link.ifname, nk_tcp_data_split_name(g->tcp_data_split),
			 g->have_hds_thresh ? g->hds_thresh : 0, l->nic_queue,
			 g->tcp_data_split != NK_TCP_DATA_SPLIT_ENABLED && nk_nic_gro_hw_off(n->ns, &n->link) ?
			 " (HW GRO, rx-gro-hw, is off too: drivers such as mlx5 take header split only with it on; ethtool -K turns it on)" : "");
		return;
	}
	dr_check(r, "header-split", DR_OK, NULL, "%s has tcp-data-split on, hds-thresh 0 for bound queue %u",
		 n->link.ifname, l->nic_queue);
}

static bool rule_matches(const struct nk_ntuple *r, const struct nk_addr *a)
{
	size_t len = a->family == AF_INET6 ? 16 : 4;

	return r->have_dst && nk_flow_is_v6(r->flow_type) == (a->family == AF_INET6) &&
	       !memcmp(r->dst, a->addr, len);
}

static void steer_add(const struct dr_pod *p, const struct dr_nic *n, const struct nk_addr *a,
		      uint32_t q, char *buf, size_t len)
{
	char ns[DR_NS_ARG_LEN], s[INET6_ADDRSTRLEN];

	snprintf(buf, len, "nkctl %ssteer add dev %s flow-type %s dst %s queue %u",
		 dr_ns_arg(p->ctx, n->ns, ns, sizeof(ns)), n->link.ifname,
		 a->family == AF_INET6 ? "ip6" : "ip4", dr_addr_str(a, s, sizeof(s)), q);
}

/* A rule nkctl recorded for address a that the driver no longer has. */
static bool lost_rule_for(const struct dr_nic *n, const struct nk_addr *a, uint32_t *id)
{
	const struct nk_nic_view *v = n->view;

	for (size_t i = 0; v->st.exists && i < v->st.nrules; i++)
		if (rule_matches(&v->st.rules[i], a) &&
		    nk_nic_lost_rule(&v->st, &v->rules, v->rules_ret, &v->st.rules[i])) {
			*id = v->st.rules[i].id;
			return true;
		}
	return false;
}

/* One pod address on a NIC whose queue q the pod leases. */
static void check_steer_addr(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n,
			     const struct nk_addr *a, uint32_t q)
{
	const struct nk_ntuple *other = NULL;
	char fix[DR_FIX_LEN], add[DR_FIX_LEN / 2], ns[DR_NS_ARG_LEN], s[INET6_ADDRSTRLEN];
	uint32_t lost;

	dr_addr_str(a, s, sizeof(s));
	for (size_t i = 0; i < n->view->rules.n; i++) {
		const struct nk_ntuple *rule = &n->view->rules.v[i];

		if (!rule_matches(rule, a))
			continue;
		if (rule->action != NK_RULE_ACTION_DROP && pod_leases(p, n, (uint32_t)rule->action)) {
			dr_check(r, "steering", DR_OK, NULL, "rule %u of %s sends %s to queue %llu",
				 rule->id, n->link.ifname, s, (unsigned long long)rule->action);
			return;
		}
		other = other ? other : rule;
	}
	if (!other && lost_rule_for(n, a, &lost)) {
		restore_fix(p, n, fix, sizeof(fix));
		dr_check(r, "steering", DR_FAIL, fix,
			 "nkctl's rule %u of %s that sent %s to the pod's queue is gone from the driver (a reset, or ethtool -N delete): RSS spreads its flows over the shared queues",
			 lost, n->link.ifname, s);
		return;
	}
	steer_add(p, n, a, q, add, sizeof(add));
	if (!other) {
		dr_check(r, "steering", DR_FAIL, add,
			 "no n-tuple rule of %s sends %s to the pod's queue %u: RSS spreads its flows over the shared queues",
			 n->link.ifname, s, q);
		return;
	}
	snprintf(fix, sizeof(fix), "nkctl %ssteer del dev %s id %u && %s",
		 dr_ns_arg(p->ctx, n->ns, ns, sizeof(ns)), n->link.ifname, other->id, add);
	dr_check(r, "steering", DR_FAIL, fix, "rule %u of %s sends %s to %s%llu, not to the pod's queue %u",
		 other->id, n->link.ifname, s, other->action == NK_RULE_ACTION_DROP ? "drop" : "queue ",
		 other->action == NK_RULE_ACTION_DROP ? 0ULL : (unsigned long long)other->action, q);
}

static void check_steering(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n, uint32_t q)
{
	if (n->view->rules_ret) {
		dr_check(r, "steering", DR_SKIP, NULL, "%s: %s", n->link.ifname,
			 n->view->rules_ret == -EOPNOTSUPP ? "the driver has no n-tuple rules" :
			 "its n-tuple rules cannot be read");
		return;
	}
	if (!p->addrs.n) {
		dr_check(r, "steering", DR_SKIP, NULL, "the pod has no global address to steer");
		return;
	}
	for (size_t i = 0; i < p->addrs.n; i++)
		check_steer_addr(r, p, n, &p->addrs.v[i], q);
}

static void check_xdp(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n)
{
	char fix[DR_FIX_LEN], ip[DR_IP_LEN];
	uint32_t ours = 0;

	/* nkctl's own AF_XDP program is meant to be there (check_xsk) */
	if (nk_xsk_nic_prog(n->ns, n->link.ifindex, &ours) && ours &&
	    ours == n->link.xdp_prog_id) {
		dr_check(r, "xdp", DR_OK, NULL, "the XDP program on %s is nkctl's (xsk attach)",
			 n->link.ifname);
		return;
	}
	if ((n->link.have & LINK_HAVE_XDP) && n->link.xdp_attached) {
		snprintf(fix, sizeof(fix), "%slink set dev %s xdp off", dr_ip(p->ctx, n->ns, ip, sizeof(ip)),
			 n->link.ifname);
		dr_check(r, "xdp", DR_FAIL, fix,
			 "an XDP program (id %u) runs on %s while a memory provider is bound to its queues",
			 n->link.xdp_prog_id, n->link.ifname);
		return;
	}
	dr_check(r, "xdp", DR_OK, NULL, "no XDP program on %s beside the memory provider",
		 n->link.ifname);
}

/* What sits at a holder's pin, never through a link there: the VMM owns
 * that directory and may put anything in it. Its directory is opened
 * O_NOFOLLOW, the pin read with fstatat. NULL when it is a pin as nkctl
 * makes them (*st its owner, group and mode) or when nothing is there (*st
 * untouched), else what it is instead (xsk_pin_foreign). */
static const char *pin_look(const char *pin, struct stat *st)
{
	const char *name = strrchr(pin, '/'), *foreign = NULL;
	char dir[PIN_LEN];
	struct statfs fs;
	struct stat at;
	int dfd;

	if (!name)
		return NULL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(name - pin), pin);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOTDIR || errno == ELOOP ?
		       "its directory is a symbolic link or a file" : NULL;
	if (!fstatat(dfd, name + 1, &at, AT_SYMLINK_NOFOLLOW)) {
		foreign = xsk_pin_foreign(&at, !fstatfs(dfd, &fs) &&
					  (uint32_t)fs.f_type == BPF_FS_MAGIC);
		if (!foreign)
			*st = at;
	}
	close(dfd);
	return foreign;
}

/* The attach that heals a queue (it reuses the NIC's maps: the other
 * holders' queues stay), after "xdp off" when another program is on the
 * NIC; with the pin's owner, group and mode as st has them (attach sets
 * them; share when that owner has another live holder's map too), or, for
 * a pin that is not nkctl's (st NULL), a user for the operator to name:
 * nothing the VMM put there chooses whom root grants the map. */
static void xsk_fix(struct dr_pod *p, const struct dr_nic *n, const struct nk_lease_rec *l,
		    bool other_prog, const char *pin, const struct stat *st, char *fix, size_t len)
{
	char ns[DR_IP_LEN], ip[DR_IP_LEN], off[DR_IP_LEN + 64] = "", who[64] = " user USER";

	if (other_prog)
		snprintf(off, sizeof(off), "%slink set dev %s xdp off && ",
			 dr_ip(p->ctx, n->ns, ip, sizeof(ip)), n->link.ifname);
	if (st)
		snprintf(who, sizeof(who), " user %u group %u mode %04o%s", (unsigned int)st->st_uid,
			 (unsigned int)st->st_gid, (unsigned int)(st->st_mode & 0777),
			 nk_xsk_pin_shared(pin, st) ? " share" : "");
	snprintf(fix, len, "%snkctl %sxsk attach dev %s%s", off,
		 dr_ns_arg(p->ctx, l->nk_ns, ns, sizeof(ns)), l->nk_ifname, who);
}

/* The holder of a prepared queue is down: 1 (and the fix), 0 when up or
 * not to be seen. A socket bound to it is never readable in poll() and its
 * TX kick fails (net/xdp/xsk.c checks the bound device's IFF_UP). */
static int xsk_holder_down(struct dr_pod *p, const struct nk_lease_rec *l, char *fix, size_t len)
{
	struct nl_sock *rt = l->nk_ns ? nk_ns_try_rtnl(l->nk_ns) : NULL;
	char ip[DR_IP_LEN];
	struct nk_link h;

	if (!rt || nk_link_lookup(rt, NULL, l->nk_ifindex, &h, NULL, true) || (h.flags & IFF_UP))
		return 0;
	snprintf(fix, len, "%slink set dev %s up", dr_ip(p->ctx, l->nk_ns, ip, sizeof(ip)), h.ifname);
	return 1;
}

/* A queue xsk attach prepared: its holder's pin nkctl's, nkctl's program
 * still on the NIC, the holder up and a consumer's socket bound (else its
 * frames go to the stack). */
static void check_xsk(struct dr_report *r, struct dr_pod *p, const struct dr_nic *n,
		      const struct nk_lease_rec *l)
{
	char pin[PIN_LEN], fix[DR_FIX_LEN];
	struct stat st = { .st_mode = 0600 };  /* a pin gone: root's, 0600 */
	const char *foreign;
	uint32_t prog = 0;
	bool ours;

	if (!nk_xsk_pin_of(l->nic_ns, l->nic_ifindex, l->nic_queue, pin))
		return;
	ours = nk_xsk_nic_prog(l->nic_ns, l->nic_ifindex, &prog) && prog &&
	       prog == n->link.xdp_prog_id;
	foreign = pin_look(pin, &st);
	if (foreign) {
		xsk_fix(p, n, l, !ours && n->link.xdp_prog_id != 0, pin, NULL, fix, sizeof(fix));
		dr_check(r, "xsk", DR_FAIL, fix,
			 "queue %u of %s is prepared for AF_XDP but %s is not nkctl's pin (%s): attach again, naming the VMM's user",
			 l->nk_queue, l->nk_ifname, pin, foreign);
		return;
	}
	if (!ours) {
		xsk_fix(p, n, l, n->link.xdp_prog_id != 0, pin, &st, fix, sizeof(fix));
		dr_check(r, "xsk", DR_FAIL, fix,
			 "queue %u of %s is prepared for AF_XDP but the XDP program on %s is %s",
			 l->nk_queue, l->nk_ifname, n->link.ifname,
			 n->link.xdp_prog_id ? "not nkctl's" : "gone");
		return;
	}
	if (xsk_holder_down(p, l, fix, sizeof(fix))) {
		dr_check(r, "xsk", DR_FAIL, fix,
			 "queue %u of %s is prepared for AF_XDP but %s is down: a VMM's socket is never readable in poll() and cannot send",
			 l->nk_queue, l->nk_ifname, l->nk_ifname);
		return;
	}
	if (!(l->mp & QUEUE_HAVE_XSK)) {
		dr_check(r, "xsk", DR_WARN, NULL,
			 "queue %u of %s has an XSK map (%s) but no AF_XDP socket: its frames go to the stack",
			 l->nk_queue, l->nk_ifname, pin);
		return;
	}
	dr_check(r, "xsk", DR_OK, NULL, "an AF_XDP socket on queue %u of %s (%s)", l->nk_queue,
		 l->nk_ifname, pin);
}

/* The checks of one NIC with the pod's leases on it. */
static void check_one_nic(struct dr_report *r, struct dr_pod *p, struct dr_nic *n)
{
	const struct nk_lease_rec *first = NULL;
	bool bound = false;

	check_nic(r, p, n);
	if (!n->found || !n->view)
		return;
	for (size_t i = 0; i < p->leases.n; i++) {
		const struct nk_lease_rec *l = &p->leases.v[i];

		if (l->unseen || dr_nic_of(p, l->nic_ns, l->nic_ifindex) != n)
			continue;
		first = first ? first : l;
		bound |= dr_lease_bound(p, l);
		check_rss(r, p, n, l);
		check_header_split(r, p, n, l);
		check_xsk(r, p, n, l);
	}
	if (first)
		check_steering(r, p, n, first->nic_queue);
	if (bound)
		check_xdp(r, p, n);
}

void dr_check_nic_side(struct dr_report *r, struct dr_pod *p)
{
	for (size_t i = 0; i < p->nnics; i++)
		check_one_nic(r, p, &p->nics[i]);
}

/* ---- bindings ---- */

/* End the stale binding's state and, when nkctl knows how it was made,
 * make it again. */
static void rebind_fix(const struct dr_pod *p, const struct nk_binding *b, char *fix, size_t len)
{
	char ns[DR_NS_ARG_LEN], qs[256], sz[32], src[96];
	size_t used;

	dr_ns_arg(p->ctx, p->pod_ns, ns, sizeof(ns));
	used = (size_t)snprintf(fix, len, "nkctl %s-force unbind id %u", ns, b->id);
	if (!b->have_dmabuf || b->kind == NK_DMABUF_FD || b->mode != NK_HOLD_DAEMON || used >= len)
		return;
	fmt_queues(qs, sizeof(qs), b->queues, b->nqueues);
	if (b->kind == NK_DMABUF_HEAP)
		snprintf(src, sizeof(src), "heap %s", b->heap);
	else
		snprintf(src, sizeof(src), "udmabuf");
	used += (size_t)snprintf(fix + used, len - used, " && nkctl %sbind-rx dev %s queue %s dmabuf %s size %s%s",
				 ns, b->ifname, qs, src, nk_size_word(b->size, sz, sizeof(sz)),
				 b->hugepages ? " hugepages" : "");
	if (b->rx_page_size && used < len)
		snprintf(fix + used, len - used, " rx-page-size %u", b->rx_page_size);
}

static const struct nk_lease_rec *lease_of(const struct dr_pod *p, int ifindex, uint32_t q)
{
	for (size_t i = 0; i < p->leases.n; i++)
		if (!p->leases.v[i].unseen && p->leases.v[i].nk_ifindex == ifindex &&
		    p->leases.v[i].nk_queue == q)
			return &p->leases.v[i];
	return NULL;
}

static void check_binding(struct dr_report *r, struct dr_pod *p, const struct nk_binding *b)
{
	char fix[DR_FIX_LEN], ns[DR_NS_ARG_LEN], qs[256];

	fmt_queues(qs, sizeof(qs), b->queues, b->nqueues);
	if (!b->alive) {
		rebind_fix(p, b, fix, sizeof(fix));
		dr_check(r, "binding", DR_FAIL, fix,
			 "binding %u of %s queue %s: its holder (pid %d) is gone, and the binding with it",
			 b->id, b->ifname, qs, (int)b->pid);
		return;
	}
	for (size_t i = 0; i < b->nqueues; i++) {
		if (lease_of(p, b->ifindex, b->queues[i]))
			continue;
		snprintf(fix, sizeof(fix), "nkctl %sunbind id %u",
			 dr_ns_arg(p->ctx, p->pod_ns, ns, sizeof(ns)), b->id);
		dr_check(r, "binding", DR_FAIL, fix,
			 "binding %u holds %s queue %u, which no lease backs: its memory never sees the NIC's packets",
			 b->id, b->ifname, b->queues[i]);
		return;
	}
	dr_check(r, "binding", DR_OK, NULL, "binding %u of %s queue %s, held by pid %d, on leased queues",
		 b->id, b->ifname, qs, (int)b->pid);
}

void dr_check_bindings(struct dr_report *r, struct dr_pod *p)
{
	for (size_t i = 0; i < p->bindings.n; i++)
		if (p->bindings.v[i].held)
			check_binding(r, p, &p->bindings.v[i]);
}
