/* SPDX-License-Identifier: GPL-2.0 */
/*
 * n-tuple rules nkctl adds (nicrule.c), by steer add and lease ... steer
 * alike, in one crash-safe order: the rule is recorded as pending (saved)
 * before the ioctl that adds it, and as nkctl's (saved) after; a kill in
 * between leaves a pending rule that the next command on the NIC finds and
 * removes (nk_nic_resolve_pending). A rule is deleted only while the driver
 * still has there the rule nkctl recorded: that delete is the lease unit's
 * (lease/nicside.c), which says what is nkctl's.
 */
#ifndef NKCTL_NICRULE_H
#define NKCTL_NICRULE_H

#include "nic/nicstate.h"
#include "out.h"

/* The step of nk_nic_rule_add that failed. */
enum nk_rule_step {
	NK_RULE_PENDING,        /* recording it as pending: nothing was changed */
	NK_RULE_ADD,            /* the ioctl: the pending record stays */
	NK_RULE_RECORD,         /* recording it as nkctl's: the rule is there */
};

/* Add rule r to NIC ifname (fd: an ioctl socket in its namespace) with st,
 * its state read under its lock: pending, ioctl (r->id becomes the
 * location the driver gave it), recorded (in lease l too, if not NULL) in
 * the save that forgets the rule *replaces stands for (nic restore's: the
 * driver lost it; NULL: none). 0, or -errno with *failed the step. */
int nk_nic_rule_add(struct nk_nic_state *st, int fd, const char *ifname, struct nk_ntuple *r,
		    struct nk_nic_lease *l, const uint32_t *replaces, enum nk_rule_step *failed);

/* steer add, under the NIC's lock: what a killed nkctl left settled, then
 * rule r added as above. 0, or the exit code after the error. */
int nk_nic_steer_add(struct nk_ns *ns, const struct nk_link *l, int fd, struct nk_ntuple *r);
/* steer del, under the NIC's lock, after the rule is gone: forget it. */
int nk_nic_steer_forget(struct nk_ns *ns, const struct nk_link *l, uint32_t id);

/* The driver's refusal of n-tuple rules to what (a command) on dev, in one
 * line; -ret is the errno. The exit code. */
int nk_nic_ntuple_error(int ret, const char *dev, const char *what);
/* Print a rule as steer show and nic show do; lost: nkctl's record of a rule
 * the driver no longer has (nic restore adds it again). */
void nk_print_rule(struct out *o, const struct nk_ntuple *r, bool ours, bool lost);

#endif
