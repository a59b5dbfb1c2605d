// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - what hpccd learns of a flow from the ACK path: the IPv6 flow
 * label its probes must carry (hpcc_flowlabel_check()), when to start
 * probing (hpcc_announce_active(), a flow-active event), and the state
 * flow-get reports (hpcc_publish(); hpcc_pub_read() in table.c reads it).
 */

#include <net/tcp.h>

#include "common/hpcc_compat.h"
#include "tcp_hpcc.h"

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
void hpcc_publish(const struct sock *sk, struct hpcc_ent *e, u8 law,
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
void hpcc_announce_active(struct sock *sk, struct hpcc_ent *e)
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
void hpcc_flowlabel_check(struct sock *sk, struct hpcc_ent *e,
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
