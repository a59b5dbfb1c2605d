/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_ccm.h - Coordinated Congestion Management (draft-lyu-rtgwg-
 * coordinated-congestion-management) and host-driven path migration
 * (draft-pan-tsvwg-hpccplus section 9.4): the notification codec and the
 * host's coordination rule, which answers a congested sample with a path
 * change, a wait or HPCC's rate decrease.
 *
 * One source for the kernel and for userspace (unit tests, the fuzz
 * target): functions in hpcc_ccm.c with no kernel or libc dependency, like
 * hpcc_fcr.h, whose byte helpers and address checks it shares.  The
 * message is struct hpcc_wire_ccm (include/uapi/linux/hpcc_wire.h);
 * Documentation/design.rst, "Coordinated Congestion Management", has the
 * rules.
 */
#ifndef _HPCC_CCM_H
#define _HPCC_CCM_H

#include "hpcc_fcr.h"

#define HPCC_CCM_PROTO_TCP	6	/* IPPROTO_TCP, without the kernel's header */
#define HPCC_CCM_LABEL_MAX	0xfffffU	/* an IPv6 flow label's 20 bits */

/**
 * struct hpcc_ccm_msg - a decoded CCM notification, host byte order
 * @family: 4 or 6
 * @ntype: enum hpcc_wire_ccm_type, 1 to 3
 * @switch_id: switch_ID of the notifying hop
 * @port_id: port_ID of its congested port
 * @ts: the hop's clock when it queued the notification, ns
 * @seq: TCP sequence number of a data segment of the flow (the nonce)
 * @flowlabel: the IPv6 flow label the hop saw, 0 to HPCC_CCM_LABEL_MAX; 0
 *	for family 4
 * @sport: the flow's source port
 * @dport: the flow's destination port
 * @saddr: the flow's source address, IPv4-mapped for family 4
 * @daddr: the flow's destination address, the same way
 */
struct hpcc_ccm_msg {
	u8 family;
	u8 ntype;
	u32 switch_id;
	u32 port_id;
	u64 ts;
	u32 seq;
	u32 flowlabel;
	u16 sport;
	u16 dport;
	u8 saddr[16];
	u8 daddr[16];
};

/**
 * enum hpcc_ccm_err - why hpcc_ccm_decode() refused a notification
 * @HPCC_CCM_OK: a valid notification
 * @HPCC_CCM_E_SHORT: fewer than HPCC_WIRE_CCM_LEN bytes
 * @HPCC_CCM_E_HEADER: magic, version or type not a CCM notification's
 * @HPCC_CCM_E_NTYPE: notification type not 1, 2 or 3
 * @HPCC_CCM_E_FAMILY: family neither 4 nor 6, or 4 with an address that
 *	is not IPv4-mapped, or 6 with one that is
 * @HPCC_CCM_E_PROTO: the flow key's protocol is not TCP
 * @HPCC_CCM_E_LABEL: a flow label above 20 bits, or not 0 for family 4
 */
enum hpcc_ccm_err {
	HPCC_CCM_OK,
	HPCC_CCM_E_SHORT,
	HPCC_CCM_E_HEADER,
	HPCC_CCM_E_NTYPE,
	HPCC_CCM_E_FAMILY,
	HPCC_CCM_E_PROTO,
	HPCC_CCM_E_LABEL,
};

/* Offsets of struct hpcc_wire_ccm's fields. */
enum {
	HPCC_CCM_O_MAGIC = 0,
	HPCC_CCM_O_VERSION = 4,
	HPCC_CCM_O_TYPE = 5,
	HPCC_CCM_O_FAMILY = 6,
	HPCC_CCM_O_NTYPE = 7,
	HPCC_CCM_O_SWITCH = 8,
	HPCC_CCM_O_PORT = 12,
	HPCC_CCM_O_TS = 16,
	HPCC_CCM_O_SEQ = 24,
	HPCC_CCM_O_LABEL = 28,
	HPCC_CCM_O_SPORT = 32,
	HPCC_CCM_O_DPORT = 34,
	HPCC_CCM_O_PROTO = 36,
	HPCC_CCM_O_FLAGS = 37,
	HPCC_CCM_O_RESERVED = 38,
	HPCC_CCM_O_SADDR = 40,
	HPCC_CCM_O_DADDR = 56,
};

int hpcc_ccm_decode(const u8 *b, unsigned int len,
		    struct hpcc_ccm_msg *m);

void hpcc_ccm_encode(u8 *b, const struct hpcc_ccm_msg *m);

/**
 * struct hpcc_ccm_cfg - the coordination rule's parameters (per network
 *	namespace)
 * @samples: congested samples in a row at a hop other than the last
 *	before the host changes the flow's path on its own telemetry (HPCC++
 *	section 9.4), 1 to 255; the samples before it wait (no decrease)
 * @tries: path changes a flow may make in a burst before the rate law
 *	takes over ("the rate decrease only when no change helped"), 0 to
 *	255; one is given back per 2^HPCC_CCM_REFILL_SHIFT x @gap_rtts RTTs
 *	without a change (hpcc_ccm_refill()); 0: never change the path
 *	(plain HPCC)
 * @gap_rtts: fewest RTTs between two path changes of a flow, 1 to 255:
 *	the new path's telemetry needs a round trip to show whether it helped
 * @pause_ns: no path change for this long after an RTO, ns (PLB's
 *	tcp_plb_suspend_rto_sec: a path that loses everything is likely
 *	broken, and changing it again and again only churns)
 */
struct hpcc_ccm_cfg {
	u8 samples;
	u8 tries;
	u8 gap_rtts;
	u64 pause_ns;
};

/**
 * struct hpcc_ccm_flow - a flow's coordination state
 * @last_change: when its path last changed, ns; 0: never
 * @pause_until: no path change before this, ns (after an RTO)
 * @refill_ts: when a try was last given back (hpcc_ccm_refill()), ns;
 *	0: never
 * @incast_ts: when its telemetry last showed incast (the last hop binds,
 *	or runs at eta or above), ns; 0: never
 * @streak_ts: when the current streak of congested samples began, ns
 * @changes: path changes, in all
 * @cc: the CC indicator (set by a type 1 notification, cleared by a type
 *	2): the flow is incast, congestion is answered by the rate alone
 * @streak: congested samples in a row at a hop other than the last
 * @tried: tries in use, 0 to the cfg's tries: one more at each path
 *	change, one given back per HPCC_CCM_REFILL base gaps without a change
 *	(hpcc_ccm_refill())
 */
struct hpcc_ccm_flow {
	u64 last_change;
	u64 pause_until;
	u64 refill_ts;
	u64 incast_ts;
	u64 streak_ts;
	u32 changes;
	u8 cc;
	u8 streak;
	u8 tried;
};

/**
 * struct hpcc_ccm_sample - what one telemetry sample says, for the rule
 * @now: its time, ns (monotonic; 0 is never a time)
 * @rtt_ns: the flow's RTT (T), ns
 * @congested: U above 1 at the binding hop, a standing queue, or U at
 *	least eta there with the flow's W below ccm-share of the hop's
 *	B x T, a saturated hop it shares (the module's choice: not merely
 *	U above eta, where a flow alone at its bottleneck runs)
 * @last_hop: the binding hop (the one with the highest U) is the path's
 *	last (the port toward the destination: incast, section 6.3.1)
 * @last_busy: the path's last hop runs at eta or above (u' of that hop,
 *	struct hpcc_flow's u_last), whichever hop binds: the last hop is on
 *	every path, so a flow it holds back is incast too, even while a
 *	busier hop of the fabric binds (without it, bench-ccm's
 *	incast-with-collision scenario saw 75 path changes of incast flows)
 * @recovery: the flow is in loss recovery
 * @rnd: a random number (the caller's; 0 in tests that want no jitter):
 *	its low bit spreads the moment flows that share a congested hop
 *	change paths (hpcc_ccm_decide())
 */
struct hpcc_ccm_sample {
	u64 now;
	u64 rtt_ns;
	bool congested;
	bool last_hop;
	bool last_busy;
	bool recovery;
	u32 rnd;
};

/**
 * enum hpcc_ccm_act - what hpcc_ccm_decide() tells the flow to do
 * @HPCC_CCM_RATE: run HPCC's law as it is (the rate falls with U)
 * @HPCC_CCM_WAIT: keep W where it is: the path changed within the last
 *	gap, and the new path's telemetry is not in yet (the sample may
 *	still describe the old path)
 * @HPCC_CCM_REROUTE: change the path now (a new flow hash) and keep W;
 *	the per-hop state starts over, as the hop IDs change
 */
enum hpcc_ccm_act {
	HPCC_CCM_RATE,
	HPCC_CCM_WAIT,
	HPCC_CCM_REROUTE,
};

/**
 * hpcc_ccm_shared() - a saturated hop the flow shares (the congestion an
 *	ECMP collision shows under HPCC, which keeps such a hop near eta
 *	without a standing queue)
 * @u: U at the binding hop, Q32
 * @eta: eta, Q32
 * @w: the flow's W, bytes Q16, below 2^48
 * @bdp: the binding hop's B x T, bytes Q16, below 2^56
 * @share: percent of @bdp, 0 to 100; 0: never shared
 *
 * A flow alone at its bottleneck runs W near eta x B x T, two flows that
 * share it near half of that each; a @share below 50 leaves both alone.
 *
 * Return: @u at least @eta and @w below @share percent of @bdp.
 */
static inline bool hpcc_ccm_shared(u64 u, u64 eta, u64 w, u64 bdp, u8 share)
{
	return share && u >= eta && w * 100 < (u64)share * bdp;
}

/* the backoff's largest doubling: 2^10 gaps */
#define HPCC_CCM_BACKOFF_MAX	10
/* one try given back per 2^5 base gaps without a path change */
#define HPCC_CCM_REFILL_SHIFT	5
/* telemetry that showed incast holds for 2^2 base gaps */
#define HPCC_CCM_INCAST_SHIFT	2

/* @c->gap_rtts RTTs (at least one), ns: the gap before any backoff */
static inline u64 hpcc_ccm_base_gap(const struct hpcc_ccm_cfg *c,
				    u64 rtt_ns)
{
	return (u64)(c->gap_rtts ? c->gap_rtts : 1) * rtt_ns;
}

u64 hpcc_ccm_gap(const struct hpcc_ccm_flow *f,
		 const struct hpcc_ccm_cfg *c, u64 rtt_ns);

void hpcc_ccm_refill(struct hpcc_ccm_flow *f,
		     const struct hpcc_ccm_cfg *c,
		     u64 now, u64 rtt_ns);

/* @f's telemetry showed incast within 2^HPCC_CCM_INCAST_SHIFT base gaps */
static inline bool hpcc_ccm_incast(const struct hpcc_ccm_flow *f,
				   const struct hpcc_ccm_cfg *c,
				   u64 now, u64 rtt_ns)
{
	return f->incast_ts && now >= f->incast_ts &&
	       now - f->incast_ts <
	       hpcc_ccm_base_gap(c, rtt_ns) << HPCC_CCM_INCAST_SHIFT;
}

/*
 * A congested sample that may not change the path: within @c->gap_rtts
 * RTTs of the last change its telemetry is still coming in, so W waits
 * for it; past that (the backoff, or the tries used), HPCC's law.
 */
static inline int hpcc_ccm_settling(const struct hpcc_ccm_flow *f,
				    const struct hpcc_ccm_cfg *c,
				    const struct hpcc_ccm_sample *s)
{
	if (f->tried && s->now >= f->last_change &&
	    s->now - f->last_change < hpcc_ccm_base_gap(c, s->rtt_ns))
		return HPCC_CCM_WAIT;
	return HPCC_CCM_RATE;
}

bool hpcc_ccm_may_change(const struct hpcc_ccm_flow *f,
			 const struct hpcc_ccm_cfg *c,
			 u64 now, u64 rtt_ns, bool recovery);

/* Record a path change of @f at @now. */
static inline void hpcc_ccm_changed(struct hpcc_ccm_flow *f, u64 now)
{
	f->last_change = now ? now : 1;
	f->changes++;
	if (f->tried < 255)
		f->tried++;
	f->streak = 0;
}

int hpcc_ccm_decide(struct hpcc_ccm_flow *f,
		    const struct hpcc_ccm_cfg *c,
		    const struct hpcc_ccm_sample *s);

/**
 * hpcc_ccm_rto() - an RTO of the flow: no path change for @c->pause_ns
 *	(like PLB, which a path change after an RTO would only fight)
 * @f: the flow's state
 * @c: the parameters
 * @now: the time, ns
 */
static inline void hpcc_ccm_rto(struct hpcc_ccm_flow *f,
				const struct hpcc_ccm_cfg *c, u64 now)
{
	f->pause_until = now + c->pause_ns;
	f->streak = 0;
}

/**
 * enum hpcc_ccm_note_res - what hpcc_ccm_note() did with a notification
 * @HPCC_CCM_NOTE_CC_SET: type 1: the CC indicator is now set
 * @HPCC_CCM_NOTE_CC_CLEARED: type 2: the CC indicator is now clear
 * @HPCC_CCM_NOTE_REROUTE: type 3: change the path now (recorded)
 * @HPCC_CCM_NOTE_IGNORED: nothing changed: a type 1 or 2 that found the
 *	indicator as it asks, or a type 3 for a flow that is incast (its
 *	indicator, or its telemetry: hpcc_ccm_decide()), whose own telemetry
 *	shows its path below eta, in recovery, paused, without a try left,
 *	within the gap of its last change, or about a path it has left
 *	(another flow label), or with @c->tries 0
 */
enum hpcc_ccm_note_res {
	HPCC_CCM_NOTE_CC_SET,
	HPCC_CCM_NOTE_CC_CLEARED,
	HPCC_CCM_NOTE_REROUTE,
	HPCC_CCM_NOTE_IGNORED,
};

int hpcc_ccm_note(struct hpcc_ccm_flow *f,
		  const struct hpcc_ccm_cfg *c,
		  const struct hpcc_ccm_msg *m, u64 now,
		  u64 rtt_ns, bool recovery, u32 label,
		  bool busy);

bool hpcc_ccm_ar_allow(u64 *last, u64 gap, u64 now);

/**
 * struct hpcc_ccm_pend - the notifications a flow received and has not
 *	acted on yet (the receiving hook takes them, the ACK path, which
 *	holds the socket, acts on them)
 * @cc: the newest type 1 or 2 (its notification type); 0: none
 * @ar: 1: a type 3 is pending
 * @cc_seq: @cc's sequence number (checked against the flow's window
 *	before it was taken, hpcc_fcr_in_window())
 * @ar_seq: the type 3's sequence number
 * @ar_label: the flow label the type 3 names (the path the hop saw)
 * @ar_switch: the type 3's switch_ID (the congested hop)
 * @ar_port: the type 3's port_ID
 * @last_switch: switch_ID of the last notification taken (kept after the
 *	flow acted on it, against replays)
 * @last_port: its port_ID
 * @last_seq: its sequence number
 * @last_ts: its ts, the hop's clock, ns; 0 with the others: none taken
 */
struct hpcc_ccm_pend {
	u8 cc;
	u8 ar;
	u32 cc_seq;
	u32 ar_seq;
	u32 ar_label;
	u32 ar_switch;
	u32 ar_port;
	u32 last_switch;
	u32 last_port;
	u32 last_seq;
	u64 last_ts;
};

bool hpcc_ccm_pend_put(struct hpcc_ccm_pend *p,
		       const struct hpcc_ccm_msg *m);

int hpcc_ccm_pend_take(struct hpcc_ccm_pend *p,
		       struct hpcc_ccm_msg out[2]);

#endif /* _HPCC_CCM_H */
