// SPDX-License-Identifier: GPL-2.0
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "linkset.h"

static const struct nl_attr_desc set_attrs[] = {
	{ IFLA_NET_NS_FD, "net-ns-fd", NULL, 0 },
	{ IFLA_IFALIAS, "ifalias", NULL, 0 },
	{ IFLA_GROUP, "group", NULL, 0 },
};
static const struct nl_attr_space set_space = NL_SPACE(set_attrs);

/* An RTM_NEWLINK of ifindex that changes what the caller puts after it. */
static struct nlmsghdr *set_msg(struct nl_sock *s, int ifindex)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_NEWLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nlh;
}

static int set_send(struct nl_sock *s, struct nlmsghdr *nlh, struct nl_err *err)
{
	return nl_talk(s, nlh, sizeof(struct ifinfomsg), &set_space, NULL, NULL, err);
}

int rtnl_link_move(struct nl_sock *s, int ifindex, int netns_fd, struct nl_err *err)
{
	struct nlmsghdr *nlh = set_msg(s, ifindex);

	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)netns_fd);
	return set_send(s, nlh, err);
}

int rtnl_link_set_alias(struct nl_sock *s, int ifindex, const char *alias, struct nl_err *err)
{
	struct nlmsghdr *nlh = set_msg(s, ifindex);

	mnl_attr_put_strz(nlh, IFLA_IFALIAS, alias);
	return set_send(s, nlh, err);
}

int rtnl_link_set_group(struct nl_sock *s, int ifindex, uint32_t group, struct nl_err *err)
{
	struct nlmsghdr *nlh = set_msg(s, ifindex);

	mnl_attr_put_u32(nlh, IFLA_GROUP, group);
	return set_send(s, nlh, err);
}

struct alias_walk {
	rtnl_alias_fn fn;
	void *data;
};

static int alias_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct alias_walk *w = data;
	const struct nlattr *name, *alias;
	struct nl_attrs a;

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return 0;
	nl_parse_msg(&a, nlh, sizeof(struct ifinfomsg), IFLA_MAX);
	name = a.tb[IFLA_IFNAME];
	alias = a.tb[IFLA_IFALIAS];
	if (!name || !alias || mnl_attr_validate(name, MNL_TYPE_NUL_STRING) ||
	    mnl_attr_validate(alias, MNL_TYPE_NUL_STRING))
		return 0;
	return w->fn(mnl_attr_get_str(name), mnl_attr_get_str(alias), w->data);
}

int rtnl_link_aliases(struct nl_sock *s, rtnl_alias_fn fn, void *data, struct nl_err *err)
{
	struct nlmsghdr *nlh = nl_msg(s, RTM_GETLINK, NLM_F_DUMP);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct alias_walk w = { fn, data };

	ifi->ifi_family = AF_UNSPEC;
	return nl_talk(s, nlh, sizeof(*ifi), NULL, alias_cb, &w, err);
}
