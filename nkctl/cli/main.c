// SPDX-License-Identifier: GPL-2.0
/* Global options, the top-level table, batch mode. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "core/cmd.h"
#include "cli/main.h"
#include "docbuf.h"
#include "netns.h"
#include "prefault.h"
#include "rtnl.h"


#ifndef NKCTL_VERSION
#define NKCTL_VERSION "unknown"
#endif

/* The JSON contract's revision (doc/json.md): raised by one whenever a key
 * or a shape is added, so that a script can refuse an nkctl too old for it. */
#define NK_JSON_CONTRACT 7

static void usage(void);
static int cmd_version(struct nk_ctx *ctx, const void *args);
static int cmd_list(struct nk_ctx *ctx, const void *args);

static const struct nk_cmd top_cmds[] = {
	{ "show", NULL, &nk_show_table, NULL, NULL,
	  "devices, queues, NAPIs and leases; kernel features" },
	{ "link", NULL, &nk_link_table, NULL, NULL,
	  "create, change, delete and list netkit devices" },
	{ "lease", cmd_lease, NULL, &cmd_lease_params, NULL,
	  "lease RX queues of a physical NIC into a netkit peer or single device" },
	{ "unlease", cmd_unlease, NULL, &cmd_unlease_params,
	  "{ dev NKDEV [ netns NETNS ] | from PHYS [ phys-netns NETNS ] queue LIST [ holders NKDEV[,NKDEV...] ] } [ force ] [ wait SECONDS ]",
	  "end leases by deleting the netkit device that holds them" },
	{ "nic", NULL, &nk_nic_table, NULL, NULL,
	  "the NIC side of leases: queues reserved out of RSS, header split" },
	{ "steer", NULL, &nk_steer_table, NULL, NULL,
	  "n-tuple rules that steer flows to RX queues" },
	{ "bind-rx", cmd_bind_rx, NULL, &cmd_bind_rx_params, NULL,
	  "bind a dmabuf to RX queues for devmem TCP and hold the binding" },
	{ "bind-tx", cmd_bind_tx, NULL, &cmd_bind_tx_params, NULL,
	  "bind a dmabuf for devmem TCP transmit and hold the binding" },
	{ "unbind", cmd_unbind, NULL, &cmd_unbind_params, NULL,
	  "end bindings held by nkctl (the kernel then releases them)" },
	{ "redirect", NULL, &nk_redirect_table, NULL, NULL,
	  "BPF programs that steer packets between a netkit device and the NIC" },
	{ "xsk", NULL, &nk_xsk_table, NULL, NULL,
	  "AF_XDP sockets on leased queues: the XDP program and a map per holder" },
	{ "doctor", cmd_doctor, NULL, &cmd_doctor_params, NULL,
	  "check pods' whole path and say what to run to fix each problem" },
	{ "monitor", cmd_monitor, NULL, &cmd_monitor_params,
	  "[ all-nsid ] [ count N ] [ OBJECT... ]",
	  "print events: links, nsids, page pools, leases, bindings, holders, AF_XDP queues, XDP programs" },
	{ "version", cmd_version, NULL, NULL, NULL, "print the version" },
};
const struct nk_table nk_top_table = {
	"nkctl", sizeof(top_cmds) / sizeof(top_cmds[0]), top_cmds, usage
};

/* ---- global options: one table for parsing, usage, completion and docs ---- */

enum opt_id { OPT_JSON, OPT_PRETTY, OPT_STATS, OPT_TIMESTAMP, OPT_NETNS, OPT_BATCH, OPT_FORCE, OPT_VERSION, OPT_HELP };

struct nk_option {
	enum opt_id id;
	const char *names[4];   /* every spelling, exact; the last is the --long one */
	const char *meta;       /* the value, or NULL for a switch */
	const char *help;
};

static const struct nk_option options[] = {
	{ OPT_JSON, { "-j", "-json", "--json" }, NULL, "JSON output (one document per command)" },
	{ OPT_PRETTY, { "-p", "-pretty", "--pretty" }, NULL, "indented JSON (implies -j)" },
	{ OPT_STATS, { "-s", "-stats", "--stats" }, NULL,
	  "show: counters of devices, queues and leases" },
	{ OPT_TIMESTAMP, { "-t", "-timestamp", "--timestamp" }, NULL,
	  "monitor: a time stamp on every event" },
	{ OPT_NETNS, { "-n", "-netns", "--netns" }, "NETNS", "run in network namespace NETNS" },
	{ OPT_BATCH, { "-b", "-batch", "--batch" }, "FILE", "read commands from FILE (- : stdin)" },
	{ OPT_FORCE, { "-f", "-force", "--force" }, NULL, "go on; what is already gone is done" },
	{ OPT_VERSION, { "-V", "-version", "--version" }, NULL, "print the version" },
	{ OPT_HELP, { "-h", "-help", "--help" }, NULL, "print this help" },
};

static const char *long_name(const struct nk_option *o)
{
	size_t n = 0;

	while (n < 4 && o->names[n])
		n++;
	return o->names[n - 1];
}

/* The option word names (or, for "--long=VALUE", starts); *val gets the
 * value after '=' then. */
static const struct nk_option *find_option(const char *word, const char **val)
{
	*val = NULL;
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const struct nk_option *o = &options[i];
		size_t len = strlen(long_name(o));

		for (size_t k = 0; k < 4 && o->names[k]; k++)
			if (!strcmp(word, o->names[k]))
				return o;
		if (o->meta && !strncmp(word, long_name(o), len) && word[len] == '=') {
			*val = word + len + 1;
			return o;
		}
	}
	return NULL;
}

static void usage(void)
{
	printf("Usage: nkctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
	       "       nkctl [ OPTIONS ] -batch FILE\n"
	       "       nkctl help [ OBJECT ]\n"
	       "where  OPTIONS :=\n");
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const struct nk_option *o = &options[i];
		char names[64];

		snprintf(names, sizeof(names), "%s | %s%s%s", o->names[0], long_name(o),
			 o->meta ? " " : "", o->meta ? o->meta : "");
		printf("         %-22s %s\n", names, o->help);
	}
	printf("       NETNS is a name under " NETNS_RUN_DIR " or a path such as /proc/PID/ns/net\n"
	       "       (-json, -pretty, -netns ... and --netns=NETNS are accepted too)\n"
	       "\n");
}

static int cmd_version(struct nk_ctx *ctx, const void *args)
{
	(void)args;
	out_begin(&ctx->out);
	out_str(&ctx->out, "version", "nkctl %s\n", NKCTL_VERSION);
	out_uint(&ctx->out, "json", NULL, NK_JSON_CONTRACT);
	out_end(&ctx->out);
	return NK_EXIT_OK;
}

/* "__list": global options, every command path and its keywords;
 * "__list ifnames": the devices of the namespace. Tab-separated, for
 * completions/nkctl and the docs test. */
struct list_args {
	const char *what;
};
static const struct nk_param list_param[] = {
	{ NULL, NKP_STRING, offsetof(struct list_args, what), "ifnames", 0, 0, NULL, false, NULL },
};
static const struct nk_params list_params = { NK_PARAMS("__list", struct list_args, list_param) };

static void list_options(void)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		for (size_t k = 0; k < 4 && options[i].names[k]; k++)
			printf("opt\t%s\t%s\n", options[i].names[k],
			       options[i].meta ? options[i].meta : "-");
}

static int cmd_list(struct nk_ctx *ctx, const void *args)
{
	const struct list_args *a = args;
	struct nk_link_list links;
	struct nl_sock *s = NULL;
	struct nl_err err;
	int ret;

	if (!a->what) {
		list_options();
		nk_table_list(&nk_top_table, "");
		return NK_EXIT_OK;
	}
	if (strcmp(a->what, "ifnames"))
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

/* Hidden: the listing bash completion reads. Not in the table on purpose. */
static const struct nk_cmd list_cmd = { "__list", cmd_list, NULL, &list_params, NULL, "" };
static const struct nk_table list_table = { "nkctl", 1, &list_cmd, NULL };

static int run_words(struct nk_ctx *ctx, int argc, char **argv)
{
	FILE *fp = stdout;
	int ret;

	/* JSON is one document: built in memory, written whole (nk_ctx_flush). */
	if (ctx->json) {
		ctx->json_mem = docbuf_open(&ctx->json_buf, &ctx->json_len);
		if (ctx->json_mem)
			fp = ctx->json_mem;
	}
	out_init(&ctx->out, fp, ctx->json, ctx->pretty);
	if (argc > 0 && !strcmp(argv[0], list_cmd.name))
		ret = nk_dispatch(ctx, &list_table, argc, argv);
	else
		ret = nk_dispatch(ctx, &nk_top_table, argc, argv);
	nk_ctx_flush(ctx);
	nk_ctx_end_command(ctx);
	if (ctx->json_mem) {
		fclose(ctx->json_mem);
		if (!nk_ctx_keep(ctx, ctx->json_buf))
			free(ctx->json_buf);
		ctx->json_mem = NULL;
		ctx->json_buf = NULL;
		ctx->json_len = 0;
	}
	return ret;
}

/* Split a batch line into words: blanks separate, quotes group, # comments. */
int split_words(char *line, char **words, int max)
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

/* In JSON, a failed line answers too, so that the Nth document is the Nth
 * command's: {"error": {"file", "line", "status"}} (the message is on
 * standard error). */
static void batch_error_doc(const struct nk_ctx *ctx, const char *name, unsigned long lineno,
			    int status)
{
	struct out o;

	if (!ctx->json)
		return;
	out_init(&o, stdout, true, ctx->pretty);
	out_begin(&o);
	out_obj_open(&o, "error");
	out_str(&o, "file", NULL, name);
	out_uint(&o, "line", NULL, lineno);
	out_uint(&o, "status", NULL, (unsigned int)status);
	out_obj_close(&o);
	out_end(&o);
	fflush(stdout);
}

static FILE *batch_open(const char *name)
{
	struct stat st;
	FILE *fp;

	if (!strcmp(name, "-"))
		return stdin;
	fp = fopen(name, "re");
	if (fp && (fstat(fileno(fp), &st) || S_ISDIR(st.st_mode))) {
		fclose(fp);
		errno = EISDIR;
		return NULL;
	}
	return fp;
}

static int run_batch(struct nk_ctx *ctx, const char *name)
{
	FILE *fp = batch_open(name);
	char *line = NULL, *words[128];
	size_t cap = 0;
	unsigned long lineno = 0;
	int status = NK_EXIT_OK;

	if (!fp && errno == EISDIR)
		return nk_error(NK_EXIT_USAGE, "batch file \"%s\" is a directory", name);
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
			/* The line's own error came first; this says where (in
			 * JSON, the line's answer on stdout says it). */
			nk_note("Batch", "%s:%lu failed (exit status %d)", name, lineno, ret);
			batch_error_doc(ctx, name, lineno, ret);
			status = ret;
			if (!ctx->force)
				break;
		}
	}
	if (ferror(fp) && status == NK_EXIT_OK)
		status = nk_error_errno(errno ? errno : EIO, "cannot read batch file \"%s\"", name);
	free(line);
	if (fp != stdin)
		fclose(fp);
	return status;
}

static int unknown_option(const char *word)
{
	struct nk_suggest sg = { .word = word };
	char hint[96];

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		for (size_t k = 0; k < 4 && options[i].names[k]; k++)
			nk_suggest_try(&sg, options[i].names[k]);
	return nk_error(NK_EXIT_USAGE, "unknown option \"%s\"%s; try \"nkctl help\"", word,
			nk_suggest_text(&sg, hint, sizeof(hint)));
}

/* Global options are matched exactly (no abbreviations). -V is the version
 * command, after every option (-j -V and -V -j print the same). */
static int parse_options(struct nk_ctx *ctx, int *argc, char ***argv,
			 const char **batch, bool *version)
{
	while (*argc > 0 && (*argv)[0][0] == '-') {
		const char *word = (*argv)[0], *val;
		const struct nk_option *o;

		if (!strcmp(word, "--")) {
			(*argc)--;
			(*argv)++;
			break;
		}
		o = find_option(word, &val);
		if (!o)
			return unknown_option(word);
		if (o->meta && !val) {
			if (*argc < 2)
				return nk_error(NK_EXIT_USAGE, "option \"%s\" needs a value", word);
			val = (*argv)[1];
			(*argc)--;
			(*argv)++;
		}
		switch (o->id) {
		case OPT_JSON:
			ctx->json = true;
			nk_report_json(true);
			break;
		case OPT_PRETTY:
			ctx->pretty = true;
			ctx->json = true;
			nk_report_json(true);
			break;
		case OPT_STATS:
			ctx->stats = true;
			break;
		case OPT_TIMESTAMP:
			ctx->timestamp = true;
			break;
		case OPT_FORCE:
			ctx->force = true;
			break;
		case OPT_NETNS:
			if (ctx->netns)
				return nk_error(NK_EXIT_USAGE, "duplicate \"%s\"", word);
			ctx->netns = val;
			break;
		case OPT_BATCH:
			if (*batch)
				return nk_error(NK_EXIT_USAGE, "duplicate \"%s\"", word);
			*batch = val;
			break;
		case OPT_VERSION:
			*version = true;
			break;
		case OPT_HELP:
			nk_table_help(&nk_top_table);
			exit(NK_EXIT_OK);
		}
		(*argc)--;
		(*argv)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct nk_ctx ctx;
	const char *batch = NULL;
	char version_word[] = "version", *version_cmd[] = { version_word };
	bool version = false;
	int ret;

	/* nkctl changes kernel state as root; it must never be a setuid way in. */
	if (getuid() != geteuid() || getgid() != getegid())
		return nk_error(NK_EXIT_PERM, "nkctl refuses to run setuid or setgid");
	nk_malloc_init();
	nk_ctx_init(&ctx);
	argc--;
	argv++;
	ret = parse_options(&ctx, &argc, &argv, &batch, &version);
	if (ret)
		return ret;
	if (version) {
		/* As ip -V: the version, whatever follows. */
		batch = NULL;
		argc = 1;
		argv = version_cmd;
	}
	if (batch && argc > 0)
		return nk_error(NK_EXIT_USAGE, "-batch takes no command on the command line");
	if (!batch && argc == 0)
		return nk_error(NK_EXIT_USAGE, "no command given; try \"nkctl help\"");
	if (ctx.netns && !version) {
		ret = nk_ctx_enter(&ctx);
		if (ret)
			return ret;
	}
	ctx.ends_process = !batch;
	ret = batch ? run_batch(&ctx, batch) : run_words(&ctx, argc, argv);
	/* One command: its sockets and namespaces close at the exit. */
	if (!ctx.ends_process)
		nk_ctx_release(&ctx);
	if (fflush(stdout) || ferror(stdout)) {
		if (ret == NK_EXIT_OK)
			ret = nk_error_errno(errno ? errno : EIO, "cannot write the output");
	}
	/* exit(), not return: what ctx holds stays reachable (on this frame)
	 * until the process is gone, as memory checkers see it. */
	exit(ret);
}
