// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_wire - libFuzzer target over hpcc_parse() (daemon/lib/hpcc_wire.c), the
 * code that reads probe and response packets from the network.
 *
 * Each input is parsed as it is, then again with its IPv4 header checksum
 * made valid, so that the fuzzer reaches the checks behind it (an IPv6
 * header has no checksum; the corpus has IPv4 and IPv6 probes).
 *
 * Invariants: parsing never reads outside the input (ASan) and never hits
 * undefined behaviour (UBSan); an accepted packet has 1 <= hop_cap <= 8
 * and nhop <= hop_cap and N <= 65535, an IOAM option it found ends
 * within the input, and an INT-MD stack it found is a probe's, at least
 * shim and metadata header long, and ends within the input (with the HPCC
 * header after it), and an IFA stack it found is a probe's, whole 32-byte
 * hops after the IFA, TCP and metadata headers, within the input with the
 * HPCC header after it; the response built from an accepted probe (with an N
 * extension) parses again with the same id, timestamp, hop records (their
 * flags and Tx utilization included), N, family, reversed addresses and
 * ports, and (IPv6) flow label.
 * An accepted packet's MAC extension (HPCC_WIRE_EXT_MAC) ends the packet's
 * payload and its W is 1..2^30.  The response built from an accepted probe
 * with every extension (mode, W, a MAC signed with a fixed key) parses
 * again with them, its MAC checks (hpcc_auth_check()), and any one byte
 * of what the MAC covers changed makes the check fail; so does the
 * private response that carries only U (HPCC_WIRE_EXT_U, its value from
 * the input), which parses again with that U and no records.
 */
#include <stdlib.h>
#include <string.h>

#include "hpcc_auth.h"
#include "hpcc_wire.h"

static struct hpcc_keyring ring;
static int ring_ready;

static void ring_init(void)
{
	struct hpccd_key *k = &ring.k[0];

	if (ring_ready)
		return;
	if (hpcc_auth_init())
		abort();
	k->id = 3;
	memset(k->key, 0x5a, sizeof(k->key));
	k->pfx.len = 0;		/* ::/0: every peer */
	ring.n = 1;
	ring_ready = 1;
}

/* The response from the probe @p with every extension, signed. */
static void check_signed(const struct hpcc_pkt *p, const unsigned char *data,
			 size_t len)
{
	struct hpcc_resp_opt o = {
		.n_flows = 1, .mode = HPCC_WIRE_MODE_RX,
		.w = p->nhop + 1, .mac_key_id = 3,
	};
	unsigned char out[HPCC_PKT_MAX];
	struct hpcc_pkt r;
	size_t n, at;

	ring_init();
	if (len && data[0] & 1)
		o.mode |= HPCC_WIRE_MODE_PRIVATE;
	if (len && data[0] & 2) {
		/* only U: a value from the input, 0 and 2^32 - 1 included */
		o.mode = HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U;
		o.w = 0;
		o.has_u = true;
		o.u = (uint32_t)p->probe_id;
	}
	n = hpcc_build_response_opt(out, p, 61, 1, &o);
	if (!n || hpcc_auth_sign(out, n, &ring.k[0]) ||
	    hpcc_parse(out, n, &r) != HPCC_PARSE_OK ||
	    r.w_rx != o.w || r.mac_key_id != 3 ||
	    r.has_u != o.has_u || r.u_rx != o.u ||
	    (r.mode & HPCC_WIRE_MODE_PRIVATE ? r.nhop != 0 : r.nhop != p->nhop) ||
	    hpcc_auth_check(&ring, out, &r, 0) != HPCC_AUTH_OK)
		abort();
	/* a covered byte, picked by the input: the check fails (or the
	 * packet no longer parses)
	 */
	at = r.hdr_off + (len ? data[len - 1] : 0) % (n - r.hdr_off);
	out[at] ^= 0x10;
	if (hpcc_parse(out, n, &r) == HPCC_PARSE_OK &&
	    hpcc_auth_check(&ring, out, &r, 0) <= HPCC_AUTH_OK_RETIRED)
		abort();
}

static void check(const unsigned char *data, size_t len)
{
	unsigned char out[HPCC_PKT_MAX];
	struct hpcc_pkt p, r;
	size_t n;

	if (hpcc_parse(data, len, &p) != HPCC_PARSE_OK)
		return;
	if (!p.hop_cap || p.hop_cap > HPCC_MAX_HOPS || p.nhop > p.hop_cap)
		abort();
	/* an IOAM option found lies within the packet */
	if (p.ioam_off && (size_t)p.ioam_off + p.ioam_len > len)
		abort();
	/* an INT-MD stack found: a probe's, whole, the HPCC header after it */
	if (p.int_off && (p.type != HPCC_WIRE_PROBE || p.int_len < 16 ||
			  (size_t)p.int_off + p.int_len + HPCC_WIRE_HDR_LEN >
			  len))
		abort();
	/* an IFA stack found: a probe's, not TCP's protocol, whole hops
	 * after the IFA, TCP (its data offset) and metadata headers, the
	 * HPCC header after it
	 */
	if (p.ifa_off) {
		size_t doff;

		if (p.type != HPCC_WIRE_PROBE || p.ifa_proto == 6 ||
		    (size_t)p.ifa_off + p.ifa_len + HPCC_WIRE_HDR_LEN > len)
			abort();
		doff = (size_t)(data[p.ifa_off + 4 + 12] >> 4) * 4;
		if (p.ifa_len < 8 + doff || (p.ifa_len - 8 - doff) % 32)
			abort();
	}
	if (p.mac_off && (size_t)p.mac_off + HPCC_WIRE_EXT_MAC_LEN > len)
		abort();
	if (p.w_rx > HPCC_WIRE_W_MAX)
		abort();
	if (p.type != HPCC_WIRE_PROBE) {
		ring_init();
		(void)hpcc_auth_check(&ring, data, &p, 0);
		return;
	}
	check_signed(&p, data, len);
	if (p.n_flows > 65535)
		abort();
	n = hpcc_build_response(out, &p, 61, 1, p.nhop + 1);
	if (!n || hpcc_parse(out, n, &r) != HPCC_PARSE_OK ||
	    r.n_flows != p.nhop + 1u ||
	    r.probe_id != p.probe_id || r.ts != p.ts || r.nhop != p.nhop ||
	    memcmp(r.hops, p.hops, sizeof(p.hops[0]) * p.nhop) ||
	    r.tuple.family != p.tuple.family ||
	    r.tuple.saddr != p.tuple.daddr || r.tuple.sport != p.tuple.dport ||
	    memcmp(r.tuple.saddr6, p.tuple.daddr6, 16) ||
	    memcmp(r.tuple.daddr6, p.tuple.saddr6, 16) ||
	    r.tuple.flowlabel != p.tuple.flowlabel)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	size_t ihl = len ? (size_t)(data[0] & 0xf) * 4 : 0, i;
	unsigned char *copy;
	uint32_t sum = 0;

	check(data, len);
	if (ihl < 20 || ihl > len)
		return 0;
	copy = malloc(len);
	if (!copy)
		return 0;
	memcpy(copy, data, len);
	copy[10] = copy[11] = 0;
	for (i = 0; i < ihl; i += 2)
		sum += copy[i] << 8 | copy[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	copy[10] = ~sum >> 8;
	copy[11] = ~sum;
	check(copy, len);
	free(copy);
	return 0;
}
