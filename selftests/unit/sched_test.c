// SPDX-License-Identifier: GPL-2.0
/*
 * sched_test - hpccd's probe scheduler (daemon/hpccd/sched.c): the flow
 * table, the budget, timeouts and backoff, the deadline heap against a
 * brute-force model, reconciliation, and the per-source response limit.
 * Host test, built with ASan and UBSan.
 */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <netinet/tcp.h>

#include "kselftest_harness.h"
#include "hpccd/sched.h"

#define MS 1000000ULL
#define T0 (1000 * MS)

static struct hpcc_tuple tup(uint32_t i)
{
	struct hpcc_tuple t = {
		.saddr = 0x010012c6, .daddr = 0x020012c6 + (i >> 16),
		.sport = (uint16_t)i, .dport = 0x5114,
	};
	return t;
}

FIXTURE(sched) {
	struct hpccd_sched s;
};

FIXTURE_SETUP(sched)
{
	/* 1000 probes/s (burst 10), timeouts 1 ms..1 s, 1000 flows */
	ASSERT_EQ(0, hpccd_sched_init(&self->s, 1000, 1000, 1000000, 1000,
				      42, T0));
}

FIXTURE_TEARDOWN(sched)
{
	hpccd_sched_free(&self->s);
}

TEST_F(sched, add_find_remove)
{
	struct hpcc_tuple t;
	struct hpccd_flow *f;
	bool created;
	uint32_t i;

	for (i = 0; i < 1000; i++) {
		t = tup(i);
		f = hpccd_flow_add(&self->s, &t, &created);
		ASSERT_NE(NULL, f);
		ASSERT_TRUE(created);
	}
	t = tup(7);
	ASSERT_EQ(hpccd_flow_find(&self->s, &t),
		  hpccd_flow_add(&self->s, &t, &created));
	ASSERT_FALSE(created);
	/* max-flows */
	t = tup(5000);
	ASSERT_EQ(NULL, hpccd_flow_add(&self->s, &t, NULL));
	ASSERT_EQ(1000, self->s.nflows);
	for (i = 0; i < 1000; i += 2) {
		t = tup(i);
		hpccd_flow_remove(&self->s, hpccd_flow_find(&self->s, &t));
	}
	ASSERT_EQ(500, self->s.nflows);
	for (i = 0; i < 1000; i++) {
		t = tup(i);
		ASSERT_EQ(i & 1, hpccd_flow_find(&self->s, &t) != NULL);
	}
}

/*
 * A flow's identity: family, addresses, ports.  IPv6 flows that differ
 * only in an address byte are different flows; an IPv4 tuple of family 0
 * and of AF_INET is the same flow; a flow label is not part of it.
 */
TEST_F(sched, tuple_identity)
{
	struct hpcc_tuple a = {
		.family = AF_INET6, .sport = 1, .dport = 2,
		.saddr6 = { 0xfd, [15] = 1 }, .daddr6 = { 0xfd, [15] = 2 },
	}, b = a, c = tup(3);
	struct hpccd_flow *fa, *fb, *fc;

	fa = hpccd_flow_add(&self->s, &a, NULL);
	b.daddr6[8] = 1;
	fb = hpccd_flow_add(&self->s, &b, NULL);
	ASSERT_NE(NULL, fa);
	ASSERT_NE(NULL, fb);
	EXPECT_NE(fa, fb);
	b = a;
	b.flowlabel = 0xabcde;
	EXPECT_EQ(fa, hpccd_flow_find(&self->s, &b));
	/* the same addresses' bytes as IPv4: another flow */
	b = a;
	b.family = AF_INET;
	EXPECT_EQ(NULL, hpccd_flow_find(&self->s, &b));
	fc = hpccd_flow_add(&self->s, &c, NULL);
	c.family = AF_INET;
	EXPECT_EQ(fc, hpccd_flow_find(&self->s, &c));
	EXPECT_EQ(3, self->s.nflows);
}

/* 1000/s with a burst of 10: ten at once, then one per ms, in order. */
TEST_F(sched, budget_fifo)
{
	struct hpccd_flow *f[20], *g;
	struct hpcc_tuple t;
	int i, sent = 0;

	for (i = 0; i < 20; i++) {
		t = tup(i);
		f[i] = hpccd_flow_add(&self->s, &t, NULL);
		if (hpccd_want(&self->s, f[i], T0)) {
			hpccd_sent(&self->s, f[i], i, T0);
			sent++;
		}
	}
	ASSERT_EQ(10, sent);
	ASSERT_EQ(10, hpccd_queued(&self->s));
	ASSERT_EQ(HPCCD_QUEUED, f[10]->state);
	ASSERT_EQ(NULL, hpccd_next_queued(&self->s, T0));
	/* wake up when the next token arrives: 1 ms */
	ASSERT_EQ(T0 + MS, hpccd_next_wakeup(&self->s, T0));
	g = hpccd_next_queued(&self->s, T0 + MS);
	ASSERT_EQ(f[10], g);
	ASSERT_EQ(NULL, hpccd_next_queued(&self->s, T0 + MS));
	/* a flow that wants a probe while others wait joins the end */
	hpccd_sent(&self->s, g, 10, T0 + MS);
	g = hpccd_next_queued(&self->s, T0 + 3 * MS);
	ASSERT_EQ(f[11], g);
	hpccd_sent(&self->s, g, 11, T0 + 3 * MS);
	ASSERT_EQ(f[12], hpccd_next_queued(&self->s, T0 + 3 * MS));
	/* an outstanding flow does not want another */
	ASSERT_FALSE(hpccd_want(&self->s, f[0], T0 + 100 * MS));
}

TEST_F(sched, timeout_backoff_and_response)
{
	struct hpcc_tuple t = tup(1);
	struct hpccd_flow *f = hpccd_flow_add(&self->s, &t, NULL);
	bool lost;
	int i;

	f->srtt_us = 5000;	/* timeout 10 ms */
	ASSERT_TRUE(hpccd_want(&self->s, f, T0));
	hpccd_sent(&self->s, f, 99, T0);
	ASSERT_EQ(T0 + 10 * MS, f->deadline_ns);
	ASSERT_EQ(T0 + 10 * MS, hpccd_next_wakeup(&self->s, T0));
	ASSERT_EQ(NULL, hpccd_next_expired(&self->s, T0 + 10 * MS - 1, &lost));
	ASSERT_EQ(f, hpccd_next_expired(&self->s, T0 + 10 * MS, &lost));
	ASSERT_TRUE(lost);
	ASSERT_EQ(1, f->lost);
	ASSERT_EQ(HPCCD_IDLE, f->state);
	ASSERT_EQ(0, hpccd_next_wakeup(&self->s, T0 + 10 * MS));
	/* doubled after each loss in a row, up to timeout-max (1 s) */
	for (i = 1; i < 12; i++) {
		uint64_t now = T0 + i * 2000 * MS;

		ASSERT_TRUE(hpccd_want(&self->s, f, now));
		hpccd_sent(&self->s, f, i, now);
		ASSERT_EQ(i < 7 ? (10 * MS) << i : 1000 * MS,
			  f->deadline_ns - now);
		ASSERT_EQ(f, hpccd_next_expired(&self->s, f->deadline_ns,
						&lost));
	}
	/* a response: RTT measured, losses reset; a stale id is refused */
	ASSERT_TRUE(hpccd_want(&self->s, f, T0 + 50000 * MS));
	hpccd_sent(&self->s, f, 1234, T0 + 50000 * MS);
	ASSERT_FALSE(hpccd_response(&self->s, f, 1233, T0 + 50001 * MS));
	ASSERT_TRUE(hpccd_response(&self->s, f, 1234, T0 + 50002 * MS));
	ASSERT_FALSE(hpccd_response(&self->s, f, 1234, T0 + 50003 * MS));
	ASSERT_EQ(0, f->losses_in_row);
	ASSERT_EQ(2 * MS, f->rtt_ns);
	ASSERT_EQ(0, hpccd_next_wakeup(&self->s, T0 + 50003 * MS));
}

/* A new flow i (srtt 1 ms) probed at T0 and answered at T0 + 1 ms. */
static struct hpccd_flow *answered(struct __test_metadata *_metadata,
				   struct hpccd_sched *s, int i)
{
	struct hpcc_tuple t = tup(i);
	struct hpccd_flow *f = hpccd_flow_add(s, &t, NULL);

	EXPECT_NE(NULL, f);
	f->srtt_us = 1000;
	EXPECT_TRUE(hpccd_want(s, f, T0));
	hpccd_sent(s, f, 1, T0);
	EXPECT_TRUE(hpccd_response(s, f, 1, T0 + MS));
	return f;
}

/*
 * Telemetry refused: the flow waits one doubled timeout, then comes back
 * to be asked again; it is not lost (never probed again), and it can be
 * probed after.
 */
TEST_F(sched, backoff_comes_back)
{
	struct hpccd_flow *f = answered(_metadata, &self->s, 2);
	bool lost = true;

	hpccd_backoff(&self->s, f, T0 + MS);
	ASSERT_EQ(HPCCD_BACKOFF, f->state);
	ASSERT_FALSE(hpccd_want(&self->s, f, T0 + 2 * MS));
	/* 2 x max(srtt 1 ms, rtt 1 ms) << 1 = 4 ms */
	ASSERT_EQ(T0 + 5 * MS, hpccd_next_wakeup(&self->s, T0 + 2 * MS));
	ASSERT_EQ(f, hpccd_next_expired(&self->s, T0 + 5 * MS, &lost));
	ASSERT_FALSE(lost);
	ASSERT_EQ(0, f->lost);
	ASSERT_TRUE(hpccd_want(&self->s, f, T0 + 5 * MS));
}

/*
 * hpccd sends the next probe before it hears whether the module took the
 * last response's telemetry; a refusal that comes after that probe backs
 * the flow off and abandons the probe: one deadline (the backoff's), and
 * the probe's response no longer matches.
 */
TEST_F(sched, backoff_while_outstanding)
{
	struct hpccd_flow *f = answered(_metadata, &self->s, 3);
	bool lost = true;

	ASSERT_TRUE(hpccd_want(&self->s, f, T0 + MS));
	hpccd_sent(&self->s, f, 2, T0 + MS);
	hpccd_backoff(&self->s, f, T0 + MS);
	ASSERT_EQ(HPCCD_BACKOFF, f->state);
	ASSERT_EQ(1, self->s.heap_len);
	ASSERT_FALSE(hpccd_response(&self->s, f, 2, T0 + 2 * MS));
	ASSERT_EQ(T0 + 5 * MS, hpccd_next_wakeup(&self->s, T0 + 2 * MS));
	ASSERT_EQ(f, hpccd_next_expired(&self->s, T0 + 5 * MS, &lost));
	ASSERT_FALSE(lost);
	ASSERT_EQ(NULL, hpccd_next_expired(&self->s, T0 + 100 * MS, &lost));
	ASSERT_EQ(0, self->s.heap_len);
}

/*
 * A flow hpccd asks the module about without waiting (a flow-get after a
 * response without hops, or after a timeout): the reply makes it idle
 * again; a lost reply hands it back after its timeout, not counted as a
 * loss; a flow-active while it is asked probes at once, and the late
 * reply then leaves the probe alone.
 */
TEST_F(sched, asking_flow)
{
	struct hpccd_flow *f = answered(_metadata, &self->s, 4);
	bool lost = true;

	/* 2 x max(srtt 1 ms, rtt 1 ms) = 2 ms */
	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + MS, 1));
	ASSERT_EQ(HPCCD_ASKING, f->state);
	ASSERT_EQ(T0 + 3 * MS, hpccd_next_wakeup(&self->s, T0 + MS));
	ASSERT_FALSE(hpccd_ask(&self->s, f, T0 + 2 * MS, 2));
	ASSERT_EQ(T0 + 3 * MS, f->deadline_ns);
	ASSERT_TRUE(hpccd_answered(&self->s, f, 1));
	ASSERT_EQ(HPCCD_IDLE, f->state);
	ASSERT_EQ(0, self->s.heap_len);
	ASSERT_EQ(0, hpccd_next_wakeup(&self->s, T0 + 2 * MS));

	/* the reply is lost: asked again after the timeout, no loss */
	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + 2 * MS, 3));
	ASSERT_EQ(NULL, hpccd_next_expired(&self->s, T0 + 4 * MS - 1, &lost));
	ASSERT_EQ(f, hpccd_next_expired(&self->s, T0 + 4 * MS, &lost));
	ASSERT_FALSE(lost);
	ASSERT_EQ(0, f->lost);
	ASSERT_EQ(0, f->losses_in_row);
	ASSERT_EQ(HPCCD_IDLE, f->state);

	/* flow-active while asking: probed now; the late reply changes
	 * nothing
	 */
	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + 4 * MS, 4));
	ASSERT_TRUE(hpccd_want(&self->s, f, T0 + 5 * MS));
	hpccd_sent(&self->s, f, 5, T0 + 5 * MS);
	ASSERT_EQ(1, self->s.heap_len);
	ASSERT_FALSE(hpccd_ask(&self->s, f, T0 + 5 * MS, 5));
	ASSERT_FALSE(hpccd_answered(&self->s, f, 4));
	ASSERT_EQ(HPCCD_OUTSTANDING, f->state);
	ASSERT_EQ(1, self->s.heap_len);
	ASSERT_TRUE(hpccd_response(&self->s, f, 5, T0 + 6 * MS));

	/* forgotten while asked: its deadline goes with it */
	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + 6 * MS, 6));
	hpccd_flow_remove(&self->s, f);
	ASSERT_EQ(0, self->s.heap_len);
}

/*
 * A late reply is not taken (hpccd then leaves in-flight and srtt as the
 * newer events and replies set them): the reply to question 1 arrives
 * after the flow was probed (a flow-active meanwhile) and answered; or
 * after question 1 timed out and question 2 was asked.  Only question 2's
 * reply is current.
 */
TEST_F(sched, late_reply_not_taken)
{
	struct hpccd_flow *f = answered(_metadata, &self->s, 4);
	bool lost;

	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + MS, 1));
	ASSERT_TRUE(hpccd_want(&self->s, f, T0 + 2 * MS));
	hpccd_sent(&self->s, f, 7, T0 + 2 * MS);
	ASSERT_TRUE(hpccd_response(&self->s, f, 7, T0 + 3 * MS));
	/* idle again, as it was when asked: still a late reply */
	ASSERT_EQ(HPCCD_IDLE, f->state);
	ASSERT_FALSE(hpccd_answered(&self->s, f, 1));

	/* question 1 unanswered past its deadline, question 2 asked */
	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + 3 * MS, 1));
	ASSERT_EQ(f, hpccd_next_expired(&self->s, T0 + 10 * MS, &lost));
	ASSERT_TRUE(hpccd_ask(&self->s, f, T0 + 10 * MS, 2));
	ASSERT_FALSE(hpccd_answered(&self->s, f, 1));
	ASSERT_EQ(HPCCD_ASKING, f->state);
	ASSERT_EQ(1, self->s.heap_len);
	ASSERT_TRUE(hpccd_answered(&self->s, f, 2));
	ASSERT_EQ(HPCCD_IDLE, f->state);
	ASSERT_EQ(0, self->s.heap_len);
	ASSERT_FALSE(hpccd_answered(&self->s, f, 2));
}

/* Deadlines come out in order whatever the order of sends and removals. */
TEST_F(sched, heap_order)
{
	struct hpccd_flow *f[500], *g;
	uint64_t last = 0, now = T0;
	struct hpcc_tuple t;
	int i, n = 0;
	bool lost;

	hpccd_sched_set(&self->s, 10000000, 100, 10000000, 1000);
	srand(7);
	for (i = 0; i < 500; i++) {
		t = tup(i);
		f[i] = hpccd_flow_add(&self->s, &t, NULL);
		f[i]->srtt_us = 1 + rand() % 100000;
		now += 1000;
		ASSERT_TRUE(hpccd_want(&self->s, f[i], now));
		hpccd_sent(&self->s, f[i], i, now);
	}
	for (i = 0; i < 500; i += 3)
		hpccd_flow_remove(&self->s, f[i]);
	for (i = 1; i < 500; i += 3)
		ASSERT_TRUE(hpccd_response(&self->s, f[i], i, now));
	while ((g = hpccd_next_expired(&self->s, UINT64_MAX / 2, &lost))) {
		ASSERT_GE(g->deadline_ns, last);
		ASSERT_TRUE(lost);
		last = g->deadline_ns;
		n++;
	}
	ASSERT_EQ(500 - 167 - 167, n);
}

TEST_F(sched, reconcile)
{
	struct hpcc_tuple t;
	uint32_t i;

	for (i = 0; i < 100; i++) {
		t = tup(i);
		hpccd_flow_add(&self->s, &t, NULL);
	}
	t = tup(5);
	ASSERT_TRUE(hpccd_want(&self->s, hpccd_flow_find(&self->s, &t), T0));
	hpccd_reconcile_begin(&self->s);
	for (i = 0; i < 100; i += 10) {	/* the module still has 10 */
		t = tup(i);
		hpccd_flow_add(&self->s, &t, NULL);
	}
	t = tup(1000);			/* and one we missed */
	hpccd_flow_add(&self->s, &t, NULL);
	ASSERT_EQ(90, hpccd_reconcile_end(&self->s));
	ASSERT_EQ(11, self->s.nflows);
	t = tup(5);
	ASSERT_EQ(NULL, hpccd_flow_find(&self->s, &t));
	ASSERT_EQ(0, hpccd_queued(&self->s));
	t = tup(1000);
	ASSERT_NE(NULL, hpccd_flow_find(&self->s, &t));
}

/* check_unseen stand-in: forgets the odd ones (ENOENT), keeps the rest */
static void forget_odd(struct hpccd_flow *f, void *data)
{
	struct hpccd_sched *s = data;

	if (f->t.sport & 1)
		hpccd_flow_remove(s, f);
}

/* An interrupted dump: the flows it did not list are each passed to fn,
 * which may remove them; the listed ones are not; none is forgotten
 * without fn's word.
 */
TEST_F(sched, reconcile_unseen)
{
	struct hpcc_tuple t;
	uint32_t i;

	for (i = 0; i < 100; i++) {
		t = tup(i);
		hpccd_flow_add(&self->s, &t, NULL);
	}
	hpccd_reconcile_begin(&self->s);
	for (i = 0; i < 100; i += 10) {	/* the dump listed 10 */
		t = tup(i);
		hpccd_flow_add(&self->s, &t, NULL);
	}
	ASSERT_EQ(90, hpccd_reconcile_unseen(&self->s, forget_odd, &self->s));
	ASSERT_EQ(50, self->s.nflows);	/* 10 listed + 40 even, unlisted */
	for (i = 0; i < 100; i++) {
		t = tup(i);
		if (i & 1) {
			ASSERT_EQ(NULL, hpccd_flow_find(&self->s, &t));
		} else {
			ASSERT_NE(NULL, hpccd_flow_find(&self->s, &t));
		}
	}
	/* each was seen once: a second pass calls fn on none */
	ASSERT_EQ(0, hpccd_reconcile_unseen(&self->s, forget_odd, &self->s));
}

TEST(response_limit)
{
	struct hpccd_rl rl;
	uint32_t a = 0x0a000001, b = 0x0a000002, i, x;
	int ok = 0;

	ASSERT_EQ(0, hpccd_rl_init(&rl, 1000, 16, 1));	/* burst 10 */
	for (i = 0; i < 100; i++)
		ok += hpccd_rl_allow(&rl, AF_INET, &a, T0);
	ASSERT_EQ(10, ok);
	/* another source has its own bucket */
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET, &b, T0));
	/* one more per ms */
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET, &a, T0 + MS));
	ASSERT_FALSE(hpccd_rl_allow(&rl, AF_INET, &a, T0 + MS));
	/* a flood of other sources does not refill a's bucket: 10 us
	 * later it holds 0.01 of a token, so a gets nothing (a bucket
	 * handed out afresh would give it its burst, 10)
	 */
	for (i = 0; i < 10000; i++) {
		x = 0x0b000000 + i;
		hpccd_rl_allow(&rl, AF_INET, &x, T0 + MS + i);
	}
	ASSERT_GT(rl.crowded, 0);
	ok = 0;
	for (i = 0; i < 100; i++)
		ok += hpccd_rl_allow(&rl, AF_INET, &a, T0 + MS + 10000);
	ASSERT_EQ(0, ok);
	/* 1 ms on, its own rate gave it one */
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET, &a, T0 + 2 * MS + 10000));
	ASSERT_FALSE(hpccd_rl_allow(&rl, AF_INET, &a, T0 + 2 * MS + 10000));
	/* once the flood's buckets are full again (10 ms), new sources
	 * take their ways: the table forgets only what it may
	 */
	x = 0x0c000001;
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET, &x, T0 + 100 * MS));
	hpccd_rl_free(&rl);
	ASSERT_EQ(-EINVAL, hpccd_rl_init(&rl, 1000, 6, 1));
}

/* The namespace-wide budget: at most its burst plus its rate, in
 * responses and in bytes, however many probes come.
 */
TEST(response_budget)
{
	struct hpccd_budget b;
	uint64_t byte_burst = 8 * HPCC_PKT_MAX, sent = 0, bytes = 0;
	uint32_t i;
	int ok = 0;

	hpccd_budget_init(&b, 1000, 100000, T0);	/* burst 10 */
	for (i = 0; i < 100; i++)
		ok += hpccd_budget_take(&b, T0);
	ASSERT_EQ(10, ok);
	ASSERT_EQ(90, b.over);
	/* one second of 1,000,000 probes: 1000 more */
	for (i = 1; i <= 1000000; i++)
		ok += hpccd_budget_take(&b, T0 + i * 1000ULL);
	ASSERT_EQ(1010, ok);
	/* bytes: 100,000 per second, 500-byte responses; the burst first */
	hpccd_budget_init(&b, 10000000, 100000, T0);
	for (i = 0; i <= 100000; i++) {
		uint64_t now = T0 + i * 10000ULL;	/* 1 s in 10 us steps */

		if (hpccd_budget_take(&b, now) &&
		    hpccd_budget_bytes(&b, 500, now)) {
			sent++;
			bytes += 500;
		}
	}
	ASSERT_LE(bytes, byte_burst + 100000);
	ASSERT_GE(bytes, 100000 - 500);
	ASSERT_EQ(sent * 500, bytes);
	ASSERT_GT(b.over_bytes, 0);
	/* a lower rate cuts the buckets down to its burst */
	hpccd_budget_set(&b, 100, 1500);
	ok = 0;
	for (i = 0; i < 100; i++)
		ok += hpccd_budget_take(&b, T0 + 2000 * MS);
	ASSERT_EQ(8, ok);
}

/*
 * The flood: 1,000,000 probes in one second from sources spread
 * over one /24, each below its own response-rate.  The per-source limit
 * lets nearly all through (they are 256 sources at 3,900 per second);
 * the budget holds the total to its burst plus its rate.
 */
TEST(flood_spread_sources)
{
	struct hpccd_budget b;
	struct hpccd_rl rl;
	uint64_t per_source = 0, answered = 0, now;
	uint32_t i, src;

	ASSERT_EQ(0, hpccd_rl_init(&rl, 20000, 4096, 7));
	hpccd_budget_init(&b, 50000, 25000000, T0);
	for (i = 0; i < 1000000; i++) {
		now = T0 + i * 1000ULL;
		src = htonl(0xc6336400 | (i & 0xff));	/* 198.51.100.0/24 */
		if (!hpccd_rl_allow(&rl, AF_INET, &src, now))
			continue;
		per_source++;
		if (hpccd_budget_take(&b, now))
			answered++;
	}
	ASSERT_GT(per_source, 900000);
	ASSERT_LE(answered, 500 + 50000);
	ASSERT_GE(answered, 50000);
	hpccd_rl_free(&rl);
}

/* An IPv6 source's bucket is its /64's: new addresses in it get nothing
 * more; another /64, or an IPv4 source, has its own.
 */
TEST(response_limit_ipv6)
{
	uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 };
	uint8_t c6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 2 };
	uint8_t z6[16] = { 0 };
	uint32_t v4 = 0x0a000001, i;
	struct hpccd_rl rl;
	int ok = 0;

	ASSERT_EQ(0, hpccd_rl_init(&rl, 1000, 64, 1));	/* burst 10 */
	for (i = 0; i < 100; i++) {
		a6[15] = (uint8_t)i;	/* another address in the /64 */
		a6[9] = (uint8_t)(i * 7);
		ok += hpccd_rl_allow(&rl, AF_INET6, a6, T0);
	}
	ASSERT_EQ(10, ok);
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET6, c6, T0));
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET, &v4, T0));
	/* ::/64 and 0.0.0.0 are not one key */
	for (i = 0; i < 10; i++)
		ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET6, z6, T0));
	v4 = 0;
	ASSERT_TRUE(hpccd_rl_allow(&rl, AF_INET, &v4, T0));
	hpccd_rl_free(&rl);
}

static struct hpcc_hop_rec nf_hop(uint32_t sw, uint32_t port)
{
	struct hpcc_hop_rec h = { .switch_id = sw, .port_id = port };

	return h;
}

/*
 * The receiver's N: flows count on every hop of their last probe while
 * that probe is younger than the window; N is the largest count among a
 * probe's hops; a path change moves a flow's counts; a full table evicts
 * the least recent flow.
 */
TEST(receiver_flow_count)
{
	struct hpcc_hop_rec shared[2] = { nf_hop(1, 1), nf_hop(2, 5) };
	struct hpcc_hop_rec other[2] = { nf_hop(3, 1), nf_hop(2, 5) };
	struct hpcc_hop_rec loop[3] = { nf_hop(9, 1), nf_hop(9, 1),
					nf_hop(9, 1) };
	struct hpcc_tuple t[5];
	struct hpccd_nf nf;
	uint64_t ms = 1000000;
	int i;

	ASSERT_EQ(hpccd_nf_init(&nf, 4, 10 * ms, 7), 0);
	EXPECT_EQ(hpccd_nf_init(&(struct hpccd_nf){ 0 }, 0, ms, 1), -EINVAL);
	for (i = 0; i < 5; i++)
		t[i] = (struct hpcc_tuple){ .saddr = 10 + i, .daddr = 1,
					    .sport = 1000 + i, .dport = 5201 };
	/* no hops: nothing to count on */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[0], shared, 0, 0), 0);
	EXPECT_EQ(nf.nflows, 0);
	EXPECT_EQ(hpccd_nf_note(&nf, &t[0], shared, 2, 1 * ms), 1);
	EXPECT_EQ(hpccd_nf_note(&nf, &t[1], shared, 2, 2 * ms), 2);
	/* the same flow again is not a new one */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[0], shared, 2, 3 * ms), 2);
	/* t[2] shares only hop (2, 5) with them: 3 flows there */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[2], other, 2, 4 * ms), 3);
	/* t[1] moves to the other path: (1, 1) has 1, (3, 1) 2, (2, 5) 3 */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[1], other, 2, 5 * ms), 3);
	EXPECT_EQ(hpccd_nf_note(&nf, &t[0], shared, 1, 6 * ms), 1);
	EXPECT_EQ(nf.nflows, 3);
	/* a hop repeated in one probe counts the flow once */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[3], loop, 3, 7 * ms), 1);
	/* a fifth flow evicts the least recent (t[2], last seen at 4 ms) */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[4], other, 2, 8 * ms), 2);
	EXPECT_EQ(nf.evicted, 1);
	EXPECT_EQ(nf.nflows, 4);
	/* at 15 ms t[1] (5 ms) has left the window and t[0] (6 ms) too */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[4], other, 2, 16 * ms), 1);
	EXPECT_EQ(nf.nflows, 2);
	/* all gone after the window: counts start again from 1 */
	EXPECT_EQ(hpccd_nf_note(&nf, &t[2], other, 2, 100 * ms), 1);
	EXPECT_EQ(nf.nflows, 1);
	hpccd_nf_free(&nf);
}

/* Many flows over many paths: the pools never run out and the counts
 * return to nothing after the window.
 */
TEST(receiver_flow_count_churn)
{
	struct hpcc_hop_rec h[HPCC_MAX_HOPS];
	struct hpcc_tuple t = { .daddr = 1, .dport = 5201 };
	struct hpccd_nf nf;
	uint32_t i, k, n;

	ASSERT_EQ(hpccd_nf_init(&nf, 64, 1000, 3), 0);
	for (i = 0; i < 100000; i++) {
		t.saddr = i % 200;
		t.sport = (uint16_t)(i % 7);
		for (k = 0; k < HPCC_MAX_HOPS; k++)
			h[k] = nf_hop((i * 31 + k) % 97, k);
		n = hpccd_nf_note(&nf, &t, h, 1 + i % HPCC_MAX_HOPS, i / 4);
		ASSERT_GE(n, 1);
		ASSERT_LE(n, 64);
		ASSERT_LE(nf.nflows, 64);
	}
	hpccd_nf_note(&nf, &t, h, 0, UINT64_MAX / 2);
	EXPECT_EQ(nf.nflows, 0);
	for (k = 0; k < nf.nbuckets; k++) {
		EXPECT_EQ(nf.hbuckets[k], UINT32_MAX);
		EXPECT_EQ(nf.sbuckets[k], UINT32_MAX);
	}
	hpccd_nf_free(&nf);
}

/*
 * One source counts for at most per_source flows in N: 1000 ports from one
 * address (the flood: about 2,000 per source address, up to
 * 16,384, W_ai shrunk by up to 10^4) make N 8, not 1000; another address
 * adds its own share; IPv6 addresses of one /64 share one; the share
 * frees when the flows leave the window.
 */
TEST(receiver_flow_count_per_source)
{
	struct hpcc_hop_rec hop[1] = { nf_hop(4, 2) };
	struct hpcc_tuple t = { .saddr = 10, .daddr = 1, .dport = 5201 };
	struct hpcc_tuple t6 = { .family = AF_INET6, .dport = 5201,
				 .saddr6 = { 0x20, 0x01, 0x0d, 0xb8 } };
	uint64_t ms = 1000000;
	struct hpccd_nf nf;
	uint32_t i, n = 0;

	ASSERT_EQ(hpccd_nf_init(&nf, 4096, 100 * ms, 7), 0);
	EXPECT_EQ(4096, nf.per_source);
	nf.per_source = 8;
	for (i = 0; i < 1000; i++) {
		t.sport = (uint16_t)(1000 + i);
		n = hpccd_nf_note(&nf, &t, hop, 1, ms + i);
	}
	EXPECT_EQ(8, n);
	EXPECT_EQ(8, nf.nflows);
	EXPECT_EQ(992, nf.over_source);
	/* a counted flow of the source still counts, and gets N */
	t.sport = 1000;
	EXPECT_EQ(8, hpccd_nf_note(&nf, &t, hop, 1, 2 * ms));
	/* another address: its own 8 */
	t.saddr = 11;
	for (i = 0; i < 100; i++) {
		t.sport = (uint16_t)(1000 + i);
		n = hpccd_nf_note(&nf, &t, hop, 1, 3 * ms + i);
	}
	EXPECT_EQ(16, n);
	/* 100 addresses of one /64: one share */
	for (i = 0; i < 100; i++) {
		t6.saddr6[15] = (uint8_t)i;
		t6.saddr6[12] = (uint8_t)(i * 3);
		n = hpccd_nf_note(&nf, &t6, hop, 1, 4 * ms + i);
	}
	EXPECT_EQ(24, n);
	/* another /64 */
	t6.saddr6[7] = 1;
	EXPECT_EQ(25, hpccd_nf_note(&nf, &t6, hop, 1, 5 * ms));
	/* after the window all shares are free again */
	t.saddr = 10;
	t.sport = 7;
	EXPECT_EQ(1, hpccd_nf_note(&nf, &t, hop, 1, 500 * ms));
	EXPECT_EQ(1, nf.nflows);
	n = 0;
	for (i = 0; i < nf.nbuckets; i++)
		n += nf.sbuckets[i] != UINT32_MAX;
	EXPECT_EQ(1, n);
	hpccd_nf_free(&nf);
}

/*
 * A receiver's refusal of receiver-based HPCC (its table full, say) is not
 * final: the flow asks again after 1 s, 2 s, 4 s ... at most 64 s, and an
 * acceptance resets the wait.
 */
TEST(rx_refusal_retried)
{
	struct hpccd_flow f = { 0 };
	uint64_t s = 1000000000ULL;
	int i;

	EXPECT_TRUE(hpccd_rx_ask(&f, T0));
	hpccd_rx_refused(&f, T0);
	EXPECT_FALSE(hpccd_rx_ask(&f, T0 + s - 1));
	EXPECT_TRUE(hpccd_rx_ask(&f, T0 + s));
	hpccd_rx_refused(&f, T0 + s);
	EXPECT_FALSE(hpccd_rx_ask(&f, T0 + 3 * s - 1));
	EXPECT_TRUE(hpccd_rx_ask(&f, T0 + 3 * s));
	for (i = 0; i < 300; i++)
		hpccd_rx_refused(&f, T0);
	EXPECT_FALSE(hpccd_rx_ask(&f, T0 + 64 * s - 1));
	EXPECT_TRUE(hpccd_rx_ask(&f, T0 + 64 * s));
	hpccd_rx_accepted(&f);
	EXPECT_TRUE(hpccd_rx_ask(&f, T0));
	hpccd_rx_refused(&f, T0);
	EXPECT_TRUE(hpccd_rx_ask(&f, T0 + s));
}

/*
 * tcp-check counts a flow only for a socket of an accepted connection: a
 * SYN (spoofed or not) makes a SYN_RECV / NEW_SYN_RECV request socket,
 * which must not make a flow; nor may a listener, TIME_WAIT or CLOSE.
 */
TEST(tcp_state_flow)
{
	static const uint8_t yes[] = {
		TCP_ESTABLISHED, TCP_FIN_WAIT1, TCP_FIN_WAIT2, TCP_CLOSE_WAIT,
		TCP_LAST_ACK, TCP_CLOSING,
	};
	unsigned int s, i, n = 0;

	for (i = 0; i < sizeof(yes); i++)
		EXPECT_TRUE(hpccd_tcp_state_flow(yes[i]));
	EXPECT_FALSE(hpccd_tcp_state_flow(TCP_SYN_RECV));
	EXPECT_FALSE(hpccd_tcp_state_flow(12));	/* TCP_NEW_SYN_RECV */
	EXPECT_FALSE(hpccd_tcp_state_flow(TCP_SYN_SENT));
	EXPECT_FALSE(hpccd_tcp_state_flow(TCP_LISTEN));
	EXPECT_FALSE(hpccd_tcp_state_flow(TCP_TIME_WAIT));
	EXPECT_FALSE(hpccd_tcp_state_flow(TCP_CLOSE));
	for (s = 0; s < 256; s++)
		n += hpccd_tcp_state_flow((uint8_t)s);
	EXPECT_EQ(sizeof(yes), n);
}

/*
 * Neighbour lookups of on-link sources take RTNL: a flood of 100,000
 * spoofed sources a second, none cached, gets at most the burst (8) plus
 * HPCCD_NB_RATE a second of lookups and of responses that create an
 * entry; known sources are refreshed without a token, even during the
 * flood; after a lookup without a reply, none for HPCCD_NB_STALL_NS.
 */
TEST(neighbour_lookups_bounded)
{
	struct hpccd_nb g;
	uint64_t t, look = 0, fresh = 0, answered = 0;
	int i;

	hpccd_nb_init(&g, T0);
	for (i = 0; i < 200000; i++) {
		t = T0 + (uint64_t)i * 10000;		/* 2 s, 100k/s */
		if (hpccd_nb_lookup(&g, false, t) == HPCCD_NB_LOOKUP)
			look++;
		/* a source cached without an entry, probing again */
		answered += hpccd_nb_answer_new(&g, t);
		if (i % 1000 == 0)
			fresh += hpccd_nb_lookup(&g, true, t) ==
				 HPCCD_NB_LOOKUP;
	}
	EXPECT_LE(look + answered, 8 + 2 * HPCCD_NB_RATE + 1);
	EXPECT_GE(look + answered, 2 * HPCCD_NB_RATE);
	EXPECT_EQ(200, fresh);
	EXPECT_EQ(200000 * 2 - look - answered, g.refused);

	/* a lookup without a reply: a stall, refreshes keep their verdict */
	t = T0 + 10 * 1000 * MS;
	hpccd_nb_timed_out(&g, t);
	EXPECT_EQ(HPCCD_NB_REFUSE, hpccd_nb_lookup(&g, false, t + 1));
	EXPECT_EQ(HPCCD_NB_KEEP, hpccd_nb_lookup(&g, true, t + 1));
	EXPECT_EQ(HPCCD_NB_REFUSE,
		  hpccd_nb_lookup(&g, false, t + HPCCD_NB_STALL_NS - 1));
	EXPECT_EQ(HPCCD_NB_LOOKUP,
		  hpccd_nb_lookup(&g, false, t + HPCCD_NB_STALL_NS));
	EXPECT_EQ(1, g.stalled);
}

/*
 * tcp-check's cache: a flow of this host's TCP connections stays known
 * while a flood of 100,000 made-up tuples is looked up and cached as
 * unknown (their probes would otherwise evict it, and its probes would
 * fall back into the response budget with the flood's); it is keyed on
 * the 5-tuple, not the flow label; a known verdict turns stale after 1 s
 * (looked up again) and may be replaced 10 s after that.
 */
TEST(tcp_cache_keeps_known_flows)
{
	static struct hpccd_tc c;
	struct hpcc_tuple own = tup(7), x;
	uint32_t i;

	hpccd_tc_init(&c, 0x1234);
	EXPECT_EQ(HPCCD_TC_MISS, hpccd_tc_get(&c, &own, T0));
	hpccd_tc_put(&c, &own, true, T0);
	for (i = 0; i < 100000; i++) {
		x = tup(0x10000 + i);
		x.saddr ^= i * 2654435761U;
		hpccd_tc_put(&c, &x, false, T0 + i);
	}
	EXPECT_EQ(HPCCD_TC_KNOWN, hpccd_tc_get(&c, &own, T0 + 100000));
	x = own;
	x.flowlabel = 0xabcde;
	EXPECT_EQ(HPCCD_TC_KNOWN, hpccd_tc_get(&c, &x, T0 + 1));
	x.dport++;
	EXPECT_NE(HPCCD_TC_KNOWN, hpccd_tc_get(&c, &x, T0 + 1));
	EXPECT_EQ(HPCCD_TC_STALE_KNOWN,
		  hpccd_tc_get(&c, &own, T0 + HPCCD_TC_TTL_NS));
	EXPECT_EQ(HPCCD_TC_MISS, hpccd_tc_get(&c, &own, T0 + HPCCD_TC_TTL_NS +
						       HPCCD_TC_KEEP_NS));
	/* its own lookup may say it is gone */
	hpccd_tc_put(&c, &own, false, T0 + 2);
	EXPECT_EQ(HPCCD_TC_UNKNOWN, hpccd_tc_get(&c, &own, T0 + 3));
}

/*
 * 2,000 flows of this host's (an incast receiver's senders) all stay known
 * through the same flood: known flows that hash to one set do not evict
 * each other (a direct-mapped cache of 4,096 slots lost about a fifth of
 * them to each other), and a stale-known entry comes back known when its
 * lookup puts it again.
 */
TEST(tcp_cache_holds_many_known_flows)
{
	static struct hpccd_tc c;
	struct hpcc_tuple x;
	uint32_t i, lost = 0;

	hpccd_tc_init(&c, 0x5678);
	for (i = 0; i < 2000; i++) {
		x = tup(i);
		x.saddr = htonl(0x0a000000 | (i * 2654435761U >> 8));
		hpccd_tc_put(&c, &x, true, T0 + i);
	}
	for (i = 0; i < 100000; i++) {
		x = tup(0x20000 + i);
		x.saddr ^= i * 40503U;
		hpccd_tc_put(&c, &x, false, T0 + 2000 + i);
	}
	for (i = 0; i < 2000; i++) {
		x = tup(i);
		x.saddr = htonl(0x0a000000 | (i * 2654435761U >> 8));
		lost += hpccd_tc_get(&c, &x, T0 + 200000) != HPCCD_TC_KNOWN;
	}
	EXPECT_EQ(0U, lost);
}

/*
 * probe-pipeline 3, srtt 2 ms (timeout 2 x srtt, 4 ms): a busy flow sends
 * its next probe one srtt after the last, each with a token; the oldest
 * probe lost costs its own sample (HPCCD_DUE_LOST_ONE) while others are
 * out; a response to a later one leaves the older out (OUTSTANDING, no
 * immediate probe: hpccd_want() says no); an idle flow (no data in
 * flight) sends no pipelined probe, and the last probe lost leaves it
 * idle (HPCCD_DUE_LOST); a response to a probe not out matches nothing.
 */
TEST_F(sched, pipeline)
{
	struct hpcc_tuple t = tup(1);
	struct hpccd_flow *f, *g;
	enum hpccd_due what;

	hpccd_sched_pipeline(&self->s, 3);
	f = hpccd_flow_add(&self->s, &t, NULL);
	ASSERT_NE(NULL, f);
	f->srtt_us = 2000;
	f->in_flight = true;
	ASSERT_TRUE(hpccd_want(&self->s, f, T0));
	hpccd_sent(&self->s, f, 100, T0);
	EXPECT_EQ(1, f->nout);
	EXPECT_EQ(T0 + 2 * MS, hpccd_next_wakeup(&self->s, T0));
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + 2 * MS - 1, &what));
	g = hpccd_next_due(&self->s, T0 + 2 * MS, &what);
	ASSERT_EQ(f, g);
	EXPECT_EQ(HPCCD_DUE_PROBE, what);
	hpccd_sent(&self->s, f, 101, T0 + 2 * MS);
	EXPECT_EQ(2, f->nout);
	EXPECT_TRUE(hpccd_outstanding(f, 100));
	EXPECT_TRUE(hpccd_outstanding(f, 101));
	EXPECT_FALSE(hpccd_outstanding(f, 102));
	/* at 4 ms: 100 is lost, then the next slot is due */
	g = hpccd_next_due(&self->s, T0 + 4 * MS, &what);
	ASSERT_EQ(f, g);
	EXPECT_EQ(HPCCD_DUE_LOST_ONE, what);
	EXPECT_EQ(1, f->lost);
	EXPECT_EQ(1, f->losses_in_row);
	EXPECT_EQ(HPCCD_OUTSTANDING, f->state);
	EXPECT_FALSE(hpccd_outstanding(f, 100));
	g = hpccd_next_due(&self->s, T0 + 4 * MS, &what);
	ASSERT_EQ(f, g);
	EXPECT_EQ(HPCCD_DUE_PROBE, what);
	hpccd_sent(&self->s, f, 102, T0 + 4 * MS);
	EXPECT_EQ(2, f->nout);
	/* the answer to 102 before 101's, and a late one to 100 */
	EXPECT_FALSE(hpccd_response(&self->s, f, 100, T0 + 5 * MS));
	EXPECT_TRUE(hpccd_response(&self->s, f, 102, T0 + 5 * MS));
	EXPECT_EQ(0, f->losses_in_row);
	EXPECT_EQ(1 * MS, f->rtt_ns);
	EXPECT_EQ(HPCCD_OUTSTANDING, f->state);
	EXPECT_EQ(1, f->nout);
	EXPECT_TRUE(hpccd_outstanding(f, 101));
	EXPECT_FALSE(hpccd_want(&self->s, f, T0 + 5 * MS));
	/* no data in flight: no slot at 6 ms, and 101 is lost at 2 + 4 ms */
	f->in_flight = false;
	g = hpccd_next_due(&self->s, T0 + 6 * MS, &what);
	ASSERT_EQ(f, g);
	EXPECT_EQ(HPCCD_DUE_LOST, what);
	EXPECT_EQ(HPCCD_IDLE, f->state);
	EXPECT_EQ(0, f->nout);
	EXPECT_EQ(2, f->lost);
	EXPECT_EQ(3, f->probes);
	EXPECT_EQ(1, f->responses);
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + 60 * MS, &what));
	EXPECT_EQ(0U, self->s.pipe_deferred);
}

/*
 * probe-pipeline 2, srtt 300 us (timeout 1 ms, the shortest): a slot due
 * without a token is skipped and counted, not queued, and the next comes
 * one srtt later; with two out, none more: only the oldest's timeout is
 * due.  The depth is clamped to 1..HPCCD_PIPE_MAX.
 */
TEST_F(sched, pipeline_budget)
{
	struct hpcc_tuple t = tup(1);
	struct hpccd_flow *f, *g;
	enum hpccd_due what;
	int i;

	hpccd_sched_pipeline(&self->s, 2);
	f = hpccd_flow_add(&self->s, &t, NULL);
	f->srtt_us = 300;
	f->in_flight = true;
	ASSERT_TRUE(hpccd_want(&self->s, f, T0));
	hpccd_sent(&self->s, f, 1, T0);
	/* spend the burst's other 9 tokens */
	for (i = 0; i < 9; i++) {
		ASSERT_GE(self->s.tokens, HPCCD_TOKEN);
		self->s.tokens -= HPCCD_TOKEN;
	}
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + 300000, &what));
	EXPECT_EQ(1U, self->s.pipe_deferred);
	EXPECT_EQ(1, f->nout);
	EXPECT_EQ(T0 + 600000, hpccd_next_wakeup(&self->s, T0 + 300000));
	self->s.tokens = HPCCD_TOKEN;
	g = hpccd_next_due(&self->s, T0 + 600000, &what);
	ASSERT_EQ(f, g);
	EXPECT_EQ(HPCCD_DUE_PROBE, what);
	hpccd_sent(&self->s, f, 2, T0 + 600000);
	EXPECT_EQ(2, f->nout);
	EXPECT_EQ(T0 + MS, hpccd_next_wakeup(&self->s, T0 + 600000));
	hpccd_sched_pipeline(&self->s, 0);
	EXPECT_EQ(1, self->s.pipeline);
	hpccd_sched_pipeline(&self->s, 99);
	EXPECT_EQ(HPCCD_PIPE_MAX, self->s.pipeline);
}

/* probe-pipeline 1 (the default): a busy flow's only deadline while its
 * probe is out is that probe's timeout
 */
TEST_F(sched, pipeline_off)
{
	struct hpcc_tuple t = tup(1);
	struct hpccd_flow *f;
	enum hpccd_due what;

	EXPECT_EQ(1, self->s.pipeline);
	f = hpccd_flow_add(&self->s, &t, NULL);
	f->srtt_us = 100;
	f->in_flight = true;
	ASSERT_TRUE(hpccd_want(&self->s, f, T0));
	hpccd_sent(&self->s, f, 1, T0);
	EXPECT_EQ(T0 + MS, hpccd_next_wakeup(&self->s, T0));
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + MS - 1, &what));
	EXPECT_EQ(f, hpccd_next_due(&self->s, T0 + MS, &what));
	EXPECT_EQ(HPCCD_DUE_LOST, what);
}

/*
 * probe-pipeline 3, no response ever, the module's last word "in flight":
 * after 3 losses in a row no probe is added, the probes out drain and the
 * flow goes idle to be asked about (HPCCD_DUE_LOST), not kept probing on a
 * stale in_flight until the next reconciliation.
 */
TEST_F(sched, pipeline_all_lost_drains)
{
	struct hpcc_tuple t = tup(1);
	struct hpccd_flow *f, *g;
	enum hpccd_due what;
	uint64_t now, id = 1;
	int asked = 0;

	hpccd_sched_pipeline(&self->s, 3);
	f = hpccd_flow_add(&self->s, &t, NULL);
	f->srtt_us = 2000;
	f->in_flight = true;
	ASSERT_TRUE(hpccd_want(&self->s, f, T0));
	hpccd_sent(&self->s, f, id++, T0);
	for (now = T0; now < T0 + 2000 * MS && !asked; now += MS / 10)
		while ((g = hpccd_next_due(&self->s, now, &what))) {
			if (what == HPCCD_DUE_PROBE)
				hpccd_sent(&self->s, g, id++, now);
			else if (what == HPCCD_DUE_LOST)
				asked++;
		}
	EXPECT_EQ(1, asked);
	EXPECT_EQ(HPCCD_IDLE, f->state);
	EXPECT_EQ(0, f->nout);
}

/*
 * A deadline set for the oldest probe's timeout that a larger srtt (a
 * push reply) has since moved later is not a pipelined slot: none is sent
 * before f->next_ns.
 */
TEST_F(sched, pipeline_no_early_slot)
{
	struct hpcc_tuple t = tup(1);
	struct hpccd_flow *f;
	enum hpccd_due what;

	hpccd_sched_pipeline(&self->s, 3);
	f = hpccd_flow_add(&self->s, &t, NULL);
	f->srtt_us = 600;
	f->rtt_ns = 700000;
	f->in_flight = true;
	ASSERT_TRUE(hpccd_want(&self->s, f, T0));
	hpccd_sent(&self->s, f, 1, T0);
	/* no token for the slots at 0.6 and 1.2 ms: the next at 1.8 ms,
	 * after the timeout at 1.4 ms
	 */
	self->s.tokens = 0;
	self->s.tokens_at = T0 + 1200000;
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + 600000, &what));
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + 1200000, &what));
	EXPECT_EQ(T0 + 1800000, f->next_ns);
	EXPECT_EQ(T0 + 1400000, f->deadline_ns);
	/* srtt 1 ms: the timeout is 2 ms, and 1.4 ms is nothing */
	f->srtt_us = 1000;
	self->s.tokens = 10 * HPCCD_TOKEN;
	EXPECT_EQ(NULL, hpccd_next_due(&self->s, T0 + 1400000, &what));
	EXPECT_EQ(T0 + 1800000, f->deadline_ns);
}

TEST_HARNESS_MAIN
