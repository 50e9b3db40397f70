/* SPDX-License-Identifier: GPL-2.0 */
/* nkctl-cni: a CNI 1.1.0 plugin (and 0.3.0 to 1.0.0) built on nkctl (README.md beside this file).
 * One nkctl process per command does nkctl's part (-j -batch -), the IPAM
 * plugin runs beside it, and the pod's addresses and routes are set over
 * rtnetlink. JSON goes through json-c. */
#ifndef NKCNI_H
#define NKCNI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <json-c/json.h>

#include "ipconf.h"
#include "linkset.h"
#include "netkit.h"
#include "rtnl.h"

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

/* attachname.c: an attachment's names, checked as a stranger's (NULL when
 * fine, else what is wrong, to follow the name in a message), and the one
 * encoding of container id and interface in file and lock names. */
#define CNI_ID_MAX 192
bool spec_name(const char *s);
const char *container_id_refused(const char *id);
const char *ifname_refused(const char *ifname);
const char *netns_refused(const char *netns);
int attachment_name(const char *id, const char *ifname, const char *suffix, char *buf, size_t len);

/* privdir.c: podInfoDir and the lock directory. dir opened without
 * following a link, a directory of this user's that no one else can write
 * (own_mode: made 0700 instead, ADD's podInfoDir): its fd, or -errno
 * (-ENOTDIR a link or not a directory, -EPERM not ours or writable by
 * others). private_dir_refusal says which, for a message. */
int private_dir_open(const char *dir, bool own_mode);
const char *private_dir_refusal(int err);

/* lock.c: one lock per attachment (see there) */
#define NK_CNI_RUN_DIR "/run/nkctl"
#define CNI_LOCK_DIR NK_CNI_RUN_DIR "/cni-lock"
#define CNI_LOCK_WAIT_MS 30000
#define CNI_LOCK_TICK_MS 50
/* Lock (id, ifname), waiting up to wait_ms: 0 with *fd, -EWOULDBLOCK when
 * another process holds it still, -errno. */
int attachment_lock(const char *id, const char *ifname, unsigned int wait_ms, int *fd);
/* Let go of fd; gone: the attachment is gone, its lock file removed too. */
void attachment_unlock(const char *id, const char *ifname, int fd, bool gone);

/* report.c: a command's error, returned up to main, which prints it (the
 * CNI error object on stdout, exit status 1). cni_error records the first
 * one (the cause: the rest are its echoes) and returns -1. */
int cni_error(const struct plugin *p, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool cni_failed(const struct plugin *p);
/* The plugin's other words on stderr (the runtime logs them): a warning
 * ("nkctl-cni: warning: ..."), or a child's stderr passed on as it is. */
void cni_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cni_pass_on(const char *text);
void cni_print_error(const struct plugin *p);
/* conf.c: the configuration text (stdin) and the environment into p,
 * checked: 0, 1 for VERSION (which needs no more), -1 with p's error. p
 * owns p->conf, not text. */
int cni_setup(struct plugin *p, const char *text);
/* STATUS and GC concern the network, not one container. */
bool cni_network_command(const char *command);
/* VERSION's answer on stdout, in the version asked (0). */
int print_version(const char *asked);

/* conf.c: the configuration (0, or -1 with p's error) */
bool version_supported(const char *v);
bool version_before_1(const char *v);
bool version_at_least_1_1(const char *v);
const char *command_refused(const char *command, const char *version);
int read_conf(struct plugin *p);
int need_batch_word(const struct plugin *p, int code, const char *what, const char *v);
void derive_names(struct plugin *p);

/* ipnet.c */
int ipnet_parse(const char *s, bool need_plen, struct nk_ipnet *n);
const char *ipnet_str(const struct nk_ipnet *n, bool with_plen, char *buf, size_t len);
bool ipnet_addr_eq(const struct nk_ipnet *a, const struct nk_ipnet *b);
int pod_net_parse(json_object *result, struct pod_net *net, char *why, size_t len);

/* spawn.c: a child with pipes on its stdin, stdout and stderr */
struct child {
	pid_t pid;
	int in, out, err;
};
int path_lookup(const char *dirs, const char *name, char *bin, size_t len);
int child_start(struct child *c, char *const argv[], const char *cni_command,
		const struct held_locks *locks);
char *child_read_all(int fd);
void child_read_out_err(struct child *c, char **out, char **err);
bool child_exited(const struct child *c);
int child_wait(struct child *c);

/* ipam.c: the delegated IPAM plugin, run beside the rest */
struct ipam_run {
	struct child c;
	bool started;
	char *out;
	int status;
};
int ipam_start(const struct plugin *p, const char *command, const char *stdin_text,
	       struct ipam_run *run, char *why, size_t len);
int ipam_finish(struct ipam_run *run);
void ipam_free(struct ipam_run *run);
int ipam_error(const struct ipam_run *run, char *msg, size_t len);

/* nksession.c: one `nkctl -j -force -batch -`, fed one line at a time */
struct nk_session {
	struct child c;
	FILE *out;
	char err[512];
	char pend[4096];	/* stderr read but not yet matched to a reply */
	size_t npend;
	bool dead;
};
int nks_start(struct nk_session *s, const char *nkctl, const struct held_locks *locks);
int nks_send(struct nk_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int nks_reply(struct nk_session *s, json_object **doc);
/* Until nkctl's next answer can be read (nothing of it read yet: every
 * earlier answer taken), idle(arg) every tick_ms: GC's IPAM slots refilled
 * while nkctl deletes. */
void nks_await(struct nk_session *s, void (*idle)(void *), void *arg, int tick_ms);
int nks_run(struct nk_session *s, json_object **doc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int nks_end(struct nk_session *s);
/* One line of nkctl -j's stderr: is it the command's error object? Its
 * message into msg when it is (a warning never is). */
bool nk_error_line(const char *line, char *msg, size_t len);

/* podnet.c: lib's rtnetlink sockets in the pod's and the host's namespace */
/* A socket in netns_fd's namespace (-1: this one); NULL when it cannot be
 * opened. */
struct nl_sock *podnet_open(int netns_fd);
void podnet_close(struct nl_sock *s);
/* ifname's link into *l: its ifindex, or -errno (-ENODEV: no such device). */
int podnet_link(struct nl_sock *s, const char *ifname, struct nk_link *l);
int podnet_ifindex(struct nl_sock *s, const char *ifname);
/* l's hardware address as text ("" when it has none). */
const char *podnet_mac(const struct nk_link *l, char *buf, size_t len);
/* What the kernel said: its extack message, else the errno's text. */
const char *podnet_why(const struct nl_err *e);

/* sysctl.c: what ADD sets in /proc/sys (0 or -errno) */
int sysctl_set_in(int netns_fd, const char *path, const char *val);
int ipv6_enable_in(int netns_fd, const char *ifname);
int forwarding_enable(const struct pod_net *net);

/* podinfo.c: what the pod's application reads (README.md): the holder's
 * name and queues in <podInfoDir>/<container id>-<ifname>.json
 * (attachment_name). */
int pod_info_write(const struct plugin *p, json_object *leases, char *why, size_t len);
int pod_info_remove(const struct plugin *p, char *why, size_t len);
/* How long an information file may be (a few hundred bytes with 16 queues). */
#define CNI_INFO_MAX 65536
/* GC's look at one information file, its document and its name in the
 * directory: NULL when it is taken or another network's, else why it is
 * not one to act on (pod_info_scan warns, naming the file). */
typedef const char *(*pod_info_fn)(json_object *info, const char *name, void *data);
/* fn for each *.json file of podInfoDir that is a JSON object in a regular
 * file of root's, in a directory of root's no one else can write; one
 * warning on stderr for each file (or the directory) refused. */
void pod_info_scan(const struct plugin *p, pod_info_fn fn, void *data);

#define CNI_INFO_DIR "/run/nkctl/cni"

/* How long DEL lets a memory provider go before it fails (seconds). */
#define CNI_UNLEASE_WAIT 10

/* lease.c */
int lease_from_pool(const struct plugin *p, struct nk_session *s, const char *dsts,
		    json_object **doc, char *why, size_t len);

/* add.c: the result. Routes that name no gateway get their family's; no
 * route is added that IPAM did not return. */
void pod_net_routes(struct pod_net *net);
/* "A,B" (steer dst) and " prefix A/32 prefix B/128" (the NIC route). */
void address_words(const struct pod_net *net, char *dsts, size_t dlen, char *prefixes,
		   size_t plen);
/* The ADD result on stdout, in the shape of p->version, after prevResult's:
 * the pair and the holder, every address, every route, the dns. */
void print_result(const struct plugin *p, const struct pod_net *net, struct nl_sock *host,
		  struct nl_sock *pod, json_object *ipam);

/* status.c: STATUS's judgements of nkctl's documents */
/* jsondoc.c: nkctl's documents, read without json-c's type assertions */
json_object *doc_member(json_object *o, const char *key);
size_t doc_array_len(json_object *a);
json_object *doc_array_at(json_object *a, size_t i);

const char *status_kernel_lacks(json_object *doc, bool queues);
bool pool_has(const char *list, unsigned long q);
unsigned int status_pool_free(json_object *doc, const char *pool);

/* check.c */
bool check_steered(const char *nic, const char *holder, json_object *leases, json_object *nics,
		   const struct nk_ipnet *want, char *why, size_t len);
/* Is the device there (in the pod's namespace, or the host's), and its
 * hardware address ("" when it has none)? */
typedef bool (*link_mac_fn)(const char *ifname, bool in_pod, char *mac, size_t len, void *data);
/* prevResult's interfaces that are the plugin's (the host side, the pod's
 * interface and holder): in their place (sandbox), with the mac they name;
 * every IP's interface index names the pod's interface. 0, or -1 with why. */
int check_interfaces(const struct plugin *p, json_object *prev, link_mac_fn fn, void *data,
		     char *why, size_t len);

/* gc.c: a device's alias names its attachment, so that GC finds them */
struct attachment {
	char id[256], ifname[16], netns[256];
	bool host_alive; /* found by the alias of its host side, still there */
	char queues[128]; /* its NIC queues ("4,5") as its information file says; "" unknown */
	int lock;        /* GC: its lock (lock.c) while GC works on it */
};
int attachment_alias(const struct plugin *p, char *buf, size_t len);
void attachment_owner(const struct plugin *p, char *buf, size_t len);
bool attachment_parse(const char *alias, const char *owner, struct attachment *a);
int attachment_from_info(json_object *info, const char *name, const char *network,
			 const char *nic, struct attachment *a, const char **why);
/* Is (id, ifname) among conf's cni.dev/valid-attachments? */
json_object *gc_valid_of(json_object *conf);
bool attachment_valid(json_object *valid, const char *id, const char *ifname);
/* Does the IPAM plugin's VERSION list 1.1.0? In one, or started, then read. */
/* 1, 0, or -1 with p's error (the IPAM plugin does not run). */
int ipam_speaks_1_1(const struct plugin *p);
/* 0, or -1 with why (run not started). */
int ipam_version_start(const struct plugin *p, struct ipam_run *run, char *why, size_t len);
bool ipam_version_1_1(struct ipam_run *run);
int holder_queue_list(json_object *leases, const char *nic, const char *holder, char *buf,
		      size_t len);

/* commands */
int cmd_add(struct plugin *p);
int cmd_del(struct plugin *p);
int cmd_check(struct plugin *p);
int cmd_status(struct plugin *p);
int teardown(struct plugin *p, struct nk_session *s, bool ipam, char *why, size_t len);
/* The holder's leases ended in the pod (nkctl's unlease dev ... netns on
 * the session, and its provider wait): 0, or -1 with why; teardown's first
 * step. */
int unlease_in_pod(const struct plugin *p, struct nk_session *s, char *why, size_t len);
/* nkctl's and the holder's part of teardown: 0, or -1 with why. gc: the
 * host side is there and the batch ended the holder's leases. */
int teardown_nk(const struct plugin *p, struct nk_session *s, bool gc, char *why, size_t len);
/* What teardown_nk does after nkctl's lines (a leftover holder, the pod's
 * information file): 0, or -1 with why. */
int teardown_rest(const struct plugin *p, char *why, size_t len);
/* GC's device group: its stale host sides join it and go in one `link del
 * group`. 0x6e800000 plus the plugin's process id (below 2^22, the kernel's
 * PID_MAX_LIMIT): never 0 nor the small numbers operators give groups, and
 * two GCs at once never share one. */
#define CNI_GC_GROUP_BASE 0x6e800000u
#define CNI_GC_GROUP_PIDS 0x3fffffu
uint32_t gc_group(long pid);
/* How many IPAM DELs GC runs at once with cpus CPUs usable. */
size_t gc_ipam_width(long cpus);
int cmd_gc(struct plugin *p);

#endif
