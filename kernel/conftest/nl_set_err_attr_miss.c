// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: NL_SET_ERR_ATTR_MISS(), an extack naming the missing attribute
 * (v6.0, "netlink: add helpers for extack attr presence checking").
 */
#include <linux/netlink.h>

static void __maybe_unused probe_fn(struct netlink_ext_ack *extack)
{
	NL_SET_ERR_ATTR_MISS(extack, NULL, 1);
}
