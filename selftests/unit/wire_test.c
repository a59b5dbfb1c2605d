// SPDX-License-Identifier: GPL-2.0
/*
 * wire_test - the probe/response builder and parser (daemon/lib/hpcc_wire.c).
 * Host test, built with ASan and UBSan.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "hpcc_wire.h"
#include "hpcc_decode.h"

#define OFF_HDR		(HPCC_IP_LEN + HPCC_TCP_LEN)
#define OFF_HOP(i)	(OFF_HDR + HPCC_WIRE_HDR_LEN + (i) * HPCC_WIRE_HOP_LEN)

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static const struct hpcc_tuple flow = {
	.saddr = 0x010012c6,	/* 198.18.0.1 in network order */
	.daddr = 0x020012c6,
	.sport = 0x409c,	/* 40000 */
	.dport = 0x5114,	/* 5201 */
};

/* Independent one's-complement sum, 16-bit big-endian words. */
static uint16_t fold(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i < len; i += 2)
		sum += (p[i] << 8) + (i + 1 < len ? p[i + 1] : 0);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static int tcp_csum_ok(const uint8_t *ip, size_t total)
{
	uint32_t sum = 6 + total - HPCC_IP_LEN;

	sum = fold(ip + 12, 8, sum);
	return fold(ip + HPCC_IP_LEN, total - HPCC_IP_LEN, sum) == 0xffff;
}

/* 2001:db8::1 -> 2001:db8::2, flow label 0xabcde */
static struct hpcc_tuple flow6(void)
{
	struct hpcc_tuple t = {
		.family = AF_INET6, .sport = 0x409c, .dport = 0x5114,
		.flowlabel = 0xabcde,
		.saddr6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		.daddr6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	};
	return t;
}

#define OFF_HDR6	(HPCC_IP6_LEN + HPCC_TCP_LEN)

/* TCP checksum over the IPv6 pseudo-header (RFC 8200 section 8.1), with
 * the TCP header at @off.
 */
static int tcp6_csum_ok(const uint8_t *ip, size_t off, size_t total)
{
	uint32_t sum = 6 + total - off;

	sum = fold(ip + 8, 32, sum);
	return fold(ip + off, total - off, sum) == 0xffff;
}

/* What an INT hop does: fill record nhop of the HPCC header at @off and
 * count it (no checksums).
 */
static void stamp_at(uint8_t *pkt, size_t off, uint32_t sw, uint64_t tx)
{
	uint8_t *h = pkt + off,
		*r = h + HPCC_WIRE_HDR_LEN + h[6] * HPCC_WIRE_HOP_LEN;
	uint64_t v;
	uint32_t w;

	w = htonl(sw);
	memcpy(r, &w, 4);
	w = htonl(3);
	memcpy(r + 4, &w, 4);
	v = htobe64(25000000000ULL);
	memcpy(r + 8, &v, 8);
	v = htobe64(1000000 + sw);
	memcpy(r + 16, &v, 8);
	v = htobe64(tx);
	memcpy(r + 24, &v, 8);
	w = htonl(1500 * sw);
	memcpy(r + 32, &w, 4);
	h[6]++;
}

static void stamp(uint8_t *pkt, uint32_t sw, uint64_t tx)
{
	stamp_at(pkt, OFF_HDR, sw, tx);
}

static void fix_ip_csum(uint8_t *ip)
{
	size_t ihl = (ip[0] & 0xf) * 4;

	ip[10] = ip[11] = 0;
	uint16_t c = ~fold(ip, ihl, 0);

	ip[10] = c >> 8;
	ip[11] = c;
}

TEST(probe_round_trip)
{
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n;

	n = hpcc_build_probe(buf, &flow, 60, 4, 0x1122334455667788ULL,
			     987654321ULL, 7);
	ASSERT_EQ(n, 20 + 20 + 24 + 4 * 40);
	EXPECT_EQ(buf[0], 0x45);
	EXPECT_EQ(buf[1], 60 << 2);
	EXPECT_EQ((buf[2] << 8) | buf[3], n);
	EXPECT_EQ(buf[6], 0x40);		/* DF */
	EXPECT_EQ(fold(buf, 20, 0), 0xffff);	/* IPv4 checksum */
	EXPECT_EQ(buf[20 + 13], 0);		/* no TCP flags */
	EXPECT_EQ(buf[20 + 12], 5 << 4);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(p.tuple.saddr, flow.saddr);
	EXPECT_EQ(p.tuple.daddr, flow.daddr);
	EXPECT_EQ(p.tuple.sport, flow.sport);
	EXPECT_EQ(p.tuple.dport, flow.dport);
	EXPECT_EQ(p.dscp, 60);
	EXPECT_EQ(p.type, HPCC_WIRE_PROBE);
	EXPECT_EQ(p.nhop, 0);
	EXPECT_EQ(p.hop_cap, 4);
	EXPECT_EQ(p.probe_id, 0x1122334455667788ULL);
	EXPECT_EQ(p.ts, 987654321ULL);
}

/* A probe that announces FCR support: the extension after the records,
 * lengths and checksum over it, and a receiver parses it as any probe.
 */
TEST(probe_fcr_extension)
{
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n, e;

	n = hpcc_build_probe_ext(buf, &flow, 60, 3, 0x55, 77, 9,
				 HPCC_PROBE_FCR);
	e = OFF_HOP(3);
	ASSERT_EQ(n, e + HPCC_WIRE_EXT_LEN);
	EXPECT_EQ((buf[2] << 8) | buf[3], n);
	EXPECT_EQ(fold(buf, 20, 0), 0xffff);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	EXPECT_EQ(buf[e], HPCC_WIRE_EXT_FCR);
	EXPECT_EQ(buf[e + 1], HPCC_WIRE_EXT_LEN);
	EXPECT_EQ(0, memcmp(buf + e + 2, "\0\0\0\0\0\x01", 6));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(p.type, HPCC_WIRE_PROBE);
	EXPECT_EQ(p.hop_cap, 3);
	EXPECT_EQ(p.probe_id, 0x55);
	/* the same ranges as hpcc_build_probe() */
	EXPECT_EQ(0, hpcc_build_probe_ext(buf, &flow, 0, 3, 1, 1, 1,
					  HPCC_PROBE_FCR));
	EXPECT_EQ(0, hpcc_build_probe_ext(buf, &flow, 60, 0, 1, 1, 1,
					  HPCC_PROBE_FCR));
	EXPECT_EQ(0, hpcc_build_probe_ext(buf, &flow, 60, HPCC_MAX_HOPS + 1,
					  1, 1, 1, HPCC_PROBE_FCR));
}

/*
 * The CC indicator (CCM section 6.1): HPCC_WIRE_EXT_CCM, value bit 0,
 * after the FCR flag when both; no extension, the plain probe; an unknown
 * bit, nothing built.
 */
TEST(probe_cc_extension)
{
	uint8_t buf[HPCC_PKT_MAX], plain[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n, e = OFF_HOP(3);

	n = hpcc_build_probe_ext(buf, &flow, 60, 3, 0x55, 77, 9,
				 HPCC_PROBE_CC);
	ASSERT_EQ(n, e + HPCC_WIRE_EXT_LEN);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	EXPECT_EQ(buf[e], HPCC_WIRE_EXT_CCM);
	EXPECT_EQ(buf[e + 1], HPCC_WIRE_EXT_LEN);
	EXPECT_EQ(0, memcmp(buf + e + 2, "\0\0\0\0\0\x01", 6));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);

	n = hpcc_build_probe_ext(buf, &flow, 60, 3, 0x55, 77, 9,
				 HPCC_PROBE_FCR | HPCC_PROBE_CC);
	ASSERT_EQ(n, e + 2 * HPCC_WIRE_EXT_LEN);
	EXPECT_EQ((buf[2] << 8) | buf[3], n);
	EXPECT_EQ(fold(buf, 20, 0), 0xffff);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	EXPECT_EQ(buf[e], HPCC_WIRE_EXT_FCR);
	EXPECT_EQ(buf[e + HPCC_WIRE_EXT_LEN], HPCC_WIRE_EXT_CCM);
	EXPECT_EQ(buf[e + HPCC_WIRE_EXT_LEN + 7], HPCC_WIRE_CCM_CC);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);

	n = hpcc_build_probe_ext(buf, &flow, 60, 3, 0x55, 77, 9, 0);
	ASSERT_EQ(n, hpcc_build_probe(plain, &flow, 60, 3, 0x55, 77, 9));
	EXPECT_EQ(0, memcmp(buf, plain, n));
	EXPECT_EQ(0, hpcc_build_probe_ext(buf, &flow, 60, 3, 1, 1, 1, 32));
}

/*
 * The AR indicator (CCM section 6.1, struct hpcc_wire_ext_ar): last, 24
 * bytes, switch_ID 0 and no flag (the sender is the AR point), the
 * sender's address: IPv4-mapped for IPv4, as it is for IPv6; a receiver
 * parses the probe as any other.
 */
TEST(probe_ar_extension)
{
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff,
					    198, 18, 0, 1 };
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_tuple t6 = flow6();
	struct hpcc_pkt p;
	size_t n, e = OFF_HOP(3);

	n = hpcc_build_probe_ext(buf, &flow, 60, 3, 0x55, 77, 9,
				 HPCC_PROBE_FCR | HPCC_PROBE_CC | HPCC_PROBE_AR);
	ASSERT_EQ(n, e + 2 * HPCC_WIRE_EXT_LEN + HPCC_WIRE_EXT_AR_LEN);
	EXPECT_EQ((buf[2] << 8) | buf[3], n);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	e += 2 * HPCC_WIRE_EXT_LEN;
	EXPECT_EQ(buf[e], HPCC_WIRE_EXT_AR);
	EXPECT_EQ(buf[e + 1], HPCC_WIRE_EXT_AR_LEN);
	EXPECT_EQ(0, memcmp(buf + e + 2, "\0\0\0\0\0\0", 6));
	EXPECT_EQ(0, memcmp(buf + e + HPCC_WIRE_EXT_LEN, mapped, 16));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);

	n = hpcc_build_probe_ext(buf, &t6, 60, 3, 0x55, 77, 9, HPCC_PROBE_AR);
	e = OFF_HDR6 + HPCC_WIRE_HDR_LEN + 3 * HPCC_WIRE_HOP_LEN;
	ASSERT_EQ(n, e + HPCC_WIRE_EXT_AR_LEN);
	EXPECT_TRUE(tcp6_csum_ok(buf, HPCC_IP6_LEN, n));
	EXPECT_EQ(buf[e], HPCC_WIRE_EXT_AR);
	EXPECT_EQ(0, memcmp(buf + e + HPCC_WIRE_EXT_LEN, t6.saddr6, 16));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
}

TEST(response_carries_hops_back)
{
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX];
	struct hpcc_pkt p, r;
	size_t n, m;
	int i;

	n = hpcc_build_probe(buf, &flow, 60, 8, 42, 1000, 1);
	stamp(buf, 1, 111);
	stamp(buf, 2, 222);
	stamp(buf, 3, 333);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	ASSERT_EQ(p.nhop, 3);
	m = hpcc_build_response(out, &p, 61, 9, 0);
	ASSERT_EQ(m, 20 + 20 + 24 + 3 * 40);	/* hop_cap shrinks to nhop */
	EXPECT_TRUE(tcp_csum_ok(out, m));
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.type, HPCC_WIRE_RESPONSE);
	EXPECT_EQ(r.dscp, 61);
	EXPECT_EQ(r.tuple.saddr, flow.daddr);
	EXPECT_EQ(r.tuple.daddr, flow.saddr);
	EXPECT_EQ(r.tuple.sport, flow.dport);
	EXPECT_EQ(r.tuple.dport, flow.sport);
	EXPECT_EQ(r.probe_id, 42);
	EXPECT_EQ(r.ts, 1000);
	ASSERT_EQ(r.nhop, 3);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(r.hops[i].switch_id, i + 1);
		EXPECT_EQ(r.hops[i].port_id, 3);
		EXPECT_EQ(r.hops[i].rate, 25000000000ULL);
		EXPECT_EQ(r.hops[i].ts, 1000000 + i + 1);
		EXPECT_EQ(r.hops[i].tx_bytes, 111 * (i + 1));
		EXPECT_EQ(r.hops[i].qlen, 1500 * (i + 1));
	}
}

TEST(response_without_hops)
{
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX];
	struct hpcc_pkt p, r;
	size_t n;

	n = hpcc_build_probe(buf, &flow, 60, 2, 5, 6, 1);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	n = hpcc_build_response(out, &p, 61, 1, 0);
	ASSERT_EQ(n, 20 + 20 + 24 + 40);
	ASSERT_EQ(hpcc_parse(out, n, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.nhop, 0);
	EXPECT_EQ(r.hop_cap, 1);
	/* a response is not answered */
	EXPECT_EQ(hpcc_build_response(buf, &r, 61, 1, 0), 0);
}

/* Fix the IPv4 total length and header checksum after editing a packet. */
static void refix_ip(uint8_t *ip, size_t total)
{
	uint16_t c;

	ip[2] = total >> 8;
	ip[3] = total;
	ip[10] = ip[11] = 0;
	c = ~fold(ip, HPCC_IP_LEN, 0);
	ip[10] = c >> 8;
	ip[11] = c;
}

/*
 * Receiver-reported N travels in an extension after the records; unknown
 * extensions are skipped, malformed ones refuse the packet, and a
 * response without one (a version-1 receiver) has N 0.
 */
TEST(response_n_flows_extension)
{
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX + 64];
	struct hpcc_pkt p, r;
	size_t n, m, base;

	n = hpcc_build_probe(buf, &flow, 60, 4, 42, 1000, 1);
	stamp(buf, 1, 111);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(p.n_flows, 0);
	base = 20 + 20 + 24 + 40;
	m = hpcc_build_response(out, &p, 61, 9, 12);
	ASSERT_EQ(m, base + HPCC_WIRE_EXT_LEN);
	EXPECT_TRUE(tcp_csum_ok(out, m));
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.n_flows, 12);
	EXPECT_EQ(r.nhop, 1);
	/* N above 16 bits is sent as 65535 */
	m = hpcc_build_response(out, &p, 61, 9, 70000);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.n_flows, 65535);
	/* an unknown kind before it is skipped: kind 9, 12 bytes */
	m = hpcc_build_response(out, &p, 61, 9, 7);
	memmove(out + base + 12, out + base, HPCC_WIRE_EXT_LEN);
	memset(out + base, 0, 12);
	out[base] = 9;
	out[base + 1] = 12;
	refix_ip(out, m + 12);
	ASSERT_EQ(hpcc_parse(out, m + 12, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.n_flows, 7);
	/* malformed: a length not a multiple of 4, shorter than 8, beyond
	 * the packet; N 0; N above 65535; more than HPCC_WIRE_EXT_MAX bytes
	 */
	m = hpcc_build_response(out, &p, 61, 9, 7);
	out[base + 1] = 10;
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	out[base + 1] = 4;
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	out[base + 1] = 16;
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	out[base + 1] = 8;
	memset(out + base + 4, 0, 4);
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	out[base + 5] = 1;	/* 65536 */
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	memset(out + base, 0, HPCC_WIRE_EXT_MAX + 8);
	out[base] = 9;
	out[base + 1] = 8;
	refix_ip(out, base + HPCC_WIRE_EXT_MAX + 8);
	EXPECT_EQ(hpcc_parse(out, base + HPCC_WIRE_EXT_MAX + 8, &r),
		  HPCC_PARSE_EXT);
	/* fewer than 4 bytes after the records are padding */
	m = hpcc_build_response(out, &p, 61, 9, 0);
	memset(out + m, 0, 3);
	refix_ip(out, m + 3);
	ASSERT_EQ(hpcc_parse(out, m + 3, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.n_flows, 0);
}

/*
 * Receiver-based HPCC and the privacy mode: a probe asks by
 * HPCC_WIRE_EXT_MODE; a response carries the mode bits, W when sent, and
 * room for a MAC last; private responses carry no records.  W 0 or above
 * 2^30, a MAC of another length, with key id 0 or not last are refused.
 */
TEST(mode_w_and_mac_extensions)
{
	struct hpcc_resp_opt o = { .n_flows = 3, .mode = HPCC_WIRE_MODE_RX,
				   .w = 50000, .mac_key_id = 9 };
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX];
	struct hpcc_pkt p, r;
	size_t n, m, base;

	n = hpcc_build_probe_ext(buf, &flow, 60, 2, 42, 1000, 1,
				 HPCC_PROBE_RX);
	ASSERT_EQ(n, 20 + 20 + 24 + 2 * 40 + HPCC_WIRE_EXT_LEN);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	stamp(buf, 1, 111);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(p.mode, HPCC_WIRE_MODE_RX);
	EXPECT_EQ(p.w_rx, 0);
	EXPECT_EQ(p.mac_off, 0);
	EXPECT_EQ(p.hdr_off, 40);

	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	base = 20 + 20 + 24 + 40;
	ASSERT_EQ(m, base + 3 * HPCC_WIRE_EXT_LEN + HPCC_WIRE_EXT_MAC_LEN);
	EXPECT_TRUE(tcp_csum_ok(out, m));
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.n_flows, 3);
	EXPECT_EQ(r.mode, HPCC_WIRE_MODE_RX);
	EXPECT_EQ(r.w_rx, 50000);
	EXPECT_EQ(r.mac_key_id, 9);
	EXPECT_EQ(r.mac_off, base + 3 * HPCC_WIRE_EXT_LEN);
	EXPECT_EQ(r.nhop, 1);

	/* W above 2^30 is sent as 2^30; W 0 or above refuses the packet */
	o.w = 0xffffffff;
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.w_rx, HPCC_WIRE_W_MAX);
	put_be32(out + base + 2 * HPCC_WIRE_EXT_LEN + 4, HPCC_WIRE_W_MAX + 1);
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	put_be32(out + base + 2 * HPCC_WIRE_EXT_LEN + 4, 0);
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);

	/* a MAC with key id 0, of 16 bytes, or not last is malformed */
	o.w = 1;
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	put_be32(out + base + 3 * HPCC_WIRE_EXT_LEN + 4, 0);
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	out[base + 3 * HPCC_WIRE_EXT_LEN + 1] = 16;
	EXPECT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_EXT);
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	memset(out + m, 0, 8);
	out[m] = 9;
	out[m + 1] = 8;
	refix_ip(out, m + 8);
	EXPECT_EQ(hpcc_parse(out, m + 8, &r), HPCC_PARSE_EXT);

	/* private: no records, whatever the probe had */
	o = (struct hpcc_resp_opt){ .mode = HPCC_WIRE_MODE_PRIVATE };
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(m, 20 + 20 + 24 + 40 + HPCC_WIRE_EXT_LEN);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.nhop, 0);
	EXPECT_EQ(r.hop_cap, 1);
	EXPECT_EQ(r.mode, HPCC_WIRE_MODE_PRIVATE);
	/* unknown mode bits are dropped */
	o.mode = 0xf0 | HPCC_WIRE_MODE_REFUSED;
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.mode, HPCC_WIRE_MODE_REFUSED);
	EXPECT_EQ(r.nhop, 1);
}

/*
 * The privacy mode that carries only U (section 9.1): a private response
 * with HPCC_WIRE_MODE_U, HPCC_WIRE_EXT_U (U 0 included: present is not
 * the same as 0) before the MAC, and no records.
 */
TEST(private_u_extension)
{
	struct hpcc_resp_opt o = {
		.mode = HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U,
		.has_u = true, .u = 3 << (HPCC_WIRE_U_SHIFT - 1),
		.mac_key_id = 5,
	};
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX];
	size_t n, m, base = 20 + 20 + 24 + 40;
	struct hpcc_pkt p, r;

	n = hpcc_build_probe(buf, &flow, 60, 2, 42, 1000, 1);
	stamp(buf, 1, 111);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_FALSE(p.has_u);
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(m, base + 2 * HPCC_WIRE_EXT_LEN + HPCC_WIRE_EXT_MAC_LEN);
	EXPECT_TRUE(tcp_csum_ok(out, m));
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.nhop, 0);
	EXPECT_EQ(r.mode, HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U);
	EXPECT_TRUE(r.has_u);
	EXPECT_EQ(r.u_rx, 0x18000);
	EXPECT_EQ(r.mac_key_id, 5);
	EXPECT_EQ(r.mac_off, base + 2 * HPCC_WIRE_EXT_LEN);
	EXPECT_EQ(out[base + HPCC_WIRE_EXT_LEN], HPCC_WIRE_EXT_U);
	/* U 0 is a value; no extension is none */
	o.u = 0;
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_TRUE(r.has_u);
	EXPECT_EQ(r.u_rx, 0);
	o.has_u = false;
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(m, base + HPCC_WIRE_EXT_LEN + HPCC_WIRE_EXT_MAC_LEN);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_FALSE(r.has_u);
	EXPECT_EQ(r.mode, HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U);
	/* the largest U */
	o.has_u = true;
	o.u = 0xffffffff;
	m = hpcc_build_response_opt(out, &p, 61, 9, &o);
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.u_rx, 0xffffffff);
}

TEST(builder_ranges)
{
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n;

	EXPECT_EQ(hpcc_build_probe(buf, &flow, 0, 4, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe(buf, &flow, 64, 4, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe(buf, &flow, 60, 0, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe(buf, &flow, 60, 9, 1, 1, 1), 0);
	n = hpcc_build_probe(buf, &flow, 63, 8, 1, 1, 1);
	EXPECT_EQ(n, HPCC_PKT_MAX - HPCC_WIRE_EXT_MAX - HPCC_HBH_IOAM_MAX -
		  HPCC_INTMD_MAX - HPCC_IFA_MAX - 20);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(hpcc_build_response(buf, &p, 0, 1, 0), 0);
	EXPECT_EQ(hpcc_build_response(buf, &p, 64, 1, 0), 0);
}

/* IPv4 options and TCP options move the HPCC header; both are accepted. */
TEST(options_accepted)
{
	uint8_t buf[HPCC_PKT_MAX + 8], src[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n = hpcc_build_probe(src, &flow, 60, 1, 77, 1, 1);

	/* 4 bytes of IPv4 options (NOPs), 4 of TCP options (NOPs) */
	memcpy(buf, src, 20);
	memset(buf + 20, 1, 4);
	memcpy(buf + 24, src + 20, 20);
	memset(buf + 44, 1, 4);
	memcpy(buf + 48, src + 40, n - 40);
	buf[0] = 0x46;
	buf[24 + 12] = 6 << 4;
	buf[2] = (n + 8) >> 8;
	buf[3] = n + 8;
	fix_ip_csum(buf);
	ASSERT_EQ(hpcc_parse(buf, n + 8, &p), HPCC_PARSE_OK);
	EXPECT_EQ(p.probe_id, 77);
	EXPECT_EQ(p.tuple.sport, flow.sport);
}

/* Each malformation: change one thing in a valid probe. */
struct bad_case {
	const char *what;
	size_t off;		/* byte to set, or (size_t)-1 */
	uint8_t val;
	size_t cut;		/* bytes to remove from the end */
	int fix_csum;
	enum hpcc_parse_err want;
};

static const struct bad_case bad_cases[] = {
	{ "version 5", 0, 0x55, 0, 1, HPCC_PARSE_IP_VERSION },
	{ "ihl 4", 0, 0x44, 0, 1, HPCC_PARSE_IP_VERSION },
	{ "total length past the buffer", 2, 0x10, 0, 1, HPCC_PARSE_IP_LEN },
	{ "bad ip checksum", 10, 0x00, 0, 0, HPCC_PARSE_IP_CSUM },
	{ "more fragments", 6, 0x20, 0, 1, HPCC_PARSE_FRAGMENT },
	{ "udp", 9, 17, 0, 1, HPCC_PARSE_NOT_TCP },
	{ "doff 4", 32, 4 << 4, 0, 1, HPCC_PARSE_TCP_DOFF },
	{ "doff 15 past the end", 32, 15 << 4, 80, 1, HPCC_PARSE_TCP_DOFF },
	{ "seq 1", 27, 1, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "ack 1", 31, 1, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "reserved bit", 32, (5 << 4) | 1, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "SYN", 33, 0x02, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "ACK", 33, 0x10, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "window 1", 35, 1, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "urgent pointer 1", 39, 1, 0, 1, HPCC_PARSE_TCP_FIELDS },
	{ "magic", OFF_HDR, 0x49, 0, 1, HPCC_PARSE_MAGIC },
	{ "version 2", OFF_HDR + 4, 2, 0, 1, HPCC_PARSE_VERSION },
	{ "type 3", OFF_HDR + 5, 3, 0, 1, HPCC_PARSE_TYPE },
	{ "type 0", OFF_HDR + 5, 0, 0, 1, HPCC_PARSE_TYPE },
	{ "hop_cap 0", OFF_HDR + 7, 0, 0, 1, HPCC_PARSE_HOP_CAP },
	{ "hop_cap 9", OFF_HDR + 7, 9, 0, 1, HPCC_PARSE_HOP_CAP },
	{ "nhop above hop_cap", OFF_HDR + 6, 3, 0, 1, HPCC_PARSE_NHOP },
	{ "hop_cap above the records", OFF_HDR + 7, 3, 0, 1,
	  HPCC_PARSE_TRUNCATED },
	{ "truncated records", (size_t)-1, 0, 1, 1, HPCC_PARSE_TRUNCATED },
	{ "short", (size_t)-1, 0, 2 * 40 + 20, 1, HPCC_PARSE_SHORT },
};

TEST(malformed_rejected)
{
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t i, n;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];

		n = hpcc_build_probe(buf, &flow, 60, 2, 1, 1, 1);
		if (c->off != (size_t)-1)
			buf[c->off] = c->val;
		if (c->cut) {
			n -= c->cut;
			buf[2] = n >> 8;
			buf[3] = n;
		}
		if (c->fix_csum)
			fix_ip_csum(buf);
		EXPECT_EQ(hpcc_parse(buf, n, &p), c->want)
			TH_LOG("%s: got %s", c->what,
			       hpcc_parse_err_name(hpcc_parse(buf, n, &p)));
	}
	/* the buffer is shorter than the IPv4 total length */
	n = hpcc_build_probe(buf, &flow, 60, 2, 1, 1, 1);
	EXPECT_EQ(hpcc_parse(buf, n - 1, &p), HPCC_PARSE_IP_LEN);
	EXPECT_EQ(hpcc_parse(buf, 0, &p), HPCC_PARSE_SHORT);
	EXPECT_STREQ(hpcc_parse_err_name(HPCC_PARSE_TRUNCATED), "truncated");
	EXPECT_STREQ(hpcc_parse_err_name(HPCC_PARSE_NUM), "?");
}

TEST(probe6_round_trip)
{
	struct hpcc_tuple t = flow6();
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n;

	n = hpcc_build_probe(buf, &t, 60, 4, 0x1122334455667788ULL,
			     987654321ULL, 7);
	ASSERT_EQ(n, 40 + 20 + 24 + 4 * 40);
	/* version 6, traffic class 60 << 2, flow label 0xabcde */
	EXPECT_EQ(buf[0], 0x60 | (60 << 2) >> 4);
	EXPECT_EQ(buf[1], ((60 << 2) & 0xf) << 4 | 0xa);
	EXPECT_EQ(buf[2], 0xbc);
	EXPECT_EQ(buf[3], 0xde);
	EXPECT_EQ((buf[4] << 8) | buf[5], n - 40);	/* payload length */
	EXPECT_EQ(buf[6], 6);				/* next header TCP */
	EXPECT_EQ(buf[7], 64);				/* hop limit */
	EXPECT_EQ(0, memcmp(buf + 8, t.saddr6, 16));
	EXPECT_EQ(0, memcmp(buf + 24, t.daddr6, 16));
	EXPECT_EQ(buf[40 + 13], 0);
	EXPECT_TRUE(tcp6_csum_ok(buf, 40, n));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(p.tuple.family, AF_INET6);
	EXPECT_EQ(0, memcmp(p.tuple.saddr6, t.saddr6, 16));
	EXPECT_EQ(0, memcmp(p.tuple.daddr6, t.daddr6, 16));
	EXPECT_EQ(p.tuple.flowlabel, 0xabcde);
	EXPECT_EQ(p.tuple.sport, t.sport);
	EXPECT_EQ(p.tuple.dport, t.dport);
	EXPECT_EQ(p.dscp, 60);
	EXPECT_EQ(p.type, HPCC_WIRE_PROBE);
	EXPECT_EQ(p.hop_cap, 4);
	EXPECT_EQ(p.probe_id, 0x1122334455667788ULL);
	EXPECT_EQ(p.ts, 987654321ULL);
	/* the largest probe is the largest packet but for extensions and
	 * an IOAM probe's hop-by-hop header
	 */
	n = hpcc_build_probe(buf, &t, 63, 8, 1, 1, 1);
	EXPECT_EQ(n, HPCC_PKT_MAX - HPCC_WIRE_EXT_MAX - HPCC_HBH_IOAM_MAX -
		  HPCC_INTMD_MAX - HPCC_IFA_MAX);
	/* a flow label beyond 20 bits, an unknown family */
	t.flowlabel = 0x100000;
	EXPECT_EQ(hpcc_build_probe(buf, &t, 60, 4, 1, 1, 1), 0);
	t = flow6();
	t.family = 99;
	EXPECT_EQ(hpcc_build_probe(buf, &t, 60, 4, 1, 1, 1), 0);
}

TEST(response6_reverses_and_keeps_label)
{
	struct hpcc_tuple t = flow6();
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX];
	struct hpcc_pkt p, r;
	size_t n, m;

	n = hpcc_build_probe(buf, &t, 60, 8, 42, 1000, 1);
	stamp_at(buf, OFF_HDR6, 1, 111);
	stamp_at(buf, OFF_HDR6, 2, 222);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	ASSERT_EQ(p.nhop, 2);
	m = hpcc_build_response(out, &p, 61, 9, 5);
	ASSERT_EQ(m, 40 + 20 + 24 + 2 * 40 + HPCC_WIRE_EXT_LEN);
	EXPECT_TRUE(tcp6_csum_ok(out, 40, m));
	ASSERT_EQ(hpcc_parse(out, m, &r), HPCC_PARSE_OK);
	EXPECT_EQ(r.type, HPCC_WIRE_RESPONSE);
	EXPECT_EQ(r.dscp, 61);
	EXPECT_EQ(r.tuple.family, AF_INET6);
	EXPECT_EQ(0, memcmp(r.tuple.saddr6, t.daddr6, 16));
	EXPECT_EQ(0, memcmp(r.tuple.daddr6, t.saddr6, 16));
	EXPECT_EQ(r.tuple.sport, t.dport);
	EXPECT_EQ(r.tuple.dport, t.sport);
	EXPECT_EQ(r.tuple.flowlabel, 0xabcde);
	EXPECT_EQ(r.n_flows, 5);
	ASSERT_EQ(r.nhop, 2);
	EXPECT_EQ(r.hops[1].switch_id, 2);
	EXPECT_EQ(r.hops[1].tx_bytes, 222);
}

/*
 * IPv6 extension headers before TCP: @nh headers of kind @kind (8 bytes
 * each; @segs segments left for a routing header) inserted into a valid
 * probe.  Returns hpcc_parse()'s verdict.
 */
static enum hpcc_parse_err parse_with_ext(uint8_t kind, int nh, uint8_t segs,
					  size_t cut)
{
	struct hpcc_tuple t = flow6();
	uint8_t src[HPCC_PKT_MAX], buf[HPCC_PKT_MAX + 80];
	struct hpcc_pkt p;
	size_t n = hpcc_build_probe(src, &t, 60, 2, 1, 1, 1), plen;
	int i;

	memcpy(buf, src, 40);
	for (i = 0; i < nh; i++) {
		uint8_t *e = buf + 40 + i * 8;

		memset(e, 0, 8);
		e[0] = i + 1 < nh ? kind : 6;
		e[2] = 0;		/* routing type */
		e[3] = segs;
	}
	buf[6] = nh ? kind : 6;
	memcpy(buf + 40 + nh * 8, src + 40, n - 40);
	n += nh * 8 - cut;
	plen = n - 40;
	buf[4] = plen >> 8;
	buf[5] = plen;
	return hpcc_parse(buf, n, &p);
}

TEST(ip6_extension_headers)
{
	/* skipped as the kernel's probe hook skips them */
	EXPECT_EQ(parse_with_ext(0, 1, 0, 0), HPCC_PARSE_OK);	/* hop-by-hop */
	EXPECT_EQ(parse_with_ext(60, 2, 0, 0), HPCC_PARSE_OK);	/* dest opts */
	EXPECT_EQ(parse_with_ext(43, 1, 0, 0), HPCC_PARSE_OK);	/* routing */
	EXPECT_EQ(parse_with_ext(60, 8, 0, 0), HPCC_PARSE_OK);
	/* refused */
	EXPECT_EQ(parse_with_ext(43, 1, 1, 0), HPCC_PARSE_IP6_EXTHDR);
	EXPECT_EQ(parse_with_ext(44, 1, 0, 0), HPCC_PARSE_IP6_EXTHDR);
	EXPECT_EQ(parse_with_ext(51, 1, 0, 0), HPCC_PARSE_IP6_EXTHDR);
	EXPECT_EQ(parse_with_ext(50, 1, 0, 0), HPCC_PARSE_IP6_EXTHDR);
	EXPECT_EQ(parse_with_ext(60, 9, 0, 0), HPCC_PARSE_IP6_EXTHDR);
	EXPECT_EQ(parse_with_ext(17, 1, 0, 0), HPCC_PARSE_NOT_TCP);
	EXPECT_STREQ(hpcc_parse_err_name(HPCC_PARSE_IP6_EXTHDR), "ip6-exthdr");
}

TEST(ip6_malformed_rejected)
{
	struct hpcc_tuple t = flow6();
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n = hpcc_build_probe(buf, &t, 60, 2, 1, 1, 1);

	/* shorter than IPv6 + TCP + HPCC header */
	EXPECT_EQ(hpcc_parse(buf, 40 + 20 + 23, &p), HPCC_PARSE_SHORT);
	/* payload length beyond the buffer */
	EXPECT_EQ(hpcc_parse(buf, n - 1, &p), HPCC_PARSE_IP_LEN);
	/* payload length too short for TCP and the HPCC header */
	buf[4] = 0;
	buf[5] = 20;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_IP_LEN);
	buf[4] = (n - 40) >> 8;
	buf[5] = n - 40;
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	/* the TCP and HPCC checks are the same as IPv4's */
	buf[40 + 13] = 0x02;		/* SYN */
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_TCP_FIELDS);
	buf[40 + 13] = 0;
	buf[OFF_HDR6 + 7] = 9;		/* hop_cap */
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_HOP_CAP);
	buf[OFF_HDR6 + 7] = 2;
	/* a hop-by-hop header that runs past the payload length */
	buf[6] = 0;
	buf[4] = 0;
	buf[5] = 4;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_IP6_EXTHDR);
}

/*
 * An IOAM probe: the option 4n-aligned in a hop-by-hop header of 8n bytes,
 * the TCP checksum over the upper-layer length, parsed with the option
 * found; empty it decodes to no hop; one node filled as Linux's transit
 * code fills it (its data at RemainingLen x 4 - NodeLen x 4, RemainingLen
 * then less by NodeLen) decodes to that hop.
 */
TEST(ioam_probe)
{
	struct hpcc_tuple t = flow6();
	uint8_t buf[HPCC_PKT_MAX], nhop, *o, *d;
	struct hpcc_ioam_info info;
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_pkt p;
	size_t n, hbh;
	uint8_t nodes;

	EXPECT_EQ(hpcc_build_probe_ioam(buf, &flow, 60, 1, 4, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_ioam(buf, &t, 60, 1, 0, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_ioam(buf, &t, 60, 1, 9, 1, 1), 0);
	for (nodes = 1; nodes <= HPCC_MAX_HOPS; nodes++) {
		n = hpcc_build_probe_ioam(buf, &t, 60, 123, nodes, 77, 5);
		ASSERT_LE(n, HPCC_PKT_MAX);
		hbh = ((size_t)buf[41] + 1) * 8;
		EXPECT_EQ(0, buf[6]);
		EXPECT_EQ(6, buf[40]);
		EXPECT_LE(16 + nodes * 20, hbh);
		/* room for the response: max(nodes, 2) records */
		EXPECT_EQ(n, 40 + hbh + 20 + HPCC_WIRE_HDR_LEN +
			  (nodes < 2 ? 2 : nodes) * HPCC_WIRE_HOP_LEN);
		EXPECT_TRUE(tcp6_csum_ok(buf, 40 + hbh, n));
		ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
		EXPECT_EQ(44, p.ioam_off);	/* 4n from the header's start */
		EXPECT_EQ(12 + nodes * 20, p.ioam_len);
		EXPECT_EQ(77, p.probe_id);
		ASSERT_EQ(HPCC_DECODE_OK,
			  hpcc_decode_ioam(buf + p.ioam_off, p.ioam_len,
					   HPCC_IOAM_TS_POSIX, h, HPCC_MAX_HOPS,
					   &nhop, &info));
		EXPECT_EQ(0, nhop);
		EXPECT_EQ(123, info.namespace_id);
		EXPECT_EQ(HPCC_IOAM_TRACE_TYPE, info.trace_type);
		EXPECT_EQ(nodes * 5, info.remaining);
	}
	/* a transit node fills the last slot (8 nodes built above) */
	o = buf + p.ioam_off;
	d = o + 12 + (size_t)o[7] * 4 - 20;
	put_be32(d, 63u << 24 | 5);		/* hop limit, node_id */
	put_be32(d + 4, 1u << 16 | 7);		/* ingress 1, egress 7 */
	put_be32(d + 8, 100);			/* seconds */
	put_be32(d + 12, 250);			/* microseconds */
	put_be32(d + 16, 3000);			/* backlog, bytes */
	o[7] -= 5;
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	ASSERT_EQ(HPCC_DECODE_OK,
		  hpcc_decode_ioam(buf + p.ioam_off, p.ioam_len,
				   HPCC_IOAM_TS_POSIX, h, HPCC_MAX_HOPS, &nhop,
				   NULL));
	ASSERT_EQ(1, nhop);
	EXPECT_EQ(5, h[0].rec.switch_id);
	EXPECT_EQ(7, h[0].rec.port_id);
	EXPECT_EQ(100000250000ULL, h[0].rec.ts);
	EXPECT_EQ(3000, h[0].rec.qlen);
	/* an IPv6 probe without a hop-by-hop header has no IOAM option */
	n = hpcc_build_probe(buf, &t, 60, 4, 1, 1, 1);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(0, p.ioam_off);
}

/*
 * A hop-by-hop header (RFC 8200 section 4.3) with two IOAM options (RFC
 * 9486 section 3: option type 0x31, length, reserved, IOAM option type),
 * each a trace header (RFC 9197 section 4.4.1: Namespace-ID 16, NodeLen 5,
 * Flags 4, RemainingLen 7, IOAM-Trace-Type 24, reserved 8) with bit 0
 * (hop_lim 8, node_id 24) only: first an incremental trace (IOAM option
 * type 1) holding node 9, then a pre-allocated one (type 0) with two slots,
 * the last filled by node 5.  Built by hand in front of a plain IPv6
 * probe's TCP header: the pre-allocated trace is the one found.
 */
TEST(ioam_prealloc_after_incremental)
{
	static const uint8_t hbh[40] = {
		6, 4,				/* next header TCP, 5 x 8 bytes */
		/* incremental trace, 16 bytes */
		0x31, 14, 0, 1,			/* IOAM, 14, reserved, incr. */
		0, 123,				/* Namespace-ID */
		1 << 3, 0,			/* NodeLen 1, RemainingLen 0 */
		0x80, 0, 0, 0,			/* trace type bit 0, reserved */
		63, 0, 0, 9,			/* hop_lim 63, node_id 9 */
		1, 0,				/* PadN: the next at 4n */
		/* pre-allocated trace, 20 bytes */
		0x31, 18, 0, 0,			/* IOAM, 18, reserved, prealloc */
		0, 123,				/* Namespace-ID */
		1 << 3, 1,			/* NodeLen 1, RemainingLen 1 */
		0x80, 0, 0, 0,			/* trace type bit 0, reserved */
		0, 0, 0, 0,			/* a free slot */
		62, 0, 0, 5,			/* hop_lim 62, node_id 5 */
	};
	struct hpcc_tuple t = flow6();
	uint8_t buf[HPCC_PKT_MAX], nhop;
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_pkt p;
	size_t n;

	n = hpcc_build_probe(buf, &t, 60, 4, 1, 1, 1);
	ASSERT_LE(n + sizeof(hbh), sizeof(buf));
	memmove(buf + 40 + sizeof(hbh), buf + 40, n - 40);
	memcpy(buf + 40, hbh, sizeof(hbh));
	n += sizeof(hbh);
	buf[6] = 0;				/* next header: hop-by-hop */
	buf[4] = (uint8_t)((n - 40) >> 8);	/* payload length */
	buf[5] = (uint8_t)(n - 40);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(40 + 20, p.ioam_off);
	EXPECT_EQ(20, p.ioam_len);
	ASSERT_EQ(HPCC_DECODE_OK,
		  hpcc_decode_ioam(buf + p.ioam_off, p.ioam_len,
				   HPCC_IOAM_TS_POSIX, h, HPCC_MAX_HOPS, &nhop,
				   NULL));
	ASSERT_EQ(1, nhop);
	EXPECT_EQ(5, h[0].rec.switch_id);
	/* no pre-allocated trace (the second an edge-to-edge option, type
	 * 3): the first IOAM option is kept, and the decoder refuses it
	 */
	buf[40 + 23] = 3;
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(40 + 2, p.ioam_off);
	EXPECT_EQ(16, p.ioam_len);
	EXPECT_EQ(HPCC_DECODE_IOAM_TYPE,
		  hpcc_decode_ioam(buf + p.ioam_off, p.ioam_len,
				   HPCC_IOAM_TS_POSIX, h, HPCC_MAX_HOPS, &nhop,
				   NULL));
}

/* A partial record's flags and Tx utilization survive a response; a full
 * record's are 0 on the wire; unknown bits and Tx utilization without
 * no-tx-bytes are ignored.
 */
TEST(partial_records_in_responses)
{
	uint8_t buf[HPCC_PKT_MAX], out[HPCC_PKT_MAX], *rec;
	struct hpcc_pkt p, r;
	size_t n;

	n = hpcc_build_probe(buf, &flow, 60, 2, 5, 6, 1);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	p.nhop = 2;
	p.hops[0] = (struct hpcc_hop_rec){ .switch_id = 1, .ts = 9,
		.tx_bytes = 5, .flags = HPCC_HOP_FLAGS_NO_TX_BYTES |
		HPCC_HOP_FLAGS_TX_UTIL, .tx_util = 49152 };
	p.hops[1] = (struct hpcc_hop_rec){ .switch_id = 2, .ts = 9,
		.tx_bytes = 5 };
	n = hpcc_build_response(out, &p, 61, 1, 0);
	ASSERT_GT(n, 0);
	ASSERT_EQ(hpcc_parse(out, n, &r), HPCC_PARSE_OK);
	EXPECT_EQ(HPCC_HOP_FLAGS_NO_TX_BYTES | HPCC_HOP_FLAGS_TX_UTIL,
		  r.hops[0].flags);
	EXPECT_EQ(49152, r.hops[0].tx_util);	/* Q15 on the wire, exact */
	EXPECT_EQ(0, r.hops[0].tx_bytes);	/* absent */
	EXPECT_EQ(0, r.hops[1].flags);
	EXPECT_EQ(5, r.hops[1].tx_bytes);
	rec = out + n - 2 * HPCC_WIRE_HOP_LEN;
	EXPECT_EQ(3, rec[36]);
	EXPECT_EQ(0, rec[HPCC_WIRE_HOP_LEN + 36]);
	/* unknown bits; tx-util without no-tx-bytes */
	rec[36] = 0x81;
	ASSERT_EQ(hpcc_parse(out, n, &r), HPCC_PARSE_OK);
	EXPECT_EQ(HPCC_HOP_FLAGS_NO_TX_BYTES, r.hops[0].flags);
	EXPECT_EQ(0, r.hops[0].tx_util);
	rec[36] = HPCC_HOP_FLAGS_TX_UTIL;
	ASSERT_EQ(hpcc_parse(out, n, &r), HPCC_PARSE_OK);
	EXPECT_EQ(0, r.hops[0].flags);
	EXPECT_EQ(0, r.hops[0].tx_util);
}

/*
 * intmd_push() - what an INT-MD transit hop does (P4.org INT v2.1 section
 * 5.8) to the IPv4 probe @pkt of *@n bytes whose shim is at @soff: push
 * one hop of the probe's instructions (switch ID @sw, ports 1 and 7,
 * queue occupancy @q, egress timestamp @ts, Tx utilization @u) in front
 * of the stack, grow the shim Length, IP total length, decrement the
 * Remaining Hop Count, and recompute both checksums.
 */
static void intmd_push(uint8_t *pkt, size_t *n, size_t soff, uint32_t sw,
		       uint32_t q, uint64_t ts, uint32_t u)
{
	size_t at = soff + HPCC_INTMD_HDR_LEN;
	uint8_t *m;
	uint32_t sum;

	memmove(pkt + at + HPCC_INTMD_HOP_LEN, pkt + at, *n - at);
	m = pkt + at;
	put_be32(m, sw);
	put_be32(m + 4, 1u << 16 | 7);
	put_be32(m + 8, q);
	put_be32(m + 12, (uint32_t)(ts >> 32));
	put_be32(m + 16, (uint32_t)ts);
	put_be32(m + 20, u);
	*n += HPCC_INTMD_HOP_LEN;
	pkt[soff + 1] += HPCC_INTMD_HOP_LEN / 4;
	pkt[soff + 4 + 3]--;
	pkt[2] = (uint8_t)(*n >> 8);
	pkt[3] = (uint8_t)*n;
	fix_ip_csum(pkt);
	/* TCP checksum over the new segment */
	pkt[20 + 16] = 0;
	pkt[20 + 17] = 0;
	sum = fold(pkt + 12, 8, 6 + (uint32_t)(*n - 20));
	sum = fold(pkt + 20, *n - 20, sum);
	pkt[20 + 16] = (uint8_t)(~sum >> 8);
	pkt[20 + 17] = (uint8_t)~sum;
}

/* An INT-MD probe is built, found by the parser in front of the HPCC
 * header, grows by two hops and decodes in path order; a response never
 * carries a stack; a malformed shim is refused.
 */
TEST(intmd_probe)
{
	struct hpcc_tuple t6 = flow6();
	uint8_t buf[HPCC_PKT_MAX], nhop;
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_intmd_info info;
	struct hpcc_pkt p;
	size_t n;

	EXPECT_EQ(hpcc_build_probe_intmd(buf, &flow, 60, 1, 0, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_intmd(buf, &flow, 60, 1, 9, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_intmd(buf, &flow, 0, 1, 4, 1, 1, 1), 0);
	n = hpcc_build_probe_intmd(buf, &t6, 60, 1, 4, 9, 5, 1);
	EXPECT_EQ(n, 40 + 20 + 16 + HPCC_WIRE_HDR_LEN + HPCC_WIRE_HOP_LEN);
	EXPECT_TRUE(tcp6_csum_ok(buf, 40, n));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(60, p.int_off);
	EXPECT_EQ(16, p.int_len);

	n = hpcc_build_probe_intmd(buf, &flow, 60, 1, 4, 77, 5, 1);
	EXPECT_EQ(n, 20 + 20 + 16 + HPCC_WIRE_HDR_LEN + HPCC_WIRE_HOP_LEN);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(40, p.int_off);
	EXPECT_EQ(16, p.int_len);
	EXPECT_EQ(77, p.probe_id);
	EXPECT_EQ(1, p.hop_cap);
	ASSERT_EQ(HPCC_DECODE_OK,
		  hpcc_decode_intmd(buf + p.int_off, p.int_len, h,
				    HPCC_MAX_HOPS, &nhop, &info));
	EXPECT_EQ(0, nhop);
	EXPECT_EQ(HPCC_INTMD_INSTRUCTIONS, info.instructions);
	EXPECT_EQ(HPCC_INTMD_HOP_LEN,
		  hpcc_intmd_hop_bytes(HPCC_INTMD_INSTRUCTIONS));
	EXPECT_EQ(HPCC_INTMD_HOP_LEN / 4, info.hop_ml);
	EXPECT_EQ(4, info.remaining);

	intmd_push(buf, &n, 40, 11, 1500, 1000, 0xffffffff);
	intmd_push(buf, &n, 40, 22, 0, 2000, 50);
	EXPECT_TRUE(tcp_csum_ok(buf, n));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(16 + 2 * HPCC_INTMD_HOP_LEN, p.int_len);
	EXPECT_EQ(77, p.probe_id);
	ASSERT_EQ(HPCC_DECODE_OK,
		  hpcc_decode_intmd(buf + p.int_off, p.int_len, h,
				    HPCC_MAX_HOPS, &nhop, &info));
	ASSERT_EQ(2, nhop);
	EXPECT_EQ(2, info.remaining);
	EXPECT_EQ(11, h[0].rec.switch_id);
	EXPECT_EQ(7, h[0].rec.port_id);
	EXPECT_EQ(1500, h[0].rec.qlen);
	EXPECT_EQ(1000, h[0].rec.ts);
	EXPECT_EQ(0, h[0].present & HPCC_OBS_TX_UTIL);	/* all ones */
	EXPECT_EQ(22, h[1].rec.switch_id);
	EXPECT_EQ(50, h[1].tx_util);

	/* NPT 1; a Length below the header; a Length past the packet */
	buf[40] |= 1 << 2;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_INT);
	buf[40] &= ~(1 << 2);
	buf[41] = 2;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_INT);
	buf[41] = 200;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_INT);
	EXPECT_STREQ("int-shim", hpcc_parse_err_name(HPCC_PARSE_INT));
	/* a response whose payload starts with a shim is refused */
	n = hpcc_build_probe_intmd(buf, &flow, 60, 1, 4, 77, 5, 1);
	buf[40 + 16 + 5] = HPCC_WIRE_RESPONSE;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_INT);
}

/* An IFA probe, IPv4 and IPv6: built with the protocol given, found by
 * the parser through its IFA header, TCP header, metadata header and
 * stack, grows by a hop and decodes; malformed stacks and an IFA
 * response are refused.
 */
/*
 * IFA's protocol: any number but those hosts and transit nodes handle
 * themselves, which IANA's registries name: ICMP 1, TCP 6, UDP 17, ICMPv6
 * 58, No Next Header 59, and "IPv6 Extension Header Types" (0, 43, 44, 50,
 * 51, 60, 135, 139, 140; 253 and 254, for experiments, are IFA's default)
 */
TEST(ifa_protocol_choices)
{
	static const uint8_t refused[] = {
		0, 1, 6, 17, 43, 44, 50, 51, 58, 59, 60, 135, 139, 140, 255,
	};
	unsigned int p, i, ok = 0;

	for (p = 0; p < 300; p++) {
		bool want = p < 256;

		for (i = 0; i < sizeof(refused); i++)
			want = want && p != refused[i];
		EXPECT_EQ(want, !!hpcc_wire_ifa_protocol_ok(p));
		ok += want;
	}
	EXPECT_EQ(256 - sizeof(refused), ok);
	EXPECT_TRUE(hpcc_wire_ifa_protocol_ok(131));	/* some IFA devices */
	EXPECT_TRUE(hpcc_wire_ifa_protocol_ok(253));
}

TEST(ifa_probe)
{
	struct hpcc_tuple t6 = flow6();
	uint8_t buf[HPCC_PKT_MAX], nhop, *m;
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_ifa_info info;
	struct hpcc_pkt p;
	size_t n, md;

	EXPECT_EQ(hpcc_build_probe_ifa(buf, &flow, 60, 6, 4, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_ifa(buf, &flow, 60, 60, 4, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_ifa(buf, &flow, 60, 255, 4, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_ifa(buf, &flow, 60, 253, 0, 1, 1, 1), 0);
	EXPECT_EQ(hpcc_build_probe_ifa(buf, &flow, 60, 253, 9, 1, 1, 1), 0);

	n = hpcc_build_probe_ifa(buf, &t6, 60, 253, 4, 9, 5, 1);
	EXPECT_EQ(n, 40 + 4 + 20 + 4 + HPCC_WIRE_HDR_LEN +
		  4 * HPCC_WIRE_HOP_LEN);
	EXPECT_EQ(253, buf[6]);
	EXPECT_TRUE(tcp6_csum_ok(buf, 44, n));
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(40, p.ifa_off);
	EXPECT_EQ(4 + 20 + 4, p.ifa_len);
	EXPECT_EQ(253, p.ifa_proto);
	EXPECT_EQ(9, p.probe_id);

	/* a protocol below IANA's unassigned range, as some IFA devices use */
	n = hpcc_build_probe_ifa(buf, &t6, 60, 131, 4, 9, 5, 1);
	ASSERT_NE(0, n);
	EXPECT_EQ(131, buf[6]);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(131, p.ifa_proto);

	n = hpcc_build_probe_ifa(buf, &flow, 60, 200, 4, 77, 5, 1);
	EXPECT_EQ(n, 20 + 4 + 20 + 4 + HPCC_WIRE_HDR_LEN +
		  4 * HPCC_WIRE_HOP_LEN);
	EXPECT_EQ(200, buf[9]);
	EXPECT_EQ(0xffff, fold(buf, 20, 0));	/* IPv4 header checksum */
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(20, p.ifa_off);
	EXPECT_EQ(200, p.ifa_proto);
	EXPECT_EQ(0, p.int_off);
	ASSERT_EQ(HPCC_DECODE_OK,
		  hpcc_decode_ifa(buf + p.ifa_off, p.ifa_len, h, HPCC_MAX_HOPS,
				  &nhop, &info));
	EXPECT_EQ(0, nhop);
	EXPECT_EQ(4, info.hop_limit);
	EXPECT_EQ(32, info.max_length);
	EXPECT_EQ(6, info.next_hdr);

	/* a hop pushes 32 bytes after the metadata header */
	md = 20 + 4 + 20;
	memmove(buf + md + 4 + 32, buf + md + 4, n - md - 4);
	memset(buf + md + 4, 0, 32);
	put_be32(buf + md + 4, 1u << 28 | 5u << 8 | 63);
	put_be32(buf + md + 8, 4u << 28 | 7);		/* 100G, 7 s */
	put_be32(buf + md + 12, 2u << 16 | 1);
	put_be32(buf + md + 16, 500);
	put_be32(buf + md + 20, 1200);
	m = buf + md;
	m[2]--;
	m[3] += 8;
	n += 32;
	buf[2] = (uint8_t)(n >> 8);
	buf[3] = (uint8_t)n;
	fix_ip_csum(buf);
	ASSERT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_OK);
	EXPECT_EQ(4 + 20 + 4 + 32, p.ifa_len);
	EXPECT_EQ(77, p.probe_id);
	ASSERT_EQ(HPCC_DECODE_OK,
		  hpcc_decode_ifa(buf + p.ifa_off, p.ifa_len, h, HPCC_MAX_HOPS,
				  &nhop, &info));
	ASSERT_EQ(1, nhop);
	EXPECT_EQ(5, h[0].rec.switch_id);
	EXPECT_EQ(2, h[0].rec.port_id);
	EXPECT_EQ(100000000000ULL, h[0].rec.rate);
	EXPECT_EQ(7000000500ULL, h[0].rec.ts);
	EXPECT_EQ(1200, h[0].hop_latency);

	/* Current Length not whole hops, past the packet; an IFA response;
	 * not IFA at all (version 1)
	 */
	m[3] = 4;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_IFA);
	m[3] = 64;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_IFA);
	m[3] = 8;
	buf[md + 4 + 32 + 5] = HPCC_WIRE_RESPONSE;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_IFA);
	EXPECT_STREQ("ifa", hpcc_parse_err_name(HPCC_PARSE_IFA));
	buf[20] = 0x1f;
	EXPECT_EQ(hpcc_parse(buf, n, &p), HPCC_PARSE_NOT_TCP);
}

/*
 * resp_max() - the largest response hpccd can build to @p with @nhop
 * records: N, receiver-based W (or only U), and a MAC
 */
static size_t resp_max(const struct hpcc_pkt *p, uint8_t nhop)
{
	struct hpcc_resp_opt rx = {
		.n_flows = 9, .mode = HPCC_WIRE_MODE_RX, .w = 1000,
		.mac_key_id = 1,
	};
	struct hpcc_resp_opt u = {
		.n_flows = 9, .mode = HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U,
		.has_u = true, .u = 1, .mac_key_id = 1,
	};
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt q = *p;
	size_t a, b;

	q.nhop = nhop;
	a = hpcc_build_response_opt(buf, &q, 61, 1, &rx);
	b = hpcc_build_response_opt(buf, &q, 61, 1, &u);
	return a > b ? a : b;
}

/*
 * No response is larger than its probe (a receiver refuses to send one
 * unless its operator allows it: no amplification), for every probe
 * hpccd builds: its own encoding padded (HPCC_PROBE_PAD) with any
 * extensions, and INT-MD (hop_cap max(hops, 2)), IFA and IOAM with any
 * number of hops that filled them, IPv4 and IPv6, 1 to HPCC_MAX_HOPS.
 * Without the room, a probe whose hops all stamped drew up to 48 bytes
 * more (N, mode, W, MAC), and an INT-MD, IFA or IOAM probe with one record
 * up to 2.6 times its size.
 */
TEST(response_no_larger_than_probe)
{
	static const unsigned int exts[] = {
		0, HPCC_PROBE_FCR, HPCC_PROBE_RX,
		HPCC_PROBE_FCR | HPCC_PROBE_CC | HPCC_PROBE_AR | HPCC_PROBE_RX,
	};
	struct hpcc_tuple ts[2] = { flow, flow6() };
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	unsigned int i, k;
	uint8_t h, n;
	size_t len;

	for (k = 0; k < 2; k++)
		for (h = 1; h <= HPCC_MAX_HOPS; h++) {
			for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
				len = hpcc_build_probe_ext(buf, &ts[k], 60, h, 5,
							   6, 1,
							   exts[i] |
							   HPCC_PROBE_PAD);
				ASSERT_GT(len, 0);
				ASSERT_EQ(HPCC_PARSE_OK,
					  hpcc_parse(buf, len, &p));
				/* every hop stamped its record */
				EXPECT_LE(resp_max(&p, h), len);
			}
			/* a hop pushes 24 (INT-MD) or 32 (IFA) bytes */
			len = hpcc_build_probe_intmd(buf, &ts[k], 60,
						     h < 2 ? 2 : h, h, 5, 6, 1);
			ASSERT_EQ(HPCC_PARSE_OK, hpcc_parse(buf, len, &p));
			for (n = 0; n <= h; n++)
				EXPECT_LE(resp_max(&p, n),
					  len + (size_t)n * HPCC_INTMD_HOP_LEN);
			len = hpcc_build_probe_ifa(buf, &ts[k], 60, 253, h, 5,
						   6, 1);
			ASSERT_EQ(HPCC_PARSE_OK, hpcc_parse(buf, len, &p));
			for (n = 0; n <= h; n++)
				EXPECT_LE(resp_max(&p, n), len + (size_t)n * 32);
			if (k == 0)
				continue;
			len = hpcc_build_probe_ioam(buf, &ts[k], 60, 1, h, 5, 6);
			ASSERT_EQ(HPCC_PARSE_OK, hpcc_parse(buf, len, &p));
			for (n = 0; n <= h; n++)
				EXPECT_LE(resp_max(&p, n), len);
		}
	/* the pad: kind HPCC_WIRE_EXT_PAD, the extensions brought to
	 * HPCC_WIRE_RESP_EXT_MAX, none when they take as many
	 */
	len = hpcc_build_probe_ext(buf, &flow, 60, 2, 5, 6, 1, HPCC_PROBE_PAD);
	EXPECT_EQ(len, hpcc_build_probe(buf, &flow, 60, 2, 5, 6, 1) +
		       HPCC_WIRE_RESP_EXT_MAX);
	len = hpcc_build_probe_ext(buf, &flow, 60, 2, 5, 6, 1, HPCC_PROBE_PAD);
	EXPECT_EQ(HPCC_WIRE_EXT_PAD, buf[len - HPCC_WIRE_RESP_EXT_MAX]);
	EXPECT_EQ(HPCC_WIRE_RESP_EXT_MAX, buf[len - HPCC_WIRE_RESP_EXT_MAX + 1]);
	EXPECT_TRUE(tcp_csum_ok(buf, len));
	len = hpcc_build_probe_ext(buf, &flow, 60, 2, 5, 6, 1,
				   HPCC_PROBE_FCR | HPCC_PROBE_CC |
				   HPCC_PROBE_AR | HPCC_PROBE_RX |
				   HPCC_PROBE_PAD);
	EXPECT_EQ(len, hpcc_build_probe_ext(buf, &flow, 60, 2, 5, 6, 1,
					    HPCC_PROBE_FCR | HPCC_PROBE_CC |
					    HPCC_PROBE_AR | HPCC_PROBE_RX));
}

TEST_HARNESS_MAIN
