// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl util - what the commands share: opening the families,
 * reporting the kernel's refusals, enum names and rates
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpccctl.h"

int fail(const char *what, int err)
{
	fprintf(stderr, "hpccctl: %s: %s%s%s\n", what, strerror(-err),
		g.extack[0] ? ": " : "", g.extack);
	return 1;
}

int open_family(void)
{
	int err = hpcc_genl_open(&g, 5000);

	if (err == -ENOENT) {
		fprintf(stderr,
			"hpccctl: the hpcc generic netlink family is not registered (modprobe tcp_hpcc)\n");
		return 1;
	}
	if (err)
		return fail("netlink", err);
	return 0;
}

void json_print(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/*
 * enum_lookup() - @v is the name of an entry of @e (the spec's enum of a
 * parameter): true, and its value in @val; false for a number or no @e.
 */
bool enum_lookup(const struct hpcc_nl_enum *e, const char *v,
		 uint64_t *val)
{
	unsigned int i;

	for (i = 0; e && i < e->n; i++)
		if (e->names[i] && !strcmp(e->names[i], v)) {
			*val = i;
			return true;
		}
	return false;
}

/* enum_name() - the name of value @v of the spec's enum @e, "?" if none */
const char *enum_name(const struct hpcc_nl_enum *e, uint64_t v)
{
	return v < e->n && e->names[v] ? e->names[v] : "?";
}

int open_int_family(void)
{
	int err = hpcc_genl_open(&g, 5000);

	if (err && err != -ENOENT)
		return fail("netlink", err);
	err = hpcc_genl_use_family(&g, HPCC_INT_FAMILY_NAME);
	if (err == -ENOENT) {
		fprintf(stderr,
			"hpccctl: the hpcc-int generic netlink family is not registered (modprobe hpcc_int)\n");
		return 1;
	}
	return err ? fail("netlink", err) : 0;
}

/*
 * parse_rate() - RATE as tc(8) writes it: a number with an optional unit
 * bit, kbit, mbit, gbit or tbit (decimal multiples), bits per second.
 * Return: 0, or -1 when @s is not a rate in 1..2^64-1.
 */
int parse_rate(const char *s, uint64_t *rate)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 },
		{ "gbit", 1e9 }, { "tbit", 1e12 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || s[0] == '-' || !(v > 0))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		v *= units[i].mul;
		if (v < 1 || v >= 18446744073709551616.0)
			return -1;
		*rate = (uint64_t)v;
		return 0;
	}
	return -1;
}
