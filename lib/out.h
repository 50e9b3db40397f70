/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One printing path for text and JSON.
 *
 * Every out_*() call names the JSON key and the text format of one value; in
 * text mode the format is printed (a NULL format prints nothing), in JSON mode
 * the key and value are written. Containers nest; keys are NULL inside arrays.
 */
#ifndef NKCTL_OUT_H
#define NKCTL_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define OUT_MAX_DEPTH 16

struct out {
	FILE *fp;
	bool json;
	bool pretty;
	int depth;
	bool first[OUT_MAX_DEPTH];
	/* JSON not yet handed to fp: it goes in pieces this large (and at
	 * out_end), not a call per token. */
	size_t len;
	char buf[16 * 1024];
};

void out_init(struct out *o, FILE *fp, bool json, bool pretty);
/* The top-level JSON object; text mode prints nothing. */
void out_begin(struct out *o);
void out_end(struct out *o);
/* JSON still held goes to fp now (a document a failed command left open);
 * out_end does it. */
void out_flush(struct out *o);

void out_obj_open(struct out *o, const char *key);
void out_obj_close(struct out *o);
void out_arr_open(struct out *o, const char *key);
void out_arr_close(struct out *o);

void out_str(struct out *o, const char *key, const char *fmt, const char *val);
void out_uint(struct out *o, const char *key, const char *fmt, uint64_t val);
void out_int(struct out *o, const char *key, const char *fmt, int64_t val);
/* Text: fmt receives "yes"/"no". */
void out_bool(struct out *o, const char *key, const char *fmt, bool val);
/* Text: fmt printed (without arguments) only when val is true. */
void out_flag(struct out *o, const char *key, const char *fmt, bool val);
/* Text only: free-form (new lines, indentation, labels). */
void out_text(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
