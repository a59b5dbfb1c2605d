// SPDX-License-Identifier: GPL-2.0
/*
 * cc.c - the window laws of tcp_hpcc and the changes between them: the
 * HPCC++ output (W to snd_cwnd, R = W/T to the pacing rate), the
 * fallback law (Reno with PRR and the kernel's pacing rule), the
 * staleness rule that hands a flow from one to the other and back, and
 * the restart after idle.  main.c's hpcc_cong_control_rs() decides which
 * law an ACK runs; Documentation/design.rst, "The control law in the
 * kernel", "Fallback law" and "Idle restart", gives the rules.
 */

#include <net/tcp.h>

#include "common/hpcc_compat.h"
#include "lib/hpcc_host.h"
#include "tcp_hpcc.h"
#include "trace.h"

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
void hpcc_fallback_law(struct sock *sk, const struct rate_sample *rs,
		       bool una_advanced)
{
	if (tcp_in_cwnd_reduction(sk))
		hpcc_prr(sk, rs, una_advanced);
	else if (rs->acked_sacked > 0)
		tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
	hpcc_update_pacing_rate(sk);
}

/* One RTT for the staleness rule: srtt, but at least T. */
u64 hpcc_rtt_ns(const struct tcp_sock *tp, const struct hpcc_cfg *cfg)
{
	return hpcc_host_rtt((u64)(tp->srtt_us >> 3) * NSEC_PER_USEC,
			     cfg->p.t_ns);
}

/* The later of the newest telemetry's arrival and the staleness floor. */
static u64 hpcc_last_news(const struct hpcc_ent *e)
{
	return hpcc_host_last_news(e->active_time, READ_ONCE(e->tlm_gen),
				   READ_ONCE(e->tlm_time));
}

/*
 * hpcc_stale() - true when the flow has had data in flight for stale_rtts
 * RTTs at @now (ns, tcp_clock_ns()) since its newest telemetry (or its
 * start).  hpccd probes only while data is in flight, so time spent idle
 * does not count: hpcc_tx_start() moves @active_time forward by each idle
 * period.
 */
bool hpcc_stale(const struct tcp_sock *tp, const struct hpcc_ent *e,
		const struct hpcc_cfg *cfg, u64 now)
{
	return hpcc_host_stale(now, hpcc_last_news(e), cfg->stale_rtts,
			       hpcc_rtt_ns(tp, cfg));
}

/*
 * hpcc_to_fallback() - stale telemetry: hand the window to the fallback
 * law, in congestion avoidance from the window HPCC last set.
 */
void hpcc_to_fallback(struct sock *sk, struct hpcc_ent *e)
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
void hpcc_resume(struct sock *sk, struct hpcc_ent *e,
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

/*
 * hpcc_apply_w() - the HPCC++ output: snd_cwnd = max(W / mss, 2) within
 * snd_cwnd_clamp, and the pacing rate R = W / T (draft section 4.2), times
 * pacing-gain / 100 (100 unless configured), within sk_max_pacing_rate.
 */
void hpcc_apply_w(struct sock *sk, const struct hpcc_ent *e,
		  const struct hpcc_cfg *cfg)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 rate = hpcc_host_pacing_rate(e->core.w, cfg->pacing_gain_pct,
					 cfg->p.t_ns);

	tcp_snd_cwnd_set(tp, hpcc_host_cwnd(e->core.w, tp->mss_cache,
					    tp->snd_cwnd_clamp));
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

/* The initial window: the route's initcwnd, else TCP_INIT_CWND, as
 * tcp_init_cwnd() (not exported) computes it.
 */
static u32 hpcc_init_cwnd(const struct tcp_sock *tp, const struct dst_entry *dst)
{
	u32 cwnd = dst ? dst_metric(dst, RTAX_INITCWND) : 0;

	return min_t(u32, cwnd ?: TCP_INIT_CWND, tp->snd_cwnd_clamp);
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
void hpcc_tx_start(struct sock *sk, struct hpcc_ent *e)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 now = tcp_clock_ns();
	u32 restart;

	if (e->idle_since) {
		e->active_time = hpcc_host_idle_end(hpcc_last_news(e),
						    e->idle_since, now);
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
