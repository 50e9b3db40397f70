/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF pieces libbpf 1.1.2 lacks for tcx and netkit (bookworm): link info and
 * program queries with link ids read from raw bpf(2) buffers, and bpffs
 * directories checked before nkctl trusts them.
 */
#ifndef NKCTL_BPFUTIL_H
#define NKCTL_BPFUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NK_BPFFS "/sys/fs/bpf"
/* Its lock (lib/store: .lock-bpffs, never removed) is held while mounting
 * bpffs on NK_BPFFS. */
#define NK_BPFFS_LOCK_DIR "/run/nkctl"

struct nk_bpf_link {
	uint32_t type, id, prog_id;
	uint32_t ifindex;      /* tcx/netkit: 0 once the device is gone */
	uint32_t attach_type;
};

/* BPF_OBJ_GET_INFO_BY_FD on a link. 0 or -errno. */
int nk_bpf_link_info(int fd, struct nk_bpf_link *out);

/* BPF_PROG_QUERY for tcx/netkit: up to *count program and link ids (link id
 * 0: attached without a link). *count becomes the number attached. */
int nk_bpf_query(int ifindex, uint32_t attach_type, uint32_t *prog_ids,
		 uint32_t *link_ids, uint32_t *count);

/*
 * The host's bpffs, where pins outlive nkctl, into buf: NK_BPFFS when it is
 * the bpffs PID 1 sees; in a private mount namespace (ip netns exec mounts its
 * own /sys) the host's through /proc/PID/root, PID being 1 or, where PID 1's
 * namespaces cannot be read (a container), the outermost ancestor's that can. may_mount: in PID 1's mount
 * namespace, mount bpffs on NK_BPFFS when none is there. 0; -ENOENT: no bpffs
 * (and may not mount); -EXDEV: a private mount namespace and the host's bpffs
 * is not reachable (pins made here would vanish); else -errno.
 */
int nk_bpffs_root(bool may_mount, char *buf, size_t len);

/*
 * path is a directory owned by us, mode 0700, not a symlink; created when
 * missing. -EPERM when it exists with other owners or modes (no symlink
 * tricks), else 0 or -errno.
 */
int nk_private_dir(const char *path);

#endif
