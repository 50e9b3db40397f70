/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Commands: the dispatch tables of every level (cmd.c walks them for
 * dispatch, help and the completion listing) and the handlers of the top
 * table, each in its own file with its params.
 */
#ifndef NKCTL_CMD_H
#define NKCTL_CMD_H

#include <stddef.h>

#include "args.h"
#include "core/ctx.h"

/*
 * One dispatch table per level. A command either runs (run) or descends into
 * a sub-table (sub). A table's default command (name NULL) runs when no
 * sub-command name matches; its params let the dispatcher tell a keyword from
 * an unknown word. The same tables drive help and the completion listing.
 */
struct nk_table;
/* A command's handler gets its parameters parsed into the struct its table
 * describes (params->size bytes; NULL when it takes none). */
typedef int (*nk_run_fn)(struct nk_ctx *ctx, const void *args);
struct nk_cmd {
	const char *name;
	nk_run_fn run;
	const struct nk_table *sub;
	const struct nk_params *params;  /* NULL: no arguments */
	const char *usage;     /* only where the table cannot say it; NULL: generated */
	const char *summary;   /* one line */
};

struct nk_table {
	const char *path;      /* "nkctl", "nkctl show" */
	size_t n;
	const struct nk_cmd *cmds;
	void (*intro)(void);   /* printed before the table's help, or NULL */
};
#define NK_TABLE(path, arr) { path, sizeof(arr) / sizeof((arr)[0]), arr, NULL }

int nk_dispatch(struct nk_ctx *ctx, const struct nk_table *t, int argc, char **argv);
void nk_table_help(const struct nk_table *t);
void nk_cmd_help(const struct nk_table *t, const struct nk_cmd *c);
/* The machine-readable listing behind bash completion. */
void nk_table_list(const struct nk_table *t, const char *prefix);

extern const struct nk_table nk_top_table;
extern const struct nk_table nk_show_table;
extern const struct nk_table nk_link_table;
extern const struct nk_table nk_redirect_table;
extern const struct nk_table nk_nic_table;
extern const struct nk_table nk_steer_table;
extern const struct nk_table nk_xsk_table;

/* The commands of the top table, each in its own file with its params. */
#define NK_COMMAND(fn) \
	extern const struct nk_params fn##_params; \
	int fn(struct nk_ctx *ctx, const void *args)
NK_COMMAND(cmd_lease);
NK_COMMAND(cmd_unlease);
NK_COMMAND(cmd_bind_rx);
NK_COMMAND(cmd_bind_tx);
NK_COMMAND(cmd_unbind);
NK_COMMAND(cmd_show_devices);
NK_COMMAND(cmd_show_bindings);
NK_COMMAND(cmd_doctor);
NK_COMMAND(cmd_monitor);
NK_COMMAND(cmd_show_leases);

#endif
