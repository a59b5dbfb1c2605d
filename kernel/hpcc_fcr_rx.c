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

	if (m->family == 4) {
		__be32 s4, d4;

		/* the IPv4 address of an IPv4-mapped one */
		memcpy(&s4, m->saddr + 12, sizeof(s4));
		memcpy(&d4, m->daddr + 12, sizeof(d4));
		hpcc_key_v4(&key, s4, d4, htons(m->sport), htons(m->dport));
	} else {
		struct in6_addr s6, d6;

		memcpy(&s6, m->saddr, sizeof(s6));
		memcpy(&d6, m->daddr, sizeof(d6));
		hpcc_key_v6(&key, &s6, &d6, htons(m->sport), htons(m->dport));
	}
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

/**
 * hpcc_fcr_rcv() - an FCR message, if @skb is one
 * @hn: the namespace's state
 * @skb: a packet addressed to this host, unfragmented
 * @off: its UDP header's offset
 * @src: its source address, IPv4-mapped for IPv4
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6, for the UDP checksum
 *
 * Context: the LOCAL_IN hook, softirq.
 * Return: NF_STOLEN when the datagram was an FCR message (consumed, taken
 * or refused), -1 when it is not for FCR (FCR off, another port, a source
 * outside the managed prefixes): the caller goes on with it.
 */
int hpcc_fcr_rcv(struct hpcc_net *hn, struct sk_buff *skb, unsigned int off,
		 const struct in6_addr *src, u8 pf)
{
	u8 _b[HPCC_WIRE_FCR_LEN];
	const struct hpcc_cfg *cfg;
	struct udphdr _uh;
	const struct udphdr *uh;
	struct hpcc_fcr_msg m;
	const u8 *b;
	int ret = -1;

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
	b = skb_header_pointer(skb, off + sizeof(*uh), sizeof(_b), _b);
	if (!b || nf_checksum(skb, NF_INET_LOCAL_IN, off, IPPROTO_UDP, pf) ||
	    hpcc_fcr_decode(b, skb->len - off - sizeof(*uh), &m)) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_MALFORMED, src, 0);
		goto drop;
	}
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
