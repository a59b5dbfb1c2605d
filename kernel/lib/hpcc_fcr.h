/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_fcr.h - Fast Congestion Response (draft-even-tsvwg-datacenter-fast-
 * congestion): the message codec, the managed-domain check and the sender's
 * per-flow set of rates, with the lowest-rate rule (section 4) and expiry.
 *
 * One source for the kernel (tcp_hpcc.ko decodes and holds, hpcc_int.ko
 * encodes) and for userspace (unit tests, the fuzz target, hpccctl):
 * functions on byte buffers in hpcc_fcr.c, no kernel or libc dependency, so that
 * the code the tests run is the code the modules run.  The message is
 * struct hpcc_wire_fcr (include/uapi/linux/hpcc_wire.h); Documentation/
 * design.rst, "Fast Congestion Response", has the rules.
 */
#ifndef _HPCC_FCR_H
#define _HPCC_FCR_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "hpcc_user.h"
#endif
#include <linux/hpcc_wire.h>

/*
 * The range a message's rate and interval must lie in (wire format): the
 * rate 1 to HPCC_RATE_MAX bit/s (linux/hpcc.h, through hpcc_wire.h).
 */
#define HPCC_FCR_INTERVAL_MAX	1000000U		/* us */
/* Rates a sender holds per flow: distinct congested ports on its path. */
#define HPCC_FCR_HOLDS		4
/* Managed prefixes a namespace may name. */
#define HPCC_FCR_PREFIXES	16
/* The least window an FCR rate leaves a flow, MSS: enough in flight for
 * three duplicate ACKs and fast retransmit.
 */
#define HPCC_FCR_W_MIN_MSS	4
/* A sender's defaults (fcr-set): hold-max, us, and rate-min, bit/s. */
#define HPCC_FCR_HOLD_MAX_DEFAULT	100000U
#define HPCC_FCR_RATE_MIN_DEFAULT	1000000ULL

/**
 * struct hpcc_fcr_msg - a decoded FCR message, host byte order
 * @family: 4 or 6
 * @switch_id: switch_ID of the congested hop
 * @port_id: port_ID of its congested port
 * @rate: bits per second, 1 to HPCC_RATE_MAX
 * @ts: the hop's clock when it queued the message, ns
 * @seq: TCP sequence number of a data segment of the flow (the nonce)
 * @round: the port's FCR round
 * @interval: the hop's time between rounds, us, 1 to HPCC_FCR_INTERVAL_MAX
 * @sport: the flow's source port
 * @dport: the flow's destination port
 * @saddr: the flow's source address, IPv4-mapped for family 4
 * @daddr: the flow's destination address, the same way
 */
struct hpcc_fcr_msg {
	u8 family;
	u32 switch_id;
	u32 port_id;
	u64 rate;
	u64 ts;
	u32 seq;
	u32 round;
	u32 interval;
	u16 sport;
	u16 dport;
	u8 saddr[16];
	u8 daddr[16];
};

/**
 * enum hpcc_fcr_err - why hpcc_fcr_decode() refused a message
 * @HPCC_FCR_OK: a valid message
 * @HPCC_FCR_E_SHORT: fewer than HPCC_WIRE_FCR_LEN bytes
 * @HPCC_FCR_E_HEADER: magic, version or type not an FCR's
 * @HPCC_FCR_E_FAMILY: family neither 4 nor 6, or 4 with an address that is
 *	not IPv4-mapped
 * @HPCC_FCR_E_RATE: rate 0 or above HPCC_RATE_MAX
 * @HPCC_FCR_E_INTERVAL: interval 0 or above HPCC_FCR_INTERVAL_MAX
 */
enum hpcc_fcr_err {
	HPCC_FCR_OK,
	HPCC_FCR_E_SHORT,
	HPCC_FCR_E_HEADER,
	HPCC_FCR_E_FAMILY,
	HPCC_FCR_E_RATE,
	HPCC_FCR_E_INTERVAL,
};

static inline u32 hpcc_fcr_get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 hpcc_fcr_get64(const u8 *p)
{
	return (u64)hpcc_fcr_get32(p) << 32 | hpcc_fcr_get32(p + 4);
}

static inline void hpcc_fcr_put32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void hpcc_fcr_put64(u8 *p, u64 v)
{
	hpcc_fcr_put32(p, v >> 32);
	hpcc_fcr_put32(p + 4, (u32)v);
}

static inline u16 hpcc_fcr_get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline void hpcc_fcr_put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = (u8)v;
}

/* Whether @a is an IPv4-mapped IPv6 address, ::ffff:a.b.c.d. */
static inline bool hpcc_fcr_mapped(const u8 *a)
{
	int i;

	for (i = 0; i < 10; i++)
		if (a[i])
			return false;
	return a[10] == 0xff && a[11] == 0xff;
}

bool hpcc_fcr_get_addrs(const u8 *s, const u8 *d, u8 family,
			u8 *saddr, u8 *daddr);

/* Offsets of struct hpcc_wire_fcr's fields. */
enum {
	HPCC_FCR_O_MAGIC = 0,
	HPCC_FCR_O_VERSION = 4,
	HPCC_FCR_O_TYPE = 5,
	HPCC_FCR_O_FAMILY = 6,
	HPCC_FCR_O_FLAGS = 7,
	HPCC_FCR_O_SWITCH = 8,
	HPCC_FCR_O_PORT = 12,
	HPCC_FCR_O_RATE = 16,
	HPCC_FCR_O_TS = 24,
	HPCC_FCR_O_SEQ = 32,
	HPCC_FCR_O_ROUND = 36,
	HPCC_FCR_O_SPORT = 40,
	HPCC_FCR_O_DPORT = 42,
	HPCC_FCR_O_INTERVAL = 44,
	HPCC_FCR_O_SADDR = 48,
	HPCC_FCR_O_DADDR = 64,
};

int hpcc_fcr_decode(const u8 *b, unsigned int len,
		    struct hpcc_fcr_msg *m);

void hpcc_fcr_encode(u8 *b, const struct hpcc_fcr_msg *m);

/**
 * struct hpcc_fcr_prefix - one prefix of the managed domain
 * @addr: the prefix, IPv6 or IPv4-mapped (an IPv4 a.b.c.d/n is
 *	::ffff:a.b.c.d/96+n); bits after @plen are 0
 * @plen: its length in bits, 0 to 128 (IPv4-mapped: 96 to 128)
 */
struct hpcc_fcr_prefix {
	u8 addr[16];
	u8 plen;
};

bool hpcc_fcr_prefix_match(const u8 *a,
			   const struct hpcc_fcr_prefix *p);

bool hpcc_fcr_in_domain(const u8 *a,
			const struct hpcc_fcr_prefix *p,
			unsigned int n);

/**
 * hpcc_fcr_in_window() - whether a message's sequence number names data
 *	the flow has sent and not yet seen acknowledged: from @una to @nxt,
 *	@nxt excluded, in serial number arithmetic.  A hop echoes the first
 *	sequence number of a data segment it forwards (struct
 *	hpcc_wire_fcr.seq), so a message from the flow's path names a byte in
 *	flight; the range is the one tcp_v4_err() accepts for ICMP errors
 *	(between(seq, snd_una, snd_nxt)), less snd_nxt, which no data segment
 *	starts at.  A blind sender must guess a sequence number among at most
 *	a window's worth of 2^32.
 * @seq: the message's sequence number
 * @una: the flow's snd_una
 * @nxt: its snd_nxt
 *
 * Return: true when @seq lies in that range (never when @una == @nxt).
 */
static inline bool hpcc_fcr_in_window(u32 seq, u32 una, u32 nxt)
{
	return (u32)(seq - una) < (u32)(nxt - una);
}

/**
 * hpcc_fcr_src_ok() - whether a datagram's source address may be a hop's
 * @src: the source address, IPv6, or IPv4-mapped for an IPv4 datagram
 * @ipv6: the datagram is IPv6
 *
 * An IPv6 datagram from an IPv4-mapped address (::ffff:a.b.c.d) would
 * match the IPv4 managed prefixes and the MAC keys of IPv4 hops, which
 * store their prefixes that way: refused.  (Linux drops such datagrams
 * in ip6_rcv_core() already; this check does not rely on it.)
 *
 * Return: false for an IPv4-mapped source of an IPv6 datagram.
 */
static inline bool hpcc_fcr_src_ok(const u8 *src, bool ipv6)
{
	return !ipv6 || !hpcc_fcr_mapped(src);
}

/**
 * struct hpcc_fcr_hold - a rate a sender holds for one flow from one
 *	congested port
 * @switch_id: the hop's switch_ID
 * @port_id: its port_ID
 * @round: the round of the message it came in
 * @seq: the message's sequence number (checked against the flow's window
 *	before the message was taken, hpcc_fcr_in_window())
 * @rate: bits per second; 0: the slot is free
 * @ts: the message's ts, the hop's clock, ns
 * @rx: when the message arrived, ns (the caller's @now)
 * @until: when the hold ends, ns (the arrival plus twice the hop's
 *	interval, at most the sender's fcr hold-max)
 */
struct hpcc_fcr_hold {
	u32 switch_id;
	u32 port_id;
	u32 round;
	u32 seq;
	u64 rate;
	u64 ts;
	u64 rx;
	u64 until;
};

/**
 * enum hpcc_fcr_put_res - what hpcc_fcr_hold_put() did with a message
 * @HPCC_FCR_PUT_NEW: took a free or expired slot
 * @HPCC_FCR_PUT_UPDATED: replaced the same port's older round
 * @HPCC_FCR_PUT_OLD: the same port's hold, in force or ended, has this
 *	round or a newer one: nothing changed (a duplicate, a reordered
 *	message or a replay)
 * @HPCC_FCR_PUT_REPLACED: every slot held, by other ports: replaced the
 *	one with the highest rate, which was above this message's
 * @HPCC_FCR_PUT_FULL: every slot held by other ports with rates at or
 *	below this message's: nothing changed (the lowest rates are kept)
 */
enum hpcc_fcr_put_res {
	HPCC_FCR_PUT_NEW,
	HPCC_FCR_PUT_UPDATED,
	HPCC_FCR_PUT_OLD,
	HPCC_FCR_PUT_REPLACED,
	HPCC_FCR_PUT_FULL,
};

int hpcc_fcr_hold_put(struct hpcc_fcr_hold *h,
		      const struct hpcc_fcr_msg *m, u64 now,
		      u64 hold_max);

u64 hpcc_fcr_lowest(const struct hpcc_fcr_hold *h, u64 now);

#endif /* _HPCC_FCR_H */
