/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one judgement of a lease's fate (fate.c): from one look at a NIC (its
 * link state and its RX queue dump, with each lease's holder as ifindex
 * together with its namespace), whether a NIC record's lease or an AF_XDP
 * slot is live, ended or unknown. Ended only when the kernel
 * positively says so: the NIC was seen (up, dumped) and shows no such lease.
 * A NIC that is down (the dump leaves it out; the kernel ends no lease on
 * down), gone, unreadable or out of reach, and a lease whose namespace
 * cannot be told (one being deleted reads netns-id -1 while the kernel still
 * holds its lease), is unknown: whatever it concerns is kept, never undone
 * on a guess. Pure: the reading is look.c's; unit tests cover every case.
 */
#ifndef NKCTL_LEASE_FATE_H
#define NKCTL_LEASE_FATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum nk_fate { NK_FATE_LIVE, NK_FATE_ENDED, NK_FATE_UNKNOWN };

/* How one NIC could be looked at. */
enum nk_look {
	NK_LOOK_SEEN,          /* up, its queues dumped */
	NK_LOOK_DOWN,          /* the dump leaves a down device out */
	NK_LOOK_GONE,          /* no device at that ifindex */
	NK_LOOK_UNREADABLE,    /* the dump failed, or showed no queue of it */
	NK_LOOK_UNREACHABLE,   /* its namespace cannot be entered */
};

/* A namespace by identity (its nsfs inode), when it can be told. */
struct nk_ns_id {
	bool known;
	dev_t dev;
	ino_t ino;
};

/* A holder: its ifindex together with its namespace, never ifindex alone. */
struct nk_holder_id {
	struct nk_ns_id ns;
	int ifindex;
};

/* One RX queue of the NIC as the dump showed it. */
struct nk_seen_queue {
	bool present;            /* the dump has this RX queue id */
	bool leased;
	bool ns_going;           /* leased to a namespace being deleted (netns-id -1) */
	struct nk_holder_id holder;   /* leased: to whom (ns.known false: cannot be told) */
	unsigned int mp;         /* QUEUE_HAVE_DMABUF|IO_URING|XSK on it */
};

/* One NIC, looked at once for all the records that concern it. */
struct nk_nic_seen {
	enum nk_look look;
	bool known;              /* look == NK_LOOK_SEEN */
	const char *why;         /* not known: "is down", "is gone", ... */
	int ifindex;
	uint32_t nq;             /* room in q: the largest RX queue id + 1 */
	struct nk_seen_queue *q; /* by RX queue id */
};

/* "is down", "is gone", ...: why a NIC could not be seen; NULL when seen. */
const char *nk_look_why(enum nk_look look);
/* The look in one word, for JSON: "seen", "down", "gone", "unreadable",
 * "unreachable". */
const char *nk_look_word(enum nk_look look);

/* RX queue id as seen, or NULL when the NIC shows no such queue. */
const struct nk_seen_queue *nk_seen_queue(const struct nk_nic_seen *s, uint32_t id);

/* A NIC record's lease of queues ids[0..n): live when the kernel shows a
 * lease on any of them (the record's holder may have been moved since:
 * the lease outlives a move); unknown when the NIC was not seen or a lease
 * there cannot be told (namespace going); ended when seen and none of them
 * is leased (a queue the NIC no longer has holds none: the kernel refuses to
 * remove a leased queue). */
enum nk_fate nk_fate_of_queues(const struct nk_nic_seen *s, const uint32_t *ids, size_t n);

/* What goes to holder h on NIC queue id (an AF_XDP slot): live when the
 * kernel shows the queue leased to exactly h (ifindex and namespace); ended
 * when the NIC was seen and the queue is not leased, or leased to another
 * holder whose namespace is known (h was deleted and the queue leased
 * again; a namespace is known when nkctl reaches it, so h's, unknown, is
 * another); unknown otherwise. */
enum nk_fate nk_fate_of_slot(const struct nk_nic_seen *s, uint32_t id,
			     const struct nk_holder_id *h);

/* A lease the kernel showed before, of NIC queue id to holder h, that a
 * later dump leaves out (monitor, redirect prune's AF_XDP sweep): ended
 * when the NIC is gone (the kernel deleted its single holders with it, and
 * its programs), else as nk_fate_of_slot says. */
enum nk_fate nk_fate_of_lease_was(const struct nk_nic_seen *s, uint32_t id,
				  const struct nk_holder_id *h);

/* Two fates as one: live when either is, else unknown when either is, else
 * ended (a set is ended only when every one of it is). */
enum nk_fate nk_fate_join(enum nk_fate a, enum nk_fate b);

#endif
