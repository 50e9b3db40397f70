/* SPDX-License-Identifier: GPL-2.0 */
/* Building netkit rtnetlink requests: create, change, delete. */
#ifndef NKCTL_NETKIT_H
#define NKCTL_NETKIT_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "nl.h"
#include "rtnl.h"

/* RTM_NEWLINK attribute names, netkit's nested ones included (extack paths). */
extern const struct nl_attr_space netkit_link_space;
/* One word table per netkit enum (args.h), for parsing and printing. */
extern const struct nk_choice netkit_policy_words[];
extern const struct nk_choice netkit_mode_words[];
extern const struct nk_choice netkit_scrub_words[];
extern const struct nk_choice netkit_pairing_words[];

/* What to create. Fields count only when their NKA_* / NKR_* bit is set. */
enum {
	NKR_MTU = 1 << 0,
	NKR_ADDRESS = 1 << 1,
	NKR_PEER_ADDRESS = 1 << 2,
	NKR_RXQ = 1 << 3,
	NKR_TXQ = 1 << 4,
};

struct netkit_req {
	const char *name;
	const char *peer_name;
	int netns_fd;            /* -1: the caller's netns */
	int peer_netns_fd;       /* -1: where name goes */
	unsigned int set;        /* NKR_* */
	uint32_t mtu, rxqueues, txqueues;
	uint8_t address[6], peer_address[6];
	struct nk_netkit attrs;  /* attrs.have: the NKA_* bits requested */
};

/* RTM_NEWLINK with NLM_F_CREATE|NLM_F_EXCL. */
int netkit_create(struct nl_sock *s, const struct netkit_req *r, struct nl_err *err);
/* RTM_NEWLINK on an existing device: only policy and peer-policy change. */
int netkit_change(struct nl_sock *s, int ifindex, const struct nk_netkit *attrs,
		  struct nl_err *err);
int rtnl_link_del(struct nl_sock *s, int ifindex, struct nl_err *err);
/* ip link set dev IFINDEX up. */
int rtnl_link_set_up(struct nl_sock *s, int ifindex, struct nl_err *err);
/* RTM_DELLINK of every device of group (not 0) in the socket's namespace,
 * as one unregistration: one wait for the kernel's grace periods for all. */
int rtnl_link_del_group(struct nl_sock *s, uint32_t group, struct nl_err *err);

/*
 * Compare what the kernel reports with what was asked for: kernels drop
 * attributes they do not know. Returns NULL when all match, else the name of
 * the first attribute that differs (and what came back in got).
 */
const char *netkit_mismatch(const struct netkit_req *r, const struct nk_link *l,
			    bool peer_side, char *got, size_t got_len);

#endif
