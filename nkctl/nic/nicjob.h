/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NIC job (nicjob.c): what one command knows of one NIC, read under the
 * per-NIC lock, and the read-only views of show leases and doctor. The
 * services that change a NIC work on a job, each in its file:
 *
 *   nicreserve.h  the reservation: queues out of RSS, header split, the
 *                 NIC's own settings recorded first and put back last
 *   nicrule.h     the n-tuple rule protocol (pending -> ioctl -> record)
 *
 * What of a NIC a lease brings, judges and undoes is the lease unit's
 * (lease/nicside.h, lease/rssctx.h, lease/sweep.h, lease/restore.h).
 * The state record itself is nicstate.h. Every change is decided and made
 * under the lock, on what was read after taking it; the state is written
 * before the NIC is changed, so a command killed half-way is finished or
 * undone by the next one.
 */
#ifndef NKCTL_NICJOB_H
#define NKCTL_NICJOB_H

#include "netdev.h"
#include "nic/nicstate.h"

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
	bool have_queues;                   /* queues read (nk_nic_job_queues) */
	struct nk_ntuple_list rules;
	int rules_ret;
	bool no_rules;                      /* load and reread leave rules unread (the sweep) */
	bool lock_if_free;                  /* lock: no wait, -EBUSY when another holds it (reported to the sink in place) */
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
/* Read the queues of the job's NIC (j->link known) into j->queues with gn
 * (its namespace's netdev family fam), once: a later load keeps them. 0 or
 * -errno (err says why). */
int nk_nic_job_queues(struct nic_job *j, struct nl_sock *gn, const struct genl_family *fam,
		      struct nl_err *err);
/* Read the device (dev by name, or known), its settings, queues (unless
 * read already), rules and state; under the lock, also finish what a
 * killed nkctl left. 0 or the exit code after the error. */
int nk_nic_job_load(struct nk_ctx *ctx, const char *dev, const struct nk_link *known,
		    struct nic_job *j);
/* Read back the settings and rules after a change, for printing. */
void nk_nic_job_reread(struct nic_job *j);
/* Write the job's state (j->st.exists says whether it is written): 0, or
 * the exit code after the error ("nothing was changed"). */
int nk_nic_job_save(struct nic_job *j);

/* RX queue id of the job's NIC as read, or NULL. */
const struct nk_queue *nk_nic_rx_queue(const struct nic_job *j, uint32_t id);
/* The NIC's RX queues by its channels (else its netdev's count). */
uint32_t nk_nic_rx_count(const struct nic_job *j);

/* What show leases adds from the NIC's side of the lease of one queue. */
#define NK_LEASE_NIC_RULES 16
struct nk_lease_nic {
	bool reserved;             /* in nkctl's reserved set */
	bool have_rss, rss;        /* the queue is in the indirection table */
	struct nk_ntuple rules[NK_LEASE_NIC_RULES];  /* recorded with the lease */
	size_t nrules;
};
/* A key (a queue, a rule id) and where it came from. */
struct nk_nic_key_at {
	uint32_t key, at;
};
/* What a table of leases read of their NICs: each NIC's settings, rules
 * and record read once for all its leases (not once a lease: 100 leases
 * of one NIC with a rule each were 10,000 rule reads). Zeroed to start. */
struct nk_nic_reader {
	struct nic_job *j;
	const struct nk_ns *ns;
	int ifindex;
	bool ok;
	/* Sorted once a NIC, looked up per lease (each scan of all was
	 * quadratic in the leases: half of show leases' instructions at
	 * 250): the reserved queues, the indirection table's queues, each
	 * record's leased queues (at: the record) and the rules' ids (at:
	 * the rule). */
	struct nk_nic_key_at *reserved, *rss, *leased, *rules;
	size_t nreserved, nrss, nleased, nrules;
};
void nk_nic_reader_free(struct nk_nic_reader *rd);
/* The NIC side of the lease of queue q of NIC ifindex in ns; false when
 * there is nothing to say. Read without the lock, through rd. */
bool nk_nic_lease_info(struct nk_ctx *ctx, struct nk_nic_reader *rd, struct nk_ns *ns,
		       int ifindex, uint32_t q, struct nk_lease_nic *out);

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
