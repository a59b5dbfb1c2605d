// SPDX-License-Identifier: GPL-2.0
/*
 * fcr.c - Fast Congestion Response at the hop.
 *
 * A port with FCR (dev-add/dev-set fcr-qlen-high) tracks the flows it
 * forwards and the senders that announced FCR support in their probes
 * (HPCC_WIRE_EXT_FCR), and while its backlog says congested (at or above
 * fcr-qlen-high until at or below fcr-qlen-low) runs rounds fcr-interval
 * apart: each round's rate is B x fcr-eta / 1000 over the flows seen in the
 * last interval (draft section 5: the same rate for every sender), lowered
 * within the round as more flows send, and a round starts early once that
 * count has grown by a third since the round began (an incast's late
 * senders, which the first count could not see), and each
 * flow of a supporting sender gets one FCR message per round, built from
 * its packet (its sequence number is the message's nonce) and sent by a
 * work item from the namespace's UDP sockets (a packet hook neither sends
 * nor sleeps), at most fcr-sender-max per sender per interval.  Flows of
 * other senders get CE marks (mixed mode, sections 3.1 and 3.3).
 * Documentation/design.rst, "Fast Congestion Response".
 */

#include "hpcc_int.h"

/* The traffic class of the IPv6 socket @sk's datagrams. */
static void hpcc_int_fcr_tclass(struct sock *sk, u8 tclass)
{
#if IS_ENABLED(CONFIG_IPV6)
	lock_sock(sk);
	inet6_sk(sk)->tclass = tclass;
	release_sock(sk);
#endif
}

/* The flow's slot, or a free or stale one taken for it; NULL: no room. */
static struct hpcc_int_fcr_flow *
hpcc_int_fcr_flow(struct hpcc_int_fcr *f, const struct hpcc_int_fcr_flow *k,
		  u64 now, u64 stale)
{
	const size_t klen = offsetof(struct hpcc_int_fcr_flow, family) + 1;
	u32 h = jhash(k, klen, f->hash_rnd);
	struct hpcc_int_fcr_flow *fl, *free = NULL;
	int i;

	for (i = 0; i < HPCC_INT_FCR_PROBE; i++) {
		fl = &f->flows[(h + i) % HPCC_INT_FCR_FLOWS];
		if (fl->family && !memcmp(fl, k, klen))
			return fl;
		/* a flow owed a type 2 keeps its slot while the episode
		 * lasts
		 */
		if (!free && (!fl->family ||
			      (fl->seen + stale < now &&
			       !(fl->incast && f->ccm_congested))))
			free = fl;
	}
	if (free) {
		memset(free, 0, sizeof(*free));
		memcpy(free, k, klen);
		free->seen = now;
		free->sent_round = f->round - 1;
		free->counted_round = f->round - 1;
	}
	return free;
}

/*
 * hpcc_int_stale() - how long after its last packet a flow's slot may be
 * taken by another flow, ns: two of the longer of fcr-interval and (with
 * CCM on) ccm-interval
 */
static u64 hpcc_int_stale(const struct hpcc_int_dev *d)
{
	u32 us = READ_ONCE(d->fcr_interval);

	if (READ_ONCE(d->ccm_high))
		us = max(us, READ_ONCE(d->ccm_interval));
	return 2ULL * NSEC_PER_USEC * us;
}

/*
 * The hash of sender address @a (IPv4-mapped), hashed once per packet for
 * both the supporting-senders table (% HPCC_INT_FCR_SENDERS) and the
 * per-sender limits (hpcc_int_fcr_allow()).
 */
static u32 hpcc_int_fcr_shash(const struct hpcc_int_fcr *f, const u8 *a)
{
	return jhash(a, 16, f->hash_rnd);
}

/*
 * hpcc_int_fcr_allow() - may the port send sender @saddr one more message
 * now (@h: its hpcc_int_fcr_shash())?  At most @max per @interval (ns)
 * as a steady rate, and as a burst after a quiet interval (struct
 * hpcc_int_fcr_limit).  A sender not in the table takes a slot whose
 * budget is whole, or else the one of its hash's HPCC_INT_FCR_PROBE slots
 * that is soonest whole (that sender's count starts again: with more than
 * that many senders, each sent a message within the interval, hashing
 * alike, a sender may get more).  Return: true, and the message counted,
 * or false.  Context: @f->lock held.
 */
static bool hpcc_int_fcr_allow(struct hpcc_int_fcr *f, const u8 *saddr,
			       u32 h, u64 now, u64 interval, u32 max)
{
	u64 cost = max_t(u64, div_u64(interval, max), 1), t;
	struct hpcc_int_fcr_limit *l, *victim = NULL;
	int i;

	for (i = 0; i < HPCC_INT_FCR_PROBE; i++) {
		l = &f->limits[(h + i) % HPCC_INT_FCR_LIMITS];
		if (!memcmp(l->saddr, saddr, 16))
			goto found;
		if (!victim || l->tat < victim->tat)
			victim = l;
	}
	l = victim;
	memcpy(l->saddr, saddr, 16);
	l->tat = now;
found:
	t = max(l->tat, now);
	if (t - now + cost > interval)
		return false;
	l->tat = t + cost;
	return true;
}

/*
 * hpcc_int_fcr_key() - the 4-tuple and family of the TCP packet in @skb
 * (TCP header @th), in the flow table's form
 */
static void hpcc_int_fcr_key(const struct sk_buff *skb,
			     const struct tcphdr *th,
			     struct hpcc_int_fcr_flow *k)
{
	memset(k, 0, sizeof(*k));
	if (ip_hdr(skb)->version == 4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr,
				       (struct in6_addr *)k->saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)k->daddr);
		k->family = 4;
	} else {
		memcpy(k->saddr, &ipv6_hdr(skb)->saddr, 16);
		memcpy(k->daddr, &ipv6_hdr(skb)->daddr, 16);
		k->family = 6;
	}
	k->sport = th->source;
	k->dport = th->dest;
}

/*
 * hpcc_int_fcr_probe_ext() - a probe of the project's encoding leaving through
 * @d, its TCP header at @off: read its extensions, which follow the
 * hop_cap records (include/uapi/linux/hpcc_wire.h); a malformed one ends
 * the walk.  An IPv6 probe's AR indicator gets HPCC_WIRE_AR_CHOICE where
 * the route chooses among paths by the flow label (on every configured
 * device).  With FCR or CCM on the port, the flow's entry learns what the
 * probe says: FCR support (its sender's too), the coordination tag, the
 * CC indicator, the AR indicator.  Context: RCU, softirq.
 */
void hpcc_int_fcr_probe_ext(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			    struct sk_buff *skb, unsigned int off)
{
	struct hpcc_int_fcr *f = rcu_dereference(d->fcr);
	bool support = false, tag = false, cc = false, v6;
	unsigned int hoff, eoff, end, s, ar_off = 0;
	struct hpcc_int_fcr_flow k, *fl;
	struct hpcc_wire_hdr _h;
	const struct hpcc_wire_hdr *h;
	struct tcphdr _th;
	const struct tcphdr *th;
	u8 ar_addr[16] __aligned(4);
	u16 ar_flags = 0;
	u64 now;

	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	hoff = hpcc_wire_tcp_hdr(skb, off, true);
	if (!th || !hoff)
		return;
	h = skb_header_pointer(skb, hoff, sizeof(_h), &_h);
	if (!h || !hpcc_wire_hdr_valid(h, HPCC_WIRE_PROBE, skb->len - hoff))
		return;
	eoff = hoff + sizeof(*h) + h->hop_cap * HPCC_WIRE_HOP_LEN;
	end = min(skb->len, eoff + HPCC_WIRE_EXT_MAX);
	while (eoff + HPCC_WIRE_EXT_LEN <= end) {
		struct hpcc_wire_ext _e;
		const struct hpcc_wire_ext *e;

		e = skb_header_pointer(skb, eoff, sizeof(_e), &_e);
		if (!e || e->len < HPCC_WIRE_EXT_LEN || e->len % 4 ||
		    eoff + e->len > end)
			break;
		if (e->kind == HPCC_WIRE_EXT_FCR) {
			support = ntohl(e->value) & HPCC_WIRE_FCR_SUPPORT;
		} else if (e->kind == HPCC_WIRE_EXT_CCM) {
			cc = ntohl(e->value) & HPCC_WIRE_CCM_CC;
		} else if (e->kind == HPCC_WIRE_EXT_AR &&
			   e->len == HPCC_WIRE_EXT_AR_LEN &&
			   !skb_copy_bits(skb, eoff + HPCC_WIRE_EXT_LEN, ar_addr,
					  sizeof(ar_addr))) {
			ar_off = eoff;
			ar_flags = ntohs(e->reserved);
		}
		eoff += e->len;
	}
	v6 = ip_hdr(skb)->version == 6;
	if (ar_off) {
		/* the AR point's address must be of the flow's family */
		tag = v6 != ipv6_addr_v4mapped((struct in6_addr *)ar_addr);
		if (tag && v6 && !(ar_flags & HPCC_WIRE_AR_CHOICE) &&
		    hpcc_int_ccm_label_paths(hn->net, skb)) {
			ar_flags = hpcc_int_ccm_ar_mark(skb, off, ar_off, ar_flags);
			if (ar_flags & HPCC_WIRE_AR_CHOICE)
				atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_AR_MARKED]);
		}
	}
	if (!f || !(support || (tag && READ_ONCE(d->ccm_high))))
		return;
	/* the packet may have moved (hpcc_int_ccm_ar_mark()) */
	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th)
		return;
	hpcc_int_fcr_key(skb, th, &k);
	now = ktime_get_ns();
	spin_lock(&f->lock);
	fl = hpcc_int_fcr_flow(f, &k, now, hpcc_int_stale(d));
	if (fl) {
		fl->support |= support;
		fl->tag = tag;
		fl->cc = cc;
		/* a type 3 goes only to the flow's own source: a sender
		 * could name any address as the AR point, and no Linux hop
		 * names itself
		 */
		fl->ar_choice = tag && (ar_flags & HPCC_WIRE_AR_CHOICE) &&
				!memcmp(ar_addr, k.saddr, 16);
	}
	if (support) {
		s = hpcc_int_fcr_shash(f, k.saddr) % HPCC_INT_FCR_SENDERS;
		memcpy(f->senders[s], k.saddr, 16);
		f->sender_seen[s] = now;
	}
	spin_unlock(&f->lock);
}

/*
 * hpcc_int_fcr_rate() - the round's rate, bits/s: B x fcr-eta / 1000 over
 * its active flows; with fcr-drain, times D / (D + qlen), D = B x
 * fcr-drain in bytes and qlen the backlog at the round's start (HPCC's U
 * has qlen / (B x T), draft-pan-tsvwg-hpccplus-02 section 4.2,
 * MeasureInflight line 5), at least an eighth of the share.  qlen is the
 * round's, so the rate only falls within a round as flows are counted.
 * Context: @f->lock held.
 */
static void hpcc_int_fcr_rate(struct hpcc_int_dev *d, struct hpcc_int_fcr *f)
{
	u64 b = READ_ONCE(d->rate), share, dq;
	u32 drain = READ_ONCE(d->fcr_drain);

	share = max_t(u64, div_u64(b / 1000 * READ_ONCE(d->fcr_eta),
				   f->active), 1);
	/* B <= HPCC_RATE_MAX times HPCC_INT_INTERVAL_MAX us fits in a u64 */
	dq = drain ? div_u64(b * drain, 8 * USEC_PER_SEC) : 0;
	if (dq)
		share = max(mul_u64_u64_div_u64(share, dq, dq + f->round_qlen),
			    max_t(u64, share / 8, 1));
	WRITE_ONCE(f->rate, share);
}

/*
 * hpcc_int_fcr_round() - start a round at @now: count the flows seen in
 * the last interval and hand each the same share of eta x B.  Context:
 * @f->lock held.
 */
static void hpcc_int_fcr_round(struct hpcc_int_dev *d, struct hpcc_int_fcr *f,
			       u64 now, u64 interval, u64 backlog)
{
	struct hpcc_int_fcr_flow *fl;
	u32 n = 0;
	int i;

	f->round++;
	for (i = 0; i < HPCC_INT_FCR_FLOWS; i++) {
		fl = &f->flows[i];
		if (fl->family && fl->seen + interval >= now) {
			fl->counted_round = f->round;
			n++;
		}
	}
	f->round_ts = now;
	f->round_qlen = backlog;
	WRITE_ONCE(f->active, max(n, 1U));
	f->round_active = f->active;
	hpcc_int_fcr_rate(d, f);
	atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_ROUNDS]);
}

/*
 * hpcc_int_fcr_count() - @fl sends in the current round but was not seen
 * in the interval before it: count it, lower the rate the round's later
 * messages carry, and start a round now once the count has grown by a
 * third since the round began (HPCC_INT_FCR_EARLY_NUM/DEN) and the round
 * is at least a quarter of fcr-interval old (HPCC_INT_FCR_EARLY_GAP), so
 * that the flows already told the first rate hear the lower one soon
 * after the newcomers, not an interval later.  An early round counts
 * afresh, as a regular one does (the flows seen in the last interval):
 * an early round that counted at least the flows of the round it
 * replaces would only ever lower the rate, and under Poisson arrivals
 * (S7 at 100 % load: 1 750 of 3 189 rounds early) chains of early rounds
 * would keep counting flows that have ended and push the rate below the
 * senders' rate-min (30 192 messages refused in that run).  The
 * gap bounds the rounds to four per interval, so the messages to four per
 * tracked flow per interval.  Context: @f->lock held.
 */
static void hpcc_int_fcr_count(struct hpcc_int_dev *d, struct hpcc_int_fcr *f,
			       struct hpcc_int_fcr_flow *fl, u64 now,
			       u64 interval, u64 backlog)
{
	if (fl->counted_round == f->round)
		return;
	fl->counted_round = f->round;
	/* never more than the table holds */
	if (f->active >= HPCC_INT_FCR_FLOWS)
		return;
	WRITE_ONCE(f->active, f->active + 1);
	if (f->active * HPCC_INT_FCR_EARLY_DEN >=
	    f->round_active * HPCC_INT_FCR_EARLY_NUM &&
	    now - f->round_ts >= div_u64(interval, HPCC_INT_FCR_EARLY_GAP)) {
		hpcc_int_fcr_round(d, f, now, interval, backlog);
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_EARLY_ROUNDS]);
		return;
	}
	hpcc_int_fcr_rate(d, f);
}

/* The counter of a message that was not sent. */
static atomic64_t *hpcc_int_dropped(struct hpcc_int_dev *d, u8 ntype)
{
	return ntype ? &d->ccm_cnt[HPCC_INT_CCM_CNT_DROPPED] :
		       &d->fcr_cnt[HPCC_INT_FCR_CNT_DROPPED];
}

/*
 * hpcc_int_fcr_gate() - may the namespace send @t: its destination a
 * unicast address of the flow's family (hpcc_int_dst_unicast()) in one of
 * the fcr-dst prefixes when there are any, and the total and the
 * destination's buckets not empty (hpcc_int_lim_allow()).  Every message
 * and notification of every port passes here: the destination is the
 * source address of a forwarded packet, which its sender chose.
 * Context: softirq or BH off.
 * Return: HPCC_INT_FCR_CNT_NUM when it may, else the counter of the refusal.
 */
static enum hpcc_int_fcr_cnt
hpcc_int_fcr_gate(struct hpcc_int_net *hn, const struct hpcc_int_fcr_req *t)
{
	const struct hpcc_int_dsts *ds;
	enum hpcc_int_lim_verdict v;
	struct hpcc_int_lim_cfg c;
	bool ok;

	if (!hpcc_int_dst_unicast(t->dst, t->ntype ? t->c.family :
				  t->m.family))
		return HPCC_INT_FCR_CNT_DST_REFUSED;
	rcu_read_lock();
	ds = rcu_dereference(hn->dsts);
	ok = !ds || hpcc_fcr_in_domain(t->dst, ds->p, ds->n);
	rcu_read_unlock();
	if (!ok)
		return HPCC_INT_FCR_CNT_DST_REFUSED;
	c.rate = READ_ONCE(hn->lim_cfg.rate);
	c.burst = READ_ONCE(hn->lim_cfg.burst);
	c.dst_rate = READ_ONCE(hn->lim_cfg.dst_rate);
	c.dst_burst = READ_ONCE(hn->lim_cfg.dst_burst);
	spin_lock(&hn->lim_lock);
	v = hpcc_int_lim_allow(&hn->lim, t->dst,
			       jhash(t->dst, 16, hn->lim_rnd), ktime_get_ns(),
			       &c);
	spin_unlock(&hn->lim_lock);
	if (v == HPCC_INT_LIM_DST)
		return HPCC_INT_FCR_CNT_DST_LIMITED;
	if (v == HPCC_INT_LIM_TOTAL)
		return HPCC_INT_FCR_CNT_MSG_LIMITED;
	return HPCC_INT_FCR_CNT_NUM;
}

/*
 * hpcc_int_fcr_send() - queue a copy of @t (its node aside) for the work
 * item that sends it (hpcc_int_fcr_work()), when the namespace's bounds
 * let it go (hpcc_int_fcr_gate(), refusals counted); a full queue or no
 * memory drops it, counted.  Context: softirq or BH off.
 */
void hpcc_int_fcr_send(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       const struct hpcc_int_fcr_req *t)
{
	struct hpcc_int_fcr_req *r = NULL;
	enum hpcc_int_fcr_cnt refused = hpcc_int_fcr_gate(hn, t);

	if (refused != HPCC_INT_FCR_CNT_NUM) {
		atomic64_inc(&d->fcr_cnt[refused]);
		return;
	}
	if (atomic_inc_return(&hn->fcr_queued) <= HPCC_INT_FCR_QUEUE)
		r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r) {
		atomic_dec(&hn->fcr_queued);
		atomic64_inc(hpcc_int_dropped(d, t->ntype));
		return;
	}
	*r = *t;
	r->ifindex = d->ifindex;
	spin_lock(&hn->fcr_lock);
	list_add_tail(&r->node, &hn->fcr_queue);
	spin_unlock(&hn->fcr_lock);
	queue_work(system_highpri_wq, &hn->fcr_work);
}

/*
 * hpcc_int_fcr_backlog() - the port's backlog for a data segment at @now:
 * read (hpcc_int_queue()) when the last read is HPCC_INT_FCR_SAMPLES-th of
 * @interval old or more, else the last read's.  A read walks the per-CPU
 * counters of every qdisc under the root (and takes @d->lock under
 * tx-model wire), a cost that grows with the CPUs and queues: a port reads
 * at most HPCC_INT_FCR_SAMPLES times per fcr-interval for its data
 * segments, whatever their rate (16000 reads a second at the default 1
 * ms).  Probes read it each, their stamps exact.  A @now before the last
 * read (another CPU's, later) takes that read.  Context: @f->lock held,
 * softirq.
 */
static u64 hpcc_int_fcr_backlog(struct hpcc_int_dev *d, struct hpcc_int_fcr *f,
				struct net_device *dev, u64 now, u64 interval)
{
	u64 bytes;

	if (!f->qlen_ts || (now > f->qlen_ts &&
			    now - f->qlen_ts >=
			    div_u64(interval, HPCC_INT_FCR_SAMPLES))) {
		hpcc_int_queue(dev, d, now, READ_ONCE(d->rate), &bytes,
			       &f->qlen);
		f->qlen_ts = now;
	}
	return f->qlen;
}

/*
 * hpcc_int_fcr_data() - a TCP packet (not a probe) leaving through @d, its
 * TCP header at @off: when it is a data segment (ACK set, payload), track
 * its flow; while the port is congested, an FCR
 * message for a flow whose sender supports FCR (one per round), a CE mark
 * for the others.  A flow whose own probes did not announce support but
 * whose sender's did gets both: it may be one of that host's flows that
 * does not run hpcc, which the sender refuses the message for (fcr-no-flow)
 * and which the mark still slows if it is ECN-capable.  With CCM on, the
 * same segment drives the port's CCM episode (hpcc_int_ccm_data(),
 * hpcc_int_ccm_release()).  Context: RCU, softirq.
 */
void hpcc_int_fcr_data(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       struct sk_buff *skb, struct net_device *dev,
		       unsigned int off)
{
	struct hpcc_int_fcr *f = rcu_dereference(d->fcr);
	u64 now, backlog, interval, high, ccm_high;
	bool fcr = false, mark = false, last = false;
	struct hpcc_int_fcr_flow k, *fl;
	struct hpcc_int_fcr_req r = { };
	struct hpcc_fcr_msg *m = &r.m;
	struct tcphdr _th;
	const struct tcphdr *th;
	unsigned int s;
	u32 sh;

	high = READ_ONCE(d->fcr_high);
	ccm_high = READ_ONCE(d->ccm_high);
	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	/* flows are the ones that carry data: not pure ACKs, and not a
	 * response (or a probe with another DSCP), whose TCP header has no
	 * flags and sequence number 0 (include/uapi/linux/hpcc_wire.h): a
	 * response to a probe of the reverse flow has this flow's 4-tuple,
	 * and a message built from it would carry sequence number 0, which
	 * the sender refuses (fcr-bad-seq: all 55 of them in an S7 run).
	 * Every data segment of an established connection has ACK set.
	 */
	if (!f || !(high || ccm_high) || !th || !th->ack ||
	    skb->len <= off + th->doff * 4)
		return;
	hpcc_int_fcr_key(skb, th, &k);
	if (ccm_high)
		last = hpcc_int_ccm_last_hop(skb, k.family);
	now = ktime_get_ns();
	interval = (u64)READ_ONCE(d->fcr_interval) * NSEC_PER_USEC;

	spin_lock(&f->lock);
	backlog = hpcc_int_fcr_backlog(d, f, dev, now, interval);
	if (!f->congested && high && backlog >= high) {
		f->congested = true;
		f->round_ts = 0;
	} else if (f->congested && backlog <= READ_ONCE(d->fcr_low)) {
		f->congested = false;
	}
	fl = hpcc_int_fcr_flow(f, &k, now, hpcc_int_stale(d));
	if (fl) {
		fl->seq = ntohl(th->seq);
		fl->seen = now;
		if (k.family == 6)
			fl->label = ntohl(ip6_flowlabel(ipv6_hdr(skb)));
	} else {
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_TABLE_FULL]);
	}
	/* CCM: the episode, with its own hysteresis; turned off, it ends */
	if (!f->ccm_congested && ccm_high && backlog >= ccm_high)
		WRITE_ONCE(f->ccm_congested, true);
	else if (f->ccm_congested &&
		 (!ccm_high || backlog <= READ_ONCE(d->ccm_low)))
		hpcc_int_ccm_release(hn, d, f, now, false);
	if (f->ccm_congested && fl && fl->tag) {
		hpcc_int_ccm_data(hn, d, f, fl, last, now);
	} else if (fl && fl->incast == HPCC_INT_CCM_OWED) {
		fl->incast = 0;
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_CC_RELEASED, fl->saddr,
				  now);
	}
	if (high && f->congested) {
		if (!f->round_ts || now - f->round_ts >= interval)
			hpcc_int_fcr_round(d, f, now, interval, backlog);
		else if (fl)
			hpcc_int_fcr_count(d, f, fl, now, interval, backlog);
		sh = hpcc_int_fcr_shash(f, k.saddr);
		s = sh % HPCC_INT_FCR_SENDERS;
		fcr = fl && fl->sent_round != f->round &&
		      (fl->support ||
		       (f->sender_seen[s] &&
			f->sender_seen[s] + HPCC_INT_FCR_SENDER_TTL > now &&
			!memcmp(f->senders[s], k.saddr, 16)));
		mark = !fl || !fl->support;
		if (fcr && !hpcc_int_fcr_allow(f, k.saddr, sh, now, interval,
					       READ_ONCE(d->fcr_sender_max))) {
			atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_SENDER_LIMITED]);
			fcr = false;
		}
		if (fcr) {
			fl->sent_round = f->round;
			m->family = k.family;
			m->switch_id = READ_ONCE(hn->switch_id);
			m->port_id = d->ifindex;
			m->rate = f->rate;
			m->ts = now;
			m->seq = fl->seq;
			m->round = f->round;
			m->interval = READ_ONCE(d->fcr_interval);
			m->sport = ntohs(k.sport);
			m->dport = ntohs(k.dport);
			memcpy(m->saddr, k.saddr, 16);
			memcpy(m->daddr, k.daddr, 16);
			memcpy(r.dst, k.saddr, 16);
		}
	}
	spin_unlock(&f->lock);

	if (fcr)
		hpcc_int_fcr_send(hn, d, &r);
	if (!mark)
		return;
	if (skb_ensure_writable(skb, skb_network_offset(skb) +
				(k.family == 4 ? sizeof(struct iphdr) :
				 sizeof(struct ipv6hdr))) ||
	    !(k.family == 4 ? INET_ECN_set_ce(skb) :
	      IP6_ECN_set_ce(skb, ipv6_hdr(skb))))
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_NOT_ECT]);
	else
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_CE_MARKED]);
}

/*
 * hpcc_int_fcr_sock() - the namespace's UDP socket of @family, created at
 * its first use.  Context: the work item (hn->fcr_mutex held).
 */
static struct socket *hpcc_int_fcr_sock(struct net *net,
					struct hpcc_int_net *hn, int family)
{
	struct socket **sp = &hn->fcr_sock[family == AF_INET6];
	int err;

	if (*sp)
		return *sp;
	err = sock_create_kern(net, family, SOCK_DGRAM, IPPROTO_UDP, sp);
	if (err) {
		*sp = NULL;
		return NULL;
	}
	return *sp;
}

/*
 * hpcc_int_sign() - append the MAC trailer to the message of @len bytes
 * in @b (with HPCC_WIRE_NMAC_LEN bytes of room) for destination @dst
 * (IPv6 or IPv4-mapped), with the key of the longest prefix holding it;
 * Return: the datagram's length, @len when no key holds @dst.
 * Context: process (the message work).
 */
static unsigned int hpcc_int_sign(struct hpcc_int_net *hn, u8 *b,
				  unsigned int len, const u8 *dst)
{
	const struct hpcc_nmac_key *k;
	const struct hpcc_int_keys *ks;

	rcu_read_lock();
	ks = rcu_dereference(hn->keys);
	k = ks ? hpcc_nmac_sign_key(&ks->r, dst) : NULL;
	if (k)
		len = hpcc_nmac_sign(b, len, k);
	rcu_read_unlock();
	return len;
}

/*
 * hpcc_int_fcr_work() - send the queued FCR messages and CCM
 * notifications, each as a UDP datagram from this namespace (the source
 * address routing picks: the hop's own on the way) to its destination
 * (the flow's sender; a type 3's AR point), port fcr-port, DSCP fcr-dscp.
 * Context: process (system_highpri_wq).
 */
void hpcc_int_fcr_work(struct work_struct *work)
{
	struct hpcc_int_net *hn = container_of(work, struct hpcc_int_net,
					       fcr_work);
	/* the longer message, and the MAC trailer */
	u8 b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	struct hpcc_int_fcr_req *r;
	struct hpcc_int_dev *d;
	LIST_HEAD(q);

	BUILD_BUG_ON(HPCC_WIRE_CCM_LEN > HPCC_WIRE_FCR_LEN);
	spin_lock_bh(&hn->fcr_lock);
	list_splice_init(&hn->fcr_queue, &q);
	spin_unlock_bh(&hn->fcr_lock);

	mutex_lock(&hn->fcr_mutex);
	while ((r = list_first_entry_or_null(&q, struct hpcc_int_fcr_req,
					     node))) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
		struct sockaddr_in a4 = { .sin_family = AF_INET };
		struct kvec iov = { .iov_base = b };
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		u16 port = READ_ONCE(hn->fcr_port);
		u8 tos = READ_ONCE(hn->fcr_dscp) << 2;
		struct socket *sock;
		int err = -EAFNOSUPPORT;
		u8 family;

		list_del(&r->node);
		atomic_dec(&hn->fcr_queued);
		if (r->ntype) {
			hpcc_ccm_encode(b, &r->c);
			iov.iov_len = HPCC_WIRE_CCM_LEN;
			family = r->c.family;
		} else {
			hpcc_fcr_encode(b, &r->m);
			iov.iov_len = HPCC_WIRE_FCR_LEN;
			family = r->m.family;
		}
		iov.iov_len = hpcc_int_sign(hn, b, iov.iov_len, r->dst);
		if (family == 4) {
			sock = hpcc_int_fcr_sock(hn->net, hn, AF_INET);
			memcpy(&a4.sin_addr, r->dst + 12, 4);
			a4.sin_port = htons(port);
			msg.msg_name = &a4;
			msg.msg_namelen = sizeof(a4);
			if (sock) {
				ip_sock_set_tos(sock->sk, tos);
				err = kernel_sendmsg(sock, &msg, &iov, 1,
						     iov.iov_len);
			}
		} else if (IS_ENABLED(CONFIG_IPV6)) {
			sock = hpcc_int_fcr_sock(hn->net, hn, AF_INET6);
			memcpy(&a6.sin6_addr, r->dst, 16);
			a6.sin6_port = htons(port);
			msg.msg_name = &a6;
			msg.msg_namelen = sizeof(a6);
			if (sock) {
				hpcc_int_fcr_tclass(sock->sk, tos);
				err = kernel_sendmsg(sock, &msg, &iov, 1,
						     iov.iov_len);
			}
		}
		rcu_read_lock();
		d = xa_load(&hn->devs, r->ifindex);
		if (d && err < 0)
			atomic64_inc(hpcc_int_dropped(d, r->ntype));
		else if (d && r->ntype)
			atomic64_inc(&d->ccm_cnt[r->ntype - 1]);
		else if (d)
			atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_SENT]);
		rcu_read_unlock();
		kfree(r);
	}
	mutex_unlock(&hn->fcr_mutex);
}
