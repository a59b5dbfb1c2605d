// SPDX-License-Identifier: GPL-2.0
/* HPCC_HAVE_NLA_CONST_RANGE: an nla_policy points at a const
 * netlink_range_validation (v6.4 and later), as ynl-gen-c's policies do.
 */
#include <net/netlink.h>

static const struct netlink_range_validation r = { .min = 1, .max = 2 };
static const struct nla_policy p[2] __maybe_unused = {
	[1] = NLA_POLICY_FULL_RANGE(NLA_U32, &r),
};
