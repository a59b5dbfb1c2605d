// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ccm - libFuzzer target over the CCM notification decoder and the
 * host's coordination rule (kernel/lib/hpcc_ccm.c): the decoder runs on UDP
 * payloads from the network, the rule on telemetry and notifications.
 *
 * Each input is decoded as it is.  Invariants: decoding never reads
 * outside the input (ASan) and never hits undefined behaviour (UBSan); an
 * accepted notification has type 1 to 3, family 4 (both addresses
 * IPv4-mapped, flow label 0) or 6 (neither mapped, label within 20 bits),
 * and encodes back to the input's first HPCC_WIRE_CCM_LEN bytes but for
 * the flags and reserved bytes.  Then the input's bytes drive the rule, as
 * parameters, samples and notifications: no change while the CC indicator
 * is set, the binding hop is the last or the last hop is busy, the flow is
 * in recovery or paused; never two changes less than gap_rtts RTTs apart;
 * never more than tries + 1 per refill period (the budget,
 * hpcc_ccm_refill()); no type 3 moves a flow whose telemetry shows its
 * path below eta; W held back (HPCC_CCM_WAIT) only within gap_rtts RTTs
 * of the last change; a type 1 always leaves the indicator set and a
 * type 2 clear.
 *
 * The input also goes through the MAC check (fuzz_nmac.h), as in
 * fuzz_fcr.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/hpcc_ccm.h"
#include "fuzz_nmac.h"

#define RTT 1000ULL

static void rule(const unsigned char *d, size_t len)
{
	struct hpcc_ccm_cfg c = {
		.samples = d[0], .tries = d[1], .gap_rtts = d[2] ? d[2] : 1,
		.pause_ns = d[3] * RTT,
	};
	struct hpcc_ccm_flow f = {};
	struct hpcc_ccm_msg m = {};
	u64 now = 1, last = 0, refill = (u64)c.gap_rtts * RTT <<
				     HPCC_CCM_REFILL_SHIFT;
	size_t i;

	for (i = 4; i < len; i++) {
		struct hpcc_ccm_sample s = {
			.rtt_ns = RTT, .congested = d[i] & 1,
			.last_hop = d[i] & 2, .recovery = d[i] & 4,
			.last_busy = (d[i] & 0x18) == 0x18, .rnd = d[i - 1],
		};
		bool cc = f.cc, paused, busy;
		int r;

		now += (d[i] >> 5) * RTT / 2;
		s.now = now;
		paused = now < f.pause_until;
		switch (d[i] & 0x18) {
		case 0x08:	/* an RTO before the sample */
			hpcc_ccm_rto(&f, &c, now);
			paused = c.pause_ns > 0;
			break;
		case 0x10:	/* a notification instead of the sample */
			m.ntype = 1 + (d[i] & 3) % 3;
			m.flowlabel = d[i] & 4;
			busy = d[i - 1] & 1;
			r = hpcc_ccm_note(&f, &c, &m, now, RTT, false, 0, busy);
			if ((m.ntype == HPCC_CCM_CC_REQUIRED && !f.cc) ||
			    (m.ntype == HPCC_CCM_CC_RELEASED && f.cc))
				abort();
			if (r == HPCC_CCM_NOTE_REROUTE) {
				if (cc || paused || m.flowlabel || !busy ||
				    (last && now - last < c.gap_rtts * RTT))
					abort();
				last = now;
			}
			continue;
		}
		r = hpcc_ccm_decide(&f, &c, &s);
		if (f.changes > c.tries + now / refill + 1 ||
		    f.tried > c.tries)
			abort();
		if (r == HPCC_CCM_REROUTE) {
			if (cc || s.last_hop || s.last_busy || s.recovery ||
			    paused || !s.congested || !c.tries)
				abort();
			if (last && now - last < c.gap_rtts * RTT)
				abort();
			last = now;
		}
		if (!s.congested && r != HPCC_CCM_RATE)
			abort();
		/* W is held only in the gap after a change (the law runs
		 * while a streak grows)
		 */
		if (r == HPCC_CCM_WAIT &&
		    (!f.last_change || now < f.last_change ||
		     now - f.last_change >= c.gap_rtts * RTT))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	unsigned char b[HPCC_WIRE_CCM_LEN];
	struct hpcc_ccm_msg m;
	int i;

	fuzz_nmac(data, len, HPCC_WIRE_CCM_LEN);

	if (len >= 4)
		rule(data, len);
	if (hpcc_ccm_decode(data, len, &m) != HPCC_CCM_OK)
		return 0;
	if (m.ntype < 1 || m.ntype > 3 ||
	    (m.family != 4 && m.family != 6) ||
	    (m.family == 4) != hpcc_fcr_mapped(m.saddr) ||
	    (m.family == 4) != hpcc_fcr_mapped(m.daddr) ||
	    m.flowlabel > HPCC_CCM_LABEL_MAX ||
	    (m.family == 4 && m.flowlabel))
		abort();
	hpcc_ccm_encode(b, &m);
	for (i = 0; i < HPCC_WIRE_CCM_LEN; i++)
		if (i != HPCC_CCM_O_FLAGS && i != HPCC_CCM_O_RESERVED &&
		    i != HPCC_CCM_O_RESERVED + 1 && b[i] != data[i])
			abort();
	return 0;
}
