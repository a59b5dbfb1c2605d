/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpccd_config.h - hpccd's settings: defaults, "key = value" files and the
 * command line's keys (hpccd(8), CONFIGURATION FILE).  The parser works on
 * a buffer, so selftests/fuzz/fuzz_config.c can drive it.
 */
#ifndef _HPCCD_CONFIG_H
#define _HPCCD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct hpccd_cfg - hpccd's settings
 * @file: the configuration file
 * @stats_file: statistics file ("" for stderr)
 * @budget: probe-budget, probes per second for all flows, 1..10,000,000
 * @max_hops: max-hops, hop records per probe, 1..HPCC_MAX_HOPS
 * @timeout_min_us: timeout-min-us, 100..10,000,000
 * @timeout_max_us: timeout-max-us, 100..10,000,000, >= @timeout_min_us
 * @tick_us: tick-us, the shortest time between two timer wakeups,
 *	100..100,000 (deadlines closer than this are handled together)
 * @response_rate: response-rate, responses per second to one source
 *	address, 1..10,000,000
 * @max_flows: max-flows, flows the sender role tracks, 1..16,777,216
 * @reconcile_s: reconcile-s, seconds between two comparisons of the flow
 *	table with the module's, 1..3600
 * @event_buffer_kb: event-buffer-kb, the receive buffer of the module's
 *	events, KiB, 64..65536 (an event takes about 0.7 KiB of it)
 * @report_n_flows: report-n-flows, 0 or 1: responses carry the receiver's
 *	N (HPCC_WIRE_EXT_N_FLOWS)
 * @n_flows_window_ms: n-flows-window-ms, how long after its last probe a
 *	flow still counts in N, 1..60,000
 * @n_flows_max: n-flows-max, flows the receiver's count tracks at most,
 *	1..1,048,576 (about 200 bytes each)
 * @syslog: log to syslog
 * @verbose: debug messages
 */
struct hpccd_cfg {
	char file[256];
	char stats_file[256];
	unsigned int budget;
	unsigned int max_hops;
	unsigned int timeout_min_us;
	unsigned int timeout_max_us;
	unsigned int tick_us;
	unsigned int response_rate;
	unsigned int max_flows;
	unsigned int reconcile_s;
	unsigned int event_buffer_kb;
	unsigned int report_n_flows;
	unsigned int n_flows_window_ms;
	unsigned int n_flows_max;
	bool syslog;
	int verbose;
};

/** hpccd_cfg_defaults() - the defaults (those of daemon/hpccd.conf) */
void hpccd_cfg_defaults(struct hpccd_cfg *c);

/**
 * hpccd_cfg_log - where the parser reports a bad setting (one line, no
 * newline); stderr when NULL
 */
extern void (*hpccd_cfg_log)(const char *msg);

/**
 * hpccd_cfg_set() - one setting
 * @c: settings to change
 * @k: key
 * @v: value
 * Return: 0, or -1 for an unknown key or a bad value (reported).
 */
int hpccd_cfg_set(struct hpccd_cfg *c, const char *k, const char *v);

/**
 * hpccd_cfg_parse() - "key = value" lines, # comments, blank lines
 * @c: settings to change
 * @name: for messages ("FILE:LINE: ...")
 * @buf: the text, @len bytes, not NUL-terminated necessarily; lines of
 *	more than 511 bytes are refused
 * Return: 0, or -1 when any line was bad or timeout-min-us exceeds
 * timeout-max-us (the good lines are applied).
 */
int hpccd_cfg_parse(struct hpccd_cfg *c, const char *name, const char *buf,
		    size_t len);

/**
 * hpccd_cfg_read() - hpccd_cfg_parse() of the file @c->file (at most 1 MiB)
 * @must_exist: a missing file is an error (else it is the defaults)
 * Return: 0 or -1.
 */
int hpccd_cfg_read(struct hpccd_cfg *c, bool must_exist);

#endif /* _HPCCD_CONFIG_H */
