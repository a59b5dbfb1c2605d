// SPDX-License-Identifier: GPL-2.0
/*
 * fctgen - the benchmarks' flow generator: runs a schedule of TCP flows
 * between network namespaces and measures each flow's completion time.
 *
 *   fctgen [-p PORT] [-b BIN_MS -B BINS] [-c COUNTERS] [-t TIMEOUT_S]
 *          [-P PINGS] -o RESULTS < SCHEDULE
 *
 * SCHEDULE has one flow per line (# lines are comments):
 *
 *   id start_us src_ns dst_ns dst_addr size stop_us
 *
 *   id        flow number (0..2^31-1), reported back
 *   start_us  when to open the connection, microseconds after fctgen's t0
 *   src_ns    the sender's netns (a name under /run/netns)
 *   dst_ns    the receiver's netns; fctgen listens on PORT (default 7000)
 *             in every receiver netns of the schedule
 *   dst_addr  the receiver's IPv4 address
 *   size      bytes to send, 1..2^40; 0 = a long flow that sends until
 *             stop_us (microseconds after t0); pUS = a ping flow (below)
 *
 * One process plays every sender and every receiver: it makes each socket in
 * its netns with setns(2), and runs all of them from one epoll loop on
 * CLOCK_MONOTONIC.  The sockets use their netns's default congestion control
 * (net.ipv4.tcp_congestion_control), as a server's would.
 *
 * A flow: the sender connects; once connected (t_conn) it sends a 16-byte
 * header (magic, id, size) and the data; the receiver answers one byte when
 * it has all of it (or, for a long flow, at the sender's FIN); the flow is
 * done (t_done) when the sender reads that byte.  t_done - t_conn, the flow
 * completion time, is size at the bottleneck's rate plus one RTT for an
 * ideal transport, and excludes the handshake.
 *
 * A ping flow (size pUS, 1 <= US <= 10^7) keeps one connection from its
 * start to stop_us and sends an 8-byte message every US microseconds, the
 * first one with the header; the receiver answers each message with one
 * byte as soon as it has it.  Both ends set TCP_NODELAY: with Nagle a
 * message waits for the previous one's ACK whenever the period is
 * shorter than the round trip (S7's first ping run: 29-33 ms at 30 % load
 * on an empty queue and a 10 ms round trip).  A message's round trip, from the send() that
 * wrote it to the read of its answer, is a latency sample with no
 * handshake or connection set-up in it: PINGS (-P) has "id seq t_send_us
 * rtt_us" per answered message (seq from 0, times after t0).  A message
 * whose turn comes while the socket cannot take it is not sent and not
 * counted (the socket's buffer holds megabytes; 8 bytes every US do not
 * fill it unless the connection has stalled).  At stop_us the sender
 * shuts its side; the flow is ok (t_done) when every sent message was
 * answered and the receiver closed; its size in RESULTS is 8 x messages.
 *
 * RESULTS: one line per flow,
 *
 *   id size src_ns t_start_us t_conn_us t_done_us retrans status
 *
 * times in microseconds after t0, retrans the sender's tcpi_total_retrans,
 * status ok, refused, reset, socket (no descriptor or memory for it; fctgen
 * raises its descriptor limit to the hard limit first) or timeout (no t_done
 * after TIMEOUT_S, default 120 s, after the last start).  The first line is "# t0_us T" with t0 on
 * CLOCK_MONOTONIC.  BINS (with -b): "id bin bytes" for every non-empty
 * BIN_MS bin of bytes received per flow, bin 0 starting at t0.
 * COUNTERS.before and COUNTERS.after (with -c): "name value" lines of TcpExt
 * counters (TCPTimeouts, TCPLossProbes, TCPSpuriousRTOs, TCPSACKReorder,
 * TCPSynRetrans: a SYN sent again after a lost SYN or SYN-ACK; and the
 * other five counters an RTO increments instead of TCPTimeouts, by the
 * state it fires in: TCPSackRecoveryFail, TCPSackFailures,
 * TCPLossFailures, TCPRenoRecoveryFail, TCPRenoFailures)
 * summed over the senders' netns, read just before t0 and after the last
 * flow.
 *
 * Exit status 0 when every flow is ok, 1 when some is not, 2 usage or
 * set-up errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FG_MAGIC	0x48504343u	/* "HPCC" */
#define FG_MAX_NS	256
#define FG_MAX_FLOWS	(1 << 20)
#define FG_MAX_SIZE	(1ULL << 40)
/* a ping flow's header size, outside every data flow's range */
#define FG_PING		(1ULL << 62)
#define FG_PING_MAX	4096	/* messages a ping flow may have unanswered */

struct fg_hdr {
	uint32_t magic;
	uint32_t id;
	uint64_t size;
};

enum fg_kind { FG_LISTEN, FG_SND, FG_RCV };
enum fg_state { FG_WAIT, FG_CONNECTING, FG_SENDING, FG_REPLY, FG_DONE,
		FG_PINGING };

struct fg_conn {
	enum fg_kind kind;
	int fd;
	struct fg_flow *flow;	/* FG_SND */
	/* FG_RCV */
	struct fg_hdr hdr;
	unsigned int hdr_got;
	uint64_t got;
	uint32_t *bins;		/* bytes per bin, grown as needed */
	unsigned int nbins;
};

struct fg_flow {
	uint32_t id;
	uint64_t size;
	int64_t start_us, stop_us;
	int src, dst;		/* indexes into ns[] */
	struct in_addr addr;
	enum fg_state state;
	uint64_t sent;		/* header included */
	int64_t conn_us, done_us;
	uint32_t retrans;
	const char *status;
	struct fg_conn conn;
	/* ping flows: the period (0: not one), the next message's time, the
	 * messages sent and answered, the unanswered ones' send times (a
	 * ring of FG_PING_MAX)
	 */
	int64_t ping_us, ping_due;
	uint64_t ping_sent, ping_got;
	int64_t *ping_t;
};

static struct {
	char name[64];
	int fd;
	int listen_fd;
} ns[FG_MAX_NS];
static int nns;
static int self_ns;
static int64_t t0_us;
static int ep;
static uint16_t port = 7000;
static unsigned int bin_ms;
static FILE *bins_out;
static FILE *pings_out;
static char buf[1 << 16];
static size_t ndone;

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_rel(void)
{
	return mono_us() - t0_us;
}

/* ns_index() - the index of netns @name, opened on first use; -1 if none */
static int ns_index(const char *name)
{
	char path[128];
	int i;

	for (i = 0; i < nns; i++)
		if (!strcmp(ns[i].name, name))
			return i;
	if (nns == FG_MAX_NS || strlen(name) >= sizeof(ns[0].name) ||
	    strchr(name, '/'))
		return -1;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	ns[nns].fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns[nns].fd < 0)
		return -1;
	strcpy(ns[nns].name, name);
	ns[nns].listen_fd = -1;
	return nns++;
}

/* ns_leave() - back to fctgen's own netns after ns_enter(); errno kept */
static void ns_leave(void)
{
	int err = errno;

	if (setns(self_ns, CLONE_NEWNET)) {
		perror("fctgen: setns back");
		exit(2);
	}
	errno = err;
}

/* ns_enter() - into netns @i; 0, or -1 (errno set) and still in our own */
static int ns_enter(int i)
{
	return setns(ns[i].fd, CLONE_NEWNET);
}

/* socket_in() - a non-blocking TCP socket made in netns @i */
static int socket_in(int i)
{
	int fd;

	if (ns_enter(i))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ns_leave();
	return fd;
}

static int ep_add(int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void ep_mod(int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

static struct fg_conn listeners[FG_MAX_NS];

static int listen_in(int i)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, fd;

	fd = socket_in(i);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4096))
		return -1;
	listeners[i].kind = FG_LISTEN;
	listeners[i].fd = fd;
	ns[i].listen_fd = fd;
	return ep_add(fd, EPOLLIN, &listeners[i]);
}

/* flow_end() - the flow is over with @status; its socket, if any, closed */
static void flow_end(struct fg_flow *f, const char *status)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (f->conn.fd >= 0) {
		if (!getsockopt(f->conn.fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
			f->retrans = ti.tcpi_total_retrans;
		close(f->conn.fd);
		f->conn.fd = -1;
	}
	f->state = FG_DONE;
	f->status = status;
	ndone++;
	if (!strcmp(status, "ok"))
		f->done_us = now_rel();
}

static void flow_start(struct fg_flow *f)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port), .sin_addr = f->addr };
	int fd = socket_in(f->src);

	if (fd < 0) {
		flow_end(f, "socket");
		return;
	}
	f->conn.kind = FG_SND;
	f->conn.fd = fd;
	if (f->ping_us)		/* each message now, not after the last's ACK */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	f->state = FG_CONNECTING;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    errno != EINPROGRESS) {
		flow_end(f, "refused");
		return;
	}
	ep_add(fd, EPOLLOUT, &f->conn);
}

/* snd_write() - send as much of the header and data as the socket takes */
static void snd_write(struct fg_flow *f)
{
	struct fg_hdr h = { FG_MAGIC, f->id, f->size };
	uint64_t total = sizeof(h) + f->size;

	while (f->size ? f->sent < total :
	       f->sent < sizeof(h) || now_rel() < f->stop_us) {
		size_t len = sizeof(buf), off = 0;
		ssize_t n;

		if (f->sent < sizeof(h)) {
			memcpy(buf, &h, sizeof(h));
			off = f->sent;
			len -= off;
		}
		if (f->size && total - f->sent < len)
			len = total - f->sent;
		n = send(f->conn.fd, buf + off, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN)
				flow_end(f, "reset");
			return;
		}
		f->sent += n;
	}
	if (!f->size)
		shutdown(f->conn.fd, SHUT_WR);
	f->state = FG_REPLY;
	ep_mod(f->conn.fd, EPOLLIN, &f->conn);
}

/*
 * ping_send() - a ping flow's message now, with the header before the
 * first; the next one due a period later
 */
static void ping_send(struct fg_flow *f)
{
	struct { struct fg_hdr h; uint64_t seq; } m = {
		{ FG_MAGIC, f->id, FG_PING }, f->ping_sent };
	size_t off = f->ping_sent ? sizeof(m.h) : 0;
	int64_t now = now_rel();
	ssize_t n;

	/* on the grid of periods from the first, unless a whole one is lost */
	f->ping_due = f->ping_sent && f->ping_due + f->ping_us > now ?
		      f->ping_due + f->ping_us : now + f->ping_us;
	if (f->ping_sent - f->ping_got >= FG_PING_MAX)
		return;
	n = send(f->conn.fd, (char *)&m + off, sizeof(m) - off,
		 MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n == (ssize_t)(sizeof(m) - off)) {
		f->ping_t[f->ping_sent % FG_PING_MAX] = now;
		f->ping_sent++;
	} else if (n > 0 || (n < 0 && errno != EAGAIN)) {
		/* a part of a message would garble the stream */
		flow_end(f, "reset");
	}
}

/*
 * ping_read() - a ping flow's answers: a sample each; the receiver's
 * close after the sender's shutdown ends the flow
 */
static void ping_read(struct fg_flow *f)
{
	int64_t now = now_rel();
	ssize_t n, i;

	for (;;) {
		n = recv(f->conn.fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		for (i = 0; i < n && f->ping_got < f->ping_sent; i++) {
			int64_t t = f->ping_t[f->ping_got % FG_PING_MAX];

			if (pings_out)
				fprintf(pings_out, "%u %llu %lld %lld\n", f->id,
					(unsigned long long)f->ping_got,
					(long long)t, (long long)(now - t));
			f->ping_got++;
		}
	}
	flow_end(f, !n && f->ping_got == f->ping_sent &&
		 f->state == FG_REPLY ? "ok" : "reset");
}

static void snd_event(struct fg_flow *f)
{
	int err = 0;
	socklen_t len = sizeof(err);
	ssize_t n;
	char c;

	switch (f->state) {
	case FG_CONNECTING:
		getsockopt(f->conn.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			flow_end(f, err == ECONNREFUSED ? "refused" : "reset");
			return;
		}
		f->conn_us = now_rel();
		if (f->ping_us) {
			f->state = FG_PINGING;
			ep_mod(f->conn.fd, EPOLLIN, &f->conn);
			ping_send(f);
			return;
		}
		f->state = FG_SENDING;
		snd_write(f);
		return;
	case FG_SENDING:
		snd_write(f);
		return;
	case FG_PINGING:
		ping_read(f);
		return;
	case FG_REPLY:
		if (f->ping_us) {
			ping_read(f);
			return;
		}
		n = recv(f->conn.fd, &c, 1, 0);
		if (n == 1)
			flow_end(f, "ok");
		else if (!n || errno != EAGAIN)
			flow_end(f, "reset");
		return;
	default:
		return;
	}
}

static void rcv_close(struct fg_conn *c)
{
	unsigned int i;

	if (bins_out && c->hdr_got == sizeof(c->hdr))
		for (i = 0; i < c->nbins; i++)
			if (c->bins[i])
				fprintf(bins_out, "%u %u %u\n", c->hdr.id, i,
					c->bins[i]);
	close(c->fd);
	free(c->bins);
	free(c);
}

static void rcv_count(struct fg_conn *c, size_t n)
{
	unsigned int b;

	c->got += n;
	if (!bin_ms)
		return;
	b = now_rel() / 1000 / bin_ms;
	if (b >= c->nbins) {
		unsigned int nb = b + 64;
		uint32_t *v = realloc(c->bins, nb * sizeof(*v));

		if (!v)
			return;
		memset(v + c->nbins, 0, (nb - c->nbins) * sizeof(*v));
		c->bins = v;
		c->nbins = nb;
	}
	c->bins[b] += n;
}

static void rcv_event(struct fg_conn *c)
{
	for (;;) {
		ssize_t n;

		if (c->hdr_got < sizeof(c->hdr)) {
			n = recv(c->fd, (char *)&c->hdr + c->hdr_got,
				 sizeof(c->hdr) - c->hdr_got, 0);
			if (n > 0) {
				c->hdr_got += n;
				if (c->hdr_got == sizeof(c->hdr) &&
				    (c->hdr.magic != FG_MAGIC ||
				     (c->hdr.size > FG_MAX_SIZE &&
				      c->hdr.size != FG_PING))) {
					c->hdr_got = 0;
					rcv_close(c);
					return;
				}
				/* a ping flow's answers at once: with Nagle
				 * one would wait for the last one's ACK
				 */
				if (c->hdr_got == sizeof(c->hdr) &&
				    c->hdr.size == FG_PING)
					setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY,
						   &(int){ 1 }, sizeof(int));
				continue;
			}
		} else if (c->hdr.size == FG_PING) {
			/* one byte back for each whole 8-byte message */
			n = recv(c->fd, buf, sizeof(buf), 0);
			if (n > 0) {
				uint64_t a = c->got / 8, k;

				rcv_count(c, n);
				for (k = a; k < c->got / 8; k++)
					send(c->fd, "!", 1,
					     MSG_NOSIGNAL | MSG_DONTWAIT);
				continue;
			}
			if (!n)
				break;	/* the sender's shutdown */
		} else {
			size_t len = sizeof(buf);

			if (c->hdr.size && c->hdr.size - c->got < len)
				len = c->hdr.size - c->got;
			n = recv(c->fd, buf, len, 0);
			if (n > 0) {
				rcv_count(c, n);
				if (c->hdr.size && c->got == c->hdr.size)
					break;
				continue;
			}
		}
		if (n == 0 && c->hdr_got == sizeof(c->hdr) && !c->hdr.size)
			break;		/* a long flow's FIN */
		if (n < 0 && errno == EAGAIN)
			return;
		rcv_close(c);		/* EOF early, or reset */
		return;
	}
	if (c->hdr.size != FG_PING)
		send(c->fd, "!", 1, MSG_NOSIGNAL);
	rcv_close(c);
}

static void accept_event(struct fg_conn *l)
{
	for (;;) {
		struct fg_conn *c;
		int fd = accept4(l->fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->kind = FG_RCV;
		c->fd = fd;
		if (ep_add(fd, EPOLLIN, c)) {
			close(fd);
			free(c);
		}
	}
}

static const char *const counter_names[] = {
	"TCPTimeouts", "TCPLossProbes", "TCPSpuriousRTOs", "TCPSACKReorder",
	"TCPSynRetrans", "TCPSackRecoveryFail", "TCPSackFailures",
	"TCPLossFailures", "TCPRenoRecoveryFail", "TCPRenoFailures",
};
#define FG_NCOUNTERS (sizeof(counter_names) / sizeof(counter_names[0]))

/* netstat_add() - add netns @i's TcpExt counters to @sum */
static void netstat_add(int i, unsigned long long *sum)
{
	char head[8192], vals[8192], *hs, *vs, *h, *v;
	FILE *f = NULL;
	size_t k;

	if (!ns_enter(i)) {
		f = fopen("/proc/thread-self/net/netstat", "r");
		ns_leave();
	}
	if (!f)
		return;
	while (fgets(head, sizeof(head), f) && fgets(vals, sizeof(vals), f)) {
		if (strncmp(head, "TcpExt:", 7))
			continue;
		h = strtok_r(head, " \n", &hs);
		v = strtok_r(vals, " \n", &vs);
		while ((h = strtok_r(NULL, " \n", &hs)) &&
		       (v = strtok_r(NULL, " \n", &vs)))
			for (k = 0; k < FG_NCOUNTERS; k++)
				if (!strcmp(h, counter_names[k]))
					sum[k] += strtoull(v, NULL, 10);
	}
	fclose(f);
}

/* counters_write() - @prefix.@when: the senders' summed TcpExt counters */
static void counters_write(const char *prefix, const char *when,
			   const struct fg_flow *flows, size_t nflows)
{
	unsigned long long sum[FG_NCOUNTERS] = { 0 };
	char path[4096], seen[FG_MAX_NS] = { 0 };
	size_t i;
	FILE *f;

	for (i = 0; i < nflows; i++)
		if (!seen[flows[i].src]) {
			seen[flows[i].src] = 1;
			netstat_add(flows[i].src, sum);
		}
	snprintf(path, sizeof(path), "%s.%s", prefix, when);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	for (i = 0; i < FG_NCOUNTERS; i++)
		fprintf(f, "%s %llu\n", counter_names[i], sum[i]);
	fclose(f);
}

static int usage(void)
{
	fprintf(stderr, "usage: fctgen [-p PORT] [-b BIN_MS -B BINS] [-c COUNTERS] [-t TIMEOUT_S] [-P PINGS] -o RESULTS < SCHEDULE\n");
	return 2;
}

static int by_start(const void *a, const void *b)
{
	const struct fg_flow *x = a, *y = b;

	return (x->start_us > y->start_us) - (x->start_us < y->start_us);
}

int main(int ac, char **av)
{
	const char *results = NULL, *bins = NULL, *counters = NULL;
	const char *pings = NULL;
	struct fg_flow *flows = NULL;
	size_t nflows = 0, cap = 0, next = 0, i;
	struct fg_flow **longf = NULL;
	size_t nlong = 0;
	long timeout_s = 120;
	char line[512];
	FILE *out;
	int c, bad = 0, lineno = 0;
	int64_t last_start = 0;

	while ((c = getopt(ac, av, "p:b:B:c:t:o:P:h")) != -1) {
		switch (c) {
		case 'P': pings = optarg; break;
		case 'c': counters = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'b': bin_ms = atoi(optarg); break;
		case 'B': bins = optarg; break;
		case 't': timeout_s = atol(optarg); break;
		case 'o': results = optarg; break;
		default: return usage();
		}
	}
	if (!results || !port || timeout_s <= 0 || (!bin_ms != !bins))
		return usage();
	/* two sockets a flow: a backlog of slow flows must not run out of
	 * descriptors at the default soft limit of 1024
	 */
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (self_ns < 0 || ep < 0) {
		perror("fctgen");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char src[64], dst[64], addr[32], sz[32], *num, *end;
		unsigned long long size, ping, v;
		long long start, stop;
		unsigned int id;
		struct fg_flow *f;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%u %lld %63s %63s %31s %31s %lld", &id, &start,
			   src, dst, addr, sz, &stop) != 7)
			sz[0] = 0;
		/* the size, or after a 'p' a ping flow's period: digits */
		num = sz + (sz[0] == 'p');
		errno = 0;
		v = strtoull(num, &end, 10);
		size = num == sz ? v : 0;
		ping = num == sz ? 0 : v;
		if (!*num || *num == '-' || *end || errno || start < 0 ||
		    size > FG_MAX_SIZE ||
		    (num != sz && (!ping || ping > 10000000)) ||
		    (!size && stop <= start)) {
			fprintf(stderr, "fctgen: line %d: bad flow\n", lineno);
			return 2;
		}
		if (nflows == cap) {
			cap = cap ? 2 * cap : 1024;
			if (cap > FG_MAX_FLOWS) {
				fprintf(stderr, "fctgen: too many flows\n");
				return 2;
			}
			flows = realloc(flows, cap * sizeof(*flows));
			if (!flows) {
				perror("fctgen");
				return 2;
			}
		}
		f = &flows[nflows];
		memset(f, 0, sizeof(*f));
		f->id = id;
		f->start_us = start;
		f->stop_us = stop;
		f->size = size;
		f->ping_us = ping;
		if (ping) {
			f->ping_t = calloc(FG_PING_MAX, sizeof(*f->ping_t));
			if (!f->ping_t) {
				perror("fctgen");
				return 2;
			}
		}
		f->src = ns_index(src);
		f->dst = ns_index(dst);
		if (f->src < 0 || f->dst < 0 || !inet_aton(addr, &f->addr)) {
			fprintf(stderr, "fctgen: line %d: no netns %s or %s, or bad address\n",
				lineno, src, dst);
			return 2;
		}
		f->conn.fd = -1;
		if (ns[f->dst].listen_fd < 0 && listen_in(f->dst)) {
			fprintf(stderr, "fctgen: cannot listen in %s: %m\n", dst);
			return 2;
		}
		if (start > last_start)
			last_start = start;
		nflows++;
	}
	qsort(flows, nflows, sizeof(*flows), by_start);
	longf = calloc(nflows + 1, sizeof(*longf));
	if (!longf) {
		perror("fctgen");
		return 2;
	}
	for (i = 0; i < nflows; i++) {
		flows[i].conn.flow = &flows[i];
		if (!flows[i].size || flows[i].ping_us)
			longf[nlong++] = &flows[i];
	}
	if (bins) {
		bins_out = fopen(bins, "w");
		if (!bins_out) {
			perror(bins);
			return 2;
		}
	}
	if (pings) {
		pings_out = fopen(pings, "w");
		if (!pings_out) {
			perror(pings);
			return 2;
		}
	}
	out = fopen(results, "w");
	if (!out) {
		perror(results);
		return 2;
	}

	if (counters)
		counters_write(counters, "before", flows, nflows);
	t0_us = mono_us();
	while (ndone < nflows) {
		struct epoll_event ev[64];
		int64_t now = now_rel(), wait_ms = 100;
		int n, k;

		while (next < nflows && flows[next].start_us <= now)
			flow_start(&flows[next++]);
		if (next < nflows && (flows[next].start_us - now) / 1000 < wait_ms)
			wait_ms = (flows[next].start_us - now) / 1000;
		/* ping flows' next messages (rounded up: no busy wait) */
		for (i = 0; i < nlong; i++)
			if (longf[i]->state == FG_PINGING &&
			    (longf[i]->ping_due - now + 999) / 1000 < wait_ms)
				wait_ms = (longf[i]->ping_due - now + 999) / 1000;
		if (now > last_start + timeout_s * 1000000LL)
			break;
		n = epoll_wait(ep, ev, 64, wait_ms);
		for (k = 0; k < n; k++) {
			struct fg_conn *cn = ev[k].data.ptr;

			if (cn->kind == FG_LISTEN)
				accept_event(cn);
			else if (cn->kind == FG_RCV)
				rcv_event(cn);
			else
				snd_event(cn->flow);
		}
		/* long flows past their stop time, whatever the socket says;
		 * ping flows' messages due, and their end
		 */
		for (i = 0; i < nlong; i++) {
			struct fg_flow *f = longf[i];

			if (f->state == FG_SENDING && now_rel() >= f->stop_us)
				snd_write(f);
			if (f->state != FG_PINGING)
				continue;
			if (now_rel() >= f->stop_us) {
				shutdown(f->conn.fd, SHUT_WR);
				f->state = FG_REPLY;
			} else if (now_rel() >= f->ping_due) {
				ping_send(f);
			}
		}
	}

	if (counters)
		counters_write(counters, "after", flows, nflows);
	fprintf(out, "# t0_us %lld\n", (long long)t0_us);
	for (i = 0; i < nflows; i++) {
		struct fg_flow *f = &flows[i];

		if (f->state != FG_DONE)
			flow_end(f, "timeout");
		bad += strcmp(f->status, "ok") != 0;
		fprintf(out, "%u %llu %s %lld %lld %lld %u %s\n", f->id,
			(unsigned long long)(f->ping_us ? 8 * f->ping_sent :
					     f->size), ns[f->src].name,
			(long long)f->start_us, (long long)f->conn_us,
			(long long)f->done_us, f->retrans, f->status);
	}
	fclose(out);
	if (bins_out)
		fclose(bins_out);
	if (pings_out)
		fclose(pings_out);
	return bad ? 1 : 0;
}
