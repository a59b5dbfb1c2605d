// SPDX-License-Identifier: GPL-2.0
/* Probe: cong_control(sk, ack, flag, rs) (v6.10, commit 57bfc7605ca5). */
#include <net/tcp.h>

static void probe_cc(struct sock *sk, u32 ack, int flag,
		     const struct rate_sample *rs)
{
}

static struct tcp_congestion_ops probe_ops __maybe_unused = { .cong_control = probe_cc };
