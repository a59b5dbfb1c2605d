// SPDX-License-Identifier: GPL-2.0
/*
 * int_test - the arithmetic of the software INT hop (kernel/lib/hpcc_int_lim.h):
 * the bounds of what it sends (the namespace's total and per-destination
 * buckets, the destinations it refuses) and INT-MD's Tx utilization.  Host
 * test, built with ASan and UBSan.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "hpcc_user_net.h"
#include "lib/hpcc_int_lim.h"

#define MS	1000000ULL

/* 10 Mbit/s for 1 ms: 1250 bytes, half of B = 20 Mbit/s: 5000 */
TEST(util_measures)
{
	struct hpcc_int_util u = { .bp = UINT32_MAX };

	EXPECT_EQ(UINT32_MAX, hpcc_int_util_update(&u, 10 * MS, 1000, 20000000));
	EXPECT_EQ(5000, hpcc_int_util_update(&u, 11 * MS, 2250, 20000000));
	/* shorter than HPCC_INT_UTIL_MIN_NS: the last value */
	EXPECT_EQ(5000, hpcc_int_util_update(&u, 11 * MS + 50000, 9999, 20000000));
	EXPECT_EQ(11 * MS, u.ts);
	/* at most 20000; a counter that went back starts again */
	EXPECT_EQ(20000, hpcc_int_util_update(&u, 12 * MS, 1000000, 20000000));
	EXPECT_EQ(UINT32_MAX, hpcc_int_util_update(&u, 13 * MS, 10, 20000000));
}

/*
 * Another CPU read its clock after this one's but measured first: this
 * one's @now is before the state's.  The state keeps its time and value
 * (unchecked, now - ts would wrap to about 2^64 ns, the interval would
 * count as long, the utilization would go to 0 and the state's time
 * back).
 */
TEST(util_now_before_last)
{
	struct hpcc_int_util u = { .bp = UINT32_MAX };

	hpcc_int_util_update(&u, 10 * MS, 1000, 20000000);
	ASSERT_EQ(5000, hpcc_int_util_update(&u, 11 * MS, 2250, 20000000));
	EXPECT_EQ(5000, hpcc_int_util_update(&u, 11 * MS - 1000, 2200, 20000000));
	EXPECT_EQ(11 * MS, u.ts);
	EXPECT_EQ(2250, u.bytes);
	/* the same time: kept too */
	EXPECT_EQ(5000, hpcc_int_util_update(&u, 11 * MS, 2250, 20000000));
	EXPECT_EQ(11 * MS, u.ts);
}

/* ::ffff:10.77.A.B */
static void v4(uint8_t *a, unsigned int k)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = 10;
	a[13] = 77;
	a[14] = k >> 8;
	a[15] = k;
}

static struct hpcc_int_lim l;

/*
 * Many destinations, each within its own bound: over 1 s the total passes
 * at most fcr-msg-burst + fcr-msg-rate, and a steady flood gets about
 * the rate.
 */
TEST(lim_total)
{
	const struct hpcc_int_lim_cfg c = { 1000, 10, 10000000, 65536 };
	unsigned int ok = 0, total = 0, k;
	uint8_t a[16];
	u64 now;

	memset(&l, 0, sizeof(l));
	for (k = 0, now = MS; now <= 1001 * MS; now += 10000, k++) {
		enum hpcc_int_lim_verdict v;

		v4(a, k % 4096);
		v = hpcc_int_lim_allow(&l, a, k * 2654435761u, now, &c);
		ok += v == HPCC_INT_LIM_OK;
		total += v == HPCC_INT_LIM_TOTAL;
		ASSERT_NE(HPCC_INT_LIM_DST, v);
	}
	EXPECT_LE(ok, 10 + 1000 + 1);
	EXPECT_GE(ok, 1000);
	EXPECT_EQ(k, ok + total);
}

/*
 * One destination flooded: at most fcr-dst-burst + fcr-dst-rate x T, and
 * what it is refused takes nothing from the total (the others still get
 * the whole burst).
 */
TEST(lim_dst)
{
	const struct hpcc_int_lim_cfg c = { 1000, 20, 100, 5 };
	unsigned int ok = 0, k;
	uint8_t a[16], b[16];
	u64 now;

	memset(&l, 0, sizeof(l));
	v4(a, 1);
	for (now = MS; now <= 1001 * MS; now += 100000)
		ok += hpcc_int_lim_allow(&l, a, 7, now, &c) == HPCC_INT_LIM_OK;
	EXPECT_LE(ok, 5 + 100 + 1);
	EXPECT_GE(ok, 100);
	/* a burst of 5 at once, then refused */
	memset(&l, 0, sizeof(l));
	for (k = 0, ok = 0; k < 50; k++)
		ok += hpcc_int_lim_allow(&l, a, 7, MS, &c) == HPCC_INT_LIM_OK;
	EXPECT_EQ(5, ok);
	EXPECT_EQ(HPCC_INT_LIM_DST, hpcc_int_lim_allow(&l, a, 7, MS, &c));
	/* 5 of the total's 20 spent: 15 more for others at once */
	for (k = 0, ok = 0; k < 50; k++) {
		v4(b, 100 + k);
		ok += hpcc_int_lim_allow(&l, b, k * 2654435761u, MS, &c) ==
		      HPCC_INT_LIM_OK;
	}
	EXPECT_EQ(15, ok);
}

/*
 * A destination pushed out of the table by others hashing alike does not
 * come back with a whole bucket.
 */
TEST(lim_dst_pushed_out)
{
	const struct hpcc_int_lim_cfg c = { 10000000, 65536, 100, 5 };
	unsigned int ok = 0, k;
	uint8_t a[16], b[16];

	memset(&l, 0, sizeof(l));
	v4(a, 1);
	for (k = 0; k < 10; k++)
		ok += hpcc_int_lim_allow(&l, a, 7, MS, &c) == HPCC_INT_LIM_OK;
	ASSERT_EQ(5, ok);
	/* the same hash: all of its HPCC_INT_LIM_PROBE slots taken over by
	 * destinations that spent their whole burst too
	 */
	for (k = 0; k < 4 * HPCC_INT_LIM_PROBE * 10; k++) {
		v4(b, 100 + k / 10);
		hpcc_int_lim_allow(&l, b, 7, MS, &c);
	}
	for (k = 0; k < HPCC_INT_LIM_PROBE; k++)
		ASSERT_NE(0, memcmp(l.dst[7 + k].addr, a, 16));
	EXPECT_EQ(HPCC_INT_LIM_DST, hpcc_int_lim_allow(&l, a, 7, MS, &c));
	/* and gets its rate back as time passes: one per 10 ms */
	EXPECT_EQ(HPCC_INT_LIM_OK, hpcc_int_lim_allow(&l, a, 7, 1000 * MS, &c));
}

static bool uni(const char *s)
{
	uint8_t a[16];

	if (inet_pton(AF_INET6, s, a) == 1)
		return hpcc_int_dst_unicast(a, 6);
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	inet_pton(AF_INET, s, a + 12);
	return hpcc_int_dst_unicast(a, 4);
}

/* No message to a multicast, broadcast, unspecified or loopback
 * address, nor to an IPv4-mapped one from an IPv6 flow.
 */
TEST(dst_unicast)
{
	uint8_t a[16];

	EXPECT_TRUE(uni("10.51.1.1"));
	EXPECT_TRUE(uni("192.0.2.1"));
	EXPECT_FALSE(uni("224.0.0.1"));
	EXPECT_FALSE(uni("239.255.255.250"));
	EXPECT_FALSE(uni("255.255.255.255"));
	EXPECT_FALSE(uni("0.0.0.0"));
	EXPECT_FALSE(uni("0.1.2.3"));
	EXPECT_FALSE(uni("127.0.0.1"));
	EXPECT_TRUE(uni("2001:db8::1"));
	EXPECT_TRUE(uni("fe80::1"));
	EXPECT_FALSE(uni("::"));
	EXPECT_FALSE(uni("::1"));
	EXPECT_FALSE(uni("ff02::1"));
	EXPECT_FALSE(uni("::ffff:10.51.1.1"));
	/* an IPv4 flow's destination that is not IPv4-mapped */
	inet_pton(AF_INET6, "2001:db8::1", a);
	EXPECT_FALSE(hpcc_int_dst_unicast(a, 4));
	EXPECT_FALSE(hpcc_int_dst_unicast(a, 5));
}

TEST_HARNESS_MAIN
