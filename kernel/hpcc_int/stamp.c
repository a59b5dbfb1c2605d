// SPDX-License-Identifier: GPL-2.0
/*
 * stamp.c - the hop's hooks: at NF_INET_FORWARD, the probes leaving a
 * configured device are stamped (its own hop records, INT-MD v2.1 or IFA;
 * the overview is at the top of main.c) and the other TCP packets go to
 * FCR and CCM (fcr.c); at NF_INET_POST_ROUTING, the bytes of a device
 * without a queue are counted.
 */

#include "hpcc_int.h"

/* INT-MD metadata header flags (byte 0: Ver 4, D E M 3, reserved 1). */
#define HPCC_INT_MD_FLAG_E	0x04	/* Remaining Hop Count was 0 */
#define HPCC_INT_MD_FLAG_M	0x02	/* the MTU left no room */

/*
 * Add @q's byte counter and byte backlog (per-CPU counters summed, modulo
 * 2^32 as the kernel keeps them).  The backlog is a u32 that a qdisc's own
 * accounting can drive below zero: 5.10's tbf adds nothing for the
 * segments of a GSO packet it splits (tbf_segment()) but subtracts each
 * one it sends.  Read signed, a negative backlog adds 0, not 4 GB.
 */
static void hpcc_int_qdisc_add(const struct Qdisc *q, u64 *bytes,
			       u64 *backlog)
{
	u32 b = 0;
	int cpu;

	if (!qdisc_is_percpu_stats(q)) {
		*bytes += hpcc_qdisc_bytes(q);
		b = READ_ONCE(q->qstats.backlog);
	} else {
		for_each_possible_cpu(cpu) {
			*bytes += hpcc_cpu_qbytes(per_cpu_ptr(q->cpu_bstats, cpu));
			b += READ_ONCE(per_cpu_ptr(q->cpu_qstats, cpu)->backlog);
		}
	}
	if ((s32)b > 0)
		*backlog += b;
}

/*
 * hpcc_int_qdisc() - the bytes @dev's qdiscs have dequeued to the driver
 * and the bytes they hold.  Under a multiqueue root (mq, mqprio) the root's
 * own counters are only summed at dump time, so the per-queue qdiscs are
 * added here; otherwise every queue points at the root.  A device without
 * a queue (noqueue) holds nothing, and its byte count is what the
 * POST_ROUTING hook counted.  Context: RCU; lockless reads of 64-bit
 * counters, no call into the driver.
 */
static void hpcc_int_qdisc(struct net_device *dev,
			   const struct hpcc_int_dev *d, u64 *bytes,
			   u64 *backlog)
{
	const struct Qdisc *root = rcu_dereference(dev->qdisc);
	const struct Qdisc *q, *last = NULL;
	unsigned int i;

	*bytes = 0;
	*backlog = 0;
	if (!root || !root->enqueue) {
		*bytes = atomic64_read(&d->out_bytes);
		return;
	}
	if (!(root->flags & TCQ_F_MQROOT)) {
		hpcc_int_qdisc_add(root, bytes, backlog);
		return;
	}
	for (i = 0; i < dev->real_num_tx_queues; i++) {
		q = rcu_dereference(netdev_get_tx_queue(dev, i)->qdisc);
		if (q && q != last)
			hpcc_int_qdisc_add(q, bytes, backlog);
		last = q;
	}
}

/* The wire's backlog saturates here (1.1 TB: a day at 100 Mbit/s). */
#define HPCC_INT_WIRE_Q_MAX	BIT_ULL(40)

/*
 * hpcc_int_wire() - tx-model wire: bring @d's wire up to @now, given the
 * qdisc's byte counter @in, as a fluid FIFO of rate @rate bit/s: it sends
 * min(backlog + the bytes handed on since, @rate x dt) and keeps the rest.
 * A restart (wire_ts 0, after dev-add or dev-set) or a counter that went
 * back (a new qdisc) starts from an empty wire at @in; a @now before the
 * last update (another CPU's stamp came first) sends nothing.  Context:
 * @d->lock held.
 */
static void hpcc_int_wire(struct hpcc_int_dev *d, u64 now, u64 in, u64 rate)
{
	u64 dt, avail, cap;

	if (!d->wire_ts || in < d->wire_in) {
		d->wire_q = 0;
	} else {
		avail = min(d->wire_q + (in - d->wire_in), HPCC_INT_WIRE_Q_MAX);
		dt = now > d->wire_ts ? now - d->wire_ts : 0;
		/* rate x dt / 8e9 bytes, with a 128-bit product */
		cap = min(mul_u64_u64_div_u64(dt, rate, 8 * NSEC_PER_SEC),
			  avail);
		d->wire_tx += cap;
		d->wire_q = avail - cap;
	}
	d->wire_ts = max(now, d->wire_ts);
	d->wire_in = in;
}

/*
 * hpcc_int_queue() - txBytes and qlen of @dev at @now, read in one pass:
 * the qdisc's (hpcc_int_qdisc()), or under tx-model wire the wire's
 * (hpcc_int_wire() at B = @rate, the B the caller stamps; the qdisc read
 * under @d->lock, so that the counter each update sees never goes back):
 * the bytes it has sent, and its backlog added to the qdisc's.
 * Context: RCU, softirq.
 */
void hpcc_int_queue(struct net_device *dev, struct hpcc_int_dev *d,
		    u64 now, u64 rate, u64 *bytes, u64 *backlog)
{
	u64 in;

	if (READ_ONCE(d->tx_model) != HPCC_INT_TX_MODEL_WIRE) {
		hpcc_int_qdisc(dev, d, bytes, backlog);
		return;
	}
	spin_lock(&d->lock);
	hpcc_int_qdisc(dev, d, &in, backlog);
	hpcc_int_wire(d, now, in, rate);
	*bytes = d->wire_tx;
	*backlog += d->wire_q;
	spin_unlock(&d->lock);
}

/*
 * hpcc_int_stamp_at() - fill the next hop record of the probe in @skb,
 * which leaves through @dev, its TCP header at @off and its HPCC header at
 * @hoff (after an INT-MD or IFA stack, if it carries one).  The TCP
 * checksum is updated incrementally (the pseudo-header, IPv4's or IPv6's,
 * does not change).  Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_stamp_at(struct hpcc_int_net *hn,
					   struct hpcc_int_dev *d,
					   struct sk_buff *skb,
					   struct net_device *dev,
					   unsigned int off, unsigned int hoff)
{
	struct hpcc_wire_hdr _h, *h;
	struct hpcc_wire_hop rec, *hop;
	u64 tx_bytes, backlog, now, rate;
	struct tcphdr *th;
	unsigned int roff;
	__be16 oldw, neww;
	__wsum diff;

	/* a header read at @hoff means skb->len > hoff */
	h = skb_header_pointer(skb, hoff, sizeof(_h), &_h);
	if (!h || !hpcc_wire_hdr_valid(h, HPCC_WIRE_PROBE, skb->len - hoff))
		return HPCC_INT_CNT_MALFORMED;
	if (h->nhop == h->hop_cap)
		return HPCC_INT_CNT_FULL;
	roff = hoff + sizeof(_h) + h->nhop * sizeof(rec);
	if (skb_ensure_writable(skb, roff + sizeof(rec)))
		return HPCC_INT_CNT_UNWRITABLE;

	/* Linear and private from here on; the offsets still hold. */
	th = (struct tcphdr *)(skb->data + off);
	h = (struct hpcc_wire_hdr *)(skb->data + hoff);
	hop = (struct hpcc_wire_hop *)(skb->data + roff);

	rec.switch_id = htonl(READ_ONCE(hn->switch_id));
	rec.port_id = htonl(dev->ifindex);
	/* one B and one snapshot: no packet of this CPU moves between the
	 * reads
	 */
	rate = READ_ONCE(d->rate);
	rec.rate = cpu_to_be64(rate);
	now = ktime_get_ns();
	rec.ts = cpu_to_be64(now);
	hpcc_int_queue(dev, d, now, rate, &tx_bytes, &backlog);
	rec.tx_bytes = cpu_to_be64(tx_bytes);
	rec.qlen = htonl(min_t(u64, backlog, U32_MAX));
	rec.flags = 0;		/* a full record */
	rec.reserved = 0;
	rec.tx_util = 0;

	/* Both regions start at an even offset from the TCP header. */
	diff = csum_sub(csum_partial(&rec, sizeof(rec), 0),
			csum_partial(hop, sizeof(rec), 0));
	memcpy(hop, &rec, sizeof(rec));
	hpcc_csum_replace_by_diff(&th->check, skb, diff, false, false);

	/* nhop and hop_cap share the 16-bit word at offset 6 of the header. */
	oldw = *(__be16 *)&h->nhop;
	h->nhop++;
	neww = *(__be16 *)&h->nhop;
	inet_proto_csum_replace2(&th->check, skb, oldw, neww, false);
	return HPCC_INT_CNT_STAMPED;
}

/*
 * hpcc_int_stamp() - hpcc_int_stamp_at() for a TCP probe whose TCP header
 * is at @off: its HPCC header follows, or follows an INT-MD stack.
 */
static enum hpcc_int_cnt hpcc_int_stamp(struct hpcc_int_net *hn,
					struct hpcc_int_dev *d,
					struct sk_buff *skb,
					struct net_device *dev,
					unsigned int off)
{
	/* an INT-MD stack (hops of another encoding on the path) may come
	 * first
	 */
	unsigned int hoff = hpcc_wire_tcp_hdr(skb, off, true);

	if (!hoff)
		return HPCC_INT_CNT_MALFORMED;
	return hpcc_int_stamp_at(hn, d, skb, dev, off, hoff);
}

/*
 * hpcc_int_bridged() - whether @skb is a bridged frame that br_netfilter
 * passes through the IP hooks: the bridge restores its Ethernet header
 * from state of its own at the output port, so the hop must not change
 * its length.
 */
static bool hpcc_int_bridged(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	return nf_bridge_info_exists(skb);
#else
	return false;
#endif
}

/*
 * hpcc_int_insert() - insert @len bytes of @data (a multiple of 4) at
 * offset @at of the probe in @skb, which leaves through @out, its TCP
 * header at @off and before @at (at an even distance from it), growing the
 * packet: the bytes in front of @at move @len bytes towards the headroom,
 * and the MAC header in front of the IP header (the one it came in with)
 * moves with them, so the network, transport and MAC header offsets all
 * still point at what they pointed at; the IP length grows (and the IPv4
 * header checksum with it), and the TCP checksum gains the inserted words
 * and the longer pseudo-header.  The bytes after @at keep their alignment
 * to the TCP header, so their words are unchanged.  The caller updates its
 * own headers.
 *
 * The headroom left is at least the moved MAC header's length and @out's
 * LL_RESERVED_SPACE(), so that neither the move nor the output path's
 * link-layer header needs more (the packet is copied here, once, when it
 * had less).  A frame br_netfilter bridges is never grown.
 *
 * Context: the FORWARD hook, skb->data at the IP header.
 * Return: 0; -EOPNOTSUPP for a bridged frame; -ENOMEM when the packet
 * cannot be made linear and private up to @at or given the headroom.  On
 * an error the packet's bytes are unchanged.
 */
static int hpcc_int_insert(struct sk_buff *skb, const struct net_device *out,
			   unsigned int off, unsigned int at,
			   const void *data, unsigned int len)
{
	unsigned int mac = 0;
	struct tcphdr *th;
	__be32 grow;
	__wsum diff;
	u8 *from;

	if (hpcc_int_bridged(skb))
		return -EOPNOTSUPP;
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		return -ENOMEM;
	/* the MAC header, when it lies in the headroom right in front of the
	 * IP header, moves with the data: that is mac_len bytes at most
	 */
	if (skb_mac_header_was_set(skb) && skb_mac_offset(skb) < 0)
		mac = -skb_mac_offset(skb);
	if (skb_ensure_writable(skb, at) ||
	    skb_cow_head(skb, len + max_t(unsigned int, mac,
					  LL_RESERVED_SPACE(out))))
		return -ENOMEM;

	/* skb_cow_head() may have moved the head: offsets, not pointers */
	from = skb->data - mac;
	skb_push(skb, len);
	memmove(from - len, from, mac + at);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, off);
	if (mac)
		skb_set_mac_header(skb, -(int)mac);
	memcpy(skb->data + at, data, len);
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;

	th = (struct tcphdr *)(skb->data + off);
	grow = htonl(len);
	diff = csum_add(csum_partial(data, len, 0),
			csum_partial(&grow, sizeof(grow), 0));
	hpcc_csum_replace_by_diff(&th->check, skb, diff, false, false);
	if (ip_hdr(skb)->version == 4) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(ntohs(iph->tot_len) + len);
		ip_send_check(iph);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		ip6h->payload_len = htons(ntohs(ip6h->payload_len) + len);
	}
	return 0;
}

/* INT-MD instruction bit @b (0 = the bitmap's MSB) asks for 8 bytes. */
static unsigned int hpcc_int_md_bytes(unsigned int b)
{
	return b >= 4 && b <= 6 ? 8 : 4;
}

/*
 * hpcc_int_tx_util() - the egress port's Tx utilization for INT-MD bit 7
 * (hpcc_int_util_update()), from @tx_bytes read at @now, at B = @rate.
 * Context: the FORWARD hook (softirq).
 * Return: the utilization, or U32_MAX for none yet (the spec's invalid).
 */
static u32 hpcc_int_tx_util(struct hpcc_int_dev *d, u64 now, u64 tx_bytes,
			    u64 rate)
{
	u32 util;

	spin_lock(&d->lock);
	util = hpcc_int_util_update(&d->util, now, tx_bytes, rate);
	spin_unlock(&d->lock);
	return util;
}

/*
 * hpcc_int_md_fill() - this hop's @ml bytes of INT-MD metadata for the
 * instruction bitmap @ins into @md (section 5.8: fields in bit order, then
 * domain-specific metadata, then the checksum complement; a field the hop
 * cannot provide, and every domain-specific word, all ones).  The queue
 * and the timestamp are read together, one snapshot.  The caller checked
 * that the baseline fields fit in @ml.
 */
static void hpcc_int_md_fill(u8 *md, unsigned int ml, u16 ins,
			     const struct hpcc_int_net *hn,
			     struct hpcc_int_dev *d,
			     const struct net_device *in,
			     struct net_device *out)
{
	u32 in_id = in ? in->ifindex : U32_MAX;
	u64 tx_bytes, backlog, now, rate;
	unsigned int b, o = 0;

	memset(md, 0xff, ml);
	rate = READ_ONCE(d->rate);
	now = ktime_get_ns();
	hpcc_int_queue(out, d, now, rate, &tx_bytes, &backlog);
	for (b = 0; b < 15; b++) {
		if (!(ins & (0x8000 >> b)))
			continue;
		switch (b) {
		case 0:		/* node ID */
			put_unaligned_be32(READ_ONCE(hn->switch_id), md + o);
			break;
		case 1:		/* level 1 ingress and egress interface IDs */
			put_unaligned_be32((in_id & 0xffff) << 16 |
					   (out->ifindex & 0xffff), md + o);
			break;
		case 3:		/* queue ID 0, queue occupancy in bytes */
			put_unaligned_be32(min_t(u64, backlog, 0xffffff),
					   md + o);
			break;
		case 5:		/* egress timestamp, ns */
			put_unaligned_be64(now, md + o);
			break;
		case 6:		/* level 2 ingress and egress interface IDs */
			put_unaligned_be32(in_id, md + o);
			put_unaligned_be32(out->ifindex, md + o + 4);
			break;
		case 7:		/* egress Tx utilization, 1/10000 of B */
			put_unaligned_be32(hpcc_int_tx_util(d, now, tx_bytes,
							    rate),
					   md + o);
			break;
		default:	/* hop latency, ingress timestamp, buffer,
				 * reserved: invalid
				 */
			break;
		}
		o += hpcc_int_md_bytes(b);
	}
}

/*
 * hpcc_int_md_flag() - set @flag (E or M) in the INT-MD metadata header at
 * @moff, the TCP header at @off, keeping the TCP checksum; the packet is
 * otherwise left as it is.  Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_md_flag(struct sk_buff *skb,
					  unsigned int off, unsigned int moff,
					  u8 flag)
{
	__be16 oldw, *w;

	if (skb_ensure_writable(skb, moff + 2))
		return HPCC_INT_CNT_UNWRITABLE;
	/* Ver, D E M and the reserved bits: the first 16-bit word, at an
	 * even offset from the TCP header
	 */
	w = (__be16 *)(skb->data + moff);
	oldw = *w;
	*((u8 *)w) |= flag;
	inet_proto_csum_replace2(&((struct tcphdr *)(skb->data + off))->check,
				 skb, oldw, *w, false);
	return HPCC_INT_CNT_FULL;
}

/*
 * hpcc_int_stamp_md() - push this hop's INT-MD metadata (P4.org INT v2.1,
 * section 5.8) onto the stack of the probe in @skb, which came in through
 * @in and leaves through @dev, its TCP header at @off, the INT shim right
 * after it (section 5.7.2).  The metadata go right after the 12-byte
 * metadata header, in front of the upstream hops' (the stack's top is the
 * newest hop): the headers in front move Hop ML x 4 bytes towards the
 * headroom, the shim's Length and the IP length grow, Remaining Hop Count
 * drops by one, and the TCP checksum is updated incrementally (the
 * inserted words sit at an even offset from the TCP header, so the words
 * after them keep their alignment).  Remaining Hop Count 0 sets E and a
 * packet that would pass the device's MTU sets M (section 5.8); neither
 * is stamped.  Context: the FORWARD hook, skb->data at the IP header.
 * Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_stamp_md(struct hpcc_int_net *hn,
					   struct hpcc_int_dev *d,
					   struct sk_buff *skb,
					   const struct net_device *in,
					   struct net_device *dev,
					   unsigned int off)
{
	u8 _m[HPCC_WIRE_INT_SHIM_LEN + HPCC_WIRE_INT_MD_LEN], *m;
	unsigned int soff, moff, ml, need, b;
	u8 md[31 * 4];
	__be16 oldw, *w;
	struct tcphdr _th, *th;
	int int_len;
	u16 ins;

	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th || !hpcc_wire_tcp_valid(th) || skb_network_offset(skb) ||
	    skb_is_gso(skb))
		return HPCC_INT_CNT_MALFORMED;
	soff = off + th->doff * 4;
	int_len = hpcc_wire_int_len(skb, soff);
	if (!int_len)
		return HPCC_INT_CNT_OTHER_ENCODING;
	if (int_len < 0)
		return HPCC_INT_CNT_MALFORMED;
	m = skb_header_pointer(skb, soff, sizeof(_m), _m);
	if (!m || m[HPCC_WIRE_INT_SHIM_LEN] >> 4 != 2)	/* version 2 */
		return HPCC_INT_CNT_MALFORMED;
	moff = soff + HPCC_WIRE_INT_SHIM_LEN;
	ml = (m[HPCC_WIRE_INT_SHIM_LEN + 2] & 0x1f) * 4;
	ins = get_unaligned_be16(m + HPCC_WIRE_INT_SHIM_LEN + 4);
	for (need = 0, b = 0; b < 16; b++)
		if (ins & (0x8000 >> b))
			need += hpcc_int_md_bytes(b);
	/* Hop ML 0, or less than the bitmap's fields: no hop can add a whole
	 * Hop ML that holds them (section 5.8: zero bytes or Hop ML x 4)
	 */
	if (!ml || ml < need)
		return HPCC_INT_CNT_MALFORMED;
	if (!m[HPCC_WIRE_INT_SHIM_LEN + 3])
		return hpcc_int_md_flag(skb, off, moff, HPCC_INT_MD_FLAG_E);
	if (skb->len + ml > READ_ONCE(dev->mtu) || m[1] + ml / 4 > 255)
		return hpcc_int_md_flag(skb, off, moff, HPCC_INT_MD_FLAG_M);

	hpcc_int_md_fill(md, ml, ins, hn, d, in, dev);
	if (hpcc_int_insert(skb, dev, off, moff + HPCC_WIRE_INT_MD_LEN, md,
			    ml))
		return HPCC_INT_CNT_UNWRITABLE;

	th = (struct tcphdr *)(skb->data + off);
	/* the shim's Length (its first word: Type, NPT, Length) */
	w = (__be16 *)(skb->data + soff);
	oldw = *w;
	((u8 *)w)[1] += ml / 4;
	inet_proto_csum_replace2(&th->check, skb, oldw, *w, false);
	/* Remaining Hop Count (the header's second word: Hop ML, RHC) */
	w = (__be16 *)(skb->data + moff + 2);
	oldw = *w;
	((u8 *)w)[1]--;
	inet_proto_csum_replace2(&th->check, skb, oldw, *w, false);
	return HPCC_INT_CNT_STAMPED;
}

/* The IFA egress port speed code of B (draft-kumar-ippm-ifa: 0 10G, 1
 * 25G, 2 40G, 3 50G, 4 100G, 5 200G, 6 400G), 0xf for any other B.
 */
static u32 hpcc_int_ifa_speed(u64 rate)
{
	static const u16 gbit[] = { 10, 25, 40, 50, 100, 200, 400 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gbit); i++)
		if (rate == (u64)gbit[i] * 1000000000)
			return i;
	return 0xf;
}

/*
 * hpcc_int_stamp_ifa() - push this hop's 32 bytes of IFA 2.0 metadata
 * (draft-kumar-ippm-ifa-08; the layout hpcc_decode_ifa() reads) on the
 * stack of the IFA probe in @skb (hpcc_wire_ifa_find(), its IFA header at
 * @off), which came in through @in and leaves through @dev, with @ttl
 * its IP TTL (IPv6: hop limit) after this hop: LNS 1, device ID (the low
 * 20 bits of switch-id), @ttl; the speed code of B, congestion 0, queue
 * ID 0, Rx timestamp seconds mod 2^20; egress and ingress ports (ifindex,
 * 16 bits); Rx timestamp ns; residence time, the time the egress qdisc's
 * backlog takes to drain at B (what a FIFO port would hold this probe;
 * the hop stamps before the queue); three opaque words of 0.  The stack
 * grows right after the metadata header (the newest hop first), Hop Limit
 * drops by one and Current Length grows by 8 words.  Hop Limit 0,
 * Current Length at Max Length, or a packet that would pass the MTU: not
 * stamped, counted full.  Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_stamp_ifa(struct hpcc_int_net *hn,
					    struct hpcc_int_dev *d,
					    struct sk_buff *skb,
					    const struct net_device *in,
					    struct net_device *dev,
					    unsigned int off, u8 ttl)
{
	u32 in_id = in ? in->ifindex : U32_MAX;
	u64 tx_bytes, backlog, now, rate, res;
	u8 md[HPCC_WIRE_IFA_HOP_LEN];
	struct hpcc_wire_ifa ifa;
	struct tcphdr *th;
	__be16 oldw, *w;

	if (skb_network_offset(skb) || skb_is_gso(skb) ||
	    !hpcc_wire_ifa_find(skb, off, &ifa))
		return HPCC_INT_CNT_MALFORMED;
	/* Hop Limit, Max Length (words), the MTU */
	if (!ifa.hop_limit ||
	    ifa.cur_len + HPCC_WIRE_IFA_HOP_LEN / 4 > ifa.max_len ||
	    skb->len + HPCC_WIRE_IFA_HOP_LEN > READ_ONCE(dev->mtu))
		return HPCC_INT_CNT_FULL;

	rate = READ_ONCE(d->rate);
	now = ktime_get_ns();
	hpcc_int_queue(dev, d, now, rate, &tx_bytes, &backlog);
	/* backlog x 8e9 / B ns, without overflow: B >= 1 bit/s, backlog
	 * below 2^40 bytes
	 */
	res = div64_u64(min_t(u64, backlog, 1ULL << 40) * 8 * NSEC_PER_USEC,
			max_t(u64, rate / 1000000, 1));
	memset(md, 0, sizeof(md));
	put_unaligned_be32(1U << 28 | (READ_ONCE(hn->switch_id) & 0xfffff) << 8 |
			   ttl, md);
	put_unaligned_be32(hpcc_int_ifa_speed(rate) << 28 |
			   (u32)(div_u64(now, NSEC_PER_SEC) & 0xfffff), md + 4);
	put_unaligned_be32((dev->ifindex & 0xffff) << 16 | (in_id & 0xffff),
			   md + 8);
	put_unaligned_be32(do_div(now, NSEC_PER_SEC), md + 12);
	put_unaligned_be32(min_t(u64, res, U32_MAX), md + 16);
	if (hpcc_int_insert(skb, dev, ifa.tcp,
			    ifa.md + HPCC_WIRE_IFA_MD_HDR_LEN, md, sizeof(md)))
		return HPCC_INT_CNT_UNWRITABLE;

	/* Hop Limit and Current Length: the metadata header's second word,
	 * at an even distance from the TCP header
	 */
	th = (struct tcphdr *)(skb->data + ifa.tcp);
	w = (__be16 *)(skb->data + ifa.md + 2);
	oldw = *w;
	((u8 *)w)[0]--;
	((u8 *)w)[1] += HPCC_WIRE_IFA_HOP_LEN / 4;
	inet_proto_csum_replace2(&th->check, skb, oldw, *w, false);
	return HPCC_INT_CNT_STAMPED;
}

/*
 * hpcc_int_egress() - the configured device a forwarded packet with @dscp
 * leaves through when @dscp is a probe DSCP (probe-dscp or int-dscp), else
 * NULL.  Both forward hooks' first step; netfilter hooks run under
 * rcu_read_lock().
 */
static struct hpcc_int_dev *hpcc_int_egress(struct hpcc_int_net *hn, u8 dscp,
					    const struct nf_hook_state *state)
{
	hpcc_fault_hook_delay();
	if ((dscp != READ_ONCE(hn->probe_dscp) &&
	     dscp != READ_ONCE(hn->int_dscp)) || !state->out)
		return NULL;
	return xa_load(&hn->devs, state->out->ifindex);
}

/*
 * hpcc_int_stamp_any() - stamp a TCP probe (its TCP header at @off) in the
 * device's encoding; an ifa device leaves it unstamped (other-encoding)
 */
static enum hpcc_int_cnt hpcc_int_stamp_any(struct hpcc_int_net *hn,
					    struct hpcc_int_dev *d,
					    struct sk_buff *skb,
					    const struct nf_hook_state *state,
					    unsigned int off)
{
	switch (READ_ONCE(d->encoding)) {
	case HPCC_INT_ENCODING_INT_MD:
		return hpcc_int_stamp_md(hn, d, skb, state->in, state->out,
					 off);
	case HPCC_INT_ENCODING_IFA:
		return HPCC_INT_CNT_OTHER_ENCODING;
	default:
		return hpcc_int_stamp(hn, d, skb, state->out, off);
	}
}

/*
 * hpcc_int_stamp_ifa_any() - an IFA probe (its IFA header at @off, @ttl
 * its TTL or hop limit) in the device's encoding: an ifa device pushes
 * its metadata, an own device fills the record after the IFA stack, an
 * int-md device leaves it unstamped (other-encoding)
 */
static enum hpcc_int_cnt hpcc_int_stamp_ifa_any(struct hpcc_int_net *hn,
						struct hpcc_int_dev *d,
						struct sk_buff *skb,
						const struct nf_hook_state *state,
						unsigned int off, u8 ttl)
{
	struct hpcc_wire_ifa ifa;

	switch (READ_ONCE(d->encoding)) {
	case HPCC_INT_ENCODING_IFA:
		return hpcc_int_stamp_ifa(hn, d, skb, state->in, state->out,
					  off, ttl);
	case HPCC_INT_ENCODING_INT_MD:
		return HPCC_INT_CNT_OTHER_ENCODING;
	default:
		if (!hpcc_wire_ifa_find(skb, off, &ifa))
			return HPCC_INT_CNT_MALFORMED;
		return hpcc_int_stamp_at(hn, d, skb, state->out, ifa.tcp,
					 ifa.hdr);
	}
}

unsigned int hpcc_int_hook(void *priv, struct sk_buff *skb,
			   const struct nf_hook_state *state)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct hpcc_int_net *hn = priv;
	struct hpcc_int_dev *d;
	enum hpcc_int_cnt c;
	unsigned int off;

	off = skb_network_offset(skb) + ip_hdrlen(skb);
	d = hpcc_int_egress(hn, ipv4_get_dsfield(iph) >> 2, state);
	if (!d) {
		/* not a probe: FCR's view of the port's flows */
		if (READ_ONCE(hn->fcr_ndevs) && state->out &&
		    iph->protocol == IPPROTO_TCP && !ip_is_fragment(iph)) {
			d = xa_load(&hn->devs, state->out->ifindex);
			if (d)
				hpcc_int_fcr_data(hn, d, skb, state->out, off);
		}
		return NF_ACCEPT;
	}
	if (ip_is_fragment(iph)) {
		c = HPCC_INT_CNT_MALFORMED;
	} else if (iph->protocol == IPPROTO_TCP) {
		hpcc_int_fcr_probe_ext(hn, d, skb, off);
		c = hpcc_int_stamp_any(hn, d, skb, state, off);
	} else if (iph->protocol == READ_ONCE(hn->ifa_protocol)) {
		c = hpcc_int_stamp_ifa_any(hn, d, skb, state, off, iph->ttl);
	} else {
		c = HPCC_INT_CNT_MALFORMED;
	}
	atomic64_inc(&d->cnt[c]);
	return NF_ACCEPT;
}

#if IS_ENABLED(CONFIG_IPV6)
/*
 * The IPv6 forward hook: the probe DSCP in the traffic class, the TCP
 * header after the extension headers a transit node skips
 * (hpcc_wire_ipv6_l4()); a packet that is not TCP, or whose extension
 * headers refuse it (a fragment, AH, ESP), is counted as malformed.  The
 * hop limit is the forwarding path's (decremented before this hook).
 */
unsigned int hpcc_int_hook6(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct hpcc_int_net *hn = priv;
	struct hpcc_int_dev *d;
	enum hpcc_int_cnt c;
	u8 proto;
	int off;

	d = hpcc_int_egress(hn, ipv6_get_dsfield(ipv6_hdr(skb)) >> 2, state);
	if (!d) {
		/* not a probe: FCR's view of the port's flows */
		if (!READ_ONCE(hn->fcr_ndevs) || !state->out)
			return NF_ACCEPT;
		d = xa_load(&hn->devs, state->out->ifindex);
		if (!d || !hpcc_int_tracks(d))
			return NF_ACCEPT;
		off = hpcc_wire_ipv6_l4(skb, true, &proto);
		if (off > 0 && proto == IPPROTO_TCP)
			hpcc_int_fcr_data(hn, d, skb, state->out, off);
		return NF_ACCEPT;
	}
	off = hpcc_wire_ipv6_l4(skb, true, &proto);
	if (off <= 0) {
		c = HPCC_INT_CNT_MALFORMED;
	} else if (proto == IPPROTO_TCP) {
		hpcc_int_fcr_probe_ext(hn, d, skb, off);
		c = hpcc_int_stamp_any(hn, d, skb, state, off);
	} else if (proto == READ_ONCE(hn->ifa_protocol)) {
		c = hpcc_int_stamp_ifa_any(hn, d, skb, state, off,
					   ipv6_hdr(skb)->hop_limit);
	} else {
		c = HPCC_INT_CNT_MALFORMED;
	}
	atomic64_inc(&d->cnt[c]);
	return NF_ACCEPT;
}
#endif

/*
 * Bytes leaving a configured device that has no queue (noqueue), its
 * txBytes (hpcc_int_qdisc()).  A device with a qdisc is skipped before the
 * lookup: its qdisc counts the bytes, and the usual path costs one pointer
 * read instead of an atomic add per packet.
 */
unsigned int hpcc_int_out_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct hpcc_int_net *hn = priv;
	const struct Qdisc *root;
	struct hpcc_int_dev *d;

	if (!state->out || xa_empty(&hn->devs))
		return NF_ACCEPT;
	/* netfilter hooks run under rcu_read_lock() */
	root = rcu_dereference(state->out->qdisc);
	if (root && root->enqueue)
		return NF_ACCEPT;
	d = xa_load(&hn->devs, state->out->ifindex);
	if (d)
		atomic64_add(skb->len, &d->out_bytes);
	return NF_ACCEPT;
}
