// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: ip6_multipath_hash_fields(), the fields of multipath hash policy
 * 3 (v5.14, "ipv6: Add custom multipath hash policy").
 */
#include <net/ip_fib.h>
#include <net/ipv6.h>

static bool __maybe_unused probe_fn(const struct net *net)
{
	return ip6_multipath_hash_fields(net) & FIB_MULTIPATH_HASH_FIELD_FLOWLABEL;
}
