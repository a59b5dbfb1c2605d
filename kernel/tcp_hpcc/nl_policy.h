/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit: tools/ynl-policy's cut of what ynl-gen-c generates from */
/*	Documentation/netlink/specs/hpcc.yaml */

#ifndef _HPCC_NL_POLICY_H
#define _HPCC_NL_POLICY_H

#include "common/hpcc_compat.h"	/* HPCC_NLA_RANGE_CONST */
#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/hpcc.h>

/* Integer value ranges */
static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_hop_rate_range = {
	.min	= 1ULL,
	.max	= HPCC_RATE_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_hop_tx_util_range = {
	.max	= HPCC_TX_UTIL_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_flow_n_flows_range = {
	.min	= 1ULL,
	.max	= HPCC_N_FLOWS_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_flow_rx_w_range = {
	.min	= 1ULL,
	.max	= HPCC_W_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_params_t_range = {
	.min	= 1ULL,
	.max	= HPCC_T_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_params_w_ai_range = {
	.max	= HPCC_W_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_params_line_rate_range = {
	.min	= 1ULL,
	.max	= HPCC_LINE_RATE_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_params_w_min_range = {
	.min	= HPCC_W_MIN_MIN,
	.max	= HPCC_W_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_params_max_flows_range = {
	.min	= 1ULL,
	.max	= HPCC_MAX_FLOWS_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_params_n_flows_range = {
	.min	= 1ULL,
	.max	= HPCC_N_FLOWS_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_fcr_hold_max_range = {
	.min	= 1ULL,
	.max	= 1000000ULL,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_a_fcr_rate_min_range = {
	.min	= 1ULL,
	.max	= HPCC_RATE_MAX,
};

/* Common nested types */
static const struct nla_policy hpcc_fcr_key_nl_policy[HPCC_A_FCR_KEY_RETIRED + 1] = {
	[HPCC_A_FCR_KEY_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[HPCC_A_FCR_KEY_KEY] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FCR_KEY_ADDR4] = { .type = NLA_U32, },
	[HPCC_A_FCR_KEY_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FCR_KEY_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[HPCC_A_FCR_KEY_ACCEPT] = { .type = NLA_FLAG, },
	[HPCC_A_FCR_KEY_RETIRED] = { .type = NLA_FLAG, },
};

static const struct nla_policy hpcc_fcr_prefix_nl_policy[HPCC_A_FCR_PREFIX_PLEN + 1] = {
	[HPCC_A_FCR_PREFIX_ADDR4] = { .type = NLA_U32, },
	[HPCC_A_FCR_PREFIX_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FCR_PREFIX_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

static const struct nla_policy hpcc_hop_nl_policy[HPCC_A_HOP_TX_UTIL + 1] = {
	[HPCC_A_HOP_SWITCH_ID] = { .type = NLA_U32, },
	[HPCC_A_HOP_PORT_ID] = { .type = NLA_U32, },
	[HPCC_A_HOP_RATE] = NLA_POLICY_FULL_RANGE(NLA_U64, &hpcc_a_hop_rate_range),
	[HPCC_A_HOP_TS] = { .type = NLA_U64, },
	[HPCC_A_HOP_TX_BYTES] = { .type = NLA_U64, },
	[HPCC_A_HOP_QLEN] = { .type = NLA_U64, },
	[HPCC_A_HOP_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x3),
	[HPCC_A_HOP_TX_UTIL] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_hop_tx_util_range),
};

/* HPCC_CMD_TELEMETRY_SET - do */
static const struct nla_policy hpcc_telemetry_set_nl_policy[HPCC_A_FLOW_RX_U + 1] = {
	[HPCC_A_FLOW_FAMILY] = { .type = NLA_U16, },
	[HPCC_A_FLOW_SADDR4] = { .type = NLA_U32, },
	[HPCC_A_FLOW_DADDR4] = { .type = NLA_U32, },
	[HPCC_A_FLOW_SADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FLOW_DADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FLOW_SPORT] = { .type = NLA_U16, },
	[HPCC_A_FLOW_DPORT] = { .type = NLA_U16, },
	[HPCC_A_FLOW_HOP] = NLA_POLICY_NESTED(hpcc_hop_nl_policy),
	[HPCC_A_FLOW_N_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_flow_n_flows_range),
	[HPCC_A_FLOW_RX_BASED] = { .type = NLA_FLAG, },
	[HPCC_A_FLOW_RX_W] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_flow_rx_w_range),
	[HPCC_A_FLOW_RX_U] = { .type = NLA_U32, },
};

/* HPCC_CMD_FLOW_GET - do */
static const struct nla_policy hpcc_flow_get_nl_policy[HPCC_A_FLOW_DPORT + 1] = {
	[HPCC_A_FLOW_FAMILY] = { .type = NLA_U16, },
	[HPCC_A_FLOW_SADDR4] = { .type = NLA_U32, },
	[HPCC_A_FLOW_DADDR4] = { .type = NLA_U32, },
	[HPCC_A_FLOW_SADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FLOW_DADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FLOW_SPORT] = { .type = NLA_U16, },
	[HPCC_A_FLOW_DPORT] = { .type = NLA_U16, },
};

/* HPCC_CMD_PARAMS_SET - do */
static const struct nla_policy hpcc_params_set_nl_policy[HPCC_A_PARAMS_INT_DSCP + 1] = {
	[HPCC_A_PARAMS_T] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_params_t_range),
	[HPCC_A_PARAMS_ETA] =
		NLA_POLICY_RANGE(NLA_U32, HPCC_ETA_MIN_PERMILLE, HPCC_ETA_MAX_PERMILLE),
	[HPCC_A_PARAMS_MAX_STAGE] = NLA_POLICY_MAX(NLA_U32, HPCC_MAX_STAGE_MAX),
	[HPCC_A_PARAMS_W_AI] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_params_w_ai_range),
	[HPCC_A_PARAMS_LINE_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_params_line_rate_range),
	[HPCC_A_PARAMS_W_MIN] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_params_w_min_range),
	[HPCC_A_PARAMS_STALE_RTTS] = NLA_POLICY_RANGE(NLA_U32, 1, HPCC_STALE_RTTS_MAX),
	[HPCC_A_PARAMS_PROBE_DSCP] = NLA_POLICY_RANGE(NLA_U8, 1, HPCC_DSCP_MAX),
	[HPCC_A_PARAMS_RESPONSE_DSCP] = NLA_POLICY_RANGE(NLA_U8, 1, HPCC_DSCP_MAX),
	[HPCC_A_PARAMS_MAX_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_params_max_flows_range),
	[HPCC_A_PARAMS_PACING_GAIN] =
		NLA_POLICY_RANGE(NLA_U32, HPCC_PACING_GAIN_MIN, HPCC_PACING_GAIN_MAX),
	[HPCC_A_PARAMS_N_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_params_n_flows_range),
	[HPCC_A_PARAMS_N_FLOWS_SOURCE] = NLA_POLICY_MAX(NLA_U8, 2),
	[HPCC_A_PARAMS_START] = NLA_POLICY_MAX(NLA_U8, 1),
	[HPCC_A_PARAMS_EWMA_PERIOD] =
		NLA_POLICY_RANGE(NLA_U32, HPCC_EWMA_PERIOD_MIN, HPCC_EWMA_PERIOD_MAX),
	[HPCC_A_PARAMS_IFA_PROTOCOL] =
		NLA_POLICY_RANGE(NLA_U8, HPCC_IFA_PROTOCOL_MIN, HPCC_IFA_PROTOCOL_MAX),
	[HPCC_A_PARAMS_CCM_TRIES] = { .type = NLA_U8, },
	[HPCC_A_PARAMS_CCM_SAMPLES] = NLA_POLICY_MIN(NLA_U8, 1),
	[HPCC_A_PARAMS_CCM_GAP_RTTS] = NLA_POLICY_MIN(NLA_U8, 1),
	[HPCC_A_PARAMS_CCM_PAUSE] = NLA_POLICY_MAX(NLA_U32, HPCC_CCM_PAUSE_MAX),
	[HPCC_A_PARAMS_CCM_SHARE] = NLA_POLICY_MAX(NLA_U8, HPCC_CCM_SHARE_MAX),
	[HPCC_A_PARAMS_INT_DSCP] = NLA_POLICY_RANGE(NLA_U8, 1, HPCC_DSCP_MAX),
};

/* HPCC_CMD_FCR_SET - do */
static const struct nla_policy hpcc_fcr_set_nl_policy[HPCC_A_FCR_KEY_OVERLAP + 1] = {
	[HPCC_A_FCR_PORT] = { .type = NLA_U16, },
	[HPCC_A_FCR_HOLD_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_fcr_hold_max_range),
	[HPCC_A_FCR_RATE_MIN] = NLA_POLICY_FULL_RANGE(NLA_U64, &hpcc_a_fcr_rate_min_range),
	[HPCC_A_FCR_PREFIX] = NLA_POLICY_NESTED(hpcc_fcr_prefix_nl_policy),
	[HPCC_A_FCR_PREFIXES_FLUSH] = { .type = NLA_FLAG, },
	[HPCC_A_FCR_KEY] = NLA_POLICY_NESTED(hpcc_fcr_key_nl_policy),
	[HPCC_A_FCR_KEYS_FLUSH] = { .type = NLA_FLAG, },
	[HPCC_A_FCR_KEY_OVERLAP] = NLA_POLICY_MAX(NLA_U32, 3600),
};

/* HPCC_CMD_TELEMETRY_PUSH - do */
static const struct nla_policy hpcc_telemetry_push_nl_policy[HPCC_A_FLOW_RX_U + 1] = {
	[HPCC_A_FLOW_FAMILY] = { .type = NLA_U16, },
	[HPCC_A_FLOW_SADDR4] = { .type = NLA_U32, },
	[HPCC_A_FLOW_DADDR4] = { .type = NLA_U32, },
	[HPCC_A_FLOW_SADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FLOW_DADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_A_FLOW_SPORT] = { .type = NLA_U16, },
	[HPCC_A_FLOW_DPORT] = { .type = NLA_U16, },
	[HPCC_A_FLOW_HOP] = NLA_POLICY_NESTED(hpcc_hop_nl_policy),
	[HPCC_A_FLOW_N_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_flow_n_flows_range),
	[HPCC_A_FLOW_RX_BASED] = { .type = NLA_FLAG, },
	[HPCC_A_FLOW_RX_W] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_a_flow_rx_w_range),
	[HPCC_A_FLOW_RX_U] = { .type = NLA_U32, },
};

#endif /* _HPCC_NL_POLICY_H */
