/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks by which both modules recognize a probe or a response on the
 * wire (include/uapi/linux/hpcc_wire.h):
 * tcp_hpcc's LOCAL_IN hook before it consumes one (kernel/tcp_hpcc/probe.c)
 * and hpcc_int's FORWARD hook before it stamps one (kernel/hpcc_int/stamp.c).
 * hpccd's parser applies the same rules in userspace (daemon/lib/hpcc_wire.c).
 */
#ifndef _HPCC_WIRE_CHECK_H
#define _HPCC_WIRE_CHECK_H

#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <linux/hpcc_wire.h>

/**
 * hpcc_wire_tcp_valid() - the TCP header of a probe or response
 * @th: the segment's TCP header
 *
 * The wire format has seq, ack, every flag and reserved bit, the window
 * and the urgent pointer 0, and a data offset of at least 5 (options are
 * allowed).  A segment with any of them set is not ours, whatever its DSCP
 * and payload: it goes on untouched to TCP or to the next hop.
 *
 * Return: true when @th is such a header.
 */
static inline bool hpcc_wire_tcp_valid(const struct tcphdr *th)
{
	return th->doff >= sizeof(*th) / 4 && !th->seq && !th->ack_seq &&
	       !(tcp_flag_word(th) & ~TCP_DATA_OFFSET) && !th->urg_ptr;
}

/**
 * hpcc_wire_hdr_valid() - the HPCC header of a probe or response
 * @h: the header, first in the TCP payload
 * @type: the enum hpcc_wire_type expected (by the packet's DSCP)
 * @room: bytes the packet has from @h on
 *
 * Return: true when the magic, version and @type match, hop_cap is 1 to
 * HPCC_MAX_HOPS, nhop is at most hop_cap, and all hop_cap records are
 * present.
 */
static inline bool hpcc_wire_hdr_valid(const struct hpcc_wire_hdr *h, u8 type,
				       unsigned int room)
{
	return h->magic == htonl(HPCC_WIRE_MAGIC) &&
	       h->version == HPCC_WIRE_VERSION && h->type == type &&
	       h->hop_cap && h->hop_cap <= HPCC_MAX_HOPS &&
	       h->nhop <= h->hop_cap &&
	       room >= sizeof(*h) + h->hop_cap * HPCC_WIRE_HOP_LEN;
}

/*
 * INT-MD over TCP (P4.org In-band Network Telemetry Dataplane
 * Specification v2.1, section 5.7.2): a probe may carry a 4-byte shim
 * (Type 4 bits, NPT 2, reserved 2, Length 8: the 12-byte metadata header
 * and the stack in 4-byte words, the shim not counted; 16 bits of DSCP)
 * right after its TCP header, then the INT-MD metadata header (section
 * 5.8) and stack, then the HPCC header.
 */
#define HPCC_WIRE_INT_TYPE_MD	1
#define HPCC_WIRE_INT_SHIM_LEN	4
#define HPCC_WIRE_INT_MD_LEN	12

/**
 * hpcc_wire_int_len() - the INT-MD shim, header and stack in front of a
 * probe's HPCC header
 * @skb: the packet
 * @off: where its TCP payload starts
 *
 * The HPCC header's magic starts with 0x48 (type 4), so a payload whose
 * first 4 bits are 1 is an INT-MD shim.
 *
 * Return: the bytes of shim, metadata header and stack when the payload
 * starts with an INT-MD shim (NPT 0, the DSCP-signalled case) whose Length
 * covers the metadata header and lies within the packet; 0 when it starts
 * with anything else; -1 for an INT-MD shim that does not (malformed).
 */
static inline int hpcc_wire_int_len(const struct sk_buff *skb,
				    unsigned int off)
{
	u8 _s[2];
	const u8 *s;
	unsigned int len;

	s = skb_header_pointer(skb, off, sizeof(_s), _s);
	if (!s || s[0] >> 4 != HPCC_WIRE_INT_TYPE_MD)
		return 0;
	len = HPCC_WIRE_INT_SHIM_LEN + s[1] * 4;
	if ((s[0] >> 2) & 3 || s[1] * 4 < HPCC_WIRE_INT_MD_LEN ||
	    skb->len < off + len)
		return -1;
	return len;
}

/**
 * hpcc_wire_tcp_hdr() - where the HPCC header of a TCP probe or response
 * starts
 * @skb: the packet
 * @off: its TCP header's offset
 * @probe: the packet is a probe, which may carry an INT-MD shim, header
 *	and stack between its TCP header and its HPCC header
 *
 * Return: that offset, when the TCP header is the wire format's and an
 * INT-MD shim, if any, is well formed (hpcc_wire_int_len()); else 0, which
 * no HPCC header follows an IP header at.
 */
static inline unsigned int hpcc_wire_tcp_hdr(const struct sk_buff *skb,
					     unsigned int off, bool probe)
{
	struct tcphdr _th;
	const struct tcphdr *th;
	int int_len = 0;

	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th || !hpcc_wire_tcp_valid(th))
		return 0;
	off += th->doff * 4;
	if (probe)
		int_len = hpcc_wire_int_len(skb, off);
	return int_len < 0 ? 0 : off + int_len;
}

/*
 * IFA 2.0 (draft-kumar-ippm-ifa-08): an IFA probe's IP protocol (IPv6:
 * next header) is the namespace's ifa-protocol; the 4-byte IFA header
 * (Ver 2, GNS, NextHdr, flags R R R MF TS I TA C, Max Length) comes right
 * after the IP header, then the probe's TCP header, the 4-byte IFA
 * metadata header (Request Vector, Action Vector, Hop Limit, Current
 * Length in 4-byte words) and the stack of 32-byte hops, then the HPCC
 * header.
 */
#define HPCC_WIRE_IFA_HDR_LEN		4
#define HPCC_WIRE_IFA_MD_HDR_LEN	4
#define HPCC_WIRE_IFA_HOP_LEN		32
/* Version 2 and GNS 0xf (each hop's local namespace); flags refused. */
#define HPCC_WIRE_IFA_VER_GNS		0x2f
#define HPCC_WIRE_IFA_FLAGS_REFUSED	(0x10 | 0x08 | 0x01)	/* MF TS C */

/**
 * struct hpcc_wire_ifa - where the parts of an IFA probe start, and the
 * header fields a hop updates
 * @tcp: the TCP header
 * @md: the IFA metadata header
 * @hdr: the HPCC header, after the stack
 * @max_len: the IFA header's Max Length, 4-byte words
 * @hop_limit: the metadata header's Hop Limit
 * @cur_len: the metadata header's Current Length, 4-byte words
 */
struct hpcc_wire_ifa {
	unsigned int tcp;
	unsigned int md;
	unsigned int hdr;
	u8 max_len;
	u8 hop_limit;
	u8 cur_len;
};

/**
 * hpcc_wire_ifa_find() - the parts of an IFA probe
 * @skb: the packet
 * @off: where its IFA header starts (right after the IP header)
 * @ifa: filled when found
 *
 * Return: true when the IFA header is version 2 with GNS 0xf, next header
 * TCP and none of the MF, TS and C flags (no fragmentation or checksum
 * header, metadata in front of the payload: what hpccd sends), the TCP
 * header is the wire format's, and the metadata header and a stack of
 * Current Length words, whole 32-byte hops, lie within the packet with
 * something after them (the HPCC header, which the caller checks).
 */
static inline bool hpcc_wire_ifa_find(const struct sk_buff *skb,
				      unsigned int off,
				      struct hpcc_wire_ifa *ifa)
{
	struct tcphdr _th;
	const struct tcphdr *th;
	u8 _h[4];
	const u8 *h;

	h = skb_header_pointer(skb, off, sizeof(_h), _h);
	if (!h || h[0] != HPCC_WIRE_IFA_VER_GNS || h[1] != IPPROTO_TCP ||
	    h[2] & HPCC_WIRE_IFA_FLAGS_REFUSED)
		return false;
	ifa->max_len = h[3];
	ifa->tcp = off + HPCC_WIRE_IFA_HDR_LEN;
	th = skb_header_pointer(skb, ifa->tcp, sizeof(_th), &_th);
	if (!th || !hpcc_wire_tcp_valid(th))
		return false;
	ifa->md = ifa->tcp + th->doff * 4;
	h = skb_header_pointer(skb, ifa->md, sizeof(_h), _h);
	if (!h || (h[3] * 4) % HPCC_WIRE_IFA_HOP_LEN)
		return false;
	ifa->hop_limit = h[2];
	ifa->cur_len = h[3];
	ifa->hdr = ifa->md + HPCC_WIRE_IFA_MD_HDR_LEN + h[3] * 4;
	return skb->len > ifa->hdr;
}

#if IS_ENABLED(CONFIG_IPV6)
/* The most extension headers hpcc_wire_ipv6_l4() walks. */
#define HPCC_WIRE_MAX_EXTHDRS	8

/**
 * hpcc_wire_ipv6_l4() - where the upper-layer header of an IPv6 packet
 * starts
 * @skb: the packet, its network header set
 * @transit: the packet is forwarded (hpcc_int), not addressed to this
 *	host (tcp_hpcc's LOCAL_IN hook)
 * @proto: set to the upper-layer protocol (the last next header)
 *
 * Walks the extension headers as the stack would: hop-by-hop and
 * destination options are skipped, and so is a routing header, which at
 * the destination must have no segments left (one with segments left
 * names another node to visit) and in transit may have any.  A fragment
 * header (netfilter sees IPv6 fragments before reassembly), AH, ESP and
 * more than HPCC_WIRE_MAX_EXTHDRS headers refuse the packet.  hpccd's
 * parser walks them the same way (daemon/lib/hpcc_wire.c).
 *
 * Return: the upper-layer header's offset (TCP, the IFA header of an IFA
 * probe, or anything else: the caller looks at *@proto); -1 when an
 * extension header refuses the packet.
 */
static inline int hpcc_wire_ipv6_l4(const struct sk_buff *skb, bool transit,
				    u8 *proto)
{
	unsigned int off = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	u8 nexthdr = ipv6_hdr(skb)->nexthdr;
	int n;

	for (n = 0; n <= HPCC_WIRE_MAX_EXTHDRS; n++) {
		struct ipv6_rt_hdr _rh;
		const struct ipv6_rt_hdr *rh;

		switch (nexthdr) {
		case NEXTHDR_HOP:
		case NEXTHDR_DEST:
		case NEXTHDR_ROUTING:
			break;
		case NEXTHDR_FRAGMENT:
		case NEXTHDR_AUTH:
		case NEXTHDR_ESP:
			return -1;
		default:
			/* TCP, IFA, another upper layer (or a header unknown
			 * here, which the stack would refuse)
			 */
			*proto = nexthdr;
			return off;
		}
		/* the first 4 bytes of each: nexthdr, hdrlen, and for a
		 * routing header type and segments left
		 */
		rh = skb_header_pointer(skb, off, sizeof(_rh), &_rh);
		if (!rh ||
		    (!transit && nexthdr == NEXTHDR_ROUTING && rh->segments_left))
			return -1;
		nexthdr = rh->nexthdr;
		off += ipv6_optlen(rh);
	}
	return -1;
}
#endif

#endif /* _HPCC_WIRE_CHECK_H */
