// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_fcr - libFuzzer target over the FCR message decoder and the hold
 * set (kernel/lib/hpcc_fcr.c), the code tcp_hpcc runs on UDP payloads from the
 * network.
 *
 * Each input is decoded as it is.  Invariants: decoding never reads outside
 * the input (ASan) and never hits undefined behaviour (UBSan); an accepted
 * message has family 4 (both addresses IPv4-mapped) or 6 (neither), a rate
 * of 1 to 1.6e12 and an interval of 1 to 10^6 us, and encodes back to the
 * input's first HPCC_WIRE_FCR_LEN bytes but for the flags byte; put into a
 * hold set it never leaves a lowest rate above its own while held, nor any
 * rate after twice its interval, and once its hold ended the same message
 * again is a replay that holds nothing; its sequence number is in flight
 * from itself, not from the next byte nor with nothing in flight.  The
 * input also goes through the MAC
 * check (kernel/lib/hpcc_nmac.c) with a key for every source: a trailer it
 * accepts is the one signing the input's message gives, and one changed
 * byte of the message makes it refused.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_nmac.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	struct hpcc_fcr_hold h[HPCC_FCR_HOLDS] = {};
	unsigned char b[HPCC_WIRE_FCR_LEN];
	struct hpcc_fcr_msg m;
	int i;

	fuzz_nmac(data, len, HPCC_WIRE_FCR_LEN);
	if (hpcc_fcr_decode(data, len, &m) != HPCC_FCR_OK)
		return 0;
	if ((m.family == 4) != hpcc_fcr_mapped(m.saddr) ||
	    (m.family == 4) != hpcc_fcr_mapped(m.daddr) ||
	    (m.family != 4 && m.family != 6))
		abort();
	if (!m.rate || m.rate > HPCC_RATE_MAX || !m.interval ||
	    m.interval > HPCC_FCR_INTERVAL_MAX)
		abort();
	hpcc_fcr_encode(b, &m);
	for (i = 0; i < HPCC_WIRE_FCR_LEN; i++)
		if (i != HPCC_FCR_O_FLAGS && b[i] != data[i])
			abort();
	/* three holds from other ports first (the input's own bytes as rates) */
	for (i = 0; i < 3; i++) {
		struct hpcc_fcr_msg o = m;

		o.switch_id = ~m.switch_id;	/* never m's port */
		o.port_id = i;
		o.rate = 1 + data[i] * 1000000ULL;
		hpcc_fcr_hold_put(h, &o, 0, ~0ULL);
	}
	hpcc_fcr_hold_put(h, &m, 0, ~0ULL);
	if (hpcc_fcr_lowest(h, 1) > m.rate)
		abort();
	if (hpcc_fcr_lowest(h, 2000ULL * HPCC_FCR_INTERVAL_MAX))
		abort();
	/* the same message again once every hold ended: a replay */
	if (hpcc_fcr_hold_put(h, &m, 2000ULL * HPCC_FCR_INTERVAL_MAX, ~0ULL) !=
	    HPCC_FCR_PUT_OLD ||
	    hpcc_fcr_lowest(h, 2000ULL * HPCC_FCR_INTERVAL_MAX))
		abort();
	/* the sequence number check: @seq itself is in flight from it */
	if (!hpcc_fcr_in_window(m.seq, m.seq, m.seq + 1) ||
	    hpcc_fcr_in_window(m.seq, m.seq + 1, m.seq + 0x7fffffffU) ||
	    hpcc_fcr_in_window(m.seq, m.seq, m.seq))
		abort();
	return 0;
}
