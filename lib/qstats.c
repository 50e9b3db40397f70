// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "compat.h"
#include "qstats.h"

#define Q(name, key) { NK_NETDEV_A_QSTATS_##name, key }
const struct nk_counter_desc nk_qstat_descs[] = {
	Q(RX_PACKETS, "rx-packets"), Q(RX_BYTES, "rx-bytes"),
	Q(RX_ALLOC_FAIL, "rx-alloc-fail"), Q(RX_HW_DROPS, "rx-hw-drops"),
	Q(RX_HW_DROP_OVERRUNS, "rx-hw-drop-overruns"),
	Q(RX_HW_DROP_RATELIMITS, "rx-hw-drop-ratelimits"),
	Q(RX_CSUM_COMPLETE, "rx-csum-complete"), Q(RX_CSUM_UNNECESSARY, "rx-csum-unnecessary"),
	Q(RX_CSUM_NONE, "rx-csum-none"), Q(RX_CSUM_BAD, "rx-csum-bad"),
	Q(RX_HW_GRO_PACKETS, "rx-hw-gro-packets"), Q(RX_HW_GRO_BYTES, "rx-hw-gro-bytes"),
	Q(RX_HW_GRO_WIRE_PACKETS, "rx-hw-gro-wire-packets"),
	Q(RX_HW_GRO_WIRE_BYTES, "rx-hw-gro-wire-bytes"),
	Q(TX_PACKETS, "tx-packets"), Q(TX_BYTES, "tx-bytes"),
	Q(TX_HW_DROPS, "tx-hw-drops"), Q(TX_HW_DROP_ERRORS, "tx-hw-drop-errors"),
	Q(TX_HW_DROP_RATELIMITS, "tx-hw-drop-ratelimits"),
	Q(TX_CSUM_NONE, "tx-csum-none"), Q(TX_NEEDS_CSUM, "tx-needs-csum"),
	Q(TX_HW_GSO_PACKETS, "tx-hw-gso-packets"), Q(TX_HW_GSO_BYTES, "tx-hw-gso-bytes"),
	Q(TX_HW_GSO_WIRE_PACKETS, "tx-hw-gso-wire-packets"),
	Q(TX_HW_GSO_WIRE_BYTES, "tx-hw-gso-wire-bytes"),
	Q(TX_STOP, "tx-stop"), Q(TX_WAKE, "tx-wake"),
};
#undef Q
const size_t nk_qstat_count = sizeof(nk_qstat_descs) / sizeof(nk_qstat_descs[0]);
_Static_assert(sizeof(nk_qstat_descs) / sizeof(nk_qstat_descs[0]) <= NK_QSTAT_MAX,
	       "have is a 32-bit mask");

static const struct nl_attr_desc qstats_attrs[] = {
	{ NK_NETDEV_A_QSTATS_IFINDEX, "ifindex", NULL, 0 },
	{ NK_NETDEV_A_QSTATS_SCOPE, "scope", NULL, 0 },
};
static const struct nl_attr_space qstats_space = NL_SPACE(qstats_attrs);

int netdev_parse_qstats(const struct nlmsghdr *nlh, struct nk_qstats *q)
{
	struct nl_attrs a;

	nl_parse_msg(&a, nlh, GENL_HDRLEN, NK_NETDEV_A_QSTATS_MAX);
	if (!a.tb[NK_NETDEV_A_QSTATS_IFINDEX] || !a.tb[NK_NETDEV_A_QSTATS_QUEUE_TYPE] ||
	    !a.tb[NK_NETDEV_A_QSTATS_QUEUE_ID])
		return -ENOENT;
	memset(q, 0, sizeof(*q));
	q->ifindex = (int)nl_get_uint(a.tb[NK_NETDEV_A_QSTATS_IFINDEX]);
	q->type = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QSTATS_QUEUE_TYPE]);
	q->id = (uint32_t)nl_get_uint(a.tb[NK_NETDEV_A_QSTATS_QUEUE_ID]);
	for (size_t i = 0; i < nk_qstat_count; i++) {
		const struct nlattr *attr = a.tb[nk_qstat_descs[i].attr];

		if (!attr)
			continue;
		q->v[i] = nl_get_uint(attr);
		q->have |= 1u << i;
	}
	return 0;
}

static int parse_cb(const struct nlmsghdr *nlh, void *q)
{
	return netdev_parse_qstats(nlh, q);
}

static int cmp_qstats(const void *a, const void *b)
{
	const struct nk_qstats *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void nk_qstats_list_sort(struct nk_qstats_list *l)
{
	nk_sort(l->v, l->n, sizeof(*l->v), cmp_qstats);
}

void nk_qstats_list_free(struct nk_qstats_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct nk_qstats *nk_qstats_find(const struct nk_qstats_list *l, int ifindex,
				       uint32_t type, uint32_t id)
{
	struct nk_qstats key = { .ifindex = ifindex, .type = type, .id = id };

	return l->n ? bsearch(&key, l->v, l->n, sizeof(*l->v), cmp_qstats) : NULL;
}

int netdev_qstats_dump(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		       struct nk_qstats_list *out, struct nl_err *err)
{
	struct nl_collect c = NL_COLLECT(out, parse_cb, 0);
	struct nlmsghdr *nlh;
	int ret;

	nl_collect_begin(&c);
	if (!genl_has_op(fam, NK_NETDEV_CMD_QSTATS_GET))
		return 0;
	nlh = genl_msg(s, fam, NK_NETDEV_CMD_QSTATS_GET, NLM_F_DUMP);
	if (ifindex)
		mnl_attr_put_u32(nlh, NK_NETDEV_A_QSTATS_IFINDEX, (uint32_t)ifindex);
	mnl_attr_put_u32(nlh, NK_NETDEV_A_QSTATS_SCOPE, NK_NETDEV_QSTATS_SCOPE_QUEUE);
	ret = nl_talk(s, nlh, GENL_HDRLEN, &qstats_space, nl_collect_cb, &c, err);
	/* One device whose driver has no per-queue stats: nothing to show. */
	if (ret == -EOPNOTSUPP && ifindex)
		ret = 0;
	return nl_collect_end(&c, ret, cmp_qstats);
}
