/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_hpcc.h - shared declarations of tcp_hpcc.ko: per-netns state, the
 * flow table, the netlink family and the probe/response hook.
 *
 * Locking (Documentation/design.rst, "Per-flow state"):
 *  - struct hpcc_net.lock (BH) serializes inserts into and removals from
 *    the flow table; lookups (netlink, probe hook) run under RCU.
 *  - struct hpcc_ent.tlm_lock is a seqlock: netlink writers store the
 *    newest telemetry under it, the ACK path reads it locklessly and
 *    retries on a concurrent write, so it never sees a torn sample.
 *  - The rest of struct hpcc_ent's control state belongs to the socket
 *    (socket lock held by TCP around every congestion control hook); the
 *    ACK path publishes a copy for netlink readers with WRITE_ONCE().
 *  - struct hpcc_net.cfg is RCU-swapped by params-set (cfg_mutex).
 */
#ifndef _TCP_HPCC_H
#define _TCP_HPCC_H

#include <linux/atomic.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/in6.h>
#include <net/genetlink.h>

#include "lib/hpcc_core.h"
#include "lib/hpcc_ccm.h"	/* and hpcc_fcr.h */
#include "lib/hpcc_nmac.h"

#define HPCC_HASH_BITS		10

/**
 * struct hpcc_cfg - parameters of one network namespace (params-get/set)
 * @p: the algorithm core's parameters derived from the fields below
 * @t_us: T, us [1, 100000]
 * @eta_permille: eta in 1/1000 [500, 1000]
 * @max_stage: maxStage [0, 64]
 * @w_ai_bytes: W_ai in bytes; 0 selects the rule of thumb
 * @line_rate_mbps: line rate, Mbit/s; W_init = line rate * T
 * @w_min_bytes: W_min, bytes
 * @stale_rtts: RTTs without telemetry before the fallback law [1, 1000]
 * @probe_dscp: DSCP of probes but INT-MD ones [1, 63]
 * @response_dscp: DSCP of responses [1, 63]
 * @max_flows: most flows with state in the namespace
 * @pacing_gain_pct: HPCC-mode pacing rate in percent of W/T [100, 400]
 * @n_flows: N of the rule of thumb when @w_ai_bytes is 0, and the floor of
 *	a reported N under HPCC_N_SOURCE_MAX [1, HPCC_N_FLOWS_MAX]
 * @n_source: enum hpcc_n_source, where a flow's N comes from
 * @start: enum hpcc_start, how a new flow's window starts
 * @ewma_period_pct: the period of U's EWMA in percent of T [100, 800]
 * @ifa_protocol: IP protocol (IPv6: next header) of IFA 2.0 probes
 *	[1, 254], hpcc_wire_ifa_protocol_ok()
 * @fcr_port: UDP port of FCR messages (fcr-set); 0: FCR off
 * @fcr_hold_max_us: the longest an FCR rate is held, us [1, 10^6]
 * @fcr_rate_min: the lowest rate an FCR message may carry, bit/s
 * @fcr_nprefix: managed prefixes in @fcr_prefix; 0: FCR off
 * @fcr_prefix: the managed prefixes, IPv4 ones IPv4-mapped
 * @ccm_tries: path changes a flow may make in a burst (struct hpcc_ccm_cfg)
 *	[0, 255]; 0: path changes off
 * @ccm_samples: congested samples in a row before a change [1, 255]
 * @ccm_gap_rtts: fewest RTTs between two changes of a flow [1, 255]
 * @ccm_pause_s: seconds without a change after an RTO [0, 3600]
 * @ccm_share: percent of the binding hop's B x T under which a W at U
 *	of at least eta counts as congested [0, 100]; 0: U above 1 only
 * @int_dscp: DSCP of INT-MD probes, the one that signals INT [1, 63]
 * @rcu: for kfree_rcu()
 */
struct hpcc_cfg {
	struct hpcc_params p;
	u32 t_us;
	u32 eta_permille;
	u32 max_stage;
	u32 w_ai_bytes;
	u32 line_rate_mbps;
	u32 w_min_bytes;
	u32 stale_rtts;
	u8 probe_dscp;
	u8 response_dscp;
	u32 max_flows;
	u32 pacing_gain_pct;
	u32 n_flows;
	u8 n_source;
	u8 start;
	u32 ewma_period_pct;
	u8 ifa_protocol;
	u16 fcr_port;
	u32 fcr_hold_max_us;
	u64 fcr_rate_min;
	u32 fcr_nprefix;
	struct hpcc_fcr_prefix fcr_prefix[HPCC_FCR_PREFIXES];
	u8 ccm_tries;
	u8 ccm_samples;
	u8 ccm_gap_rtts;
	u32 ccm_pause_s;
	u8 ccm_share;
	u8 int_dscp;
	struct rcu_head rcu;
};

/* Counters of a namespace; names as in the stats attribute set. */
enum hpcc_stat {
	HPCC_STAT_TELEMETRY_ACCEPTED,
	HPCC_STAT_TELEMETRY_SUPERSEDED,
	HPCC_STAT_REJECTED_INVALID,
	HPCC_STAT_REJECTED_HOPS,
	HPCC_STAT_REJECTED_NO_FLOW,
	HPCC_STAT_SAMPLES,
	HPCC_STAT_FALLBACKS,
	HPCC_STAT_RESUMES,
	HPCC_STAT_FLOWS_CREATED,
	HPCC_STAT_TABLE_FULL,
	HPCC_STAT_ALLOC_FAILED,
	HPCC_STAT_PROBES_CONSUMED,
	HPCC_STAT_RESPONSES_CONSUMED,
	HPCC_STAT_DSCP_NOT_HPCC,
	HPCC_STAT_PARAMS_REJECTED,
	HPCC_STAT_KEY_COLLISIONS,
	HPCC_STAT_NO_STATE_FAMILY,
	HPCC_STAT_EXTHDR_REFUSED,
	HPCC_STAT_FLOWS_REHASHED,
	HPCC_STAT_FCR_ACCEPTED,
	HPCC_STAT_FCR_MALFORMED,
	HPCC_STAT_FCR_OUT_OF_DOMAIN,
	HPCC_STAT_FCR_OUT_OF_RANGE,
	HPCC_STAT_FCR_NO_FLOW,
	HPCC_STAT_FCR_BAD_SEQ,
	HPCC_STAT_FCR_IGNORED,
	HPCC_STAT_CCM_REROUTES,
	HPCC_STAT_CCM_WAITS,
	HPCC_STAT_CCM_NOTES,
	HPCC_STAT_CCM_MALFORMED,
	HPCC_STAT_CCM_NO_FLOW,
	HPCC_STAT_CCM_BAD_SEQ,
	HPCC_STAT_CCM_CC_SET,
	HPCC_STAT_CCM_CC_CLEARED,
	HPCC_STAT_CCM_AR_REROUTES,
	HPCC_STAT_CCM_IGNORED,
	HPCC_STAT_RX_W_APPLIED,
	HPCC_STAT_RX_KEPT,
	HPCC_STAT_NOTIFY_AUTH_OK,
	HPCC_STAT_NOTIFY_AUTH_RETIRED,
	HPCC_STAT_NOTIFY_AUTH_MISSING,
	HPCC_STAT_NOTIFY_AUTH_UNKNOWN_KEY,
	HPCC_STAT_NOTIFY_AUTH_BAD,
	HPCC_STAT_RX_U_APPLIED,
	HPCC_STAT_TELEMETRY_QUIET,
	HPCC_STAT_NUM
};

/**
 * struct hpcc_nkeys - a namespace's MAC keys for FCR and CCM
 * @rcu: for the free after a grace period (kfree_sensitive())
 * @r: the keys (kernel/lib/hpcc_nmac.h); @expires on the ktime_get_ns() clock
 */
struct hpcc_nkeys {
	struct rcu_head rcu;
	struct hpcc_nmac_ring r;
};

/**
 * struct hpcc_net - per network namespace state
 * @net: the namespace (not referenced: the state may outlive it, see @ref)
 * @ref: one for the namespace, one for every flow entry
 * @cfg: parameters, RCU
 * @cfg_mutex: serializes params-set
 * @lock: serializes flow table writers (BH-safe)
 * @flows_gen: flow table generation, one more at every insert and removal
 *	(under @lock); a flow-get dump flags a message NLM_F_DUMP_INTR when it
 *	changed between parts
 * @nflows: entries in the table
 * @hash_rnd: hash seed
 * @stats: counters
 * @nkeys: the MAC keys of FCR messages and CCM notifications (fcr-set),
 *	RCU; NULL: none
 * @key_overlap_s: seconds a removed key stays accepted (under @cfg_mutex)
 * @nf_ops: the probe/response hooks of this namespace, IPv4 and IPv6
 * @buckets: the flow table, 1 << HPCC_HASH_BITS RCU hash chains
 */
struct hpcc_net {
	struct net *net;
	refcount_t ref;
	struct hpcc_cfg __rcu *cfg;
	struct mutex cfg_mutex;	/* serializes params-set */
	spinlock_t lock;	/* flow table writers, BH */
	u32 flows_gen;		/* table changes, under lock (dumps) */
	atomic_t nflows;
	u32 hash_rnd;
	atomic64_t stats[HPCC_STAT_NUM];
	struct hpcc_nkeys __rcu *nkeys;
	u32 key_overlap_s;
	struct nf_hook_ops nf_ops[2];
	struct hlist_head buckets[1 << HPCC_HASH_BITS];
};

/**
 * struct hpcc_key - a flow's 4-tuple as the local socket sees it
 * @saddr: local address; an IPv4 address (AF_INET) as its IPv4-mapped
 *	IPv6 form, ::ffff:a.b.c.d
 * @daddr: remote address, the same way
 * @sport: local port
 * @dport: remote port
 * @family: AF_INET for IPv4 flows, including those of IPv4-mapped IPv6
 *	sockets (their packets are IPv4); AF_INET6 for IPv6 flows
 * @pad: zero
 *
 * The key is compared and hashed as bytes: whoever fills one starts from a
 * zeroed structure (hpcc_key_v4(), hpcc_key_v6()).
 */
struct hpcc_key {
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be16 sport;
	__be16 dport;
	u16 family;
	u16 pad;
};

/**
 * struct hpcc_tlm - one telemetry sample
 * @nhop: number of hop records, 1..HPCC_MAX_HOPS (0..HPCC_MAX_HOPS with
 *	@rx, 0 with @has_u)
 * @n_flows: N the receiver reported with it, 1..HPCC_N_FLOWS_MAX; 0: none
 * @rx: receiver-based (draft-pan-tsvwg-hpccplus-02 section 6.2): the
 *	receiver runs the algorithm; the records are not used
 * @rx_w: with @rx, the receiver's new W, bytes, 1..2^30; 0: it updated W
 *	locally, the window stays
 * @has_u: only the receiver's U (draft-miao-ccwg-hpcc section 9.1, the
 *	privacy mode that carries only U): @u, no records (@nhop 0), not @rx
 * @u: with @has_u, U, Q16 (HPCC_WIRE_U_SHIFT), 0..2^32 - 1
 * @hops: the records, first hop first
 */
struct hpcc_tlm {
	u32 nhop;
	u32 n_flows;
	bool rx;
	u32 rx_w;
	bool has_u;
	u32 u;
	struct hpcc_hop hops[HPCC_MAX_HOPS];
};

/**
 * struct hpcc_pub - a flow's state as netlink reports it (flow-get), copied
 * by the ACK path after every event under &hpcc_ent.pub_seq, so that a
 * reader sees the values of one ACK together (Documentation/design.rst)
 * @w: W, bytes Q16
 * @wc: Wc, bytes Q16
 * @u: U, Q32
 * @pacing_rate: sk_pacing_rate, bytes/s
 * @samples: samples run through NewAck
 * @srtt_us: smoothed RTT, us
 * @mss: mss_cache, bytes
 * @cwnd: snd_cwnd, segments
 * @inc_stage: incStage, 0..maxStage
 * @fallbacks: changes to the fallback law for stale telemetry
 * @reductions: ssthresh calls (loss, ECN, RTO)
 * @last_ack_seq: snd_una the last sample ran with
 * @last_snd_nxt: snd_nxt the last sample ran with
 * @law: the law in force at the last ACK (enum hpcc_mode; FALLBACK also
 *	while TCP recovers from loss)
 * @in_flight: 1 if the flow had data in flight at the last event
 * @last_step: enum hpcc_step of the last sample
 * @n_flows: N of the flow's own W_ai; 0 while it uses the namespace's
 * @w_ai: the flow's own W_ai, bytes Q16; 0 while it uses the namespace's
 * @fcr_rate: the FCR rate in force at the last ACK, bit/s; 0: none
 * @fcr_delay: ns from the hop's ts of the newest FCR rate applied to the
 *	ACK that applied it; 0: none yet
 * @ccm_changes: path changes by the coordination rule
 * @ccm_cc: the CC indicator, 0 or 1
 * @rx: the last sample was receiver-based
 */
struct hpcc_pub {
	u64 w;
	u64 wc;
	u64 u;
	u64 pacing_rate;
	u64 samples;
	u32 srtt_us;
	u32 mss;
	u32 cwnd;
	u32 inc_stage;
	u32 fallbacks;
	u32 reductions;
	u32 last_ack_seq;
	u32 last_snd_nxt;
	u8 law;
	u8 in_flight;
	u8 last_step;
	u32 n_flows;
	u64 w_ai;
	u64 fcr_rate;
	u64 fcr_delay;
	u32 ccm_changes;
	u8 ccm_cc;
	u8 rx;
};

/**
 * struct hpcc_ent - out-of-line per-flow state
 * @node: flow table chain, RCU
 * @rcu: deferred free
 * @key: the 4-tuple
 * @bound_dev_if: the socket's sk_bound_dev_if when the entry was made
 * @hn: the namespace's state (referenced)
 * @tlm_lock: seqlock around @tlm, @tlm_gen and @tlm_time
 * @tlm: the newest telemetry sample received
 * @tlm_gen: samples received; the ACK path compares it with @used_gen
 * @tlm_time: when the newest sample arrived, tcp_clock_ns() time base
 * @used_gen: @tlm_gen of the last sample the ACK path used (socket lock)
 * @core: the algorithm core's state (socket lock)
 * @w_prior: W before the last loss reduction, for undo (socket lock)
 * @wc_prior: Wc before the last loss reduction (socket lock)
 * @active_time: the staleness clock's floor, tcp_clock_ns() time base:
 *	staleness counts from the later of this and @tlm_time; the flow's
 *	start, moved forward by every idle period (socket lock)
 * @idle_since: when the flow's last ACK left nothing in flight (its start
 *	before any data); 0 while data is in flight (socket lock)
 * @busy_since: when sending last resumed with nothing in flight
 *	(CA_EVENT_TX_START), tcp_clock_ns() time base (socket lock)
 * @sample_time: when the ACK path last applied a sample, tcp_clock_ns()
 *	time base; 0 before the first (socket lock)
 * @mode: enum hpcc_mode: HPCC while telemetry is fresh, FALLBACK after
 *	stale_rtts RTTs without (socket lock)
 * @active_pending: sending resumed and hpccd has not been asked to probe
 *	yet: the flow-active event waits for an ACK that finds the flow
 *	outlasting one round trip (hpcc_announce_active()) (socket lock)
 * @starting: the flow started under HPCC_START_SLOW_START and no sample
 *	has measured U yet: the fallback law runs, without a fallback counted
 *	(socket lock)
 * @samples: samples used (socket lock)
 * @fallbacks: stale-telemetry fallbacks (socket lock)
 * @reductions: ssthresh calls: loss, ECN or RTO (socket lock)
 * @last_step: enum hpcc_step of the last sample (socket lock)
 * @last_ack_seq: snd_una the last sample ran with (socket lock)
 * @last_snd_nxt: snd_nxt the last sample ran with (socket lock)
 * @pub_seq: seqcount around @pub; written under the socket lock with
 *	preemption off, read by netlink in process context
 * @pub: what netlink reports, one event's values together
 * @telemetry_in: samples received (netlink writers, under @tlm_lock)
 * @told_srtt_us: srtt the flow's last telemetry reply carried, us
 *	(netlink writers, under @tlm_lock)
 * @told_in_flight: in-flight that reply carried; HPCC_TOLD_NONE before the
 *	first, or after one that was not delivered (under @tlm_lock)
 * @told_portid: the socket that reply went to (under @tlm_lock)
 * @told_gen: @tell_gen when it was sent (under @tlm_lock)
 * @tell_gen: bumped whenever the module tells a flow's state outside a
 *	telemetry reply (an event, a flow-get): the sender's view may then
 *	differ from the last reply's, so the next telemetry-push replies
 * @quiet: telemetry-push samples since that reply, 0..HPCC_PUSH_REPLY_EVERY
 *	- 1 (under @tlm_lock)
 * @flowlabel: an IPv6 flow's flow label on its data packets, 0..0xfffff
 *	(hpcc_flowlabel_check()); written under the socket lock, read by
 *	netlink locklessly
 * @fcr_lock: serializes @fcr and @fcr_gen between the FCR hook (softirq,
 *	any CPU) and the ACK path (socket lock; BH off inside)
 * @fcr: the FCR rates the flow holds, one per congested port
 * @fcr_gen: messages taken into @fcr (under @fcr_lock; READ_ONCE outside)
 * @fcr_in: messages accepted for the flow (under @fcr_lock)
 * @fcr_used_gen: @fcr_gen the ACK path last looked at (socket lock)
 * @fcr_until: when the last hold in force at that look ends, ns (socket
 *	lock): until then, or a new message, the ACK path takes @fcr_lock
 * @fcr_rate: the rate applied at the last ACK, bit/s; 0: none (socket lock)
 * @fcr_delay: see struct hpcc_pub (socket lock)
 * @ccm: the coordination rule's state (Coordinated Congestion
 *	Management, path changes; socket lock)
 * @ccm_rx: CCM notifications received for the flow and not yet acted on
 *	(under @fcr_lock: the FCR hook takes them, hpcc_ccm_rx_apply() on the
 *	ACK path, socket lock, acts on them)
 * @ccm_rx_gen: notifications taken into @ccm_rx (under @fcr_lock;
 *	READ_ONCE outside)
 * @ccm_used_gen: @ccm_rx_gen the ACK path last looked at (socket lock)
 * @sk: the flow's socket from hpcc_init() to hpcc_release() (WRITE_ONCE;
 *	NULL after), never dereferenced through this pointer: the FCR hook
 *	finds the socket by the established-socket lookup and only compares
 *	it with @sk, under bh_lock_sock(), to know the entry is its
 */
/* struct hpcc_ent's told_in_flight before a telemetry reply told one */
#define HPCC_TOLD_NONE	0xff

struct hpcc_ent {
	struct hlist_node node;
	struct rcu_head rcu;
	struct hpcc_key key;
	int bound_dev_if;
	struct hpcc_net *hn;

	seqlock_t tlm_lock;
	struct hpcc_tlm tlm;
	u64 tlm_gen;
	u64 tlm_time;

	u64 used_gen;
	struct hpcc_flow core;
	u64 w_prior;
	u64 wc_prior;
	u64 active_time;
	u64 idle_since;
	u64 busy_since;
	u64 sample_time;

	u8 mode;
	u8 active_pending;
	u8 starting;
	u8 last_step;
	u8 rx;
	u32 fallbacks;
	u32 reductions;
	u32 last_ack_seq;
	u32 last_snd_nxt;
	u64 samples;

	seqcount_t pub_seq;
	struct hpcc_pub pub;
	u64 telemetry_in;
	u32 told_srtt_us;
	u32 told_portid;
	u32 told_gen;
	atomic_t tell_gen;
	u8 told_in_flight;
	u8 quiet;
	u32 flowlabel;

	spinlock_t fcr_lock;	/* fcr[], fcr_gen, fcr_in */
	struct hpcc_fcr_hold fcr[HPCC_FCR_HOLDS];
	u64 fcr_gen;
	u64 fcr_in;
	u64 fcr_used_gen;
	u64 fcr_until;
	u64 fcr_rate;
	u64 fcr_delay;
	struct hpcc_ccm_flow ccm;
	struct hpcc_ccm_pend ccm_rx;
	u64 ccm_rx_gen;
	u64 ccm_used_gen;
	struct sock *sk;
};

struct rate_sample;
struct tcp_sock;

/* cc.c: the window laws and the changes between them (socket lock) */
void hpcc_apply_w(struct sock *sk, const struct hpcc_ent *e,
		  const struct hpcc_cfg *cfg);
void hpcc_fallback_law(struct sock *sk, const struct rate_sample *rs,
		       bool una_advanced);
u64 hpcc_rtt_ns(const struct tcp_sock *tp, const struct hpcc_cfg *cfg);
bool hpcc_stale(const struct tcp_sock *tp, const struct hpcc_ent *e,
		const struct hpcc_cfg *cfg, u64 now);
void hpcc_to_fallback(struct sock *sk, struct hpcc_ent *e);
void hpcc_resume(struct sock *sk, struct hpcc_ent *e,
		 const struct hpcc_cfg *cfg);
void hpcc_tx_start(struct sock *sk, struct hpcc_ent *e);

/* input.c: telemetry into the algorithm core (socket lock) */
void hpcc_take_telemetry(struct sock *sk, struct hpcc_ent *e,
			 const struct hpcc_cfg *cfg);

/* fcr.c: Fast Congestion Response at the sender (socket lock) */
void hpcc_fcr_apply(struct sock *sk, struct hpcc_ent *e,
		    const struct hpcc_cfg *cfg, u8 law);

/* ccm.c: Coordinated Congestion Management at the sender (socket lock) */
void hpcc_ccm_step(struct sock *sk, struct hpcc_ent *e,
		   const struct hpcc_cfg *cfg, u64 now, u64 w0, u64 wc0,
		   u32 stage0);
void hpcc_ccm_rx_apply(struct sock *sk, struct hpcc_ent *e,
		       const struct hpcc_cfg *cfg);
void hpcc_ccm_on_rto(struct hpcc_ent *e);

/* flow.c: what hpccd learns of a flow (socket lock) */
void hpcc_flowlabel_check(struct sock *sk, struct hpcc_ent *e,
			  bool announce);
void hpcc_announce_active(struct sock *sk, struct hpcc_ent *e);
void hpcc_publish(const struct sock *sk, struct hpcc_ent *e, u8 law,
		  u8 in_flight);

/* net.c: the namespace's parameters, counters and hook */
extern unsigned int hpcc_net_id;
struct hpcc_net *hpcc_net(const struct net *net);
void hpcc_stat_inc(struct hpcc_net *hn, enum hpcc_stat s);
struct hpcc_cfg *hpcc_cfg_build(const struct hpcc_cfg *base);
void hpcc_cfg_defaults(struct hpcc_cfg *cfg);
void hpcc_net_put(struct hpcc_net *hn);
int hpcc_net_register(void);
void hpcc_net_unregister(void);

/* table.c: the flow table */
struct hpcc_ent *hpcc_ent_create(struct hpcc_net *hn,
				 const struct hpcc_key *key, int bound_dev_if);
void hpcc_ent_destroy(struct hpcc_ent *e);
struct hpcc_ent *hpcc_ent_lookup(struct hpcc_net *hn,
				 const struct hpcc_key *key);
bool hpcc_key_of_sk(const struct sock *sk, struct hpcc_key *key);
void hpcc_key_v4(struct hpcc_key *key, __be32 saddr, __be32 daddr,
		 __be16 sport, __be16 dport);
void hpcc_key_v6(struct hpcc_key *key, const struct in6_addr *saddr,
		 const struct in6_addr *daddr, __be16 sport, __be16 dport);
void hpcc_pub_read(const struct hpcc_ent *e, struct hpcc_pub *pub);
int hpcc_table_init(void);
void hpcc_table_exit(void);

/* netlink.c */
int hpcc_nl_init(void);
void hpcc_nl_exit(void);
void hpcc_nl_flow_event(struct hpcc_ent *e, u8 cmd);

/* notify.c: FCR messages and CCM notifications in (LOCAL_IN hook) */
int hpcc_notify_rcv(struct hpcc_net *hn, struct sk_buff *skb,
		    unsigned int off, const struct in6_addr *src, u8 pf);

/* probe.c */
int hpcc_probe_register(struct net *net, struct hpcc_net *hn);
void hpcc_probe_unregister(struct net *net, struct hpcc_net *hn);

#endif /* _TCP_HPCC_H */
