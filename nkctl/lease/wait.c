// SPDX-License-Identifier: GPL-2.0
/*
 * unlease's wait for memory providers. An io_uring zero-copy receive ring or
 * a devmem binding leaves its provider on the NIC queue after its user has
 * gone, until the kernel has torn it down (asynchronously: the kernel's own
 * zcrx test polls queue-get for up to 5 s). Deleting the holder meanwhile can
 * block in the kernel, so unlease waits for the provider first, bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "lease/wait.h"

#define POLL_MS 100

static size_t with_provider(const struct nk_lease_list *held, const struct nk_lease_rec **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < held->n; i++) {
		if (!held->v[i].mp)
			continue;
		if (!n++)
			*first = &held->v[i];
	}
	return n;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec t = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000 };
	struct timespec left;

	while (nanosleep(&t, &left) && errno == EINTR)
		t = left;
}

uint64_t nk_lease_deadline(uint32_t seconds)
{
	return now_ms() + (uint64_t)seconds * 1000;
}

int nk_lease_wait_providers(struct nk_ctx *ctx, struct nk_ns *hns, const struct nk_link *l,
			    uint64_t end, struct nk_lease_list *all, struct nk_lease_list *held)
{
	const struct nk_lease_rec *first;
	size_t n = with_provider(held, &first);
	uint64_t now = now_ms();
	int ret = 0;

	if (!n || now >= end)
		return 0;
	nk_warn("\"%s\" queue %u (%s queue %u)%s still has a memory provider; waiting up to %llu s for it to go",
		l->ifname, first->nk_queue, first->nic_ifname, first->nic_queue,
		n > 1 ? " and others" : "", (unsigned long long)((end - now + 999) / 1000));
	while (!ret && with_provider(held, &first) && (now = now_ms()) < end) {
		uint64_t left = end - now;

		sleep_ms(left < POLL_MS ? left : POLL_MS);
		free(held->v);
		nk_lease_list_free(all);
		ret = nk_lease_held_by(ctx, hns, l->ifindex, all, held);
	}
	return ret;
}
