// SPDX-License-Identifier: GPL-2.0
/*
 * nkctl doctor's report: one line per check (or one JSON object), and the
 * words of the fixes it prints: namespaces as -n arguments and shell words,
 * addresses. Every check family (doctor.c, doctornic.c, doctorpath.c)
 * reports through it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "doctor/doctorreport.h"
#include "netns.h"

static const char *const status_json[] = {
	[DR_OK] = "ok", [DR_WARN] = "warn", [DR_FAIL] = "fail", [DR_SKIP] = "not-checked",
};
static const char *const status_text[] = {
	[DR_OK] = "ok", [DR_WARN] = "warn", [DR_FAIL] = "fail", [DR_SKIP] = "not checked",
};

void dr_check(struct dr_report *r, const char *name, enum dr_status st, const char *fix,
	      const char *fmt, ...)
{
	struct out *o = &r->ctx->out;
	char detail[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	r->fails += st == DR_FAIL;
	r->warns += st == DR_WARN;
	out_obj_open(o, NULL);
	out_str(o, "check", NULL, name);
	out_str(o, "status", NULL, status_json[st]);
	out_text(o, "  %-11s %-15s", status_text[st], name);
	out_str(o, "detail", " %s\n", detail);
	if (fix && fix[0] && (st == DR_WARN || st == DR_FAIL)) {
		out_text(o, "  %-11s %-15s", "", "");
		out_str(o, "fix", " fix: %s\n", fix);
	}
	out_obj_close(o);
}

/* ---- naming namespaces in fix commands ---- */

/* The name under /run/netns of the namespace (dev, ino), into buf. */
static bool run_netns_name(const struct nk_ns *ns, char *buf, size_t len)
{
	DIR *d = opendir(NETNS_RUN_DIR);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[512];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, e->d_name);
		if (stat(path, &st) == 0 && nk_ns_is(ns, st.st_dev, st.st_ino)) {
			snprintf(buf, len, "%s", e->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

const char *dr_ns_word(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len)
{
	struct stat st;

	if (!ns->here && ns->spec[0])
		return ns->spec;
	if (ctx->netns)
		return ctx->netns;
	if (run_netns_name(ns, buf, len))
		return buf;
	if (stat("/proc/1/ns/net", &st) == 0 && nk_ns_is(ns, st.st_dev, st.st_ino))
		return "/proc/1/ns/net";
	return NULL;
}

const char *dr_shell_word(const char *w, char *buf, size_t len)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789@%+=:,./_-";
	size_t used = 0;

	if (w[0] && strspn(w, plain) == strlen(w))
		return w;
	/* In '...' every character is itself, but ' ends it: write '\''. */
	buf[used++] = '\'';
	for (; *w && used + 6 < len; w++) {
		if (*w == '\'') {
			memcpy(buf + used, "'\\''", 4);
			used += 4;
		} else {
			buf[used++] = *w;
		}
	}
	buf[used++] = '\'';
	buf[used] = '\0';
	return buf;
}

const char *dr_ns_arg(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len)
{
	char name[NK_NS_SPEC], word[DR_NS_WORD_LEN];
	const char *w;

	if (ns->here && !ctx->netns)
		return "";
	w = dr_ns_word(ctx, ns, name, sizeof(name));
	snprintf(buf, len, "-n %s ", w ? dr_shell_word(w, word, sizeof(word)) : "NETNS");
	return buf;
}

const char *dr_ip(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len)
{
	char name[NK_NS_SPEC], word[DR_NS_WORD_LEN];
	const char *w;

	if (ns->here && !ctx->netns)
		return "ip ";
	w = dr_ns_word(ctx, ns, name, sizeof(name));
	if (w && strchr(w, '/'))
		snprintf(buf, len, "nsenter --net=%s ip ", dr_shell_word(w, word, sizeof(word)));
	else
		snprintf(buf, len, "ip -n %s ", w ? dr_shell_word(w, word, sizeof(word)) : "NETNS");
	return buf;
}

const char *dr_addr_str(const struct nk_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, a->addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}
