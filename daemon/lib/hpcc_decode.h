/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_decode.h - the decoder layer: per-hop telemetry of each encoding a
 * switch may stamp, mapped onto one hop record whose every field is marked
 * present or absent (Documentation/design.rst, "Telemetry encodings").
 * Pure functions: no I/O, no allocation, no global state.
 *
 * Encodings decoded:
 *   - the project's own hop record (include/uapi/linux/hpcc_wire.h), every
 *     field present: hpcc_obs_from_rec();
 *   - P4.org INT-MD version 2.1 over TCP (In-band Network Telemetry
 *     Dataplane Specification v2.1, 2020-11-11: section 5.7.2, the shim
 *     header for TCP/UDP; section 5.8, the INT-MD metadata header and
 *     instruction bitmap): hpcc_decode_intmd();
 *   - the IOAM pre-allocated trace option (RFC 9197 section 4.4) in an
 *     IPv6 hop-by-hop options header (RFC 9486 section 3), as Linux's
 *     transit nodes fill it (net/ipv6/ioam6.c, __ioam6_fill_trace_data()):
 *     hpcc_decode_ioam();
 *   - Broadcom's Inband Flow Analyzer, IFA 2.0 (draft-kumar-ippm-ifa-08:
 *     the IFA header between IP and L4, the metadata header and stack
 *     after L4), the per-hop metadata as Broadcom switches stamp it in
 *     local-namespace mode: hpcc_decode_ifa().
 */
#ifndef _HPCC_DECODE_H
#define _HPCC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcc_wire.h"

/* Which fields of a struct hpcc_hop_obs the hop reported. */
enum {
	HPCC_OBS_SWITCH_ID	= 1 << 0,
	HPCC_OBS_PORT_ID	= 1 << 1,
	HPCC_OBS_RATE		= 1 << 2,
	HPCC_OBS_TS		= 1 << 3,
	HPCC_OBS_TX_BYTES	= 1 << 4,
	HPCC_OBS_QLEN		= 1 << 5,
	HPCC_OBS_TX_UTIL	= 1 << 6,
	HPCC_OBS_HOP_LATENCY	= 1 << 7,
};

/**
 * struct hpcc_hop_obs - what one hop reported, in host byte order; a field
 * counts only when its HPCC_OBS_* bit is set in @present (an absent field
 * is 0)
 * @present: HPCC_OBS_* bits
 * @rec: the fields of the project's own hop record (struct hpcc_hop_rec),
 *	as an encoding gives them:
 *	switch_id: the node's ID (INT "Switch ID", bit 0; IOAM node_id);
 *	port_id: the egress port's ID (INT: the level 1 egress port ID of
 *	bit 1, 16 bits, else the level 2 egress port ID of bit 6; IOAM
 *	egress_if_id);
 *	rate: B, bit/s (INT-MD and IOAM have none);
 *	ts: in the hop's clock (INT: the egress timestamp of bit 5, else the
 *	ingress timestamp of bit 4, 64 bits as the device reports them, in
 *	its unit: hpcc_int_ts_ns() makes them ns; IOAM: seconds and
 *	fraction, in ns);
 *	tx_bytes: txBytes (INT-MD and IOAM have none);
 *	qlen: the egress queue's occupancy (INT: the 24-bit occupancy of bit
 *	3, in the unit the device uses: bytes, cells or packets, which the
 *	receiver's configuration states; IOAM: queue depth, bytes on Linux)
 * @tx_util: the egress port's Tx utilization as the device reports it
 *	(INT bit 7)
 * @hop_latency: the time the packet spent in the device, as the device
 *	reports it (INT bit 2; IOAM transit delay, ns)
 */
struct hpcc_hop_obs {
	uint32_t present;
	struct hpcc_hop_rec rec;
	uint32_t tx_util;
	uint32_t hop_latency;
};

/* Why a decoder refused its input (counted by the caller). */
enum hpcc_decode_err {
	HPCC_DECODE_OK,
	HPCC_DECODE_SHORT,	/* shorter than a header, or than its lengths */
	HPCC_DECODE_TYPE,	/* INT: shim type not INT-MD (1), or NPT not 0 */
	HPCC_DECODE_VERSION,	/* INT: metadata header version not 2 */
	HPCC_DECODE_HOP_ML,	/* INT: Hop ML 0, or less than the baseline
				 * instructions need
				 */
	HPCC_DECODE_STACK,	/* INT: stack not a whole number of hops;
				 * IOAM: filled part not whole nodes
				 */
	HPCC_DECODE_TOO_MANY,	/* more hops than the caller's array */
	HPCC_DECODE_IOAM_TYPE,	/* IOAM: option type not IOAM (0x31), or IOAM
				 * option type not pre-allocated trace (0)
				 */
	HPCC_DECODE_NODE_LEN,	/* IOAM: NodeLen not what IOAM-Trace-Type's
				 * bits need
				 */
	HPCC_DECODE_IFA,	/* IFA: version not 2, a global namespace
				 * (GNS not 0xf), tail stamping, a checksum
				 * or fragmentation header, or an L4 header
				 * not TCP or UDP
				 */
	HPCC_DECODE_NUM
};

/* The INT-MD shim type (section 5.1) and metadata header version. */
#define HPCC_INT_TYPE_MD	1
#define HPCC_INT_VERSION	2
/* Shim (4 bytes) and INT-MD metadata header (12 bytes). */
#define HPCC_INT_SHIM_LEN	4
#define HPCC_INT_MD_LEN		12

/**
 * struct hpcc_intmd_info - the INT-MD header fields a caller may count
 * @instructions: the instruction bitmap (bit 0 is the MSB)
 * @hop_ml: per-hop metadata length, 4-byte words
 * @remaining: Remaining Hop Count
 * @flags: D (4), E (2) and M (1): discard, max hop count exceeded, MTU
 *	exceeded
 * @len: bytes of shim, header and stack (where the TCP payload starts)
 */
struct hpcc_intmd_info {
	uint16_t instructions;
	uint8_t hop_ml;
	uint8_t remaining;
	uint8_t flags;
	size_t len;
};

/**
 * hpcc_decode_intmd() - decode an INT-MD v2.1 stack carried over TCP
 * @buf: from the INT shim header on (it follows the TCP header when the
 *	packet's DSCP says INT is present, section 5.7.2)
 * @len: bytes in @buf
 * @hops: filled with the hops' records, first hop first (the stack holds
 *	the most recent hop first, section 5.8, and is reversed here)
 * @max_hops: entries in @hops, at most 255
 * @nhop: set to the number of hops
 * @info: the header's fields, or NULL
 *
 * Shim: type INT-MD, NPT 0 (DSCP-signalled TCP), Length = header and stack
 * in 4-byte words.  Header: version 2, Hop ML 1..31 and at least what the
 * instruction bitmap's baseline bits need (4 bytes each, 8 for bits 4-6);
 * bits 9-14 are reserved (4 bytes each, skipped); domain-specific metadata
 * (Hop ML words beyond the baseline, placed before the checksum complement
 * of bit 15) is skipped.  A metadata word of all ones is the spec's
 * "invalid" value: that field is absent.  Source-only domain-specific
 * metadata is refused (HPCC_DECODE_STACK): our probes' source, hpccd,
 * adds none.
 *
 * Return: HPCC_DECODE_OK, or the first problem found.
 */
enum hpcc_decode_err hpcc_decode_intmd(const void *buf, size_t len,
				       struct hpcc_hop_obs *hops,
				       unsigned int max_hops, uint8_t *nhop,
				       struct hpcc_intmd_info *info);

/**
 * enum hpcc_int_ts_unit - what an INT device's ingress and egress
 * timestamps count.  INT v2.1 section 4 leaves the unit to the device and
 * the DTEL metadata-semantics YANG model (p4-dtel-metadata-semantics,
 * identities METADATA_NANOSECONDS, METADATA_MICROSECONDS and
 * METADATA_FRACTIONAL_SECONDS) names these three.
 * @HPCC_INT_TS_NS: nanoseconds; the default, and what hpcc_int stamps
 * @HPCC_INT_TS_US: microseconds
 * @HPCC_INT_TS_NTP: units of 2^-32 s (the model's fractional seconds: a
 *	64-bit field is NTP's 32.32 seconds and fraction)
 */
enum hpcc_int_ts_unit {
	HPCC_INT_TS_NS,
	HPCC_INT_TS_US,
	HPCC_INT_TS_NTP,
};

/**
 * hpcc_int_ts_ns() - an INT timestamp in nanoseconds
 * @ts: the hop's timestamp as hpcc_decode_intmd() gave it (rec.ts)
 * @unit: what it counts
 *
 * The result wraps modulo 2^64 as the device's counter does scaled, so the
 * difference of two timestamps of one hop stays that hop's interval.
 *
 * Return: @ts in ns.
 */
uint64_t hpcc_int_ts_ns(uint64_t ts, enum hpcc_int_ts_unit unit);

/**
 * hpcc_intmd_hop_bytes() - the baseline metadata one hop adds for an
 * instruction bitmap (4 bytes per bit set, 8 for bits 4, 5 and 6)
 * @instructions: the bitmap, bit 0 the MSB
 *
 * Return: bytes, 0..72.
 */
unsigned int hpcc_intmd_hop_bytes(uint16_t instructions);

/* The IPv6 option type of IOAM (RFC 9486 section 3; Linux IPV6_TLV_IOAM),
 * the IOAM option type of the pre-allocated trace (RFC 9197 section 4.4;
 * Linux IOAM6_TYPE_PREALLOC), and the bytes before the first node's data:
 * the option's type, length, reserved and IOAM type (4), then the trace
 * option header (8).
 */
#define HPCC_IOAM_OPT_TYPE	0x31
#define HPCC_IOAM_PREALLOC	0
#define HPCC_IOAM_HDR_LEN	12
/* The Overflow flag: a node found no room and added nothing (RFC 9197
 * section 4.4.1), in struct hpcc_ioam_info's @flags.
 */
#define HPCC_IOAM_FLAG_OVERFLOW	8

/**
 * enum hpcc_ioam_ts_fmt - what an IOAM namespace's timestamp fraction
 * counts (RFC 9197 section 4.4.2.3: the namespace fixes the format)
 * @HPCC_IOAM_TS_POSIX: microseconds, as Linux writes it (ts.tv_nsec /
 *	NSEC_PER_USEC); the default
 * @HPCC_IOAM_TS_PTP: nanoseconds
 * @HPCC_IOAM_TS_NTP: units of 2^-32 s
 */
enum hpcc_ioam_ts_fmt {
	HPCC_IOAM_TS_POSIX,
	HPCC_IOAM_TS_PTP,
	HPCC_IOAM_TS_NTP,
};

/**
 * struct hpcc_ioam_info - the IOAM trace option's header, for counters
 * @namespace_id: Namespace-ID
 * @trace_type: IOAM-Trace-Type, 24 bits, bit 0 the MSB
 * @node_len: NodeLen, 4-byte words each node adds (opaque state excluded)
 * @flags: the 4 flag bits, HPCC_IOAM_FLAG_OVERFLOW the first
 * @remaining: RemainingLen, 4-byte words of room left
 * @len: bytes of the option, from its type to its end
 */
struct hpcc_ioam_info {
	uint16_t namespace_id;
	uint32_t trace_type;
	uint8_t node_len;
	uint8_t flags;
	uint8_t remaining;
	size_t len;
};

/**
 * hpcc_decode_ioam() - decode an IOAM pre-allocated trace option
 * @buf: from the option's type byte (0x31) on, as found in an IPv6
 *	hop-by-hop options header
 * @len: bytes in @buf (at least the option's; more is ignored)
 * @fmt: the namespace's timestamp format
 * @hops: filled with the hops' records, first hop first (a node writes
 *	its data just before the previous node's, RFC 9197 section 4.4, so
 *	the option holds the most recent hop first; reversed here)
 * @max_hops: entries in @hops, at most 255
 * @nhop: set to the number of hops
 * @info: the header's fields, or NULL
 *
 * The option data are the 2-byte reserved and IOAM option type, the 8-byte
 * trace header (Namespace-ID 16, NodeLen 5, Flags 4, RemainingLen 7,
 * IOAM-Trace-Type 24, reserved 8) and the node data list; the nodes' data
 * fill it from RemainingLen x 4 bytes to its end.  NodeLen must equal
 * what the trace type's bits 0-21 need (4 bytes each, 8 for bits 8, 9 and
 * 10; bits 12-21 are undefined, filled with all ones).  Bit 22 (opaque
 * state snapshot) adds, per node, a 4-byte length/schema word and that
 * many words more, which are skipped.  Bit 23 (reserved) is ignored, as
 * section 4.4.1 says a receiver must.  A field of all ones is
 * "unavailable" (RFC 9197 section 4.4.2): absent; for bits 0 and 8 that
 * is the whole 4 or 8 bytes, hop_lim with node_id, so a node_id of all
 * ones under a real hop_lim is an ID (Linux's default ioam6_id,
 * 0xffffff); an egress_if_id of 0xffff is absent, as Linux writes it for
 * an interface it cannot name.  Mapping: node_id
 * (bit 0, 24 bits; else the low 32 bits of bit 8's 56) to switch_id,
 * egress_if_id (bit 1, 16 bits; else bit 9's 32) to port_id, seconds
 * (bit 2) and fraction (bit 3) together to ts in ns (both needed: a
 * fraction alone wraps every second), transit delay (bit 4, ns, 31 bits)
 * to hop_latency, queue depth (bit 6; Linux: the egress qdisc backlog in
 * bytes) to qlen.  IOAM has no txBytes, no B and no Tx utilization.
 * Buffer occupancy (bit 11) is a shared buffer's, not the egress queue's,
 * and is not mapped.  When the Overflow flag is set some nodes added
 * nothing: the caller sees it in @info.
 *
 * Return: HPCC_DECODE_OK, or the first problem found.
 */
enum hpcc_decode_err hpcc_decode_ioam(const void *buf, size_t len,
				      enum hpcc_ioam_ts_fmt fmt,
				      struct hpcc_hop_obs *hops,
				      unsigned int max_hops, uint8_t *nhop,
				      struct hpcc_ioam_info *info);

/**
 * hpcc_ioam_node_bytes() - the bytes one node adds for an IOAM-Trace-Type
 * without its opaque state snapshot (bit 22): NodeLen x 4
 * @trace_type: the 24-bit type, bit 0 the MSB
 *
 * Return: bytes, 0..100.
 */
unsigned int hpcc_ioam_node_bytes(uint32_t trace_type);

/* IFA 2.0: the IFA header's version, its GNS value for "per-hop local
 * namespaces" (no global namespace), its flags, and the sizes of the IFA
 * header, the metadata header and one hop's metadata.
 */
#define HPCC_IFA_VERSION	2
#define HPCC_IFA_GNS_LOCAL	0xf
#define HPCC_IFA_FLAG_MF	0x10	/* metadata fragmentation header */
#define HPCC_IFA_FLAG_TS	0x08	/* tail stamp: metadata at the end */
#define HPCC_IFA_FLAG_I		0x04	/* inband: live traffic, not a clone */
#define HPCC_IFA_FLAG_TA	0x02	/* turn-around */
#define HPCC_IFA_FLAG_C		0x01	/* checksum header */
/* The local namespace (LNS, each hop's first 4 bits) whose layout
 * hpcc_decode_ifa() reads: Broadcom's, as google/gopacket's test vectors
 * and hpcc_int stamp it.
 */
#define HPCC_IFA_LNS		1
#define HPCC_IFA_HDR_LEN	4
#define HPCC_IFA_MD_HDR_LEN	4
#define HPCC_IFA_HOP_LEN	32

/**
 * struct hpcc_ifa_info - the IFA headers' fields, for counters
 * @gns: Global Namespace, 4 bits (HPCC_IFA_GNS_LOCAL when accepted)
 * @next_hdr: the L4 protocol the IFA header names (IPPROTO_TCP or _UDP)
 * @flags: HPCC_IFA_FLAG_*
 * @max_length: Max Length, 4-byte words the stack may grow to
 * @request_vector: Request Vector
 * @action_vector: Action Vector
 * @hop_limit: Hop Limit left
 * @cur_length: Current Length, 4-byte words of the stack
 * @other_lns: hops whose LNS is not HPCC_IFA_LNS (only their device ID
 *	decoded)
 * @md_off: where the metadata header starts, bytes from the IFA header
 * @len: bytes from the IFA header to the end of the stack
 */
struct hpcc_ifa_info {
	uint8_t gns;
	uint8_t next_hdr;
	uint8_t flags;
	uint8_t max_length;
	uint8_t request_vector;
	uint8_t action_vector;
	uint8_t hop_limit;
	uint8_t cur_length;
	uint8_t other_lns;
	size_t md_off;
	size_t len;
};

/**
 * hpcc_ifa_rate() - B of an IFA egress port speed code
 * @code: EgressPortSpeed, 4 bits
 *
 * The codes of draft-kumar-ippm-ifa (as google/gopacket's layers/ifa.go
 * lists them): 0 10G, 1 25G, 2 40G, 3 50G, 4 100G, 5 200G, 6 400G.
 *
 * Return: bit/s, or 0 for a code with no speed assigned (7..15).
 */
uint64_t hpcc_ifa_rate(unsigned int code);

/**
 * hpcc_decode_ifa() - decode an IFA 2.0 metadata stack
 * @buf: from the IFA header on (it follows the IP header, whose protocol
 *	is IFA's: 253, the experimental value the draft's implementations
 *	use, or what the domain configured), through the L4 header, the
 *	metadata header and the stack
 * @len: bytes in @buf
 * @hops: filled with the hops' records, first hop first (the stack holds
 *	the most recent hop first, next to the metadata header; reversed
 *	here)
 * @max_hops: entries in @hops, at most 255
 * @nhop: set to the number of hops
 * @info: the headers' fields, or NULL
 *
 * IFA header (draft section 4.2): Ver 4 (2), GNS 4, NextHdr 8, flags 8
 * (R R R MF TS I TA C), Max Length 8.  Only GNS 0xf (each hop's local
 * namespace defines its metadata) is decoded; tail stamping, the checksum
 * header and the fragmentation header are refused (HPCC_DECODE_IFA): the
 * probes this project sends use none of them.  The L4 header follows:
 * TCP (its data offset gives its length) or UDP (8 bytes).  Metadata
 * header: Request Vector 8, Action Vector 8, Hop Limit 8, Current Length
 * 8 (4-byte words of stack).  Each hop's metadata is 32 bytes: LNS 4,
 * DeviceID 20, IP TTL 8 | EgressPortSpeed 4, Congestion 2, QueueID 6, Rx
 * timestamp seconds 20 | egress system port 16, ingress system port 16 |
 * Rx timestamp nanoseconds 32 | residence time nanoseconds 32 | 3 words of
 * opaque data (the layout google/gopacket's layers/ifa.go decodes, with
 * its test vectors, LNS 1; a stack not made of whole 32-byte hops is
 * refused, HPCC_DECODE_STACK).  LNS and DeviceID lead every namespace's
 * metadata, the rest is the namespace's own: a hop of another LNS gives
 * only its DeviceID (and counts in @info's other_lns), so the receiver
 * skips it rather than read another layout as this one.  Mapping:
 * DeviceID to switch_id, the egress system port to port_id, the speed
 * code to B (hpcc_ifa_rate()), seconds (mod 2^20) and nanoseconds to ts,
 * residence time to hop_latency.  IFA's fixed metadata has no txBytes,
 * no Tx utilization and no queue occupancy (only the 2-bit congestion
 * level); the opaque words, where some devices put their queue's bytes,
 * have no layout the draft fixes and are not read: the receiver derives
 * qlen from the residence time (Documentation/algorithm.rst, "Partial
 * telemetry"), which counts the device's pipeline latency as queue unless
 * ifa-base-ns subtracts it.
 *
 * Return: HPCC_DECODE_OK, or the first problem found.
 */
enum hpcc_decode_err hpcc_decode_ifa(const void *buf, size_t len,
				     struct hpcc_hop_obs *hops,
				     unsigned int max_hops, uint8_t *nhop,
				     struct hpcc_ifa_info *info);

/**
 * struct hpcc_obs_units - how a receiver reads what the hops of an
 * encoding report, from its configuration (the specs leave units to the
 * device)
 * @qlen_unit: bytes per unit of queue occupancy (INT: int-qlen-unit; 1 for
 *	bytes)
 * @tx_util_full: the Tx utilization value that means 100 %; 0: the field
 *	is ignored (INT: int-tx-util-full)
 * @base_ns: the hop latency (residence time) of an empty queue, ns,
 *	subtracted before it is read as a queue (IFA: ifa-base-ns)
 */
struct hpcc_obs_units {
	uint32_t qlen_unit;
	uint32_t tx_util_full;
	uint32_t base_ns;
};

/**
 * hpcc_obs_to_rec() - the record a receiver returns for a hop that a
 * standard encoding reported (Documentation/algorithm.rst, "Partial
 * telemetry")
 * @obs: what the hop reported (a decoder's output)
 * @u: the units of its encoding on this path
 * @rate: B in bit/s for a hop that reported none (the receiver's capacity
 *	table or default-rate), 0 for none
 * @rec: filled: switch and port ID and ts as reported, B as reported or
 *	@rate (0: the sender fills it), no txBytes (flags no-tx-bytes); qlen
 *	= queue occupancy x @u->qlen_unit, or, without occupancy, (hop
 *	latency - @u->base_ns) x B / 8 (the bytes a FIFO port draining at B
 *	holds for that long); Tx utilization in Q16 (flag tx-util) when
 *	reported and @u->tx_util_full is set, at most 200 %; qlen saturates at
 *	2^32 - 1
 *
 * Return: true when the record can drive the core: a timestamp, and a
 * queue (reported or derived) or a Tx utilization; else false and ts 0,
 * which the core skips (an absent queue must not read as an empty one).
 */
bool hpcc_obs_to_rec(const struct hpcc_hop_obs *obs,
		     const struct hpcc_obs_units *u, uint64_t rate,
		     struct hpcc_hop_rec *rec);

/**
 * hpcc_obs_from_rec() - the project's own hop record as an observation:
 * every field present
 * @obs: filled
 * @rec: a parsed record (hpcc_parse())
 */
void hpcc_obs_from_rec(struct hpcc_hop_obs *obs,
		       const struct hpcc_hop_rec *rec);

/**
 * hpcc_decode_err_name() - a short name for a decoder result, for counters
 * @e: the result
 *
 * Return: a static string ("ok", "short", ...).
 */
const char *hpcc_decode_err_name(enum hpcc_decode_err e);

#endif /* _HPCC_DECODE_H */
