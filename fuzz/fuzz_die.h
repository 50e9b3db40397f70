/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a fuzz harness reports a broken promise: what was checked, what was
 * wrong, and the output that showed it, on the harness's real stderr; then
 * abort() so libFuzzer saves the input.
 */
#ifndef NKCTL_FUZZ_DIE_H
#define NKCTL_FUZZ_DIE_H

#include <stdio.h>
#include <stdlib.h>

__attribute__((noreturn)) static inline void
fuzz_die(FILE *to, const char *harness, const char *what, const char *detail,
	 const char *output, size_t len)
{
	fprintf(to, "%s: %s: %s\n", harness, what, detail);
	if (output) {
		fprintf(to, "--- output (%zu bytes) ---\n", len);
		fwrite(output, 1, len, to);
		fprintf(to, "\n--- end ---\n");
	}
	fflush(to);
	abort();
}

#endif
