/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
#ifndef _UAPI_LINUX_HPCC_WIRE_H
#define _UAPI_LINUX_HPCC_WIRE_H

/*
 * Probe and response wire format (hand-written; the netlink API,
 * linux/hpcc.h, is generated from the YNL spec by `make uapi`).
 *
 * A probe is an IPv4 packet with the flow's 5-tuple, DSCP probe-dscp
 * (default 60; an INT-MD probe int-dscp, default 23, the value that
 * signals INT), and a TCP header whose seq, ack, flags (reserved bits
 * included), window and urgent pointer are 0 (options are allowed; TCP
 * discards such a segment if one reaches it, and a receiver consumes
 * nothing else as a probe or response), followed by a
 * struct hpcc_wire_hdr and hop_cap struct hpcc_wire_hop records as TCP
 * payload.  INT hops fill the records in order (nhop counts the filled
 * ones) and never grow the packet.  A response reverses the 5-tuple, uses
 * response-dscp (default 61), and carries the probe's id, sender timestamp
 * and records, and may carry extensions after its hop_cap records (struct
 * hpcc_wire_ext; a version-1 receiver ignores bytes after the records, so
 * they need no new version).  All fields are big-endian; the structures have no holes.
 * Receivers read them with unaligned accesses: the payload follows a TCP
 * header of any length.  Documentation/design.rst has the details.
 */
#include <linux/types.h>
#include <linux/hpcc.h>	/* HPCC_MAX_HOPS */

#define HPCC_WIRE_MAGIC		0x48504343	/* "HPCC" */
#define HPCC_WIRE_VERSION	1

/**
 * enum hpcc_wire_type - value of hpcc_wire_hdr.type
 * @HPCC_WIRE_PROBE: sender to receiver; INT hops stamp it
 * @HPCC_WIRE_RESPONSE: receiver to sender; hops leave it alone
 * @HPCC_WIRE_FCR: a congested hop to a flow's sender, UDP
 *	(struct hpcc_wire_fcr)
 * @HPCC_WIRE_CCM: a congested hop's Coordinated Congestion Management
 *	notification to a flow's sender or AR point, UDP
 *	(struct hpcc_wire_ccm)
 */
enum hpcc_wire_type {
	HPCC_WIRE_PROBE = 1,
	HPCC_WIRE_RESPONSE = 2,
	HPCC_WIRE_FCR = 3,
	HPCC_WIRE_CCM = 4,
};

/**
 * struct hpcc_wire_hdr - HPCC telemetry header, first in the TCP payload
 * @magic: HPCC_WIRE_MAGIC
 * @version: HPCC_WIRE_VERSION
 * @type: enum hpcc_wire_type
 * @nhop: hop records filled, 0..@hop_cap
 * @hop_cap: hop records the packet has room for, 1..HPCC_MAX_HOPS
 * @probe_id: random 64-bit id chosen by the sender, echoed in the response
 * @ts: the sender's clock when it sent the probe, ns, echoed in the response
 */
struct hpcc_wire_hdr {
	__be32 magic;
	__u8 version;
	__u8 type;
	__u8 nhop;
	__u8 hop_cap;
	__be64 probe_id;
	__be64 ts;
};

/**
 * struct hpcc_wire_hop - one hop record (draft section 4.1)
 * @switch_id: switch_ID of the hop
 * @port_id: port_ID, the egress port
 * @rate: B, egress link capacity, bits per second
 * @ts: ts, when the hop stamped the record, ns
 * @tx_bytes: txBytes, bytes the egress port had transmitted at @ts
 * @qlen: qlen, egress queue length at @ts, bytes (saturates at 2^32 - 1)
 * @flags: what the record lacks, enum hpcc_hop_flags (linux/hpcc.h): 0 for
 *	a record a hop stamped in this format (hpcc_int always writes 0); a
 *	receiver that translated a standard encoding (IOAM, INT-MD) into
 *	the response's records sets HPCC_HOP_FLAGS_NO_TX_BYTES, and
 *	HPCC_HOP_FLAGS_TX_UTIL with @tx_util (Documentation/algorithm.rst,
 *	"Partial telemetry").  Senders and hops that do not know the field
 *	write 0 there and receivers that do not know it ignore it, so the
 *	records stay compatible both ways.  Unknown bits are ignored.
 * @reserved: 0 when sent, ignored when received
 * @tx_util: Tx utilization, Q15 (32768 = 100 %, to 200 %), with
 *	HPCC_HOP_FLAGS_TX_UTIL; else 0
 */
struct hpcc_wire_hop {
	__be32 switch_id;
	__be32 port_id;
	__be64 rate;
	__be64 ts;
	__be64 tx_bytes;
	__be32 qlen;
	__u8 flags;
	__u8 reserved;
	__be16 tx_util;
};

/**
 * enum hpcc_wire_ext_kind - value of hpcc_wire_ext.kind
 * @HPCC_WIRE_EXT_N_FLOWS: @value is N, the receiver-reported number of
 *	concurrent flows on the path (draft-miao-ccwg-hpcc section 5, the rule
 *	of thumb W_ai = W_init * (1 - eta) / N): the most flows that the
 *	responding receiver answered probes for, within its counting window,
 *	that share one hop (switch_id, port_id) with this probe's records.
 *	1 to 65535; only in responses; the last one in a packet counts.
 * @HPCC_WIRE_EXT_FCR: in a probe: its flow's sender takes Fast Congestion
 *	Response messages (draft-even-tsvwg-datacenter-fast-congestion
 *	sections 6 and 7, "the data sender should mark support"); @value is
 *	a bit set, bit 0 (HPCC_WIRE_FCR_SUPPORT) set, the others 0 and
 *	ignored.  A hop learns the flow's support from it (hpcc_int), a
 *	receiver ignores it.
 * @HPCC_WIRE_EXT_CCM: in a probe: the coordination tag's CC indicator
 *	(draft-lyu-rtgwg-coordinated-congestion-management section 6.1,
 *	"this flow is incast: do congestion control, not adaptive
 *	routing"); @value is a bit set, bit 0 (HPCC_WIRE_CCM_CC) the CC
 *	indicator, set by the sender after a type 1 notification and
 *	cleared after a type 2 (section 6.4); the others 0 and ignored.
 *	Absent: the indicator is clear.  8 bytes.
 * @HPCC_WIRE_EXT_AR: in a probe: the coordination tag's AR indicator
 *	(section 6.1, "the nearest upstream point that can reroute the
 *	flow"), struct hpcc_wire_ext_ar, 24 bytes: @value is the AR point's
 *	switch_ID (0: the flow's sender, a host, which reroutes by a new
 *	flow hash), followed by its address, and a flag that a hop on the
 *	way chooses among paths by the flow label (HPCC_WIRE_AR_CHOICE,
 *	set in place by such a hop, section 6.3.5).  Its presence is the
 *	coordination tag: a hop sends notifications only to flows whose
 *	probes carry it.
 * @HPCC_WIRE_EXT_MODE: receiver-based HPCC (draft-pan-tsvwg-hpccplus-02
 *	section 6.2, Figure 8: NewINT) and the privacy mode (draft-miao-
 *	ccwg-hpcc section 9.1); @value is a bit set, 8 bytes.  In a probe:
 *	HPCC_WIRE_MODE_RX, the sender asks the receiver to run the algorithm
 *	for the flow.  In a response: HPCC_WIRE_MODE_RX, the receiver runs
 *	it (the response may carry HPCC_WIRE_EXT_W); HPCC_WIRE_MODE_REFUSED,
 *	it was asked and does not (the sender computes W from the records);
 *	HPCC_WIRE_MODE_PRIVATE, the receiver withholds the hop records from
 *	this sender (nhop 0); HPCC_WIRE_MODE_U, with it, for a flow that is
 *	not receiver-based: the receiver measures U on the records instead
 *	(MeasureInflight, Figure 4) and the response may carry
 *	HPCC_WIRE_EXT_U.  Unknown bits are 0 when sent and ignored.
 * @HPCC_WIRE_EXT_W: in a response with HPCC_WIRE_MODE_RX: @value is the
 *	receiver's W for the flow, bytes, 1 to 2^30, present only when its
 *	NewINT updated Wc (more than T after the last W it sent,
 *	lastUpdateTime); the sender sets its window to it and paces at W/T.
 *	8 bytes.
 * @HPCC_WIRE_EXT_U: in a response with HPCC_WIRE_MODE_U: @value is the
 *	receiver's U for the flow (MeasureInflight's EWMA over the hops it
 *	withheld, draft-miao-ccwg-hpcc section 9.1: the response "only
 *	carries U"), Q16 (65536 is 1.0), 0 to 2^32 - 1 (a larger U is sent
 *	as 2^32 - 1); present only when this probe's records updated U (not
 *	for the flow's first probe or a path change).  The sender runs
 *	ComputeWind with it.  8 bytes.
 * @HPCC_WIRE_EXT_PAD: in a probe: room, so that the response is no larger
 *	than the probe (a receiver answers no probe with a larger response
 *	unless its operator allows it: a spoofed probe must not draw more
 *	bytes than it cost); @value 0, the bytes after the header 0; len up
 *	to HPCC_WIRE_RESP_EXT_MAX.  Ignored by hops and receivers.
 * @HPCC_WIRE_EXT_MAC: in a response, the last extension: struct
 *	hpcc_wire_ext_mac, HPCC_WIRE_EXT_MAC_LEN bytes; @value is the key's
 *	id (1 to 2^32 - 1), the key shared by the receiver and the sender
 *	(section 9.1: "the notification feedback message is at least
 *	integrity checked").
 */
enum hpcc_wire_ext_kind {
	HPCC_WIRE_EXT_N_FLOWS = 1,
	HPCC_WIRE_EXT_FCR = 2,
	HPCC_WIRE_EXT_CCM = 3,
	HPCC_WIRE_EXT_AR = 4,
	HPCC_WIRE_EXT_MODE = 5,
	HPCC_WIRE_EXT_W = 6,
	HPCC_WIRE_EXT_MAC = 7,
	HPCC_WIRE_EXT_U = 8,
	HPCC_WIRE_EXT_PAD = 9,
};

#define HPCC_WIRE_MODE_RX	1	/* HPCC_WIRE_EXT_MODE: receiver-based */
#define HPCC_WIRE_MODE_REFUSED	2	/* response: receiver-based refused */
#define HPCC_WIRE_MODE_PRIVATE	4	/* response: the hop records withheld */
#define HPCC_WIRE_MODE_U	8	/* response: HPCC_WIRE_EXT_U instead */
#define HPCC_WIRE_U_SHIFT	16	/* HPCC_WIRE_EXT_U: Q16 */
#define HPCC_WIRE_W_MAX		(1U << 30)	/* HPCC_WIRE_EXT_W, bytes */

#define HPCC_WIRE_FCR_SUPPORT	1	/* HPCC_WIRE_EXT_FCR's value, bit 0 */
#define HPCC_WIRE_CCM_CC	1	/* HPCC_WIRE_EXT_CCM's value, bit 0 */

/**
 * struct hpcc_wire_ext - a response extension, after the hop_cap records
 * @kind: enum hpcc_wire_ext_kind; unknown kinds are skipped
 * @len: this extension's length in bytes, header included: a multiple of 4,
 *	at least 8, and within the packet (else the packet is malformed)
 * @reserved: 0 when sent, ignored when received
 * @value: the kind's value
 */
struct hpcc_wire_ext {
	__u8 kind;
	__u8 len;
	__be16 reserved;
	__be32 value;
};

/**
 * struct hpcc_wire_fcr - a Fast Congestion Response message
 *	(draft-even-tsvwg-datacenter-fast-congestion sections 3, 5 and 7)
 * @magic: HPCC_WIRE_MAGIC
 * @version: HPCC_WIRE_VERSION
 * @type: HPCC_WIRE_FCR
 * @family: 4 or 6: the family of the flow's packets (an IPv4 flow's
 *	addresses are in their IPv4-mapped form, ::ffff:a.b.c.d)
 * @flags: 0 when sent, ignored when received
 * @switch_id: switch_ID of the congested hop
 * @port_id: port_ID of its congested egress port
 * @rate: the rate the hop asks every sender of the port to send at, bits
 *	per second, 1 to 1.6e12; the same for all of them (section 5)
 * @ts: the hop's clock when it queued the message, ns (reaction-time
 *	measurement only: a sender does not trust it)
 * @seq: the TCP sequence number of a data segment of the flow the hop
 *	forwarded while congested: the nonce by which the sender knows the
 *	message comes from the flow's path (it must lie within the sender's
 *	window, as RFC 5961 section 5 has it for ICMP)
 * @round: the port's FCR round, one more at each new rate; a sender keeps
 *	the newest message of each (switch_id, port_id)
 * @interval: the hop's time between two rounds, us, 1 to 10^6: the
 *	sender holds the rate at most twice this long without a new message
 * @sport: the flow's source port (the sender's)
 * @dport: the flow's destination port
 * @saddr: the flow's source address, the sender's (IPv4-mapped for 4)
 * @daddr: the flow's destination address
 *
 * Carried as the payload of a UDP datagram from the hop's address to the
 * sender's address and the port its FCR configuration names (default
 * HPCC_WIRE_FCR_PORT), with the response DSCP.  The message is
 * HPCC_WIRE_FCR_LEN bytes; bytes after it are ignored.  All fields are
 * big-endian; the structure has no holes.
 */
struct hpcc_wire_fcr {
	__be32 magic;
	__u8 version;
	__u8 type;
	__u8 family;
	__u8 flags;
	__be32 switch_id;
	__be32 port_id;
	__be64 rate;
	__be64 ts;
	__be32 seq;
	__be32 round;
	__be16 sport;
	__be16 dport;
	__be32 interval;
	__u8 saddr[16];
	__u8 daddr[16];
};

#define HPCC_WIRE_FCR_LEN	80	/* sizeof(struct hpcc_wire_fcr) */
#define HPCC_WIRE_FCR_PORT	6862	/* default UDP port of FCR messages */

/**
 * struct hpcc_wire_nmac - the MAC trailer of an FCR message or a CCM
 *	notification (draft-miao-ccwg-hpcc section 9.1: "it is RECOMMENDED
 *	that the notification feedback message is at least integrity
 *	checked")
 * @kind: HPCC_WIRE_NMAC_KIND
 * @len: HPCC_WIRE_NMAC_LEN
 * @reserved: 0 when sent; covered by the tag, otherwise ignored
 * @key_id: the key's id, 1 to 2^32 - 1, as the two ends configured it
 *	(the sender's fcr-set key, the hop's config-set key)
 * @tag: SipHash-2-4 (Aumasson and Bernstein, 2012; the kernel's
 *	siphash(), libsodium's crypto_shorthash_siphash24()) under the
 *	HPCC_WIRE_NMAC_KEY_LEN-byte key of the message's bytes and the
 *	trailer's first 8, in the reference's byte order (the 64-bit result
 *	little-endian)
 *
 * Placed right after the message (HPCC_WIRE_FCR_LEN or HPCC_WIRE_CCM_LEN
 * bytes), where a receiver without keys ignores it.  The tag covers the
 * flow's addresses and ports and its sequence number, which are in the
 * message, not the datagram's IP addresses (the hop's source address is
 * the route's choice); a receiver picks the keys by the datagram's source
 * address (the hop's prefix).  A 64-bit tag: a forger's chance is 2^-64 a
 * try, each try also needs a sequence number within the flow's window.
 */
struct hpcc_wire_nmac {
	__u8 kind;
	__u8 len;
	__be16 reserved;
	__be32 key_id;
	__u8 tag[8];
};

#define HPCC_WIRE_NMAC_KIND	1
#define HPCC_WIRE_NMAC_LEN	16	/* sizeof(struct hpcc_wire_nmac) */
#define HPCC_WIRE_NMAC_KEY_LEN	16
#define HPCC_WIRE_NMAC_TAG_LEN	8

/**
 * enum hpcc_wire_ccm_type - value of hpcc_wire_ccm.ntype, the
 *	notification types of draft-lyu-rtgwg-coordinated-congestion-
 *	management section 6.2
 * @HPCC_CCM_CC_REQUIRED: type 1, congestion control required: the hop
 *	found the flow to be incast (its congested port is the last hop to
 *	the destination); the sender sets the flow's CC indicator
 * @HPCC_CCM_CC_RELEASED: type 2, congestion control released: the incast
 *	is over; the sender clears the CC indicator
 * @HPCC_CCM_AR_REQUIRED: type 3, upstream AR required: the hop is
 *	congested, the flow is not incast and the hop cannot reroute it; the
 *	AR point the flow's AR indicator names (here: its sender) moves it
 *	to another path
 */
enum hpcc_wire_ccm_type {
	HPCC_CCM_CC_REQUIRED = 1,
	HPCC_CCM_CC_RELEASED = 2,
	HPCC_CCM_AR_REQUIRED = 3,
};

/**
 * struct hpcc_wire_ccm - a Coordinated Congestion Management notification
 *	(draft-lyu-rtgwg-coordinated-congestion-management section 6.2:
 *	"source IP, destination IP, notification type and flow key")
 * @magic: HPCC_WIRE_MAGIC
 * @version: HPCC_WIRE_VERSION
 * @type: HPCC_WIRE_CCM
 * @family: 4 or 6: the family of the flow's packets (an IPv4 flow's
 *	addresses are in their IPv4-mapped form, ::ffff:a.b.c.d)
 * @ntype: the notification type, enum hpcc_wire_ccm_type, 1 to 3
 * @switch_id: switch_ID of the notifying hop
 * @port_id: port_ID of its congested egress port
 * @ts: the hop's clock when it queued the notification, ns (measurement
 *	only: a receiver does not trust it)
 * @seq: the TCP sequence number of a data segment of the flow the hop
 *	forwarded: the nonce by which the sender knows the notification
 *	comes from the flow's path (within the sender's window, RFC 5961
 *	section 5), as in struct hpcc_wire_fcr
 * @flowlabel: the IPv6 flow label of that segment, 0 to 0xfffff (0 for
 *	family 4): which of the flow's paths the hop saw, so that a type 3
 *	about a path the flow has already left moves it no further
 * @sport: the flow's source port (the sender's)
 * @dport: the flow's destination port
 * @proto: the flow's IP protocol, IPPROTO_TCP (6): with the addresses and
 *	ports, the section's 5-tuple flow key
 * @flags: 0 when sent, ignored when received
 * @reserved: 0 when sent, ignored when received
 * @saddr: the flow's source address, the sender's (IPv4-mapped for 4)
 * @daddr: the flow's destination address
 *
 * The notification's source and destination are its IP header's: the
 * hop's address, and the flow's sender (types 1 and 2) or the AR point
 * the flow's AR indicator names (type 3).  Carried as the payload of a
 * UDP datagram to the port of the receiver's FCR configuration (default
 * HPCC_WIRE_FCR_PORT; the type byte tells the two apart), with the
 * response DSCP.  HPCC_WIRE_CCM_LEN bytes; bytes after it are ignored.
 * All fields are big-endian; the structure has no holes.
 */
struct hpcc_wire_ccm {
	__be32 magic;
	__u8 version;
	__u8 type;
	__u8 family;
	__u8 ntype;
	__be32 switch_id;
	__be32 port_id;
	__be64 ts;
	__be32 seq;
	__be32 flowlabel;
	__be16 sport;
	__be16 dport;
	__u8 proto;
	__u8 flags;
	__be16 reserved;
	__u8 saddr[16];
	__u8 daddr[16];
};

#define HPCC_WIRE_CCM_LEN	72	/* sizeof(struct hpcc_wire_ccm) */

/**
 * struct hpcc_wire_ext_ar - the AR indicator extension of a probe
 *	(HPCC_WIRE_EXT_AR)
 * @ext: kind HPCC_WIRE_EXT_AR, len HPCC_WIRE_EXT_AR_LEN, value the AR
 *	point's switch_ID (0: the flow's sender); its reserved field holds
 *	flags here: HPCC_WIRE_AR_CHOICE, the others 0 when sent and ignored
 * @addr: the AR point's address, where a type 3 notification goes
 *	(IPv4-mapped for an IPv4 address)
 *
 * The sender writes itself (switch_ID 0, its address, no flag): a host
 * moves a flow by a new flow label, which moves it only where a hop
 * chooses among several next hops by the label.  Such a hop sets
 * HPCC_WIRE_AR_CHOICE in place (hpcc_int: the route has more than one
 * next hop and the multipath hash covers the flow label); a congested hop
 * that is not the flow's last sends a type 3 to @addr only when it is set
 * (hpcc_int: and only when @addr is the flow's source, since a sender
 * could name any address)
 * (draft-lyu-rtgwg-coordinated-congestion-management section 6.3.5: "if
 * AR indicator indicates upstream point can perform AR").  A switch that
 * moves flows itself would write its own switch_ID and address; a Linux
 * forwarder hashes every packet of a flow alike and does not.
 */
struct hpcc_wire_ext_ar {
	struct hpcc_wire_ext ext;
	__u8 addr[16];
};

#define HPCC_WIRE_EXT_AR_LEN	24	/* sizeof(struct hpcc_wire_ext_ar) */

/**
 * struct hpcc_wire_ext_mac - the MAC of a response (HPCC_WIRE_EXT_MAC)
 * @ext: kind HPCC_WIRE_EXT_MAC, len HPCC_WIRE_EXT_MAC_LEN, value the key id
 * @tag: keyed BLAKE2b (RFC 7693) with 16 bytes of output, key 32 bytes,
 *	over: the family (1 byte, 4 or 6); the response's source and
 *	destination addresses (16 bytes each, IPv4-mapped for 4); its
 *	source and destination ports (2 bytes each, as on the wire); then
 *	the TCP payload from the HPCC header to @ext included, big-endian as
 *	on the wire.  The IP and TCP headers but for those fields are not
 *	covered (hops may rewrite the DSCP, TTL and checksums).
 *
 * The last extension of the response; a response with anything after it
 * is malformed.  The tag covers the probe's id, which the sender checks
 * against its one outstanding probe of the flow, so a replayed response is
 * refused as unexpected.
 */
struct hpcc_wire_ext_mac {
	struct hpcc_wire_ext ext;
	__u8 tag[16];
};

#define HPCC_WIRE_EXT_MAC_LEN	24	/* sizeof(struct hpcc_wire_ext_mac) */
#define HPCC_WIRE_MAC_TAG_LEN	16
#define HPCC_WIRE_MAC_KEY_LEN	32
/* hpcc_wire_ext_ar.ext.reserved, bit 0: a hop chooses paths by the label */
#define HPCC_WIRE_AR_CHOICE	1

#define HPCC_WIRE_HDR_LEN	24	/* sizeof(struct hpcc_wire_hdr) */
#define HPCC_WIRE_HOP_LEN	40	/* sizeof(struct hpcc_wire_hop) */
#define HPCC_WIRE_EXT_LEN	8	/* sizeof(struct hpcc_wire_ext) */
/* Most extension bytes a response may carry. */
#define HPCC_WIRE_EXT_MAX	64
/*
 * Most extension bytes a receiver adds to a response: N, MODE, W or U (not
 * both), MAC.  A probe whose extensions take at least this many (padded
 * with HPCC_WIRE_EXT_PAD) and whose hop_cap is at least the records its
 * response can carry draws no response larger than itself.
 */
#define HPCC_WIRE_RESP_EXT_MAX	(3 * HPCC_WIRE_EXT_LEN + HPCC_WIRE_EXT_MAC_LEN)

/**
 * hpcc_wire_ifa_protocol_ok() - whether IFA probes may use an IP protocol
 * @p: the IP protocol number (IPv6: next header), params' and hpcc-int's
 *	ifa-protocol
 *
 * IFA (draft-kumar-ippm-ifa-08 section 4) puts its header right after the
 * IP header under a protocol number of the operator's choice.  Refused:
 * the numbers hosts and transit nodes handle themselves, which probes'
 * own headers and the hooks' walks depend on (1 ICMP, 6 TCP, 17 UDP, 58
 * ICMPv6, 59 No Next Header) and the IPv6 extension headers (0, 43, 44,
 * 50, 51, 60, 135, 139, 140, RFC 7045 and IANA's "IPv6 Extension Header
 * Types"), which a walk to the upper-layer header skips.
 *
 * Return: 1 when @p is within HPCC_IFA_PROTOCOL_MIN..HPCC_IFA_PROTOCOL_MAX
 * and none of those, else 0.
 */
static inline int hpcc_wire_ifa_protocol_ok(__u32 p)
{
	switch (p) {
	case 0: case 1: case 6: case 17: case 43: case 44: case 50: case 51:
	case 58: case 59: case 60: case 135: case 139: case 140:
		return 0;
	}
	return p >= HPCC_IFA_PROTOCOL_MIN && p <= HPCC_IFA_PROTOCOL_MAX;
}

#endif /* _UAPI_LINUX_HPCC_WIRE_H */
