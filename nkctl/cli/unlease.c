// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl unlease: its parameters and what it prints; ending the leases is
 * the lease unit's (lease/end.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "compat.h"
#include "core/cmd.h"
#include "cli/lease.h"
#include "lease/end.h"
#include "view/devview.h"
#include "xsk/xsksweep.h"

enum { UNLEASE_WAIT = 6 };        /* its row in unlease_params */
static const struct nk_param unlease_params[] = {
	NK_LEASE_PARAM("dev", NKP_IFNAME, dev, "NKDEV", false),
	NK_LEASE_PARAM("netns", NKP_NETNS, dev_netns, "NETNS", false),
	NK_LEASE_PARAM("from", NKP_IFNAME, from, "PHYS", false),
	NK_LEASE_PARAM("phys-netns", NKP_NETNS, phys_netns, "NETNS", false),
	NK_LEASE_PARAM("queue", NKP_STRING, queue, "LIST", false),
	NK_LEASE_PARAM("force", NKP_FLAG, force, NULL, false),
	[UNLEASE_WAIT] = { "wait", NKP_U32, offsetof(struct lease_args, wait), "SECONDS", 0,
			   NK_LEASE_MAX_MP_WAIT, NULL, false, NULL },
	NK_LEASE_PARAM("holders", NKP_STRING, holders, "NKDEV[,NKDEV...]", false),
};
/* Either the holder, or the NIC's queues. */
static const struct nk_rule unlease_rules[] = {
	{ NK_RULE_ONE_OF, { "dev", "from" } },
	{ NK_RULE_EXCLUSIVE, { "dev", "queue" } },
	{ NK_RULE_EXCLUSIVE, { "dev", "phys-netns" } },
	{ NK_RULE_NEEDS, { "netns", "dev" } },
	{ NK_RULE_NEEDS, { "from", "queue" } },
	{ NK_RULE_NEEDS, { "holders", "from" } },
};
const struct nk_params cmd_unlease_params = {
	NK_PARAMS("unlease", struct lease_args, unlease_params), NK_RULES(unlease_rules),
};

/* Print the unlease result: the leases that ended, the devices deleted to
 * end them, and nkctl's redirects that went with those (as link del does). */
static int print_unleased(struct nk_ctx *ctx, const struct holder_end *t, size_t n)
{
	struct nk_gone *gone = calloc(n * NK_GONE_MAX, sizeof(*gone));
	struct out *o = &ctx->out;
	size_t ngone = 0;

	if (!gone)
		return nk_error_errno(ENOMEM, "unlease");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].ngone; k++)
			gone[ngone++] = t[i].gone[k];
	out_begin(o);
	out_arr_open(o, "unleased");
	out_text(o, "ended:\n");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].ended.n; k++)
			nk_print_lease(o, &t[i].ended.v[k], false);
	out_arr_close(o);
	out_arr_open(o, "deleted");
	for (size_t i = 0; i < n; i++) {
		out_text(o, i ? "\n" : "");
		nk_print_deleted(o, &t[i].l, t[i].has_peer ? &t[i].peer : NULL);
	}
	out_arr_close(o);
	out_text(o, "\n");
	nk_redirect_forget(ctx, gone, ngone);
	out_end(o);
	free(gone);
	return NK_EXIT_OK;
}

/* Nothing to end (-force): empty lists, and why. */
static int print_nothing(struct nk_ctx *ctx, const char *what)
{
	out_begin(&ctx->out);
	out_arr_open(&ctx->out, "unleased");
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "deleted");
	out_arr_close(&ctx->out);
	out_arr_open(&ctx->out, "detached");
	out_arr_close(&ctx->out);
	out_text(&ctx->out, "nothing to unlease: %s\n", what);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* How long unlease waits for memory providers: wait SECONDS, or the default. */
static uint32_t mp_wait(const struct nk_ctx *ctx, const struct lease_args *a)
{
	return (ctx->given & (1ull << UNLEASE_WAIT)) ? a->wait : NK_LEASE_MP_WAIT;
}

int cmd_unlease(struct nk_ctx *ctx, const void *args)
{
	const struct lease_args *a = args;
	struct nk_unlease u = { .wait = mp_wait(ctx, a) };
	int ret = nk_unlease(ctx, a, &u);

	if (u.done)
		nk_xsk_sweep(ctx, false, NULL);  /* AF_XDP attaches of the queues that ended */
	if (!ret)
		ret = u.nothing ? print_nothing(ctx, u.what) : print_unleased(ctx, u.t, u.done);
	nk_unlease_free(&u);
	return ret;
}
