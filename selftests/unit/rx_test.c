// SPDX-License-Identifier: GPL-2.0
/*
 * rx_test - receiver-based HPCC in hpccd (daemon/hpccd/rx.c, draft-pan-
 * tsvwg-hpccplus-02 section 6.2, Figure 8): W is sent only when more than
 * T has passed since the last W sent (lastUpdateTime), the first probe and
 * a path change send none, a congested hop lowers W, N sets the flow's
 * W_ai, a full table and unusable records are refused; the privacy mode
 * that sends only U (section 9.1) measures U on every probe after the
 * first.  Host test, ASan and UBSan.
 */
#include <string.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "hpccd/rx.h"

#define T_NS	100000ULL		/* T = 100 us */
#define B	10000000000ULL		/* 10 Gbit/s */

static struct hpcc_tuple tup(uint16_t port)
{
	struct hpcc_tuple t = { .family = AF_INET, .saddr = 1, .daddr = 2,
				.dport = 5201 };

	t.sport = port;
	return t;
}

/* One hop whose queue is @qlen and that sent @tx bytes by @ts. */
static void hop(struct hpcc_hop_rec *h, uint64_t ts, uint64_t tx,
		uint32_t qlen)
{
	memset(h, 0, sizeof(*h));
	h->switch_id = 1;
	h->port_id = 2;
	h->rate = B;
	h->ts = ts;
	h->tx_bytes = tx;
	h->qlen = qlen;
}

FIXTURE(rx) {
	struct hpccd_rx rx;
	struct hpcc_params p;
};

FIXTURE_SETUP(rx)
{
	hpcc_params_default(&self->p);
	self->p.t_ns = T_NS;
	self->p.w_init = hpcc_bdp(B, T_NS) & ~0xffffULL;
	ASSERT_TRUE(hpcc_params_valid(&self->p));
	ASSERT_EQ(hpccd_rx_init(&self->rx, 4, 1000000000ULL, 1), 0);
}

FIXTURE_TEARDOWN(rx)
{
	hpccd_rx_free(&self->rx);
}

TEST_F(rx, newint_timing)
{
	struct hpcc_tuple t = tup(1);
	struct hpcc_hop_rec h;
	uint64_t now = 1000000, ts = 1000000, tx = 0;
	uint32_t w = 0, w_init = (uint32_t)(self->p.w_init >> 16);
	int i, sent = 0;

	hop(&h, ts, tx, 0);
	/* first probe: L stored, nothing sent */
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0, now, &w),
		  HPCCD_RX_KEEP);
	/* probes every T/4 at full line rate with a queue: W is sent once
	 * per T at most, the others update W locally
	 */
	for (i = 1; i <= 40; i++) {
		enum hpccd_rx_res r;

		now += T_NS / 4;
		ts += T_NS / 4;
		tx += B / 8 * (T_NS / 4) / 1000000000ULL;
		hop(&h, ts, tx, 50000);
		r = hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0, now, &w);
		ASSERT_TRUE(r == HPCCD_RX_KEEP || r == HPCCD_RX_SEND_W);
		sent += r == HPCCD_RX_SEND_W;
	}
	/* 10 T elapsed: one W per T, strictly more than T apart (every
	 * fifth probe)
	 */
	EXPECT_GE(sent, 7);
	EXPECT_LE(sent, 9);
	/* U above eta (link full plus a queue): W below W_init */
	EXPECT_LT(w, w_init);
	EXPECT_GT(w, 0);
}

TEST_F(rx, path_change_sends_nothing)
{
	struct hpcc_tuple t = tup(2);
	struct hpcc_hop_rec h;
	uint32_t w = 0;

	hop(&h, 1000, 0, 0);
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0, 1000, &w),
		  HPCCD_RX_KEEP);
	hop(&h, 2000000, 100, 0);
	h.port_id = 3;
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0, 2000000,
				&w), HPCCD_RX_KEEP);
}

TEST_F(rx, n_sets_w_ai)
{
	struct hpcc_tuple t = tup(3);
	struct hpcc_hop_rec h;
	uint32_t w = 0;
	unsigned int i;

	hop(&h, 1000, 0, 0);
	hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 8, 1000, &w);
	for (i = 0; i <= self->rx.mask; i++)
		if (self->rx.f[i].seen)
			break;
	ASSERT_LE(i, self->rx.mask);
	EXPECT_EQ(self->rx.f[i].core.n_flows, 8);
	EXPECT_EQ(self->rx.f[i].core.w_ai,
		  hpcc_w_ai_rule_of_thumb(self->p.w_init, self->p.eta, 8));
}

TEST_F(rx, full_and_invalid_refused)
{
	struct hpcc_hop_rec h;
	struct hpcc_tuple t;
	uint32_t w;
	uint16_t i;

	hop(&h, 1000, 0, 0);
	for (i = 1; i <= 4; i++) {
		t = tup(100 + i);
		EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0,
					1000, &w), HPCCD_RX_KEEP);
	}
	t = tup(200);
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0, 2000, &w),
		  HPCCD_RX_FULL);
	/* after the idle time the slots are taken again */
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0,
				2000 + 1000000001ULL, &w), HPCCD_RX_KEEP);
	/* no record, a record without B */
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 0, 0, 3000, &w),
		  HPCCD_RX_INVALID);
	h.rate = 0;
	EXPECT_EQ(hpccd_rx_note(&self->rx, &self->p, &t, &h, 1, 0, 3000, &w),
		  HPCCD_RX_INVALID);
}

/*
 * Only U: the first probe stores L and sends none; a full link with a
 * queue of one BDP measures u' = 2 (txRate 1, qlen / (B * T) 1); W is
 * not the receiver's business here.  Invalid records are refused.
 */
TEST_F(rx, u_only)
{
	struct hpcc_tuple t = tup(4);
	uint64_t bdp = hpcc_bdp(B, T_NS) >> HPCC_W_SHIFT;	/* bytes */
	struct hpcc_hop_rec h;
	uint32_t u = 7;

	hop(&h, 1000000, 0, 0);
	EXPECT_EQ(hpccd_rx_note_u(&self->rx, &self->p, &t, &h, 1, 1000000,
				  &u), HPCCD_RX_KEEP);
	EXPECT_EQ(u, 7);
	hop(&h, 1000000 + T_NS, bdp, (uint32_t)bdp);
	EXPECT_EQ(hpccd_rx_note_u(&self->rx, &self->p, &t, &h, 1,
				  1000000 + T_NS, &u), HPCCD_RX_SEND_U);
	/* qmin is 0 (the previous record's queue): u' = txRate = 1.0 */
	EXPECT_EQ(u, 1U << HPCC_WIRE_U_SHIFT);
	hop(&h, 1000000 + 2 * T_NS, 2 * bdp, (uint32_t)bdp);
	EXPECT_EQ(hpccd_rx_note_u(&self->rx, &self->p, &t, &h, 1,
				  1000000 + 2 * T_NS, &u), HPCCD_RX_SEND_U);
	EXPECT_EQ(u, 2U << HPCC_WIRE_U_SHIFT);
	/* the same ts again: nothing measured, nothing sent */
	u = 7;
	EXPECT_EQ(hpccd_rx_note_u(&self->rx, &self->p, &t, &h, 1,
				  1000000 + 3 * T_NS, &u), HPCCD_RX_KEEP);
	EXPECT_EQ(u, 7);
	h.rate = 0;
	EXPECT_EQ(hpccd_rx_note_u(&self->rx, &self->p, &t, &h, 1,
				  1000000 + 3 * T_NS, &u), HPCCD_RX_INVALID);
}

TEST_HARNESS_MAIN
