// SPDX-License-Identifier: GPL-2.0
/*
 * What show leases, doctor and monitor read of nkctl's AF_XDP pins
 * (xskread.h), without the NICs' locks: a reader's view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"
#include "netdev.h"
#include "netns.h"
#include "lease/look.h"
#include "xsk/xskfit.h"
#include "xsk/xskread.h"
#include "xsk/xsksweep.h"

/* ---- readers (show leases, doctor) ---- */

/* The pin name of the NIC ifindex's XSK directory in nsdir, opened: -1
 * when nkctl prepared nothing there. */
static int open_pin_in(const char *nsdir, int ifindex, const char *name)
{
	char path[PIN_LEN];

	snprintf(path, sizeof(path), "%s/xsk%d/%s", nsdir, ifindex, name);
	return bpf_obj_get(path);
}

/* The same in ns (root set). */
static int open_nic_pin(struct nk_ns *ns, int ifindex, const char *name, char *root)
{
	char nsdir[NS_LEN];

	if (nk_bpffs_root(false, root, ROOT_LEN) || rt_ns_dir(ns, root, nsdir))
		return -1;
	return open_pin_in(nsdir, ifindex, name);
}

bool nk_xsk_pin_read(struct nk_xsk_reader *rd, struct nk_ns *ns, int ifindex, uint32_t q,
		     char *pin)
{
	struct nk_xsk_slot s = { 0 };
	int fd;

	if (!rd->looked) {
		rd->root_ret = nk_bpffs_root(false, rd->root, sizeof(rd->root));
		rd->looked = true;
	}
	if (rd->root_ret)
		return false;
	if (rd->ns != ns) {
		rd->nsdir_ret = rt_ns_dir(ns, rd->root, rd->nsdir);
		rd->ns = ns;
	}
	if (rd->nsdir_ret)
		return false;
	fd = open_pin_in(rd->nsdir, ifindex, "slots");
	if (fd < 0)
		return false;
	if (bpf_map_lookup_elem(fd, &q, &s))
		s.holder = 0;
	close(fd);
	if (s.holder)
		holder_pin(rd->root, s.holder_netns, s.holder, pin);
	return s.holder != 0;
}

bool nk_xsk_pin_of(struct nk_ns *ns, int ifindex, uint32_t q, char *pin)
{
	struct nk_xsk_reader rd = { 0 };

	return nk_xsk_pin_read(&rd, ns, ifindex, q, pin);
}

bool nk_xsk_nic_prog(struct nk_ns *ns, int ifindex, uint32_t *prog_id)
{
	char root[ROOT_LEN];
	struct nk_bpf_link info;
	int fd = open_nic_pin(ns, ifindex, "link", root);

	*prog_id = 0;
	if (fd < 0)
		return false;
	if (!nk_bpf_link_info(fd, &info) && info.ifindex)
		*prog_id = info.prog_id;
	close(fd);
	return true;
}

bool nk_xsk_pin_shared(const char *pin, const struct stat *st)
{
	struct xsk_grant g = { { st->st_uid, st->st_gid, st->st_mode & 0777 }, 0 };
	const char *at = strstr(pin, "/" XSK_PUBLIC_DIR "/");
	char root[PIN_LEN], other[PIN_LEN], name[XSK_NAME_LEN], why[PIN_LEN];
	unsigned long long cookie;
	uint32_t holder;
	bool shared;
	int pub;

	if (!at)
		return false;
	/* the holder directory's name: what stands between nkctl-xsk/ and /map */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(at + sizeof(XSK_PUBLIC_DIR) + 1, "/"),
		 at + sizeof(XSK_PUBLIC_DIR) + 1);
	if (!xsk_holder_name_parse(name, &cookie, &holder))
		return false;
	snprintf(root, sizeof(root), "%.*s", (int)(at - pin), pin);
	if (xsk_pub_open(root, false, &pub, why, sizeof(why)))
		return false;
	/* What root granted, where it recorded it: not the pin's own say. */
	holder_granted(pub, name, &g);
	shared = xsk_owner_taken(root, pub, holder, cookie, &g.acc, false, other) > 0;
	close(pub);
	return shared;
}

void nk_xsk_each_nic(struct nk_ns *ns, nk_xsk_nic_fn fn, void *arg)
{
	char root[ROOT_LEN], nsdir[NS_LEN];
	struct dirent *e;
	DIR *dd = NULL;

	if (!nk_bpffs_root(false, root, sizeof(root)) && !rt_ns_dir(ns, root, nsdir))
		dd = opendir(nsdir);
	while (dd && (e = readdir(dd))) {
		struct nk_xsk_slots all;
		int ifindex, end = 0, fd;

		if (sscanf(e->d_name, "xsk%d%n", &ifindex, &end) != 1 || e->d_name[end])
			continue;
		fd = open_nic_pin(ns, ifindex, xsk_pin_name(XPIN_SLOTS), root);
		if (fd < 0)
			continue;
		if (!xsk_slots_read_fd(fd, &all))
			fn(arg, root, ifindex, &all);
		slots_free(&all);
		close(fd);
	}
	if (dd)
		closedir(dd);
}
