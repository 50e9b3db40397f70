/* SPDX-License-Identifier: GPL-2.0 */
/* What readers see of nkctl's AF_XDP pins (xskread.c). */
#ifndef NKCTL_XSKREAD_H
#define NKCTL_XSKREAD_H

#include "xsk/xsknic.h"

/* The pin of the holder map that NIC queue q of (ns, ifindex) goes to, into
 * pin[PIN_LEN]: true when nkctl prepared it for AF_XDP. */
bool nk_xsk_pin_of(struct nk_ns *ns, int ifindex, uint32_t q, char *pin);
/* Would holder map pin, as st says it is, clash with another live
 * holder's map (the holder was attached with share)? */
bool nk_xsk_pin_shared(const char *pin, const struct stat *st);
/* The same for many queues in one command (show leases): the bpffs root is
 * looked for once, a namespace's directory once while the queues asked
 * about stay in it. Start it zeroed. */
struct nk_xsk_reader {
	bool looked;            /* root_ret is known */
	int root_ret;
	char root[ROOT_LEN];
	const struct nk_ns *ns; /* whose directory nsdir is (NULL: none yet) */
	int nsdir_ret;
	char nsdir[NS_LEN];
};
bool nk_xsk_pin_read(struct nk_xsk_reader *rd, struct nk_ns *ns, int ifindex, uint32_t q,
		     char *pin);
/* Has nkctl an AF_XDP program on NIC (ns, ifindex)? *prog_id: the program
 * its link runs, 0 when the link is defunct. */
bool nk_xsk_nic_prog(struct nk_ns *ns, int ifindex, uint32_t *prog_id);
/* Each NIC of namespace ns that nkctl prepared queues of, with its slots
 * as read (without its lock: a reader's view) and the bpffs root. */
typedef void (*nk_xsk_nic_fn)(void *arg, const char *root, int ifindex,
			      const struct nk_xsk_slots *all);
void nk_xsk_each_nic(struct nk_ns *ns, nk_xsk_nic_fn fn, void *arg);

#endif
