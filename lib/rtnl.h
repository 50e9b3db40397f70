/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink: links (with netkit's IFLA_INFO_DATA decoded) and netns ids. */
#ifndef NKCTL_RTNL_H
#define NKCTL_RTNL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "nl.h"

/* Bits of nk_netkit.have / nk_link.have: which optional attributes came. */
enum {
	NKA_POLICY = 1 << 0,
	NKA_PEER_POLICY = 1 << 1,
	NKA_MODE = 1 << 2,
	NKA_SCRUB = 1 << 3,
	NKA_PEER_SCRUB = 1 << 4,
	NKA_HEADROOM = 1 << 5,
	NKA_TAILROOM = 1 << 6,
	NKA_PAIRING = 1 << 7,
	NKA_PRIMARY = 1 << 8,
};

struct nk_netkit {
	unsigned int have;
	bool primary;
	uint32_t policy, peer_policy, mode, scrub, peer_scrub, pairing;
	uint16_t headroom, tailroom;
};

enum {
	LINK_HAVE_MTU = 1 << 0,
	LINK_HAVE_NUM_RX = 1 << 1,
	LINK_HAVE_NUM_TX = 1 << 2,
	LINK_HAVE_LINK = 1 << 3,
	LINK_HAVE_LINK_NETNSID = 1 << 4,
	LINK_HAVE_OPERSTATE = 1 << 5,
	LINK_HAVE_XDP = 1 << 6,
	LINK_HAVE_GROUP = 1 << 8,
};

/* IFLA_STATS64: the counters ip -s link prints. */
struct nk_link_stats {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
	uint64_t rx_errors, tx_errors, rx_dropped, tx_dropped;
	uint64_t multicast, collisions, rx_over_errors, tx_carrier_errors;
	uint64_t rx_missed_errors, rx_nohandler;
};

/* A device's counters, kept apart from its struct nk_link: only -s prints
 * them, and a link table of a large namespace is pages touched. */
struct nk_link_counters {
	int ifindex;
	struct nk_link_stats s;
};

struct nk_link_counters_list {
	struct nk_link_counters *v;
	size_t n, cap;
};

struct nk_link {
	int ifindex;
	unsigned int have;
	unsigned int flags;      /* ifi_flags */
	uint16_t type;           /* ifi_type, ARPHRD_* */
	uint8_t operstate;
	uint8_t addr_len;
	uint32_t mtu, num_rx_queues, num_tx_queues;
	int32_t link;            /* IFLA_LINK: netkit/veth peer ifindex */
	int32_t link_netnsid;
	uint32_t group;          /* IFLA_GROUP: the device group, 0 the default (LINK_HAVE_GROUP) */
	char ifname[IF_NAMESIZE];
	char kind[16];           /* IFLA_INFO_KIND, "" when none */
	uint8_t addr[32];
	struct nk_netkit netkit; /* valid when kind is "netkit" */
	uint8_t xdp_attached;    /* IFLA_XDP_ATTACHED: XDP_ATTACHED_* (LINK_HAVE_XDP) */
	uint32_t xdp_prog_id;
	char parent[32];         /* IFLA_PARENT_DEV_NAME: the bus device, "" for virtual ones */
	char parent_bus[16];     /* IFLA_PARENT_DEV_BUS_NAME: its bus ("pci", "netdevsim") */
	char port_name[IF_NAMESIZE]; /* IFLA_PHYS_PORT_NAME ("p0"), "" when none */
	uint8_t perm_addr_len;   /* IFLA_PERM_ADDRESS, 0 when none (a random MAC) */
	uint8_t perm_addr[32];
};

struct nk_link_list {
	struct nk_link *v;
	size_t n, cap;
};

bool nk_link_is_netkit(const struct nk_link *l);
/* IFLA_LINK names another device (a netkit or veth peer, maybe in another
 * netns): not 0, and not the device itself as physical devices report. */
bool nk_link_has_peer(const struct nk_link *l);
/* Dump every link of the socket's netns, sorted by ifindex. */
int rtnl_link_dump(struct nl_sock *s, struct nk_link_list *out, struct nl_err *err);
/* The same dump, and the counters of each device that has them into
 * *stats (sorted by ifindex as well). */
int rtnl_link_dump_stats(struct nl_sock *s, struct nk_link_list *out,
			 struct nk_link_counters_list *stats, struct nl_err *err);
/* What the dump does with each message: an RTM_NEWLINK into a new last
 * element of *links (left out when too short), its counters into *stats
 * when stats is not NULL; -ENOMEM. */
int rtnl_link_collect(const struct nlmsghdr *nlh, struct nk_link_list *links,
		      struct nk_link_counters_list *stats);
/* The counters of ifindex, NULL when the dump gave none. */
const struct nk_link_stats *nk_link_stats_find(const struct nk_link_counters_list *l,
					       int ifindex);
/* By ifindex, as the dump leaves them (nk_link_stats_find relies on it). */
void nk_link_counters_sort(struct nk_link_counters_list *l);
void nk_link_counters_list_free(struct nk_link_counters_list *l);
/* Get one link by name (ifindex 0) or by ifindex (name NULL). */
int rtnl_link_get(struct nl_sock *s, const char *name, int ifindex,
		  struct nk_link *out, struct nl_err *err);
/* ifindex of the namespace the socket's names nsid (IFLA_TARGET_NETNSID):
 * a device of a namespace no name or process of ours reaches. */
int rtnl_link_get_nsid(struct nl_sock *s, int32_t nsid, int ifindex, struct nk_link *out,
		       struct nl_err *err);
/* By ifindex, the order of the dump (nk_link_find relies on it). */
void nk_link_list_sort(struct nk_link_list *l);
void nk_link_list_free(struct nk_link_list *l);
/* Decode one RTM_NEWLINK message (as the dump and get do) into *l; -EPROTO
 * when it is too short for its ifinfomsg. */
int rtnl_parse_link(const struct nlmsghdr *nlh, struct nk_link *l);

/* The id under which the socket's netns knows netns fd: *nsid = -1 when none
 * is assigned. */
int rtnl_nsid_get(struct nl_sock *s, int fd, int32_t *nsid, struct nl_err *err);
/* Assign an id to netns fd (the kernel picks it), then return it. */
int rtnl_nsid_assign(struct nl_sock *s, int fd, int32_t *nsid, struct nl_err *err);
const struct nk_link *nk_link_find(const struct nk_link_list *l, int ifindex);

/* One address of a device (RTM_GETADDR): IFA_LOCAL for IPv4, IFA_ADDRESS
 * for IPv6. */
struct nk_addr {
	int ifindex;
	uint8_t family;          /* AF_INET or AF_INET6 */
	uint8_t prefixlen;
	uint8_t scope;           /* RT_SCOPE_* */
	uint8_t addr[16];
};

struct nk_addr_list {
	struct nk_addr *v;
	size_t n, cap;
};

/* Dump every IPv4 and IPv6 address of the socket's netns. */
int rtnl_addr_dump(struct nl_sock *s, struct nk_addr_list *out, struct nl_err *err);
void nk_addr_list_free(struct nk_addr_list *l);
/* Decode one RTM_NEWADDR message; -EPROTO when it is not one. */
int rtnl_parse_addr(const struct nlmsghdr *nlh, struct nk_addr *a);

#endif
