/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A lease made (make.c): what lease and unlease are asked (struct
 * lease_args, filled by their parameter tables in cli/), the job both work
 * on, and what of a lease is a pure function.
 */
#ifndef NKCTL_LEASE_MAKE_H
#define NKCTL_LEASE_MAKE_H

#include <stddef.h>
#include <stdint.h>

#include "core/ctx.h"
#include "nic/nicjob.h"

/* pool LIST [count N]: the lowest want RX queues of the ascending
 * pool[0..npool) that the NIC read in nic shows with no lease and no memory
 * provider, appended to ids[*n]; none when fewer are free. How many are free. */
size_t lease_pool_pick(const struct nic_job *nic, const uint32_t *pool, size_t npool,
		       size_t want, uint32_t *ids, size_t *n);

#define NK_LEASE_MAX_STEER 8

/* steer dst ADDR[,ADDR...]: the addresses whose traffic goes to the lease. */
struct steer_list {
	size_t n;
	uint8_t addr[NK_LEASE_MAX_STEER][16];
	bool v6[NK_LEASE_MAX_STEER];
};

struct lease_args {
	const char *dev, *from, *phys_netns, *queue, *pool;
	const char *dev_netns;            /* unlease dev: the holder's namespace */
	const char *holders;              /* unlease from: the holders expected */
	uint32_t count;
	uint32_t wait;                    /* unlease: seconds for providers to go */
	bool force, reserve;
	struct steer_list steer;
};

/* What one command works on: the netkit device here, the NIC maybe
 * elsewhere, read once as the NIC job (its namespace, link and queues). */
struct lease_job {
	struct nic_job *nic;
	struct nk_link nk;
	uint32_t ids[NK_MAX_QUEUES];
	uint32_t nk_ids[NK_MAX_QUEUES];   /* netkit queue per leased id */
	bool existed[NK_MAX_QUEUES];
	size_t n;
	uint32_t pool[NK_MAX_QUEUES];     /* pool LIST: the queues to choose from */
	size_t npool;
	size_t made;                      /* leases this command made */
	int32_t here_in_phys;             /* our netns as the NIC's netns names it */
};

/* Open the NIC's namespace, get the NIC and dump its queues: the NIC job,
 * which the NIC side of the lease loads in full. need_up: a down NIC (no
 * queues shown) is an error. */
int lease_load_nic(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a,
		   bool need_up);
/* The memory provider on q in words, NULL when none. */
const char *lease_mp_name(const struct nk_queue *q, char *buf, size_t len);

/* Make the leases a asks of j (its queue or pool list parsed): the NIC
 * locked, read and checked, the NIC side, the leases, the rules; j->nic is
 * left for the caller to print from and free. 0, or the exit code after the
 * error. (The AF_XDP sweep that follows a lease is xsk's, above this unit:
 * the command runs it.) */
int nk_lease_make(struct nk_ctx *ctx, struct lease_job *j, const struct lease_args *a);

#endif
