// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - hpccd's probe scheduler (sched.h): flows in a
 * seeded hash with a list, deadlines in a binary heap, one token bucket
 * for all probes, per-source token buckets for responses, and the
 * receiver's count of concurrent flows per hop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sched.h"

#define MAX_BACKOFF_SHIFT 10

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* A tuple's family: AF_INET6, or AF_INET (also for 0). */
static bool tuple_v6(const struct hpcc_tuple *t)
{
	return t->family == AF_INET6;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* By family, addresses and ports; not by the flow label (a rehash changes
 * a flow's label, not the flow).  The flow table and the receiver's flow
 * count (hpccd_nf) both hash with this, each with its own seed.
 */
static uint64_t tuple_mix(uint64_t seed, const struct hpcc_tuple *t)
{
	uint64_t a = ((uint64_t)t->saddr << 32) | t->daddr;
	uint64_t b = ((uint64_t)t->sport << 16) | t->dport;
	int i;

	if (tuple_v6(t)) {
		a = 0;
		for (i = 0; i < 16; i += 8)
			a = mix64(a ^ get_u64(t->saddr6 + i)) ^
			    get_u64(t->daddr6 + i);
		b |= 1ULL << 32;
	}
	return mix64(mix64(a ^ seed) ^ b);
}

static uint32_t tuple_hash(const struct hpccd_sched *s,
			   const struct hpcc_tuple *t)
{
	return (uint32_t)tuple_mix(s->seed, t);
}

static bool tuple_eq(const struct hpcc_tuple *a, const struct hpcc_tuple *b)
{
	if (tuple_v6(a) != tuple_v6(b) || a->sport != b->sport ||
	    a->dport != b->dport)
		return false;
	if (tuple_v6(a))
		return !memcmp(a->saddr6, b->saddr6, 16) &&
		       !memcmp(a->daddr6, b->daddr6, 16);
	return a->saddr == b->saddr && a->daddr == b->daddr;
}

/* --- token bucket ---------------------------------------------------------- */

static uint64_t burst_of(uint32_t rate)
{
	uint64_t b = rate / 100;

	return (b < 8 ? 8 : b) * HPCCD_TOKEN;
}

/* Tokens are kept in 1/1e9 units: rate per s x elapsed ns. */
static void refill(uint64_t *tokens, uint64_t *at, uint32_t rate,
		   uint64_t now)
{
	uint64_t dt = now > *at ? now - *at : 0, burst = burst_of(rate);

	if (dt > 1000000000ULL)
		dt = 1000000000ULL;
	*tokens += dt * rate;
	if (*tokens > burst)
		*tokens = burst;
	*at = now;
}

/* --- deadline heap --------------------------------------------------------- */

static void heap_set(struct hpccd_sched *s, uint32_t i, struct hpccd_flow *f)
{
	s->heap[i] = f;
	f->heap_idx = i;
}

static void heap_up(struct hpccd_sched *s, uint32_t i)
{
	struct hpccd_flow *f = s->heap[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (s->heap[p]->deadline_ns <= f->deadline_ns)
			break;
		heap_set(s, i, s->heap[p]);
		i = p;
	}
	heap_set(s, i, f);
}

static void heap_down(struct hpccd_sched *s, uint32_t i)
{
	struct hpccd_flow *f = s->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= s->heap_len)
			break;
		if (c + 1 < s->heap_len &&
		    s->heap[c + 1]->deadline_ns < s->heap[c]->deadline_ns)
			c++;
		if (f->deadline_ns <= s->heap[c]->deadline_ns)
			break;
		heap_set(s, i, s->heap[c]);
		i = c;
	}
	heap_set(s, i, f);
}

static void heap_del(struct hpccd_sched *s, struct hpccd_flow *f)
{
	uint32_t i = f->heap_idx;
	struct hpccd_flow *last;

	if (f->heap_idx < 0)
		return;
	f->heap_idx = -1;
	last = s->heap[--s->heap_len];
	if (i == s->heap_len)
		return;
	heap_set(s, i, last);
	heap_up(s, i);
	heap_down(s, last->heap_idx);
}

/* The heap holds at most one entry per flow, and has room for max_flows. */
static void heap_push(struct hpccd_sched *s, struct hpccd_flow *f)
{
	heap_del(s, f);
	heap_set(s, s->heap_len++, f);
	heap_up(s, s->heap_len - 1);
}

/* --- flows ----------------------------------------------------------------- */

static int grow(struct hpccd_sched *s)
{
	uint32_t n = s->nbuckets ? s->nbuckets * 2 : 64, i;
	struct hpccd_flow **b = calloc(n, sizeof(*b)), *f, *next;

	if (!b)
		return -ENOMEM;
	for (i = 0; i < s->nbuckets; i++)
		for (f = s->buckets[i]; f; f = next) {
			uint32_t h = tuple_hash(s, &f->t) & (n - 1);

			next = f->hnext;
			f->hnext = b[h];
			b[h] = f;
		}
	free(s->buckets);
	s->buckets = b;
	s->nbuckets = n;
	return 0;
}

static int heap_reserve(struct hpccd_sched *s, uint32_t n)
{
	struct hpccd_flow **h;
	uint32_t cap = s->heap_cap ? s->heap_cap : 64;

	if (n <= s->heap_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	h = realloc(s->heap, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	s->heap = h;
	s->heap_cap = cap;
	return 0;
}

int hpccd_sched_init(struct hpccd_sched *s, uint32_t budget,
		     uint32_t timeout_min_us, uint32_t timeout_max_us,
		     uint32_t max_flows, uint64_t seed, uint64_t now)
{
	memset(s, 0, sizeof(*s));
	LIST_INIT(&s->flows);
	TAILQ_INIT(&s->queue);
	s->seed = seed;
	hpccd_sched_set(s, budget, timeout_min_us, timeout_max_us, max_flows);
	s->pipeline = 1;
	s->tokens = burst_of(s->budget);
	s->tokens_at = now;
	if (grow(s) || heap_reserve(s, 64)) {
		hpccd_sched_free(s);
		return -ENOMEM;
	}
	return 0;
}

void hpccd_sched_set(struct hpccd_sched *s, uint32_t budget,
		     uint32_t timeout_min_us, uint32_t timeout_max_us,
		     uint32_t max_flows)
{
	s->budget = budget ? budget : 1;
	s->timeout_min_ns = timeout_min_us * 1000ULL;
	s->timeout_max_ns = timeout_max_us * 1000ULL;
	if (s->timeout_max_ns < s->timeout_min_ns)
		s->timeout_max_ns = s->timeout_min_ns;
	s->max_flows = max_flows ? max_flows : 1;
	if (s->tokens > burst_of(s->budget))
		s->tokens = burst_of(s->budget);
}

void hpccd_sched_clear(struct hpccd_sched *s)
{
	struct hpccd_flow *f;

	while ((f = LIST_FIRST(&s->flows)))
		hpccd_flow_remove(s, f);
}

void hpccd_sched_free(struct hpccd_sched *s)
{
	hpccd_sched_clear(s);
	free(s->buckets);
	free(s->heap);
	s->buckets = NULL;
	s->heap = NULL;
	s->nbuckets = 0;
	s->heap_cap = 0;
}

struct hpccd_flow *hpccd_flow_find(const struct hpccd_sched *s,
				   const struct hpcc_tuple *t)
{
	struct hpccd_flow *f;

	for (f = s->buckets[tuple_hash(s, t) & (s->nbuckets - 1)]; f;
	     f = f->hnext)
		if (tuple_eq(&f->t, t))
			return f;
	return NULL;
}

struct hpccd_flow *hpccd_flow_add(struct hpccd_sched *s,
				  const struct hpcc_tuple *t, bool *created)
{
	struct hpccd_flow *f = hpccd_flow_find(s, t);
	uint32_t h;

	if (created)
		*created = false;
	if (f) {
		f->mark = s->mark;
		return f;
	}
	if (s->nflows >= s->max_flows)
		return NULL;
	if (s->nflows >= s->nbuckets && grow(s))
		return NULL;
	if (heap_reserve(s, s->nflows + 1))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->t = *t;
	f->heap_idx = -1;
	f->mark = s->mark;
	h = tuple_hash(s, t) & (s->nbuckets - 1);
	f->hnext = s->buckets[h];
	s->buckets[h] = f;
	LIST_INSERT_HEAD(&s->flows, f, all);
	s->nflows++;
	if (created)
		*created = true;
	return f;
}

void hpccd_flow_remove(struct hpccd_sched *s, struct hpccd_flow *f)
{
	struct hpccd_flow **pp;

	if (f->state == HPCCD_QUEUED)
		TAILQ_REMOVE(&s->queue, f, q);
	heap_del(s, f);
	for (pp = &s->buckets[tuple_hash(s, &f->t) & (s->nbuckets - 1)];
	     *pp; pp = &(*pp)->hnext)
		if (*pp == f) {
			*pp = f->hnext;
			break;
		}
	LIST_REMOVE(f, all);
	s->nflows--;
	free(f);
}

/* --- the probe cycle ------------------------------------------------------- */

static uint64_t timeout_ns(const struct hpccd_sched *s,
			   const struct hpccd_flow *f)
{
	uint64_t base = (uint64_t)f->srtt_us * 1000, t;
	uint32_t shift = f->losses_in_row < MAX_BACKOFF_SHIFT ?
			 f->losses_in_row : MAX_BACKOFF_SHIFT;

	if (f->rtt_ns > base)
		base = f->rtt_ns;
	/* 2 x base << 10 stays far below 2^64 for base < 2^40 ns */
	if (base > (1ULL << 40))
		base = 1ULL << 40;
	t = (2 * base) << shift;
	if (t < s->timeout_min_ns)
		t = s->timeout_min_ns;
	if (t > s->timeout_max_ns)
		t = s->timeout_max_ns;
	return t;
}

void hpccd_sched_pipeline(struct hpccd_sched *s, uint32_t depth)
{
	s->pipeline = depth < 1 ? 1 : depth > HPCCD_PIPE_MAX ?
		      HPCCD_PIPE_MAX : depth;
}

/* One pipelining interval of @f: its srtt, else its probe RTT, else the
 * shortest timeout; at least 1 us.
 */
static uint64_t pipe_interval_ns(const struct hpccd_sched *s,
				 const struct hpccd_flow *f)
{
	uint64_t i = (uint64_t)f->srtt_us * 1000;

	if (!i)
		i = f->rtt_ns ? f->rtt_ns : s->timeout_min_ns;
	return i < 1000 ? 1000 : i;
}

/* May @f send another probe before a response, once @f->next_ns comes?
 * Not after @s->pipeline losses in a row: in_flight is then only as fresh
 * as the last reply, so the pipeline drains and the flow is asked about.
 */
static bool pipe_open(const struct hpccd_sched *s, const struct hpccd_flow *f)
{
	return f->nout < s->pipeline && f->in_flight &&
	       f->losses_in_row < s->pipeline;
}

/*
 * out_deadline() - an OUTSTANDING flow's deadline: its oldest probe's
 * timeout, or when its next pipelined probe is due if that is sooner;
 * the flow back in the heap with it
 */
static void out_deadline(struct hpccd_sched *s, struct hpccd_flow *f)
{
	uint64_t d = f->out_sent[0] + timeout_ns(s, f);

	if (pipe_open(s, f) && f->next_ns < d)
		d = f->next_ns;
	f->deadline_ns = d;
	heap_push(s, f);
}

/* Forget probe @i of @f's probes out. */
static void out_drop(struct hpccd_flow *f, unsigned int i)
{
	for (; i + 1 < f->nout; i++) {
		f->out_id[i] = f->out_id[i + 1];
		f->out_sent[i] = f->out_sent[i + 1];
	}
	f->nout--;
}

/* The index of probe @probe_id among @f's probes out; @f->nout if none. */
static unsigned int out_index(const struct hpccd_flow *f, uint64_t probe_id)
{
	unsigned int i;

	for (i = 0; i < f->nout && f->out_id[i] != probe_id; i++)
		;
	return i;
}

bool hpccd_outstanding(const struct hpccd_flow *f, uint64_t probe_id)
{
	return f->state == HPCCD_OUTSTANDING &&
	       out_index(f, probe_id) < f->nout;
}

bool hpccd_want(struct hpccd_sched *s, struct hpccd_flow *f, uint64_t now)
{
	if (f->state == HPCCD_ASKING) {
		heap_del(s, f);
		f->state = HPCCD_IDLE;
	}
	if (f->state != HPCCD_IDLE)
		return false;
	refill(&s->tokens, &s->tokens_at, s->budget, now);
	if (s->tokens >= HPCCD_TOKEN && TAILQ_EMPTY(&s->queue)) {
		s->tokens -= HPCCD_TOKEN;
		return true;
	}
	f->state = HPCCD_QUEUED;
	TAILQ_INSERT_TAIL(&s->queue, f, q);
	return false;
}

void hpccd_sent(struct hpccd_sched *s, struct hpccd_flow *f,
		uint64_t probe_id, uint64_t now)
{
	if (f->state == HPCCD_QUEUED)
		TAILQ_REMOVE(&s->queue, f, q);
	if (f->state != HPCCD_OUTSTANDING)
		f->nout = 0;
	/* never more than HPCCD_PIPE_MAX: the oldest gives its place */
	if (f->nout == HPCCD_PIPE_MAX)
		out_drop(f, 0);
	f->out_id[f->nout] = probe_id;
	f->out_sent[f->nout] = now;
	f->nout++;
	f->state = HPCCD_OUTSTANDING;
	f->next_ns = now + pipe_interval_ns(s, f);
	f->probes++;
	out_deadline(s, f);
}

bool hpccd_response(struct hpccd_sched *s, struct hpccd_flow *f,
		    uint64_t probe_id, uint64_t now)
{
	unsigned int i;
	uint64_t rtt;

	if (f->state != HPCCD_OUTSTANDING)
		return false;
	i = out_index(f, probe_id);
	if (i == f->nout)
		return false;
	rtt = now > f->out_sent[i] ? now - f->out_sent[i] : 0;
	out_drop(f, i);
	f->losses_in_row = 0;
	f->responses++;
	f->rtt_ns = f->rtt_ns ? f->rtt_ns - f->rtt_ns / 8 + rtt / 8 : rtt;
	if (f->nout) {
		out_deadline(s, f);
		return true;
	}
	heap_del(s, f);
	f->state = HPCCD_IDLE;
	return true;
}

void hpccd_backoff(struct hpccd_sched *s, struct hpccd_flow *f, uint64_t now)
{
	if (f->state == HPCCD_QUEUED)
		TAILQ_REMOVE(&s->queue, f, q);
	if (f->losses_in_row < UINT32_MAX)
		f->losses_in_row++;
	f->state = HPCCD_BACKOFF;
	f->nout = 0;
	f->deadline_ns = now + timeout_ns(s, f);
	heap_push(s, f);
}

void hpccd_send_blocked(struct hpccd_sched *s, struct hpccd_flow *f,
			uint64_t now)
{
	if (f->probes)
		f->probes--;
	hpccd_backoff(s, f, now);
}

bool hpccd_ask(struct hpccd_sched *s, struct hpccd_flow *f, uint64_t now,
	       uint32_t tag)
{
	if (f->state != HPCCD_IDLE)
		return false;
	f->state = HPCCD_ASKING;
	f->ask_tag = tag;
	f->deadline_ns = now + timeout_ns(s, f);
	heap_push(s, f);
	return true;
}

bool hpccd_answered(struct hpccd_sched *s, struct hpccd_flow *f,
		    uint32_t tag)
{
	if (f->state != HPCCD_ASKING || f->ask_tag != tag)
		return false;
	heap_del(s, f);
	f->state = HPCCD_IDLE;
	return true;
}

bool hpccd_tcp_state_flow(uint8_t state)
{
	/* include/net/tcp_states.h: numbers of the kernel's ABI */
	switch (state) {
	case 1:		/* TCP_ESTABLISHED */
	case 4:		/* TCP_FIN_WAIT1 */
	case 5:		/* TCP_FIN_WAIT2 */
	case 8:		/* TCP_CLOSE_WAIT */
	case 9:		/* TCP_LAST_ACK */
	case 11:	/* TCP_CLOSING */
		return true;
	default:
		return false;
	}
}

bool hpccd_rx_ask(const struct hpccd_flow *f, uint64_t now)
{
	return now >= f->rx_retry_ns;
}

void hpccd_rx_refused(struct hpccd_flow *f, uint64_t now)
{
	unsigned int shift;

	if (f->rx_refusals < UINT8_MAX)
		f->rx_refusals++;
	shift = f->rx_refusals - 1;
	if (shift > HPCCD_RX_RETRY_SHIFT)
		shift = HPCCD_RX_RETRY_SHIFT;
	f->rx_retry_ns = now + (HPCCD_RX_RETRY_NS << shift);
}

void hpccd_rx_accepted(struct hpccd_flow *f)
{
	f->rx_refusals = 0;
	f->rx_retry_ns = 0;
}

struct hpccd_flow *hpccd_next_queued(struct hpccd_sched *s, uint64_t now)
{
	struct hpccd_flow *f = TAILQ_FIRST(&s->queue);

	if (!f)
		return NULL;
	refill(&s->tokens, &s->tokens_at, s->budget, now);
	if (s->tokens < HPCCD_TOKEN)
		return NULL;
	s->tokens -= HPCCD_TOKEN;
	TAILQ_REMOVE(&s->queue, f, q);
	f->state = HPCCD_IDLE;
	return f;
}

struct hpccd_flow *hpccd_next_due(struct hpccd_sched *s, uint64_t now,
				  enum hpccd_due *what)
{
	struct hpccd_flow *f;

	while (s->heap_len && s->heap[0]->deadline_ns <= now) {
		f = s->heap[0];
		heap_del(s, f);
		if (f->state != HPCCD_OUTSTANDING) {
			*what = HPCCD_DUE_IDLE;
			f->state = HPCCD_IDLE;
			return f;
		}
		if (f->out_sent[0] + timeout_ns(s, f) <= now) {
			/* the oldest probe out is lost */
			f->lost++;
			if (f->losses_in_row < UINT32_MAX)
				f->losses_in_row++;
			out_drop(f, 0);
			if (!f->nout) {
				*what = HPCCD_DUE_LOST;
				f->state = HPCCD_IDLE;
				return f;
			}
			*what = HPCCD_DUE_LOST_ONE;
			out_deadline(s, f);
			return f;
		}
		/* the oldest's timeout moved later (a new srtt): not a slot */
		if (f->next_ns > now) {
			out_deadline(s, f);
			continue;
		}
		/* the next pipelined probe: a token, or the slot is skipped */
		refill(&s->tokens, &s->tokens_at, s->budget, now);
		if (pipe_open(s, f) && s->tokens >= HPCCD_TOKEN &&
		    TAILQ_EMPTY(&s->queue)) {
			s->tokens -= HPCCD_TOKEN;
			*what = HPCCD_DUE_PROBE;
			/* hpccd_sent() sets the deadline */
			return f;
		}
		if (pipe_open(s, f))
			s->pipe_deferred++;
		f->next_ns = now + pipe_interval_ns(s, f);
		out_deadline(s, f);
	}
	return NULL;
}

struct hpccd_flow *hpccd_next_expired(struct hpccd_sched *s, uint64_t now,
				       bool *lost)
{
	struct hpccd_flow *f;
	enum hpccd_due what;

	f = hpccd_next_due(s, now, &what);
	*lost = f && (what == HPCCD_DUE_LOST || what == HPCCD_DUE_LOST_ONE);
	return f;
}

uint64_t hpccd_next_wakeup(struct hpccd_sched *s, uint64_t now)
{
	uint64_t t = 0;

	if (s->heap_len)
		t = s->heap[0]->deadline_ns;
	if (!TAILQ_EMPTY(&s->queue)) {
		uint64_t need, at;

		refill(&s->tokens, &s->tokens_at, s->budget, now);
		need = s->tokens >= HPCCD_TOKEN ? 0 :
		       (HPCCD_TOKEN - s->tokens + s->budget - 1) / s->budget;
		at = now + need;
		if (!t || at < t)
			t = at;
	}
	return t;
}

uint32_t hpccd_queued(const struct hpccd_sched *s)
{
	const struct hpccd_flow *f;
	uint32_t n = 0;

	TAILQ_FOREACH(f, &s->queue, q)
		n++;
	return n;
}

void hpccd_reconcile_begin(struct hpccd_sched *s)
{
	s->mark++;
}

static void reconcile_remove(struct hpccd_flow *f, void *data)
{
	hpccd_flow_remove(data, f);
}

uint32_t hpccd_reconcile_end(struct hpccd_sched *s)
{
	return hpccd_reconcile_unseen(s, reconcile_remove, s);
}

uint32_t hpccd_reconcile_unseen(struct hpccd_sched *s,
				void (*fn)(struct hpccd_flow *f, void *data),
				void *data)
{
	struct hpccd_flow *f, *next;
	uint32_t n = 0;

	for (f = LIST_FIRST(&s->flows); f; f = next) {
		next = LIST_NEXT(f, all);
		if (f->mark != s->mark) {
			f->mark = s->mark;
			fn(f, data);
			n++;
		}
	}
	return n;
}

/* --- per-source response limit --------------------------------------------- */

#define RL_WAYS 4

int hpccd_rl_init(struct hpccd_rl *rl, uint32_t rate, uint32_t nslots,
		  uint64_t seed)
{
	if (nslots < RL_WAYS || (nslots & (nslots - 1)))
		return -EINVAL;
	rl->slots = calloc(nslots, sizeof(*rl->slots));
	if (!rl->slots)
		return -ENOMEM;
	rl->nslots = nslots;
	rl->rate = rate ? rate : 1;
	rl->seed = seed;
	rl->crowded = 0;
	return 0;
}

void hpccd_rl_free(struct hpccd_rl *rl)
{
	free(rl->slots);
	rl->slots = NULL;
	rl->nslots = 0;
}

/*
 * The bucket key of a source: an IPv4 address as its IPv4-mapped IPv6
 * address (::ffff:a.b.c.d), an IPv6 address as its /64 (the low half 0).
 * One IPv6 host owns a /64 and picks addresses in it at will (RFC 8981's
 * temporary addresses; any address, for a spoofer), so a per-address
 * bucket would limit nothing; a /64 of all zeros and an IPv4 key never
 * meet (the latter's low half is never 0).
 */
static void rl_key(int family, const void *addr, uint64_t *hi, uint64_t *lo)
{
	uint32_t a4;

	if (family == AF_INET6) {
		*hi = get_u64(addr);
		*lo = 0;
		return;
	}
	memcpy(&a4, addr, 4);
	*hi = 0;
	*lo = 0xffff00000000ULL | a4;
}

/* @sl's bucket has refilled to its burst by @now. */
static bool bucket_full(const struct hpccd_rl_slot *sl, uint32_t rate,
			uint64_t now)
{
	uint64_t dt = now > sl->at ? now - sl->at : 0, burst = burst_of(rate);

	if (sl->tokens >= burst)
		return true;
	/* dt x rate: a bucket refills in at most 10 ms (burst_of()) */
	return dt >= 1000000000ULL ||
	       sl->tokens + dt * rate >= burst;
}

bool hpccd_rl_allow(struct hpccd_rl *rl, int family, const void *addr,
		    uint64_t now)
{
	struct hpccd_rl_slot *sl = NULL, *lru;
	uint64_t hi, lo;
	uint32_t set;
	int i;

	rl_key(family, addr, &hi, &lo);
	set = (uint32_t)mix64(mix64(hi ^ rl->seed) ^ lo) &
	      (rl->nslots - 1) & ~(uint32_t)(RL_WAYS - 1);
	lru = &rl->slots[set];
	for (i = 0; i < RL_WAYS; i++) {
		struct hpccd_rl_slot *c = &rl->slots[set + i];

		if (c->at && c->hi == hi && c->lo == lo) {
			sl = c;
			break;
		}
		if (c->at < lru->at)
			lru = c;
	}
	if (!sl) {
		/* an absent source has a full bucket: only a way whose
		 * bucket is full by now (or free) may be given to it, or the
		 * source it holds would come back to a full bucket early
		 */
		if (lru->at && !bucket_full(lru, rl->rate, now ? now : 1)) {
			rl->crowded++;
			return false;
		}
		sl = lru;
		sl->hi = hi;
		sl->lo = lo;
		sl->tokens = burst_of(rl->rate);
		sl->at = now ? now : 1;
	}
	refill(&sl->tokens, &sl->at, rl->rate, now ? now : 1);
	if (sl->tokens < HPCCD_TOKEN)
		return false;
	sl->tokens -= HPCCD_TOKEN;
	return true;
}

/* --- the namespace-wide response budget ------------------------------------ */

static uint64_t byte_burst_of(uint32_t byte_rate)
{
	uint64_t b = byte_rate / 100;

	if (b < 8 * HPCC_PKT_MAX)
		b = 8 * HPCC_PKT_MAX;
	return b * HPCCD_TOKEN;
}

static void budget_refill(struct hpccd_budget *b, uint64_t now)
{
	uint64_t dt = now > b->at ? now - b->at : 0;

	/* both buckets fill within 1 s: rate x 1e9 stays below 2^64 */
	if (dt > 1000000000ULL)
		dt = 1000000000ULL;
	b->tokens += dt * b->rate;
	if (b->tokens > burst_of(b->rate))
		b->tokens = burst_of(b->rate);
	b->bytes += dt * b->byte_rate;
	if (b->bytes > byte_burst_of(b->byte_rate))
		b->bytes = byte_burst_of(b->byte_rate);
	if (now > b->at)
		b->at = now;
}

void hpccd_budget_set(struct hpccd_budget *b, uint32_t rate,
		      uint32_t byte_rate)
{
	b->rate = rate ? rate : 1;
	b->byte_rate = byte_rate ? byte_rate : 1;
	if (b->tokens > burst_of(b->rate))
		b->tokens = burst_of(b->rate);
	if (b->bytes > byte_burst_of(b->byte_rate))
		b->bytes = byte_burst_of(b->byte_rate);
}

void hpccd_budget_init(struct hpccd_budget *b, uint32_t rate,
		       uint32_t byte_rate, uint64_t now)
{
	memset(b, 0, sizeof(*b));
	hpccd_budget_set(b, rate, byte_rate);
	b->tokens = burst_of(b->rate);
	b->bytes = byte_burst_of(b->byte_rate);
	b->at = now;
}

bool hpccd_budget_take(struct hpccd_budget *b, uint64_t now)
{
	budget_refill(b, now);
	if (b->tokens < HPCCD_TOKEN) {
		b->over++;
		return false;
	}
	b->tokens -= HPCCD_TOKEN;
	return true;
}

bool hpccd_budget_bytes(struct hpccd_budget *b, uint32_t len, uint64_t now)
{
	uint64_t need = (uint64_t)len * HPCCD_TOKEN;

	budget_refill(b, now);
	if (b->bytes < need) {
		b->over_bytes++;
		return false;
	}
	b->bytes -= need;
	return true;
}

/* --- tcp-check's cache ------------------------------------------------------ */

void hpccd_tc_init(struct hpccd_tc *c, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	c->seed = seed;
}

#define HPCCD_TC_SETS	(HPCCD_TC_SLOTS / HPCCD_TC_WAYS)

/* the first of @t's set's HPCCD_TC_WAYS slots */
static struct hpccd_tc_slot *tc_set(const struct hpccd_tc *c,
				    const struct hpcc_tuple *t)
{
	size_t set = tuple_mix(c->seed, t) & (HPCCD_TC_SETS - 1);

	return (struct hpccd_tc_slot *)&c->slot[set * HPCCD_TC_WAYS];
}

static uint64_t tc_age(const struct hpccd_tc_slot *s, uint64_t now)
{
	return now > s->at ? now - s->at : 0;
}

/* does @s's verdict still count at @now: fresh, or known and kept? */
static bool tc_live(const struct hpccd_tc_slot *s, uint64_t now)
{
	uint64_t age = tc_age(s, now);

	return s->at && (age < HPCCD_TC_TTL_NS ||
			 (s->known && age < HPCCD_TC_TTL_NS + HPCCD_TC_KEEP_NS));
}

enum hpccd_tc_res hpccd_tc_get(const struct hpccd_tc *c,
			       const struct hpcc_tuple *t, uint64_t now)
{
	const struct hpccd_tc_slot *s = tc_set(c, t);
	unsigned int i;

	for (i = 0; i < HPCCD_TC_WAYS; i++, s++) {
		if (!s->at || !tuple_eq(&s->t, t))
			continue;
		if (!tc_live(s, now))
			return HPCCD_TC_MISS;
		if (tc_age(s, now) < HPCCD_TC_TTL_NS)
			return s->known ? HPCCD_TC_KNOWN : HPCCD_TC_UNKNOWN;
		return HPCCD_TC_STALE_KNOWN;
	}
	return HPCCD_TC_MISS;
}

void hpccd_tc_put(struct hpccd_tc *c, const struct hpcc_tuple *t, bool known,
		  uint64_t now)
{
	struct hpccd_tc_slot *set = tc_set(c, t), *s = NULL, *v;
	unsigned int i;

	for (i = 0; i < HPCCD_TC_WAYS; i++) {
		v = &set[i];
		if ((v->at && tuple_eq(&v->t, t)) || !tc_live(v, now)) {
			s = v;
			goto store;
		}
	}
	/* every way is live and another flow's: the oldest unknown
	 * verdict, else (for a known one) the oldest known
	 */
	for (i = 0; i < HPCCD_TC_WAYS; i++) {
		v = &set[i];
		if (v->known && !known)
			continue;
		if (!s || (s->known && !v->known) ||
		    (s->known == v->known && v->at < s->at))
			s = v;
	}
	if (!s)
		return;
store:
	s->t = *t;
	s->known = known;
	s->at = now ? now : 1;
}

/* --- neighbour lookups of on-link sources ---------------------------------- */

void hpccd_nb_init(struct hpccd_nb *g, uint64_t now)
{
	memset(g, 0, sizeof(*g));
	/* bytes unused: any rate the bucket accepts */
	hpccd_budget_init(&g->tokens, HPCCD_NB_RATE, 1000000000, now);
}

enum hpccd_nb_act hpccd_nb_lookup(struct hpccd_nb *g, bool refresh,
				  uint64_t now)
{
	if (now < g->stall_until) {
		if (refresh)
			return HPCCD_NB_KEEP;
		g->refused++;
		return HPCCD_NB_REFUSE;
	}
	if (refresh) {
		g->refreshes++;
		g->lookups++;
		return HPCCD_NB_LOOKUP;
	}
	if (!hpccd_budget_take(&g->tokens, now)) {
		g->refused++;
		return HPCCD_NB_REFUSE;
	}
	g->lookups++;
	return HPCCD_NB_LOOKUP;
}

void hpccd_nb_timed_out(struct hpccd_nb *g, uint64_t now)
{
	g->stalled++;
	g->stall_until = now + HPCCD_NB_STALL_NS;
}

bool hpccd_nb_answer_new(struct hpccd_nb *g, uint64_t now)
{
	if (!hpccd_budget_take(&g->tokens, now)) {
		g->refused++;
		return false;
	}
	return true;
}

/* --- the receiver's count of concurrent flows per hop ----------------------- */

#define NF_NONE UINT32_MAX

int hpccd_nf_init(struct hpccd_nf *nf, uint32_t max, uint64_t window_ns,
		  uint64_t seed)
{
	uint32_t i, nb = 1;

	memset(nf, 0, sizeof(*nf));
	if (!max || max > 1048576 || !window_ns)
		return -EINVAL;
	while (nb < max)
		nb <<= 1;
	nf->flows = calloc(max, sizeof(*nf->flows));
	nf->hops = calloc((size_t)max * HPCC_MAX_HOPS, sizeof(*nf->hops));
	nf->srcs = calloc(max, sizeof(*nf->srcs));
	nf->fbuckets = malloc(nb * sizeof(*nf->fbuckets));
	nf->hbuckets = malloc(nb * sizeof(*nf->hbuckets));
	nf->sbuckets = malloc(nb * sizeof(*nf->sbuckets));
	if (!nf->flows || !nf->hops || !nf->srcs || !nf->fbuckets ||
	    !nf->hbuckets || !nf->sbuckets) {
		hpccd_nf_free(nf);
		return -ENOMEM;
	}
	memset(nf->fbuckets, 0xff, nb * sizeof(*nf->fbuckets));
	memset(nf->hbuckets, 0xff, nb * sizeof(*nf->hbuckets));
	memset(nf->sbuckets, 0xff, nb * sizeof(*nf->sbuckets));
	for (i = 0; i < max; i++) {
		nf->flows[i].hnext = i + 1 < max ? i + 1 : NF_NONE;
		nf->srcs[i].hnext = i + 1 < max ? i + 1 : NF_NONE;
	}
	for (i = 0; i < max * HPCC_MAX_HOPS; i++)
		nf->hops[i].hnext = i + 1 < max * HPCC_MAX_HOPS ? i + 1 :
								 NF_NONE;
	nf->nbuckets = nb;
	nf->max = max;
	nf->window_ns = window_ns;
	nf->seed = seed;
	nf->per_source = max;
	nf->ffree = 0;
	nf->hfree = 0;
	nf->sfree = 0;
	nf->lru_head = NF_NONE;
	nf->lru_tail = NF_NONE;
	return 0;
}

void hpccd_nf_free(struct hpccd_nf *nf)
{
	free(nf->flows);
	free(nf->hops);
	free(nf->srcs);
	free(nf->fbuckets);
	free(nf->hbuckets);
	free(nf->sbuckets);
	memset(nf, 0, sizeof(*nf));
}

static uint32_t nf_fbucket(const struct hpccd_nf *nf,
			   const struct hpcc_tuple *t)
{
	return (uint32_t)tuple_mix(nf->seed, t) & (nf->nbuckets - 1);
}

static uint32_t nf_hbucket(const struct hpccd_nf *nf, uint32_t sw,
			   uint32_t port)
{
	return (uint32_t)mix64(((uint64_t)sw << 32 | port) ^ ~nf->seed) &
	       (nf->nbuckets - 1);
}

/* The hop (@sw, @port) with one more flow on it; NF_NONE never happens
 * (the pool holds every hop a tracked flow can reference).
 */
static uint32_t nf_hop_get(struct hpccd_nf *nf, uint32_t sw, uint32_t port)
{
	uint32_t b = nf_hbucket(nf, sw, port), i;

	for (i = nf->hbuckets[b]; i != NF_NONE; i = nf->hops[i].hnext)
		if (nf->hops[i].switch_id == sw && nf->hops[i].port_id == port)
			break;
	if (i == NF_NONE) {
		i = nf->hfree;
		if (i == NF_NONE)
			return NF_NONE;
		nf->hfree = nf->hops[i].hnext;
		nf->hops[i].switch_id = sw;
		nf->hops[i].port_id = port;
		nf->hops[i].count = 0;
		nf->hops[i].hnext = nf->hbuckets[b];
		nf->hbuckets[b] = i;
	}
	nf->hops[i].count++;
	return i;
}

static void nf_hop_put(struct hpccd_nf *nf, uint32_t i)
{
	struct hpccd_nf_hop *h = &nf->hops[i];
	uint32_t *pp;

	if (--h->count)
		return;
	pp = &nf->hbuckets[nf_hbucket(nf, h->switch_id, h->port_id)];
	while (*pp != i)
		pp = &nf->hops[*pp].hnext;
	*pp = h->hnext;
	h->hnext = nf->hfree;
	nf->hfree = i;
}

/* The source of flow @t: its key (rl_key()) and hash bucket. */
static uint32_t nf_src_key(const struct hpccd_nf *nf,
			   const struct hpcc_tuple *t, uint64_t *hi,
			   uint64_t *lo)
{
	if (tuple_v6(t))
		rl_key(AF_INET6, t->saddr6, hi, lo);
	else
		rl_key(AF_INET, &t->saddr, hi, lo);
	return (uint32_t)mix64(mix64(*hi ^ nf->seed ^ 0x5a5a) ^ *lo) &
	       (nf->nbuckets - 1);
}

/* The source entry of @t, or NF_NONE. */
static uint32_t nf_src_find(const struct hpccd_nf *nf,
			    const struct hpcc_tuple *t)
{
	uint64_t hi, lo;
	uint32_t i = nf->sbuckets[nf_src_key(nf, t, &hi, &lo)];

	for (; i != NF_NONE; i = nf->srcs[i].hnext)
		if (nf->srcs[i].hi == hi && nf->srcs[i].lo == lo)
			break;
	return i;
}

/* The source of @t with one more flow; the pool holds one per flow. */
static uint32_t nf_src_get(struct hpccd_nf *nf, const struct hpcc_tuple *t)
{
	uint32_t i = nf_src_find(nf, t), b;
	uint64_t hi, lo;

	if (i == NF_NONE) {
		b = nf_src_key(nf, t, &hi, &lo);
		i = nf->sfree;
		if (i == NF_NONE)
			return NF_NONE;
		nf->sfree = nf->srcs[i].hnext;
		nf->srcs[i].hi = hi;
		nf->srcs[i].lo = lo;
		nf->srcs[i].count = 0;
		nf->srcs[i].hnext = nf->sbuckets[b];
		nf->sbuckets[b] = i;
	}
	nf->srcs[i].count++;
	return i;
}

static void nf_src_put(struct hpccd_nf *nf, uint32_t i)
{
	struct hpccd_nf_src *s;
	uint32_t *pp;

	if (i == NF_NONE)
		return;
	s = &nf->srcs[i];
	if (--s->count)
		return;
	pp = &nf->sbuckets[(uint32_t)mix64(mix64(s->hi ^ nf->seed ^ 0x5a5a) ^
					   s->lo) & (nf->nbuckets - 1)];
	while (*pp != i)
		pp = &nf->srcs[*pp].hnext;
	*pp = s->hnext;
	s->hnext = nf->sfree;
	nf->sfree = i;
}

/* The count of hop (@sw, @port), 0 when no flow is on it. */
static uint32_t nf_hop_count(const struct hpccd_nf *nf, uint32_t sw,
			     uint32_t port)
{
	uint32_t i;

	for (i = nf->hbuckets[nf_hbucket(nf, sw, port)]; i != NF_NONE;
	     i = nf->hops[i].hnext)
		if (nf->hops[i].switch_id == sw && nf->hops[i].port_id == port)
			return nf->hops[i].count;
	return 0;
}

static void nf_unlink(struct hpccd_nf *nf, uint32_t i)
{
	struct hpccd_nf_flow *f = &nf->flows[i];

	if (f->prev != NF_NONE)
		nf->flows[f->prev].next = f->next;
	else
		nf->lru_head = f->next;
	if (f->next != NF_NONE)
		nf->flows[f->next].prev = f->prev;
	else
		nf->lru_tail = f->prev;
}

static void nf_release_hops(struct hpccd_nf *nf, struct hpccd_nf_flow *f)
{
	uint8_t k;

	for (k = 0; k < f->nhop; k++)
		nf_hop_put(nf, f->hop[k]);
	f->nhop = 0;
}

/* Forget flow @i: its hops lose it, its slot is free. */
static void nf_drop(struct hpccd_nf *nf, uint32_t i)
{
	struct hpccd_nf_flow *f = &nf->flows[i];
	uint32_t *pp = &nf->fbuckets[nf_fbucket(nf, &f->t)];

	nf_unlink(nf, i);
	nf_release_hops(nf, f);
	nf_src_put(nf, f->src);
	while (*pp != i)
		pp = &nf->flows[*pp].hnext;
	*pp = f->hnext;
	f->hnext = nf->ffree;
	nf->ffree = i;
	nf->nflows--;
}

uint32_t hpccd_nf_note(struct hpccd_nf *nf, const struct hpcc_tuple *t,
		       const struct hpcc_hop_rec *hops, uint8_t nhop,
		       uint64_t now)
{
	struct hpccd_nf_flow *f;
	uint32_t b, i, si, n = 0;
	uint8_t k, j;

	while (nf->lru_head != NF_NONE &&
	       now - nf->flows[nf->lru_head].seen >= nf->window_ns)
		nf_drop(nf, nf->lru_head);
	if (!nhop || nhop > HPCC_MAX_HOPS)
		return 0;
	b = nf_fbucket(nf, t);
	for (i = nf->fbuckets[b]; i != NF_NONE; i = nf->flows[i].hnext)
		if (tuple_eq(&nf->flows[i].t, t))
			break;
	if (i != NF_NONE) {
		nf_unlink(nf, i);
		nf_release_hops(nf, &nf->flows[i]);
	} else {
		/* a source at its share: the flow is not counted */
		si = nf_src_find(nf, t);
		if (si != NF_NONE && nf->srcs[si].count >= nf->per_source) {
			nf->over_source++;
			for (k = 0; k < nhop; k++) {
				i = nf_hop_count(nf, hops[k].switch_id,
						 hops[k].port_id);
				if (i > n)
					n = i;
			}
			return n;
		}
		if (nf->ffree == NF_NONE) {
			nf_drop(nf, nf->lru_head);
			nf->evicted++;
		}
		i = nf->ffree;
		nf->ffree = nf->flows[i].hnext;
		nf->flows[i].t = *t;
		nf->flows[i].src = nf_src_get(nf, t);
		nf->flows[i].hnext = nf->fbuckets[b];
		nf->fbuckets[b] = i;
		nf->nflows++;
	}
	f = &nf->flows[i];
	for (k = 0; k < nhop; k++) {
		/* a hop twice on one path (a loop) counts the flow once */
		for (j = 0; j < k; j++)
			if (hops[j].switch_id == hops[k].switch_id &&
			    hops[j].port_id == hops[k].port_id)
				break;
		if (j < k)
			continue;
		i = nf_hop_get(nf, hops[k].switch_id, hops[k].port_id);
		if (i == NF_NONE)
			continue;
		f->hop[f->nhop++] = i;
		if (nf->hops[i].count > n)
			n = nf->hops[i].count;
	}
	i = (uint32_t)(f - nf->flows);
	f->seen = now;
	f->prev = nf->lru_tail;
	f->next = NF_NONE;
	if (nf->lru_tail != NF_NONE)
		nf->flows[nf->lru_tail].next = i;
	else
		nf->lru_head = i;
	nf->lru_tail = i;
	return n;
}
