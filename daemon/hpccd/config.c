// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - hpccd's settings (config.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hpcc.h>

#include "hpcc_wire.h"
#include "config.h"

void (*hpccd_cfg_log)(const char *msg);

static void cfg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void cfg_err(const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (hpccd_cfg_log)
		hpccd_cfg_log(msg);
	else
		fprintf(stderr, "%s\n", msg);
}

void hpccd_cfg_defaults(struct hpccd_cfg *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->file, sizeof(c->file), "/etc/hpcc/hpccd.conf");
	c->budget = 20000;
	c->max_hops = 5;
	c->timeout_min_us = 1000;
	c->timeout_max_us = 1000000;
	c->tick_us = 1000;
	c->probe_pipeline = 1;
	c->shards = 1;
	c->response_rate = 20000;
	c->response_budget = 20000;
	c->response_budget_bytes = 5000000;
	c->response_amplification = HPCCD_AMP_TAIL;
	c->rp_filter = HPCCD_RP_STRICT;
	c->tcp_check = 1;
	c->n_flows_per_source = 256;
	c->max_flows = 1048576;
	c->reconcile_s = 10;
	c->event_buffer_kb = 4096;
	c->report_n_flows = 1;
	c->n_flows_window_ms = 100;
	c->n_flows_max = 16384;
	c->int_qlen_unit = 1;
	c->rx_answer = 1;
	c->rx_max_flows = 4096;
	c->auth_overlap_s = 60;
}

static int parse_uint(const char *name, const char *v, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || *v == '+' ||
	    x < min || x > max) {
		cfg_err("%s: '%.64s' is not a number in %u..%u", name, v, min,
			max);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_u64(const char *name, const char *v, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || *v == '+' ||
	    x < min || x > max) {
		cfg_err("%s: '%.64s' is not a number in %llu..%llu", name, v,
			(unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = x;
	return 0;
}

/*
 * parse_prefix() - "ADDR/LEN" of a @key line into @e (an IPv4 prefix
 * stored IPv4-mapped, host bits cleared); IPv6 only when @v6_only.
 */
static int parse_prefix(const char *key, char *pfx, struct hpccd_prefix *e,
			bool v6_only)
{
	char *slash = strchr(pfx, '/');
	unsigned int len;
	int i;

	if (!slash) {
		cfg_err("%s: '%.63s' has no /LEN", key, pfx);
		return -1;
	}
	*slash = 0;
	if (inet_pton(AF_INET, pfx, e->addr + 12) == 1) {
		if (v6_only) {
			cfg_err("%s: IOAM is IPv6 only, '%.63s' is IPv4", key,
				pfx);
			return -1;
		}
		if (parse_uint(key, slash + 1, 0, 32, &len))
			return -1;
		e->addr[10] = 0xff;
		e->addr[11] = 0xff;
		len += 96;
	} else if (inet_pton(AF_INET6, pfx, e->addr) == 1) {
		if (parse_uint(key, slash + 1, 0, 128, &len))
			return -1;
	} else {
		cfg_err("%s: '%.63s' is not an address", key, pfx);
		return -1;
	}
	e->len = (uint8_t)len;
	for (i = len; i < 128; i++)	/* the host bits */
		e->addr[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
	return 0;
}

/* "ioam 2001:db8::/32", "int-md 10.0.0.0/8", "ifa 10.0.0.0/8": the
 * encoding and a prefix (IPv4 ones stored IPv4-mapped; IOAM takes IPv6
 * prefixes only).
 */
static int parse_encoding(struct hpccd_cfg *c, const char *v)
{
	char name[16], pfx[64], extra[2];
	struct hpccd_prefix e = { 0 };

	if (sscanf(v, "%15s %63s %1s", name, pfx, extra) != 2) {
		cfg_err("encoding: 'NAME PREFIX/LEN' expected");
		return -1;
	}
	if (!strcmp(name, "ioam")) {
		e.enc = HPCCD_ENC_IOAM;
	} else if (!strcmp(name, "int-md")) {
		e.enc = HPCCD_ENC_INT_MD;
	} else if (!strcmp(name, "ifa")) {
		e.enc = HPCCD_ENC_IFA;
	} else {
		cfg_err("encoding: '%.15s' is not ioam, int-md or ifa (the project's own needs no line)",
			name);
		return -1;
	}
	if (parse_prefix("encoding", pfx, &e, e.enc == HPCCD_ENC_IOAM))
		return -1;
	if (c->n_enc == HPCCD_MAX_ENCODINGS) {
		cfg_err("encoding: more than %d lines", HPCCD_MAX_ENCODINGS);
		return -1;
	}
	c->enc[c->n_enc++] = e;
	return 0;
}

/*
 * "KEY = PREFIX/LEN" into @list (@n of them): "fcr", destinations whose
 * flows announce FCR support; "ccm", destinations whose probes carry the
 * coordination tag.
 */
static int parse_dst_prefix(const char *k, const char *v,
			    struct hpccd_prefix *list, unsigned int *n)
{
	char pfx[64], extra[2];
	struct hpccd_prefix e = { 0 };

	if (sscanf(v, "%63s %1s", pfx, extra) != 1) {
		cfg_err("%s: 'PREFIX/LEN' expected", k);
		return -1;
	}
	if (parse_prefix(k, pfx, &e, false))
		return -1;
	if (*n == HPCCD_MAX_ENCODINGS) {
		cfg_err("%s: more than %d lines", k, HPCCD_MAX_ENCODINGS);
		return -1;
	}
	list[(*n)++] = e;
	return 0;
}

/* "SWITCH PORT RATE" */
static int parse_capacity(struct hpccd_cfg *c, const char *v)
{
	char a[16], b[16], r[24], extra[2];
	struct hpccd_capacity e;
	unsigned int sw, port;

	if (sscanf(v, "%15s %15s %23s %1s", a, b, r, extra) != 3) {
		cfg_err("capacity: 'SWITCH PORT RATE' expected");
		return -1;
	}
	if (parse_uint("capacity switch", a, 0, UINT32_MAX, &sw) ||
	    parse_uint("capacity port", b, 0, UINT32_MAX, &port) ||
	    parse_u64("capacity rate", r, 1, HPCC_RATE_MAX, &e.rate))
		return -1;
	if (c->n_cap == HPCCD_MAX_CAPACITY) {
		cfg_err("capacity: more than %d lines", HPCCD_MAX_CAPACITY);
		return -1;
	}
	e.switch_id = sw;
	e.port_id = port;
	c->cap[c->n_cap++] = e;
	return 0;
}

/* "int-ts-unit = ns|us|ntp [SWITCH]" */
static int parse_int_ts(struct hpccd_cfg *c, const char *v)
{
	static const char *const units[] = { "ns", "us", "ntp" };
	const unsigned int n_units = sizeof(units) / sizeof(units[0]);
	char u[8], sw[16], extra[2];
	struct hpccd_int_ts e;
	unsigned int i, id;
	int n;

	n = sscanf(v, "%7s %15s %1s", u, sw, extra);
	for (i = 0; n >= 1 && i < n_units; i++)
		if (!strcmp(u, units[i]))
			break;
	if (n < 1 || n > 2 || i == n_units) {
		cfg_err("int-ts-unit: 'ns|us|ntp [SWITCH]' expected");
		return -1;
	}
	if (n == 1) {
		c->int_ts_unit = i;
		return 0;
	}
	if (parse_uint("int-ts-unit switch", sw, 0, UINT32_MAX, &id))
		return -1;
	if (c->n_int_ts == HPCCD_MAX_CAPACITY) {
		cfg_err("int-ts-unit: more than %d switch lines",
			HPCCD_MAX_CAPACITY);
		return -1;
	}
	e.switch_id = id;
	e.unit = i;
	c->int_ts[c->n_int_ts++] = e;
	return 0;
}

static bool prefix_match(const struct hpccd_prefix *p, const uint8_t *a)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (memcmp(p->addr, a, full))
		return false;
	return !rest || !((p->addr[full] ^ a[full]) & (0xff00 >> rest));
}

/* @daddr of @family as an IPv6 or IPv4-mapped address */
static void addr_mapped(uint8_t *a, int family, const void *daddr)
{
	memset(a, 0, 16);
	if (family == AF_INET6) {
		memcpy(a, daddr, 16);
	} else {
		a[10] = 0xff;
		a[11] = 0xff;
		memcpy(a + 12, daddr, 4);
	}
}

/* Whether one of the @n prefixes of @list holds @daddr. */
static bool dst_in(const struct hpccd_prefix *list, unsigned int n,
		   int family, const void *daddr)
{
	uint8_t a[16];
	unsigned int i;

	addr_mapped(a, family, daddr);
	for (i = 0; i < n; i++)
		if (prefix_match(&list[i], a))
			return true;
	return false;
}

bool hpccd_prefix_holds(const struct hpccd_prefix *p, int family,
			const void *addr)
{
	uint8_t a[16];

	addr_mapped(a, family, addr);
	return prefix_match(p, a);
}

bool hpccd_cfg_rx_based(const struct hpccd_cfg *c, int family,
			const void *daddr)
{
	return dst_in(c->rx_based, c->n_rx_based, family, daddr);
}

bool hpccd_cfg_response_fits(const struct hpccd_cfg *c, size_t resp_len,
			     size_t probe_len, bool own)
{
	switch (c->response_amplification) {
	case HPCCD_AMP_NONE:
		return resp_len <= probe_len;
	case HPCCD_AMP_TAIL:
		return resp_len <= probe_len + (own ? HPCC_WIRE_RESP_EXT_MAX : 0);
	default:
		return true;
	}
}

bool hpccd_cfg_private(const struct hpccd_cfg *c, int family,
		       const void *saddr)
{
	return dst_in(c->private_to, c->n_private, family, saddr);
}

bool hpccd_cfg_auth_permissive(const struct hpccd_cfg *c, int family,
			       const void *saddr)
{
	return dst_in(c->auth_permissive, c->n_auth_permissive, family,
		      saddr);
}

bool hpccd_cfg_fcr(const struct hpccd_cfg *c, int family, const void *daddr)
{
	return dst_in(c->fcr, c->n_fcr, family, daddr);
}

bool hpccd_cfg_ccm(const struct hpccd_cfg *c, int family, const void *daddr)
{
	return dst_in(c->ccm, c->n_ccm, family, daddr);
}

int hpccd_cfg_encoding(const struct hpccd_cfg *c, int family,
		       const void *daddr)
{
	uint8_t a[16];
	int best = -1;
	unsigned int i;

	addr_mapped(a, family, daddr);
	for (i = 0; i < c->n_enc; i++)
		if (prefix_match(&c->enc[i], a) &&
		    (best < 0 || c->enc[i].len > c->enc[best].len))
			best = (int)i;
	return best < 0 ? HPCCD_ENC_OWN : c->enc[best].enc;
}

uint64_t hpccd_cfg_rate(const struct hpccd_cfg *c, uint32_t switch_id,
			uint32_t port_id)
{
	unsigned int i;

	for (i = 0; i < c->n_cap; i++)
		if (c->cap[i].switch_id == switch_id &&
		    c->cap[i].port_id == port_id)
			return c->cap[i].rate;
	return c->default_rate;
}

unsigned int hpccd_cfg_int_ts_unit(const struct hpccd_cfg *c, bool has_switch,
				   uint32_t switch_id)
{
	unsigned int i;

	for (i = 0; has_switch && i < c->n_int_ts; i++)
		if (c->int_ts[i].switch_id == switch_id)
			return c->int_ts[i].unit;
	return c->int_ts_unit;
}

int hpccd_cfg_set(struct hpccd_cfg *c, const char *k, const char *v)
{
	unsigned int b;

	if (!strcmp(k, "probe-budget"))
		return parse_uint(k, v, 1, 10000000, &c->budget);
	if (!strcmp(k, "max-hops"))
		return parse_uint(k, v, 1, HPCC_MAX_HOPS, &c->max_hops);
	if (!strcmp(k, "timeout-min-us"))
		return parse_uint(k, v, 100, 10000000, &c->timeout_min_us);
	if (!strcmp(k, "timeout-max-us"))
		return parse_uint(k, v, 100, 10000000, &c->timeout_max_us);
	if (!strcmp(k, "tick-us"))
		return parse_uint(k, v, 100, 100000, &c->tick_us);
	if (!strcmp(k, "probe-pipeline"))
		return parse_uint(k, v, 1, HPCCD_PIPE_MAX, &c->probe_pipeline);
	if (!strcmp(k, "shards"))
		return parse_uint(k, v, 1, HPCCD_SHARDS_MAX, &c->shards);
	if (!strcmp(k, "response-rate"))
		return parse_uint(k, v, 1, 10000000, &c->response_rate);
	if (!strcmp(k, "response-budget"))
		return parse_uint(k, v, 1, 10000000, &c->response_budget);
	if (!strcmp(k, "response-budget-bytes"))
		return parse_uint(k, v, 1500, 1000000000,
				  &c->response_budget_bytes);
	if (!strcmp(k, "response-amplification"))
		return parse_uint(k, v, HPCCD_AMP_NONE, HPCCD_AMP_ANY,
				  &c->response_amplification);
	if (!strcmp(k, "rp-filter"))
		return parse_uint(k, v, HPCCD_RP_STRICT, HPCCD_RP_LOOSE,
				  &c->rp_filter);
	if (!strcmp(k, "tcp-check"))
		return parse_uint(k, v, 0, 1, &c->tcp_check);
	if (!strcmp(k, "n-flows-per-source"))
		return parse_uint(k, v, 1, 1048576, &c->n_flows_per_source);
	if (!strcmp(k, "max-flows"))
		return parse_uint(k, v, 1, 1U << 24, &c->max_flows);
	if (!strcmp(k, "reconcile-s"))
		return parse_uint(k, v, 1, 3600, &c->reconcile_s);
	if (!strcmp(k, "event-buffer-kb"))
		return parse_uint(k, v, 64, 65536, &c->event_buffer_kb);
	if (!strcmp(k, "report-n-flows"))
		return parse_uint(k, v, 0, 1, &c->report_n_flows);
	if (!strcmp(k, "n-flows-window-ms"))
		return parse_uint(k, v, 1, 60000, &c->n_flows_window_ms);
	if (!strcmp(k, "n-flows-max"))
		return parse_uint(k, v, 1, 1048576, &c->n_flows_max);
	if (!strcmp(k, "encoding"))
		return parse_encoding(c, v);
	if (!strcmp(k, "fcr"))
		return parse_dst_prefix(k, v, c->fcr, &c->n_fcr);
	if (!strcmp(k, "ccm"))
		return parse_dst_prefix(k, v, c->ccm, &c->n_ccm);
	if (!strcmp(k, "rx-based"))
		return parse_dst_prefix(k, v, c->rx_based, &c->n_rx_based);
	if (!strcmp(k, "private"))
		return parse_dst_prefix(k, v, c->private_to, &c->n_private);
	if (!strcmp(k, "rx-answer"))
		return parse_uint(k, v, 0, 1, &c->rx_answer);
	if (!strcmp(k, "rx-max-flows"))
		return parse_uint(k, v, 1, 1048576, &c->rx_max_flows);
	if (!strcmp(k, "auth-permissive"))
		return parse_dst_prefix(k, v, c->auth_permissive,
					&c->n_auth_permissive);
	if (!strcmp(k, "auth-overlap-s"))
		return parse_uint(k, v, 0, 86400, &c->auth_overlap_s);
	if (!strcmp(k, "auth-key-file")) {
		if (strlen(v) >= sizeof(c->key_file)) {
			cfg_err("auth-key-file: longer than %zu bytes",
				sizeof(c->key_file) - 1);
			return -1;
		}
		snprintf(c->key_file, sizeof(c->key_file), "%s", v);
		return 0;
	}
	if (!strcmp(k, "key")) {
		cfg_err("key: only in the auth-key-file");
		return -1;
	}
	if (!strcmp(k, "capacity"))
		return parse_capacity(c, v);
	if (!strcmp(k, "default-rate"))
		return parse_u64(k, v, 0, HPCC_RATE_MAX, &c->default_rate);
	if (!strcmp(k, "ifa-base-ns"))
		return parse_uint(k, v, 0, 1000000000, &c->ifa_base_ns);
	if (!strcmp(k, "int-qlen-unit"))
		return parse_uint(k, v, 1, 65536, &c->int_qlen_unit);
	if (!strcmp(k, "int-tx-util-full"))
		return parse_uint(k, v, 0, UINT32_MAX - 1,
				  &c->int_tx_util_full);
	if (!strcmp(k, "int-ts-unit"))
		return parse_int_ts(c, v);
	if (!strcmp(k, "ioam-namespace"))
		return parse_uint(k, v, 0, 65535, &c->ioam_namespace);
	if (!strcmp(k, "ioam-ts")) {
		static const char *const fmts[] = { "posix", "ptp", "ntp" };

		for (b = 0; b < 3; b++)
			if (!strcmp(v, fmts[b])) {
				c->ioam_ts = b;
				return 0;
			}
		cfg_err("ioam-ts: posix, ptp or ntp");
		return -1;
	}
	if (!strcmp(k, "stats-file")) {
		if (strlen(v) >= sizeof(c->stats_file)) {
			cfg_err("stats-file: longer than %zu bytes",
				sizeof(c->stats_file) - 1);
			return -1;
		}
		snprintf(c->stats_file, sizeof(c->stats_file), "%s", v);
		return 0;
	}
	if (!strcmp(k, "log")) {
		if (strcmp(v, "syslog") && strcmp(v, "stderr")) {
			cfg_err("log: syslog or stderr");
			return -1;
		}
		c->syslog = !strcmp(v, "syslog");
		return 0;
	}
	if (!strcmp(k, "verbose")) {
		if (parse_uint(k, v, 0, 1, &b))
			return -1;
		c->verbose = b;
		return 0;
	}
	cfg_err("unknown setting '%.64s'", k);
	return -1;
}

static char *trim(char *s, char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*e = 0;
	return s;
}

static int parse_lines(struct hpccd_cfg *c, const char *name, const char *buf,
		       size_t len,
		       int (*set)(struct hpccd_cfg *, const char *,
				  const char *));

int hpccd_cfg_parse(struct hpccd_cfg *c, const char *name, const char *buf,
		    size_t len)
{

	/* the lists are the file's: a reload replaces them */
	c->n_enc = 0;
	c->n_fcr = 0;
	c->n_ccm = 0;
	c->n_cap = 0;
	c->n_int_ts = 0;
	c->n_rx_based = 0;
	c->n_private = 0;
	c->n_auth_permissive = 0;
	return parse_lines(c, name, buf, len, hpccd_cfg_set);
}

static int hex_bytes(const char *h, uint8_t *out, unsigned int len)
{
	unsigned int i, hi, lo;

	if (strlen(h) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		if (sscanf(h + 2 * i, "%1x%1x", &hi, &lo) != 2)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/*
 * key_line() - the value of a "WHAT = ID HEX PREFIX/LEN [accept]" line:
 * the id (1..2^32 - 1), @klen bytes of key (2 x @klen hex digits), the
 * prefix and whether "accept" follows.  Return: 0, or -1 (reported).
 */
static int key_line(const char *what, const char *v, uint32_t *id,
		    uint8_t *key, unsigned int klen, struct hpccd_prefix *pfx,
		    bool *accept)
{
	char sid[16], hex[80], spfx[64], acc[8], extra[2];
	int n, err = -1;

	n = sscanf(v, "%15s %79s %63s %7s %1s", sid, hex, spfx, acc, extra);
	if (n < 3 || n > 4 || (n == 4 && strcmp(acc, "accept"))) {
		cfg_err("%s: 'ID HEX PREFIX/LEN [accept]' expected", what);
	} else if (!parse_uint(what, sid, 1, UINT32_MAX, id)) {
		if (hex_bytes(hex, key, klen))
			cfg_err("%s %u: %u hex digits expected", what, *id,
				2 * klen);
		else if (!parse_prefix(what, spfx, pfx, false))
			err = 0;
	}
	*accept = n == 4;
	explicit_bzero(hex, sizeof(hex));
	return err;
}

/* "notify-key = ID HEX PREFIX/LEN [accept]" */
static int nkey_set(struct hpccd_cfg *c, const char *v)
{
	struct hpccd_nkey e = { 0 };
	unsigned int i;
	int err = -1;

	if (key_line("notify-key", v, &e.id, e.key, sizeof(e.key), &e.pfx,
		     &e.accept))
		goto out;
	for (i = 0; i < c->n_nkeys; i++)
		if (c->nkeys[i].id == e.id) {
			cfg_err("notify-key %u: the id is used twice", e.id);
			goto out;
		}
	if (c->n_nkeys == HPCCD_MAX_NKEYS) {
		cfg_err("notify-key: more than %d lines", HPCCD_MAX_NKEYS);
		goto out;
	}
	c->nkeys[c->n_nkeys++] = e;
	err = 0;
out:
	explicit_bzero(&e, sizeof(e));
	return err;
}

/* "key = ID HEX PREFIX/LEN [accept]" */
static int key_set(struct hpccd_cfg *c, const char *k, const char *v)
{
	struct hpccd_key e = { 0 };
	unsigned int i;
	int err = -1;

	if (!strcmp(k, "notify-key"))
		return nkey_set(c, v);
	if (strcmp(k, "key")) {
		cfg_err("%.64s: the key file has key and notify-key lines only",
			k);
		return -1;
	}
	if (key_line("key", v, &e.id, e.key, sizeof(e.key), &e.pfx,
		     &e.accept_only))
		goto out;
	for (i = 0; i < c->n_keys; i++)
		if (c->keys[i].id == e.id) {
			cfg_err("key %u: the id is used twice", e.id);
			goto out;
		}
	if (c->n_keys == HPCCD_MAX_KEYS) {
		cfg_err("key: more than %d lines", HPCCD_MAX_KEYS);
		goto out;
	}
	c->keys[c->n_keys++] = e;
	err = 0;
out:
	explicit_bzero(&e, sizeof(e));
	return err;
}

int hpccd_cfg_parse_keys(struct hpccd_cfg *c, const char *name,
			 const char *buf, size_t len)
{
	int err;

	c->n_keys = 0;
	c->n_nkeys = 0;
	err = parse_lines(c, name, buf, len, key_set);
	if (err) {
		explicit_bzero(c->keys, sizeof(c->keys));
		explicit_bzero(c->nkeys, sizeof(c->nkeys));
		c->n_keys = 0;
		c->n_nkeys = 0;
	}
	return err;
}

static int parse_lines(struct hpccd_cfg *c, const char *name, const char *buf,
		       size_t len,
		       int (*set)(struct hpccd_cfg *, const char *,
				  const char *))
{
	char line[512], *k, *v, *eq;
	size_t pos = 0, n;
	int lineno = 0, bad = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);

		n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		lineno++;
		if (n >= sizeof(line)) {
			cfg_err("%s:%d: line longer than %zu bytes", name,
				lineno, sizeof(line) - 1);
			bad = 1;
			pos += n + 1;
			continue;
		}
		memcpy(line, buf + pos, n);
		line[n] = 0;
		pos += n + 1;
		if (memchr(line, 0, n)) {
			cfg_err("%s:%d: NUL byte", name, lineno);
			bad = 1;
			continue;
		}
		line[strcspn(line, "#")] = 0;
		k = trim(line, line + strlen(line));
		if (!*k)
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			cfg_err("%s:%d: expected key = value", name, lineno);
			bad = 1;
			continue;
		}
		v = trim(eq + 1, eq + 1 + strlen(eq + 1));
		k = trim(k, eq);
		if (set(c, k, v)) {
			cfg_err("%s:%d: setting ignored", name, lineno);
			bad = 1;
		}
	}
	/* a key file's last lines */
	explicit_bzero(line, sizeof(line));
	if (c->timeout_min_us > c->timeout_max_us) {
		cfg_err("%s: timeout-min-us above timeout-max-us", name);
		return -1;
	}
	return bad ? -1 : 0;
}

/*
 * credential() - @path names a file right in the service's credentials
 * directory ($CREDENTIALS_DIRECTORY: systemd's LoadCredential=), which
 * systemd makes private to the service: its files are root's, and an ACL
 * lets the service's user read them (the group bits of their mode show the
 * ACL's mask).
 */
static bool credential(const char *path)
{
	const char *d = getenv("CREDENTIALS_DIRECTORY");
	size_t n;

	if (!d || d[0] != '/')
		return false;
	n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		n--;
	return !strncmp(path, d, n) && path[n] == '/' && path[n + 1] &&
	       !strchr(path + n + 1, '/');
}

/*
 * The key file: hpccd's own, unreadable by anyone else, at most 64 KiB;
 * or a credential (credential()): root's or hpccd's, unreadable by others.
 */
int hpccd_cfg_read_keys(struct hpccd_cfg *c)
{
	int fd = open(c->key_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char buf[65536];
	struct stat st;
	ssize_t n;
	int err = -1;

	c->n_keys = 0;
	c->n_nkeys = 0;
	if (fd < 0) {
		cfg_err("%s: %s", c->key_file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		cfg_err("%s: not a regular file", c->key_file);
	} else if (credential(c->key_file) ?
		   (st.st_uid != geteuid() && st.st_uid != 0) ||
		   st.st_mode & 007 :
		   st.st_uid != geteuid() || st.st_mode & 077) {
		cfg_err("%s: must be owned by hpccd's user and not accessible to group or others (chmod 600), or a credential (LoadCredential=) not accessible to others; no key used",
			c->key_file);
	} else {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 || (size_t)n == sizeof(buf))
			cfg_err("%s: %s", c->key_file,
				n < 0 ? strerror(errno) : "64 KiB or larger");
		else
			err = hpccd_cfg_parse_keys(c, c->key_file, buf,
						   (size_t)n);
	}
	close(fd);
	explicit_bzero(buf, sizeof(buf));
	return err;
}

int hpccd_cfg_read(struct hpccd_cfg *c, bool must_exist)
{
	FILE *f = fopen(c->file, "r");
	size_t cap = 1 << 20, n;
	char *buf;
	int err;

	if (!f) {
		if (!must_exist && errno == ENOENT)
			return 0;
		cfg_err("%s: %s", c->file, strerror(errno));
		return -1;
	}
	buf = malloc(cap + 1);
	if (!buf) {
		fclose(f);
		cfg_err("%s: out of memory", c->file);
		return -1;
	}
	n = fread(buf, 1, cap + 1, f);
	err = ferror(f);
	fclose(f);
	if (err || n > cap) {
		cfg_err("%s: %s", c->file, err ? "read error" : "larger than 1 MiB");
		free(buf);
		return -1;
	}
	err = hpccd_cfg_parse(c, c->file, buf, n);
	free(buf);
	if (c->key_file[0] && hpccd_cfg_read_keys(c))
		err = -1;
	else if (!c->key_file[0])
		c->n_keys = c->n_nkeys = 0;
	return err;
}

int hpccd_cfg_load(struct hpccd_cfg *c, const char *file, bool must_exist,
		   const char *const *args, unsigned int n_args)
{
	unsigned int i;
	int err;

	hpccd_cfg_defaults(c);
	if (strlen(file) >= sizeof(c->file)) {
		cfg_err("%.64s...: longer than %zu bytes", file,
			sizeof(c->file) - 1);
		return -1;
	}
	snprintf(c->file, sizeof(c->file), "%s", file);
	err = hpccd_cfg_read(c, must_exist);
	for (i = 0; i < n_args; i++)
		if (hpccd_cfg_set(c, args[2 * i], args[2 * i + 1]))
			err = -1;
	return err;
}
