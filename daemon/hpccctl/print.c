// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl print - one call per field renders text or JSON (print.h).
 */
#include <stdio.h>
#include <json-c/json.h>

#include "print.h"

static struct {
	bool json;
	int depth;
	struct json_object *stack[PRINT_DEPTH];
	struct json_object *doc;
} P;

void print_start(bool json)
{
	P.json = json;
	P.depth = 0;
	P.doc = NULL;
	/* fractions (U) and Mbit/s as they are, not as %.17g rounds them */
	if (json)
		json_c_set_serialization_double_format("%.12g",
						       JSON_C_OPTION_GLOBAL);
}

bool print_json(void)
{
	return P.json;
}

/* add @o to the open object (under @key) or array; the first is the doc */
static void json_add(const char *key, struct json_object *o)
{
	struct json_object *top;

	if (!P.depth) {
		if (P.doc)
			json_object_put(P.doc);
		P.doc = o;
		return;
	}
	top = P.stack[P.depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, o);
	else
		json_object_object_add(top, key, o);
}

static void open_json(const char *key, struct json_object *o)
{
	if (!P.json)
		return;
	json_add(key, o);
	if (P.depth < PRINT_DEPTH)
		P.stack[P.depth++] = o;
}

void open_json_object(const char *key)
{
	if (P.json)
		open_json(key, json_object_new_object());
}

void open_json_array(const char *key)
{
	if (P.json)
		open_json(key, json_object_new_array());
}

void close_json_object(void)
{
	if (P.json && P.depth)
		P.depth--;
}

void close_json_array(void)
{
	close_json_object();
}

void print_end(void)
{
	if (!P.json || !P.doc)
		return;
	puts(json_object_to_json_string_ext(P.doc, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(P.doc);
	P.doc = NULL;
	P.depth = 0;
}

/* the text of one field, or its JSON member; true when JSON wants it */
#define PRINT_FIELD(t, fmt, v, new)					\
	do {								\
		if (!P.json && ((t) & PRINT_FP) && (fmt))		\
			printf(fmt, v);					\
		else if (P.json && ((t) & PRINT_JSON))			\
			json_add(key, new);				\
	} while (0)

void print_uint(enum print_type t, const char *key, const char *fmt,
		uint64_t v)
{
	PRINT_FIELD(t, fmt, v, json_object_new_uint64(v));
}

void print_int(enum print_type t, const char *key, const char *fmt,
	       int64_t v)
{
	PRINT_FIELD(t, fmt, v, json_object_new_int64(v));
}

void print_float(enum print_type t, const char *key, const char *fmt,
		 double v)
{
	PRINT_FIELD(t, fmt, v, json_object_new_double(v));
}

void print_string(enum print_type t, const char *key, const char *fmt,
		  const char *v)
{
	PRINT_FIELD(t, fmt, v, json_object_new_string(v));
}

void print_bool(enum print_type t, const char *key, const char *fmt,
		bool v)
{
	PRINT_FIELD(t, fmt, v, json_object_new_boolean(v));
}
