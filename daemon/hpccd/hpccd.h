/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpccd.h - hpccd's state (struct hpccd, one per shard: D), its
 * counters and limits, and what each of its files gives the others.
 * Private to daemon/hpccd/: the units that tests and hpccctl share
 * (config.h, sched.h, rx.h, xmit.h) have their own headers.
 */
#ifndef _HPCCD_H
#define _HPCCD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <time.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <libmnl/libmnl.h>

#include "hpcc_auth.h"
#include "hpcc_decode.h"
#include "hpcc_genl.h"
#include "hpcc_wire.h"
#include "config.h"
#include "fanout.h"
#include "rx.h"
#include "sched.h"
#include "xmit.h"

/* Daemon counters (SIGUSR1, exit); Documentation/daemon.rst lists them. */
enum {
	C_FLOWS_ADDED, C_FLOWS_REMOVED, C_PROBES_SENT, C_PROBES_TIMED_OUT,
	C_PROBES_DEFERRED, C_PROBES_RECEIVED, C_PROBES_NOT_LOCAL,
	C_RESPONSES_SENT, C_RESPONSES_RECEIVED, C_RESPONSES_UNEXPECTED,
	C_RESPONSES_NO_HOPS, C_RESPONSES_BAD_HOP, C_TELEMETRY_PUSHED,
	C_TELEMETRY_REJECTED, C_SEND_ERRORS, C_BAD_DSCP, C_EVENTS,
	C_RECONNECTS, C_SOCKET_DROPS, C_PROBES_NOT_UNICAST,
	C_PROBES_BAD_SOURCE, C_RESPONSES_RATE_LIMITED, C_RESYNCS,
	C_RECONCILES, C_FLOWS_RECONCILED, C_FLOWS_OVER_LIMIT, C_FLOWS_GONE,
	C_PUSH_REPLIES_LOST, C_RESPONSES_WITH_N, C_N_FLOWS_EVICTED,
	C_IPV6_IGNORED, C_PROBES_IOAM, C_IOAM_TRACES, C_IOAM_REFUSED,
	C_IOAM_OVERFLOW, C_RESPONSES_NO_RATE, C_PROBES_INT_MD, C_INT_MD_STACKS,
	C_INT_MD_REFUSED, C_INT_MD_INCOMPLETE, C_PROBES_IFA, C_IFA_STACKS,
	C_IFA_REFUSED, C_IFA_NO_RATE, C_IFA_OTHER_PROTOCOL, C_HOPS_SKIPPED,
	C_DUMPS_INTERRUPTED, C_PROBES_FCR, C_PROBES_CC, C_PROBES_AR,
	C_PROBES_RX, C_RX_ASKED, C_RX_W_SENT, C_RX_REFUSED, C_RX_FULL,
	C_RX_INVALID, C_RESPONSES_PRIVATE, C_RESPONSES_SIGNED,
	C_RESPONSES_RX, C_RESPONSES_RX_W, C_RESPONSES_RX_REFUSED,
	C_AUTH_OK, C_AUTH_OK_RETIRED, C_AUTH_MISSING, C_AUTH_UNKNOWN_KEY,
	C_AUTH_BAD, C_KEYS_RETIRED, C_U_SENT, C_U_KEPT, C_U_UNAVAILABLE,
	C_RESPONSES_U, C_RESPONSES_U_VALUE, C_NKEYS_PUSHED,
	C_NKEYS_PUSH_FAILED, C_NL_SKIPPED, C_SEND_BLOCKED, C_FLOW_GETS,
	C_FLOW_GETS_FAILED, C_NL_ROUND_TRIPS, C_FAMILY_LOOKUPS,
	C_FAMILY_LOOKUPS_FAILED, C_AUTH_PERMITTED, C_RESPONSES_RL_CROWDED,
	C_RESPONSES_OVER_BUDGET, C_RESPONSES_OVER_BYTES, C_PROBES_RP_FAILED,
	C_PROBES_NO_NEIGHBOUR, C_LOOKUPS_FAILED, C_RESPONSE_BYTES, C_LOOKUPS,
	C_RESPONSES_TOO_LARGE, C_PROBES_NO_TCP, C_N_FLOWS_OVER_SOURCE,
	C_TCP_LOOKUPS, C_TCP_LOOKUPS_FAILED, C_PROBES_LOOKUP_FAILED,
	C_NEIGH_LOOKUPS, C_NEIGH_STALLS, C_PROBES_RP_NH,
	C_PROBES_OWN_FLOW, C_TCP_DUMPS, C_TCP_FLOWS_LEARNED,
	C_PACKETS_TRUNCATED, C_PROBES_PIPE_SKIPPED, C_TELEMETRY_REPLIES,
	C_RESPONSES_OTHER_SHARD,
	C_PARSE_BASE,
	C_NUM = C_PARSE_BASE + HPCC_PARSE_NUM
};

/*
 * Telemetry pushes and flow-gets that hpccd does not wait for: one batch
 * of requests per burst of responses (its buffer holds twice the limit:
 * libmnl's batch lets the last message pass the limit), and the sequence
 * numbers of the last PUSH_RING requests, to find the flow a reply or an
 * error reply is about.
 */
#define PUSH_BATCH	8192
#define PUSH_RING	1024

/*
 * The receiver's lookups: route types of probes' destinations (this host's
 * addresses: few) and reverse-path verdicts of their sources (many), in
 * two caches, so a flood of sources cannot evict the destinations; and
 * how long one lookup may wait for the kernel's reply.
 */
#define ADDR_CACHE 256
#define ADDR_CACHE_NS 5000000000ULL
#define SRC_CACHE 1024
#define SRC_CACHE_NS 1000000000ULL
#define RT_TIMEOUT_US 20000
/* the VRF of an interface probes come in on (vrf_of()): few, from the
 * kernel, not from the wire
 */
#define LINK_CACHE 64
#define LINK_CACHE_NS 10000000000ULL

/**
 * struct hpccd_loop - the event loop (main.c)
 * @timer_fd: one-shot CLOCK_MONOTONIC timer at the next deadline
 * @sig_fd: signalfd (shard 0's; -1 in the others)
 * @ctl_fd: eventfd of shard.c's commands (the other shards'; -1 in
 *	shard 0)
 * @ep_fd: epoll
 * @timer_at: when @timer_fd fires, 0 when disarmed
 * @woke_at: when it last fired
 *
 * main.c opens, writes and reads all of it.
 */
struct hpccd_loop {
	int timer_fd, sig_fd, ctl_fd, ep_fd;
	uint64_t timer_at, woke_at;
};

/**
 * struct hpccd_io - the packet sockets, probes and responses both ways
 * @raw_fd: raw IPv4 socket, IP_HDRINCL, for sending
 * @raw6_fd: raw IPv6 socket, IPPROTO_RAW (the header included), for
 *	sending; -1 on a host without IPv6 (its IPv6 flows are counted as
 *	ipv6-ignored)
 * @pkt_fd: AF_PACKET socket for IPv4 with the DSCP filter, for receiving
 * @pkt6_fd: the same for IPv6; -1 with @raw6_fd
 * @ip_id: IPv4 identification of the next packet sent
 * @filter_on: the packet sockets have their filters (attach_filter())
 * @filter_of: the probe, response and INT DSCPs and ifa-protocol they match
 * @ids: probe ids drawn ahead (hpccd_probe_id())
 * @rxb: the packets of the last read (hpccd_recv_batch())
 * @tx4: probes and responses waiting for @raw_fd (hpccd_tx_queue())
 * @tx6: the same for @raw6_fd
 *
 * main.c opens the sockets, reads them and has the batches sent before
 * it waits for events again (tx_flush()); link.c's attach_filter() writes
 * @filter_on and @filter_of; sender.c and responder.c queue packets, each
 * advancing @ip_id.
 */
struct hpccd_io {
	int raw_fd, raw6_fd, pkt_fd, pkt6_fd;
	uint16_t ip_id;
	bool filter_on;
	uint8_t filter_of[4];
	struct hpccd_id_pool ids;
	struct hpccd_rx_batch rxb;
	struct hpccd_tx_batch tx4, tx6;
};

/**
 * struct hpccd_link - the module link (link.c)
 * @req: netlink requests to the module (blocking, 1 s timeout)
 * @ev: the module's events and nlctrl's notifications
 * @probe_dscp: from the module's parameters (64 until known: matches none)
 * @response_dscp: same
 * @int_dscp: same, INT-MD probes' (the probe DSCP from a module without
 *	int-dscp)
 * @ifa_protocol: the module's ifa-protocol, the IP protocol (IPv6: next
 *	header) of IFA probes (HPCC_IFA_PROTOCOL until it is read)
 * @reconcile_at: when the next flow dump is due
 * @resync_pending: events were lost; the next dump drains the event queue
 *	and looks the family up first (kept until that lookup succeeds)
 * @lookup_retry_ns: the wait before the next family lookup after a failed
 *	one or while the module is away (lookup_later()), 0 after a success
 * @dump_end: when the last flow dump ended
 * @dump_ns: how long it took (the gap before a resync scales with it)
 *
 * link.c writes it; main.c opens @req and @ev and sets the DSCPs to 64
 * before the module's parameters are read (module_params()).  The others
 * read the DSCPs and @ifa_protocol to build and classify packets.
 */
struct hpccd_link {
	struct hpcc_genl req, ev;
	uint8_t probe_dscp, response_dscp, int_dscp, ifa_protocol;
	uint64_t reconcile_at;
	bool resync_pending;
	uint64_t lookup_retry_ns;
	uint64_t dump_end, dump_ns;
};

/**
 * struct hpccd_push - telemetry pushes and flow-gets hpccd does not wait
 *	for (push.c)
 * @genl: telemetry-set and flow-get requests, in batches, replies read
 *	from the loop
 * @batch: the batch being filled (read_packets() and on_timer() send it)
 * @buf: its buffer
 * @ring: sequence number and flow of recent requests on @genl, by
 *	seq % PUSH_RING, and whether it was a flow-get (@ask)
 * @npush: telemetry requests in @batch
 *
 * push.c writes it; main.c opens and closes @genl.
 */
struct hpccd_push {
	struct hpcc_genl genl;
	struct mnl_nlmsg_batch *batch;
	unsigned int npush;
	char buf[2 * PUSH_BATCH];
	struct {
		uint32_t seq;
		bool ask;
		struct hpcc_tuple t;
	} ring[PUSH_RING];
};

/**
 * struct hpccd_keys - the MAC keys
 * @ring: the MAC keys (auth-key-file) and those a reload retired, in
 *	sodium_malloc() memory (locked, guarded, left out of core dumps)
 * @nkeys: the key file's notify-key lines, @n_nkeys of them: the module's
 *	MAC keys for FCR messages and CCM notifications (push_nkeys()); room
 *	for HPCCD_MAX_NKEYS, sodium_malloc() memory as @ring
 * @n_nkeys: how many
 * @nkeys_owned: the key file has had notify-key lines: hpccd sets the
 *	module's keys (and flushes them when the lines are gone)
 *
 * main.c allocates and loads them (at start and on each reload);
 * link.c's push_nkeys() clears @nkeys_owned once it has flushed the
 * module's keys; sender.c checks and responder.c signs with @ring.
 */
struct hpccd_keys {
	struct hpcc_keyring *ring;
	struct hpccd_nkey *nkeys;
	unsigned int n_nkeys;
	bool nkeys_owned;
};

/**
 * struct hpccd_resp - the receiver role's response limits
 * @rl: the per-source response limit, for probes of flows tcp-check's
 *	cache does not hold as this host's TCP connections
 * @rl_own: the same for those it does: a flood that names a peer's address
 *	cannot spend the tokens of that peer's real flows
 * @budget: the namespace-wide response budget
 * @nf: the count of concurrent flows per hop (the N its responses report)
 *
 * main.c sets them up from the settings (at start and on each reload);
 * responder.c spends them.  The neighbour gate (HPCCD_NB_RATE neighbour
 * lookups and new entries a second) is the namespace's: lookup.c's.
 */
struct hpccd_resp {
	struct hpccd_rl rl, rl_own;
	struct hpccd_budget budget;
	struct hpccd_nf nf;
};

/**
 * struct hpccd_lookup - the responder's lookups and their caches (lookup.c)
 * @rt: route lookups (NETLINK_ROUTE)
 * @rt_seq: sequence number of the last request on @rt
 * @diag: socket lookups (NETLINK_SOCK_DIAG), for tcp_flow_known(); NULL
 *	with tcp-check 0 when the kernel has none
 * @cache_seed: the caches' hash seed (random)
 * @acache: route types of probes' destinations (IPv4 as IPv4-mapped IPv6),
 *	by address and VRF
 * @lcache: the VRF device of interfaces probes came in on (vrf_of())
 * @scache: reverse-path verdicts (enum src_verdict) of probes' sources, by
 *	address and the interface the probe came in on
 * @tcache: whether probes' flows have a TCP connection here, by 5-tuple
 *	(struct hpccd_tc)
 * @tc_learned: when tcp_flows_learn() last dumped this host's connections
 *
 * lookup.c writes it; main.c opens @rt and @diag and seeds the caches.
 */
struct hpccd_lookup {
	struct mnl_socket *rt;
	unsigned int rt_seq;
	struct mnl_socket *diag;
	uint64_t cache_seed;
	struct {
		uint8_t addr[16];
		int vrf;
		uint8_t type;
		uint64_t at;
	} acache[ADDR_CACHE];
	struct {
		int ifindex;
		int vrf;
		uint64_t at;
	} lcache[LINK_CACHE];
	struct {
		uint8_t addr[16];
		uint8_t local[16];
		int ifindex;
		uint8_t verdict;
		bool on_link;
		uint64_t at;
	} scache[SRC_CACHE];
	struct hpccd_tc tcache;
	uint64_t tc_learned;
};

/**
 * struct hpccd_rx_state - the receiver role's receiver-based HPCC
 * @flows: its flows
 * @params: the algorithm's parameters they run with (the module's)
 * @params_ok: @params was read; until then receiver-based requests are
 *	refused
 *
 * main.c sizes @flows from the settings; responder.c updates them;
 * link.c's module_params() writes @params and @params_ok.
 */
struct hpccd_rx_state {
	struct hpccd_rx flows;
	struct hpcc_params params;
	bool params_ok;
};

/**
 * struct hpccd - a shard's state (one per thread: D is the calling
 *	thread's, on the heap, hpccd_state_new()), by concern
 * @shard: this thread's shard, 0..@nshards - 1; 0 is the main thread's,
 *	which also reads the signals and writes the statistics
 * @nshards: the shards (the start's shards setting): each owns the flows
 *	hpccd_shard_of() gives it, its sockets and its part of each
 *	limit (per_shard())
 * @cfg: settings (main.c loads them, at start and on each reload)
 * @sched: the sender role's flows, deadlines and budget (sched.c's,
 *	driven by link.c, push.c, sender.c and main.c)
 * @counters: the statistics (every file counts; stats.c writes them out)
 * @loop: the event loop
 * @io: the packet sockets
 * @link: the module link
 * @push: telemetry pushes and flow-gets
 * @keys: the MAC keys
 * @resp: the receiver role's response limits
 * @lookup: the receiver role's lookups
 * @rx: the receiver role's receiver-based flows
 */
struct hpccd {
	unsigned int shard, nshards;
	struct hpccd_cfg cfg;
	struct hpccd_sched sched;
	uint64_t counters[C_NUM];
	struct hpccd_loop loop;
	struct hpccd_io io;
	struct hpccd_link link;
	struct hpccd_push push;
	struct hpccd_keys keys;
	struct hpccd_resp resp;
	struct hpccd_lookup lookup;
	struct hpccd_rx_state rx;
};

/* the calling thread's shard: 2.4 MB, on the heap, not in thread-local
 * storage, which glibc takes from each thread's stack
 */
extern __thread struct hpccd *hpccd_self;
#define D (*hpccd_self)

/**
 * per_shard() - a shard's part of a limit of the whole daemon: @x over
 *	the shards, the remainder to the first shards, so that the parts
 *	add up to @x (a flood's packets being spread over the shards by the
 *	fanout hash, a shard may refuse before the whole daemon would
 *	have); at least 1 where @x is at least the shards (take_cfg()
 *	refuses settings where it is not)
 */
static inline unsigned int per_shard(unsigned int x)
{
	return x / D.nshards + (D.shard < x % D.nshards);
}

/**
 * enum src_verdict - may a response go back to a probe's source?
 * @SRC_OK: yes
 * @SRC_BAD: no unicast route back (probes-bad-source)
 * @SRC_RP: strict rp-filter: no path of the route back leaves by the
 *	interface the probe came in on (probes-rp-failed)
 * @SRC_NEW_NEIGH: an on-link source this host has no neighbour entry for:
 *	a response would create one; answered within HPCCD_NB_RATE (struct
 *	hpccd_nb; cached SRC_NEG_CACHE_NS)
 * @SRC_NO_NEIGH: the same, or one not looked up for want of a token:
 *	refused (probes-no-neighbour; not cached)
 * @SRC_NO_REPLY: a lookup had no reply (probes-lookup-failed; not cached)
 */
enum src_verdict {
	SRC_OK, SRC_BAD, SRC_RP, SRC_NEW_NEIGH, SRC_NO_NEIGH, SRC_NO_REPLY
};

/* main.c: the start, the event loop, the signals */
void logmsg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t random64(void)
{
	uint64_t x;

	if (getrandom(&x, sizeof(x), 0) != sizeof(x))
		x = now_ns() ^ ((uint64_t)rand() << 32);
	return x;
}

/* link.c: the module link */
void flow_forget(struct hpccd_flow *f);
void flow_take(struct hpccd_flow *f, const struct hpcc_flow_msg *m);
void module_params(void);
void reconcile(void);
int attach_filter(void);
void push_nkeys(void);
void connect_module(void);
void read_events(void);
void flow_got(struct hpccd_flow *f, const struct hpcc_flow_msg *m);

/* push.c: telemetry pushes and flow-gets in batches */
void push_flush(void);
void push_add(const struct hpcc_tuple *t, const struct hpcc_pkt *p);
void push_add_rx(const struct hpcc_tuple *t, const struct hpcc_pkt *p);
void ask_flow(struct hpccd_flow *f);
void read_push_replies(void);

/* sender.c: the sender role, and the packets both roles send */
void send_response(const void *buf, size_t len, int family,
		   const void *daddr, int ifindex);
void tx_flush(void);
void probe_send(struct hpccd_flow *f, uint64_t now);
void probe_want(struct hpccd_flow *f);
void on_response(struct hpcc_pkt *p, const uint8_t *raw);

/* lookup.c: the responder's lookups */
void nb_setup(uint64_t now);
extern const uint8_t v4mapped_prefix[12];
int vrf_of(int ifindex, uint64_t now);
bool addr_type_cached(int family, const void *addr, int vrf,
		      uint64_t now, uint8_t *type);
int addr_type(int family, const void *addr, int vrf, uint64_t now);
bool link_local6(int family, const void *addr);
enum src_verdict src_check(int family, const void *addr,
			   const void *local, int ifindex, int vrf,
			   bool on_lo, uint64_t now);
bool tcp_flow_known(const struct hpcc_tuple *t, int ifindex,
		    uint64_t now);
bool own_flow(const struct hpcc_tuple *t, int ifindex, uint64_t now);
void tcp_flows_learn(uint64_t now);

/* responder.c: the receiver role */
void on_probe(struct hpcc_pkt *p, const uint8_t *raw,
	      const struct sockaddr_ll *ll);

/* main.c: what each shard's thread runs */
int shard_setup(const sigset_t *mask);
void shard_run(void);
void shard_teardown(void);
int keys_alloc(void);
int hpccd_state_new(void);
void take_cfg(struct hpccd_cfg *c);
int cfg_fits_shards(const struct hpccd_cfg *c, unsigned int n);

/* stats.c: the statistics */
void stats_snapshot(void);
void flow_lines(FILE *out);
void write_stats(void);

/**
 * struct hpccd_report - what a shard reports for the statistics
 * @counters: its counters (stats_snapshot() done)
 * @nflows: its flows
 * @queued: those waiting for a token
 * @lines: its flow_lines(), malloc()ed, NUL-terminated; NULL if none
 */
struct hpccd_report {
	uint64_t counters[C_NUM];
	unsigned int nflows, queued;
	char *lines;
};

/* shard.c: the shards' threads (fanout.h says how flows are split) */
int fanout_join(int fd, int family);
int shards_start(const struct hpccd_cfg *c);
void shards_stop(void);
bool shards_failed(void);
void shards_reload(const struct hpccd_cfg *c);
unsigned int shards_gather(struct hpccd_report *sum,
			   char *lines[HPCCD_SHARDS_MAX]);
bool on_ctl(void);

#endif /* _HPCCD_H */
