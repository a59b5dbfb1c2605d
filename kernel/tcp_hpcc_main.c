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
#include "hpcc_core.h"

/**
 * struct hpcc_param - a module parameter with its valid range
 * @val: current value; read locklessly with READ_ONCE()
 * @min: smallest accepted value
 * @max: largest accepted value
 */
struct hpcc_param {
	unsigned int val;
	unsigned int min;
	unsigned int max;
};

/*
 * hpcc_param_set() - parse and range-check a write to a parameter, on load
 * or through /sys/module/tcp_hpcc/parameters/.  Returns 0, or -EINVAL (not
 * a number, or out of [min, max]) leaving the old value in place.
 */
static int hpcc_param_set(const char *buf, const struct kernel_param *kp)
{
	struct hpcc_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(buf, 0, &v) || v < p->min || v > p->max)
		return -EINVAL;
	WRITE_ONCE(p->val, v);
	return 0;
}

static int hpcc_param_get(char *buf, const struct kernel_param *kp)
{
	const struct hpcc_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(p->val));
}

static const struct kernel_param_ops hpcc_param_ops = {
	.set = hpcc_param_set,
	.get = hpcc_param_get,
};

/*
 * Module parameters: the defaults of the HPCC++ parameters (draft section 5,
 * Figure 3) and of the probe DSCPs (section 7.2).  The range in each
 * description is the one enforced.
 */
static struct hpcc_param base_rtt_us = {
	HPCC_DEFAULT_T_NS / 1000, HPCC_T_MIN_NS / 1000, HPCC_T_MAX_NS / 1000
};
module_param_cb(base_rtt_us, &hpcc_param_ops, &base_rtt_us, 0644);
MODULE_PARM_DESC(base_rtt_us,
		 "T, the known base RTT, in us [1..100000], default 100");

static struct hpcc_param eta_permille = {
	HPCC_DEFAULT_ETA_PERMILLE, 500, 1000
};
module_param_cb(eta_permille, &hpcc_param_ops, &eta_permille, 0644);
MODULE_PARM_DESC(eta_permille,
		 "eta, target link utilization, in 1/1000 [500..1000], default 950");

static struct hpcc_param max_stage = {
	HPCC_DEFAULT_MAX_STAGE, 0, HPCC_MAX_STAGE_MAX
};
module_param_cb(max_stage, &hpcc_param_ops, &max_stage, 0644);
MODULE_PARM_DESC(max_stage,
		 "maxStage, additive increase steps before a multiplicative one [0..64], default 5");

static struct hpcc_param w_ai_bytes = { 0, 0, HPCC_W_MAX_MAX };
module_param_cb(w_ai_bytes, &hpcc_param_ops, &w_ai_bytes, 0644);
MODULE_PARM_DESC(w_ai_bytes,
		 "W_ai, additive increase in bytes, 0 for W_init*(1-eta)/16 [0..1073741824], default 0");

static struct hpcc_param line_rate_mbps = {
	HPCC_DEFAULT_LINE_RATE_BPS / 1000000, 1, 1600000
};
module_param_cb(line_rate_mbps, &hpcc_param_ops, &line_rate_mbps, 0644);
MODULE_PARM_DESC(line_rate_mbps,
		 "host line rate in Mbit/s, W_init = line rate * T [1..1600000], default 10000");

static struct hpcc_param w_min_bytes = {
	HPCC_DEFAULT_W_MIN, HPCC_W_MIN_MIN, HPCC_W_MAX_MAX
};
module_param_cb(w_min_bytes, &hpcc_param_ops, &w_min_bytes, 0644);
MODULE_PARM_DESC(w_min_bytes,
		 "W_min, the smallest window in bytes [128..1073741824], default 3000");

static struct hpcc_param stale_rtts = { 4, 1, 1000 };
module_param_cb(stale_rtts, &hpcc_param_ops, &stale_rtts, 0644);
MODULE_PARM_DESC(stale_rtts,
		 "RTTs without telemetry before the fallback law [1..1000], default 4");

static struct hpcc_param probe_dscp = { 60, 1, 63 };
module_param_cb(probe_dscp, &hpcc_param_ops, &probe_dscp, 0644);
MODULE_PARM_DESC(probe_dscp, "DSCP of probe packets [1..63], default 60");

static struct hpcc_param response_dscp = { 61, 1, 63 };
module_param_cb(response_dscp, &hpcc_param_ops, &response_dscp, 0644);
MODULE_PARM_DESC(response_dscp,
		 "DSCP of response packets [1..63], default 61");

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

/*
 * TCP_CONG_NON_RESTRICTED: a network namespace other than the initial one
 * may only default to a non-restricted congestion control, and per-netns
 * selection is how containers and testbeds use hpcc.  Like cubic and reno,
 * any socket may then select it with TCP_CONGESTION.
 */
static struct tcp_congestion_ops tcp_hpcc_ops __read_mostly = {
	.flags		= TCP_CONG_NON_RESTRICTED,
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
