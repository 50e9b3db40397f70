/* SPDX-License-Identifier: GPL-2.0 */
/* jsondoc.c: nkctl's documents, read without json-c's type assertions */
#ifndef NKCNI_JSONDOC_H
#define NKCNI_JSONDOC_H

#include <stddef.h>
#include <json-c/json.h>

json_object *doc_member(json_object *o, const char *key);
size_t doc_array_len(json_object *a);
json_object *doc_array_at(json_object *a, size_t i);

#endif
