// SPDX-License-Identifier: GPL-2.0
/*
 * core_test - hand-computed cases for every branch of the HPCC++ core
 * (kernel/lib/hpcc_core.c) and of the host's rules around it
 * (kernel/lib/hpcc_host.h, which tcp_hpcc.ko and the ns-3 model share).
 * Host test, built with ASan and UBSan.
 *
 * Setting: T = 10 us, B = 8 Gbit/s (1 byte/ns, so B*T = 10,000 bytes),
 * eta = 0.75, maxStage = 2, W_init = W_max = 100,000, W_min = 1,000 and
 * W_ai = 500 bytes: every expected value below is exact.
 */
#include "kselftest_harness.h"
#include "lib/hpcc_core.h"
#include "lib/hpcc_host.h"

#define B1	8000000000ULL		/* 1 byte per ns */
#define WB(x)	((u64)(x) << HPCC_W_SHIFT)
#define UQ(n, d) ((u64)(((unsigned __int128)(n) << HPCC_U_SHIFT) / (d)))

static struct hpcc_params params(void)
{
	struct hpcc_params p = {
		.t_ns = 10000,
		.eta = UQ(3, 4),
		.max_stage = 2,
		.w_ai = WB(500),
		.w_init = WB(100000),
		.w_min = WB(1000),
	};
	return p;
}

static struct hpcc_hop hop(u32 sw, u64 ts, u64 tx, u64 q)
{
	struct hpcc_hop h = {
		.ts = ts, .tx_bytes = tx, .qlen = q, .rate_bps = B1,
		.switch_id = sw, .port_id = 1,
	};
	return h;
}

/* One-hop sample. */
static enum hpcc_step ack1(struct hpcc_flow *f, const struct hpcc_params *p,
			   u32 ack, u32 nxt, u64 ts, u64 tx, u64 q)
{
	struct hpcc_hop h = hop(7, ts, tx, q);

	return hpcc_new_ack(f, p, ack, nxt, &h, 1);
}

FIXTURE(core) {
	struct hpcc_params p;
	struct hpcc_flow f;
};

FIXTURE_SETUP(core)
{
	self->p = params();
	ASSERT_TRUE(hpcc_params_valid(&self->p));
	hpcc_flow_init(&self->f, &self->p);
}

FIXTURE_TEARDOWN(core) {}

TEST_F(core, initial_state)
{
	EXPECT_EQ(HPCC_U_ONE, self->f.u);
	EXPECT_EQ(WB(100000), self->f.w);
	EXPECT_EQ(WB(100000), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	EXPECT_EQ(0, self->f.nhop);
}

TEST_F(core, first_sample_only_stores_L)
{
	EXPECT_EQ(HPCC_STEP_FIRST, ack1(&self->f, &self->p, 5, 1000, 0, 0, 5000));
	EXPECT_EQ(HPCC_U_ONE, self->f.u);
	EXPECT_EQ(WB(100000), self->f.w);
	EXPECT_EQ(WB(100000), self->f.wc);
	EXPECT_EQ(1000, self->f.last_update_seq);
	EXPECT_EQ(1, self->f.nhop);
	EXPECT_EQ(5000, self->f.l[0].qlen);
}

/* u' = min(5000,5000)/10000 + (10000/10000)/1 = 1.5; tau = T: U = 1.5. */
TEST_F(core, md_when_u_at_or_above_eta)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	EXPECT_EQ(HPCC_STEP_WC,
		  ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000));
	EXPECT_EQ(UQ(3, 2), self->f.u);
	/* W = 100000 * 0.75 / 1.5 + 500 */
	EXPECT_EQ(WB(50500), self->f.w);
	EXPECT_EQ(WB(50500), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	EXPECT_EQ(2000, self->f.last_update_seq);
}

/* After the MD step, u' = 0.5: AI steps until incStage = maxStage, then MI. */
TEST_F(core, ai_then_mi_at_max_stage)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000);
	EXPECT_EQ(HPCC_STEP_WC,
		  ack1(&self->f, &self->p, 2001, 3000, 20000, 15000, 0));
	EXPECT_EQ(UQ(1, 2), self->f.u);
	EXPECT_EQ(WB(51000), self->f.w);
	EXPECT_EQ(WB(51000), self->f.wc);
	EXPECT_EQ(1, self->f.inc_stage);
	ack1(&self->f, &self->p, 3001, 4000, 30000, 20000, 0);
	EXPECT_EQ(WB(51500), self->f.wc);
	EXPECT_EQ(2, self->f.inc_stage);
	/* incStage >= maxStage: W = 51500 * 0.75 / 0.5 + 500 */
	ack1(&self->f, &self->p, 4001, 5000, 40000, 25000, 0);
	EXPECT_EQ(WB(77750), self->f.w);
	EXPECT_EQ(WB(77750), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
}

/* ack.seq not after lastUpdateSeq: W moves, Wc/incStage/lastUpdateSeq not. */
TEST_F(core, no_wc_update_before_last_update_seq)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000);
	EXPECT_EQ(HPCC_STEP_W,
		  ack1(&self->f, &self->p, 2000, 2500, 20000, 15000, 0));
	EXPECT_EQ(WB(51000), self->f.w);
	EXPECT_EQ(WB(50500), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	EXPECT_EQ(2000, self->f.last_update_seq);
}

/* dt = T/4, txRate = 2 bytes/ns: u' = 2, U = 0.75 * 1 + 0.25 * 2 = 1.25. */
TEST_F(core, ewma_with_tau_below_t)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 0);
	ack1(&self->f, &self->p, 1001, 2000, 2500, 5000, 0);
	EXPECT_EQ(UQ(5, 4), self->f.u);
	EXPECT_EQ(WB(60500), self->f.w);	/* 100000 * 0.75 / 1.25 + 500 */
}

/* dt = 4T: tau = min(dt, T) = T, so U = u' = 0.5 (not an extrapolation). */
TEST_F(core, tau_clamped_to_t)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 0);
	ack1(&self->f, &self->p, 1001, 2000, 40000, 20000, 0);
	EXPECT_EQ(UQ(1, 2), self->f.u);
}

/* The hop with the largest u' sets u and tau. */
TEST_F(core, largest_hop_wins)
{
	struct hpcc_hop a[2] = { hop(1, 0, 0, 5000), hop(2, 0, 0, 5000) };
	struct hpcc_hop b[2] = {
		hop(1, 10000, 5000, 5000),	/* u' = 0.5 + 0.5 = 1.0 */
		hop(2, 5000, 5000, 5000),	/* u' = 0.5 + 1.0 = 1.5 */
	};

	hpcc_new_ack(&self->f, &self->p, 0, 1000, a, 2);
	EXPECT_EQ(0, self->f.bind_hop);		/* the first sample: none */
	EXPECT_EQ(HPCC_STEP_WC, hpcc_new_ack(&self->f, &self->p, 1001, 2000, b, 2));
	/* tau = 5000 = T/2: U = 0.5 * 1 + 0.5 * 1.5 */
	EXPECT_EQ(UQ(5, 4), self->f.u);
	EXPECT_EQ(2, self->f.bind_hop);		/* the second hop bound */
}

/* B = 0 skips a hop that would otherwise dominate. */
TEST_F(core, hop_with_b_zero_is_skipped)
{
	struct hpcc_hop a[2] = { hop(1, 0, 0, 1000000), hop(2, 0, 0, 0) };
	struct hpcc_hop b[2] = {
		hop(1, 10000, 100000, 1000000),
		hop(2, 10000, 5000, 0),		/* u' = 0.5 */
	};

	b[0].rate_bps = 0;
	hpcc_new_ack(&self->f, &self->p, 0, 1000, a, 2);
	hpcc_new_ack(&self->f, &self->p, 1001, 2000, b, 2);
	EXPECT_EQ(UQ(1, 2), self->f.u);
	EXPECT_EQ(2, self->f.bind_hop);
}

static void expect_all_skipped(struct __test_metadata *_metadata,
			       struct hpcc_flow *f, const struct hpcc_params *p,
			       u64 ts, u64 tx)
{
	ack1(f, p, 0, 1000, 10000, 10000, 0);
	EXPECT_EQ(HPCC_STEP_SKIPPED, ack1(f, p, 1001, 2000, ts, tx, 777));
	EXPECT_EQ(HPCC_U_ONE, f->u);
	EXPECT_EQ(WB(100000), f->w);
	EXPECT_EQ(WB(100000), f->wc);
	EXPECT_EQ(0, f->inc_stage);
	EXPECT_EQ(1000, f->last_update_seq);
	/* ... but L is replaced */
	EXPECT_EQ(ts, f->l[0].ts);
	EXPECT_EQ(777, f->l[0].qlen);
}

TEST_F(core, skip_dt_zero)
{
	expect_all_skipped(_metadata, &self->f, &self->p, 10000, 20000);
}

TEST_F(core, skip_dt_negative)
{
	expect_all_skipped(_metadata, &self->f, &self->p, 5000, 20000);
}

TEST_F(core, skip_tx_bytes_going_back)
{
	expect_all_skipped(_metadata, &self->f, &self->p, 20000, 9999);
}

/* After a skipped sample, the next one is measured against the new L. */
TEST_F(core, skipped_sample_becomes_l)
{
	ack1(&self->f, &self->p, 0, 1000, 10000, 10000, 0);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 50000, 0);	/* dt = 0 */
	ack1(&self->f, &self->p, 2001, 3000, 20000, 55000, 0);	/* 0.5 */
	EXPECT_EQ(UQ(1, 2), self->f.u);
}

TEST_F(core, path_change_switch_id)
{
	struct hpcc_hop h = hop(8, 10000, 10000, 5000);

	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	EXPECT_EQ(HPCC_STEP_PATH_CHANGE,
		  hpcc_new_ack(&self->f, &self->p, 1001, 3000, &h, 1));
	EXPECT_EQ(WB(100000), self->f.w);
	EXPECT_EQ(HPCC_U_ONE, self->f.u);
	EXPECT_EQ(3000, self->f.last_update_seq);
	EXPECT_EQ(8, self->f.l[0].switch_id);
}

TEST_F(core, path_change_port_id_and_hop_count)
{
	struct hpcc_hop h = hop(7, 10000, 10000, 5000);
	struct hpcc_hop two[2] = { hop(7, 20000, 20000, 0), hop(9, 0, 0, 0) };

	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	h.port_id = 2;
	EXPECT_EQ(HPCC_STEP_PATH_CHANGE,
		  hpcc_new_ack(&self->f, &self->p, 1001, 2000, &h, 1));
	EXPECT_EQ(HPCC_STEP_PATH_CHANGE,
		  hpcc_new_ack(&self->f, &self->p, 2001, 3000, two, 2));
	EXPECT_EQ(2, self->f.nhop);
	EXPECT_EQ(WB(100000), self->f.w);
}

/* qlen of 1e9 bytes: U = 1e5, W = 0.75 + 500 bytes -> W_min. */
TEST_F(core, clamp_to_w_min)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 1000000000);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 0, 1000000000);
	EXPECT_EQ(100000 * HPCC_U_ONE, self->f.u);
	EXPECT_EQ(WB(1000), self->f.w);
	EXPECT_EQ(WB(1000), self->f.wc);
}

/* maxStage = 0 and U = 0.5: MI to 150500 bytes -> W_max. */
TEST_F(core, clamp_to_w_max)
{
	self->p.max_stage = 0;
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 0);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 5000, 0);
	EXPECT_EQ(WB(100000), self->f.w);
	EXPECT_EQ(WB(100000), self->f.wc);
}

/* U = 0 in the MI/MD branch: W = Wc * eta / 0 is W_max. */
TEST_F(core, u_zero_gives_w_max)
{
	self->p.max_stage = 0;
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000);
	EXPECT_EQ(WB(50500), self->f.wc);
	ack1(&self->f, &self->p, 2001, 3000, 20000, 10000, 0);
	EXPECT_EQ(0, self->f.u);
	EXPECT_EQ(WB(100000), self->f.w);
}

TEST_F(core, sequence_wrap)
{
	ack1(&self->f, &self->p, 0, 0xffffff00, 0, 0, 0);
	/* 0xfffffe00 is before 0xffffff00 */
	EXPECT_EQ(HPCC_STEP_W,
		  ack1(&self->f, &self->p, 0xfffffe00, 5, 10000, 5000, 0));
	EXPECT_EQ(0xffffff00, self->f.last_update_seq);
	/* 0x10 is after 0xffffff00 across the wrap */
	EXPECT_EQ(HPCC_STEP_WC,
		  ack1(&self->f, &self->p, 0x10, 0x2000, 20000, 10000, 0));
	EXPECT_EQ(0x2000, self->f.last_update_seq);
}

/* ts and txBytes counters that wrap through 2^64 between samples. */
TEST_F(core, counters_near_2_64)
{
	u64 ts0 = ~0ULL - 4999, tx0 = ~0ULL - 20000;

	ack1(&self->f, &self->p, 0, 1000, ts0, tx0, 0);
	/* dt = 10000 across the ts wrap; tx advances 5000, no wrap */
	ack1(&self->f, &self->p, 1001, 2000, 5000, tx0 + 5000, 0);
	EXPECT_EQ(UQ(1, 2), self->f.u);
}

TEST_F(core, bad_hop_counts_change_nothing)
{
	struct hpcc_hop h[HPCC_MAX_HOPS + 1] = { 0 };

	EXPECT_EQ(HPCC_STEP_BAD, hpcc_new_ack(&self->f, &self->p, 1, 2, h, 0));
	EXPECT_EQ(HPCC_STEP_BAD,
		  hpcc_new_ack(&self->f, &self->p, 1, 2, h, HPCC_MAX_HOPS + 1));
	EXPECT_EQ(0, self->f.nhop);
	EXPECT_EQ(HPCC_STEP_FIRST,
		  hpcc_new_ack(&self->f, &self->p, 1, 2, h, HPCC_MAX_HOPS));
}

/* NewINT: Wc moves only when more than T has passed since lastUpdateTime. */
TEST_F(core, new_int_updates_wc_after_t)
{
	struct hpcc_hop a = hop(7, 0, 0, 5000);
	struct hpcc_hop b = hop(7, 10000, 10000, 5000);
	struct hpcc_hop c = hop(7, 20000, 20000, 5000);

	EXPECT_EQ(HPCC_STEP_FIRST,
		  hpcc_new_int(&self->f, &self->p, 1000000, &a, 1));
	EXPECT_EQ(1000000, self->f.last_update_time);
	/* exactly T later: not more than T */
	EXPECT_EQ(HPCC_STEP_W,
		  hpcc_new_int(&self->f, &self->p, 1010000, &b, 1));
	EXPECT_EQ(WB(50500), self->f.w);
	EXPECT_EQ(WB(100000), self->f.wc);
	EXPECT_EQ(HPCC_STEP_WC,
		  hpcc_new_int(&self->f, &self->p, 1010001, &c, 1));
	EXPECT_EQ(1010001, self->f.last_update_time);
	EXPECT_EQ(self->f.w, self->f.wc);
}

/*
 * The privacy mode that sends only U (section 9.1): the receiver runs
 * MeasureInflight alone, W and Wc untouched; the sender runs ComputeWind
 * with that U.  b's u' = qlen 5,000 / 10,000 + txRate 1.0 = 1.5.
 */
TEST_F(core, measure_sample_updates_only_u)
{
	struct hpcc_hop a = hop(7, 0, 0, 5000);
	struct hpcc_hop b = hop(7, 10000, 10000, 5000);
	struct hpcc_hop c = hop(8, 20000, 20000, 5000);

	EXPECT_EQ(HPCC_STEP_FIRST,
		  hpcc_measure_sample(&self->f, &self->p, &a, 1));
	EXPECT_EQ(HPCC_U_ONE, self->f.u);
	EXPECT_EQ(HPCC_STEP_W,
		  hpcc_measure_sample(&self->f, &self->p, &b, 1));
	EXPECT_EQ(UQ(3, 2), self->f.u);
	EXPECT_EQ(1, self->f.bind_hop);
	EXPECT_EQ(WB(100000), self->f.w);
	EXPECT_EQ(WB(100000), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	EXPECT_EQ(10000, self->f.l[0].ts);
	/* ts did not advance: skipped, U kept */
	EXPECT_EQ(HPCC_STEP_SKIPPED,
		  hpcc_measure_sample(&self->f, &self->p, &b, 1));
	EXPECT_EQ(UQ(3, 2), self->f.u);
	EXPECT_EQ(HPCC_STEP_PATH_CHANGE,
		  hpcc_measure_sample(&self->f, &self->p, &c, 1));
	EXPECT_EQ(HPCC_STEP_BAD,
		  hpcc_measure_sample(&self->f, &self->p, &c, 0));
}

TEST_F(core, new_ack_u_runs_compute_wind)
{
	struct hpcc_hop a = hop(7, 0, 0, 0);

	/* the first U sample updates Wc whatever lastUpdateSeq held */
	self->f.last_update_seq = 0x90000000;
	EXPECT_EQ(HPCC_STEP_WC, hpcc_new_ack_u(&self->f, &self->p, 5, 1000,
					       UQ(3, 2)));
	/* MD: 100,000 * 0.75 / 1.5 + 500 */
	EXPECT_EQ(WB(50500), self->f.w);
	EXPECT_EQ(WB(50500), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	EXPECT_EQ(1000, self->f.last_update_seq);
	EXPECT_EQ(0, self->f.nhop);
	EXPECT_EQ(1, self->f.u_rx);
	/* within the round: W = Wc + W_ai, Wc and incStage kept */
	EXPECT_EQ(HPCC_STEP_W, hpcc_new_ack_u(&self->f, &self->p, 1000, 2000,
					      UQ(3, 8)));
	EXPECT_EQ(UQ(3, 8), self->f.u);
	EXPECT_EQ(WB(51000), self->f.w);
	EXPECT_EQ(WB(50500), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	/* past lastUpdateSeq: AI on Wc */
	EXPECT_EQ(HPCC_STEP_WC, hpcc_new_ack_u(&self->f, &self->p, 1001, 3000,
					       UQ(3, 8)));
	EXPECT_EQ(WB(51000), self->f.wc);
	EXPECT_EQ(1, self->f.inc_stage);
	EXPECT_EQ(3000, self->f.last_update_seq);
	/* beyond HPCC_U_MAX: capped, W at W_min */
	EXPECT_EQ(HPCC_STEP_WC, hpcc_new_ack_u(&self->f, &self->p, 3001, 4000,
					       ~0ULL));
	EXPECT_EQ(HPCC_U_MAX, self->f.u);
	EXPECT_EQ(WB(1000), self->f.w);
	/* records again: a first sample */
	EXPECT_EQ(HPCC_STEP_FIRST,
		  hpcc_new_ack(&self->f, &self->p, 4001, 5000, &a, 1));
	EXPECT_EQ(0, self->f.u_rx);
}

/*
 * U's EWMA period T_U (ewma_pct, percent of T).  One sample a T apart with
 * u' = 0.5 (5,000 bytes in 10 us at 1 byte/ns, empty queue): with T_U = T
 * (0 or 100, the draft's) tau/T_U = 1 and U = u' = 0.5; with T_U = 2T,
 * U = 0.5 * 1 + 0.5 * 0.5 = 0.75, and a sample 3T later has tau = min(3T,
 * T_U) = T_U, so U = u' again.
 */
static u64 u_after(u32 ewma_pct, u64 ts2, u64 tx2)
{
	struct hpcc_params p = params();
	struct hpcc_flow f;

	p.ewma_pct = ewma_pct;
	hpcc_flow_init(&f, &p);
	ack1(&f, &p, 0, 1000, 0, 0, 0);
	ack1(&f, &p, 1001, 2000, 10000, 5000, 0);
	if (ts2)
		ack1(&f, &p, 2001, 3000, ts2, tx2, 0);
	return f.u;
}

TEST(ewma_period)
{
	EXPECT_EQ(UQ(1, 2), u_after(0, 0, 0));
	EXPECT_EQ(UQ(1, 2), u_after(100, 0, 0));
	EXPECT_EQ(UQ(3, 4), u_after(200, 0, 0));
	EXPECT_EQ(UQ(7, 8), u_after(400, 0, 0));
	/* 30 us later, 0.5 byte/ns: tau = T_U = 20 us, U = u' */
	EXPECT_EQ(UQ(1, 2), u_after(200, 40000, 20000));
	/* 10 us later, 1 byte/ns: U = 0.75 * 0.5 + 1 * 0.5 = 0.875 */
	EXPECT_EQ(UQ(7, 8), u_after(200, 20000, 15000));
}

/*
 * A restart after a gap (the module's resume from the fallback law) keeps
 * L and lastUpdateSeq: the next sample on the same path computes U at once.
 * W is the given window within [W_min, W_init], incStage 0.
 */
TEST_F(core, restart_keeps_L)
{
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000);
	self->f.inc_stage = 1;
	hpcc_flow_restart(&self->f, &self->p, WB(20000));
	EXPECT_EQ(WB(20000), self->f.w);
	EXPECT_EQ(WB(20000), self->f.wc);
	EXPECT_EQ(0, self->f.inc_stage);
	EXPECT_EQ(1, self->f.nhop);
	EXPECT_EQ(2000, self->f.last_update_seq);
	/* 1 ms later, 500,000 bytes sent (0.5 B/ns), empty queue: u' = 0.5,
	 * tau = T: U = 0.5 < eta, AI: Wc = 20000 + 500
	 */
	EXPECT_EQ(HPCC_STEP_WC,
		  ack1(&self->f, &self->p, 5001, 6000, 1010000, 510000, 0));
	EXPECT_EQ(UQ(1, 2), self->f.u);
	EXPECT_EQ(WB(20500), self->f.wc);
	EXPECT_EQ(1, self->f.inc_stage);
	/* the window is clamped to [W_min, W_init] */
	hpcc_flow_restart(&self->f, &self->p, WB(10));
	EXPECT_EQ(WB(1000), self->f.w);
	hpcc_flow_restart(&self->f, &self->p, WB(1000000));
	EXPECT_EQ(WB(100000), self->f.wc);
}

/*
 * Receiver-reported N: W_ai = W_init * (1 - eta) / N = 100000 * 0.25 / 10
 * = 2500 bytes replaces the parameters' 500 in AI and MD steps; 0 returns
 * to the parameters', and N above the wire's 16 bits acts as 65535.
 */
TEST_F(core, reported_n_sets_w_ai)
{
	hpcc_flow_set_n(&self->f, &self->p, 10);
	EXPECT_EQ(10, self->f.n_flows);
	EXPECT_EQ(WB(2500), self->f.w_ai);
	ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000);
	ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000);
	/* MD: W = 100000 * 0.75 / 1.5 + 2500 */
	EXPECT_EQ(WB(52500), self->f.wc);
	ack1(&self->f, &self->p, 2001, 3000, 20000, 15000, 0);
	/* AI: W = Wc + 2500 */
	EXPECT_EQ(WB(55000), self->f.wc);
	hpcc_flow_set_n(&self->f, &self->p, 0);
	EXPECT_EQ(0, self->f.w_ai);
	ack1(&self->f, &self->p, 3001, 4000, 30000, 20000, 0);
	EXPECT_EQ(WB(55500), self->f.wc);
	hpcc_flow_set_n(&self->f, &self->p, 1000000);
	EXPECT_EQ(HPCC_N_FLOWS_MAX, self->f.n_flows);
	EXPECT_EQ(hpcc_w_ai_rule_of_thumb(self->p.w_init, self->p.eta,
					  HPCC_N_FLOWS_MAX), self->f.w_ai);
	/* a restart keeps the flow's N */
	hpcc_flow_restart(&self->f, &self->p, WB(20000));
	EXPECT_EQ(HPCC_N_FLOWS_MAX, self->f.n_flows);
}

/*
 * start slow-start (kernel/tcp_hpcc/input.c): hpcc_flow_on_path() says when a
 * sample can measure U.  The first sample only records the path; the
 * kernel then restarts the core from the slow start's window and the
 * second sample on the same path computes W from it.
 */
TEST_F(core, slow_start_hands_over_at_first_measurable_sample)
{
	struct hpcc_hop h = hop(7, 10000, 10000, 5000);
	struct hpcc_hop other = hop(8, 10000, 10000, 5000);
	struct hpcc_hop many[HPCC_MAX_HOPS + 1];

	EXPECT_FALSE(hpcc_flow_on_path(&self->f, &h, 1));
	EXPECT_EQ(HPCC_STEP_FIRST, ack1(&self->f, &self->p, 0, 1000, 0, 0, 5000));
	EXPECT_TRUE(hpcc_flow_on_path(&self->f, &h, 1));
	EXPECT_FALSE(hpcc_flow_on_path(&self->f, &other, 1));
	EXPECT_FALSE(hpcc_flow_on_path(&self->f, &h, 0));
	memset(many, 0, sizeof(many));
	many[0] = h;
	EXPECT_FALSE(hpcc_flow_on_path(&self->f, many, HPCC_MAX_HOPS + 1));
	/* slow start reached 14,600 bytes (10 x 1460) */
	hpcc_flow_restart(&self->f, &self->p, WB(14600));
	/* U = 1.5 >= eta: MD from Wc = 14600: 14600 * 0.75 / 1.5 + 500 */
	EXPECT_EQ(HPCC_STEP_WC,
		  ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 5000));
	EXPECT_EQ(WB(7800), self->f.wc);
}

/* A hop without txBytes (Documentation/algorithm.rst, "Partial telemetry"). */
static enum hpcc_step ackq(struct hpcc_flow *f, const struct hpcc_params *p,
			   u32 ack, u32 nxt, u64 ts, u64 q, u32 flags,
			   u32 tx_util)
{
	struct hpcc_hop h = hop(7, ts, 0, q);

	h.flags = flags;
	h.tx_util = tx_util;
	return hpcc_new_ack(f, p, ack, nxt, &h, 1);
}

/* Queue empty at both samples: u' = eta / 2, so a flow cut to W_min finds
 * the free capacity (MI doubles W at most, AI in between) up to W_max.
 */
TEST_F(core, queue_only_empty_finds_room)
{
	u32 s, seq = 0;
	u64 w = 0;

	self->f.w = self->f.wc = self->p.w_min;
	ackq(&self->f, &self->p, seq, seq + 1000, 0, 0, HPCC_HOP_NO_TX_BYTES, 0);
	for (s = 1; s <= 40; s++, seq += 1000) {
		EXPECT_EQ(HPCC_STEP_WC,
			  ackq(&self->f, &self->p, seq + 1001, seq + 2000,
			       (u64)s * 10000, 0, HPCC_HOP_NO_TX_BYTES, 0));
		/* never more than double per update */
		EXPECT_LE(self->f.w, 2 * (w ? w : self->p.w_min) +
				     self->p.w_ai);
		w = self->f.w;
	}
	/* tau = T each time: U = u' = eta / 2 */
	EXPECT_EQ(self->p.eta / 2, self->f.u);
	EXPECT_EQ(self->p.w_init, self->f.w);
}

/* A standing queue (non-empty at both samples): u' = 1 + qmin / (B * T),
 * so the flow backs off although the hop reports no byte counter.
 */
TEST_F(core, queue_only_standing_queue_cuts)
{
	ackq(&self->f, &self->p, 0, 1000, 0, 5000, HPCC_HOP_NO_TX_BYTES, 0);
	EXPECT_EQ(HPCC_STEP_WC, ackq(&self->f, &self->p, 1001, 2000, 10000,
				     5000, HPCC_HOP_NO_TX_BYTES, 0));
	EXPECT_EQ(UQ(3, 2), self->f.u);
	EXPECT_EQ(WB(50500), self->f.w);	/* 100000 * 0.75 / 1.5 + 500 */
}

/* A queue at one of the two samples: no verdict, the hop is skipped. */
TEST_F(core, queue_only_transition_skipped)
{
	ackq(&self->f, &self->p, 0, 1000, 0, 0, HPCC_HOP_NO_TX_BYTES, 0);
	EXPECT_EQ(HPCC_STEP_SKIPPED, ackq(&self->f, &self->p, 1001, 2000,
					  10000, 3000, HPCC_HOP_NO_TX_BYTES, 0));
	EXPECT_EQ(HPCC_U_ONE, self->f.u);
	EXPECT_EQ(WB(100000), self->f.w);
}

/* Tx utilization instead of txBytes: u' = qmin / (B * T) + util. */
TEST_F(core, tx_util_instead_of_tx_bytes)
{
	u32 fl = HPCC_HOP_NO_TX_BYTES | HPCC_HOP_TX_UTIL;

	ackq(&self->f, &self->p, 0, 1000, 0, 2500, fl, 0);
	/* 0.25 + 0.5 (32768 / 65536) */
	EXPECT_EQ(HPCC_STEP_WC, ackq(&self->f, &self->p, 1001, 2000, 10000,
				     2500, fl, 32768));
	EXPECT_EQ(UQ(3, 4), self->f.u);
	/* the flag is what counts: txBytes present wins over tx_util */
	EXPECT_EQ(HPCC_STEP_SKIPPED, ackq(&self->f, &self->p, 2001, 3000,
					  20000, 2500, HPCC_HOP_TX_UTIL, 0));
}

/* txBytes back after a record without it: no delta, skipped once. */
TEST_F(core, tx_bytes_returning_is_skipped_once)
{
	ackq(&self->f, &self->p, 0, 1000, 0, 0, HPCC_HOP_NO_TX_BYTES, 0);
	EXPECT_EQ(HPCC_STEP_SKIPPED,
		  ack1(&self->f, &self->p, 1001, 2000, 10000, 10000, 0));
	EXPECT_EQ(HPCC_STEP_WC,
		  ack1(&self->f, &self->p, 2001, 3000, 20000, 15000, 0));
	EXPECT_EQ(UQ(1, 2), self->f.u);
}

TEST(mul_div_exact_and_saturating)
{
	EXPECT_EQ(7, hpcc_mul_div(3, 5, 2));
	EXPECT_EQ(~0ULL, hpcc_mul_div(~0ULL, ~0ULL, ~0ULL));
	EXPECT_EQ(~0ULL, hpcc_mul_div(1ULL << 63, 4, 2));	/* 2^64 */
	EXPECT_EQ(~0ULL - 1, hpcc_mul_div(~0ULL - 1, ~0ULL, ~0ULL));
	EXPECT_EQ(~0ULL, hpcc_mul_div(1, 1, 0));
	EXPECT_EQ(6148914691236517205ULL, hpcc_mul_div(1ULL << 63, 2, 3));
}

TEST(bdp_and_rule_of_thumb)
{
	/* 10 Gbit/s * 100 us = 125,000 bytes */
	EXPECT_EQ(WB(125000), hpcc_bdp(10000000000ULL, 100000));
	/* 1.6 Tbit/s * 100 ms = 20 GB: no overflow */
	EXPECT_EQ(WB(20000000000ULL), hpcc_bdp(1600000000000ULL, 100000000));
	/* 125000 * (1 - 0.75) / 16 */
	EXPECT_EQ(WB(125000) / 4 / 16,
		  hpcc_w_ai_rule_of_thumb(WB(125000), UQ(3, 4), 16));
}

TEST(params_ranges)
{
	struct hpcc_params p, q;

	hpcc_params_default(&p);
	ASSERT_TRUE(hpcc_params_valid(&p));
	EXPECT_EQ(100000, p.t_ns);
	EXPECT_EQ(WB(125000), p.w_init);
	EXPECT_EQ(5, p.max_stage);
	q = p; q.t_ns = 999;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.t_ns = 100000001;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.eta = HPCC_U_ONE / 2 - 1;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.eta = HPCC_U_ONE + 1;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.w_min = WB(127);
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.w_ai = q.w_init + 1;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.w_init = WB(1ULL << 30) + 1;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.max_stage = 65;
	EXPECT_FALSE(hpcc_params_valid(&q));
	EXPECT_EQ(100, p.ewma_pct);
	q = p; q.ewma_pct = 0;		/* zero-initialized: the draft's */
	EXPECT_TRUE(hpcc_params_valid(&q));
	q = p; q.ewma_pct = 800;
	EXPECT_TRUE(hpcc_params_valid(&q));
	q = p; q.ewma_pct = 99;
	EXPECT_FALSE(hpcc_params_valid(&q));
	q = p; q.ewma_pct = 801;
	EXPECT_FALSE(hpcc_params_valid(&q));
}

/* W to segments: W / mss within [2, max(clamp, 2)]; mss 0 counts as 1. */
TEST(host_cwnd)
{
	EXPECT_EQ(10U, hpcc_host_cwnd(WB(14480), 1448, 1000));
	EXPECT_EQ(10U, hpcc_host_cwnd(WB(15927), 1448, 1000));
	EXPECT_EQ(2U, hpcc_host_cwnd(WB(1000), 1448, 1000));
	EXPECT_EQ(2U, hpcc_host_cwnd(0, 1448, 0));
	EXPECT_EQ(1000U, hpcc_host_cwnd(WB(1ULL << 30), 1448, 1000));
	EXPECT_EQ(2U, hpcc_host_cwnd(WB(1ULL << 30), 1448, 1));
	EXPECT_EQ(1000U, hpcc_host_cwnd(WB(1000), 0, 5000));
}

/*
 * R = W / T times gain / 100: 100,000 bytes over 10 us is 10^10 bytes/s;
 * the largest W and gain do not overflow.
 */
TEST(host_pacing_rate)
{
	EXPECT_EQ(10000000000ULL, hpcc_host_pacing_rate(WB(100000), 100, 10000));
	EXPECT_EQ(12500000000ULL, hpcc_host_pacing_rate(WB(100000), 125, 10000));
	EXPECT_EQ(1000000ULL, hpcc_host_pacing_rate(WB(100000), 100,
						    100000000ULL));
	EXPECT_EQ((1ULL << 30) * 4000000ULL,
		  hpcc_host_pacing_rate(WB(1ULL << 30), HPCC_PACING_GAIN_MAX,
					HPCC_T_MIN_NS));
}

/*
 * The FCR window R x T: 1 Gbit/s over 10 us is 1250 bytes, raised to four
 * segments, as is 1 bit/s; 100 Gbit/s over 10 us is 125,000 bytes; the
 * largest rate over the largest T is capped at HPCC_W_MAX_MAX.
 */
TEST(host_fcr_window)
{
	EXPECT_EQ(4ULL * 1448, hpcc_host_fcr_window(1000000000ULL, 10000, 1448));
	EXPECT_EQ(125000ULL, hpcc_host_fcr_window(100000000000ULL, 10000, 1448));
	EXPECT_EQ(4ULL * 1000, hpcc_host_fcr_window(1, 10000, 1000));
	EXPECT_EQ(HPCC_W_MAX_MAX,
		  hpcc_host_fcr_window(HPCC_RATE_MAX, HPCC_T_MAX_NS, 1448));
}

/*
 * Staleness: more than stale_rtts times max(srtt, T) since the newest
 * news; news is the telemetry's arrival only when some arrived and it is
 * later than the floor; clocks may wrap.
 */
TEST(host_staleness)
{
	u64 base = ~0ULL - 500;

	EXPECT_EQ(10000ULL, hpcc_host_rtt(0, 10000));
	EXPECT_EQ(25000ULL, hpcc_host_rtt(25000, 10000));
	EXPECT_EQ(100ULL, hpcc_host_last_news(100, false, 900));
	EXPECT_EQ(900ULL, hpcc_host_last_news(100, true, 900));
	EXPECT_EQ(100ULL, hpcc_host_last_news(100, true, 50));
	EXPECT_EQ(base + 1000, hpcc_host_last_news(base, true, base + 1000));
	EXPECT_FALSE(hpcc_host_stale(base + 40000, base, 4, 10000));
	EXPECT_TRUE(hpcc_host_stale(base + 40001, base, 4, 10000));
	EXPECT_FALSE(hpcc_host_stale(base, base + 10, 4, 10000));
}

/*
 * The end of an idle period moves the floor forward by the idle time, to
 * now at most: an idle flow is not stale the moment it sends again.
 */
TEST(host_idle_end)
{
	EXPECT_EQ(5000ULL, hpcc_host_idle_end(1000, 3000, 7000));
	EXPECT_EQ(7000ULL, hpcc_host_idle_end(6500, 3000, 7000));
	EXPECT_EQ(7000ULL, hpcc_host_idle_end(7000, 7000, 7000));
	EXPECT_EQ(~0ULL - 100 + 4000,
		  hpcc_host_idle_end(~0ULL - 100, ~0ULL - 50, ~0ULL - 50 + 4000));
}

/*
 * The coordination rule's sample (B x T = 10,000 bytes, eta 0.75): U
 * above 1 at the binding hop is congestion; U at eta or above is only
 * when W before NewAck is below ccm-share percent of the hop's B x T (a
 * shared hop), never with ccm-share 0 or no binding hop; U below eta is
 * not, whatever W; last_hop and last_busy follow the binding hop and the
 * last hop's u'.
 */
TEST(host_ccm_sample)
{
	struct hpcc_params p = params();
	struct hpcc_ccm_sample s;
	struct hpcc_flow f;

	hpcc_flow_init(&f, &p);
	f.nhop = 2;
	f.l[0] = hop(1, 0, 0, 0);
	f.l[1] = hop(2, 0, 0, 0);
	f.bind_hop = 1;
	f.u = UQ(11, 10);
	f.u_last = UQ(1, 2);
	hpcc_host_ccm_sample(&f, &p, WB(9000), 0, 123, 20000, &s);
	EXPECT_TRUE(s.congested);
	EXPECT_FALSE(s.last_hop);
	EXPECT_FALSE(s.last_busy);
	EXPECT_EQ(123ULL, s.now);
	EXPECT_EQ(20000ULL, s.rtt_ns);
	EXPECT_EQ(0U, s.rnd);
	EXPECT_FALSE(s.recovery);

	f.u = UQ(4, 5);
	hpcc_host_ccm_sample(&f, &p, WB(3999), 40, 1, 1, &s);
	EXPECT_TRUE(s.congested);
	hpcc_host_ccm_sample(&f, &p, WB(4000), 40, 1, 1, &s);
	EXPECT_FALSE(s.congested);
	hpcc_host_ccm_sample(&f, &p, WB(3999), 0, 1, 1, &s);
	EXPECT_FALSE(s.congested);
	f.u = p.eta;
	hpcc_host_ccm_sample(&f, &p, WB(1000), 40, 1, 1, &s);
	EXPECT_TRUE(s.congested);
	f.u = p.eta - 1;
	hpcc_host_ccm_sample(&f, &p, WB(1000), 40, 1, 1, &s);
	EXPECT_FALSE(s.congested);

	f.u = UQ(4, 5);
	f.bind_hop = 0;
	hpcc_host_ccm_sample(&f, &p, WB(1000), 40, 1, 1, &s);
	EXPECT_FALSE(s.congested);
	f.bind_hop = 3;
	hpcc_host_ccm_sample(&f, &p, WB(1000), 40, 1, 1, &s);
	EXPECT_FALSE(s.congested);

	f.bind_hop = 2;
	f.u_last = p.eta;
	hpcc_host_ccm_sample(&f, &p, WB(1000), 40, 1, 1, &s);
	EXPECT_TRUE(s.congested);
	EXPECT_TRUE(s.last_hop);
	EXPECT_TRUE(s.last_busy);
}

/*
 * A wait or a path change puts W, Wc and incStage back only when NewAck
 * lowered W.
 */
TEST(host_ccm_hold)
{
	struct hpcc_params p = params();
	struct hpcc_flow f;

	hpcc_flow_init(&f, &p);
	f.w = WB(5000);
	f.wc = WB(6000);
	f.inc_stage = 0;
	hpcc_host_ccm_hold(&f, WB(8000), WB(8000), 2);
	EXPECT_EQ(WB(8000), f.w);
	EXPECT_EQ(WB(8000), f.wc);
	EXPECT_EQ(2U, f.inc_stage);

	f.w = WB(9000);
	f.wc = WB(9500);
	f.inc_stage = 1;
	hpcc_host_ccm_hold(&f, WB(8000), WB(7000), 0);
	EXPECT_EQ(WB(9000), f.w);
	EXPECT_EQ(WB(9500), f.wc);
	EXPECT_EQ(1U, f.inc_stage);
}

TEST_HARNESS_MAIN
