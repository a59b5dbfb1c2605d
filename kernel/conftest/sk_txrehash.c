// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: a socket has sk_txrehash, its net.core.txrehash / SO_TXREHASH
 * setting (v5.19), which sk_rethink_txhash() obeys.
 */
#include <net/sock.h>

static bool __maybe_unused probe_fn(const struct sock *sk)
{
	return READ_ONCE(sk->sk_txrehash) == SOCK_TXREHASH_ENABLED;
}
