// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_fcr_rx.c - Fast Congestion Response on the sending host
 * (draft-even-tsvwg-datacenter-fast-congestion): receive a congested hop's
 * message in the LOCAL_IN hook (hpcc_probe.c), check it, and hold its rate
 * for the flow; the ACK path (tcp_hpcc_main.c, hpcc_fcr_apply()) caps the
 * flow with the lowest rate held.
 *
 * Received here, in the module, not in hpccd: the rate reaches the flow
 * with no wake-up of a daemon and no netlink round trip (Documentation/
 * design.rst, "Fast Congestion Response", gives the measured delays).
 *
 * Checks (section 9), each counted, the refusals logged (rate-limited):
 * FCR on (a port and at least one managed prefix), a source address in a
 * managed prefix (else the datagram goes on to UDP: the port may be an
 * application's outside the domain), a valid UDP checksum and a well-formed
 * message (else dropped, fcr-malformed), a rate from fcr rate-min to the
 * namespace's line-rate (fcr-out-of-range), a flow with HPCC state
 * (fcr-no-flow).  The message's sequence number is checked against the
 * flow's window here, without the socket lock, before the pacing rate is
 * lowered, and exactly by the ACK path, which holds it (fcr-bad-seq).
 *
 * CCM notifications (draft-lyu-rtgwg-coordinated-congestion-management
 * section 6.2) come to the same port from the same prefixes: taken here
 * for their flow (ccm-notes; ccm-malformed, ccm-no-flow), acted on by the
 * flow's next ACK (hpcc_ccm_rx_apply(), ccm-bad-seq and the rest).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "hpcc_mod.h"

/* Why a message was refused, for the log. */
static const char *const hpcc_fcr_why[] = {
	[HPCC_STAT_FCR_MALFORMED] = "malformed",
	[HPCC_STAT_FCR_OUT_OF_DOMAIN] = "source outside the managed prefixes",
	[HPCC_STAT_FCR_OUT_OF_RANGE] = "rate out of range",
	[HPCC_STAT_FCR_NO_FLOW] = "no such flow",
};

static void hpcc_fcr_refuse(struct hpcc_net *hn, enum hpcc_stat s,
			    const struct in6_addr *src, u64 rate)
{
	hpcc_stat_inc(hn, s);
	if (net_ratelimit())
		pr_info("FCR from %pI6c refused: %s (rate %llu bit/s)\n",
			src, hpcc_fcr_why[s], rate);
}

/*
 * hpcc_fcr_pace() - lower the flow's pacing rate to @rate (bit/s) now, at
 * the message's arrival, rather than at the flow's next ACK, which during
 * an incast comes a round trip later (evaluation.rst, "Fast Congestion
 * Response, first S4 run": arrival 0.8-1.4 ms, the ACK 10.3-11.0 ms after
 * the hop's message).  The socket is written without its lock, as only
 * the pacing rate and only downwards: readers take it with READ_ONCE(),
 * and a concurrent ACK that wrote a higher rate caps it again with the
 * same hold (hpcc_fcr_apply()).  The window waits for the ACK path, and
 * so does the exact check of the message's sequence number @seq; here it
 * is checked against the window read without the lock, so that a message
 * off the flow's path slows nothing even until that ACK.  Context: RCU,
 * softirq.
 */
static void hpcc_fcr_pace(struct hpcc_ent *e, u64 rate, u32 seq)
{
	struct sock *sk = READ_ONCE(e->sk);
	u64 pacing = div_u64(rate, 8);
	const struct tcp_sock *tp;

	if (!sk || !refcount_inc_not_zero(&sk->sk_refcnt))
		return;
	tp = tcp_sk(sk);
	/* still this flow's socket (not a freed one reused), the sequence
	 * number in its window
	 */
	if (READ_ONCE(e->sk) == sk &&
	    hpcc_fcr_in_window(seq, READ_ONCE(tp->snd_una),
			       READ_ONCE(tp->max_window),
			       READ_ONCE(tp->snd_nxt)) &&
	    READ_ONCE(sk->sk_pacing_rate) > pacing)
		WRITE_ONCE(sk->sk_pacing_rate, pacing);
	sock_put(sk);
}

/* The flow key of a message's flow, from its addresses and ports. */
static void hpcc_fcr_key(struct hpcc_key *key, u8 family, const u8 *saddr,
			 const u8 *daddr, u16 sport, u16 dport)
{
	if (family == 4) {
		__be32 s4, d4;

		/* the IPv4 address of an IPv4-mapped one */
		memcpy(&s4, saddr + 12, sizeof(s4));
		memcpy(&d4, daddr + 12, sizeof(d4));
		hpcc_key_v4(key, s4, d4, htons(sport), htons(dport));
	} else {
		struct in6_addr s6, d6;

		memcpy(&s6, saddr, sizeof(s6));
		memcpy(&d6, daddr, sizeof(d6));
		hpcc_key_v6(key, &s6, &d6, htons(sport), htons(dport));
	}
}

/*
 * hpcc_fcr_hold() - take a checked message into its flow's holds.
 * Context: RCU (the entry stays valid), softirq.
 */
static void hpcc_fcr_hold(struct hpcc_net *hn, const struct hpcc_cfg *cfg,
			  const struct hpcc_fcr_msg *m,
			  const struct in6_addr *src)
{
	struct hpcc_key key;
	struct hpcc_ent *e;
	u64 now, low = 0;
	int res;

	hpcc_fcr_key(&key, m->family, m->saddr, m->daddr, m->sport, m->dport);
	e = hpcc_ent_lookup(hn, &key);
	if (!e) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_NO_FLOW, src, m->rate);
		return;
	}
	now = tcp_clock_ns();
	spin_lock_bh(&e->fcr_lock);
	res = hpcc_fcr_hold_put(e->fcr, m, now,
				(u64)cfg->fcr_hold_max_us * NSEC_PER_USEC);
	if (res != HPCC_FCR_PUT_OLD && res != HPCC_FCR_PUT_FULL) {
		WRITE_ONCE(e->fcr_gen, e->fcr_gen + 1);
		WRITE_ONCE(e->fcr_in, e->fcr_in + 1);
		low = hpcc_fcr_lowest(e->fcr, now);
	}
	spin_unlock_bh(&e->fcr_lock);
	if (low)
		hpcc_fcr_pace(e, low, m->seq);
	hpcc_stat_inc(hn, res == HPCC_FCR_PUT_OLD || res == HPCC_FCR_PUT_FULL ?
		      HPCC_STAT_FCR_IGNORED : HPCC_STAT_FCR_ACCEPTED);
}

/*
 * hpcc_ccm_take() - a CCM notification (Coordinated Congestion Management
 * section 6.2) in the datagram's payload @b (@len bytes): decoded, and
 * kept for its flow until the flow's next ACK acts on it
 * (hpcc_ccm_rx_apply() in tcp_hpcc_main.c, which holds the socket: the
 * rule's state and the rehash need it, and a path change waits for an
 * ACK anyway).  Refusals are counted (ccm-malformed, ccm-no-flow) and
 * logged, rate-limited.  Context: RCU, softirq.
 */
static void hpcc_ccm_take(struct hpcc_net *hn, const u8 *b, unsigned int len,
			  const struct in6_addr *src)
{
	struct hpcc_ccm_msg m;
	struct hpcc_key key;
	struct hpcc_ent *e;
	int err;

	err = hpcc_ccm_decode(b, len, &m);
	if (err) {
		hpcc_stat_inc(hn, HPCC_STAT_CCM_MALFORMED);
		if (net_ratelimit())
			pr_info("CCM notification from %pI6c refused: malformed (%d)\n",
				src, err);
		return;
	}
	hpcc_fcr_key(&key, m.family, m.saddr, m.daddr, m.sport, m.dport);
	e = hpcc_ent_lookup(hn, &key);
	if (!e) {
		hpcc_stat_inc(hn, HPCC_STAT_CCM_NO_FLOW);
		if (net_ratelimit())
			pr_info("CCM notification from %pI6c refused: no such flow (type %u, port %u)\n",
				src, m.ntype, m.sport);
		return;
	}
	spin_lock_bh(&e->fcr_lock);
	hpcc_ccm_pend_put(&e->ccm_rx, &m);
	WRITE_ONCE(e->ccm_rx_gen, e->ccm_rx_gen + 1);
	spin_unlock_bh(&e->fcr_lock);
	hpcc_stat_inc(hn, HPCC_STAT_CCM_NOTES);
}

/*
 * hpcc_fcr_authentic() - whether the MAC of a message of @mlen bytes in
 * @b (@len bytes) is as the namespace's keys want it (kernel/hpcc_nmac.h):
 * counted (notify-auth-*) and, when refused, logged (rate-limited).
 * Context: RCU, softirq.
 */
static bool hpcc_fcr_authentic(struct hpcc_net *hn, const u8 *b,
			       unsigned int len, unsigned int mlen,
			       const struct in6_addr *src)
{
	static const char *const why[] = {
		[HPCC_NMAC_MISSING] = "no MAC",
		[HPCC_NMAC_UNKNOWN_KEY] = "unknown key",
		[HPCC_NMAC_BAD] = "bad MAC",
	};
	static const u8 stat[] = {
		[HPCC_NMAC_OK] = HPCC_STAT_NOTIFY_AUTH_OK,
		[HPCC_NMAC_OK_RETIRED] = HPCC_STAT_NOTIFY_AUTH_RETIRED,
		[HPCC_NMAC_MISSING] = HPCC_STAT_NOTIFY_AUTH_MISSING,
		[HPCC_NMAC_UNKNOWN_KEY] = HPCC_STAT_NOTIFY_AUTH_UNKNOWN_KEY,
		[HPCC_NMAC_BAD] = HPCC_STAT_NOTIFY_AUTH_BAD,
	};
	const struct hpcc_nkeys *nk = rcu_dereference(hn->nkeys);
	enum hpcc_nmac_result res;

	if (!nk)
		return true;
	res = hpcc_nmac_check(&nk->r, src->s6_addr, b, len, mlen,
			      ktime_get_ns());
	if (res == HPCC_NMAC_NONE)
		return true;
	hpcc_stat_inc(hn, stat[res]);
	if (res == HPCC_NMAC_OK || res == HPCC_NMAC_OK_RETIRED)
		return true;
	if (net_ratelimit())
		pr_info("%s from %pI6c refused: %s\n",
			mlen == HPCC_WIRE_CCM_LEN ? "CCM notification" : "FCR",
			src, why[res]);
	return false;
}

/**
 * hpcc_fcr_rcv() - an FCR message or a CCM notification, if @skb is one
 * @hn: the namespace's state
 * @skb: a packet addressed to this host, unfragmented
 * @off: its UDP header's offset
 * @src: its source address, IPv4-mapped for IPv4
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6, for the UDP checksum
 *
 * Both come to the FCR port from the managed prefixes; the header's type
 * byte (HPCC_WIRE_FCR or HPCC_WIRE_CCM, include/uapi/linux/hpcc_wire.h)
 * tells them apart.
 *
 * Context: the LOCAL_IN hook, softirq.
 * Return: NF_STOLEN when the datagram was for FCR or CCM (consumed, taken
 * or refused), -1 when it is not (FCR off, another port, a source outside
 * the managed prefixes): the caller goes on with it.
 */
int hpcc_fcr_rcv(struct hpcc_net *hn, struct sk_buff *skb, unsigned int off,
		 const struct in6_addr *src, u8 pf)
{
	/* the longer of struct hpcc_wire_fcr and struct hpcc_wire_ccm, and
	 * the MAC trailer
	 */
	u8 _b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	const struct hpcc_cfg *cfg;
	unsigned int plen;
	struct udphdr _uh;
	const struct udphdr *uh;
	struct hpcc_fcr_msg m;
	const u8 *b;
	int ret = -1;

	BUILD_BUG_ON(sizeof(_b) < HPCC_WIRE_CCM_LEN);
	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	if (!uh)
		return -1;
	rcu_read_lock();
	cfg = rcu_dereference(hn->cfg);
	if (!cfg->fcr_port || !cfg->fcr_nprefix ||
	    ntohs(uh->dest) != cfg->fcr_port)
		goto out;
	if (!hpcc_fcr_in_domain(src->s6_addr, cfg->fcr_prefix,
				cfg->fcr_nprefix)) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_OUT_OF_DOMAIN, src, 0);
		goto out;
	}
	ret = NF_STOLEN;
	/* the payload's first bytes, up to the longer of the two messages */
	plen = min_t(unsigned int, skb->len - off - sizeof(*uh), sizeof(_b));
	b = skb_header_pointer(skb, off + sizeof(*uh), plen, _b);
	if (b && plen > HPCC_CCM_O_TYPE && b[HPCC_CCM_O_TYPE] == HPCC_WIRE_CCM) {
		if (nf_checksum(skb, NF_INET_LOCAL_IN, off, IPPROTO_UDP, pf)) {
			hpcc_stat_inc(hn, HPCC_STAT_CCM_MALFORMED);
			goto drop;
		}
		if (hpcc_fcr_authentic(hn, b, plen, HPCC_WIRE_CCM_LEN, src))
			hpcc_ccm_take(hn, b, plen, src);
		goto drop;
	}
	if (!b || nf_checksum(skb, NF_INET_LOCAL_IN, off, IPPROTO_UDP, pf) ||
	    hpcc_fcr_decode(b, skb->len - off - sizeof(*uh), &m)) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_MALFORMED, src, 0);
		goto drop;
	}
	if (!hpcc_fcr_authentic(hn, b, plen, HPCC_WIRE_FCR_LEN, src))
		goto drop;
	if (m.rate < cfg->fcr_rate_min ||
	    m.rate > (u64)cfg->line_rate_mbps * 1000000) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_OUT_OF_RANGE, src, m.rate);
		goto drop;
	}
	hpcc_fcr_hold(hn, cfg, &m, src);
drop:
	consume_skb(skb);
out:
	rcu_read_unlock();
	return ret;
}
