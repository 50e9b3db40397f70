/* SPDX-License-Identifier: GPL-2.0 */
/* monitor's AF_XDP snapshot (monxsk.c): the queues xsk attach prepared and
 * the devices' XDP programs, diffed to print what the kernel does not
 * announce. */
#ifndef NKCTL_MONXSK_H
#define NKCTL_MONXSK_H

#include "monitor/monrecord.h"

int mon_xsk_sync(struct monitor *m, bool print);
void mon_xsk_free(struct monitor *m);

#endif
