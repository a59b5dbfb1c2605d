// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_decode - libFuzzer target over the decoder layer
 * (daemon/lib/hpcc_decode.c): hpcc_decode_intmd() reads INT-MD stacks and
 * hpcc_decode_ioam() IOAM trace options and hpcc_decode_ifa() IFA 2.0
 * stacks that switches wrote, from the network; each input goes through
 * all three.
 *
 * Invariants: decoding never reads outside the input (ASan) and never hits
 * undefined behaviour (UBSan); an accepted stack or option has at most the
 * caller's hops and ends within the input; each hop marks only fields its
 * encoding carries (never txBytes; B only from IFA's speed code) and an
 * absent field is 0; decoding
 * into an array one hop too small is refused as too-many-hops, never
 * written past.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hpcc_decode.h"

#define INT_FIELDS (HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_TS | \
		    HPCC_OBS_QLEN | HPCC_OBS_TX_UTIL | HPCC_OBS_HOP_LATENCY)

#define IOAM_FIELDS (HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_TS | \
		     HPCC_OBS_QLEN | HPCC_OBS_HOP_LATENCY)

/* Absent fields are 0, and nothing outside @fields is marked. */
static void check_obs(const struct hpcc_hop_obs *o, uint32_t fields)
{
	if (o->present & ~fields || o->rec.rate || o->rec.tx_bytes ||
	    (!(o->present & HPCC_OBS_SWITCH_ID) && o->rec.switch_id) ||
	    (!(o->present & HPCC_OBS_PORT_ID) && o->rec.port_id) ||
	    (!(o->present & HPCC_OBS_TS) && o->rec.ts) ||
	    (!(o->present & HPCC_OBS_QLEN) && o->rec.qlen) ||
	    (!(o->present & HPCC_OBS_TX_UTIL) && o->tx_util) ||
	    (!(o->present & HPCC_OBS_HOP_LATENCY) && o->hop_latency))
		abort();
}

/*
 * Each decoded hop as a receiver's record (hpcc_obs_to_rec(), with units
 * and a B from the input's length): no txBytes, the flags the rules
 * allow, Tx utilization at most 200 %, and ts 0 exactly when refused.
 */
static void check_rec(const struct hpcc_hop_obs *h, unsigned int n,
		      size_t len)
{
	const struct hpcc_obs_units u = {
		.qlen_unit = (uint32_t)(len % 65536) + 1,
		.tx_util_full = (uint32_t)(len % 3) * 50000,
		.base_ns = (uint32_t)(len % 1000),
	};
	struct hpcc_hop_rec r;
	unsigned int i;
	bool ok;

	for (i = 0; i < n; i++) {
		ok = hpcc_obs_to_rec(&h[i], &u, len % 2 ? 100000000 : 0, &r);
		if (r.tx_bytes || !(r.flags & HPCC_HOP_FLAGS_NO_TX_BYTES) ||
		    r.flags & ~(HPCC_HOP_FLAGS_NO_TX_BYTES |
				HPCC_HOP_FLAGS_TX_UTIL) ||
		    r.tx_util > 131072 || (!ok && r.ts) ||
		    (ok && r.ts != h[i].rec.ts))
			abort();
	}
}

/* A decoder's result is one it has, and a refusal reports no hops. */
static int accepted(enum hpcc_decode_err e, uint8_t nhop)
{
	if (e >= HPCC_DECODE_NUM || (e != HPCC_DECODE_OK && nhop))
		abort();
	return e == HPCC_DECODE_OK;
}

#define IFA_FIELDS (HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_RATE | \
		    HPCC_OBS_TS | HPCC_OBS_HOP_LATENCY)

static void fuzz_ifa(const unsigned char *data, size_t len)
{
	struct hpcc_hop_obs h[255];
	struct hpcc_ifa_info info;
	enum hpcc_decode_err e;
	uint8_t nhop, n2;
	unsigned int i;

	e = hpcc_decode_ifa(data, len, h, 255, &nhop, &info);
	if (!accepted(e, nhop))
		return;
	if (info.len > len || info.gns != HPCC_IFA_GNS_LOCAL ||
	    info.len != info.md_off + HPCC_IFA_MD_HDR_LEN +
			info.cur_length * 4U ||
	    nhop * HPCC_IFA_HOP_LEN != info.cur_length * 4U)
		abort();
	for (i = 0; i < nhop; i++) {
		struct hpcc_hop_obs o = h[i];

		/* B comes from the speed code, only ever a listed speed */
		if (!!(o.present & HPCC_OBS_RATE) != !!o.rec.rate ||
		    (o.rec.rate && o.rec.rate % 1000000000ULL) ||
		    o.rec.switch_id > 0xfffff || o.rec.port_id > 0xffff)
			abort();
		o.rec.rate = 0;
		check_obs(&o, IFA_FIELDS);
	}
	check_rec(h, nhop, len);
	if (nhop && (hpcc_decode_ifa(data, len, h, nhop - 1, &n2, NULL) !=
		     HPCC_DECODE_TOO_MANY || n2))
		abort();
}

static void fuzz_ioam(const unsigned char *data, size_t len)
{
	static const enum hpcc_ioam_ts_fmt fmts[] = {
		HPCC_IOAM_TS_POSIX, HPCC_IOAM_TS_PTP, HPCC_IOAM_TS_NTP,
	};
	struct hpcc_hop_obs h[255];
	struct hpcc_ioam_info info;
	enum hpcc_decode_err e;
	uint8_t nhop, n2;
	unsigned int i;

	e = hpcc_decode_ioam(data, len, fmts[len % 3], h, 255, &nhop, &info);
	if (!accepted(e, nhop))
		return;
	if (info.len > len || info.len < HPCC_IOAM_HDR_LEN ||
	    info.node_len * 4U != hpcc_ioam_node_bytes(info.trace_type) ||
	    info.flags > 15 || info.remaining > 127)
		abort();
	for (i = 0; i < nhop; i++) {
		check_obs(&h[i], IOAM_FIELDS);
		if (h[i].hop_latency > 0x7fffffff)
			abort();
	}
	check_rec(h, nhop, len);
	if (nhop && (hpcc_decode_ioam(data, len, fmts[len % 3], h, nhop - 1,
				      &n2, NULL) != HPCC_DECODE_TOO_MANY || n2))
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	struct hpcc_hop_obs h[255];
	struct hpcc_intmd_info info;
	enum hpcc_decode_err e;
	uint8_t nhop, n2;
	unsigned int i;

	fuzz_ioam(data, len);
	fuzz_ifa(data, len);
	e = hpcc_decode_intmd(data, len, h, 255, &nhop, &info);
	if (!accepted(e, nhop))
		return 0;
	if (info.len > len || !info.hop_ml)
		abort();
	for (i = 0; i < nhop; i++) {
		check_obs(&h[i], INT_FIELDS);
		if (h[i].rec.qlen > 0xffffff)
			abort();
	}
	check_rec(h, nhop, len);
	if (nhop && (hpcc_decode_intmd(data, len, h, nhop - 1, &n2, NULL) !=
		     HPCC_DECODE_TOO_MANY || n2))
		abort();
	return 0;
}
