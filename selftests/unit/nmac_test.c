// SPDX-License-Identifier: GPL-2.0
/*
 * nmac_test - the MAC of FCR messages and CCM notifications
 * (kernel/lib/hpcc_nmac.c): the trailer, the check and its refusals, the key a
 * hop signs with, and the key set's overlap.  The tag is libsodium's
 * SipHash-2-4 here, the kernel's siphash() in the modules; both are held
 * to the reference's test vector (here and, for the kernel, at module
 * load).  Host test, built with ASan and UBSan.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "lib/hpcc_nmac.h"
#include "lib/hpcc_ccm.h"

#define S	1000000000ULL

static const struct hpcc_fcr_msg msg4 = {
	.family = 4, .switch_id = 7, .port_id = 3, .rate = 11875000,
	.ts = 1, .seq = 100, .round = 9, .interval = 12000,
	.sport = 40000, .dport = 5201,
	.saddr = { [10] = 0xff, [11] = 0xff, 10, 0, 1, 2 },
	.daddr = { [10] = 0xff, [11] = 0xff, 10, 0, 2, 2 },
};

/* the hop 10.0.9.1, IPv4-mapped */
static const uint8_t hop[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 9, 1 };
static const uint8_t other[16] = { [10] = 0xff, [11] = 0xff, 10, 7, 9, 1 };

/* key ID with bytes all B for 10.0.0.0/16 (::ffff:10.0.0.0/112) */
static struct hpcc_nmac_key key(uint32_t id, uint8_t b, uint8_t plen)
{
	struct hpcc_nmac_key k = { .id = id };

	memset(k.key, b, sizeof(k.key));
	k.pfx.addr[10] = 0xff;
	k.pfx.addr[11] = 0xff;
	k.pfx.addr[12] = 10;
	k.pfx.plen = plen;
	return k;
}

static void ring(struct hpcc_nmac_ring *r, const struct hpcc_nmac_key *k,
		 unsigned int n)
{
	struct hpcc_nmac_ring empty = {};

	hpcc_nmac_replace(r, &empty, k, n, 0, 0);
}

/* SipHash-2-4's reference vector: key 00..0f, message 00..0e */
TEST(siphash_vector)
{
	/* 0xa129ca6149be45e5, little-endian */
	static const uint8_t want[8] = { 0xe5, 0x45, 0xbe, 0x49, 0x61, 0xca,
					 0x29, 0xa1 };
	uint8_t k[16], m[15], t[8];
	unsigned int i;

	ASSERT_EQ(0, sodium_init() < 0);
	for (i = 0; i < 16; i++)
		k[i] = i;
	for (i = 0; i < 15; i++)
		m[i] = i;
	hpcc_nmac_tag(t, m, sizeof(m), k);
	EXPECT_EQ(0, memcmp(t, want, 8));
}

TEST(sign_layout_and_check)
{
	struct hpcc_nmac_key k = key(0x01020304, 0x11, 112);
	uint8_t b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN], t[8];
	struct hpcc_nmac_ring r;
	struct hpcc_fcr_msg m;

	ASSERT_EQ(HPCC_WIRE_NMAC_LEN, sizeof(struct hpcc_wire_nmac));
	ring(&r, &k, 1);
	hpcc_fcr_encode(b, &msg4);
	ASSERT_EQ(sizeof(b), hpcc_nmac_sign(b, HPCC_WIRE_FCR_LEN, &k));
	EXPECT_EQ(0, memcmp(b + HPCC_WIRE_FCR_LEN,
			    "\x01\x10\x00\x00\x01\x02\x03\x04", 8));
	hpcc_nmac_tag(t, b, HPCC_WIRE_FCR_LEN + 8, k.key);
	EXPECT_EQ(0, memcmp(t, b + HPCC_WIRE_FCR_LEN + 8, 8));
	EXPECT_EQ(HPCC_NMAC_OK, hpcc_nmac_check(&r, hop, b, sizeof(b),
						HPCC_WIRE_FCR_LEN, 0));
	/* a receiver without keys reads the message and ignores the trailer */
	EXPECT_EQ(HPCC_FCR_OK, hpcc_fcr_decode(b, sizeof(b), &m));
	/* a source no key covers: no MAC needed */
	EXPECT_EQ(HPCC_NMAC_NONE, hpcc_nmac_check(&r, other, b, sizeof(b),
						  HPCC_WIRE_FCR_LEN, 0));
	EXPECT_EQ(HPCC_NMAC_NONE, hpcc_nmac_check(&r, other, b,
						  HPCC_WIRE_FCR_LEN,
						  HPCC_WIRE_FCR_LEN, 0));
}

/* Every byte of the message and of the trailer is covered. */
TEST(every_byte_covered)
{
	struct hpcc_nmac_key k = key(5, 0x22, 112);
	uint8_t b[HPCC_WIRE_CCM_LEN + HPCC_WIRE_NMAC_LEN];
	struct hpcc_ccm_msg c = {
		.family = 4, .ntype = HPCC_CCM_AR_REQUIRED, .switch_id = 7,
		.port_id = 2, .seq = 5, .sport = 1, .dport = 2,
	};
	struct hpcc_nmac_ring r;
	unsigned int i;

	memcpy(c.saddr, msg4.saddr, 16);
	memcpy(c.daddr, msg4.daddr, 16);
	ring(&r, &k, 1);
	hpcc_ccm_encode(b, &c);
	hpcc_nmac_sign(b, HPCC_WIRE_CCM_LEN, &k);
	ASSERT_EQ(HPCC_NMAC_OK, hpcc_nmac_check(&r, hop, b, sizeof(b),
						HPCC_WIRE_CCM_LEN, 0));
	for (i = 0; i < sizeof(b); i++) {
		int res;

		b[i] ^= 0x40;
		res = hpcc_nmac_check(&r, hop, b, sizeof(b),
				      HPCC_WIRE_CCM_LEN, 0);
		b[i] ^= 0x40;
		/* the key id's bytes make it unknown; the rest bad */
		if (i >= HPCC_WIRE_CCM_LEN + 4 && i < HPCC_WIRE_CCM_LEN + 8) {
			EXPECT_EQ(HPCC_NMAC_UNKNOWN_KEY, res);
		} else if (i == HPCC_WIRE_CCM_LEN) {
			/* the kind byte: no trailer */
			EXPECT_EQ(HPCC_NMAC_MISSING, res);
		} else {
			EXPECT_EQ(HPCC_NMAC_BAD, res);
		}
	}
}

TEST(refusals)
{
	struct hpcc_nmac_key k = key(5, 0x22, 112), w = key(5, 0x23, 112);
	uint8_t b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	struct hpcc_nmac_ring r;

	ring(&r, &k, 1);
	hpcc_fcr_encode(b, &msg4);
	/* none, or other bytes where the trailer would be */
	EXPECT_EQ(HPCC_NMAC_MISSING, hpcc_nmac_check(&r, hop, b,
						     HPCC_WIRE_FCR_LEN,
						     HPCC_WIRE_FCR_LEN, 0));
	memset(b + HPCC_WIRE_FCR_LEN, 0, HPCC_WIRE_NMAC_LEN);
	EXPECT_EQ(HPCC_NMAC_MISSING, hpcc_nmac_check(&r, hop, b, sizeof(b),
						     HPCC_WIRE_FCR_LEN, 0));
	/* the same id, other bytes */
	hpcc_nmac_sign(b, HPCC_WIRE_FCR_LEN, &w);
	EXPECT_EQ(HPCC_NMAC_BAD, hpcc_nmac_check(&r, hop, b, sizeof(b),
						 HPCC_WIRE_FCR_LEN, 0));
	/* another id */
	w.id = 6;
	hpcc_nmac_sign(b, HPCC_WIRE_FCR_LEN, &w);
	EXPECT_EQ(HPCC_NMAC_UNKNOWN_KEY,
		  hpcc_nmac_check(&r, hop, b, sizeof(b), HPCC_WIRE_FCR_LEN, 0));
	/* malformed: cut short, another length, key id 0 */
	hpcc_nmac_sign(b, HPCC_WIRE_FCR_LEN, &k);
	EXPECT_EQ(HPCC_NMAC_BAD, hpcc_nmac_check(&r, hop, b, sizeof(b) - 1,
						 HPCC_WIRE_FCR_LEN, 0));
	EXPECT_EQ(HPCC_NMAC_BAD, hpcc_nmac_check(&r, hop, b,
						 HPCC_WIRE_FCR_LEN + 1,
						 HPCC_WIRE_FCR_LEN, 0));
	b[HPCC_WIRE_FCR_LEN + 1] = 17;
	EXPECT_EQ(HPCC_NMAC_BAD, hpcc_nmac_check(&r, hop, b, sizeof(b),
						 HPCC_WIRE_FCR_LEN, 0));
	k.id = 0;
	hpcc_nmac_sign(b, HPCC_WIRE_FCR_LEN, &k);
	EXPECT_EQ(HPCC_NMAC_BAD, hpcc_nmac_check(&r, hop, b, sizeof(b),
						 HPCC_WIRE_FCR_LEN, 0));
}

/* The hop signs with the longest prefix's key that is not accept-only. */
TEST(sign_key)
{
	struct hpcc_nmac_key k[3] = { key(1, 1, 104), key(2, 2, 112),
				      key(3, 3, 120) };
	struct hpcc_nmac_ring r;

	/* key 3: 10.0.9.0/24, the hop's, accept-only */
	k[2].pfx.addr[14] = 9;
	k[2].accept = 1;
	ring(&r, k, 3);
	ASSERT_NE(NULL, hpcc_nmac_sign_key(&r, hop));
	EXPECT_EQ(2, hpcc_nmac_sign_key(&r, hop)->id);
	EXPECT_EQ(1, hpcc_nmac_sign_key(&r, other)->id);
	k[0].pfx.addr[12] = 11;
	ring(&r, k, 3);
	EXPECT_EQ(NULL, hpcc_nmac_sign_key(&r, other));
}

/*
 * Rotation: the receiver drops key 1 for key 3 while the hop still signs
 * with 1: accepted as retired for the overlap, refused after it; a key
 * given again stays configured; the overlap's end does not move when the
 * key set changes again.
 */
TEST(overlap)
{
	struct hpcc_nmac_key k1 = key(1, 1, 112), k3 = key(3, 3, 112);
	struct hpcc_nmac_ring r, r2, r3;
	uint8_t b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];

	ring(&r, &k1, 1);
	hpcc_fcr_encode(b, &msg4);
	hpcc_nmac_sign(b, HPCC_WIRE_FCR_LEN, &k1);
	EXPECT_EQ(1, hpcc_nmac_replace(&r2, &r, &k3, 1, 10 * S, 60 * S));
	ASSERT_EQ(2, r2.n);
	EXPECT_EQ(HPCC_NMAC_OK_RETIRED,
		  hpcc_nmac_check(&r2, hop, b, sizeof(b), HPCC_WIRE_FCR_LEN,
				  69 * S));
	EXPECT_EQ(HPCC_NMAC_UNKNOWN_KEY,
		  hpcc_nmac_check(&r2, hop, b, sizeof(b), HPCC_WIRE_FCR_LEN,
				  70 * S));
	/* a retired key never signs */
	EXPECT_EQ(3, hpcc_nmac_sign_key(&r2, hop)->id);
	/* again, 20 s later: key 1 still ends at 70 s */
	EXPECT_EQ(0, hpcc_nmac_replace(&r3, &r2, &k3, 1, 30 * S, 60 * S));
	ASSERT_EQ(2, r3.n);
	EXPECT_EQ(70 * S, r3.k[1].expires);
	/* given again: configured, not retired (key 3 is, now) */
	EXPECT_EQ(1, hpcc_nmac_replace(&r3, &r2, &k1, 1, 30 * S, 60 * S));
	EXPECT_EQ(0, r3.k[0].expires);
	EXPECT_EQ(3, r3.k[1].id);
	EXPECT_NE(0, r3.k[1].expires);
	/* no overlap: dropped at once */
	EXPECT_EQ(0, hpcc_nmac_replace(&r2, &r, &k3, 1, 10 * S, 0));
	EXPECT_EQ(1, r2.n);
	/* after it expired, key 1 is gone at the next change */
	hpcc_nmac_replace(&r2, &r, &k3, 1, 10 * S, 60 * S);
	hpcc_nmac_replace(&r3, &r2, &k3, 1, 71 * S, 60 * S);
	EXPECT_EQ(1, r3.n);
}

/* More retired keys than room: those that expire first go. */
TEST(ring_full)
{
	struct hpcc_nmac_ring r = {}, n;
	struct hpcc_nmac_key ks[HPCC_NMAC_KEYS];
	unsigned int round, i;

	for (round = 0; round < 4; round++) {
		for (i = 0; i < HPCC_NMAC_KEYS; i++)
			ks[i] = key(100 * round + i + 1, round, 112);
		hpcc_nmac_replace(&n, &r, ks, HPCC_NMAC_KEYS, round * S,
				  60 * S);
		r = n;
	}
	ASSERT_EQ(HPCC_NMAC_RING, r.n);
	/* the configured keys, then the last two rounds' */
	for (i = 0; i < HPCC_NMAC_KEYS; i++)
		EXPECT_EQ(301 + i, r.k[i].id);
	for (i = HPCC_NMAC_KEYS; i < HPCC_NMAC_RING; i++)
		EXPECT_EQ(r.k[i].id > 200 ? 63 * S : 62 * S, r.k[i].expires);
	for (i = HPCC_NMAC_KEYS; i < HPCC_NMAC_RING; i++)
		EXPECT_TRUE(r.k[i].id > 100);
}

TEST_HARNESS_MAIN
