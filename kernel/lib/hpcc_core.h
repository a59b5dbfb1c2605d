/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_core.h - the HPCC++ control law in integer fixed point.
 *
 * One source compiled into tcp_hpcc.ko and into userspace (hpcc-replay, unit
 * tests, fuzzers).  No kernel or libc dependency: only fixed-width integer
 * types, which the kernel's <linux/types.h> or the compiler's <stdint.h>
 * provide.  No floating point.
 *
 * Implements draft-miao-ccwg-hpcc section 4.2: MeasureInflight (Figure 4),
 * ComputeWind (Figure 5), NewAck (Figure 6), and NewINT (Figure 8, the
 * receiver-based variant, section 6.3.2).  The exact rules, including the
 * cases the figures leave open, are in Documentation/algorithm.rst.
 *
 * Units and fixed point:
 *   U, eta      Q32 (1.0 == 1 << 32); U is capped at HPCC_U_MAX
 *   W, Wc, W_ai bytes in Q16 (1 byte == 1 << 16)
 *   T, ts       nanoseconds
 *   B           bits per second
 *   qlen, txBytes  bytes
 * Supported ranges (overflow-free, every division guarded): B up to
 * 1.6 Tbit/s (larger values are computed exactly too), T from 1 us to
 * 100 ms, W up to 1 GiB, 1..HPCC_MAX_HOPS hops, ts/txBytes/qlen anywhere in
 * 64 bits.
 */
#ifndef _HPCC_CORE_H
#define _HPCC_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include "hpcc_user.h"	/* tools/include: the same names from <stdint.h> */
#endif
/*
 * HPCC_MAX_HOPS, the parameters' limits and enum hpcc_step, shared with the
 * netlink API
 */
#include <linux/hpcc.h>

#define HPCC_U_SHIFT		32
#define HPCC_U_ONE		BIT_ULL(HPCC_U_SHIFT)
/* U and u' saturate here: 2^17 times the capacity, far beyond any use. */
#define HPCC_U_MAX		BIT_ULL(HPCC_U_SHIFT + 17)
#define HPCC_W_SHIFT		16

/*
 * Parameter ranges (inclusive) accepted by hpcc_params_valid(), from the
 * netlink API's limits (linux/hpcc.h): HPCC_MAX_STAGE_MAX,
 * HPCC_EWMA_PERIOD_MIN/MAX (percent of T) and HPCC_W_MIN_MIN (bytes) as
 * they are; T and eta in the core's units.
 */
#define HPCC_T_MIN_NS		1000ULL			/* 1 us */
#define HPCC_T_MAX_NS		(HPCC_T_MAX * 1000ULL)	/* 100 ms */
#define HPCC_ETA_MIN		(HPCC_U_ONE * HPCC_ETA_MIN_PERMILLE / 1000) /* 0.5 */
#define HPCC_ETA_MAX		(HPCC_U_ONE * HPCC_ETA_MAX_PERMILLE / 1000) /* 1.0 */
/* HPCC_W_MAX (linux/hpcc.h, 1 GiB) as an unsigned long long */
#define HPCC_W_MAX_MAX		(1ULL * HPCC_W_MAX)

/* Defaults: the draft's where it gives them (eta, maxStage: Figure 3). */
#define HPCC_DEFAULT_T_NS	100000ULL		/* 100 us */
#define HPCC_DEFAULT_ETA_PERMILLE 950			/* 0.95 */
#define HPCC_DEFAULT_MAX_STAGE	5
#define HPCC_DEFAULT_EWMA_PCT	100			/* the draft's */
#define HPCC_DEFAULT_LINE_RATE_BPS 10000000000ULL	/* 10 Gbit/s */
#define HPCC_DEFAULT_W_MIN	3000ULL			/* bytes */
/* N in the rule of thumb W_ai = W_init * (1 - eta) / N (section 5). */
#define HPCC_DEFAULT_N_FLOWS	16
/*
 * The largest N, configured or receiver reported (the wire's 16-bit
 * field), is HPCC_N_FLOWS_MAX of linux/hpcc.h.
 */

/**
 * struct hpcc_hop - one hop's telemetry record (an INT hop's stamp)
 * @ts: timestamp when the record was stamped, ns (any 64-bit origin)
 * @tx_bytes: txBytes, bytes the egress port had transmitted at @ts
 * @qlen: egress queue length at @ts, bytes
 * @rate_bps: B, the egress link capacity, bits per second; 0 = unknown
 *	(the hop is skipped: hpccd fills B from its capacity table or its
 *	default when an encoding has none)
 * @switch_id: switch_ID of the hop
 * @port_id: port_ID, the egress port
 * @flags: HPCC_HOP_* bits; 0 for a full record (the project's own)
 * @tx_util: the egress port's Tx utilization, Q16 (1.0 == 65536), when
 *	@flags has HPCC_HOP_TX_UTIL
 *
 * A zeroed @flags is a full record, so every filler that predates partial
 * telemetry stays correct.  The rules for a partial one are
 * Documentation/algorithm.rst, "Partial telemetry".
 */
struct hpcc_hop {
	u64 ts;
	u64 tx_bytes;
	u64 qlen;
	u64 rate_bps;
	u32 switch_id;
	u32 port_id;
	u32 flags;
	u32 tx_util;
};

/* struct hpcc_hop @flags: txBytes absent (INT-MD, IFA, IOAM have none) */
#define HPCC_HOP_NO_TX_BYTES	BIT(0)
/* @tx_util is valid (INT-MD bit 7); used only when txBytes is absent */
#define HPCC_HOP_TX_UTIL	BIT(1)
#define HPCC_HOP_FLAGS		(HPCC_HOP_NO_TX_BYTES | HPCC_HOP_TX_UTIL)
/* Tx utilization's unit: Q16 */
#define HPCC_TX_UTIL_SHIFT	16

/**
 * struct hpcc_params - HPCC++ parameters (draft section 5, Figure 3)
 * @t_ns: T, the known base RTT, ns [HPCC_T_MIN_NS, HPCC_T_MAX_NS]
 * @eta: target utilization, Q32 [HPCC_ETA_MIN, HPCC_ETA_MAX]
 * @max_stage: maxStage, AI steps before an MI/MD step [0, HPCC_MAX_STAGE_MAX]
 * @w_ai: W_ai, additive increase, bytes Q16, at most @w_init
 * @w_init: W_init, the initial window and also W_max, bytes Q16
 *	[@w_min, HPCC_W_MAX_MAX]
 * @w_min: W_min, the smallest window, bytes Q16 [HPCC_W_MIN_MIN, @w_init]
 * @ewma_pct: the period of U's EWMA, T_U, in percent of T: tau =
 *	min(tau, T_U), U = (1 - tau/T_U) * U + (tau/T_U) * u.  0 and 100 are
 *	the draft's T_U = T (section 4.2, Figure 4 lines 8-9); up to
 *	HPCC_EWMA_PERIOD_MAX (Documentation/algorithm.rst, "U's period")
 */
struct hpcc_params {
	u64 t_ns;
	u64 eta;
	u32 max_stage;
	u64 w_ai;
	u64 w_init;
	u64 w_min;
	u32 ewma_pct;
};

/**
 * struct hpcc_flow - per-flow HPCC++ state
 * @u: U, normalized inflight bytes (EWMA), Q32
 * @w: W, the window, bytes Q16
 * @wc: Wc, the reference window, bytes Q16
 * @inc_stage: incStage, AI steps since the last MI/MD step
 * @last_update_seq: lastUpdateSeq (NewAck), TCP sequence number
 * @last_update_time: lastUpdateTime (NewINT), ns
 * @nhop: number of records in @l; 0 before the first sample
 * @bind_hop: the binding hop, whose u' was the largest (u) in the last
 *	MeasureInflight that updated U, numbered from 1 (first hop); 0 until
 *	one did.  The hpcc_sample tracepoint shows it; the coordination rule
 *	(hpcc_ccm_decide()) tells incast from it (the last hop binds).
 * @u_last: u' of the path's last hop in the last MeasureInflight that
 *	updated U, Q32 (not smoothed, at most HPCC_U_MAX); 0 when that hop
 *	was skipped.  The coordination rule reads a last hop at eta or
 *	above as incast even when another hop binds: the last hop is on
 *	every path, so no path change relieves it.
 * @n_flows: N of this flow's W_ai (hpcc_flow_set_n()); 0: the
 *	parameters' W_ai
 * @w_ai: this flow's W_ai, bytes Q16, from @n_flows by the rule of thumb
 *	(section 5: "N is the expected or receiver reported maximum number of
 *	concurrent flows on a link"); 0: the parameters' W_ai
 * @u_rx: 1 while U comes from the receiver (hpcc_new_ack_u(), the privacy
 *	mode that sends only U): the flow holds no records, and the next
 *	sample with records is its first
 * @l: L, the previous sample's hop records
 */
struct hpcc_flow {
	u64 u;
	u64 w;
	u64 wc;
	u32 inc_stage;
	u32 last_update_seq;
	u64 last_update_time;
	u32 nhop;
	u32 bind_hop;
	u64 u_last;
	u32 n_flows;
	u32 u_rx;
	u64 w_ai;
	struct hpcc_hop l[HPCC_MAX_HOPS];
};

void hpcc_params_default(struct hpcc_params *p);
bool hpcc_params_valid(const struct hpcc_params *p);
u64 hpcc_w_ai_rule_of_thumb(u64 w_init, u64 eta, u32 n_flows);
u64 hpcc_bdp(u64 rate_bps, u64 t_ns);
void hpcc_flow_init(struct hpcc_flow *f, const struct hpcc_params *p);
u32 hpcc_n_select(u32 source, u32 configured, u32 reported);
void hpcc_flow_set_n(struct hpcc_flow *f, const struct hpcc_params *p,
		     u32 n_flows);
void hpcc_flow_restart(struct hpcc_flow *f, const struct hpcc_params *p, u64 w);
bool hpcc_flow_on_path(const struct hpcc_flow *f, const struct hpcc_hop *hops,
		       u32 nhop);
bool hpcc_measure_inflight(struct hpcc_flow *f, const struct hpcc_params *p,
			   const struct hpcc_hop *hops, u32 nhop);
u64 hpcc_compute_wind(struct hpcc_flow *f, const struct hpcc_params *p,
		      bool update_wc);
enum hpcc_step hpcc_new_ack(struct hpcc_flow *f, const struct hpcc_params *p,
			    u32 ack_seq, u32 snd_nxt,
			    const struct hpcc_hop *hops, u32 nhop);
enum hpcc_step hpcc_new_int(struct hpcc_flow *f, const struct hpcc_params *p,
			    u64 now_ns, const struct hpcc_hop *hops, u32 nhop);
enum hpcc_step hpcc_measure_sample(struct hpcc_flow *f,
				   const struct hpcc_params *p,
				   const struct hpcc_hop *hops, u32 nhop);
enum hpcc_step hpcc_new_ack_u(struct hpcc_flow *f, const struct hpcc_params *p,
			      u32 ack_seq, u32 snd_nxt, u64 u);
u64 hpcc_mul_div(u64 a, u64 b, u64 c);

#endif /* _HPCC_CORE_H */
