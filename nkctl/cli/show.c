// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl show: the show table; show [ dev NAME ] on devview.c's view, show
 * kernel (the features of kernel.c, each probed) and show leases (the lease
 * table of lease/scan.c); show bindings is bind.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/cmd.h"
#include "view/devview.h"
#include "core/kernel.h"
#include "lease/scan.h"
#include "nic/nicjob.h"
#include "view/stats.h"
#include "xsk/xskread.h"

struct show_args {
	const char *dev;
	struct nk_interval every;
};

static const struct nk_param show_params[] = {
	{ "dev", NKP_IFNAME, offsetof(struct show_args, dev), "NAME", 0, 0, NULL, false, NULL },
	NK_INTERVAL_PARAMS(struct show_args, every),
};
static const struct nk_rule show_rules[] = { NK_INTERVAL_RULE };
const struct nk_params cmd_show_devices_params = {
	NK_PARAMS("show", struct show_args, show_params), NK_RULES(show_rules),
};

static const struct nk_param show_leases_params[] = {
	NK_INTERVAL_PARAMS(struct nk_show_leases_args, every),
};
const struct nk_params cmd_show_leases_params = {
	NK_PARAMS("show leases", struct nk_show_leases_args, show_leases_params),
	NK_RULES(show_rules),
};

static int cmd_show_kernel(struct nk_ctx *ctx, const void *args);

static const struct nk_cmd show_cmds[] = {
	{ NULL, cmd_show_devices, NULL, &cmd_show_devices_params, NULL,
	  "every device of the namespace (or one) with its queues and NAPIs" },
	{ "kernel", cmd_show_kernel, NULL, NULL, NULL,
	  "which netkit, queue-lease, devmem and BPF features this kernel has" },
	{ "leases", cmd_show_leases, NULL, &cmd_show_leases_params, NULL,
	  "every RX queue lease visible from the namespaces nkctl can reach" },
	{ "bindings", cmd_show_bindings, NULL, &cmd_show_bindings_params, NULL,
	  "devmem dmabuf bindings of the namespace: held by nkctl (alive or stale) or seen on queues" },
};
const struct nk_table nk_show_table = NK_TABLE("nkctl show", show_cmds);

int cmd_show_devices(struct nk_ctx *ctx, const void *args)
{
	const struct show_args *a = args;

	if (a->every.interval)
		return nk_show_rates(ctx, a->dev, &a->every);
	return nk_show(ctx, a->dev, false);
}

/* ---- show kernel ---- */

static void print_feature(enum nk_feature id, bool supported, const char *state,
			  const char *detail, void *data)
{
	struct out *o = data;

	out_obj_open(o, NULL);
	out_str(o, "name", "  %-16s", nk_feature_name(id));
	out_bool(o, "supported", NULL, supported);
	out_str(o, "state", " %s", state);
	out_str(o, "detail", detail[0] ? " (%s)" : NULL, detail);
	out_str(o, "since", " (Linux %s+)", nk_feature_since(id));
	out_text(o, "\n");
	out_obj_close(o);
}

static int cmd_show_kernel(struct nk_ctx *ctx, const void *args)
{
	struct utsname un;

	(void)args;
	if (uname(&un))
		memset(&un, 0, sizeof(un));
	out_begin(&ctx->out);
	out_obj_open(&ctx->out, "kernel");
	out_str(&ctx->out, "release", "kernel %s\n", un.release);
	out_arr_open(&ctx->out, "features");
	nk_features_probe(ctx, print_feature, &ctx->out);
	out_arr_close(&ctx->out);
	out_obj_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* ---- show leases ---- */

static void print_leases(struct nk_ctx *ctx, struct nk_lease_list *l, uint32_t interval)
{
	out_begin(&ctx->out);
	if (interval)
		out_uint(&ctx->out, "interval", "counters per second over %llu s\n", interval);
	struct nk_nic_reader rd = { 0 };
	struct nk_xsk_reader xrd = { 0 };

	out_arr_open(&ctx->out, "leases");
	for (size_t i = 0; i < l->n; i++) {
		struct nk_lease_nic nic;
		char pin[PIN_LEN];

		if (nk_nic_lease_info(ctx, &rd, l->v[i].nic_ns, l->v[i].nic_ifindex,
				      l->v[i].nic_queue, &nic))
			l->v[i].nic = &nic;
		if (l->v[i].nic_ns &&
		    nk_xsk_pin_read(&xrd, l->v[i].nic_ns, l->v[i].nic_ifindex, l->v[i].nic_queue,
				    pin))
			l->v[i].xsk_map = pin;
		nk_print_lease(&ctx->out, &l->v[i], false);
		l->v[i].nic = NULL;
		l->v[i].xsk_map = NULL;
	}
	nk_nic_reader_free(&rd);
	out_arr_close(&ctx->out);
	out_end(&ctx->out);
}

static int scan_leases(struct nk_ctx *ctx, struct nk_lease_list *l, bool stats)
{
	int ret = nk_lease_scan(ctx, l);

	if (ret)
		return nk_error_errno(-ret, "cannot scan the leases");
	if (stats)
		nk_lease_stats(l);
	return 0;
}

/* Print now's leases with rates since before; now keeps its counters. */
static int print_lease_rates(struct nk_ctx *ctx, const struct nk_lease_list *now,
			     const struct nk_lease_list *before, uint32_t seconds)
{
	struct nk_lease_list rate = *now;

	rate.v = malloc((now->n ? now->n : 1) * sizeof(*now->v));
	if (!rate.v)
		return nk_error_errno(ENOMEM, "cannot compute the rates");
	if (now->n)
		memcpy(rate.v, now->v, now->n * sizeof(*now->v));
	nk_lease_rates(&rate, before, seconds);
	print_leases(ctx, &rate, seconds);
	nk_ctx_flush(ctx);
	free(rate.v);
	return 0;
}

/* show leases interval S [ count N ]: as show's, one document per interval. */
static int show_lease_rates(struct nk_ctx *ctx, const struct nk_interval *every)
{
	struct nk_lease_list before = { 0 }, now = { 0 };
	uint32_t count = every->count ? every->count : 1;
	int ret = scan_leases(ctx, &before, true);

	for (uint32_t i = 0; !ret && i < count; i++) {
		nk_sleep(every->interval);
		ret = scan_leases(ctx, &now, true);
		if (ret)
			break;
		ret = print_lease_rates(ctx, &now, &before, every->interval);
		nk_lease_list_free(&before);
		before = now;
		memset(&now, 0, sizeof(now));
	}
	nk_lease_list_free(&before);
	nk_lease_list_free(&now);
	return ret;
}

int cmd_show_leases(struct nk_ctx *ctx, const void *args)
{
	const struct nk_show_leases_args *a = args;
	struct nk_lease_list l;
	int ret;

	if (a->every.interval)
		return show_lease_rates(ctx, &a->every);
	ret = scan_leases(ctx, &l, ctx->stats);
	if (ret)
		return ret;
	print_leases(ctx, &l, 0);
	nk_lease_list_free(&l);
	return NK_EXIT_OK;
}
