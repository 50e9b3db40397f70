// SPDX-License-Identifier: GPL-2.0
/* Device lookups every command makes, with their errors. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/ctx.h"
#include "core/lookup.h"
#include "rtnl.h"

int nk_link_lookup(struct nl_sock *s, const char *name, int ifindex, struct nk_link *l,
		   const char *where, bool missing_ok)
{
	struct nl_err err;
	char what[48];
	int ret = rtnl_link_get(s, name, name ? 0 : ifindex, l, &err);

	if (name)
		snprintf(what, sizeof(what), "\"%s\"", name);
	else
		snprintf(what, sizeof(what), "ifindex %d", ifindex);
	if (ret == -ENODEV && missing_ok)
		return -ENODEV;
	if (ret == -ENODEV)
		return nk_error(NK_EXIT_NOTFOUND, "device %s does not exist%s%s", what,
				where ? " in " : "", where ? where : "");
	if (ret)
		return nk_error_nl(&err, "cannot get device %s", what);
	return 0;
}

bool nk_peer_of(struct nl_sock *s, const struct nk_link *l, struct nk_link *peer)
{
	struct nl_err err;

	memset(peer, 0, sizeof(*peer));
	if (!nk_link_has_peer(l))
		return false;
	/* In another namespace the ifindex means nothing here: no name. */
	if ((l->have & LINK_HAVE_LINK_NETNSID) || rtnl_link_get(s, NULL, l->link, peer, &err))
		memset(peer, 0, sizeof(*peer));
	peer->ifindex = l->link;
	return true;
}

int nk_dev(struct nk_ctx *ctx, const char *name, struct nk_link *l)
{
	struct nl_sock *rt;
	int ret = nk_ctx_rtnl(ctx, &rt);

	return ret ? ret : nk_link_lookup(rt, name, 0, l, NULL, false);
}

/* Every device of the command's namespace; prints the error. */
int nk_links_here(struct nk_ctx *ctx, struct nk_link_list *links)
{
	struct nl_sock *rt;
	struct nl_err err;
	int ret = nk_ctx_rtnl(ctx, &rt);

	if (ret)
		return ret;
	if (rtnl_link_dump(rt, links, &err))
		return nk_error_nl(&err, "cannot list devices");
	return 0;
}
