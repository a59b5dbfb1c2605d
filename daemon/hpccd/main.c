// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd - the HPCC++ probe daemon of one network namespace
 * (draft-pan-tsvwg-hpccplus section 7.2; Documentation/design.rst and
 * Documentation/daemon.rst).  This file is the start (command line,
 * sockets, the order of setup), the event loop and the signals; the
 * module link is link.c and push.c, the sender role sender.c, the
 * receiver role responder.c and lookup.c, the statistics stats.c (their
 * state: struct hpccd, hpccd.h), the probe scheduler sched.c, the
 * settings config.c, receiver-based HPCC rx.c.
 *
 * Sender role: learns flows from the module (flow-get dump at start, then
 * flow-new, flow-active and flow-del events, and a dump every reconcile-s
 * seconds and after an event overrun that forgets the flows the module no
 * longer has), and for each flow with data in flight keeps one probe
 * outstanding (or up to probe-pipeline: hpccd_sched_pipeline()): the next
 * goes out as soon as the response arrives while the module last said the
 * flow had data in flight, or after a timeout (2 x max(srtt, probe RTT),
 * within [timeout-min, timeout-max], doubled after
 * each consecutive loss).  All probes share a token bucket of probe-budget
 * packets per second.  A response is checked (structure, DSCP, the random
 * 64-bit id of one of the flow's probes out) and its hop records, with the
 * N its receiver reported if any, pushed to the module
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

#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include <sodium.h>

#include "hpccd.h"

/*
 * The stack a read of the configuration and key file used (the key
 * file's 64 KiB buffer and the parser's frames below it), wiped after
 * each read with sodium_stackzero(): the key bytes pass through it.
 */
#define KEY_STACK (192 << 10)

__thread struct hpccd *hpccd_self;

/*
 * hpccd_state_new() - the calling thread's D: shard 0 of 1, nothing open.
 * Return: 0 or -1 (out of memory).
 */
int hpccd_state_new(void)
{
	hpccd_self = calloc(1, sizeof(*hpccd_self));
	if (!hpccd_self)
		return -1;
	D.nshards = 1;
	D.io.raw_fd = D.io.raw6_fd = D.io.pkt_fd = D.io.pkt6_fd = -1;
	D.link.ifa_protocol = HPCC_IFA_PROTOCOL;
	D.loop.timer_fd = D.loop.sig_fd = D.loop.ctl_fd = D.loop.ep_fd = -1;
	return 0;
}

/* A line to syslog or stderr; the shards but 0 say which they are. */
void logmsg(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (prio == LOG_DEBUG && !D.cfg.verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (D.cfg.syslog && D.shard)
		syslog(prio, "shard %u: %s", D.shard, msg);
	else if (D.cfg.syslog)
		syslog(prio, "%s", msg);
	else if (D.shard)
		fprintf(stderr, "shard %u: %s\n", D.shard, msg);
	else
		fprintf(stderr, "%s\n", msg);
}

static void cfg_log(const char *msg)
{
	logmsg(LOG_ERR, "%s", msg);
}

static void timer_update(uint64_t now)
{
	struct itimerspec its = { 0 };
	uint64_t at = hpccd_next_wakeup(&D.sched, now), floor;

	/* connected, the next dump; otherwise the next family lookup */
	if (!at || D.link.reconcile_at < at)
		at = D.link.reconcile_at;
	if (at) {
		/* deadlines closer than tick-us to the last wakeup wait */
		floor = D.loop.woke_at + D.cfg.tick_us * 1000ULL;
		if (at < floor)
			at = floor;
	}
	if (at == D.loop.timer_at)
		return;
	D.loop.timer_at = at;
	its.it_value.tv_sec = at / 1000000000ULL;
	its.it_value.tv_nsec = at % 1000000000ULL;
	timerfd_settime(D.loop.timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/*
 * run_due() - what the scheduler has due at @now: queued flows that have
 * a token now, pipelined probes, probes lost, backoffs and questions
 * over
 */
static void run_due(uint64_t now)
{
	struct hpccd_flow *f;
	enum hpccd_due what;

	while ((f = hpccd_next_queued(&D.sched, now)))
		probe_send(f, now);
	tx_flush();
	while ((f = hpccd_next_due(&D.sched, now, &what))) {
		if (what == HPCCD_DUE_PROBE) {
			/* pipelined: the token is taken */
			probe_send(f, now);
			continue;
		}
		if (what == HPCCD_DUE_LOST || what == HPCCD_DUE_LOST_ONE)
			D.counters[C_PROBES_TIMED_OUT]++;
		/* with probes still out, the flow is not asked about */
		if (what != HPCCD_DUE_LOST_ONE)
			ask_flow(f);
	}
	/* the pipelined probes leave before the next wait */
	tx_flush();
}

/* One probe or response of @len bytes (@ll: where it came in). */
static void on_packet(const uint8_t *buf, size_t len,
		      const struct sockaddr_ll *ll)
{
	enum hpcc_parse_err e;
	struct hpcc_pkt p;

	e = hpcc_parse(buf, len, &p);
	if (e != HPCC_PARSE_OK) {
		D.counters[C_PARSE_BASE + e]++;
		return;
	}
	if (p.type == HPCC_WIRE_PROBE &&
	    (p.dscp == D.link.probe_dscp || p.dscp == D.link.int_dscp))
		on_probe(&p, buf, ll);
	else if (p.type == HPCC_WIRE_RESPONSE &&
		 p.dscp == D.link.response_dscp)
		on_response(&p, buf);
	else
		D.counters[C_BAD_DSCP]++;
}

/*
 * Probes and responses of one family's packet socket @fd, a batch per
 * system call (hpccd_recv_batch()), at most 256 packets before the other
 * sources run; then the burst's telemetry pushes in one batch.
 */
static void read_packets(int fd)
{
	struct hpccd_rx_batch *b = &D.io.rxb;
	int budget = 256 / HPCCD_RX_BATCH, n, i;

	while (budget--) {
		n = hpccd_recv_batch(fd, b);
		for (i = 0; i < n; i++) {
			/* longer than any probe or response hpccd takes */
			if (b->msg[i].msg_hdr.msg_flags & MSG_TRUNC) {
				D.counters[C_PACKETS_TRUNCATED]++;
				continue;
			}
			on_packet(b->buf[i], b->msg[i].msg_len, &b->ll[i]);
		}
		/* this batch's responses and next probes leave now */
		tx_flush();
		if (n < HPCCD_RX_BATCH)
			break;
	}
	/* pipelined probes go at the first wakeup after they are due: with
	 * responses coming in, sooner than the timer's tick-us allows
	 */
	if (D.sched.pipeline > 1)
		run_due(now_ns());
	push_flush();
	read_push_replies();
}

static void on_timer(void)
{
	uint64_t exp, now;

	if (read(D.loop.timer_fd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		return;
	D.loop.timer_at = 0;
	now = now_ns();
	D.loop.woke_at = now;
	run_due(now);
	/* the flow-gets, and their replies: the module answered in send() */
	push_flush();
	read_push_replies();
	/* before a resync's requests, which wait for their replies */
	tx_flush();
	if (now >= D.link.reconcile_at)
		reconcile();
}

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

	return epoll_ctl(D.loop.ep_fd, EPOLL_CTL_ADD, fd, &e);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* A receive buffer of @bytes (CAP_NET_ADMIN: beyond rmem_max), else rmem_max. */
static void set_rcvbuf(int fd, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

/*
 * apply_cfg() - the settings, each limit of the whole daemon divided over
 * the shards (per_shard()): probes, flows, responses and the tables the
 * responder keeps
 */
static void apply_cfg(void)
{
	hpccd_sched_set(&D.sched, per_shard(D.cfg.budget),
			D.cfg.timeout_min_us, D.cfg.timeout_max_us,
			per_shard(D.cfg.max_flows));
	hpccd_sched_pipeline(&D.sched, D.cfg.probe_pipeline);
	D.resp.rl.rate = per_shard(D.cfg.response_rate);
	D.resp.rl_own.rate = per_shard(D.cfg.response_rate);
	hpccd_budget_set(&D.resp.budget, per_shard(D.cfg.response_budget),
			 per_shard(D.cfg.response_budget_bytes));
	/* the receiver's flow count: a new size starts it afresh */
	if (D.resp.nf.max != per_shard(D.cfg.n_flows_max)) {
		hpccd_nf_free(&D.resp.nf);
		if (hpccd_nf_init(&D.resp.nf, per_shard(D.cfg.n_flows_max),
				  D.cfg.n_flows_window_ms * 1000000ULL,
				  random64()))
			logmsg(LOG_ERR, "n-flows count: out of memory; responses carry no N");
	}
	D.resp.nf.window_ns = D.cfg.n_flows_window_ms * 1000000ULL;
	D.resp.nf.per_source = per_shard(D.cfg.n_flows_per_source) <
			       D.resp.nf.max ?
			       per_shard(D.cfg.n_flows_per_source) :
			       D.resp.nf.max;
	/* receiver-based flows: a new size starts the table afresh */
	if (!D.rx.flows.f || D.rx.flows.mask + 1 < per_shard(D.cfg.rx_max_flows) ||
	    (D.rx.flows.mask + 1) / 2 >= per_shard(D.cfg.rx_max_flows)) {
		hpccd_rx_free(&D.rx.flows);
		if (hpccd_rx_init(&D.rx.flows, per_shard(D.cfg.rx_max_flows),
				  1000000000ULL, random64()))
			logmsg(LOG_ERR, "rx-max-flows: out of memory; receiver-based requests refused");
	}
	/* the keys: those a reload removed stay accepted for the overlap */
	D.counters[C_KEYS_RETIRED] +=
		hpcc_keyring_load(D.keys.ring, &D.cfg, now_ns(),
				  D.cfg.auth_overlap_s * 1000000000ULL);
	explicit_bzero(D.cfg.keys, sizeof(D.cfg.keys));
	D.cfg.n_keys = 0;
	/* the notify keys: the module's, pushed by connect_module() and
	 * after a reload
	 */
	sodium_memzero(D.keys.nkeys, HPCCD_MAX_NKEYS * sizeof(*D.keys.nkeys));
	if (!D.shard) {
		/* shard 0 alone sets them (push_nkeys()) */
		memcpy(D.keys.nkeys, D.cfg.nkeys, sizeof(D.cfg.nkeys));
		D.keys.n_nkeys = D.cfg.n_nkeys;
		D.keys.nkeys_owned |= D.keys.n_nkeys > 0;
	}
	explicit_bzero(D.cfg.nkeys, sizeof(D.cfg.nkeys));
	D.cfg.n_nkeys = 0;
	/* thousands of events (a burst of connections) before one is lost */
	if (D.link.ev.nl)
		set_rcvbuf(mnl_socket_get_fd(D.link.ev.nl),
			   (int)(D.cfg.event_buffer_kb << 10));
}

/*
 * signals_block() - block the signals hpccd reads from its signalfd
 * (SIGTERM, SIGINT, SIGHUP, SIGUSR1) and give their set in @mask (for
 * setup()'s signalfd).  main() calls it first of all: one of them sent
 * while hpccd starts (a reload right after the start, as systemd's
 * ExecReload or a testbed does) stays pending until the signalfd reads
 * it, instead of killing the daemon by its default action (a testbed that
 * reloads right after the start would lose a sender's hpccd so).
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

/*
 * shard_setup() - everything of a shard but the configuration: its
 * sockets (its packet sockets in the fanout group of the shards,
 * fanout_join()), its tables, the module link; @mask: signals_block()'s
 * for shard 0, which reads them; NULL for the others, which read shard.c's
 * commands instead
 */
int shard_setup(const sigset_t *mask)
{
	int one = 1;
	uint64_t now = now_ns();

	if (hpccd_sched_init(&D.sched, D.cfg.budget, D.cfg.timeout_min_us,
			     D.cfg.timeout_max_us, D.cfg.max_flows,
			     random64(), now) ||
	    hpccd_rl_init(&D.resp.rl, D.cfg.response_rate, 4096, random64()) ||
	    hpccd_rl_init(&D.resp.rl_own, D.cfg.response_rate, 4096,
			  random64())) {
		logmsg(LOG_ERR, "out of memory");
		return -1;
	}
	hpccd_budget_init(&D.resp.budget, D.cfg.response_budget,
			  D.cfg.response_budget_bytes, now);
	nb_setup(now);
	D.io.raw_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	D.io.pkt_fd = socket(AF_PACKET,
			     SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			     htons(ETH_P_IP));
	if (D.io.raw_fd < 0 || D.io.pkt_fd < 0) {
		logmsg(LOG_ERR, "raw sockets: %s (CAP_NET_RAW needed)",
		       strerror(errno));
		return -1;
	}
	setsockopt(D.io.raw_fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	/* IPPROTO_RAW: the IPv6 header is ours (the kernel sets hdrincl) */
	D.io.raw6_fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (D.io.raw6_fd >= 0)
		D.io.pkt6_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC |
				      SOCK_NONBLOCK, htons(ETH_P_IPV6));
	if (D.io.raw6_fd < 0 || D.io.pkt6_fd < 0) {
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
		if (D.io.raw6_fd >= 0)
			close(D.io.raw6_fd);
		D.io.raw6_fd = -1;
	}
	/* room for bursts of probes, 4 MiB a family over the shards (256 KiB
	 * each at least); what overflows is counted (socket-drops)
	 */
	set_rcvbuf(D.io.pkt_fd, max_int((4 << 20) / D.nshards, 256 << 10));
	if (D.io.pkt6_fd >= 0)
		set_rcvbuf(D.io.pkt6_fd,
			   max_int((4 << 20) / D.nshards, 256 << 10));
	/* until the module says which DSCPs: drop everything */
	D.link.probe_dscp = D.link.response_dscp = D.link.int_dscp = 64;
	attach_filter();
	/* each shard's packet sockets in their family's group, in order */
	{
		int err = fanout_join(D.io.pkt_fd, AF_INET);

		if (!err && D.io.pkt6_fd >= 0)
			err = fanout_join(D.io.pkt6_fd, AF_INET6);
		if (err) {
			logmsg(LOG_ERR, "packet fanout (shards %u): %s",
			       D.nshards, strerror(-err));
			return -1;
		}
	}
	D.lookup.rt = mnl_socket_open(NETLINK_ROUTE);
	if (!D.lookup.rt ||
	    mnl_socket_bind(D.lookup.rt, 0, MNL_SOCKET_AUTOPID) < 0) {
		logmsg(LOG_ERR, "rtnetlink: %s", strerror(errno));
		return -1;
	}
	/* needed by tcp-check only (a reload may turn it on: then every
	 * lookup fails, counted, and no flow gets state)
	 */
	D.lookup.diag = mnl_socket_open(NETLINK_SOCK_DIAG);
	if (!D.lookup.diag ||
	    mnl_socket_bind(D.lookup.diag, 0, MNL_SOCKET_AUTOPID) < 0) {
		if (D.cfg.tcp_check) {
			logmsg(LOG_ERR, "sock_diag: %s", strerror(errno));
			return -1;
		}
		logmsg(LOG_WARNING, "sock_diag: %s; tcp-check 1 would refuse every flow",
		       strerror(errno));
		if (D.lookup.diag)
			mnl_socket_close(D.lookup.diag);
		D.lookup.diag = NULL;
	}
	/* a lookup never holds the event loop longer than this */
	{
		struct timeval tv = { .tv_usec = RT_TIMEOUT_US };

		setsockopt(mnl_socket_get_fd(D.lookup.rt), SOL_SOCKET,
			   SO_RCVTIMEO, &tv, sizeof(tv));
		if (D.lookup.diag)
			setsockopt(mnl_socket_get_fd(D.lookup.diag), SOL_SOCKET,
				   SO_RCVTIMEO, &tv, sizeof(tv));
	}
	D.lookup.cache_seed = random64();
	hpccd_tc_init(&D.lookup.tcache, random64());
	/* -ENOENT (no module yet) leaves the sockets open */
	hpcc_genl_open(&D.link.req, 1000);
	hpcc_genl_open(&D.link.ev, 0);
	hpcc_genl_open(&D.push.genl, 0);
	if (!D.link.req.nl || !D.link.ev.nl || !D.push.genl.nl) {
		logmsg(LOG_ERR, "netlink: %s", strerror(errno));
		return -1;
	}
	/* the replies of a full burst of pushes (256 of about 500 bytes) */
	set_rcvbuf(mnl_socket_get_fd(D.push.genl.nl), 1 << 20);
	apply_cfg();
	if (D.link.ev.notify_grp &&
	    mnl_socket_setsockopt(D.link.ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &D.link.ev.notify_grp,
				  sizeof(D.link.ev.notify_grp)) < 0)
		logmsg(LOG_ERR, "join nlctrl notify: %s", strerror(errno));
	if (mask)
		D.loop.sig_fd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	D.loop.timer_fd = timerfd_create(CLOCK_MONOTONIC,
					 TFD_CLOEXEC | TFD_NONBLOCK);
	D.loop.ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if ((mask && D.loop.sig_fd < 0) || D.loop.timer_fd < 0 ||
	    D.loop.ep_fd < 0 ||
	    (mask ? epoll_add(D.loop.sig_fd) : epoll_add(D.loop.ctl_fd)) ||
	    epoll_add(D.loop.timer_fd) ||
	    epoll_add(D.io.pkt_fd) ||
	    (D.io.pkt6_fd >= 0 && epoll_add(D.io.pkt6_fd)) ||
	    epoll_add(mnl_socket_get_fd(D.link.ev.nl)) ||
	    epoll_add(mnl_socket_get_fd(D.push.genl.nl))) {
		logmsg(LOG_ERR, "setup: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The ring's keys of the key file, or those a reload retired. */
static unsigned int ring_keys(bool retired)
{
	unsigned int i, n = 0;

	for (i = 0; i < D.keys.ring->n; i++)
		n += !D.keys.ring->k[i].expires_ns != retired;
	return n;
}

/*
 * cfg_fits_shards() - whether each limit @c divides over @n shards with
 * something for every shard (per_shard()): a probe or response a second,
 * a flow, a response's bytes.  Logs the first that does not.
 * Return: 1 if all do, 0 otherwise.
 */
int cfg_fits_shards(const struct hpccd_cfg *c, unsigned int n)
{
	const struct {
		const char *key;
		unsigned int v, min;
	} lim[] = {
		{ "probe-budget", c->budget, n },
		{ "max-flows", c->max_flows, n },
		{ "response-rate", c->response_rate, n },
		{ "response-budget", c->response_budget, n },
		{ "response-budget-bytes", c->response_budget_bytes,
		  n * 1500 },
		{ "n-flows-max", c->n_flows_max, n },
		{ "n-flows-per-source", c->n_flows_per_source, n },
		{ "rx-max-flows", c->rx_max_flows, n },
	};
	unsigned int i;

	for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++)
		if (lim[i].v < lim[i].min) {
			logmsg(LOG_ERR, "%s %u: below %u, what %u shards need (shards)",
			       lim[i].key, lim[i].v, lim[i].min, n);
			return 0;
		}
	return 1;
}

/*
 * take_cfg() - a reload's settings @c (load_cfg()'s, all or nothing) in
 * this shard: the shards setting is the start's until a restart
 */
void take_cfg(struct hpccd_cfg *c)
{
	if (c->shards != D.nshards) {
		if (!D.shard)
			logmsg(LOG_WARNING, "shards %u: read at the start only; %u running",
			       c->shards, D.nshards);
		c->shards = D.nshards;
	}
	D.cfg = *c;
	apply_cfg();
	push_nkeys();
	if (!D.shard)
		logmsg(LOG_INFO, "reloaded %s: budget %u probes/s, %u hops per probe, response-rate %u, %u keys, %u retired",
		       D.cfg.file, D.cfg.budget, D.cfg.max_hops,
		       D.cfg.response_rate, ring_keys(false), ring_keys(true));
}

/* Returns false to exit. */
static bool on_signal(void)
{
	struct signalfd_siginfo si;
	struct hpccd_cfg c;

	while (read(D.loop.sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			return false;
		case SIGHUP:
			/* what a restart would read, all or nothing; the
			 * other shards take a copy, then the module's
			 * parameters again
			 */
			if (load_cfg(&c) || !cfg_fits_shards(&c, D.nshards)) {
				logmsg(LOG_ERR, "reload failed; settings kept");
				shards_reload(NULL);
			} else {
				shards_reload(&c);
				take_cfg(&c);
			}
			/* the key bytes the file had (D.cfg's are gone) */
			explicit_bzero(&c, sizeof(c));
			sodium_stackzero(KEY_STACK);
			/* the module's parameters; the packet filters only
			 * change with its DSCPs (module_params())
			 */
			if (D.link.req.family_id)
				module_params();
			break;
		case SIGUSR1:
			write_stats();
			break;
		}
	}
	return true;
}

/*
 * keys_alloc() - the shard's MAC key ring and notify keys, the keys' only
 * long-lived copies: locked, between guard pages, MADV_DONTDUMP
 * (sodium_malloc()).  Return: 0 or -1 (out of memory).
 */
int keys_alloc(void)
{
	D.keys.ring = sodium_malloc(sizeof(*D.keys.ring));
	D.keys.nkeys = sodium_malloc(HPCCD_MAX_NKEYS * sizeof(*D.keys.nkeys));
	if (!D.keys.ring || !D.keys.nkeys)
		return -1;
	sodium_memzero(D.keys.ring, sizeof(*D.keys.ring));
	sodium_memzero(D.keys.nkeys, HPCCD_MAX_NKEYS * sizeof(*D.keys.nkeys));
	return 0;
}

/*
 * shard_run() - the event loop, until shard 0 reads SIGTERM or SIGINT or
 * another shard is told to end
 */
void shard_run(void)
{
	struct epoll_event evs[8];
	bool run = true;
	int i, n;

	while (run) {
		/* whatever the last events queued (setup's dump too) leaves
		 * before the loop waits
		 */
		tx_flush();
		timer_update(now_ns());
		n = epoll_wait(D.loop.ep_fd, evs, 8, -1);
		if (n < 0 && errno != EINTR) {
			logmsg(LOG_ERR, "epoll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n && run; i++) {
			int fd = evs[i].data.fd;

			if (fd == D.loop.sig_fd)
				run = on_signal();
			else if (fd == D.loop.ctl_fd)
				run = on_ctl();
			else if (fd == D.loop.timer_fd)
				on_timer();
			else if (fd == D.io.pkt_fd || fd == D.io.pkt6_fd)
				read_packets(fd);
			else if (fd == mnl_socket_get_fd(D.push.genl.nl))
				read_push_replies();
			else
				read_events();
		}
	}
}

/* shard_teardown() - what the shard holds, closed and freed, D too */
void shard_teardown(void)
{
	int *fds[] = { &D.io.raw_fd, &D.io.raw6_fd, &D.io.pkt_fd,
		       &D.io.pkt6_fd, &D.loop.timer_fd, &D.loop.sig_fd,
		       &D.loop.ep_fd };
	unsigned int i;

	hpccd_sched_free(&D.sched);
	hpccd_rl_free(&D.resp.rl);
	hpccd_rl_free(&D.resp.rl_own);
	hpccd_nf_free(&D.resp.nf);
	hpccd_rx_free(&D.rx.flows);
	hpcc_genl_close(&D.link.req);
	hpcc_genl_close(&D.link.ev);
	hpcc_genl_close(&D.push.genl);
	if (D.lookup.rt)
		mnl_socket_close(D.lookup.rt);
	if (D.lookup.diag)
		mnl_socket_close(D.lookup.diag);
	D.lookup.rt = D.lookup.diag = NULL;
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (D.keys.ring)
		sodium_free(D.keys.ring);
	if (D.keys.nkeys)
		sodium_free(D.keys.nkeys);
	D.keys.ring = NULL;
	D.keys.nkeys = NULL;
	if (D.push.batch)
		mnl_nlmsg_batch_stop(D.push.batch);
	free(hpccd_self);
	hpccd_self = NULL;
}

int main(int argc, char **argv)
{
	struct hpccd_cfg *start_cfg = NULL;
	int opt, err;
	char *const *args = argv;
	sigset_t mask;

	signals_block(&mask);
	if (hpccd_state_new()) {
		fprintf(stderr, "hpccd: out of memory\n");
		return 1;
	}
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
	if (keys_alloc()) {
		fprintf(stderr, "hpccd: out of memory\n");
		return 1;
	}
	if (load_cfg(&D.cfg) || !cfg_fits_shards(&D.cfg, D.cfg.shards))
		return 2;
	/* the key file's bytes: D.cfg's go to the ring in setup() */
	sodium_stackzero(KEY_STACK);
	if (D.cfg.syslog)
		openlog("hpccd", LOG_PID, LOG_DAEMON);
	D.nshards = D.cfg.shards;
	/* the settings for the other shards, key bytes included (setup()
	 * moves D.cfg's to the ring), in memory as the ring's
	 */
	if (D.nshards > 1) {
		start_cfg = sodium_malloc(sizeof(*start_cfg));
		if (!start_cfg) {
			fprintf(stderr, "hpccd: out of memory\n");
			return 1;
		}
		memcpy(start_cfg, &D.cfg, sizeof(*start_cfg));
	}
	if (shard_setup(&mask))
		return 1;
	/* the other shards, one after the other; shard 0 hears of one that
	 * ends on its own
	 */
	if (start_cfg) {
		err = shards_start(start_cfg);
		sodium_free(start_cfg);
		if (err || epoll_add(D.loop.ctl_fd)) {
			shards_stop();
			return 1;
		}
	}
	/* once every shard's packet sockets are in their groups */
	connect_module();
	logmsg(LOG_INFO, "hpccd running: budget %u probes/s, %u hops per probe, %s, %u shard%s",
	       D.cfg.budget, D.cfg.max_hops,
	       D.io.raw6_fd >= 0 ? "IPv4 and IPv6" : "IPv4 only",
	       D.nshards, D.nshards > 1 ? "s" : "");
	shard_run();
	shards_stop();
	write_stats();
	logmsg(LOG_INFO, "hpccd exiting");
	shard_teardown();
	return shards_failed() ? 1 : 0;
}
