// SPDX-License-Identifier: GPL-2.0
/* Reading nkctl's JSON documents (STATUS and CHECK): a key that is missing
 * or of another type reads as absent, never as a json-c assertion. */
#include "jsondoc.h"

json_object *doc_member(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

size_t doc_array_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

json_object *doc_array_at(json_object *a, size_t i)
{
	return i < doc_array_len(a) ? json_object_array_get_idx(a, i) : NULL;
}
