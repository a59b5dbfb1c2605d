/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/hpcc.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_HPCC_H
#define _UAPI_LINUX_HPCC_H

#define HPCC_FAMILY_NAME	"hpcc"
#define HPCC_FAMILY_VERSION	1

#define HPCC_MAX_HOPS	8

/**
 * enum hpcc_mode - Which window law a flow runs.
 * @HPCC_MODE_HPCC: HPCC++ from fresh telemetry (NewAck, draft section 4.2).
 * @HPCC_MODE_FALLBACK: The conventional law (Reno with PRR): no telemetry for
 *   stale-rtts RTTs, or the connection is recovering from loss.
 */
enum hpcc_mode {
	HPCC_MODE_HPCC = 1,
	HPCC_MODE_FALLBACK,
};

/**
 * enum hpcc_step - What the last telemetry sample did in the algorithm core.
 * @HPCC_STEP_BAD: Rejected by the core (hop count out of range); nothing
 *   changed.
 * @HPCC_STEP_FIRST: First sample of the flow, or the first after a fallback; L
 *   stored.
 * @HPCC_STEP_PATH_CHANGE: Hop count or a (switch-id, port-id) differs from L;
 *   L stored.
 * @HPCC_STEP_SKIPPED: Every hop was skipped (B is 0, ts did not advance or
 *   txBytes went back).
 * @HPCC_STEP_W: W updated from U; Wc unchanged.
 * @HPCC_STEP_WC: W and Wc updated (the ACK passed lastUpdateSeq).
 */
enum hpcc_step {
	HPCC_STEP_BAD,
	HPCC_STEP_FIRST,
	HPCC_STEP_PATH_CHANGE,
	HPCC_STEP_SKIPPED,
	HPCC_STEP_W,
	HPCC_STEP_WC,
};

enum {
	HPCC_A_HOP_SWITCH_ID = 1,
	HPCC_A_HOP_PORT_ID,
	HPCC_A_HOP_RATE,
	HPCC_A_HOP_TS,
	HPCC_A_HOP_TX_BYTES,
	HPCC_A_HOP_QLEN,
	HPCC_A_HOP_PAD,

	__HPCC_A_HOP_MAX,
	HPCC_A_HOP_MAX = (__HPCC_A_HOP_MAX - 1)
};

enum {
	HPCC_A_FLOW_FAMILY = 1,
	HPCC_A_FLOW_SADDR4,
	HPCC_A_FLOW_DADDR4,
	HPCC_A_FLOW_SADDR6,
	HPCC_A_FLOW_DADDR6,
	HPCC_A_FLOW_SPORT,
	HPCC_A_FLOW_DPORT,
	HPCC_A_FLOW_HOP,
	HPCC_A_FLOW_IN_FLIGHT,
	HPCC_A_FLOW_SRTT,
	HPCC_A_FLOW_MSS,
	HPCC_A_FLOW_CWND,
	HPCC_A_FLOW_PACING_RATE,
	HPCC_A_FLOW_W,
	HPCC_A_FLOW_WC,
	HPCC_A_FLOW_U,
	HPCC_A_FLOW_INC_STAGE,
	HPCC_A_FLOW_MODE,
	HPCC_A_FLOW_TELEMETRY_AGE,
	HPCC_A_FLOW_TELEMETRY_IN,
	HPCC_A_FLOW_SAMPLES,
	HPCC_A_FLOW_FALLBACKS,
	HPCC_A_FLOW_LAST_STEP,
	HPCC_A_FLOW_LAST_ACK_SEQ,
	HPCC_A_FLOW_LAST_SND_NXT,
	HPCC_A_FLOW_PAD,
	HPCC_A_FLOW_REDUCTIONS,

	__HPCC_A_FLOW_MAX,
	HPCC_A_FLOW_MAX = (__HPCC_A_FLOW_MAX - 1)
};

enum {
	HPCC_A_PARAMS_T = 1,
	HPCC_A_PARAMS_ETA,
	HPCC_A_PARAMS_MAX_STAGE,
	HPCC_A_PARAMS_W_AI,
	HPCC_A_PARAMS_LINE_RATE,
	HPCC_A_PARAMS_W_MIN,
	HPCC_A_PARAMS_STALE_RTTS,
	HPCC_A_PARAMS_PROBE_DSCP,
	HPCC_A_PARAMS_RESPONSE_DSCP,
	HPCC_A_PARAMS_MAX_FLOWS,
	HPCC_A_PARAMS_W_INIT,
	HPCC_A_PARAMS_W_AI_EFF,
	HPCC_A_PARAMS_PAD,
	HPCC_A_PARAMS_PACING_GAIN,

	__HPCC_A_PARAMS_MAX,
	HPCC_A_PARAMS_MAX = (__HPCC_A_PARAMS_MAX - 1)
};

enum {
	HPCC_A_STATS_TELEMETRY_ACCEPTED = 1,
	HPCC_A_STATS_TELEMETRY_SUPERSEDED,
	HPCC_A_STATS_REJECTED_INVALID,
	HPCC_A_STATS_REJECTED_HOPS,
	HPCC_A_STATS_REJECTED_NO_FLOW,
	HPCC_A_STATS_SAMPLES,
	HPCC_A_STATS_FALLBACKS,
	HPCC_A_STATS_RESUMES,
	HPCC_A_STATS_FLOWS,
	HPCC_A_STATS_FLOWS_CREATED,
	HPCC_A_STATS_TABLE_FULL,
	HPCC_A_STATS_ALLOC_FAILED,
	HPCC_A_STATS_PROBES_CONSUMED,
	HPCC_A_STATS_RESPONSES_CONSUMED,
	HPCC_A_STATS_DSCP_NOT_HPCC,
	HPCC_A_STATS_PARAMS_REJECTED,
	HPCC_A_STATS_PAD,
	HPCC_A_STATS_KEY_COLLISIONS,

	__HPCC_A_STATS_MAX,
	HPCC_A_STATS_MAX = (__HPCC_A_STATS_MAX - 1)
};

enum {
	HPCC_CMD_TELEMETRY_SET = 1,
	HPCC_CMD_FLOW_GET,
	HPCC_CMD_PARAMS_GET,
	HPCC_CMD_PARAMS_SET,
	HPCC_CMD_STATS_GET,
	HPCC_CMD_FLOW_NEW,
	HPCC_CMD_FLOW_DEL,
	HPCC_CMD_FLOW_ACTIVE,

	__HPCC_CMD_MAX,
	HPCC_CMD_MAX = (__HPCC_CMD_MAX - 1)
};

#define HPCC_MCGRP_EVENTS	"events"

/*
 * Probe and response wire format (hand-written; everything above this
 * comment is generated from the YNL spec by `make uapi`).
 *
 * A probe is an IPv4 packet with the flow's 5-tuple, DSCP probe-dscp
 * (default 60), and a TCP header whose seq, ack, flags (reserved bits
 * included), window and urgent pointer are 0 (options are allowed; TCP
 * discards such a segment if one reaches it, and a receiver consumes
 * nothing else as a probe or response), followed by a
 * struct hpcc_wire_hdr and hop_cap struct hpcc_wire_hop records as TCP
 * payload.  INT hops fill the records in order (nhop counts the filled
 * ones) and never grow the packet.  A response reverses the 5-tuple, uses
 * response-dscp (default 61), and carries the probe's id, sender timestamp
 * and records.  All fields are big-endian; the structures have no holes.
 * Receivers read them with unaligned accesses: the payload follows a TCP
 * header of any length.  Documentation/design.rst has the details.
 */
#include <linux/types.h>

#define HPCC_WIRE_MAGIC		0x48504343	/* "HPCC" */
#define HPCC_WIRE_VERSION	1

/**
 * enum hpcc_wire_type - value of hpcc_wire_hdr.type
 * @HPCC_WIRE_PROBE: sender to receiver; INT hops stamp it
 * @HPCC_WIRE_RESPONSE: receiver to sender; hops leave it alone
 */
enum hpcc_wire_type {
	HPCC_WIRE_PROBE = 1,
	HPCC_WIRE_RESPONSE = 2,
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
 * @reserved: 0 when sent, ignored when received
 */
struct hpcc_wire_hop {
	__be32 switch_id;
	__be32 port_id;
	__be64 rate;
	__be64 ts;
	__be64 tx_bytes;
	__be32 qlen;
	__be32 reserved;
};

#define HPCC_WIRE_HDR_LEN	24	/* sizeof(struct hpcc_wire_hdr) */
#define HPCC_WIRE_HOP_LEN	40	/* sizeof(struct hpcc_wire_hop) */

#endif /* _UAPI_LINUX_HPCC_H */
