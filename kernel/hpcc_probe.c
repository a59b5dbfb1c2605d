// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_probe.c - remove probe and response packets addressed to this host
 * before TCP sees them.
 *
 * A netfilter hook at NF_INET_LOCAL_IN, first priority, so only packets
 * routed to this host are considered (a router forwards probes untouched)
 * and AF_PACKET taps, which run before IP, still see every probe: hpccd
 * reads them there (draft section 7.2; Documentation/design.rst, "Probe
 * and response consumption").  A packet is consumed when it is an
 * unfragmented IPv4 TCP segment with the namespace's probe or response
 * DSCP, the wire format's TCP header (seq, ack, flags, window and urgent
 * pointer 0) and a payload that starts with a valid struct hpcc_wire_hdr
 * (include/uapi/linux/hpcc_wire.h).  Everything else,
 * including TCP data that merely carries one of those DSCPs, goes on to
 * TCP and is counted (dscp-not-hpcc).
 */
#include <linux/ip.h>
#include <linux/netfilter_ipv4.h>
#include <linux/tcp.h>
#include <net/dsfield.h>
#include <net/ip.h>

#include "hpcc_fault.h"
#include "hpcc_mod.h"
#include "hpcc_wire_check.h"

static bool hpcc_probe_hdr_valid(struct sk_buff *skb, unsigned int off,
				 u8 type)
{
	struct hpcc_wire_hdr _h;
	const struct hpcc_wire_hdr *h;

	/* a header read at @off means skb->len > off */
	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	return h && hpcc_wire_hdr_valid(h, type, skb->len - off);
}

static unsigned int hpcc_probe_hook(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	struct hpcc_net *hn = priv;
	const struct iphdr *iph = ip_hdr(skb);
	const struct hpcc_cfg *cfg;
	struct tcphdr _th;
	const struct tcphdr *th;
	u8 dscp, probe, response, type;
	unsigned int off;

	hpcc_fault_hook_delay();
	if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
		return NF_ACCEPT;
	dscp = ipv4_get_dsfield(iph) >> 2;
	rcu_read_lock();
	cfg = rcu_dereference(hn->cfg);
	probe = cfg->probe_dscp;
	response = cfg->response_dscp;
	rcu_read_unlock();
	if (dscp == probe)
		type = HPCC_WIRE_PROBE;
	else if (dscp == response)
		type = HPCC_WIRE_RESPONSE;
	else
		return NF_ACCEPT;

	off = ip_hdrlen(skb);
	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th || !hpcc_wire_tcp_valid(th) ||
	    !hpcc_probe_hdr_valid(skb, off + th->doff * 4, type)) {
		hpcc_stat_inc(hn, HPCC_STAT_DSCP_NOT_HPCC);
		return NF_ACCEPT;
	}
	hpcc_stat_inc(hn, type == HPCC_WIRE_PROBE ?
		      HPCC_STAT_PROBES_CONSUMED : HPCC_STAT_RESPONSES_CONSUMED);
	consume_skb(skb);
	return NF_STOLEN;
}

/**
 * hpcc_probe_register() - install the hook in a namespace
 * @net: the namespace
 * @hn: its state, the hook's private data
 *
 * Return: 0 or a negative errno from nf_register_net_hook().
 */
int hpcc_probe_register(struct net *net, struct hpcc_net *hn)
{
	hn->nf_ops = (struct nf_hook_ops){
		.hook = hpcc_probe_hook,
		.priv = hn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP_PRI_FIRST,
	};
	return nf_register_net_hook(net, &hn->nf_ops);
}

/**
 * hpcc_probe_unregister() - remove the hook of a namespace
 * @net: the namespace
 * @hn: its state
 */
void hpcc_probe_unregister(struct net *net, struct hpcc_net *hn)
{
	nf_unregister_net_hook(net, &hn->nf_ops);
}
