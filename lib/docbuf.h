/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NKCTL_DOCBUF_H
#define NKCTL_DOCBUF_H

#include <stdio.h>

/*
 * A stream into memory with open_memstream()'s contract: after fflush(),
 * *buf holds the *len bytes written (NUL-terminated); rewind() starts over;
 * after fclose() the caller frees *buf. NULL (errno set) when it cannot open.
 */
FILE *docbuf_open(char **buf, size_t *len);

#endif
