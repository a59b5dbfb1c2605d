/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit: tools/ynl-policy's cut of what ynl-gen-c generates from */
/*	Documentation/netlink/specs/hpcc-int.yaml */

#ifndef _HPCC_INT_NL_POLICY_H
#define _HPCC_INT_NL_POLICY_H

#include "common/hpcc_compat.h"	/* HPCC_NLA_RANGE_CONST */
#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/hpcc_int.h>
#include <linux/hpcc.h>

/* Integer value ranges */
static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_int_a_dev_ifindex_range = {
	.min	= 1ULL,
	.max	= S32_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_int_a_dev_rate_range = {
	.min	= 1ULL,
	.max	= HPCC_RATE_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_int_a_config_fcr_msg_rate_range = {
	.min	= 1ULL,
	.max	= HPCC_INT_MSG_RATE_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation
hpcc_int_a_config_fcr_msg_burst_range = {
	.min	= 1ULL,
	.max	= HPCC_INT_MSG_BURST_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation hpcc_int_a_config_fcr_dst_rate_range = {
	.min	= 1ULL,
	.max	= HPCC_INT_MSG_RATE_MAX,
};

static HPCC_NLA_RANGE_CONST struct netlink_range_validation
hpcc_int_a_config_fcr_dst_burst_range = {
	.min	= 1ULL,
	.max	= HPCC_INT_MSG_BURST_MAX,
};

/* Common nested types */
static const struct nla_policy hpcc_int_dst_prefix_nl_policy[HPCC_INT_A_DST_PREFIX_PLEN + 1] = {
	[HPCC_INT_A_DST_PREFIX_ADDR4] = { .type = NLA_U32, },
	[HPCC_INT_A_DST_PREFIX_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_INT_A_DST_PREFIX_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

static const struct nla_policy hpcc_int_sign_key_nl_policy[HPCC_INT_A_SIGN_KEY_PLEN + 1] = {
	[HPCC_INT_A_SIGN_KEY_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[HPCC_INT_A_SIGN_KEY_KEY] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_INT_A_SIGN_KEY_ADDR4] = { .type = NLA_U32, },
	[HPCC_INT_A_SIGN_KEY_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[HPCC_INT_A_SIGN_KEY_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

/* HPCC_INT_CMD_DEV_ADD - do */
static const struct nla_policy hpcc_int_dev_add_nl_policy[HPCC_INT_A_DEV_CCM_AR_GAP + 1] = {
	[HPCC_INT_A_DEV_IFINDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_dev_ifindex_range),
	[HPCC_INT_A_DEV_RATE] = NLA_POLICY_FULL_RANGE(NLA_U64, &hpcc_int_a_dev_rate_range),
	[HPCC_INT_A_DEV_ENCODING] = NLA_POLICY_MAX(NLA_U8, 2),
	[HPCC_INT_A_DEV_TX_MODEL] = NLA_POLICY_MAX(NLA_U8, 1),
	[HPCC_INT_A_DEV_FCR_QLEN_HIGH] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_FCR_QLEN_LOW] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_FCR_INTERVAL] = NLA_POLICY_RANGE(NLA_U32, 1, HPCC_INT_INTERVAL_MAX),
	[HPCC_INT_A_DEV_FCR_ETA] = NLA_POLICY_RANGE(NLA_U32, 100, 1000),
	[HPCC_INT_A_DEV_FCR_SENDER_MAX] = NLA_POLICY_RANGE(NLA_U32, 1, 1024),
	[HPCC_INT_A_DEV_FCR_DRAIN] = NLA_POLICY_MAX(NLA_U32, HPCC_INT_INTERVAL_MAX),
	[HPCC_INT_A_DEV_CCM_QLEN_HIGH] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_CCM_QLEN_LOW] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_CCM_INTERVAL] = NLA_POLICY_RANGE(NLA_U32, 100, HPCC_INT_INTERVAL_MAX),
	[HPCC_INT_A_DEV_CCM_AR_GAP] = NLA_POLICY_MAX(NLA_U32, HPCC_INT_INTERVAL_MAX),
};

/* HPCC_INT_CMD_DEV_DEL - do */
static const struct nla_policy hpcc_int_dev_del_nl_policy[HPCC_INT_A_DEV_IFINDEX + 1] = {
	[HPCC_INT_A_DEV_IFINDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_dev_ifindex_range),
};

/* HPCC_INT_CMD_DEV_GET - do */
static const struct nla_policy hpcc_int_dev_get_nl_policy[HPCC_INT_A_DEV_IFINDEX + 1] = {
	[HPCC_INT_A_DEV_IFINDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_dev_ifindex_range),
};

/* HPCC_INT_CMD_CONFIG_SET - do */
static const struct nla_policy hpcc_int_config_set_nl_policy[HPCC_INT_A_CONFIG_INT_DSCP + 1] = {
	[HPCC_INT_A_CONFIG_SWITCH_ID] = { .type = NLA_U32, },
	[HPCC_INT_A_CONFIG_PROBE_DSCP] = NLA_POLICY_RANGE(NLA_U8, 1, HPCC_DSCP_MAX),
	[HPCC_INT_A_CONFIG_IFA_PROTOCOL] =
		NLA_POLICY_RANGE(NLA_U8, HPCC_IFA_PROTOCOL_MIN, HPCC_IFA_PROTOCOL_MAX),
	[HPCC_INT_A_CONFIG_FCR_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[HPCC_INT_A_CONFIG_FCR_DSCP] = NLA_POLICY_MAX(NLA_U8, HPCC_DSCP_MAX),
	[HPCC_INT_A_CONFIG_KEY] = NLA_POLICY_NESTED(hpcc_int_sign_key_nl_policy),
	[HPCC_INT_A_CONFIG_KEYS_FLUSH] = { .type = NLA_FLAG, },
	[HPCC_INT_A_CONFIG_FCR_MSG_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_config_fcr_msg_rate_range),
	[HPCC_INT_A_CONFIG_FCR_MSG_BURST] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_config_fcr_msg_burst_range),
	[HPCC_INT_A_CONFIG_FCR_DST_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_config_fcr_dst_rate_range),
	[HPCC_INT_A_CONFIG_FCR_DST_BURST] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_config_fcr_dst_burst_range),
	[HPCC_INT_A_CONFIG_FCR_DST] = NLA_POLICY_NESTED(hpcc_int_dst_prefix_nl_policy),
	[HPCC_INT_A_CONFIG_FCR_DST_FLUSH] = { .type = NLA_FLAG, },
	[HPCC_INT_A_CONFIG_INT_DSCP] = NLA_POLICY_RANGE(NLA_U8, 1, HPCC_DSCP_MAX),
};

/* HPCC_INT_CMD_DEV_SET - do */
static const struct nla_policy hpcc_int_dev_set_nl_policy[HPCC_INT_A_DEV_CCM_AR_GAP + 1] = {
	[HPCC_INT_A_DEV_IFINDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &hpcc_int_a_dev_ifindex_range),
	[HPCC_INT_A_DEV_RATE] = NLA_POLICY_FULL_RANGE(NLA_U64, &hpcc_int_a_dev_rate_range),
	[HPCC_INT_A_DEV_ENCODING] = NLA_POLICY_MAX(NLA_U8, 2),
	[HPCC_INT_A_DEV_TX_MODEL] = NLA_POLICY_MAX(NLA_U8, 1),
	[HPCC_INT_A_DEV_FCR_QLEN_HIGH] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_FCR_QLEN_LOW] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_FCR_INTERVAL] = NLA_POLICY_RANGE(NLA_U32, 1, HPCC_INT_INTERVAL_MAX),
	[HPCC_INT_A_DEV_FCR_ETA] = NLA_POLICY_RANGE(NLA_U32, 100, 1000),
	[HPCC_INT_A_DEV_FCR_SENDER_MAX] = NLA_POLICY_RANGE(NLA_U32, 1, 1024),
	[HPCC_INT_A_DEV_FCR_DRAIN] = NLA_POLICY_MAX(NLA_U32, HPCC_INT_INTERVAL_MAX),
	[HPCC_INT_A_DEV_CCM_QLEN_HIGH] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_CCM_QLEN_LOW] = { .type = NLA_U32, },
	[HPCC_INT_A_DEV_CCM_INTERVAL] = NLA_POLICY_RANGE(NLA_U32, 100, HPCC_INT_INTERVAL_MAX),
	[HPCC_INT_A_DEV_CCM_AR_GAP] = NLA_POLICY_MAX(NLA_U32, HPCC_INT_INTERVAL_MAX),
};

#endif /* _HPCC_INT_NL_POLICY_H */
