/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nkctl monitor (monitor.c: the loop and the kernel's notifications, above
 * monsnap.c: the snapshots it diffs to tell what the kernel does not
 * announce, and to resync after lost notifications; monrecord.c: the
 * monitor's state and its records).
 */
#ifndef NKCTL_MONITOR_H
#define NKCTL_MONITOR_H

#include "monitor/monsnap.h"

/* The periodic re-dump of leases, bindings and holders (queue-create and
 * bind-rx send no notification). Documented in nkctl-monitor(8). */
#define MON_REDUMP_MS 1000

/* One notification (NK_EV_MSG) of rtnetlink or the netdev family: decoded,
 * printed, snapshots updated. 0, or non-zero to stop. */
int mon_notification(struct monitor *m, const struct nk_ev *ev);

#endif
