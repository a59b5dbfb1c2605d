/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_trace.h - the telemetry trace format read by hpcc-replay.
 *
 * One sample a line:  ack_seq snd_nxt nhop  then nhop times
 *   switch_id port_id B_bps ts_ns tx_bytes qlen_bytes
 * and, optionally, n_flows: the N the receiver reported with the sample
 * (0..65535, 0: none); separated by blanks; decimal unsigned integers; blank lines and lines
 * whose first non-blank character is '#' are ignored.  ack_seq and snd_nxt
 * are 32-bit TCP sequence numbers, nhop is 1..HPCC_MAX_HOPS, switch_id and
 * port_id are 32-bit, the others 64-bit.  tx_bytes may instead be "-"
 * (the hop reported no txBytes) or "u" and the hop's Tx utilization in
 * parts per million, 0..10000000 (no txBytes, Tx utilization instead):
 * the partial-telemetry rules of Documentation/algorithm.rst apply.
 */
#ifndef _HPCC_TRACE_H
#define _HPCC_TRACE_H

#include <stddef.h>
#include "lib/hpcc_core.h"

/**
 * struct hpcc_sample - one parsed trace line
 * @ack_seq: the ACK's sequence number
 * @snd_nxt: the sender's snd_nxt
 * @nhop: number of hop records, 1..HPCC_MAX_HOPS
 * @n_flows: receiver-reported N, 0..65535 (0: none, also when absent)
 * @hops: the records
 */
struct hpcc_sample {
	u32 ack_seq;
	u32 snd_nxt;
	u32 nhop;
	u32 n_flows;
	struct hpcc_hop hops[HPCC_MAX_HOPS];
};

/**
 * hpcc_trace_parse_line() - parse one line of a trace
 * @line: the line, NUL-terminated (a trailing newline is allowed)
 * @s: filled on success
 * @err: on error, a message (static storage)
 *
 * Return: 1 for a sample, 0 for a blank or comment line, -1 on error.
 */
int hpcc_trace_parse_line(const char *line, struct hpcc_sample *s,
			  const char **err);

#endif
