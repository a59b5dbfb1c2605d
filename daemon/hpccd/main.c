// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd - the HPCC++ probe daemon of one network namespace
 * (draft-pan-tsvwg-hpccplus section 7.2; Documentation/design.rst and
 * Documentation/daemon.rst).  This file is the event loop and the packet
 * path; the probe scheduler is hpccd_sched.c, the settings hpccd_config.c.
 *
 * Sender role: learns flows from the module (flow-get dump at start, then
 * flow-new, flow-active and flow-del events, and a dump every reconcile-s
 * seconds and after an event overrun that forgets the flows the module no
 * longer has), and for each flow with data in flight keeps one probe
 * outstanding: the next goes out as soon as the response arrives while the
 * module last said the flow had data in flight, or after a timeout (2 x
 * max(srtt, probe RTT), within [timeout-min, timeout-max], doubled after
 * each consecutive loss).  All probes share a token bucket of probe-budget
 * packets per second.  A response is checked (structure, DSCP, a matching
 * outstanding random 64-bit id) and its hop records, with the N its
 * receiver reported if any, pushed to the module
 * with telemetry-set, after the next probe left and without waiting: the
 * pushes of a burst of responses go in one batch, and the module's replies
 * (in-flight, srtt) and refusals are read as they come; a refused push is
 * counted and the flow asks again after a backoff.  Asking the module
 * whether a flow still sends (after a response without hops, a timeout or
 * a backoff) is a flow-get in the same batch, not waited for either.
 *
 * Receiver role: answers a valid probe only when it was addressed to this
 * host (PACKET_HOST), to one of its unicast addresses (a route lookup of
 * type local, never broadcast, multicast, 0.0.0.0, :: or IPv4-mapped;
 * 127/8 and ::1 only on the loopback device), from a unicast source whose
 * route back leaves by the interface the probe came in on (rp-filter 1,
 * as strict rp_filter 1; an on-link one with a neighbour entry, or a few a
 * second: src_check()), within response-rate responses per second to that
 * source (an IPv6
 * source: its /64) and response-budget responses and response-budget-bytes
 * bytes per second to all sources together (probes of this host's known
 * TCP flows excepted: own_flow()); every refusal is counted.  With
 * report-n-flows, the response carries N: the most flows this receiver
 * answered within n-flows-window-ms that share a hop with the probe's
 * path (hpccd_nf_note(), draft section 5's receiver-reported N).
 *
 * Packets: probes and responses go out through a raw socket per family
 * (IPv4 with IP_HDRINCL, IPv6 with IPPROTO_RAW, which includes the header:
 * one packet each, no TSO; their DSCP differs from the flow's data, so GRO
 * never merges them with it) and come in through an AF_PACKET socket per
 * family with a classic BPF filter on the two DSCPs; the module removes
 * them before TCP.  An IPv6 probe carries the flow's flow label, which the
 * module reports, so that ECMP hashes it onto the flow's path.  Everything
 * read from the network or the module is checked; what is dropped is
 * counted.  The module may come and go: nlctrl's notify group says when,
 * and hpccd reconnects.  A send never waits for room: a full socket (a
 * stalled egress) drops the packet and counts it.
 *
 * Signals: SIGTERM/SIGINT exit cleanly; SIGHUP re-reads the configuration
 * file and the module's parameters; SIGUSR1 writes the statistics.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/genetlink.h>
#include <linux/inet_diag.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include <sodium.h>

#include "hpcc_auth.h"
#include "hpcc_decode.h"
#include "hpcc_genl.h"
#include "hpcc_wire.h"
#include "hpccd_config.h"
#include "hpccd_rx.h"
#include "hpccd_sched.h"
#include "hpccd_send.h"

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
	C_PARSE_BASE,
	C_NUM = C_PARSE_BASE + HPCC_PARSE_NUM
};

static const char *const counter_names[C_PARSE_BASE] = {
	"flows-added", "flows-removed", "probes-sent", "probes-timed-out",
	"probes-deferred", "probes-received", "probes-not-local",
	"responses-sent", "responses-received", "responses-unexpected",
	"responses-no-hops", "responses-bad-hop", "telemetry-pushed",
	"telemetry-rejected", "send-errors", "bad-dscp", "events",
	"reconnects", "socket-drops", "probes-not-unicast",
	"probes-bad-source", "responses-rate-limited", "resyncs",
	"reconciles", "flows-reconciled", "flows-over-limit", "flows-gone",
	"push-replies-lost", "responses-with-n", "n-flows-evicted",
	"ipv6-ignored", "probes-ioam", "ioam-traces", "ioam-refused",
	"ioam-overflow", "responses-no-rate", "probes-int-md", "int-md-stacks",
	"int-md-refused", "int-md-incomplete", "probes-ifa", "ifa-stacks",
	"ifa-refused", "ifa-no-rate", "ifa-other-protocol", "hops-skipped",
	"dumps-interrupted", "probes-fcr", "probes-cc", "probes-ar",
	"probes-rx", "rx-asked", "rx-w-sent", "rx-refused", "rx-full",
	"rx-invalid", "responses-private", "responses-signed",
	"responses-rx", "responses-rx-w", "responses-rx-refused",
	"auth-ok", "auth-ok-retired", "auth-missing", "auth-unknown-key",
	"auth-bad", "keys-retired", "u-sent", "u-kept", "u-unavailable",
	"responses-u", "responses-u-value", "notify-keys-pushed",
	"notify-keys-push-failed", "netlink-replies-skipped", "send-blocked",
	"flow-gets", "flow-gets-failed", "netlink-round-trips",
	"family-lookups", "family-lookups-failed", "auth-permitted",
	"responses-rl-crowded", "responses-over-budget", "responses-over-bytes",
	"probes-rp-failed", "probes-no-neighbour", "lookups-failed",
	"response-bytes", "lookups", "responses-too-large",
	"probes-no-tcp", "n-flows-over-source", "tcp-lookups",
	"tcp-lookups-failed", "probes-lookup-failed", "neighbour-lookups",
	"neighbour-stalls", "probes-rp-nh", "probes-own-flow", "tcp-dumps",
	"tcp-flows-learned",
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

/*
 * The stack a read of the configuration and key file used (the key
 * file's 64 KiB buffer and the parser's frames below it), wiped after
 * each read with sodium_stackzero(): the key bytes pass through it.
 */
#define KEY_STACK (192 << 10)

/**
 * struct hpccd - the daemon's state (one per process)
 * @cfg: settings
 * @sched: the sender role's flows, deadlines and budget
 * @rl: the receiver role's per-source response limit, for probes of flows
 *	tcp-check's cache does not hold as this host's TCP connections
 * @rl_own: the same for those it does: a flood that names a peer's address
 *	cannot spend the tokens of that peer's real flows
 * @budget: the receiver role's namespace-wide response budget
 * @nb: neighbour lookups of on-link sources, and responses that create a
 *	neighbour entry (HPCCD_NB_RATE per second)
 * @nf: the receiver role's count of concurrent flows per hop (the N its
 *	responses report)
 * @req: netlink requests to the module (blocking, 1 s timeout)
 * @push: telemetry-set and flow-get requests, in batches, replies read
 *	from the loop
 * @push_batch: the batch being filled (read_packets() and on_timer() send
 *	it)
 * @push_buf: its buffer
 * @push_ring: sequence number and flow of recent requests on @push, by
 *	seq % PUSH_RING, and whether it was a flow-get (@ask)
 * @ev: the module's events and nlctrl's notifications
 * @rt: route lookups (NETLINK_ROUTE)
 * @raw_fd: raw IPv4 socket, IP_HDRINCL, for sending
 * @raw6_fd: raw IPv6 socket, IPPROTO_RAW (the header included), for
 *	sending; -1 on a host without IPv6 (its IPv6 flows are counted as
 *	ipv6-ignored)
 * @pkt_fd: AF_PACKET socket for IPv4 with the DSCP filter, for receiving
 * @pkt6_fd: the same for IPv6; -1 with @raw6_fd
 * @timer_fd: one-shot CLOCK_MONOTONIC timer at the next deadline
 * @sig_fd: signalfd
 * @ep_fd: epoll
 * @probe_dscp: from the module's parameters (64 until known: matches none)
 * @response_dscp: same
 * @ifa_protocol: the module's ifa-protocol, the IP protocol (IPv6: next
 *	header) of IFA probes (HPCC_IFA_PROTOCOL until it is read)
 * @ip_id: IPv4 identification of the next packet sent
 * @timer_at: when @timer_fd fires, 0 when disarmed
 * @woke_at: when it last fired
 * @reconcile_at: when the next flow dump is due
 * @resync_pending: events were lost; the next dump drains the event queue
 *	and looks the family up first (kept until that lookup succeeds)
 * @lookup_retry_ns: the wait before the next family lookup after a failed
 *	one or while the module is away (lookup_later()), 0 after a success
 * @dump_end: when the last flow dump ended
 * @dump_ns: how long it took (the gap before a resync scales with it)
 * @counters: the statistics
 * @acache: route types of probes' destinations (IPv4 as IPv4-mapped IPv6),
 *	by address and VRF
 * @lcache: the VRF device of interfaces probes came in on (vrf_of())
 * @scache: reverse-path verdicts (enum src_verdict) of probes' sources, by
 *	address and the interface the probe came in on
 * @tcache: whether probes' flows have a TCP connection here, by 5-tuple
 *	(struct hpccd_tc)
 * @tc_learned: when tcp_flows_learn() last dumped this host's connections
 * @diag: socket lookups (NETLINK_SOCK_DIAG), for tcp_flow_known(); NULL
 *	with tcp-check 0 when the kernel has none
 * @cache_seed: the caches' hash seed (random)
 * @rt_seq: sequence number of the last request on @rt
 * @ring: the MAC keys (auth-key-file) and those a reload retired, in
 *	sodium_malloc() memory (locked, guarded, left out of core dumps)
 * @rx: the receiver role's receiver-based flows
 * @rxp: the algorithm's parameters they run with (the module's)
 * @rxp_ok: @rxp was read; until then receiver-based requests are refused
 * @nkeys: the key file's notify-key lines, @n_nkeys of them: the module's
 *	MAC keys for FCR messages and CCM notifications (push_nkeys()); room
 *	for HPCCD_MAX_NKEYS, sodium_malloc() memory as @ring
 * @nkeys_owned: the key file has had notify-key lines: hpccd sets the
 *	module's keys (and flushes them when the lines are gone)
 * @filter_on: the packet sockets have their filters (attach_filter())
 * @filter_of: the probe DSCP, response DSCP and ifa-protocol they match
 */
struct hpccd {
	struct hpccd_cfg cfg;
	struct hpccd_sched sched;
	struct hpccd_rl rl, rl_own;
	struct hpccd_budget budget;
	struct hpccd_nb nb;
	struct hpccd_nf nf;
	struct hpcc_genl req, ev, push;
	struct mnl_nlmsg_batch *push_batch;
	char push_buf[2 * PUSH_BATCH];
	struct {
		uint32_t seq;
		bool ask;
		struct hpcc_tuple t;
	} push_ring[PUSH_RING];
	struct mnl_socket *rt;
	int raw_fd, raw6_fd, pkt_fd, pkt6_fd, timer_fd, sig_fd, ep_fd;
	uint8_t probe_dscp, response_dscp, ifa_protocol;
	uint16_t ip_id;
	uint64_t timer_at, woke_at;
	uint64_t reconcile_at;
	bool resync_pending;
	uint64_t lookup_retry_ns;
	uint64_t dump_end, dump_ns;
	uint64_t counters[C_NUM];
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
	struct mnl_socket *diag;
	uint64_t cache_seed;
	unsigned int rt_seq;
	struct hpcc_keyring *ring;
	struct hpccd_rx rx;
	struct hpcc_params rxp;
	bool rxp_ok;
	struct hpccd_nkey *nkeys;
	unsigned int n_nkeys;
	bool nkeys_owned;
	bool filter_on;
	uint8_t filter_of[3];
};

static struct hpccd D = {
	.raw_fd = -1, .raw6_fd = -1, .pkt_fd = -1, .pkt6_fd = -1,
	.ifa_protocol = HPCC_IFA_PROTOCOL,
	.timer_fd = -1, .sig_fd = -1, .ep_fd = -1,
};

static void logmsg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logmsg(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG && !D.cfg.verbose)
		return;
	va_start(ap, fmt);
	if (D.cfg.syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static void cfg_log(const char *msg)
{
	logmsg(LOG_ERR, "%s", msg);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t random64(void)
{
	uint64_t x;

	if (getrandom(&x, sizeof(x), 0) != sizeof(x))
		x = now_ns() ^ ((uint64_t)rand() << 32);
	return x;
}

/* --- the timer: one-shot, at the earliest thing due ------------------------ */

static void timer_update(uint64_t now)
{
	struct itimerspec its = { 0 };
	uint64_t at = hpccd_next_wakeup(&D.sched, now), floor;

	/* connected, the next dump; otherwise the next family lookup */
	if (!at || D.reconcile_at < at)
		at = D.reconcile_at;
	if (at) {
		/* deadlines closer than tick-us to the last wakeup wait */
		floor = D.woke_at + D.cfg.tick_us * 1000ULL;
		if (at < floor)
			at = floor;
	}
	if (at == D.timer_at)
		return;
	D.timer_at = at;
	its.it_value.tv_sec = at / 1000000000ULL;
	its.it_value.tv_nsec = at % 1000000000ULL;
	timerfd_settime(D.timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* --- sending --------------------------------------------------------------- */

/*
 * send_addr() - the socket and destination address of a packet to @daddr
 * (4 or 16 bytes, network order, by @family) in @to (*@tolen bytes);
 * @ifindex is the scope of a link-local IPv6 destination (0 otherwise).
 * The address tells the kernel only the route: the header is sent as
 * built.
 * Return: the raw socket, -1 when there is none for @family.
 */
static int send_addr(int family, const void *daddr, int ifindex,
		     struct sockaddr_storage *to, socklen_t *tolen)
{
	struct sockaddr_in6 *to6 = (struct sockaddr_in6 *)to;
	struct sockaddr_in *to4 = (struct sockaddr_in *)to;

	memset(to, 0, sizeof(*to));
	if (family == AF_INET6) {
		to6->sin6_family = AF_INET6;
		memcpy(&to6->sin6_addr, daddr, 16);
		to6->sin6_scope_id = ifindex;
		*tolen = sizeof(*to6);
		return D.raw6_fd;
	}
	to4->sin_family = AF_INET;
	memcpy(&to4->sin_addr, daddr, 4);
	*tolen = sizeof(*to4);
	return D.raw_fd;
}

/* Where hpccd_send() counts: send-blocked, send-errors. */
static const struct hpccd_send_counts send_counts = {
	.blocked = &D.counters[C_SEND_BLOCKED],
	.errors = &D.counters[C_SEND_ERRORS],
};

static void send_log(int fd, int err)
{
	if (err && err != -EAGAIN)
		logmsg(LOG_DEBUG, "send: %s", fd < 0 ? "no socket" :
		       strerror(-err));
}

/*
 * send_pkt() - one packet, its IP header included, to @daddr (as
 * send_addr()).  It never waits for room: a socket whose send buffer is
 * full (a stalled egress) refuses the packet, which is counted
 * (send-blocked) and dropped, and the loop goes on (hpccd_send()).
 *
 * Return: 0; -EAGAIN for a full socket; another -errno (send-errors).
 */
static int send_pkt(const void *buf, size_t len, int family,
		    const void *daddr, int ifindex)
{
	struct sockaddr_storage to;
	socklen_t tolen;
	int fd = send_addr(family, daddr, ifindex, &to, &tolen), err;

	err = hpccd_send(fd, buf, len, (struct sockaddr *)&to, tolen,
			 &send_counts);
	send_log(fd, err);
	return err;
}

/* The destination of a flow's probes: its remote address. */
static const void *tuple_daddr(const struct hpcc_tuple *t)
{
	return t->family == AF_INET6 ? (const void *)t->daddr6 :
				       (const void *)&t->daddr;
}

static void probe_send(struct hpccd_flow *f, uint64_t now)
{
	uint8_t buf[HPCC_PKT_MAX];
	uint64_t id = random64();
	struct sockaddr_storage to;
	socklen_t tolen;
	size_t len;
	int fd, err;

	int enc = hpccd_cfg_encoding(&D.cfg, f->t.family, tuple_daddr(&f->t));

	if (enc == HPCCD_ENC_IOAM) {
		len = hpcc_build_probe_ioam(buf, &f->t, D.probe_dscp,
					    (uint16_t)D.cfg.ioam_namespace,
					    (uint8_t)D.cfg.max_hops, id, now);
		D.counters[C_PROBES_IOAM] += len > 0;
	} else if (enc == HPCCD_ENC_INT_MD) {
		/* room for the response: it is no larger than the probe */
		len = hpcc_build_probe_intmd(buf, &f->t, D.probe_dscp,
					     D.cfg.max_hops < 2 ? 2 :
					     (uint8_t)D.cfg.max_hops,
					     (uint8_t)D.cfg.max_hops, id, now,
					     ++D.ip_id);
		D.counters[C_PROBES_INT_MD] += len > 0;
	} else if (enc == HPCCD_ENC_IFA) {
		len = hpcc_build_probe_ifa(buf, &f->t, D.probe_dscp,
					   D.ifa_protocol,
					   (uint8_t)D.cfg.max_hops, id, now,
					   ++D.ip_id);
		D.counters[C_PROBES_IFA] += len > 0;
	} else {
		/* the FCR support flag and the CC indicator (CCM section
		 * 6.1) ride in the HPCC encoding's extensions only
		 */
		unsigned int ext = HPCC_PROBE_PAD;	/* see on_probe() */

		if (hpccd_cfg_fcr(&D.cfg, f->t.family, tuple_daddr(&f->t)))
			ext |= HPCC_PROBE_FCR;
		if (f->ccm_cc)
			ext |= HPCC_PROBE_CC;
		if (hpccd_cfg_ccm(&D.cfg, f->t.family, tuple_daddr(&f->t)))
			ext |= HPCC_PROBE_AR;
		if (hpccd_rx_ask(f, now) &&
		    hpccd_cfg_rx_based(&D.cfg, f->t.family,
				       tuple_daddr(&f->t)))
			ext |= HPCC_PROBE_RX;
		len = hpcc_build_probe_ext(buf, &f->t, D.probe_dscp,
					   D.cfg.max_hops, id, now, ++D.ip_id,
					   ext);
		D.counters[C_PROBES_FCR] += len && (ext & HPCC_PROBE_FCR);
		D.counters[C_PROBES_CC] += len && (ext & HPCC_PROBE_CC);
		D.counters[C_PROBES_AR] += len && (ext & HPCC_PROBE_AR);
		D.counters[C_PROBES_RX] += len && (ext & HPCC_PROBE_RX);
	}
	if (!len) {
		hpccd_sent(&D.sched, f, id, now);
		return;
	}
	/* a probe the full socket refuses (the egress is stalled) is not
	 * counted as sent, and the flow asks again after its doubled
	 * timeout rather than at the next response
	 */
	fd = send_addr(f->t.family, tuple_daddr(&f->t), 0, &to, &tolen);
	err = hpccd_send_probe(&D.sched, f, id, now, fd, buf, len,
			       (struct sockaddr *)&to, tolen, &send_counts);
	send_log(fd, err);
	if (!err)
		D.counters[C_PROBES_SENT]++;
}

/* The flow has data in flight: probe it now, or when a token comes. */
static void probe_want(struct hpccd_flow *f)
{
	uint64_t now = now_ns();

	if (hpccd_want(&D.sched, f, now))
		probe_send(f, now);
	else if (f->state == HPCCD_QUEUED)
		D.counters[C_PROBES_DEFERRED]++;
}

/* --- flows ----------------------------------------------------------------- */

/*
 * flow_msg_tuple() - hpcc_flow_msg_tuple() for events and dumps alike,
 * counting the IPv6 flows this hpccd cannot probe (ipv6-ignored: it has no
 * IPv6 sockets, on a host without IPv6)
 */
static bool flow_msg_tuple(const struct hpcc_flow_msg *m, struct hpcc_tuple *t)
{
	if (!hpcc_flow_msg_tuple(m, t))
		return false;
	if (t->family == AF_INET6 && (D.raw6_fd < 0 || D.pkt6_fd < 0)) {
		D.counters[C_IPV6_IGNORED]++;
		return false;
	}
	return true;
}

static struct hpccd_flow *flow_learn(const struct hpcc_tuple *t)
{
	struct hpccd_flow *f;
	bool created;

	f = hpccd_flow_add(&D.sched, t, &created);
	if (!f) {
		D.counters[C_FLOWS_OVER_LIMIT]++;
		return NULL;
	}
	if (created)
		D.counters[C_FLOWS_ADDED]++;
	/* not the flow's identity: the module's newest word on its path */
	f->t.flowlabel = t->flowlabel;
	return f;
}

static void flow_forget(struct hpccd_flow *f)
{
	hpccd_flow_remove(&D.sched, f);
	D.counters[C_FLOWS_REMOVED]++;
}

/* The flow's CC indicator from a message of the module that gives it. */
static void flow_take_cc(struct hpccd_flow *f, const struct hpcc_flow_msg *m)
{
	if (m->a.present & HPCC_HAS(HPCC_A_FLOW_CCM_CC))
		f->ccm_cc = m->a.ccm_cc;
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_flow_msg m;
	struct hpccd_flow *f;
	struct hpcc_tuple t;

	if (hpcc_genl_flow_cb(nlh, &m) != MNL_CB_OK)
		return MNL_CB_OK;
	if (!flow_msg_tuple(&m, &t))
		return MNL_CB_OK;
	f = flow_learn(&t);
	if (!f)
		return MNL_CB_OK;
	f->srtt_us = m.a.srtt;
	f->in_flight = m.a.in_flight;
	flow_take_cc(f, &m);
	if (f->in_flight)
		probe_want(f);
	return MNL_CB_OK;
}

/*
 * Events were lost (ENOBUFS): the events still queued predate the dump
 * that follows, so they are dropped unread; the dump brings the table up
 * to date (flows the module no longer has are forgotten).
 */
static void drain_events(void)
{
	char buf[4096];
	int fd = mnl_socket_get_fd(D.ev.nl);

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0 ||
	       errno == ENOBUFS || errno == EINTR)
		;
}

static void check_flow(struct hpccd_flow *f);
static void connect_module(void);
static void read_params(void);
static void push_nkeys(void);
static int attach_filter(void);

static void check_unseen(struct hpccd_flow *f, void *data)
{
	check_flow(f);
}

/* A family lookup that failed waits 1 s, doubled at each failure ... */
#define LOOKUP_RETRY_MIN_NS	1000000000ULL
/* ... up to reconcile-s (cfg.reconcile_s). */

/*
 * lookup_later() - look the family up again later: after a lookup that
 * failed, or while the module is away (its notification, when it is
 * loaded again, may be lost in an event overrun).  The wait starts at
 * LOOKUP_RETRY_MIN_NS and doubles at each call, up to reconcile-s.
 */
static void lookup_later(uint64_t now)
{
	uint64_t max = D.cfg.reconcile_s * 1000000000ULL;

	D.lookup_retry_ns = D.lookup_retry_ns ? 2 * D.lookup_retry_ns :
				LOOKUP_RETRY_MIN_NS;
	if (D.lookup_retry_ns > max)
		D.lookup_retry_ns = max;
	D.reconcile_at = now + D.lookup_retry_ns;
}

/*
 * module_params() - read the module's parameters again (a reload, a
 * resync that found the same family) and bring the packet filters to its
 * DSCPs and IFA protocol: attach_filter() replaces them only when those
 * changed (logged here), and replacing a filter drains nothing, so no
 * queued probe or response is lost; a filter whose attach failed before
 * is attached now.
 */
static void module_params(void)
{
	uint8_t pd = D.probe_dscp, rd = D.response_dscp, ip = D.ifa_protocol;
	int err;

	read_params();
	if (pd != D.probe_dscp || rd != D.response_dscp ||
	    ip != D.ifa_protocol)
		logmsg(LOG_INFO, "module parameters changed: probe DSCP %u, response DSCP %u, IFA protocol %u",
		       D.probe_dscp, D.response_dscp, D.ifa_protocol);
	err = attach_filter();
	if (err)
		logmsg(LOG_ERR, "packet filter: %s", strerror(-err));
}

/*
 * setup_again() - the per-connection setup (the module's parameters and
 * the packet filters, module_params(); the notify keys; the events
 * group), done again for a family whose ids did not change: a module
 * reloaded while events were lost may get the same family id and group
 * back, and then has its defaults and no keys.
 */
static void setup_again(void)
{
	if (mnl_socket_setsockopt(D.ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &D.ev.events_grp,
				  sizeof(D.ev.events_grp)) < 0)
		logmsg(LOG_ERR, "join events: %s", strerror(errno));
	module_params();
	push_nkeys();
}

/*
 * resync_family() - after lost events, look the family up again: nlctrl's
 * notifications (family removed, family added) come on the event socket
 * with the module's events, so an overrun can lose them, and the drain
 * before the dump discards those still queued.  A module unloaded during
 * the overrun leaves a family id that no longer exists, and one loaded
 * again a new id and events group (or, the ids being reused, the same
 * ones): dumping the old id would fail at every resync and reconcile, for
 * good, and a module with the same ids would run without the parameters
 * and keys hpccd sets.
 *
 * Return: 1 when the family changed: hpccd reconnected to the new one
 * (reconnects; connect_module() dumped its flows) or, the module being
 * gone, dropped its flows and looks for it later; 0 when the ids are the
 * same: the per-connection setup is done again (setup_again()) and the
 * caller dumps; a negative errno when the lookup itself failed (a
 * timeout, memory): the ids are kept, the resync stays pending and is
 * tried again after lookup_later()'s wait.
 */
static int resync_family(void)
{
	uint16_t id = D.req.family_id;
	uint32_t grp = D.req.events_grp;
	int err;

	D.counters[C_FAMILY_LOOKUPS]++;
	err = hpcc_genl_resolve(&D.req);
	if (err && err != -ENOENT) {
		D.req.family_id = id;
		D.req.events_grp = grp;
		D.counters[C_FAMILY_LOOKUPS_FAILED]++;
		lookup_later(now_ns());
		logmsg(LOG_WARNING, "resync: family lookup: %s; again in %" PRIu64 " ms",
		       strerror(-err), D.lookup_retry_ns / 1000000);
		return err;
	}
	D.resync_pending = false;
	D.lookup_retry_ns = 0;
	D.counters[C_RESYNCS]++;
	if (!err && D.req.family_id == id && D.req.events_grp == grp) {
		setup_again();
		return 0;
	}
	if (err) {
		logmsg(LOG_INFO, "module unloaded while events were lost");
		hpccd_sched_clear(&D.sched);
		D.req.family_id = D.ev.family_id = 0;
		lookup_later(now_ns());
		return 1;
	}
	logmsg(LOG_INFO, "module reloaded while events were lost: family %u, now %u",
	       id, D.req.family_id);
	D.counters[C_RECONNECTS]++;
	connect_module();
	return 1;
}

/*
 * lookup_module() - the module is away: look its family up (its
 * notification when it was loaded may have been lost in an event
 * overrun, or hpccd may have seen it go and lost the one of its return)
 * and connect when it is there; otherwise look again later
 * (lookup_later()).
 */
static void lookup_module(uint64_t now)
{
	int err;

	D.counters[C_FAMILY_LOOKUPS]++;
	err = hpcc_genl_resolve(&D.req);
	if (err) {
		if (err != -ENOENT) {
			D.counters[C_FAMILY_LOOKUPS_FAILED]++;
			logmsg(LOG_DEBUG, "family lookup: %s", strerror(-err));
		}
		lookup_later(now);
		return;
	}
	logmsg(LOG_INFO, "module found by a lookup");
	D.counters[C_RECONNECTS]++;
	connect_module();
}

/*
 * reconcile() - make the flow table the module's: dump its flows (learning
 * new ones, probing those with data in flight) and forget those it did not
 * list.  Probe state of the flows that stay is kept.  After lost events
 * (resync_pending) the queued events are drained first, and the family is
 * looked up again (resync_family()); a lookup that fails keeps the resync
 * pending, tried again with a backoff.  While the module is away it is
 * looked up instead (lookup_module()).  A dump the table
 * changed under (NLM_F_DUMP_INTR) may have missed live flows: those it did
 * not list are looked up one by one instead (dumps-interrupted).
 */
static void reconcile(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint64_t start = now_ns();
	uint32_t gone;
	int err;

	D.reconcile_at = start + D.cfg.reconcile_s * 1000000000ULL;
	if (!D.req.family_id) {
		if (D.resync_pending) {
			D.resync_pending = false;
			D.counters[C_RESYNCS]++;
			drain_events();
		}
		lookup_module(start);
		return;
	}
	if (D.resync_pending) {
		drain_events();
		if (resync_family())
			return;
	}
	hpccd_reconcile_begin(&D.sched);
	err = hpcc_genl_talk(&D.req, hpcc_genl_msg(&D.req, buf,
						   HPCC_CMD_FLOW_GET,
						   NLM_F_DUMP), dump_cb, NULL);
	D.dump_end = now_ns();
	D.dump_ns = D.dump_end - start;
	if (err == -EINTR) {
		/* the table changed between the dump's parts: a flow it did
		 * not list may live on (the kernel's resume index shifted
		 * past it), so each is asked for by itself (check_flow():
		 * ENOENT forgets it, and counts flows-gone)
		 */
		D.counters[C_DUMPS_INTERRUPTED]++;
		D.counters[C_RECONCILES]++;
		gone = D.counters[C_FLOWS_GONE];
		hpccd_reconcile_unseen(&D.sched, check_unseen, NULL);
		gone = (uint32_t)(D.counters[C_FLOWS_GONE] - gone);
		D.counters[C_FLOWS_RECONCILED] += gone;
		return;
	}
	if (err) {
		logmsg(LOG_WARNING, "flow dump: %s", strerror(-err));
		return;
	}
	gone = hpccd_reconcile_end(&D.sched);
	D.counters[C_RECONCILES]++;
	D.counters[C_FLOWS_RECONCILED] += gone;
	D.counters[C_FLOWS_REMOVED] += gone;
	if (gone)
		logmsg(LOG_INFO, "reconcile: forgot %u flows the module no longer has",
		       gone);
}

/*
 * rx_params() - the parameters receiver-based flows run with: the
 * module's, converted as the module converts them (hpcc_cfg_build(),
 * kernel/tcp_hpcc/net.c).  A module that does not report them all leaves
 * receiver-based requests refused.
 */
static void rx_params(const struct hpcc_params_attrs *a)
{
	const uint64_t need = HPCC_HAS(HPCC_A_PARAMS_T) |
			      HPCC_HAS(HPCC_A_PARAMS_ETA) |
			      HPCC_HAS(HPCC_A_PARAMS_MAX_STAGE) |
			      HPCC_HAS(HPCC_A_PARAMS_W_INIT) |
			      HPCC_HAS(HPCC_A_PARAMS_W_MIN) |
			      HPCC_HAS(HPCC_A_PARAMS_W_AI_EFF);
	struct hpcc_params p;

	D.rxp_ok = false;
	if ((a->present & need) != need)
		return;
	hpcc_params_default(&p);
	p.t_ns = (uint64_t)a->t * 1000;
	p.eta = (((uint64_t)a->eta << HPCC_U_SHIFT) + 500) / 1000;
	p.max_stage = a->max_stage;
	if (a->present & HPCC_HAS(HPCC_A_PARAMS_EWMA_PERIOD))
		p.ewma_pct = a->ewma_period;
	p.w_init = a->w_init << HPCC_W_SHIFT;
	p.w_min = (uint64_t)a->w_min << HPCC_W_SHIFT;
	p.w_ai = a->w_ai_eff << HPCC_W_SHIFT;
	if (!hpcc_params_valid(&p)) {
		logmsg(LOG_WARNING, "params-get: parameters the algorithm refuses; receiver-based requests refused");
		return;
	}
	D.rxp = p;
	D.rxp_ok = true;
}

static void read_params(void)
{
	const uint64_t need = HPCC_HAS(HPCC_A_PARAMS_PROBE_DSCP) |
			      HPCC_HAS(HPCC_A_PARAMS_RESPONSE_DSCP);
	struct hpcc_params_attrs p;
	int err = hpcc_genl_params(&D.req, &p);

	if (!err && (p.present & need) != need)
		err = -EPROTO;
	if (err) {
		logmsg(LOG_WARNING, "params-get: %s", strerror(-err));
		return;
	}
	D.probe_dscp = p.probe_dscp;
	D.response_dscp = p.response_dscp;
	rx_params(&p);
	/* a module without IFA support: the default, which it ignores */
	D.ifa_protocol = p.present & HPCC_HAS(HPCC_A_PARAMS_IFA_PROTOCOL) ?
			 p.ifa_protocol : HPCC_IFA_PROTOCOL;
}

/*
 * set_filter() - attach @code to @fd; @first: the socket had no filter,
 * and what it queued meanwhile is drained (unfiltered).  Replacing a
 * filter drains nothing: what the old one let in are probes and responses
 * still to be read (the DSCP checks count the others).
 */
static int set_filter(int fd, struct sock_filter *code, unsigned short len,
		      bool first)
{
	struct sock_fprog prog = { .len = len, .filter = code };
	char drain[64];

	if (fd < 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) < 0)
		return -errno;
	while (first && recv(fd, drain, sizeof(drain), MSG_DONTWAIT) >= 0)
		;
	return 0;
}

/*
 * The AF_PACKET filters (SOCK_DGRAM: offset 0 is the IP header): not
 * outgoing; IPv4: TCP or the module's ifa-protocol (IFA probes); IPv6: a
 * next header of TCP, of ifa-protocol, or of an extension header that
 * hpcc_parse() walks (hop-by-hop 0, routing 43, destination options 60;
 * what follows them is its to check and count); then DSCP
 * probe or response (IPv4: the TOS byte's high 6 bits; IPv6: the traffic
 * class's, bits 4-9 of the first 16-bit word).  Frames not addressed to
 * this host pass, to be counted (probes-not-unicast) and dropped.
 */
static int attach_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 7, 0),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.ifa_protocol, 0, 4),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 1),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.probe_dscp, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.response_dscp, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
	};
	struct sock_filter code6[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS,
				 SKF_AD_OFF + SKF_AD_PKTTYPE),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING,
				 11, 0),
		/* 2 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 4, 0),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.ifa_protocol,
				 3, 0),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_HOPOPTS,
				 2, 0),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ROUTING,
				 1, 0),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_DSTOPTS,
				 0, 5),
		/* 8 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
		/* 9 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 6),
		/* 10 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x3f),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.probe_dscp, 2, 0),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.response_dscp,
				  1, 0),
		/* 13 */ BPF_STMT(BPF_RET | BPF_K, 0),
		/* 14 */ BPF_STMT(BPF_RET | BPF_K, 0xffff),
	};
	uint8_t want[3] = { D.probe_dscp, D.response_dscp, D.ifa_protocol };
	bool first = !D.filter_on;
	int err;

	/* a reload or reconnect with the same DSCPs: nothing to change */
	if (D.filter_on && !memcmp(D.filter_of, want, sizeof(want)))
		return 0;
	err = set_filter(D.pkt_fd, code, sizeof(code) / sizeof(code[0]),
			 first);
	if (!err)
		err = set_filter(D.pkt6_fd, code6,
				 sizeof(code6) / sizeof(code6[0]), first);
	if (err)
		return err;
	D.filter_on = true;
	memcpy(D.filter_of, want, sizeof(want));
	return 0;
}

/*
 * push_nkeys() - the key file's notify-key lines to the module (fcr-set
 * key nests: tcp_hpcc checks FCR messages and CCM notifications with
 * them), at the start, at each reload and when the module appears, once
 * the file has had such lines; a file without them any more flushes the
 * keys hpccd set (the module keeps those it removes for its key-overlap).
 * A failure is logged and counted; the keys are pushed again at the next
 * reload or module load.
 */
static void push_nkeys(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int err;

	if (!D.req.family_id || !D.nkeys_owned)
		return;
	nlh = hpcc_genl_msg(&D.req, buf, HPCC_CMD_FCR_SET, 0);
	hpcc_genl_nkeys_put(nlh, D.nkeys, D.n_nkeys, &hpcc_fcr_nkey_attrs);
	err = hpcc_genl_talk(&D.req, nlh, NULL, NULL);
	explicit_bzero(buf, sizeof(buf));
	if (err) {
		D.counters[C_NKEYS_PUSH_FAILED]++;
		logmsg(LOG_ERR, "notify keys: fcr-set: %s%s%s", strerror(-err),
		       D.req.extack[0] ? ": " : "", D.req.extack);
		return;
	}
	D.counters[C_NKEYS_PUSHED]++;
	logmsg(LOG_INFO, "notify keys: %u set in the module", D.n_nkeys);
	if (!D.n_nkeys)
		D.nkeys_owned = false;
}

static void connect_module(void)
{
	int err;

	hpccd_sched_clear(&D.sched);
	/* ev never sends requests: replies would mix with events */
	if (hpcc_genl_resolve(&D.req)) {
		D.ev.family_id = 0;
		logmsg(LOG_INFO, "module not loaded; waiting for it");
		lookup_later(now_ns());
		return;
	}
	D.lookup_retry_ns = 0;
	D.ev.family_id = D.req.family_id;
	D.ev.events_grp = D.req.events_grp;
	if (mnl_socket_setsockopt(D.ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &D.ev.events_grp,
				  sizeof(D.ev.events_grp)) < 0)
		logmsg(LOG_ERR, "join events: %s", strerror(errno));
	read_params();
	push_nkeys();
	err = attach_filter();
	if (err)
		logmsg(LOG_ERR, "packet filter: %s", strerror(-err));
	reconcile();
	logmsg(LOG_INFO, "connected: family %u, probe DSCP %u, response DSCP %u, %u flows",
	       D.req.family_id, D.probe_dscp, D.response_dscp,
	       D.sched.nflows);
}

/* nlctrl notification: the family was added or removed. */
static void ctrl_event(const struct nlmsghdr *nlh, uint8_t cmd)
{
	const struct nlattr *a;
	bool ours = false;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0 &&
		    !strcmp(mnl_attr_get_str(a), HPCC_FAMILY_NAME))
			ours = true;
	if (!ours)
		return;
	if (cmd == CTRL_CMD_DELFAMILY) {
		logmsg(LOG_INFO, "module unloaded");
		hpccd_sched_clear(&D.sched);
		D.req.family_id = D.ev.family_id = 0;
		/* looked up later too: its notification may be lost */
		D.lookup_retry_ns = 0;
		lookup_later(now_ns());
	} else if (cmd == CTRL_CMD_NEWFAMILY) {
		D.counters[C_RECONNECTS]++;
		connect_module();
	}
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	struct hpcc_flow_msg m;
	struct hpccd_flow *f;
	struct hpcc_tuple t;

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		ctrl_event(nlh, gh->cmd);
		return MNL_CB_OK;
	}
	if (!D.ev.family_id || nlh->nlmsg_type != D.ev.family_id)
		return MNL_CB_OK;
	D.counters[C_EVENTS]++;
	if (hpcc_genl_flow_cb(nlh, &m) != MNL_CB_OK)
		return MNL_CB_OK;
	if (!flow_msg_tuple(&m, &t))
		return MNL_CB_OK;
	switch (m.cmd) {
	case HPCC_CMD_FLOW_NEW:
		flow_learn(&t);
		break;
	case HPCC_CMD_FLOW_ACTIVE:
		f = flow_learn(&t);
		if (f) {
			f->srtt_us = m.a.srtt;
			flow_take_cc(f, &m);
			f->in_flight = true;
			f->losses_in_row = 0;
			probe_want(f);
		}
		break;
	case HPCC_CMD_FLOW_DEL:
		f = hpccd_flow_find(&D.sched, &t);
		if (f)
			flow_forget(f);
		break;
	}
	return MNL_CB_OK;
}

/* A resync waits at least this long after the last dump ended ... */
#define RESYNC_GAP_MIN_NS	1000000000ULL
/* ... and twice as long as that dump took: dumps after lost events take at
 * most a third of the daemon's time however fast events are lost.
 */
#define RESYNC_GAP_DUMPS	2

/*
 * Events were lost (ENOBUFS): schedule a resync, a dump that drains the
 * event queue first (reconcile()).  It runs from the timer, not at once:
 * under a burst of events that overruns the socket again while a large
 * table is dumped, resyncing back to back would leave no time for probes,
 * responses, signals or the events themselves.  Until it runs, the events
 * that still arrive are applied as usual.
 */
static void resync_request(void)
{
	uint64_t at = D.dump_end + RESYNC_GAP_MIN_NS;

	if (at < D.dump_end + RESYNC_GAP_DUMPS * D.dump_ns)
		at = D.dump_end + RESYNC_GAP_DUMPS * D.dump_ns;
	if (!D.resync_pending)
		logmsg(LOG_WARNING, "events overrun; resync");
	D.resync_pending = true;
	if (at < D.reconcile_at)
		D.reconcile_at = at;
}

/* Reads per call: the loop serves packets and timers between bursts. */
#define EVENT_READS		64

static void read_events(void)
{
	char buf[1 << 16];
	ssize_t n;
	int i;

	for (i = 0; i < EVENT_READS; i++) {
		n = recv(mnl_socket_get_fd(D.ev.nl), buf, sizeof(buf),
			 MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				resync_request();
				continue;
			}
			return;
		}
		mnl_cb_run(buf, n, 0, 0, event_cb, NULL);
	}
}

/* --- the receiver role ----------------------------------------------------- */

/* ::ffff:0:0/96, the IPv4-mapped IPv6 addresses (RFC 4291 2.5.5.2) */
static const uint8_t v4mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };

/* @addr (4 or 16 bytes by @family) as 16: IPv4 as IPv4-mapped IPv6. */
static void addr16(int family, const void *addr, uint8_t out[16])
{
	if (family == AF_INET6) {
		memcpy(out, addr, 16);
		return;
	}
	memcpy(out, v4mapped_prefix, 12);
	memcpy(out + 12, addr, 4);
}

/* A cache slot of @a (16 bytes) and @ifindex, of @n (seeded: a sender
 * cannot pick addresses that share one).
 */
static unsigned int cache_slot(const uint8_t a[16], int ifindex,
			       unsigned int n)
{
	uint64_t h, l, x;

	memcpy(&h, a, 8);
	memcpy(&l, a + 8, 8);
	x = (h ^ D.cache_seed) * 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 29) ^ l ^ (uint64_t)(unsigned int)ifindex) *
	    0xbf58476d1ce4e5b9ULL;
	return (unsigned int)((x ^ (x >> 32)) % n);
}

/*
 * nl_request() - @nlh on @nl (the routing or the socket diagnostics
 * socket), @cb on its reply.  A reply to
 * an earlier request that timed out is skipped (by sequence number); the
 * wait is bounded by the socket's receive timeout (RT_TIMEOUT_US).
 * Return: 0 when the reply came (an error reply too: @cb then sees
 * nothing); -1 when none did (counted: counter @c_fail).  Every request
 * counts in counter @c_req.
 */
static int nl_request(struct mnl_socket *nl, struct nlmsghdr *nlh,
		      mnl_cb_t cb, void *data, int c_req, int c_fail)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(4)));
	unsigned int seq = ++D.rt_seq;
	ssize_t n;
	int i;

	nlh->nlmsg_seq = seq;
	D.counters[c_req]++;
	if (!nl || mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto fail;
	for (i = 0; i < 16; i++) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < (ssize_t)sizeof(struct nlmsghdr))
			goto fail;
		/* a late reply to an earlier request: skipped */
		if (((const struct nlmsghdr *)(const void *)buf)->nlmsg_seq !=
		    seq)
			continue;
		mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl), cb, data);
		return 0;
	}
fail:
	D.counters[c_fail]++;
	return -1;
}

/* nl_request() on the routing socket: lookups, lookups-failed */
static int rt_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return nl_request(D.rt, nlh, cb, data, C_LOOKUPS, C_LOOKUPS_FAILED);
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type == RTM_NEWROUTE &&
	    mnl_nlmsg_get_payload_len(nlh) >= sizeof(*rtm))
		*(uint8_t *)data = rtm->rtm_type;
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *b;
	int *vrf = data, master = 0;
	bool is_vrf = false;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(a) == IFLA_MASTER &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			master = (int)mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) != IFLA_LINKINFO)
			continue;
		mnl_attr_for_each_nested(b, a)
			if (mnl_attr_get_type(b) == IFLA_INFO_SLAVE_KIND &&
			    !mnl_attr_validate(b, MNL_TYPE_NUL_STRING) &&
			    !strcmp(mnl_attr_get_str(b), "vrf"))
				is_vrf = true;
	}
	if (is_vrf)
		*vrf = master;
	return MNL_CB_OK;
}

/*
 * vrf_of() - the VRF device @ifindex is a member of, 0 for none (or no
 * reply): its route lookups name it as RTA_OIF, as "ip route get ... vrf
 * NAME" does, so they use the VRF's table.  RTM_GETLINK, cached 10 s per
 * interface (ifindex comes from the kernel: a flood cannot add lookups).
 */
static int vrf_of(int ifindex, uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	unsigned int i = (unsigned int)ifindex % LINK_CACHE;
	struct ifinfomsg *ifm;
	struct nlmsghdr *nlh;
	int vrf = 0;

	if (D.lcache[i].at && D.lcache[i].ifindex == ifindex &&
	    now - D.lcache[i].at < LINK_CACHE_NS)
		return D.lcache[i].vrf;
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	if (rt_request(nlh, link_cb, &vrf))
		return 0;		/* not cached: the next may succeed */
	D.lcache[i].ifindex = ifindex;
	D.lcache[i].vrf = vrf;
	D.lcache[i].at = now;
	return vrf;
}

/*
 * addr_type_cached() - the route type of @addr in VRF @vrf (addr_type())
 * if the cache has it, without a lookup
 * Return: true and *@type; false when it must be looked up.
 */
static bool addr_type_cached(int family, const void *addr, int vrf,
			     uint64_t now, uint8_t *type)
{
	unsigned int i;
	uint8_t a[16];

	addr16(family, addr, a);
	i = cache_slot(a, vrf, ADDR_CACHE);
	if (D.acache[i].at && !memcmp(D.acache[i].addr, a, 16) &&
	    D.acache[i].vrf == vrf &&
	    now - D.acache[i].at < ADDR_CACHE_NS) {
		*type = D.acache[i].type;
		return true;
	}
	return false;
}

/*
 * addr_type() - the route type of @addr (network order, 4 or 16 bytes by
 * @family) in this namespace, in VRF device @vrf's table (0: none):
 * RTN_LOCAL for one of its addresses,
 * RTN_BROADCAST, RTN_MULTICAST, RTN_UNICAST, ...; RTN_UNSPEC when there is
 * no route; -1 when the lookup had no reply (not cached).  Cached 5 s.
 */
static int addr_type(int family, const void *addr, int vrf, uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	uint8_t type = RTN_UNSPEC, a[16];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned int i;

	if (addr_type_cached(family, addr, vrf, now, &type))
		return type;
	addr16(family, addr, a);
	i = cache_slot(a, vrf, ADDR_CACHE);
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = family == AF_INET6 ? 128 : 32;
	mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, addr);
	if (vrf)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)vrf);
	if (rt_request(nlh, route_cb, &type))
		return -1;		/* not cached: the next may succeed */
	memcpy(D.acache[i].addr, a, 16);
	D.acache[i].vrf = vrf;
	D.acache[i].type = type;
	D.acache[i].at = now;
	return type;
}

/**
 * struct src_route - what the FIB entry for a probe's source says about
 * the interface the probe came in on (src_route_cb())
 * @ifindex: that interface
 * @type: the entry's route type; RTN_UNSPEC: none
 * @dev_match: a path of the entry leaves by @ifindex
 * @on_link: that path (else the first) has no gateway: the source is a
 *	neighbour on the link
 * @oif: the interface of that path
 * @paths: paths seen
 * @nh_id: the entry names a nexthop object (RTA_NH_ID); with
 *	net.ipv4.nexthop_compat_mode 0 it then lists no path
 */
struct src_route {
	int ifindex;
	uint8_t type;
	bool dev_match, on_link, nh_id;
	int oif;
	unsigned int paths;
};

/* One path of the entry: leaving by @oif, with a gateway or not. */
static void src_path(struct src_route *r, int oif, bool gateway)
{
	if (r->dev_match)
		return;
	if (oif == r->ifindex || !r->paths) {
		r->dev_match = oif == r->ifindex;
		r->on_link = !gateway;
		r->oif = oif;
	}
	r->paths++;
}

/* A nexthop's attributes: does it name a gateway? */
static bool nh_gateway(const void *attrs, size_t len)
{
	const struct nlattr *attr;	/* the macro's name */

	mnl_attr_for_each_payload(attrs, len)
		if (mnl_attr_get_type(attr) == RTA_GATEWAY ||
		    mnl_attr_get_type(attr) == RTA_VIA)
			return true;
	return false;
}

static int src_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct src_route *r = data;
	const struct nlattr *a;
	bool gateway = false;
	int oif = 0;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return MNL_CB_OK;
	r->type = rtm->rtm_type;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_OIF:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				oif = (int)mnl_attr_get_u32(a);
			break;
		case RTA_GATEWAY:
		case RTA_VIA:
			gateway = true;
			break;
		case RTA_NH_ID:
			r->nh_id = true;
			break;
		case RTA_MULTIPATH: {
			const uint8_t *p = mnl_attr_get_payload(a);
			size_t len = mnl_attr_get_payload_len(a);

			while (len >= sizeof(struct rtnexthop)) {
				const struct rtnexthop *nh = (const void *)p;
				size_t nl = nh->rtnh_len;

				if (nl < sizeof(*nh) || nl > len)
					break;
				src_path(r, nh->rtnh_ifindex,
					 nh_gateway(RTNH_DATA(nh),
						    nl - sizeof(*nh)));
				nl = RTNH_ALIGN(nl);
				if (nl >= len)
					break;
				p += nl;
				len -= nl;
			}
			break;
		}
		}
	}
	if (oif)
		src_path(r, oif, gateway);
	return MNL_CB_OK;
}

static int neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type == RTM_NEWNEIGH &&
	    mnl_nlmsg_get_payload_len(nlh) >= sizeof(*ndm))
		*(uint16_t *)data = ndm->ndm_state;
	return MNL_CB_OK;
}

/*
 * neighbour_known() - this host has a neighbour entry for @addr on
 * @ifindex, in any state: answering it adds no entry.  Looked up with
 * RTM_GETNEIGH (Linux 5.0), which never creates one but takes RTNL: call
 * it only through hpccd_nb_lookup().
 * Return: 1 (an entry), 0 (none), -1 (no reply within RT_TIMEOUT_US).
 */
static int neighbour_known(int family, const void *addr, int ifindex)
{
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;
	uint16_t state = 0;

	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = family;
	ndm->ndm_ifindex = ifindex;
	mnl_attr_put(nlh, NDA_DST, family == AF_INET6 ? 16 : 4, addr);
	if (rt_request(nlh, neigh_cb, &state))
		return -1;
	return state != 0;
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

/* How long "no neighbour entry" is cached: briefly, as the response it
 * allows creates one.
 */
#define SRC_NEG_CACHE_NS 200000000ULL
/* An on-link source answered before keeps its slot (refreshed without a
 * neighbour token) this long after its verdict expires: other sources'
 * verdicts do not take it, so a flood cannot turn known peers into new
 * ones competing for HPCCD_NB_RATE.
 */
#define SRC_KEEP_NS 10000000000ULL

/* fe80::/10: a response to it leaves by the interface the probe came in. */
static bool link_local6(int family, const void *addr)
{
	const uint8_t *a = addr;

	return family == AF_INET6 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/*
 * src_check() - the reverse-path check of a probe's source @addr that came
 * in on @ifindex (the loopback device when @on_lo), cached 1 s: a unicast
 * route back (a local one only on the loopback device, where nothing comes
 * from outside the host); with rp-filter 1 (strict), one of its paths by
 * @ifindex, as rp_filter 1 checks (the route's FIB entry, RTM_F_FIB_MATCH, all
 * paths of a multipath route); and whether an on-link source (a path
 * without a gateway, or an IPv6 link-local address) has a neighbour entry.
 * The neighbour lookup and a response that would create an entry go
 * through D.nb (struct hpccd_nb): a token before the lookup, "no entry"
 * cached SRC_NEG_CACHE_NS, a token per response while it is.
 *
 * The route lookup is fib_validate_source()'s as far as rtnetlink can
 * ask it: to @addr from @local (the probe's destination, RTA_SRC, so
 * "from" policy rules apply), in the VRF @vrf of @ifindex (RTA_OIF, as
 * "ip route get ... vrf NAME"); not by the probe's mark (the packet socket
 * does not see it).  An entry that names a nexthop object and lists no
 * path (nexthop_compat_mode 0) is checked loosely (probes-rp-nh).
 */
static enum src_verdict src_check(int family, const void *addr,
				  const void *local, int ifindex, int vrf,
				  bool on_lo, uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	struct src_route r = { .ifindex = ifindex };
	bool same, refresh, on_link = false;
	enum src_verdict v;
	int nb_oif = 0;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned int i;
	uint8_t a[16], l[16];

	if (on_lo)
		return SRC_OK;	/* local: nothing to spoof from outside */
	addr16(family, addr, a);
	addr16(family, local, l);
	i = cache_slot(a, ifindex, SRC_CACHE);
	same = D.scache[i].at && D.scache[i].ifindex == ifindex &&
	       !memcmp(D.scache[i].addr, a, 16) &&
	       !memcmp(D.scache[i].local, l, 16);
	if (same && D.scache[i].verdict == SRC_NEW_NEIGH &&
	    now - D.scache[i].at < SRC_NEG_CACHE_NS)
		return hpccd_nb_answer_new(&D.nb, now) ? SRC_NEW_NEIGH :
							 SRC_NO_NEIGH;
	if (same && D.scache[i].verdict != SRC_NEW_NEIGH &&
	    now - D.scache[i].at < SRC_CACHE_NS)
		return D.scache[i].verdict;
	/* an on-link source answered before: its entry is refreshed */
	refresh = same && D.scache[i].verdict == SRC_OK &&
		  D.scache[i].on_link &&
		  now - D.scache[i].at < SRC_CACHE_NS + SRC_KEEP_NS;
	if (link_local6(family, addr)) {
		/* reachable on the link it came from, if a neighbour */
		nb_oif = ifindex;
		goto neigh;
	}
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = family == AF_INET6 ? 128 : 32;
	rtm->rtm_flags = RTM_F_FIB_MATCH;
	mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, addr);
	mnl_attr_put(nlh, RTA_SRC, family == AF_INET6 ? 16 : 4, local);
	rtm->rtm_src_len = family == AF_INET6 ? 128 : 32;
	if (vrf)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)vrf);
	if (rt_request(nlh, src_route_cb, &r))
		return SRC_NO_REPLY;	/* not cached: the next may succeed */
	if (r.type != RTN_UNICAST)
		v = SRC_BAD;
	else if (D.cfg.rp_filter == HPCCD_RP_STRICT && !r.dev_match &&
		 r.nh_id && !r.paths) {
		/* a nexthop object the reply does not resolve: loose */
		D.counters[C_PROBES_RP_NH]++;
		v = SRC_OK;
	} else if (D.cfg.rp_filter == HPCCD_RP_STRICT && !r.dev_match)
		v = SRC_RP;
	else if (r.on_link && r.oif) {
		nb_oif = r.oif;
		goto neigh;
	} else
		v = SRC_OK;
	goto out;
neigh:
	on_link = true;
	switch (hpccd_nb_lookup(&D.nb, refresh, now)) {
	case HPCCD_NB_REFUSE:
		return SRC_NO_NEIGH;
	case HPCCD_NB_KEEP:
		v = SRC_OK;
		goto out;
	case HPCCD_NB_LOOKUP:
		break;
	}
	switch (neighbour_known(family, addr, nb_oif)) {
	case 1:
		v = SRC_OK;
		break;
	case 0:
		/* a new lookup's token pays for this response; a refresh
		 * that finds the entry gone takes one
		 */
		if (refresh && !hpccd_nb_answer_new(&D.nb, now))
			return SRC_NO_NEIGH;
		v = SRC_NEW_NEIGH;
		break;
	default:
		hpccd_nb_timed_out(&D.nb, now);
		if (refresh) {
			v = SRC_OK;	/* kept: it had an entry */
			break;
		}
		return SRC_NO_REPLY;
	}
out:
	if (!same && D.scache[i].at && D.scache[i].verdict == SRC_OK &&
	    D.scache[i].on_link && !(v == SRC_OK && on_link) &&
	    now - D.scache[i].at < SRC_CACHE_NS + SRC_KEEP_NS)
		return v;	/* a known on-link peer's slot: not cached */
	memcpy(D.scache[i].addr, a, 16);
	memcpy(D.scache[i].local, l, 16);
	D.scache[i].ifindex = ifindex;
	D.scache[i].verdict = v;
	D.scache[i].on_link = on_link;
	D.scache[i].at = now;
	return v;
}

static int diag_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
	    mnl_nlmsg_get_payload_len(nlh) >= sizeof(*m))
		*(uint8_t *)data = m->idiag_state;
	return MNL_CB_OK;
}

/*
 * tcp_flow_known() - this host has a TCP connection for the probe's flow
 * @t (as the probe has it: its source the peer, its destination us) that
 * came in on @ifindex, in a state of an accepted connection
 * (hpccd_tcp_state_flow(): ESTABLISHED, FIN_WAIT1, FIN_WAIT2, CLOSE_WAIT,
 * LAST_ACK, CLOSING): an exact socket lookup over NETLINK_SOCK_DIAG
 * (inet_diag, as ss does; tcp-lookups, tcp-lookups-failed), cached 1 s by
 * 5-tuple (struct hpccd_tc: a known flow's verdict is refreshed, and not
 * evicted by unknown ones, for 10 s more).  A listener, a request socket (SYN_RECV: a spoofed SYN makes
 * one) and TIME_WAIT do not count, so a probe for any port of a listening
 * service is not a flow.  Only such flows count in N and get receiver
 * state (tcp-check): a sender of spoofed probes cannot make them up.  The
 * lookup names @ifindex (the VRF device when it is a VRF's member:
 * vrf_of()), so a socket bound to that device (SO_BINDTODEVICE, an IPv6
 * link-local peer, a VRF's socket) is found as well as an unbound one.
 */
static bool tcp_flow_known(const struct hpcc_tuple *t, int ifindex,
			   uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	bool v6 = t->family == AF_INET6, known;
	struct inet_diag_req_v2 *r;
	struct nlmsghdr *nlh;
	uint8_t state = 0;

	switch (hpccd_tc_get(&D.tcache, t, now)) {
	case HPCCD_TC_KNOWN:
		return true;
	case HPCCD_TC_UNKNOWN:
		return false;
	default:
		break;
	}
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	r = mnl_nlmsg_put_extra_header(nlh, sizeof(*r));
	r->sdiag_family = v6 ? AF_INET6 : AF_INET;
	r->sdiag_protocol = IPPROTO_TCP;
	r->idiag_states = ~0U;
	/* the socket's view: local = the probe's destination */
	r->id.idiag_sport = t->dport;
	r->id.idiag_dport = t->sport;
	if (v6) {
		memcpy(r->id.idiag_src, t->daddr6, 16);
		memcpy(r->id.idiag_dst, t->saddr6, 16);
	} else {
		r->id.idiag_src[0] = t->daddr;
		r->id.idiag_dst[0] = t->saddr;
	}
	/* an unbound socket matches any device; a bound one only its own */
	r->id.idiag_if = (uint32_t)ifindex;
	r->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	r->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (nl_request(D.diag, nlh, diag_cb, &state, C_TCP_LOOKUPS,
		       C_TCP_LOOKUPS_FAILED))
		return false;		/* not cached: the next may succeed */
	known = hpccd_tcp_state_flow(state);
	hpccd_tc_put(&D.tcache, t, known, now);
	return known;
}

/*
 * own_flow() - is @t a flow of this host's TCP connections by tcp-check's
 * cache, without a lookup for anything the cache does not already hold as
 * known?  A stale "known" verdict is looked up again (only a real
 * connection leaves one, so a flood cannot buy such lookups).
 */
static bool own_flow(const struct hpcc_tuple *t, int ifindex, uint64_t now)
{
	if (!D.cfg.tcp_check || !D.diag)
		return false;
	switch (hpccd_tc_get(&D.tcache, t, now)) {
	case HPCCD_TC_KNOWN:
		return true;
	case HPCCD_TC_STALE_KNOWN:
		return tcp_flow_known(t, ifindex, now);
	default:
		return false;
	}
}

/* learn_cb() - a socket of tcp_flows_learn()'s dump: its flow is known */
static int learn_cb(const struct nlmsghdr *nlh, void *data)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct hpcc_tuple t = { 0 };

	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*m) ||
	    !hpccd_tcp_state_flow(m->idiag_state))
		return MNL_CB_OK;
	/* as the peer's probes have it: its source the peer */
	t.sport = m->id.idiag_dport;
	t.dport = m->id.idiag_sport;
	if (m->idiag_family == AF_INET6 &&
	    (memcmp(m->id.idiag_src, mapped, 12) ||
	     memcmp(m->id.idiag_dst, mapped, 12))) {
		t.family = AF_INET6;
		memcpy(t.saddr6, m->id.idiag_dst, 16);
		memcpy(t.daddr6, m->id.idiag_src, 16);
	} else {
		/* an IPv4 peer of an IPv6 socket probes over IPv4 */
		int i = m->idiag_family == AF_INET6 ? 3 : 0;

		t.family = AF_INET;
		t.saddr = m->id.idiag_dst[i];
		t.daddr = m->id.idiag_src[i];
	}
	hpccd_tc_put(&D.tcache, &t, true, *(const uint64_t *)data);
	D.counters[C_TCP_FLOWS_LEARNED]++;
	return MNL_CB_OK;
}

/*
 * tcp_flows_learn() - put every TCP connection of this host's in an
 * accepted connection's state (hpccd_tcp_state_flow()) in tcp-check's
 * cache as known, by one NETLINK_SOCK_DIAG dump per family (as ss -t
 * does; tcp-dumps, tcp-flows-learned; a dump without its end counts in
 * tcp-lookups-failed), at most once per HPCCD_TC_TTL_NS.  on_probe() calls
 * it when the response budget refuses a probe: during a flood beyond the
 * budget a new flow's first probe would otherwise find a token as rarely
 * as the flood's probes do, and its lookup would wait for one; this way
 * it leaves the budget within a second of its connection.  The dump costs
 * a few microseconds per connection, once a second at most, and only
 * while the budget is exhausted.
 */
static void tcp_flows_learn(uint64_t now)
{
	static const uint8_t fams[] = { AF_INET, AF_INET6 };
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(4)));
	struct inet_diag_req_v2 *r;
	uint32_t states = 0, seq;
	struct nlmsghdr *nlh;
	unsigned int f, st;
	ssize_t n;
	int ret;

	if (!D.cfg.tcp_check || !D.diag ||
	    (D.tc_learned && now - D.tc_learned < HPCCD_TC_TTL_NS))
		return;
	D.tc_learned = now;
	for (st = 0; st < 32; st++)
		if (hpccd_tcp_state_flow((uint8_t)st))
			states |= 1U << st;
	for (f = 0; f < sizeof(fams); f++) {
		nlh = mnl_nlmsg_put_header(buf);
		nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		nlh->nlmsg_seq = seq = ++D.rt_seq;
		r = mnl_nlmsg_put_extra_header(nlh, sizeof(*r));
		r->sdiag_family = fams[f];
		r->sdiag_protocol = IPPROTO_TCP;
		r->idiag_states = states;
		D.counters[C_TCP_DUMPS]++;
		if (mnl_socket_sendto(D.diag, nlh, nlh->nlmsg_len) < 0)
			goto fail;
		ret = MNL_CB_OK;
		do {
			/* each wait bounded by RT_TIMEOUT_US */
			n = mnl_socket_recvfrom(D.diag, buf, sizeof(buf));
			if (n < (ssize_t)sizeof(struct nlmsghdr))
				goto fail;
			/* a late reply to an earlier lookup: skipped */
			nlh = (struct nlmsghdr *)(void *)buf;
			if (nlh->nlmsg_seq != seq)
				continue;
			ret = mnl_cb_run(buf, n, seq,
					 mnl_socket_get_portid(D.diag), learn_cb,
					 &now);
		} while (ret > MNL_CB_STOP);
		if (ret < 0)
			goto fail;
	}
	return;
fail:
	D.counters[C_TCP_LOOKUPS_FAILED]++;
	/* what is left of the dump: nl_request() skips it by sequence
	 * number, but drain it now rather than let it fill its reads
	 */
	while (recv(mnl_socket_get_fd(D.diag), buf, sizeof(buf),
		    MSG_DONTWAIT) > 0)
		;
}

/* 127/8, or ::1: only ever on the loopback device. */
static bool loopback_addr(int family, const void *addr)
{
	static const uint8_t lo6[16] = { [15] = 1 };

	if (family == AF_INET6)
		return !memcmp(addr, lo6, 16);
	return *(const uint8_t *)addr == 127;
}

/*
 * Never a host's address: IPv4 zero, multicast, class E and limited
 * broadcast; IPv6 unspecified (::), multicast (ff00::/8) and IPv4-mapped
 * (::ffff:0:0/96, which never appears on the wire, RFC 4291 2.5.5.2).
 */
static bool martian(int family, const void *addr)
{
	static const uint8_t zero[16];
	const uint8_t *a = addr;

	if (family == AF_INET6)
		return !memcmp(a, zero, 16) || a[0] == 0xff ||
		       !memcmp(a, v4mapped_prefix, 12);
	return !(a[0] | a[1] | a[2] | a[3]) || a[0] >= 0xe0;
}

/*
 * obs_records() - the @n hops a standard encoding reported, @h, as the
 * response's records in @q, replacing any the probe carries
 * (hpcc_obs_to_rec(): B from the hop or this host's capacity table, else
 * 0 for the sender to fill; qlen in bytes, or from the hop latency; Tx
 * utilization in Q16); a hop the core cannot use gets ts 0 and is counted
 * (hops-skipped).
 */
static void obs_records(struct hpcc_pkt *q, const struct hpcc_hop_obs *h,
			uint8_t n, const struct hpcc_obs_units *units)
{
	uint8_t i;

	for (i = 0; i < n; i++) {
		uint64_t rate = 0;

		if (!(h[i].present & HPCC_OBS_RATE))
			rate = hpccd_cfg_rate(&D.cfg, h[i].rec.switch_id,
					      h[i].rec.port_id);
		if (!hpcc_obs_to_rec(&h[i], units, rate, &q->hops[i]))
			D.counters[C_HOPS_SKIPPED]++;
	}
	q->nhop = n;
}

/*
 * ioam_records() - a probe's IOAM trace (@raw, the packet from its IP
 * header), when a node filled it, as the response's records in @q
 * (obs_records(): node_id, egress interface, ts, queue depth in bytes).
 * Nodes beyond HPCC_MAX_HOPS, a malformed option and the Overflow flag are
 * counted.
 */
static void ioam_records(struct hpcc_pkt *q, const uint8_t *raw)
{
	const struct hpcc_obs_units units = { .qlen_unit = 1 };
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_ioam_info info;
	enum hpcc_decode_err e;
	uint8_t n;

	/* more nodes than records: HPCC_DECODE_TOO_MANY, refused */
	e = hpcc_decode_ioam(raw + q->ioam_off, q->ioam_len, D.cfg.ioam_ts, h,
			     HPCC_MAX_HOPS, &n, &info);
	if (e != HPCC_DECODE_OK) {
		D.counters[C_IOAM_REFUSED]++;
		return;
	}
	D.counters[C_IOAM_TRACES]++;
	if (info.flags & HPCC_IOAM_FLAG_OVERFLOW)
		D.counters[C_IOAM_OVERFLOW]++;
	if (n)			/* else no IOAM node on the path */
		obs_records(q, h, n, &units);
}

/*
 * int_records() - a probe's INT-MD stack (@raw, the packet from its IP
 * header), when a hop pushed metadata, as the response's records in @q
 * (obs_records(): switch ID, egress port, egress (else ingress)
 * timestamp, queue occupancy x int-qlen-unit, the Tx utilization when
 * int-tx-util-full says what 100 % is).  A stack the decoder refuses and
 * the E and M flags (a hop added nothing) are counted.
 */
static void int_records(struct hpcc_pkt *q, const uint8_t *raw)
{
	const struct hpcc_obs_units units = {
		.qlen_unit = D.cfg.int_qlen_unit,
		.tx_util_full = D.cfg.int_tx_util_full,
	};
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_intmd_info info;
	enum hpcc_decode_err e;
	uint8_t n;

	e = hpcc_decode_intmd(raw + q->int_off, q->int_len, h, HPCC_MAX_HOPS,
			      &n, &info);
	if (e != HPCC_DECODE_OK) {
		D.counters[C_INT_MD_REFUSED]++;
		return;
	}
	D.counters[C_INT_MD_STACKS]++;
	if (info.flags & 3)		/* E or M */
		D.counters[C_INT_MD_INCOMPLETE]++;
	if (n)
		obs_records(q, h, n, &units);
}

/*
 * ifa_records() - a probe's IFA stack (@raw, the packet from its IP
 * header), when a hop pushed metadata, as the response's records in @q
 * (obs_records(): device ID, egress port, Rx timestamp, B from the port
 * speed code, else from this host's capacity table or default-rate, and
 * qlen from the residence time: (residence - ifa-base-ns) x B, as IFA's
 * fixed metadata has no queue occupancy).  A hop without B is counted
 * (ifa-no-rate), and so is a stack the decoder refuses.
 */
static void ifa_records(struct hpcc_pkt *q, const uint8_t *raw)
{
	const struct hpcc_obs_units units = {
		.qlen_unit = 1,
		.base_ns = D.cfg.ifa_base_ns,
	};
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_ifa_info info;
	enum hpcc_decode_err e;
	uint8_t n, i;

	e = hpcc_decode_ifa(raw + q->ifa_off, q->ifa_len, h, HPCC_MAX_HOPS, &n,
			    &info);
	if (e != HPCC_DECODE_OK) {
		D.counters[C_IFA_REFUSED]++;
		return;
	}
	D.counters[C_IFA_STACKS]++;
	if (!n)
		return;
	obs_records(q, h, n, &units);
	/* B from neither the speed code nor this host's capacity table */
	for (i = 0; i < n; i++)
		if (!q->hops[i].rate)
			D.counters[C_IFA_NO_RATE]++;
}

/*
 * rated_hops() - @p's records into @hops (HPCC_MAX_HOPS of them), a missing
 * B (IOAM, INT-MD) from the capacity table, as the sender would take it:
 * the records the receiver runs the algorithm on
 */
static void rated_hops(struct hpcc_hop_rec *hops, const struct hpcc_pkt *p)
{
	uint8_t i;

	memcpy(hops, p->hops, sizeof(p->hops));
	for (i = 0; i < p->nhop; i++)
		if (!hops[i].rate)
			hops[i].rate = hpccd_cfg_rate(&D.cfg, hops[i].switch_id,
						      hops[i].port_id);
}

/*
 * rx_answer() - a probe that asks for receiver-based HPCC (draft-pan-
 * tsvwg-hpccplus-02 section 6.2): NewINT on its records, W in the
 * response when Wc was updated (at most once per T), or a refusal: rx-answer
 * 0, the module's parameters unknown, no TCP connection here for the
 * flow (@tcp_ok false, tcp-check), the table full, or records that
 * cannot be used (none, a hop without B).  B missing from a record (IOAM,
 * INT-MD) comes from the capacity table, as the sender would take it.
 */
static void rx_answer(const struct hpcc_pkt *p, uint32_t n, bool tcp_ok,
		      uint64_t now, struct hpcc_resp_opt *o)
{
	struct hpcc_hop_rec hops[HPCC_MAX_HOPS];
	enum hpccd_rx_res r = HPCCD_RX_INVALID;
	uint32_t w = 0;

	D.counters[C_RX_ASKED]++;
	if (!D.cfg.rx_answer || !D.rxp_ok || !D.rx.f || !tcp_ok) {
		D.counters[C_RX_REFUSED]++;
		o->mode = HPCC_WIRE_MODE_REFUSED;
		return;
	}
	rated_hops(hops, p);
	r = hpccd_rx_note(&D.rx, &D.rxp, &p->tuple, hops, p->nhop, n, now,
			  &w);
	switch (r) {
	case HPCCD_RX_SEND_W:
		D.counters[C_RX_W_SENT]++;
		o->w = w;
		/* fall through */
	case HPCCD_RX_KEEP:
		o->mode = HPCC_WIRE_MODE_RX;
		return;
	case HPCCD_RX_FULL:
		D.counters[C_RX_FULL]++;
		break;
	case HPCCD_RX_INVALID:
	case HPCCD_RX_SEND_U:	/* hpccd_rx_note_u()'s only */
		D.counters[C_RX_INVALID]++;
		break;
	}
	o->mode = HPCC_WIRE_MODE_REFUSED;
}

/*
 * u_answer() - a private response to a flow that is not receiver-based
 * (draft-miao-ccwg-hpcc section 9.1: the response "only carries U"): U
 * measured here on the records the response withholds, sent when they
 * updated it.  Without this host's module parameters, a TCP connection
 * for the flow (@tcp_ok, tcp-check), a slot or usable records, the
 * response carries neither records nor U, and the sender
 * falls back once its telemetry is stale.
 */
static void u_answer(const struct hpcc_pkt *p, bool tcp_ok, uint64_t now,
		     struct hpcc_resp_opt *o)
{
	struct hpcc_hop_rec hops[HPCC_MAX_HOPS];
	enum hpccd_rx_res r = HPCCD_RX_INVALID;

	o->mode |= HPCC_WIRE_MODE_U;
	if (D.rxp_ok && D.rx.f && tcp_ok) {
		rated_hops(hops, p);
		r = hpccd_rx_note_u(&D.rx, &D.rxp, &p->tuple, hops, p->nhop,
				    now, &o->u);
	}
	switch (r) {
	case HPCCD_RX_SEND_U:
		o->has_u = true;
		D.counters[C_U_SENT]++;
		break;
	case HPCCD_RX_KEEP:
		D.counters[C_U_KEPT]++;
		break;
	default:
		D.counters[C_U_UNAVAILABLE]++;
	}
}

/*
 * response_bound() - the largest response @p can draw, built in @buf: its
 * records (none when @private), N with report-n-flows, the mode extension
 * and W (receiver-based asked) or U (@private; the same size), a MAC with
 * @key.  The response sent is at most this (hpcc_build_response_opt()).
 * Return: its length, 0 when none can be built.
 */
static size_t response_bound(const struct hpcc_pkt *p, bool private,
			     const struct hpccd_key *key, uint8_t *buf)
{
	struct hpcc_resp_opt o = { 0 };
	bool rx = p->mode & HPCC_WIRE_MODE_RX;

	o.n_flows = D.cfg.report_n_flows && D.nf.max ? 1 : 0;
	o.mode = (rx ? HPCC_WIRE_MODE_RX : 0) |
		 (private ? HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U : 0);
	o.w = rx ? 1 : 0;
	o.has_u = private && !rx;
	o.mac_key_id = key ? key->id : 0;
	return hpcc_build_response_opt(buf, p, D.response_dscp, 0, &o);
}

/*
 * on_probe() - answer a probe addressed to this host, of either family:
 * the checks are the same (PACKET_HOST, a local unicast destination, a
 * unicast source with a route back, the per-source limit); an IPv6
 * source's limit is its /64's (hpccd_rl_allow()).
 */
static void on_probe(struct hpcc_pkt *p, const uint8_t *raw,
		     const struct sockaddr_ll *ll)
{
	int fam = p->tuple.family == AF_INET6 ? AF_INET6 : AF_INET;
	const void *src = fam == AF_INET6 ? (const void *)p->tuple.saddr6 :
					    (const void *)&p->tuple.saddr;
	const void *dst = fam == AF_INET6 ? (const void *)p->tuple.daddr6 :
					    (const void *)&p->tuple.daddr;
	bool on_lo = ll->sll_ifindex == 1;	/* LOOPBACK_IFINDEX */
	struct hpcc_resp_opt o = { 0 };
	const struct hpccd_key *key;
	uint8_t buf[HPCC_PKT_MAX], type;
	enum src_verdict v;
	int dtype, vrf, ifx;
	bool private, own, tcp_ok = true;	/* may have receiver state */
	size_t len, probe_len, bound;
	uint64_t now;
	uint32_t n = 0;

	D.counters[C_PROBES_RECEIVED]++;
	/* its IP length (hpcc_parse() checked it against the buffer) */
	probe_len = fam == AF_INET6 ? HPCC_IP6_LEN + hpcc_get16(raw + 4) :
				      hpcc_get16(raw + 2);
	/* an IFA-shaped packet of another protocol: not ours to answer */
	if (p->ifa_off && p->ifa_proto != D.ifa_protocol) {
		D.counters[C_IFA_OTHER_PROTOCOL]++;
		return;
	}
	if (ll->sll_pkttype != PACKET_HOST) {
		D.counters[C_PROBES_NOT_UNICAST]++;
		return;
	}
	now = now_ns();
	/* the VRF of the interface it came in on: its lookups use that
	 * table (cached per interface: not the wire's to multiply)
	 */
	vrf = on_lo ? 0 : vrf_of(ll->sll_ifindex, now);
	/* the device a socket of the flow would be bound to */
	ifx = vrf ? vrf : ll->sll_ifindex;
	/* what needs no lookup first (a destination the cache knows is
	 * not this host's: a forwarding host sees probes for others as
	 * PACKET_HOST, and they must not spend their sources' tokens or the
	 * budget), then the limits, then the lookups
	 */
	if (martian(fam, dst) || (loopback_addr(fam, dst) && !on_lo) ||
	    (addr_type_cached(fam, dst, vrf, now, &type) &&
	     type != RTN_LOCAL)) {
		D.counters[C_PROBES_NOT_LOCAL]++;
		return;
	}
	if (martian(fam, src) || (loopback_addr(fam, src) && !on_lo)) {
		D.counters[C_PROBES_BAD_SOURCE]++;
		return;
	}
	/* this host's known TCP flows first (a cache read): their probes
	 * have a per-source limit of their own, which a flood naming their
	 * peer's address with other ports cannot spend, and no budget
	 */
	own = own_flow(&p->tuple, ifx, now);
	if (!hpccd_rl_allow(own ? &D.rl_own : &D.rl, fam, src, now)) {
		D.counters[C_RESPONSES_RATE_LIMITED]++;
		D.counters[C_RESPONSES_RL_CROWDED] = D.rl.crowded +
						     D.rl_own.crowded;
		return;
	}
	/* the budget bounds what probes not tied to this host's TCP
	 * connections draw; those of its own flows (an incast receiver's
	 * many senders) are bounded by the per-source limit only.  A flood
	 * beyond it has this host's connections learnt at once (once a
	 * second at most), so a new flow's probe is not refused with it.
	 */
	if (!own && !hpccd_budget_take(&D.budget, now)) {
		tcp_flows_learn(now);
		own = own_flow(&p->tuple, ifx, now);
		if (!own) {
			D.counters[C_RESPONSES_OVER_BUDGET]++;
			return;
		}
	}
	D.counters[C_PROBES_OWN_FLOW] += own;
	dtype = addr_type(fam, dst, vrf, now);
	if (dtype < 0) {
		D.counters[C_PROBES_LOOKUP_FAILED]++;
		return;
	}
	if (dtype != RTN_LOCAL) {
		D.counters[C_PROBES_NOT_LOCAL]++;
		return;
	}
	v = src_check(fam, src, dst, ll->sll_ifindex, vrf, on_lo, now);
	D.counters[C_NEIGH_LOOKUPS] = D.nb.lookups;
	D.counters[C_NEIGH_STALLS] = D.nb.stalled;
	switch (v) {
	case SRC_OK:
		break;
	case SRC_BAD:
		D.counters[C_PROBES_BAD_SOURCE]++;
		return;
	case SRC_RP:
		D.counters[C_PROBES_RP_FAILED]++;
		return;
	case SRC_NO_REPLY:
		D.counters[C_PROBES_LOOKUP_FAILED]++;
		return;
	case SRC_NEW_NEIGH:
		/* paid for: D.nb let it create a neighbour entry */
		break;
	case SRC_NO_NEIGH:
		D.counters[C_PROBES_NO_NEIGHBOUR]++;
		return;
	}
	/* the sender asked for an IOAM trace, an INT-MD stack or an IFA
	 * stack: its hops, when it has any, are the response's records (an
	 * hpcc_int hop of the project's encoding on the same path may have
	 * stamped the probe's one record as well; it is dropped)
	 */
	if (p->ioam_off)
		ioam_records(p, raw);
	if (p->int_off)
		int_records(p, raw);
	if (p->ifa_off)
		ifa_records(p, raw);
	private = hpccd_cfg_private(&D.cfg, fam, src);
	key = hpcc_keyring_sign_key(D.ring, fam, src);
	/* the size check and the bytes before any state or MAC: a
	 * spoofed probe must not draw more bytes than it cost; a probe of
	 * this host's TCP flows may draw the fixed tail more
	 * (response-amplification), and one whose flow the cache does not
	 * know yet is looked up for it (its budget token is spent); the
	 * largest response the probe can draw (N, mode, W or U, MAC) is
	 * charged, at most 8 bytes more than sent
	 */
	bound = response_bound(p, private, key, buf);
	if (!hpccd_cfg_response_fits(&D.cfg, bound, probe_len, own)) {
		if (own || !D.cfg.tcp_check ||
		    !hpccd_cfg_response_fits(&D.cfg, bound, probe_len, true) ||
		    !tcp_flow_known(&p->tuple, ifx, now)) {
			D.counters[C_RESPONSES_TOO_LARGE]++;
			return;
		}
		own = true;
		D.counters[C_PROBES_OWN_FLOW]++;
	}
	if (!bound ||
	    (!own && !hpccd_budget_bytes(&D.budget, (uint32_t)bound, now))) {
		D.counters[C_RESPONSES_OVER_BYTES] += bound > 0;
		return;
	}
	/* state only for flows of this host's TCP connections (tcp-check):
	 * N, receiver-based W, only-U
	 */
	if (D.cfg.tcp_check &&
	    ((D.cfg.report_n_flows && D.nf.max) ||
	     (p->mode & HPCC_WIRE_MODE_RX) || private) &&
	    !tcp_flow_known(&p->tuple, ifx, now)) {
		D.counters[C_PROBES_NO_TCP]++;
		tcp_ok = false;
	}
	if (D.cfg.report_n_flows && D.nf.max && tcp_ok) {
		uint64_t over = D.nf.over_source;

		n = hpccd_nf_note(&D.nf, &p->tuple, p->hops, p->nhop, now);
		D.counters[C_N_FLOWS_EVICTED] = D.nf.evicted;
		D.counters[C_N_FLOWS_OVER_SOURCE] = D.nf.over_source;
		/* a flow beyond its source's share gets no state either */
		if (D.nf.over_source != over)
			tcp_ok = false;
	}
	o.n_flows = n;
	if (p->mode & HPCC_WIRE_MODE_RX)
		rx_answer(p, n, tcp_ok, now, &o);
	if (private) {
		o.mode |= HPCC_WIRE_MODE_PRIVATE;
		D.counters[C_RESPONSES_PRIVATE]++;
		/* only W for a receiver-based flow, else only U */
		if (!(o.mode & HPCC_WIRE_MODE_RX))
			u_answer(p, tcp_ok, now, &o);
	}
	if (key)
		o.mac_key_id = key->id;
	len = hpcc_build_response_opt(buf, p, D.response_dscp, ++D.ip_id, &o);
	if (len > bound)
		return;		/* cannot happen: response_bound() */
	if (len && key) {
		if (hpcc_auth_sign(buf, len, key))
			return;		/* cannot happen: built above */
		D.counters[C_RESPONSES_SIGNED]++;
	}
	if (len && !send_pkt(buf, len, fam, src,
			     link_local6(fam, src) ? ll->sll_ifindex : 0)) {
		D.counters[C_RESPONSES_SENT]++;
		D.counters[C_RESPONSE_BYTES] += len;
	}
}

/* --- the sender role ------------------------------------------------------- */

/*
 * flow_got() - the module's flow-get reply @m about @f: probe it if it still
 * has data in flight
 */
static void flow_got(struct hpccd_flow *f, const struct hpcc_flow_msg *m)
{
	struct hpcc_tuple t;

	f->srtt_us = m->a.srtt;
	f->in_flight = m->a.in_flight;
	flow_take_cc(f, m);
	/* the label, as events and dumps give it (hpcc_flow_msg_tuple()) */
	if (hpcc_flow_msg_tuple(m, &t))
		f->t.flowlabel = t.flowlabel;
	if (f->in_flight)
		probe_want(f);
}

/*
 * check_flow() - ask the module about @f and wait for the answer (after a
 * dump that may have missed it: reconcile()); a flow the module no longer
 * has (ENOENT) is forgotten.  The probe cycle asks without waiting:
 * ask_flow().
 */
static void check_flow(struct hpccd_flow *f)
{
	struct hpcc_flow_msg m;
	int err = hpcc_genl_flow_get(&D.req, &f->t, &m);

	if (err == -ENOENT) {
		D.counters[C_FLOWS_GONE]++;
		flow_forget(f);
		return;
	}
	if (err) {
		/* the module is busy or going: try again after a backoff */
		logmsg(LOG_DEBUG, "flow-get: %s", strerror(-err));
		hpccd_backoff(&D.sched, f, now_ns());
		return;
	}
	flow_got(f, &m);
}

/* Send the telemetry pushes of this burst of responses. */
static void push_flush(void)
{
	int err;

	if (!D.push_batch)
		return;
	err = hpcc_genl_send_batch(&D.push, D.push_batch);
	if (err) {
		/* the module refused the whole batch at the socket (it is
		 * going, or memory is short): its flows keep probing
		 */
		D.counters[C_SEND_ERRORS]++;
		logmsg(LOG_DEBUG, "telemetry-set: %s", strerror(-err));
	}
	mnl_nlmsg_batch_reset(D.push_batch);
}

/* Queue a telemetry-set for flow @t; the batch goes out when it is full or
 * at the end of the burst (push_flush()).
 */
static void push_add(const struct hpcc_tuple *t, const struct hpcc_pkt *p)
{
	uint32_t seq;

	if (!D.push_batch)
		D.push_batch = mnl_nlmsg_batch_start(D.push_buf, PUSH_BATCH);
	D.push.family_id = D.req.family_id;
	seq = hpcc_genl_telemetry_put(&D.push,
				      mnl_nlmsg_batch_current(D.push_batch),
				      t, p->hops, p->nhop, p->n_flows);
	D.push_ring[seq % PUSH_RING].seq = seq;
	D.push_ring[seq % PUSH_RING].ask = false;
	D.push_ring[seq % PUSH_RING].t = *t;
	if (!mnl_nlmsg_batch_next(D.push_batch))
		push_flush();	/* the batch without the last one */
}

/*
 * A sample the receiver computed: its W when receiver-based (or none: W
 * updated there), else its U (the privacy mode that carries only U).
 */
static void push_add_rx(const struct hpcc_tuple *t, const struct hpcc_pkt *p)
{
	uint32_t seq;

	if (!D.push_batch)
		D.push_batch = mnl_nlmsg_batch_start(D.push_buf, PUSH_BATCH);
	D.push.family_id = D.req.family_id;
	if (p->mode & HPCC_WIRE_MODE_RX)
		seq = hpcc_genl_telemetry_put_rx(&D.push,
						 mnl_nlmsg_batch_current(D.push_batch),
						 t, NULL, 0, p->n_flows, true,
						 p->w_rx);
	else
		seq = hpcc_genl_telemetry_put_u(&D.push,
						mnl_nlmsg_batch_current(D.push_batch),
						t, p->n_flows, p->u_rx);
	D.push_ring[seq % PUSH_RING].seq = seq;
	D.push_ring[seq % PUSH_RING].ask = false;
	D.push_ring[seq % PUSH_RING].t = *t;
	if (!mnl_nlmsg_batch_next(D.push_batch))
		push_flush();
}

/*
 * ask_flow() - ask the module about idle @f (has it data in flight?)
 * without waiting: a flow-get in the burst's batch, sent by push_flush()
 * with the telemetry pushes, its reply read with theirs (flow_got(), or
 * push_err_cb()).  Until the reply @f is HPCCD_ASKING; if no reply comes
 * (lost to a full receive buffer), it is asked again after its timeout
 * (hpccd_ask()).  The reply is taken only while @f is still asked that
 * question (hpccd_answered()): a late one, after the flow was probed or
 * asked again, is ignored.  A flow that is not idle (probed meanwhile,
 * or already asked) is left alone.
 */
static void ask_flow(struct hpccd_flow *f)
{
	uint32_t seq;

	if (!D.req.family_id || f->state != HPCCD_IDLE)
		return;
	if (!D.push_batch)
		D.push_batch = mnl_nlmsg_batch_start(D.push_buf, PUSH_BATCH);
	D.push.family_id = D.req.family_id;
	seq = hpcc_genl_flow_get_put(&D.push,
				     mnl_nlmsg_batch_current(D.push_batch),
				     &f->t);
	hpccd_ask(&D.sched, f, now_ns(), seq);
	D.push_ring[seq % PUSH_RING].seq = seq;
	D.push_ring[seq % PUSH_RING].ask = true;
	D.push_ring[seq % PUSH_RING].t = f->t;
	D.counters[C_FLOW_GETS]++;
	if (!mnl_nlmsg_batch_next(D.push_batch))
		push_flush();
}

/*
 * response_authentic() - the MAC check of a response (hpcc_auth_check()):
 * counted; false when it is refused.
 */
static bool response_authentic(const uint8_t *raw, const struct hpcc_pkt *p,
			       uint64_t now)
{
	enum hpcc_auth_result r = hpcc_auth_check(D.ring, raw, p, now);

	switch (r) {
	case HPCC_AUTH_NONE:
		return true;
	case HPCC_AUTH_OK:
		D.counters[C_AUTH_OK]++;
		return true;
	case HPCC_AUTH_OK_RETIRED:
		D.counters[C_AUTH_OK_RETIRED]++;
		return true;
	case HPCC_AUTH_MISSING:
		D.counters[C_AUTH_MISSING]++;
		break;
	case HPCC_AUTH_UNKNOWN_KEY:
		D.counters[C_AUTH_UNKNOWN_KEY]++;
		break;
	case HPCC_AUTH_BAD:
		D.counters[C_AUTH_BAD]++;
		break;
	}
	/* auth-permissive: counted above, taken all the same */
	if (!hpcc_auth_accepted(r, &D.cfg, p))
		return false;
	D.counters[C_AUTH_PERMITTED]++;
	return true;
}

/* The push that carried sequence number @seq, if the ring still has it. */
static struct hpccd_flow *push_flow(uint32_t seq)
{
	if (D.push_ring[seq % PUSH_RING].seq != seq)
		return NULL;
	return hpccd_flow_find(&D.sched, &D.push_ring[seq % PUSH_RING].t);
}

/* The module took a push: what it says of the flow now.  The reply names
 * no flow (in-flight and srtt only); its sequence number does.  Or the
 * reply to a flow-get of ask_flow().
 */
static int push_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	uint32_t seq = nlh->nlmsg_seq;
	struct hpcc_flow_msg m;
	struct hpccd_flow *f;

	if (hpcc_genl_flow_cb(nlh, &m) != MNL_CB_OK)
		return MNL_CB_OK;
	if (m.cmd == HPCC_CMD_FLOW_GET) {
		f = push_flow(seq);
		/* not a late reply: the flow is still asked this question */
		if (f && D.push_ring[seq % PUSH_RING].ask &&
		    hpccd_answered(&D.sched, f, seq))
			flow_got(f, &m);
		return MNL_CB_OK;
	}
	if (m.cmd != HPCC_CMD_TELEMETRY_SET)
		return MNL_CB_OK;
	D.counters[C_TELEMETRY_PUSHED]++;
	f = push_flow(nlh->nlmsg_seq);
	if (!f)
		return MNL_CB_OK;
	f->srtt_us = m.a.srtt;
	f->in_flight = m.a.in_flight;
	flow_take_cc(f, &m);
	/* a flow whose sending resumed while its last probe was out */
	if (f->in_flight)
		probe_want(f);
	return MNL_CB_OK;
}

/* The module refused a push or a flow-get: the flow is gone, or it backs
 * off.
 */
static void push_err_cb(uint32_t seq, int err, void *data)
{
	struct hpccd_flow *f = push_flow(seq);
	bool ask = D.push_ring[seq % PUSH_RING].seq == seq &&
		   D.push_ring[seq % PUSH_RING].ask;

	/* a late refusal of a flow-get: the flow was probed or asked again
	 * since (a flow-active, so it lives), and what happened since says
	 * more; only a refusal other than ENOENT is counted
	 */
	if (ask && f && !hpccd_answered(&D.sched, f, seq)) {
		D.counters[C_FLOW_GETS_FAILED] += err != -ENOENT;
		return;
	}
	if (err == -ENOENT) {
		D.counters[C_FLOWS_GONE]++;
		if (f)
			flow_forget(f);
		return;
	}
	if (ask) {
		/* the module is busy or going: ask again after a backoff */
		D.counters[C_FLOW_GETS_FAILED]++;
		logmsg(LOG_DEBUG, "flow-get: %s", strerror(-err));
		if (f)
			hpccd_backoff(&D.sched, f, now_ns());
		return;
	}
	/* counted; the flow asks again after a backoff, so a refusal never
	 * ends its probing (nor turns into a loop)
	 */
	D.counters[C_TELEMETRY_REJECTED]++;
	logmsg(LOG_DEBUG, "telemetry-set: %s", strerror(-err));
	if (f)
		hpccd_backoff(&D.sched, f, now_ns());
}

static void read_push_replies(void)
{
	hpcc_genl_read_replies(&D.push, 64, push_reply_cb, push_err_cb, NULL,
			       &D.counters[C_PUSH_REPLIES_LOST]);
}

/*
 * on_response() - a response to one of our probes.  The next probe leaves
 * at once while the module last said the flow had data in flight (the
 * draft's cadence: a new probe when the response arrives, section 6.2),
 * and the records are pushed after it, in the burst's batch; the module's
 * reply (read later) updates in-flight and srtt, and a refusal backs the
 * flow off then.
 */
static void on_response(struct hpcc_pkt *p, const uint8_t *raw)
{
	struct hpcc_tuple t;
	struct hpccd_flow *f;
	uint64_t now = now_ns();
	int i;

	hpcc_tuple_reverse(&t, &p->tuple);
	f = hpccd_flow_find(&D.sched, &t);
	D.counters[C_RESPONSES_RECEIVED]++;
	if (!f || f->state != HPCCD_OUTSTANDING || f->probe_id != p->probe_id) {
		D.counters[C_RESPONSES_UNEXPECTED]++;
		return;
	}
	/* before the probe is taken as answered: a forged response must not
	 * stand for the real one, which may still come
	 */
	if (!response_authentic(raw, p, now))
		return;
	if (!hpccd_response(&D.sched, f, p->probe_id, now)) {
		D.counters[C_RESPONSES_UNEXPECTED]++;
		return;
	}
	if (p->mode & HPCC_WIRE_MODE_REFUSED &&
	    hpccd_cfg_rx_based(&D.cfg, t.family, tuple_daddr(&t))) {
		/* the receiver does not run it now (its table may be full):
		 * this flow asks again after a backoff
		 */
		D.counters[C_RESPONSES_RX_REFUSED]++;
		hpccd_rx_refused(f, now);
	}
	if (p->mode & HPCC_WIRE_MODE_RX) {
		hpccd_rx_accepted(f);
		D.counters[C_RESPONSES_RX]++;
		D.counters[C_RESPONSES_RX_W] += !!p->w_rx;
		D.counters[C_RESPONSES_WITH_N] += !!p->n_flows;
		if (f->in_flight)
			probe_want(f);
		push_add_rx(&t, p);
		return;
	}
	if (p->mode & HPCC_WIRE_MODE_U) {
		/* only U (section 9.1): pushed when the response has one;
		 * one without (the flow's first probe there, a path change,
		 * a receiver that could not measure) is probed again, and
		 * the flow falls back if none ever comes
		 */
		D.counters[C_RESPONSES_U]++;
		if (!p->has_u) {
			ask_flow(f);
			return;
		}
		D.counters[C_RESPONSES_U_VALUE]++;
		D.counters[C_RESPONSES_WITH_N] += !!p->n_flows;
		if (f->in_flight)
			probe_want(f);
		push_add_rx(&t, p);
		return;
	}
	if (!p->nhop) {
		/* No INT hop stamped this probe (none on the path, or one
		 * being reconfigured): nothing to feed, but keep probing
		 * while the flow sends, or it would never get telemetry
		 * again until it idles and the module reports it active.
		 */
		D.counters[C_RESPONSES_NO_HOPS]++;
		ask_flow(f);
		return;
	}
	for (i = 0; i < p->nhop; i++) {
		/* no B (IOAM, INT-MD): the capacity table's, or the default */
		if (!p->hops[i].rate) {
			p->hops[i].rate = hpccd_cfg_rate(&D.cfg,
							 p->hops[i].switch_id,
							 p->hops[i].port_id);
			if (!p->hops[i].rate) {
				D.counters[C_RESPONSES_NO_RATE]++;
				ask_flow(f);
				return;
			}
		}
		if (p->hops[i].rate > 1600000000000ULL) {
			D.counters[C_RESPONSES_BAD_HOP]++;
			ask_flow(f);
			return;
		}
	}
	if (f->in_flight)
		probe_want(f);
	if (p->n_flows)
		D.counters[C_RESPONSES_WITH_N]++;
	push_add(&t, p);
}

/* Probes and responses of one family's packet socket @fd. */
static void read_packets(int fd)
{
	struct sockaddr_ll ll;
	socklen_t ll_len;
	uint8_t buf[2048];
	struct hpcc_pkt p;
	enum hpcc_parse_err e;
	ssize_t n;
	int budget = 256;	/* then let the other sources run */

	while (budget--) {
		ll_len = sizeof(ll);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&ll, &ll_len);
		if (n < 0)
			break;
		e = hpcc_parse(buf, n, &p);
		if (e != HPCC_PARSE_OK) {
			D.counters[C_PARSE_BASE + e]++;
			continue;
		}
		if (p.type == HPCC_WIRE_PROBE && p.dscp == D.probe_dscp)
			on_probe(&p, buf, &ll);
		else if (p.type == HPCC_WIRE_RESPONSE &&
			 p.dscp == D.response_dscp)
			on_response(&p, buf);
		else
			D.counters[C_BAD_DSCP]++;
	}
	push_flush();
	read_push_replies();
}

static void on_timer(void)
{
	struct hpccd_flow *f;
	uint64_t exp, now;
	bool lost;

	if (read(D.timer_fd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		return;
	D.timer_at = 0;
	now = now_ns();
	D.woke_at = now;
	while ((f = hpccd_next_queued(&D.sched, now)))
		probe_send(f, now);
	while ((f = hpccd_next_expired(&D.sched, now, &lost))) {
		if (lost)
			D.counters[C_PROBES_TIMED_OUT]++;
		ask_flow(f);
	}
	/* the flow-gets, and their replies: the module answered in send() */
	push_flush();
	read_push_replies();
	if (now >= D.reconcile_at)
		reconcile();
}

/* --- statistics ------------------------------------------------------------ */

/* Packets the packet sockets dropped for a full receive buffer. */
static void packet_drops(void)
{
	int fds[2] = { D.pkt_fd, D.pkt6_fd }, i;
	struct tpacket_stats st;
	socklen_t len;

	/* the kernel resets the counts on each read */
	for (i = 0; i < 2; i++) {
		len = sizeof(st);
		if (fds[i] >= 0 &&
		    !getsockopt(fds[i], SOL_PACKET, PACKET_STATISTICS, &st,
				&len))
			D.counters[C_SOCKET_DROPS] += st.tp_drops;
	}
}

/*
 * stats_open() - a new file beside the statistics file, FILE.XXXXXX
 * (mkstemp(): a fresh name, O_EXCL, so never a symbolic link or another's
 * file), mode 0666 less the umask as fopen() would give; its name in @tmp.
 */
static FILE *stats_open(char *tmp, size_t len)
{
	mode_t mask = umask(0);
	FILE *out;
	int fd;

	umask(mask);
	if ((size_t)snprintf(tmp, len, "%s.XXXXXX", D.cfg.stats_file) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, 0666 & ~mask) || !(out = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		return NULL;
	}
	return out;
}

/*
 * Counters as key=value lines, then one line per flow; a statistics file
 * is replaced whole (rename() of stats_open()'s file).
 */
static void write_stats(void)
{
	const struct hpccd_flow *f;
	char tmp[300], s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	bool v6;
	FILE *out;
	int i;

	if (!D.cfg.stats_file[0]) {
		out = stderr;
	} else {
		out = stats_open(tmp, sizeof(tmp));
		if (!out) {
			logmsg(LOG_ERR, "%s: %s", D.cfg.stats_file,
			       strerror(errno));
			return;
		}
	}
	packet_drops();
	D.counters[C_NL_SKIPPED] = D.req.skipped;
	D.counters[C_NL_ROUND_TRIPS] = D.req.talks;
	fprintf(out, "connected=%d\nflows=%u\nqueued=%u\n",
		D.req.family_id != 0, D.sched.nflows, hpccd_queued(&D.sched));
	for (i = 0; i < C_NUM; i++)
		fprintf(out, "%s%s=%" PRIu64 "\n",
			i < C_PARSE_BASE ? "" : "dropped-",
			i < C_PARSE_BASE ? counter_names[i] :
			hpcc_parse_err_name(i - C_PARSE_BASE), D.counters[i]);
	LIST_FOREACH(f, &D.sched.flows, all) {
		v6 = f->t.family == AF_INET6;
		inet_ntop(v6 ? AF_INET6 : AF_INET,
			  v6 ? (const void *)f->t.saddr6 :
			  (const void *)&f->t.saddr, s, sizeof(s));
		inet_ntop(v6 ? AF_INET6 : AF_INET,
			  v6 ? (const void *)f->t.daddr6 :
			  (const void *)&f->t.daddr, d, sizeof(d));
		/* IPv6 as [addr]:port, and the flow label probes carry */
		fprintf(out, "flow %s%s%s:%u %s%s%s:%u", v6 ? "[" : "", s,
			v6 ? "]" : "", ntohs(f->t.sport), v6 ? "[" : "", d,
			v6 ? "]" : "", ntohs(f->t.dport));
		if (v6)
			fprintf(out, " flowlabel=0x%05x", f->t.flowlabel);
		fprintf(out, " probes=%" PRIu64 " responses=%"
			PRIu64 " lost=%" PRIu64 " rtt_us=%" PRIu64
			" srtt_us=%u probing=%d\n", f->probes,
			f->responses, f->lost, f->rtt_ns / 1000, f->srtt_us,
			f->state != HPCCD_IDLE);
	}
	if (out != stderr) {
		if (fclose(out) || rename(tmp, D.cfg.stats_file)) {
			logmsg(LOG_ERR, "%s: %s", D.cfg.stats_file,
			       strerror(errno));
			unlink(tmp);
		}
	}
}

/* --- command line, setup, main loop ---------------------------------------- */

/*
 * The command line's settings, by key (the last of an option given twice
 * wins), and the configuration file: each load of the configuration (the
 * start, each SIGHUP) applies them over the file's, as hpccd(8) says.
 */
enum {
	CL_BUDGET, CL_HOPS, CL_STATS, CL_LOG, CL_VERBOSE, CL_RESPONSE_BUDGET,
	CL_RESPONSE_BUDGET_BYTES, CL_NUM
};

static struct {
	const char *file;
	bool file_given;
	const char *kv[CL_NUM][2];
} CL = { .file = "/etc/hpcc/hpccd.conf" };

static void cl_arg(int slot, const char *key, const char *value)
{
	CL.kv[slot][0] = key;
	CL.kv[slot][1] = value;
}

/*
 * load_cfg() - the configuration a start gives (hpccd_cfg_load(): the
 * defaults, the file, the command line) into @c
 */
static int load_cfg(struct hpccd_cfg *c)
{
	const char *kv[2 * CL_NUM];
	unsigned int i, n = 0;

	for (i = 0; i < CL_NUM; i++)
		if (CL.kv[i][0]) {
			kv[2 * n] = CL.kv[i][0];
			kv[2 * n + 1] = CL.kv[i][1];
			n++;
		}
	return hpccd_cfg_load(c, CL.file, CL.file_given, kv, n);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hpccd [-c FILE] [-b PPS] [-H HOPS] [-S FILE] [-s] [-v]\n"
		"             [--response-budget RPS] [--response-budget-bytes BPS]\n"
		"       hpccd -h | -V\n"
		"  -c, --config FILE        configuration file (default /etc/hpcc/hpccd.conf)\n"
		"  -b, --probe-budget PPS   probe budget, probes per second for all flows\n"
		"  -H, --max-hops HOPS      hop records per probe, 1..8\n"
		"  -S, --stats-file FILE    statistics file, written on SIGUSR1 and at exit\n"
		"      --response-budget RPS        responses per second, all sources\n"
		"      --response-budget-bytes BPS  response bytes per second, all sources\n"
		"  -s, --syslog             log to syslog instead of stderr\n"
		"  -v, --verbose            debug messages\n"
		"  -h, --help               this text\n"
		"  -V, --version            the version\n");
}

/*
 * The command line.  The long options that set a configuration key have
 * its name (probe-budget, max-hops, stats-file), so the man page's
 * CONFIGURATION FILE section and --help agree.
 */
static const char short_opts[] = "c:b:H:S:svhV";
enum { OPT_RESPONSE_BUDGET = 256, OPT_RESPONSE_BUDGET_BYTES };
static const struct option long_opts[] = {
	{ "config",	  required_argument, NULL, 'c' },
	{ "probe-budget", required_argument, NULL, 'b' },
	{ "max-hops",	  required_argument, NULL, 'H' },
	{ "stats-file",	  required_argument, NULL, 'S' },
	{ "response-budget", required_argument, NULL, OPT_RESPONSE_BUDGET },
	{ "response-budget-bytes", required_argument, NULL,
	  OPT_RESPONSE_BUDGET_BYTES },
	{ "syslog",	  no_argument,	     NULL, 's' },
	{ "verbose",	  no_argument,	     NULL, 'v' },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ "version",	  no_argument,	     NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static int epoll_add(int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(D.ep_fd, EPOLL_CTL_ADD, fd, &e);
}

/* A receive buffer of @bytes (CAP_NET_ADMIN: beyond rmem_max), else rmem_max. */
static void set_rcvbuf(int fd, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

static void apply_cfg(void)
{
	hpccd_sched_set(&D.sched, D.cfg.budget, D.cfg.timeout_min_us,
			D.cfg.timeout_max_us, D.cfg.max_flows);
	D.rl.rate = D.cfg.response_rate;
	D.rl_own.rate = D.cfg.response_rate;
	hpccd_budget_set(&D.budget, D.cfg.response_budget,
			 D.cfg.response_budget_bytes);
	/* the receiver's flow count: a new size starts it afresh */
	if (D.nf.max != D.cfg.n_flows_max) {
		hpccd_nf_free(&D.nf);
		if (hpccd_nf_init(&D.nf, D.cfg.n_flows_max,
				  D.cfg.n_flows_window_ms * 1000000ULL,
				  random64()))
			logmsg(LOG_ERR, "n-flows count: out of memory; responses carry no N");
	}
	D.nf.window_ns = D.cfg.n_flows_window_ms * 1000000ULL;
	D.nf.per_source = D.cfg.n_flows_per_source < D.nf.max ?
			  D.cfg.n_flows_per_source : D.nf.max;
	/* receiver-based flows: a new size starts the table afresh */
	if (!D.rx.f || D.rx.mask + 1 < D.cfg.rx_max_flows ||
	    (D.rx.mask + 1) / 2 >= D.cfg.rx_max_flows) {
		hpccd_rx_free(&D.rx);
		if (hpccd_rx_init(&D.rx, D.cfg.rx_max_flows, 1000000000ULL,
				  random64()))
			logmsg(LOG_ERR, "rx-max-flows: out of memory; receiver-based requests refused");
	}
	/* the keys: those a reload removed stay accepted for the overlap */
	D.counters[C_KEYS_RETIRED] +=
		hpcc_keyring_load(D.ring, &D.cfg, now_ns(),
				  D.cfg.auth_overlap_s * 1000000000ULL);
	explicit_bzero(D.cfg.keys, sizeof(D.cfg.keys));
	D.cfg.n_keys = 0;
	/* the notify keys: the module's, pushed by connect_module() and
	 * after a reload
	 */
	sodium_memzero(D.nkeys, HPCCD_MAX_NKEYS * sizeof(*D.nkeys));
	memcpy(D.nkeys, D.cfg.nkeys, sizeof(D.cfg.nkeys));
	D.n_nkeys = D.cfg.n_nkeys;
	D.nkeys_owned |= D.n_nkeys > 0;
	explicit_bzero(D.cfg.nkeys, sizeof(D.cfg.nkeys));
	D.cfg.n_nkeys = 0;
	/* thousands of events (a burst of connections) before one is lost */
	if (D.ev.nl)
		set_rcvbuf(mnl_socket_get_fd(D.ev.nl),
			   (int)(D.cfg.event_buffer_kb << 10));
}

/*
 * signals_block() - block the signals hpccd reads from its signalfd
 * (SIGTERM, SIGINT, SIGHUP, SIGUSR1) and give their set in @mask (for
 * setup()'s signalfd).  main() calls it first of all: one of them sent
 * while hpccd starts (a reload right after the start, as systemd's
 * ExecReload or a testbed does) stays pending until the signalfd reads
 * it, instead of killing the daemon by its default action (bench-ccm lost
 * a sender's hpccd so, 2026-11-28).
 */
static void signals_block(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, mask, NULL);
}

/*
 * host_has_ipv6() - whether the namespace has an IPv6 address (::1 on an
 * up loopback included), read over rtnetlink (getifaddrs()), which a
 * sandbox that refuses AF_INET6 sockets still allows.
 */
static bool host_has_ipv6(void)
{
	struct ifaddrs *ifa, *i;
	bool v6 = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !v6; i = i->ifa_next)
		v6 = i->ifa_addr && i->ifa_addr->sa_family == AF_INET6;
	freeifaddrs(ifa);
	return v6;
}

/* setup() - everything but the configuration; @mask: signals_block()'s */
static int setup(const sigset_t *mask)
{
	int one = 1;
	uint64_t now = now_ns();

	if (hpccd_sched_init(&D.sched, D.cfg.budget, D.cfg.timeout_min_us,
			     D.cfg.timeout_max_us, D.cfg.max_flows,
			     random64(), now) ||
	    hpccd_rl_init(&D.rl, D.cfg.response_rate, 4096, random64()) ||
	    hpccd_rl_init(&D.rl_own, D.cfg.response_rate, 4096, random64())) {
		logmsg(LOG_ERR, "out of memory");
		return -1;
	}
	hpccd_budget_init(&D.budget, D.cfg.response_budget,
			  D.cfg.response_budget_bytes, now);
	hpccd_nb_init(&D.nb, now);
	D.raw_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	D.pkt_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			  htons(ETH_P_IP));
	if (D.raw_fd < 0 || D.pkt_fd < 0) {
		logmsg(LOG_ERR, "raw sockets: %s (CAP_NET_RAW needed)",
		       strerror(errno));
		return -1;
	}
	setsockopt(D.raw_fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	/* IPPROTO_RAW: the IPv6 header is ours (the kernel sets hdrincl) */
	D.raw6_fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (D.raw6_fd >= 0)
		D.pkt6_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC |
				   SOCK_NONBLOCK, htons(ETH_P_IPV6));
	if (D.raw6_fd < 0 || D.pkt6_fd < 0) {
		if (errno != EAFNOSUPPORT) {
			logmsg(LOG_ERR, "raw IPv6 sockets: %s", strerror(errno));
			return -1;
		}
		/* EAFNOSUPPORT with IPv6 addresses: a sandbox refused the
		 * family (systemd's RestrictAddressFamilies=, seccomp), not
		 * a host without IPv6; hpccd would neither probe nor answer
		 * IPv6 flows
		 */
		if (host_has_ipv6()) {
			logmsg(LOG_ERR, "raw IPv6 sockets: %s, but this host has IPv6 addresses: a sandbox forbids AF_INET6 (RestrictAddressFamilies=); not starting without IPv6",
			       strerror(EAFNOSUPPORT));
			return -1;
		}
		/* no IPv6 on this host: IPv4 only, IPv6 flows counted */
		logmsg(LOG_INFO, "no IPv6: IPv6 flows will not be probed");
		if (D.raw6_fd >= 0)
			close(D.raw6_fd);
		D.raw6_fd = -1;
	}
	/* room for bursts of probes; what overflows is counted (socket-drops) */
	set_rcvbuf(D.pkt_fd, 4 << 20);
	if (D.pkt6_fd >= 0)
		set_rcvbuf(D.pkt6_fd, 4 << 20);
	/* until the module says which DSCPs: drop everything */
	D.probe_dscp = D.response_dscp = 64;
	attach_filter();
	D.rt = mnl_socket_open(NETLINK_ROUTE);
	if (!D.rt || mnl_socket_bind(D.rt, 0, MNL_SOCKET_AUTOPID) < 0) {
		logmsg(LOG_ERR, "rtnetlink: %s", strerror(errno));
		return -1;
	}
	/* needed by tcp-check only (a reload may turn it on: then every
	 * lookup fails, counted, and no flow gets state)
	 */
	D.diag = mnl_socket_open(NETLINK_SOCK_DIAG);
	if (!D.diag || mnl_socket_bind(D.diag, 0, MNL_SOCKET_AUTOPID) < 0) {
		if (D.cfg.tcp_check) {
			logmsg(LOG_ERR, "sock_diag: %s", strerror(errno));
			return -1;
		}
		logmsg(LOG_WARNING, "sock_diag: %s; tcp-check 1 would refuse every flow",
		       strerror(errno));
		if (D.diag)
			mnl_socket_close(D.diag);
		D.diag = NULL;
	}
	/* a lookup never holds the event loop longer than this */
	{
		struct timeval tv = { .tv_usec = RT_TIMEOUT_US };

		setsockopt(mnl_socket_get_fd(D.rt), SOL_SOCKET, SO_RCVTIMEO,
			   &tv, sizeof(tv));
		if (D.diag)
			setsockopt(mnl_socket_get_fd(D.diag), SOL_SOCKET,
				   SO_RCVTIMEO, &tv, sizeof(tv));
	}
	D.cache_seed = random64();
	hpccd_tc_init(&D.tcache, random64());
	/* -ENOENT (no module yet) leaves the sockets open */
	hpcc_genl_open(&D.req, 1000);
	hpcc_genl_open(&D.ev, 0);
	hpcc_genl_open(&D.push, 0);
	if (!D.req.nl || !D.ev.nl || !D.push.nl) {
		logmsg(LOG_ERR, "netlink: %s", strerror(errno));
		return -1;
	}
	/* the replies of a full burst of pushes (256 of about 500 bytes) */
	set_rcvbuf(mnl_socket_get_fd(D.push.nl), 1 << 20);
	apply_cfg();
	if (D.ev.notify_grp &&
	    mnl_socket_setsockopt(D.ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &D.ev.notify_grp,
				  sizeof(D.ev.notify_grp)) < 0)
		logmsg(LOG_ERR, "join nlctrl notify: %s", strerror(errno));
	D.sig_fd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	D.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	D.ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (D.sig_fd < 0 || D.timer_fd < 0 || D.ep_fd < 0 ||
	    epoll_add(D.sig_fd) || epoll_add(D.timer_fd) ||
	    epoll_add(D.pkt_fd) ||
	    (D.pkt6_fd >= 0 && epoll_add(D.pkt6_fd)) ||
	    epoll_add(mnl_socket_get_fd(D.ev.nl)) ||
	    epoll_add(mnl_socket_get_fd(D.push.nl))) {
		logmsg(LOG_ERR, "setup: %s", strerror(errno));
		return -1;
	}
	connect_module();
	return 0;
}

/* The ring's keys of the key file, or those a reload retired. */
static unsigned int ring_keys(bool retired)
{
	unsigned int i, n = 0;

	for (i = 0; i < D.ring->n; i++)
		n += !D.ring->k[i].expires_ns != retired;
	return n;
}

/* Returns false to exit. */
static bool on_signal(void)
{
	struct signalfd_siginfo si;
	struct hpccd_cfg c;

	while (read(D.sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			return false;
		case SIGHUP:
			/* what a restart would read, all or nothing */
			if (load_cfg(&c)) {
				logmsg(LOG_ERR, "reload failed; settings kept");
			} else {
				D.cfg = c;
				apply_cfg();
				push_nkeys();
				logmsg(LOG_INFO, "reloaded %s: budget %u probes/s, %u hops per probe, response-rate %u, %u keys, %u retired",
				       D.cfg.file, D.cfg.budget, D.cfg.max_hops,
				       D.cfg.response_rate, ring_keys(false),
				       ring_keys(true));
			}
			/* the key bytes the file had (D.cfg's are gone) */
			explicit_bzero(&c, sizeof(c));
			sodium_stackzero(KEY_STACK);
			/* the module's parameters; the packet filters only
			 * change with its DSCPs (module_params())
			 */
			if (D.req.family_id)
				module_params();
			break;
		case SIGUSR1:
			write_stats();
			break;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	struct epoll_event evs[8];
	bool run = true;
	int opt, i, n;
	char *const *args = argv;
	sigset_t mask;

	signals_block(&mask);
	hpccd_cfg_log = cfg_log;
	/* the command line, kept for each load of the configuration */
	while ((opt = getopt_long(argc, args, short_opts, long_opts,
				  NULL)) != -1)
		switch (opt) {
		case 'c':
			CL.file = optarg;
			CL.file_given = true;
			break;
		case 'b': cl_arg(CL_BUDGET, "probe-budget", optarg); break;
		case 'H': cl_arg(CL_HOPS, "max-hops", optarg); break;
		case 'S': cl_arg(CL_STATS, "stats-file", optarg); break;
		case 's': cl_arg(CL_LOG, "log", "syslog"); break;
		case 'v': cl_arg(CL_VERBOSE, "verbose", "1"); break;
		case OPT_RESPONSE_BUDGET:
			cl_arg(CL_RESPONSE_BUDGET, "response-budget", optarg);
			break;
		case OPT_RESPONSE_BUDGET_BYTES:
			cl_arg(CL_RESPONSE_BUDGET_BYTES, "response-budget-bytes",
			       optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hpccd %s\n", HPCC_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (hpcc_auth_init()) {
		fprintf(stderr, "hpccd: libsodium cannot be initialised\n");
		return 1;
	}
	/* the keys' only long-lived copies: locked, between guard pages,
	 * MADV_DONTDUMP (sodium_malloc())
	 */
	D.ring = sodium_malloc(sizeof(*D.ring));
	D.nkeys = sodium_malloc(HPCCD_MAX_NKEYS * sizeof(*D.nkeys));
	if (!D.ring || !D.nkeys) {
		fprintf(stderr, "hpccd: out of memory\n");
		return 1;
	}
	sodium_memzero(D.ring, sizeof(*D.ring));
	sodium_memzero(D.nkeys, HPCCD_MAX_NKEYS * sizeof(*D.nkeys));
	if (load_cfg(&D.cfg))
		return 2;
	/* the key file's bytes: D.cfg's go to the ring in setup() */
	sodium_stackzero(KEY_STACK);
	if (D.cfg.syslog)
		openlog("hpccd", LOG_PID, LOG_DAEMON);
	if (setup(&mask))
		return 1;
	logmsg(LOG_INFO, "hpccd running: budget %u probes/s, %u hops per probe, %s",
	       D.cfg.budget, D.cfg.max_hops,
	       D.raw6_fd >= 0 ? "IPv4 and IPv6" : "IPv4 only");
	while (run) {
		timer_update(now_ns());
		n = epoll_wait(D.ep_fd, evs, 8, -1);
		if (n < 0 && errno != EINTR) {
			logmsg(LOG_ERR, "epoll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n && run; i++) {
			int fd = evs[i].data.fd;

			if (fd == D.sig_fd)
				run = on_signal();
			else if (fd == D.timer_fd)
				on_timer();
			else if (fd == D.pkt_fd || fd == D.pkt6_fd)
				read_packets(fd);
			else if (fd == mnl_socket_get_fd(D.push.nl))
				read_push_replies();
			else
				read_events();
		}
	}
	write_stats();
	hpccd_sched_free(&D.sched);
	hpccd_rl_free(&D.rl);
	hpccd_rl_free(&D.rl_own);
	hpccd_nf_free(&D.nf);
	hpcc_genl_close(&D.req);
	hpcc_genl_close(&D.ev);
	hpcc_genl_close(&D.push);
	if (D.rt)
		mnl_socket_close(D.rt);
	if (D.diag)
		mnl_socket_close(D.diag);
	logmsg(LOG_INFO, "hpccd exiting");
	return 0;
}
