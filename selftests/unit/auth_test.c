// SPDX-License-Identifier: GPL-2.0
/*
 * auth_test - the MAC of responses and hpccd's key ring (daemon/lib/hpcc_auth.c)
 * and its key file (daemon/hpccd/config.c, hpccd_cfg_parse_keys() and the
 * file's permissions): a signed response is accepted, a forged or altered
 * one refused, a missing MAC refused where the peer has a key, a key a
 * reload removed still accepted within auth-overlap-s and refused after
 * it; the signing key is the longest prefix's, never an "accept" one.
 * Host test, built with ASan and UBSan.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hpcc_auth.h"

#define K1 "0101010101010101010101010101010101010101010101010101010101010101"
#define K2 "0202020202020202020202020202020202020202020202020202020202020202"
#define K3 "0303030303030303030303030303030303030303030303030303030303030303"

static void quiet(const char *msg)
{
	(void)msg;
}

static int keys(struct hpccd_cfg *c, const char *text)
{
	return hpccd_cfg_parse_keys(c, "keys", text, strlen(text));
}

/* A response from 10.0.0.2 to 10.0.0.1, signed with @k (NULL: no MAC). */
static size_t response(uint8_t *out, const struct hpccd_key *k)
{
	struct hpcc_tuple t = { .family = AF_INET };
	struct hpcc_resp_opt o = { .n_flows = 2 };
	uint8_t probe[HPCC_PKT_MAX];
	struct hpcc_pkt p;
	size_t n;

	t.saddr = inet_addr("10.0.0.1");
	t.daddr = inet_addr("10.0.0.2");
	t.sport = htons(40000);
	t.dport = htons(5201);
	n = hpcc_build_probe(probe, &t, 60, 1, 77, 5, 1);
	if (!n || hpcc_parse(probe, n, &p) != HPCC_PARSE_OK)
		return 0;
	o.mac_key_id = k ? k->id : 0;
	n = hpcc_build_response_opt(out, &p, 61, 1, &o);
	if (k && hpcc_auth_sign(out, n, k))
		return 0;
	return n;
}

static enum hpcc_auth_result check(const struct hpcc_keyring *ring,
				   const uint8_t *buf, size_t n, uint64_t now)
{
	struct hpcc_pkt r;

	if (hpcc_parse(buf, n, &r) != HPCC_PARSE_OK)
		return (enum hpcc_auth_result)-1;
	return hpcc_auth_check(ring, buf, &r, now);
}

FIXTURE(ring) {
	struct hpccd_cfg c;
	struct hpcc_keyring ring;
};

FIXTURE_SETUP(ring)
{
	hpccd_cfg_log = quiet;
	ASSERT_EQ(hpcc_auth_init(), 0);
	hpccd_cfg_defaults(&self->c);
	memset(&self->ring, 0, sizeof(self->ring));
}

FIXTURE_TEARDOWN(ring)
{
}

TEST_F(ring, signed_accepted_forged_refused)
{
	uint8_t buf[HPCC_PKT_MAX];
	const struct hpccd_key *k;
	uint32_t peer = inet_addr("10.0.0.1");
	size_t n;

	ASSERT_EQ(keys(&self->c, "key = 1 " K1 " 10.0.0.0/8\n"), 0);
	hpcc_keyring_load(&self->ring, &self->c, 100, 1000);
	k = hpcc_keyring_sign_key(&self->ring, AF_INET, &peer);
	ASSERT_NE(k, NULL);
	n = response(buf, k);
	ASSERT_NE(n, 0);
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_OK);
	/* a changed record, id, N or tag: refused */
	buf[n - 1] ^= 1;
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_BAD);
	buf[n - 1] ^= 1;
	buf[20 + 20 + 8] ^= 0x80;	/* probe_id */
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_BAD);
	buf[20 + 20 + 8] ^= 0x80;
	buf[20 + 20 + 24 + 12] ^= 1;	/* the record's B */
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_BAD);
	buf[20 + 20 + 24 + 12] ^= 1;
	/* the addresses are covered: the same payload from elsewhere */
	buf[15] ^= 1;
	buf[10] = buf[11] = 0;
	{
		uint32_t sum = 0;
		int i;

		for (i = 0; i < 20; i += 2)
			sum += buf[i] << 8 | buf[i + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		buf[10] = (uint8_t)(~sum >> 8);
		buf[11] = (uint8_t)~sum;
	}
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_BAD);
	/* unsigned from a peer with a key: refused */
	n = response(buf, NULL);
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_MISSING);
	/* signed by a key the ring does not have */
	ASSERT_EQ(keys(&self->c, "key = 5 " K3 " 10.0.0.0/8\n"), 0);
	n = response(buf, &self->c.keys[0]);
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_UNKNOWN_KEY);
	/* a peer outside every key's prefix: not checked */
	ASSERT_EQ(keys(&self->c, "key = 1 " K1 " 192.168.0.0/16\n"), 0);
	hpcc_keyring_load(&self->ring, &self->c, 100, 0);
	n = response(buf, NULL);
	EXPECT_EQ(check(&self->ring, buf, n, 200), HPCC_AUTH_NONE);
	EXPECT_EQ(hpcc_keyring_sign_key(&self->ring, AF_INET, &peer), NULL);
}

/*
 * Rotation: 1. key 2 added as "accept" everywhere; 2. the receivers sign
 * with key 2 while the senders still hold key 1 as their signing key; 3.
 * key 1 removed: accepted for the overlap, then not.
 */
TEST_F(ring, rotation_overlap)
{
	uint8_t buf[HPCC_PKT_MAX];
	uint32_t peer = inet_addr("10.0.0.1");
	const struct hpccd_key *k;
	struct hpcc_keyring rx = { 0 };
	struct hpccd_cfg rc;
	size_t n;

	hpccd_cfg_defaults(&rc);
	ASSERT_EQ(keys(&self->c, "key = 1 " K1 " 10.0.0.0/8\n"
			    "key = 2 " K2 " 10.0.0.0/8 accept\n"), 0);
	EXPECT_EQ(hpcc_keyring_load(&self->ring, &self->c, 0, 1000), 0);
	k = hpcc_keyring_sign_key(&self->ring, AF_INET, &peer);
	ASSERT_NE(k, NULL);
	EXPECT_EQ(k->id, 1);	/* never the accept-only key */
	/* the receiver already signs with key 2 */
	ASSERT_EQ(keys(&rc, "key = 2 " K2 " 10.0.0.0/8\n"), 0);
	hpcc_keyring_load(&rx, &rc, 0, 1000);
	n = response(buf, hpcc_keyring_sign_key(&rx, AF_INET, &peer));
	EXPECT_EQ(check(&self->ring, buf, n, 10), HPCC_AUTH_OK);
	/* the sender drops key 1 at t=5000: still accepted until 6000 */
	ASSERT_EQ(keys(&self->c, "key = 2 " K2 " 10.0.0.0/8\n"), 0);
	EXPECT_EQ(hpcc_keyring_load(&self->ring, &self->c, 5000, 1000), 1);
	ASSERT_EQ(keys(&rc, "key = 1 " K1 " 10.0.0.0/8\n"), 0);
	n = response(buf, &rc.keys[0]);
	EXPECT_EQ(check(&self->ring, buf, n, 5999), HPCC_AUTH_OK_RETIRED);
	EXPECT_EQ(check(&self->ring, buf, n, 6000), HPCC_AUTH_UNKNOWN_KEY);
	/* a further reload keeps the retired key's expiry, and drops it
	 * once expired
	 */
	hpcc_keyring_load(&self->ring, &self->c, 5500, 1000);
	EXPECT_EQ(check(&self->ring, buf, n, 5999), HPCC_AUTH_OK_RETIRED);
	EXPECT_EQ(self->ring.n, 2);
	hpcc_keyring_load(&self->ring, &self->c, 7000, 1000);
	EXPECT_EQ(self->ring.n, 1);
	EXPECT_EQ(check(&self->ring, buf, n, 7000), HPCC_AUTH_UNKNOWN_KEY);
}

/*
 * A key id given new bytes by a reload: responses signed with the new
 * bytes are taken at once, the old bytes within the overlap only (a ring
 * that checked the retired bytes of the same id for the whole overlap
 * would count the new ones auth-bad).
 */
TEST_F(ring, reused_id_new_bytes)
{
	uint8_t buf[HPCC_PKT_MAX];
	struct hpccd_cfg rc;
	size_t n;

	hpccd_cfg_defaults(&rc);
	ASSERT_EQ(keys(&self->c, "key = 1 " K1 " 10.0.0.0/8\n"), 0);
	hpcc_keyring_load(&self->ring, &self->c, 0, 1000);
	ASSERT_EQ(keys(&self->c, "key = 1 " K2 " 10.0.0.0/8\n"), 0);
	EXPECT_EQ(hpcc_keyring_load(&self->ring, &self->c, 5000, 1000), 1);
	EXPECT_EQ(self->ring.n, 2);
	/* a receiver that has the new bytes */
	ASSERT_EQ(keys(&rc, "key = 1 " K2 " 10.0.0.0/8\n"), 0);
	n = response(buf, &rc.keys[0]);
	ASSERT_NE(n, 0);
	EXPECT_EQ(check(&self->ring, buf, n, 5001), HPCC_AUTH_OK);
	EXPECT_EQ(check(&self->ring, buf, n, 7000), HPCC_AUTH_OK);
	/* one that still has the old ones: within the overlap only */
	ASSERT_EQ(keys(&rc, "key = 1 " K1 " 10.0.0.0/8\n"), 0);
	n = response(buf, &rc.keys[0]);
	EXPECT_EQ(check(&self->ring, buf, n, 5999), HPCC_AUTH_OK_RETIRED);
	EXPECT_EQ(check(&self->ring, buf, n, 6000), HPCC_AUTH_BAD);
	/* neither: bad, not an unknown key */
	ASSERT_EQ(keys(&rc, "key = 1 " K3 " 10.0.0.0/8\n"), 0);
	n = response(buf, &rc.keys[0]);
	EXPECT_EQ(check(&self->ring, buf, n, 5001), HPCC_AUTH_BAD);
}

/*
 * auth-permissive: the rollout's first phase.  A response from such a
 * peer is checked and its result reported (counted by hpccd), but taken
 * even when its MAC is missing, unknown or wrong; other peers' are not.
 */
TEST_F(ring, permissive_counts_does_not_refuse)
{
	const char *conf = "auth-permissive = 10.0.0.0/24\n";
	uint8_t buf[HPCC_PKT_MAX];
	struct hpccd_cfg rc;
	struct hpcc_pkt r;
	size_t n;

	hpccd_cfg_defaults(&rc);
	ASSERT_EQ(keys(&self->c, "key = 1 " K1 " 10.0.0.0/8\n"), 0);
	hpcc_keyring_load(&self->ring, &self->c, 0, 0);
	/* enforcing: unsigned and forged responses refused */
	n = response(buf, NULL);
	ASSERT_EQ(hpcc_parse(buf, n, &r), HPCC_PARSE_OK);
	EXPECT_EQ(hpcc_auth_check(&self->ring, buf, &r, 1), HPCC_AUTH_MISSING);
	EXPECT_FALSE(hpcc_auth_accepted(HPCC_AUTH_MISSING, &self->c, &r));
	/* permissive for 10.0.0.0/24, which holds the responder 10.0.0.1 */
	ASSERT_EQ(hpccd_cfg_parse(&self->c, "t", conf, strlen(conf)), 0);
	EXPECT_EQ(self->c.n_auth_permissive, 1);
	EXPECT_TRUE(hpcc_auth_accepted(HPCC_AUTH_MISSING, &self->c, &r));
	ASSERT_EQ(keys(&rc, "key = 1 " K3 " 10.0.0.0/8\n"), 0);
	n = response(buf, &rc.keys[0]);
	ASSERT_EQ(hpcc_parse(buf, n, &r), HPCC_PARSE_OK);
	EXPECT_EQ(hpcc_auth_check(&self->ring, buf, &r, 1), HPCC_AUTH_BAD);
	EXPECT_TRUE(hpcc_auth_accepted(HPCC_AUTH_BAD, &self->c, &r));
	EXPECT_TRUE(hpcc_auth_accepted(HPCC_AUTH_UNKNOWN_KEY, &self->c, &r));
	EXPECT_TRUE(hpcc_auth_accepted(HPCC_AUTH_OK, &self->c, &r));
	/* a prefix that does not hold the responder: refused again */
	conf = "auth-permissive = 10.0.1.0/24\n";
	ASSERT_EQ(hpccd_cfg_parse(&self->c, "t", conf, strlen(conf)), 0);
	EXPECT_FALSE(hpcc_auth_accepted(HPCC_AUTH_BAD, &self->c, &r));
	/* a reload without the line: enforcing */
	ASSERT_EQ(hpccd_cfg_parse(&self->c, "t", "", 0), 0);
	EXPECT_EQ(self->c.n_auth_permissive, 0);
	n = response(buf, NULL);
	ASSERT_EQ(hpcc_parse(buf, n, &r), HPCC_PARSE_OK);
	EXPECT_FALSE(hpcc_auth_accepted(HPCC_AUTH_MISSING, &self->c, &r));
}

TEST_F(ring, longest_prefix_signs)
{
	uint32_t a = inet_addr("10.1.2.3"), b = inet_addr("10.9.0.1");
	const struct hpccd_key *k;

	ASSERT_EQ(keys(&self->c, "key = 1 " K1 " 10.1.0.0/16\n"
			    "key = 2 " K2 " 10.0.0.0/8\n"
			    "key = 3 " K3 " ::/0\n"), 0);
	hpcc_keyring_load(&self->ring, &self->c, 0, 0);
	k = hpcc_keyring_sign_key(&self->ring, AF_INET, &a);
	ASSERT_NE(k, NULL);
	EXPECT_EQ(k->id, 1);
	k = hpcc_keyring_sign_key(&self->ring, AF_INET, &b);
	ASSERT_NE(k, NULL);
	EXPECT_EQ(k->id, 2);
}

TEST(key_file_lines)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(keys(&c, "# comment\nkey = 7 " K1 " 2001:db8::/32 accept\n"),
		  0);
	ASSERT_EQ(c.n_keys, 1);
	EXPECT_EQ(c.keys[0].id, 7);
	EXPECT_TRUE(c.keys[0].accept_only);
	EXPECT_EQ(c.keys[0].key[31], 1);
	/* refused, and then no key is kept at all */
	EXPECT_EQ(keys(&c, "key = 1 " K1 " 10.0.0.0/8\nkey = 0 " K2 " ::/0\n"),
		  -1);
	EXPECT_EQ(c.n_keys, 0);
	EXPECT_EQ(keys(&c, "key = 1 0102 10.0.0.0/8\n"), -1);
	EXPECT_EQ(keys(&c, "key = 1 " K1 " 10.0.0.0/8 sign\n"), -1);
	EXPECT_EQ(keys(&c, "key = 1 " K1 "\n"), -1);
	EXPECT_EQ(keys(&c, "key = 1 " K1 " ::/0\nkey = 1 " K2 " ::/0\n"), -1);
	EXPECT_EQ(keys(&c, "probe-budget = 5\n"), -1);
	/* and a key line is refused in the main file */
	EXPECT_EQ(hpccd_cfg_parse(&c, "main", "key = 1 " K1 " ::/0\n",
				  strlen("key = 1 " K1 " ::/0\n")), -1);
}

/*
 * notify-key lines (the MAC of FCR and CCM, 32 hex digits) beside key
 * lines; hpccctl fcr set key-file reads them
 */
TEST(notify_key_lines)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	ASSERT_EQ(0, keys(&c, "key = 7 " K1 " ::/0\n"
			  "notify-key = 9 00112233445566778899aabbccddeeff 10.0.0.0/8 accept\n"
			  "notify-key = 10 00112233445566778899aabbccddeeff fd00::/8\n"));
	EXPECT_EQ(c.n_keys, 1);
	ASSERT_EQ(c.n_nkeys, 2);
	EXPECT_EQ(c.nkeys[0].id, 9);
	EXPECT_TRUE(c.nkeys[0].accept);
	EXPECT_FALSE(c.nkeys[1].accept);
	EXPECT_EQ(c.nkeys[0].key[15], 0xff);
	EXPECT_EQ(c.nkeys[0].pfx.len, 104);
	/* 64 digits (a response key's length), an id twice, id 0: refused,
	 * and then no key of either kind is kept
	 */
	EXPECT_EQ(-1, keys(&c, "notify-key = 1 " K1 " ::/0\n"));
	EXPECT_EQ(c.n_nkeys, 0);
	EXPECT_EQ(-1, keys(&c, "key = 7 " K1 " ::/0\n"
			   "notify-key = 1 00112233445566778899aabbccddeeff ::/0\n"
			   "notify-key = 1 00112233445566778899aabbccddeeff ::/0\n"));
	EXPECT_EQ(c.n_keys, 0);
	EXPECT_EQ(c.n_nkeys, 0);
	EXPECT_EQ(-1, keys(&c, "notify-key = 0 00112233445566778899aabbccddeeff ::/0\n"));
}

/*
 * The key file must be hpccd's alone (mode 600), or a credential of the
 * service readable by no others; else no key is used.
 */
TEST(key_file_permissions)
{
	char dir[] = "/tmp/auth_test.XXXXXX", path[64], conf[96];
	struct hpccd_cfg c;
	FILE *f;
	int n;

	hpccd_cfg_log = quiet;
	ASSERT_NE(mkdtemp(dir), NULL);
	snprintf(path, sizeof(path), "%s/keys", dir);
	f = fopen(path, "w");
	ASSERT_NE(f, NULL);
	fprintf(f, "key = 1 %s 10.0.0.0/8\n", K1);
	fclose(f);
	snprintf(conf, sizeof(conf), "%s/conf", dir);
	f = fopen(conf, "w");
	ASSERT_NE(f, NULL);
	fprintf(f, "auth-key-file = %s\n", path);
	fclose(f);

	hpccd_cfg_defaults(&c);
	snprintf(c.file, sizeof(c.file), "%s", conf);
	ASSERT_EQ(chmod(path, 0644), 0);
	EXPECT_EQ(hpccd_cfg_read(&c, true), -1);
	EXPECT_EQ(c.n_keys, 0);
	ASSERT_EQ(chmod(path, 0600), 0);
	EXPECT_EQ(hpccd_cfg_read(&c, true), 0);
	EXPECT_EQ(c.n_keys, 1);
	/* a credential (LoadCredential=): the group bits (systemd's ACL
	 * mask) allowed, others' not; elsewhere the group bits refuse
	 */
	ASSERT_EQ(chmod(path, 0640), 0);
	EXPECT_EQ(hpccd_cfg_read(&c, true), -1);
	ASSERT_EQ(setenv("CREDENTIALS_DIRECTORY", "/tmp/elsewhere", 1), 0);
	EXPECT_EQ(hpccd_cfg_read(&c, true), -1);
	ASSERT_EQ(setenv("CREDENTIALS_DIRECTORY", dir, 1), 0);
	EXPECT_EQ(hpccd_cfg_read(&c, true), 0);
	EXPECT_EQ(c.n_keys, 1);
	ASSERT_EQ(chmod(path, 0644), 0);
	EXPECT_EQ(hpccd_cfg_read(&c, true), -1);
	EXPECT_EQ(c.n_keys, 0);
	ASSERT_EQ(unsetenv("CREDENTIALS_DIRECTORY"), 0);
	n = unlink(path) | unlink(conf) | rmdir(dir);
	EXPECT_EQ(n, 0);
}

TEST_HARNESS_MAIN
