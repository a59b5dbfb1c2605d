// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - remove probe and response packets addressed to this host
 * before TCP sees them.
 *
 * A netfilter hook at NF_INET_LOCAL_IN, first priority, so only packets
 * routed to this host are considered (a router forwards probes untouched)
 * and AF_PACKET taps, which run before IP, still see every probe: hpccd
 * reads them there (draft section 7.2; Documentation/design.rst, "Probe
 * and response consumption").  A packet is consumed when it is an
 * unfragmented IPv4 or IPv6 TCP segment with the namespace's probe or
 * response DSCP (IPv6: in the traffic class; extension headers as
 * hpcc_wire_ipv6_l4() says, others counted, exthdr-refused), the wire
 * format's TCP header (seq, ack, flags, window and urgent
 * pointer 0) and a payload that starts with a valid struct hpcc_wire_hdr
 * (include/uapi/linux/hpcc_wire.h), in a probe possibly after an INT-MD
 * shim, header and stack (hpcc_wire_int_len()); and an IFA 2.0 probe, whose
 * IP protocol (IPv6: next header) is the namespace's ifa-protocol, with the
 * IFA header, the same TCP header and the IFA metadata header and stack
 * before its HPCC header (hpcc_wire_ifa_find()).  Everything else,
 * including TCP data that merely carries one of those DSCPs, goes on to
 * TCP and is counted (dscp-not-hpcc).
 *
 * The same hooks take Fast Congestion Response messages, UDP datagrams to
 * the namespace's FCR port (IPv6: without extension headers), to
 * hpcc_notify_rcv() (notify.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/tcp.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "common/hpcc_fault.h"
#include "tcp_hpcc.h"
#include "common/hpcc_wire_check.h"

#define HPCC_PROBE_NHOOKS	(IS_ENABLED(CONFIG_IPV6) ? 2 : 1)

static bool hpcc_probe_hdr_valid(struct sk_buff *skb, unsigned int off,
				 u8 type)
{
	struct hpcc_wire_hdr _h;
	const struct hpcc_wire_hdr *h;

	/* a header read at @off means skb->len > off */
	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	return h && hpcc_wire_hdr_valid(h, type, skb->len - off);
}

/*
 * hpcc_probe_type() - the wire type the namespace's DSCPs give @dscp:
 * HPCC_WIRE_PROBE, HPCC_WIRE_RESPONSE, or 0 for neither; *@ifa_proto is
 * set to the namespace's ifa-protocol
 */
static u8 hpcc_probe_type(struct hpcc_net *hn, u8 dscp, u8 *ifa_proto)
{
	const struct hpcc_cfg *cfg;
	u8 type = 0;

	rcu_read_lock();
	cfg = rcu_dereference(hn->cfg);
	if (dscp == cfg->probe_dscp || dscp == cfg->int_dscp)
		type = HPCC_WIRE_PROBE;
	else if (dscp == cfg->response_dscp)
		type = HPCC_WIRE_RESPONSE;
	*ifa_proto = cfg->ifa_protocol;
	rcu_read_unlock();
	return type;
}

/*
 * hpcc_probe_consume() - the transport part, common to both families and
 * to TCP and IFA probes: a valid HPCC header of @type at @hoff (0: the
 * headers before it were not the wire format's, hpcc_wire_tcp_hdr() and
 * hpcc_wire_ifa_find()).  Consumes the packet (NF_STOLEN) or counts it
 * (dscp-not-hpcc) and lets it go on.
 */
static unsigned int hpcc_probe_consume(struct hpcc_net *hn,
				       struct sk_buff *skb, unsigned int hoff,
				       u8 type)
{
	if (!hoff || !hpcc_probe_hdr_valid(skb, hoff, type)) {
		hpcc_stat_inc(hn, HPCC_STAT_DSCP_NOT_HPCC);
		return NF_ACCEPT;
	}
	hpcc_stat_inc(hn, type == HPCC_WIRE_PROBE ?
		      HPCC_STAT_PROBES_CONSUMED : HPCC_STAT_RESPONSES_CONSUMED);
	consume_skb(skb);
	return NF_STOLEN;
}

/* The HPCC header after an IFA probe's stack, its IFA header at @off; 0:
 * not found.
 */
static unsigned int hpcc_probe_ifa_hdr(const struct sk_buff *skb,
				       unsigned int off)
{
	struct hpcc_wire_ifa ifa;

	return hpcc_wire_ifa_find(skb, off, &ifa) ? ifa.hdr : 0;
}

static unsigned int hpcc_probe_hook(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	struct hpcc_net *hn = priv;
	const struct iphdr *iph = ip_hdr(skb);
	u8 type, ifa_proto;

	hpcc_fault_hook_delay();
	if (ip_is_fragment(iph))
		return NF_ACCEPT;
	if (iph->protocol == IPPROTO_UDP) {
		struct in6_addr src;
		int v;

		ipv6_addr_set_v4mapped(iph->saddr, &src);
		v = hpcc_notify_rcv(hn, skb, ip_hdrlen(skb), &src, NFPROTO_IPV4);
		return v < 0 ? NF_ACCEPT : v;
	}
	type = hpcc_probe_type(hn, ipv4_get_dsfield(iph) >> 2, &ifa_proto);
	if (!type)
		return NF_ACCEPT;
	if (iph->protocol == IPPROTO_TCP)
		return hpcc_probe_consume(hn, skb,
					  hpcc_wire_tcp_hdr(skb, ip_hdrlen(skb),
							    type == HPCC_WIRE_PROBE),
					  type);
	if (iph->protocol == ifa_proto && type == HPCC_WIRE_PROBE)
		return hpcc_probe_consume(hn, skb,
					  hpcc_probe_ifa_hdr(skb, ip_hdrlen(skb)),
					  type);
	return NF_ACCEPT;
}

#if IS_ENABLED(CONFIG_IPV6)
static unsigned int hpcc_probe_hook6(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	struct hpcc_net *hn = priv;
	u8 type, ifa_proto, proto;
	int off;

	hpcc_fault_hook_delay();
	/* FCR messages come without extension headers */
	if (ipv6_hdr(skb)->nexthdr == IPPROTO_UDP) {
		int v = hpcc_notify_rcv(hn, skb, sizeof(struct ipv6hdr),
					&ipv6_hdr(skb)->saddr, NFPROTO_IPV6);

		return v < 0 ? NF_ACCEPT : v;
	}
	type = hpcc_probe_type(hn, ipv6_get_dsfield(ipv6_hdr(skb)) >> 2,
			       &ifa_proto);
	if (!type)
		return NF_ACCEPT;
	off = hpcc_wire_ipv6_l4(skb, false, &proto);
	if (off < 0) {
		hpcc_stat_inc(hn, HPCC_STAT_EXTHDR_REFUSED);
		return NF_ACCEPT;
	}
	if (proto == IPPROTO_TCP)
		return hpcc_probe_consume(hn, skb,
					  hpcc_wire_tcp_hdr(skb, off,
							    type == HPCC_WIRE_PROBE),
					  type);
	if (proto == ifa_proto && type == HPCC_WIRE_PROBE)
		return hpcc_probe_consume(hn, skb, hpcc_probe_ifa_hdr(skb, off),
					  type);
	return NF_ACCEPT;
}
#endif

/**
 * hpcc_probe_register() - install the hooks in a namespace, IPv4 and (when
 * the kernel has it) IPv6
 * @net: the namespace
 * @hn: its state, the hooks' private data
 *
 * Return: 0 or a negative errno from nf_register_net_hooks().
 */
int hpcc_probe_register(struct net *net, struct hpcc_net *hn)
{
	hn->nf_ops[0] = (struct nf_hook_ops){
		.hook = hpcc_probe_hook,
		.priv = hn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP_PRI_FIRST,
	};
#if IS_ENABLED(CONFIG_IPV6)
	hn->nf_ops[1] = (struct nf_hook_ops){
		.hook = hpcc_probe_hook6,
		.priv = hn,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP6_PRI_FIRST,
	};
#endif
	return nf_register_net_hooks(net, hn->nf_ops, HPCC_PROBE_NHOOKS);
}

/**
 * hpcc_probe_unregister() - remove the hooks of a namespace
 * @net: the namespace
 * @hn: its state
 */
void hpcc_probe_unregister(struct net *net, struct hpcc_net *hn)
{
	nf_unregister_net_hooks(net, hn->nf_ops, HPCC_PROBE_NHOOKS);
}
