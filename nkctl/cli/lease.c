// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl lease: its parameters and what it prints; the lease itself is the
 * lease unit's (lease/make.c). The kernel has no unlease operation: a lease
 * ends when the netkit device holding it is deleted, so unlease deletes the
 * holder (freely when it is a single-mode device).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "compat.h"
#include "core/cmd.h"
#include "cli/lease.h"
#include "lease/nicside.h"
#include "lease/scan.h"
#include "netns.h"
#include "xsk/xsksweep.h"

static int parse_one_addr(const char *s, struct steer_list *l)
{
	if (l->n == NK_LEASE_MAX_STEER)
		return nk_error(NK_EXIT_USAGE, "at most %d addresses after \"steer dst\"",
				NK_LEASE_MAX_STEER);
	if (inet_pton(AF_INET, s, l->addr[l->n]) == 1) {
		l->v6[l->n++] = false;
		return 0;
	}
	if (inet_pton(AF_INET6, s, l->addr[l->n]) == 1) {
		l->v6[l->n++] = true;
		return 0;
	}
	return nk_error(NK_EXIT_USAGE, "invalid value \"%s\" for \"dst\": not an IPv4 or IPv6 address", s);
}

/* The words after "steer": "dst ADDR[,ADDR...]"; steer may repeat, adding
 * to the same list. */
static int parse_steer(const struct nk_param *d, int argc, char **argv, void *slot)
{
	struct steer_list *l = slot;
	char buf[512], *tok, *save = NULL;

	(void)d;
	if (argc < 1 || strcmp(argv[0], "dst"))
		return -nk_error(NK_EXIT_USAGE, "\"steer\" needs \"dst ADDR\"");
	if (argc < 2 || !argv[1][0])
		return -nk_error(NK_EXIT_USAGE, "\"steer dst\" needs an ADDR");
	snprintf(buf, sizeof(buf), "%s", argv[1]);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (parse_one_addr(tok, l))
			return -NK_EXIT_USAGE;
	if (!l->n)
		return -nk_error(NK_EXIT_USAGE, "\"steer dst\" needs an ADDR");
	return 2;
}

/* For completion and help: the word after "steer". */
static const struct nk_choice steer_words[] = { { "dst", 0, NULL }, { NULL, 0, NULL } };

static const struct nk_param lease_params[] = {
	NK_LEASE_PARAM("dev", NKP_IFNAME, dev, "NKDEV", true),
	NK_LEASE_PARAM("from", NKP_IFNAME, from, "PHYS", true),
	NK_LEASE_PARAM("phys-netns", NKP_NETNS, phys_netns, "NETNS", false),
	NK_LEASE_PARAM("queue", NKP_STRING, queue, "LIST", false),
	NK_LEASE_PARAM("pool", NKP_STRING, pool, "LIST", false),
	{ "count", NKP_U32, offsetof(struct lease_args, count), "N", 1, NK_MAX_QUEUES, NULL,
	  false, NULL },
	NK_LEASE_PARAM("reserve", NKP_FLAG, reserve, NULL, false),
	{ "steer", NKP_CUSTOM, offsetof(struct lease_args, steer), "dst ADDR[,ADDR...]", 0,
	  NK_LEASE_MAX_STEER, steer_words, false, parse_steer },
};
/* The exact queues, or how many of a pool. */
static const struct nk_rule lease_rules[] = {
	{ NK_RULE_ONE_OF, { "queue", "pool" } },
	{ NK_RULE_NEEDS, { "count", "pool" } },
};
const struct nk_params cmd_lease_params = {
	NK_PARAMS("lease", struct lease_args, lease_params), NK_RULES(lease_rules),
};









/* The lease objects of show leases, NIC side included, with "existed". */
static void print_leases(struct nk_ctx *ctx, const struct lease_job *j, struct nk_ns *here)
{
	struct nk_nic_reader rd = { 0 };
	struct nk_lease_nic nic;
	struct nk_lease_rec r;

	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "leases");
	for (size_t i = 0; i < j->n; i++) {
		memset(&r, 0, sizeof(r));
		nk_lease_set_ns(&r, j->nic->ns, here);
		r.nic_ifindex = j->nic->link.ifindex;
		snprintf(r.nic_ifname, sizeof(r.nic_ifname), "%s", j->nic->link.ifname);
		r.nic_queue = j->ids[i];
		r.nk_ifindex = j->nk.ifindex;
		snprintf(r.nk_ifname, sizeof(r.nk_ifname), "%s", j->nk.ifname);
		r.nk_queue = j->nk_ids[i];
		r.existed = j->existed[i];
		if (nk_nic_lease_info(ctx, &rd, j->nic->ns, j->nic->link.ifindex, j->ids[i], &nic))
			r.nic = &nic;
		nk_print_lease(&ctx->out, &r, true);
	}
	nk_nic_reader_free(&rd);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}











int cmd_lease(struct nk_ctx *ctx, const void *args)
{
	const struct lease_args *a = args;
	struct lease_job *j = calloc(1, sizeof(*j));
	struct nk_ns *here;
	int ret;

	if (!j)
		return nk_error_errno(ENOMEM, "lease");
	ret = a->queue ? nk_parse_queue_list("queue", a->queue, j->ids, &j->n) :
			 nk_parse_queue_list("pool", a->pool, j->pool, &j->npool);
	if (!ret)
		ret = nk_lease_make(ctx, j, a);
	/* an AF_XDP slot of a queue now leased, left by a holder deleted
	 * behind nkctl's back, must not send the new holder's frames to the
	 * old one's map */
	if (!ret)
		nk_xsk_sweep(ctx, false, NULL);
	if (!ret)
		ret = nk_ns_here(ctx, &here);
	if (!ret)
		print_leases(ctx, j, here);
	nk_nic_job_free(j->nic);
	free(j);
	return ret;
}
