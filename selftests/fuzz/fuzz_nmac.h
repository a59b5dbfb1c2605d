/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_nmac.h - the MAC check (kernel/lib/hpcc_nmac.c) on a fuzz input, for
 * fuzz_fcr and fuzz_ccm: with a key for every source, a trailer it accepts
 * is the one signing the input's message gives, and one changed byte of
 * the message makes it refused.
 */
#ifndef _FUZZ_NMAC_H
#define _FUZZ_NMAC_H

#include <stdlib.h>
#include <string.h>

#include "lib/hpcc_nmac.h"

/* @mlen: HPCC_WIRE_FCR_LEN or HPCC_WIRE_CCM_LEN */
static void fuzz_nmac(const unsigned char *data, size_t len,
		      unsigned int mlen)
{
	static const struct hpcc_nmac_key k = {
		.id = 0x01020304, .pfx = { .plen = 0 },
		.key = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	};
	unsigned char b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	struct hpcc_nmac_ring r = { .n = 1, .k = { k } };
	unsigned char src[16] = {};
	int res;

	if (len < mlen)
		return;
	res = hpcc_nmac_check(&r, src, data, len, mlen, 1);
	if (res == HPCC_NMAC_NONE || res == HPCC_NMAC_OK_RETIRED)
		abort();	/* the key covers every source, is not retired */
	if (res != HPCC_NMAC_OK)
		return;
	memcpy(b, data, mlen);
	hpcc_nmac_sign(b, mlen, &k);
	/* the reserved bytes are covered, not required to be 0 */
	if (memcmp(b + mlen + 8, data + mlen + 8,
		   8) && !memcmp(b, data, mlen + 8))
		abort();
	memcpy(b, data, mlen + HPCC_WIRE_NMAC_LEN);
	b[data[0] % mlen] ^= 1;
	if (hpcc_nmac_check(&r, src, b, mlen + HPCC_WIRE_NMAC_LEN, mlen, 1) !=
	    HPCC_NMAC_BAD)
		abort();
}

#endif /* _FUZZ_NMAC_H */
