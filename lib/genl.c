// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "genl.h"

struct nlmsghdr *genl_msg(struct nl_sock *s, const struct genl_family *fam,
			  uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = nl_msg(s, fam->id, flags);
	struct genlmsghdr *g;

	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = fam->version;
	return nlh;
}

static const struct nl_attr_desc ctrl_attrs[] = {
	{ CTRL_ATTR_FAMILY_NAME, "family-name", NULL , 0 },
	{ CTRL_ATTR_OP, "op", NULL , 0 },
};
static const struct nl_attr_space ctrl_space = NL_SPACE(ctrl_attrs);

/* One CTRL_ATTR_MCAST_GRP_* nest; a group without name or id is skipped. */
static void family_mcast(struct genl_family *fam, const struct nlattr *grp)
{
	struct genl_mcast *m;
	struct nl_attrs g;

	nl_parse_nested(&g, grp, CTRL_ATTR_MCAST_GRP_ID);
	if (!g.tb[CTRL_ATTR_MCAST_GRP_NAME] || !g.tb[CTRL_ATTR_MCAST_GRP_ID] ||
	    fam->nmcast >= GENL_MAX_MCAST)
		return;
	m = &fam->mcast[fam->nmcast];
	nl_get_str(g.tb[CTRL_ATTR_MCAST_GRP_NAME], m->name, sizeof(m->name));
	m->id = (uint32_t)nl_get_uint(g.tb[CTRL_ATTR_MCAST_GRP_ID]);
	if (m->name[0] && m->id)
		fam->nmcast++;
}

uint32_t genl_mcast_id(const struct genl_family *fam, const char *name)
{
	for (size_t i = 0; i < fam->nmcast; i++)
		if (!strcmp(fam->mcast[i].name, name))
			return fam->mcast[i].id;
	return 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return genl_parse_family(nlh, data);
}

int genl_parse_family(const struct nlmsghdr *nlh, struct genl_family *fam)
{
	struct nl_attrs a, op;
	const struct nlattr *it;

	nl_parse_msg(&a, nlh, sizeof(struct genlmsghdr), CTRL_ATTR_MCAST_GROUPS);
	/* nl_get_uint reads only what the attribute holds; an id of 0 is none. */
	if (!a.tb[CTRL_ATTR_FAMILY_ID] || !nl_get_uint(a.tb[CTRL_ATTR_FAMILY_ID]))
		return -EPROTO;
	fam->id = (uint16_t)nl_get_uint(a.tb[CTRL_ATTR_FAMILY_ID]);
	if (a.tb[CTRL_ATTR_VERSION])
		fam->version = (uint8_t)nl_get_uint(a.tb[CTRL_ATTR_VERSION]);
	if (a.tb[CTRL_ATTR_MAXATTR])
		fam->maxattr = (uint32_t)nl_get_uint(a.tb[CTRL_ATTR_MAXATTR]);
	if (a.tb[CTRL_ATTR_OPS]) {
		mnl_attr_for_each_nested(it, a.tb[CTRL_ATTR_OPS]) {
			uint32_t cmd;

			nl_parse_nested(&op, it, CTRL_ATTR_OP_FLAGS);
			if (!op.tb[CTRL_ATTR_OP_ID])
				continue;
			cmd = (uint32_t)nl_get_uint(op.tb[CTRL_ATTR_OP_ID]);
			if (cmd >= GENL_MAX_OPS)
				continue;
			fam->op_present[cmd] = true;
			fam->op_flags[cmd] = op.tb[CTRL_ATTR_OP_FLAGS] ?
				(uint32_t)nl_get_uint(op.tb[CTRL_ATTR_OP_FLAGS]) : 0;
		}
	}
	if (a.tb[CTRL_ATTR_MCAST_GROUPS])
		mnl_attr_for_each_nested(it, a.tb[CTRL_ATTR_MCAST_GROUPS])
			family_mcast(fam, it);
	fam->present = true;
	return 0;
}

int genl_resolve(struct nl_sock *s, const char *name, struct genl_family *fam,
		 struct nl_err *err)
{
	struct genl_family ctrl = { .id = GENL_ID_CTRL, .version = 2 };
	struct nlmsghdr *nlh;
	int ret;

	if (fam->resolved)
		return 0;
	memset(fam, 0, sizeof(*fam));
	nlh = genl_msg(s, &ctrl, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	ret = nl_talk(s, nlh, GENL_HDRLEN, &ctrl_space, family_cb, fam, err);
	if (ret == -ENOENT) {
		/* No such family on this kernel: an answer, not a failure. */
		nl_err_set(err, 0, NULL);
		ret = 0;
	}
	if (ret == 0)
		fam->resolved = true;
	return ret;
}

bool genl_has_op(const struct genl_family *fam, unsigned int cmd)
{
	return fam->present && cmd < GENL_MAX_OPS && fam->op_present[cmd];
}

/* ---- policy dump ---- */

struct policy_probe {
	uint8_t cmd;
	uint16_t nest_attr, attr;
	int64_t do_idx;          /* policy index of cmd's do-request, -1 unknown */
	/* attributes present per policy index, and nested policy indexes */
	struct policy_attr {
		uint32_t idx;
		uint16_t attr;
		int64_t nested_idx;
	} *v;
	size_t n, cap;
	int err;
};

static int policy_cb(const struct nlmsghdr *nlh, void *data)
{
	struct policy_probe *p = data;
	struct nl_attrs a, ops;
	const struct nlattr *idx_nest, *attr_nest;

	nl_parse_msg(&a, nlh, sizeof(struct genlmsghdr), CTRL_ATTR_OP);
	if (a.tb[CTRL_ATTR_OP_POLICY]) {
		const struct nlattr *cmd_nest;

		mnl_attr_for_each_nested(cmd_nest, a.tb[CTRL_ATTR_OP_POLICY]) {
			if (mnl_attr_get_type(cmd_nest) != p->cmd)
				continue;
			nl_parse_nested(&ops, cmd_nest, CTRL_ATTR_POLICY_DUMP);
			if (ops.tb[CTRL_ATTR_POLICY_DO])
				p->do_idx = nl_get_uint(ops.tb[CTRL_ATTR_POLICY_DO]);
		}
	}
	if (!a.tb[CTRL_ATTR_POLICY])
		return 0;
	mnl_attr_for_each_nested(idx_nest, a.tb[CTRL_ATTR_POLICY]) {
		mnl_attr_for_each_nested(attr_nest, idx_nest) {
			struct nl_attrs t;
			struct policy_attr *pa;

			pa = nk_grow(&p->v, &p->n, &p->cap, sizeof(*pa));
			if (!pa)
				return -ENOMEM;
			nl_parse_nested(&t, attr_nest, NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE);
			pa->idx = mnl_attr_get_type(idx_nest);
			pa->attr = mnl_attr_get_type(attr_nest);
			pa->nested_idx = t.tb[NL_POLICY_TYPE_ATTR_POLICY_IDX] ?
				(int64_t)nl_get_uint(t.tb[NL_POLICY_TYPE_ATTR_POLICY_IDX]) : -1;
		}
	}
	return 0;
}

static const struct policy_attr *policy_find(const struct policy_probe *p,
					     int64_t idx, uint16_t attr)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].idx == idx && p->v[i].attr == attr)
			return &p->v[i];
	return NULL;
}

int genl_policy_has_attr(struct nl_sock *s, const char *family, uint8_t cmd,
			 uint16_t nest_attr, uint16_t attr, bool *found,
			 struct nl_err *err)
{
	struct genl_family ctrl = { .id = GENL_ID_CTRL, .version = 2 };
	struct policy_probe p = { .cmd = cmd, .do_idx = -1 };
	const struct policy_attr *pa;
	struct nlmsghdr *nlh;
	int ret;

	*found = false;
	nlh = genl_msg(s, &ctrl, CTRL_CMD_GETPOLICY, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	mnl_attr_put_u32(nlh, CTRL_ATTR_OP, cmd);
	ret = nl_talk(s, nlh, GENL_HDRLEN, &ctrl_space, policy_cb, &p, err);
	if (ret == 0 && p.do_idx >= 0) {
		int64_t idx = p.do_idx;

		if (nest_attr) {
			pa = policy_find(&p, idx, nest_attr);
			idx = pa ? pa->nested_idx : -1;
		}
		*found = idx >= 0 && policy_find(&p, idx, attr) != NULL;
	}
	free(p.v);
	return ret;
}
