/* SPDX-License-Identifier: GPL-2.0 */
/* The NIC locks a command holds (taken and counted by nicjob.c, kept on the
 * command's context). */
#ifndef NKCTL_NICHOLD_H
#define NKCTL_NICHOLD_H

#include <stddef.h>

/* A NIC's key: its identity, the name of its state and lock files. */
#define NK_NIC_KEY_MAX 96
/* NIC locks one command holds at once (nested holds of one count once). */
#define NK_NIC_HELD_MAX 4
struct nk_nic_held {
	char key[NK_NIC_KEY_MAX];
	int fd;
	unsigned int depth;
};

#endif
