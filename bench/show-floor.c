// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of bench/show.sh (not part of nkctl): the netlink requests nkctl
 * sends for a command, sent by a bare libmnl reader that only reads the
 * replies (every message walked, nothing parsed beyond what decides the next
 * request, nothing printed). nkctl's time over this one's is what its own
 * work costs.
 *
 *   show-floor [-n NETNS] show      the netdev family's id, RTM_GETLINK dump
 *                                   (IFLA_EXT_MASK 0), queue-get, napi-get
 *   show-floor [-n NETNS] stats     show's, then qstats-get (scope queue),
 *                                   and page-pool-get (and its stats) when
 *                                   an RX queue has a NAPI
 *   show-floor leases NETNS NIC     show leases, the leases all of NIC in
 *                                   NETNS (nkctl -n NETNS): in the initial
 *                                   namespace and NETNS the family's id and
 *                                   queue-get; in NETNS the RTM_GETLINK dump
 *                                   (the devices' names), then what a lease
 *                                   shows of its NIC: the NIC's RTM_GETLINK,
 *                                   the ethtool family's id, channels, rings
 *                                   and RSS, the n-tuple rules (ioctl: count,
 *                                   locations, each rule), nkctl's NIC
 *                                   records read, and for each lease a look
 *                                   for its XSK map's pin (none there)
 */
#define _GNU_SOURCE /* setns */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h> /* the header's attributes */
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

/* The netdev family's commands and attributes (include/uapi/linux/netdev.h). */
enum {
	CMD_PAGE_POOL_GET = 5, CMD_PAGE_POOL_STATS_GET = 9, CMD_QUEUE_GET = 10,
	CMD_NAPI_GET = 11, CMD_QSTATS_GET = 12,
	A_QUEUE_TYPE = 3, A_QUEUE_NAPI_ID = 4, A_QUEUE_LEASE = 8, A_QSTATS_SCOPE = 4,
};
/* The ethtool family's (bookworm's headers know no RSS_GET yet). */
enum { ET_RINGS_GET = 15, ET_CHANNELS_GET = 17, ET_RSS_GET = 38 };

struct conn {
	struct mnl_socket *nl;
	unsigned int portid, seq;
};

/* As large as nkctl's: the kernel fills what a dump's skb holds. */
static char buf[1 << 20];

static void die(const char *what)
{
	fprintf(stderr, "show-floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void conn_open(struct conn *c, int bus)
{
	int one = 1, rcv = 1 << 20;

	c->nl = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (!c->nl)
		die("socket");
	/* The options nkctl's sockets have. */
	mnl_socket_setsockopt(c->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(c->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(c->nl, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(c->nl), SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("bind");
	c->portid = mnl_socket_get_portid(c->nl);
	c->seq = (unsigned int)time(NULL);
}

/* Send the request and read every reply to its end (NLMSG_DONE or the ack);
 * -1 when the kernel says no. */
static int try_talk(struct conn *c, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(c->nl, nlh, nlh->nlmsg_len) < 0)
		die("send");
	do {
		n = mnl_socket_recvfrom(c->nl, buf, sizeof(buf));
		if (n < 0)
			die("recv");
		ret = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, c->portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

static void talk(struct conn *c, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	if (try_talk(c, nlh, cb, data))
		die("reply");
}

static struct nlmsghdr *genl_req(struct conn *c, char *b, uint16_t family, uint8_t cmd,
				 uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++c->seq;
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static int family_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, GENL_HDRLEN, family_attr, data);
	return MNL_CB_OK;
}

/* A family's id (CTRL_CMD_GETFAMILY with an ack, as nkctl asks). */
static uint16_t family(struct conn *c, const char *name)
{
	char b[MNL_SOCKET_BUFFER_SIZE];
	uint16_t id = 0;
	struct nlmsghdr *nlh = genl_req(c, b, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 2, NLM_F_ACK);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	talk(c, nlh, family_cb, &id);
	if (!id) {
		errno = ENOENT;
		die(name);
	}
	return id;
}

static uint16_t netdev_family(struct conn *c)
{
	return family(c, "netdev");
}

static void link_dump(struct conn *rt)
{
	char b[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++rt->seq;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, 0);
	talk(rt, nlh, NULL, NULL);
}

static void netdev_dump(struct conn *gn, uint16_t fam, uint8_t cmd, mnl_cb_t cb, void *data)
{
	char b[MNL_SOCKET_BUFFER_SIZE];

	talk(gn, genl_req(gn, b, fam, cmd, 1, NLM_F_DUMP), cb, data);
}

struct rx_napi {
	bool type_rx, napi, any;
};

static int queue_attr(const struct nlattr *a, void *data)
{
	struct rx_napi *r = data;

	if (mnl_attr_get_type(a) == A_QUEUE_TYPE)
		r->type_rx = mnl_attr_get_u32(a) == 0;
	else if (mnl_attr_get_type(a) == A_QUEUE_NAPI_ID)
		r->napi = true;
	return MNL_CB_OK;
}

/* -s: page pools are asked for only when an RX queue has a NAPI (nkctl's
 * has_rx_napi). */
static int queue_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rx_napi *r = data, one = { 0 };

	mnl_attr_parse(nlh, GENL_HDRLEN, queue_attr, &one);
	r->any |= one.type_rx && one.napi;
	return MNL_CB_OK;
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	++*(size_t *)data;
	return MNL_CB_OK;
}

static void enter(const char *netns)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

static void show(bool stats)
{
	struct conn rt, gn;
	struct rx_napi r = { 0 };
	uint16_t fam;
	size_t pools = 0;

	conn_open(&rt, NETLINK_ROUTE);
	conn_open(&gn, NETLINK_GENERIC);
	fam = netdev_family(&gn);
	link_dump(&rt);
	netdev_dump(&gn, fam, CMD_QUEUE_GET, stats ? queue_cb : NULL, &r);
	netdev_dump(&gn, fam, CMD_NAPI_GET, NULL, NULL);
	if (!stats)
		return;
	{
		char b[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh = genl_req(&gn, b, fam, CMD_QSTATS_GET, 1, NLM_F_DUMP);

		mnl_attr_put_u32(nlh, A_QSTATS_SCOPE, 1);
		talk(&gn, nlh, NULL, NULL);
	}
	if (r.any)
		netdev_dump(&gn, fam, CMD_PAGE_POOL_GET, count_cb, &pools);
	if (pools)
		netdev_dump(&gn, fam, CMD_PAGE_POOL_STATS_GET, NULL, NULL);
}

static int lease_attr(const struct nlattr *a, void *data)
{
	*(size_t *)data += mnl_attr_get_type(a) == A_QUEUE_LEASE;
	return MNL_CB_OK;
}

static int lease_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, GENL_HDRLEN, lease_attr, data);
	return MNL_CB_OK;
}

/* One namespace of show leases' scan: the family and its queues; the
 * leases counted. */
static size_t lease_scan(void)
{
	struct conn gn;
	size_t n = 0;

	conn_open(&gn, NETLINK_GENERIC);
	netdev_dump(&gn, netdev_family(&gn), CMD_QUEUE_GET, lease_cb, &n);
	mnl_socket_close(gn.nl);
	return n;
}

static void link_get(struct conn *rt, int ifindex)
{
	char b[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++rt->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, 0);
	talk(rt, nlh, NULL, NULL);
}

static void ethtool_get(struct conn *gn, uint16_t fam, uint8_t cmd, int ifindex)
{
	char b[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = genl_req(gn, b, fam, cmd, ETHTOOL_GENL_VERSION, NLM_F_ACK);
	struct nlattr *hdr = mnl_attr_nest_start(nlh, 1);

	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)ifindex);
	mnl_attr_nest_end(nlh, hdr);
	try_talk(gn, nlh, NULL, NULL); /* as nkctl, whatever the driver has */
}

static int rxnfc(int fd, const char *ifname, void *nfc)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = nfc;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

static void rules(const char *ifname)
{
	struct ethtool_rxnfc cnt = { .cmd = ETHTOOL_GRXCLSRLCNT }, *all;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (rxnfc(fd, ifname, &cnt)) { /* no n-tuple rules on this NIC */
		close(fd);
		return;
	}
	all = calloc(1, sizeof(*all) + cnt.rule_cnt * sizeof(uint32_t));
	if (!all)
		die("calloc");
	all->cmd = ETHTOOL_GRXCLSRLALL;
	all->rule_cnt = cnt.rule_cnt;
	if (rxnfc(fd, ifname, all))
		all->rule_cnt = 0;
	for (uint32_t i = 0; i < all->rule_cnt; i++) {
		struct ethtool_rxnfc r = { .cmd = ETHTOOL_GRXCLSRULE };

		r.fs.location = all->rule_locs[i];
		rxnfc(fd, ifname, &r);
	}
	free(all);
	close(fd);
}

/* nkctl's records of NICs, each read. */
static void records(void)
{
	DIR *d = opendir("/run/nkctl/nic");
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/nkctl/nic/%s", e->d_name);
		f = fopen(path, "re");
		while (f && fread(buf, 1, sizeof(buf), f) > 0)
			;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

static void leases(const char *netns, const char *nic)
{
	struct conn rt, gn;
	uint16_t fam;
	size_t n;
	int ifindex;

	lease_scan();
	enter(netns);
	n = lease_scan();
	conn_open(&rt, NETLINK_ROUTE);
	link_dump(&rt);
	records();
	ifindex = (int)if_nametoindex(nic);
	if (!ifindex)
		die(nic);
	link_get(&rt, ifindex);
	conn_open(&gn, NETLINK_GENERIC);
	fam = family(&gn, "ethtool");
	ethtool_get(&gn, fam, ET_CHANNELS_GET, ifindex);
	ethtool_get(&gn, fam, ET_RINGS_GET, ifindex);
	ethtool_get(&gn, fam, ET_RSS_GET, ifindex);
	rules(nic);
	records();
	for (size_t i = 0; i < n; i++) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.pathname = (uintptr_t)"/sys/fs/bpf/nkctl-show-floor/slots";
		syscall(SYS_bpf, BPF_OBJ_GET, &a, sizeof(a));
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "-n")) {
		enter(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc == 2 && !strcmp(argv[1], "show"))
		show(false);
	else if (argc == 2 && !strcmp(argv[1], "stats"))
		show(true);
	else if (argc == 4 && !strcmp(argv[1], "leases"))
		leases(argv[2], argv[3]);
	else {
		fprintf(stderr, "usage: show-floor [-n NETNS] show|stats | show-floor leases NETNS NIC\n");
		return 2;
	}
	return 0;
}
