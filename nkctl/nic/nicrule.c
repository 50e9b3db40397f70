// SPDX-License-Identifier: GPL-2.0
/*
 * n-tuple rules nkctl adds (nicrule.h): the one pending -> ioctl -> record
 * path of steer add and lease ... steer, and printing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "nic/nicrule.h"

int nk_nic_rule_add(struct nk_nic_state *st, int fd, const char *ifname, struct nk_ntuple *r,
		    struct nk_nic_lease *l, const uint32_t *replaces, enum nk_rule_step *failed)
{
	int ret;

	/* Recorded before the ioctl, so that it is found if nkctl is killed. */
	*failed = NK_RULE_PENDING;
	st->pending = *r;
	st->have_pending = true;
	ret = nk_nic_state_save(st);
	st->exists = !ret;
	if (ret)
		return ret;
	*failed = NK_RULE_ADD;
	ret = ethtool_ntuple_add(fd, ifname, r);
	if (ret)
		return ret;
	*failed = NK_RULE_RECORD;
	/* The rule it stands for (nic restore's), forgotten in the same save
	 * that records it: a kill leaves one record or the other, never both. */
	if (replaces)
		nk_nic_state_forget_rule(st, *replaces);     /* from its lease too */
	/* Not recorded (no memory): the pending line on disk still names it,
	 * so the next command removes it; never a rule nobody owns. */
	if (!nk_nic_state_add_rule(st, r))
		return -ENOMEM;
	st->have_pending = false;
	if (l && l->nrules < NK_NIC_LEASE_MAX)
		l->rules[l->nrules++] = r->id;
	ret = nk_nic_state_save(st);
	st->exists = !ret;
	return ret;
}

static int steer_add_loaded(struct nk_nic_state *st, const struct nk_link *l, int fd,
			    struct nk_ntuple *r, int ret)
{
	enum nk_rule_step failed;

	if (ret == -ESTALE)
		return nk_nic_state_stranger(st, l);
	if (!ret && st->exists)
		ret = nk_nic_resolve_pending(fd, l->ifname, st);
	if (ret)
		return nk_error_errno(-ret, "cannot update the state of %s under %s; nothing was changed",
				      l->ifname, NK_NIC_STATE_DIR);
	ret = nk_nic_rule_add(st, fd, l->ifname, r, NULL, NULL, &failed);
	if (ret && failed == NK_RULE_PENDING)
		return nk_error_errno(-ret, "cannot write the state of %s under %s; nothing was changed",
				      l->ifname, NK_NIC_STATE_DIR);
	if (ret && failed == NK_RULE_ADD)
		return nk_nic_ntuple_error(ret, l->ifname, "steer add");
	if (ret)
		return nk_error_errno(-ret, "rule %u was added to %s but cannot be recorded in %s",
				      r->id, l->ifname, NK_NIC_STATE_DIR);
	return 0;
}

int nk_nic_steer_add(struct nk_ns *ns, const struct nk_link *l, int fd, struct nk_ntuple *r)
{
	struct nk_nic_state st = { 0 };
	int ret = steer_add_loaded(&st, l, fd, r, nk_nic_state_load(ns, l, &st));

	nk_nic_state_free(&st);
	return ret;
}

int nk_nic_steer_forget(struct nk_ns *ns, const struct nk_link *l, uint32_t id)
{
	struct nk_nic_state st = { 0 };
	int ret = nk_nic_state_load(ns, l, &st);

	if (!ret && st.exists && nk_nic_state_has_rule(&st, id)) {
		nk_nic_state_forget_rule(&st, id);
		ret = nk_nic_state_store(&st);
	}
	nk_nic_state_free(&st);
	return ret;
}

int nk_nic_ntuple_error(int ret, const char *dev, const char *what)
{
	if (ret == -EOPNOTSUPP)
		return nk_error(NK_EXIT_UNSUPPORTED,
				"%s: the driver of %s has no n-tuple flow steering rules%s",
				what, dev, strcmp(what, "steer show") ? "; nothing was changed" : "");
	if (ret == -EPERM)
		return nk_error(NK_EXIT_PERM, "%s on %s needs CAP_NET_ADMIN", what, dev);
	return nk_error_errno(-ret, "%s on %s", what, dev);
}

static void print_addr(struct out *o, const char *key, const char *fmt, const uint8_t *a,
		       bool v6)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(v6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	out_str(o, key, fmt, buf);
}

void nk_print_rule(struct out *o, const struct nk_ntuple *r, bool ours, bool lost)
{
	const char *ft = nk_choice_word(nk_flow_type_words, r->flow_type);
	bool v6 = nk_flow_is_v6(r->flow_type);

	out_obj_open(o, NULL);
	out_uint(o, "id", "    rule %llu:", r->id);
	if (ft)
		out_str(o, "flow-type", " %s", ft);
	else
		out_uint(o, "flow-type-id", " flow-type %llu", r->flow_type);
	if (ft && r->have_src)
		print_addr(o, "src", " src %s", r->src, v6);
	if (ft && r->have_dst)
		print_addr(o, "dst", " dst %s", r->dst, v6);
	if (r->have_sport)
		out_uint(o, "src-port", " src-port %llu", r->sport);
	if (r->have_dport)
		out_uint(o, "dst-port", " dst-port %llu", r->dport);
	out_flag(o, "other-fields", " (and fields nkctl does not show)", r->other_fields);
	if (r->action == NK_RULE_ACTION_DROP)
		out_str(o, "action", " action %s", "drop");
	else if (r->rss_context) {
		/* FLOW_RSS: the queue is an offset into the context's table */
		out_uint(o, "context", " rss context %llu", r->rss_context);
		out_uint(o, "queue", " + queue %llu", r->action);
	} else
		out_uint(o, "queue", " queue %llu", r->action);
	out_bool(o, "nkctl", NULL, ours);
	if (ours)
		out_text(o, " (nkctl)");
	if (lost)
		out_flag(o, "lost", " (lost: the driver no longer has it: nic restore)", true);
	out_text(o, "\n");
	out_obj_close(o);
}
