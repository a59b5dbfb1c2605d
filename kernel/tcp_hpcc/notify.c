// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - the messages INT hops send to the sending host, in: Fast
 * Congestion Response (draft-even-tsvwg-datacenter-fast-congestion) and
 * CCM notifications.  Receive a congested hop's message in the LOCAL_IN
 * hook (probe.c), check it, and hold its rate for the flow; the ACK path
 * (fcr.c, hpcc_fcr_apply()) caps the flow with the lowest rate held.  The
 * two features share this intake (one port, the same prefixes, keys,
 * MAC and sequence checks), so it is one file, apart from what each
 * feature does with a message (fcr.c, ccm.c).
 *
 * Received here, in the module, not in hpccd: the rate reaches the flow
 * with no wake-up of a daemon and no netlink round trip (Documentation/
 * design.rst, "Fast Congestion Response", gives the measured delays).
 *
 * Checks (section 9), each counted, the refusals logged (rate-limited):
 * FCR on (a port and at least one managed prefix), a source address in a
 * managed prefix and not IPv4-mapped in an IPv6 datagram (else the
 * datagram goes on to UDP: the port may be an application's outside the
 * domain), a UDP length that is the datagram's, a valid UDP checksum and a
 * well-formed message (else dropped, fcr-malformed), the MAC the keys
 * want (notify-auth-*), a rate from fcr rate-min to the namespace's
 * line-rate (fcr-out-of-range), a flow with HPCC state and its socket
 * (fcr-no-flow), and a sequence number of data the flow has in flight
 * (fcr-bad-seq).  The sequence number is checked as tcp_v4_err() checks
 * an ICMP error's: the socket found by the established-socket lookup,
 * which takes a reference and checks the match again, under
 * bh_lock_sock().  Only a message that passed every check touches the
 * flow's holds, and there a replay is refused (hpcc_fcr_hold_put(),
 * fcr-ignored).  The hook lowers the pacing rate only as the socket's
 * owner (not owned by user); otherwise the flow's next ACK, which the
 * owner's release of the socket processes, applies it.
 *
 * CCM notifications (draft-lyu-rtgwg-coordinated-congestion-management
 * section 6.2) come to the same port from the same prefixes and are
 * checked the same way (ccm-malformed, ccm-no-flow, ccm-bad-seq; a replay
 * ccm-ignored): taken here for their flow (ccm-notes), acted on by the
 * flow's next ACK (hpcc_ccm_rx_apply()).
 *
 * A datagram that UDP GRO merged (SKB_GSO_UDP_L4, with or without
 * fraglist: a burst of messages from one hop) is read message by message,
 * gso_size bytes each, every one checked and counted as if it came alone.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/udp.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include "common/hpcc_compat.h"
#include "tcp_hpcc.h"

/* Why a message was refused, for the log. */
static const char *const hpcc_fcr_why[] = {
	[HPCC_STAT_FCR_MALFORMED] = "malformed",
	[HPCC_STAT_FCR_OUT_OF_DOMAIN] = "source outside the managed prefixes",
	[HPCC_STAT_FCR_OUT_OF_RANGE] = "rate out of range",
};

static void hpcc_fcr_refuse(struct hpcc_net *hn, enum hpcc_stat s,
			    const struct in6_addr *src, u64 rate)
{
	hpcc_stat_inc(hn, s);
	if (net_ratelimit())
		pr_info("FCR from %pI6c refused: %s (rate %llu bit/s)\n",
			src, hpcc_fcr_why[s], rate);
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
 * hpcc_fcr_sk() - the flow's socket, referenced, by the established-socket
 * lookup (which takes the reference and checks the match again, as for
 * an ICMP error: tcp_v4_err(), tcp_v6_err()); NULL when there is none or
 * it is not a full socket (time-wait, a request).  @family, @saddr,
 * @daddr, @sport and @dport are the message's: the flow as this host
 * sends it.  @skb is the message's datagram, @pf its family (the
 * interface indices).  Context: RCU, softirq.
 */
static struct sock *hpcc_fcr_sk(struct sk_buff *skb, u8 pf, u8 family,
				const u8 *saddr, const u8 *daddr, u16 sport,
				u16 dport)
{
	struct net *net = dev_net(skb->dev);
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
	int dif, sdif;
	struct sock *sk = NULL;

	if (pf == NFPROTO_IPV4) {
		dif = inet_iif(skb);
		sdif = inet_sdif(skb);
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		dif = inet6_iif(skb);
		sdif = inet6_sdif(skb);
#else
		return NULL;
#endif
	}
	if (family == 4) {
		__be32 s4, d4;

		memcpy(&s4, saddr + 12, sizeof(s4));
		memcpy(&d4, daddr + 12, sizeof(d4));
		sk = hpcc_lookup_established4(net, hinfo, d4, htons(dport),
					      s4, sport, dif, sdif);
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		struct in6_addr s6, d6;

		memcpy(&s6, saddr, sizeof(s6));
		memcpy(&d6, daddr, sizeof(d6));
		sk = hpcc_lookup_established6(net, hinfo, &d6, htons(dport),
					      &s6, sport, dif, sdif);
#endif
	}
	if (sk && !sk_fullsock(sk)) {
		sock_gen_put(sk);
		sk = NULL;
	}
	return sk;
}

static void hpcc_fcr_unlock(struct sock *sk)
{
	bh_unlock_sock(sk);
	sock_put(sk);
}

/*
 * hpcc_fcr_lock() - the message's flow: its entry and its socket, the
 * socket referenced and locked with bh_lock_sock(), its sequence number
 * @seq in the flow's window (hpcc_fcr_in_window(), snd_una and snd_nxt
 * read as tcp_v4_err() reads them, even while the socket is owned by
 * user), or, with @late (a CCM type 2), at most max_window below snd_una:
 * a type 2 only clears the CC indicator, and the software hop queues it
 * to a worker, which the ACK of the segment it names can overtake.
 * Return: the entry, *@skp set; NULL after counting @no_flow or
 * @bad_seq (nothing locked or held then).  Release with
 * hpcc_fcr_unlock().  Context: RCU, softirq.
 */
static struct hpcc_ent *hpcc_fcr_lock(struct hpcc_net *hn,
				      struct sk_buff *skb, u8 pf, u8 family,
				      const u8 *saddr, const u8 *daddr,
				      u16 sport, u16 dport, u32 seq, bool late,
				      enum hpcc_stat no_flow,
				      enum hpcc_stat bad_seq,
				      const struct in6_addr *src,
				      struct sock **skp)
{
	const struct tcp_sock *tp;
	struct hpcc_key key;
	struct hpcc_ent *e;
	struct sock *sk;
	u32 una, nxt;

	hpcc_fcr_key(&key, family, saddr, daddr, sport, dport);
	e = hpcc_ent_lookup(hn, &key);
	sk = e ? hpcc_fcr_sk(skb, pf, family, saddr, daddr, sport, dport) :
		 NULL;
	if (!sk || READ_ONCE(e->sk) != sk) {
		if (sk)
			sock_put(sk);
		hpcc_stat_inc(hn, no_flow);
		if (net_ratelimit())
			pr_info("%s from %pI6c refused: no such flow (port %u)\n",
				no_flow == HPCC_STAT_FCR_NO_FLOW ? "FCR" :
				"CCM notification", src, sport);
		return NULL;
	}
	bh_lock_sock(sk);
	tp = tcp_sk(sk);
	una = READ_ONCE(tp->snd_una);
	if (late)
		una -= READ_ONCE(tp->max_window);
	nxt = READ_ONCE(tp->snd_nxt);
	/* the entry is the socket's until hpcc_release(), under its lock */
	if (READ_ONCE(e->sk) != sk) {
		hpcc_fcr_unlock(sk);
		hpcc_stat_inc(hn, no_flow);
		return NULL;
	}
	if (hpcc_fcr_in_window(seq, una, nxt)) {
		*skp = sk;
		return e;
	}
	hpcc_fcr_unlock(sk);
	hpcc_stat_inc(hn, bad_seq);
	if (net_ratelimit())
		pr_info("%s from %pI6c for port %u refused: sequence number outside the window\n",
			bad_seq == HPCC_STAT_FCR_BAD_SEQ ? "FCR" :
			"CCM notification", src, sport);
	return NULL;
}

/*
 * hpcc_fcr_hold() - take a checked message into its flow's holds, and
 * lower the flow's pacing rate to the lowest rate held now, at the
 * message's arrival rather than at the flow's next ACK, which during an
 * incast comes a round trip later (evaluation.rst, "Fast Congestion
 * Response": arrival 0.8-1.4 ms, the ACK 10.3-11.0 ms after the hop's
 * message).  The rate is written as the socket's owner, under
 * bh_lock_sock() with the socket not owned by user; when it is, the next
 * ACK applies it (hpcc_fcr_apply(); the owner processes the ACKs queued
 * meanwhile as it releases the socket).  The window waits for the ACK
 * path in both cases.  Context: RCU (the entry stays valid), softirq.
 */
static void hpcc_fcr_hold(struct hpcc_net *hn, const struct hpcc_cfg *cfg,
			  const struct hpcc_fcr_msg *m, struct sk_buff *skb,
			  u8 pf, const struct in6_addr *src)
{
	struct hpcc_ent *e;
	struct sock *sk;
	u64 now, low = 0;
	int res;

	e = hpcc_fcr_lock(hn, skb, pf, m->family, m->saddr, m->daddr,
			  m->sport, m->dport, m->seq, false,
			  HPCC_STAT_FCR_NO_FLOW, HPCC_STAT_FCR_BAD_SEQ, src,
			  &sk);
	if (!e)
		return;
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
	if (low && !sock_owned_by_user(sk) &&
	    READ_ONCE(sk->sk_pacing_rate) > div_u64(low, 8))
		WRITE_ONCE(sk->sk_pacing_rate, div_u64(low, 8));
	hpcc_fcr_unlock(sk);
	hpcc_stat_inc(hn, res == HPCC_FCR_PUT_OLD || res == HPCC_FCR_PUT_FULL ?
		      HPCC_STAT_FCR_IGNORED : HPCC_STAT_FCR_ACCEPTED);
}

/*
 * hpcc_ccm_take() - a CCM notification (Coordinated Congestion Management
 * section 6.2) in the datagram's payload @b (@len bytes): decoded, its
 * sequence number checked against the flow's window (hpcc_fcr_lock()),
 * and kept for its flow until the flow's next ACK acts on it
 * (hpcc_ccm_rx_apply() in ccm.c, which holds the socket: the
 * rule's state and the rehash need it, and a path change waits for an
 * ACK anyway) unless it is a replay (hpcc_ccm_pend_put(), ccm-ignored).
 * Refusals are counted (ccm-malformed, ccm-no-flow, ccm-bad-seq) and
 * logged, rate-limited.  Context: RCU, softirq.
 */
static void hpcc_ccm_take(struct hpcc_net *hn, const u8 *b, unsigned int len,
			  struct sk_buff *skb, u8 pf,
			  const struct in6_addr *src)
{
	struct hpcc_ccm_msg m;
	struct hpcc_ent *e;
	struct sock *sk;
	bool taken;
	int err;

	err = hpcc_ccm_decode(b, len, &m);
	if (err) {
		hpcc_stat_inc(hn, HPCC_STAT_CCM_MALFORMED);
		if (net_ratelimit())
			pr_info("CCM notification from %pI6c refused: malformed (%d)\n",
				src, err);
		return;
	}
	e = hpcc_fcr_lock(hn, skb, pf, m.family, m.saddr, m.daddr, m.sport,
			  m.dport, m.seq, m.ntype == HPCC_CCM_CC_RELEASED,
			  HPCC_STAT_CCM_NO_FLOW,
			  HPCC_STAT_CCM_BAD_SEQ, src, &sk);
	if (!e)
		return;
	spin_lock_bh(&e->fcr_lock);
	taken = hpcc_ccm_pend_put(&e->ccm_rx, &m);
	if (taken)
		WRITE_ONCE(e->ccm_rx_gen, e->ccm_rx_gen + 1);
	spin_unlock_bh(&e->fcr_lock);
	hpcc_fcr_unlock(sk);
	hpcc_stat_inc(hn, taken ? HPCC_STAT_CCM_NOTES : HPCC_STAT_CCM_IGNORED);
}

/*
 * hpcc_fcr_authentic() - whether the MAC of a message of @mlen bytes in
 * @b (@len bytes) is as the namespace's keys want it (kernel/lib/hpcc_nmac.c):
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

/*
 * hpcc_fcr_one() - one message: @plen bytes of UDP payload at @poff in
 * @skb (a datagram's, or one segment of a merged one).  Checked, counted,
 * taken or refused.  Context: RCU, softirq.
 */
static void hpcc_fcr_one(struct hpcc_net *hn, const struct hpcc_cfg *cfg,
			 struct sk_buff *skb, unsigned int poff,
			 unsigned int plen, const struct in6_addr *src, u8 pf)
{
	/* the longer of struct hpcc_wire_fcr and struct hpcc_wire_ccm, and
	 * the MAC trailer
	 */
	u8 _b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	unsigned int n = min_t(unsigned int, plen, sizeof(_b));
	struct hpcc_fcr_msg m;
	const u8 *b;

	BUILD_BUG_ON(sizeof(_b) < HPCC_WIRE_CCM_LEN);
	b = skb_header_pointer(skb, poff, n, _b);
	if (b && n > HPCC_CCM_O_TYPE && b[HPCC_CCM_O_TYPE] == HPCC_WIRE_CCM) {
		if (hpcc_fcr_authentic(hn, b, n, HPCC_WIRE_CCM_LEN, src))
			hpcc_ccm_take(hn, b, n, skb, pf, src);
		return;
	}
	if (!b || hpcc_fcr_decode(b, n, &m)) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_MALFORMED, src, 0);
		return;
	}
	if (!hpcc_fcr_authentic(hn, b, n, HPCC_WIRE_FCR_LEN, src))
		return;
	if (m.rate < cfg->fcr_rate_min ||
	    m.rate > (u64)cfg->line_rate_mbps * 1000000) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_OUT_OF_RANGE, src, m.rate);
		return;
	}
	hpcc_fcr_hold(hn, cfg, &m, skb, pf, src);
}

/**
 * hpcc_notify_rcv() - FCR messages or CCM notifications, if @skb has them
 * @hn: the namespace's state
 * @skb: a packet addressed to this host, unfragmented
 * @off: its UDP header's offset
 * @src: its source address, IPv4-mapped for IPv4
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6, for the UDP checksum
 *
 * Both come to the FCR port from the managed prefixes; the header's type
 * byte (HPCC_WIRE_FCR or HPCC_WIRE_CCM, include/uapi/linux/hpcc_wire.h)
 * tells them apart.  A datagram carries one message, a UDP GRO merged one
 * (SKB_GSO_UDP_L4, fraglist or not) one per gso_size bytes; its UDP length
 * must be the datagram's (GRO writes the merged length there) and a
 * message fit in it (gso_size and the payload at least
 * HPCC_WIRE_CCM_LEN), else it is dropped and counted once, as a malformed
 * message of the type its first message's type byte names.
 *
 * Context: the LOCAL_IN hook, softirq.
 * Return: NF_STOLEN when the datagram was for FCR or CCM (consumed, taken
 * or refused), -1 when it is not (FCR off, another port, a source outside
 * the managed prefixes or IPv4-mapped in IPv6): the caller goes on with it.
 */
int hpcc_notify_rcv(struct hpcc_net *hn, struct sk_buff *skb,
		    unsigned int off, const struct in6_addr *src, u8 pf)
{
	const struct hpcc_cfg *cfg;
	unsigned int len, seg, pos;
	struct udphdr _uh;
	const struct udphdr *uh;
	u8 _t, t = 0;
	const u8 *tp;
	int ret = -1;

	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	if (!uh)
		return -1;
	rcu_read_lock();
	cfg = rcu_dereference(hn->cfg);
	if (!cfg->fcr_port || !cfg->fcr_nprefix ||
	    ntohs(uh->dest) != cfg->fcr_port)
		goto out;
	if (!hpcc_fcr_src_ok(src->s6_addr, pf == NFPROTO_IPV6) ||
	    !hpcc_fcr_in_domain(src->s6_addr, cfg->fcr_prefix,
				cfg->fcr_nprefix)) {
		hpcc_fcr_refuse(hn, HPCC_STAT_FCR_OUT_OF_DOMAIN, src, 0);
		goto out;
	}
	ret = NF_STOLEN;
	len = skb->len - off;
	tp = skb_header_pointer(skb, off + sizeof(*uh) + HPCC_CCM_O_TYPE,
				sizeof(_t), &_t);
	if (tp)
		t = *tp;
	seg = len - sizeof(*uh);
	if (skb_is_gso(skb)) {
		if (!(skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4))
			seg = 0;
		else
			seg = skb_shinfo(skb)->gso_size;
	}
	/* a message is at least a CCM notification long */
	if (ntohs(uh->len) != len || seg < HPCC_WIRE_CCM_LEN ||
	    nf_checksum(skb, NF_INET_LOCAL_IN, off, IPPROTO_UDP, pf)) {
		if (t == HPCC_WIRE_CCM)
			hpcc_stat_inc(hn, HPCC_STAT_CCM_MALFORMED);
		else
			hpcc_fcr_refuse(hn, HPCC_STAT_FCR_MALFORMED, src, 0);
		goto drop;
	}
	for (pos = 0; pos < len - sizeof(*uh); pos += seg)
		hpcc_fcr_one(hn, cfg, skb, off + sizeof(*uh) + pos,
			     min(seg, len - (unsigned int)sizeof(*uh) - pos),
			     src, pf);
drop:
	consume_skb(skb);
out:
	rcu_read_unlock();
	return ret;
}
