/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_auth.h - the MAC of responses (draft-miao-ccwg-hpcc section 9.1:
 * "it is RECOMMENDED that the notification feedback message is at least
 * integrity checked"): keyed BLAKE2b from libsodium over what
 * struct hpcc_wire_ext_mac (include/uapi/linux/hpcc_wire.h) lists, and the
 * key ring hpccd signs and checks with, with the keys a reload removed
 * still accepted for auth-overlap-s (rotation without dropping feedback;
 * Documentation/admin-guide.rst, "Authenticated feedback").
 */
#ifndef _HPCC_AUTH_H
#define _HPCC_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpcc_wire.h"
#include "hpccd/config.h"

/* A ring holds the file's keys and as many retired ones. */
#define HPCC_RING_MAX	(2 * HPCCD_MAX_KEYS)

/**
 * struct hpcc_keyring - the keys hpccd signs and checks responses with
 * @k: the keys: those of the key file (expires_ns 0), then those a reload
 *	removed (expires_ns set), @n in all
 * @n: keys in @k
 */
struct hpcc_keyring {
	struct hpccd_key k[HPCC_RING_MAX];
	unsigned int n;
};

/**
 * enum hpcc_auth_result - what hpcc_auth_check() found
 * @HPCC_AUTH_NONE: no key is configured for the peer: accepted unchecked
 *	(a MAC it may carry is not read)
 * @HPCC_AUTH_OK: the MAC is right, by a key of the key file
 * @HPCC_AUTH_OK_RETIRED: right, by a key a reload removed, within its
 *	overlap
 * @HPCC_AUTH_MISSING: the peer has a key and the response carries no MAC
 * @HPCC_AUTH_UNKNOWN_KEY: no key of the peer has the MAC's key id (or it
 *	expired)
 * @HPCC_AUTH_BAD: the MAC is wrong
 */
enum hpcc_auth_result {
	HPCC_AUTH_NONE,
	HPCC_AUTH_OK,
	HPCC_AUTH_OK_RETIRED,
	HPCC_AUTH_MISSING,
	HPCC_AUTH_UNKNOWN_KEY,
	HPCC_AUTH_BAD,
};

/**
 * hpcc_auth_init() - initialise libsodium (sodium_init())
 * Return: 0, or -1 when it cannot be used.
 */
int hpcc_auth_init(void);

/**
 * hpcc_keyring_load() - the ring after a (re)load of the key file
 * @ring: the ring, replaced: @cfg's keys, then every key of the old ring
 *	that @cfg no longer has (the same id, bytes and prefix; the accept
 *	flag may change)
 *	and that has not expired, a file key expiring @overlap_ns after
 *	@now, a retired one keeping its expiry; retired keys that do not
 *	fit are dropped, the soonest to expire first
 * @cfg: the settings with the key file's keys
 * @now: CLOCK_MONOTONIC, ns
 * @overlap_ns: auth-overlap-s in ns
 *
 * Return: how many keys were retired by this load.
 */
unsigned int hpcc_keyring_load(struct hpcc_keyring *ring,
			       const struct hpccd_cfg *cfg, uint64_t now,
			       uint64_t overlap_ns);

/**
 * hpcc_keyring_sign_key() - the key responses to a peer are signed with
 * @ring: the ring
 * @family: AF_INET or AF_INET6
 * @peer: the response's destination, 4 or 16 bytes
 *
 * Return: the signing key (a file key, not "accept") with the longest
 * prefix holding @peer, the later line on a tie; NULL: unsigned.
 */
const struct hpccd_key *hpcc_keyring_sign_key(const struct hpcc_keyring *ring,
					      int family, const void *peer);

/**
 * hpcc_auth_sign() - fill in the tag of a response built with room for it
 *	(struct hpcc_resp_opt.mac_key_id) and fix its TCP checksum
 * @buf: the response, as hpcc_build_response_opt() made it
 * @len: its length
 * @key: the key whose id the MAC extension names
 *
 * Return: 0, or -1 if @buf does not parse as a response with a MAC
 * extension of @key's id.
 */
int hpcc_auth_sign(void *buf, size_t len, const struct hpccd_key *key);

/**
 * hpcc_auth_check() - check a parsed response's MAC
 * @ring: the ring
 * @buf: the packet from its IP header, as parsed into @p
 * @p: the response (hpcc_parse())
 * @now: CLOCK_MONOTONIC, ns (a retired key's expiry)
 *
 * The peer is @p's source.  It needs a MAC when any key of the ring that
 * has not expired has a prefix holding it; the MAC must then be by one of
 * those keys (its id).  When a reload gave an id new bytes, the tag is
 * checked against the file's key first, then against the retired bytes
 * within their overlap.  Constant-time tag comparison.
 *
 * Return: enum hpcc_auth_result; the response is accepted for
 * HPCC_AUTH_NONE, _OK and _OK_RETIRED, and for the others only from an
 * auth-permissive peer (hpcc_auth_accepted()).
 */
enum hpcc_auth_result hpcc_auth_check(const struct hpcc_keyring *ring,
				      const void *buf,
				      const struct hpcc_pkt *p, uint64_t now);

/**
 * hpcc_auth_accepted() - whether a response that hpcc_auth_check() judged
 *	is taken
 * @r: the check's result
 * @c: the settings (auth-permissive prefixes)
 * @p: the response
 *
 * Return: true for HPCC_AUTH_NONE, _OK and _OK_RETIRED; for
 * HPCC_AUTH_MISSING, _UNKNOWN_KEY and _BAD only when an auth-permissive
 * prefix holds @p's source (the rollout's phase that verifies and counts
 * without refusing; Documentation/admin-guide.rst).
 */
bool hpcc_auth_accepted(enum hpcc_auth_result r, const struct hpccd_cfg *c,
			const struct hpcc_pkt *p);

#endif /* _HPCC_AUTH_H */
