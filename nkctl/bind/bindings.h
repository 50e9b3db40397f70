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

#include "core/ctx.h"
#include "dmabuf.h"
#include "lease/scan.h"

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

#endif
