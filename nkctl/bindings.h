/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bind unit's own header (bind.c, bindview.c, bindstate.c, holder.c; the
 * rest of nkctl sees only their commands, in cmd.h).
 *
 * devmem bindings as nkctl keeps them: the binding itself lives in a holder
 * process (it dies with the netlink socket that made it); a state file under
 * NK_BIND_STATE_DIR, locked by the holder for as long as it lives, lets show
 * and unbind find it. A state file nobody holds the lock of is stale.
 */
#ifndef NKCTL_BINDINGS_H
#define NKCTL_BINDINGS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ctx.h"
#include "dmabuf.h"
#include "leaseview.h"

#define NK_RUN_DIR "/run/nkctl"
#define NK_BIND_STATE_DIR NK_RUN_DIR "/bindings"
/* A bind-rx request carries one 20-byte nest per queue in one 8 KiB message. */
#define NK_BIND_MAX_QUEUES 256

enum nk_hold_mode { NK_HOLD_DAEMON, NK_HOLD_FOREGROUND, NK_HOLD_COMMAND };

struct nk_binding {
	uint32_t id;
	bool rx;
	/* the device bound, in the command's namespace */
	dev_t ns_dev;
	ino_t ns_ino;
	char netns[NK_NS_SPEC];          /* -n as given, "" without */
	int ifindex;
	char ifname[IF_NAMESIZE];
	/* the device doing the DMA when it is another one (netkit: the NIC) */
	bool have_phys;
	int phys_ifindex;
	char phys_ifname[IF_NAMESIZE];
	char phys_netns[NK_NS_SPEC];     /* "" : the same namespace */
	uint32_t queues[NK_BIND_MAX_QUEUES];
	size_t nqueues;
	uint32_t rx_page_size;           /* 0: the kernel's default */
	/* the dmabuf; unknown for bindings only the kernel shows */
	bool have_dmabuf;
	enum nk_dmabuf_kind kind;
	uint64_t size;
	bool hugepages;
	char heap[64];
	/* the holder; none for bindings nkctl did not make */
	bool held;
	pid_t pid;
	enum nk_hold_mode mode;
	bool alive;
};

struct nk_binding_list {
	struct nk_binding *v;
	size_t n, cap;
};

/* A size as the dmabuf keyword takes it: 64M, 2G, 4096. */
const char *nk_size_word(uint64_t size, char *buf, size_t len);
/* Sort by binding id. */
void nk_binding_sort(struct nk_binding_list *l);
/* Every state file (alive or stale), sorted by id. */
int nk_binding_states(struct nk_binding_list *out);
void nk_binding_list_free(struct nk_binding_list *l);
/* The state file of a binding, and writing one (holder.c). */
void nk_binding_state_path(char *buf, size_t len, uint32_t id);
/* The record's text (holder.c writes it through lib/store). */
void nk_binding_state_format(FILE *f, const struct nk_binding *b);
/* Parse one state file; false when it is not one of ours. */
bool nk_binding_state_parse(FILE *f, struct nk_binding *b);
/* Remove the state file of a dead holder. */
void nk_binding_forget(const struct nk_binding *b);
/* SIGTERM the holder and wait until it is gone (its lock is released).
 * 0, -ESRCH when it was gone already, -ETIMEDOUT. */
int nk_binding_release(const struct nk_binding *b);

/* Keep binding b (made on ctx->genl) and dmabuf d alive as mode says. For
 * NK_HOLD_COMMAND, cmd is the NULL-terminated command line. Prints the
 * binding once it is held. Returns the exit status. */
int nk_hold(struct nk_ctx *ctx, struct nk_binding *b, struct nk_dmabuf *d,
	    enum nk_hold_mode mode, char **cmd);

/* One binding object, as bind-rx, bind-tx, show bindings and unbind print it. */
void nk_print_binding(struct out *o, const struct nk_binding *b);
/* The same under key (inside an object). */
void nk_print_binding_as(struct out *o, const char *key, const struct nk_binding *b);
/* The bindings of the command's namespace: the state files of holders there
 * (alive or stale), then those the kernel shows on its queues that no state
 * file knows; sorted by id. *kernel_ok: the queues could be read. Prints the
 * error and returns the exit code on failure. */
int nk_bindings_load(struct nk_ctx *ctx, struct nk_binding_list *out, bool *kernel_ok);
const char *nk_hold_mode_name(enum nk_hold_mode mode);

#endif
