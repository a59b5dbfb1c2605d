// SPDX-License-Identifier: GPL-2.0
/*
 * fcr_test - the Fast Congestion Response codec, managed-domain check and
 * hold set (kernel/lib/hpcc_fcr.c), the code both modules run.  Host test,
 * built with ASan and UBSan.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "lib/hpcc_fcr.h"

static const struct hpcc_fcr_msg msg4 = {
	.family = 4, .switch_id = 7, .port_id = 3, .rate = 11875000,
	.ts = 0x0102030405060708ULL, .seq = 0xfffffff0, .round = 9,
	.interval = 12000, .sport = 40000, .dport = 5201,
	.saddr = { [10] = 0xff, [11] = 0xff, 10, 0, 1, 2 },
	.daddr = { [10] = 0xff, [11] = 0xff, 10, 0, 2, 2 },
};

/*
 * Field by field: a memcmp() of the structures also compares their
 * padding, which a decoded one on the stack leaves as it found it
 * (roundtrip and ipv6_message would fail on that alone).
 */
static bool same(const struct hpcc_fcr_msg *a, const struct hpcc_fcr_msg *b)
{
	return a->family == b->family && a->switch_id == b->switch_id &&
	       a->port_id == b->port_id && a->rate == b->rate &&
	       a->ts == b->ts && a->seq == b->seq && a->round == b->round &&
	       a->interval == b->interval && a->sport == b->sport &&
	       a->dport == b->dport && !memcmp(a->saddr, b->saddr, 16) &&
	       !memcmp(a->daddr, b->daddr, 16);
}

TEST(encode_layout)
{
	uint8_t b[HPCC_WIRE_FCR_LEN];

	ASSERT_EQ(HPCC_WIRE_FCR_LEN, sizeof(struct hpcc_wire_fcr));
	hpcc_fcr_encode(b, &msg4);
	/* magic "HPCC", version 1, type 3, family 4, flags 0 */
	EXPECT_EQ(0, memcmp(b, "HPCC\x01\x03\x04\x00", 8));
	EXPECT_EQ(0, memcmp(b + 16, "\x00\x00\x00\x00\x00\xb5\x32\xb8", 8));
	EXPECT_EQ(0, memcmp(b + 32, "\xff\xff\xff\xf0\x00\x00\x00\x09", 8));
	EXPECT_EQ(0, memcmp(b + 40, "\x9c\x40\x14\x51\x00\x00\x2e\xe0", 8));
	EXPECT_EQ(0, memcmp(b + 48 + 10, "\xff\xff\x0a\x00\x01\x02", 6));
}

TEST(roundtrip)
{
	uint8_t b[HPCC_WIRE_FCR_LEN + 4];
	struct hpcc_fcr_msg m;

	memset(b, 0xaa, sizeof(b));
	hpcc_fcr_encode(b, &msg4);
	ASSERT_EQ(HPCC_FCR_OK, hpcc_fcr_decode(b, sizeof(b), &m));
	EXPECT_TRUE(same(&m, &msg4));
}

/* Each field a sender refuses: the decoder says which. */
TEST(refusals)
{
	uint8_t b[HPCC_WIRE_FCR_LEN], c[HPCC_WIRE_FCR_LEN];
	struct hpcc_fcr_msg m;

	hpcc_fcr_encode(b, &msg4);
	EXPECT_EQ(HPCC_FCR_E_SHORT, hpcc_fcr_decode(b, HPCC_WIRE_FCR_LEN - 1, &m));
	EXPECT_EQ(HPCC_FCR_E_SHORT, hpcc_fcr_decode(b, 0, &m));
#define BAD(off, val, err) do {						\
		memcpy(c, b, sizeof(c));				\
		c[off] = (val);						\
		EXPECT_EQ(err, hpcc_fcr_decode(c, sizeof(c), &m));	\
	} while (0)
	BAD(0, 'X', HPCC_FCR_E_HEADER);
	BAD(4, 2, HPCC_FCR_E_HEADER);			/* version */
	BAD(5, HPCC_WIRE_RESPONSE, HPCC_FCR_E_HEADER);	/* type */
	BAD(6, 5, HPCC_FCR_E_FAMILY);
	BAD(6, 6, HPCC_FCR_E_FAMILY);	/* 6 with IPv4-mapped addresses */
	BAD(48 + 11, 0, HPCC_FCR_E_FAMILY);	/* 4, saddr not mapped */
	BAD(64, 0x20, HPCC_FCR_E_FAMILY);	/* 4, daddr not mapped */
	BAD(16, 0x01, HPCC_FCR_E_RATE);		/* 2^56 bit/s */
	BAD(7, 0xff, HPCC_FCR_OK);		/* flags are ignored */
	memcpy(c, b, sizeof(c));
	memset(c + 44, 0, 4);
	EXPECT_EQ(HPCC_FCR_E_INTERVAL, hpcc_fcr_decode(c, sizeof(c), &m));
	hpcc_fcr_put32(c + 44, HPCC_FCR_INTERVAL_MAX + 1);
	EXPECT_EQ(HPCC_FCR_E_INTERVAL, hpcc_fcr_decode(c, sizeof(c), &m));
	hpcc_fcr_put32(c + 44, HPCC_FCR_INTERVAL_MAX);
	EXPECT_EQ(HPCC_FCR_OK, hpcc_fcr_decode(c, sizeof(c), &m));
	hpcc_fcr_put64(c + 16, HPCC_RATE_MAX);
	EXPECT_EQ(HPCC_FCR_OK, hpcc_fcr_decode(c, sizeof(c), &m));
	hpcc_fcr_put64(c + 16, HPCC_RATE_MAX + 1);
	EXPECT_EQ(HPCC_FCR_E_RATE, hpcc_fcr_decode(c, sizeof(c), &m));
	hpcc_fcr_put64(c + 16, 0);
	EXPECT_EQ(HPCC_FCR_E_RATE, hpcc_fcr_decode(c, sizeof(c), &m));
#undef BAD
}

TEST(ipv6_message)
{
	struct hpcc_fcr_msg m6 = msg4, m;
	uint8_t b[HPCC_WIRE_FCR_LEN];

	m6.family = 6;
	memcpy(m6.saddr, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(m6.daddr, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	hpcc_fcr_encode(b, &m6);
	ASSERT_EQ(HPCC_FCR_OK, hpcc_fcr_decode(b, sizeof(b), &m));
	EXPECT_TRUE(same(&m, &m6));
	b[48 + 10] = 0xff;	/* saddr now ::ffff:... while the family says 6 */
	b[48 + 11] = 0xff;
	memset(b + 48, 0, 10);
	EXPECT_EQ(HPCC_FCR_E_FAMILY, hpcc_fcr_decode(b, sizeof(b), &m));
}

TEST(prefixes)
{
	/* 10.0.0.0/8 as ::ffff:10.0.0.0/104, 2001:db8::/33 */
	struct hpcc_fcr_prefix p[2] = {
		{ .addr = { [10] = 0xff, [11] = 0xff, 10 }, .plen = 104 },
		{ .addr = { 0x20, 0x01, 0x0d, 0xb8 }, .plen = 33 },
	};
	struct hpcc_fcr_prefix all = { .plen = 0 };
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff, 10, 9, 8, 7 };
	uint8_t b6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x7f, [15] = 1 };

	EXPECT_TRUE(hpcc_fcr_in_domain(a, p, 2));
	EXPECT_FALSE(hpcc_fcr_in_domain(a, p, 0));	/* none configured */
	EXPECT_TRUE(hpcc_fcr_in_domain(b6, p, 2));
	b6[4] = 0x80;		/* bit 32 set: outside the /33 */
	EXPECT_FALSE(hpcc_fcr_in_domain(b6, p, 2));
	a[12] = 11;
	EXPECT_FALSE(hpcc_fcr_in_domain(a, p, 2));
	EXPECT_TRUE(hpcc_fcr_prefix_match(a, &all));
	/* a /128 matches one address only */
	memcpy(all.addr, a, 16);
	all.plen = 128;
	EXPECT_TRUE(hpcc_fcr_prefix_match(a, &all));
	a[15] ^= 1;
	EXPECT_FALSE(hpcc_fcr_prefix_match(a, &all));
}

/* Two congested ports: the lowest rate rules until it expires. */
TEST(lowest_of_two_hops_and_expiry)
{
	struct hpcc_fcr_hold h[HPCC_FCR_HOLDS] = {};
	struct hpcc_fcr_msg a = msg4, b = msg4;
	const uint64_t hold_max = 100000000;	/* 100 ms */

	a.rate = 20000000;	/* port 3 of switch 7: 20 Mbit/s */
	b.switch_id = 8;	/* port 3 of switch 8: 5 Mbit/s */
	b.rate = 5000000;
	b.interval = 1000;	/* held 2 ms */
	EXPECT_EQ(0, hpcc_fcr_lowest(h, 0));
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &a, 1000, hold_max));
	EXPECT_EQ(20000000, hpcc_fcr_lowest(h, 1000));
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &b, 2000, hold_max));
	EXPECT_EQ(5000000, hpcc_fcr_lowest(h, 2000));
	/* b's hold ends 2 ms after it came: a's rate again */
	EXPECT_EQ(5000000, hpcc_fcr_lowest(h, 2000 + 1999999));
	EXPECT_EQ(20000000, hpcc_fcr_lowest(h, 2000 + 2000000));
	/* a: 2 x 12 ms */
	EXPECT_EQ(20000000, hpcc_fcr_lowest(h, 1000 + 23999999));
	EXPECT_EQ(0, hpcc_fcr_lowest(h, 1000 + 24000000));
	/* hold-max bounds the hold */
	memset(h, 0, sizeof(h));
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &a, 0, 5000000));
	EXPECT_EQ(0, hpcc_fcr_lowest(h, 5000000));
}

/* A port's newer round replaces its rate, even a higher one; an older or
 * repeated round changes nothing; rounds wrap.
 */
TEST(rounds)
{
	struct hpcc_fcr_hold h[HPCC_FCR_HOLDS] = {};
	struct hpcc_fcr_msg a = msg4;

	a.round = 0xffffffff;
	a.rate = 1000000;
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &a, 0, ~0ULL));
	a.rate = 9000000;
	EXPECT_EQ(HPCC_FCR_PUT_OLD, hpcc_fcr_hold_put(h, &a, 1, ~0ULL));
	a.round = 0xfffffffe;
	EXPECT_EQ(HPCC_FCR_PUT_OLD, hpcc_fcr_hold_put(h, &a, 1, ~0ULL));
	EXPECT_EQ(1000000, hpcc_fcr_lowest(h, 2));
	a.round = 0;		/* after 0xffffffff */
	EXPECT_EQ(HPCC_FCR_PUT_UPDATED, hpcc_fcr_hold_put(h, &a, 3, ~0ULL));
	EXPECT_EQ(9000000, hpcc_fcr_lowest(h, 4));
	EXPECT_EQ(0, h[1].rate);	/* one slot per port */
}

/* More congested ports than slots: the lowest rates are kept. */
TEST(full_keeps_lowest)
{
	struct hpcc_fcr_hold h[HPCC_FCR_HOLDS] = {};
	struct hpcc_fcr_msg a = msg4;
	int i;

	for (i = 0; i < HPCC_FCR_HOLDS; i++) {
		a.port_id = i;
		a.rate = 10000000 * (i + 2);
		EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &a, 0, ~0ULL));
	}
	a.port_id = 100;
	a.rate = 90000000;
	EXPECT_EQ(HPCC_FCR_PUT_FULL, hpcc_fcr_hold_put(h, &a, 0, ~0ULL));
	a.rate = 10000000;
	EXPECT_EQ(HPCC_FCR_PUT_REPLACED, hpcc_fcr_hold_put(h, &a, 0, ~0ULL));
	EXPECT_EQ(10000000, hpcc_fcr_lowest(h, 1));
	for (i = 0; i < HPCC_FCR_HOLDS; i++)
		EXPECT_NE(50000000, h[i].rate);	/* the highest went */
	/* an expired slot is free again */
	a.port_id = 101;
	a.rate = 95000000;
	EXPECT_EQ(HPCC_FCR_PUT_NEW,
		  hpcc_fcr_hold_put(h, &a, 24000000, ~0ULL));
}

/*
 * The sequence number check: data sent and not acknowledged, snd_una to
 * snd_nxt (snd_nxt excluded), across the wrap of 32-bit numbers.  The
 * old range reached max_window below snd_una: data already acknowledged.
 */
TEST(in_window)
{
	/* una 1000, nxt 3000 */
	EXPECT_TRUE(hpcc_fcr_in_window(1000, 1000, 3000));
	EXPECT_TRUE(hpcc_fcr_in_window(1500, 1000, 3000));
	EXPECT_TRUE(hpcc_fcr_in_window(2999, 1000, 3000));
	EXPECT_FALSE(hpcc_fcr_in_window(999, 1000, 3000));
	EXPECT_FALSE(hpcc_fcr_in_window(500, 1000, 3000));
	EXPECT_FALSE(hpcc_fcr_in_window(3000, 1000, 3000));
	EXPECT_FALSE(hpcc_fcr_in_window(1000 + 0x80000000u, 1000, 3000));
	/* the window straddles 2^32 */
	EXPECT_TRUE(hpcc_fcr_in_window(0xfffffff0u, 0xffffff00u, 50));
	EXPECT_TRUE(hpcc_fcr_in_window(20, 0xffffff00u, 50));
	EXPECT_FALSE(hpcc_fcr_in_window(50, 0xffffff00u, 50));
	EXPECT_FALSE(hpcc_fcr_in_window(0xfffffeffu, 0xffffff00u, 50));
	/* nothing in flight: nothing accepted */
	EXPECT_FALSE(hpcc_fcr_in_window(1000, 1000, 1000));
	EXPECT_FALSE(hpcc_fcr_in_window(999, 1000, 1000));
}

/*
 * A captured message replayed once its hold ended is refused (the slot
 * keeps its port's round and sequence number), and so is an older round
 * of that port; a later round, or a restarted hop's round 1 naming later
 * data, is taken.  A table that forgot an ended hold's port would let
 * the replay hold its rate again (HPCC_FCR_PUT_NEW).
 */
TEST(replay_after_hold)
{
	struct hpcc_fcr_hold h[HPCC_FCR_HOLDS] = {};
	struct hpcc_fcr_msg a = msg4, r;
	uint64_t end;

	a.round = 5;
	a.seq = 10000;
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &a, 0, ~0ULL));
	end = 2ULL * a.interval * 1000;
	EXPECT_EQ(0, hpcc_fcr_lowest(h, end));
	/* the same bytes again, after the hold ended */
	EXPECT_EQ(HPCC_FCR_PUT_OLD, hpcc_fcr_hold_put(h, &a, end, ~0ULL));
	EXPECT_EQ(0, hpcc_fcr_lowest(h, end + 1));
	/* an older captured round */
	r = a;
	r.round = 4;
	r.seq = 9000;
	EXPECT_EQ(HPCC_FCR_PUT_OLD, hpcc_fcr_hold_put(h, &r, end, ~0ULL));
	EXPECT_EQ(0, hpcc_fcr_lowest(h, end + 1));
	/* the hop's next round */
	r = a;
	r.round = 6;
	r.seq = 12000;
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &r, end, ~0ULL));
	EXPECT_EQ(a.rate, hpcc_fcr_lowest(h, end + 1));
	EXPECT_EQ(0, h[1].until);	/* the port's own slot again */
	/* a restarted hop: round 1, later data, once the hold ended */
	end += 2ULL * a.interval * 1000;
	r.round = 1;
	r.seq = 15000;
	EXPECT_EQ(HPCC_FCR_PUT_NEW, hpcc_fcr_hold_put(h, &r, end, ~0ULL));
	/* while a hold is in force, only a newer round */
	r.seq = 16000;
	EXPECT_EQ(HPCC_FCR_PUT_OLD, hpcc_fcr_hold_put(h, &r, end + 1, ~0ULL));
}

/* An IPv6 datagram from an IPv4-mapped address is no hop's. */
TEST(mapped_source)
{
	const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 51, 1, 2 };
	const uint8_t v6[16] = { 0xfd, 0, [15] = 2 };

	EXPECT_TRUE(hpcc_fcr_src_ok(v4, false));
	EXPECT_FALSE(hpcc_fcr_src_ok(v4, true));
	EXPECT_TRUE(hpcc_fcr_src_ok(v6, true));
}

TEST_HARNESS_MAIN
