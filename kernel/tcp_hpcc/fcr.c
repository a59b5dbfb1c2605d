// SPDX-License-Identifier: GPL-2.0
/*
 * fcr.c - Fast Congestion Response (draft-even-tsvwg-datacenter-fast-
 * congestion) at the sender, on the ACK path: the lowest rate of the holds
 * in force caps the flow's pacing rate and window.  The messages are
 * received, checked and held by notify.c; the rules over their bytes are
 * in kernel/lib/hpcc_fcr.c.  One call, from main.c: hpcc_fcr_apply().
 */

#include <net/tcp.h>
#include "common/hpcc_compat.h"
#include "lib/hpcc_host.h"
#include "tcp_hpcc.h"
#include "trace.h"

/*
 * hpcc_fcr_apply() - Fast Congestion Response on the flow, after the law of
 * this ACK ran (Documentation/design.rst, "Fast Congestion Response"): the
 * lowest rate R of the holds in force (draft section 4) caps the pacing
 * rate at R and the window at R x T (hpcc_host_fcr_window(), shared with
 * the ns-3 model), at least HPCC_FCR_W_MIN_MSS (4) MSS:
 * with 2, a flow that lost segments has too few duplicate ACKs for fast
 * retransmit and waits for the RTO (evaluation.rst, "Fast Congestion
 * Response"); the pacing rate still holds it to R.  Under
 * the HPCC law W and Wc are capped too (not below W_min), so that once no
 * hold is in force HPCC's own law raises W from there (section 5: "use
 * the sender congestion control to raise the sending rate").  The holds'
 * sequence numbers were checked as their messages arrived (hpcc_fcr_lock()
 * in notify.c): a message outside the window never became a hold.
 * This is also where a rate that arrived while the socket was owned by
 * user first lowers the pacing rate.  Without a new message and after the
 * last hold ended, the lock is not taken.
 */
void hpcc_fcr_apply(struct sock *sk, struct hpcc_ent *e,
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

	w = hpcc_host_fcr_window(rate, cfg->p.t_ns, tp->mss_cache);
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
