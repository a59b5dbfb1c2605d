/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_nmac.h - the MAC of FCR messages and CCM notifications
 * (draft-miao-ccwg-hpcc section 9.1): the trailer (struct hpcc_wire_nmac,
 * include/uapi/linux/hpcc_wire.h), a key set with keys kept for an overlap
 * after they are removed, and the check a receiver makes.
 *
 * One source for the kernel (tcp_hpcc.ko checks, hpcc_int.ko signs) and
 * userspace (unit tests, the fuzz target): functions on byte buffers in
 * hpcc_nmac.c.  The tag is SipHash-2-4: the kernel's siphash() (lib/siphash.c,
 * in every kernel, no allocation, callable from softirq) and libsodium's
 * crypto_shorthash_siphash24() in userspace, the same function, so the
 * tests check the code the modules run against an independent library.
 * Documentation/design.rst, "Forged telemetry", has the rules.
 */
#ifndef _HPCC_NMAC_H
#define _HPCC_NMAC_H

#ifdef __KERNEL__
#include <linux/siphash.h>
#include <linux/string.h>
#else
#include <string.h>
#include <sodium.h>
#endif
#include "hpcc_fcr.h"
#include "hpcc_overlap.h"

/* Keys a key set holds: those configured, then those kept for an overlap. */
#define HPCC_NMAC_KEYS		16
#define HPCC_NMAC_RING		(2 * HPCC_NMAC_KEYS)
/* The longest overlap, s, and its default. */
#define HPCC_NMAC_OVERLAP_MAX		3600U
#define HPCC_NMAC_OVERLAP_DEFAULT	60U

/**
 * struct hpcc_nmac_key - a key for the messages of one prefix
 * @id: the key's id, 1 to 2^32 - 1 (struct hpcc_wire_nmac.key_id)
 * @accept: accepted, never used to sign (a key being rolled out)
 * @expires: 0 for a configured key; for a removed one, when it stops
 *	being accepted (the caller's clock, ns)
 * @pfx: the peers: at a receiver, the hops whose messages need a MAC by
 *	this key (their source addresses); at a hop, the receivers (the
 *	messages' destinations) it signs for
 * @key: HPCC_WIRE_NMAC_KEY_LEN bytes
 */
struct hpcc_nmac_key {
	u32 id;
	u8 accept;
	u64 expires;
	struct hpcc_fcr_prefix pfx;
	u8 key[HPCC_WIRE_NMAC_KEY_LEN];
};

/**
 * struct hpcc_nmac_ring - a key set
 * @n: keys in @k, up to HPCC_NMAC_RING: the configured ones first (up to
 *	HPCC_NMAC_KEYS), then those kept for the overlap
 * @k: the keys
 */
struct hpcc_nmac_ring {
	u32 n;
	struct hpcc_nmac_key k[HPCC_NMAC_RING];
};

/**
 * enum hpcc_nmac_result - what hpcc_nmac_check() found
 * @HPCC_NMAC_NONE: no key covers the source: the message needs no MAC
 *	(one it carries is not checked)
 * @HPCC_NMAC_OK: the tag is right, by a configured key
 * @HPCC_NMAC_OK_RETIRED: the tag is right, by a key kept for the overlap
 * @HPCC_NMAC_MISSING: a key covers the source and the message has no
 *	trailer
 * @HPCC_NMAC_UNKNOWN_KEY: no key of the source's has the trailer's id
 * @HPCC_NMAC_BAD: a malformed trailer, or a wrong tag
 */
enum hpcc_nmac_result {
	HPCC_NMAC_NONE,
	HPCC_NMAC_OK,
	HPCC_NMAC_OK_RETIRED,
	HPCC_NMAC_MISSING,
	HPCC_NMAC_UNKNOWN_KEY,
	HPCC_NMAC_BAD,
};

void hpcc_nmac_tag(u8 *tag, const u8 *b, unsigned int n,
		   const u8 *key);

unsigned int hpcc_nmac_sign(u8 *b, unsigned int mlen,
			    const struct hpcc_nmac_key *k);

enum hpcc_nmac_result
hpcc_nmac_check(const struct hpcc_nmac_ring *r, const u8 *src, const u8 *b,
		unsigned int len, unsigned int mlen, u64 now);

const struct hpcc_nmac_key *
hpcc_nmac_sign_key(const struct hpcc_nmac_ring *r, const u8 *dst);

bool hpcc_nmac_same(const struct hpcc_nmac_key *a,
		    const struct hpcc_nmac_key *b);

unsigned int hpcc_nmac_replace(struct hpcc_nmac_ring *out,
			       const struct hpcc_nmac_ring *old,
			       const struct hpcc_nmac_key *keys,
			       unsigned int n, u64 now,
			       u64 overlap_ns);

#endif /* _HPCC_NMAC_H */
