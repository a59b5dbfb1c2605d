/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_int_lim.h - the arithmetic of hpcc_int.ko that bounds what it
 * measures: INT-MD's Tx utilization.
 *
 * One source for the module and for the host unit test
 * (selftests/int_test.c): static inline functions without locks, the
 * caller serializes.
 */
#ifndef _HPCC_INT_LIM_H
#define _HPCC_INT_LIM_H

#ifdef __KERNEL__
#include <linux/math64.h>
#include <linux/types.h>
#else
#include "hpcc_user.h"
#ifndef U32_MAX
#define U32_MAX		0xffffffffU
#endif
#ifndef NSEC_PER_SEC
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL
#endif
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline u64 div_u64(u64 a, u32 b) { return a / b; }
#endif

/* The shortest interval a Tx utilization is measured over. */
#define HPCC_INT_UTIL_MIN_NS	(100 * NSEC_PER_USEC)

/**
 * struct hpcc_int_util - a port's Tx utilization state (INT-MD bit 7)
 * @ts: when it was last measured, ns; 0: never
 * @bytes: txBytes then
 * @bp: the utilization measured then, 1/10000 of B; U32_MAX: none
 */
struct hpcc_int_util {
	u64 ts;
	u64 bytes;
	u32 bp;
};

/**
 * hpcc_int_util_update() - the egress port's Tx utilization at @now
 * @u: the port's state
 * @now: when the caller read @tx_bytes, ns
 * @tx_bytes: the bytes the port's qdisc has handed to the driver
 * @rate: B, bit/s
 *
 * In 1/10000 of B (so a receiver's int-tx-util-full is 10000), at most
 * 20000: the bytes since the last measurement over that interval.  An
 * interval shorter than HPCC_INT_UTIL_MIN_NS keeps the last value, and so
 * does a @now at or before the last measurement's (another CPU read its
 * clock later but measured first: the state never goes back in time); the
 * first call, and a byte counter that went back (a new qdisc), only start
 * an interval.  Context: the caller serializes.
 *
 * Return: the utilization, or U32_MAX for none yet (the spec's invalid).
 */
static inline u32 hpcc_int_util_update(struct hpcc_int_util *u, u64 now,
				       u64 tx_bytes, u64 rate)
{
	u64 db, us, kbit;
	u32 util;

	if (u->ts && (now <= u->ts ||
		      (now - u->ts < HPCC_INT_UTIL_MIN_NS &&
		       tx_bytes >= u->bytes)))
		return u->bp;
	if (u->ts && tx_bytes >= u->bytes) {
		/* bits x 1e4 / (dt x B): db x 8e7 / (us x kbit/s), db below
		 * 2^36 so the product fits in 64 bits
		 */
		db = tx_bytes - u->bytes;
		if (db > 1ULL << 36)
			db = 1ULL << 36;
		us = div_u64(now - u->ts, NSEC_PER_USEC);
		kbit = div_u64(rate, 1000);
		db = div64_u64(db * 80000000ULL, us * (kbit ? kbit : 1));
		util = db < 20000 ? (u32)db : 20000;
	} else {
		util = U32_MAX;
	}
	u->ts = now;
	u->bytes = tx_bytes;
	u->bp = util;
	return util;
}

#endif /* _HPCC_INT_LIM_H */
