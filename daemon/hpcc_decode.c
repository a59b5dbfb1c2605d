// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_decode.c - the decoder layer (hpcc_decode.h): telemetry encodings
 * onto one hop record with presence bits.  Every read is bounds-checked
 * against the caller's length before it is made.
 */
#include <string.h>

#include "hpcc_decode.h"

/* INT instruction bit @b (0 = the bitmap's MSB) is set in @ins. */
static int int_bit(uint16_t ins, unsigned int b)
{
	return (ins >> (15 - b)) & 1;
}

/* Bytes of metadata instruction bit @b asks each hop for (section 5.8). */
static unsigned int int_bit_bytes(unsigned int b)
{
	return b >= 4 && b <= 6 ? 8 : 4;
}

unsigned int hpcc_intmd_hop_bytes(uint16_t instructions)
{
	unsigned int b, n = 0;

	for (b = 0; b < 16; b++)
		if (int_bit(instructions, b))
			n += int_bit_bytes(b);
	return n;
}

/*
 * One hop's metadata at @p (@ml bytes, checked by the caller) into @o:
 * baseline fields in bit order, then domain-specific words, then the
 * checksum complement (bit 15).  A word of all ones is "invalid": absent.
 */
static void intmd_hop(const uint8_t *p, uint16_t ins, struct hpcc_hop_obs *o)
{
	unsigned int b, off = 0;
	uint32_t w;
	uint64_t q;

	memset(o, 0, sizeof(*o));
	for (b = 0; b < 15; b++) {
		if (!int_bit(ins, b))
			continue;
		w = hpcc_get32(p + off);
		/* 8-byte fields only: a 4-byte one may end the hop */
		q = int_bit_bytes(b) == 8 ? hpcc_get64(p + off) : 0;
		switch (b) {
		case 0:		/* Switch ID */
			if (w != UINT32_MAX) {
				o->rec.switch_id = w;
				o->present |= HPCC_OBS_SWITCH_ID;
			}
			break;
		case 1:		/* L1 ingress port (16) + egress port (16) */
			if (w != UINT32_MAX) {
				o->rec.port_id = w & 0xffff;
				o->present |= HPCC_OBS_PORT_ID;
			}
			break;
		case 2:		/* hop latency */
			if (w != UINT32_MAX) {
				o->hop_latency = w;
				o->present |= HPCC_OBS_HOP_LATENCY;
			}
			break;
		case 3:		/* queue ID (8) + queue occupancy (24) */
			if (w != UINT32_MAX) {
				o->rec.qlen = w & 0xffffff;
				o->present |= HPCC_OBS_QLEN;
			}
			break;
		case 4:		/* ingress timestamp: egress's wins below */
			if (q != UINT64_MAX && !(o->present & HPCC_OBS_TS)) {
				o->rec.ts = q;
				o->present |= HPCC_OBS_TS;
			}
			break;
		case 5:		/* egress timestamp */
			if (q != UINT64_MAX) {
				o->rec.ts = q;
				o->present |= HPCC_OBS_TS;
			}
			break;
		case 6:		/* L2 ingress port (32) + egress port (32) */
			w = hpcc_get32(p + off + 4);
			if (w != UINT32_MAX && !(o->present & HPCC_OBS_PORT_ID)) {
				o->rec.port_id = w;
				o->present |= HPCC_OBS_PORT_ID;
			}
			break;
		case 7:		/* egress port Tx utilization */
			if (w != UINT32_MAX) {
				o->tx_util = w;
				o->present |= HPCC_OBS_TX_UTIL;
			}
			break;
		default:	/* bit 8 buffer, 9-14 reserved: skipped */
			break;
		}
		off += int_bit_bytes(b);
	}
	/* domain-specific metadata and the checksum complement: skipped */
}

enum hpcc_decode_err hpcc_decode_intmd(const void *buf, size_t len,
				       struct hpcc_hop_obs *hops,
				       unsigned int max_hops, uint8_t *nhop,
				       struct hpcc_intmd_info *info)
{
	const uint8_t *p = buf;
	unsigned int words, ml, stack, n, i;
	uint16_t ins;

	*nhop = 0;
	if (len < HPCC_INT_SHIM_LEN + HPCC_INT_MD_LEN)
		return HPCC_DECODE_SHORT;
	/* shim: Type (4) NPT (2) R (2) | Length (8) | DSCP field (16) */
	if (p[0] >> 4 != HPCC_INT_TYPE_MD || ((p[0] >> 2) & 3))
		return HPCC_DECODE_TYPE;
	words = p[1];
	if (words * 4 < HPCC_INT_MD_LEN)
		return HPCC_DECODE_SHORT;
	if (len < HPCC_INT_SHIM_LEN + words * 4)
		return HPCC_DECODE_SHORT;
	p += HPCC_INT_SHIM_LEN;
	/* Ver (4) D E M (3) Reserved (12) Hop ML (5) Remaining Hop Count (8) */
	if (p[0] >> 4 != HPCC_INT_VERSION)
		return HPCC_DECODE_VERSION;
	ml = (p[2] & 0x1f) * 4;
	ins = (uint16_t)(p[4] << 8 | p[5]);
	if (!ml || ml < hpcc_intmd_hop_bytes(ins))
		return HPCC_DECODE_HOP_ML;
	stack = words * 4 - HPCC_INT_MD_LEN;
	if (stack % ml)
		return HPCC_DECODE_STACK;
	n = stack / ml;
	if (n > max_hops || n > 255)
		return HPCC_DECODE_TOO_MANY;
	if (info) {
		info->instructions = ins;
		info->hop_ml = (uint8_t)(ml / 4);
		info->remaining = p[3];
		info->flags = (p[0] >> 1) & 7;
		info->len = HPCC_INT_SHIM_LEN + (size_t)words * 4;
	}
	p += HPCC_INT_MD_LEN;
	/* the stack's first entry is the last hop's */
	for (i = 0; i < n; i++)
		intmd_hop(p + (size_t)i * ml, ins, &hops[n - 1 - i]);
	*nhop = (uint8_t)n;
	return HPCC_DECODE_OK;
}

void hpcc_obs_from_rec(struct hpcc_hop_obs *obs,
		       const struct hpcc_hop_rec *rec)
{
	memset(obs, 0, sizeof(*obs));
	obs->present = HPCC_OBS_SWITCH_ID | HPCC_OBS_PORT_ID | HPCC_OBS_RATE |
		       HPCC_OBS_TS | HPCC_OBS_TX_BYTES | HPCC_OBS_QLEN;
	obs->rec = *rec;
}

const char *hpcc_decode_err_name(enum hpcc_decode_err e)
{
	static const char *const names[HPCC_DECODE_NUM] = {
		[HPCC_DECODE_OK] = "ok",
		[HPCC_DECODE_SHORT] = "short",
		[HPCC_DECODE_TYPE] = "int-type",
		[HPCC_DECODE_VERSION] = "int-version",
		[HPCC_DECODE_HOP_ML] = "int-hop-ml",
		[HPCC_DECODE_STACK] = "int-stack",
		[HPCC_DECODE_TOO_MANY] = "too-many-hops",
	};

	return (unsigned int)e < HPCC_DECODE_NUM ? names[e] : "unknown";
}
