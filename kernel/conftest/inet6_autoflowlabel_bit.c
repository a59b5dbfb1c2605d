// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: a socket's IPv6 autoflowlabel flags are bits of inet6_sk()->flags
 * read with inet6_test_bit() (v6.7), not ipv6_pinfo bitfields.
 */
#include <linux/ipv6.h>

static bool __maybe_unused probe_fn(const struct sock *sk)
{
	return inet6_test_bit(AUTOFLOWLABEL_SET, sk) &&
	       inet6_test_bit(AUTOFLOWLABEL, sk);
}
