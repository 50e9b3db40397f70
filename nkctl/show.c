// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl show: the show table; show [ dev NAME ] on devview.c's view, and
 * show kernel, the features of kernel.c each probed (show leases and show
 * bindings have their own files).
 */
#include <string.h>
#include <sys/utsname.h>

#include "cmd.h"
#include "devview.h"
#include "kernel.h"

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

int cmd_show_kernel(struct nk_ctx *ctx, const void *args)
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
