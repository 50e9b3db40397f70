/* SPDX-License-Identifier: GPL-2.0 */
/* lease (lease.c) and unlease (unlease.c): their parameter tables' rows;
 * what they ask and do is the lease unit's (lease/make.h). */
#ifndef NKCTL_LEASE_H
#define NKCTL_LEASE_H

#include <stddef.h>

#include "core/cmd.h"
#include "lease/make.h"

/* A row of lease's or unlease's parameter table. */
#define NK_LEASE_PARAM(kw, type, field, meta, req) \
	{ kw, type, offsetof(struct lease_args, field), meta, 0, 0, NULL, req, NULL }

#endif
