// SPDX-License-Identifier: GPL-2.0
/* DEL, and ADD's undo: remove this container's pieces, whatever an earlier
 * (perhaps killed) ADD got to; what is gone already is fine. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "del.h"
#include "cni.h"
#include "ipam.h"
#include "netkit.h"
#include "nksession.h"
#include "nl.h"
#include "podinfo.h"
#include "podnet.h"
#include "report.h"

static void del_link(struct nl_sock *r, const char *ifname)
{
	int ifindex = r ? podnet_ifindex(r, ifname) : -1;
	struct nl_err e;

	if (ifindex > 0)
		rtnl_link_del(r, ifindex, &e);
}

/* A holder nkctl's unlease left: one that holds no lease (an ADD that
 * stopped before leasing), in the pod or still in the host. */
static void del_leftover_holder(const struct plugin *p)
{
	int fd = p->netns && *p->netns ? open(p->netns, O_RDONLY | O_CLOEXEC) : -1;
	struct nl_sock *r = fd >= 0 ? podnet_open(fd) : NULL;

	del_link(r, p->holder);
	podnet_close(r);
	if (fd >= 0)
		close(fd);
	r = podnet_open(-1);
	del_link(r, p->holder);
	podnet_close(r);
}

/* End the holder's leases where it lives, in the pod, through nkctl's
 * unlease on the command's one nkctl session (unlease dev ... netns): it
 * waits (boundedly) for a memory provider still on a queue to go before
 * deleting the holder, so the NIC side is restored, never pulled from under
 * a provider. A pod's namespace that is gone is nkctl's to judge, not ours:
 * its file missing is not the lease's end (a process may keep the
 * namespace), and nkctl refuses a lease that lives on, or that it cannot
 * see. 0, or -1 with why (the provider stayed: the runtime's next DEL tries
 * again). */
int unlease_in_pod(const struct plugin *p, struct nk_session *s, char *why, size_t len)
{
	if (!p->queues || !p->netns || !*p->netns)
		return 0;       /* no namespace named: the host's unlease line decides */
	if (!nks_run(s, NULL, "unlease dev %s netns %s wait %u", p->holder, p->netns,
		     CNI_UNLEASE_WAIT))
		return 0;
	snprintf(why, len, "unlease in the pod: %s", s->err);
	return -1;
}

/* nkctl's part in reverse order of ADD's, each line accepting what is gone
 * (-force), after unlease_in_pod; the pod's information file. GC's own
 * (gc: the host side found alive by its alias, the holder deleted by the
 * batch's unlease from) is link del alone: nkctl's link del forgets the
 * host side's redirects, the pod's egress and the NIC's route to it, as
 * the detach lines do, each line costing a look at every NIC record. */
int teardown_nk(const struct plugin *p, struct nk_session *s, bool gc, char *why, size_t len)
{
	static const char *const all[] = { "NIC route", "unlease", "egress redirect", "link del" };
	const char *const *what = gc ? all + 3 : all;
	size_t n = gc ? 1 : 4;
	char rest[768];
	int ret = 0;

	if (!gc) {
		nks_send(s, "redirect detach dev %s to %s", p->nic, p->host);
		nks_send(s, "unlease dev %s", p->holder);
		nks_send(s, "redirect detach dev %s", p->host);
	}
	nks_send(s, "link del %s", p->host);
	for (size_t i = 0; i < n; i++)
		if (nks_reply(s, NULL) && !ret) {
			snprintf(why, len, "%s: %s", what[i], s->err);
			ret = -1;
		}
	if (teardown_rest(p, rest, sizeof(rest)) && !ret) {
		snprintf(why, len, "%s", rest);
		ret = -1;
	}
	return ret;
}

/* teardown_nk's part without nkctl, after its lines: a holder nkctl's
 * unlease left, the pod's information file. 0, or -1 with why. */
int teardown_rest(const struct plugin *p, char *why, size_t len)
{
	del_leftover_holder(p);
	return pod_info_remove(p, why, len);
}

/* teardown_nk; with ipam, the IPAM plugin's DEL runs meanwhile. */
int teardown(struct plugin *p, struct nk_session *s, bool ipam, char *why, size_t len)
{
	struct ipam_run run = { 0 };
	int ret, ipam_failed = 0;

	*why = '\0';
	/* A provider still there: the pod keeps everything, its address and
	 * the NIC side included, until a DEL finds it gone. */
	if (unlease_in_pod(p, s, why, len))
		return -1;
	if (ipam && ipam_start(p, "DEL", p->ipam_text, &run, why, len))
		ipam_failed = -1;
	ret = teardown_nk(p, s, false, why, len);
	if (ipam && !ipam_failed && ipam_finish(&run)) {
		char msg[512];

		ipam_error(&run, msg, sizeof(msg));
		if (!ret)
			snprintf(why, len, "IPAM DEL: %s", msg);
		ipam_failed = -1;
	}
	ipam_free(&run);
	return ret || ipam_failed ? -1 : 0;
}

/* DEL where nkctl cannot be found (uninstalled before the runtime's last
 * DELs): what needs no nkctl. The IPAM plugin's DEL, the pair's host side
 * (the pod's link goes with it), the information file. The holder stays:
 * only nkctl deletes one, once it has seen its leases end (the namespace's
 * deletion ends them, and the next nkctl command's sweep undoes their NIC
 * side); its redirects' pins and routes are nkctl's too. */
static int del_without_nkctl(struct plugin *p)
{
	struct ipam_run run = { 0 };
	struct nl_sock *r = podnet_open(-1);
	char why[768] = "", msg[512];
	int ret = ipam_start(p, "DEL", p->ipam_text, &run, why, sizeof(why));

	del_link(r, p->host);
	podnet_close(r);
	if (pod_info_remove(p, msg, sizeof(msg)) && !ret) {
		snprintf(why, sizeof(why), "%s", msg);
		ret = -1;
	}
	if (!run.started) {
		ipam_free(&run);
		return ret;
	}
	if (ipam_finish(&run)) {
		ipam_error(&run, msg, sizeof(msg));
		snprintf(why, sizeof(why), "IPAM DEL: %s", msg);
		ret = -1;
	}
	ipam_free(&run);
	return ret ? cni_error(p, CNI_ERR_STEP, "%s", why) : 0;
}

int cmd_del(struct plugin *p)
{
	struct nk_session s;
	char why[768];
	int ret;

	if (!p->nkctl)
		return del_without_nkctl(p);
	if (nks_start(&s, p->nkctl, &p->locks)) {
		nks_end(&s);
		return cni_error(p, CNI_ERR_STEP, "cannot run %s", p->nkctl);
	}
	ret = teardown(p, &s, true, why, sizeof(why));
	nks_end(&s);
	return ret ? cni_error(p, CNI_ERR_STEP, "%s", why) : 0;
}
