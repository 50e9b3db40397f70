/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nkctl doctor's own header: what it knows of one pod, and the check
 * families (doctor.c: the command, kernel, device, MTU and forwarding;
 * doctorpod.c: gathering a pod; doctornic.c: leases, the NIC side and
 * bindings; doctorpath.c: redirects).
 */
#ifndef NKCTL_DOCTOR_H
#define NKCTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "bindings.h"
#include "leases.h"
#include "nicsvc.h"
#include "nkctl.h"
#include "routesvc.h"
#include "rtnl.h"

enum dr_status { DR_OK, DR_WARN, DR_FAIL, DR_SKIP };

/* The counts behind the exit status and the summary. */
struct dr_report {
	struct nk_ctx *ctx;
	size_t fails, warns;
};

#define DR_FIX_LEN 8192  /* room for three quoted namespace names */

/* Print one check: status, name, detail and, for warn and fail, the command
 * that fixes it (NULL: none exists, said in the detail). */
void dr_check(struct dr_report *r, const char *name, enum dr_status st, const char *fix,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A namespace's name as one shell word (at worst four bytes a byte, quoted)
 * in "-n NAME ", and in "ip -n NAME " or "nsenter --net=PATH ip ". */
#define DR_NS_WORD_LEN (4 * NK_NS_SPEC + 3)
#define DR_NS_ARG_LEN (DR_NS_WORD_LEN + 8)
#define DR_IP_LEN (DR_NS_WORD_LEN + 32)

/* w as one shell word, safe to paste whatever it holds: as it is when no
 * shell gives any of its characters a meaning, else in single quotes. */
const char *dr_shell_word(const char *w, char *buf, size_t len);
/* "-n NAME " for a command run in ns, or "" for the command's own. */
const char *dr_ns_arg(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len);
/* How a command run elsewhere names ns (phys-netns); NULL when it cannot. */
const char *dr_ns_word(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len);
/* "ip " or "ip -n NAME " for ns (nsenter for a namespace named by a path). */
const char *dr_ip(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len);
/* An address as text. */
const char *dr_addr_str(const struct nk_addr *a, char *buf, size_t len);

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

/* doctornic.c */
void dr_check_leases(struct dr_report *r, struct dr_pod *p);
void dr_check_nic_side(struct dr_report *r, struct dr_pod *p);
void dr_check_bindings(struct dr_report *r, struct dr_pod *p);
/* doctorpath.c */
void dr_check_egress(struct dr_report *r, struct dr_pod *p);
void dr_check_ingress(struct dr_report *r, struct dr_pod *p);

#endif
