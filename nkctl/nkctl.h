/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NKCTL_NKCTL_H
#define NKCTL_NKCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "args.h"
#include "err.h"
#include "genl.h"
#include "nl.h"
#include "out.h"

#define NK_NS_SPEC 256

/*
 * A network namespace nkctl reaches, with its sockets opened on first use.
 * The context keeps each namespace once (by device and inode), so two
 * handles are the same namespace exactly when they are the same pointer.
 */
struct nk_ns {
	char spec[NK_NS_SPEC];  /* how it was named; "" for the command's own */
	int fd;
	dev_t dev;
	ino_t ino;
	bool here;              /* the command's namespace (after -n) */
	struct nl_sock rtnl, genl;
	struct genl_family netdev, ethtool;
	int ioctl_fd;           /* an AF_INET socket here for SIOCETHTOOL; -1 */
};

/* A NIC's key: its identity, the name of its state and lock files. */
#define NK_NIC_KEY_MAX 96
/* NIC locks one command holds at once (nested holds of one count once). */
#define NK_NIC_HELD_MAX 4
struct nk_nic_held {
	char key[NK_NIC_KEY_MAX];
	int fd;
	unsigned int depth;
};

/*
 * Everything one command needs: the parsed global options, the namespaces it
 * reaches and their sockets. The per-command part is reset for every batch
 * line.
 */
struct nk_ctx {
	/* global options */
	bool json;
	bool pretty;
	bool force;
	bool stats;              /* -s: counters in show */
	bool timestamp;          /* -t: monitor stamps every event */
	const char *netns;
	/* per command */
	struct out out;
	FILE *json_mem;          /* JSON is built here, then written whole */
	char *json_buf;
	size_t json_len;
	uint64_t given;          /* which of the command's parameters were given */
	/* namespaces: [0] is the command's own once opened */
	struct nk_ns **ns;
	size_t nns, ns_cap;
	bool ns_enumerated;      /* every reachable namespace is in ns */
	/* the NIC locks held (nicsvc.c), each until its depth is back to 0 */
	struct nk_nic_held nic_locks[NK_NIC_HELD_MAX];
	size_t nnic_locks;
};

void nk_ctx_init(struct nk_ctx *ctx);
/* Write the JSON built so far to stdout in one go, SIGINT and SIGTERM held
 * off meanwhile, so an interrupted command prints a whole document or none. */
void nk_ctx_flush(struct nk_ctx *ctx);
/* After a command: forget every namespace but the command's own (a batch's
 * next line sees namespaces afresh). */
void nk_ctx_end_command(struct nk_ctx *ctx);
/* Close every namespace but the command's own (a holder keeps only that). */
void nk_ctx_forget_others(struct nk_ctx *ctx);
void nk_ctx_release(struct nk_ctx *ctx);

/* Enter the namespace of -n for the rest of the process. */
int nk_ctx_enter(struct nk_ctx *ctx);
/* Open a namespace given by name or path into *fd; prints the error,
 * returns its exit code. */
int nk_netns_open(const char *spec, int *fd);

/* The command's own namespace. */
int nk_ns_here(struct nk_ctx *ctx, struct nk_ns **ns);
/* The namespace named spec (NULL: the command's own). */
int nk_ns_get(struct nk_ctx *ctx, const char *spec, struct nk_ns **ns);
/* Every namespace nkctl can reach: its own, the initial one and those under
 * /run/netns. The array belongs to ctx. */
int nk_ns_reachable(struct nk_ctx *ctx, struct nk_ns *const **list, size_t *n);
/* The reachable namespace that viewer's namespace calls nsid, or NULL. */
struct nk_ns *nk_ns_by_nsid(struct nk_ctx *ctx, struct nk_ns *viewer, int32_t nsid);
/* The id viewer's namespace gives ns (-1: none yet). */
int32_t nk_ns_nsid_of(struct nk_ns *viewer, const struct nk_ns *ns);
/* The reachable namespace (dev, ino) in *ns, NULL when none is; every one
 * is opened only when those opened already do not have it. An error is
 * printed (the command's own namespace cannot be identified). */
int nk_ns_find(struct nk_ctx *ctx, dev_t dev, ino_t ino, struct nk_ns **ns);
/* Is ns the namespace (dev, ino) recorded elsewhere (state files)? */
bool nk_ns_is(const struct nk_ns *ns, dev_t dev, ino_t ino);
/* "this namespace" or its name, for messages. */
const char *nk_ns_name(const struct nk_ns *ns);
/* Sockets in ns; on failure print the error and return its exit code. */
int nk_ns_rtnl(struct nk_ns *ns, struct nl_sock **s);
int nk_ns_netdev(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam);
/* The ethtool family on ns's generic netlink socket, resolved: fam->present
 * says whether the kernel has it (nk_ns_ethtool, kernel.h, requires it). */
int nk_ns_ethtool_family(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam);
/* A socket in ns for the SIOCETHTOOL ioctl (n-tuple rules). */
int nk_ns_ioctl(struct nk_ns *ns, int *fd);
/* The same without a word on failure (NULL), for scans over namespaces. */
struct nl_sock *nk_ns_try_rtnl(struct nk_ns *ns);
struct nl_sock *nk_ns_try_netdev(struct nk_ns *ns, const struct genl_family **fam);
/* The same in the command's own namespace. */
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

struct nk_link;
/* Get a device by name (or by ifindex when name is NULL). Not found is exit
 * status 3 with an error naming where (NULL: nothing), or -ENODEV without a
 * word when missing_ok. */
int nk_link_lookup(struct nl_sock *s, const char *name, int ifindex, struct nk_link *l,
		   const char *where, bool missing_ok);
/* l's peer by IFLA_LINK (named only when it is in the same namespace);
 * false when l has none. */
bool nk_peer_of(struct nl_sock *s, const struct nk_link *l, struct nk_link *peer);
/* Device name of the command's namespace: not found is exit status 3. */
int nk_dev(struct nk_ctx *ctx, const char *name, struct nk_link *l);

extern const struct nk_table nk_top_table;
extern const struct nk_table nk_show_table;
extern const struct nk_table nk_link_table;
extern const struct nk_table nk_redirect_table;

/* Kernel features: show kernel lists them; a command that needs one asks. */
enum nk_feature {
	NK_FEAT_NETDEV, NK_FEAT_QUEUE_GET, NK_FEAT_NAPI_GET, NK_FEAT_BIND_RX, NK_FEAT_BIND_TX,
	NK_FEAT_RX_PAGE_SIZE, NK_FEAT_QUEUE_CREATE, NK_FEAT_LEASE_NETNS_ID, NK_FEAT_NETKIT,
	NK_FEAT_NETKIT_SINGLE, NK_FEAT_TCX, NK_FEAT_NETKIT_BPF, NK_FEAT_UDMABUF, NK_FEAT_DMA_HEAP,
	NK_FEAT_ETHTOOL_CHANNELS, NK_FEAT_ETHTOOL_RINGS, NK_FEAT_ETHTOOL_RSS_GET,
	NK_FEAT_ETHTOOL_RSS_SET,
	NK_FEAT_N
};
/* 0 when the kernel has it (or it cannot tell); else "this kernel has no
 * ... (needs Linux X+)" and the exit code. */
int nk_feature_need(struct nk_ctx *ctx, enum nk_feature id);
/* The same without a word: 0, or -EOPNOTSUPP when the kernel lacks it. */
int nk_feature_need_quiet(struct nk_ctx *ctx, enum nk_feature id);
/* The first Linux release with it, for messages that say more. */
const char *nk_feature_since(enum nk_feature id);
/* "this kernel has no NOUN (WHAT needs Linux X+)", as nk_feature_need says. */
void nk_feature_missing(enum nk_feature id, char *buf, size_t len);
/* Its row's name in show kernel ("netkit", "queue-create"). */
const char *nk_feature_name(enum nk_feature id);
/* The ethtool family on ns's generic netlink socket; a kernel without it
 * is exit status 5. */
int nk_ns_ethtool(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam);

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
int cmd_show_kernel(struct nk_ctx *ctx, const void *args);
NK_COMMAND(cmd_show_leases);

#endif
