/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - hpccd's probe scheduler: the flows a sender probes, the
 * probe budget, probe timeouts with backoff, and the per-source limit on
 * responses.  Pure: no I/O, no clock of its own (every call takes "now" in
 * ns of CLOCK_MONOTONIC), so selftests/unit/sched_test.c drives it directly.
 * Documentation/daemon.rst, "Scheduling".
 *
 * Cost: lookups are O(1) (hash of the 4-tuple, seeded), deadlines sit in a
 * binary heap (O(log n) per probe sent, answered or timed out), and the
 * budget queue is a FIFO; nothing walks all flows except the statistics and
 * reconciliation after a dump, so the daemon's CPU grows with the probes
 * it sends, not with the flows it knows.
 */
#ifndef _HPCCD_SCHED_H
#define _HPCCD_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "hpcc_wire.h"
#include "config.h"	/* HPCCD_PIPE_MAX */

/**
 * enum hpccd_flow_state - where a flow is in its probe cycle
 * @HPCCD_IDLE: no probe wanted (no data in flight, as far as we know)
 * @HPCCD_QUEUED: wants a probe, waiting for a budget token
 * @HPCCD_OUTSTANDING: one probe or more is out; the deadline is the
 *	oldest one's timeout, or when the next pipelined probe is due if
 *	that is sooner (hpccd_sched_pipeline())
 * @HPCCD_BACKOFF: the last probe was lost or its telemetry refused; the
 *	deadline is when to ask the module again
 * @HPCCD_ASKING: the module was asked whether the flow has data in flight
 *	(a flow-get that hpccd does not wait for); the deadline is when to
 *	ask again if no reply came
 */
enum hpccd_flow_state {
	HPCCD_IDLE,
	HPCCD_QUEUED,
	HPCCD_OUTSTANDING,
	HPCCD_BACKOFF,
	HPCCD_ASKING,
};

/**
 * struct hpccd_flow - a flow this host sends on, as the module reported it
 * @t: its 4-tuple, as the sender sees it (network order)
 * @state: enum hpccd_flow_state
 * @out_id: ids of the probes out (random, 64 bits), oldest first
 * @out_sent: when each was sent
 * @nout: how many are out, 0..HPCCD_PIPE_MAX (0 unless OUTSTANDING)
 * @next_ns: while OUTSTANDING, when another probe may follow the last one
 *	(hpccd_sched_pipeline()): one interval after it
 * @deadline_ns: timeout or backoff end (OUTSTANDING, BACKOFF), or when to
 *	ask again (ASKING)
 * @srtt_us: the module's smoothed RTT of the flow, us
 * @in_flight: the module last said the flow had data in flight (event,
 *	dump, flow-get or telemetry-set reply); a response is followed by the
 *	next probe at once while this is set
 * @ccm_cc: the flow's CC indicator (CCM section 6.1), as the module last
 *	said (flow-active, flow-get): its probes carry HPCC_WIRE_EXT_CCM
 * @rx_retry_ns: the receiver refused receiver-based HPCC for the flow
 *	(HPCC_WIRE_MODE_REFUSED): its probes do not ask again before this
 *	(hpccd_rx_ask()); 0: they ask
 * @rx_refusals: refusals in a row (hpccd_rx_refused())
 * @losses_in_row: probes lost (or refused) since the last good response;
 *	each doubles the timeout, up to 2^10
 * @rtt_ns: smoothed probe RTT (1/8 EWMA), ns
 * @probes: probes sent
 * @responses: responses matched
 * @lost: probes that timed out
 * @mark: reconciliation generation in which the module last listed it
 * @ask_tag: while ASKING, the tag of the question (hpccd_ask()): the
 *	flow-get's sequence number
 * @heap_idx: position in the deadline heap, -1 when not in it
 * @hnext: hash chain
 * @all: list of all flows
 * @q: budget queue, while QUEUED
 */
struct hpccd_flow {
	struct hpcc_tuple t;
	uint8_t state;
	uint8_t nout;
	uint64_t out_id[HPCCD_PIPE_MAX];
	uint64_t out_sent[HPCCD_PIPE_MAX];
	uint64_t next_ns;
	uint64_t deadline_ns;
	uint32_t srtt_us;
	bool in_flight;
	bool ccm_cc;
	uint64_t rx_retry_ns;
	uint8_t rx_refusals;
	uint32_t losses_in_row;
	uint64_t rtt_ns;
	uint64_t probes, responses, lost;
	uint32_t mark;
	uint32_t ask_tag;
	int heap_idx;
	struct hpccd_flow *hnext;
	LIST_ENTRY(hpccd_flow) all;
	TAILQ_ENTRY(hpccd_flow) q;
};

/**
 * struct hpccd_sched - the scheduler's state
 * @budget: probes per second, all flows (probe-budget)
 * @timeout_min_ns: lower bound of a probe's timeout (timeout-min-us)
 * @timeout_max_ns: upper bound, backoff included (timeout-max-us)
 * @tokens: budget tokens, in 1/1e9 probe (integer arithmetic)
 * @tokens_at: last refill
 * @seed: hash seed
 * @buckets: hash buckets, @nbuckets (a power of 2) of them
 * @nflows: flows known
 * @max_flows: refuse to learn more (max-flows)
 * @heap: flows with a deadline, earliest first; @heap_len used of @heap_cap
 * @flows: all flows
 * @queue: flows waiting for a token, in order
 * @mark: current reconciliation generation
 * @pipeline: probes a flow may have out at once, 1..HPCCD_PIPE_MAX
 *	(probe-pipeline; hpccd_sched_pipeline())
 * @pipe_deferred: pipelined probes not sent for want of a token
 */
struct hpccd_sched {
	uint32_t budget;
	uint64_t timeout_min_ns, timeout_max_ns;
	uint64_t tokens;
	uint64_t tokens_at;
	uint64_t seed;
	struct hpccd_flow **buckets;
	uint32_t nbuckets;
	uint32_t nflows;
	uint32_t max_flows;
	struct hpccd_flow **heap;
	uint32_t heap_len, heap_cap;
	LIST_HEAD(, hpccd_flow) flows;
	TAILQ_HEAD(, hpccd_flow) queue;
	uint32_t mark;
	uint8_t pipeline;
	uint64_t pipe_deferred;
};

/* One probe in the token bucket's units. */
#define HPCCD_TOKEN 1000000000ULL

/**
 * hpccd_sched_init() - an empty scheduler
 * @s: the scheduler
 * @budget: probes per second, 1..10,000,000
 * @timeout_min_us: 100..10,000,000
 * @timeout_max_us: @timeout_min_us..10,000,000
 * @max_flows: flows to know at most, 1..2^24
 * @seed: hash seed (random)
 * @now: ns
 * Return: 0, or -ENOMEM.
 */
int hpccd_sched_init(struct hpccd_sched *s, uint32_t budget,
		     uint32_t timeout_min_us, uint32_t timeout_max_us,
		     uint32_t max_flows, uint64_t seed, uint64_t now);

/** hpccd_sched_set() - new budget, timeouts and flow limit (SIGHUP) */
void hpccd_sched_set(struct hpccd_sched *s, uint32_t budget,
		     uint32_t timeout_min_us, uint32_t timeout_max_us,
		     uint32_t max_flows);

/**
 * hpccd_sched_pipeline() - probes a flow may have out at once (the
 * probe-pipeline setting; 1 at init)
 * @s: the scheduler
 * @depth: 1..HPCCD_PIPE_MAX (clamped)
 *
 * With 1, a flow's next probe leaves when the response to the last comes
 * (or after its timeout): the sample interval is the probe's round trip,
 * both hosts' daemons included.  With more, a flow with data in flight
 * also sends a probe one interval (its srtt, the module's; the probe RTT
 * until that is known) after the last one while fewer than @depth are
 * out, each taking a budget token (none: that slot is skipped, counted in
 * @pipe_deferred), so the interval approaches one RTT however long the
 * daemons take; a lost probe costs its own sample only, the flow going
 * idle (and asking the module) only when none is left out.
 */
void hpccd_sched_pipeline(struct hpccd_sched *s, uint32_t depth);

/** hpccd_sched_free() - forget every flow and free everything */
void hpccd_sched_free(struct hpccd_sched *s);

/** hpccd_sched_clear() - forget every flow */
void hpccd_sched_clear(struct hpccd_sched *s);

/** hpccd_flow_find() - the flow with tuple @t, or NULL */
struct hpccd_flow *hpccd_flow_find(const struct hpccd_sched *s,
				   const struct hpcc_tuple *t);

/**
 * hpccd_flow_add() - the flow with tuple @t, learnt if new
 * @s: the scheduler
 * @t: the tuple
 * @created: set to whether it is new (may be NULL)
 * Return: the flow; NULL when @max_flows are known or memory is short.
 */
struct hpccd_flow *hpccd_flow_add(struct hpccd_sched *s,
				  const struct hpcc_tuple *t, bool *created);

/** hpccd_flow_remove() - forget @f (its probes out, deadline and queue slot) */
void hpccd_flow_remove(struct hpccd_sched *s, struct hpccd_flow *f);

/**
 * hpccd_want() - @f has data in flight and wants a probe
 *
 * A flow being asked about (HPCCD_ASKING) is taken as idle: the module
 * has just said it sends (a flow-active event), and the reply, when it
 * comes, finds the probe out.
 *
 * Return: true when the caller is to send one now (a token was taken; call
 * hpccd_sent() next); false when it is already outstanding, waits for a
 * token (hpccd_next_queued() hands it out) or is in backoff.
 */
bool hpccd_want(struct hpccd_sched *s, struct hpccd_flow *f, uint64_t now);

/**
 * hpccd_sent() - a probe with @probe_id went out for @f at @now; its
 * timeout is 2 x max(srtt, probe RTT) << losses_in_row, within the bounds
 */
void hpccd_sent(struct hpccd_sched *s, struct hpccd_flow *f,
		uint64_t probe_id, uint64_t now);

/**
 * hpccd_outstanding() - is @probe_id one of @f's probes out?
 * Return: true when @f is OUTSTANDING and @probe_id is among @f->out_id.
 */
bool hpccd_outstanding(const struct hpccd_flow *f, uint64_t probe_id);

/**
 * hpccd_response() - a response with @probe_id arrived for @f
 * Return: true when it answers one of the probes out (its RTT updates the
 * flow's, its losses reset; the flow becomes IDLE when it was the last
 * one out); false otherwise (nothing changes).
 */
bool hpccd_response(struct hpccd_sched *s, struct hpccd_flow *f,
		    uint64_t probe_id, uint64_t now);

/**
 * hpccd_backoff() - @f's telemetry was refused: count it as a loss and ask
 * again after the (doubled) timeout, not at once.  Every probe out (one
 * sent since the refused one, or a pipeline's) is abandoned: their
 * responses will not match.
 */
void hpccd_backoff(struct hpccd_sched *s, struct hpccd_flow *f, uint64_t now);

/* The wait after a refusal of receiver-based HPCC: 1 s, doubled at each
 * refusal in a row, at most 64 s.
 */
#define HPCCD_RX_RETRY_NS	1000000000ULL
#define HPCCD_RX_RETRY_SHIFT	6

/**
 * hpccd_tcp_state_flow() - does a TCP socket in @state (TCP_ESTABLISHED
 * ..., as inet_diag's idiag_state gives it) make its flow one of this
 * host's TCP flows (tcp-check)?
 * Return: true for the states of an accepted connection: ESTABLISHED,
 * FIN_WAIT1, FIN_WAIT2, CLOSE_WAIT, LAST_ACK and CLOSING (1, 4, 5, 8, 9,
 * 11); false for the rest: SYN_SENT and SYN_RECV (a SYN from anyone,
 * spoofed too, makes a request socket), NEW_SYN_RECV, TIME_WAIT, CLOSE,
 * LISTEN and unknown values.
 */
bool hpccd_tcp_state_flow(uint8_t state);

/**
 * hpccd_rx_ask() - may @f's probe sent at @now ask for receiver-based HPCC?
 * Return: true when no receiver refused it, or the wait after the last
 * refusal is over.
 */
bool hpccd_rx_ask(const struct hpccd_flow *f, uint64_t now);

/**
 * hpccd_rx_refused() - the receiver refused receiver-based HPCC for @f at
 * @now (HPCC_WIRE_MODE_REFUSED): ask again after HPCCD_RX_RETRY_NS <<
 * (refusals in a row - 1), at most << HPCCD_RX_RETRY_SHIFT.  A refusal may
 * be transient (the receiver's table full, its module's parameters not
 * yet read), so it never ends the asking; one that never runs it costs a
 * probe extension a minute.
 */
void hpccd_rx_refused(struct hpccd_flow *f, uint64_t now);

/** hpccd_rx_accepted() - the receiver runs it for @f: refusals reset */
void hpccd_rx_accepted(struct hpccd_flow *f);

/**
 * hpccd_send_blocked() - the probe hpccd_sent() just registered for @f did
 * not leave: the raw socket refused it for want of room (a stalled
 * egress).  It is not counted in @f->probes, and @f backs off as after a
 * loss (hpccd_backoff(): asked again after its doubled timeout), so a
 * stalled egress is tried at the backoff's pace, not at every response.
 */
void hpccd_send_blocked(struct hpccd_sched *s, struct hpccd_flow *f,
			uint64_t now);

/**
 * hpccd_ask() - the module is being asked about idle @f (a flow-get whose
 * reply hpccd reads later), the question tagged @tag (its sequence
 * number): until the reply, @f is HPCCD_ASKING with a deadline of its
 * timeout (2 x max(srtt, probe RTT), doubled for each loss in a row,
 * within the bounds: timeout-min-us, timeout-max-us; no loss counted),
 * after which hpccd_next_expired() hands it back to be asked again, so a
 * lost reply does not leave it idle for good.  Nothing changes for a flow
 * that is not idle.
 * Return: true when @f is now HPCCD_ASKING.
 */
bool hpccd_ask(struct hpccd_sched *s, struct hpccd_flow *f, uint64_t now,
	       uint32_t tag);

/**
 * hpccd_answered() - the reply to question @tag about @f came
 *
 * When @f is still HPCCD_ASKING for @tag it is idle again, its deadline
 * dropped, and the caller takes what the reply says (in-flight, srtt) and
 * calls hpccd_want() if it has data in flight.  A late reply (@f was
 * probed since, after a flow-active, or asked again after the deadline)
 * changes nothing: what it says predates what hpccd knows now.
 *
 * Return: true when the reply is current (@f was HPCCD_ASKING for @tag).
 */
bool hpccd_answered(struct hpccd_sched *s, struct hpccd_flow *f,
		    uint32_t tag);

/**
 * hpccd_next_queued() - a queued flow that may send now (token taken), or
 * NULL; call hpccd_sent() for it
 */
struct hpccd_flow *hpccd_next_queued(struct hpccd_sched *s, uint64_t now);

/**
 * enum hpccd_due - what hpccd_next_due() found due
 * @HPCCD_DUE_LOST: the flow's last probe out timed out (counted lost,
 *	losses_in_row + 1): it is IDLE; ask the module whether it still has
 *	data in flight, then hpccd_want()
 * @HPCCD_DUE_IDLE: a BACKOFF flow's wait, or an ASKING flow's for its
 *	reply, is over: it is IDLE; ask the module, as above
 * @HPCCD_DUE_LOST_ONE: the oldest of the flow's probes out timed out
 *	(counted lost); others are still out, so it stays OUTSTANDING
 * @HPCCD_DUE_PROBE: a pipelined probe is due and its token taken: send
 *	one (hpccd_sent())
 */
enum hpccd_due {
	HPCCD_DUE_LOST,
	HPCCD_DUE_IDLE,
	HPCCD_DUE_LOST_ONE,
	HPCCD_DUE_PROBE,
};

/**
 * hpccd_next_due() - a flow whose deadline has passed, and what is due
 * (enum hpccd_due, in *@what), or NULL
 */
struct hpccd_flow *hpccd_next_due(struct hpccd_sched *s, uint64_t now,
				  enum hpccd_due *what);

/**
 * hpccd_next_expired() - hpccd_next_due() without pipelining: a flow whose
 * deadline has passed, or NULL.  Only with a pipeline depth of 1: with more
 * it may hand out a flow that must send (HPCCD_DUE_PROBE, its token taken,
 * out of the heap) or that stays OUTSTANDING (HPCCD_DUE_LOST_ONE).
 *
 * An OUTSTANDING flow's probe is counted lost (losses_in_row + 1, *@lost
 * true); a BACKOFF flow's wait, or an ASKING flow's for its reply, is over
 * (*@lost false).  Either becomes IDLE: the caller asks the
 * module whether it still has data in flight and calls hpccd_want().
 */
struct hpccd_flow *hpccd_next_expired(struct hpccd_sched *s, uint64_t now,
				       bool *lost);

/**
 * hpccd_next_wakeup() - when the caller must call in again: the earliest
 * deadline, or (with flows queued) when the next token arrives
 * Return: ns of CLOCK_MONOTONIC, or 0 when nothing is pending.
 */
uint64_t hpccd_next_wakeup(struct hpccd_sched *s, uint64_t now);

/** hpccd_queued() - flows waiting for a token */
uint32_t hpccd_queued(const struct hpccd_sched *s);

/**
 * hpccd_reconcile_begin() - start a reconciliation: every flow the module
 * lists next is passed to hpccd_flow_add() (which marks it) ...
 */
void hpccd_reconcile_begin(struct hpccd_sched *s);

/**
 * hpccd_reconcile_end() - ... and the flows it did not list are forgotten
 * Return: how many were forgotten.
 */
uint32_t hpccd_reconcile_end(struct hpccd_sched *s);

/**
 * hpccd_reconcile_unseen() - ... or, after a dump that may have missed
 * flows (NLM_F_DUMP_INTR), @fn is called on each flow it did not list,
 * which @fn may remove (hpccd_flow_remove()) but no other flow
 * Return: how many flows @fn was called on.
 */
uint32_t hpccd_reconcile_unseen(struct hpccd_sched *s,
				void (*fn)(struct hpccd_flow *f, void *data),
				void *data);

/**
 * struct hpccd_rl - per-source token buckets for responses
 * @rate: responses per second per source (response-rate): an IPv4 address
 *	or an IPv6 /64
 * @slots: the buckets, @nslots (a power of 2) of them, 4-way associative
 * @seed: hash seed
 * @crowded: responses refused because the source was not in the table and
 *	no way of its set could be given to it (counted by hpccd)
 *
 * A source not in the table has a full bucket.  It takes the way of its set
 * that was used least recently, if that way's bucket has refilled to its
 * burst (forgetting it then loses nothing); when all four are still
 * refilling, the new source is refused.  So a flood of other sources never
 * hands a busy source a fresh bucket: its tokens are those its own rate
 * gave it.
 */
struct hpccd_rl {
	uint32_t rate;
	uint64_t crowded;
	struct hpccd_rl_slot {
		uint64_t hi, lo;	/* the source's key (rl_key()) */
		uint64_t tokens;	/* in 1/1e9 response */
		uint64_t at;
	} *slots;
	uint32_t nslots;
	uint64_t seed;
};

/**
 * hpccd_rl_init() - @nslots (a power of 2, >= 4) buckets of @rate per second
 * (1..10,000,000); burst: 10 ms of @rate, at least 8
 * Return: 0 or -ENOMEM.
 */
int hpccd_rl_init(struct hpccd_rl *rl, uint32_t rate, uint32_t nslots,
		  uint64_t seed);

/** hpccd_rl_free() - free the table */
void hpccd_rl_free(struct hpccd_rl *rl);

/**
 * hpccd_rl_allow() - may a response go to @addr at @now?
 * @rl: the buckets
 * @family: AF_INET or AF_INET6
 * @addr: the probe's source, network order: 4 or 16 bytes by @family; an
 *	IPv6 source shares the bucket of its /64
 * @now: ns, CLOCK_MONOTONIC
 * Return: true, and a token is taken; false when its bucket is empty, or
 * when it has none in the table and no way of its set is free (@crowded).
 */
bool hpccd_rl_allow(struct hpccd_rl *rl, int family, const void *addr,
		    uint64_t now);

/**
 * struct hpccd_budget - the namespace-wide bound on responses: one token
 * bucket of responses and one of bytes, for all sources together, so that
 * what a flood of spoofed sources draws from this host is bounded however
 * the sources are spread (the per-source limit, struct hpccd_rl, bounds
 * what one victim receives)
 * @rate: responses per second (response-budget), 1..10,000,000
 * @byte_rate: bytes per second, IP headers included (response-budget-
 *	bytes), 1,500..1,000,000,000
 * @tokens: responses, in 1/1e9 response; @bytes: bytes, in 1/1e9 byte
 * @at: last refill, ns
 * @over: responses refused for want of a response token
 * @over_bytes: responses refused for want of bytes
 *
 * Burst: 10 ms of each rate, at least 8 responses and 8 x HPCC_PKT_MAX
 * bytes.
 */
struct hpccd_budget {
	uint32_t rate;
	uint32_t byte_rate;
	uint64_t tokens, bytes;
	uint64_t at;
	uint64_t over, over_bytes;
};

/** hpccd_budget_init() - full buckets of @rate and @byte_rate at @now */
void hpccd_budget_init(struct hpccd_budget *b, uint32_t rate,
		       uint32_t byte_rate, uint64_t now);

/** hpccd_budget_set() - new rates (SIGHUP); the buckets keep what they
 * hold, up to the new bursts
 */
void hpccd_budget_set(struct hpccd_budget *b, uint32_t rate,
		      uint32_t byte_rate);

/**
 * hpccd_budget_take() - take one response's token at @now (before any
 * work is done for the probe: route lookups included)
 * Return: true; false when there is none (@over counts it).
 */
bool hpccd_budget_take(struct hpccd_budget *b, uint64_t now);

/**
 * hpccd_budget_bytes() - take @len bytes for a response built at @now
 * Return: true; false when fewer are left (@over_bytes counts it).
 */
bool hpccd_budget_bytes(struct hpccd_budget *b, uint32_t len, uint64_t now);

/**
 * struct hpccd_tc - tcp-check's cache: whether a probe's flow (its
 * 5-tuple: family, addresses, ports; not the flow label) has a TCP
 * connection here, as the last socket lookup said
 * @seed: hash seed (random: a sender cannot pick tuples that share a set)
 * @slot: HPCCD_TC_SLOTS entries, in sets of HPCCD_TC_WAYS
 *
 * A verdict is fresh for HPCCD_TC_TTL_NS.  A "known" one is kept, stale,
 * for HPCCD_TC_KEEP_NS after that: no "unknown" verdict may take its slot
 * meanwhile, so a flood of made-up tuples cannot evict this host's real
 * flows (whose probes skip the response budget: hpccd.c, on_probe()).
 * Known flows share a set without evicting each other until more than
 * HPCCD_TC_WAYS of them fall in one (then the oldest verdict goes): 8
 * ways of 4,096 sets hold 2,000 flows with about one set in a million
 * full, 10,000 with a few sets full (a direct-mapped table of 4,096
 * slots left about a fifth of 2,000 flows sharing a slot).  2 MiB.
 */
#define HPCCD_TC_SLOTS		32768
#define HPCCD_TC_WAYS		8
#define HPCCD_TC_TTL_NS		1000000000ULL
#define HPCCD_TC_KEEP_NS	10000000000ULL
struct hpccd_tc {
	uint64_t seed;
	struct hpccd_tc_slot {
		struct hpcc_tuple t;
		bool known;
		uint64_t at;
	} slot[HPCCD_TC_SLOTS];
};

/** enum hpccd_tc_res - hpccd_tc_get()'s answer */
enum hpccd_tc_res {
	HPCCD_TC_MISS,		/* no verdict: look it up */
	HPCCD_TC_KNOWN,		/* a connection, fresh */
	HPCCD_TC_UNKNOWN,	/* none, fresh */
	HPCCD_TC_STALE_KNOWN,	/* a connection, stale: look it up again */
};

/** hpccd_tc_init() - an empty cache with hash @seed */
void hpccd_tc_init(struct hpccd_tc *c, uint64_t seed);

/** hpccd_tc_get() - the verdict on @t at @now (enum hpccd_tc_res) */
enum hpccd_tc_res hpccd_tc_get(const struct hpccd_tc *c,
			       const struct hpcc_tuple *t, uint64_t now);

/**
 * hpccd_tc_put() - a socket lookup at @now said @t is (@known) or is not a
 * flow of this host's
 *
 * @t's own slot in its set is updated; otherwise a free or expired slot
 * is taken, then the oldest "unknown" verdict's, and for a "known"
 * verdict the oldest "known" one's.  An "unknown" verdict is not kept
 * when every way holds another flow's "known" one younger than
 * HPCCD_TC_TTL_NS + HPCCD_TC_KEEP_NS.
 */
void hpccd_tc_put(struct hpccd_tc *c, const struct hpcc_tuple *t, bool known,
		  uint64_t now);

/**
 * struct hpccd_nb - the gate on neighbour lookups of on-link probe sources
 * (RTM_GETNEIGH takes RTNL) and on responses that create a neighbour entry
 * @tokens: HPCCD_NB_RATE per second (burst 8), for all sources together:
 *	a source without a cached neighbour verdict takes one before its
 *	lookup, and a source cached as having no entry one per response
 * @stall_until: no lookup before this, ns: the last one had no reply
 *	(RTNL held elsewhere), so a flood cannot make every probe wait
 * @lookups, @refreshes, @refused, @stalled: counts (hpccd's counters)
 *
 * Each response to a source without an entry creates one (incomplete until
 * resolved, failed after about 3 s, then collected), so at HPCCD_NB_RATE a
 * flood of spoofed on-link sources keeps a few dozen at most, far below
 * the default gc_thresh3 (1024).
 *
 * So a flood of spoofed on-link sources costs at most 8 + HPCCD_NB_RATE
 * lookups a second, each waiting at most the socket's timeout, and no
 * lookup for HPCCD_NB_STALL_NS after one that timed out; it creates at
 * most as many neighbour entries.  A source whose cached verdict was
 * "has an entry" (it was answered) is refreshed without a token when the
 * verdict expires, so on-link peers already known are never starved;
 * during a stall it keeps that verdict.
 */
#define HPCCD_NB_RATE		10
#define HPCCD_NB_STALL_NS	1000000000ULL
struct hpccd_nb {
	struct hpccd_budget tokens;
	uint64_t stall_until;
	uint64_t lookups, refreshes, refused, stalled;
};

/** enum hpccd_nb_act - hpccd_nb_lookup()'s answer */
enum hpccd_nb_act {
	HPCCD_NB_LOOKUP,	/* look it up now (token taken, or a refresh) */
	HPCCD_NB_KEEP,		/* stalled: keep the stale "has an entry" */
	HPCCD_NB_REFUSE,	/* no token or stalled: refuse the probe */
};

/** hpccd_nb_init() - a full bucket at @now, no stall */
void hpccd_nb_init(struct hpccd_nb *g, uint64_t now);

/**
 * hpccd_nb_lookup() - may a source without a fresh neighbour verdict be
 * looked up at @now?
 * @refresh: its expired cached verdict was "has an entry"
 * Return: enum hpccd_nb_act.
 */
enum hpccd_nb_act hpccd_nb_lookup(struct hpccd_nb *g, bool refresh,
				  uint64_t now);

/** hpccd_nb_timed_out() - a lookup at @now had no reply: stall */
void hpccd_nb_timed_out(struct hpccd_nb *g, uint64_t now);

/**
 * hpccd_nb_answer_new() - may a source cached as having no neighbour entry
 * be answered at @now (the response creates one)?
 * Return: true, a token taken; false (@refused counts it).
 */
bool hpccd_nb_answer_new(struct hpccd_nb *g, uint64_t now);

/**
 * struct hpccd_nf - the receiver's count of concurrent flows per hop, for
 * the N it reports in responses (HPCC_WIRE_EXT_N_FLOWS; draft-miao-ccwg-
 * hpcc section 5: "N is the expected or receiver reported maximum number
 * of concurrent flows on a link")
 * @window_ns: a flow counts while its last probe is younger than this
 * @max: most flows tracked; a new flow beyond it evicts the least recent
 * @nflows: flows tracked now
 * @evicted: flows evicted early for room (counted by hpccd)
 * @per_source: flows one source (an IPv4 address, an IPv6 /64, the key of
 *	struct hpccd_rl) counts for at most, 1..@max (hpccd_nf_init() sets
 *	@max; the caller may lower it): a new flow beyond it is not counted
 * @over_source: probes of new flows not counted for that (counted by
 *	hpccd)
 * @seed: hash seed
 * @flows: the flow pool, @max entries; @hops: the hop pool, @max *
 *	HPCC_MAX_HOPS entries (a flow holds at most that many hops, so the
 *	pool never runs out)
 * @fbuckets: flow hash heads; @hbuckets: hop hash heads; @nbuckets of
 *	each (a power of 2)
 * @ffree, @hfree: free lists; @lru_head, @lru_tail: flows by last probe
 * @srcs: the source pool, @max entries (a flow holds one); @sbuckets: its
 *	hash heads, @nbuckets; @sfree: its free list
 *
 * A flow is its 4-tuple; its hops are the (switch_id, port_id) of its last
 * probe's records.  N for a probe is the largest count among its hops:
 * the most flows this receiver answers that share one link of the path.
 * It cannot see flows to other receivers on a shared link, so it is exact
 * for the last hop and a lower bound elsewhere (Documentation/algorithm.rst,
 * "Receiver-reported N").  One source's flows count for at most
 * @per_source, so a host that opens many connections, or sends probes for
 * many ports, cannot make N large for everyone else.  Cost per probe:
 * O(nhop) hash operations, plus the expiry of older flows (amortized
 * O(1)).
 */
struct hpccd_nf {
	uint64_t window_ns;
	uint32_t max;
	uint32_t nflows;
	uint64_t evicted;
	uint32_t per_source;
	uint64_t over_source;
	uint64_t seed;
	struct hpccd_nf_flow {
		struct hpcc_tuple t;
		uint64_t seen;
		uint32_t src;
		uint32_t hnext, prev, next;
		uint8_t nhop;
		uint32_t hop[HPCC_MAX_HOPS];
	} *flows;
	struct hpccd_nf_hop {
		uint32_t switch_id, port_id;
		uint32_t count;
		uint32_t hnext;
	} *hops;
	struct hpccd_nf_src {
		uint64_t hi, lo;
		uint32_t count;
		uint32_t hnext;
	} *srcs;
	uint32_t *fbuckets, *hbuckets, *sbuckets;
	uint32_t nbuckets;
	uint32_t ffree, hfree, sfree, lru_head, lru_tail;
};

/**
 * hpccd_nf_init() - a counter of up to @max flows (1..1048576) over a
 * window of @window_ns (> 0)
 * Return: 0, -EINVAL or -ENOMEM.
 */
int hpccd_nf_init(struct hpccd_nf *nf, uint32_t max, uint64_t window_ns,
		  uint64_t seed);

/** hpccd_nf_free() - free the tables */
void hpccd_nf_free(struct hpccd_nf *nf);

/**
 * hpccd_nf_note() - a probe of flow @t with records @hops arrived at @now
 * (non-decreasing); it counts on each of its hops from now until @window_ns
 * after its last probe
 * Return: N for the response: the largest count among the probe's hops,
 * 1..@max; 0 when @nhop is 0 (no hop to count on).  A new flow of a source
 * that has @per_source flows already is not counted (@over_source): N is
 * then the counts of its hops without it, 0 when none has a flow.
 */
uint32_t hpccd_nf_note(struct hpccd_nf *nf, const struct hpcc_tuple *t,
		       const struct hpcc_hop_rec *hops, uint8_t nhop,
		       uint64_t now);

#endif /* _HPCCD_SCHED_H */
