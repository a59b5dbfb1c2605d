// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_core.c - the HPCC++ control law in integer fixed point
 * (draft-miao-ccwg-hpcc section 4.2, Figures 4-6 and 8).
 *
 * Units, ranges and the exact rules: hpcc_core.h and
 * Documentation/algorithm.rst.
 */
#include "hpcc_core.h"

#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/math64.h>
#define HPCC_DIV64(a, b)	div64_u64(a, b)
#else
#define HPCC_DIV64(a, b)	((a) / (b))
#endif

#define HPCC_U64_MAX		(~0ULL)
/* 8e9: bits per second -> bytes per nanosecond. */
#define HPCC_BITS_NS_PER_BYTE_S	8000000000ULL

/* 128-bit arithmetic from 64-bit operations: no libgcc helper needed. */
struct hpcc_u128 {
	u64 hi;
	u64 lo;
};

static struct hpcc_u128 hpcc_mul64(u64 a, u64 b)
{
	u64 a0 = (u32)a, a1 = a >> 32, b0 = (u32)b, b1 = b >> 32;
	u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;
	struct hpcc_u128 r;

	r.lo = (mid << 32) | (u32)p00;
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

static int hpcc_clz128(struct hpcc_u128 x)
{
	if (x.hi)
		return __builtin_clzll(x.hi);
	if (x.lo)
		return 64 + __builtin_clzll(x.lo);
	return 128;
}

static struct hpcc_u128 hpcc_shl128(struct hpcc_u128 x, int s)
{
	struct hpcc_u128 r;

	if (s == 0)
		return x;
	if (s >= 64) {
		r.hi = x.lo << (s - 64);
		r.lo = 0;
	} else {
		r.hi = (x.hi << s) | (x.lo >> (64 - s));
		r.lo = x.lo << s;
	}
	return r;
}

static struct hpcc_u128 hpcc_shr128(struct hpcc_u128 x, int s)
{
	struct hpcc_u128 r;

	if (s == 0)
		return x;
	if (s >= 64) {
		r.lo = x.hi >> (s - 64);
		r.hi = 0;
	} else {
		r.lo = (x.lo >> s) | (x.hi << (64 - s));
		r.hi = x.hi >> s;
	}
	return r;
}

/*
 * hpcc_divlu() - (u1 * 2^64 + u0) / v for u1 < v (so the quotient fits in
 * 64 bits): Knuth's algorithm D on 32-bit digits (Hacker's Delight, divlu).
 */
static u64 hpcc_divlu(u64 u1, u64 u0, u64 v)
{
	const u64 b = 1ULL << 32;
	u64 un1, un0, vn1, vn0, q1, q0, un32, un21, un10, rhat;
	int s = __builtin_clzll(v);

	v <<= s;
	vn1 = v >> 32;
	vn0 = (u32)v;
	un32 = s ? (u1 << s) | (u0 >> (64 - s)) : u1;
	un10 = u0 << s;
	un1 = un10 >> 32;
	un0 = (u32)un10;

	q1 = HPCC_DIV64(un32, vn1);
	rhat = un32 - q1 * vn1;
	while (q1 >= b || q1 * vn0 > b * rhat + un1) {
		q1--;
		rhat += vn1;
		if (rhat >= b)
			break;
	}
	un21 = un32 * b + un1 - q1 * v;
	q0 = HPCC_DIV64(un21, vn1);
	rhat = un21 - q0 * vn1;
	while (q0 >= b || q0 * vn0 > b * rhat + un0) {
		q0--;
		rhat += vn1;
		if (rhat >= b)
			break;
	}
	return q1 * b + q0;
}

/*
 * hpcc_div_q() - n * 2^shift / d for 128-bit n and d, saturating at
 * U64_MAX; d == 0 saturates too.  Exact (floor) when d < 2^64 and n * 2^shift
 * fits in 128 bits; otherwise d is shifted right until it fits in 64 bits,
 * a relative error below 2^-63.
 */
static u64 hpcc_div_q(struct hpcc_u128 n, struct hpcc_u128 d, int shift)
{
	int room = hpcc_clz128(n), ds;

	if (!d.hi && !d.lo)
		return HPCC_U64_MAX;
	if (room > shift)
		room = shift;
	n = hpcc_shl128(n, room);
	shift -= room;
	/* What n could not take of the shift, d gives up. */
	if (shift) {
		if (128 - hpcc_clz128(d) <= shift)
			return HPCC_U64_MAX;
		d = hpcc_shr128(d, shift);
	}
	if (d.hi) {
		ds = 64 - __builtin_clzll(d.hi);
		d = hpcc_shr128(d, ds);
		n = hpcc_shr128(n, ds);
	}
	if (n.hi >= d.lo)
		return HPCC_U64_MAX;
	return hpcc_divlu(n.hi, n.lo, d.lo);
}

/**
 * hpcc_mul_div() - a * b / c with a 128-bit intermediate, rounded down
 * @a: factor
 * @b: factor
 * @c: divisor
 *
 * Return: floor(a * b / c), or U64_MAX when that does not fit or c is 0.
 */
u64 hpcc_mul_div(u64 a, u64 b, u64 c)
{
	struct hpcc_u128 d = { 0, c };

	return hpcc_div_q(hpcc_mul64(a, b), d, 0);
}

static u64 hpcc_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u64 hpcc_add_sat(u64 a, u64 b)
{
	return a + b < a ? HPCC_U64_MAX : a + b;
}

static u64 hpcc_clamp_w(u64 w, const struct hpcc_params *p)
{
	if (w < p->w_min)
		return p->w_min;
	if (w > p->w_init)
		return p->w_init;
	return w;
}

/**
 * hpcc_bdp() - bandwidth-delay product B * T
 * @rate_bps: B, bits per second
 * @t_ns: T, nanoseconds
 *
 * Return: B * T in bytes, Q16 (W units), saturating at U64_MAX.
 */
u64 hpcc_bdp(u64 rate_bps, u64 t_ns)
{
	struct hpcc_u128 d = { 0, HPCC_BITS_NS_PER_BYTE_S };

	return hpcc_div_q(hpcc_mul64(rate_bps, t_ns), d, HPCC_W_SHIFT);
}

/**
 * hpcc_w_ai_rule_of_thumb() - W_ai = W_init * (1 - eta) / N (section 5)
 * @w_init: W_init, bytes Q16
 * @eta: eta, Q32, at most 1.0
 * @n_flows: N, the expected number of concurrent flows on a link; 0 acts
 *	as 1
 *
 * Return: W_ai, bytes Q16.
 */
u64 hpcc_w_ai_rule_of_thumb(u64 w_init, u64 eta, u32 n_flows)
{
	u64 headroom = eta < HPCC_U_ONE ? HPCC_U_ONE - eta : 0;

	return HPCC_DIV64(hpcc_mul_div(w_init, headroom, HPCC_U_ONE),
			  n_flows ? n_flows : 1);
}

/**
 * hpcc_params_default() - the default parameters
 * @p: filled with T = 100 us, eta = 0.95 and maxStage = 5 (Figure 3),
 *	W_init = 10 Gbit/s * T, W_min = 3000 bytes, W_ai by the rule of
 *	thumb with N = 16 and U's EWMA period T_U = T (Figure 4).
 */
void hpcc_params_default(struct hpcc_params *p)
{
	p->t_ns = HPCC_DEFAULT_T_NS;
	p->eta = hpcc_mul_div(HPCC_DEFAULT_ETA_PERMILLE, HPCC_U_ONE, 1000);
	p->max_stage = HPCC_DEFAULT_MAX_STAGE;
	p->ewma_pct = HPCC_DEFAULT_EWMA_PCT;
	p->w_init = hpcc_bdp(HPCC_DEFAULT_LINE_RATE_BPS, p->t_ns);
	p->w_min = HPCC_DEFAULT_W_MIN << HPCC_W_SHIFT;
	p->w_ai = hpcc_w_ai_rule_of_thumb(p->w_init, p->eta,
					  HPCC_DEFAULT_N_FLOWS);
}

/**
 * hpcc_params_valid() - check parameters against the supported ranges
 * @p: parameters (ranges in struct hpcc_params)
 *
 * Return: true when every field is in its range.
 */
bool hpcc_params_valid(const struct hpcc_params *p)
{
	return p->t_ns >= HPCC_T_MIN_NS && p->t_ns <= HPCC_T_MAX_NS &&
	       p->eta >= HPCC_ETA_MIN && p->eta <= HPCC_ETA_MAX &&
	       p->max_stage <= HPCC_MAX_STAGE_MAX &&
	       (!p->ewma_pct || (p->ewma_pct >= HPCC_EWMA_PERIOD_MIN &&
				 p->ewma_pct <= HPCC_EWMA_PERIOD_MAX)) &&
	       p->w_min >= HPCC_W_MIN_MIN << HPCC_W_SHIFT &&
	       p->w_init >= p->w_min &&
	       p->w_init <= HPCC_W_MAX_MAX << HPCC_W_SHIFT &&
	       p->w_ai <= p->w_init;
}

/**
 * hpcc_flow_init() - initial per-flow state: U = 1, W = Wc = W_init,
 * incStage = 0, no previous sample
 * @f: flow state
 * @p: parameters
 */
void hpcc_flow_init(struct hpcc_flow *f, const struct hpcc_params *p)
{
	*f = (struct hpcc_flow){ 0 };
	f->u = HPCC_U_ONE;
	f->w = p->w_init;
	f->wc = p->w_init;
}

/**
 * hpcc_n_select() - the N of a flow's own W_ai for one sample
 * @source: enum hpcc_n_source (the n-flows-source parameter)
 * @configured: the configured N (n-flows), 1..HPCC_N_FLOWS_MAX
 * @reported: the N the receiver reported with the sample; 0: none
 *
 * Return: @reported under HPCC_N_SOURCE_REPORTED, max(@reported,
 * @configured) under HPCC_N_SOURCE_MAX when a receiver reported one, else
 * 0 (the flow uses the parameters' W_ai).
 */
u32 hpcc_n_select(u32 source, u32 configured, u32 reported)
{
	if (!reported)
		return 0;
	switch (source) {
	case HPCC_N_SOURCE_REPORTED:
		return reported;
	case HPCC_N_SOURCE_MAX:
		return reported > configured ? reported : configured;
	default:
		return 0;
	}
}

/**
 * hpcc_flow_set_n() - give a flow its own W_ai from N (section 5's rule of
 * thumb with a receiver-reported N; Documentation/algorithm.rst,
 * "Receiver-reported N")
 * @f: flow state
 * @p: parameters (valid)
 * @n_flows: N, 1..HPCC_N_FLOWS_MAX (larger values act as the maximum); 0
 *	returns the flow to the parameters' W_ai
 *
 * W_ai = W_init * (1 - eta) / N, at most the parameters' W_init (so
 * hpcc_params_valid()'s bound holds per flow too).  Takes effect at the
 * next ComputeWind.
 */
void hpcc_flow_set_n(struct hpcc_flow *f, const struct hpcc_params *p,
		     u32 n_flows)
{
	if (n_flows > HPCC_N_FLOWS_MAX)
		n_flows = HPCC_N_FLOWS_MAX;
	f->n_flows = n_flows;
	f->w_ai = n_flows ? hpcc_w_ai_rule_of_thumb(p->w_init, p->eta,
						    n_flows) : 0;
}

/**
 * hpcc_flow_restart() - HPCC++ takes a flow back after a gap in which
 * another law set its window (fallback, Documentation/design.rst): W = Wc
 * = @w clamped to [W_min, W_init], incStage = 0; U, L and lastUpdateSeq
 * are kept, so the first sample after the gap computes U against the
 * path's last records (when it is on the same path) instead of only
 * recording them.  Not in the draft, whose flows never leave the law.
 * @f: flow state
 * @p: parameters (valid)
 * @w: the window the other law left, bytes Q16
 */
void hpcc_flow_restart(struct hpcc_flow *f, const struct hpcc_params *p, u64 w)
{
	if (w < p->w_min)
		w = p->w_min;
	if (w > p->w_init)
		w = p->w_init;
	f->w = w;
	f->wc = w;
	f->inc_stage = 0;
}

/**
 * hpcc_measure_inflight() - MeasureInflight (Figure 4, lines 1-10)
 * @f: flow state; U, bind_hop and u_last are updated, L is only read
 * @p: parameters
 * @hops: this sample's records, the same path as @f->l
 * @nhop: number of records, equal to @f->nhop
 *
 * Per hop i: dt = ts - L.ts (ns, the 64-bit difference taken as signed),
 * txRate = (txBytes - L.txBytes) / dt, and
 * u' = min(qlen, L.qlen) / (B * T) + txRate / B with B in bytes per ns.
 * A hop with B = 0, dt <= 0 or txBytes < L.txBytes is skipped.  A hop
 * without txBytes (HPCC_HOP_NO_TX_BYTES; Documentation/algorithm.rst,
 * "Partial telemetry") takes txRate / B from its Tx utilization when it
 * has one, else from its queue alone: 1 when the queue was non-empty at
 * both samples (a work-conserving port with a standing queue sent at B),
 * eta / 2 when it was empty at both (room: W may at most double), and
 * when it was non-empty at one of them the hop is skipped (no verdict,
 * like dt <= 0).  u is the
 * largest u' (the first hop among equals) and tau that hop's dt;
 * tau = min(tau, T_U); U = (1 - tau/T_U) * U + (tau/T_U) * u, where T_U
 * is T (the draft's, Figure 4 lines 8-9) unless @p->ewma_pct sets a longer
 * period.  Each term of u' saturates at HPCC_U_MAX.  That hop is recorded
 * as @f->bind_hop, and the last hop's u' as @f->u_last (0 when skipped).
 *
 * Return: false when every hop was skipped (U unchanged), else true.
 */
bool hpcc_measure_inflight(struct hpcc_flow *f, const struct hpcc_params *p,
			   const struct hpcc_hop *hops, u32 nhop)
{
	u64 u = 0, tau = 0, t_u, u_last = 0;
	bool found = false;
	u32 i, bind = 0;

	for (i = 0; i < nhop; i++) {
		const struct hpcc_hop *h = &hops[i], *l = &f->l[i];
		s64 dt = (s64)(h->ts - l->ts);
		u64 qmin, term, u1;

		if (!h->rate_bps || dt <= 0)
			continue;
		if (!(h->flags & HPCC_HOP_NO_TX_BYTES) &&
		    (l->flags & HPCC_HOP_NO_TX_BYTES ||
		     h->tx_bytes < l->tx_bytes))
			continue;
		/* qlen term: qmin * 8e9 / (B_bps * T), Q32 */
		qmin = hpcc_min(h->qlen, l->qlen);
		term = hpcc_div_q(hpcc_mul64(qmin, HPCC_BITS_NS_PER_BYTE_S),
				  hpcc_mul64(h->rate_bps, p->t_ns),
				  HPCC_U_SHIFT);
		u1 = hpcc_min(term, HPCC_U_MAX);
		if (!(h->flags & HPCC_HOP_NO_TX_BYTES))
			/* txRate: (txBytes - L.txBytes) * 8e9 / (dt * B_bps) */
			term = hpcc_div_q(hpcc_mul64(h->tx_bytes - l->tx_bytes,
						     HPCC_BITS_NS_PER_BYTE_S),
					  hpcc_mul64((u64)dt, h->rate_bps),
					  HPCC_U_SHIFT);
		else if (h->flags & HPCC_HOP_TX_UTIL)
			term = (u64)h->tx_util <<
			       (HPCC_U_SHIFT - HPCC_TX_UTIL_SHIFT);
		else if (qmin)
			term = HPCC_U_ONE;
		else if (h->qlen || l->qlen)
			continue;
		else
			term = p->eta / 2;
		u1 += hpcc_min(term, HPCC_U_MAX);
		u1 = hpcc_min(u1, HPCC_U_MAX);
		if (i == nhop - 1)
			u_last = u1;
		if (!found || u1 > u) {
			u = u1;
			tau = (u64)dt;
			bind = i + 1;
			found = true;
		}
	}
	if (!found)
		return false;
	f->bind_hop = bind;
	f->u_last = u_last;
	/* T_U <= 8 * 100 ms: no overflow */
	t_u = p->ewma_pct ? HPCC_DIV64(p->t_ns * p->ewma_pct, 100) : p->t_ns;
	tau = hpcc_min(tau, t_u);
	f->u = hpcc_mul_div(f->u, t_u - tau, t_u) +
	       hpcc_mul_div(u, tau, t_u);
	return true;
}

/**
 * hpcc_compute_wind() - ComputeWind (Figure 5, lines 11-20)
 * @f: flow state; W always, Wc and incStage when @update_wc
 * @p: parameters
 * @update_wc: also move the reference window Wc
 *
 * W_ai is the flow's own (hpcc_flow_set_n()) when it has one, else the
 * parameters'.
 * If U >= eta or incStage >= maxStage: W = Wc * eta / U + W_ai (W_max when
 * U = 0), and on update incStage = 0.  Otherwise W = Wc + W_ai, and on
 * update incStage += 1.  W is clamped to [W_min, W_max] before it is
 * stored; on update Wc = W.
 *
 * Return: the new W, bytes Q16.
 */
u64 hpcc_compute_wind(struct hpcc_flow *f, const struct hpcc_params *p,
		      bool update_wc)
{
	u64 w_ai = f->w_ai ? f->w_ai : p->w_ai;
	u64 w;

	if (f->u >= p->eta || f->inc_stage >= p->max_stage) {
		if (f->u)
			w = hpcc_add_sat(hpcc_mul_div(f->wc, p->eta, f->u),
					 w_ai);
		else
			w = p->w_init;
		if (update_wc)
			f->inc_stage = 0;
	} else {
		w = hpcc_add_sat(f->wc, w_ai);
		if (update_wc)
			f->inc_stage++;
	}
	w = hpcc_clamp_w(w, p);
	f->w = w;
	if (update_wc)
		f->wc = w;
	return w;
}

static void hpcc_store_l(struct hpcc_flow *f, const struct hpcc_hop *hops,
			 u32 nhop)
{
	u32 i;

	for (i = 0; i < nhop; i++)
		f->l[i] = hops[i];
	f->nhop = nhop;
}

/*
 * hpcc_same_path() - the sample has L's hop count and each hop's
 * (switch_ID, port_ID).
 */
static bool hpcc_same_path(const struct hpcc_flow *f,
			   const struct hpcc_hop *hops, u32 nhop)
{
	u32 i;

	if (nhop != f->nhop)
		return false;
	for (i = 0; i < nhop; i++)
		if (hops[i].switch_id != f->l[i].switch_id ||
		    hops[i].port_id != f->l[i].port_id)
			return false;
	return true;
}

/**
 * hpcc_flow_on_path() - whether a sample can measure U: the flow holds
 * hop records (L) of the sample's path, the same hop count and each hop's
 * (switch_ID, port_ID)
 * @f: flow state
 * @hops: the sample's records
 * @nhop: number of records
 *
 * Return: false before the first sample, after a path change and for a
 * hop count out of 1..HPCC_MAX_HOPS; else true.
 */
bool hpcc_flow_on_path(const struct hpcc_flow *f, const struct hpcc_hop *hops,
		       u32 nhop)
{
	return f->nhop && nhop <= HPCC_MAX_HOPS && hpcc_same_path(f, hops, nhop);
}

/*
 * hpcc_sample_start() - the checks every sample goes through first: a bad
 * hop count changes nothing; the first sample and a path change only store
 * L.  Returns HPCC_STEP_W when the sample is to be measured.
 */
static enum hpcc_step hpcc_sample_start(struct hpcc_flow *f,
					const struct hpcc_hop *hops, u32 nhop)
{
	enum hpcc_step s;

	if (!nhop || nhop > HPCC_MAX_HOPS)
		return HPCC_STEP_BAD;
	f->u_rx = 0;
	if (hpcc_flow_on_path(f, hops, nhop))
		return HPCC_STEP_W;
	s = f->nhop ? HPCC_STEP_PATH_CHANGE : HPCC_STEP_FIRST;
	hpcc_store_l(f, hops, nhop);
	return s;
}

/*
 * hpcc_sample_apply() - MeasureInflight, then ComputeWind unless every hop
 * was skipped; L = the sample's records either way.
 */
static enum hpcc_step hpcc_sample_apply(struct hpcc_flow *f,
					const struct hpcc_params *p,
					const struct hpcc_hop *hops, u32 nhop,
					bool update_wc)
{
	enum hpcc_step s = HPCC_STEP_SKIPPED;

	if (hpcc_measure_inflight(f, p, hops, nhop)) {
		hpcc_compute_wind(f, p, update_wc);
		s = update_wc ? HPCC_STEP_WC : HPCC_STEP_W;
	}
	hpcc_store_l(f, hops, nhop);
	return s;
}

/**
 * hpcc_new_ack() - NewAck (Figure 6, lines 21-27) for one telemetry sample
 * @f: flow state
 * @p: parameters (valid, see hpcc_params_valid())
 * @ack_seq: the ACK's sequence number (ack.seq)
 * @snd_nxt: the sender's snd_nxt when the sample is applied
 * @hops: the sample's hop records
 * @nhop: number of records, 1..HPCC_MAX_HOPS
 *
 * updateWc is ack_seq after lastUpdateSeq in 32-bit sequence space
 * (the kernel's after()); then lastUpdateSeq = snd_nxt.  The first sample,
 * and a sample on a different path, only store L and set lastUpdateSeq =
 * snd_nxt.  L = the sample's records after every sample.  The pacing rate
 * R = W / T (line 27) is the caller's.
 *
 * Return: what the sample did, see enum hpcc_step.
 */
enum hpcc_step hpcc_new_ack(struct hpcc_flow *f, const struct hpcc_params *p,
			    u32 ack_seq, u32 snd_nxt,
			    const struct hpcc_hop *hops, u32 nhop)
{
	enum hpcc_step s = hpcc_sample_start(f, hops, nhop);

	if (s == HPCC_STEP_W)
		s = hpcc_sample_apply(f, p, hops, nhop,
				      (s32)(ack_seq - f->last_update_seq) > 0);
	if (s == HPCC_STEP_FIRST || s == HPCC_STEP_PATH_CHANGE ||
	    s == HPCC_STEP_WC)
		f->last_update_seq = snd_nxt;
	return s;
}

/**
 * hpcc_new_int() - NewINT (Figure 8, lines 28-34): the receiver-based
 * variant, section 6.3.2
 * @f: flow state
 * @p: parameters (valid)
 * @now_ns: the receiver's clock, ns
 * @hops: the sample's hop records (int.L)
 * @nhop: number of records, 1..HPCC_MAX_HOPS
 *
 * updateWc is now > lastUpdateTime + T (64-bit difference taken as
 * signed); then lastUpdateTime = now, and the caller sends W to the
 * sender.  First sample and path change: store L, lastUpdateTime = now.
 *
 * Return: what the sample did; HPCC_STEP_WC means "send W now".
 */
enum hpcc_step hpcc_new_int(struct hpcc_flow *f, const struct hpcc_params *p,
			    u64 now_ns, const struct hpcc_hop *hops, u32 nhop)
{
	enum hpcc_step s = hpcc_sample_start(f, hops, nhop);

	if (s == HPCC_STEP_W)
		s = hpcc_sample_apply(f, p, hops, nhop,
				      (s64)(now_ns - f->last_update_time) >
				      (s64)p->t_ns);
	if (s == HPCC_STEP_FIRST || s == HPCC_STEP_PATH_CHANGE ||
	    s == HPCC_STEP_WC)
		f->last_update_time = now_ns;
	return s;
}

/**
 * hpcc_measure_sample() - MeasureInflight alone (Figure 4), for a receiver
 * that sends the sender only U (draft-miao-ccwg-hpcc section 9.1, the
 * privacy mode: no hop records cross the domain's edge)
 * @f: flow state; U, bind_hop, u_last and L are updated, W, Wc and
 *	incStage are not
 * @p: parameters (valid)
 * @hops: the sample's hop records
 * @nhop: number of records, 1..HPCC_MAX_HOPS
 *
 * The first sample and a path change only store L, as in hpcc_new_ack().
 *
 * Return: HPCC_STEP_W when U was updated (the caller sends it);
 * HPCC_STEP_BAD, _FIRST, _PATH_CHANGE or _SKIPPED when it was not.
 */
enum hpcc_step hpcc_measure_sample(struct hpcc_flow *f,
				   const struct hpcc_params *p,
				   const struct hpcc_hop *hops, u32 nhop)
{
	enum hpcc_step s = hpcc_sample_start(f, hops, nhop);

	if (s != HPCC_STEP_W)
		return s;
	if (!hpcc_measure_inflight(f, p, hops, nhop))
		s = HPCC_STEP_SKIPPED;
	hpcc_store_l(f, hops, nhop);
	return s;
}

/**
 * hpcc_new_ack_u() - NewAck (Figure 6, lines 21-27) with U that the
 * receiver measured (hpcc_measure_sample() there; section 9.1's mode that
 * sends only U)
 * @f: flow state
 * @p: parameters (valid)
 * @ack_seq: the ACK's sequence number (ack.seq)
 * @snd_nxt: the sender's snd_nxt when the sample is applied
 * @u: the receiver's U, Q32; values above HPCC_U_MAX act as HPCC_U_MAX
 *
 * U = @u, then ComputeWind with updateWc as in hpcc_new_ack() (@ack_seq
 * after lastUpdateSeq; then lastUpdateSeq = @snd_nxt).  The flow's first
 * such sample (after hpcc_flow_init() or samples with records) always
 * updates Wc, since lastUpdateSeq then belongs to no sample of this kind,
 * and forgets L: a later sample with records is a first sample.
 *
 * Return: HPCC_STEP_W or HPCC_STEP_WC.
 */
enum hpcc_step hpcc_new_ack_u(struct hpcc_flow *f, const struct hpcc_params *p,
			      u32 ack_seq, u32 snd_nxt, u64 u)
{
	bool update_wc = !f->u_rx ||
			 (s32)(ack_seq - f->last_update_seq) > 0;

	if (!f->u_rx) {
		f->u_rx = 1;
		f->nhop = 0;
		f->bind_hop = 0;
		f->u_last = 0;
	}
	f->u = hpcc_min(u, HPCC_U_MAX);
	hpcc_compute_wind(f, p, update_wc);
	if (!update_wc)
		return HPCC_STEP_W;
	f->last_update_seq = snd_nxt;
	return HPCC_STEP_WC;
}
