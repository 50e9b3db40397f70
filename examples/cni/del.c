// SPDX-License-Identifier: GPL-2.0
/* DEL, and ADD's undo: remove this container's pieces, whatever an earlier
 * (perhaps killed) ADD got to; what is gone already is fine. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cni.h"

static void del_link(struct rtnl *r, const char *ifname)
{
	int ifindex = r ? rtnl_ifindex(r, ifname) : -1;

	if (ifindex > 0)
		rtnl_link_del(r, ifindex);
}

/* The holder, in the pod or still in the host (an ADD that stopped before
 * moving it, or before leasing: nkctl's unlease leaves a device without a
 * lease alone). Deleting it ends its leases; nkctl's unlease below then
 * undoes their NIC side (reservation, rules). */
static void del_holder(const struct plugin *p)
{
	int fd = p->netns && *p->netns ? open(p->netns, O_RDONLY | O_CLOEXEC) : -1;
	struct rtnl *r = fd >= 0 ? rtnl_open_in(fd) : NULL;

	del_link(r, p->holder);
	rtnl_close(r);
	if (fd >= 0)
		close(fd);
	r = rtnl_open_in(-1);
	del_link(r, p->holder);
	rtnl_close(r);
}

/* nkctl's part in reverse order of ADD's, each line accepting what is gone
 * (-force). */
int teardown_nk(const struct plugin *p, struct nk_session *s, char *why, size_t len)
{
	static const char *const what[] = { "NIC route", "unlease", "egress redirect", "link del" };
	int ret = 0;

	del_holder(p);
	nks_send(s, "redirect detach dev %s to %s", p->nic, p->host);
	nks_send(s, "unlease dev %s", p->holder);
	nks_send(s, "redirect detach dev %s", p->host);
	nks_send(s, "link del %s", p->host);
	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (nks_reply(s, NULL) && !ret) {
			snprintf(why, len, "%s: %s", what[i], s->err);
			ret = -1;
		}
	return ret;
}

/* teardown_nk; with ipam, the IPAM plugin's DEL runs meanwhile. */
int teardown(struct plugin *p, struct nk_session *s, bool ipam, char *why, size_t len)
{
	struct ipam_run run = { 0 };
	int ret, ipam_failed = 0;

	*why = '\0';
	if (ipam && ipam_start(p, "DEL", p->ipam_text, &run, why, len))
		ipam_failed = -1;
	ret = teardown_nk(p, s, why, len);
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

int cmd_del(struct plugin *p)
{
	struct nk_session s;
	char why[768];
	int ret;

	if (nks_start(&s, p->nkctl))
		cni_fail(p, CNI_ERR_STEP, "cannot run %s", p->nkctl);
	ret = teardown(p, &s, true, why, sizeof(why));
	nks_end(&s);
	if (ret)
		cni_fail(p, CNI_ERR_STEP, "%s", why);
	return 0;
}
