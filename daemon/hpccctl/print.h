/* SPDX-License-Identifier: GPL-2.0 */
/*
 * print.h - hpccctl's one printer for text and JSON, in the manner of
 * iproute2's print_uint(PRINT_ANY, ...): a command renders each field
 * with one call, which writes the text (with its format) or adds a JSON
 * member (under its key: the YNL spec's attribute name), so the two
 * outputs show the same fields in the same unit.
 *
 * The JSON document (json-c) is built as the calls come and written by
 * print_end(); the text is written as it comes.  Objects and arrays nest
 * up to PRINT_DEPTH deep; a member without a key is an array's element.
 */
#ifndef _HPCCCTL_PRINT_H
#define _HPCCCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * enum print_type - which output a call writes to
 * @PRINT_FP: the text only (a column, a label)
 * @PRINT_JSON: the JSON only (an attribute the text does not show)
 * @PRINT_ANY: both, the same value
 */
enum print_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = PRINT_FP | PRINT_JSON,
};

#define PRINT_DEPTH 8

/* print_start() - a new document: JSON when @json, else text */
void print_start(bool json);
/* print_end() - write the JSON document (pretty, as hpccctl always did) */
void print_end(void);
/* print_json() - whether this document is JSON */
bool print_json(void);

/* open_json_object(), open_json_array() - a nested object or array under
 * @key (NULL: an element of the array it is in; the first one opened is
 * the document itself); nothing in text
 */
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

/* print_uint(), print_int(), print_float(), print_string(), print_bool() -
 * one field: @fmt (a printf format of the one value, NULL for none) in
 * text when @t has PRINT_FP, member @key in JSON when it has PRINT_JSON
 */
void print_uint(enum print_type t, const char *key, const char *fmt,
		uint64_t v);
void print_int(enum print_type t, const char *key, const char *fmt,
	       int64_t v);
void print_float(enum print_type t, const char *key, const char *fmt,
		 double v);
void print_string(enum print_type t, const char *key, const char *fmt,
		  const char *v);
void print_bool(enum print_type t, const char *key, const char *fmt,
		bool v);

#endif /* _HPCCCTL_PRINT_H */
