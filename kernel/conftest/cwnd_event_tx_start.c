// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: tcp_congestion_ops.cwnd_event_tx_start (v7.1), which from then on
 * alone sees CA_EVENT_TX_START: tcp_ca_event() no longer passes it to
 * cwnd_event.
 */
#include <net/tcp.h>

static void probe_tx_start(struct sock *sk)
{
}

static struct tcp_congestion_ops probe_ops __maybe_unused = {
	.cwnd_event_tx_start = probe_tx_start,
};
