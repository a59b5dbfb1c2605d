// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_config - libFuzzer target over hpccd's configuration parser
 * (daemon/hpccd/config.c), which reads a file an operator (or a
 * configuration tool) writes.
 *
 * Invariants: no read outside the input (ASan), no undefined behaviour
 * (UBSan); whatever the input, every setting stays in its documented
 * range, and a parse that succeeds has timeout-min-us <= timeout-max-us.
 * The same input read as a key file (hpccd_cfg_parse_keys()) leaves at
 * most HPCCD_MAX_KEYS keys, none with id 0, two never with one id, and
 * none at all when the parse failed.
 */
#include <stdlib.h>

#include "hpcc_wire.h"
#include "hpccd/config.h"

static void quiet(const char *msg)
{
	(void)msg;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	struct hpccd_cfg c;
	int err;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	err = hpccd_cfg_parse(&c, "fuzz", (const char *)data, len);
	if (c.budget < 1 || c.budget > 10000000 ||
	    c.max_hops < 1 || c.max_hops > HPCC_MAX_HOPS ||
	    c.timeout_min_us < 100 || c.timeout_min_us > 10000000 ||
	    c.timeout_max_us < 100 || c.timeout_max_us > 10000000 ||
	    c.tick_us < 100 || c.tick_us > 100000 ||
	    c.probe_pipeline < 1 || c.probe_pipeline > HPCCD_PIPE_MAX ||
	    c.response_rate < 1 || c.response_rate > 10000000 ||
	    c.response_budget < 1 || c.response_budget > 10000000 ||
	    c.response_budget_bytes < 1500 ||
	    c.response_budget_bytes > 1000000000 ||
	    c.response_amplification > 2 ||
	    c.rp_filter < 1 || c.rp_filter > 2 || c.tcp_check > 1 ||
	    c.n_flows_per_source < 1 || c.n_flows_per_source > 1048576 ||
	    c.max_flows < 1 || c.max_flows > (1U << 24) ||
	    c.reconcile_s < 1 || c.reconcile_s > 3600 ||
	    c.event_buffer_kb < 64 || c.event_buffer_kb > 65536 ||
	    c.verbose < 0 || c.verbose > 1 ||
	    c.stats_file[sizeof(c.stats_file) - 1])
		abort();
	if (!err && c.timeout_min_us > c.timeout_max_us)
		abort();
	if (c.rx_answer > 1 || c.rx_max_flows < 1 ||
	    c.rx_max_flows > 1048576 || c.auth_overlap_s > 86400 ||
	    c.n_rx_based > HPCCD_MAX_ENCODINGS ||
	    c.n_private > HPCCD_MAX_ENCODINGS ||
	    c.key_file[sizeof(c.key_file) - 1] || c.n_keys)
		abort();

	err = hpccd_cfg_parse_keys(&c, "fuzz", (const char *)data, len);
	if (c.n_keys > HPCCD_MAX_KEYS || (err && c.n_keys))
		abort();
	for (unsigned int i = 0; i < c.n_keys; i++) {
		if (!c.keys[i].id || c.keys[i].pfx.len > 128)
			abort();
		for (unsigned int j = 0; j < i; j++)
			if (c.keys[j].id == c.keys[i].id)
				abort();
	}
	return 0;
}
