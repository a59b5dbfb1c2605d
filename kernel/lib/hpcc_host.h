/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_host.h - the host's rules around the control law, pure integer
 * arithmetic shared by tcp_hpcc.ko (kernel/tcp_hpcc/cc.c) and the ns-3
 * model (sim/ns3/): the HPCC++ output (W to a window in segments and the
 * pacing rate W/T, draft-miao-ccwg-hpcc section 4.2), the staleness rule
 * that hands a flow to the fallback law, the idle period the staleness
 * clock skips, the window an FCR rate leaves (kernel/tcp_hpcc/fcr.c), and
 * the sample the CCM coordination rule reads (kernel/tcp_hpcc/ccm.c).
 * Documentation/design.rst, "The control law in the kernel", "Fallback
 * law", "Idle restart", "Fast Congestion Response" and "Coordinated
 * Congestion Management" give the rules.
 *
 * Units: times in ns (any 64-bit origin, compared by signed difference),
 * W in bytes Q16 (HPCC_W_SHIFT), rates in bytes per second.
 */
#ifndef _HPCC_HOST_H
#define _HPCC_HOST_H

#include "hpcc_ccm.h"
#include "hpcc_core.h"
#include "hpcc_fcr.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#define HPCC_HOST_DIV64(a, b)	div64_u64(a, b)
#else
#define HPCC_HOST_DIV64(a, b)	((a) / (b))
#endif

/**
 * hpcc_host_rtt() - one RTT for the staleness rule: srtt, but at least T
 * @srtt_ns: the connection's smoothed RTT, ns; 0 before the first sample
 * @t_ns: T, the base RTT parameter, ns
 * Return: max(@srtt_ns, @t_ns), ns.
 */
static inline u64 hpcc_host_rtt(u64 srtt_ns, u64 t_ns)
{
	return srtt_ns > t_ns ? srtt_ns : t_ns;
}

/**
 * hpcc_host_last_news() - when the flow last had news: the later of its
 * newest telemetry's arrival and @active_time (its start, moved forward
 * over idle periods by hpcc_host_idle_end())
 * @active_time: the staleness floor, ns
 * @has_tlm: whether any telemetry has arrived
 * @tlm_time: the newest telemetry's arrival, ns (read only with @has_tlm)
 * Return: the time the staleness rule counts from, ns.
 */
static inline u64 hpcc_host_last_news(u64 active_time, bool has_tlm,
				      u64 tlm_time)
{
	if (has_tlm && (s64)(tlm_time - active_time) > 0)
		return tlm_time;
	return active_time;
}

/**
 * hpcc_host_stale() - whether the flow's telemetry is stale: more than
 * @stale_rtts RTTs with data in flight since @news
 * @now: the current time, ns
 * @news: hpcc_host_last_news(), ns
 * @stale_rtts: the stale-rtts parameter [1, HPCC_STALE_RTTS_MAX]
 * @rtt_ns: hpcc_host_rtt(), ns (at least T, so at most 10^8)
 * Return: true when the flow falls back to the conventional law.
 */
static inline bool hpcc_host_stale(u64 now, u64 news, u32 stale_rtts,
				   u64 rtt_ns)
{
	return (s64)(now - news) > (s64)(stale_rtts * rtt_ns);
}

/**
 * hpcc_host_idle_end() - the staleness floor when sending resumes after an
 * idle period: @news moved forward by the idle time (hpccd probes only
 * while data is in flight, so idle time is no gap in telemetry), at most
 * @now
 * @news: hpcc_host_last_news() when the idle period ends, ns
 * @idle_since: when the flow last had nothing in flight, ns
 * @now: the current time, ns
 * Return: the new @active_time for hpcc_host_last_news(), ns.
 */
static inline u64 hpcc_host_idle_end(u64 news, u64 idle_since, u64 now)
{
	u64 moved = news + (now - idle_since);

	return (s64)(moved - now) < 0 ? moved : now;
}

/**
 * hpcc_host_cwnd() - the window in segments for W: W / mss, at least 2 and
 * at most max(@clamp, 2)
 * @w: W, bytes Q16 (at most HPCC_W_MAX_MAX << HPCC_W_SHIFT)
 * @mss: the sender's segment size, bytes; 0 is taken as 1
 * @clamp: the connection's window clamp, segments
 * Return: the congestion window, segments.
 */
static inline u32 hpcc_host_cwnd(u64 w, u32 mss, u32 clamp)
{
	u64 cwnd = HPCC_HOST_DIV64(w >> HPCC_W_SHIFT, mss ? mss : 1);
	u32 max = clamp > 2 ? clamp : 2;

	if (cwnd < 2)
		return 2;
	return cwnd > max ? max : (u32)cwnd;
}

/**
 * hpcc_host_pacing_rate() - the pacing rate R = W / T (draft-miao-ccwg-hpcc
 * section 4.2) times @gain_pct / 100
 * @w: W, bytes Q16 (at most 1 GiB: W * 10^9 / 100 * gain fits in 64 bits
 *	for @gain_pct up to HPCC_PACING_GAIN_MAX)
 * @gain_pct: the pacing-gain parameter, percent [HPCC_PACING_GAIN_MIN,
 *	HPCC_PACING_GAIN_MAX]
 * @t_ns: T, ns [HPCC_T_MIN_NS, HPCC_T_MAX_NS]
 * Return: bytes per second (the caller caps it at its maximum).
 */
static inline u64 hpcc_host_pacing_rate(u64 w, u32 gain_pct, u64 t_ns)
{
	return HPCC_HOST_DIV64((w >> HPCC_W_SHIFT) * 1000000000ULL / 100 *
			       gain_pct, t_ns);
}

/**
 * hpcc_host_fcr_window() - the window the lowest FCR rate held leaves a
 * flow: R x T, at least HPCC_FCR_W_MIN_MSS segments (enough in flight for
 * three duplicate ACKs and fast retransmit), at most HPCC_W_MAX_MAX
 * (draft-even-tsvwg-datacenter-fast-congestion section 4: the sender
 * sends at most at the rate)
 * @rate_bps: R, bit/s [1, HPCC_RATE_MAX]
 * @t_ns: T, ns [HPCC_T_MIN_NS, HPCC_T_MAX_NS]
 * @mss: the sender's segment size, bytes
 * Return: the window, bytes.
 */
static inline u64 hpcc_host_fcr_window(u64 rate_bps, u64 t_ns, u32 mss)
{
	u64 w = hpcc_mul_div(rate_bps, t_ns, 8ULL * 1000000000ULL);
	u64 lo = (u64)HPCC_FCR_W_MIN_MSS * mss;

	if (w < lo)
		w = lo;
	return w > HPCC_W_MAX_MAX ? HPCC_W_MAX_MAX : w;
}

/**
 * hpcc_host_ccm_sample() - the coordination rule's sample (struct
 * hpcc_ccm_sample, for hpcc_ccm_decide()) from the NewAck just run
 * @f: the flow's core state after NewAck
 * @p: its parameters (eta, T)
 * @w0: W before NewAck, bytes Q16 (the window the sample ran under; at
 *	most 1 GiB)
 * @share: the ccm-share parameter, percent [0, 100]; 0: a saturated hop
 *	the flow shares is no congestion
 * @now: the sample's time, ns
 * @rtt_ns: hpcc_host_rtt(), ns
 * @s: filled in; @s->rnd and @s->recovery are left 0 for the caller
 *
 * Congested is U above 1 at the binding hop (a standing queue) or a
 * saturated hop the flow shares (hpcc_ccm_shared(): U at least eta there
 * and @w0 below @share percent of its B x T): HPCC keeps a hop several
 * flows share near eta without a standing queue, so U above 1 alone
 * misses an ECMP collision, while a flow alone at its bottleneck runs U
 * near eta and must not take itself for congestion to flee.
 */
static inline void hpcc_host_ccm_sample(const struct hpcc_flow *f,
					const struct hpcc_params *p, u64 w0,
					u8 share, u64 now, u64 rtt_ns,
					struct hpcc_ccm_sample *s)
{
	bool shared = false;

	/* U first: most samples stop here, before the 128-bit divide (U
	 * above 1 is congestion without it); W <= 1 GiB and B x T of 1.6
	 * Tbit/s over 1 s are within the bounds hpcc_ccm_shared() needs
	 */
	if (share && f->u >= p->eta && f->u <= HPCC_U_ONE && f->bind_hop &&
	    f->bind_hop <= f->nhop && f->bind_hop <= HPCC_MAX_HOPS)
		shared = hpcc_ccm_shared(f->u, p->eta, w0,
					 hpcc_bdp(f->l[f->bind_hop - 1].rate_bps,
						  p->t_ns), share);
	/* field by field: the ns-3 model compiles this as C++ */
	s->now = now;
	s->rtt_ns = rtt_ns;
	s->congested = f->u > HPCC_U_ONE || shared;
	s->last_hop = f->bind_hop == f->nhop;
	s->last_busy = f->u_last >= p->eta;
	s->recovery = false;
	s->rnd = 0;
}

/**
 * hpcc_host_ccm_hold() - what a wait or a path change (HPCC_CCM_WAIT,
 * HPCC_CCM_REROUTE) does to the law's state: when NewAck lowered W, W, Wc
 * and incStage go back to their values before it (the sample may
 * describe the old path, and the new one's telemetry is a round trip
 * away)
 * @f: the flow's core state after NewAck
 * @w0: W before NewAck, bytes Q16
 * @wc0: Wc before NewAck, bytes Q16
 * @stage0: incStage before NewAck
 */
static inline void hpcc_host_ccm_hold(struct hpcc_flow *f, u64 w0, u64 wc0,
				      u32 stage0)
{
	if (f->w < w0) {
		f->w = w0;
		f->wc = wc0;
		f->inc_stage = stage0;
	}
}

#endif /* _HPCC_HOST_H */
