// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hpcc - HPCC++ (High Precision Congestion Control) for Linux TCP.
 *
 * INT hops stamp each probe with their telemetry: ts, qlen, txBytes and the
 * link rate B (draft-miao-ccwg-hpcc section 6.2; hpccd sends the probes
 * and returns the records, section 7.2).  On an ACK that brings a new
 * sample, NewAck (section 4.2, Figures 4 to 6) runs:
 *
 *   U  = EWMA over tau/T of max_i(min(qlen_i, qlen_i') / (B_i * T)
 *                                 + (txBytes_i - txBytes_i') / dts_i / B_i)
 *   W  = Wc / (U / eta) + W_ai  if U >= eta or incStage >= maxStage
 *                               (incStage = 0), else Wc + W_ai (incStage++)
 *   Wc = W once per RTT: when the ACK is past lastUpdateSeq (= snd_nxt then)
 *   snd_cwnd = W / mss, and the pacing rate R = W / T
 *
 * Without fresh telemetry, and while TCP recovers from loss, the flow runs
 * a conventional law (Reno with PRR) from the window HPCC left it:
 *
 *   hpcc_init(): start line-rate             start slow-start
 *         |      (W = W_init)                (TCP's initial window)
 *         v                                           |
 *   +------------+                                    v
 *   |    HPCC    |  stale_rtts RTTs in        +--------------+
 *   | NewAck: W, | ------------------------>  |   FALLBACK   |
 *   |  R = W/T   |  flight, no sample         |  Reno + PRR, |
 *   |            | <------------------------  | the kernel's |
 *   +------------+  a sample: hpcc_resume(),  |    pacing    |
 *      |      ^     W from cwnd, U kept       +--------------+
 *      |      |                                 |        ^
 *      +------+                                 +--------+
 *   CWR, Recovery, Loss: the fallback      idle longer than the RTO:
 *   law for the ACK; W and Wc capped at    cwnd restarts (RFC 2861,
 *   ssthresh (hpcc_ssthresh())             hpcc_tx_start())
 *
 * Idle time is no gap in telemetry: hpccd probes only while data is in
 * flight, so the staleness clock skips idle periods, and a flow is only
 * announced to hpccd once it outlasts a round trip (flow.c).  After the law
 * of an ACK, two features act on the flow from messages INT hops send to
 * it directly:
 *  - FCR (draft-even-tsvwg-datacenter-fast-congestion, section 4): the
 *    lowest rate a congested hop asked for caps the pacing rate and W
 *    (fcr.c), until the hold ends; HPCC raises W from there.
 *  - CCM (draft-lyu-rtgwg-coordinated-congestion-management section 6;
 *    HPCC++ section 9.4): a congested hop other than the last, that
 *    outlasts HPCC's own decrease, or a hop's notification, moves an
 *    IPv6 flow to another path with a new flow hash (ccm.c).
 *
 * Files: main.c the ops, the ACK path's order, init and exit; cc.c the
 * laws and the changes between them; input.c telemetry into the core
 * (kernel/lib/hpcc_core.c); fcr.c, ccm.c the two features at the sender;
 * notify.c their messages in; flow.c what hpccd learns of a flow; table.c
 * the flow table; net.c namespaces; netlink.c the family; probe.c the
 * probe hook; trace.h the tracepoints.  Documentation/design.rst, "The
 * control law in the kernel", gives the rules.
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

/* Whether this ACK advanced snd_una since the last cong_control call. */
static bool hpcc_una_advanced(struct sock *sk, struct hpcc_ca *ca)
{
	u32 una = tcp_sk(sk)->snd_una;
	bool advanced = after(una, ca->prior_una);

	ca->prior_una = una;
	return advanced;
}

/*
 * hpcc_update_model() - the flow's IPv6 label kept current for hpccd's
 * probes, then, in Open and Disorder, the newest pending telemetry run
 * through NewAck and the staleness rule.  Returns the law this ACK runs:
 * HPCC_MODE_HPCC with fresh telemetry, HPCC_MODE_FALLBACK without it and
 * in CWR, Recovery and Loss.
 */
static u8 hpcc_update_model(struct sock *sk, struct hpcc_ent *e,
			    const struct hpcc_cfg *cfg)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	hpcc_flowlabel_check(sk, e, true);
	if (inet_csk(sk)->icsk_ca_state > TCP_CA_Disorder)
		return HPCC_MODE_FALLBACK;
	hpcc_take_telemetry(sk, e, cfg);
	if (e->mode == HPCC_MODE_HPCC &&
	    hpcc_stale(tp, e, cfg, tp->tcp_clock_cache))
		hpcc_to_fallback(sk, e);
	return e->mode == HPCC_MODE_HPCC ? HPCC_MODE_HPCC : HPCC_MODE_FALLBACK;
}

/*
 * hpcc_set_cwnd_and_pacing() - the window and pacing rate of @law (W and
 * W/T, or Reno with PRR and the kernel's pacing rule), then the FCR cap.
 */
static void hpcc_set_cwnd_and_pacing(struct sock *sk, struct hpcc_ent *e,
				     const struct hpcc_cfg *cfg,
				     const struct rate_sample *rs, u8 law,
				     bool una_advanced)
{
	if (law == HPCC_MODE_HPCC)
		hpcc_apply_w(sk, e, cfg);
	else
		hpcc_fallback_law(sk, rs, una_advanced);
	hpcc_fcr_apply(sk, e, cfg, law);
}

/*
 * hpcc_report() - what the ACK leaves for hpccd: the start of an idle
 * period, the state flow-get reads, and a flow-active event once the flow
 * outlasts its first round trip.
 */
static void hpcc_report(struct sock *sk, struct hpcc_ent *e, u8 law)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (!tp->packets_out && !e->idle_since)
		e->idle_since = tp->tcp_clock_cache;
	hpcc_publish(sk, e, law, tp->packets_out ? 1 : 0);
	hpcc_announce_active(sk, e);
}

/*
 * hpcc_cong_control_rs() - called by TCP on every ACK (socket lock held):
 * update the model from telemetry, set the window and pacing rate of the
 * law in force, act on the hops' CCM notifications, report to hpccd.  A
 * flow without state (hpcc_init()) runs the fallback law only.
 */
static void hpcc_cong_control_rs(struct sock *sk, const struct rate_sample *rs)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	bool una_advanced = hpcc_una_advanced(sk, ca);
	struct hpcc_ent *e = ca->ent;
	const struct hpcc_cfg *cfg;
	u8 law;

	if (!e) {
		hpcc_fallback_law(sk, rs, una_advanced);
		return;
	}
	rcu_read_lock();
	cfg = rcu_dereference(e->hn->cfg);
	law = hpcc_update_model(sk, e, cfg);
	hpcc_set_cwnd_and_pacing(sk, e, cfg, rs, law, una_advanced);
	hpcc_ccm_rx_apply(sk, e, cfg);
	rcu_read_unlock();
	hpcc_report(sk, e, law);
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

static void hpcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct hpcc_ent *e = hpcc_ent_of(sk);

	if (e && ev == CA_EVENT_TX_START)
		hpcc_tx_start(sk, e);
	if (e && ev == CA_EVENT_LOSS)
		hpcc_ccm_on_rto(e);
}

#ifdef HPCC_HAVE_CWND_EVENT_TX_START
/*
 * From v7.1 CA_EVENT_TX_START reaches only this hook, not cwnd_event: the
 * restart after idle (hpcc_tx_start()) hangs on it.
 */
static void hpcc_cwnd_event_tx_start(struct sock *sk)
{
	struct hpcc_ent *e = hpcc_ent_of(sk);

	if (e)
		hpcc_tx_start(sk, e);
}
#endif

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
#ifdef HPCC_HAVE_CWND_EVENT_TX_START
	.cwnd_event_tx_start = hpcc_cwnd_event_tx_start,
#endif
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
