// SPDX-License-Identifier: GPL-2.0
/*
 * core_bench - cost of NewAck (hpcc_new_ack) per call for 1 and 5 hops, on
 * precomputed varying telemetry (so every branch is taken).  A benchmark,
 * not a test: prints ns per call (best of 5 runs of 2^20 calls).
 * Usage: core_bench [NHOP]
 * Under `valgrind --tool=callgrind` the instruction count is repeatable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/hpcc_core.h"

#define NSAMP	4096
#define CALLS	(1 << 20)

static struct hpcc_hop trace[NSAMP][HPCC_MAX_HOPS];

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void make_trace(u32 nhop)
{
	u64 ts = 1000, tx[HPCC_MAX_HOPS] = { 0 };
	u32 s, i, x = 12345;

	for (s = 0; s < NSAMP; s++) {
		ts += 50000 + (x % 100000);
		for (i = 0; i < nhop; i++) {
			x = x * 1103515245 + 12345;
			tx[i] += (ts % 7 + 3) * 10000 + (x >> 20);
			trace[s][i] = (struct hpcc_hop){
				.ts = ts + i, .tx_bytes = tx[i],
				.qlen = (x >> 8) % 200000,
				.rate_bps = 100000000000ULL,
				.switch_id = i, .port_id = 1,
			};
		}
	}
}

static double bench(u32 nhop)
{
	struct hpcc_params p;
	struct hpcc_flow f;
	double best = 1e30;
	int run;

	hpcc_params_default(&p);
	make_trace(nhop);
	for (run = 0; run < 5; run++) {
		u64 t0;
		u32 c, seq = 0;

		hpcc_flow_init(&f, &p);
		t0 = now_ns();
		for (c = 0; c < CALLS; c++) {
			u32 s = c % NSAMP;

			if (s == 0)
				hpcc_flow_init(&f, &p);
			seq += 1448;
			hpcc_new_ack(&f, &p, seq, seq + 14480, trace[s], nhop);
		}
		t0 = now_ns() - t0;
		if ((double)t0 / CALLS < best)
			best = (double)t0 / CALLS;
	}
	/* keep the result alive */
	if (f.w == 1)
		printf(" ");
	return best;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;

	if (n >= 1 && n <= HPCC_MAX_HOPS)	/* one configuration */
		printf("hpcc_new_ack: %d hops %.1f ns/call\n", n, bench(n));
	else
		printf("hpcc_new_ack: 1 hop %.1f ns/call, 5 hops %.1f ns/call\n",
		       bench(1), bench(5));
	return 0;
}
