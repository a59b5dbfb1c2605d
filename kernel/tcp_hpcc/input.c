// SPDX-License-Identifier: GPL-2.0
/*
 * input.c - telemetry into the algorithm core: on an ACK, the newest sample
 * hpccd pushed (netlink.c stores it under the entry's seqlock) runs
 * through NewAck (draft-miao-ccwg-hpcc section 4.2, Figure 6;
 * hpcc_new_ack() in kernel/lib/hpcc_core.c), or, receiver-based
 * (draft-pan-tsvwg-hpccplus-02 section 6.2), sets W from the receiver's;
 * or, with only the receiver's U (draft-miao-ccwg-hpcc section 9.1),
 * runs NewAck with that U.  A sample that changes W is handed to the
 * coordination rule (ccm.c).
 */

#include <net/tcp.h>

#include "tcp_hpcc.h"
#include "trace.h"

/*
 * hpcc_sample_done() - what every applied sample leaves behind: its step,
 * the sequence numbers it ran with, the samples counters and the
 * hpcc_sample tracepoint (@arrived: when netlink stored the sample; the
 * ACK's clock @now was read when its processing began, so a sample pushed
 * since then arrived "after" it).
 */
static void hpcc_sample_done(const struct sock *sk, struct hpcc_ent *e,
			     enum hpcc_step step, u64 now, u64 arrived)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	e->last_step = step;
	e->last_ack_seq = tp->snd_una;
	e->last_snd_nxt = tp->snd_nxt;
	e->samples++;
	hpcc_stat_inc(e->hn, HPCC_STAT_SAMPLES);
	trace_hpcc_sample(e, step, now > arrived ? now - arrived : 0,
			  e->sample_time ? now - e->sample_time : 0,
			  tp->srtt_us >> 3);
	e->sample_time = now;
}

/*
 * hpcc_take_rx() - a receiver-based sample (draft-pan-tsvwg-hpccplus-02
 * section 6.2, Figure 8): the receiver ran NewINT, so the sender computes
 * no U.  With a W (sent at most once per T) W and Wc become it, within
 * W_min..W_init; without one the receiver only updated W locally, and the
 * sample just keeps the telemetry fresh.  hpcc_apply_w() then sets the
 * window and the pacing rate W/T as for a sender-based W.
 */
static void hpcc_take_rx(struct sock *sk, struct hpcc_ent *e,
			 const struct hpcc_cfg *cfg, const struct hpcc_tlm *tlm,
			 u64 now, u64 arrived)
{
	u64 w;

	if (!tlm->rx_w) {
		hpcc_stat_inc(e->hn, HPCC_STAT_RX_KEPT);
		e->last_step = HPCC_STEP_SKIPPED;
		return;
	}
	if (e->mode != HPCC_MODE_HPCC)
		hpcc_resume(sk, e, cfg);
	w = clamp_t(u64, (u64)tlm->rx_w << HPCC_W_SHIFT, cfg->p.w_min,
		    cfg->p.w_init);
	e->core.w = w;
	e->core.wc = w;
	hpcc_stat_inc(e->hn, HPCC_STAT_RX_W_APPLIED);
	hpcc_sample_done(sk, e, HPCC_STEP_WC, now, arrived);
}

/*
 * hpcc_take_u() - a sample with only the receiver's U (draft-miao-ccwg-hpcc
 * section 9.1, the privacy mode that carries only U): NewAck with that U
 * instead of MeasureInflight (hpcc_new_ack_u()), then the window and the
 * pacing rate as for any W.  The sample names no hop, so the coordination
 * rule (CCM) gets nothing from it: no path change follows from this U.
 */
static void hpcc_take_u(struct sock *sk, struct hpcc_ent *e,
			const struct hpcc_cfg *cfg, const struct hpcc_tlm *tlm,
			u64 now, u64 arrived)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	enum hpcc_step step;

	if (e->mode != HPCC_MODE_HPCC)
		hpcc_resume(sk, e, cfg);
	hpcc_flow_set_n(&e->core, &cfg->p,
			hpcc_n_select(cfg->n_source, cfg->n_flows,
				      tlm->n_flows));
	step = hpcc_new_ack_u(&e->core, &cfg->p, tp->snd_una, tp->snd_nxt,
			      (u64)tlm->u << (HPCC_U_SHIFT - HPCC_WIRE_U_SHIFT));
	hpcc_stat_inc(e->hn, HPCC_STAT_RX_U_APPLIED);
	hpcc_sample_done(sk, e, step, now, arrived);
}

/*
 * hpcc_take_telemetry() - run NewAck with the newest sample if one arrived
 * since the last ACK.  The sample is copied under the entry's seqlock
 * (retrying on a concurrent netlink write), so it is never torn.
 */
void hpcc_take_telemetry(struct sock *sk, struct hpcc_ent *e,
			 const struct hpcc_cfg *cfg)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 now = tp->tcp_clock_cache;
	struct hpcc_tlm tlm;
	u64 w0, wc0;
	u32 stage0;
	enum hpcc_step step;
	unsigned int seq;
	u64 gen, arrived;

	if (READ_ONCE(e->tlm_gen) == e->used_gen)
		return;
	do {
		seq = read_seqbegin(&e->tlm_lock);
		gen = e->tlm_gen;
		arrived = e->tlm_time;
		tlm.nhop = e->tlm.nhop;
		tlm.n_flows = e->tlm.n_flows;
		tlm.rx = e->tlm.rx;
		tlm.rx_w = e->tlm.rx_w;
		tlm.has_u = e->tlm.has_u;
		tlm.u = e->tlm.u;
		memcpy(tlm.hops, e->tlm.hops, sizeof(tlm.hops));
	} while (read_seqretry(&e->tlm_lock, seq));
	WRITE_ONCE(e->used_gen, gen);

	e->rx = tlm.rx;
	if (tlm.rx) {
		hpcc_take_rx(sk, e, cfg, &tlm, now, arrived);
		return;
	}
	if (tlm.has_u) {
		hpcc_take_u(sk, e, cfg, &tlm, now, arrived);
		return;
	}

	/*
	 * A slow start (start slow-start) ends with the first sample that
	 * can measure U: one on the path whose records the core holds.  An
	 * earlier one only records the path (HPCC_STEP_FIRST, or a path
	 * change) below, and the fallback law keeps the window.
	 */
	if (e->mode != HPCC_MODE_HPCC &&
	    (!e->starting ||
	     hpcc_flow_on_path(&e->core, tlm.hops, tlm.nhop)))
		hpcc_resume(sk, e, cfg);
	/* every sample: the receiver's N and the parameters may change */
	hpcc_flow_set_n(&e->core, &cfg->p,
			hpcc_n_select(cfg->n_source, cfg->n_flows,
				      tlm.n_flows));
	w0 = e->core.w;
	wc0 = e->core.wc;
	stage0 = e->core.inc_stage;
	step = hpcc_new_ack(&e->core, &cfg->p, tp->snd_una, tp->snd_nxt,
			    tlm.hops, tlm.nhop);
	if (step == HPCC_STEP_W || step == HPCC_STEP_WC)
		hpcc_ccm_step(sk, e, cfg, now, w0, wc0, stage0);
	hpcc_sample_done(sk, e, step, now, arrived);
}
