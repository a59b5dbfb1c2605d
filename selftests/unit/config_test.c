// SPDX-License-Identifier: GPL-2.0
/*
 * config_test - hpccd's settings parser (daemon/hpccd/config.c) for the
 * encodings issue's keys: "encoding = ioam|int-md|ifa PREFIX/LEN" (longest
 * prefix wins, host bits ignored, IPv4 prefixes for INT-MD and IFA, at
 * most HPCCD_MAX_ENCODINGS), int-qlen-unit, int-tx-util-full,
 * "int-ts-unit = ns|us|ntp [SWITCH]", ifa-base-ns, "capacity = SWITCH
 * PORT RATE" and default-rate (the B of a record with none),
 * ioam-namespace, ioam-ts, "fcr = PREFIX/LEN" (the destinations whose
 * probes announce FCR support) and "ccm = PREFIX/LEN" (those whose probes
 * carry the coordination tag); the lists are replaced by each parse (a
 * reload); hpccd_cfg_load(), a start's and a reload's load.  Host test,
 * built with ASan and UBSan.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hpccd/config.h"
#include "hpcc_decode.h"

static void quiet(const char *msg)
{
	(void)msg;
}

static int parse(struct hpccd_cfg *c, const char *text)
{
	return hpccd_cfg_parse(c, "test", text, strlen(text));
}

static int enc_of(const struct hpccd_cfg *c, const char *addr)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, addr, a) == 1)
		return hpccd_cfg_encoding(c, AF_INET, a);
	if (inet_pton(AF_INET6, addr, a) != 1)
		return -1;
	return hpccd_cfg_encoding(c, AF_INET6, a);
}

TEST(encoding_longest_prefix)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "2001:db8::1"));
	ASSERT_EQ(0, parse(&c, "encoding = ioam 2001:db8:1:2::ffff/63\n"
			       "encoding = ioam fd00::/8\n"));
	EXPECT_EQ(2, c.n_enc);
	/* /63: the host bits of the line are ignored */
	EXPECT_EQ(HPCCD_ENC_IOAM, enc_of(&c, "2001:db8:1:3::9"));
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "2001:db8:1:4::9"));
	EXPECT_EQ(HPCCD_ENC_IOAM, enc_of(&c, "fdff::1"));
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "fe00::1"));
	/* ::/0 matches everything */
	ASSERT_EQ(0, parse(&c, "encoding = ioam ::/0\n"));
	EXPECT_EQ(1, c.n_enc);
	EXPECT_EQ(HPCCD_ENC_IOAM, enc_of(&c, "fe00::1"));
}

TEST(encoding_refused)
{
	static const char *const bad[] = {
		"encoding = int 2001:db8::/32\n",
		"encoding = int-md 10.0.0.0/33\n",
		"encoding = int-md 10.0.0.0\n",
		"encoding = int-md 10.0.0/8\n",
		"int-qlen-unit = 0\n",
		"int-qlen-unit = 65537\n",
		"int-tx-util-full = 4294967295\n",
		"encoding = ifa 10.0.0.0/33\n",
		"ifa-base-ns = 1000000001\n",
		"encoding = ioam 2001:db8::/129\n",
		"encoding = ioam 2001:db8::\n",
		"encoding = ioam 10.0.0.0/8\n",
		"encoding = ioam 2001:db8::/32 extra\n",
		"encoding = ioam\n",
		"capacity = 1 2\n",
		"capacity = 1 2 0\n",
		"capacity = 1 2 1600000000001\n",
		"capacity = -1 2 3\n",
		"capacity = 1 2 3 4\n",
		"default-rate = 1600000000001\n",
		"ioam-namespace = 65536\n",
		"ioam-ts = gps\n",
		"int-ts-unit = ms\n",
		"int-ts-unit = us -1\n",
		"int-ts-unit = us 4294967296\n",
		"int-ts-unit = us 1 2\n",
		"int-ts-unit =\n",
	};
	struct hpccd_cfg c;
	unsigned int i;
	char text[64 * 17] = "";

	hpccd_cfg_log = quiet;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hpccd_cfg_defaults(&c);
		EXPECT_EQ(-1, parse(&c, bad[i])) TH_LOG("accepted: %s", bad[i]);
		EXPECT_EQ(0, c.n_enc);
		EXPECT_EQ(0, c.n_cap);
		EXPECT_EQ(0, c.n_int_ts);
		EXPECT_EQ(HPCC_INT_TS_NS, c.int_ts_unit);
	}
	/* more lines than the list holds: the extra one is refused */
	for (i = 0; i <= HPCCD_MAX_ENCODINGS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "encoding = ioam fd%02x::/16\n", i);
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(-1, parse(&c, text));
	EXPECT_EQ(HPCCD_MAX_ENCODINGS, c.n_enc);
}

/* INT-MD prefixes of both families in one list; IPv4 ones match only
 * IPv4 destinations (and ::/0 everything); the INT units.
 */
TEST(encoding_int_md)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(1, c.int_qlen_unit);
	EXPECT_EQ(0, c.int_tx_util_full);
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "10.1.2.3"));
	ASSERT_EQ(0, parse(&c, "encoding = int-md 10.1.0.0/16\n"
			       "encoding = int-md 2001:db8::/32\n"
			       "encoding = ioam 2001:db8:1::/48\n"
			       "int-qlen-unit = 80\nint-tx-util-full = 10000\n"));
	EXPECT_EQ(HPCCD_ENC_INT_MD, enc_of(&c, "10.1.2.3"));
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "10.2.0.1"));
	EXPECT_EQ(HPCCD_ENC_INT_MD, enc_of(&c, "2001:db8:2::1"));
	EXPECT_EQ(HPCCD_ENC_IOAM, enc_of(&c, "2001:db8:1::1"));
	/* an IPv4 prefix is not an IPv6 one that starts with the same bits;
	 * an IPv4-mapped destination is the IPv4 one
	 */
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "a01:203::"));
	EXPECT_EQ(HPCCD_ENC_INT_MD, enc_of(&c, "::ffff:10.1.0.1"));
	EXPECT_EQ(80, c.int_qlen_unit);
	EXPECT_EQ(10000, c.int_tx_util_full);
	ASSERT_EQ(0, parse(&c, "encoding = ifa 10.1.2.0/24\n"
			       "encoding = int-md 10.1.0.0/16\n"
			       "encoding = ifa fd00::/8\nifa-base-ns = 600\n"));
	EXPECT_EQ(HPCCD_ENC_IFA, enc_of(&c, "10.1.2.3"));
	EXPECT_EQ(HPCCD_ENC_INT_MD, enc_of(&c, "10.1.3.3"));
	EXPECT_EQ(HPCCD_ENC_IFA, enc_of(&c, "fd12::1"));
	EXPECT_EQ(600, c.ifa_base_ns);
	ASSERT_EQ(0, parse(&c, "encoding = int-md 0.0.0.0/0\n"));
	EXPECT_EQ(HPCCD_ENC_INT_MD, enc_of(&c, "192.0.2.1"));
	EXPECT_EQ(HPCCD_ENC_OWN, enc_of(&c, "2001:db8::1"));
}

TEST(capacity_and_default_rate)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(0, hpccd_cfg_rate(&c, 5, 7));
	ASSERT_EQ(0, parse(&c, "capacity = 5 7 100000000\n"
			       "capacity = 4294967295 0 25000000000\n"
			       "ioam-namespace = 123\nioam-ts = ntp\n"));
	EXPECT_EQ(100000000, hpccd_cfg_rate(&c, 5, 7));
	EXPECT_EQ(25000000000ULL, hpccd_cfg_rate(&c, 4294967295U, 0));
	EXPECT_EQ(0, hpccd_cfg_rate(&c, 5, 8));
	EXPECT_EQ(123, c.ioam_namespace);
	EXPECT_EQ(2, c.ioam_ts);
	ASSERT_EQ(0, parse(&c, "default-rate = 40000000000\n"));
	/* a reload replaces the table: only the default is left */
	EXPECT_EQ(0, c.n_cap);
	EXPECT_EQ(40000000000ULL, hpccd_cfg_rate(&c, 5, 7));
}

/* int-ts-unit: per switch ID, else the line without one, else ns; a
 * reload replaces the switch lines and a start's defaults the other
 */
TEST(int_ts_unit)
{
	struct hpccd_cfg c;
	char text[32 * (HPCCD_MAX_CAPACITY + 1)] = "";
	unsigned int i;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(HPCC_INT_TS_NS, hpccd_cfg_int_ts_unit(&c, true, 9));
	EXPECT_EQ(HPCC_INT_TS_NS, hpccd_cfg_int_ts_unit(&c, false, 0));
	ASSERT_EQ(0, parse(&c, "int-ts-unit = us 9\n"
			       "int-ts-unit = ntp 4294967295\n"));
	EXPECT_EQ(2, c.n_int_ts);
	EXPECT_EQ(HPCC_INT_TS_US, hpccd_cfg_int_ts_unit(&c, true, 9));
	EXPECT_EQ(HPCC_INT_TS_NTP,
		  hpccd_cfg_int_ts_unit(&c, true, 4294967295U));
	EXPECT_EQ(HPCC_INT_TS_NS, hpccd_cfg_int_ts_unit(&c, true, 8));
	/* no switch ID reported: the line without one */
	EXPECT_EQ(HPCC_INT_TS_NS, hpccd_cfg_int_ts_unit(&c, false, 9));
	ASSERT_EQ(0, parse(&c, "int-ts-unit = us\nint-ts-unit = ns 7\n"));
	EXPECT_EQ(1, c.n_int_ts);
	EXPECT_EQ(HPCC_INT_TS_US, hpccd_cfg_int_ts_unit(&c, true, 9));
	EXPECT_EQ(HPCC_INT_TS_US, hpccd_cfg_int_ts_unit(&c, false, 7));
	EXPECT_EQ(HPCC_INT_TS_NS, hpccd_cfg_int_ts_unit(&c, true, 7));
	/* at most HPCCD_MAX_CAPACITY switch lines */
	for (i = 0; i <= HPCCD_MAX_CAPACITY; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "int-ts-unit = us %u\n", i);
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(-1, parse(&c, text));
	EXPECT_EQ(HPCCD_MAX_CAPACITY, c.n_int_ts);
}

static bool fcr_of(const struct hpccd_cfg *c, const char *addr)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, addr, a) == 1)
		return hpccd_cfg_fcr(c, AF_INET, a);
	return inet_pton(AF_INET6, addr, a) == 1 &&
	       hpccd_cfg_fcr(c, AF_INET6, a);
}

TEST(fcr_prefixes)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_FALSE(fcr_of(&c, "10.0.2.2"));	/* off by default */
	ASSERT_EQ(0, parse(&c, "fcr = 10.0.0.0/16\nfcr = 2001:db8::/32\n"));
	EXPECT_EQ(2, c.n_fcr);
	EXPECT_TRUE(fcr_of(&c, "10.0.2.2"));
	EXPECT_FALSE(fcr_of(&c, "10.1.2.2"));
	EXPECT_TRUE(fcr_of(&c, "2001:db8:5::1"));
	EXPECT_FALSE(fcr_of(&c, "2001:db9::1"));
	/* an IPv4 prefix does not match IPv6 addresses outside ::ffff:0:0/96 */
	EXPECT_FALSE(fcr_of(&c, "::10.0.2.2"));
	EXPECT_EQ(-1, parse(&c, "fcr = 10.0.0.0/33\n"));
	EXPECT_EQ(-1, parse(&c, "fcr = 10.0.0.0\n"));
	EXPECT_EQ(-1, parse(&c, "fcr = 10.0.0.0/8 extra\n"));
	/* a reload without the lines turns it off */
	ASSERT_EQ(0, parse(&c, "verbose = 1\n"));
	EXPECT_EQ(0, c.n_fcr);
	EXPECT_FALSE(fcr_of(&c, "10.0.2.2"));
}

/* "ccm = PREFIX/LEN": the same parser and match as fcr, its own list */
TEST(ccm_prefixes)
{
	struct hpccd_cfg c;
	uint8_t a[16];

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	ASSERT_EQ(1, inet_pton(AF_INET6, "fd00:c2::2", a));
	EXPECT_FALSE(hpccd_cfg_ccm(&c, AF_INET6, a));	/* off by default */
	ASSERT_EQ(0, parse(&c, "ccm = fd00::/16\nfcr = 10.0.0.0/8\n"));
	EXPECT_EQ(1, c.n_ccm);
	EXPECT_TRUE(hpccd_cfg_ccm(&c, AF_INET6, a));
	EXPECT_FALSE(hpccd_cfg_fcr(&c, AF_INET6, a));
	ASSERT_EQ(1, inet_pton(AF_INET, "10.0.0.1", a));
	EXPECT_FALSE(hpccd_cfg_ccm(&c, AF_INET, a));
	EXPECT_TRUE(hpccd_cfg_fcr(&c, AF_INET, a));
	EXPECT_EQ(-1, parse(&c, "ccm = fd00::/129\n"));
	EXPECT_EQ(-1, parse(&c, "ccm = fd00::\n"));
	ASSERT_EQ(0, parse(&c, "verbose = 1\n"));
	EXPECT_EQ(0, c.n_ccm);
}

/* write_file PATH TEXT MODE */
static int write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(path, mode);
}

/*
 * A reload is a restart's load (hpccd_cfg_load(): defaults, file,
 * command line): a setting the file no longer names returns to its
 * default, the command line wins over the file at every load, a key file
 * the file no longer names leaves no key, and a bad file fails whole.
 * (A reload that read the file over the running settings would keep a
 * removed response-rate's 50, let the file's probe-budget beat -b, and
 * read the keys of a removed auth-key-file again.)
 */
TEST(reload_is_restart)
{
	const char *const cl[] = { "probe-budget", "700", "log", "syslog" };
	char dir[] = "/tmp/config_test.XXXXXX", conf[64], keys[64], text[160];
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/conf", dir);
	snprintf(keys, sizeof(keys), "%s/keys", dir);
	ASSERT_EQ(0, write_file(keys, "key = 1 0101010101010101010101010101010101010101010101010101010101010101 10.0.0.0/8\n"
				"notify-key = 2 00112233445566778899aabbccddeeff 10.0.0.0/8\n", 0600));
	snprintf(text, sizeof(text), "probe-budget = 500\nresponse-rate = 50\n"
		 "encoding = int-md 10.0.0.0/8\nauth-key-file = %s\n", keys);
	ASSERT_EQ(0, write_file(conf, text, 0644));
	/* the start, and a reload of the same file: the same settings */
	ASSERT_EQ(0, hpccd_cfg_load(&c, conf, true, cl, 2));
	EXPECT_EQ(700, c.budget);		/* -b over the file */
	EXPECT_EQ(50, c.response_rate);
	EXPECT_TRUE(c.syslog);
	EXPECT_EQ(1, c.n_enc);
	EXPECT_EQ(1, c.n_keys);
	EXPECT_EQ(1, c.n_nkeys);
	ASSERT_EQ(0, hpccd_cfg_load(&c, conf, true, cl, 2));
	EXPECT_EQ(700, c.budget);
	EXPECT_EQ(1, c.n_keys);
	/* the file without response-rate, encoding and auth-key-file */
	ASSERT_EQ(0, write_file(conf, "max-hops = 3\nlog = stderr\n", 0644));
	ASSERT_EQ(0, hpccd_cfg_load(&c, conf, true, cl, 2));
	EXPECT_EQ(700, c.budget);
	EXPECT_EQ(3, c.max_hops);
	EXPECT_EQ(20000, c.response_rate);	/* the default again */
	EXPECT_EQ(0, c.n_enc);
	EXPECT_STREQ("", c.key_file);
	EXPECT_EQ(0, c.n_keys);
	EXPECT_EQ(0, c.n_nkeys);
	EXPECT_TRUE(c.syslog);			/* -s over "log = stderr" */
	/* without the command line: the file's and the defaults */
	ASSERT_EQ(0, hpccd_cfg_load(&c, conf, true, cl, 0));
	EXPECT_EQ(20000, c.budget);
	EXPECT_FALSE(c.syslog);
	/* a bad file, a bad command line value, a missing file that was
	 * named: -1 (hpccd keeps its running settings)
	 */
	ASSERT_EQ(0, write_file(conf, "max-hops = 99\n", 0644));
	EXPECT_EQ(-1, hpccd_cfg_load(&c, conf, true, cl, 2));
	ASSERT_EQ(0, write_file(conf, "", 0644));
	EXPECT_EQ(-1, hpccd_cfg_load(&c, conf, true,
				     (const char *const[]){ "max-hops", "0" }, 1));
	ASSERT_EQ(0, unlink(conf));
	EXPECT_EQ(-1, hpccd_cfg_load(&c, conf, true, cl, 2));
	/* not named (no -c): the defaults and the command line */
	ASSERT_EQ(0, hpccd_cfg_load(&c, conf, false, cl, 2));
	EXPECT_EQ(700, c.budget);
	EXPECT_EQ(5, c.max_hops);
	EXPECT_EQ(0, unlink(keys) | rmdir(dir));
}

/* The receiver's bounds: response budget and rp-filter, defaults and
 * ranges.
 */
TEST(response_budget_keys)
{
	struct hpccd_cfg c;

	hpccd_cfg_log = quiet;
	hpccd_cfg_defaults(&c);
	EXPECT_EQ(20000, c.response_budget);
	EXPECT_EQ(5000000, c.response_budget_bytes);
	ASSERT_EQ(0, parse(&c, "response-budget = 1\n"
			       "response-budget-bytes = 1500\n"));
	EXPECT_EQ(1, c.response_budget);
	EXPECT_EQ(1500, c.response_budget_bytes);
	EXPECT_NE(0, parse(&c, "response-budget = 0\n"));
	EXPECT_NE(0, parse(&c, "response-budget = 10000001\n"));
	EXPECT_NE(0, parse(&c, "response-budget-bytes = 1499\n"));
	EXPECT_NE(0, parse(&c, "response-budget-bytes = 1000000001\n"));
	/* the kernel's rp_filter numbering: 1 strict (the default), 2 loose */
	EXPECT_EQ(1, c.rp_filter);
	EXPECT_EQ(HPCCD_RP_STRICT, c.rp_filter);
	ASSERT_EQ(0, parse(&c, "rp-filter = 2\n"));
	EXPECT_EQ(HPCCD_RP_LOOSE, c.rp_filter);
	EXPECT_EQ(2, HPCCD_RP_LOOSE);
	ASSERT_EQ(0, parse(&c, "rp-filter = 1\n"));
	EXPECT_EQ(HPCCD_RP_STRICT, c.rp_filter);
	EXPECT_NE(0, parse(&c, "rp-filter = 0\n"));
	EXPECT_NE(0, parse(&c, "rp-filter = 3\n"));
	/* the default lets the receiver's fixed tail through (rolling
	 * upgrades: an older sender's probe with all records filled gets
	 * them plus N, mode, W or U, MAC), and no more
	 */
	EXPECT_EQ(HPCCD_AMP_TAIL, c.response_amplification);
	EXPECT_EQ(1, HPCCD_AMP_TAIL);
	ASSERT_EQ(0, parse(&c, "response-amplification = 0\n"));
	EXPECT_EQ(HPCCD_AMP_NONE, c.response_amplification);
	ASSERT_EQ(0, parse(&c, "response-amplification = 2\n"));
	EXPECT_EQ(HPCCD_AMP_ANY, c.response_amplification);
	EXPECT_NE(0, parse(&c, "response-amplification = 3\n"));
	EXPECT_EQ(1, c.tcp_check);
	EXPECT_EQ(256, c.n_flows_per_source);
	ASSERT_EQ(0, parse(&c, "tcp-check = 0\nn-flows-per-source = 1\n"));
	EXPECT_EQ(0, c.tcp_check);
	EXPECT_EQ(1, c.n_flows_per_source);
	EXPECT_NE(0, parse(&c, "n-flows-per-source = 0\n"));
	EXPECT_NE(0, parse(&c, "tcp-check = 2\n"));
	/* probe-pipeline: 1 (no pipelining) to HPCCD_PIPE_MAX */
	EXPECT_EQ(1, c.probe_pipeline);
	ASSERT_EQ(0, parse(&c, "probe-pipeline = 8\n"));
	EXPECT_EQ(HPCCD_PIPE_MAX, c.probe_pipeline);
	EXPECT_NE(0, parse(&c, "probe-pipeline = 0\n"));
	EXPECT_NE(0, parse(&c, "probe-pipeline = 9\n"));
	/* shards: 1 (one thread) to HPCCD_SHARDS_MAX */
	EXPECT_EQ(1, c.shards);
	ASSERT_EQ(0, parse(&c, "shards = 64\n"));
	EXPECT_EQ(HPCCD_SHARDS_MAX, c.shards);
	EXPECT_NE(0, parse(&c, "shards = 0\n"));
	EXPECT_NE(0, parse(&c, "shards = 65\n"));
}

/*
 * response-amplification: how much larger than its probe a response may
 * be.  By default, the receiver's fixed tail (HPCC_WIRE_RESP_EXT_MAX, 48
 * bytes) for a probe of this host's own TCP flows: a 5-hop probe of an
 * older sender, all records filled, draws its records plus N (8 bytes)
 * and is answered; a per-hop gain (a 40-byte record per IOAM or INT-MD
 * hop) is not; and a probe of no connection here (a spoofed one) draws
 * no byte more than it cost.
 */
TEST(response_fits)
{
	struct hpccd_cfg c;
	size_t probe = 20 + 20 + 24 + 5 * 40;	/* IPv4, 5 records */

	hpccd_cfg_defaults(&c);
	EXPECT_TRUE(hpccd_cfg_response_fits(&c, probe, probe, true));
	EXPECT_TRUE(hpccd_cfg_response_fits(&c, probe + 8, probe, true));
	EXPECT_TRUE(hpccd_cfg_response_fits(&c, probe + 48, probe, true));
	EXPECT_FALSE(hpccd_cfg_response_fits(&c, probe + 49, probe, true));
	EXPECT_FALSE(hpccd_cfg_response_fits(&c, probe + 40 + 8 + 8, probe,
					     true));
	EXPECT_TRUE(hpccd_cfg_response_fits(&c, probe, probe, false));
	EXPECT_FALSE(hpccd_cfg_response_fits(&c, probe + 8, probe, false));
	c.response_amplification = HPCCD_AMP_NONE;
	EXPECT_TRUE(hpccd_cfg_response_fits(&c, probe, probe, true));
	EXPECT_FALSE(hpccd_cfg_response_fits(&c, probe + 8, probe, true));
	c.response_amplification = HPCCD_AMP_ANY;
	EXPECT_TRUE(hpccd_cfg_response_fits(&c, 4 * probe, probe, false));
}

TEST_HARNESS_MAIN
