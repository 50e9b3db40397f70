// SPDX-License-Identifier: GPL-2.0
/* Global options, the top-level table, batch mode. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "netns.h"
#include "rtnl.h"
#include "nkctl.h"
#include "bindings.h"

#ifndef NKCTL_VERSION
#define NKCTL_VERSION "unknown"
#endif

static void usage(void);
static int cmd_version(struct nk_ctx *ctx, int argc, char **argv);
static int cmd_list(struct nk_ctx *ctx, int argc, char **argv);

static const struct nk_cmd top_cmds[] = {
	{ "show", NULL, &nk_show_table, NULL, NULL,
	  "devices, queues, NAPIs and leases; kernel features" },
	{ "link", NULL, &nk_link_table, NULL, NULL,
	  "create, change, delete and list netkit devices" },
	{ "lease", cmd_lease, NULL, &nk_lease_params,
	  "dev NKDEV from PHYS [ phys-netns NETNS ] queue LIST",
	  "lease RX queues of a physical NIC into a netkit peer or single device" },
	{ "unlease", cmd_unlease, NULL, &nk_unlease_params,
	  "{ dev NKDEV | from PHYS [ phys-netns NETNS ] queue LIST } [ force ]",
	  "end leases by deleting the netkit device that holds them" },
	{ "bind-rx", cmd_bind_rx, NULL, &nk_bind_rx_params,
	  "dev DEV queue LIST dmabuf SOURCE [ size SIZE ] [ hugepages ] [ rx-page-size N ] [ foreground | -- CMD [ ARGS... ] ]",
	  "bind a dmabuf to RX queues for devmem TCP and hold the binding" },
	{ "bind-tx", cmd_bind_tx, NULL, &nk_bind_tx_params,
	  "dev DEV dmabuf SOURCE [ size SIZE ] [ hugepages ] [ foreground | -- CMD [ ARGS... ] ]",
	  "bind a dmabuf for devmem TCP transmit and hold the binding" },
	{ "unbind", cmd_unbind, NULL, &nk_unbind_params, "{ id ID | dev DEV }",
	  "end bindings held by nkctl (the kernel then releases them)" },
	{ "redirect", NULL, &nk_redirect_table, NULL, NULL,
	  "BPF programs that steer packets between a netkit device and the NIC" },
	{ "version", cmd_version, NULL, NULL, "", "print the version" },
};
const struct nk_table nk_top_table = {
	"nkctl", sizeof(top_cmds) / sizeof(top_cmds[0]), top_cmds, usage
};

/* Hidden: the listing bash completion reads. Not in the table on purpose. */
static const struct nk_cmd list_cmd = { "__list", cmd_list, NULL, NULL, "", "" };

static void usage(void)
{
	printf("Usage: nkctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
	       "       nkctl [ OPTIONS ] -batch FILE\n"
	       "       nkctl help [ OBJECT ]\n"
	       "where  OPTIONS := { -j | --json | -p | --pretty | -n | --netns NETNS |\n"
	       "                    -b | -batch | --batch FILE | -f | -force | --force |\n"
	       "                    -V | --version | -h | --help }\n"
	       "       NETNS is a name under " NETNS_RUN_DIR " or a path such as /proc/PID/ns/net\n"
	       "\n");
}

static int cmd_version(struct nk_ctx *ctx, int argc, char **argv)
{
	int ret = nk_no_args("version", argc, argv);

	if (ret)
		return ret;
	out_begin(&ctx->out);
	out_str(&ctx->out, "version", "nkctl %s\n", NKCTL_VERSION);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* "__list": every command path and its keywords; "__list ifnames": the
 * devices of the namespace. Tab-separated, for completions/nkctl. */
static int cmd_list(struct nk_ctx *ctx, int argc, char **argv)
{
	struct nk_link_list links;
	struct nl_sock *s = NULL;
	struct nl_err err;
	int ret;

	if (argc == 0) {
		nk_table_list(&nk_top_table, "");
		return NK_EXIT_OK;
	}
	if (argc > 1 || strcmp(argv[0], "ifnames"))
		return nk_error(NK_EXIT_USAGE, "__list takes nothing or \"ifnames\"");
	ret = nk_ctx_rtnl(ctx, &s);
	if (ret)
		return ret;
	if (rtnl_link_dump(s, &links, &err))
		return nk_error_nl(&err, "cannot list devices");
	for (size_t i = 0; i < links.n; i++)
		printf("%s\n", links.v[i].ifname);
	nk_link_list_free(&links);
	return NK_EXIT_OK;
}

void nk_ctx_init(struct nk_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
}

void nk_ctx_release(struct nk_ctx *ctx)
{
	if (nl_is_open(&ctx->rtnl))
		nl_close(&ctx->rtnl);
	if (nl_is_open(&ctx->genl))
		nl_close(&ctx->genl);
	memset(&ctx->netdev, 0, sizeof(ctx->netdev));
}

int nk_ctx_rtnl(struct nk_ctx *ctx, struct nl_sock **s)
{
	struct nl_err err;

	if (!nl_is_open(&ctx->rtnl) && nl_open(&ctx->rtnl, NETLINK_ROUTE, &err))
		return nk_error_nl(&err, "cannot open an rtnetlink socket");
	*s = &ctx->rtnl;
	return 0;
}

int nk_ctx_netdev(struct nk_ctx *ctx, struct nl_sock **s,
		  const struct genl_family **fam)
{
	struct nl_err err;

	if (!nl_is_open(&ctx->genl) && nl_open(&ctx->genl, NETLINK_GENERIC, &err))
		return nk_error_nl(&err, "cannot open a generic netlink socket");
	if (genl_resolve(&ctx->genl, "netdev", &ctx->netdev, &err))
		return nk_error_nl(&err, "cannot resolve the netdev family");
	*s = &ctx->genl;
	*fam = &ctx->netdev;
	return 0;
}

void nk_ctx_flush(struct nk_ctx *ctx)
{
	sigset_t hold, old;

	if (!ctx->json_mem) {
		fflush(stdout);
		return;
	}
	if (fflush(ctx->json_mem) || !ctx->json_len)
		return;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigaddset(&hold, SIGPIPE);
	sigprocmask(SIG_BLOCK, &hold, &old);
	fwrite(ctx->json_buf, 1, ctx->json_len, stdout);
	fflush(stdout);
	rewind(ctx->json_mem);
	ctx->json_len = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int run_words(struct nk_ctx *ctx, int argc, char **argv)
{
	FILE *fp = stdout;
	int ret;

	/* JSON is one document: built in memory, written whole (nk_ctx_flush). */
	if (ctx->json) {
		ctx->json_mem = open_memstream(&ctx->json_buf, &ctx->json_len);
		if (ctx->json_mem)
			fp = ctx->json_mem;
	}
	out_init(&ctx->out, fp, ctx->json, ctx->pretty);
	if (argc > 0 && !strcmp(argv[0], list_cmd.name))
		ret = list_cmd.run(ctx, argc - 1, argv + 1);
	else
		ret = nk_dispatch(ctx, &nk_top_table, argc, argv);
	nk_ctx_flush(ctx);
	if (ctx->json_mem) {
		fclose(ctx->json_mem);
		free(ctx->json_buf);
		ctx->json_mem = NULL;
		ctx->json_buf = NULL;
		ctx->json_len = 0;
	}
	return ret;
}

/* Split a batch line into words: blanks separate, quotes group, # comments. */
static int split_words(char *line, char **words, int max)
{
	int n = 0;
	char *p = line, *w;

	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (n == max)
			return -E2BIG;
		w = p;
		words[n++] = w;
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '"' || *p == '\'') {
				char q = *p++;

				while (*p && *p != q)
					*w++ = *p++;
				if (*p != q)
					return -EINVAL;
				p++;
			} else {
				*w++ = *p++;
			}
		}
		if (*p)
			p++;
		*w = '\0';
	}
	return n;
}

static int run_batch(struct nk_ctx *ctx, const char *name)
{
	FILE *fp = strcmp(name, "-") ? fopen(name, "re") : stdin;
	char *line = NULL, *words[128];
	size_t cap = 0;
	unsigned long lineno = 0;
	int status = NK_EXIT_OK;

	if (!fp)
		return nk_error_errno(errno, "cannot open batch file \"%s\"", name);
	while (getline(&line, &cap, fp) >= 0) {
		int n, ret;

		lineno++;
		n = split_words(line, words, 128);
		if (n == 0)
			continue;
		if (n < 0)
			ret = nk_error(NK_EXIT_USAGE, "%s:%lu: %s", name, lineno,
				       n == -E2BIG ? "too many words" : "unterminated quote");
		else
			ret = run_words(ctx, n, words);
		if (ret) {
			/* The line's own Error: came first; this says where. */
			fprintf(stderr, "Batch: %s:%lu failed (exit status %d)\n", name, lineno, ret);
			status = ret;
			if (!ctx->force)
				break;
		}
	}
	free(line);
	if (fp != stdin)
		fclose(fp);
	return status;
}

/* Global options are matched exactly (no abbreviations). */
static int parse_options(struct nk_ctx *ctx, int *argc, char ***argv,
			 const char **batch)
{
	while (*argc > 0 && (*argv)[0][0] == '-') {
		const char *o = (*argv)[0];
		const char *val = NULL;

		if (!strcmp(o, "--")) {
			(*argc)--;
			(*argv)++;
			break;
		}
		if (!strcmp(o, "-j") || !strcmp(o, "--json")) {
			ctx->json = true;
		} else if (!strcmp(o, "-p") || !strcmp(o, "--pretty")) {
			ctx->pretty = true;
		} else if (!strcmp(o, "-f") || !strcmp(o, "-force") || !strcmp(o, "--force")) {
			ctx->force = true;
		} else if (!strcmp(o, "-V") || !strcmp(o, "--version")) {
			printf("nkctl %s\n", NKCTL_VERSION);
			exit(NK_EXIT_OK);
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			nk_table_help(&nk_top_table);
			exit(NK_EXIT_OK);
		} else if (!strcmp(o, "-n") || !strcmp(o, "--netns") ||
			   !strcmp(o, "-b") || !strcmp(o, "-batch") || !strcmp(o, "--batch")) {
			if (*argc < 2)
				return nk_error(NK_EXIT_USAGE, "option \"%s\" needs a value", o);
			val = (*argv)[1];
			if (!strcmp(o, "-n") || !strcmp(o, "--netns")) {
				if (ctx->netns)
					return nk_error(NK_EXIT_USAGE, "duplicate \"%s\"", o);
				ctx->netns = val;
			} else {
				if (*batch)
					return nk_error(NK_EXIT_USAGE, "duplicate \"%s\"", o);
				*batch = val;
			}
			(*argc)--;
			(*argv)++;
		} else if (!strncmp(o, "--netns=", 8)) {
			ctx->netns = o + 8;
		} else {
			return nk_error(NK_EXIT_USAGE, "unknown option \"%s\"; try \"nkctl help\"", o);
		}
		(*argc)--;
		(*argv)++;
	}
	return 0;
}

int nk_netns_open(const char *spec, int *fd)
{
	int ret = netns_open(spec, fd);

	if (ret == -EINVAL)
		return nk_error(NK_EXIT_USAGE, "\"%s\" is not a network namespace name or path", spec);
	if (ret == -ENOENT)
		return nk_error(NK_EXIT_NOTFOUND, "network namespace \"%s\" does not exist", spec);
	if (ret == -ELOOP)
		return nk_error(NK_EXIT_USAGE,
				"%s/%s is a symbolic link, not a namespace: nkctl does not follow links there",
				NETNS_RUN_DIR, spec);
	if (ret)
		return nk_error_errno(-ret, "cannot open network namespace \"%s\"", spec);
	return 0;
}

static int enter_netns(const char *spec)
{
	int fd, ret = nk_netns_open(spec, &fd);

	if (ret)
		return ret;
	ret = netns_enter(fd);
	close(fd);
	if (ret == -EINVAL)
		return nk_error(NK_EXIT_USAGE, "\"%s\" is not a network namespace", spec);
	if (ret)
		return nk_error_errno(-ret, "cannot enter network namespace \"%s\"", spec);
	return 0;
}

int main(int argc, char **argv)
{
	struct nk_ctx ctx;
	const char *batch = NULL;
	int ret;

	/* nkctl changes kernel state as root; it must never be a setuid way in. */
	if (getuid() != geteuid() || getgid() != getegid())
		return nk_error(NK_EXIT_PERM, "nkctl refuses to run setuid or setgid");
	nk_ctx_init(&ctx);
	argc--;
	argv++;
	ret = parse_options(&ctx, &argc, &argv, &batch);
	if (ret)
		return ret;
	if (batch && argc > 0)
		return nk_error(NK_EXIT_USAGE, "-batch takes no command on the command line");
	if (!batch && argc == 0)
		return nk_error(NK_EXIT_USAGE, "no command given; try \"nkctl help\"");
	if (ctx.netns) {
		ret = enter_netns(ctx.netns);
		if (ret)
			return ret;
	}
	ret = batch ? run_batch(&ctx, batch) : run_words(&ctx, argc, argv);
	nk_ctx_release(&ctx);
	if (fflush(stdout) || ferror(stdout)) {
		if (ret == NK_EXIT_OK)
			ret = nk_error_errno(errno ? errno : EIO, "cannot write the output");
	}
	return ret;
}
