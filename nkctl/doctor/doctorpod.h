/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What nkctl doctor knows of one pod (doctorpod.c gathers it), read by every
 * check family.
 */
#ifndef NKCTL_DOCTORPOD_H
#define NKCTL_DOCTORPOD_H

#include <stdbool.h>
#include <stddef.h>

#include "bind/bindings.h"
#include "doctor/doctorreport.h"
#include "lease/scan.h"
#include "nic/nicjob.h"
#include "redirect/routesvc.h"
#include "rtnl.h"

#define DR_MAX_NICS 8

/* A NIC the pod uses: one of its leases', or its egress redirect's target. */
struct dr_nic {
	struct nk_ns *ns;
	struct nk_link link;
	bool found;                  /* the device exists */
	struct nk_nic_view *view;    /* NULL: not readable */
};

/* Everything doctor knows of one pod: a netkit primary here, its peer in
 * the pod's namespace. */
struct dr_pod {
	struct nk_ctx *ctx;
	struct nk_ns *here;
	struct nk_link primary;
	bool have_peer;
	struct nk_link peer;
	struct nk_ns *pod_ns;            /* the peer's namespace; NULL: out of reach */
	struct nk_link_list pod_links;   /* the devices of pod_ns */
	struct nk_addr_list addrs;       /* the peer's global addresses */
	struct nk_lease_list leases;     /* held by the peer or a single device in pod_ns */
	struct nk_binding_list bindings; /* nkctl's RX bindings in pod_ns */
	struct dr_nic nics[DR_MAX_NICS];
	size_t nnics;
	struct nk_redirect_table egress; /* the primary's tcx-ingress or netkit-primary table */
	int egress_ret;                  /* 0, -ENOENT (none) or -errno */
	bool egress_ok, ingress_ok;      /* for forwarding */
	bool redirects_unknown;          /* a redirect check could not tell */
	char redirect_fix[DR_FIX_LEN];   /* the first redirect fix, for forwarding */
};

/* doctorpod.c: fill in p (ctx and primary set) from the lease table and
 * the bindings' state files of the whole command; free what it holds. */
void dr_pod_gather(struct dr_pod *p, const struct nk_lease_list *leases,
		   const struct nk_binding_list *bst);
void dr_pod_free(struct dr_pod *p);
/* Is device ifindex of the pod's namespace the pod's: its peer, or (in a
 * namespace of its own) a single netkit device there or one that is gone. */
bool dr_pod_device(const struct dr_pod *p, int ifindex);
/* A single netkit device (a lease holder, not a pod). */
bool dr_is_single(const struct nk_link *l);
/* The NIC (ns, ifindex) among the pod's, or NULL. */
struct dr_nic *dr_nic_of(struct dr_pod *p, const struct nk_ns *ns, int ifindex);
/* The NIC the pod's traffic uses: its first lease's, else the egress
 * redirect's target; NULL when neither. */
struct dr_nic *dr_pod_nic(struct dr_pod *p);
/* Is (ifindex, queue) of pod_ns bound by a live nkctl binding, or does the
 * lease show a memory provider? */
bool dr_lease_bound(const struct dr_pod *p, const struct nk_lease_rec *r);

int dr_sysctl(const char *path);
/* Does the host forward every family the pod has addresses of? */
bool dr_host_forwards(const struct dr_pod *p);

#endif
