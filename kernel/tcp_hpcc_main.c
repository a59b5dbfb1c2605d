// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_hpcc - HPCC++ (High Precision Congestion Control) for Linux TCP.
 *
 * HPCC++ sets the window W and the pacing rate R = W/T from per-hop
 * telemetry (ts, qlen, txBytes, B) stamped by INT hops into probe packets
 * (draft-miao-ccwg-hpcc section 4.2; section 7.2 for TCP).
 *
 * Status: this file registers the "hpcc" congestion control with its lasting
 * structure (compat layer, range-checked parameters, cong_control hook).  The
 * control law is, for now, the conventional one that HPCC++ also uses as its
 * fallback without telemetry: Reno (the kernel's exported
 * tcp_reno_cong_avoid/ssthresh/undo_cwnd) with Proportional Rate Reduction
 * (RFC 6937) in CWR and Recovery.  The HPCC++ law itself is applied once
 * telemetry is supplied (Documentation/design.rst).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/tcp.h>

#include "hpcc_compat.h"

/*
 * Module parameters: the defaults of the HPCC++ parameters (draft section 5,
 * Figure 3).  Each is range-checked on load and on every write to
 * /sys/module/tcp_hpcc/parameters/; an out-of-range value is refused with
 * -EINVAL and leaves the old value.
 */
#define HPCC_PARAM(name, def, lo, hi, desc)				\
	static unsigned int name = def;					\
	static int name##_set(const char *val, const struct kernel_param *kp) \
	{								\
		return param_set_uint_minmax(val, kp, lo, hi);		\
	}								\
	static const struct kernel_param_ops name##_ops = {		\
		.set = name##_set,					\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &name##_ops, &name, 0644);		\
	MODULE_PARM_DESC(name, desc " [" #lo ".." #hi "], default " #def)

HPCC_PARAM(base_rtt_us, 100, 1, 100000,
	   "T, the known base RTT, in microseconds");
HPCC_PARAM(eta_permille, 950, 500, 1000,
	   "eta, the target link utilization, in 1/1000");
HPCC_PARAM(max_stage, 5, 0, 64,
	   "maxStage, additive increase steps before a multiplicative one");
HPCC_PARAM(w_ai_bytes, 0, 0, 1073741824,
	   "W_ai, additive increase in bytes; 0: W_init*(1-eta)/16");
HPCC_PARAM(line_rate_mbps, 10000, 1, 1600000,
	   "host line rate in Mbit/s; W_init = line rate * T");
HPCC_PARAM(w_min_bytes, 3000, 1, 1073741824,
	   "W_min, the smallest window in bytes");
HPCC_PARAM(stale_rtts, 4, 1, 1000,
	   "RTTs without telemetry before the fallback law takes over");
HPCC_PARAM(probe_dscp, 60, 1, 63, "DSCP of probe packets");
HPCC_PARAM(response_dscp, 61, 1, 63, "DSCP of response packets");

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
 * and zeroed prr_delivered and prr_out on entry.  The "+1 when snd_una
 * advanced" of the kernel's version is left out (the ACK flags are private
 * to tcp_input.c), which only makes the reduction slightly more cautious.
 */
static void hpcc_prr(struct sock *sk, const struct rate_sample *rs)
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
static void hpcc_fallback_law(struct sock *sk, const struct rate_sample *rs)
{
	if (tcp_in_cwnd_reduction(sk))
		hpcc_prr(sk, rs);
	else if (rs->acked_sacked > 0)
		tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
	hpcc_update_pacing_rate(sk);
}

static void hpcc_cong_control_rs(struct sock *sk, const struct rate_sample *rs)
{
	hpcc_fallback_law(sk, rs);
}

HPCC_DEFINE_CONG_CONTROL(hpcc_cong_control, hpcc_cong_control_rs)

static struct tcp_congestion_ops tcp_hpcc_ops __read_mostly = {
	.name		= "hpcc",
	.owner		= THIS_MODULE,
	.cong_control	= hpcc_cong_control,
	.ssthresh	= tcp_reno_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
};

static int __init tcp_hpcc_register(void)
{
	int ret;

	ret = tcp_register_congestion_control(&tcp_hpcc_ops);
	if (ret)
		pr_err("cannot register congestion control: %d\n", ret);
	return ret;
}

static void __exit tcp_hpcc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_hpcc_ops);
}

module_init(tcp_hpcc_register);
module_exit(tcp_hpcc_unregister);

MODULE_AUTHOR("tcp_hpcc developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("HPCC++ High Precision Congestion Control for TCP");
MODULE_VERSION(HPCC_VERSION);
