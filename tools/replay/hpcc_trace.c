// SPDX-License-Identifier: GPL-2.0
/* hpcc_trace.c - parser of the hpcc-replay trace format (hpcc_trace.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpcc_trace.h"

static const char *field_err(const char *what, const char *why)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "%s: %s", what, why);
	return buf;
}

/* Next unsigned decimal field; advances *p.  0 on success. */
static int next_u64(const char **p, u64 max, u64 *v, const char **err,
		    const char *what)
{
	const char *s = *p;
	char *end;
	unsigned long long x;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s)) {
		*err = field_err(what, *s && *s != '\n' && *s != '\r' ?
				 "not an unsigned decimal number" : "missing");
		return -1;
	}
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno == ERANGE || x > max) {
		*err = field_err(what, "out of range");
		return -1;
	}
	if (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
	    *end != '\r') {
		*err = field_err(what, "not an unsigned decimal number");
		return -1;
	}
	*v = x;
	*p = end;
	return 0;
}

/*
 * The tx_bytes field: a decimal txBytes; "-": absent; "u" and a decimal
 * Tx utilization in parts per million (0..10000000): absent, with Tx
 * utilization.  Sets @h's tx_bytes, flags and tx_util.  0 on success.
 */
static int next_tx(const char **p, struct hpcc_hop *h, const char **err)
{
	const char *s = *p;
	u64 ppm;

	h->flags = 0;
	h->tx_util = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' && (!s[1] || s[1] == ' ' || s[1] == '\t' ||
			  s[1] == '\n' || s[1] == '\r')) {
		h->tx_bytes = 0;
		h->flags = HPCC_HOP_NO_TX_BYTES;
		*p = s + 1;
		return 0;
	}
	if (*s == 'u') {
		*p = s + 1;
		if (next_u64(p, 10000000, &ppm, err, "tx_util_ppm"))
			return -1;
		h->tx_bytes = 0;
		h->flags = HPCC_HOP_NO_TX_BYTES | HPCC_HOP_TX_UTIL;
		h->tx_util = (u32)((ppm << HPCC_TX_UTIL_SHIFT) / 1000000);
		return 0;
	}
	return next_u64(p, ~0ULL, &h->tx_bytes, err, "tx_bytes");
}

int hpcc_trace_parse_line(const char *line, struct hpcc_sample *s,
			  const char **err)
{
	const char *p = line;
	u64 v[3];
	u32 i;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || *p == '\r' || *p == '#')
		return 0;
	if (next_u64(&p, 0xffffffffULL, &v[0], err, "ack_seq") ||
	    next_u64(&p, 0xffffffffULL, &v[1], err, "snd_nxt") ||
	    next_u64(&p, 0xffffffffULL, &v[2], err, "nhop"))
		return -1;
	if (v[2] < 1 || v[2] > HPCC_MAX_HOPS) {
		*err = "nhop: must be 1..8";
		return -1;
	}
	s->ack_seq = (u32)v[0];
	s->snd_nxt = (u32)v[1];
	s->nhop = (u32)v[2];
	for (i = 0; i < s->nhop; i++) {
		struct hpcc_hop *h = &s->hops[i];
		u64 sw, port;

		if (next_u64(&p, 0xffffffffULL, &sw, err, "switch_id") ||
		    next_u64(&p, 0xffffffffULL, &port, err, "port_id") ||
		    next_u64(&p, ~0ULL, &h->rate_bps, err, "B_bps") ||
		    next_u64(&p, ~0ULL, &h->ts, err, "ts_ns") ||
		    next_tx(&p, h, err) ||
		    next_u64(&p, ~0ULL, &h->qlen, err, "qlen_bytes"))
			return -1;
		h->switch_id = (u32)sw;
		h->port_id = (u32)port;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	s->n_flows = 0;
	if (*p && *p != '\r' && *p != '\n') {
		if (next_u64(&p, HPCC_N_FLOWS_MAX, &v[0], err, "n_flows"))
			return -1;
		s->n_flows = (u32)v[0];
	}
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	if (*p) {
		*err = "extra fields after n_flows";
		return -1;
	}
	return 1;
}
