// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd - the HPCC++ probe daemon of one network namespace
 * (draft-pan-tsvwg-hpccplus section 7.2; Documentation/design.rst and
 * Documentation/daemon.rst).
 *
 * Sender role: learns flows from the module (flow-get dump at start, then
 * flow-new, flow-active and flow-del events), and for each flow with data
 * in flight keeps one probe outstanding: the next goes out when the
 * response arrives and the module says the flow still has data in flight,
 * or after a timeout (2 x max(srtt, probe RTT), within [timeout-min,
 * timeout-max], doubled after each consecutive loss).  All probes share a
 * token bucket of probe-budget packets per second.  A response is checked
 * (structure, DSCP, a matching outstanding random 64-bit id) and its hop
 * records pushed to the module with telemetry-set.
 *
 * Receiver role: answers every valid probe addressed to a local address
 * with a response (reversed tuple, response DSCP, same id, ts and hops).
 *
 * Packets: probes and responses go out through a raw IPv4 socket (one
 * packet each: no TSO; their DSCP differs from the flow's data, so GRO
 * never merges them with it) and come in through an AF_PACKET socket with
 * a classic BPF filter on the two DSCPs; the module removes them before
 * TCP.  Everything read from the network or the module is checked; what
 * is dropped is counted.  The module may come and go: nlctrl's notify
 * group says when, and hpccd reconnects.
 *
 * Signals: SIGTERM/SIGINT exit cleanly; SIGHUP re-reads the configuration
 * file and the module's parameters; SIGUSR1 writes the statistics.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <search.h>
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
#include <net/ethernet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "hpcc_genl.h"
#include "hpcc_wire.h"

/* Configuration: file, then command line; see hpccd(8). */
struct hpccd_cfg {
	char file[256];
	char stats_file[256];
	unsigned int budget;		/* probes per second, all flows */
	unsigned int max_hops;		/* hop_cap of probes, 1..8 */
	unsigned int timeout_min_us;
	unsigned int timeout_max_us;
	unsigned int tick_us;		/* timer period while busy */
	bool syslog;
	int verbose;
};

static struct hpccd_cfg cfg = {
	.file = "/etc/hpcc/hpccd.conf",
	.budget = 20000,
	.max_hops = 5,
	.timeout_min_us = 1000,
	.timeout_max_us = 1000000,
	.tick_us = 1000,
};

/* Daemon counters (SIGUSR1, exit). */
enum {
	C_FLOWS_ADDED, C_FLOWS_REMOVED, C_PROBES_SENT, C_PROBES_TIMED_OUT,
	C_PROBES_DEFERRED, C_PROBES_RECEIVED, C_PROBES_NOT_LOCAL,
	C_RESPONSES_SENT, C_RESPONSES_RECEIVED, C_RESPONSES_UNEXPECTED,
	C_RESPONSES_NO_HOPS, C_RESPONSES_BAD_HOP, C_TELEMETRY_PUSHED,
	C_TELEMETRY_REJECTED, C_SEND_ERRORS, C_BAD_DSCP, C_EVENTS,
	C_RECONNECTS, C_SOCKET_DROPS, C_PARSE_BASE,
	C_NUM = C_PARSE_BASE + HPCC_PARSE_NUM
};

static const char *const counter_names[C_PARSE_BASE] = {
	"flows-added", "flows-removed", "probes-sent", "probes-timed-out",
	"probes-deferred", "probes-received", "probes-not-local",
	"responses-sent", "responses-received", "responses-unexpected",
	"responses-no-hops", "responses-bad-hop", "telemetry-pushed",
	"telemetry-rejected", "send-errors", "bad-dscp", "events",
	"reconnects", "socket-drops",
};

static uint64_t counters[C_NUM];

/* A flow this host sends on, as the module knows it. */
struct flow {
	struct hpcc_tuple t;
	bool probing;		/* wants a probe outstanding */
	bool queued;		/* waiting for a budget token */
	bool outstanding;
	bool timed_out;		/* ask the module after the tree walk */
	uint64_t probe_id;
	uint64_t sent_ns;
	uint64_t deadline_ns;
	uint32_t srtt_us;	/* the module's, from events and replies */
	uint32_t losses_in_row;
	uint64_t rtt_ns;	/* smoothed probe RTT (1/8 EWMA) */
	uint64_t probes, responses, lost;
	TAILQ_ENTRY(flow) q;	/* budget queue, while @queued */
};

static void *flows;		/* tsearch() tree of struct flow, by tuple */
static unsigned int nflows;
static TAILQ_HEAD(, flow) queue = TAILQ_HEAD_INITIALIZER(queue);
static double tokens;
static uint64_t tokens_at;

static struct hpcc_genl req;	/* requests (blocking, 1 s timeout) */
static struct hpcc_genl ev;	/* events and nlctrl notifications */
static int raw_fd = -1, pkt_fd = -1, timer_fd = -1, sig_fd = -1, ep_fd = -1;
static uint8_t probe_dscp, response_dscp;
static uint16_t ip_id;
static bool timer_armed;

static void logmsg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logmsg(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG && !cfg.verbose)
		return;
	va_start(ap, fmt);
	if (cfg.syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int flow_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct flow *)a)->t,
		      &((const struct flow *)b)->t, sizeof(struct hpcc_tuple));
}

static struct flow *flow_find(const struct hpcc_tuple *t)
{
	struct flow key = { .t = *t };
	struct flow **f = tfind(&key, &flows, flow_cmp);

	return f ? *f : NULL;
}

static struct flow *flow_add(const struct hpcc_tuple *t)
{
	struct flow *f = flow_find(t), **slot;

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->t = *t;
	slot = tsearch(f, &flows, flow_cmp);
	if (!slot) {
		free(f);
		return NULL;
	}
	nflows++;
	counters[C_FLOWS_ADDED]++;
	return f;
}

static void queue_remove(struct flow *f)
{
	if (!f->queued)
		return;
	TAILQ_REMOVE(&queue, f, q);
	f->queued = false;
}

static void flow_remove(struct flow *f)
{
	queue_remove(f);
	tdelete(f, &flows, flow_cmp);
	free(f);
	nflows--;
	counters[C_FLOWS_REMOVED]++;
}

static void flow_free_node(void *p)
{
	free(p);
}

static void flows_clear(void)
{
	tdestroy(flows, flow_free_node);
	flows = NULL;
	nflows = 0;
	TAILQ_INIT(&queue);
}

static void timer_arm(void)
{
	struct itimerspec its = {
		.it_interval.tv_nsec = cfg.tick_us * 1000L,
		.it_value.tv_nsec = cfg.tick_us * 1000L,
	};

	if (timer_armed)
		return;
	timerfd_settime(timer_fd, 0, &its, NULL);
	timer_armed = true;
}

/* Refill the token bucket; burst: 10 ms of budget, at least 8. */
static void tokens_refill(uint64_t now)
{
	double burst = cfg.budget / 100.0 < 8 ? 8 : cfg.budget / 100.0;

	tokens += (double)(now - tokens_at) * cfg.budget / 1e9;
	if (tokens > burst)
		tokens = burst;
	tokens_at = now;
}

static uint64_t probe_timeout_ns(const struct flow *f)
{
	uint64_t base = (uint64_t)f->srtt_us * 1000;
	uint64_t t;

	if (f->rtt_ns > base)
		base = f->rtt_ns;
	t = 2 * base << (f->losses_in_row < 10 ? f->losses_in_row : 10);
	if (t < cfg.timeout_min_us * 1000ULL)
		t = cfg.timeout_min_us * 1000ULL;
	if (t > cfg.timeout_max_us * 1000ULL)
		t = cfg.timeout_max_us * 1000ULL;
	return t;
}

static bool send_pkt(const void *buf, size_t len, uint32_t daddr)
{
	struct sockaddr_in to = { .sin_family = AF_INET };

	to.sin_addr.s_addr = daddr;
	if (sendto(raw_fd, buf, len, 0, (struct sockaddr *)&to,
		   sizeof(to)) != (ssize_t)len) {
		counters[C_SEND_ERRORS]++;
		logmsg(LOG_DEBUG, "send: %s", strerror(errno));
		return false;
	}
	return true;
}

static void probe_send(struct flow *f, uint64_t now)
{
	uint8_t buf[HPCC_PKT_MAX];
	size_t len;

	if (getrandom(&f->probe_id, sizeof(f->probe_id), 0) !=
	    sizeof(f->probe_id))
		f->probe_id = now ^ ((uint64_t)rand() << 32);
	len = hpcc_build_probe(buf, &f->t, probe_dscp, cfg.max_hops,
			       f->probe_id, now, ++ip_id);
	f->outstanding = true;
	f->sent_ns = now;
	f->deadline_ns = now + probe_timeout_ns(f);
	timer_arm();
	if (len && send_pkt(buf, len, f->t.daddr)) {
		f->probes++;
		counters[C_PROBES_SENT]++;
	}
}

/* The flow wants its next probe now: send it if the budget allows, else
 * queue it for the timer.
 */
static void probe_want(struct flow *f)
{
	uint64_t now = now_ns();

	f->probing = true;
	if (f->outstanding || f->queued)
		return;
	tokens_refill(now);
	if (tokens >= 1 && TAILQ_EMPTY(&queue)) {
		tokens -= 1;
		probe_send(f, now);
		return;
	}
	counters[C_PROBES_DEFERRED]++;
	f->queued = true;
	TAILQ_INSERT_TAIL(&queue, f, q);
	timer_arm();
}

static struct flow *flow_of_attrs(const struct hpcc_attrs *a, bool add)
{
	struct hpcc_tuple t;

	if (a->v[HPCC_A_FLOW_FAMILY] != AF_INET ||
	    !a->has[HPCC_A_FLOW_SADDR4] || !a->has[HPCC_A_FLOW_SPORT])
		return NULL;
	hpcc_attrs_tuple(a, &t);
	return add ? flow_add(&t) : flow_find(&t);
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_attrs a;
	struct flow *f;

	hpcc_genl_attrs_cb(nlh, &a);
	f = flow_of_attrs(&a, true);
	if (!f)
		return MNL_CB_OK;
	f->srtt_us = a.v[HPCC_A_FLOW_SRTT];
	if (a.v[HPCC_A_FLOW_IN_FLIGHT])
		probe_want(f);
	return MNL_CB_OK;
}

static void read_params(void)
{
	struct hpcc_attrs a;
	int err = hpcc_genl_params(&req, &a);

	if (err) {
		logmsg(LOG_WARNING, "params-get: %s", strerror(-err));
		return;
	}
	probe_dscp = a.v[HPCC_A_PARAMS_PROBE_DSCP];
	response_dscp = a.v[HPCC_A_PARAMS_RESPONSE_DSCP];
}

/*
 * The AF_PACKET filter: IPv4 (SOCK_DGRAM: offset 0 is the IP header), not
 * outgoing, TCP, DSCP probe or response.
 */
static int attach_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 6, 0),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 4),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 1),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, probe_dscp, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, response_dscp, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]),
				   .filter = code };
	char drain[64];

	if (setsockopt(pkt_fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) < 0)
		return -errno;
	/* what arrived before the filter was attached is not filtered */
	while (recv(pkt_fd, drain, sizeof(drain), MSG_DONTWAIT) >= 0)
		;
	return 0;
}

static void connect_module(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int err;

	flows_clear();
	/* ev never sends requests: replies would mix with events */
	if (hpcc_genl_resolve(&req)) {
		ev.family_id = 0;
		logmsg(LOG_INFO, "module not loaded; waiting for it");
		return;
	}
	ev.family_id = req.family_id;
	ev.events_grp = req.events_grp;
	if (mnl_socket_setsockopt(ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &ev.events_grp, sizeof(ev.events_grp)) < 0)
		logmsg(LOG_ERR, "join events: %s", strerror(errno));
	read_params();
	err = attach_filter();
	if (err)
		logmsg(LOG_ERR, "packet filter: %s", strerror(-err));
	err = hpcc_genl_talk(&req, hpcc_genl_msg(&req, buf, HPCC_CMD_FLOW_GET,
						 NLM_F_DUMP), dump_cb, NULL);
	if (err)
		logmsg(LOG_WARNING, "flow dump: %s", strerror(-err));
	logmsg(LOG_INFO, "connected: family %u, probe DSCP %u, response DSCP %u, %u flows",
	       req.family_id, probe_dscp, response_dscp, nflows);
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
		flows_clear();
		req.family_id = ev.family_id = 0;
	} else if (cmd == CTRL_CMD_NEWFAMILY) {
		counters[C_RECONNECTS]++;
		connect_module();
	}
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	struct hpcc_attrs a;
	struct flow *f;

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		ctrl_event(nlh, gh->cmd);
		return MNL_CB_OK;
	}
	if (!ev.family_id || nlh->nlmsg_type != ev.family_id)
		return MNL_CB_OK;
	counters[C_EVENTS]++;
	hpcc_genl_attrs_cb(nlh, &a);
	switch (a.cmd) {
	case HPCC_CMD_FLOW_NEW:
		flow_of_attrs(&a, true);
		break;
	case HPCC_CMD_FLOW_ACTIVE:
		f = flow_of_attrs(&a, true);
		if (f) {
			f->srtt_us = a.v[HPCC_A_FLOW_SRTT];
			f->losses_in_row = 0;
			probe_want(f);
		}
		break;
	case HPCC_CMD_FLOW_DEL:
		f = flow_of_attrs(&a, false);
		if (f)
			flow_remove(f);
		break;
	}
	return MNL_CB_OK;
}

static void read_events(void)
{
	char buf[1 << 16];
	ssize_t n;

	for (;;) {
		n = recv(mnl_socket_get_fd(ev.nl), buf, sizeof(buf),
			 MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {	/* events lost: resync */
				logmsg(LOG_WARNING, "events overrun; resync");
				connect_module();
				continue;
			}
			return;
		}
		mnl_cb_run(buf, n, 0, 0, event_cb, NULL);
	}
}

/* Is @addr (network order) one of this namespace's addresses? */
static bool addr_local(uint32_t addr)
{
	static struct { uint32_t addr; bool local; uint64_t at; } cache[16];
	static unsigned int next;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint64_t now = now_ns();
	unsigned int i;
	int fd;
	bool local;

	for (i = 0; i < 16; i++)
		if (cache[i].at && cache[i].addr == addr &&
		    now - cache[i].at < 5000000000ULL)
			return cache[i].local;
	sin.sin_addr.s_addr = addr;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	local = fd >= 0 && !bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	if (fd >= 0)
		close(fd);
	cache[next].addr = addr;
	cache[next].local = local;
	cache[next].at = now;
	next = (next + 1) % 16;
	return local;
}

static void on_probe(const struct hpcc_pkt *p)
{
	uint8_t buf[HPCC_PKT_MAX];
	size_t len;

	counters[C_PROBES_RECEIVED]++;
	if (!addr_local(p->tuple.daddr)) {
		counters[C_PROBES_NOT_LOCAL]++;
		return;
	}
	len = hpcc_build_response(buf, p, response_dscp, ++ip_id);
	if (len && send_pkt(buf, len, p->tuple.saddr))
		counters[C_RESPONSES_SENT]++;
}

/* Ask the module whether the flow still has data in flight. */
static bool flow_in_flight(struct flow *f)
{
	struct hpcc_attrs a;

	if (hpcc_genl_flow_get(&req, &f->t, &a))
		return false;
	f->srtt_us = a.v[HPCC_A_FLOW_SRTT];
	return a.v[HPCC_A_FLOW_IN_FLIGHT];
}

/* probe_again() - the next probe of a flow whose response fed nothing, if
 * the flow still has data in flight
 */
static void probe_again(struct flow *f)
{
	if (flow_in_flight(f))
		probe_want(f);
	else
		f->probing = false;
}

static void on_response(const struct hpcc_pkt *p)
{
	struct hpcc_tuple t = {
		.saddr = p->tuple.daddr, .daddr = p->tuple.saddr,
		.sport = p->tuple.dport, .dport = p->tuple.sport,
	};
	struct flow *f = flow_find(&t);
	struct hpcc_attrs reply;
	uint64_t now = now_ns(), rtt;
	int i, err;

	counters[C_RESPONSES_RECEIVED]++;
	if (!f || !f->outstanding || p->probe_id != f->probe_id) {
		counters[C_RESPONSES_UNEXPECTED]++;
		return;
	}
	f->outstanding = false;
	f->losses_in_row = 0;
	f->responses++;
	rtt = now - f->sent_ns;
	f->rtt_ns = f->rtt_ns ? f->rtt_ns - f->rtt_ns / 8 + rtt / 8 : rtt;
	if (!p->nhop) {
		/* No INT hop stamped this probe (none on the path, or one
		 * being reconfigured): nothing to feed, but keep probing
		 * while the flow sends, or it would never get telemetry
		 * again until it idles and the module reports it active.
		 */
		counters[C_RESPONSES_NO_HOPS]++;
		probe_again(f);
		return;
	}
	for (i = 0; i < p->nhop; i++)
		if (!p->hops[i].rate || p->hops[i].rate > 1600000000000ULL) {
			counters[C_RESPONSES_BAD_HOP]++;
			probe_again(f);
			return;
		}
	err = hpcc_genl_telemetry_set(&req, &t, p->hops, p->nhop, &reply);
	if (err == -ENOENT) {
		flow_remove(f);
		return;
	}
	if (err) {
		counters[C_TELEMETRY_REJECTED]++;
		logmsg(LOG_DEBUG, "telemetry-set: %s: %s", strerror(-err),
		       req.extack);
		return;
	}
	counters[C_TELEMETRY_PUSHED]++;
	f->srtt_us = reply.v[HPCC_A_FLOW_SRTT];
	if (reply.v[HPCC_A_FLOW_IN_FLIGHT])
		probe_want(f);
	else
		f->probing = false;
}

static void read_packets(void)
{
	uint8_t buf[2048];
	struct hpcc_pkt p;
	enum hpcc_parse_err e;
	ssize_t n;
	int budget = 256;	/* then let the other sources run */

	while (budget--) {
		n = recv(pkt_fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			return;
		e = hpcc_parse(buf, n, &p);
		if (e != HPCC_PARSE_OK) {
			counters[C_PARSE_BASE + e]++;
			continue;
		}
		if (p.type == HPCC_WIRE_PROBE && p.dscp == probe_dscp)
			on_probe(&p);
		else if (p.type == HPCC_WIRE_RESPONSE &&
			 p.dscp == response_dscp)
			on_response(&p);
		else
			counters[C_BAD_DSCP]++;
	}
}

static bool busy;
static uint64_t tick_now;

static void tick_flow(const void *nodep, VISIT which, int depth)
{
	struct flow *f = *(struct flow *const *)nodep;

	if (which != postorder && which != leaf)
		return;
	if (!f->outstanding) {
		busy |= f->queued;
		return;
	}
	busy = true;
	if (tick_now < f->deadline_ns)
		return;
	f->outstanding = false;
	f->lost++;
	f->losses_in_row++;
	counters[C_PROBES_TIMED_OUT]++;
	f->probing = false;
	f->timed_out = true;	/* netlink can remove flows: not in the walk */
}

static void check_marked(const void *nodep, VISIT which, int depth)
{
	struct flow *f = *(struct flow *const *)nodep;

	if ((which == postorder || which == leaf) && f->timed_out) {
		f->timed_out = false;
		if (flow_in_flight(f))
			probe_want(f);
	}
}

static void on_timer(void)
{
	struct itimerspec off = { 0 };
	struct flow *f;
	uint64_t exp;

	if (read(timer_fd, &exp, sizeof(exp)) < 0)
		return;
	tick_now = now_ns();
	tokens_refill(tick_now);
	while ((f = TAILQ_FIRST(&queue)) && tokens >= 1) {
		queue_remove(f);
		tokens -= 1;
		probe_send(f, tick_now);
	}
	busy = !TAILQ_EMPTY(&queue);
	twalk(flows, tick_flow);
	twalk(flows, check_marked);
	if (!busy) {
		timerfd_settime(timer_fd, 0, &off, NULL);
		timer_armed = false;
	}
}

static FILE *stats_out;

static void stats_flow(const void *nodep, VISIT which, int depth)
{
	const struct flow *f = *(const struct flow *const *)nodep;
	char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN];

	if (which != postorder && which != leaf)
		return;
	inet_ntop(AF_INET, &f->t.saddr, s, sizeof(s));
	inet_ntop(AF_INET, &f->t.daddr, d, sizeof(d));
	fprintf(stats_out, "flow %s:%u %s:%u probes=%" PRIu64 " responses=%"
		PRIu64 " lost=%" PRIu64 " rtt_us=%" PRIu64 " srtt_us=%u probing=%d\n",
		s, ntohs(f->t.sport), d, ntohs(f->t.dport), f->probes,
		f->responses, f->lost, f->rtt_ns / 1000, f->srtt_us,
		f->probing);
}

/* Packets the packet socket dropped for a full receive buffer. */
static void packet_drops(void)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	/* the kernel resets the counts on each read */
	if (!getsockopt(pkt_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		counters[C_SOCKET_DROPS] += st.tp_drops;
}

/* Counters as key=value lines, then one line per flow. */
static void write_stats(void)
{
	char tmp[300];
	int i;

	if (!cfg.stats_file[0]) {
		stats_out = stderr;
	} else {
		snprintf(tmp, sizeof(tmp), "%s.tmp", cfg.stats_file);
		stats_out = fopen(tmp, "w");
		if (!stats_out) {
			logmsg(LOG_ERR, "%s: %s", tmp, strerror(errno));
			return;
		}
	}
	packet_drops();
	fprintf(stats_out, "connected=%d\nflows=%u\n", req.family_id != 0,
		nflows);
	for (i = 0; i < C_NUM; i++)
		fprintf(stats_out, "%s%s=%" PRIu64 "\n",
			i < C_PARSE_BASE ? "" : "dropped-",
			i < C_PARSE_BASE ? counter_names[i] :
			hpcc_parse_err_name(i - C_PARSE_BASE), counters[i]);
	twalk(flows, stats_flow);
	if (stats_out != stderr) {
		fclose(stats_out);
		if (rename(tmp, cfg.stats_file))
			logmsg(LOG_ERR, "%s: %s", cfg.stats_file,
			       strerror(errno));
	}
}

static int parse_uint(const char *name, const char *v, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max) {
		logmsg(LOG_ERR, "%s: '%s' is not a number in %u..%u", name, v,
		       min, max);
		return -1;
	}
	*out = x;
	return 0;
}

/* One setting from the file or the command line; -1 if invalid. */
static int set_option(struct hpccd_cfg *c, const char *k, const char *v)
{
	unsigned int b;

	if (!strcmp(k, "probe-budget"))
		return parse_uint(k, v, 1, 10000000, &c->budget);
	if (!strcmp(k, "max-hops"))
		return parse_uint(k, v, 1, HPCC_MAX_HOPS, &c->max_hops);
	if (!strcmp(k, "timeout-min-us"))
		return parse_uint(k, v, 100, 10000000, &c->timeout_min_us);
	if (!strcmp(k, "timeout-max-us"))
		return parse_uint(k, v, 100, 10000000, &c->timeout_max_us);
	if (!strcmp(k, "tick-us"))
		return parse_uint(k, v, 100, 100000, &c->tick_us);
	if (!strcmp(k, "stats-file")) {
		snprintf(c->stats_file, sizeof(c->stats_file), "%s", v);
		return 0;
	}
	if (!strcmp(k, "log")) {
		if (strcmp(v, "syslog") && strcmp(v, "stderr")) {
			logmsg(LOG_ERR, "log: syslog or stderr");
			return -1;
		}
		c->syslog = !strcmp(v, "syslog");
		return 0;
	}
	if (!strcmp(k, "verbose")) {
		if (parse_uint(k, v, 0, 1, &b))
			return -1;
		c->verbose = b;
		return 0;
	}
	logmsg(LOG_ERR, "unknown setting '%s'", k);
	return -1;
}

/* "key = value" lines, # comments; a missing default file is fine. */
static int read_config(struct hpccd_cfg *c, bool must_exist)
{
	char line[512], *k, *v, *e;
	FILE *f = fopen(c->file, "r");
	int n = 0, bad = 0;

	if (!f) {
		if (!must_exist && errno == ENOENT)
			return 0;
		logmsg(LOG_ERR, "%s: %s", c->file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		line[strcspn(line, "#\n")] = 0;
		k = line + strspn(line, " \t");
		if (!*k)
			continue;
		v = strchr(k, '=');
		if (!v) {
			logmsg(LOG_ERR, "%s:%d: expected key = value", c->file, n);
			bad = 1;
			continue;
		}
		for (e = v; e > k && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = 0;
		v++;
		v += strspn(v, " \t");
		for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = 0;
		if (set_option(c, k, v)) {
			logmsg(LOG_ERR, "%s:%d: setting ignored", c->file, n);
			bad = 1;
		}
	}
	fclose(f);
	if (c->timeout_min_us > c->timeout_max_us) {
		logmsg(LOG_ERR, "timeout-min-us above timeout-max-us");
		return -1;
	}
	return bad ? -1 : 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hpccd [-c FILE] [-b PPS] [-H HOPS] [-S FILE] [-s] [-v]\n"
		"       hpccd -h | -V\n"
		"  -c, --config FILE        configuration file (default /etc/hpcc/hpccd.conf)\n"
		"  -b, --probe-budget PPS   probe budget, probes per second for all flows\n"
		"  -H, --max-hops HOPS      hop records per probe, 1..8\n"
		"  -S, --stats-file FILE    statistics file, written on SIGUSR1 and at exit\n"
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
static const struct option long_opts[] = {
	{ "config",	  required_argument, NULL, 'c' },
	{ "probe-budget", required_argument, NULL, 'b' },
	{ "max-hops",	  required_argument, NULL, 'H' },
	{ "stats-file",	  required_argument, NULL, 'S' },
	{ "syslog",	  no_argument,	     NULL, 's' },
	{ "verbose",	  no_argument,	     NULL, 'v' },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ "version",	  no_argument,	     NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static int epoll_add(int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep_fd, EPOLL_CTL_ADD, fd, &e);
}

static int setup(void)
{
	sigset_t mask;
	int one = 1, rcvbuf = 4 << 20;

	raw_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	pkt_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			htons(ETH_P_IP));
	if (raw_fd < 0 || pkt_fd < 0) {
		logmsg(LOG_ERR, "raw sockets: %s (CAP_NET_RAW needed)",
		       strerror(errno));
		return -1;
	}
	setsockopt(raw_fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	/* room for bursts of probes; what overflows is counted (socket-drops) */
	if (setsockopt(pkt_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		setsockopt(pkt_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	/* until the module says which DSCPs: drop everything */
	probe_dscp = response_dscp = 64;
	attach_filter();
	/* -ENOENT (no module yet) leaves the sockets open */
	hpcc_genl_open(&req, 1000);
	hpcc_genl_open(&ev, 0);
	if (!req.nl || !ev.nl) {
		logmsg(LOG_ERR, "netlink: %s", strerror(errno));
		return -1;
	}
	if (ev.notify_grp &&
	    mnl_socket_setsockopt(ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &ev.notify_grp, sizeof(ev.notify_grp)) < 0)
		logmsg(LOG_ERR, "join nlctrl notify: %s", strerror(errno));
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (sig_fd < 0 || timer_fd < 0 || ep_fd < 0 ||
	    epoll_add(sig_fd) || epoll_add(timer_fd) || epoll_add(pkt_fd) ||
	    epoll_add(mnl_socket_get_fd(ev.nl))) {
		logmsg(LOG_ERR, "setup: %s", strerror(errno));
		return -1;
	}
	tokens_at = now_ns();
	connect_module();
	return 0;
}

/* Returns false to exit. */
static bool on_signal(void)
{
	struct signalfd_siginfo si;
	struct hpccd_cfg c;

	while (read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			return false;
		case SIGHUP:
			c = cfg;
			if (read_config(&c, true)) {
				logmsg(LOG_ERR, "reload failed; settings kept");
			} else {
				cfg = c;
				logmsg(LOG_INFO, "reloaded %s", cfg.file);
			}
			if (req.family_id) {
				read_params();
				attach_filter();
			}
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
	bool file_given = false, run = true;
	int opt, i, n;
	struct hpccd_cfg cl;
	char *const *args = argv;

	/* the file first, so the command line wins over it */
	while ((opt = getopt_long(argc, args, short_opts, long_opts,
				  NULL)) != -1)
		if (opt == 'c') {
			snprintf(cfg.file, sizeof(cfg.file), "%s", optarg);
			file_given = true;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'V') {
			printf("hpccd %s\n", HPCC_VERSION);
			return 0;
		} else if (opt == '?') {
			usage(stderr);
			return 2;
		}
	if (read_config(&cfg, file_given))
		return 2;
	cl = cfg;
	optind = 1;
	while ((opt = getopt_long(argc, args, short_opts, long_opts,
				  NULL)) != -1) {
		int err = 0;

		switch (opt) {
		case 'b': err = set_option(&cl, "probe-budget", optarg); break;
		case 'H': err = set_option(&cl, "max-hops", optarg); break;
		case 'S': err = set_option(&cl, "stats-file", optarg); break;
		case 's': cl.syslog = true; break;
		case 'v': cl.verbose = 1; break;
		}
		if (err)
			return 2;
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	cfg = cl;
	if (cfg.syslog)
		openlog("hpccd", LOG_PID, LOG_DAEMON);
	if (setup())
		return 1;
	logmsg(LOG_INFO, "hpccd running: budget %u probes/s, %u hops per probe",
	       cfg.budget, cfg.max_hops);
	while (run) {
		n = epoll_wait(ep_fd, evs, 8, -1);
		if (n < 0 && errno != EINTR) {
			logmsg(LOG_ERR, "epoll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n && run; i++) {
			int fd = evs[i].data.fd;

			if (fd == sig_fd)
				run = on_signal();
			else if (fd == timer_fd)
				on_timer();
			else if (fd == pkt_fd)
				read_packets();
			else
				read_events();
		}
	}
	write_stats();
	flows_clear();
	hpcc_genl_close(&req);
	hpcc_genl_close(&ev);
	logmsg(LOG_INFO, "hpccd exiting");
	return 0;
}
