// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl show kernel: what this kernel offers, probed without changing
 * anything outside a throwaway namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "compat.h"
#include "netkit.h"
#include "rtnl.h"
#include "nkctl.h"

struct feature {
	const char *name;
	bool supported;
	const char *since;   /* first Linux release with it */
	char detail[320];
};

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
static bool bpf_attach_type_known(int type, char *detail, size_t len)
{
	__u32 cnt = 0, flags = 0;
	int ret = bpf_prog_query(1, (enum bpf_attach_type)type, 0, &flags, NULL, &cnt);

	if (ret < 0 && errno == EINVAL)
		return false;
	if (ret < 0 && errno != ENXIO && errno != EOPNOTSUPP)
		snprintf(detail, len, "query failed: %s", strerror(errno));
	return true;
}

static void op_feature(struct feature *f, const struct genl_family *fam, unsigned int cmd)
{
	f->supported = genl_has_op(fam, cmd);
	if (!fam->present)
		snprintf(f->detail, sizeof(f->detail), "no netdev netlink family");
}

static void policy_feature(struct feature *f, struct nl_sock *s,
			   const struct genl_family *fam, uint8_t cmd,
			   uint16_t nest, uint16_t attr)
{
	struct nl_err err;
	bool found = false;

	if (!genl_has_op(fam, cmd)) {
		f->supported = false;
		return;
	}
	if (genl_policy_has_attr(s, "netdev", cmd, nest, attr, &found, &err))
		snprintf(f->detail, sizeof(f->detail), "policy dump failed: %s",
			 err.msg[0] ? err.msg : strerror(err.code));
	f->supported = found;
}

int cmd_show_kernel(struct nk_ctx *ctx, int argc, char **argv)
{
	struct feature f[] = {
		{ "netdev-family", false, "6.4", "" },
		{ "queue-get", false, "6.8", "" },
		{ "napi-get", false, "6.8", "" },
		{ "bind-rx", false, "6.12", "" },
		{ "bind-tx", false, "6.15", "" },
		{ "rx-page-size", false, "7.3", "" },
		{ "queue-create", false, "7.1", "" },
		{ "lease-netns-id", false, "7.1", "" },
		{ "netkit", false, "6.7", "" },
		{ "netkit-single", false, "7.1", "" },
		{ "tcx", false, "6.6", "" },
		{ "netkit-bpf", false, "6.7", "" },
		{ "udmabuf", false, "4.20", "" },
		{ "dma-heap-system", false, "5.6", "" },
	};
	const struct genl_family *fam;
	struct nl_sock *s;
	struct utsname un;
	enum netkit_probe nk;
	int ret;

	ret = nk_no_args("show kernel", argc, argv);
	if (ret)
		return ret;
	ret = nk_ctx_netdev(ctx, &s, &fam);
	if (ret)
		return ret;
	f[0].supported = fam->present;
	op_feature(&f[1], fam, NK_NETDEV_CMD_QUEUE_GET);
	op_feature(&f[2], fam, NK_NETDEV_CMD_NAPI_GET);
	op_feature(&f[3], fam, NK_NETDEV_CMD_BIND_RX);
	op_feature(&f[4], fam, NK_NETDEV_CMD_BIND_TX);
	policy_feature(&f[5], s, fam, NK_NETDEV_CMD_BIND_RX, 0, NK_NETDEV_A_DMABUF_RX_PAGE_SIZE);
	op_feature(&f[6], fam, NK_NETDEV_CMD_QUEUE_CREATE);
	policy_feature(&f[7], s, fam, NK_NETDEV_CMD_QUEUE_CREATE, NK_NETDEV_A_QUEUE_LEASE,
		       NK_NETDEV_A_LEASE_NETNS_ID);
	nk = netkit_probe();
	f[8].supported = nk == NETKIT_PAIR || nk == NETKIT_SINGLE;
	f[9].supported = nk == NETKIT_SINGLE;
	if (nk == NETKIT_UNKNOWN) {
		snprintf(f[8].detail, sizeof(f[8].detail), "probe failed (needs CAP_SYS_ADMIN)");
		snprintf(f[9].detail, sizeof(f[9].detail), "probe failed (needs CAP_SYS_ADMIN)");
	}
	f[10].supported = bpf_attach_type_known(NK_BPF_TCX_INGRESS, f[10].detail,
						sizeof(f[10].detail));
	f[11].supported = bpf_attach_type_known(NK_BPF_NETKIT_PRIMARY, f[11].detail,
						sizeof(f[11].detail));
	f[12].supported = access("/dev/udmabuf", R_OK | W_OK) == 0;
	f[13].supported = access("/dev/dma_heap/system", R_OK) == 0;

	if (uname(&un))
		memset(&un, 0, sizeof(un));
	out_begin(&ctx->out);
	out_obj_open(&ctx->out, "kernel");
	out_str(&ctx->out, "release", "kernel %s\n", un.release);
	out_arr_open(&ctx->out, "features");
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		out_obj_open(&ctx->out, NULL);
		out_str(&ctx->out, "name", "  %-16s", f[i].name);
		out_bool(&ctx->out, "supported", " %-4s", f[i].supported);
		out_str(&ctx->out, "since", " (Linux %s+)", f[i].since);
		out_str(&ctx->out, "detail", f[i].detail[0] ? " %s" : NULL, f[i].detail);
		out_text(&ctx->out, "\n");
		out_obj_close(&ctx->out);
	}
	out_arr_close(&ctx->out);
	out_obj_close(&ctx->out);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}
