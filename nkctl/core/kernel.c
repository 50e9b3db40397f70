// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel features: what this kernel offers, probed without changing anything
 * outside a throwaway namespace. One row per feature; commands ask for the
 * ones they need, show kernel (show.c) lists them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "compat.h"
#include "core/ctx.h"
#include "ethtool.h"
#include "core/kernel.h"
#include "netkit.h"
#include "rtnl.h"

enum netkit_probe { NETKIT_ABSENT = 0, NETKIT_PAIR = 1, NETKIT_SINGLE = 2, NETKIT_UNKNOWN = 3 };

/*
 * In a child, in a new empty netns that dies with it, create a single-mode
 * netkit device and read back the pairing. IFLA_INFO_DATA is parsed liberally,
 * so a kernel without single mode silently makes a pair: the read-back tells.
 */
static int netkit_probe_child(void)
{
	struct netkit_req r = {
		.name = "nkprobe0", .netns_fd = -1, .peer_netns_fd = -1,
		.attrs = { .have = NKA_PAIRING, .pairing = NK_NETKIT_DEVICE_SINGLE },
	};
	struct nl_sock s;
	struct nl_err err;
	struct nk_link l;

	if (unshare(CLONE_NEWNET))
		return NETKIT_UNKNOWN;
	if (nl_open(&s, NETLINK_ROUTE, &err))
		return NETKIT_UNKNOWN;
	if (netkit_create(&s, &r, &err))
		return err.code == EOPNOTSUPP ? NETKIT_ABSENT : NETKIT_UNKNOWN;
	if (rtnl_link_get(&s, "nkprobe0", 0, &l, &err))
		return NETKIT_UNKNOWN;
	return (l.netkit.have & NKA_PAIRING) && l.netkit.pairing == NK_NETKIT_DEVICE_SINGLE ?
	       NETKIT_SINGLE : NETKIT_PAIR;
}

static enum netkit_probe netkit_probe(void)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return NETKIT_UNKNOWN;
	if (pid == 0)
		_exit(netkit_probe_child());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return NETKIT_UNKNOWN;
	return (enum netkit_probe)WEXITSTATUS(status);
}

/* BPF_PROG_QUERY on loopback: EINVAL means the attach type is unknown; any
 * other answer (0, ENXIO "not a netkit device") means the kernel knows it. */

/* What the probes share within one command. */
struct probe_env {
	struct nk_ctx *ctx;
	enum netkit_probe netkit;   /* NETKIT_UNKNOWN + 1: not probed yet */
};

/* unknown: the probe could not run (permissions), so it says nothing. */
enum probe_result { PROBE_NO, PROBE_YES, PROBE_UNKNOWN };
static const char *const probe_words[] = {
	[PROBE_NO] = "no", [PROBE_YES] = "yes", [PROBE_UNKNOWN] = "unknown",
};

struct nk_feature_def {
	const char *name;
	const char *since;          /* first Linux release with it */
	const char *what;           /* what needs it, for "needs Linux X" */
	const char *noun;           /* "this kernel has no NOUN"; NULL: name */
	enum probe_result (*probe)(struct probe_env *env, const struct nk_feature_def *f,
				   char *detail, size_t len);
	unsigned int arg, nest, attr;  /* for the generic probes */
	const char *path;              /* probe_device */
};

static enum probe_result bpf_attach_type_known(int type, char *detail, size_t len)
{
	__u32 cnt = 0, flags = 0;
	int ret = bpf_prog_query(1, (enum bpf_attach_type)type, 0, &flags, NULL, &cnt);

	if (ret < 0 && errno == EINVAL)
		return PROBE_NO;
	if (ret < 0 && (errno == EPERM || errno == EACCES)) {
		snprintf(detail, len, "needs CAP_NET_ADMIN");
		return PROBE_UNKNOWN;
	}
	if (ret < 0 && errno != ENXIO && errno != EOPNOTSUPP)
		snprintf(detail, len, "query failed: %s", strerror(errno));
	return PROBE_YES;
}

static enum probe_result yes_no(bool v)
{
	return v ? PROBE_YES : PROBE_NO;
}

static const struct genl_family *netdev_family(struct probe_env *env, struct nl_sock **s)
{
	const struct genl_family *fam;

	*s = NULL;
	if (nk_ctx_netdev(env->ctx, s, &fam))
		return NULL;
	return fam;
}

static enum probe_result probe_family(struct probe_env *env, const struct nk_feature_def *f,
				      char *detail, size_t len)
{
	struct nl_sock *s;
	const struct genl_family *fam = netdev_family(env, &s);

	(void)f;
	(void)detail;
	(void)len;
	return fam ? yes_no(fam->present) : PROBE_UNKNOWN;
}

/* The netdev family has operation f->arg. */
static enum probe_result probe_op(struct probe_env *env, const struct nk_feature_def *f,
				  char *detail, size_t len)
{
	struct nl_sock *s;
	const struct genl_family *fam = netdev_family(env, &s);

	if (!fam)
		return PROBE_UNKNOWN;
	if (!fam->present)
		snprintf(detail, len, "no netdev netlink family");
	return yes_no(genl_has_op(fam, f->arg));
}

/* Operation f->arg's policy has attribute f->attr (inside f->nest). */
static enum probe_result probe_policy(struct probe_env *env, const struct nk_feature_def *f,
				      char *detail, size_t len)
{
	struct nl_sock *s;
	const struct genl_family *fam = netdev_family(env, &s);
	struct nl_err err;
	bool found = false;

	if (!fam)
		return PROBE_UNKNOWN;
	if (!genl_has_op(fam, f->arg))
		return PROBE_NO;
	if (genl_policy_has_attr(s, "netdev", (uint8_t)f->arg, (uint16_t)f->nest,
				 (uint16_t)f->attr, &found, &err))
		snprintf(detail, len, "policy dump failed: %s",
			 err.msg[0] ? err.msg : strerror(err.code));
	return yes_no(found);
}

/* The ethtool family has operation f->arg (its sockets: the command's
 * namespace). */
static enum probe_result probe_ethtool_op(struct probe_env *env, const struct nk_feature_def *f,
					  char *detail, size_t len)
{
	struct nk_ns *here;
	struct nl_err err;

	if (nk_ns_here(env->ctx, &here) || !nk_ns_try_rtnl(here))
		return PROBE_UNKNOWN;
	if (!nl_is_open(&here->genl)) {
		const struct genl_family *fam;

		if (!nk_ns_try_netdev(here, &fam))
			return PROBE_UNKNOWN;
	}
	if (genl_resolve(&here->genl, "ethtool", &here->ethtool, &err))
		return PROBE_UNKNOWN;
	if (!here->ethtool.present)
		snprintf(detail, len, "no ethtool netlink family");
	return yes_no(genl_has_op(&here->ethtool, f->arg));
}

static enum probe_result probe_netkit(struct probe_env *env, const struct nk_feature_def *f,
				      char *detail, size_t len)
{
	if (env->netkit == NETKIT_UNKNOWN + 1)
		env->netkit = netkit_probe();
	if (env->netkit == NETKIT_UNKNOWN) {
		snprintf(detail, len, "needs CAP_SYS_ADMIN");
		return PROBE_UNKNOWN;
	}
	return f->arg ? yes_no(env->netkit == NETKIT_SINGLE) :
			yes_no(env->netkit == NETKIT_PAIR || env->netkit == NETKIT_SINGLE);
}

static enum probe_result probe_attach_type(struct probe_env *env, const struct nk_feature_def *f,
					   char *detail, size_t len)
{
	(void)env;
	return bpf_attach_type_known((int)f->arg, detail, len);
}

static enum probe_result probe_device(struct probe_env *env, const struct nk_feature_def *f,
				      char *detail, size_t len)
{
	(void)env;
	if (access(f->path, F_OK))
		return PROBE_NO;
	if (access(f->path, (int)f->arg))
		snprintf(detail, len, "%s: %s", f->path, strerror(errno));
	return PROBE_YES;
}

/* One row per feature: show kernel lists them, commands ask for them. */
#define FEATURE(n, s, w, p) .name = n, .since = s, .what = w, .probe = p
static const struct nk_feature_def features[NK_FEAT_N] = {
	[NK_FEAT_NETDEV] = { FEATURE("netdev-family", "6.3", "the netdev netlink family",
				     probe_family) },
	[NK_FEAT_QUEUE_GET] = { FEATURE("queue-get", "6.8", "showing queues", probe_op),
				.arg = NK_NETDEV_CMD_QUEUE_GET },
	[NK_FEAT_NAPI_GET] = { FEATURE("napi-get", "6.8", "showing NAPIs", probe_op),
			       .arg = NK_NETDEV_CMD_NAPI_GET },
	[NK_FEAT_BIND_RX] = { FEATURE("bind-rx", "6.12", "devmem RX", probe_op),
			      .noun = "netdev bind-rx", .arg = NK_NETDEV_CMD_BIND_RX },
	[NK_FEAT_BIND_TX] = { FEATURE("bind-tx", "6.16", "devmem TX", probe_op),
			      .noun = "netdev bind-tx", .arg = NK_NETDEV_CMD_BIND_TX },
	[NK_FEAT_RX_PAGE_SIZE] = { FEATURE("rx-page-size", "7.3", "rx-page-size", probe_policy),
				   .arg = NK_NETDEV_CMD_BIND_RX,
				   .attr = NK_NETDEV_A_DMABUF_RX_PAGE_SIZE },
	[NK_FEAT_QUEUE_CREATE] = { FEATURE("queue-create", "7.1", "queue leasing", probe_op),
				   .noun = "netdev queue-create", .arg = NK_NETDEV_CMD_QUEUE_CREATE },
	[NK_FEAT_LEASE_NETNS_ID] = { FEATURE("lease-netns-id", "7.1", "leasing across namespaces",
					     probe_policy),
				     .arg = NK_NETDEV_CMD_QUEUE_CREATE, .nest = NK_NETDEV_A_QUEUE_LEASE,
				     .attr = NK_NETDEV_A_LEASE_NETNS_ID },
	[NK_FEAT_NETKIT] = { FEATURE("netkit", "6.7", "netkit devices", probe_netkit) },
	[NK_FEAT_NETKIT_SINGLE] = { FEATURE("netkit-single", "7.1", "single netkit devices",
					    probe_netkit), .arg = 1 },
	[NK_FEAT_TCX] = { FEATURE("tcx", "6.6", "redirect on tcx hooks", probe_attach_type),
			  .arg = NK_BPF_TCX_INGRESS },
	[NK_FEAT_NETKIT_BPF] = { FEATURE("netkit-bpf", "6.7", "redirect on netkit hooks",
					 probe_attach_type),
				 .noun = "netkit BPF hooks", .arg = NK_BPF_NETKIT_PRIMARY },
	[NK_FEAT_UDMABUF] = { FEATURE("udmabuf", "4.20", "udmabuf dmabufs", probe_device),
			      .arg = R_OK | W_OK, .path = "/dev/udmabuf" },
	[NK_FEAT_DMA_HEAP] = { FEATURE("dma-heap-system", "5.6", "dma-heap dmabufs", probe_device),
			       .arg = R_OK, .path = "/dev/dma_heap/system" },
	[NK_FEAT_ETHTOOL_CHANNELS] = { FEATURE("channels-get", "5.7", "nic show",
					       probe_ethtool_op),
				       .noun = "ethtool channels-get", .arg = NK_ETHTOOL_MSG_CHANNELS_GET },
	[NK_FEAT_ETHTOOL_RINGS] = { FEATURE("rings-set", "5.7",
					    "turning header split on (nic reserve)", probe_ethtool_op),
				    .noun = "ethtool rings-set", .arg = NK_ETHTOOL_MSG_RINGS_SET },
	[NK_FEAT_ETHTOOL_RSS_GET] = { FEATURE("rss-get", "6.2",
					      "reading the RSS indirection table", probe_ethtool_op),
				      .noun = "ethtool rss-get", .arg = NK_ETHTOOL_MSG_RSS_GET },
	[NK_FEAT_ETHTOOL_RSS_SET] = { FEATURE("rss-set", "6.17",
					      "keeping queues out of RSS (nic reserve)", probe_ethtool_op),
				      .noun = "ethtool rss-set", .arg = NK_ETHTOOL_MSG_RSS_SET },
};

bool nk_feature_has(struct nk_ctx *ctx, enum nk_feature id)
{
	const struct nk_feature_def *f = &features[id];
	struct probe_env env = { ctx, NETKIT_UNKNOWN + 1 };
	char detail[320] = "";

	return f->probe(&env, f, detail, sizeof(detail)) != PROBE_NO;
}

void nk_feature_missing(enum nk_feature id, char *buf, size_t len)
{
	const struct nk_feature_def *f = &features[id];

	snprintf(buf, len, "this kernel has no %s (%s needs Linux %s+)",
		 f->noun ? f->noun : f->name, f->what, f->since);
}

int nk_feature_need(struct nk_ctx *ctx, enum nk_feature id)
{
	char msg[256];

	if (nk_feature_has(ctx, id))
		return 0;
	nk_feature_missing(id, msg, sizeof(msg));
	return nk_error(NK_EXIT_UNSUPPORTED, "%s", msg);
}

int nk_ns_ethtool(struct nk_ns *ns, struct nl_sock **s, const struct genl_family **fam)
{
	const struct genl_family *et;
	struct nl_sock *gs;
	int ret = nk_ns_ethtool_family(ns, &gs, &et);

	if (ret)
		return ret;
	if (!et->present)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"this kernel has no ethtool netlink family (Linux %s+)",
				features[NK_FEAT_ETHTOOL_CHANNELS].since);
	*s = gs;
	*fam = et;
	return 0;
}

const char *nk_feature_since(enum nk_feature id)
{
	return features[id].since;
}

const char *nk_feature_name(enum nk_feature id)
{
	return features[id].name;
}

void nk_features_probe(struct nk_ctx *ctx, nk_feature_fn fn, void *data)
{
	struct probe_env env = { ctx, NETKIT_UNKNOWN + 1 };
	char detail[320];

	for (size_t i = 0; i < NK_FEAT_N; i++) {
		const struct nk_feature_def *f = &features[i];
		enum probe_result r;

		detail[0] = '\0';
		r = f->probe(&env, f, detail, sizeof(detail));
		fn((enum nk_feature)i, r == PROBE_YES, probe_words[r], detail, data);
	}
}
