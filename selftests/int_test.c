// SPDX-License-Identifier: GPL-2.0
/*
 * int_test - the arithmetic of the software INT hop (kernel/hpcc_int_lim.h):
 * INT-MD's Tx utilization.  Host test, built with ASan and UBSan.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "hpcc_int_lim.h"

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
 * (before, now - ts wrapped to about 2^64 ns, the interval counted as
 * long, the utilization went to 0 and the state's time went back).
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

TEST_HARNESS_MAIN
