// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - the per network namespace lifecycle of tcp_hpcc: the
 * parameters (module parameters as the defaults of a new namespace, then
 * params-set), the counters, and the probe hook's registration and
 * teardown.  The flow table is table.c; the congestion control ops
 * are main.c.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>
#include <linux/hpcc_wire.h>

#define HPCC_FAULT_DEFINE_PARAMS
#include "common/hpcc_fault.h"
#include "tcp_hpcc.h"

unsigned int hpcc_net_id __read_mostly;

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
 * ifa_protocol: hpcc_wire_ifa_protocol_ok() holds the range and refuses the
 * numbers hosts handle themselves.  Returns 0 or -EINVAL, as
 * hpcc_param_set().
 */
static int hpcc_param_ifa_set(const char *buf, const struct kernel_param *kp)
{
	struct hpcc_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(buf, 0, &v) || !hpcc_wire_ifa_protocol_ok(v))
		return -EINVAL;
	WRITE_ONCE(p->val, v);
	return 0;
}

static const struct kernel_param_ops hpcc_param_ifa_ops = {
	.set = hpcc_param_ifa_set,
	.get = hpcc_param_get,
};

/*
 * Module parameters: the defaults of the HPCC++ parameters (draft section 5,
 * Figure 3) and of the probe DSCPs (section 7.2).  The range in each
 * description is the one enforced.
 */
static struct hpcc_param base_rtt_us = {
	HPCC_DEFAULT_T_NS / 1000, HPCC_T_MIN_NS / 1000, HPCC_T_MAX
};
module_param_cb(base_rtt_us, &hpcc_param_ops, &base_rtt_us, 0644);
MODULE_PARM_DESC(base_rtt_us,
		 "T, the known base RTT, in us [1.." __stringify(HPCC_T_MAX) "], default 100");

static struct hpcc_param eta_permille = {
	HPCC_DEFAULT_ETA_PERMILLE, HPCC_ETA_MIN_PERMILLE, HPCC_ETA_MAX_PERMILLE
};
module_param_cb(eta_permille, &hpcc_param_ops, &eta_permille, 0644);
MODULE_PARM_DESC(eta_permille,
		 "eta, target link utilization, in 1/1000 ["
		 __stringify(HPCC_ETA_MIN_PERMILLE) ".."
		 __stringify(HPCC_ETA_MAX_PERMILLE) "], default 950");

static struct hpcc_param max_stage = {
	HPCC_DEFAULT_MAX_STAGE, 0, HPCC_MAX_STAGE_MAX
};
module_param_cb(max_stage, &hpcc_param_ops, &max_stage, 0644);
MODULE_PARM_DESC(max_stage,
		 "maxStage, additive increase steps before a multiplicative one [0.."
		 __stringify(HPCC_MAX_STAGE_MAX) "], default 5");

static struct hpcc_param w_ai_bytes = { 0, 0, HPCC_W_MAX_MAX };
module_param_cb(w_ai_bytes, &hpcc_param_ops, &w_ai_bytes, 0644);
MODULE_PARM_DESC(w_ai_bytes,
		 "W_ai, additive increase in bytes, 0 for W_init*(1-eta)/n_flows [0.."
		 __stringify(HPCC_W_MAX) "], default 0");

static struct hpcc_param line_rate_mbps = {
	HPCC_DEFAULT_LINE_RATE_BPS / 1000000, 1, HPCC_LINE_RATE_MAX
};
module_param_cb(line_rate_mbps, &hpcc_param_ops, &line_rate_mbps, 0644);
MODULE_PARM_DESC(line_rate_mbps,
		 "host line rate in Mbit/s, W_init = line rate * T [1.."
		 __stringify(HPCC_LINE_RATE_MAX) "], default 10000");

static struct hpcc_param w_min_bytes = {
	HPCC_DEFAULT_W_MIN, HPCC_W_MIN_MIN, HPCC_W_MAX_MAX
};
module_param_cb(w_min_bytes, &hpcc_param_ops, &w_min_bytes, 0644);
MODULE_PARM_DESC(w_min_bytes,
		 "W_min, the smallest window in bytes [" __stringify(HPCC_W_MIN_MIN)
		 ".." __stringify(HPCC_W_MAX) "], default 3000");

static struct hpcc_param stale_rtts = { 4, 1, HPCC_STALE_RTTS_MAX };
module_param_cb(stale_rtts, &hpcc_param_ops, &stale_rtts, 0644);
MODULE_PARM_DESC(stale_rtts,
		 "RTTs with data in flight and no telemetry before the fallback law [1.."
		 __stringify(HPCC_STALE_RTTS_MAX) "], default 4");

static struct hpcc_param probe_dscp = { 60, 1, HPCC_DSCP_MAX };
module_param_cb(probe_dscp, &hpcc_param_ops, &probe_dscp, 0644);
MODULE_PARM_DESC(probe_dscp, "DSCP of probe packets but INT-MD ones [1.."
		 __stringify(HPCC_DSCP_MAX) "], default 60");

static struct hpcc_param int_dscp = { 23, 1, HPCC_DSCP_MAX };
module_param_cb(int_dscp, &hpcc_param_ops, &int_dscp, 0644);
MODULE_PARM_DESC(int_dscp,
		 "DSCP of INT-MD probes, the value that signals INT [1.."
		 __stringify(HPCC_DSCP_MAX) "], default 23");

static struct hpcc_param response_dscp = { 61, 1, HPCC_DSCP_MAX };
module_param_cb(response_dscp, &hpcc_param_ops, &response_dscp, 0644);
MODULE_PARM_DESC(response_dscp,
		 "DSCP of response packets [1.." __stringify(HPCC_DSCP_MAX)
		 "], default 61");

static struct hpcc_param ifa_protocol = {
	253, HPCC_IFA_PROTOCOL_MIN, HPCC_IFA_PROTOCOL_MAX
};
module_param_cb(ifa_protocol, &hpcc_param_ifa_ops, &ifa_protocol, 0644);
MODULE_PARM_DESC(ifa_protocol,
		 "IP protocol (IPv6: next header) of IFA 2.0 probes ["
		 __stringify(HPCC_IFA_PROTOCOL_MIN) ".."
		 __stringify(HPCC_IFA_PROTOCOL_MAX)
		 "] but ICMP, TCP, UDP and IPv6 extension headers, default 253");

static struct hpcc_param max_flows = { 65536, 1, HPCC_MAX_FLOWS_MAX };
module_param_cb(max_flows, &hpcc_param_ops, &max_flows, 0644);
MODULE_PARM_DESC(max_flows,
		 "most flows with HPCC state per network namespace [1.."
		 __stringify(HPCC_MAX_FLOWS_MAX) "], default 65536");

static struct hpcc_param pacing_gain_pct = {
	100, HPCC_PACING_GAIN_MIN, HPCC_PACING_GAIN_MAX
};
module_param_cb(pacing_gain_pct, &hpcc_param_ops, &pacing_gain_pct, 0644);
MODULE_PARM_DESC(pacing_gain_pct,
		 "HPCC-mode pacing rate in percent of W/T ["
		 __stringify(HPCC_PACING_GAIN_MIN) ".."
		 __stringify(HPCC_PACING_GAIN_MAX) "], default 100");

static struct hpcc_param n_flows = {
	HPCC_DEFAULT_N_FLOWS, 1, HPCC_N_FLOWS_MAX
};
module_param_cb(n_flows, &hpcc_param_ops, &n_flows, 0644);
MODULE_PARM_DESC(n_flows,
		 "N of W_ai = W_init*(1-eta)/N when w_ai_bytes is 0, and the floor of a reported N under n_flows_source 2 [1.."
		 __stringify(HPCC_N_FLOWS_MAX) "], default 16");

static struct hpcc_param n_flows_source = {
	HPCC_N_SOURCE_CONFIGURED, HPCC_N_SOURCE_CONFIGURED, HPCC_N_SOURCE_MAX
};
module_param_cb(n_flows_source, &hpcc_param_ops, &n_flows_source, 0644);
MODULE_PARM_DESC(n_flows_source,
		 "N of a flow's W_ai: 0 configured, 1 receiver reported, 2 the larger of both [0..2], default 0");

static struct hpcc_param start = {
	HPCC_START_LINE_RATE, HPCC_START_LINE_RATE, HPCC_START_SLOW_START
};
module_param_cb(start, &hpcc_param_ops, &start, 0644);
MODULE_PARM_DESC(start,
		 "A new flow's start: 0 line rate (W = W_init, the draft's), 1 slow start until a sample measures U [0..1], default 0");

static struct hpcc_param ewma_period_pct = {
	HPCC_DEFAULT_EWMA_PCT, HPCC_EWMA_PERIOD_MIN, HPCC_EWMA_PERIOD_MAX
};
module_param_cb(ewma_period_pct, &hpcc_param_ops, &ewma_period_pct, 0644);
MODULE_PARM_DESC(ewma_period_pct,
		 "the period of U's EWMA in percent of T, 100 the draft's T ["
		 __stringify(HPCC_EWMA_PERIOD_MIN) ".."
		 __stringify(HPCC_EWMA_PERIOD_MAX) "], default 100");

static struct hpcc_param ccm_tries = { 0, 0, U8_MAX };
module_param_cb(ccm_tries, &hpcc_param_ops, &ccm_tries, 0644);
MODULE_PARM_DESC(ccm_tries,
		 "IPv6 path changes per episode of congestion in the fabric before HPCC's decrease, 0 off [0..255], default 0");

static struct hpcc_param ccm_samples = { 2, 1, U8_MAX };
module_param_cb(ccm_samples, &hpcc_param_ops, &ccm_samples, 0644);
MODULE_PARM_DESC(ccm_samples,
		 "congested samples in a row before a path change [1..255], default 2");

static struct hpcc_param ccm_gap_rtts = { 4, 1, U8_MAX };
module_param_cb(ccm_gap_rtts, &hpcc_param_ops, &ccm_gap_rtts, 0644);
MODULE_PARM_DESC(ccm_gap_rtts,
		 "fewest RTTs between two path changes of a flow [1..255], default 4");

static struct hpcc_param ccm_pause_s = { 60, 0, HPCC_CCM_PAUSE_MAX };
module_param_cb(ccm_pause_s, &hpcc_param_ops, &ccm_pause_s, 0644);
MODULE_PARM_DESC(ccm_pause_s,
		 "seconds without a path change after an RTO [0.."
		 __stringify(HPCC_CCM_PAUSE_MAX) "], default 60");

static struct hpcc_param ccm_share = { 0, 0, HPCC_CCM_SHARE_MAX };
module_param_cb(ccm_share, &hpcc_param_ops, &ccm_share, 0644);
MODULE_PARM_DESC(ccm_share,
		 "percent of the binding hop's B x T under which W at U >= eta counts as congested, 0 off [0.."
		 __stringify(HPCC_CCM_SHARE_MAX) "], default 0");

/**
 * hpcc_cfg_defaults() - the parameters a new network namespace starts with
 * @cfg: filled from the module parameters (@cfg->p is left for
 *	hpcc_cfg_build())
 *
 * Module parameters are read when a namespace is created (the initial one
 * when the module loads); params-set changes a running namespace.
 */
void hpcc_cfg_defaults(struct hpcc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->t_us = READ_ONCE(base_rtt_us.val);
	cfg->eta_permille = READ_ONCE(eta_permille.val);
	cfg->max_stage = READ_ONCE(max_stage.val);
	cfg->w_ai_bytes = READ_ONCE(w_ai_bytes.val);
	cfg->line_rate_mbps = READ_ONCE(line_rate_mbps.val);
	cfg->w_min_bytes = READ_ONCE(w_min_bytes.val);
	cfg->stale_rtts = READ_ONCE(stale_rtts.val);
	cfg->probe_dscp = READ_ONCE(probe_dscp.val);
	cfg->response_dscp = READ_ONCE(response_dscp.val);
	cfg->max_flows = READ_ONCE(max_flows.val);
	cfg->pacing_gain_pct = READ_ONCE(pacing_gain_pct.val);
	cfg->n_flows = READ_ONCE(n_flows.val);
	cfg->n_source = READ_ONCE(n_flows_source.val);
	cfg->start = READ_ONCE(start.val);
	cfg->ewma_period_pct = READ_ONCE(ewma_period_pct.val);
	cfg->ifa_protocol = READ_ONCE(ifa_protocol.val);
	cfg->ccm_tries = READ_ONCE(ccm_tries.val);
	cfg->ccm_samples = READ_ONCE(ccm_samples.val);
	cfg->ccm_gap_rtts = READ_ONCE(ccm_gap_rtts.val);
	cfg->ccm_pause_s = READ_ONCE(ccm_pause_s.val);
	cfg->ccm_share = READ_ONCE(ccm_share.val);
	cfg->int_dscp = READ_ONCE(int_dscp.val);
	/* FCR is off until fcr-set names a port and the managed prefixes */
	cfg->fcr_hold_max_us = HPCC_FCR_HOLD_MAX_DEFAULT;
	cfg->fcr_rate_min = HPCC_FCR_RATE_MIN_DEFAULT;
}

/**
 * hpcc_net() - the tcp_hpcc state of a network namespace
 * @net: the namespace; must be alive (a socket or request in it)
 *
 * Return: the state, never NULL while the module is loaded.
 */
struct hpcc_net *hpcc_net(const struct net *net)
{
	return *(struct hpcc_net **)net_generic(net, hpcc_net_id);
}

/**
 * hpcc_stat_inc() - count one event in a namespace's counters
 * @hn: the namespace's state
 * @s: the counter
 */
void hpcc_stat_inc(struct hpcc_net *hn, enum hpcc_stat s)
{
	atomic64_inc(&hn->stats[s]);
}

/**
 * hpcc_cfg_build() - a new parameter set with the core's fixed-point form
 * @base: the user-visible fields; @base->p is ignored
 *
 * Derives T (ns), eta (Q32, rounded to nearest), U's EWMA period, W_init =
 * line rate * T in whole bytes, W_min and W_ai (the rule of thumb of draft section 5 with
 * N = n_flows when w_ai_bytes is 0) and checks them with hpcc_params_valid().
 *
 * Return: a kmalloc'ed copy (GFP_KERNEL), ERR_PTR(-EINVAL) when the set is
 * inconsistent (W_min > W_init, W_ai > W_init), ERR_PTR(-ENOMEM).
 */
struct hpcc_cfg *hpcc_cfg_build(const struct hpcc_cfg *base)
{
	struct hpcc_cfg *c = kmemdup(base, sizeof(*base), GFP_KERNEL_ACCOUNT);
	struct hpcc_params *p;

	if (!c)
		return ERR_PTR(-ENOMEM);
	p = &c->p;
	p->t_ns = (u64)c->t_us * NSEC_PER_USEC;
	p->eta = DIV_ROUND_CLOSEST_ULL((u64)c->eta_permille << HPCC_U_SHIFT,
				       1000);
	p->max_stage = c->max_stage;
	p->ewma_pct = c->ewma_period_pct;
	p->w_init = hpcc_bdp((u64)c->line_rate_mbps * 1000000, p->t_ns);
	p->w_init &= ~((1ULL << HPCC_W_SHIFT) - 1);	/* whole bytes */
	p->w_min = (u64)c->w_min_bytes << HPCC_W_SHIFT;
	if (c->w_ai_bytes)
		p->w_ai = (u64)c->w_ai_bytes << HPCC_W_SHIFT;
	else
		p->w_ai = hpcc_w_ai_rule_of_thumb(p->w_init, p->eta,
						  c->n_flows);
	if (!hpcc_params_valid(p)) {
		kfree(c);
		return ERR_PTR(-EINVAL);
	}
	return c;
}

/**
 * hpcc_net_put() - drop a reference to a namespace's state
 * @hn: the state; the namespace holds one reference until .exit and each
 *	flow entry one until it is freed
 *
 * The last reference frees @hn and its parameters.
 */
void hpcc_net_put(struct hpcc_net *hn)
{
	if (refcount_dec_and_test(&hn->ref)) {
		kfree(rcu_dereference_protected(hn->cfg, true));
		kfree_sensitive(rcu_dereference_protected(hn->nkeys, true));
		kvfree(hn);
	}
}

static int __net_init hpcc_net_init(struct net *net)
{
	struct hpcc_cfg base, *cfg;
	struct hpcc_net *hn;
	int i, err;

	hn = kvzalloc(sizeof(*hn), GFP_KERNEL_ACCOUNT);
	if (!hn)
		return -ENOMEM;
	hpcc_cfg_defaults(&base);
	cfg = hpcc_cfg_build(&base);
	if (IS_ERR(cfg)) {
		/* The module parameters are range-checked one by one; a set
		 * that is inconsistent as a whole falls back to defaults.
		 */
		pr_warn("inconsistent module parameters, using defaults\n");
		base.w_min_bytes = HPCC_DEFAULT_W_MIN;
		base.w_ai_bytes = 0;
		cfg = hpcc_cfg_build(&base);
		if (IS_ERR(cfg)) {
			kvfree(hn);
			return PTR_ERR(cfg);
		}
	}
	hn->net = net;
	refcount_set(&hn->ref, 1);
	RCU_INIT_POINTER(hn->cfg, cfg);
	hn->key_overlap_s = HPCC_NMAC_OVERLAP_DEFAULT;
	mutex_init(&hn->cfg_mutex);
	spin_lock_init(&hn->lock);
	hn->hash_rnd = get_random_u32();
	for (i = 0; i < ARRAY_SIZE(hn->buckets); i++)
		INIT_HLIST_HEAD(&hn->buckets[i]);

	err = hpcc_probe_register(net, hn);
	if (err) {
		kfree(cfg);
		kvfree(hn);
		return err;
	}
	*(struct hpcc_net **)net_generic(net, hpcc_net_id) = hn;
	return 0;
}

/*
 * The hook goes in .pre_exit: nf_unregister_net_hook() does not wait for a
 * hook already running on another CPU, but the core waits for an RCU grace
 * period between .pre_exit and .exit, both when a namespace dies
 * (cleanup_net()) and when the module goes (unregister_pernet_subsys()),
 * and hooks run under rcu_read_lock().  So no hook still reads @hn or
 * runs this module's code when .exit drops the state and the module's
 * text is freed.
 */
static void __net_exit hpcc_net_pre_exit(struct net *net)
{
	hpcc_probe_unregister(net, hpcc_net(net));
}

static void __net_exit hpcc_net_exit(struct net *net)
{
	hpcc_fault_exit_delay();
	/* Entries of sockets still being torn down keep @hn alive. */
	hpcc_net_put(hpcc_net(net));
}

static struct pernet_operations hpcc_net_ops = {
	.init = hpcc_net_init,
	.pre_exit = hpcc_net_pre_exit,
	.exit = hpcc_net_exit,
	.id = &hpcc_net_id,
	.size = sizeof(struct hpcc_net *),
};

/**
 * hpcc_net_register() - give every network namespace, present and future,
 * its tcp_hpcc state (parameters from the module parameters, counters, the
 * probe hook)
 *
 * Return: 0 or a negative errno from register_pernet_subsys().
 */
int hpcc_net_register(void)
{
	return register_pernet_subsys(&hpcc_net_ops);
}

/**
 * hpcc_net_unregister() - undo hpcc_net_register(); waits until no hook runs
 */
void hpcc_net_unregister(void)
{
	unregister_pernet_subsys(&hpcc_net_ops);
}
