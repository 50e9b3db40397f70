// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include "ethtool.h"

/* Attribute numbers of the ethtool netlink ABI (ethtool_netlink_generated.h),
 * stable since 5.6; bookworm's 6.1 headers lack HDS_THRESH and RSS set. */
enum {
	A_HEADER_DEV_INDEX = 1,
	A_RINGS_HEADER = 1, A_RINGS_RX_MAX = 2, A_RINGS_RX = 6, A_RINGS_TCP_DATA_SPLIT = 11,
	A_RINGS_HDS_THRESH = 17, A_RINGS_HDS_THRESH_MAX = 18, A_RINGS_MAX = 18,
	A_CHANNELS_HEADER = 1, A_CHANNELS_RX_MAX = 2, A_CHANNELS_TX_MAX = 3,
	A_CHANNELS_COMBINED_MAX = 5, A_CHANNELS_RX_COUNT = 6, A_CHANNELS_TX_COUNT = 7,
	A_CHANNELS_OTHER_COUNT = 8, A_CHANNELS_COMBINED_COUNT = 9, A_CHANNELS_MAX = 9,
	A_RSS_HEADER = 1, A_RSS_CONTEXT = 2, A_RSS_HFUNC = 3, A_RSS_INDIR = 4, A_RSS_MAX = 8,
};

static const struct nl_attr_desc header_attrs[] = {
	{ A_HEADER_DEV_INDEX, "dev-index", NULL, 0 },
};
static const struct nl_attr_space header_space = NL_SPACE(header_attrs);
static const struct nl_attr_desc rings_attrs[] = {
	{ A_RINGS_HEADER, "header", &header_space, 0 },
	{ A_RINGS_TCP_DATA_SPLIT, "tcp-data-split", NULL, 0 },
	{ A_RINGS_HDS_THRESH, "hds-thresh", NULL, 0 },
};
static const struct nl_attr_space rings_space = NL_SPACE(rings_attrs);
static const struct nl_attr_desc channels_attrs[] = {
	{ A_CHANNELS_HEADER, "header", &header_space, 0 },
};
static const struct nl_attr_space channels_space = NL_SPACE(channels_attrs);
static const struct nl_attr_desc rss_attrs[] = {
	{ A_RSS_HEADER, "header", &header_space, 0 },
	{ A_RSS_CONTEXT, "context", NULL, 0 },
	{ A_RSS_INDIR, "indir", NULL, 0 },
};
const struct nl_attr_space ethtool_rss_space = NL_SPACE(rss_attrs);

struct nlmsghdr *ethtool_request(struct nl_sock *s, const struct genl_family *fam,
				 uint8_t cmd, uint16_t flags, int ifindex)
{
	struct nlmsghdr *nlh = genl_msg(s, fam, cmd, flags);
	struct nlattr *hdr = mnl_attr_nest_start(nlh, 1);

	mnl_attr_put_u32(nlh, A_HEADER_DEV_INDEX, (uint32_t)ifindex);
	mnl_attr_nest_end(nlh, hdr);
	return nlh;
}

static struct nlmsghdr *ethtool_msg(struct nl_sock *s, const struct genl_family *fam,
				    uint8_t cmd, int ifindex)
{
	return ethtool_request(s, fam, cmd, NLM_F_ACK, ifindex);
}

/* Read attribute t into *v when present; returns whether it was. */
static bool get_u32(const struct nl_attrs *a, unsigned int t, uint32_t *v)
{
	if (!a->tb[t])
		return false;
	*v = (uint32_t)nl_get_uint(a->tb[t]);
	return true;
}

int ethtool_parse_rings(const struct nlmsghdr *nlh, struct nk_rings *r)
{
	struct nl_attrs a;

	memset(r, 0, sizeof(*r));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -EPROTO;
	nl_parse_msg(&a, nlh, GENL_HDRLEN, A_RINGS_MAX);
	r->have_rx = get_u32(&a, A_RINGS_RX, &r->rx);
	r->have_rx_max = get_u32(&a, A_RINGS_RX_MAX, &r->rx_max);
	r->have_tcp_data_split = get_u32(&a, A_RINGS_TCP_DATA_SPLIT, &r->tcp_data_split);
	r->have_hds_thresh = get_u32(&a, A_RINGS_HDS_THRESH, &r->hds_thresh);
	r->have_hds_thresh_max = get_u32(&a, A_RINGS_HDS_THRESH_MAX, &r->hds_thresh_max);
	return 0;
}

int ethtool_parse_channels(const struct nlmsghdr *nlh, struct nk_channels *c)
{
	struct nl_attrs a;

	memset(c, 0, sizeof(*c));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -EPROTO;
	nl_parse_msg(&a, nlh, GENL_HDRLEN, A_CHANNELS_MAX);
	get_u32(&a, A_CHANNELS_RX_COUNT, &c->rx);
	get_u32(&a, A_CHANNELS_TX_COUNT, &c->tx);
	get_u32(&a, A_CHANNELS_OTHER_COUNT, &c->other);
	get_u32(&a, A_CHANNELS_COMBINED_COUNT, &c->combined);
	get_u32(&a, A_CHANNELS_RX_MAX, &c->rx_max);
	get_u32(&a, A_CHANNELS_TX_MAX, &c->tx_max);
	get_u32(&a, A_CHANNELS_COMBINED_MAX, &c->combined_max);
	c->have = true;
	return 0;
}

int ethtool_parse_rss(const struct nlmsghdr *nlh, struct nk_rss *r)
{
	struct nl_attrs a;
	const struct nlattr *in;
	size_t len;

	memset(r, 0, sizeof(*r));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -EPROTO;
	nl_parse_msg(&a, nlh, GENL_HDRLEN, A_RSS_MAX);
	get_u32(&a, A_RSS_HFUNC, &r->hfunc);
	in = a.tb[A_RSS_INDIR];
	if (!in)
		return 0;
	len = mnl_attr_get_payload_len(in) / sizeof(uint32_t);
	if (len > NK_RSS_MAX_INDIR) {
		r->too_big = true;
		len = NK_RSS_MAX_INDIR;
	}
	memcpy(r->indir, mnl_attr_get_payload(in), len * sizeof(uint32_t));
	r->indir_size = (uint32_t)len;
	return 0;
}

static int rings_cb(const struct nlmsghdr *nlh, void *data)
{
	return ethtool_parse_rings(nlh, data);
}

static int channels_cb(const struct nlmsghdr *nlh, void *data)
{
	return ethtool_parse_channels(nlh, data);
}

static int rss_cb(const struct nlmsghdr *nlh, void *data)
{
	return ethtool_parse_rss(nlh, data);
}

int ethtool_rings_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		      struct nk_rings *out, struct nl_err *err)
{
	struct nlmsghdr *nlh = ethtool_msg(s, fam, NK_ETHTOOL_MSG_RINGS_GET, ifindex);

	memset(out, 0, sizeof(*out));
	return nl_talk(s, nlh, GENL_HDRLEN, &rings_space, rings_cb, out, err);
}

int ethtool_channels_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			 struct nk_channels *out, struct nl_err *err)
{
	struct nlmsghdr *nlh = ethtool_msg(s, fam, NK_ETHTOOL_MSG_CHANNELS_GET, ifindex);

	memset(out, 0, sizeof(*out));
	return nl_talk(s, nlh, GENL_HDRLEN, &channels_space, channels_cb, out, err);
}

int ethtool_rss_get(struct nl_sock *s, const struct genl_family *fam, int ifindex,
		    struct nk_rss *out, struct nl_err *err)
{
	struct nlmsghdr *nlh = ethtool_msg(s, fam, NK_ETHTOOL_MSG_RSS_GET, ifindex);

	memset(out, 0, sizeof(*out));
	return nl_talk(s, nlh, GENL_HDRLEN, &ethtool_rss_space, rss_cb, out, err);
}

int ethtool_rings_set_split(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			    const struct nk_rings *want, struct nl_err *err)
{
	struct nlmsghdr *nlh = ethtool_msg(s, fam, NK_ETHTOOL_MSG_RINGS_SET, ifindex);

	if (want->have_tcp_data_split)
		mnl_attr_put_u8(nlh, A_RINGS_TCP_DATA_SPLIT, (uint8_t)want->tcp_data_split);
	if (want->have_hds_thresh)
		mnl_attr_put_u32(nlh, A_RINGS_HDS_THRESH, want->hds_thresh);
	return nl_talk(s, nlh, GENL_HDRLEN, &rings_space, NULL, NULL, err);
}

int ethtool_rss_set_indir(struct nl_sock *s, const struct genl_family *fam, int ifindex,
			  const uint32_t *indir, uint32_t n, struct nl_err *err)
{
	struct nlmsghdr *nlh;

	if (n > NK_RSS_MAX_INDIR) {
		nl_err_set(err, E2BIG, "the indirection table is larger than nkctl handles");
		return -E2BIG;
	}
	nlh = ethtool_msg(s, fam, NK_ETHTOOL_MSG_RSS_SET, ifindex);
	mnl_attr_put(nlh, A_RSS_INDIR, n * sizeof(uint32_t), indir);
	return nl_talk(s, nlh, GENL_HDRLEN, &ethtool_rss_space, NULL, NULL, err);
}

const char *nk_tcp_data_split_name(uint32_t v)
{
	switch (v) {
	case NK_TCP_DATA_SPLIT_UNKNOWN: return "unknown";
	case NK_TCP_DATA_SPLIT_DISABLED: return "off";
	case NK_TCP_DATA_SPLIT_ENABLED: return "on";
	}
	return "unknown";
}

uint32_t nk_channels_rx(const struct nk_channels *c)
{
	return c->combined + c->rx;
}

bool nk_rss_is_default(const struct nk_rss *r, uint32_t nqueues)
{
	if (!nqueues)
		return false;
	for (uint32_t i = 0; i < r->indir_size; i++)
		if (r->indir[i] != i % nqueues)
			return false;
	return true;
}

bool nk_rss_uses(const struct nk_rss *r, uint32_t q)
{
	for (uint32_t i = 0; i < r->indir_size; i++)
		if (r->indir[i] == q)
			return true;
	return false;
}

/* ---- n-tuple rules ---- */

const struct nk_choice nk_flow_type_words[] = {
	{ "tcp4", NK_FLOW_TCP4, NULL },
	{ "udp4", NK_FLOW_UDP4, NULL },
	{ "ip4", NK_FLOW_IP4, NULL },
	{ "tcp6", NK_FLOW_TCP6, NULL },
	{ "udp6", NK_FLOW_UDP6, NULL },
	{ "ip6", NK_FLOW_IP6, NULL },
	{ NULL, 0, NULL },
};

bool nk_flow_is_v6(uint32_t flow_type)
{
	return flow_type == NK_FLOW_TCP6 || flow_type == NK_FLOW_UDP6 || flow_type == NK_FLOW_IP6;
}

bool nk_flow_has_ports(uint32_t flow_type)
{
	return flow_type != NK_FLOW_IP4 && flow_type != NK_FLOW_IP6;
}

static int rxnfc(int fd, const char *ifname, void *nfc)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = nfc;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

int ethtool_driver_name(int fd, const char *ifname, char *buf, size_t len)
{
	struct ethtool_drvinfo d = { .cmd = ETHTOOL_GDRVINFO };
	int ret = rxnfc(fd, ifname, &d);

	snprintf(buf, len, "%.*s", ret ? 0 : (int)sizeof(d.driver), ret ? "" : d.driver);
	return ret;
}

int ethtool_rx_rings(int fd, const char *ifname, uint32_t *n)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_GRXRINGS };
	int ret = rxnfc(fd, ifname, &nfc);

	*n = ret ? 0 : (uint32_t)nfc.data;
	return ret;
}

static bool all_ones(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

static bool any_set(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return true;
	return false;
}

/* One field: matched when its mask is all ones; a partial mask is shown as
 * "other fields". */
static bool field(const void *val, const void *mask, size_t len, void *dst, bool *other)
{
	if (!any_set(mask, len))
		return false;
	if (!all_ones(mask, len)) {
		*other = true;
		return false;
	}
	memcpy(dst, val, len);
	return true;
}

static void decode_v4(const struct ethtool_rx_flow_spec *fs, struct nk_ntuple *r)
{
	const struct ethtool_tcpip4_spec *v = &fs->h_u.tcp_ip4_spec, *m = &fs->m_u.tcp_ip4_spec;
	uint16_t port;

	r->have_src = field(&v->ip4src, &m->ip4src, 4, r->src, &r->other_fields);
	r->have_dst = field(&v->ip4dst, &m->ip4dst, 4, r->dst, &r->other_fields);
	if (r->flow_type == NK_FLOW_IP4) {
		const struct ethtool_usrip4_spec *um = &fs->m_u.usr_ip4_spec;

		r->other_fields |= um->l4_4_bytes || um->tos || um->proto;
		return;
	}
	if ((r->have_sport = field(&v->psrc, &m->psrc, 2, &port, &r->other_fields)))
		r->sport = ntohs(port);
	if ((r->have_dport = field(&v->pdst, &m->pdst, 2, &port, &r->other_fields)))
		r->dport = ntohs(port);
	r->other_fields |= m->tos != 0;
}

static void decode_v6(const struct ethtool_rx_flow_spec *fs, struct nk_ntuple *r)
{
	const struct ethtool_tcpip6_spec *v = &fs->h_u.tcp_ip6_spec, *m = &fs->m_u.tcp_ip6_spec;
	uint16_t port;

	r->have_src = field(v->ip6src, m->ip6src, 16, r->src, &r->other_fields);
	r->have_dst = field(v->ip6dst, m->ip6dst, 16, r->dst, &r->other_fields);
	if (r->flow_type == NK_FLOW_IP6) {
		const struct ethtool_usrip6_spec *um = &fs->m_u.usr_ip6_spec;

		r->other_fields |= um->l4_4_bytes || um->tclass || um->l4_proto;
		return;
	}
	if ((r->have_sport = field(&v->psrc, &m->psrc, 2, &port, &r->other_fields)))
		r->sport = ntohs(port);
	if ((r->have_dport = field(&v->pdst, &m->pdst, 2, &port, &r->other_fields)))
		r->dport = ntohs(port);
	r->other_fields |= m->tclass != 0;
}

int ethtool_ntuple_decode(const void *buf, size_t len, struct nk_ntuple *r)
{
	struct ethtool_rx_flow_spec fs;

	memset(r, 0, sizeof(*r));
	if (len < sizeof(fs))
		return -EPROTO;
	memcpy(&fs, buf, sizeof(fs));
	r->id = fs.location;
	r->flow_type = fs.flow_type & ~(uint32_t)(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS);
	r->other_fields = (fs.flow_type & (FLOW_EXT | FLOW_MAC_EXT)) != 0;
	r->action = fs.ring_cookie == RX_CLS_FLOW_DISC ? NK_RULE_ACTION_DROP :
		    ethtool_get_flow_spec_ring(fs.ring_cookie);
	r->other_fields |= ethtool_get_flow_spec_ring_vf(fs.ring_cookie) != 0 &&
			   fs.ring_cookie != RX_CLS_FLOW_DISC;
	switch (r->flow_type) {
	case NK_FLOW_TCP4: case NK_FLOW_UDP4: case NK_FLOW_IP4:
		decode_v4(&fs, r);
		break;
	case NK_FLOW_TCP6: case NK_FLOW_UDP6: case NK_FLOW_IP6:
		decode_v6(&fs, r);
		break;
	default:
		r->other_fields = true;
	}
	return 0;
}

static int rule_get(int fd, const char *ifname, uint32_t loc, struct nk_ntuple *r)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_GRXCLSRULE };
	int ret;

	nfc.fs.location = loc;
	ret = rxnfc(fd, ifname, &nfc);
	if (ret)
		return ret;
	ret = ethtool_ntuple_decode(&nfc.fs, sizeof(nfc.fs), r);
	r->id = loc;
	/* FLOW_RSS: the context is outside the flow spec */
	if (nfc.fs.flow_type & FLOW_RSS)
		r->rss_context = nfc.rss_context;
	return ret;
}

int ethtool_ntuple_get(int fd, const char *ifname, uint32_t id, struct nk_ntuple *r)
{
	return rule_get(fd, ifname, id, r);
}

#define NK_MAX_RULES 4096

int ethtool_ntuple_list(int fd, const char *ifname, struct nk_ntuple_list *out)
{
	struct ethtool_rxnfc cnt = { .cmd = ETHTOOL_GRXCLSRLCNT }, *all;
	uint32_t n;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = rxnfc(fd, ifname, &cnt);
	if (ret)
		return ret;
	out->table_size = (uint32_t)(cnt.data & ~(uint64_t)RX_CLS_LOC_SPECIAL);
	out->driver_picks = (cnt.data & RX_CLS_LOC_SPECIAL) != 0;
	n = cnt.rule_cnt < NK_MAX_RULES ? cnt.rule_cnt : NK_MAX_RULES;
	all = calloc(1, sizeof(*all) + n * sizeof(uint32_t));
	if (!all)
		return -ENOMEM;
	/* Asked even for no rules: mlx5 reports its table size only here. */
	all->cmd = ETHTOOL_GRXCLSRLALL;
	all->rule_cnt = n;
	ret = rxnfc(fd, ifname, all);
	if (!ret && all->data)
		out->table_size = (uint32_t)all->data;
	for (uint32_t i = 0; !ret && i < all->rule_cnt && i < n; i++) {
		struct nk_ntuple *r = nk_grow(&out->v, &out->n, &out->cap, sizeof(*r));

		ret = r ? rule_get(fd, ifname, all->rule_locs[i], r) : -ENOMEM;
	}
	free(all);
	if (ret)
		nk_ntuple_list_free(out);
	return ret;
}

static void encode(const struct nk_ntuple *r, struct ethtool_rx_flow_spec *fs)
{
	size_t alen = nk_flow_is_v6(r->flow_type) ? 16 : 4;
	uint8_t *hs, *hd, *ms, *md;

	fs->flow_type = r->flow_type | (r->rss_context ? FLOW_RSS : 0);
	fs->ring_cookie = r->action == NK_RULE_ACTION_DROP ? RX_CLS_FLOW_DISC : r->action;
	fs->location = RX_CLS_LOC_ANY;
	if (alen == 16) {
		hs = (uint8_t *)fs->h_u.tcp_ip6_spec.ip6src;
		hd = (uint8_t *)fs->h_u.tcp_ip6_spec.ip6dst;
		ms = (uint8_t *)fs->m_u.tcp_ip6_spec.ip6src;
		md = (uint8_t *)fs->m_u.tcp_ip6_spec.ip6dst;
	} else {
		hs = (uint8_t *)&fs->h_u.tcp_ip4_spec.ip4src;
		hd = (uint8_t *)&fs->h_u.tcp_ip4_spec.ip4dst;
		ms = (uint8_t *)&fs->m_u.tcp_ip4_spec.ip4src;
		md = (uint8_t *)&fs->m_u.tcp_ip4_spec.ip4dst;
	}
	if (r->have_src) {
		memcpy(hs, r->src, alen);
		memset(ms, 0xff, alen);
	}
	if (r->have_dst) {
		memcpy(hd, r->dst, alen);
		memset(md, 0xff, alen);
	}
	if (r->flow_type == NK_FLOW_IP4)
		fs->h_u.usr_ip4_spec.ip_ver = ETH_RX_NFC_IP4;
	if (!nk_flow_has_ports(r->flow_type))
		return;
	/* psrc/pdst sit at the same offsets in the v4 and v6 specs' own
	 * layouts; set them through the right one. */
	if (alen == 16) {
		if (r->have_sport) {
			fs->h_u.tcp_ip6_spec.psrc = htons(r->sport);
			fs->m_u.tcp_ip6_spec.psrc = 0xffff;
		}
		if (r->have_dport) {
			fs->h_u.tcp_ip6_spec.pdst = htons(r->dport);
			fs->m_u.tcp_ip6_spec.pdst = 0xffff;
		}
	} else {
		if (r->have_sport) {
			fs->h_u.tcp_ip4_spec.psrc = htons(r->sport);
			fs->m_u.tcp_ip4_spec.psrc = 0xffff;
		}
		if (r->have_dport) {
			fs->h_u.tcp_ip4_spec.pdst = htons(r->dport);
			fs->m_u.tcp_ip4_spec.pdst = 0xffff;
		}
	}
}

int nk_ntuple_free_loc(const struct nk_ntuple_list *l, uint32_t *loc)
{
	for (uint32_t cand = 0; cand < l->table_size; cand++) {
		bool held = false;

		for (size_t i = 0; i < l->n && !held; i++)
			held = l->v[i].id == cand;
		if (!held) {
			*loc = cand;
			return 0;
		}
	}
	return -ENOSPC;
}

/* Where a new rule goes: RX_CLS_LOC_ANY, or a free location. */
static int insert_loc(int fd, const char *ifname, uint32_t *loc)
{
	struct nk_ntuple_list l;
	int ret = ethtool_ntuple_list(fd, ifname, &l);

	if (ret)
		return ret;
	*loc = RX_CLS_LOC_ANY;
	if (!l.driver_picks)
		ret = nk_ntuple_free_loc(&l, loc);
	nk_ntuple_list_free(&l);
	return ret;
}

int ethtool_ntuple_add(int fd, const char *ifname, struct nk_ntuple *r)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_SRXCLSRLINS };
	int ret;

	encode(r, &nfc.fs);
	nfc.rss_context = r->rss_context;
	ret = insert_loc(fd, ifname, &nfc.fs.location);
	if (!ret)
		ret = rxnfc(fd, ifname, &nfc);
	if (!ret)
		r->id = nfc.fs.location;
	return ret;
}

int ethtool_ntuple_del(int fd, const char *ifname, uint32_t id)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_SRXCLSRLDEL };

	nfc.fs.location = id;
	return rxnfc(fd, ifname, &nfc);
}

void nk_ntuple_list_free(struct nk_ntuple_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
