// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: __inet_lookup_established() and __inet6_lookup_established() find
 * the established hash from @net and take no inet_hashinfo argument (after
 * v6.12; 7.2 has it).
 */
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>

static __maybe_unused struct sock *probe_fn(struct net *net)
{
	return __inet_lookup_established(net, 0, 0, 0, 0, 0, 0) ?:
	       __inet6_lookup_established(net, NULL, 0, NULL, 0, 0, 0);
}
