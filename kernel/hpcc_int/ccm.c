// SPDX-License-Identifier: GPL-2.0
/*
 * ccm.c - Coordinated Congestion Management at the hop
 * (draft-lyu-rtgwg-coordinated-congestion-management): the notifications
 * a congested port sends the tagged flows it forwards (type 1 and 2 at
 * their last hop, type 3 elsewhere), and the AR indicator it marks in
 * the probes of flows whose route chooses by the flow label.  The flow
 * table and the sending are FCR's (fcr.c).  Documentation/design.rst,
 * "Coordinated Congestion Management".
 */

#include "hpcc_int.h"

/*
 * hpcc_int_ccm_label_paths() - whether the route of the forwarded IPv6 packet
 * in @skb has more than one next hop and the namespace's multipath hash
 * covers the flow label (fib_multipath_hash_policy 0, L3, or 2, L3 of the
 * inner or only header; or 3 with the flow label among
 * fib_multipath_hash_fields): a new flow label from the sender may move
 * the flow here.  Context: RCU (a netfilter hook).
 */
bool hpcc_int_ccm_label_paths(const struct net *net, struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct rt6_info *rt = (struct rt6_info *)skb_dst(skb);
	int policy = ip6_multipath_hash_policy(net);
	struct fib6_info *from;

	if (!rt || policy == 1 ||
	    (policy == 3 && !(ip6_multipath_hash_fields(net) &
			      FIB_MULTIPATH_HASH_FIELD_FLOWLABEL)))
		return false;
	from = rcu_dereference(rt->from);
	if (!from)
		return false;
	if (from->nh)
		return nexthop_num_path(from->nh) > 1;
	return READ_ONCE(from->fib6_nsiblings) > 0;
#else
	return false;
#endif
}

/*
 * hpcc_int_ccm_ar_mark() - set HPCC_WIRE_AR_CHOICE in the AR indicator at
 * @eoff of the probe whose TCP header is at @off, updating the TCP
 * checksum.  Return: the flags now, or @flags when the packet could not be
 * written (then unchanged).
 */
u16 hpcc_int_ccm_ar_mark(struct sk_buff *skb, unsigned int off,
			 unsigned int eoff, u16 flags)
{
	struct hpcc_wire_ext *e;
	struct tcphdr *th;
	__be16 old;

	if (skb_ensure_writable(skb, eoff + HPCC_WIRE_EXT_AR_LEN))
		return flags;
	th = (struct tcphdr *)(skb->data + off);
	e = (struct hpcc_wire_ext *)(skb->data + eoff);
	old = e->reserved;
	flags |= HPCC_WIRE_AR_CHOICE;
	e->reserved = htons(flags);
	/* the extension starts at an even offset from the TCP header */
	inet_proto_csum_replace2(&th->check, skb, old, e->reserved, false);
	return flags;
}

/*
 * hpcc_int_ccm_send() - queue a notification of type @ntype about @fl to
 * @dst.  Context: @f->lock held, softirq.
 */
void hpcc_int_ccm_send(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       const struct hpcc_int_fcr_flow *fl, u8 ntype,
		       const u8 *dst, u64 now)
{
	struct hpcc_int_fcr_req r = { .ntype = ntype };
	struct hpcc_ccm_msg *c = &r.c;

	memcpy(r.dst, dst, 16);
	c->family = fl->family;
	c->ntype = ntype;
	c->switch_id = READ_ONCE(hn->switch_id);
	c->port_id = d->ifindex;
	c->ts = now;
	c->seq = fl->seq;
	c->flowlabel = fl->label;
	c->sport = ntohs(fl->sport);
	c->dport = ntohs(fl->dport);
	memcpy(c->saddr, fl->saddr, 16);
	memcpy(c->daddr, fl->daddr, 16);
	hpcc_int_fcr_send(hn, d, &r);
}

/*
 * hpcc_int_ccm_release() - the port's CCM episode is over: every flow
 * that was sent a type 1 in it is owed a type 2 (draft-lyu-rtgwg-
 * coordinated-congestion-management section 6.3.2), which
 * hpcc_int_fcr_data() sends with the flow's next data segment, so that it
 * names data in flight.  @now_send (CCM turned off by dev-set, after
 * which the port may look at no data segment again): each is sent now,
 * with the flow's last sequence number.  At most HPCC_INT_FCR_FLOWS; the
 * namespace's queue holds HPCC_INT_FCR_QUEUE, the rest are counted as
 * dropped.  Context: @f->lock held, softirq or BH off (dev-set).
 */
void hpcc_int_ccm_release(struct hpcc_int_net *hn,
			  struct hpcc_int_dev *d,
			  struct hpcc_int_fcr *f, u64 now,
			  bool now_send)
{
	struct hpcc_int_fcr_flow *fl;
	int i;

	WRITE_ONCE(f->ccm_congested, false);
	for (i = 0; i < HPCC_INT_FCR_FLOWS; i++) {
		fl = &f->flows[i];
		if (!fl->family || fl->incast != HPCC_INT_CCM_INCAST)
			continue;
		fl->incast = HPCC_INT_CCM_OWED;
		if (!now_send)
			continue;
		fl->incast = 0;
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_CC_RELEASED, fl->saddr,
				  now);
	}
}

/*
 * hpcc_int_ccm_last_hop() - whether the port is the last hop of the forwarded
 * packet in @skb (of family @family): its route has no gateway, the
 * destination is on the link (section 6.3.1: congestion there is incast).
 * Context: RCU (a netfilter hook).
 */
bool hpcc_int_ccm_last_hop(struct sk_buff *skb, u8 family)
{
	if (family == 4) {
		const struct rtable *rt = skb_rtable(skb);

		return rt && !rt->rt_gw_family;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (skb_dst(skb))
		return !(((struct rt6_info *)skb_dst(skb))->rt6i_flags &
			 RTF_GATEWAY);
#endif
	return false;
}

/*
 * hpcc_int_ccm_data() - CCM on a data segment of the tagged flow @fl
 * (@last: the port is its last hop) while the port is congested (draft-
 * lyu-rtgwg-coordinated-congestion-management section 6.3): at its last
 * hop a type 1, once per episode; elsewhere, at most once per
 * ccm-interval, a type 3 to its source (the AR point) when its AR
 * indicator names the source and shows a choice of paths and its CC
 * indicator is clear, and the port sent none in the last ccm-ar-gap,
 * else a count (ccm-cc-kept, ccm-no-ar, ccm-ar-limited): a port that told
 * all its flows to move at once would send them all to the same other
 * path.  Context: @f->lock held, softirq.
 */
void hpcc_int_ccm_data(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       struct hpcc_int_fcr *f,
		       struct hpcc_int_fcr_flow *fl, bool last, u64 now)
{
	u64 interval = (u64)READ_ONCE(d->ccm_interval) * NSEC_PER_USEC;
	u64 gap = (u64)READ_ONCE(d->ccm_ar_gap) * NSEC_PER_USEC;

	if (last) {
		/* a flow still owed its type 2 has its CC indicator set */
		if (fl->incast) {
			fl->incast = HPCC_INT_CCM_INCAST;
			return;
		}
		fl->incast = HPCC_INT_CCM_INCAST;
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_CC_REQUIRED, fl->saddr,
				  now);
		return;
	}
	if (fl->ccm_ts && now - fl->ccm_ts < interval)
		return;
	fl->ccm_ts = now;
	if (fl->cc) {
		atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_CC_KEPT]);
	} else if (!fl->ar_choice) {
		atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_NO_AR]);
	} else if (!hpcc_ccm_ar_allow(&f->ar_ts, gap, now)) {
		atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_AR_LIMITED]);
	} else {
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_AR_REQUIRED, fl->saddr,
				  now);
	}
}
