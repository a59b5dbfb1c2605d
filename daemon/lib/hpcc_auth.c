// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_auth.c - the MAC of responses and hpccd's key ring (hpcc_auth.h).
 */
#include <string.h>
#include <sys/socket.h>
#include <sodium.h>

#include "hpcc_auth.h"
#include "lib/hpcc_overlap.h"

int hpcc_auth_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

/* The same key for the same peers ("accept" or not: a key that starts
 * signing is not retired).
 */
static bool same_key(const struct hpccd_key *a, const struct hpccd_key *b)
{
	return a->id == b->id && a->pfx.len == b->pfx.len &&
	       !memcmp(a->pfx.addr, b->pfx.addr, 16) &&
	       !sodium_memcmp(a->key, b->key, sizeof(a->key));
}

static bool same_key_v(const void *a, const void *b)
{
	return same_key(a, b);
}

static const struct hpcc_overlap_type key_type = {
	.size = sizeof(struct hpccd_key),
	.expires = offsetof(struct hpccd_key, expires_ns),
	.same = same_key_v,
	.keys = HPCCD_MAX_KEYS,
	.ring = HPCC_RING_MAX,
};

unsigned int hpcc_keyring_load(struct hpcc_keyring *ring,
			       const struct hpccd_cfg *cfg, uint64_t now,
			       uint64_t overlap_ns)
{
	struct hpcc_keyring old = *ring;
	unsigned int retired;

	memset(ring, 0, sizeof(*ring));
	retired = hpcc_overlap(&key_type, ring->k, &ring->n, old.k, old.n,
			       cfg->keys, cfg->n_keys, now, overlap_ns);
	sodium_memzero(&old, sizeof(old));
	return retired;
}

const struct hpccd_key *hpcc_keyring_sign_key(const struct hpcc_keyring *ring,
					      int family, const void *peer)
{
	const struct hpccd_key *best = NULL;
	unsigned int i;

	for (i = 0; i < ring->n; i++) {
		const struct hpccd_key *k = &ring->k[i];

		if (k->expires_ns || k->accept_only ||
		    !hpccd_prefix_holds(&k->pfx, family, peer))
			continue;
		if (!best || k->pfx.len >= best->pfx.len)
			best = k;
	}
	return best;
}

static void mapped(uint8_t *a, const struct hpcc_tuple *t, bool src)
{
	memset(a, 0, 16);
	if (t->family == AF_INET6) {
		memcpy(a, src ? t->saddr6 : t->daddr6, 16);
	} else {
		a[10] = 0xff;
		a[11] = 0xff;
		memcpy(a + 12, src ? &t->saddr : &t->daddr, 4);
	}
}

/* The tag of struct hpcc_wire_ext_mac over @p's packet @buf. */
static void mac_tag(uint8_t *tag, const uint8_t *buf,
		    const struct hpcc_pkt *p, const uint8_t *key)
{
	crypto_generichash_state st;
	uint8_t pre[1 + 16 + 16 + 4];

	pre[0] = p->tuple.family == AF_INET6 ? 6 : 4;
	mapped(pre + 1, &p->tuple, true);
	mapped(pre + 17, &p->tuple, false);
	memcpy(pre + 33, &p->tuple.sport, 2);
	memcpy(pre + 35, &p->tuple.dport, 2);
	crypto_generichash_init(&st, key, HPCC_WIRE_MAC_KEY_LEN,
				HPCC_WIRE_MAC_TAG_LEN);
	crypto_generichash_update(&st, pre, sizeof(pre));
	crypto_generichash_update(&st, buf + p->hdr_off,
				  (size_t)p->mac_off + HPCC_WIRE_EXT_LEN -
				  p->hdr_off);
	crypto_generichash_final(&st, tag, HPCC_WIRE_MAC_TAG_LEN);
	/* its buffer may still hold the key's block */
	sodium_memzero(&st, sizeof(st));
}

int hpcc_auth_sign(void *buf, size_t len, const struct hpccd_key *key)
{
	struct hpcc_pkt p;

	if (hpcc_parse(buf, len, &p) != HPCC_PARSE_OK ||
	    p.type != HPCC_WIRE_RESPONSE || !p.mac_off ||
	    p.mac_key_id != key->id)
		return -1;
	mac_tag((uint8_t *)buf + p.mac_off + HPCC_WIRE_EXT_LEN, buf, &p,
		key->key);
	hpcc_tcp_csum_update(buf, len);
	return 0;
}

enum hpcc_auth_result hpcc_auth_check(const struct hpcc_keyring *ring,
				      const void *buf,
				      const struct hpcc_pkt *p, uint64_t now)
{
	const void *peer = p->tuple.family == AF_INET6 ?
			   (const void *)p->tuple.saddr6 :
			   (const void *)&p->tuple.saddr;
	int fam = p->tuple.family == AF_INET6 ? AF_INET6 : AF_INET;
	const uint8_t *got = (const uint8_t *)buf + p->mac_off +
			     HPCC_WIRE_EXT_LEN;
	uint8_t tag[HPCC_WIRE_MAC_TAG_LEN];
	bool needed = false, matched = false;
	unsigned int i;

	for (i = 0; i < ring->n; i++) {
		const struct hpccd_key *k = &ring->k[i];

		if (k->expires_ns && (int64_t)(k->expires_ns - now) <= 0)
			continue;
		if (hpccd_prefix_holds(&k->pfx, fam, peer))
			needed = true;
	}
	if (!needed)
		return HPCC_AUTH_NONE;
	if (!p->mac_off)
		return HPCC_AUTH_MISSING;
	/*
	 * The keys of the peer with the MAC's id, the file's first (the
	 * ring's order): a key id reused with new bytes checks against
	 * them, and the retired bytes only after, within their overlap
	 */
	for (i = 0; i < ring->n; i++) {
		const struct hpccd_key *k = &ring->k[i];

		if (k->id != p->mac_key_id ||
		    (k->expires_ns && (int64_t)(k->expires_ns - now) <= 0) ||
		    !hpccd_prefix_holds(&k->pfx, fam, peer))
			continue;
		matched = true;
		mac_tag(tag, buf, p, k->key);
		if (!crypto_verify_16(tag, got))
			return k->expires_ns ? HPCC_AUTH_OK_RETIRED :
			       HPCC_AUTH_OK;
	}
	return matched ? HPCC_AUTH_BAD : HPCC_AUTH_UNKNOWN_KEY;
}

bool hpcc_auth_accepted(enum hpcc_auth_result r, const struct hpccd_cfg *c,
			const struct hpcc_pkt *p)
{
	const void *peer = p->tuple.family == AF_INET6 ?
			   (const void *)p->tuple.saddr6 :
			   (const void *)&p->tuple.saddr;

	return r == HPCC_AUTH_NONE || r == HPCC_AUTH_OK ||
	       r == HPCC_AUTH_OK_RETIRED ||
	       hpccd_cfg_auth_permissive(c, p->tuple.family == AF_INET6 ?
					 AF_INET6 : AF_INET, peer);
}
