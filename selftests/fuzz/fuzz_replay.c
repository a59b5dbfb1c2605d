// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_replay - libFuzzer target over the hpcc-replay trace parser and the
 * algorithm core (NewAck and NewINT).
 *
 * Input: 18 bytes that pick the parameters (kept when hpcc_params_valid()
 * accepts them, defaults otherwise), then trace text.  Beyond the
 * sanitizers' checks it asserts the core's invariants after every sample:
 * W and Wc within [W_min, W_max], U at most HPCC_U_MAX, incStage at most
 * maxStage, and a failed parse leaving no sample.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hpcc_core.h"
#include "hpcc_trace.h"

static void check(const struct hpcc_flow *f, const struct hpcc_params *p)
{
	if (f->w < p->w_min || f->w > p->w_init ||
	    f->wc < p->w_min || f->wc > p->w_init ||
	    f->u > HPCC_U_MAX || f->inc_stage > p->max_stage ||
	    f->nhop > HPCC_MAX_HOPS)
		abort();
}

static u64 take(const uint8_t **d, size_t *n, int bytes)
{
	u64 v = 0;

	while (bytes-- && *n) {
		v = v << 8 | **d;
		(*d)++;
		(*n)--;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpcc_params p, q;
	struct hpcc_flow fa, fi;
	struct hpcc_sample s;
	char *text, *line, *next;
	u64 now = 0;

	hpcc_params_default(&p);
	q.t_ns = take(&data, &size, 4);
	q.eta = take(&data, &size, 4) << 1;
	q.max_stage = (u32)take(&data, &size, 1);
	q.w_init = take(&data, &size, 3) << 16;
	q.w_min = take(&data, &size, 2) << 16;
	q.w_ai = take(&data, &size, 2) << 16;
	q.ewma_pct = (u32)take(&data, &size, 2);
	if (hpcc_params_valid(&q))
		p = q;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	hpcc_flow_init(&fa, &p);
	hpcc_flow_init(&fi, &p);
	for (line = text; line; line = next) {
		const char *err = NULL;
		int r;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		r = hpcc_trace_parse_line(line, &s, &err);
		if (r < 0 && !err)
			abort();
		if (r <= 0)
			continue;
		if (s.nhop < 1 || s.nhop > HPCC_MAX_HOPS)
			abort();
		hpcc_new_ack(&fa, &p, s.ack_seq, s.snd_nxt, s.hops, s.nhop);
		check(&fa, &p);
		now += s.snd_nxt;
		hpcc_new_int(&fi, &p, now, s.hops, s.nhop);
		check(&fi, &p);
	}
	free(text);
	return 0;
}
