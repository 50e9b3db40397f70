/* SPDX-License-Identifier: GPL-2.0 */
/* The lease table: every lease visible from the namespaces nkctl can reach. */
#ifndef NKCTL_LEASES_H
#define NKCTL_LEASES_H

#include <net/if.h>
#include <sys/types.h>

#include "ethtool.h"
#include "nicsvc.h"
#include "nkctl.h"
#include "qstats.h"


struct nk_lease_rec {
	/* the NIC side, where queue-get shows the lease */
	struct nk_ns *nic_ns;
	int nic_ifindex;
	char nic_ifname[IF_NAMESIZE];
	uint32_t nic_queue;
	/* the netkit side; nk_ns NULL: a namespace nkctl cannot reach */
	struct nk_ns *nk_ns;
	int nk_ifindex;
	char nk_ifname[IF_NAMESIZE];
	uint32_t nk_queue;
	/* memory provider on the NIC queue (QUEUE_HAVE_DMABUF|IO_URING|XSK) */
	unsigned int mp;
	uint32_t dmabuf;
	bool existed;              /* for lease's own output */
	const struct nk_lease_nic *nic;  /* show leases only; NULL elsewhere */
	struct nk_qstats stats;    /* -s: the NIC queue's qstats (have 0: none) */
};

struct nk_lease_list {
	struct nk_lease_rec *v;
	size_t n, cap;
};

/* Scan every namespace nkctl can reach (nk_ns_reachable). The records point
 * at namespaces of ctx. */
int nk_lease_scan(struct nk_ctx *ctx, struct nk_lease_list *out);
void nk_lease_list_free(struct nk_lease_list *l);
/* The lease held by netkit queue (ifindex, queue) of the command's netns. */
const struct nk_lease_rec *nk_lease_of_netkit(const struct nk_lease_list *l, int ifindex,
					      uint32_t queue);
/* The lease of NIC queue (ifindex, queue) of namespace ns. */
const struct nk_lease_rec *nk_lease_of_nic(const struct nk_lease_list *l,
					   const struct nk_ns *ns, int ifindex, uint32_t queue);
/* -s: fill each record's stats with its NIC queue's qstats, one dump per
 * NIC namespace; a namespace that cannot be read leaves them empty. */
void nk_lease_stats(struct nk_lease_list *l);
/* One lease object, as "lease", "show leases" and "unlease" print it. */
void nk_print_lease(struct out *o, const struct nk_lease_rec *r, bool with_existed);

#endif
