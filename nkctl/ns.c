// SPDX-License-Identifier: GPL-2.0
/* A second network namespace a command works in (phys-netns, peer-netns). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "netns.h"
#include "nkctl.h"
#include "rtnl.h"

static bool same_netns(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int nk_ns_open(struct nk_ns *ns, const char *spec)
{
	int cur, ret;

	memset(ns, 0, sizeof(*ns));
	ns->fd = -1;
	ns->spec = spec;
	ns->here = true;
	if (!spec)
		return 0;
	ret = nk_netns_open(spec, &ns->fd);
	if (ret)
		return ret;
	if (netns_open_current(&cur) == 0) {
		ns->here = same_netns(cur, ns->fd);
		close(cur);
	} else {
		ns->here = false;
	}
	return 0;
}

void nk_ns_close(struct nk_ns *ns)
{
	if (nl_is_open(&ns->rtnl))
		nl_close(&ns->rtnl);
	if (nl_is_open(&ns->genl))
		nl_close(&ns->genl);
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
}

const char *nk_ns_name(const struct nk_ns *ns)
{
	return ns->spec && !ns->here ? ns->spec : "this namespace";
}

int nk_ns_rtnl(struct nk_ctx *ctx, struct nk_ns *ns, struct nl_sock **s)
{
	struct nl_err err;

	if (ns->here)
		return nk_ctx_rtnl(ctx, s);
	if (!nl_is_open(&ns->rtnl) &&
	    netns_nl_open(&ns->rtnl, NETLINK_ROUTE, ns->fd, &err))
		return nk_error_nl(&err, "cannot open an rtnetlink socket in \"%s\"", ns->spec);
	*s = &ns->rtnl;
	return 0;
}

int nk_ns_netdev(struct nk_ctx *ctx, struct nk_ns *ns, struct nl_sock **s,
		 const struct genl_family **fam)
{
	struct nl_err err;

	if (ns->here)
		return nk_ctx_netdev(ctx, s, fam);
	if (!nl_is_open(&ns->genl) &&
	    netns_nl_open(&ns->genl, NETLINK_GENERIC, ns->fd, &err))
		return nk_error_nl(&err, "cannot open a generic netlink socket in \"%s\"", ns->spec);
	if (genl_resolve(&ns->genl, "netdev", &ns->netdev, &err))
		return nk_error_nl(&err, "cannot resolve the netdev family in \"%s\"", ns->spec);
	*s = &ns->genl;
	*fam = &ns->netdev;
	return 0;
}

/* Does viewer's netns name the namespace at spec (NULL: ours) nsid? */
static bool nsid_matches(struct nl_sock *viewer, const char *spec, int32_t nsid)
{
	struct nl_err err;
	int fd, ret;
	int32_t id = -1;

	ret = spec ? netns_open(spec, &fd) : netns_open_current(&fd);
	if (ret)
		return false;
	ret = rtnl_nsid_get(viewer, fd, &id, &err);
	close(fd);
	return ret == 0 && id == nsid;
}

int nk_ns_find_by_nsid(struct nk_ctx *ctx, struct nl_sock *viewer, int32_t nsid,
		       struct nk_ns *out, char *spec, size_t spec_len)
{
	struct dirent *e;
	DIR *d;

	(void)ctx;
	if (nsid_matches(viewer, NULL, nsid))
		return nk_ns_open(out, NULL);
	if (nsid_matches(viewer, "/proc/1/ns/net", nsid)) {
		snprintf(spec, spec_len, "/proc/1/ns/net");
		return nk_ns_open(out, spec);
	}
	d = opendir(NETNS_RUN_DIR);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !nsid_matches(viewer, e->d_name, nsid))
			continue;
		snprintf(spec, spec_len, "%s", e->d_name);
		closedir(d);
		return nk_ns_open(out, spec);
	}
	if (d)
		closedir(d);
	return nk_error(NK_EXIT_NOTFOUND,
			"no namespace nkctl can reach has netns-id %d there", nsid);
}
