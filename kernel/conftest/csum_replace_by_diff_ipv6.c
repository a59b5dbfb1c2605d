// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: inet_proto_csum_replace_by_diff() takes an ipv6 argument (v6.16,
 * "net: Fix checksum update for ILA adj-transport"; backported to the
 * 6.1.y and 6.12.y stable series, not to 5.10.y).
 */
#include <linux/skbuff.h>
#include <net/checksum.h>

static void __maybe_unused probe_fn(__sum16 *sum, struct sk_buff *skb)
{
	inet_proto_csum_replace_by_diff(sum, skb, 0, false, false);
}
