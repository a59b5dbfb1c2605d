// SPDX-License-Identifier: GPL-2.0
/* Probe: tcp_snd_cwnd() and tcp_snd_cwnd_set() accessors (v5.19). */
#include <net/tcp.h>

static void __maybe_unused probe_fn(struct tcp_sock *tp)
{
	tcp_snd_cwnd_set(tp, tcp_snd_cwnd(tp));
}
