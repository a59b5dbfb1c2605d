/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/hpcc.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_HPCC_H
#define _UAPI_LINUX_HPCC_H

#define HPCC_FAMILY_NAME	"hpcc"
#define HPCC_FAMILY_VERSION	1

#define HPCC_MAX_HOPS		8
#define HPCC_PUSH_REPLY_EVERY	16
#define HPCC_RATE_MAX		1600000000000
#define HPCC_LINE_RATE_MAX	1600000
#define HPCC_W_MAX		1073741824
#define HPCC_N_FLOWS_MAX	65535
#define HPCC_TX_UTIL_MAX	131072
#define HPCC_T_MAX		100000
#define HPCC_ETA_MIN_PERMILLE	500
#define HPCC_ETA_MAX_PERMILLE	1000
#define HPCC_MAX_STAGE_MAX	64
#define HPCC_W_MIN_MIN		128
#define HPCC_STALE_RTTS_MAX	1000
#define HPCC_DSCP_MAX		63
#define HPCC_MAX_FLOWS_MAX	1048576
#define HPCC_PACING_GAIN_MIN	100
#define HPCC_PACING_GAIN_MAX	400
#define HPCC_EWMA_PERIOD_MIN	100
#define HPCC_EWMA_PERIOD_MAX	800
#define HPCC_IFA_PROTOCOL_MIN	1
#define HPCC_IFA_PROTOCOL_MAX	254
#define HPCC_CCM_PAUSE_MAX	3600
#define HPCC_CCM_SHARE_MAX	100

/**
 * enum hpcc_hop_flags - What a hop record lacks (Documentation/algorithm.rst,
 *   "Partial telemetry"); none set: a full record.
 * @HPCC_HOP_FLAGS_NO_TX_BYTES: The hop reported no txBytes (INT-MD, IFA and
 *   IOAM have none): txRate / B comes from tx-util when set, else from the
 *   queue alone; tx-bytes is ignored.
 * @HPCC_HOP_FLAGS_TX_UTIL: tx-util holds the hop's Tx utilization (with
 *   no-tx-bytes).
 */
enum hpcc_hop_flags {
	HPCC_HOP_FLAGS_NO_TX_BYTES = 1,
	HPCC_HOP_FLAGS_TX_UTIL = 2,
};

/**
 * enum hpcc_mode - Which window law a flow runs.
 * @HPCC_MODE_HPCC: HPCC++ from fresh telemetry (NewAck, draft section 4.2).
 * @HPCC_MODE_FALLBACK: The conventional law (Reno with PRR): no telemetry for
 *   stale-rtts RTTs with data in flight, the connection is recovering from
 *   loss, or (start slow-start) no sample has yet measured U.
 */
enum hpcc_mode {
	HPCC_MODE_HPCC = 1,
	HPCC_MODE_FALLBACK,
};

/**
 * enum hpcc_step - What the last telemetry sample did in the algorithm core.
 * @HPCC_STEP_BAD: Rejected by the core (hop count out of range); nothing
 *   changed.
 * @HPCC_STEP_FIRST: First sample of the flow; L stored.
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

/**
 * enum hpcc_n_source - Where the N of a flow's W_ai = W_init * (1 - eta) / N
 *   comes from (draft section 5: "the expected or receiver reported maximum
 *   number of concurrent flows on a link").
 * @HPCC_N_SOURCE_CONFIGURED: The namespace's w-ai, or the rule of thumb with
 *   n-flows when w-ai is 0, for every flow; a reported N is ignored.
 * @HPCC_N_SOURCE_REPORTED: The N the flow's receiver reported with its newest
 *   sample (telemetry -set's n-flows), while it reports one; else as
 *   configured.
 * @HPCC_N_SOURCE_MAX: The larger of the reported N and n-flows, while the
 *   receiver reports one; else as configured. n-flows is then a floor that
 *   bounds W_ai when a receiver cannot see all flows on a shared link.
 */
enum hpcc_n_source {
	HPCC_N_SOURCE_CONFIGURED,
	HPCC_N_SOURCE_REPORTED,
	HPCC_N_SOURCE_MAX,
};

/**
 * enum hpcc_start - How a flow's window starts, before telemetry has measured
 *   U.
 * @HPCC_START_LINE_RATE: The draft's start (section 4.2): W = Wc = W_init =
 *   line-rate * T from the first packet, paced at W / T.
 * @HPCC_START_SLOW_START: The fallback law's start: TCP's initial window and
 *   slow start, until the first sample on the path after the one that records
 *   the path's first hop records (the first that measures U); then HPCC++
 *   takes the flow from its current window (Wc = W = cwnd * mss, within W_min
 *   and W_init) and applies that sample. No data is sent at W_init before a
 *   hop has reported its queue.
 */
enum hpcc_start {
	HPCC_START_LINE_RATE,
	HPCC_START_SLOW_START,
};

enum {
	HPCC_A_HOP_SWITCH_ID = 1,
	HPCC_A_HOP_PORT_ID,
	HPCC_A_HOP_RATE,
	HPCC_A_HOP_TS,
	HPCC_A_HOP_TX_BYTES,
	HPCC_A_HOP_QLEN,
	HPCC_A_HOP_PAD,
	HPCC_A_HOP_FLAGS,
	HPCC_A_HOP_TX_UTIL,

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
	HPCC_A_FLOW_N_FLOWS,
	HPCC_A_FLOW_W_AI,
	HPCC_A_FLOW_FLOWLABEL,
	HPCC_A_FLOW_FCR_RATE,
	HPCC_A_FLOW_FCR_IN,
	HPCC_A_FLOW_FCR_DELAY,
	HPCC_A_FLOW_CCM_CHANGES,
	HPCC_A_FLOW_CCM_CC,
	HPCC_A_FLOW_RX_BASED,
	HPCC_A_FLOW_RX_W,
	HPCC_A_FLOW_RX_U,

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
	HPCC_A_PARAMS_N_FLOWS,
	HPCC_A_PARAMS_N_FLOWS_SOURCE,
	HPCC_A_PARAMS_START,
	HPCC_A_PARAMS_EWMA_PERIOD,
	HPCC_A_PARAMS_IFA_PROTOCOL,
	HPCC_A_PARAMS_CCM_TRIES,
	HPCC_A_PARAMS_CCM_SAMPLES,
	HPCC_A_PARAMS_CCM_GAP_RTTS,
	HPCC_A_PARAMS_CCM_PAUSE,
	HPCC_A_PARAMS_CCM_SHARE,
	HPCC_A_PARAMS_INT_DSCP,

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
	HPCC_A_STATS_NO_STATE_FAMILY,
	HPCC_A_STATS_EXTHDR_REFUSED,
	HPCC_A_STATS_FLOWS_REHASHED,
	HPCC_A_STATS_FCR_ACCEPTED,
	HPCC_A_STATS_FCR_MALFORMED,
	HPCC_A_STATS_FCR_OUT_OF_DOMAIN,
	HPCC_A_STATS_FCR_OUT_OF_RANGE,
	HPCC_A_STATS_FCR_NO_FLOW,
	HPCC_A_STATS_FCR_BAD_SEQ,
	HPCC_A_STATS_FCR_IGNORED,
	HPCC_A_STATS_CCM_REROUTES,
	HPCC_A_STATS_CCM_WAITS,
	HPCC_A_STATS_CCM_NOTES,
	HPCC_A_STATS_CCM_MALFORMED,
	HPCC_A_STATS_CCM_NO_FLOW,
	HPCC_A_STATS_CCM_BAD_SEQ,
	HPCC_A_STATS_CCM_CC_SET,
	HPCC_A_STATS_CCM_CC_CLEARED,
	HPCC_A_STATS_CCM_AR_REROUTES,
	HPCC_A_STATS_CCM_IGNORED,
	HPCC_A_STATS_RX_W_APPLIED,
	HPCC_A_STATS_RX_KEPT,
	HPCC_A_STATS_NOTIFY_AUTH_OK,
	HPCC_A_STATS_NOTIFY_AUTH_RETIRED,
	HPCC_A_STATS_NOTIFY_AUTH_MISSING,
	HPCC_A_STATS_NOTIFY_AUTH_UNKNOWN_KEY,
	HPCC_A_STATS_NOTIFY_AUTH_BAD,
	HPCC_A_STATS_RX_U_APPLIED,
	HPCC_A_STATS_TELEMETRY_QUIET,

	__HPCC_A_STATS_MAX,
	HPCC_A_STATS_MAX = (__HPCC_A_STATS_MAX - 1)
};

enum {
	HPCC_A_FCR_PREFIX_ADDR4 = 1,
	HPCC_A_FCR_PREFIX_ADDR6,
	HPCC_A_FCR_PREFIX_PLEN,

	__HPCC_A_FCR_PREFIX_MAX,
	HPCC_A_FCR_PREFIX_MAX = (__HPCC_A_FCR_PREFIX_MAX - 1)
};

enum {
	HPCC_A_FCR_KEY_ID = 1,
	HPCC_A_FCR_KEY_KEY,
	HPCC_A_FCR_KEY_ADDR4,
	HPCC_A_FCR_KEY_ADDR6,
	HPCC_A_FCR_KEY_PLEN,
	HPCC_A_FCR_KEY_ACCEPT,
	HPCC_A_FCR_KEY_RETIRED,

	__HPCC_A_FCR_KEY_MAX,
	HPCC_A_FCR_KEY_MAX = (__HPCC_A_FCR_KEY_MAX - 1)
};

enum {
	HPCC_A_FCR_PORT = 1,
	HPCC_A_FCR_HOLD_MAX,
	HPCC_A_FCR_RATE_MIN,
	HPCC_A_FCR_PREFIX,
	HPCC_A_FCR_PREFIXES_FLUSH,
	HPCC_A_FCR_KEY,
	HPCC_A_FCR_KEYS_FLUSH,
	HPCC_A_FCR_KEY_OVERLAP,
	HPCC_A_FCR_PAD,

	__HPCC_A_FCR_MAX,
	HPCC_A_FCR_MAX = (__HPCC_A_FCR_MAX - 1)
};

enum {
	HPCC_CMD_TELEMETRY_SET = 1,
	HPCC_CMD_FLOW_GET,
	HPCC_CMD_PARAMS_GET,
	HPCC_CMD_PARAMS_SET,
	HPCC_CMD_STATS_GET,
	HPCC_CMD_FCR_GET,
	HPCC_CMD_FCR_SET,
	HPCC_CMD_FLOW_NEW,
	HPCC_CMD_FLOW_DEL,
	HPCC_CMD_FLOW_ACTIVE,
	HPCC_CMD_TELEMETRY_PUSH,

	__HPCC_CMD_MAX,
	HPCC_CMD_MAX = (__HPCC_CMD_MAX - 1)
};

#define HPCC_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_HPCC_H */
