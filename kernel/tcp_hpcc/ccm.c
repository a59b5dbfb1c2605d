// SPDX-License-Identifier: GPL-2.0
/*
 * ccm.c - Coordinated Congestion Management
 * (draft-lyu-rtgwg-coordinated-congestion-management; HPCC++ section 9.4,
 * path migration) at the sender: the coordination rule on the samples
 * NewAck runs (hpcc_ccm_step(), from input.c), the notifications a hop
 * sent (hpcc_ccm_rx_apply(), from main.c; notify.c receives and checks
 * them) and the pause after an RTO (hpcc_ccm_on_rto(), from main.c).  A
 * path change is a new flow hash, so a new IPv6 flow label.  The pure
 * rules (hpcc_ccm_decide(), hpcc_ccm_note()) are in kernel/lib/hpcc_ccm.c.
 */

#include <net/tcp.h>

#include "common/hpcc_compat.h"
#include "lib/hpcc_host.h"
#include "tcp_hpcc.h"
#include "trace.h"

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
 * hpcc_ccm_step() - the coordination rule (Coordinated Congestion
 * Management section 6.4, HPCC++ section 9.4; hpcc_ccm_decide()) on the
 * sample NewAck just ran for an IPv6 flow, with ccm-tries set: congestion
 * (hpcc_host_ccm_sample(): U above 1, a standing queue, or a saturated
 * hop the flow shares) at a hop
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
void hpcc_ccm_step(struct sock *sk, struct hpcc_ent *e,
		   const struct hpcc_cfg *cfg, u64 now, u64 w0, u64 wc0,
		   u32 stage0)
{
	struct hpcc_ccm_sample smp;
	struct hpcc_ccm_cfg c;
	int act;

	hpcc_ccm_cfg_of(cfg, &c);
	if (!c.tries || e->mode != HPCC_MODE_HPCC || !hpcc_can_move(sk, e))
		return;
	hpcc_host_ccm_sample(&e->core, &cfg->p, w0, cfg->ccm_share, now,
			     hpcc_rtt_ns(tcp_sk(sk), cfg), &smp);
	if (smp.congested)
		smp.rnd = get_random_u32();
	act = hpcc_ccm_decide(&e->ccm, &c, &smp);
	if (act == HPCC_CCM_RATE)
		return;
	hpcc_host_ccm_hold(&e->core, w0, wc0, stage0);
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
void hpcc_ccm_rx_apply(struct sock *sk, struct hpcc_ent *e,
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
 * hpcc_ccm_on_rto() - an RTO (CA_EVENT_LOSS): no path change for
 * ccm-pause seconds (like PLB's pause after an RTO).  Context: socket
 * lock.
 */
void hpcc_ccm_on_rto(struct hpcc_ent *e)
{
	struct hpcc_ccm_cfg c;

	rcu_read_lock();
	hpcc_ccm_cfg_of(rcu_dereference(e->hn->cfg), &c);
	rcu_read_unlock();
	hpcc_ccm_rto(&e->ccm, &c, tcp_clock_ns());
}
