/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nkctl doctor's report (doctorreport.c): a check's line, the counts behind
 * the exit status, and the words its fixes are written with.
 */
#ifndef NKCTL_DOCTORREPORT_H
#define NKCTL_DOCTORREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ctx.h"
#include "rtnl.h"

enum dr_status { DR_OK, DR_WARN, DR_FAIL, DR_SKIP };

/* The counts behind the exit status and the summary. */
struct dr_report {
	struct nk_ctx *ctx;
	size_t fails, warns;
};

#define DR_FIX_LEN 8192  /* room for three quoted namespace names */

/* Print one check: status, name, detail and, for warn and fail, the command
 * that fixes it (NULL: none exists, said in the detail). */
void dr_check(struct dr_report *r, const char *name, enum dr_status st, const char *fix,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A namespace's name as one shell word (at worst four bytes a byte, quoted)
 * in "-n NAME ", and in "ip -n NAME " or "nsenter --net=PATH ip ". */
#define DR_NS_WORD_LEN (4 * NK_NS_SPEC + 3)
#define DR_NS_ARG_LEN (DR_NS_WORD_LEN + 8)
#define DR_IP_LEN (DR_NS_WORD_LEN + 32)

/* w as one shell word, safe to paste whatever it holds: as it is when no
 * shell gives any of its characters a meaning, else in single quotes. */
const char *dr_shell_word(const char *w, char *buf, size_t len);
/* "-n NAME " for a command run in ns, or "" for the command's own. */
const char *dr_ns_arg(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len);
/* How a command run elsewhere names ns (phys-netns); NULL when it cannot. */
const char *dr_ns_word(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len);
/* "ip " or "ip -n NAME " for ns (nsenter for a namespace named by a path). */
const char *dr_ip(struct nk_ctx *ctx, const struct nk_ns *ns, char *buf, size_t len);
/* An address as text. */
const char *dr_addr_str(const struct nk_addr *a, char *buf, size_t len);

#endif
