/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_int_lim.h - the arithmetic of hpcc_int.ko that bounds what it sends
 * and measures: the namespace's total and per-destination message buckets
 * (config-set fcr-msg-rate, fcr-msg-burst, fcr-dst-rate, fcr-dst-burst),
 * the destinations a message may not go to, the sizes of an FCR port's
 * rounds, and INT-MD's Tx utilization.
 *
 * One source for the module, the host unit test
 * (selftests/unit/int_test.c) and the ns-3 model (sim/ns3/): static inline
 * functions without locks, the caller serializes.  In a userspace build
 * the includer supplies the kernel's address helpers (ipv4_is_multicast()
 * and the others used below, tools/include/hpcc_user_net.h) and struct
 * in6_addr.  Documentation/design.rst, "Fast Congestion Response", "What
 * the hop sends".
 */
#ifndef _HPCC_INT_LIM_H
#define _HPCC_INT_LIM_H

#ifdef __KERNEL__
#include <linux/in.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/types.h>
#include <net/ipv6.h>
#else
#include <string.h>
#include <linux/types.h>
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

/*
 * An FCR port's rounds (hpcc_int_fcr_round() and hpcc_int_fcr_count() in
 * kernel/hpcc_int/fcr.c; the ns-3 model's hop runs the same rounds): the
 * flows a port tracks, and a round starts early when its count of flows
 * has grown by NUM/DEN and it is at least fcr-interval / GAP old.
 */
#define HPCC_INT_FCR_FLOWS		256
#define HPCC_INT_FCR_EARLY_NUM		4
#define HPCC_INT_FCR_EARLY_DEN		3
#define HPCC_INT_FCR_EARLY_GAP		4

/* Destinations of the per-destination table, and the slots one may use. */
#define HPCC_INT_LIM_DSTS	256
#define HPCC_INT_LIM_PROBE	8

/**
 * struct hpcc_int_lim_dst - one destination's bucket
 * @addr: the destination, IPv6 or IPv4-mapped
 * @tat: the theoretical arrival time of its next message, ns (a generic
 *	cell rate algorithm, ITU-T I.371: each message moves it on by the
 *	cost, 10^9 / rate ns; a message conforms while it is at most burst
 *	costs ahead of now)
 */
struct hpcc_int_lim_dst {
	u8 addr[16];
	u64 tat;
};

/**
 * struct hpcc_int_lim - a namespace's sending bounds' state
 * @tat: the total bucket's theoretical arrival time, ns
 * @floor: the latest @tat of a destination pushed out of @dst while its
 *	bucket was not whole: every destination taken into the table starts
 *	from it, so that none gets a whole bucket by being pushed out
 * @dst: the destinations, by hash, HPCC_INT_LIM_PROBE slots each
 */
struct hpcc_int_lim {
	u64 tat;
	u64 floor;
	struct hpcc_int_lim_dst dst[HPCC_INT_LIM_DSTS];
};

/**
 * struct hpcc_int_lim_cfg - the bounds (config-set)
 * @rate: fcr-msg-rate, messages per second in total, at least 1
 * @burst: fcr-msg-burst, messages, at least 1
 * @dst_rate: fcr-dst-rate, messages per second to one destination
 * @dst_burst: fcr-dst-burst, messages
 */
struct hpcc_int_lim_cfg {
	u32 rate;
	u32 burst;
	u32 dst_rate;
	u32 dst_burst;
};

/* What hpcc_int_lim_allow() says. */
enum hpcc_int_lim_verdict {
	HPCC_INT_LIM_OK,
	HPCC_INT_LIM_TOTAL,	/* the total bucket is empty */
	HPCC_INT_LIM_DST,	/* the destination's bucket is empty */
};

/* ns between two messages at @rate per second (>= 1). */
static inline u64 hpcc_int_lim_cost(u32 rate)
{
	return div_u64(NSEC_PER_SEC, rate ? rate : 1);
}

/*
 * hpcc_int_lim_conforms() - may a bucket at @tat of @burst messages of
 * @cost ns each take one more at @now: over any time T it passes at most
 * @burst + T / @cost.
 */
static inline bool hpcc_int_lim_conforms(u64 tat, u64 now, u64 cost,
					 u32 burst)
{
	u64 t = tat > now ? tat : now;

	return t - now + cost <= (u64)burst * cost;
}

/* The bucket at @tat after a message at @now. */
static inline u64 hpcc_int_lim_take(u64 tat, u64 now, u64 cost)
{
	return (tat > now ? tat : now) + cost;
}

/**
 * hpcc_int_lim_allow() - may the namespace send one more message to @dst
 *	now, by its bounds
 * @l: the state
 * @dst: the destination, IPv6 or IPv4-mapped, 16 bytes
 * @h: its hash (seeded: the slots an address takes are not known outside)
 * @now: ns, monotonic
 * @c: the bounds
 *
 * The destination's bucket first, so that a flood to one destination does
 * not spend the total; a message either bucket refuses takes from
 * neither.  A destination not in the table takes the one of its
 * HPCC_INT_LIM_PROBE slots that is soonest whole, starting from
 * @l->floor (struct hpcc_int_lim).  Context: the caller serializes.
 *
 * Return: HPCC_INT_LIM_OK (the message counted in both buckets),
 * HPCC_INT_LIM_DST or HPCC_INT_LIM_TOTAL.
 */
static inline enum hpcc_int_lim_verdict
hpcc_int_lim_allow(struct hpcc_int_lim *l, const u8 *dst, u32 h, u64 now,
		   const struct hpcc_int_lim_cfg *c)
{
	u64 dcost = hpcc_int_lim_cost(c->dst_rate);
	u64 tcost = hpcc_int_lim_cost(c->rate);
	struct hpcc_int_lim_dst *s, *victim = NULL;
	unsigned int i;

	for (i = 0; i < HPCC_INT_LIM_PROBE; i++) {
		s = &l->dst[(h + i) % HPCC_INT_LIM_DSTS];
		if (!memcmp(s->addr, dst, 16))
			goto found;
		if (!victim || s->tat < victim->tat)
			victim = s;
	}
	s = victim;
	if (s->tat > now && s->tat > l->floor)
		l->floor = s->tat;
	memcpy(s->addr, dst, 16);
	s->tat = l->floor > now ? l->floor : now;
found:
	if (!hpcc_int_lim_conforms(s->tat, now, dcost, c->dst_burst))
		return HPCC_INT_LIM_DST;
	if (!hpcc_int_lim_conforms(l->tat, now, tcost, c->burst))
		return HPCC_INT_LIM_TOTAL;
	s->tat = hpcc_int_lim_take(s->tat, now, dcost);
	l->tat = hpcc_int_lim_take(l->tat, now, tcost);
	return HPCC_INT_LIM_OK;
}

/**
 * hpcc_int_dst_unicast() - whether a message may go to @dst at all
 * @dst: the destination, 16 bytes: IPv4-mapped for @family 4
 * @family: the flow's, 4 or 6
 *
 * The hop sends to the source address of the packets it forwards, which
 * the packets' senders choose: an IPv4 destination must be IPv4-mapped
 * and not multicast, limited broadcast, 0.0.0.0/8 or loopback; an IPv6 one
 * not unspecified, loopback, multicast or IPv4-mapped (the IPv6 socket
 * would send an IPv4 datagram to the embedded address).  A subnet's
 * directed broadcast is refused later by the route (the hop's sockets do
 * not set SO_BROADCAST).
 *
 * Return: true when @dst is a unicast address of @family.
 */
static inline bool hpcc_int_dst_unicast(const u8 *dst, u8 family)
{
	struct in6_addr a;
	__be32 v4;

	memcpy(&a, dst, sizeof(a));
	if (family == 4) {
		if (!ipv6_addr_v4mapped(&a))
			return false;
		v4 = a.s6_addr32[3];
		return !ipv4_is_multicast(v4) && !ipv4_is_lbcast(v4) &&
		       !ipv4_is_zeronet(v4) && !ipv4_is_loopback(v4);
	}
	return family == 6 && !ipv6_addr_any(&a) && !ipv6_addr_loopback(&a) &&
	       !ipv6_addr_is_multicast(&a) && !ipv6_addr_v4mapped(&a);
}

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
