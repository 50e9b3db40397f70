/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NIC settings nkctl manages: the ethtool generic netlink family
 * (channels, rings, RSS indirection table) and the n-tuple flow steering
 * rules, which only the SIOCETHTOOL ioctl reaches (the kernel has no netlink
 * operation for them).
 */
#ifndef NKCTL_ETHTOOL_H
#define NKCTL_ETHTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "genl.h"
#include "nl.h"

/* Commands of the ethtool family (stable ABI, ethtool_netlink_generated.h). */
enum {
	NK_ETHTOOL_MSG_RINGS_GET = 15,
	NK_ETHTOOL_MSG_RINGS_SET = 16,
	NK_ETHTOOL_MSG_CHANNELS_GET = 17,
	NK_ETHTOOL_MSG_RSS_GET = 38,
	NK_ETHTOOL_MSG_RSS_SET = 48,
	NK_ETHTOOL_MSG_RSS_CREATE_ACT = 49,
	NK_ETHTOOL_MSG_RSS_DELETE_ACT = 50,
	NK_ETHTOOL_MSG_FEATURES_GET = 11,
};

/* A request for cmd (flags: NLM_F_ACK or NLM_F_DUMP) whose header nest
 * names ifindex. */
struct nlmsghdr *ethtool_request(struct nl_sock *s, const struct genl_family *fam,
				 uint8_t cmd, uint16_t flags, int ifindex);
/* The rss attribute set, for the extack paths of rss requests. */
extern const struct nl_attr_space ethtool_rss_space;

/* ETHTOOL_A_RINGS_TCP_DATA_SPLIT values. */
enum {
	NK_TCP_DATA_SPLIT_UNKNOWN = 0,
	NK_TCP_DATA_SPLIT_DISABLED = 1,
	NK_TCP_DATA_SPLIT_ENABLED = 2,
};

struct nk_rings {
	bool have_rx, have_rx_max, have_tcp_data_split, have_hds_thresh, have_hds_thresh_max;
	uint32_t rx, rx_max;
	uint32_t tcp_data_split;
	uint32_t hds_thresh, hds_thresh_max;
};

struct nk_channels {
	bool have;
	uint32_t rx, tx, other, combined;
	uint32_t rx_max, tx_max, combined_max;
};

/* The largest indirection table one netlink attribute can carry (its
 * length is 16 bits), so the largest any driver can report or take. */
#define NK_RSS_MAX_INDIR ((UINT16_MAX - 4) / 4)

struct nk_rss {
	uint32_t hfunc;
	uint32_t indir_size;     /* 0: the driver has no indirection table */
	uint32_t indir[NK_RSS_MAX_INDIR];
	bool too_big;            /* the table is larger than NK_RSS_MAX_INDIR */
};

/* rings-get / channels-get / rss-get (context 0) of ifindex; fam is the
 * resolved "ethtool" family. 0 or -errno with err filled in. */
int ethtool_rings_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		      struct nk_rings *out, struct nl_err *err);
int ethtool_channels_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			 struct nk_channels *out, struct nl_err *err);
int ethtool_rss_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		    struct nk_rss *out, struct nl_err *err);
/* rings-set of tcp-data-split and hds-thresh (each only when have_*). */
int ethtool_rings_set_split(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			    const struct nk_rings *want, struct nl_err *err);
/* rss-set of the indirection table; n == 0 resets it to the driver's
 * default spread (and clears "configured by the user"). */
int ethtool_rss_set_indir(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			  const uint32_t *indir, uint32_t n, struct nl_err *err);

/* The reply decoders, also for the fuzzer: 0, or -EPROTO when the message
 * is not one. */
int ethtool_parse_rings(const struct nlmsghdr *nlh, struct nk_rings *r);
int ethtool_parse_channels(const struct nlmsghdr *nlh, struct nk_channels *c);
int ethtool_parse_rss(const struct nlmsghdr *nlh, struct nk_rss *r);

const char *nk_tcp_data_split_name(uint32_t v);
/* The channel count that RX queues come from: combined + rx. */
uint32_t nk_channels_rx(const struct nk_channels *c);
/* The default spread the kernel uses: entry i -> queue i % nqueues. */
bool nk_rss_is_default(const struct nk_rss *r, uint32_t nqueues);
/* Does queue q receive hashed traffic (appear in the table)? */
bool nk_rss_uses(const struct nk_rss *r, uint32_t q);

/* ---- n-tuple flow steering rules (SIOCETHTOOL) ---- */

enum nk_flow_type {
	NK_FLOW_TCP4 = 1, NK_FLOW_UDP4 = 2, NK_FLOW_TCP6 = 5, NK_FLOW_UDP6 = 6,
	NK_FLOW_IP4 = 0x0d, NK_FLOW_IP6 = 0x0e,
};
/* flow-type words: tcp4 udp4 ip4 tcp6 udp6 ip6. */
extern const struct nk_choice nk_flow_type_words[];
bool nk_flow_is_v6(uint32_t flow_type);
bool nk_flow_has_ports(uint32_t flow_type);

#define NK_RULE_ACTION_DROP UINT64_MAX  /* RX_CLS_FLOW_DISC */

struct nk_ntuple {
	uint32_t id;                 /* the rule's location */
	uint32_t flow_type;          /* NK_FLOW_*; unknown types kept as read */
	bool have_src, have_dst, have_sport, have_dport;
	uint8_t src[16], dst[16];    /* IPv4 in the first 4 bytes */
	uint16_t sport, dport;       /* host order */
	uint64_t action;             /* the queue, or NK_RULE_ACTION_DROP */
	uint32_t rss_context;        /* 0, or the RSS context (action: a queue offset in it) */
	bool other_fields;           /* masks nkctl does not show (tos, vlan, ...) */
};

struct nk_ntuple_list {
	struct nk_ntuple *v;
	size_t n, cap;
	uint32_t table_size;
	/* RX_CLS_LOC_SPECIAL: the driver chooses a location for
	 * RX_CLS_LOC_ANY (bnxt, fbnic); without it (mlx5, gve) the caller must
	 * name a free one. */
	bool driver_picks;
};

/* A socket for the ioctls, in the namespace whose NIC it addresses. Every
 * call returns 0 or -errno (-EOPNOTSUPP: the driver has no n-tuple rules). */
int ethtool_rx_rings(int fd, const char *ifname, uint32_t *n);
/* The driver's name (ETHTOOL_GDRVINFO), "" on an error. */
int ethtool_driver_name(int fd, const char *ifname, char *buf, size_t len);
int ethtool_ntuple_list(int fd, const char *ifname, struct nk_ntuple_list *out);
/* Insert r and set r->id to where it went: at RX_CLS_LOC_ANY when the
 * driver chooses, else at the lowest location of the driver's table that holds
 * no rule (as ethtool(8) does). Call under nkctl's NIC lock: the table is read
 * first, so nkctl's own inserts cannot race; -ENOSPC when the table is full. */
int ethtool_ntuple_add(int fd, const char *ifname, struct nk_ntuple *r);
/* The lowest location below l->table_size that no rule of l holds, or
 * -ENOSPC. */
int nk_ntuple_free_loc(const struct nk_ntuple_list *l, uint32_t *loc);
int ethtool_ntuple_del(int fd, const char *ifname, uint32_t id);
/* The rule at location id alone (one GRXCLSRULE, not the whole table);
 * -ENOENT or -EINVAL (by driver) when there is none. */
int ethtool_ntuple_get(int fd, const char *ifname, uint32_t id, struct nk_ntuple *r);
void nk_ntuple_list_free(struct nk_ntuple_list *l);
/* A struct ethtool_rx_flow_spec (as the kernel returns it, len bytes) into
 * r; the decoder the fuzzer drives. -EPROTO when it is too short. */
int ethtool_ntuple_decode(const void *fs, size_t len, struct nk_ntuple *r);

#endif
