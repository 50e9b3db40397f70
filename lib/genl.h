/* SPDX-License-Identifier: GPL-2.0 */
/* Generic netlink: family resolution, the op table, policy probing. */
#ifndef NKCTL_GENL_H
#define NKCTL_GENL_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

#define GENL_MAX_OPS 64
#define GENL_MAX_MCAST 8
#define GENL_NAMSIZ 16

/* A multicast group of a family (CTRL_ATTR_MCAST_GROUPS). */
struct genl_mcast {
	char name[GENL_NAMSIZ];
	uint32_t id;
};

struct genl_family {
	bool resolved;
	bool present;           /* false: the kernel has no such family */
	uint16_t id;
	uint8_t version;
	uint32_t maxattr;
	uint32_t op_flags[GENL_MAX_OPS];  /* CTRL_ATTR_OP_FLAGS by command */
	bool op_present[GENL_MAX_OPS];
	struct genl_mcast mcast[GENL_MAX_MCAST];
	size_t nmcast;
};

/* Resolve name once over a NETLINK_GENERIC socket. A missing family is not
 * an error: fam->present is false. */
int genl_resolve(struct nl_sock *s, const char *name, struct genl_family *fam,
		 struct nl_err *err);
bool genl_has_op(const struct genl_family *fam, unsigned int cmd);
/* The id of fam's multicast group name, or 0 when it has none by that name. */
uint32_t genl_mcast_id(const struct genl_family *fam, const char *name);
/* Decode a CTRL_CMD_GETFAMILY reply (or CTRL_CMD_NEWFAMILY) into fam; -EPROTO
 * when it carries no family id. */
int genl_parse_family(const struct nlmsghdr *nlh, struct genl_family *fam);

/* Start a generic netlink request for cmd of fam. */
struct nlmsghdr *genl_msg(struct nl_sock *s, const struct genl_family *fam,
			  uint8_t cmd, uint16_t flags);

/*
 * Ask the kernel's policy for a command's do-request: does attribute attr
 * exist (nest_attr = 0), or, when nest_attr is given, does attribute attr
 * exist inside the nested policy of top-level attribute nest_attr?
 * *found is set; returns 0 or -errno (-EOPNOTSUPP: no policy dump).
 */
int genl_policy_has_attr(struct nl_sock *s, const char *family, uint8_t cmd,
			 uint16_t nest_attr, uint16_t attr, bool *found,
			 struct nl_err *err);

#endif
