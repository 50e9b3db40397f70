// SPDX-License-Identifier: GPL-2.0
/*
 * What a VMM's af-xdp backend does with a map "nkctl xsk attach" prepared,
 * in plain syscalls (no libxdp): an AF_XDP socket with its own UMEM, bound
 * (XDP_COPY unless "zerocopy") to queue QUEUE of DEV, inserted at index
 * QUEUE of the pinned XSK map PIN (BPF_OBJ_GET, BPF_MAP_UPDATE_ELEM: only
 * the pin's owner, group and mode let an unprivileged user do it); then it
 * counts the frames received until COUNT arrived or nothing came for
 * IDLE_MS (30 s before the first), and prints {"received":N,"pps":P} and the socket's drop counters. READY (optional) is created
 * once the socket is in the map.
 *
 *   xsk-rx DEV QUEUE PIN COUNT IDLE_MS [READY] [zerocopy]
 *
 * XSK_RX_INDEX=I in the environment inserts at index I instead of QUEUE
 * (bench/xsk.sh: a socket bound to the NIC's queue in the holder's slot);
 * XSK_RX_POLL_MS=M polls M ms at a time (default 100; 0: busy polling);
 * XSK_RX_FIRST_MS=F waits F ms for the first frame (default 30 s: a test
 * that expects none need not wait that long).
 *
 * Exit 0; 2 on a failed step, with "xsk-rx: STEP: strerror" on stderr
 * (the test reads "Permission denied" from the map's step).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/if_xdp.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define FRAMES 256
#define FRAME_SIZE 4096
#define RING 256
#define FIRST_WAIT_MS 30000

struct ring {
	uint32_t *producer, *consumer;
	void *desc;
};

static int fail(const char *step)
{
	fprintf(stderr, "xsk-rx: %s: %s\n", step, strerror(errno));
	return 2;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_insert(const char *pin, uint32_t index, int sock)
{
	union bpf_attr attr;
	uint32_t value = (uint32_t)sock;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)pin;
	fd = (int)sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0)
		return fail("open the pinned XSK map");
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = (uint64_t)(uintptr_t)&index;
	attr.value = (uint64_t)(uintptr_t)&value;
	attr.flags = BPF_ANY;
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
		return fail("insert the socket into the XSK map");
	close(fd);
	return 0;
}

static int ring_map(int sock, const struct xdp_ring_offset *off, off_t pgoff, size_t esz,
		    struct ring *r)
{
	size_t len = off->desc + RING * esz;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, sock, pgoff);

	if (m == MAP_FAILED)
		return -1;
	r->producer = (uint32_t *)(m + off->producer);
	r->consumer = (uint32_t *)(m + off->consumer);
	r->desc = m + off->desc;
	return 0;
}

static int socket_setup(const char *dev, uint32_t queue, bool zerocopy, struct ring *fill,
			struct ring *rx, int *out)
{
	struct xdp_umem_reg reg = { 0 };
	struct xdp_mmap_offsets off;
	struct sockaddr_xdp sxdp = { 0 };
	socklen_t olen = sizeof(off);
	int sock, size = RING;
	void *umem;

	sock = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return fail("socket(AF_XDP)");
	umem = mmap(NULL, FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (umem == MAP_FAILED)
		return fail("mmap the UMEM");
	reg.addr = (uint64_t)(uintptr_t)umem;
	reg.len = FRAMES * FRAME_SIZE;
	reg.chunk_size = FRAME_SIZE;
	if (setsockopt(sock, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)))
		return fail("register the UMEM");
	if (setsockopt(sock, SOL_XDP, XDP_UMEM_FILL_RING, &size, sizeof(size)) ||
	    setsockopt(sock, SOL_XDP, XDP_UMEM_COMPLETION_RING, &size, sizeof(size)) ||
	    setsockopt(sock, SOL_XDP, XDP_RX_RING, &size, sizeof(size)))
		return fail("size the rings");
	if (getsockopt(sock, SOL_XDP, XDP_MMAP_OFFSETS, &off, &olen))
		return fail("read the ring offsets");
	if (ring_map(sock, &off.fr, XDP_UMEM_PGOFF_FILL_RING, sizeof(uint64_t), fill) ||
	    ring_map(sock, &off.rx, XDP_PGOFF_RX_RING, sizeof(struct xdp_desc), rx))
		return fail("mmap the rings");
	for (uint32_t i = 0; i < RING; i++)
		((uint64_t *)fill->desc)[i] = (uint64_t)i * FRAME_SIZE;
	__atomic_store_n(fill->producer, RING, __ATOMIC_RELEASE);
	sxdp.sxdp_family = AF_XDP;
	sxdp.sxdp_ifindex = if_nametoindex(dev);
	sxdp.sxdp_queue_id = queue;
	sxdp.sxdp_flags = zerocopy ? XDP_ZEROCOPY : XDP_COPY;
	if (!sxdp.sxdp_ifindex)
		return fail("find the device");
	if (bind(sock, (struct sockaddr *)&sxdp, sizeof(sxdp)))
		return fail("bind to the queue");
	*out = sock;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Take what the RX ring holds and give the frames back to the fill ring. */
static uint32_t drain(struct ring *rx, struct ring *fill)
{
	uint32_t prod = __atomic_load_n(rx->producer, __ATOMIC_ACQUIRE);
	uint32_t cons = *rx->consumer, n = prod - cons;
	uint32_t fprod = *fill->producer;

	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = (const struct xdp_desc *)rx->desc + ((cons + i) % RING);

		((uint64_t *)fill->desc)[(fprod + i) % RING] = d->addr & ~(uint64_t)(FRAME_SIZE - 1);
	}
	__atomic_store_n(rx->consumer, prod, __ATOMIC_RELEASE);
	__atomic_store_n(fill->producer, fprod + n, __ATOMIC_RELEASE);
	return n;
}

/* The socket's drop counters, for a test that got fewer frames than sent. */
static void print_stats(int sock)
{
	struct xdp_statistics st = { 0 };
	socklen_t len = sizeof(st);

	if (getsockopt(sock, SOL_XDP, XDP_STATISTICS, &st, &len))
		return;
	printf(",\"rx_dropped\":%llu,\"rx_invalid_descs\":%llu,\"rx_ring_full\":%llu,\"rx_fill_ring_empty\":%llu",
	       (unsigned long long)st.rx_dropped, (unsigned long long)st.rx_invalid_descs,
	       (unsigned long long)st.rx_ring_full, (unsigned long long)st.rx_fill_ring_empty_descs);
}

int main(int argc, char **argv)
{
	struct ring fill = { 0 }, rx = { 0 };
	unsigned long count, idle, got = 0;
	const char *index_env = getenv("XSK_RX_INDEX");
	const char *poll_env = getenv("XSK_RX_POLL_MS");
	int poll_ms = poll_env ? atoi(poll_env) : 100;
	const char *first_env = getenv("XSK_RX_FIRST_MS");
	double first_wait = first_env ? atof(first_env) : FIRST_WAIT_MS;
	double start, first = 0, last = 0;
	bool zerocopy;
	uint32_t queue;
	int sock = -1, ret;

	if (argc < 6) {
		fprintf(stderr, "usage: xsk-rx DEV QUEUE PIN COUNT IDLE_MS [READY] [zerocopy]\n");
		return 1;
	}
	queue = (uint32_t)strtoul(argv[2], NULL, 10);
	count = strtoul(argv[4], NULL, 10);
	idle = strtoul(argv[5], NULL, 10);
	zerocopy = argc > 7 && !strcmp(argv[7], "zerocopy");
	ret = socket_setup(argv[1], queue, zerocopy, &fill, &rx, &sock);
	if (!ret)
		ret = map_insert(argv[3], index_env ? (uint32_t)strtoul(index_env, NULL, 10) : queue,
				 sock);
	if (ret)
		return ret;
	if (argc > 6 && argv[6][0]) {
		int fd = open(argv[6], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
	}
	/* Short polls, the ring read after each: a frame is counted even when
	 * its wakeup was missed. */
	start = now();
	while (got < count) {
		struct pollfd p = { sock, POLLIN, 0 };
		uint32_t n;

		poll(&p, 1, poll_ms);
		n = drain(&rx, &fill);
		if (n && !got)
			first = now();
		if (n)
			last = now();
		got += n;
		/* the first frame may be a sender's start-up away (TCG) */
		if (now() - (got ? last : start) > (got ? (double)idle : first_wait) / 1000)
			break;
	}
	printf("{\"received\":%lu,\"pps\":%.0f,\"seconds\":%.1f", got,
	       got > 1 && last > first ? (double)(got - 1) / (last - first) : 0.0, now() - start);
	print_stats(sock);
	printf("}\n");
	return 0;
}
