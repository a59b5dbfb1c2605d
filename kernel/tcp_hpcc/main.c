// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hpcc - HPCC++ (High Precision Congestion Control) for Linux TCP.
 *
 * HPCC++ sets the window W and the pacing rate R = W/T from per-hop
 * telemetry (ts, qlen, txBytes, B) stamped by INT hops into probe packets
 * (draft-miao-ccwg-hpcc section 4.2; section 7.2 for TCP).
 *
 * This file holds the congestion control hooks: the HPCC++ law applied from
 * the newest telemetry of the flow (hpcc_cong_control_rs()), the
 * conventional fallback law (Reno with PRR) used without fresh telemetry and
 * while TCP recovers from loss, and the module's init and exit.  Per-flow
 * state lives out of line (table.c), the namespace's parameters,
 * counters and hook in net.c, telemetry arrives over generic netlink
 * (netlink.c), probes are consumed before TCP (probe.c).  The rules
 * are in Documentation/design.rst, "The control law in the kernel".
 */

#include <linux/module.h>
#include <net/tcp.h>

#include "common/hpcc_compat.h"
#include "tcp_hpcc.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * The congestion control private area: the entry pointer, and snd_una as
 * the last cong_control call saw it (PRR's "snd_una advanced", which the
 * kernel passes to its own tcp_cwnd_reduction() as a private ACK flag).
 */
struct hpcc_ca {
	struct hpcc_ent *ent;
	u32 prior_una;
};

static struct hpcc_ent *hpcc_ent_of(const struct sock *sk)
{
	return ((const struct hpcc_ca *)inet_csk_ca(sk))->ent;
}

/*
 * hpcc_update_pacing_rate() - pacing rate of the fallback law: the kernel's
 * own rule (tcp_update_pacing_rate() in net/ipv4/tcp_input.c, which is not
 * run when a congestion control has cong_control): mss * cwnd / srtt scaled
 * by tcp_pacing_ss_ratio in slow start and tcp_pacing_ca_ratio after.
 */
static void hpcc_update_pacing_rate(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct net *net = sock_net(sk);
	u64 rate;

	rate = (u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);
	if (tcp_snd_cwnd(tp) < tp->snd_ssthresh / 2)
		rate *= READ_ONCE(net->ipv4.sysctl_tcp_pacing_ss_ratio);
	else
		rate *= READ_ONCE(net->ipv4.sysctl_tcp_pacing_ca_ratio);
	rate *= max(tcp_snd_cwnd(tp), tp->packets_out);
	if (likely(tp->srtt_us))
		do_div(rate, tp->srtt_us);
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

/*
 * hpcc_prr() - Proportional Rate Reduction (RFC 6937) in CWR and Recovery,
 * as tcp_cwnd_reduction() does for congestion controls without
 * cong_control.  tcp_init_cwnd_reduction() has set prior_cwnd, snd_ssthresh
 * and zeroed prr_delivered and prr_out on entry.  Below ssthresh, an ACK
 * that advances snd_una (@una_advanced) and marks nothing newly lost lets
 * one more segment out (PRR's slow-start reduction bound, as the kernel's
 * tcp_cwnd_reduction() does): without it, after the loss of most of a
 * window, the window only conserves packets and recovery sends as many
 * segments per RTT as arrived (Documentation/design.rst, "Fallback law").
 */
static void hpcc_prr(struct sock *sk, const struct rate_sample *rs,
		     bool una_advanced)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int delta = tp->snd_ssthresh - tcp_packets_in_flight(tp);
	int sndcnt;

	if (rs->acked_sacked <= 0 || !tp->prior_cwnd)
		return;
	tp->prr_delivered += rs->acked_sacked;
	if (delta < 0) {
		u64 dividend = (u64)tp->snd_ssthresh * tp->prr_delivered +
			       tp->prior_cwnd - 1;

		sndcnt = div_u64(dividend, tp->prior_cwnd) - tp->prr_out;
	} else {
		sndcnt = max_t(int, tp->prr_delivered - tp->prr_out,
			       rs->acked_sacked);
		if (una_advanced && !rs->losses)
			sndcnt++;
		sndcnt = min(delta, sndcnt);
	}
	/* Force a fast retransmit upon entering fast recovery. */
	sndcnt = max(sndcnt, tp->prr_out ? 0 : 1);
	tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt);
}

/*
 * hpcc_fallback_law() - the conventional window law: PRR while the window is
 * being reduced, Reno (slow start, then one MSS per RTT) otherwise.  Loss
 * and RTO set ssthresh through tcp_reno_ssthresh() and the kernel's loss
 * state machine; undo goes through tcp_reno_undo_cwnd().
 */
static void hpcc_fallback_law(struct sock *sk, const struct rate_sample *rs,
			      bool una_advanced)
{
	if (tcp_in_cwnd_reduction(sk))
		hpcc_prr(sk, rs, una_advanced);
	else if (rs->acked_sacked > 0)
		tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
	hpcc_update_pacing_rate(sk);
}

/* One RTT for the staleness rule: srtt, but at least T. */
static u64 hpcc_rtt_ns(const struct tcp_sock *tp, const struct hpcc_cfg *cfg)
{
	return max_t(u64, (u64)(tp->srtt_us >> 3) * NSEC_PER_USEC,
		     cfg->p.t_ns);
}

/*
 * hpcc_stale() - true when the flow has had data in flight for stale_rtts
 * RTTs at @now (ns, tcp_clock_ns()) since its newest telemetry (or its
 * start).  hpccd probes only while data is in flight, so time spent idle
 * does not count: hpcc_tx_start() moves @active_time forward by each idle
 * period.
 */
static u64 hpcc_last_news(const struct hpcc_ent *e)
{
	u64 news = e->active_time;

	if (READ_ONCE(e->tlm_gen) && (s64)(READ_ONCE(e->tlm_time) - news) > 0)
		news = READ_ONCE(e->tlm_time);
	return news;
}

static bool hpcc_stale(const struct tcp_sock *tp, const struct hpcc_ent *e,
		       const struct hpcc_cfg *cfg, u64 now)
{
	return (s64)(now - hpcc_last_news(e)) >
	       (s64)(cfg->stale_rtts * hpcc_rtt_ns(tp, cfg));
}

/*
 * hpcc_to_fallback() - stale telemetry: hand the window to the fallback
 * law, in congestion avoidance from the window HPCC last set.
 */
static void hpcc_to_fallback(struct sock *sk, struct hpcc_ent *e)
{
	struct tcp_sock *tp = tcp_sk(sk);

	e->mode = HPCC_MODE_FALLBACK;
	tp->snd_ssthresh = max(tcp_snd_cwnd(tp), 2U);
	e->fallbacks++;
	hpcc_stat_inc(e->hn, HPCC_STAT_FALLBACKS);
	trace_hpcc_mode(e, HPCC_MODE_HPCC, HPCC_MODE_FALLBACK,
			tcp_snd_cwnd(tp),
			tp->tcp_clock_cache - hpcc_last_news(e));
}

/*
 * hpcc_resume() - fresh telemetry after a fallback: restart the core from
 * the current window (clamped to [W_min, W_init]), keeping U and the
 * path's last records, so this sample already computes U
 * (hpcc_flow_restart(), Documentation/design.rst).
 */
static void hpcc_resume(struct sock *sk, struct hpcc_ent *e,
			const struct hpcc_cfg *cfg)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 w = ((u64)tcp_snd_cwnd(tp) * tp->mss_cache) << HPCC_W_SHIFT;
	u64 since = tp->tcp_clock_cache - (e->sample_time ?: e->active_time);

	hpcc_flow_restart(&e->core, &cfg->p, w);
	e->mode = HPCC_MODE_HPCC;
	if (e->starting)
		e->starting = 0;	/* a slow start's end, not a resume */
	else
		hpcc_stat_inc(e->hn, HPCC_STAT_RESUMES);
	trace_hpcc_mode(e, HPCC_MODE_FALLBACK, HPCC_MODE_HPCC,
			tcp_snd_cwnd(tp), since);
}

static void hpcc_flowlabel_check(struct sock *sk, struct hpcc_ent *e,
				 bool announce);

/* Whether @sk's IPv6 flow label is its own (IPV6_FLOWINFO_SEND), which a
 * new flow hash does not change.
 */
static bool hpcc_label_fixed(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	return inet6_sk(sk)->flow_label & IPV6_FLOWLABEL_MASK;
#else
	return true;
#endif
}

/* The coordination rule's parameters from the namespace's. */
static void hpcc_ccm_cfg_of(const struct hpcc_cfg *cfg, struct hpcc_ccm_cfg *c)
{
	c->samples = cfg->ccm_samples;
	c->tries = cfg->ccm_tries;
	c->gap_rtts = cfg->ccm_gap_rtts;
	c->pause_ns = (u64)cfg->ccm_pause_s * NSEC_PER_SEC;
}

/*
 * hpcc_can_move() - whether a new flow hash moves @sk's flow to another
 * path: an IPv6 flow whose socket can rehash and has no label of its own.
 * IPv4 flows are left where they are: ECMP hashes of IPv4 TCP have no
 * field a host can change without changing the connection.
 */
static bool hpcc_can_move(struct sock *sk, const struct hpcc_ent *e)
{
	return e->key.family == AF_INET6 && hpcc_can_rehash(sk) &&
	       !hpcc_label_fixed(sk);
}

/*
 * hpcc_move() - a path change the coordination rule decided (@note: on a
 * type 3 notification): a new flow hash (sk_rethink_txhash(), the rehash
 * TCP makes on an RTO and PLB on persistent congestion), so a new flow
 * label, announced at once by flow-active so that the probes move with
 * it; the hpcc_ccm tracepoint records it with the flow's RTT @rtt_ns.
 * Context: socket lock.
 */
static void hpcc_move(struct sock *sk, struct hpcc_ent *e, u64 rtt_ns,
		      bool note)
{
	sk_rethink_txhash(sk);
	hpcc_flowlabel_check(sk, e, true);
	trace_hpcc_ccm(e, rtt_ns, note);
}

/*
 * hpcc_ccm_on_shared() - hpcc_ccm_shared() for the flow's binding hop:
 * U at least eta there and W (@w, the window the sample ran under) below
 * ccm-share percent of that hop's B x T.  HPCC keeps a hop that several
 * flows share near eta without a standing queue, so U above 1 alone
 * misses an ECMP collision.
 */
static bool hpcc_ccm_on_shared(const struct hpcc_ent *e,
			       const struct hpcc_cfg *cfg, u64 w)
{
	const struct hpcc_hop *h;

	/* U first: most samples stop here, before the 128-bit divide */
	if (!cfg->ccm_share || e->core.u < cfg->p.eta ||
	    !e->core.bind_hop || e->core.bind_hop > e->core.nhop)
		return false;
	h = &e->core.l[e->core.bind_hop - 1];
	/* W <= 1 GiB and B x T of 1.6 Tbit/s over 1 s are within the
	 * bounds hpcc_ccm_shared() needs
	 */
	return hpcc_ccm_shared(e->core.u, cfg->p.eta, w,
			       hpcc_bdp(h->rate_bps, cfg->p.t_ns),
			       cfg->ccm_share);
}

/*
 * hpcc_ccm_step() - the coordination rule (Coordinated Congestion
 * Management section 6.4, HPCC++ section 9.4; hpcc_ccm_decide()) on the
 * sample NewAck just ran for an IPv6 flow, with ccm-tries set: congestion
 * (U above 1, a standing queue; or a saturated hop the flow shares,
 * hpcc_ccm_shared(): a flow alone at its bottleneck runs U near eta, and
 * must not take itself for congestion to flee) at a hop
 * that is not the path's last, with the last hop below eta (a last hop
 * at eta holds the flow back on every path: incast), and that outlasts
 * HPCC's own decrease for ccm-gap-rtts RTTs, is answered by path
 * changes, at a random one of the first samples that may (so
 * that the flows on one hop do not all leave it together),
 * a new flow hash (sk_rethink_txhash(), the rehash TCP makes on an RTO and
 * PLB on persistent congestion) and so a new flow label on the data and,
 * announced by flow-active, on the probes; in the gap after a change,
 * while the new path's telemetry comes in, the sample's W decrease is
 * held back (W, Wc and incStage as before it: @w0, @wc0, @stage0).
 * IPv4 flows are left to HPCC's law: ECMP hashes of IPv4 TCP have no field
 * a host can change without changing the connection.  A socket whose
 * label is fixed (IPV6_FLOWINFO_SEND) or with net.core.txrehash 0 cannot
 * change its path: the rule waits for nothing.  Context: socket lock.
 */
static void hpcc_ccm_step(struct sock *sk, struct hpcc_ent *e,
			  const struct hpcc_cfg *cfg, u64 now, u64 w0, u64 wc0,
			  u32 stage0)
{
	struct hpcc_ccm_sample smp = {
		.now = now,
		.rtt_ns = hpcc_rtt_ns(tcp_sk(sk), cfg),
		.congested = e->core.u > HPCC_U_ONE ||
			     hpcc_ccm_on_shared(e, cfg, w0),
		.last_hop = e->core.bind_hop == e->core.nhop,
		.last_busy = e->core.u_last >= cfg->p.eta,
	};
	struct hpcc_ccm_cfg c;
	int act;

	hpcc_ccm_cfg_of(cfg, &c);
	if (!c.tries || e->mode != HPCC_MODE_HPCC || !hpcc_can_move(sk, e))
		return;
	if (smp.congested)
		smp.rnd = get_random_u32();
	act = hpcc_ccm_decide(&e->ccm, &c, &smp);
	if (act == HPCC_CCM_RATE)
		return;
	if (e->core.w < w0) {
		e->core.w = w0;
		e->core.wc = wc0;
		e->core.inc_stage = stage0;
	}
	if (act == HPCC_CCM_WAIT) {
		hpcc_stat_inc(e->hn, HPCC_STAT_CCM_WAITS);
		return;
	}
	hpcc_stat_inc(e->hn, HPCC_STAT_CCM_REROUTES);
	hpcc_move(sk, e, smp.rtt_ns, false);
}

/*
 * hpcc_on_path() - the hop that sent @m (its switch_ID and port_ID) is
 * one of the flow's telemetry: its word can be checked against the
 * flow's U.  Context: socket lock.
 */
static bool hpcc_on_path(const struct hpcc_ent *e,
			 const struct hpcc_ccm_msg *m)
{
	u32 i;

	if (!e->core.bind_hop)
		return false;
	for (i = 0; i < e->core.nhop && i < HPCC_MAX_HOPS; i++)
		if (e->core.l[i].switch_id == m->switch_id &&
		    e->core.l[i].port_id == m->port_id)
			return true;
	return false;
}

/*
 * hpcc_ccm_rx_apply() - act on the CCM notifications received for the flow
 * since its last ACK (hpcc_ccm_take() in notify.c; Coordinated
 * Congestion Management section 6.4, hpcc_ccm_note()), each one's sequence
 * number checked against the window as it arrived (hpcc_fcr_lock() in
 * notify.c, ccm-bad-seq): type 1 sets the CC indicator and
 * type 2 clears it (ccm-cc-set, ccm-cc-cleared); type 3 changes the path
 * as hpcc_ccm_step() does (ccm-ar-reroutes), under the rule's limits, when
 * the flow's U is at eta or above or its telemetry does not show the
 * notifying hop (hpcc_on_path()), and
 * only for a flow that can change it: IPv6, no label of its own, rehash
 * allowed (else, or when the limits say no, ccm-ignored).  Context:
 * socket lock, RCU.
 */
static void hpcc_ccm_rx_apply(struct sock *sk, struct hpcc_ent *e,
			      const struct hpcc_cfg *cfg)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 gen = READ_ONCE(e->ccm_rx_gen);
	struct hpcc_ccm_msg m[2];
	struct hpcc_ccm_cfg c;
	bool can_move;
	u64 rtt_ns;
	int i, n, res;

	if (gen == e->ccm_used_gen)
		return;
	e->ccm_used_gen = gen;
	spin_lock_bh(&e->fcr_lock);
	n = hpcc_ccm_pend_take(&e->ccm_rx, m);
	spin_unlock_bh(&e->fcr_lock);
	hpcc_ccm_cfg_of(cfg, &c);
	can_move = hpcc_can_move(sk, e);
	rtt_ns = hpcc_rtt_ns(tp, cfg);
	for (i = 0; i < n; i++) {
		if (m[i].ntype == HPCC_CCM_AR_REQUIRED && !can_move) {
			hpcc_stat_inc(e->hn, HPCC_STAT_CCM_IGNORED);
			continue;
		}
		res = hpcc_ccm_note(&e->ccm, &c, &m[i], tp->tcp_clock_cache,
				    rtt_ns, inet_csk(sk)->icsk_ca_state >=
				    TCP_CA_Recovery, e->flowlabel,
				    e->core.u >= cfg->p.eta ||
				    !hpcc_on_path(e, &m[i]));
		switch (res) {
		case HPCC_CCM_NOTE_CC_SET:
			hpcc_stat_inc(e->hn, HPCC_STAT_CCM_CC_SET);
			/* hpccd carries the indicator in the probes */
			hpcc_nl_flow_event(e, HPCC_CMD_FLOW_ACTIVE);
			break;
		case HPCC_CCM_NOTE_CC_CLEARED:
			hpcc_stat_inc(e->hn, HPCC_STAT_CCM_CC_CLEARED);
			hpcc_nl_flow_event(e, HPCC_CMD_FLOW_ACTIVE);
			break;
		case HPCC_CCM_NOTE_REROUTE:
			hpcc_stat_inc(e->hn, HPCC_STAT_CCM_AR_REROUTES);
			hpcc_move(sk, e, rtt_ns, true);
			break;
		default:
			hpcc_stat_inc(e->hn, HPCC_STAT_CCM_IGNORED);
		}
	}
}

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
static void hpcc_take_telemetry(struct sock *sk, struct hpcc_ent *e,
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

/*
 * hpcc_apply_w() - the HPCC++ output: snd_cwnd = max(W / mss, 2) within
 * snd_cwnd_clamp, and the pacing rate R = W / T (draft section 4.2), times
 * pacing-gain / 100 (100 unless configured), within sk_max_pacing_rate.
 */
static void hpcc_apply_w(struct sock *sk, const struct hpcc_ent *e,
			 const struct hpcc_cfg *cfg)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 w = e->core.w >> HPCC_W_SHIFT;	/* bytes, at most 2^30 */
	u64 cwnd = div_u64(w, max_t(u32, tp->mss_cache, 1));
	u64 rate = div64_u64(w * NSEC_PER_SEC / 100 * cfg->pacing_gain_pct,
			     cfg->p.t_ns);

	cwnd = clamp_t(u64, cwnd, 2, max(tp->snd_cwnd_clamp, 2U));
	tcp_snd_cwnd_set(tp, cwnd);
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

/*
 * hpcc_publish() - copy what netlink reports (struct hpcc_pub) after an
 * event, under the entry's seqcount so that a reader sees one event's
 * values together; netlink never touches the socket.
 *
 * The writers are serialized by the socket lock, which is held from
 * softirq (bh_lock_sock) or from process context with BH enabled
 * (lock_sock): no seqcount_LOCKNAME_t type describes that lock, and a
 * lockdep-tracked seqcount_t written from both contexts is reported as
 * inconsistent SOFTIRQ usage.  So the write section is raw (no lockdep
 * map), lockdep checks the socket lock instead (sock_owned_by_me()), and
 * preemption is off inside it so a reader never spins on a preempted
 * writer.
 */
static void hpcc_publish(const struct sock *sk, struct hpcc_ent *e, u8 law,
			 u8 in_flight)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc_pub p = {
		.w = e->core.w,
		.wc = e->core.wc,
		.u = e->core.u,
		.pacing_rate = READ_ONCE(sk->sk_pacing_rate),
		.samples = e->samples,
		.srtt_us = tp->srtt_us >> 3,
		.mss = tp->mss_cache,
		.cwnd = tcp_snd_cwnd(tp),
		.inc_stage = e->core.inc_stage,
		.fallbacks = e->fallbacks,
		.reductions = e->reductions,
		.last_ack_seq = e->last_ack_seq,
		.last_snd_nxt = e->last_snd_nxt,
		.law = law,
		.in_flight = in_flight,
		.last_step = e->last_step,
		.n_flows = e->core.n_flows,
		.w_ai = e->core.w_ai,
		.fcr_rate = e->fcr_rate,
		.fcr_delay = e->fcr_delay,
		.ccm_changes = e->ccm.changes,
		.ccm_cc = e->ccm.cc,
		.rx = e->rx,
	};

	sock_owned_by_me(sk);
	preempt_disable();
	raw_write_seqcount_begin(&e->pub_seq);
	e->pub = p;
	raw_write_seqcount_end(&e->pub_seq);
	preempt_enable();
}

/*
 * hpcc_announce_active() - ask hpccd to probe (a flow-active event) once an
 * ACK finds the flow outlasting its first round trip since sending
 * resumed: data still in flight and either data queued that has not been
 * sent (it needs more than the window it started with) or in flight
 * without a break for at least srtt.  A flow that ends within a round
 * trip (most connections of a datacenter's request-response traffic, and
 * the one-segment answers of their other ends) is never probed: the first
 * response would arrive after its last ACK, and its probe cycle (a probe,
 * a response, a telemetry push at each end) would cost the hosts' CPU for
 * nothing.  A longer flow's first sample comes one round trip later than
 * if the probe had left with its first segment.  Documentation/design.rst,
 * "Idle restart".
 */
static void hpcc_announce_active(struct sock *sk, struct hpcc_ent *e)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 srtt_ns = (u64)(tp->srtt_us >> 3) * NSEC_PER_USEC;

	if (!e->active_pending)
		return;
	if (!tp->packets_out) {
		/* it ended (or paused) within the round trip: the next
		 * CA_EVENT_TX_START starts over, a FIN alone does not
		 */
		e->active_pending = 0;
		return;
	}
	if (!tcp_send_head(sk) &&
	    tp->tcp_clock_cache - e->busy_since < srtt_ns)
		return;
	e->active_pending = 0;
	hpcc_nl_flow_event(e, HPCC_CMD_FLOW_ACTIVE);
}

/*
 * hpcc_flowlabel() - the flow label the kernel puts on @sk's IPv6 data
 * packets, host order: ip6_make_flowlabel() as ip6_xmit() calls it for
 * TCP (the socket's own label, np->flow_label, if set; else, with
 * automatic labels, rol32() of the skb hash, which TCP sets from
 * sk_txhash, 20 bits of it in network order, and the stateless flag under
 * flowlabel_state_ranges).  0: no label.  Context: socket lock.
 */
static u32 hpcc_flowlabel(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	const struct net *net = sock_net(sk);
	__be32 fl = inet6_sk(sk)->flow_label & IPV6_FLOWLABEL_MASK;
	u8 mode = READ_ONCE(net->ipv6.sysctl.auto_flowlabels);
	u32 hash = READ_ONCE(sk->sk_txhash);

	if (fl)
		return be32_to_cpu(fl);
	/* no sk_txhash: the stack hashes the packet's flow keys; unknown */
	if (mode == IP6_AUTO_FLOW_LABEL_OFF || !hash ||
	    (!hpcc_autoflowlabel((struct net *)net, sk) &&
	     mode != IP6_AUTO_FLOW_LABEL_FORCED))
		return 0;
	fl = (__force __be32)rol32(hash, 16) & IPV6_FLOWLABEL_MASK;
	if (READ_ONCE(net->ipv6.sysctl.flowlabel_state_ranges))
		fl |= IPV6_FLOWLABEL_STATELESS_FLAG;
	return be32_to_cpu(fl);
#else
	return 0;
#endif
}

/*
 * hpcc_flowlabel_check() - keep an IPv6 flow's @flowlabel current.  A
 * change after the first (@announce: a rehash of sk_txhash on an RTO, by
 * PLB or a spurious retransmission, or a label set on the socket) is
 * counted and sent as flow-active with the new label, so that hpccd's next
 * probes take the data's new path (draft-miao-ccwg-hpcc section 7.2: a
 * probe shares the flow's path); the core sees the new path's hops as a
 * path change.
 */
static void hpcc_flowlabel_check(struct sock *sk, struct hpcc_ent *e,
				 bool announce)
{
	u32 fl;

	if (e->key.family != AF_INET6)
		return;
	fl = hpcc_flowlabel(sk);
	if (fl == e->flowlabel)
		return;
	WRITE_ONCE(e->flowlabel, fl);
	if (!announce)
		return;
	hpcc_stat_inc(e->hn, HPCC_STAT_FLOWS_REHASHED);
	hpcc_nl_flow_event(e, HPCC_CMD_FLOW_ACTIVE);
}

/*
 * hpcc_fcr_apply() - Fast Congestion Response on the flow, after the law of
 * this ACK ran (Documentation/design.rst, "Fast Congestion Response"): the
 * lowest rate R of the holds in force (draft section 4) caps the pacing
 * rate at R and the window at R x T, at least HPCC_FCR_W_MIN_MSS (4) MSS:
 * with 2, a flow that lost segments has too few duplicate ACKs for fast
 * retransmit and waits for the RTO (evaluation.rst, "Fast Congestion
 * Response, first S4 run"); the pacing rate still holds it to R.  Under
 * the HPCC law W and Wc are capped too (not below W_min), so that once no
 * hold is in force HPCC's own law raises W from there (section 5: "use
 * the sender congestion control to raise the sending rate").  The holds'
 * sequence numbers were checked as their messages arrived (hpcc_fcr_lock()
 * in notify.c): a message outside the window never became a hold.
 * This is also where a rate that arrived while the socket was owned by
 * user first lowers the pacing rate.  Without a new message and after the
 * last hold ended, the lock is not taken.
 */
static void hpcc_fcr_apply(struct sock *sk, struct hpcc_ent *e,
			   const struct hpcc_cfg *cfg, u8 law)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 now = tp->tcp_clock_cache;
	u64 gen = READ_ONCE(e->fcr_gen);
	u64 rate, until = 0, ts = 0, rx = 0, w, cwnd, pacing;
	bool fresh;
	int i;

	if (gen == e->fcr_used_gen && now >= e->fcr_until) {
		e->fcr_rate = 0;
		return;
	}
	spin_lock_bh(&e->fcr_lock);
	for (i = 0; i < HPCC_FCR_HOLDS; i++)
		if (e->fcr[i].rate && e->fcr[i].until > now)
			until = max(until, e->fcr[i].until);
	rate = hpcc_fcr_lowest(e->fcr, now);
	for (i = 0; i < HPCC_FCR_HOLDS; i++)
		if (rate && e->fcr[i].rate == rate) {
			ts = e->fcr[i].ts;
			rx = e->fcr[i].rx;
		}
	spin_unlock_bh(&e->fcr_lock);

	fresh = gen != e->fcr_used_gen && rate;
	if (fresh)
		e->fcr_delay = now > ts ? now - ts : 0;
	e->fcr_used_gen = gen;
	e->fcr_until = until;
	e->fcr_rate = rate;
	if (!rate)
		return;

	w = mul_u64_u64_div_u64(rate, cfg->p.t_ns, 8 * NSEC_PER_SEC);
	w = clamp_t(u64, w, HPCC_FCR_W_MIN_MSS * tp->mss_cache, 1ULL << 30);
	if (law == HPCC_MODE_HPCC) {
		u64 wq = max(w << HPCC_W_SHIFT, cfg->p.w_min);

		e->core.w = min(e->core.w, wq);
		e->core.wc = min(e->core.wc, wq);
	}
	cwnd = max_t(u64, div_u64(w, max_t(u32, tp->mss_cache, 1)),
		     HPCC_FCR_W_MIN_MSS);
	if (tcp_snd_cwnd(tp) > cwnd)
		tcp_snd_cwnd_set(tp, cwnd);
	pacing = div_u64(rate, 8);
	if (READ_ONCE(sk->sk_pacing_rate) > pacing)
		WRITE_ONCE(sk->sk_pacing_rate, pacing);
	if (fresh)
		trace_hpcc_fcr(e, rate, e->fcr_delay, rx > ts ? rx - ts : 0,
			       tcp_snd_cwnd(tp), READ_ONCE(sk->sk_pacing_rate));
}

/*
 * hpcc_cong_control_rs() - called by TCP on every ACK (socket lock held).
 *
 * In Open and Disorder, the newest pending telemetry runs through NewAck;
 * with fresh telemetry the window and pacing rate are HPCC++'s.  Without
 * telemetry for stale_rtts RTTs, and in CWR, Recovery and Loss, the
 * fallback law runs (Documentation/design.rst).
 */
static void hpcc_cong_control_rs(struct sock *sk, const struct rate_sample *rs)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	struct hpcc_ent *e = ca->ent;
	u32 una = tcp_sk(sk)->snd_una;
	bool una_advanced = after(una, ca->prior_una);
	const struct hpcc_cfg *cfg;
	u8 law = HPCC_MODE_FALLBACK;

	ca->prior_una = una;
	if (!e) {
		hpcc_fallback_law(sk, rs, una_advanced);
		return;
	}
	hpcc_flowlabel_check(sk, e, true);
	rcu_read_lock();
	cfg = rcu_dereference(e->hn->cfg);
	if (inet_csk(sk)->icsk_ca_state <= TCP_CA_Disorder) {
		hpcc_take_telemetry(sk, e, cfg);
		if (e->mode == HPCC_MODE_HPCC &&
		    hpcc_stale(tcp_sk(sk), e, cfg, tcp_sk(sk)->tcp_clock_cache))
			hpcc_to_fallback(sk, e);
		if (e->mode == HPCC_MODE_HPCC) {
			hpcc_apply_w(sk, e, cfg);
			law = HPCC_MODE_HPCC;
		}
	}
	if (law != HPCC_MODE_HPCC)
		hpcc_fallback_law(sk, rs, una_advanced);
	hpcc_fcr_apply(sk, e, cfg, law);
	hpcc_ccm_rx_apply(sk, e, cfg);
	rcu_read_unlock();
	if (!tcp_sk(sk)->packets_out && !e->idle_since)
		e->idle_since = tcp_sk(sk)->tcp_clock_cache;
	hpcc_publish(sk, e, law, tcp_sk(sk)->packets_out ? 1 : 0);
	hpcc_announce_active(sk, e);
}

HPCC_DEFINE_CONG_CONTROL(hpcc_cong_control, hpcc_cong_control_rs)

/*
 * hpcc_init() - a connection starts with hpcc (process context for active
 * opens and setsockopt, softirq for passive opens): out-of-line state,
 * pacing, the start the namespace's start parameter selects, and a
 * flow-new event.  line-rate: W = W_init (draft section 4.2).  slow-start:
 * the fallback law from TCP's window (the initial window for a new
 * connection) until a sample measures U (hpcc_take_telemetry()).  Without
 * state (max-flows reached, no memory, a key collision, a family without
 * a key; each counted) the flow runs the fallback law only.  IPv4, IPv6
 * and dual-stack sockets talking IPv4 (IPv4-mapped peers) all get state.
 */
static void hpcc_init(struct sock *sk)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	const struct hpcc_cfg *cfg;
	struct hpcc_key key;
	struct hpcc_ent *e;

	ca->ent = NULL;
	ca->prior_una = tcp_sk(sk)->snd_una;
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
	if (!hpcc_key_of_sk(sk, &key)) {
		hpcc_stat_inc(hpcc_net(sock_net(sk)), HPCC_STAT_NO_STATE_FAMILY);
		return;
	}
	e = hpcc_ent_create(hpcc_net(sock_net(sk)), &key,
			    READ_ONCE(sk->sk_bound_dev_if));
	if (!e)
		return;
	ca->ent = e;
	WRITE_ONCE(e->sk, sk);
	hpcc_flowlabel_check(sk, e, false);
	e->active_time = tcp_clock_ns();
	e->idle_since = e->active_time;
	rcu_read_lock();
	cfg = rcu_dereference(e->hn->cfg);
	hpcc_flow_init(&e->core, &cfg->p);
	if (cfg->start == HPCC_START_SLOW_START) {
		e->mode = HPCC_MODE_FALLBACK;
		e->starting = 1;
	} else {
		e->mode = HPCC_MODE_HPCC;
		hpcc_apply_w(sk, e, cfg);
	}
	rcu_read_unlock();
	hpcc_publish(sk, e, e->mode, 0);
	hpcc_nl_flow_event(e, HPCC_CMD_FLOW_NEW);
}

/*
 * hpcc_release() - the connection is closing or changes algorithm.  The
 * entry leaves the table before flow-del is sent: a flow-get dump that
 * hpccd starts after reading the event cannot list the flow again (it
 * would probe a dead flow until its next reconcile).  The entry is freed
 * after a grace period, so the event, built inside this read-side
 * section, still reads it.
 */
static void hpcc_release(struct sock *sk)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	struct hpcc_ent *e = ca->ent;

	if (!e)
		return;
	ca->ent = NULL;
	WRITE_ONCE(e->sk, NULL);
	rcu_read_lock();
	hpcc_ent_destroy(e);
	hpcc_nl_flow_event(e, HPCC_CMD_FLOW_DEL);
	rcu_read_unlock();
}

/*
 * hpcc_ssthresh() - loss, ECN or RTO: Reno's halving.  In HPCC mode W and
 * Wc are capped at the halved window too (saved for undo), so HPCC resumes
 * from it once TCP is back in Open.
 */
static u32 hpcc_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc_ent *e = hpcc_ent_of(sk);
	u32 ssthresh = tcp_reno_ssthresh(sk);
	u64 cap;

	if (e)
		e->reductions++;
	if (e && e->mode == HPCC_MODE_HPCC) {
		cap = ((u64)ssthresh * tp->mss_cache) << HPCC_W_SHIFT;
		e->w_prior = e->core.w;
		e->wc_prior = e->core.wc;
		e->core.w = min(e->core.w, cap);
		e->core.wc = min(e->core.wc, cap);
		e->core.inc_stage = 0;
	}
	return ssthresh;
}

/* hpcc_undo_cwnd() - the loss was spurious: restore cwnd, W and Wc. */
static u32 hpcc_undo_cwnd(struct sock *sk)
{
	struct hpcc_ent *e = hpcc_ent_of(sk);

	if (e && e->w_prior) {
		e->core.w = max(e->core.w, e->w_prior);
		e->core.wc = max(e->core.wc, e->wc_prior);
		e->w_prior = 0;
	}
	return tcp_reno_undo_cwnd(sk);
}

/*
 * hpcc_tx_start() - sending resumes with nothing in flight.  In HPCC mode
 * W holds and the staleness clock skips the idle period (@active_time
 * moves forward by it): hpccd probes only while data is in flight, so the
 * idle time is no gap in telemetry, and the flow falls back only after
 * stale_rtts RTTs with data in flight and no sample.  TCP skips its own
 * restart after idle for a congestion control with cong_control, so it is
 * done here for the fallback law: after an idle period longer than the RTO
 * and with net.ipv4.tcp_slow_start_after_idle set, the window restarts
 * from at most the initial window (RFC 2861, RFC 5681 section 4.1).  The
 * flow-active event that asks hpccd to probe waits for an ACK that finds
 * the flow still sending (hpcc_announce_active()).
 */
/* The initial window: the route's initcwnd, else TCP_INIT_CWND, as
 * tcp_init_cwnd() (not exported) computes it.
 */
static u32 hpcc_init_cwnd(const struct tcp_sock *tp, const struct dst_entry *dst)
{
	u32 cwnd = dst ? dst_metric(dst, RTAX_INITCWND) : 0;

	return min_t(u32, cwnd ?: TCP_INIT_CWND, tp->snd_cwnd_clamp);
}

static void hpcc_tx_start(struct sock *sk, struct hpcc_ent *e)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 now = tcp_clock_ns();
	u32 restart;

	if (e->idle_since) {
		e->active_time = min(hpcc_last_news(e) + (now - e->idle_since),
				     now);
		e->idle_since = 0;
	}
	if (e->mode != HPCC_MODE_HPCC &&
	    READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_slow_start_after_idle) &&
	    (s32)(tcp_jiffies32 - tp->lsndtime) > inet_csk(sk)->icsk_rto) {
		restart = hpcc_init_cwnd(tp, __sk_dst_get(sk));
		tp->snd_ssthresh = tcp_current_ssthresh(sk);
		tcp_snd_cwnd_set(tp, max(min(tcp_snd_cwnd(tp), restart), 2U));
	}
	hpcc_publish(sk, e, e->pub.law, 1);
	e->busy_since = now;
	e->active_pending = 1;
}

static void hpcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct hpcc_ent *e = hpcc_ent_of(sk);

	if (e && ev == CA_EVENT_TX_START)
		hpcc_tx_start(sk, e);
	/* an RTO: no path change for ccm-pause (like PLB's pause) */
	if (e && ev == CA_EVENT_LOSS) {
		struct hpcc_ccm_cfg c;

		rcu_read_lock();
		hpcc_ccm_cfg_of(rcu_dereference(e->hn->cfg), &c);
		rcu_read_unlock();
		hpcc_ccm_rto(&e->ccm, &c, tcp_clock_ns());
	}
}

/*
 * Restricted, like dctcp and bbr: hpcc starts a flow at line rate (W_init),
 * so net.ipv4.tcp_allowed_congestion_control decides who may use it.  Until
 * the operator lists it there, only a process with CAP_NET_ADMIN over the
 * socket's network namespace may select it with TCP_CONGESTION, and only the
 * initial namespace may make it its default; listing it sets
 * TCP_CONG_NON_RESTRICTED here, for as long as the module stays loaded
 * (Documentation/admin-guide.rst, "Who may select hpcc").
 */
static struct tcp_congestion_ops tcp_hpcc_ops __read_mostly = {
	.name		= "hpcc",
	.owner		= THIS_MODULE,
	.init		= hpcc_init,
	.release	= hpcc_release,
	.cong_control	= hpcc_cong_control,
	.ssthresh	= hpcc_ssthresh,
	.undo_cwnd	= hpcc_undo_cwnd,
	.cwnd_event	= hpcc_cwnd_event,
};

static int __init tcp_hpcc_register(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct hpcc_ca) > ICSK_CA_PRIV_SIZE);
	ret = hpcc_table_init();
	if (ret)
		goto err;
	ret = hpcc_net_register();
	if (ret)
		goto err_table;
	ret = hpcc_nl_init();
	if (ret)
		goto err_net;
	ret = tcp_register_congestion_control(&tcp_hpcc_ops);
	if (ret)
		goto err_nl;
	return 0;

err_nl:
	hpcc_nl_exit();
err_net:
	hpcc_net_unregister();
err_table:
	hpcc_table_exit();
err:
	pr_err("cannot load: %d\n", ret);
	return ret;
}

static void __exit tcp_hpcc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_hpcc_ops);
	hpcc_nl_exit();
	hpcc_net_unregister();
	hpcc_table_exit();
}

module_init(tcp_hpcc_register);
module_exit(tcp_hpcc_unregister);

MODULE_AUTHOR("tcp_hpcc developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("HPCC++ High Precision Congestion Control for TCP");
MODULE_VERSION(HPCC_VERSION);
