/* SPDX-License-Identifier: GPL-2.0 */
/* lease and unlease (lease.c): what of the command is a pure function. */
#ifndef NKCTL_LEASE_H
#define NKCTL_LEASE_H

#include <stddef.h>
#include <stdint.h>

#include "nicjob.h"

/* pool LIST [count N]: the lowest want RX queues of the ascending
 * pool[0..npool) that the NIC read in nic shows with no lease and no memory
 * provider, appended to ids[*n]; none when fewer are free. How many are free. */
size_t lease_pool_pick(const struct nic_job *nic, const uint32_t *pool, size_t npool,
		       size_t want, uint32_t *ids, size_t *n);

#endif
