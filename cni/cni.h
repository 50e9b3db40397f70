/* SPDX-License-Identifier: GPL-2.0 */
/* nkctl-cni: a CNI 1.1.0 plugin (and 0.3.0 to 1.0.0) built on nkctl (README.md beside this file).
 * One nkctl process per command does nkctl's part (-j -batch -), the IPAM
 * plugin runs beside it, and the pod's addresses and routes are set over
 * rtnetlink. JSON goes through json-c.
 *
 * This header holds what the plugin's files share and no one file owns:
 * the command's state (struct plugin), the error it returns, the pod's
 * addresses and routes, an attachment, and the constants. Each file's
 * functions are declared in its own header (foo.h for foo.c). */
#ifndef NKCNI_H
#define NKCNI_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "ipconf.h"

#define CNI_MAX_IPS 8
#define CNI_MAX_ROUTES 32

/* CNI error codes (SPEC.md, "Error"). */
enum {
	CNI_ERR_VERSION = 1,
	CNI_ERR_ENV = 4,
	CNI_ERR_DECODE = 6,
	CNI_ERR_CONFIG = 7,
	CNI_ERR_TRY_LATER = 11,
	CNI_ERR_UNAVAILABLE = 50,
	CNI_ERR_UNAVAILABLE_LOSSY = 51, /* and existing pods lose connectivity */
	CNI_ERR_STEP = 100,
};


struct pod_ip {
	struct nk_ipnet addr; /* the pod's address with its prefix length */
	bool has_gw;
	struct nk_ipnet gw;
};

struct pod_route {
	struct nk_ipnet dst;
	bool has_gw;
	struct nk_ipnet gw;
};

/* What ADD configures (from IPAM) or CHECK verifies (from prevResult). */
struct pod_net {
	struct pod_ip ip[CNI_MAX_IPS];
	size_t n_ip;
	struct pod_route route[CNI_MAX_ROUTES];
	size_t n_route;
	bool has_gw4, has_gw6;
	struct nk_ipnet gw4, gw6; /* each family's gateway: the host side's address */
};

/* Attachment locks (lock.c) a child holds too: every descriptor of the
 * plugin is close-on-exec, and child_start hands on these alone. */
struct held_locks {
	const int *fd;
	size_t n;
};

/* What a command failed with: a CNI error code and its message. */
struct cni_err {
	int code;           /* 0: none */
	char msg[1024];
};

struct plugin {
	/* where the command's error goes (cni_error): main's */
	struct cni_err *err;
	/* environment */
	const char *command, *id, *ifname, *netns, *cni_path, *nkctl;
	/* configuration */
	const char *conf_text;
	json_object *conf;
	/* What the IPAM plugin's ADD, DEL and CHECK read: the configuration,
	 * as 1.0.0 where it is 1.1.0 (ipam_conf owns it then). */
	const char *ipam_text;
	json_object *ipam_conf;
	const char *version, *name, *nic, *queues, *ipam_type, *info_dir;
	unsigned int per_pod;
	bool steer;
	/* The pod's egress straight to the NIC (bpf_redirect_neigh), past the
	 * host's routing and netfilter; by default it goes through them. */
	bool egress_redirect;
	/* names derived from the container id and interface */
	char host[16], holder[16];
	/* the locks of the attachments this command's children work on */
	struct held_locks locks;
};

/* An attachment as GC finds it: by a device's alias (alias.c) or by its
 * information file (gc.c). */
struct attachment {
	char id[256], ifname[16], netns[256];
	bool host_alive; /* found by the alias of its host side, still there */
	char queues[128]; /* its NIC queues ("4,5") as its information file says; "" unknown */
	int lock;        /* GC: its lock (lock.c) while GC works on it */
};

/* The longest container id the plugin takes (container_id_refused,
 * attachname.c), so that it fits in file and lock names. */
#define CNI_ID_MAX 192

/* lock.c: one lock per attachment (see there) */
#define NK_CNI_RUN_DIR "/run/nkctl"
#define CNI_LOCK_DIR NK_CNI_RUN_DIR "/cni-lock"
#define CNI_LOCK_WAIT_MS 30000
#define CNI_LOCK_TICK_MS 50

/* The pod's information files (podinfo.c): podInfoDir's default, and how
 * long a file may be (a few hundred bytes with 16 queues). */
#define CNI_INFO_DIR "/run/nkctl/cni"
#define CNI_INFO_MAX 65536

/* How long DEL lets a memory provider go before it fails (seconds). */
#define CNI_UNLEASE_WAIT 10

/* GC's device group (gc_group, gc.c): its stale host sides join it and go
 * in one `link del group`. 0x6e800000 plus the plugin's process id (below
 * 2^22, the kernel's PID_MAX_LIMIT): never 0 nor the small numbers
 * operators give groups, and two GCs at once never share one. */
#define CNI_GC_GROUP_BASE 0x6e800000u
#define CNI_GC_GROUP_PIDS 0x3fffffu

#endif
