/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NKCTL_NKCTL_H
#define NKCTL_NKCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "args.h"
#include "err.h"
#include "genl.h"
#include "nl.h"
#include "out.h"

/*
 * Everything one command needs: the parsed global options, and netlink
 * sockets opened lazily in the command's namespace. Reset for every batch line.
 */
struct nk_ctx {
	/* global options */
	bool json;
	bool pretty;
	bool force;
	const char *netns;
	/* per command */
	struct out out;
	FILE *json_mem;          /* JSON is built here, then written whole */
	char *json_buf;
	size_t json_len;
	struct nl_sock rtnl;
	struct nl_sock genl;
	struct genl_family netdev;
};

void nk_ctx_init(struct nk_ctx *ctx);
/* Write the JSON built so far to stdout in one go, SIGINT and SIGTERM held
 * off meanwhile, so an interrupted command prints a whole document or none. */
void nk_ctx_flush(struct nk_ctx *ctx);
void nk_ctx_release(struct nk_ctx *ctx);
/* Open on first use; on failure print the error and return its exit code. */
int nk_ctx_rtnl(struct nk_ctx *ctx, struct nl_sock **s);
int nk_ctx_netdev(struct nk_ctx *ctx, struct nl_sock **s,
		  const struct genl_family **fam);

/*
 * One dispatch table per level. A command either runs (run) or descends into
 * a sub-table (sub). A table's default command (name NULL) runs when no
 * sub-command name matches; its params let the dispatcher tell a keyword from
 * an unknown word. The same tables drive help and the completion listing.
 */
struct nk_table;
struct nk_cmd {
	const char *name;
	int (*run)(struct nk_ctx *ctx, int argc, char **argv);
	const struct nk_table *sub;
	const struct nk_params *params;
	const char *usage;     /* argument synopsis, after the command's name */
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

/* For commands without arguments: 0, NK_HELP for "help", or a usage error. */
int nk_no_args(const char *cmd, int argc, char **argv);

/* Open a namespace given by name or path; prints the error, returns its exit
 * code. */
int nk_netns_open(const char *spec, int *fd);

/*
 * Another namespace a command reaches into (phys-netns, peer-netns): its own
 * sockets, or the context's when it is the command's namespace after all.
 */
struct nk_ns {
	const char *spec;   /* as the user gave it; NULL: the command's own */
	int fd;             /* -1 when spec is NULL */
	bool here;          /* the command's own namespace */
	struct nl_sock rtnl, genl;
	struct genl_family netdev;
};
int nk_ns_open(struct nk_ns *ns, const char *spec);
void nk_ns_close(struct nk_ns *ns);
const char *nk_ns_name(const struct nk_ns *ns);
int nk_ns_rtnl(struct nk_ctx *ctx, struct nk_ns *ns, struct nl_sock **s);
int nk_ns_netdev(struct nk_ctx *ctx, struct nk_ns *ns, struct nl_sock **s,
		 const struct genl_family **fam);
/* Which namespace nkctl can reach (its own, the initial one, those under
 * /run/netns) does the netns of viewer call nsid? Opens it into out and its
 * spec into spec; not found is an error. */
int nk_ns_find_by_nsid(struct nk_ctx *ctx, struct nl_sock *viewer, int32_t nsid,
		       struct nk_ns *out, char *spec, size_t spec_len);

struct nk_link;
/* Get a device by name (or by ifindex when name is NULL). Not found is exit
 * status 3 with an error naming where (NULL: nothing), or -ENODEV without a
 * word when missing_ok. */
int nk_link_lookup(struct nl_sock *s, const char *name, int ifindex, struct nk_link *l,
		   const char *where, bool missing_ok);
/* l's peer by IFLA_LINK (named only when it is in the same namespace);
 * false when l has none. */
bool nk_peer_of(struct nl_sock *s, const struct nk_link *l, struct nk_link *peer);

extern const struct nk_table nk_top_table;
extern const struct nk_table nk_show_table;
extern const struct nk_table nk_link_table;
extern const struct nk_table nk_redirect_table;

extern const struct nk_params nk_lease_params;
extern const struct nk_params nk_unlease_params;

int cmd_show_devices(struct nk_ctx *ctx, int argc, char **argv);
int cmd_lease(struct nk_ctx *ctx, int argc, char **argv);
int cmd_unlease(struct nk_ctx *ctx, int argc, char **argv);
int cmd_show_kernel(struct nk_ctx *ctx, int argc, char **argv);
int cmd_show_leases(struct nk_ctx *ctx, int argc, char **argv);

#endif
