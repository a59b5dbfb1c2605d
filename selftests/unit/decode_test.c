// SPDX-License-Identifier: GPL-2.0
/*
 * decode_test - the decoder layer (daemon/lib/hpcc_decode.c) on hand-built
 * INT-MD v2.1 stacks (P4.org INT Dataplane Specification v2.1, sections
 * 5.7.2 and 5.8), IOAM pre-allocated trace options (RFC 9197 section 4.4;
 * headers built through Linux's own uapi struct ioam6_trace_hdr, so the
 * bit layout is checked against the kernel's), IFA 2.0 stacks
 * (draft-kumar-ippm-ifa; one hop's bytes checked against the values
 * google/gopacket's layers/ifa_test.go decodes from them) and the
 * project's own record.  Host test, built with ASan and UBSan.
 */
#include <string.h>
#include <linux/ioam6.h>

#include "kselftest_harness.h"
#include "hpcc_decode.h"

static size_t put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
	return 4;
}

static size_t put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	return 4 + put32(p + 4, (uint32_t)v);
}

/*
 * intmd_head() - shim (type 1, NPT 0, @words) and INT-MD header (version
 * 2, Hop ML @ml words, remaining hop count @rhc, @ins) into @p; returns 16
 */
static size_t intmd_head(uint8_t *p, uint8_t words, uint8_t ml, uint8_t rhc,
			 uint16_t ins)
{
	memset(p, 0, 16);
	p[0] = HPCC_INT_TYPE_MD << 4;
	p[1] = words;
	p[3] = 0x17 << 2;		/* the original DSCP, optional */
	p[4] = HPCC_INT_VERSION << 4;
	p[6] = ml & 0x1f;
	p[7] = rhc;
	p[8] = ins >> 8;
	p[9] = ins & 0xff;
	return 16;
}

/* The spec's example (section 6.1): switch ID and queue occupancy (bits 0
 * and 3), Hop ML 2, two hops, the last one first on the stack.
 */
TEST(spec_example)
{
	struct hpcc_hop_obs h[4];
	struct hpcc_intmd_info info;
	uint8_t b[64], nhop;
	size_t n;

	n = intmd_head(b, 7, 2, 6, 0x9000);
	n += put32(b + n, 2);			/* hop 2: switch */
	n += put32(b + n, 0x05000800);		/* queue 5, 2048 */
	n += put32(b + n, 1);			/* hop 1 */
	n += put32(b + n, 0x07000010);		/* queue 7, 16 */
	n += put32(b + n, 0xdeadbeef);		/* TCP payload */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(b, n, h, 4, &nhop, &info));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(32, info.len);		/* 4 + 7 words */
	ASSERT_EQ(0x9000, info.instructions);
	ASSERT_EQ(2, info.hop_ml);
	ASSERT_EQ(6, info.remaining);
	ASSERT_EQ(0, info.flags);
	/* first hop first */
	ASSERT_EQ(1, h[0].rec.switch_id);
	ASSERT_EQ(16, h[0].rec.qlen);
	ASSERT_EQ(2, h[1].rec.switch_id);
	ASSERT_EQ(2048, h[1].rec.qlen);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_QLEN, h[0].present);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_QLEN, h[1].present);
	/* INT-MD has no B and no txBytes */
	ASSERT_EQ(0, h[0].present & (HPCC_OBS_RATE | HPCC_OBS_TX_BYTES));
}

/* Bits 0-7: every field we map, in bit order, 44 bytes a hop. */
TEST(all_baseline_fields)
{
	struct hpcc_hop_obs h[1];
	uint8_t b[80], nhop;
	size_t n;

	ASSERT_EQ(44, hpcc_intmd_hop_bytes(0xff00));
	n = intmd_head(b, 3 + 11, 11, 4, 0xff00);
	n += put32(b + n, 77);			/* switch ID */
	n += put32(b + n, 3 << 16 | 9);		/* ingress 3, egress 9 */
	n += put32(b + n, 1500);		/* hop latency */
	n += put32(b + n, 0x02001234);		/* queue 2, 0x1234 */
	n += put64(b + n, 1000000);		/* ingress ts */
	n += put64(b + n, 1002000);		/* egress ts */
	n += put32(b + n, 300);			/* L2 ingress */
	n += put32(b + n, 400);			/* L2 egress */
	n += put32(b + n, 750);			/* Tx utilization */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(b, n, h, 1, &nhop, NULL));
	ASSERT_EQ(1, nhop);
	ASSERT_EQ(77, h[0].rec.switch_id);
	ASSERT_EQ(9, h[0].rec.port_id);		/* level 1 egress wins */
	ASSERT_EQ(1500, h[0].hop_latency);
	ASSERT_EQ(0x1234, h[0].rec.qlen);
	ASSERT_EQ(1002000, h[0].rec.ts);		/* egress ts wins */
	ASSERT_EQ(750, h[0].tx_util);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_TS |
		  HPCC_OBS_QLEN | HPCC_OBS_TX_UTIL | HPCC_OBS_HOP_LATENCY,
		  h[0].present);
}

/*
 * A device that stamps microseconds (INT v2.1 section 4 leaves the unit to
 * the device; the DTEL YANG model names ns, us and 2^-32 s): bits 0 and 5
 * (switch ID, egress timestamp; section 5.8), Hop ML 3, one hop stamped
 * twice, 2 ms apart.  Read as ns the interval is 2 us; in its unit, 2 ms.
 */
TEST(int_ts_units)
{
	struct hpcc_hop_obs a[1], b[1];
	uint8_t p[32], nhop;
	size_t n;

	n = intmd_head(p, 6, 3, 7, 0x8400);
	n += put32(p + n, 9);				/* switch ID */
	n += put64(p + n, 5000000);			/* egress ts, us */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(p, n, a, 1, &nhop, NULL));
	put64(p + 20, 5002000);				/* 2 ms later */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(p, n, b, 1, &nhop, NULL));
	ASSERT_EQ(2000, b[0].rec.ts - a[0].rec.ts);	/* as decoded */
	ASSERT_EQ(2000, hpcc_int_ts_ns(b[0].rec.ts, HPCC_INT_TS_NS) -
			hpcc_int_ts_ns(a[0].rec.ts, HPCC_INT_TS_NS));
	ASSERT_EQ(2000000, hpcc_int_ts_ns(b[0].rec.ts, HPCC_INT_TS_US) -
			   hpcc_int_ts_ns(a[0].rec.ts, HPCC_INT_TS_US));
	/* 2^-32 s: 3 s and half a second; the largest fraction stays below
	 * the next second
	 */
	ASSERT_EQ(3500000000ULL,
		  hpcc_int_ts_ns(3ULL << 32 | 0x80000000U, HPCC_INT_TS_NTP));
	ASSERT_EQ(3999999999ULL,
		  hpcc_int_ts_ns(3ULL << 32 | 0xffffffffU, HPCC_INT_TS_NTP));
	/* a microsecond counter past 2^64 / 1000 wraps, its intervals kept */
	ASSERT_EQ(1000, hpcc_int_ts_ns(UINT64_MAX / 1000 + 1, HPCC_INT_TS_US) -
			hpcc_int_ts_ns(UINT64_MAX / 1000, HPCC_INT_TS_US));
}

/* All ones is "invalid" (section 5.8): absent, and the fallbacks apply:
 * the ingress ts for the egress one, the level 2 port for the level 1.
 */
TEST(invalid_values_absent)
{
	struct hpcc_hop_obs h[1];
	uint8_t b[80], nhop;
	size_t n;

	n = intmd_head(b, 3 + 11, 11, 4, 0xff00);
	n += put32(b + n, UINT32_MAX);		/* switch ID invalid */
	n += put32(b + n, UINT32_MAX);		/* L1 ports invalid */
	n += put32(b + n, UINT32_MAX);		/* hop latency */
	n += put32(b + n, UINT32_MAX);		/* queue */
	n += put64(b + n, 5000);		/* ingress ts */
	n += put64(b + n, UINT64_MAX);		/* egress ts invalid */
	n += put32(b + n, 300);
	n += put32(b + n, 400);			/* L2 egress */
	n += put32(b + n, UINT32_MAX);		/* Tx utilization */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(b, n, h, 1, &nhop, NULL));
	ASSERT_EQ(HPCC_OBS_PORT_ID | HPCC_OBS_TS, h[0].present);
	ASSERT_EQ(400, h[0].rec.port_id);
	ASSERT_EQ(5000, h[0].rec.ts);
	ASSERT_EQ(0, h[0].rec.switch_id);
	ASSERT_EQ(0, h[0].rec.qlen);
}

/* Reserved bit 9 (4 bytes), 8 bytes of domain-specific metadata and the
 * checksum complement (bit 15) are skipped; the next hop still lines up.
 */
TEST(reserved_ds_and_checksum_skipped)
{
	struct hpcc_hop_obs h[2];
	uint8_t b[96], nhop;
	uint16_t ins = 0x8000 | 0x1000 | 0x0040 | 0x0001; /* 0, 3, 9, 15 */
	size_t n;
	int i;

	ASSERT_EQ(16, hpcc_intmd_hop_bytes(ins));
	/* Hop ML 6: 16 baseline bytes and 8 domain-specific bytes */
	n = intmd_head(b, 3 + 2 * 6, 6, 2, ins);
	for (i = 2; i >= 1; i--) {
		n += put32(b + n, 100 + i);		/* switch ID */
		n += put32(b + n, 10 * i);		/* queue */
		n += put32(b + n, 0xaaaaaaaa);		/* bit 9 */
		n += put64(b + n, 0xbbbbbbbbbbbbbbbbULL);	/* DS */
		n += put32(b + n, 0xcccc);		/* checksum */
	}
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(101, h[0].rec.switch_id);
	ASSERT_EQ(10, h[0].rec.qlen);
	ASSERT_EQ(102, h[1].rec.switch_id);
	ASSERT_EQ(20, h[1].rec.qlen);
}

/* A stack with no hop yet (the probe as its source sends it). */
TEST(empty_stack)
{
	struct hpcc_hop_obs h[1];
	uint8_t b[16], nhop = 9;

	intmd_head(b, 3, 2, 8, 0x9000);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(b, 16, h, 1, &nhop, NULL));
	ASSERT_EQ(0, nhop);
}

TEST(refused)
{
	struct hpcc_hop_obs h[2];
	uint8_t b[64], nhop;
	size_t n;

	n = intmd_head(b, 5, 2, 6, 0x9000);
	n += put32(b + n, 1);
	n += put32(b + n, 2);
	ASSERT_EQ(24, n);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	/* shorter than a header, or than the shim's length */
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_intmd(b, 15, h, 2, &nhop, NULL));
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_intmd(b, 23, h, 2, &nhop, NULL));
	ASSERT_EQ(0, nhop);
	b[1] = 2;				/* length below the header's */
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	b[1] = 5;
	/* not INT-MD: type 2 (destination), or NPT 1 (UDP) */
	b[0] = 2 << 4;
	ASSERT_EQ(HPCC_DECODE_TYPE, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	b[0] = 1 << 4 | 1 << 2;
	ASSERT_EQ(HPCC_DECODE_TYPE, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	b[0] = 1 << 4;
	/* version 1 */
	b[4] = 1 << 4;
	ASSERT_EQ(HPCC_DECODE_VERSION, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	b[4] = 2 << 4;
	/* Hop ML 0, or smaller than the instructions need */
	b[6] = 0;
	ASSERT_EQ(HPCC_DECODE_HOP_ML, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	b[6] = 1;
	ASSERT_EQ(HPCC_DECODE_HOP_ML, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	/* 8 stack bytes are no whole number of 12-byte hops */
	b[6] = 3;
	ASSERT_EQ(HPCC_DECODE_STACK, hpcc_decode_intmd(b, n, h, 2, &nhop, NULL));
	/* one hop of 8 bytes into an array of none */
	b[6] = 2;
	ASSERT_EQ(HPCC_DECODE_TOO_MANY, hpcc_decode_intmd(b, n, h, 0, &nhop, NULL));
	ASSERT_STREQ("stack", hpcc_decode_err_name(HPCC_DECODE_STACK));
	ASSERT_STREQ("unknown", hpcc_decode_err_name(HPCC_DECODE_NUM));
}

/* The project's own record: every field present, values as they came. */
TEST(own_record)
{
	struct hpcc_hop_rec r = {
		.switch_id = 7, .port_id = 3, .rate = 100000000, .ts = 42,
		.tx_bytes = 5000, .qlen = 1500,
	};
	struct hpcc_hop_obs o;

	hpcc_obs_from_rec(&o, &r);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_RATE |
		  HPCC_OBS_TS | HPCC_OBS_TX_BYTES | HPCC_OBS_QLEN, o.present);
	ASSERT_EQ(7, o.rec.switch_id);
	ASSERT_EQ(3, o.rec.port_id);
	ASSERT_EQ(100000000, o.rec.rate);
	ASSERT_EQ(42, o.rec.ts);
	ASSERT_EQ(5000, o.rec.tx_bytes);
	ASSERT_EQ(1500, o.rec.qlen);
}

/*
 * ioam_head() - an IPv6 IOAM option (type 0x31, pre-allocated trace) with
 * @dlen bytes of node data list, of which @remlen words are still free,
 * NodeLen @nodelen and trace type @type (bit 0 the MSB of 24), its trace
 * header written through the kernel's struct ioam6_trace_hdr; returns the
 * option's length (12 + @dlen)
 */
static size_t ioam_head(uint8_t *p, size_t dlen, uint8_t nodelen,
			uint8_t remlen, uint32_t type, int overflow)
{
	struct ioam6_hdr *oh = (struct ioam6_hdr *)p;
	struct ioam6_trace_hdr *th = (struct ioam6_trace_hdr *)(p + sizeof(*oh));

	memset(p, 0, 12 + dlen);
	oh->opt_type = HPCC_IOAM_OPT_TYPE;
	oh->opt_len = (uint8_t)(2 + sizeof(*th) + dlen);
	oh->type = IOAM6_TYPE_PREALLOC;
	th->namespace_id = __builtin_bswap16(123);
	th->nodelen = nodelen;
	th->remlen = remlen;
	th->overflow = overflow;
	th->type_be32 = __builtin_bswap32(type << 8);
	return 12 + dlen;
}

/* One node as Linux fills it for trace type 0xf20000 (bits 0-3 and 6). */
static void ioam_linux_node(uint8_t *p, uint8_t hoplim, uint32_t id,
			    uint16_t in, uint16_t out, uint32_t sec,
			    uint32_t usec, uint32_t backlog)
{
	p += put32(p, (uint32_t)hoplim << 24 | id);
	p += put32(p, (uint32_t)in << 16 | out);
	p += put32(p, sec);
	p += put32(p, usec);
	put32(p, backlog);
}

/* Two Linux hops of a three-node option, the one left free first: hop 1
 * wrote the list's last 20 bytes, hop 2 the 20 before them.
 */
TEST(ioam_linux_trace)
{
	struct hpcc_hop_obs h[4];
	struct hpcc_ioam_info info;
	uint8_t b[12 + 60], nhop;
	size_t n;

	ASSERT_EQ(20, hpcc_ioam_node_bytes(0xf20000));
	n = ioam_head(b, 60, 5, 5, 0xf20000, 0);
	ioam_linux_node(b + 12 + 20, 62, 2, 21, 22, 1000, 999999, 3000);
	ioam_linux_node(b + 12 + 40, 63, 1, 11, 12, 1000, 250, 1500);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						   h, 4, &nhop, &info));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(123, info.namespace_id);
	ASSERT_EQ(0xf20000, info.trace_type);
	ASSERT_EQ(5, info.node_len);
	ASSERT_EQ(5, info.remaining);
	ASSERT_EQ(0, info.flags);
	ASSERT_EQ(n, info.len);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_TS |
		  HPCC_OBS_QLEN, h[0].present);
	ASSERT_EQ(1, h[0].rec.switch_id);
	ASSERT_EQ(12, h[0].rec.port_id);
	ASSERT_EQ(1000000250000ULL, h[0].rec.ts);
	ASSERT_EQ(1500, h[0].rec.qlen);
	ASSERT_EQ(2, h[1].rec.switch_id);
	ASSERT_EQ(22, h[1].rec.port_id);
	ASSERT_EQ(1000999999000ULL, h[1].rec.ts);
	ASSERT_EQ(3000, h[1].rec.qlen);
	/* no B, no txBytes, no Tx utilization in IOAM */
	ASSERT_EQ(0, h[0].present & (HPCC_OBS_RATE | HPCC_OBS_TX_BYTES |
				     HPCC_OBS_TX_UTIL));
	/* the Overflow flag, as the kernel's bitfield sets it */
	ioam_head(b, 60, 5, 5, 0xf20000, 1);
	ioam_linux_node(b + 12 + 20, 62, 2, 21, 22, 1000, 999999, 3000);
	ioam_linux_node(b + 12 + 40, 63, 1, 11, 12, 1000, 250, 1500);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						   h, 4, &nhop, &info));
	ASSERT_EQ(HPCC_IOAM_FLAG_OVERFLOW, info.flags);
	ASSERT_EQ(2, nhop);
}

/* Linux's defaults (no ioam6_id set: node_id 0xffffff, an ID under a
 * real hop_lim, RFC 9197 section 4.4.2; lo: if IDs 0xffff), a queue depth
 * it could not read and a fraction out of range: absent but the node_id.
 */
TEST(ioam_unavailable)
{
	struct hpcc_hop_obs h[1];
	uint8_t b[12 + 20], nhop;
	size_t n;

	n = ioam_head(b, 20, 5, 0, 0xf20000, 0);
	ioam_linux_node(b + 12, 63, 0xffffff, 0xffff, 0xffff, 5, 1000000,
			0xffffffff);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						   h, 1, &nhop, NULL));
	ASSERT_EQ(1, nhop);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID, h[0].present);
	ASSERT_EQ(0xffffff, h[0].rec.switch_id);
	/* the whole word all ones: not populated */
	ioam_linux_node(b + 12, 0xff, 0xffffff, 0xffff, 0xffff, 5, 1000000,
			0xffffffff);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						   h, 1, &nhop, NULL));
	ASSERT_EQ(0, h[0].present);
	/* seconds unavailable: no ts even with a valid fraction */
	ioam_linux_node(b + 12, 63, 4, 1, 2, 0xffffffff, 10, 0);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						   h, 1, &nhop, NULL));
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_QLEN,
		  h[0].present);
	ASSERT_EQ(0, h[0].rec.qlen);
}

/* Wide IDs (bits 8 and 9), transit delay (bit 4, its MSB an overflow),
 * PTP and NTP fractions.
 */
TEST(ioam_wide_delay_formats)
{
	struct hpcc_hop_obs h[1];
	uint8_t b[12 + 32], nhop, *d = b + 12;
	uint32_t type = 0x38c000;	/* bits 2, 3, 4, 8, 9 */
	size_t n;

	ASSERT_EQ(28, hpcc_ioam_node_bytes(type));
	n = ioam_head(b, 28, 7, 0, type, 0);
	put32(d, 7);				/* seconds */
	put32(d + 4, 500000000);		/* fraction */
	put32(d + 8, 1234);			/* transit delay, ns */
	put64(d + 12, 0x40000012345678ULL);	/* hop_lim 0x40, node id */
	put32(d + 20, 9);			/* ingress wide */
	put32(d + 24, 70000);			/* egress wide */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_PTP,
						   h, 1, &nhop, NULL));
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_TS |
		  HPCC_OBS_HOP_LATENCY, h[0].present);
	ASSERT_EQ(0x12345678, h[0].rec.switch_id);
	ASSERT_EQ(70000, h[0].rec.port_id);
	ASSERT_EQ(7500000000ULL, h[0].rec.ts);
	ASSERT_EQ(1234, h[0].hop_latency);
	/* NTP: 2^31 units of 2^-32 s are half a second */
	put32(d + 4, 0x80000000U);
	put32(d + 8, 0x80000001U);		/* delay overflowed */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_NTP,
						   h, 1, &nhop, NULL));
	ASSERT_EQ(7500000000ULL, h[0].rec.ts);
	ASSERT_EQ(0, h[0].present & HPCC_OBS_HOP_LATENCY);
	/* a PTP fraction of a whole second or more is no timestamp */
	put32(d + 4, 1000000000U);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_PTP,
						   h, 1, &nhop, NULL));
	ASSERT_EQ(0, h[0].present & HPCC_OBS_TS);
}

/* Bit 22: each node's opaque state snapshot (a length word, then that
 * many words) follows its NodeLen words and is skipped.
 */
TEST(ioam_opaque_state)
{
	struct hpcc_hop_obs h[2];
	uint8_t b[12 + 24], nhop, *d = b + 12;
	uint32_t type = 0x800002;	/* bit 0 and bit 22 */
	size_t n;

	n = ioam_head(b, 20, 1, 0, type, 0);
	put32(d, 2);			/* hop 2: node 2 */
	put32(d + 4, 1u << 24 | 77);	/* 1 word of schema 77 */
	put32(d + 8, 0xdeadbeef);
	put32(d + 12, 1);		/* hop 1: node 1 */
	put32(d + 16, 0);		/* no snapshot */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						   h, 2, &nhop, NULL));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(1, h[0].rec.switch_id);
	ASSERT_EQ(2, h[1].rec.switch_id);
	/* a snapshot longer than the list */
	put32(d + 4, 9u << 24 | 77);
	ASSERT_EQ(HPCC_DECODE_STACK, hpcc_decode_ioam(b, n, HPCC_IOAM_TS_POSIX,
						      h, 2, &nhop, NULL));
	ASSERT_EQ(0, nhop);
}

/*
 * RFC 9197 section 4.4.1's layout by hand, after RFC 9486 section 3's
 * option header: bit 23 (reserved; "ignored upon receipt") set, and a
 * node_id of 0xffffff beside a hop_lim (section 4.4.2: a field a node
 * cannot fill is all ones, and bit 0's field is hop_lim with node_id).
 */
TEST(ioam_rfc_reserved_bit_and_node_id)
{
	static const uint8_t opt[20] = {
		0x31, 18, 0, 0,		/* IOAM, length, reserved, prealloc */
		0x00, 0x07,		/* Namespace-ID 7 */
		1 << 3, 0,		/* NodeLen 1, flags 0, RemainingLen 0 */
		0x80, 0x00, 0x01, 0,	/* trace type: bits 0 and 23 */
		0x3e, 0xff, 0xff, 0xff,	/* hop 2: hop_lim 62, node_id 0xffffff */
		0x3f, 0x00, 0x00, 0x04,	/* hop 1: hop_lim 63, node_id 4 */
	};
	struct hpcc_hop_obs h[2];
	struct hpcc_ioam_info info;
	uint8_t nhop;

	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(opt, sizeof(opt),
						   HPCC_IOAM_TS_POSIX, h, 2,
						   &nhop, &info));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(0x800001, info.trace_type);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID, h[0].present);
	ASSERT_EQ(4, h[0].rec.switch_id);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID, h[1].present);
	ASSERT_EQ(0xffffff, h[1].rec.switch_id);
}

TEST(ioam_refused)
{
	struct hpcc_hop_obs h[2];
	uint8_t b[12 + 40], nhop;
	size_t n;

	n = ioam_head(b, 40, 5, 0, 0xf20000, 0);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, 0, h, 2, &nhop, NULL));
	ASSERT_EQ(2, nhop);
	/* shorter than the option says, or than a header */
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ioam(b, n - 1, 0, h, 2, &nhop,
						      NULL));
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ioam(b, 1, 0, h, 2, &nhop,
						      NULL));
	b[1] = 9;
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ioam(b, n, 0, h, 2, &nhop,
						      NULL));
	b[1] = (uint8_t)(n - 2);
	/* not IOAM; IOAM but not the pre-allocated trace (2: edge-to-edge) */
	b[0] = 0x1e;
	ASSERT_EQ(HPCC_DECODE_IOAM_TYPE, hpcc_decode_ioam(b, n, 0, h, 2, &nhop,
							  NULL));
	b[0] = HPCC_IOAM_OPT_TYPE;
	b[3] = 2;
	ASSERT_EQ(HPCC_DECODE_IOAM_TYPE, hpcc_decode_ioam(b, n, 0, h, 2, &nhop,
							  NULL));
	/* NodeLen 4 for a 5-word type */
	ioam_head(b, 40, 4, 0, 0xf20000, 0);
	ASSERT_EQ(HPCC_DECODE_NODE_LEN, hpcc_decode_ioam(b, n, 0, h, 2, &nhop,
							 NULL));
	/* RemainingLen beyond the list; a filled part of 1.5 nodes */
	ioam_head(b, 40, 5, 11, 0xf20000, 0);
	ASSERT_EQ(HPCC_DECODE_STACK, hpcc_decode_ioam(b, n, 0, h, 2, &nhop,
						      NULL));
	ioam_head(b, 40, 5, 3, 0xf20000, 0);
	ASSERT_EQ(HPCC_DECODE_STACK, hpcc_decode_ioam(b, n, 0, h, 2, &nhop,
						      NULL));
	/* two hops into an array of one */
	ioam_head(b, 40, 5, 0, 0xf20000, 0);
	ASSERT_EQ(HPCC_DECODE_TOO_MANY, hpcc_decode_ioam(b, n, 0, h, 1, &nhop,
							 NULL));
	ASSERT_EQ(0, nhop);
	/* all free: no hop yet */
	ioam_head(b, 40, 5, 10, 0xf20000, 0);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ioam(b, n, 0, h, 2, &nhop, NULL));
	ASSERT_EQ(0, nhop);
	ASSERT_STREQ("ioam-node-len", hpcc_decode_err_name(HPCC_DECODE_NODE_LEN));
}

/*
 * ifa_head() - IFA header (version 2, GNS 0xf, next header TCP, @flags), a
 * 20-byte TCP header, and the metadata header (@cur words of stack) into
 * @p; returns 28, where the stack starts
 */
static size_t ifa_head(uint8_t *p, uint8_t flags, uint8_t cur)
{
	memset(p, 0, 28);
	p[0] = HPCC_IFA_VERSION << 4 | HPCC_IFA_GNS_LOCAL;
	p[1] = 6;
	p[2] = flags;
	p[3] = 0xff;
	p[4 + 12] = 5 << 4;		/* TCP data offset: 5 words */
	p[24] = 0xff;			/* request vector */
	p[26] = 30;			/* hop limit */
	p[27] = cur;
	return 28;
}

/* One hop of IFA metadata from its fields into @p; returns 32. */
static size_t ifa_hop(uint8_t *p, uint32_t dev, uint8_t speed, uint32_t sec,
		      uint16_t egress, uint32_t ns, uint32_t residence)
{
	memset(p, 0, 32);
	put32(p, 1u << 28 | dev << 8 | 61);	/* LNS 1, TTL 61 */
	put32(p + 4, (uint32_t)speed << 28 | 46u << 20 | sec);
	put32(p + 8, (uint32_t)egress << 16 | 1);
	put32(p + 12, ns);
	put32(p + 16, residence);
	return 32;
}

/*
 * The first hop of google/gopacket's layers/ifa_test.go (testIFAMetadata1),
 * which it decodes as LNS 1, device 17151, TTL 61, speed 25G, queue 46,
 * Rx 2585 s + 922645570 ns, egress port 64, ingress port 1, residence
 * 1000000726 ns: the same bytes as ifa_hop() builds from those fields, and
 * the same decode here.
 */
TEST(ifa_reference_hop)
{
	static const uint8_t ref[32] = {
		0x10, 0x42, 0xff, 0x3d, 0x12, 0xe0, 0x0a, 0x19,
		0x00, 0x40, 0x00, 0x01, 0x36, 0xfe, 0x74, 0x42,
		0x3b, 0x9a, 0xcc, 0xd6,
	};
	struct hpcc_hop_obs h[2];
	struct hpcc_ifa_info info;
	uint8_t b[128], nhop;
	size_t n;

	n = ifa_head(b, HPCC_IFA_FLAG_I, 8);
	n += ifa_hop(b + n, 17151, 1, 2585, 64, 922645570, 1000000726);
	ASSERT_EQ(0, memcmp(b + 28, ref, sizeof(ref)));
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, &info));
	ASSERT_EQ(1, nhop);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_RATE |
		  HPCC_OBS_TS | HPCC_OBS_HOP_LATENCY, h[0].present);
	ASSERT_EQ(17151, h[0].rec.switch_id);
	ASSERT_EQ(64, h[0].rec.port_id);
	ASSERT_EQ(25000000000ULL, h[0].rec.rate);
	ASSERT_EQ(2585ULL * 1000000000ULL + 922645570ULL, h[0].rec.ts);
	ASSERT_EQ(1000000726U, h[0].hop_latency);
	ASSERT_EQ(0, h[0].rec.qlen);
	ASSERT_EQ(0, h[0].rec.tx_bytes);
	ASSERT_EQ(6, info.next_hdr);
	ASSERT_EQ(HPCC_IFA_FLAG_I, info.flags);
	ASSERT_EQ(30, info.hop_limit);
	ASSERT_EQ(8, info.cur_length);
	ASSERT_EQ(24, info.md_off);
	ASSERT_EQ(n, info.len);
}

/* Two hops, the last first on the stack; the speed codes; UDP. */
TEST(ifa_stack)
{
	static const uint64_t gbit[] = { 10, 25, 40, 50, 100, 200, 400 };
	struct hpcc_hop_obs h[2];
	uint8_t b[128], nhop;
	unsigned int c;
	size_t n;

	n = ifa_head(b, 0, 16);
	n += ifa_hop(b + n, 0xbbbbb, 4, 7, 2, 5, 800);	/* hop 2 */
	n += ifa_hop(b + n, 0xaaaaa, 6, 7, 1, 999999999, 400);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(0xaaaaa, h[0].rec.switch_id);
	ASSERT_EQ(400000000000ULL, h[0].rec.rate);
	ASSERT_EQ(7999999999ULL, h[0].rec.ts);
	ASSERT_EQ(0xbbbbb, h[1].rec.switch_id);
	ASSERT_EQ(2, h[1].rec.port_id);
	ASSERT_EQ(100000000000ULL, h[1].rec.rate);
	ASSERT_EQ(800, h[1].hop_latency);
	for (c = 0; c < 16; c++)
		ASSERT_EQ(c < 7 ? gbit[c] * 1000000000ULL : 0,
			  hpcc_ifa_rate(c));
	/* an unassigned speed code and nanoseconds out of range: absent */
	b[28 + 4] = 0x70;
	b[28 + 12] = 0xff;
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	ASSERT_EQ(0, h[1].present & (HPCC_OBS_RATE | HPCC_OBS_TS));
	ASSERT_EQ(0, h[1].rec.rate);
	ASSERT_EQ(0, h[1].rec.ts);
	/* UDP: the metadata header 8 bytes after the IFA header */
	b[1] = 17;
	memmove(b + 12, b + 24, n - 24);
	n -= 12;
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(0xaaaaa, h[0].rec.switch_id);
}

/*
 * The local namespace (each hop's LNS, 4 bits, then DeviceID, 20 bits;
 * the rest is the namespace's, draft-kumar-ippm-ifa's per-hop metadata):
 * a hop of LNS 2 beside one of LNS 1, by hand.  The LNS 2 hop gives its
 * device ID and nothing else, not LNS 1's fields read from its bytes.
 */
TEST(ifa_other_namespace)
{
	static const uint8_t lns2[32] = {
		0x20, 0x00, 0x77, 0x3d,	/* LNS 2, device 0x77, then LNS 2's */
		0x40, 0x00, 0x00, 0x05,	/* words: under LNS 1 they would be */
		0x00, 0x03, 0x00, 0x01,	/* 100G, 5 s, port 3, 1000 ns and */
		0x00, 0x00, 0x03, 0xe8,	/* residence 2000 ns */
		0x00, 0x00, 0x07, 0xd0,
	};
	const struct hpcc_obs_units u = { .qlen_unit = 1 };
	struct hpcc_hop_obs h[2];
	struct hpcc_ifa_info info;
	struct hpcc_hop_rec r;
	uint8_t b[128], nhop;
	size_t n;

	n = ifa_head(b, 0, 16);
	memcpy(b + n, lns2, sizeof(lns2));		/* hop 2 */
	n += sizeof(lns2);
	n += ifa_hop(b + n, 0x55, 4, 5, 3, 1000, 2000);	/* hop 1, LNS 1 */
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, &info));
	ASSERT_EQ(2, nhop);
	ASSERT_EQ(1, info.other_lns);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_RATE |
		  HPCC_OBS_TS | HPCC_OBS_HOP_LATENCY, h[0].present);
	ASSERT_EQ(0x55, h[0].rec.switch_id);
	ASSERT_EQ(HPCC_OBS_SWITCH_ID, h[1].present);
	ASSERT_EQ(0x77, h[1].rec.switch_id);
	ASSERT_EQ(0, h[1].rec.ts);
	ASSERT_EQ(0, h[1].rec.rate);
	ASSERT_EQ(0, h[1].hop_latency);
	/* the receiver's record of it: no ts, skipped */
	ASSERT_FALSE(hpcc_obs_to_rec(&h[1], &u, 100000000000ULL, &r));
	ASSERT_EQ(0, r.ts);
	/* LNS 1 there: read as Broadcom's */
	b[28] = 0x10;
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, &info));
	ASSERT_EQ(0, info.other_lns);
	ASSERT_EQ(5000001000ULL, h[1].rec.ts);
	ASSERT_EQ(100000000000ULL, h[1].rec.rate);
}

TEST(ifa_refused)
{
	struct hpcc_hop_obs h[2];
	uint8_t b[128], nhop;
	size_t n;

	n = ifa_head(b, 0, 16);
	n += ifa_hop(b + n, 1, 4, 7, 2, 5, 800);
	n += ifa_hop(b + n, 2, 4, 7, 2, 5, 800);
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	/* short: no header, a TCP header cut, a stack cut */
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ifa(b, 3, h, 2, &nhop, NULL));
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ifa(b, 16, h, 2, &nhop, NULL));
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ifa(b, n - 1, h, 2, &nhop,
						     NULL));
	ASSERT_EQ(0, nhop);
	/* version 1; a global namespace; tail stamp, checksum, fragments */
	b[0] = 0x1f;
	ASSERT_EQ(HPCC_DECODE_IFA, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[0] = 0x20;
	ASSERT_EQ(HPCC_DECODE_IFA, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[0] = 0x2f;
	b[2] = HPCC_IFA_FLAG_TS;
	ASSERT_EQ(HPCC_DECODE_IFA, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[2] = HPCC_IFA_FLAG_C;
	ASSERT_EQ(HPCC_DECODE_IFA, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[2] = HPCC_IFA_FLAG_MF;
	ASSERT_EQ(HPCC_DECODE_IFA, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[2] = HPCC_IFA_FLAG_TA | HPCC_IFA_FLAG_I;
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	/* an L4 that is neither TCP nor UDP; a TCP data offset below 5 */
	b[1] = 132;
	ASSERT_EQ(HPCC_DECODE_IFA, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[1] = 6;
	b[16] = 4 << 4;
	ASSERT_EQ(HPCC_DECODE_SHORT, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[16] = 5 << 4;
	/* Current Length not whole hops; more hops than the array */
	b[27] = 12;
	ASSERT_EQ(HPCC_DECODE_STACK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	b[27] = 16;
	ASSERT_EQ(HPCC_DECODE_TOO_MANY, hpcc_decode_ifa(b, n, h, 1, &nhop,
							NULL));
	ASSERT_EQ(0, nhop);
	/* an empty stack: no hop yet */
	b[27] = 0;
	ASSERT_EQ(HPCC_DECODE_OK, hpcc_decode_ifa(b, n, h, 2, &nhop, NULL));
	ASSERT_EQ(0, nhop);
	ASSERT_STREQ("ifa-header", hpcc_decode_err_name(HPCC_DECODE_IFA));
}

/*
 * hpcc_obs_to_rec(): a receiver's record of what a hop reported, by the
 * partial-telemetry rules (algorithm.rst): queue occupancy in the path's
 * unit, Tx utilization over its full-scale value, a queue from the hop
 * latency and B, B from the caller when the hop gave none, and ts 0 for a
 * hop the core cannot use.
 */
TEST(obs_to_rec)
{
	struct hpcc_obs_units u = { .qlen_unit = 80, .tx_util_full = 10000 };
	struct hpcc_hop_obs o;
	struct hpcc_hop_rec r;

	/* INT: occupancy in 80-byte cells, Tx utilization in 1/10000 */
	memset(&o, 0, sizeof(o));
	o.present = HPCC_OBS_SWITCH_ID | HPCC_OBS_TS | HPCC_OBS_QLEN |
		    HPCC_OBS_TX_UTIL;
	o.rec.switch_id = 3;
	o.rec.ts = 1000;
	o.rec.qlen = 10;
	o.rec.tx_bytes = 99;
	o.tx_util = 5000;
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 25000000000ULL, &r));
	EXPECT_EQ(3, r.switch_id);
	EXPECT_EQ(1000, r.ts);
	EXPECT_EQ(800, r.qlen);
	EXPECT_EQ(0, r.tx_bytes);
	EXPECT_EQ(25000000000ULL, r.rate);
	EXPECT_EQ(HPCC_HOP_FLAGS_NO_TX_BYTES | HPCC_HOP_FLAGS_TX_UTIL, r.flags);
	EXPECT_EQ(32768, r.tx_util);		/* 50 % in Q16 */
	/* saturation: the queue at 2^32 - 1, the utilization at 200 % */
	o.rec.qlen = 0xffffff;
	u.qlen_unit = 65536;
	o.tx_util = 90000;
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 0, &r));
	EXPECT_EQ(UINT32_MAX, r.qlen);
	EXPECT_EQ(131072, r.tx_util);
	EXPECT_EQ(0, r.rate);			/* the sender fills it */
	/* no full-scale value: the utilization is ignored */
	u.tx_util_full = 0;
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 0, &r));
	EXPECT_EQ(HPCC_HOP_FLAGS_NO_TX_BYTES, r.flags);
	EXPECT_EQ(0, r.tx_util);
	/* neither queue nor utilization, or no timestamp: ts 0 */
	o.present &= ~HPCC_OBS_QLEN;
	EXPECT_FALSE(hpcc_obs_to_rec(&o, &u, 0, &r));
	EXPECT_EQ(0, r.ts);
	o.present = HPCC_OBS_QLEN;
	EXPECT_FALSE(hpcc_obs_to_rec(&o, &u, 0, &r));
	EXPECT_EQ(0, r.ts);

	/* IFA: 100G from the speed code, 1200 ns residence less 400 ns of
	 * pipeline: 800 ns at 100 Gbit/s is 10000 bytes
	 */
	memset(&o, 0, sizeof(o));
	o.present = HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_RATE |
		    HPCC_OBS_TS | HPCC_OBS_HOP_LATENCY;
	o.rec.rate = 100000000000ULL;
	o.rec.ts = 7;
	o.hop_latency = 1200;
	u = (struct hpcc_obs_units){ .qlen_unit = 1, .base_ns = 400 };
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 5, &r));
	EXPECT_EQ(100000000000ULL, r.rate);	/* the hop's, not the caller's */
	EXPECT_EQ(10000, r.qlen);
	EXPECT_EQ(7, r.ts);
	/* a residence below the base: an empty queue, not a refusal */
	o.hop_latency = 300;
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 0, &r));
	EXPECT_EQ(0, r.qlen);
	/* no speed code: B from the caller (1200 ns at 100 Mbit/s: 15 bytes),
	 * or none, and then no queue either
	 */
	o.present &= ~HPCC_OBS_RATE;
	o.rec.rate = 0;
	o.hop_latency = 1600;
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 100000000, &r));
	EXPECT_EQ(100000000, r.rate);
	EXPECT_EQ(15, r.qlen);
	EXPECT_FALSE(hpcc_obs_to_rec(&o, &u, 0, &r));
	EXPECT_EQ(0, r.ts);
	/* a latency of 2^32 - 1 ns at 1.6 Tbit/s saturates the queue */
	o.hop_latency = UINT32_MAX;
	u.base_ns = 0;
	ASSERT_TRUE(hpcc_obs_to_rec(&o, &u, 1600000000000ULL, &r));
	EXPECT_EQ(UINT32_MAX, r.qlen);
}

TEST_HARNESS_MAIN
