/* SPDX-License-Identifier: GPL-2.0 */
/* The lease table: every lease visible from the namespaces nkctl can reach. */
#ifndef NKCTL_LEASES_H
#define NKCTL_LEASES_H

#include <net/if.h>
#include <sys/types.h>

#include "nkctl.h"

#define NK_NS_SPEC 256

struct nk_lease_rec {
	/* the NIC side, where queue-get shows the lease */
	char nic_ns[NK_NS_SPEC];   /* "": the command's namespace */
	dev_t nic_dev;             /* which namespace that is */
	ino_t nic_ino;
	int nic_ifindex;
	char nic_ifname[IF_NAMESIZE];
	uint32_t nic_queue;
	/* the netkit side */
	bool nk_found;             /* its namespace was found among the reachable */
	dev_t nk_dev;              /* ... and which one it is */
	ino_t nk_ino;
	char nk_ns[NK_NS_SPEC];    /* "": the command's namespace */
	int nk_ifindex;
	char nk_ifname[IF_NAMESIZE];
	uint32_t nk_queue;
	/* memory provider on the NIC queue (QUEUE_HAVE_DMABUF|IO_URING|XSK) */
	unsigned int mp;
	uint32_t dmabuf;
	bool existed;              /* for lease's own output */
};

struct nk_lease_list {
	struct nk_lease_rec *v;
	size_t n, cap;
};

/* Scan the command's namespace, the initial one and those under /run/netns. */
int nk_lease_scan(struct nk_ctx *ctx, struct nk_lease_list *out);
void nk_lease_list_free(struct nk_lease_list *l);
/* The lease held by netkit queue (ifindex, queue) of the command's netns. */
const struct nk_lease_rec *nk_lease_of_netkit(const struct nk_lease_list *l, int ifindex,
					      uint32_t queue);
/* The lease of NIC queue (ifindex, queue) of the namespace of fd (-1: the
 * command's own). */
const struct nk_lease_rec *nk_lease_of_nic(const struct nk_lease_list *l, int fd,
					   int ifindex, uint32_t queue);
/* Does r's holder live in the namespace of fd (-1: the command's own)? */
bool nk_lease_held_in(const struct nk_lease_rec *r, int fd);
/* One lease object, as "lease", "show leases" and "unlease" print it. */
void nk_print_lease(struct out *o, const struct nk_lease_rec *r, bool with_existed);


#endif
