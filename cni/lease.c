// SPDX-License-Identifier: GPL-2.0
/* The pod's queues of the pool: nkctl chooses them (`lease ... pool LIST
 * count N`) under its NIC lock, so parallel ADDs never take the same queue
 * and the plugin needs no lock of its own; an exhausted pool is exit 4. */
#include "lease.h"
#include "cni.h"
#include "nksession.h"

/* Lease per_pod free queues of the pool into the holder, steering dsts
 * (comma-separated, may be empty) to the first: 0 with nkctl's reply in
 * *doc (the caller's), or nkctl's exit status
 * with why (4: the pool is exhausted). */
int lease_from_pool(const struct plugin *p, struct nk_session *s, const char *dsts,
		    json_object **doc, char *why, size_t len)
{
	int ret;

	if (p->steer && *dsts)
		ret = nks_run(s, doc, "lease dev %s from %s pool %s count %u steer dst %s", p->holder,
			      p->nic, p->queues, p->per_pod, dsts);
	else
		ret = nks_run(s, doc, "lease dev %s from %s pool %s count %u", p->holder, p->nic,
			      p->queues, p->per_pod);
	if (ret == 4)
		snprintf(why, len, "the queue pool %s of %s is exhausted (%s)", p->queues, p->nic,
			 s->err);
	else if (ret)
		snprintf(why, len, "lease: %s", s->err);
	return ret;
}
