// SPDX-License-Identifier: GPL-2.0
/*
 * One netdev feature from the ethtool family's features-get, in its verbose
 * form (bits by name), so no string set has to be fetched first. nkctl reads
 * the features a driver wants before header split (rx-gro-hw on mlx5) and
 * never changes them itself.
 */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "ethfeat.h"

/* ETHTOOL_A_FEATURES_*, ETHTOOL_A_BITSET_*, ETHTOOL_A_BITSET_BIT_* (stable ABI). */
enum {
	A_FEATURES_HW = 2, A_FEATURES_WANTED = 3, A_FEATURES_ACTIVE = 4, A_FEATURES_MAX = 5,
	A_BITSET_NOMASK = 1, A_BITSET_BITS = 3, A_BITSET_MAX = 5,
	A_BITS_BIT = 1,
	A_BIT_NAME = 2, A_BIT_VALUE = 3, A_BIT_MAX = 3,
};

/* Is bit name in the bitset nest (listed), and is it set? A bitset without
 * a mask lists only the bits that are set; with one, VALUE says which are. */
static bool bitset_find(const struct nlattr *set, const char *name, bool *is_set)
{
	struct nl_attrs a;
	const struct nlattr *bit;

	*is_set = false;
	if (!set)
		return false;
	nl_parse_nested(&a, set, A_BITSET_MAX);
	if (!a.tb[A_BITSET_BITS])
		return false;
	mnl_attr_for_each_nested(bit, a.tb[A_BITSET_BITS]) {
		struct nl_attrs b;
		char got[32];   /* ETH_GSTRING_LEN */

		if (mnl_attr_get_type(bit) != A_BITS_BIT)
			continue;
		nl_parse_nested(&b, bit, A_BIT_MAX);
		if (!b.tb[A_BIT_NAME])
			continue;
		nl_get_str(b.tb[A_BIT_NAME], got, sizeof(got));
		if (strcmp(got, name))
			continue;
		*is_set = a.tb[A_BITSET_NOMASK] || b.tb[A_BIT_VALUE];
		return true;
	}
	return false;
}

int ethtool_parse_feature(const struct nlmsghdr *nlh, const char *name,
			  struct nk_netdev_feature *f)
{
	struct nl_attrs a;

	memset(f, 0, sizeof(*f));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -EPROTO;
	nl_parse_msg(&a, nlh, GENL_HDRLEN, A_FEATURES_MAX);
	if (!a.tb[A_FEATURES_HW] || !a.tb[A_FEATURES_ACTIVE])
		return -EPROTO;
	f->known = bitset_find(a.tb[A_FEATURES_HW], name, &f->changeable);
	bitset_find(a.tb[A_FEATURES_WANTED], name, &f->wanted);
	bitset_find(a.tb[A_FEATURES_ACTIVE], name, &f->active);
	return 0;
}

struct feature_req {
	const char *name;
	struct nk_netdev_feature *f;
};

static int feature_cb(const struct nlmsghdr *nlh, void *data)
{
	struct feature_req *r = data;

	return ethtool_parse_feature(nlh, r->name, r->f);
}

int ethtool_feature_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			const char *name, struct nk_netdev_feature *f, struct nl_err *err)
{
	struct feature_req r = { name, f };

	memset(f, 0, sizeof(*f));
	return nl_talk(s, ethtool_request(s, fam, NK_ETHTOOL_MSG_FEATURES_GET, NLM_F_ACK, ifindex),
		       GENL_HDRLEN, NULL, feature_cb, &r, err);
}
