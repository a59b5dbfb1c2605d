// SPDX-License-Identifier: GPL-2.0
/*
 * core_equiv - the fixed-point core against a double-precision model of the
 * same rules (Documentation/algorithm.rst) on random 10,000-sample traces
 * across the supported ranges: every W and Wc must agree within 1%.
 * Seeds are fixed, so a failure is reproducible.  Host test, built with
 * ASan and UBSan.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "lib/hpcc_core.h"

#define TRACES		40
#define SAMPLES		10000

/* xorshift64* */
static u64 rng_state;
static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static double unif(double a, double b)
{
	return a + (b - a) * (double)(rnd() >> 11) / 9007199254740992.0;
}

static double logunif(double a, double b)
{
	return exp(unif(log(a), log(b)));
}

/* ---- the model: the documented rules in double precision ---------------- */
struct model {
	double u, w, wc;
	u32 inc_stage, last_update_seq, nhop;
	struct hpcc_hop l[HPCC_MAX_HOPS];
};

struct mparams {
	double t, t_u, eta, w_ai, w_init, w_min;
	u32 max_stage;
};

static const double u_max = 131072.0;	/* HPCC_U_MAX */

static double clampw(double w, const struct mparams *p)
{
	return w < p->w_min ? p->w_min : w > p->w_init ? p->w_init : w;
}

static int model_ack(struct model *m, const struct mparams *p, u32 ack,
		     u32 nxt, const struct hpcc_hop *h, u32 n)
{
	double u = 0, tau = 0;
	int found = 0, same = n == m->nhop;
	u32 i;

	for (i = 0; same && i < n; i++)
		same = h[i].switch_id == m->l[i].switch_id &&
		       h[i].port_id == m->l[i].port_id;
	if (!m->nhop || !same) {
		memcpy(m->l, h, n * sizeof(*h));
		m->nhop = n;
		m->last_update_seq = nxt;
		return 0;
	}
	for (i = 0; i < n; i++) {
		s64 dt = (s64)(h[i].ts - m->l[i].ts);
		double b, q, t1, t2, u1;

		int full = !(h[i].flags & HPCC_HOP_NO_TX_BYTES);

		if (!h[i].rate_bps || dt <= 0)
			continue;
		if (full && (m->l[i].flags & HPCC_HOP_NO_TX_BYTES ||
			     h[i].tx_bytes < m->l[i].tx_bytes))
			continue;
		b = (double)h[i].rate_bps / 8e9;		/* bytes/ns */
		q = (double)(h[i].qlen < m->l[i].qlen ? h[i].qlen : m->l[i].qlen);
		t1 = fmin(q / (b * p->t), u_max);
		/* algorithm.rst, "Partial telemetry" */
		if (full)
			t2 = fmin((double)(h[i].tx_bytes - m->l[i].tx_bytes) /
				  (double)dt / b, u_max);
		else if (h[i].flags & HPCC_HOP_TX_UTIL)
			t2 = h[i].tx_util / 65536.0;
		else if (q > 0)
			t2 = 1;
		else if (h[i].qlen || m->l[i].qlen)
			continue;
		else
			t2 = p->eta / 2;
		u1 = fmin(t1 + t2, u_max);
		if (!found || u1 > u) {
			u = u1;
			tau = (double)dt;
			found = 1;
		}
	}
	memcpy(m->l, h, n * sizeof(*h));
	if (!found)
		return 1;
	tau = fmin(tau, p->t_u);
	m->u = (1 - tau / p->t_u) * m->u + tau / p->t_u * u;
	{
		int upd = (s32)(ack - m->last_update_seq) > 0;
		double w;

		if (m->u >= p->eta || m->inc_stage >= p->max_stage) {
			w = m->u > 0 ? m->wc * p->eta / m->u + p->w_ai : p->w_init;
			if (upd)
				m->inc_stage = 0;
		} else {
			w = m->wc + p->w_ai;
			if (upd)
				m->inc_stage++;
		}
		m->w = clampw(w, p);
		if (upd) {
			m->wc = m->w;
			m->last_update_seq = nxt;
		}
	}
	return 2;
}

/* ---- random traces ---------------------------------------------------------- */
static const u64 rates[] = {
	1000000000ULL, 10000000000ULL, 25000000000ULL, 40000000000ULL,
	100000000000ULL, 400000000000ULL, 800000000000ULL, 1600000000000ULL,
};

struct stats {
	unsigned long md, ai, mi, skipped, path, at_min, at_max, samples;
	unsigned long free;
	double worst;
};

static int run_trace(struct __test_metadata *_metadata, u64 seed,
		     struct stats *st)
{
	struct hpcc_params p;
	struct mparams mp;
	struct hpcc_flow f;
	struct model m = { 0 };
	struct hpcc_hop h[HPCC_MAX_HOPS];
	double rho[HPCC_MAX_HOPS], q[HPCC_MAX_HOPS];
	u32 n, i, nxt, ack;
	int s;

	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	p.t_ns = (u64)logunif(1000, 100000000);
	p.eta = (u64)(unif(0.5, 1.0) * HPCC_U_ONE);
	p.max_stage = (u32)(rnd() % 11);
	p.w_init = (u64)logunif(10000, 1 << 30) << HPCC_W_SHIFT;
	p.w_min = (u64)logunif(128, (double)(p.w_init >> HPCC_W_SHIFT) / 20)
		  << HPCC_W_SHIFT;
	p.w_ai = (u64)unif(0, (double)(p.w_init >> HPCC_W_SHIFT) / 50)
		 << HPCC_W_SHIFT;
	/* U's EWMA period: the draft's T_U = T in even traces */
	p.ewma_pct = seed & 1 ? HPCC_EWMA_PERIOD_MIN + (u32)(rnd() % 701) : 100;
	ASSERT_TRUE(hpcc_params_valid(&p));
	mp.t = (double)p.t_ns;
	mp.t_u = mp.t * p.ewma_pct / 100;
	mp.eta = (double)p.eta / HPCC_U_ONE;
	mp.max_stage = p.max_stage;
	mp.w_ai = (double)p.w_ai / 65536.0;
	mp.w_init = (double)p.w_init / 65536.0;
	mp.w_min = (double)p.w_min / 65536.0;

	hpcc_flow_init(&f, &p);
	m.u = 1;
	m.w = m.wc = mp.w_init;

	n = 1 + rnd() % HPCC_MAX_HOPS;
	for (i = 0; i < n; i++) {
		/* a third of the traces' hops report partial telemetry:
		 * no txBytes, with or without Tx utilization
		 */
		u32 kind = seed % 3 ? (u32)(rnd() % 3) : 0;

		h[i] = (struct hpcc_hop){
			.ts = rnd(), .tx_bytes = rnd() >> (rnd() % 2),
			.rate_bps = rates[rnd() % 8], .switch_id = i + 1,
			.port_id = (u32)rnd(),
			.flags = kind == 1 ? HPCC_HOP_NO_TX_BYTES :
				 kind == 2 ? HPCC_HOP_FLAGS : 0,
		};
		rho[i] = unif(0.3, 1.0);
		q[i] = 0;
	}
	nxt = (u32)rnd();
	ack = nxt;
	for (s = 0; s < SAMPLES; s++) {
		u32 prev_inc = f.inc_stage;
		double wf, wcf, e1, e2;
		int r, kind;
		u64 roll;

		for (i = 0; i < n; i++) {
			double bpn = (double)h[i].rate_bps / 8e9;
			double dt = mp.t * logunif(0.05, 5);

			rho[i] = fmin(fmax(rho[i] + unif(-0.1, 0.1), 0), 1.3);
			q[i] = fmax(0, 0.9 * q[i] + (rho[i] - 1) * bpn * dt);
			if (rnd() % 20 == 0)
				q[i] = 0;
			h[i].ts += (u64)dt;
			/*
			 * Jitter keeps hops from tying exactly at line rate:
			 * the argmax over hops picks tau, and an exact tie is
			 * broken by rounding in any arithmetic.
			 */
			h[i].tx_bytes += (u64)(fmin(rho[i], 1) * unif(0.97, 1) *
					       bpn * dt);
			h[i].qlen = (u64)q[i];
			if (h[i].flags & HPCC_HOP_TX_UTIL)
				h[i].tx_util = (u32)(fmin(rho[i], 1) *
						     unif(0.97, 1) * 65536);
		}
		roll = rnd() % 1000;
		kind = 0;
		if (roll < 5) {			/* a hop with unknown B */
			h[rnd() % n].rate_bps = 0;
		} else if (roll < 10) {		/* ts stands still */
			h[rnd() % n].ts -= (u64)(mp.t * 5);
		} else if (roll < 15) {		/* txBytes goes back */
			h[rnd() % n].tx_bytes -= 1 << 20;
		} else if (roll < 18) {		/* path change */
			h[rnd() % n].port_id ^= 1;
			kind = 1;
		} else if (roll < 20) {		/* txBytes comes or goes */
			h[rnd() % n].flags ^= HPCC_HOP_NO_TX_BYTES;
		}
		nxt += 1000 + rnd() % 100000;
		if (rnd() % 4 == 0)
			ack = nxt - (u32)(rnd() % 200000);

		r = hpcc_new_ack(&f, &p, ack, nxt, h, n);
		model_ack(&m, &mp, ack, nxt, h, n);
		for (i = 0; i < n; i++)
			if (!h[i].rate_bps)
				h[i].rate_bps = rates[rnd() % 8];

		wf = (double)f.w / 65536.0;
		wcf = (double)f.wc / 65536.0;
		e1 = fabs(wf - m.w) / m.w;
		e2 = fabs(wcf - m.wc) / m.wc;
		if (e1 > st->worst)
			st->worst = e1;
		if (e2 > st->worst)
			st->worst = e2;
		if (e1 > 0.01 || e2 > 0.01) {
			TH_LOG("seed %llu sample %d: W %.1f/%.1f Wc %.1f/%.1f U %.9f/%.9f inc %u/%u",
			       (unsigned long long)seed, s, wf, m.w, wcf, m.wc,
			       (double)f.u / HPCC_U_ONE, m.u, f.inc_stage,
			       m.inc_stage);
			return -1;
		}
		st->samples++;
		st->path += kind || r == HPCC_STEP_PATH_CHANGE;
		st->skipped += r == HPCC_STEP_SKIPPED;
		if (r == HPCC_STEP_W || r == HPCC_STEP_WC) {
			if (f.u >= p.eta)
				st->md++;
			else if (prev_inc >= p.max_stage)
				st->mi++;
			else
				st->ai++;
			st->at_min += f.w == p.w_min;
			st->at_max += f.w == p.w_init;
			st->free += f.w != p.w_min && f.w != p.w_init;
		}
	}
	return 0;
}

TEST(fixed_point_within_1pct_of_double_model)
{
	struct stats st = { 0 };
	u64 seed;

	for (seed = 1; seed <= TRACES; seed++)
		ASSERT_EQ(0, run_trace(_metadata, seed, &st));
	TH_LOG("%lu samples: MD %lu AI %lu MI %lu skipped %lu path %lu at W_min %lu at W_max %lu unclamped %lu; worst relative error %.3g",
	       st.samples, st.md, st.ai, st.mi, st.skipped, st.path,
	       st.at_min, st.at_max, st.free, st.worst);
	/* the traces must exercise every branch */
	EXPECT_EQ(TRACES * SAMPLES, st.samples);
	EXPECT_LT(1000, st.md);
	EXPECT_LT(1000, st.ai);
	EXPECT_LT(10, st.mi);
	EXPECT_LT(100, st.skipped);
	EXPECT_LT(100, st.path);
	EXPECT_LT(10, st.at_min);
	EXPECT_LT(10, st.at_max);
	EXPECT_LT(st.samples / 4, st.free);
	EXPECT_GT(0.01, st.worst);
}

TEST_HARNESS_MAIN
