/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - tcp_hpcc's tracepoints (TRACE_SYSTEM hpcc), for perf,
 * trace-cmd, bpftrace or tracefs (events/hpcc/ under the tracing mount).
 * Documentation/admin-guide.rst, "Tracepoints", shows their use.
 *
 * hpcc:hpcc_sample - a telemetry sample was applied at an ACK (NewAck,
 *   draft-miao-ccwg-hpcc section 4.2, Figure 6), whatever its step.
 * hpcc:hpcc_mode - a flow changed mode: HPCC to FALLBACK after stale_rtts
 *   RTTs without a sample, FALLBACK to HPCC when a sample arrives.
 *
 * Both fire under the socket lock, in the ACK path; disabled, each costs a
 * static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hpcc

#if !defined(_TCP_HPCC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TCP_HPCC_TRACE_H

#include <linux/tracepoint.h>
#include <linux/hpcc.h>

#include <linux/in.h>
#include <linux/in6.h>

#include "lib/hpcc_core.h"
#include "tcp_hpcc.h"

#ifndef _HPCC_EVENTS_ADDRS
#define _HPCC_EVENTS_ADDRS
/*
 * hpcc_trace_addrs() - a flow's ends as the socket addresses %pISpc
 * prints, as the kernel's tcp tracepoints store them: "a.b.c.d:port" for
 * IPv4 (and dual-stack sockets talking IPv4), "[v6]:port" for IPv6.
 */
static inline void hpcc_trace_addrs(const struct hpcc_key *k, u8 *s, u8 *d)
{
	memset(s, 0, sizeof(struct sockaddr_in6));
	memset(d, 0, sizeof(struct sockaddr_in6));
	if (k->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)s;
		struct sockaddr_in *d4 = (struct sockaddr_in *)d;

		s4->sin_family = AF_INET;
		s4->sin_port = k->sport;
		s4->sin_addr.s_addr = k->saddr.s6_addr32[3];
		d4->sin_family = AF_INET;
		d4->sin_port = k->dport;
		d4->sin_addr.s_addr = k->daddr.s6_addr32[3];
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)s;
		struct sockaddr_in6 *d6 = (struct sockaddr_in6 *)d;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = k->sport;
		s6->sin6_addr = k->saddr;
		d6->sin6_family = AF_INET6;
		d6->sin6_port = k->dport;
		d6->sin6_addr = k->daddr;
	}
}
#endif

TRACE_DEFINE_ENUM(HPCC_STEP_BAD);
TRACE_DEFINE_ENUM(HPCC_STEP_FIRST);
TRACE_DEFINE_ENUM(HPCC_STEP_PATH_CHANGE);
TRACE_DEFINE_ENUM(HPCC_STEP_SKIPPED);
TRACE_DEFINE_ENUM(HPCC_STEP_W);
TRACE_DEFINE_ENUM(HPCC_STEP_WC);
TRACE_DEFINE_ENUM(HPCC_MODE_HPCC);
TRACE_DEFINE_ENUM(HPCC_MODE_FALLBACK);

#define hpcc_show_step(s)						\
	__print_symbolic(s,						\
			 { HPCC_STEP_BAD, "bad" },			\
			 { HPCC_STEP_FIRST, "first" },			\
			 { HPCC_STEP_PATH_CHANGE, "path-change" },	\
			 { HPCC_STEP_SKIPPED, "skipped" },		\
			 { HPCC_STEP_W, "w" },				\
			 { HPCC_STEP_WC, "wc" })

#define hpcc_show_mode(m)						\
	__print_symbolic(m,						\
			 { HPCC_MODE_HPCC, "hpcc" },			\
			 { HPCC_MODE_FALLBACK, "fallback" })

/*
 * hpcc_sample - one applied sample.  Fields: the flow's ends, local first
 * (saddr, daddr: struct sockaddr_in or sockaddr_in6, printed as
 * a.b.c.d:port or [v6]:port); step (enum hpcc_step); u_permille: U after the sample, in 1/1000
 * of the capacity (U is Q32 in the core); w, wc: W and Wc after it, bytes;
 * inc_stage: incStage; bind_hop: the hop whose u' set u, from 1 (0: no hop
 * updated U, as for the first sample); nhop: records in the sample;
 * age_ns: from the sample's arrival over netlink (telemetry-set) to this
 * ACK's clock (tcp_clock_cache, read when the ACK's processing began; 0
 * when the sample arrived after that); interval_ns: since the previous
 * applied sample (0 for the first);
 * srtt_us: the flow's smoothed RTT; n: N of the flow's own W_ai (0: the
 * namespace's W_ai, see n-flows-source).
 */
TRACE_EVENT(hpcc_sample,
	    TP_PROTO(const struct hpcc_ent *e, u8 step, u64 age_ns,
		     u64 interval_ns, u32 srtt_us),
	    TP_ARGS(e, step, age_ns, interval_ns, srtt_us),
	    TP_STRUCT__entry(__array(u8, saddr, sizeof(struct sockaddr_in6))
			     __array(u8, daddr, sizeof(struct sockaddr_in6))
			     __field(u8, step)
			     __field(u32, inc_stage)
			     __field(u32, bind_hop)
			     __field(u32, nhop)
			     __field(u64, u_permille)
			     __field(u64, w)
			     __field(u64, wc)
			     __field(u64, age_ns)
			     __field(u64, interval_ns)
			     __field(u32, srtt_us)
			     __field(u32, n_flows)),
	    TP_fast_assign(hpcc_trace_addrs(&e->key, __entry->saddr,
					    __entry->daddr);
			   __entry->step = step;
			   __entry->inc_stage = e->core.inc_stage;
			   __entry->bind_hop = e->core.bind_hop;
			   __entry->nhop = e->core.nhop;
			   /* U <= HPCC_U_MAX = 2^49: U * 1000 < 2^59 */
			   __entry->u_permille =
				(e->core.u * 1000) >> HPCC_U_SHIFT;
			   __entry->w = e->core.w >> HPCC_W_SHIFT;
			   __entry->wc = e->core.wc >> HPCC_W_SHIFT;
			   __entry->age_ns = age_ns;
			   __entry->interval_ns = interval_ns;
			   __entry->srtt_us = srtt_us;
			   __entry->n_flows = e->core.n_flows;),
	    TP_printk("%pISpc > %pISpc step=%s U=%llu/1000 W=%llu Wc=%llu incStage=%u hop=%u/%u age_ns=%llu interval_ns=%llu srtt_us=%u n=%u",
		      __entry->saddr, __entry->daddr,
		      hpcc_show_step(__entry->step),
		      __entry->u_permille, __entry->w, __entry->wc,
		      __entry->inc_stage, __entry->bind_hop, __entry->nhop,
		      __entry->age_ns, __entry->interval_ns, __entry->srtt_us,
		      __entry->n_flows)
);

/*
 * hpcc_mode - a mode change.  Fields: the 4-tuple; old and new mode (enum
 * hpcc_mode); cwnd: snd_cwnd in packets after the change; w: W in bytes
 * (the HPCC window left behind, or the one resumed from); since_ns: time
 * since the newest sample (or the flow's start, if none came).
 */
TRACE_EVENT(hpcc_mode,
	    TP_PROTO(const struct hpcc_ent *e, u8 old_mode, u8 new_mode,
		     u32 cwnd, u64 since_ns),
	    TP_ARGS(e, old_mode, new_mode, cwnd, since_ns),
	    TP_STRUCT__entry(__array(u8, saddr, sizeof(struct sockaddr_in6))
			     __array(u8, daddr, sizeof(struct sockaddr_in6))
			     __field(u8, old_mode)
			     __field(u8, new_mode)
			     __field(u32, cwnd)
			     __field(u64, w)
			     __field(u64, since_ns)),
	    TP_fast_assign(hpcc_trace_addrs(&e->key, __entry->saddr,
					    __entry->daddr);
			   __entry->old_mode = old_mode;
			   __entry->new_mode = new_mode;
			   __entry->cwnd = cwnd;
			   __entry->w = e->core.w >> HPCC_W_SHIFT;
			   __entry->since_ns = since_ns;),
	    TP_printk("%pISpc > %pISpc %s -> %s cwnd=%u W=%llu since_ns=%llu",
		      __entry->saddr, __entry->daddr,
		      hpcc_show_mode(__entry->old_mode),
		      hpcc_show_mode(__entry->new_mode), __entry->cwnd,
		      __entry->w, __entry->since_ns)
);

/*
 * hpcc_fcr - an ACK applied a new Fast Congestion Response rate: a message
 * that arrived since the last ACK set or changed the lowest rate in force
 * (Documentation/design.rst, "Fast Congestion Response").  Fields: the
 * 4-tuple; rate: the rate now in force, bit/s; delay_ns: from the hop's
 * timestamp of that rate's message to this ACK, and rx_ns: to its arrival
 * in the LOCAL_IN hook (both meaningful where hop and sender share a
 * clock, as the testbed's namespaces do; delay_ns - rx_ns is the wait for
 * the ACK); cwnd: snd_cwnd in packets after the cap; pacing:
 * sk_pacing_rate after it, bytes/s.
 */
TRACE_EVENT(hpcc_fcr,
	    TP_PROTO(const struct hpcc_ent *e, u64 rate, u64 delay_ns,
		     u64 rx_ns, u32 cwnd, u64 pacing),
	    TP_ARGS(e, rate, delay_ns, rx_ns, cwnd, pacing),
	    TP_STRUCT__entry(__array(u8, saddr, sizeof(struct sockaddr_in6))
			     __array(u8, daddr, sizeof(struct sockaddr_in6))
			     __field(u64, rate)
			     __field(u64, delay_ns)
			     __field(u64, rx_ns)
			     __field(u32, cwnd)
			     __field(u64, pacing)),
	    TP_fast_assign(hpcc_trace_addrs(&e->key, __entry->saddr,
					    __entry->daddr);
			   __entry->rate = rate;
			   __entry->delay_ns = delay_ns;
			   __entry->rx_ns = rx_ns;
			   __entry->cwnd = cwnd;
			   __entry->pacing = pacing;),
	    TP_printk("%pISpc > %pISpc rate=%llu delay_ns=%llu rx_ns=%llu cwnd=%u pacing=%llu",
		      __entry->saddr, __entry->daddr, __entry->rate,
		      __entry->delay_ns, __entry->rx_ns, __entry->cwnd,
		      __entry->pacing)
);

/*
 * hpcc_ccm - the coordination rule changed an IPv6 flow's path
 * (ccm.c, hpcc_ccm_step(); or a type 3 notification,
 * hpcc_ccm_rx_apply(): note 1): the flow's RTT used for the gap, and from
 * its newest sample U (Q32) at the binding hop, that hop (from 1) and the
 * path's hop count, u' of the last hop (Q32); the new flow label.
 */
TRACE_EVENT(hpcc_ccm,
	    TP_PROTO(const struct hpcc_ent *e, u64 rtt_ns, bool note),
	    TP_ARGS(e, rtt_ns, note),
	    TP_STRUCT__entry(__array(u8, saddr, sizeof(struct sockaddr_in6))
			     __array(u8, daddr, sizeof(struct sockaddr_in6))
			     __field(u64, rtt_ns)
			     __field(u64, u)
			     __field(u32, bind_hop)
			     __field(u32, nhop)
			     __field(u64, u_last)
			     __field(u32, flowlabel)
			     __field(u32, changes)
			     __field(bool, note)),
	    TP_fast_assign(hpcc_trace_addrs(&e->key, __entry->saddr,
					    __entry->daddr);
			   __entry->rtt_ns = rtt_ns;
			   __entry->u = e->core.u;
			   __entry->bind_hop = e->core.bind_hop;
			   __entry->nhop = e->core.nhop;
			   __entry->u_last = e->core.u_last;
			   __entry->flowlabel = READ_ONCE(e->flowlabel);
			   __entry->changes = e->ccm.changes;
			   __entry->note = note;),
	    TP_printk("%pISpc > %pISpc rtt_ns=%llu u=%llu hop=%u/%u u_last=%llu flowlabel=0x%05x changes=%u note=%d",
		      __entry->saddr, __entry->daddr, __entry->rtt_ns,
		      __entry->u, __entry->bind_hop, __entry->nhop,
		      __entry->u_last, __entry->flowlabel, __entry->changes,
		      __entry->note)
);

#endif /* _TCP_HPCC_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
