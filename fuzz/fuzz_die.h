/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a fuzz harness reports a broken promise: what was checked, what was
 * wrong, and the output that showed it, on the harness's real stderr; then
 * abort() so libFuzzer saves the input. And where nkctl's own errors go.
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

/* nkctl writes its errors to the stdio stream stderr, which glibc lets a
 * program assign: point it at /dev/null (fd 2 stays for libFuzzer and the
 * sanitizers) and return /dev/null's stream; *real gets the old stderr. */
static inline FILE *fuzz_hide_stderr(FILE **real)
{
	FILE *devnull = fopen("/dev/null", "w");

	if (!devnull)
		abort();
	*real = stderr;
	stderr = devnull;
	return devnull;
}

/* A harness's set-up, for those that keep nkctl's errors quiet in static
 * devnull and real_stderr. ASan's default quarantine (256 MB) gives every
 * allocation fresh pages: on a 2-core machine page faults took 7/8 of the
 * time (2.6 k against 20 k inputs a second). 8 MB still holds far more than
 * one input frees, so a use after free within an input is still seen;
 * ASAN_OPTIONS overrides it. */
#define FUZZ_QUIET_HARNESS()                                            \
	const char *__asan_default_options(void);                       \
	const char *__asan_default_options(void)                        \
	{                                                               \
		return "quarantine_size_mb=8";                          \
	}                                                               \
	int LLVMFuzzerInitialize(int *argc, char ***argv);              \
	int LLVMFuzzerInitialize(int *argc, char ***argv)               \
	{                                                               \
		(void)argc;                                             \
		(void)argv;                                             \
		devnull = fuzz_hide_stderr(&real_stderr);               \
		return 0;                                               \
	}

#endif
