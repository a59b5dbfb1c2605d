/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_wire.h - build and parse HPCC probe and response packets (IPv4 or
 * IPv6 + TCP + the telemetry header of include/uapi/linux/hpcc_wire.h), for
 * hpccd and its tests.  Pure functions: no I/O, no allocation, no global
 * state.
 *
 * A probe has the flow's 5-tuple and the probe DSCP (IPv6: in the traffic
 * class, with the flow's flow label, RFC 8200 section 7 and RFC 6437, so
 * that ECMP hashes it onto the data's path); its hop records are
 * pre-allocated (hop_cap) and filled in order by INT hops.  A response
 * reverses the tuple, carries the response DSCP, the probe's id and
 * sender timestamp, and its nhop filled records (draft-pan-tsvwg-hpccplus
 * section 7.2; Documentation/design.rst, "Probe and response wire format").
 */
#ifndef _HPCC_WIRE_H
#define _HPCC_WIRE_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/hpcc_wire.h>

/* Big-endian reads at any alignment, for everything parsed off the wire
 * (this file's packets and the telemetry decoders, hpcc_decode.c).
 */
static inline uint16_t hpcc_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t hpcc_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline uint64_t hpcc_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* Fixed sizes on the wire: IPv4 header without options, IPv6 header
 * without extension headers, TCP header without options, HPCC header.
 */
#define HPCC_IP_LEN	20
#define HPCC_IP6_LEN	40
#define HPCC_TCP_LEN	20
/* An IOAM probe's hop-by-hop header at most: 2 bytes of header, PadN to
 * the option's 4n alignment (RFC 9486 section 3), the IOAM option (4) and
 * trace header (8), HPCC_MAX_HOPS nodes of HPCC_IOAM_NODE_LEN bytes, and
 * PadN to a multiple of 8.
 */
#define HPCC_IOAM_NODE_LEN	20	/* trace type 0xf20000: 5 words */
#define HPCC_IOAM_TRACE_TYPE	0xf20000
#define HPCC_HBH_IOAM_MAX	(16 + HPCC_MAX_HOPS * HPCC_IOAM_NODE_LEN + 4)
/* An INT-MD probe (P4.org INT v2.1 over TCP, section 5.7.2): the shim and
 * metadata header after the TCP header, and the instructions hpccd asks
 * each hop for: bits 0 (switch ID), 1 (level 1 interface IDs), 3 (queue
 * ID and occupancy), 5 (egress timestamp) and 7 (egress Tx utilization),
 * Hop ML 6 words.  Each hop grows the packet by HPCC_INTMD_HOP_LEN.
 */
#define HPCC_INTMD_HDR_LEN	16
#define HPCC_INTMD_INSTRUCTIONS	0xd500
#define HPCC_INTMD_HOP_LEN	24
#define HPCC_INTMD_MAX		(HPCC_INTMD_HDR_LEN + \
				 HPCC_MAX_HOPS * HPCC_INTMD_HOP_LEN)
/* An IFA 2.0 probe (draft-kumar-ippm-ifa-08): the IFA header between the IP
 * and TCP headers, the IFA metadata header after the TCP header, and each
 * hop's HPCC_IFA_HOP_LEN (hpcc_decode.h) bytes in front of the HPCC header.
 */
#define HPCC_IFA_PROTOCOL	253	/* the default ifa-protocol */
#define HPCC_IFA_MAX		(8 + HPCC_MAX_HOPS * 32)
/* The largest packet hpccd builds or parses: IPv6, HPCC_MAX_HOPS records,
 * an IOAM probe's hop-by-hop header, an INT-MD or IFA probe's full stack.
 */
#define HPCC_PKT_MAX	(HPCC_IP6_LEN + HPCC_HBH_IOAM_MAX + HPCC_INTMD_MAX + \
			 HPCC_IFA_MAX + \
			 HPCC_TCP_LEN + \
			 HPCC_WIRE_HDR_LEN + \
			 HPCC_MAX_HOPS * HPCC_WIRE_HOP_LEN + HPCC_WIRE_EXT_MAX)
/* The most IPv6 extension headers hpcc_parse() walks (as the kernel's
 * probe hook, kernel/tcp_hpcc/probe.c).
 */
#define HPCC_IP6_MAX_EXTHDRS	8

/**
 * struct hpcc_tuple - a flow's addresses and ports, network byte order,
 * as its sender sees them (saddr/sport local)
 * @saddr: IPv4 source address (@family AF_INET)
 * @daddr: IPv4 destination address
 * @sport: source port
 * @dport: destination port
 * @family: AF_INET (0 is read as AF_INET) or AF_INET6
 * @saddr6: IPv6 source address (@family AF_INET6)
 * @daddr6: IPv6 destination address
 * @flowlabel: IPv6 flow label, host order, 0..0xfffff: the path the flow
 *	takes through ECMP, not part of the flow's identity (a rehash
 *	changes it, RFC 6437 section 3)
 *
 * A tuple is compared and hashed by @family, its addresses and the ports;
 * zero the whole struct before filling it.
 */
struct hpcc_tuple {
	uint32_t saddr;
	uint32_t daddr;
	uint16_t sport;
	uint16_t dport;
	uint8_t family;
	uint8_t saddr6[16];
	uint8_t daddr6[16];
	uint32_t flowlabel;
};

/**
 * struct hpcc_hop_rec - one hop record in host byte order (draft section
 * 4.1; wire: struct hpcc_wire_hop)
 * @switch_id: switch_ID
 * @port_id: egress port_ID
 * @rate: B, bits per second
 * @ts: ts, ns, the hop's clock
 * @tx_bytes: txBytes of the egress port at @ts
 * @qlen: qlen, bytes, at @ts
 * @flags: enum hpcc_hop_flags (what the record lacks; 0: a full record)
 * @tx_util: Tx utilization, Q16 (65536 = 100 %), with HPCC_HOP_FLAGS_TX_UTIL
 */
struct hpcc_hop_rec {
	uint32_t switch_id;
	uint32_t port_id;
	uint64_t rate;
	uint64_t ts;
	uint64_t tx_bytes;
	uint32_t qlen;
	uint32_t flags;
	uint32_t tx_util;
};

/**
 * struct hpcc_pkt - a parsed probe or response
 * @tuple: the packet's own addresses and ports (source first)
 * @dscp: DSCP, 0..63
 * @type: enum hpcc_wire_type
 * @nhop: filled records, 0..@hop_cap
 * @hop_cap: records present, 1..HPCC_MAX_HOPS
 * @probe_id: the sender's random id
 * @ts: the sender's clock at sending, ns
 * @n_flows: N from an HPCC_WIRE_EXT_N_FLOWS extension, 1..65535; 0 when
 *	the packet has none
 * @mode: the HPCC_WIRE_EXT_MODE extension's bits (HPCC_WIRE_MODE_*); 0
 *	when the packet has none
 * @w_rx: W from an HPCC_WIRE_EXT_W extension, bytes, 1..HPCC_WIRE_W_MAX;
 *	0 when the packet has none
 * @has_u: the packet has an HPCC_WIRE_EXT_U extension
 * @u_rx: its U, Q16 (HPCC_WIRE_U_SHIFT), 0..2^32 - 1
 * @mac_key_id: the key id of an HPCC_WIRE_EXT_MAC extension; 0: none
 * @mac_off: where that extension starts, from the IP header; 0: none
 * @hdr_off: where the HPCC header starts, from the IP header
 * @hops: the @nhop filled records, first hop first
 * @ioam_off: IPv6: where an IOAM option (type 0x31) of the hop-by-hop
 *	header starts, from the IP header (for hpcc_decode_ioam()): the
 *	first pre-allocated trace, else the first IOAM option; 0: none
 * @ioam_len: that option's bytes, its type and length included
 * @int_off: a probe's INT-MD shim (P4.org INT v2.1 section 5.7.2, right
 *	after the TCP header), from the IP header (for
 *	hpcc_decode_intmd()); 0: none
 * @int_len: the shim, metadata header and stack, bytes
 * @ifa_off: an IFA probe's IFA header (right after the IP header and its
 *	extension headers), from the IP header (for hpcc_decode_ifa()); 0:
 *	none
 * @ifa_len: from the IFA header to the end of the stack, bytes
 * @ifa_proto: that probe's IP protocol (IPv6: next header), for the
 *	caller to compare with its ifa-protocol
 */
struct hpcc_pkt {
	struct hpcc_tuple tuple;
	uint8_t dscp;
	uint8_t type;
	uint8_t nhop;
	uint8_t hop_cap;
	uint64_t probe_id;
	uint64_t ts;
	uint32_t n_flows;
	uint8_t mode;
	uint32_t w_rx;
	bool has_u;
	uint32_t u_rx;
	uint32_t mac_key_id;
	uint16_t mac_off;
	uint16_t hdr_off;
	struct hpcc_hop_rec hops[HPCC_MAX_HOPS];
	uint16_t ioam_off;
	uint16_t ioam_len;
	uint16_t int_off;
	uint16_t int_len;
	uint16_t ifa_off;
	uint16_t ifa_len;
	uint8_t ifa_proto;
};

/**
 * enum hpcc_parse_err - why hpcc_parse() refused a packet; each is a
 * counter in hpccd's statistics
 */
enum hpcc_parse_err {
	HPCC_PARSE_OK,
	HPCC_PARSE_SHORT,	/* shorter than IPv4 + TCP + HPCC header */
	HPCC_PARSE_IP_VERSION,	/* version neither 4 nor 6, or IPv4 IHL < 5 */
	HPCC_PARSE_IP_LEN,	/* IPv4 total length or IPv6 payload length
				 * beyond the buffer or too short
				 */
	HPCC_PARSE_IP_CSUM,	/* IPv4 header checksum wrong */
	HPCC_PARSE_FRAGMENT,	/* MF set or a fragment offset */
	HPCC_PARSE_NOT_TCP,	/* protocol (IPv6: the last next header) not
				 * TCP
				 */
	HPCC_PARSE_TCP_DOFF,	/* TCP data offset < 5 or beyond the packet */
	HPCC_PARSE_TCP_FIELDS,	/* seq, ack, a flag or reserved bit, window
				 * or urgent pointer not 0 (the wire format
				 * has them 0; the kernel hands such a
				 * segment to TCP)
				 */
	HPCC_PARSE_MAGIC,	/* no HPCC header magic */
	HPCC_PARSE_VERSION,	/* unknown HPCC header version */
	HPCC_PARSE_TYPE,	/* type neither probe nor response */
	HPCC_PARSE_HOP_CAP,	/* hop_cap 0 or above HPCC_MAX_HOPS */
	HPCC_PARSE_NHOP,	/* nhop above hop_cap */
	HPCC_PARSE_TRUNCATED,	/* fewer than hop_cap records present */
	HPCC_PARSE_EXT,		/* an extension after the records is malformed
				 * (length; N 0 or above 65535; W 0 or above
				 * HPCC_WIRE_W_MAX; a MAC of another length,
				 * key id 0 or not last), or they take more
				 * than HPCC_WIRE_EXT_MAX bytes
				 */
	HPCC_PARSE_IP6_EXTHDR,	/* an IPv6 fragment, AH or ESP header, a
				 * routing header with segments left, more
				 * than HPCC_IP6_MAX_EXTHDRS headers, or one
				 * beyond the packet
				 */
	HPCC_PARSE_INT,		/* a probe's INT-MD shim with NPT not 0, a
				 * Length below the metadata header, or
				 * beyond the packet
				 */
	HPCC_PARSE_IFA,		/* an IFA packet whose metadata header or
				 * stack (whole 32-byte hops) is beyond it,
				 * or that is not a probe
				 */
	HPCC_PARSE_NUM
};

/**
 * hpcc_parse() - parse and check an IPv4 or IPv6 packet as a probe or
 * response
 * @buf: the packet from its IP header on
 * @len: bytes in @buf
 * @pkt: filled on success (all fields in host order but the tuple's
 *	addresses and ports; the tuple's @flowlabel too)
 *
 * IPv6 extension headers are walked as the kernel's probe hook walks them:
 * hop-by-hop and destination options and a routing header with no segments
 * left are skipped, anything else before TCP refuses the packet.
 * Checks structure only (IPv4 header and checksum, unfragmented TCP whose
 * seq, ack, flags, window and urgent pointer are 0, the HPCC header, hop
 * counts, length, the extensions after the records), the same rule by
 * which the kernel consumes probes and responses (kernel/tcp_hpcc/probe.c;
 * the kernel does not read extensions); the TCP checksum is not checked, as
 * INT hops rewrite the payload.  The caller checks the DSCP and what the
 * hop values mean.
 *
 * Return: HPCC_PARSE_OK or the first problem found.
 */
enum hpcc_parse_err hpcc_parse(const void *buf, size_t len,
			       struct hpcc_pkt *pkt);

/**
 * hpcc_build_probe() - a probe for a flow
 * @buf: at least HPCC_PKT_MAX bytes
 * @t: the flow, as its sender sees it; IPv6 (@t->family AF_INET6) with
 *	@t->flowlabel, hop limit 64 and no extension headers
 * @dscp: the probe DSCP, 1..63
 * @hop_cap: records to pre-allocate, 1..HPCC_MAX_HOPS
 * @probe_id: random 64-bit id
 * @ts: sender clock, ns
 * @ip_id: IPv4 identification (unused for IPv6)
 *
 * Return: the packet's length, or 0 for an out-of-range @dscp, @hop_cap,
 * @t->family or @t->flowlabel.
 */
size_t hpcc_build_probe(void *buf, const struct hpcc_tuple *t, uint8_t dscp,
			uint8_t hop_cap, uint64_t probe_id, uint64_t ts,
			uint16_t ip_id);

/* The extensions hpcc_build_probe_ext() puts after a probe's records. */
#define HPCC_PROBE_FCR	1U	/* HPCC_WIRE_EXT_FCR, value HPCC_WIRE_FCR_SUPPORT */
#define HPCC_PROBE_CC	2U	/* HPCC_WIRE_EXT_CCM, value HPCC_WIRE_CCM_CC */
#define HPCC_PROBE_AR	4U	/* HPCC_WIRE_EXT_AR, the sender the AR point */
#define HPCC_PROBE_RX	8U	/* HPCC_WIRE_EXT_MODE, value HPCC_WIRE_MODE_RX */
#define HPCC_PROBE_PAD	16U	/* HPCC_WIRE_EXT_PAD, room for the response */

/**
 * hpcc_build_probe_ext() - hpcc_build_probe() with extensions after the
 *	records (include/uapi/linux/hpcc_wire.h, enum hpcc_wire_ext_kind)
 * @buf: at least HPCC_PKT_MAX bytes
 * @t: the flow
 * @dscp: the probe DSCP, 1..63
 * @hop_cap: records to pre-allocate, 1..HPCC_MAX_HOPS
 * @probe_id: random 64-bit id
 * @ts: sender clock, ns
 * @ip_id: IPv4 identification (unused for IPv6)
 * @ext: a bit set: HPCC_PROBE_FCR, the flow's sender takes Fast Congestion
 *	Response messages (FCR draft sections 6 and 7; the hops with FCR on
 *	learn it from the probe); HPCC_PROBE_CC, the flow's CC indicator is
 *	set (draft-lyu-rtgwg-coordinated-congestion-management section 6.1:
 *	the flow is incast, a hop does not reroute it), 8 bytes each;
 *	HPCC_PROBE_AR, the AR indicator (the same section: switch_ID 0 and
 *	the flow's source address, the sender as the AR point, no flag;
 *	struct hpcc_wire_ext_ar, HPCC_WIRE_EXT_AR_LEN bytes), the flow's
 *	coordination tag; HPCC_PROBE_RX, the sender asks for receiver-based
 *	HPCC (HPCC_WIRE_EXT_MODE, value HPCC_WIRE_MODE_RX, 8 bytes);
 *	HPCC_PROBE_PAD, an HPCC_WIRE_EXT_PAD that brings the extensions to
 *	HPCC_WIRE_RESP_EXT_MAX bytes (none when the others take as many), so
 *	that no response to the probe is larger than it; in that order
 *
 * Return: the packet's length (hpcc_build_probe()'s plus each
 * extension's), or 0 as hpcc_build_probe() and for an unknown bit in
 * @ext.
 */
size_t hpcc_build_probe_ext(void *buf, const struct hpcc_tuple *t,
			    uint8_t dscp, uint8_t hop_cap, uint64_t probe_id,
			    uint64_t ts, uint16_t ip_id, unsigned int ext);

/**
 * hpcc_build_probe_intmd() - a probe that asks the path's INT-MD transit
 * hops for their metadata (P4.org INT Dataplane Specification v2.1)
 * @buf: at least HPCC_PKT_MAX bytes
 * @t: the flow, IPv4 or IPv6
 * @dscp: the module's int-dscp, 1..63, the DSCP that signals the INT shim
 *	after the TCP header (section 5.7.2): a value the site reserves for
 *	INT, which probes of the other encodings do not carry
 * @hop_cap: records of the project's own format, 1..HPCC_MAX_HOPS, for
 *	hpcc_int hops of that encoding on the same path; max(@hops, 2) or
 *	more leaves room for the response's records and extensions
 *	(HPCC_WIRE_RESP_EXT_MAX), so that no response is larger than the
 *	probe
 * @hops: Remaining Hop Count, how many INT-MD hops may push metadata,
 *	1..HPCC_MAX_HOPS
 * @probe_id: random 64-bit id
 * @ts: sender clock, ns
 * @ip_id: IPv4 identification (ignored for IPv6)
 *
 * After the TCP header: the shim (type 1 INT-MD, NPT 0, Length 3: the
 * metadata header, no stack yet), the metadata header (version 2, Hop ML
 * 6, Remaining Hop Count @hops, instructions HPCC_INTMD_INSTRUCTIONS,
 * domain 0), then the HPCC header and @hop_cap empty records.  Each INT-MD
 * hop pushes HPCC_INTMD_HOP_LEN bytes in front of the HPCC header; the
 * receiver's hpccd decodes the stack into the response's records.
 *
 * Return: the packet's length, or 0 for an out-of-range argument.
 */
size_t hpcc_build_probe_intmd(void *buf, const struct hpcc_tuple *t,
			      uint8_t dscp, uint8_t hop_cap, uint8_t hops,
			      uint64_t probe_id, uint64_t ts, uint16_t ip_id);

/**
 * hpcc_build_probe_ifa() - a probe that asks the path's IFA 2.0 transit
 * hops for their metadata (draft-kumar-ippm-ifa-08)
 * @buf: at least HPCC_PKT_MAX bytes
 * @t: the flow, IPv4 or IPv6
 * @dscp: the probe DSCP, 1..63
 * @proto: the IP protocol (IPv6: next header) that marks IFA, one
 *	hpcc_wire_ifa_protocol_ok() accepts
 * @hops: Hop Limit, how many hops may push metadata, 1..HPCC_MAX_HOPS;
 *	Max Length is room for as many
 * @probe_id: random 64-bit id
 * @ts: sender clock, ns
 * @ip_id: IPv4 identification (ignored for IPv6)
 *
 * The IP header's protocol is @proto; the IFA header (version 2, GNS 0xf:
 * each hop's local namespace, next header TCP, no flags, Max Length
 * @hops x 8 words) follows it, then the TCP header (its checksum over the
 * TCP pseudo-header and everything after it), the IFA metadata header
 * (Request Vector 0, Action Vector 0, Hop Limit @hops, Current Length 0),
 * the HPCC header and max(@hops, 2) empty records: room for the response's
 * records and extensions (HPCC_WIRE_RESP_EXT_MAX), so that no response is
 * larger than the probe.  Each IFA hop pushes 32 bytes in front of the
 * HPCC header; the receiver's hpccd decodes the stack.
 *
 * Return: the packet's length, or 0 for an out-of-range argument.
 */
size_t hpcc_build_probe_ifa(void *buf, const struct hpcc_tuple *t,
			    uint8_t dscp, uint8_t proto, uint8_t hops,
			    uint64_t probe_id, uint64_t ts, uint16_t ip_id);

/**
 * hpcc_build_probe_ioam() - an IPv6 probe that asks the path's IOAM transit
 * nodes for a pre-allocated trace (RFC 9197 section 4.4; Linux:
 * net.ipv6.conf.DEV.ioam6_enabled and the namespace configured)
 * @buf: at least HPCC_PKT_MAX bytes
 * @t: the flow, IPv6 only, with @t->flowlabel
 * @dscp: the probe DSCP, 1..63
 * @ns_id: the IOAM-Namespace-ID the nodes fill for
 * @nodes: room for this many nodes, 1..HPCC_MAX_HOPS
 * @probe_id: random 64-bit id
 * @ts: sender clock, ns
 *
 * A hop-by-hop options header holds PadN (the option 4n-aligned, RFC 9486
 * section 3), the IOAM option (type 0x31, IOAM type pre-allocated trace,
 * trace type HPCC_IOAM_TRACE_TYPE: node_id, interface IDs, timestamp
 * seconds and fraction, queue depth; NodeLen 5; RemainingLen room for
 * @nodes) and PadN to a multiple of 8 bytes; then the TCP header and the
 * HPCC header with max(@nodes, 2) empty records: room for the response's
 * records and extensions (HPCC_WIRE_RESP_EXT_MAX), so that no response is
 * larger than the probe (an hpcc_int hop on the path may stamp them; the
 * receiver's records come from the trace when a node filled it).  The
 * receiver's hpccd decodes the trace into the response's records.
 *
 * Return: the packet's length, or 0 for an out-of-range argument.
 */
size_t hpcc_build_probe_ioam(void *buf, const struct hpcc_tuple *t,
			     uint8_t dscp, uint16_t ns_id, uint8_t nodes,
			     uint64_t probe_id, uint64_t ts);

/**
 * hpcc_build_response() - the response to a parsed probe
 * @buf: at least HPCC_PKT_MAX bytes
 * @probe: the probe (type HPCC_WIRE_PROBE)
 * @dscp: the response DSCP, 1..63
 * @ip_id: IPv4 identification
 * @n_flows: N to report in an HPCC_WIRE_EXT_N_FLOWS extension, 1..65535
 *	(larger values are sent as 65535); 0: no extension
 *
 * The response reverses the probe's tuple (and family; an IPv6 response
 * keeps the probe's flow label) and carries its id, ts and filled records;
 * hop_cap is max(nhop, 1), so it is no longer than needed.
 *
 * Return: the packet's length, or 0 if @probe is not a probe or @dscp is
 * out of range.
 */
size_t hpcc_build_response(void *buf, const struct hpcc_pkt *probe,
			   uint8_t dscp, uint16_t ip_id, uint32_t n_flows);

/**
 * struct hpcc_resp_opt - what a response carries besides the probe's
 *	records (hpcc_build_response_opt())
 * @n_flows: N for an HPCC_WIRE_EXT_N_FLOWS extension, 1..65535 (larger
 *	values are sent as 65535); 0: none
 * @mode: HPCC_WIRE_EXT_MODE's bits (HPCC_WIRE_MODE_RX, _REFUSED,
 *	_PRIVATE, _U); 0: no such extension.  With HPCC_WIRE_MODE_PRIVATE the
 *	response carries no records (nhop 0, one empty slot)
 * @w: W for an HPCC_WIRE_EXT_W extension, bytes, 1..HPCC_WIRE_W_MAX
 *	(larger values are sent as HPCC_WIRE_W_MAX); 0: none
 * @has_u: send an HPCC_WIRE_EXT_U extension with @u
 * @u: U, Q16 (HPCC_WIRE_U_SHIFT), 0..2^32 - 1
 * @mac_key_id: non-zero: room for an HPCC_WIRE_EXT_MAC extension with this
 *	key id, last, its tag zero (hpcc_auth_sign() fills it)
 */
struct hpcc_resp_opt {
	uint32_t n_flows;
	uint8_t mode;
	uint32_t w;
	bool has_u;
	uint32_t u;
	uint32_t mac_key_id;
};

/**
 * hpcc_build_response_opt() - hpcc_build_response() with the extensions of
 *	@o, in the order N, mode, W, U, MAC
 * @buf: at least HPCC_PKT_MAX bytes
 * @probe: the probe (type HPCC_WIRE_PROBE)
 * @dscp: the response DSCP, 1..63
 * @ip_id: IPv4 identification
 * @o: the extensions
 *
 * Return: the packet's length, or 0 as hpcc_build_response().
 */
size_t hpcc_build_response_opt(void *buf, const struct hpcc_pkt *probe,
			       uint8_t dscp, uint16_t ip_id,
			       const struct hpcc_resp_opt *o);

/**
 * hpcc_tcp_csum_update() - recompute the TCP checksum of a packet built
 *	here (after its payload changed, e.g. a MAC tag was filled in)
 * @buf: the packet: an IPv4 header without options or an IPv6 header
 *	without extension headers, then TCP
 * @len: its length
 */
void hpcc_tcp_csum_update(void *buf, size_t len);

/**
 * hpcc_tuple_reverse() - the other direction of a flow
 * @r: set to @t with source and destination swapped (addresses of either
 *	family, ports); family and flow label kept
 * @t: the flow
 */
void hpcc_tuple_reverse(struct hpcc_tuple *r, const struct hpcc_tuple *t);

/**
 * hpcc_parse_err_name() - a short name for a parse result, for counters
 * @e: the result
 *
 * Return: a static string ("ok", "short", ...).
 */
const char *hpcc_parse_err_name(enum hpcc_parse_err e);

#endif /* _HPCC_WIRE_H */
