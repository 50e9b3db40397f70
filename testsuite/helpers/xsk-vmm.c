// SPDX-License-Identifier: GPL-2.0
/*
 * A test VMM: what QEMU's af-xdp backend (net/af-xdp.c, 10.1 and later)
 * does with "-netdev af-xdp,ifname=DEV,start-queue=QUEUE,inhibit=on,
 * map-path=PIN,map-start-index=INDEX[,force-copy=on]", through libxdp and
 * the same calls: xsk_umem__create (fill and completion rings of libxdp's
 * default size, default frame size, no headroom, a UMEM of twice the four
 * rings' descriptors), xsk_socket__create with the inhibit flag (no XDP
 * program loaded), need-wakeup bind (plus XDP_COPY for "copy"), native
 * mode tried first and then skb mode as QEMU does when no mode is given;
 * the map opened from its pin (bpf_obj_get) and the socket's fd written at
 * INDEX. Then an event loop that reads the RX ring only when poll() says
 * the socket is readable and, with frames to send, asks for POLLOUT while
 * the TX ring needs a wakeup (QEMU's write handler: its kick is poll()
 * itself, never sendto), reclaiming completions then.
 *
 *   xsk-vmm DEV QUEUE PIN INDEX [rx N] [tx N DSTMAC SRCIP DSTIP] [idle MS]
 *           [first MS] [ready FILE] [copy]
 *
 * rx N: wait for N frames (default 0); tx N ...: send N UDP datagrams
 * (port 9999 to 9998) from SRCIP to DSTIP in frames to DSTMAC; idle MS:
 * give up after MS without a received frame or a completion (default
 * 3000); first MS: the same before the first one (default 30000); ready FILE: created once the socket
 * is in the map. Prints one JSON object: received, pps (frames a second
 * from the first to the last received), sent, completed,
 * polls (poll() calls), readable (how many said POLLIN), tx_spins (POLLOUT
 * returns that completed nothing: where QEMU would spin), and the
 * socket's drop counters.
 *
 * Exit 0; 2 on a failed step, with "xsk-vmm: STEP: strerror" on stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <xdp/xsk.h>

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define BATCH 64            /* QEMU's AF_XDP_BATCH_SIZE */

struct vmm {
	struct xsk_socket *xsk;
	struct xsk_umem *umem;
	struct xsk_ring_cons rx, cq;
	struct xsk_ring_prod tx, fq;
	char *buffer;
	uint64_t *pool;       /* free frames, a LIFO as QEMU keeps them */
	uint32_t n_pool, outstanding;
	bool write_poll;
};

struct opts {
	const char *dev, *pin, *ready;
	uint32_t queue, index, rx, tx;
	uint8_t dmac[6];
	struct in_addr sip, dip;
	int idle_ms, first_ms;
	bool copy;
};

struct counts {
	uint32_t received, sent, completed;
	unsigned long polls, readable, tx_spins;
	double first, last;   /* ms: the first and last frames received */
};

static int fail(const char *step, int err)
{
	fprintf(stderr, "xsk-vmm: %s: %s\n", step, strerror(err));
	return 2;
}

static void fq_refill(struct vmm *v, uint32_t n)
{
	uint32_t idx = 0;

	if (v->n_pool < n + 1)  /* one kept for TX, as QEMU does */
		n = v->n_pool;
	if (!n || !xsk_ring_prod__reserve(&v->fq, n, &idx))
		return;
	for (uint32_t i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&v->fq, idx++) = v->pool[--v->n_pool];
	xsk_ring_prod__submit(&v->fq, n);
}

static int umem_create(struct vmm *v)
{
	struct xsk_umem_config cfg = {
		.fill_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = XSK_UMEM__DEFAULT_FRAME_SIZE,
		.frame_headroom = 0,
	};
	uint64_t n = (XSK_RING_PROD__DEFAULT_NUM_DESCS + XSK_RING_CONS__DEFAULT_NUM_DESCS) * 2;
	uint64_t size = n * XSK_UMEM__DEFAULT_FRAME_SIZE;
	int ret;

	if (posix_memalign((void **)&v->buffer, (size_t)sysconf(_SC_PAGESIZE), size))
		return fail("allocate the UMEM", ENOMEM);
	memset(v->buffer, 0, size);
	ret = xsk_umem__create(&v->umem, v->buffer, size, &v->fq, &v->cq, &cfg);
	if (ret)
		return fail("xsk_umem__create", -ret);
	v->pool = calloc(n, sizeof(*v->pool));
	if (!v->pool)
		return fail("allocate the frame pool", ENOMEM);
	for (uint64_t i = 0; i < n; i++)
		v->pool[i] = (n - 1 - i) * XSK_UMEM__DEFAULT_FRAME_SIZE;
	v->n_pool = (uint32_t)n;
	fq_refill(v, XSK_RING_PROD__DEFAULT_NUM_DESCS);
	return 0;
}

static int socket_create(struct vmm *v, const struct opts *o)
{
	struct xsk_socket_config cfg = {
		.rx_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.tx_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP | (o->copy ? XDP_COPY : 0),
		.xdp_flags = XDP_FLAGS_UPDATE_IF_NOEXIST | XDP_FLAGS_DRV_MODE,
	};
	int ret = xsk_socket__create(&v->xsk, o->dev, o->queue, v->umem, &v->rx, &v->tx, &cfg);

	if (ret) {  /* QEMU with no mode: native first, then skb */
		cfg.xdp_flags = XDP_FLAGS_UPDATE_IF_NOEXIST | XDP_FLAGS_SKB_MODE;
		ret = xsk_socket__create(&v->xsk, o->dev, o->queue, v->umem, &v->rx, &v->tx, &cfg);
	}
	return ret ? fail("xsk_socket__create", -ret) : 0;
}

/* map-path and map-start-index: the socket at INDEX of the pinned map. */
static int map_insert(const struct vmm *v, const struct opts *o)
{
	int fd = bpf_obj_get(o->pin), sock = xsk_socket__fd(v->xsk);
	uint32_t key = o->index;

	if (fd < 0)
		return fail("open the pinned XSK map", errno);
	if (bpf_map_update_elem(fd, &key, &sock, 0)) {
		int e = errno;

		close(fd);
		return fail("insert the socket into the XSK map", e);
	}
	close(fd);
	return 0;
}

static uint16_t csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An Ethernet + IPv4 + UDP frame of datagram i into buf: its length. */
static uint32_t frame_build(const struct opts *o, uint32_t i, uint8_t *buf)
{
	static const uint8_t smac[6] = { 0x02, 0x6e, 0x6b, 0x76, 0x6d, 0x6d };
	char payload[32];
	int plen = snprintf(payload, sizeof(payload), "vm %u", i);
	uint8_t *ip = buf + 14, *udp = ip + 20;
	uint16_t tot = (uint16_t)(20 + 8 + plen), ulen = (uint16_t)(8 + plen), c;

	memcpy(buf, o->dmac, 6);
	memcpy(buf + 6, smac, 6);
	buf[12] = 0x08, buf[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8), ip[3] = (uint8_t)tot;
	ip[4] = (uint8_t)(i >> 8), ip[5] = (uint8_t)i;
	ip[8] = 64, ip[9] = 17;
	memcpy(ip + 12, &o->sip, 4);
	memcpy(ip + 16, &o->dip, 4);
	c = csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
	udp[0] = 9999 >> 8, udp[1] = 9999 & 0xff, udp[2] = 9998 >> 8, udp[3] = 9998 & 0xff;
	udp[4] = (uint8_t)(ulen >> 8), udp[5] = (uint8_t)ulen, udp[6] = 0, udp[7] = 0;
	memcpy(udp + 8, payload, (size_t)plen);
	return 14 + tot;
}

static uint32_t complete_tx(struct vmm *v)
{
	uint32_t idx = 0, done = xsk_ring_cons__peek(&v->cq, XSK_RING_CONS__DEFAULT_NUM_DESCS, &idx);

	for (uint32_t i = 0; i < done; i++)
		v->pool[v->n_pool++] = *xsk_ring_cons__comp_addr(&v->cq, idx++);
	if (done)
		xsk_ring_cons__release(&v->cq, done);
	v->outstanding -= done;
	return done;
}

/* A guest frame handed to the backend (QEMU's receive callback). */
static bool tx_one(struct vmm *v, const struct opts *o, uint32_t i)
{
	struct xdp_desc *d;
	uint32_t idx;

	complete_tx(v);
	if (!v->n_pool || !xsk_ring_prod__reserve(&v->tx, 1, &idx)) {
		v->write_poll = true;
		return false;
	}
	d = xsk_ring_prod__tx_desc(&v->tx, idx);
	d->addr = v->pool[--v->n_pool];
	d->len = frame_build(o, i, xsk_umem__get_data(v->buffer, d->addr));
	xsk_ring_prod__submit(&v->tx, 1);
	v->outstanding++;
	if (xsk_ring_prod__needs_wakeup(&v->tx))
		v->write_poll = true;
	return true;
}

/* The read handler: one batch, the ring released, the fill ring refilled. */
static uint32_t rx_batch(struct vmm *v)
{
	uint32_t idx = 0, n = xsk_ring_cons__peek(&v->rx, BATCH, &idx);

	for (uint32_t i = 0; i < n; i++)
		v->pool[v->n_pool++] = xsk_ring_cons__rx_desc(&v->rx, idx++)->addr;
	if (n) {
		xsk_ring_cons__release(&v->rx, n);
		fq_refill(v, BATCH);
	}
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void run(struct vmm *v, const struct opts *o, struct counts *c)
{
	struct pollfd p = { .fd = xsk_socket__fd(v->xsk) };
	double last = now_ms();
	bool any = false;

	while (c->sent < o->tx && tx_one(v, o, c->sent))
		c->sent++;
	while (c->received < o->rx || c->sent < o->tx || v->outstanding) {
		int wait = any ? o->idle_ms : o->first_ms, r;

		if (now_ms() - last > wait)
			break;
		p.events = (short)(POLLIN | (v->write_poll ? POLLOUT : 0));
		r = poll(&p, 1, wait);
		c->polls++;
		if (r <= 0)
			break;
		if (p.revents & POLLIN) {
			uint32_t n = rx_batch(v);

			c->readable++;
			if (n && !c->received)
				c->first = now_ms();
			c->received += n;
			if (n)
				last = c->last = now_ms(), any = true;
		}
		if (p.revents & POLLOUT) {
			uint32_t done = complete_tx(v);

			c->completed += done;
			if (done)
				last = now_ms(), any = true;
			else
				c->tx_spins++;
			if (!v->outstanding || !xsk_ring_prod__needs_wakeup(&v->tx))
				v->write_poll = false;
			while (c->sent < o->tx && tx_one(v, o, c->sent))
				c->sent++;
		}
	}
	c->completed += complete_tx(v);
}

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: xsk-vmm DEV QUEUE PIN INDEX [rx N] [tx N DSTMAC SRCIP DSTIP] "
			"[idle MS] [first MS] [ready FILE] [copy]\n");
	return 1;
}

static int parse(int argc, char **argv, struct opts *o)
{
	if (argc < 5)
		return -1;
	o->dev = argv[1];
	o->queue = (uint32_t)strtoul(argv[2], NULL, 0);
	o->pin = argv[3];
	o->index = (uint32_t)strtoul(argv[4], NULL, 0);
	o->idle_ms = 3000;
	o->first_ms = 30000;
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "rx") && i + 1 < argc) {
			o->rx = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "tx") && i + 4 < argc) {
			o->tx = (uint32_t)strtoul(argv[++i], NULL, 0);
			if (parse_mac(argv[++i], o->dmac) || !inet_aton(argv[i + 1], &o->sip) ||
			    !inet_aton(argv[i + 2], &o->dip))
				return -1;
			i += 2;
		} else if (!strcmp(argv[i], "idle") && i + 1 < argc) {
			o->idle_ms = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "first") && i + 1 < argc) {
			o->first_ms = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "ready") && i + 1 < argc) {
			o->ready = argv[++i];
		} else if (!strcmp(argv[i], "copy")) {
			o->copy = true;
		} else {
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct xdp_statistics st = { 0 };
	socklen_t len = sizeof(st);
	struct counts c = { 0 };
	struct vmm v = { 0 };
	struct opts o = { 0 };
	int ret;

	if (parse(argc, argv, &o))
		return usage();
	ret = umem_create(&v);
	if (!ret)
		ret = socket_create(&v, &o);
	if (!ret)
		ret = map_insert(&v, &o);
	if (ret)
		return ret;
	if (o.ready)
		close(open(o.ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	run(&v, &o, &c);
	getsockopt(xsk_socket__fd(v.xsk), SOL_XDP, XDP_STATISTICS, &st, &len);
	printf("{\"received\":%u,\"pps\":%.0f,\"sent\":%u,\"completed\":%u,\"polls\":%lu,\"readable\":%lu,"
	       "\"tx_spins\":%lu,\"rx_dropped\":%llu,\"rx_ring_full\":%llu,"
	       "\"rx_fill_ring_empty\":%llu,\"tx_invalid\":%llu}\n",
	       c.received,
	       c.received > 1 && c.last > c.first ? (c.received - 1) * 1e3 / (c.last - c.first) : 0.0,
	       c.sent, c.completed, c.polls, c.readable, c.tx_spins,
	       (unsigned long long)st.rx_dropped, (unsigned long long)st.rx_ring_full,
	       (unsigned long long)st.rx_fill_ring_empty_descs,
	       (unsigned long long)st.tx_invalid_descs);
	xsk_socket__delete(v.xsk);
	xsk_umem__delete(v.umem);
	return 0;
}
