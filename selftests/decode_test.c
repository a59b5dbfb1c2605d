// SPDX-License-Identifier: GPL-2.0
/*
 * decode_test - the decoder layer (daemon/hpcc_decode.c) on hand-built
 * INT-MD v2.1 stacks (P4.org INT Dataplane Specification v2.1, sections
 * 5.7.2 and 5.8) and the project's own record.  Host test, built with ASan
 * and UBSan.
 */
#include <string.h>

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
	ASSERT_STREQ("int-stack", hpcc_decode_err_name(HPCC_DECODE_STACK));
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

TEST_HARNESS_MAIN
