// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_decode.c - the decoder layer (hpcc_decode.h): telemetry encodings
 * onto one hop record with presence bits.  Every read is bounds-checked
 * against the caller's length before it is made.
 */
#include <string.h>
#include <linux/hpcc.h>

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

uint64_t hpcc_int_ts_ns(uint64_t ts, enum hpcc_int_ts_unit unit)
{
	switch (unit) {
	case HPCC_INT_TS_US:
		return ts * 1000;
	case HPCC_INT_TS_NTP:
		/* seconds, then the 2^-32 s fraction: neither step overflows */
		return (ts >> 32) * 1000000000U +
		       (((ts & 0xffffffffU) * 1000000000U) >> 32);
	default:
		return ts;
	}
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

/* IOAM-Trace-Type bit @b (0 = the MSB of the 24) is set in @type. */
static int ioam_bit(uint32_t type, unsigned int b)
{
	return (type >> (23 - b)) & 1;
}

/* Bytes of node data bit @b asks for (RFC 9197 section 4.4.2). */
static unsigned int ioam_bit_bytes(unsigned int b)
{
	return b >= 8 && b <= 10 ? 8 : 4;
}

unsigned int hpcc_ioam_node_bytes(uint32_t trace_type)
{
	unsigned int b, n = 0;

	for (b = 0; b <= 21; b++)
		if (ioam_bit(trace_type, b))
			n += ioam_bit_bytes(b);
	return n;
}

/* Seconds and fraction (@fmt) into ns; 0 if the fraction is out of range. */
static int ioam_ts(uint32_t sec, uint32_t frac, enum hpcc_ioam_ts_fmt fmt,
		   uint64_t *ts)
{
	uint64_t ns;

	switch (fmt) {
	case HPCC_IOAM_TS_PTP:
		if (frac >= 1000000000U)
			return 0;
		ns = frac;
		break;
	case HPCC_IOAM_TS_NTP:
		ns = ((uint64_t)frac * 1000000000U) >> 32;
		break;
	default:
		if (frac >= 1000000U)
			return 0;
		ns = (uint64_t)frac * 1000;
		break;
	}
	*ts = (uint64_t)sec * 1000000000U + ns;
	return 1;
}

/*
 * One node's data at @p (hpcc_ioam_node_bytes() bytes, checked by the
 * caller) into @o, fields in bit order.  An all-ones field is unavailable.
 */
static void ioam_node(const uint8_t *p, uint32_t type,
		      enum hpcc_ioam_ts_fmt fmt, struct hpcc_hop_obs *o)
{
	unsigned int b, off = 0;
	uint32_t w, sec = 0;
	uint64_t q;
	int have_sec = 0;

	memset(o, 0, sizeof(*o));
	for (b = 0; b <= 11; b++) {
		if (!ioam_bit(type, b))
			continue;
		w = hpcc_get32(p + off);
		q = ioam_bit_bytes(b) == 8 ? hpcc_get64(p + off) : 0;
		switch (b) {
		case 0:		/* hop_lim (8) + node_id (24): the whole
				 * word all ones is "not populated"; a
				 * node_id of 0xffffff is an ID (Linux's
				 * default ioam6_id)
				 */
			if (w != UINT32_MAX) {
				o->rec.switch_id = w & 0xffffff;
				o->present |= HPCC_OBS_SWITCH_ID;
			}
			break;
		case 1:		/* ingress_if_id (16) + egress_if_id (16):
				 * Linux marks each half it cannot fill
				 * (IOAM6_U16_UNAVAILABLE), so 0xffff alone
				 * is absent too
				 */
			if ((w & 0xffff) != 0xffff) {
				o->rec.port_id = w & 0xffff;
				o->present |= HPCC_OBS_PORT_ID;
			}
			break;
		case 2:		/* timestamp seconds */
			have_sec = w != UINT32_MAX;
			sec = w;
			break;
		case 3:		/* timestamp fraction: with the seconds only */
			if (have_sec && w != UINT32_MAX &&
			    ioam_ts(sec, w, fmt, &o->rec.ts))
				o->present |= HPCC_OBS_TS;
			break;
		case 4:		/* transit delay, ns; the MSB: it overflowed */
			if (!(w & 0x80000000U)) {
				o->hop_latency = w;
				o->present |= HPCC_OBS_HOP_LATENCY;
			}
			break;
		case 6:		/* queue depth */
			if (w != UINT32_MAX) {
				o->rec.qlen = w;
				o->present |= HPCC_OBS_QLEN;
			}
			break;
		case 8:		/* hop_lim (8) + node_id (56): low 32 bits */
			if (q != UINT64_MAX &&
			    !(o->present & HPCC_OBS_SWITCH_ID)) {
				o->rec.switch_id = (uint32_t)q;
				o->present |= HPCC_OBS_SWITCH_ID;
			}
			break;
		case 9:		/* ingress_if_id (32) + egress_if_id (32) */
			w = hpcc_get32(p + off + 4);
			if (w != UINT32_MAX && !(o->present & HPCC_OBS_PORT_ID)) {
				o->rec.port_id = w;
				o->present |= HPCC_OBS_PORT_ID;
			}
			break;
		default:	/* namespace data, checksum complement, buffer
				 * occupancy: not mapped
				 */
			break;
		}
		off += ioam_bit_bytes(b);
	}
	/* bits 12-21 (undefined) and the opaque state snapshot: skipped */
}

/*
 * The size of the node whose data start at @off of the @dlen-byte data
 * list @d, or 0 if it does not fit: @nb bytes, and with bit 22 a 4-byte
 * opaque state header (Length, 8 bits, in 4-byte words; Schema ID, 24)
 * and Length words.
 */
static size_t ioam_node_size(const uint8_t *d, size_t dlen, size_t off,
			     unsigned int nb, int oss)
{
	size_t sz = nb;

	if (oss) {
		if (dlen - off < (size_t)nb + 4)
			return 0;
		sz += 4 + (size_t)d[off + nb] * 4;
	}
	return dlen - off < sz ? 0 : sz;
}

enum hpcc_decode_err hpcc_decode_ioam(const void *buf, size_t len,
				      enum hpcc_ioam_ts_fmt fmt,
				      struct hpcc_hop_obs *hops,
				      unsigned int max_hops, uint8_t *nhop,
				      struct hpcc_ioam_info *info)
{
	const uint8_t *p = buf, *d;
	size_t total, dlen, off, sz;
	unsigned int nb, n, i;
	uint32_t type;
	uint8_t node_len, remaining;
	int oss;

	*nhop = 0;
	if (len < 2)
		return HPCC_DECODE_SHORT;
	if (p[0] != HPCC_IOAM_OPT_TYPE)
		return HPCC_DECODE_IOAM_TYPE;
	total = (size_t)p[1] + 2;
	if (total < HPCC_IOAM_HDR_LEN || len < total)
		return HPCC_DECODE_SHORT;
	if (p[3] != HPCC_IOAM_PREALLOC)
		return HPCC_DECODE_IOAM_TYPE;
	/* NodeLen (5) Flags (4) RemainingLen (7) */
	node_len = p[6] >> 3;
	remaining = p[7] & 0x7f;
	type = (uint32_t)p[8] << 16 | (uint32_t)p[9] << 8 | p[10];
	nb = hpcc_ioam_node_bytes(type);
	/* bit 23 is reserved: ignored on receipt (RFC 9197 section 4.4.1) */
	if (nb != node_len * 4U)
		return HPCC_DECODE_NODE_LEN;
	oss = ioam_bit(type, 22);
	d = p + HPCC_IOAM_HDR_LEN;
	dlen = total - HPCC_IOAM_HDR_LEN;
	if ((size_t)remaining * 4 > dlen)
		return HPCC_DECODE_STACK;
	/* the filled part: whole nodes from RemainingLen x 4 to the end */
	n = 0;
	for (off = (size_t)remaining * 4; off < dlen; off += sz) {
		sz = nb || oss ? ioam_node_size(d, dlen, off, nb, oss) : 0;
		if (!sz)
			return HPCC_DECODE_STACK;
		if (++n > max_hops || n > 255)
			return HPCC_DECODE_TOO_MANY;
	}
	if (info) {
		info->namespace_id = hpcc_get16(p + 4);
		info->trace_type = type;
		info->node_len = node_len;
		info->flags = (uint8_t)((p[6] & 7) << 1 | p[7] >> 7);
		info->remaining = remaining;
		info->len = total;
	}
	/* the filled part's first node is the most recent hop's */
	off = (size_t)remaining * 4;
	for (i = 0; i < n; i++) {
		ioam_node(d + off, type, fmt, &hops[n - 1 - i]);
		off += ioam_node_size(d, dlen, off, nb, oss);
	}
	*nhop = (uint8_t)n;
	return HPCC_DECODE_OK;
}

uint64_t hpcc_ifa_rate(unsigned int code)
{
	static const uint64_t gbit[] = { 10, 25, 40, 50, 100, 200, 400 };

	return code < sizeof(gbit) / sizeof(gbit[0]) ?
	       gbit[code] * 1000000000ULL : 0;
}

/*
 * One hop's 32 bytes at @p into @o.  LNS and device ID lead every hop's
 * metadata; what follows is the local namespace's own layout, decoded
 * only for HPCC_IFA_LNS's.  Returns 0 for a hop of another namespace.
 */
static int ifa_hop(const uint8_t *p, struct hpcc_hop_obs *o)
{
	uint32_t w0 = hpcc_get32(p), w1 = hpcc_get32(p + 4);
	uint32_t ns = hpcc_get32(p + 12);
	uint64_t rate = hpcc_ifa_rate(p[4] >> 4);

	memset(o, 0, sizeof(*o));
	o->rec.switch_id = (w0 >> 8) & 0xfffff;
	o->present = HPCC_OBS_SWITCH_ID;
	if (p[0] >> 4 != HPCC_IFA_LNS)
		return 0;
	o->present |= HPCC_OBS_PORT_ID | HPCC_OBS_HOP_LATENCY;
	o->rec.port_id = hpcc_get16(p + 8);
	o->hop_latency = hpcc_get32(p + 16);
	if (rate) {
		o->rec.rate = rate;
		o->present |= HPCC_OBS_RATE;
	}
	if (ns < 1000000000U) {
		o->rec.ts = (uint64_t)(w1 & 0xfffff) * 1000000000U + ns;
		o->present |= HPCC_OBS_TS;
	}
	return 1;
}

enum hpcc_decode_err hpcc_decode_ifa(const void *buf, size_t len,
				     struct hpcc_hop_obs *hops,
				     unsigned int max_hops, uint8_t *nhop,
				     struct hpcc_ifa_info *info)
{
	const uint8_t *p = buf;
	size_t l4, md, stack;
	unsigned int n, i;

	*nhop = 0;
	if (len < HPCC_IFA_HDR_LEN)
		return HPCC_DECODE_SHORT;
	if (p[0] >> 4 != HPCC_IFA_VERSION || (p[0] & 0xf) != HPCC_IFA_GNS_LOCAL ||
	    p[2] & (HPCC_IFA_FLAG_MF | HPCC_IFA_FLAG_TS | HPCC_IFA_FLAG_C))
		return HPCC_DECODE_IFA;
	switch (p[1]) {
	case 6:		/* TCP: Data Offset, the high 4 bits of byte 12 */
		if (len < HPCC_IFA_HDR_LEN + 13)
			return HPCC_DECODE_SHORT;
		l4 = (size_t)(p[HPCC_IFA_HDR_LEN + 12] >> 4) * 4;
		if (l4 < 20)
			return HPCC_DECODE_SHORT;
		break;
	case 17:	/* UDP */
		l4 = 8;
		break;
	default:
		return HPCC_DECODE_IFA;
	}
	md = HPCC_IFA_HDR_LEN + l4;
	if (len < md + HPCC_IFA_MD_HDR_LEN)
		return HPCC_DECODE_SHORT;
	stack = (size_t)p[md + 3] * 4;
	if (len - md - HPCC_IFA_MD_HDR_LEN < stack)
		return HPCC_DECODE_SHORT;
	if (stack % HPCC_IFA_HOP_LEN)
		return HPCC_DECODE_STACK;
	n = (unsigned int)(stack / HPCC_IFA_HOP_LEN);
	if (n > max_hops || n > 255)
		return HPCC_DECODE_TOO_MANY;
	if (info) {
		info->other_lns = 0;
		info->gns = p[0] & 0xf;
		info->next_hdr = p[1];
		info->flags = p[2];
		info->max_length = p[3];
		info->request_vector = p[md];
		info->action_vector = p[md + 1];
		info->hop_limit = p[md + 2];
		info->cur_length = p[md + 3];
		info->md_off = md;
		info->len = md + HPCC_IFA_MD_HDR_LEN + stack;
	}
	p += md + HPCC_IFA_MD_HDR_LEN;
	/* the stack's first entry is the last hop's */
	for (i = 0; i < n; i++)
		if (!ifa_hop(p + (size_t)i * HPCC_IFA_HOP_LEN,
			     &hops[n - 1 - i]) && info)
			info->other_lns++;
	*nhop = (uint8_t)n;
	return HPCC_DECODE_OK;
}

bool hpcc_obs_to_rec(const struct hpcc_hop_obs *obs,
		     const struct hpcc_obs_units *u, uint64_t rate,
		     struct hpcc_hop_rec *rec)
{
	bool queue = false, util = false;
	uint64_t v, lat;

	*rec = obs->rec;
	rec->tx_bytes = 0;
	rec->flags = HPCC_HOP_FLAGS_NO_TX_BYTES;
	rec->tx_util = 0;
	rec->qlen = 0;
	if (!(obs->present & HPCC_OBS_RATE))
		rec->rate = rate;
	if (obs->present & HPCC_OBS_QLEN) {
		v = (uint64_t)obs->rec.qlen * u->qlen_unit;
		rec->qlen = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		queue = true;
	} else if ((obs->present & HPCC_OBS_HOP_LATENCY) && rec->rate) {
		/* ns x bit/s / 8e9 in two steps that cannot overflow:
		 * latency < 2^32 ns, B / 1000 <= 1.6e9 for B <= 1.6e12
		 */
		lat = obs->hop_latency > u->base_ns ?
		      obs->hop_latency - u->base_ns : 0;
		v = rec->rate > HPCC_RATE_MAX ? UINT64_MAX :
		    lat * (rec->rate / 1000) / 8000000;
		rec->qlen = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		queue = true;
	}
	if ((obs->present & HPCC_OBS_TX_UTIL) && u->tx_util_full) {
		v = ((uint64_t)obs->tx_util << 16) / u->tx_util_full;
		rec->tx_util = v > HPCC_TX_UTIL_MAX ? HPCC_TX_UTIL_MAX : (uint32_t)v;
		rec->flags |= HPCC_HOP_FLAGS_TX_UTIL;
		util = true;
	}
	if (!(obs->present & HPCC_OBS_TS) || (!queue && !util)) {
		rec->ts = 0;
		return false;
	}
	return true;
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
		[HPCC_DECODE_STACK] = "stack",
		[HPCC_DECODE_TOO_MANY] = "too-many-hops",
		[HPCC_DECODE_IOAM_TYPE] = "ioam-type",
		[HPCC_DECODE_NODE_LEN] = "ioam-node-len",
		[HPCC_DECODE_IFA] = "ifa-header",
	};

	return (unsigned int)e < HPCC_DECODE_NUM ? names[e] : "unknown";
}
