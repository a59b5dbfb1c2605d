// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_nmac.c - the message MAC of FCR messages and CCM notifications
 * (hpcc_nmac.h), compiled by both modules and by userspace.
 */

#include "hpcc_nmac.h"

/**
 * hpcc_nmac_tag() - the tag of @n bytes of @b under @key
 * @tag: HPCC_WIRE_NMAC_TAG_LEN bytes, written
 * @b: the message and the trailer's first 8 bytes
 * @n: their length
 * @key: HPCC_WIRE_NMAC_KEY_LEN bytes
 */
void hpcc_nmac_tag(u8 *tag, const u8 *b, unsigned int n,
		   const u8 *key)
{
#ifdef __KERNEL__
	siphash_key_t k = {};
	unsigned int i;
	u64 t;

	/* the reference's key and result are little-endian */
	for (i = 0; i < 8; i++) {
		k.key[0] |= (u64)key[i] << (8 * i);
		k.key[1] |= (u64)key[8 + i] << (8 * i);
	}
	t = siphash(b, n, &k);
	for (i = 0; i < HPCC_WIRE_NMAC_TAG_LEN; i++)
		tag[i] = (u8)(t >> (8 * i));
	memzero_explicit(&k, sizeof(k));
#else
	crypto_shorthash_siphash24(tag, b, n, key);
#endif
}

/**
 * hpcc_nmac_sign() - append the trailer to a message
 * @b: the message, @mlen bytes, with HPCC_WIRE_NMAC_LEN bytes of room
 *	after it
 * @mlen: HPCC_WIRE_FCR_LEN or HPCC_WIRE_CCM_LEN
 * @k: the key
 *
 * Return: the datagram's length, @mlen + HPCC_WIRE_NMAC_LEN.
 */
unsigned int hpcc_nmac_sign(u8 *b, unsigned int mlen,
			    const struct hpcc_nmac_key *k)
{
	u8 *t = b + mlen;

	t[0] = HPCC_WIRE_NMAC_KIND;
	t[1] = HPCC_WIRE_NMAC_LEN;
	t[2] = 0;
	t[3] = 0;
	t[4] = (u8)(k->id >> 24);
	t[5] = (u8)(k->id >> 16);
	t[6] = (u8)(k->id >> 8);
	t[7] = (u8)k->id;
	hpcc_nmac_tag(t + 8, b, mlen + 8, k->key);
	return mlen + HPCC_WIRE_NMAC_LEN;
}

/**
 * hpcc_nmac_check() - whether a received message's MAC is as the keys
 *	want it
 * @r: the receiver's keys
 * @src: the datagram's source address, IPv6 or IPv4-mapped
 * @b: the UDP payload
 * @len: its length, bytes
 * @mlen: the message's length (HPCC_WIRE_FCR_LEN or HPCC_WIRE_CCM_LEN);
 *	the trailer, if any, starts there
 * @now: the clock of the keys' @expires, ns
 *
 * The keys that count are those whose prefix holds @src and that have not
 * expired.  A trailer is a first byte HPCC_WIRE_NMAC_KIND after the
 * message; it is malformed (HPCC_NMAC_BAD) when shorter than
 * HPCC_WIRE_NMAC_LEN, with another length byte or key id 0.  The tag is
 * compared in constant time.
 *
 * Return: enum hpcc_nmac_result.
 */
enum hpcc_nmac_result
hpcc_nmac_check(const struct hpcc_nmac_ring *r, const u8 *src, const u8 *b,
		unsigned int len, unsigned int mlen, u64 now)
{
	const struct hpcc_nmac_key *match = NULL;
	u8 tag[HPCC_WIRE_NMAC_TAG_LEN], diff = 0;
	bool needed = false;
	unsigned int i;
	u32 id = 0;

	if (len > mlen + 7 && b[mlen] == HPCC_WIRE_NMAC_KIND)
		id = (u32)b[mlen + 4] << 24 | (u32)b[mlen + 5] << 16 |
		     (u32)b[mlen + 6] << 8 | b[mlen + 7];
	for (i = 0; i < r->n && i < HPCC_NMAC_RING; i++) {
		const struct hpcc_nmac_key *k = &r->k[i];

		if (k->expires && (s64)(k->expires - now) <= 0)
			continue;
		if (!hpcc_fcr_prefix_match(src, &k->pfx))
			continue;
		needed = true;
		if (id && k->id == id)
			match = k;
	}
	if (!needed)
		return HPCC_NMAC_NONE;
	if (len <= mlen || b[mlen] != HPCC_WIRE_NMAC_KIND)
		return HPCC_NMAC_MISSING;
	if (len < mlen + HPCC_WIRE_NMAC_LEN ||
	    b[mlen + 1] != HPCC_WIRE_NMAC_LEN || !id)
		return HPCC_NMAC_BAD;
	if (!match)
		return HPCC_NMAC_UNKNOWN_KEY;
	hpcc_nmac_tag(tag, b, mlen + 8, match->key);
	for (i = 0; i < HPCC_WIRE_NMAC_TAG_LEN; i++)
		diff |= tag[i] ^ b[mlen + 8 + i];
	if (diff)
		return HPCC_NMAC_BAD;
	return match->expires ? HPCC_NMAC_OK_RETIRED : HPCC_NMAC_OK;
}

/**
 * hpcc_nmac_sign_key() - the key a hop signs a message to @dst with
 * @r: the hop's keys
 * @dst: the message's destination, IPv6 or IPv4-mapped
 *
 * Return: the configured, not accept-only key of the longest prefix that
 * holds @dst (the last of equals), or NULL: the message goes unsigned.
 */
const struct hpcc_nmac_key *
hpcc_nmac_sign_key(const struct hpcc_nmac_ring *r, const u8 *dst)
{
	const struct hpcc_nmac_key *best = NULL;
	unsigned int i;

	for (i = 0; i < r->n && i < HPCC_NMAC_RING; i++) {
		const struct hpcc_nmac_key *k = &r->k[i];

		if (k->expires || k->accept ||
		    !hpcc_fcr_prefix_match(dst, &k->pfx))
			continue;
		if (!best || k->pfx.plen >= best->pfx.plen)
			best = k;
	}
	return best;
}

bool hpcc_nmac_same(const struct hpcc_nmac_key *a,
		    const struct hpcc_nmac_key *b)
{
	u8 d = 0;
	unsigned int i;

	for (i = 0; i < HPCC_WIRE_NMAC_KEY_LEN; i++)
		d |= a->key[i] ^ b->key[i];
	return a->id == b->id && a->pfx.plen == b->pfx.plen &&
	       !memcmp(a->pfx.addr, b->pfx.addr, 16) && !d;
}

static bool hpcc_nmac_same_key(const void *a, const void *b)
{
	return hpcc_nmac_same(a, b);
}

/**
 * hpcc_nmac_replace() - a new key set: @keys, and the keys of @old that
 *	they drop, kept for @overlap_ns
 * @out: the new set, written (may not be @old)
 * @old: the set in force
 * @keys: the configured keys, @n of them, at most HPCC_NMAC_KEYS (their
 *	@expires are ignored)
 * @n: how many
 * @now: the clock of @expires, ns
 * @overlap_ns: how long a dropped key stays accepted; 0: not at all
 *
 * A key of @old that @keys has again (same id, prefix and bytes, with or
 * without accept) stays configured.  A dropped key keeps the end of its
 * overlap when it is dropped again; expired keys go.  When more keys are
 * kept than there is room for, those that expire first go.
 *
 * Return: how many keys this call dropped into the overlap.
 */
unsigned int hpcc_nmac_replace(struct hpcc_nmac_ring *out,
			       const struct hpcc_nmac_ring *old,
			       const struct hpcc_nmac_key *keys,
			       unsigned int n, u64 now,
			       u64 overlap_ns)
{
	static const struct hpcc_overlap_type t = {
		.size = sizeof(struct hpcc_nmac_key),
		.expires = offsetof(struct hpcc_nmac_key, expires),
		.same = hpcc_nmac_same_key,
		.keys = HPCC_NMAC_KEYS,
		.ring = HPCC_NMAC_RING,
	};

	memset(out, 0, sizeof(*out));
	return hpcc_overlap(&t, out->k, &out->n, old->k, old->n, keys, n, now,
			    overlap_ns);
}
