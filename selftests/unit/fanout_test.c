// SPDX-License-Identifier: GPL-2.0
/*
 * fanout_test - hpccd's shards (daemon/hpccd/fanout.c): the classic BPF
 * program the kernel runs to give a packet to a shard computes, on every
 * packet hpccd builds (probes of each encoding, responses, both
 * families) and on IPv4 options and IPv6 extension header chains, the
 * hash hpccd_shard_of() computes from the flow's tuple; the hash is
 * symmetric and spreads flows.  The programs run in libpcap's classic BPF
 * interpreter (bpf_filter(), the same instruction set and semantics as
 * the kernel's for what they use).  Host test, built with ASan and UBSan.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <pcap/bpf.h>

#include "kselftest_harness.h"
#include "hpcc_wire.h"
#include "hpccd/fanout.h"

static uint32_t rnd = 2463534242u;

static uint32_t xorshift(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 17;
	rnd ^= rnd << 5;
	return rnd;
}

static struct hpcc_tuple random_tuple(int family)
{
	struct hpcc_tuple t;
	int i;

	memset(&t, 0, sizeof(t));
	t.family = family;
	t.sport = xorshift();
	t.dport = xorshift();
	if (family == AF_INET6) {
		for (i = 0; i < 16; i++) {
			t.saddr6[i] = xorshift();
			t.daddr6[i] = xorshift();
		}
		t.flowlabel = xorshift() & 0xfffff;
	} else {
		t.saddr = xorshift();
		t.daddr = xorshift();
	}
	return t;
}

/* what the kernel's fanout computes for @pkt: the program's return */
static uint32_t run(int family, const uint8_t *pkt, size_t len)
{
	struct sock_filter code[HPCCD_FANOUT_PROG_MAX];
	unsigned int n = hpccd_fanout_prog(family, code);

	if (n > HPCCD_FANOUT_PROG_MAX)
		return UINT32_MAX;
	if (!bpf_validate((const struct bpf_insn *)code, n))
		return UINT32_MAX - 1;
	return bpf_filter((const struct bpf_insn *)code, pkt, len, len);
}

/* Probes of each encoding and their responses land on the flow's shard. */
TEST(probes_and_responses)
{
	uint8_t buf[HPCC_PKT_MAX], rbuf[HPCC_PKT_MAX];
	struct hpcc_tuple t;
	struct hpcc_pkt p;
	size_t len, rlen;
	int i, kind;

	for (i = 0; i < 400; i++) {
		kind = i % 5;
		t = random_tuple(kind >= 3 ? AF_INET6 : AF_INET);
		switch (kind) {
		case 0:
		case 3:
			len = hpcc_build_probe(buf, &t, 40, 3, i, 1, i);
			break;
		case 1:
			len = hpcc_build_probe_intmd(buf, &t, 40, 3, 3, i, 1, i);
			break;
		case 2:
			len = hpcc_build_probe_ifa(buf, &t, 40, HPCC_IFA_PROTOCOL,
						   3, i, 1, i);
			break;
		default:
			len = hpcc_build_probe_ioam(buf, &t, 40, 1, 3, i, 1);
			break;
		}
		ASSERT_NE(0, len);
		ASSERT_EQ(HPCC_PARSE_OK, hpcc_parse(buf, len, &p));
		EXPECT_EQ(hpccd_fanout_hash(&t), run(t.family, buf, len));
		if (kind == 1 || kind == 2)
			continue;	/* stamped stacks: no response here */
		rlen = hpcc_build_response(rbuf, &p, 41, i, 0);
		ASSERT_NE(0, rlen);
		EXPECT_EQ(hpccd_fanout_hash(&t), run(t.family, rbuf, rlen));
	}
}

/* IPv4 options move the ports: the program reads IHL. */
TEST(ipv4_options)
{
	uint8_t buf[HPCC_PKT_MAX], opt[HPCC_PKT_MAX + 40];
	struct hpcc_tuple t = random_tuple(AF_INET);
	size_t len = hpcc_build_probe(buf, &t, 40, 3, 1, 1, 1);
	unsigned int words;

	ASSERT_NE(0, len);
	for (words = 1; words <= 10; words++) {
		memcpy(opt, buf, HPCC_IP_LEN);
		memset(opt + HPCC_IP_LEN, 1, words * 4);	/* NOPs */
		memcpy(opt + HPCC_IP_LEN + words * 4, buf + HPCC_IP_LEN,
		       len - HPCC_IP_LEN);
		opt[0] = 0x40 | (5 + words);
		EXPECT_EQ(hpccd_fanout_hash(&t),
			  run(AF_INET, opt, len + words * 4));
	}
}

/*
 * IPv6 extension headers move the ports: the program walks as many
 * hop-by-hop, routing and destination options headers as hpcc_parse(),
 * each of its own length.
 */
TEST(ipv6_extension_headers)
{
	static const uint8_t kinds[] = { 0, 60, 43, 60 };
	uint8_t buf[HPCC_PKT_MAX], x[HPCC_PKT_MAX + 1024];
	struct hpcc_tuple t = random_tuple(AF_INET6);
	size_t len = hpcc_build_probe(buf, &t, 40, 3, 1, 1, 1), off;
	unsigned int n, i, units;

	ASSERT_NE(0, len);
	for (n = 1; n <= HPCC_IP6_MAX_EXTHDRS; n++) {
		memcpy(x, buf, HPCC_IP6_LEN);
		off = HPCC_IP6_LEN;
		x[6] = kinds[0];
		for (i = 0; i < n; i++) {
			units = (i * 7) % 4;	/* 8 to 32 bytes */
			memset(x + off, 0, (units + 1) * 8);
			x[off] = i + 1 < n ? kinds[(i + 1) % 4] : 6;
			x[off + 1] = units;
			off += (units + 1) * 8;
		}
		memcpy(x + off, buf + HPCC_IP6_LEN, len - HPCC_IP6_LEN);
		EXPECT_EQ(hpccd_fanout_hash(&t),
			  run(AF_INET6, x, off + len - HPCC_IP6_LEN));
	}
}

/* A truncated packet is no error: some shard gets it, and drops it. */
TEST(truncated)
{
	uint8_t buf[HPCC_PKT_MAX];
	struct hpcc_tuple t = random_tuple(AF_INET6);
	size_t len = hpcc_build_probe(buf, &t, 40, 3, 1, 1, 1);

	ASSERT_NE(0, len);
	EXPECT_EQ(0, run(AF_INET6, buf, 30));
	EXPECT_EQ(0, run(AF_INET, buf, 10));
}

/* Symmetric, and spread: over 4 shards, flows of one host pair too. */
TEST(symmetric_and_spread)
{
	unsigned int count[4] = { 0 }, pair[4] = { 0 }, i;
	struct hpcc_tuple t, r;

	for (i = 0; i < 20000; i++) {
		t = random_tuple(i & 1 ? AF_INET6 : AF_INET);
		hpcc_tuple_reverse(&r, &t);
		ASSERT_EQ(hpccd_fanout_hash(&t), hpccd_fanout_hash(&r));
		count[hpccd_shard_of(&t, 4)]++;
		/* one host pair, the sender's ports in sequence */
		t = random_tuple(AF_INET);
		t.saddr = htonl(0xc6120001);
		t.daddr = htonl(0xc6120002);
		t.dport = htons(5201);
		t.sport = htons(32768 + i);
		pair[hpccd_shard_of(&t, 4)]++;
	}
	for (i = 0; i < 4; i++) {
		EXPECT_LT(4500, count[i]);
		EXPECT_GT(5500, count[i]);
		EXPECT_LT(4500, pair[i]);
		EXPECT_GT(5500, pair[i]);
	}
	EXPECT_EQ(0, hpccd_shard_of(&t, 1));
}

TEST_HARNESS_MAIN
