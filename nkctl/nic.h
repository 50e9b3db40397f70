/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NIC side of leases (nic.c, nicstate.c, steer.c): queues reserved out
 * of RSS, header split, n-tuple rules, and the state file that lets nkctl
 * put the NIC back exactly as it found it.
 *
 * One state file per NIC, NK_NIC_STATE_DIR/<netns-dev>-<netns-ino>-<ifindex>,
 * written atomically (temporary file, fsync, rename) before any change, so
 * that a command killed half-way is finished or undone by running it again,
 * or by release.
 */
#ifndef NKCTL_NIC_H
#define NKCTL_NIC_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "args.h"
#include "ethtool.h"
#include "nkctl.h"

#define NK_NIC_RUN_DIR "/run/nkctl"
#define NK_NIC_STATE_DIR NK_NIC_RUN_DIR "/nic"
#define NK_NIC_MAX_RULES 256

struct nk_nic_state {
	bool exists;
	dev_t ns_dev;
	ino_t ns_ino;
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t reserved[NK_MAX_QUEUES];   /* ascending */
	size_t nreserved;
	/* The NIC's own settings from before the first reservation, kept until
	 * they are restored. */
	bool saved;
	bool have_tds, have_hds;
	uint32_t tds, hds;
	bool rss_default;                   /* restore by resetting the table */
	uint32_t indir_size;
	uint32_t indir[NK_RSS_MAX_INDIR];
	/* n-tuple rules nkctl added (steer add, lease ... steer) */
	uint32_t rules[NK_NIC_MAX_RULES];
	size_t nrules;
};

/* Serialise NIC changes: an exclusive lock held until *fd is closed. */
int nk_nic_lock(int *fd);
/* The state of (ns, ifindex); st->exists false when there is none. */
int nk_nic_state_load(const struct nk_ns *ns, int ifindex, struct nk_nic_state *st);
/* Write st atomically (creating the directories 0700, the file 0600). */
int nk_nic_state_save(const struct nk_nic_state *st);
/* Remove the state file. */
int nk_nic_state_drop(const struct nk_nic_state *st);
bool nk_nic_state_reserved(const struct nk_nic_state *st, uint32_t q);
bool nk_nic_state_has_rule(const struct nk_nic_state *st, uint32_t id);
void nk_nic_state_forget_rule(struct nk_nic_state *st, uint32_t id);

/* Print a rule as steer show and nic show do. */
void nk_print_rule(struct out *o, const struct nk_ntuple *r, bool ours);

extern const struct nk_table nk_nic_table;
extern const struct nk_table nk_steer_table;

#endif
