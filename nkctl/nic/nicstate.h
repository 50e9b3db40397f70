/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NIC state record (nicstate.c): what nkctl changed on one NIC (queues
 * reserved out of RSS, header split, n-tuple rules, what each lease brought)
 * and the NIC's own settings, so that nkctl puts it back exactly as it found
 * it. The services that change NICs under this record are nicjob.h's.
 *
 * One state file per NIC, NK_NIC_STATE_DIR/<key>, written atomically
 * (temporary file, fsync, rename) before any change, so that a command
 * killed half-way is finished or undone by running it again, or by release.
 * The key is what the NIC is (nk_nic_key): its bus device and port, which a
 * move to another namespace keeps, so the record follows the NIC; where it
 * was last seen (namespace, ifindex, name) is recorded and updated. Files of
 * the first format, <netns-dev>-<netns-ino>-<ifindex>, are read and
 * rewritten under the key. Each NIC has its lock, NK_NIC_STATE_DIR/.lock-<key>,
 * never removed.
 */
#ifndef NKCTL_NICSTATE_H
#define NKCTL_NICSTATE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "args.h"
#include "core/cmd.h"
#include "core/ctx.h"
#include "ethtool.h"
#include "rtnl.h"

#define NK_NIC_RUN_DIR "/run/nkctl"
#define NK_NIC_STATE_DIR NK_NIC_RUN_DIR "/nic"
/* Queues in one lease with reserve or steer (more are refused). */
#define NK_NIC_LEASE_MAX 64

/* What one lease brought to the NIC (lease ... steer): the queues it
 * reserved and the rules it added. It is known by the NIC queues it leases
 * (the holder may move to another namespace, as a pod's does), and it has
 * ended when the kernel shows no lease on any of them. The holder's
 * namespace, ifindex and name are as they were at lease time. */
struct nk_nic_lease {
	dev_t ns_dev;
	ino_t ns_ino;
	int ifindex;
	char name[IF_NAMESIZE];
	uint32_t queues[NK_NIC_LEASE_MAX];
	size_t nqueues;
	uint32_t rules[NK_NIC_LEASE_MAX];
	size_t nrules;
	uint32_t leased[NK_NIC_LEASE_MAX];
	size_t nleased;
	uint32_t rss_context;      /* 0, or the RSS context its rules steer into */
};

struct nk_nic_state {
	bool exists;
	char key[NK_NIC_KEY_MAX];           /* the file's name */
	char legacy[NK_NIC_KEY_MAX];        /* a first-format file read for it: removed on save */
	/* where the NIC was last seen */
	dev_t ns_dev;
	ino_t ns_ino;
	int ifindex;
	char ifname[IF_NAMESIZE];
	/* who it is */
	char parent[32];                    /* bus device */
	char port[IF_NAMESIZE];             /* its port there */
	char perm[3 * 32];                  /* permanent address, "" when none */
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
	/* n-tuple rules nkctl added (steer add, lease ... steer), each with
	 * the spec it was added with (flow_type 0: a record from before specs
	 * were kept). A rule named in a lease's record is that lease's; the
	 * others are steer add's. Both arrays grow as the NIC's rule table and
	 * queue count allow (no cap of nkctl's own; nk_nic_state_free). */
	struct nk_ntuple *rules;
	size_t nrules, rules_cap;
	struct nk_nic_lease *leases;
	size_t nleases, leases_cap;
	bool nomem;                         /* a line was lost for memory: not saved */
	/* A rule being added: written before the ioctl, so that a rule the
	 * driver made but nkctl never recorded is found and removed later. */
	bool have_pending;
	struct nk_ntuple pending;
};

/*
 * The key of NIC nic of ns: "<bus>-<bus device>[-<port>]" (the port name, or
 * without one the permanent address, tells apart netdevs of one bus device),
 * or "perm-<permanent address>" for a NIC without a bus device; a device
 * with neither is known by where it is, "ns-<netns-dev>-<netns-ino>-<ifindex>",
 * and loses its record when moved.
 */
void nk_nic_key(const struct nk_ns *ns, const struct nk_link *nic, char *key, size_t len);
/* Serialise changes of one NIC: an exclusive lock on its key, held until *fd
 * is closed; without wait, -EWOULDBLOCK when another holds it. */
int nk_nic_lock(const char *key, bool wait, int *fd);
/* A state starts zeroed ({ 0 }, calloc); what read, parse and load put in
 * it is freed here, which leaves it zeroed again. */
void nk_nic_state_free(struct nk_nic_state *st);
/* The state file named name (a key, or a first-format name) as it is;
 * st->exists false when there is none. What st held is freed first. */
int nk_nic_state_read(const char *name, struct nk_nic_state *st);
/* The same but for its lists (reservation, RSS table, rules, leases):
 * where the NIC was and who it is; *leases tells whether it records any
 * lease. For a reader that looks at every record and needs the leases of
 * few (show leases' NICs that are down). */
int nk_nic_state_read_head(const char *name, struct nk_nic_state *st, bool *leases);
/* The lines of a state file from f into st (which the caller cleared;
 * first-format and older records too): 0 and st->exists, or -EBADMSG when
 * it does not start with the magic line. */
int nk_nic_state_parse(FILE *f, struct nk_nic_state *st);
/* As nk_nic_state_parse, its lists left out (nk_nic_state_read_head). */
int nk_nic_state_parse_head(FILE *f, struct nk_nic_state *st, bool *leases);
/* A state file's text for st, as nk_nic_state_save writes it. */
void nk_nic_state_format(FILE *f, const struct nk_nic_state *st);
/* The state of NIC nic of ns, by its key (or a first-format file at its
 * namespace and ifindex): -ESTALE when the file was recorded for another NIC
 * (another permanent address at the bus device; another name at the place of
 * a NIC known by its place; another bus device in a first-format file), which
 * is never adopted. Its namespace, ifindex and name are updated to nic's: a
 * NIC moved or renamed keeps its record. */
int nk_nic_state_load(const struct nk_ns *ns, const struct nk_link *nic,
		      struct nk_nic_state *st);
/* The error for a state file found for nic that is another NIC's (-ESTALE
 * from load): it names whose it is; the exit code. */
int nk_nic_state_stranger(const struct nk_nic_state *st, const struct nk_link *nic);
/* The state file's format, for the unit tests: one line into st; a
 * first-format file name into st's place. */
void parse_line(char *line, struct nk_nic_state *st);
bool legacy_parse(const char *name, struct nk_nic_state *st);
/* Is st the state of NIC nic of ns? */
bool nk_nic_state_is_of(const struct nk_nic_state *st, const struct nk_ns *ns,
			const struct nk_link *nic);
/* Write st atomically (creating the directories 0700, the file 0600). */
int nk_nic_state_save(const struct nk_nic_state *st);
/* Remove the state file. */
int nk_nic_state_drop(const struct nk_nic_state *st);
/* Save st, or remove its file when it records nothing any more. */
int nk_nic_state_store(const struct nk_nic_state *st);
bool nk_nic_state_reserved(const struct nk_nic_state *st, uint32_t q);
bool nk_nic_state_has_rule(const struct nk_nic_state *st, uint32_t id);
/* Record rule r (at r->id) as nkctl's; false when out of memory. */
bool nk_nic_state_add_rule(struct nk_nic_state *st, const struct nk_ntuple *r);
void nk_nic_state_forget_rule(struct nk_nic_state *st, uint32_t id);
/* (Whether the rule the driver has at a recorded id is still nkctl's is
 * the lease unit's: nk_mine_rule, lease/mine.h.) */

/* The record of the lease of NIC queue q, or NULL. */
struct nk_nic_lease *nk_nic_state_lease(struct nk_nic_state *st, uint32_t q);
/* The lease whose record names rule id, or NULL. */
struct nk_nic_lease *nk_nic_state_rule_lease(struct nk_nic_state *st, uint32_t id);
/* The record of a lease of the NIC queues ids[n] (the one already there, or a
 * new one: NULL when out of memory). A new one may move the others: pointers
 * to records are not kept across it. */
struct nk_nic_lease *nk_nic_state_lease_add(struct nk_nic_state *st, const uint32_t *ids,
					    size_t n);
void nk_nic_state_lease_drop(struct nk_nic_state *st, const struct nk_nic_lease *l);
/* Is q reserved by a lease record other than except? */
bool nk_nic_state_lease_holds(const struct nk_nic_state *st, const struct nk_nic_lease *except,
			      uint32_t q);

/* After a crash: remove the pending rule if the driver has it unrecorded,
 * then forget it (saved). 0 or -errno. */
int nk_nic_resolve_pending(int fd, const char *ifname, struct nk_nic_state *st);
/* Are a and b the same rule (every field but the id)? */
bool nk_ntuple_same(const struct nk_ntuple *a, const struct nk_ntuple *b);

#endif
