/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command context (ctx.c): the parsed global options, the output, and
 * the network namespaces a command reaches with their sockets, each opened
 * on first use. ctx.c is the only place that opens namespaces.
 */
#ifndef NKCTL_CTX_H
#define NKCTL_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"
#include "genl.h"
#include "core/nichold.h"
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
	/* Its nsid in nsid_viewer, asked once a command (nk_ns_nsid_of): a
	 * lease scan looks up every lease's namespace among all of them. */
	const struct nk_ns *nsid_viewer;
	int32_t nsid;
};

/* Where a viewer namespace's nsid pointed when a batch's earlier line
 * looked at every namespace: the name (or path) to open first next time. */
struct nk_nsid_hint {
	dev_t vdev;
	ino_t vino;
	int32_t nsid;
	char spec[NK_NS_SPEC];
};

/*
 * Everything one command needs: the parsed global options, the namespaces it
 * reaches and their sockets. The per-command part is reset for every batch
 * line.
 */
#define NK_CTX_KEPT_MAX 8

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
	/* kept from line to line of a batch (checked before use): a GC's
	 * link del of each of 100 pods would open all 100 namespaces each */
	struct nk_nsid_hint *nsid_hints;
	size_t nnsid_hints, nsid_hints_cap;
	/* the NIC locks held (nicjob.c), each until its depth is back to 0 */
	struct nk_nic_held nic_locks[NK_NIC_HELD_MAX];
	size_t nnic_locks;
	/* The process ends with this command (not -batch): what it would
	 * free last is left to the exit, which unmaps everything at once (an
	 * munmap of each table, socket buffer and namespace is a page-table
	 * flush of its own), and held here meanwhile so it stays reachable. */
	bool ends_process;
	void *kept[NK_CTX_KEPT_MAX];
	size_t nkept;
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
/* In a forked child, before it talks to the kernel: close its copies of
 * every namespace's sockets (the parent's stay open), so that the sockets
 * it uses are opened anew, its own, and nothing it leaves unread on one
 * reaches the parent. */
void nk_ctx_disown_sockets(struct nk_ctx *ctx);
void nk_ctx_release(struct nk_ctx *ctx);
/* Hold p until the process exits instead of freeing it, when the process
 * ends with this command: true if held (the caller must not free it; NULL
 * is held without taking room). */
bool nk_ctx_keep(struct nk_ctx *ctx, void *p);

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
int32_t nk_ns_nsid_of(struct nk_ns *viewer, struct nk_ns *ns);
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
/* nk_ns_rtnl's socket with its failure in err, said by no one: for a
 * forked worker, whose parent reports its results (linkdel.c). 0 or a
 * negative errno. */
int nk_ns_rtnl_open(struct nk_ns *ns, struct nl_sock **s, struct nl_err *err);
int nk_ns_netdev(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam);
/* The ethtool family on ns's generic netlink socket, resolved: fam->present
 * says whether the kernel has it (nk_ns_ethtool, kernel.h, requires it). */
int nk_ns_ethtool_family(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam);
/* A socket in ns for the SIOCETHTOOL ioctl (n-tuple rules). */
int nk_ns_ioctl(struct nk_ns *ns, int *fd);
/* The same for scans over namespaces (one out of reach is an answer to a
 * scan, not news): its socket, or NULL with the report dropped (a
 * NK_SINK_DROP sink in place around the call, lib/err.h). */
struct nl_sock *nk_ns_try_rtnl(struct nk_ns *ns);
struct nl_sock *nk_ns_try_netdev(struct nk_ns *ns, const struct genl_family **fam);
/* The same in the command's own namespace. */
int nk_ctx_rtnl(struct nk_ctx *ctx, struct nl_sock **s);
int nk_ctx_netdev(struct nk_ctx *ctx, struct nl_sock **s,
		  const struct genl_family **fam);

#endif
