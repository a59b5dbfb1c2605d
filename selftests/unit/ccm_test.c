// SPDX-License-Identifier: GPL-2.0
/*
 * ccm_test - the Coordinated Congestion Management notification codec and
 * the host's coordination rule (kernel/lib/hpcc_ccm.c).  Host test, built with
 * ASan and UBSan.
 */
#include <string.h>

#include <stdlib.h>

#include "kselftest_harness.h"
#include "lib/hpcc_ccm.h"

static const struct hpcc_ccm_msg msg4 = {
	.family = 4, .ntype = HPCC_CCM_AR_REQUIRED, .switch_id = 7,
	.port_id = 3, .ts = 0x0102030405060708ULL, .seq = 0xfffffff0,
	.flowlabel = 0, .sport = 40000, .dport = 5201,
	.saddr = { [10] = 0xff, [11] = 0xff, 10, 0, 1, 2 },
	.daddr = { [10] = 0xff, [11] = 0xff, 10, 0, 2, 2 },
};

static struct hpcc_ccm_msg msg6(void)
{
	struct hpcc_ccm_msg m = msg4;

	m.family = 6;
	m.flowlabel = 0xabcde;
	memcpy(m.saddr, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(m.daddr, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	return m;
}

/* Field by field, against the layout struct hpcc_wire_ccm documents. */
TEST(encode_layout)
{
	struct hpcc_ccm_msg m6 = msg6();
	uint8_t b[HPCC_WIRE_CCM_LEN];

	ASSERT_EQ(HPCC_WIRE_CCM_LEN, sizeof(struct hpcc_wire_ccm));
	ASSERT_EQ(HPCC_WIRE_EXT_AR_LEN, sizeof(struct hpcc_wire_ext_ar));
	memset(b, 0xaa, sizeof(b));
	hpcc_ccm_encode(b, &m6);
	/* magic "HPCC", version 1, type 4, family 6, notification type 3 */
	EXPECT_EQ(0, memcmp(b, "HPCC\x01\x04\x06\x03", 8));
	EXPECT_EQ(0, memcmp(b + 8, "\x00\x00\x00\x07\x00\x00\x00\x03", 8));
	EXPECT_EQ(0, memcmp(b + 16, "\x01\x02\x03\x04\x05\x06\x07\x08", 8));
	/* seq, flow label */
	EXPECT_EQ(0, memcmp(b + 24, "\xff\xff\xff\xf0\x00\x0a\xbc\xde", 8));
	/* ports, protocol TCP, flags 0, reserved 0 */
	EXPECT_EQ(0, memcmp(b + 32, "\x9c\x40\x14\x51\x06\x00\x00\x00", 8));
	EXPECT_EQ(0, memcmp(b + 40, m6.saddr, 16));
	EXPECT_EQ(0, memcmp(b + 56, m6.daddr, 16));
}

static int same(const struct hpcc_ccm_msg *a, const struct hpcc_ccm_msg *b)
{
	return a->family == b->family && a->ntype == b->ntype &&
	       a->switch_id == b->switch_id && a->port_id == b->port_id &&
	       a->ts == b->ts && a->seq == b->seq &&
	       a->flowlabel == b->flowlabel && a->sport == b->sport &&
	       a->dport == b->dport && !memcmp(a->saddr, b->saddr, 16) &&
	       !memcmp(a->daddr, b->daddr, 16);
}

TEST(roundtrip)
{
	struct hpcc_ccm_msg m6 = msg6(), m;
	uint8_t b[HPCC_WIRE_CCM_LEN + 4];
	int t;

	for (t = HPCC_CCM_CC_REQUIRED; t <= HPCC_CCM_AR_REQUIRED; t++) {
		struct hpcc_ccm_msg in = msg4;

		in.ntype = t;
		memset(b, 0xaa, sizeof(b));
		hpcc_ccm_encode(b, &in);
		ASSERT_EQ(HPCC_CCM_OK, hpcc_ccm_decode(b, sizeof(b), &m));
		EXPECT_TRUE(same(&m, &in));
	}
	hpcc_ccm_encode(b, &m6);
	ASSERT_EQ(HPCC_CCM_OK, hpcc_ccm_decode(b, HPCC_WIRE_CCM_LEN, &m));
	EXPECT_TRUE(same(&m, &m6));
}

/* Each field a receiver refuses: the decoder says which. */
TEST(refusals)
{
	struct hpcc_ccm_msg m6 = msg6(), m;
	uint8_t b[HPCC_WIRE_CCM_LEN], c[HPCC_WIRE_CCM_LEN];
	uint8_t b6[HPCC_WIRE_CCM_LEN];

	hpcc_ccm_encode(b, &msg4);
	hpcc_ccm_encode(b6, &m6);
	EXPECT_EQ(HPCC_CCM_E_SHORT, hpcc_ccm_decode(b, HPCC_WIRE_CCM_LEN - 1, &m));
	EXPECT_EQ(HPCC_CCM_E_SHORT, hpcc_ccm_decode(b, 0, &m));
#define BAD(src, off, val, err) do {					\
		memcpy(c, src, sizeof(c));				\
		c[off] = (val);						\
		EXPECT_EQ(err, hpcc_ccm_decode(c, sizeof(c), &m));	\
	} while (0)
	BAD(b, 0, 'X', HPCC_CCM_E_HEADER);
	BAD(b, 4, 2, HPCC_CCM_E_HEADER);		/* version */
	BAD(b, 5, HPCC_WIRE_FCR, HPCC_CCM_E_HEADER);	/* an FCR's type */
	BAD(b, 7, 0, HPCC_CCM_E_NTYPE);
	BAD(b, 7, 4, HPCC_CCM_E_NTYPE);
	BAD(b, 6, 5, HPCC_CCM_E_FAMILY);
	BAD(b, 6, 6, HPCC_CCM_E_FAMILY);	/* 6 with IPv4-mapped addresses */
	BAD(b6, 6, 4, HPCC_CCM_E_FAMILY);	/* 4 with IPv6 addresses */
	BAD(b, 40 + 11, 0, HPCC_CCM_E_FAMILY);	/* 4, saddr not mapped */
	BAD(b, 56, 0x20, HPCC_CCM_E_FAMILY);	/* 4, daddr not mapped */
	BAD(b, 36, 17, HPCC_CCM_E_PROTO);	/* UDP */
	BAD(b, 31, 1, HPCC_CCM_E_LABEL);	/* a label on an IPv4 flow */
	BAD(b6, 29, 0x10, HPCC_CCM_E_LABEL);	/* 0x10bcde: 21 bits */
	BAD(b6, 28, 0x80, HPCC_CCM_E_LABEL);
	BAD(b6, 29, 0x0f, HPCC_CCM_OK);		/* 0xfbcde: 20 bits */
	BAD(b, 37, 0xff, HPCC_CCM_OK);		/* flags are ignored */
	BAD(b, 38, 0xff, HPCC_CCM_OK);		/* and so is reserved */
#undef BAD
}

static const struct hpcc_ccm_cfg cfg = {
	.samples = 2, .tries = 2, .gap_rtts = 3, .pause_ns = 1000000000,
};

#define RTT 100000ULL	/* 100 us */

static int decide(struct hpcc_ccm_flow *f, uint64_t now, bool congested,
		  bool last_hop, bool recovery)
{
	struct hpcc_ccm_sample s = {
		.now = now, .rtt_ns = RTT, .congested = congested,
		.last_hop = last_hop, .recovery = recovery,
	};

	return hpcc_ccm_decide(f, &cfg, &s);
}

/* One try comes back per 32 gaps (3 RTTs each) without a change. */
#define REFILL (32 * 3 * RTT)

/* Fabric congestion: HPCC's law while it has not yet lasted the gap (3
 * RTTs) over @samples samples, then a change, W held for the gap after
 * it, a change again, then the rate law; good samples give no try back,
 * time does: one per REFILL after the last change.
 */
TEST(fabric_congestion_reroutes_then_rate)
{
	struct hpcc_ccm_flow f = {};
	uint64_t t = 1000, last;

	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t, true, false, false));
	/* two samples, but 1 and 2 RTTs of congestion: HPCC's decrease
	 * may still remove it
	 */
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t + RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t + 3 * RTT - 1, true, false, false));
	EXPECT_EQ(HPCC_CCM_REROUTE, decide(&f, t += 3 * RTT, true, false, false));
	EXPECT_EQ(1, f.changes);
	/* within 3 RTTs of the change: wait for the new path's telemetry */
	EXPECT_EQ(HPCC_CCM_WAIT, decide(&f, t + RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t + 3 * RTT, true, false, false));
	/* the new streak began at t + RTT: 3 RTTs later */
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t + 4 * RTT - 1, true, false, false));
	EXPECT_EQ(HPCC_CCM_REROUTE, decide(&f, t += 4 * RTT, true, false, false));
	EXPECT_EQ(2, f.changes);
	last = t;
	/* two changes did not help: HPCC's law, and no third change */
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += 10 * RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += 10 * RTT, true, false, false));
	EXPECT_EQ(2, f.changes);
	/* calm samples give no try back (the tries are a budget: a calm
	 * sample a gap after the last congested one does not give both back)
	 */
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += 20 * RTT, false, false, false));
	EXPECT_EQ(HPCC_CCM_RATE,
		  decide(&f, last + REFILL - 1, false, false, false));
	EXPECT_EQ(2, f.tried);
	/* one try back a refill period after the last change */
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, last + REFILL, false, false, false));
	EXPECT_EQ(1, f.tried);
	t = last + REFILL;
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_REROUTE, decide(&f, t += 2 * RTT, true, false, false));
	EXPECT_EQ(3, f.changes);
	EXPECT_EQ(2, f.tried);
	/* and the next one a refill period after that change */
	EXPECT_EQ(HPCC_CCM_RATE,
		  decide(&f, t + REFILL - 1, false, false, false));
	EXPECT_EQ(2, f.tried);
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t + REFILL, false, false, false));
	EXPECT_EQ(1, f.tried);
	EXPECT_EQ(HPCC_CCM_RATE,
		  decide(&f, t + 2 * REFILL - 1, false, false, false));
	EXPECT_EQ(1, f.tried);
	EXPECT_EQ(HPCC_CCM_RATE,
		  decide(&f, t + 2 * REFILL, false, false, false));
	EXPECT_EQ(0, f.tried);
}

/*
 * Congestion that HPCC's own decrease removes within the gap is not the
 * path's fault: streaks of congested samples shorter than 3 RTTs, however
 * many and however close, never change the path.  On the leaf-spine U
 * reads 1.03 to 1.2 now and then at uplinks HPCC keeps near 70 % of B,
 * and a rule that moved on such streaks changed the flows' paths as often
 * as their tries allowed (bench-ccm).
 */
TEST(short_congestion_stays)
{
	struct hpcc_ccm_flow f = {};
	uint64_t t = 1000;
	int i;

	for (i = 0; i < 10000; i++)
		EXPECT_NE(HPCC_CCM_REROUTE,
			  decide(&f, t += RTT, i % 4 != 3, false, false));
	EXPECT_EQ(0, f.changes);
}

/*
 * The hop's ccm-ar-gap (hpcc_ccm_ar_allow()): one type 3 per port per gap.
 * Decisions every 10 ms over 3 s with a gap of 32767 us: every fourth
 * allowed (40 ms apart), the rest held back; at most 3 s / gap + 1; the
 * first always; the gap's last ns refused, its end allowed; gap 0 never
 * holds one back.  (This is tested here, not by ccm.sh's end-to-end
 * count, which depends on the flow's segments reaching the congested
 * port: under 7 Mbit/s of UDP in a guest they came 1.5 a second, and
 * nothing was held back in 103 s.)
 */
TEST(ar_gap_one_per_port_per_gap)
{
	const uint64_t gap = 32767000, ms = 1000000;
	uint64_t last = 0, t, prev = 0;
	int sent = 0, held = 0;

	for (t = 1000; t < 1000 + 3000 * ms; t += 10 * ms) {
		if (hpcc_ccm_ar_allow(&last, gap, t)) {
			if (sent++)
				EXPECT_GE(t - prev, gap);
			prev = t;
			EXPECT_EQ(t, last);
		} else {
			held++;
		}
	}
	EXPECT_EQ(75, sent);
	EXPECT_EQ(225, held);
	EXPECT_LE(sent, 3000 * ms / gap + 1);
	last = 0;
	EXPECT_TRUE(hpcc_ccm_ar_allow(&last, gap, 5));
	EXPECT_FALSE(hpcc_ccm_ar_allow(&last, gap, 5 + gap - 1));
	EXPECT_EQ(5, last);
	EXPECT_TRUE(hpcc_ccm_ar_allow(&last, gap, 5 + gap));
	for (t = 1; t < 1000; t++)
		EXPECT_TRUE(hpcc_ccm_ar_allow(&last, 0, 5 + gap + t));
}

/*
 * A reading above 1 that HPCC's decrease answers is not the path's: in a
 * loop where the law, when the rule lets it run, brings U from 1.1 back
 * to eta at the next sample, a spike every 20 RTTs moves nothing.  A rule
 * that held W while the streak grew would keep U at 1.1, and the flow
 * would change its path once per refill period (38 changes here;
 * bench-ccm: 14 to 15 per flow in 25 s).
 */
TEST(noise_the_law_answers_stays)
{
	struct hpcc_ccm_cfg c = { .samples = 2, .tries = 3, .gap_rtts = 4 };
	struct hpcc_ccm_sample s = { .now = 1000, .rtt_ns = RTT };
	struct hpcc_ccm_flow f = {};
	bool high = false;
	int i;

	for (i = 0; i < 10000; i++, s.now += RTT / 2) {
		/* two samples per RTT; a spike starts every 40th */
		if (i % 40 == 0)
			high = true;
		s.congested = high;
		/* the law (RATE) answers at once; WAIT holds W */
		if (hpcc_ccm_decide(&f, &c, &s) == HPCC_CCM_RATE)
			high = false;
	}
	EXPECT_EQ(0, f.changes);
}

/* @f's rule on a congested sample at @now whose last hop runs at eta
 * (@last_busy), another hop binding.
 */
static int decide_busy(struct hpcc_ccm_flow *f, uint64_t now, bool last_busy)
{
	struct hpcc_ccm_sample s = {
		.now = now, .rtt_ns = RTT, .congested = true,
		.last_busy = last_busy,
	};

	return hpcc_ccm_decide(f, &cfg, &s);
}

/* Incast (the last hop binds or runs at eta, or the CC indicator is set),
 * recovery and tries 0: the rate law, never a change.
 */
TEST(incast_and_recovery_never_reroute)
{
	struct hpcc_ccm_cfg none = cfg;
	struct hpcc_ccm_sample s = { .now = 1, .rtt_ns = RTT, .congested = true };
	struct hpcc_ccm_flow f = {};
	uint64_t t = 1000;
	int i;

	for (i = 0; i < 10; i++) {
		EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, true, false));
		EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, false, true));
		EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t += RTT, true));
	}
	f.cc = 1;
	for (i = 0; i < 10; i++)
		EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, false, false));
	EXPECT_EQ(0, f.changes);
	none.tries = 0;
	f.cc = 0;
	for (i = 0; i < 10; i++) {
		s.now += RTT;
		EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &none, &s));
	}
	EXPECT_EQ(0, f.changes);
}

/*
 * The incast verdict of the telemetry holds for 4 gaps (12 RTTs): the
 * samples of an incast flow whose fabric hop binds and whose last hop
 * reads below eta now and then (one in four here) do not move it.  A
 * rule that took a flow as incast only while the last hop binds made 75
 * changes of incast flows in bench-ccm's incast scenario.
 */
TEST(incast_by_the_last_hop_holds)
{
	struct hpcc_ccm_flow f = {};
	uint64_t t = 1000;
	int i;

	for (i = 0; i < 1000; i++)
		EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t += RTT, i % 4 != 3));
	EXPECT_EQ(0, f.changes);
	/* 12 RTTs after the last busy sample, the fabric's congestion is
	 * the flow's to flee again
	 */
	EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t += RTT, true));
	EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t + 12 * RTT - 1, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t + 12 * RTT, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t + 13 * RTT, false));
	EXPECT_EQ(HPCC_CCM_REROUTE, decide_busy(&f, t + 15 * RTT, false));
}

/* After an RTO no change for pause_ns, like PLB. */
TEST(rto_pauses)
{
	struct hpcc_ccm_flow f = {};
	uint64_t t = 1000;

	hpcc_ccm_rto(&f, &cfg, t);
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t += RTT, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE,
		  decide(&f, 1000 + cfg.pause_ns - 1, true, false, false));
	EXPECT_EQ(0, f.changes);
	t = 1000 + cfg.pause_ns;
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t, true, false, false));
	EXPECT_EQ(HPCC_CCM_RATE, decide(&f, t + 1, true, false, false));
	EXPECT_EQ(HPCC_CCM_REROUTE, decide(&f, t + 3 * RTT, true, false, false));
}

/*
 * Flows that share a hop do not all leave it at the same sample: with
 * the random bit set, a change waits one more congested sample, up to
 * twice ccm-samples.
 */
TEST(jitter)
{
	struct hpcc_ccm_sample s = { .now = 1000, .rtt_ns = RTT,
				     .congested = true, .rnd = 1 };
	struct hpcc_ccm_flow f = {};
	int i;

	/* samples 2, one per 3 RTTs (the gap): the 2nd and 3rd run the
	 * law, the 4th changes
	 */
	for (i = 0; i < 3; i++, s.now += 3 * RTT)
		EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &cfg, &s));
	EXPECT_EQ(HPCC_CCM_REROUTE, hpcc_ccm_decide(&f, &cfg, &s));
	/* bit clear at the 3rd: it changes there */
	memset(&f, 0, sizeof(f));
	s.now += 1000 * RTT;
	for (i = 0; i < 2; i++, s.now += 3 * RTT)
		EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &cfg, &s));
	s.rnd = 2;
	EXPECT_EQ(HPCC_CCM_REROUTE, hpcc_ccm_decide(&f, &cfg, &s));
}

/* Two paths loaded in turn (the flap test's pattern): changes at most
 * @tries in a burst and one per refill period after that.
 */
TEST(flap_bounded)
{
	/* an eager rule: a change at the first sample that may */
	struct hpcc_ccm_cfg eager = { .samples = 1, .tries = 3, .gap_rtts = 3 };
	struct hpcc_ccm_sample s = { .now = 1, .rtt_ns = RTT };
	struct hpcc_ccm_flow f = {};
	int i;

	for (i = 0; i < 10000; i++, s.now += RTT) {
		/* one sample per RTT; congested but for one in ten */
		s.congested = i % 10 != 9;
		hpcc_ccm_decide(&f, &eager, &s);
	}
	/* 3 at once, then about one per 96 RTTs (a try comes back, is
	 * used at the next streak that lasts 3 RTTs)
	 */
	EXPECT_LE(f.changes, 3 + 10000 / 96);
	EXPECT_GE(f.changes, 10000 / 106 - 3);
	/* a flow that lands on a calm path each time and is congested
	 * again 28 RTTs later (longer than any gap it waits): the budget
	 * holds (tries per episode, each landing starting a new one, would
	 * make one change per 32 RTTs: 312)
	 */
	memset(&f, 0, sizeof(f));
	for (i = 0; i < 10000; i++, s.now += RTT) {
		s.congested = i % 32 < 4;
		hpcc_ccm_decide(&f, &eager, &s);
	}
	EXPECT_LE(f.changes, 3 + 10000 / 96);
	EXPECT_GE(f.changes, 10000 / 128);
	/* bursts of 10 RTTs 200 RTTs apart: 2 changes in each (at its
	 * 4th and 8th samples; a third would wait the doubled gap, past the
	 * burst), the 2 tries back before the next
	 */
	memset(&f, 0, sizeof(f));
	for (i = 0; i < 50 * 210; i++, s.now += RTT) {
		s.congested = i % 210 < 10;
		hpcc_ccm_decide(&f, &eager, &s);
	}
	EXPECT_EQ(2 * 50, f.changes);
}

/*
 * The backoff holds W only for the new path's telemetry: in the first
 * gap_rtts RTTs after a change a congested sample waits (no decrease);
 * later, while the doubled gap forbids another change, HPCC's law runs.
 */
TEST(backoff_waits_only_the_base_gap)
{
	struct hpcc_ccm_cfg c = { .samples = 1, .tries = 10, .gap_rtts = 3 };
	struct hpcc_ccm_flow f = {};
	struct hpcc_ccm_sample s = { .now = 1000 - 3 * RTT, .rtt_ns = RTT,
				     .congested = true };
	uint64_t t0;

	/* congestion since 1000 - 3 RTTs: it has lasted the gap */
	EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &c, &s));
	s.now += 3 * RTT;
	EXPECT_EQ(HPCC_CCM_REROUTE, hpcc_ccm_decide(&f, &c, &s));
	/* a new streak from the next sample, 3 RTTs long 3 RTTs later */
	s.now += 3 * RTT;
	EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &c, &s));
	s.now += 3 * RTT;
	EXPECT_EQ(HPCC_CCM_REROUTE, hpcc_ccm_decide(&f, &c, &s));
	/* second change: the next no sooner than 6 RTTs */
	t0 = s.now;
	s.now = t0 + 2 * RTT;
	EXPECT_EQ(HPCC_CCM_WAIT, hpcc_ccm_decide(&f, &c, &s));
	s.now = t0 + 5 * RTT;
	EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &c, &s));
	s.now = t0 + 6 * RTT - 1;
	EXPECT_EQ(HPCC_CCM_RATE, hpcc_ccm_decide(&f, &c, &s));
	s.now = t0 + 6 * RTT;
	EXPECT_EQ(HPCC_CCM_REROUTE, hpcc_ccm_decide(&f, &c, &s));
	EXPECT_EQ(3, f.changes);
}

/*
 * A good sample right after a change (the per-hop state starting over)
 * gives no try back: on paths that are all congested a flow makes its
 * tries and then keeps HPCC's law, with one change per refill period.
 * Without the episode's hysteresis each such sample would reset the
 * tries, and a flow would change paths once per gap for as long as it
 * ran.
 */
TEST(good_sample_after_change_keeps_tries)
{
	struct hpcc_ccm_cfg c = { .samples = 1, .tries = 2, .gap_rtts = 3 };
	struct hpcc_ccm_sample s = { .now = 1, .rtt_ns = RTT };
	struct hpcc_ccm_flow f = {};
	bool moved = false;
	int i;

	for (i = 0; i < 1000; i++, s.now += RTT) {
		/* the sample after each change reads uncongested */
		s.congested = !moved;
		moved = hpcc_ccm_decide(&f, &c, &s) == HPCC_CCM_REROUTE;
	}
	/* 2 at once, then one per refill period (96 RTTs) and the 3 RTTs
	 * of congestion that must follow it
	 */
	EXPECT_EQ(2 + 10, f.changes);
}

/*
 * A collision that outlasts the tries: HPCC's law, and one change per
 * refill period (96 RTTs), never sooner.  Without the retry rule the flow
 * would keep its collision until it had been calm for a gap, which it
 * never is (ccm.sh on 6.12: three flows stayed on one spine).
 */
TEST(exhausted_tries_come_back_one_per_refill)
{
	struct hpcc_ccm_cfg c = { .samples = 1, .tries = 2, .gap_rtts = 3 };
	struct hpcc_ccm_sample s = { .now = 1000, .rtt_ns = RTT,
				     .congested = true };
	struct hpcc_ccm_flow f = {};
	uint64_t last = 0;
	int i, n = 0;

	for (i = 0; i < 10000; i++, s.now += RTT) {
		if (hpcc_ccm_decide(&f, &c, &s) != HPCC_CCM_REROUTE)
			continue;
		/* after the two tries (at 3 and 7 RTTs), 99 RTTs apart:
		 * the try comes back 96 RTTs after the last change, and
		 * the streak it answers has to last 3 RTTs
		 */
		if (++n > 2)
			EXPECT_EQ(99 * RTT, s.now - last);
		last = s.now;
	}
	/* 2 tries, then at 106, 205, ... 9907 RTTs */
	EXPECT_EQ(2 + 100, f.changes);
	/* the first sample after a refill's change waits for its telemetry */
	s.now = last + RTT;
	EXPECT_EQ(HPCC_CCM_WAIT, hpcc_ccm_decide(&f, &c, &s));
	/* tries 0 never changes, however long the congestion */
	c.tries = 0;
	memset(&f, 0, sizeof(f));
	for (i = 0; i < 10000; i++, s.now += RTT)
		hpcc_ccm_decide(&f, &c, &s);
	EXPECT_EQ(0, f.changes);
}

/* Notifications: type 1 sets the CC indicator, type 2 clears it, type 3
 * changes the path when the rule allows it and the label is the flow's.
 */
TEST(notifications)
{
	struct hpcc_ccm_msg m = msg6();
	struct hpcc_ccm_flow f = {};
	uint64_t t = 1000;

	m.ntype = HPCC_CCM_CC_REQUIRED;
	EXPECT_EQ(HPCC_CCM_NOTE_CC_SET,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, true));
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, true));
	EXPECT_EQ(1, f.cc);
	/* incast: type 3 moves nothing */
	m.ntype = HPCC_CCM_AR_REQUIRED;
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, true));
	m.ntype = HPCC_CCM_CC_RELEASED;
	EXPECT_EQ(HPCC_CCM_NOTE_CC_CLEARED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, true));
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, true));
	EXPECT_EQ(0, f.cc);
	m.ntype = HPCC_CCM_AR_REQUIRED;
	/* about a path the flow has left: ignored */
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0x12345, true));
	/* the flow's own telemetry shows its path below eta: ignored */
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, false));
	/* in recovery: ignored */
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, true, 0xabcde, true));
	EXPECT_EQ(HPCC_CCM_NOTE_REROUTE,
		  hpcc_ccm_note(&f, &cfg, &m, t, RTT, false, 0xabcde, true));
	EXPECT_EQ(1, f.changes);
	/* a second one within the gap: ignored; after it: taken */
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t + 3 * RTT - 1, RTT, false,
				0xabcde, true));
	EXPECT_EQ(HPCC_CCM_NOTE_REROUTE,
		  hpcc_ccm_note(&f, &cfg, &m, t + 3 * RTT, RTT, false,
				0xabcde, true));
	EXPECT_EQ(2, f.changes);
	/* the two tries are used: a type 3 long after the doubled gap
	 * moves nothing until a try comes back (96 RTTs after the last
	 * change), as the host's own rule
	 */
	t += 3 * RTT;
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t + 50 * RTT, RTT, false,
				0xabcde, true));
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t + REFILL - 1, RTT, false,
				0xabcde, true));
	/* a flow whose telemetry shows incast ignores it too */
	EXPECT_EQ(HPCC_CCM_RATE, decide_busy(&f, t + REFILL - 1, true));
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &m, t + REFILL, RTT, false,
				0xabcde, true));
	EXPECT_EQ(1, f.tried);
	EXPECT_EQ(2, f.changes);
	EXPECT_EQ(HPCC_CCM_NOTE_REROUTE,
		  hpcc_ccm_note(&f, &cfg, &m, t + REFILL + 12 * RTT, RTT,
				false, 0xabcde, true));
	EXPECT_EQ(3, f.changes);
}

/*
 * @m as a notification of type @ntype with sequence number @seq, the hop's
 * next (ts one later), kept.
 */
static void put(struct hpcc_ccm_pend *p, struct hpcc_ccm_msg *m, int ntype,
		uint32_t seq)
{
	m->ntype = ntype;
	m->seq = seq;
	m->ts++;
	if (!hpcc_ccm_pend_put(p, m))
		abort();	/* a new notification must be taken */
}

/*
 * A copy of the last notification taken, or an older one of the same hop
 * port, is refused (a replay) and leaves the pending one as it is, even
 * after the flow acted on it; another hop's, or the hop's next, is taken.
 * (A copy that replaced what was pending would be acted on again.)
 */
TEST(pending_replay)
{
	struct hpcc_ccm_msg m = msg6(), c, out[2];
	struct hpcc_ccm_pend p = {};

	put(&p, &m, HPCC_CCM_CC_REQUIRED, 100);
	c = m;
	put(&p, &m, HPCC_CCM_CC_RELEASED, 101);
	/* the captured type 1 again: the type 2 stays pending */
	EXPECT_FALSE(hpcc_ccm_pend_put(&p, &c));
	ASSERT_EQ(1, hpcc_ccm_pend_take(&p, out));
	EXPECT_EQ(HPCC_CCM_CC_RELEASED, out[0].ntype);
	/* after the flow acted: the type 2 and the type 1 again, refused */
	EXPECT_FALSE(hpcc_ccm_pend_put(&p, &m));
	EXPECT_FALSE(hpcc_ccm_pend_put(&p, &c));
	EXPECT_EQ(0, hpcc_ccm_pend_take(&p, out));
	/* the same bytes from another port of the hop: not a replay */
	c.port_id++;
	EXPECT_TRUE(hpcc_ccm_pend_put(&p, &c));
	/* a restarted hop (ts from 1) that names later data */
	m.ts = 1;
	m.seq = 200;
	EXPECT_TRUE(hpcc_ccm_pend_put(&p, &m));
	ASSERT_EQ(1, hpcc_ccm_pend_take(&p, out));
	EXPECT_EQ(200, out[0].seq);
}

/*
 * The notifications a flow holds between two ACKs: the newest type 1 or 2
 * and the newest type 3, handed over CC first, then none left.
 */
TEST(pending)
{
	struct hpcc_ccm_msg m = msg6(), out[2];
	struct hpcc_ccm_pend p = {};

	EXPECT_EQ(0, hpcc_ccm_pend_take(&p, out));
	/* a type 3, then a type 1 and a type 2: the 2 is the newest */
	put(&p, &m, HPCC_CCM_AR_REQUIRED, 10);
	put(&p, &m, HPCC_CCM_CC_REQUIRED, 11);
	put(&p, &m, HPCC_CCM_CC_RELEASED, 12);
	ASSERT_EQ(2, hpcc_ccm_pend_take(&p, out));
	EXPECT_EQ(HPCC_CCM_CC_RELEASED, out[0].ntype);
	EXPECT_EQ(12, out[0].seq);
	EXPECT_EQ(0, out[0].flowlabel);
	EXPECT_EQ(HPCC_CCM_AR_REQUIRED, out[1].ntype);
	EXPECT_EQ(10, out[1].seq);
	EXPECT_EQ(0xabcde, out[1].flowlabel);
	/* the hop that sent it, for the flow to check against its telemetry */
	EXPECT_EQ(7, out[1].switch_id);
	EXPECT_EQ(3, out[1].port_id);
	EXPECT_EQ(0, hpcc_ccm_pend_take(&p, out));
	/* two type 3: the newest names the path */
	m.flowlabel = 1;
	put(&p, &m, HPCC_CCM_AR_REQUIRED, 10);
	m.flowlabel = 2;
	put(&p, &m, HPCC_CCM_AR_REQUIRED, 13);
	ASSERT_EQ(1, hpcc_ccm_pend_take(&p, out));
	EXPECT_EQ(HPCC_CCM_AR_REQUIRED, out[0].ntype);
	EXPECT_EQ(2, out[0].flowlabel);
	EXPECT_EQ(13, out[0].seq);
}

/*
 * Acted on in that order, a type 1 that came with a type 3 keeps the flow
 * where it is (the CC indicator stops adaptive routing).
 */
TEST(pending_cc_first)
{
	struct hpcc_ccm_msg m = msg6(), out[2];
	struct hpcc_ccm_pend p = {};
	struct hpcc_ccm_flow f = {};
	int n;

	put(&p, &m, HPCC_CCM_AR_REQUIRED, m.seq);
	put(&p, &m, HPCC_CCM_CC_REQUIRED, m.seq);
	n = hpcc_ccm_pend_take(&p, out);
	ASSERT_EQ(2, n);
	EXPECT_EQ(HPCC_CCM_NOTE_CC_SET,
		  hpcc_ccm_note(&f, &cfg, &out[0], 1000, RTT, false, 0xabcde, true));
	EXPECT_EQ(HPCC_CCM_NOTE_IGNORED,
		  hpcc_ccm_note(&f, &cfg, &out[1], 1000, RTT, false, 0xabcde, true));
	EXPECT_EQ(0, f.changes);
}

/*
 * A saturated hop the flow shares: U at least eta, W below the share of
 * B x T.  Alone (W near eta x BDP) and one of two (near half of it) it is
 * not shared at 40 %; one of three or four is; below eta never; a share of
 * 0 never; the largest W and BDP do not overflow.
 */
TEST(shared_hop)
{
	const uint64_t one = 1ULL << 32, eta = one * 95 / 100;
	const uint64_t bdp = 62500ULL << 16;	/* 50 Mbit/s x 10 ms */

	EXPECT_FALSE(hpcc_ccm_shared(eta, eta, bdp * 95 / 100, bdp, 40));
	EXPECT_FALSE(hpcc_ccm_shared(eta, eta, bdp * 95 / 200, bdp, 40));
	EXPECT_TRUE(hpcc_ccm_shared(eta, eta, bdp * 95 / 300, bdp, 40));
	EXPECT_TRUE(hpcc_ccm_shared(one, eta, bdp / 4, bdp, 40));
	EXPECT_FALSE(hpcc_ccm_shared(eta - 1, eta, bdp / 4, bdp, 40));
	EXPECT_FALSE(hpcc_ccm_shared(one, eta, bdp / 4, bdp, 0));
	EXPECT_TRUE(hpcc_ccm_shared(one, eta, bdp / 2, bdp, 51));
	EXPECT_TRUE(hpcc_ccm_shared(one, eta, (1ULL << 48) - 1,
				    (1ULL << 56) - 1, 100));
	EXPECT_FALSE(hpcc_ccm_shared(one, eta, (1ULL << 48) - 1,
				     (1ULL << 48) - 1, 100));
}

TEST_HARNESS_MAIN
