/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NIC-side service (nicsvc.c) that nic, lease, unlease, steer, show
 * leases and doctor share: one NIC read under the per-NIC lock (a job), its
 * reservation taken and given back, the record of what each lease brought,
 * and the sweep that undoes what ended leases left. The state record itself
 * is nicstate.c (nic.h).
 *
 * Every change is decided and made under the lock, on what was read after
 * taking it; the state is written before the NIC is changed, so a command
 * killed half-way is finished or undone by the next one.
 */
#ifndef NKCTL_NICSVC_H
#define NKCTL_NICSVC_H

#include "netdev.h"
#include "nic.h"

/* What one command knows of one NIC. */
struct nic_job {
	struct nk_ns *ns;
	struct nk_link link;
	struct nl_sock *et;
	const struct genl_family *fam;
	struct nk_channels ch;
	struct nk_rings rings;
	struct nk_rss rss;
	int ch_ret, rings_ret, rss_ret;     /* 0 or -errno of each read */
	struct nk_queue_list queues;
	struct nk_ntuple_list rules;
	int rules_ret;
	struct nk_nic_state st;
	uint32_t ids[NK_MAX_QUEUES];        /* the queues the command is about */
	size_t n;
	bool new_record;                    /* the lease's record is this command's */
	struct nk_ctx *locked;              /* NULL: not locked */
	char lock_key[NK_NIC_KEY_MAX];      /* the NIC lock held */
};

/* A job: no namespace yet (load takes the command's), not locked, nothing
 * read; NULL after the error is printed. */
struct nic_job *nk_nic_job_new(void);
void nk_nic_job_free(struct nic_job *j);
/* The lock of one NIC's nkctl state (its key, nk_nic_key), held by the
 * command until as many nk_nic_unhold as nk_nic_hold: a command deciding on
 * several steps (lease ... pool) holds it across them, and the jobs it opens
 * meanwhile share it. Locks of several NICs are taken in the order of their
 * keys (one out of order is only tried: exit 4 when busy). 0, or the exit
 * code after the error. */
int nk_nic_hold(struct nk_ctx *ctx, const char *key);
void nk_nic_unhold(struct nk_ctx *ctx, const char *key);
/* nk_nic_hold of NIC nic of ns; its key into key[len] for the unhold. */
int nk_nic_hold_link(struct nk_ctx *ctx, const struct nk_ns *ns, const struct nk_link *nic,
		     char *key, size_t len);
/* Hold the lock of the job's NIC (j->link, in j->ns or the command's
 * namespace) until the job is freed. */
int nk_nic_job_lock(struct nk_ctx *ctx, struct nic_job *j);
/* Read the device (dev by name, or known), its settings, queues, rules and
 * state; under the lock, also finish what a killed nkctl left. 0 or the exit
 * code after the error. */
int nk_nic_job_load(struct nk_ctx *ctx, const char *dev, const struct nk_link *known,
		    struct nic_job *j);
/* Read back the settings and rules after a change, for printing. */
void nk_nic_job_reread(struct nic_job *j);

const struct nk_queue *nk_nic_rx_queue(const struct nic_job *j, uint32_t id);
uint32_t nk_nic_rx_count(const struct nic_job *j);

/* What reserve, release and lease ... reserve need of the driver and of the
 * queues j->ids, said before any change (cmd names the command). */
int nk_nic_need_rss(const struct nic_job *j, const char *cmd);
int nk_nic_check_reserve(const struct nic_job *j);
/* Add ids to the reserved set (kept ascending). */
void reserve_add(struct nk_nic_state *st, const uint32_t *ids, size_t n);
/* The table for the reserved set into indir (room for j->rss.indir_size):
 * the saved table, or the NIC's, minimally edited; 0 or the exit code. */
int minimal_table(const struct nic_job *j, uint32_t *indir);
/* Reserve j->ids: state first, then the NIC. */
int nk_nic_reserve(struct nic_job *j);
/* Release j->ids (none: everything, with nkctl's rules and lease records);
 * the last queue puts the NIC's own settings back. */
int nk_nic_release(struct nic_job *j);

/* A lease without a NIC side of queues, under the NIC's lock (the lease
 * holds it): a record of an ended lease on any of them is undone first, as
 * nk_nic_lease_prepare does, so its rules never steer into the new lease. */
int nk_nic_undo_ended(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *nic,
		      const uint32_t *queues, size_t n);
/*
 * lease ... reserve|steer, in this order under the lock: prepare (read the
 * NIC, check that it can reserve queues and, with rules, hold n-tuple rules;
 * nothing changed yet); reserve (record the lease, take its queues out of
 * RSS) before the lease is made, so hashed traffic never lands on a leased
 * queue; then the lease, and rollback if it failed; then steer (add and
 * record each rule). A kill in between leaves a record whose queues the
 * kernel shows no lease on: the next sweep undoes it.
 *
 * nk_nic_unlease_stale is that sweep: it undoes what each lease that has
 * ended brought, on every NIC with a state file (an unlease, one killed
 * half-way, a holder deleted or moved away with its namespace), deciding
 * under the lock.
 */
int nk_nic_lease_prepare(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *nic,
			 const uint32_t *queues, size_t n, bool rules, struct nic_job **out);
int nk_nic_lease_reserve(struct nic_job *j, const struct nk_ns *holder_ns,
			 const struct nk_link *holder);
int nk_nic_lease_rollback(struct nic_job *j);
int nk_nic_lease_steer(struct nic_job *j, struct nk_ntuple *rules, size_t nrules);
int nk_nic_unlease_stale(struct nk_ctx *ctx);
/* For "unlease dev NAME" when hns has no NAME: if a live lease's record names
 * it (recorded in hns), wait up to NK_NIC_GONE_WAIT_TICKS tenths of a second
 * for its namespace's deletion to end the lease, undoing what ended. */
#define NK_NIC_GONE_WAIT_TICKS 300
int nk_nic_unlease_gone(struct nk_ctx *ctx, const struct nk_ns *hns, const char *holder);

/* What show leases adds from the NIC's side of the lease of one queue. */
#define NK_LEASE_NIC_RULES 16
struct nk_lease_nic {
	bool reserved;             /* in nkctl's reserved set */
	bool have_rss, rss;        /* the queue is in the indirection table */
	struct nk_ntuple rules[NK_LEASE_NIC_RULES];  /* recorded with the lease */
	size_t nrules;
};
/* The NIC side of the lease of queue q of NIC ifindex in ns; false when
 * there is nothing to say. Read without the lock. */
bool nk_nic_lease_info(struct nk_ctx *ctx, struct nk_ns *ns, int ifindex, uint32_t q,
		       struct nk_lease_nic *out);

/* What doctor reads of a NIC: header split, the RSS table, the n-tuple
 * rules and nkctl's state of it; read without the lock. */
struct nk_nic_view {
	struct nk_rings rings;
	int rings_ret;               /* 0 or -errno of each read */
	struct nk_rss rss;
	int rss_ret;                 /* -EOPNOTSUPP: no rss-get; -E2BIG: too big */
	struct nk_ntuple_list rules;
	int rules_ret;               /* -EOPNOTSUPP: the driver has no n-tuple rules */
	struct nk_nic_state st;
};
/* 0, or the exit code after the error is printed. */
int nk_nic_view_read(struct nk_ctx *ctx, struct nk_ns *ns, const struct nk_link *nic,
		     struct nk_nic_view **out);
void nk_nic_view_free(struct nk_nic_view *v);

#endif
