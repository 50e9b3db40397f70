// SPDX-License-Identifier: GPL-2.0
/* Table dispatch, help text and the completion listing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "core/cmd.h"
#include "core/ctx.h"


static const struct nk_cmd *find_cmd(const struct nk_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->cmds[i].name && !strcmp(t->cmds[i].name, name))
			return &t->cmds[i];
	return NULL;
}

static const struct nk_cmd *default_cmd(const struct nk_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->cmds[i].name)
			return &t->cmds[i];
	return NULL;
}

static void list_names(const struct nk_table *t, char *buf, size_t len)
{
	const struct nk_cmd *d = default_cmd(t);
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && used < len; i++)
		if (t->cmds[i].name)
			used += snprintf(buf + used, len - used, "%s, ", t->cmds[i].name);
	for (size_t i = 0; d && d->params && i < d->params->n && used < len; i++)
		if (d->params->v[i].kw)
			used += snprintf(buf + used, len - used, "%s, ", d->params->v[i].kw);
	if (used < len)
		snprintf(buf + used, len - used, "help");
}

static void print_usage_line(const char *lead, const struct nk_table *t,
			     const struct nk_cmd *c)
{
	char head[128], synopsis[1024] = "";
	size_t col;

	if (c->sub) {
		printf("%s %s %s { COMMAND | help }\n", lead, t->path, c->name);
		return;
	}
	col = (size_t)snprintf(head, sizeof(head), "%s %s%s%s", lead, t->path,
			       c->name ? " " : "", c->name ? c->name : "");
	if (c->usage) {
		nk_wrap(c->usage, synopsis, sizeof(synopsis), col + 1, col + 1);
		if (c->params)
			nk_params_defs(c->params, synopsis, sizeof(synopsis));
	} else if (c->params)
		nk_params_usage(c->params, synopsis, sizeof(synopsis), col + 1, col + 1);
	printf("%s%s%s\n", head, synopsis[0] ? " " : "", synopsis);
}

void nk_table_help(const struct nk_table *t)
{
	const char *lead = "Usage:";

	if (t->intro) {
		t->intro();
		lead = "      ";
	}

	for (size_t i = 0; i < t->n; i++) {
		print_usage_line(lead, t, &t->cmds[i]);
		lead = "      ";
	}
	printf("\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct nk_cmd *c = &t->cmds[i];
		char summary[512];

		nk_wrap(c->summary, summary, sizeof(summary), 17, 17);
		printf("  %-14s %s\n", c->name ? c->name : "(default)", summary);
	}
}

void nk_cmd_help(const struct nk_table *t, const struct nk_cmd *c)
{
	char summary[512];

	print_usage_line("Usage:", t, c);
	nk_wrap(c->summary, summary, sizeof(summary), 0, 0);
	printf("\n%s\n", summary);
}

/* Parse argv into the struct the command's table describes, then run it. */
static int run_cmd(struct nk_ctx *ctx, const struct nk_table *t, const struct nk_cmd *c,
		   int argc, char **argv)
{
	const char *path = strchr(t->path, ' ');
	void *args = NULL;
	int ret;

	if (!c->params) {
		if (argc == 1 && !strcmp(argv[0], "help"))
			return NK_HELP;
		if (argc > 0)
			return nk_error(NK_EXIT_USAGE, "\"%s%s%s\" takes no arguments",
					path ? path + 1 : "", path ? " " : "", c->name ? c->name : "");
		return c->run(ctx, NULL);
	}
	args = calloc(1, c->params->size ? c->params->size : 1);
	if (!args)
		return nk_error_errno(ENOMEM, "%s", c->params->cmd);
	ret = nk_parse_params(c->params, argc, argv, args, &ctx->given);
	if (!ret)
		ret = c->run(ctx, args);
	free(args);
	return ret;
}

/* A word that is no command here: say what was meant, where that is clear. */
static int unknown_command(const struct nk_table *t, const char *word)
{
	const struct nk_cmd *d = default_cmd(t);
	struct nk_suggest sg = { .word = word };
	char names[512], hint[160] = "";

	if (word[0] == '-' && strcmp(t->path, "nkctl"))
		return nk_error(NK_EXIT_USAGE,
				"unknown command \"%s\" for \"%s\": options go before the object (nkctl %s %s ...)",
				word, t->path, word, t->path + strlen("nkctl "));
	for (size_t i = 0; i < t->n; i++)
		nk_suggest_try(&sg, t->cmds[i].name);
	for (size_t i = 0; d && d->params && i < d->params->n; i++)
		nk_suggest_try(&sg, d->params->v[i].kw);
	nk_suggest_text(&sg, hint, sizeof(hint));
	/* "show eth0" as ip-link has it: name the keyword. */
	if (!sg.best && d && nk_params_has(d->params, "dev"))
		snprintf(hint, sizeof(hint), " (a device is named with \"dev\": %s dev %s)",
			 t->path, word);
	list_names(t, names, sizeof(names));
	return nk_error(NK_EXIT_USAGE, "unknown command \"%s\" for \"%s\"%s; expected one of: %s",
			word, t->path, hint, names);
}

/* "Error: redirect detach failed: <strerror>" for an error no one reported. */
static int unreported(const struct nk_table *t, const struct nk_cmd *c, int err)
{
	const char *path = strchr(t->path, ' ');

	return nk_error_errno(err, "%s%s%s failed", path ? path + 1 : "",
			      path && c->name ? " " : "", c->name ? c->name : "");
}

int nk_dispatch(struct nk_ctx *ctx, const struct nk_table *t, int argc, char **argv)
{
	const struct nk_cmd *c = NULL, *d = default_cmd(t);
	char names[512];
	int ret;

	/* "help" alone, or "help COMMAND" as a synonym of "COMMAND help". */
	if (argc > 0 && !strcmp(argv[0], "help")) {
		if (argc == 1) {
			nk_table_help(t);
			return NK_EXIT_OK;
		}
		c = find_cmd(t, argv[1]);
		if (!c || argc > 2) {
			list_names(t, names, sizeof(names));
			return nk_error(NK_EXIT_USAGE, "no help for \"%s\" in \"%s\"; expected one of: %s",
					argv[argc > 2 && c ? 2 : 1], t->path, names);
		}
		if (c->sub)
			nk_table_help(c->sub);
		else
			nk_cmd_help(t, c);
		return NK_EXIT_OK;
	}
	if (argc > 0)
		c = find_cmd(t, argv[0]);
	if (c) {
		argc--;
		argv++;
	} else if (d && (argc == 0 || (d->params && nk_params_has(d->params, argv[0])))) {
		c = d;
	} else if (argc == 0) {
		list_names(t, names, sizeof(names));
		return nk_error(NK_EXIT_USAGE, "\"%s\" needs a command; expected one of: %s",
				t->path, names);
	} else {
		return unknown_command(t, argv[0]);
	}
	if (c->sub)
		return nk_dispatch(ctx, c->sub, argc, argv);
	ret = run_cmd(ctx, t, c, argc, argv);
	if (ret == NK_HELP) {
		nk_cmd_help(t, c);
		return NK_EXIT_OK;
	}
	/* A -errno no one reported: an exit status other than 0 always comes
	 * with its Error: line, and is one of the documented ones. */
	if (ret < 0)
		return unreported(t, c, -ret);
	return ret;
}

/* need PATH KW NEEDED: completion offers KW only once NEEDED is given, as
 * the synopsis nests it ("pool LIST [ count N ]"). */
static void list_needs(const char *path, const struct nk_params *p)
{
	for (size_t k = 0; k < p->n; k++) {
		int under = nk_params_nested(p, k);

		if (under >= 0)
			printf("need\t%s\t%s\t%s\n", path, p->v[k].kw, p->v[under].kw);
	}
}

/* either PATH META KW: a one-of rule between the positional word META and
 * keyword KW ("link del { NAME | group DEVGROUP }"): completion offers KW
 * where the positional word goes. */
static void list_either(const char *path, const struct nk_params *p)
{
	for (size_t r = 0; r < p->nrules; r++) {
		const struct nk_rule *rule = &p->rules[r];
		const char *pos = NULL;

		if (rule->kind != NK_RULE_ONE_OF)
			continue;
		for (size_t k = 0; k < NK_RULE_MAX && rule->kws[k]; k++)
			if (nk_params_find(p, rule->kws[k]) < 0)
				pos = rule->kws[k];
		for (size_t k = 0; pos && k < NK_RULE_MAX && rule->kws[k]; k++)
			if (nk_params_find(p, rule->kws[k]) >= 0)
				printf("either\t%s\t%s\t%s\n", path, pos, rule->kws[k]);
	}
}

/* arg PATH KW META KIND CHOICES: KIND is value, flag, repeat or rest; the
 * choices (space-separated) are what completion offers for the value. An
 * empty field is "-" (a shell's read folds runs of tabs). */
static void list_param(const char *path, const struct nk_param *p)
{
	static const char *const kinds[] = {
		[NKP_FLAG] = "flag", [NKP_LIST] = "repeat", [NKP_REST] = "rest",
	};
	const char *kind = nk_param_repeats(p) ? "repeat" :
			   (size_t)p->type < NK_ARRAY_SIZE(kinds) && kinds[p->type] ?
			   kinds[p->type] : "value";
	char choices[256];

	nk_choice_words(p->choices, " ", choices, sizeof(choices));
	printf("arg\t%s\t%s\t%s\t%s\t%s\n", path, p->kw ? p->kw : "-", p->meta ? p->meta : "-",
	       kind, choices[0] ? choices : "-");
}

void nk_table_list(const struct nk_table *t, const char *prefix)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct nk_cmd *c = &t->cmds[i];
		char path[256];

		snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] && c->name ? " " : "",
			 c->name ? c->name : "");
		if (c->sub) {
			nk_table_list(c->sub, path);
			continue;
		}
		printf("cmd\t%s\n", path);
		for (size_t k = 0; c->params && k < c->params->n; k++)
			list_param(path, &c->params->v[k]);
		if (c->params) {
			list_needs(path, c->params);
			list_either(path, c->params);
		}
	}
}
