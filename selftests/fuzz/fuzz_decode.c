// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_decode - libFuzzer target over the decoder layer
 * (daemon/hpcc_decode.c): hpcc_decode_intmd() reads INT-MD stacks that
 * switches wrote, from the network.
 *
 * Invariants: decoding never reads outside the input (ASan) and never hits
 * undefined behaviour (UBSan); an accepted stack has at most the caller's
 * hops and ends within the input; each hop marks only fields INT-MD
 * carries (never B or txBytes) and an absent field is 0; decoding into an
 * array one hop too small is refused as too-many-hops, never written past.
 */
#include <stdlib.h>
#include <string.h>

#include "hpcc_decode.h"

#define INT_FIELDS (HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_TS | \
		    HPCC_OBS_QLEN | HPCC_OBS_TX_UTIL | HPCC_OBS_HOP_LATENCY)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	struct hpcc_hop_obs h[255];
	struct hpcc_intmd_info info;
	enum hpcc_decode_err e;
	uint8_t nhop, n2;
	unsigned int i;

	e = hpcc_decode_intmd(data, len, h, 255, &nhop, &info);
	if (e >= HPCC_DECODE_NUM)
		abort();
	if (e != HPCC_DECODE_OK) {
		if (nhop)
			abort();
		return 0;
	}
	if (info.len > len || !info.hop_ml)
		abort();
	for (i = 0; i < nhop; i++) {
		const struct hpcc_hop_obs *o = &h[i];

		if (o->present & ~INT_FIELDS || o->rec.rate || o->rec.tx_bytes ||
		    (!(o->present & HPCC_OBS_SWITCH_ID) && o->rec.switch_id) ||
		    (!(o->present & HPCC_OBS_PORT_ID) && o->rec.port_id) ||
		    (!(o->present & HPCC_OBS_TS) && o->rec.ts) ||
		    (!(o->present & HPCC_OBS_QLEN) && o->rec.qlen) ||
		    o->rec.qlen > 0xffffff)
			abort();
	}
	if (nhop && (hpcc_decode_intmd(data, len, h, nhop - 1, &n2, NULL) !=
		     HPCC_DECODE_TOO_MANY || n2))
		abort();
	return 0;
}
