// SPDX-License-Identifier: GPL-2.0
/*
 * send_test - hpccd's packet path (daemon/hpccd/xmit.c).  Its batched
 * send (hpccd_tx_queue(), hpccd_tx_flush(): one sendmmsg() a batch) on a
 * socket whose send buffer is full must return at once (-EAGAIN,
 * backpressure) instead of waiting for room, which would freeze hpccd's
 * event loop for as long as the egress is stalled; the refusal is counted
 * as send-blocked (-ENOBUFS too), each packet of a batch is reported once
 * and in order, and a probe's flow backs off, the probe not counted as
 * sent.  A case that blocks is ended by SIGALRM after 5 s, a failure.
 * And its batched reads (HPCCD_RX_BATCH packets a system call, each with
 * its length and truncation) and its pool of probe ids.  Host test, ASan
 * and UBSan.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sodium.h>

#include "kselftest_harness.h"
#include "hpccd/xmit.h"
#include "hpccd/sched.h"

/* The loopback device up, draining at 8 kbit/s: a stalled egress. */
#define STALL_LO "ip link set lo up && " \
	"tc qdisc add dev lo root tbf rate 8kbit burst 1600 limit 10000000"

/* Sends at most, before the socket must have been found full. */
#define SENDS_MAX 100000

static void last_err(const struct hpccd_tx_pkt *p, int err, void *ctx)
{
	*(int *)ctx = err;
}

/*
 * send1() - one packet of @len bytes through hpccd's batch (queued, then
 * flushed), to @to (NULL: the connected peer), counted in @c
 * Return: its outcome, as hpccd_tx_flush() reports it.
 */
static int send1(int fd, const void *buf, size_t len,
		 const struct sockaddr *to, socklen_t tolen,
		 const struct hpccd_send_counts *c)
{
	static struct hpccd_tx_batch b;
	static struct hpccd_tx_pkt p;
	int err = 1;

	memset(&p, 0, sizeof(p));
	memcpy(p.buf, buf, len);
	p.len = len;
	if (to) {
		memcpy(&p.to, to, tolen);
		p.tolen = tolen;
	}
	hpccd_tx_queue(&b, fd, &p, c, last_err, &err);
	hpccd_tx_flush(&b, c, last_err, &err);
	return err;
}

/*
 * fill() - send @len bytes of @buf on @fd until hpccd's batch reports a
 * refusal
 * Return: its error (0 when SENDS_MAX went out), *@sent the packets sent
 */
static int fill(int fd, const void *buf, size_t len, const struct sockaddr *to,
		socklen_t tolen, int *sent)
{
	uint64_t blocked = 0, errors = 0;
	const struct hpccd_send_counts c = {
		.blocked = &blocked, .errors = &errors,
	};
	int err = 0;

	for (*sent = 0; *sent < SENDS_MAX; (*sent)++) {
		err = send1(fd, buf, len, to, tolen, &c);
		if (err)
			break;
	}
	return err;
}

/*
 * A datagram socket whose peer does not read: the peer's queue fills, and
 * the next send is refused with -EAGAIN, not waited on.
 */
TEST(full_socket_refused_not_waited)
{
	char buf[512] = { 0 };
	int sv[2], sent, err;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	alarm(5);
	err = fill(sv[0], buf, sizeof(buf), NULL, 0, &sent);
	alarm(0);
	EXPECT_EQ(-EAGAIN, err) TH_LOG("after %d packets: %s", sent,
				       strerror(-err));
	EXPECT_GT(sent, 0);
	/* room again once the peer reads: sends resume */
	EXPECT_EQ(sizeof(buf), recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(-EAGAIN, fill(sv[0], buf, sizeof(buf), NULL, 0, &sent));
	EXPECT_LE(1, sent);
	close(sv[0]);
	close(sv[1]);
}

/*
 * hpccd's own socket, a raw IPv4 socket with IP_HDRINCL, in a network
 * namespace of its own whose loopback device drains at 8 kbit/s (tbf): the
 * packets wait in the qdisc, charged to the socket, until its send buffer
 * is full, as behind a stalled egress.  Needs root and tc.
 */
TEST(raw_socket_stalled_egress)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	int fd, sent, err, one = 1, small = 4096;
	uint8_t buf[200] = { 0 };
	struct iphdr *ip = (struct iphdr *)buf;

	if (geteuid() || unshare(CLONE_NEWNET))
		SKIP(return, "needs root (a network namespace, a raw socket)");
	if (system(STALL_LO))
		SKIP(return, "ip or tc failed");
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small,
				sizeof(small)));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = 253;		/* RFC 3692 experimentation */
	ip->tot_len = htons(sizeof(buf));
	ip->saddr = ip->daddr = to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	alarm(5);
	err = fill(fd, buf, sizeof(buf), (struct sockaddr *)&to, sizeof(to),
		   &sent);
	alarm(0);
	EXPECT_EQ(-EAGAIN, err) TH_LOG("after %d packets: %s", sent,
				       strerror(-err));
	EXPECT_GT(sent, 0);
	ksft_print_msg("raw socket full after %d packets of %zu bytes\n", sent,
		       sizeof(buf));
	close(fd);
}

/* The same for hpccd's IPv6 socket (IPPROTO_RAW: the header is ours). */
TEST(raw6_socket_stalled_egress)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6 };
	uint8_t buf[200] = { 0 };
	int fd, sent, err, small = 4096;

	if (geteuid() || unshare(CLONE_NEWNET))
		SKIP(return, "needs root (a network namespace, a raw socket)");
	if (system(STALL_LO))
		SKIP(return, "ip or tc failed");
	fd = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 && errno == EAFNOSUPPORT)
		SKIP(return, "no IPv6");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small,
				sizeof(small)));
	buf[0] = 0x60;			/* version 6 */
	buf[5] = sizeof(buf) - 40;	/* payload length */
	buf[6] = 253;			/* RFC 3692 experimentation */
	buf[7] = 64;			/* hop limit */
	buf[23] = buf[39] = 1;		/* ::1 to ::1 */
	to.sin6_addr = in6addr_loopback;
	alarm(5);
	err = fill(fd, buf, sizeof(buf), (struct sockaddr *)&to, sizeof(to),
		   &sent);
	alarm(0);
	EXPECT_EQ(-EAGAIN, err) TH_LOG("after %d packets: %s", sent,
				       strerror(-err));
	EXPECT_GT(sent, 0);
	ksft_print_msg("raw IPv6 socket full after %d packets of %zu bytes\n",
		       sent, sizeof(buf));
	close(fd);
}

/*
 * hpccd's counted send: a full socket's -EAGAIN and an -ENOBUFS are both
 * send-blocked and -EAGAIN to the caller; another error, and a family
 * without a socket, are send-errors.
 */
TEST(send_counted)
{
	uint64_t blocked = 0, errors = 0;
	const struct hpccd_send_counts c = {
		.blocked = &blocked, .errors = &errors,
	};
	char buf[512] = { 0 };
	int sv[2], i, err = 0;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	alarm(5);
	for (i = 0; i < SENDS_MAX && !err; i++)
		err = send1(sv[0], buf, sizeof(buf), NULL, 0, &c);
	alarm(0);
	EXPECT_EQ(-EAGAIN, err);
	EXPECT_EQ(1, blocked);
	EXPECT_EQ(0, errors);
	EXPECT_EQ(-EAGAIN, send1(sv[0], buf, sizeof(buf), NULL, 0, &c));
	EXPECT_EQ(2, blocked);
	EXPECT_EQ(-EAGAIN, hpccd_send_account(-ENOBUFS, &c));
	EXPECT_EQ(3, blocked);
	EXPECT_EQ(0, errors);
	EXPECT_EQ(-EAFNOSUPPORT, send1(-1, buf, sizeof(buf), NULL, 0, &c));
	EXPECT_EQ(-EPERM, hpccd_send_account(-EPERM, &c));
	EXPECT_EQ(3, blocked);
	EXPECT_EQ(2, errors);
	EXPECT_EQ(0, hpccd_send_account(0, &c));
	EXPECT_EQ(2, errors);
	close(sv[0]);
	close(sv[1]);
}

#define MS 1000000ULL
#define T0 (1000 * MS)

/* What hpccd_tx_flush() reported, in order. */
struct outcomes {
	int err[2 * HPCCD_TX_BATCH];
	uint8_t first[2 * HPCCD_TX_BATCH];
	unsigned int n;
	struct hpccd_sched *s;	/* probes: hpccd_probe_done() too */
	uint64_t now;
};

static void record(const struct hpccd_tx_pkt *p, int err, void *ctx)
{
	struct outcomes *o = ctx;

	if (o->n < 2 * HPCCD_TX_BATCH) {
		o->err[o->n] = err;
		o->first[o->n] = p->buf[0];
	}
	o->n++;
	if (p->probe && o->s)
		hpccd_probe_done(o->s, p, err, o->now);
}

/* a packet of @len bytes whose first is @tag */
static void pkt_of(struct hpccd_tx_pkt *p, uint8_t tag, size_t len)
{
	memset(p, 0, sizeof(*p));
	memset(p->buf, tag, len);
	p->len = len;
}

/*
 * A batch on a socket with room for 3 more packets: 5 queued leave in
 * order, 3 sent and the 2 after them refused for want of room (-EAGAIN,
 * send-blocked), each reported once; a packet to an address that fails
 * (a socket path that does not exist) is an error of its own
 * (send-errors) and the packets after it still leave; a batch fills at
 * HPCCD_TX_BATCH and is sent by the next queue, and a packet for another
 * socket sends the batch first; no socket (-1) is -EAFNOSUPPORT at once,
 * and a length of 0 or above HPCC_PKT_MAX -EMSGSIZE, none of them queued.
 */
TEST(tx_batch)
{
	uint64_t blocked = 0, errors = 0;
	const struct hpccd_send_counts c = {
		.blocked = &blocked, .errors = &errors,
	};
	static struct hpccd_tx_batch b;
	struct sockaddr_un *bad;
	struct outcomes o = { 0 };
	struct hpccd_tx_pkt p;
	char buf[512];
	int sv[2], sv2[2], sent, i;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv2));
	alarm(5);
	EXPECT_EQ(-EAGAIN, fill(sv[0], buf, sizeof(buf), NULL, 0, &sent));
	alarm(0);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(sizeof(buf), recv(sv[1], buf, sizeof(buf), 0));
	for (i = 0; i < 5; i++) {
		pkt_of(&p, 100 + i, sizeof(buf));
		hpccd_tx_queue(&b, sv[0], &p, &c, record, &o);
	}
	EXPECT_EQ(0U, o.n);
	EXPECT_EQ(3U, hpccd_tx_flush(&b, &c, record, &o));
	ASSERT_EQ(5U, o.n);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(i < 3 ? 0 : -EAGAIN, o.err[i]);
		EXPECT_EQ(100 + i, o.first[i]);
	}
	EXPECT_EQ(2U, blocked);
	EXPECT_EQ(0U, errors);
	EXPECT_EQ(0U, b.n);

	/* an address that fails, between two that do not */
	o.n = 0;
	pkt_of(&p, 1, 10);
	hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	pkt_of(&p, 2, 10);
	bad = (struct sockaddr_un *)&p.to;
	bad->sun_family = AF_UNIX;
	strcpy(bad->sun_path, "/nonexistent/hpccd-send-test");
	p.tolen = sizeof(*bad);
	hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	pkt_of(&p, 3, 10);
	hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	EXPECT_EQ(2U, hpccd_tx_flush(&b, &c, record, &o));
	ASSERT_EQ(3U, o.n);
	EXPECT_EQ(0, o.err[0]);
	EXPECT_GT(0, o.err[1]);
	EXPECT_NE(-EAGAIN, o.err[1]);
	EXPECT_EQ(0, o.err[2]);
	EXPECT_EQ(1U, errors);
	EXPECT_EQ(2U, blocked);
	EXPECT_EQ(1, recv(sv2[1], buf, sizeof(buf), 0) == 10 && buf[0] == 1);
	EXPECT_EQ(1, recv(sv2[1], buf, sizeof(buf), 0) == 10 && buf[0] == 3);

	/* full at HPCCD_TX_BATCH: the next queue sends it; another socket
	 * sends the batch first
	 */
	o.n = 0;
	for (i = 0; i < HPCCD_TX_BATCH; i++) {
		pkt_of(&p, i, 10);
		hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	}
	EXPECT_EQ(0U, o.n);
	pkt_of(&p, 200, 10);
	hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	EXPECT_EQ((unsigned int)HPCCD_TX_BATCH, o.n);
	EXPECT_EQ(1U, b.n);
	pkt_of(&p, 201, 10);
	hpccd_tx_queue(&b, sv2[1], &p, &c, record, &o);
	EXPECT_EQ(HPCCD_TX_BATCH + 1U, o.n);
	EXPECT_EQ(200, o.first[HPCCD_TX_BATCH]);
	EXPECT_EQ(1U, b.n);
	EXPECT_EQ(1U, hpccd_tx_flush(&b, &c, record, &o));
	EXPECT_EQ(HPCCD_TX_BATCH + 2U, o.n);
	for (i = 0; i < HPCCD_TX_BATCH + 2; i++)
		EXPECT_EQ(0, o.err[i]);

	/* no socket; no packet; one too long */
	pkt_of(&p, 7, 10);
	hpccd_tx_queue(&b, -1, &p, &c, record, &o);
	EXPECT_EQ(HPCCD_TX_BATCH + 3U, o.n);
	EXPECT_EQ(-EAFNOSUPPORT, o.err[HPCCD_TX_BATCH + 2]);
	p.len = 0;
	hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	p.len = HPCC_PKT_MAX + 1;
	hpccd_tx_queue(&b, sv2[0], &p, &c, record, &o);
	EXPECT_EQ(HPCCD_TX_BATCH + 5U, o.n);
	EXPECT_EQ(-EMSGSIZE, o.err[HPCCD_TX_BATCH + 3]);
	EXPECT_EQ(-EMSGSIZE, o.err[HPCCD_TX_BATCH + 4]);
	EXPECT_EQ(0U, b.n);
	EXPECT_EQ(4U, errors);
	close(sv[0]);
	close(sv[1]);
	close(sv2[0]);
	close(sv2[1]);
}

/*
 * hpccd's probe path (probe_send() queues, the flush sends, tx_done()
 * calls hpccd_probe_done()) on a full socket: the probe did not leave, so
 * the flow's probes= stays 0; the flow backs off (one loss in a row,
 * asked again at its timeout, 1 ms here), the refused probe's id matches
 * no response, and send-blocked counts it.  A refusal that comes after the
 * flow moved on (another probe outstanding) changes nothing.  Once the
 * socket has room the flow's next probe leaves and is counted.
 */
TEST(probe_blocked_backs_off)
{
	uint64_t blocked = 0, errors = 0;
	const struct hpccd_send_counts c = {
		.blocked = &blocked, .errors = &errors,
	};
	struct hpcc_tuple t = {
		.family = AF_INET, .saddr = htonl(0xc6120001),
		.daddr = htonl(0xc6120002), .sport = htons(40000),
		.dport = htons(5201),
	};
	static struct hpccd_tx_batch b;
	struct outcomes o = { 0 };
	struct hpccd_tx_pkt p;
	struct hpccd_sched s;
	struct hpccd_flow *f;
	char buf[512] = { 0 };
	int sv[2], sent;
	bool lost;

	/* 1000 probes/s, timeouts 1 ms..1 s */
	ASSERT_EQ(0, hpccd_sched_init(&s, 1000, 1000, 1000000, 100, 7, T0));
	f = hpccd_flow_add(&s, &t, NULL);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	alarm(5);
	EXPECT_EQ(-EAGAIN, fill(sv[0], buf, sizeof(buf), NULL, 0, &sent));
	alarm(0);
	o.s = &s;
	o.now = T0;

	ASSERT_TRUE(hpccd_want(&s, f, T0));
	hpccd_sent(&s, f, 11, T0);
	pkt_of(&p, 0, sizeof(buf));
	p.probe = true;
	p.t = t;
	p.probe_id = 11;
	hpccd_tx_queue(&b, sv[0], &p, &c, record, &o);
	EXPECT_EQ(0U, hpccd_tx_flush(&b, &c, record, &o));
	EXPECT_EQ(-EAGAIN, o.err[0]);
	EXPECT_EQ(0, f->probes);
	EXPECT_EQ(HPCCD_BACKOFF, f->state);
	EXPECT_EQ(1, f->losses_in_row);
	EXPECT_EQ(T0 + MS, f->deadline_ns);
	EXPECT_EQ(1, blocked);
	EXPECT_EQ(0, errors);
	EXPECT_FALSE(hpccd_response(&s, f, 11, T0 + MS / 2));
	/* no new probe before the backoff ends */
	EXPECT_FALSE(hpccd_want(&s, f, T0 + MS / 2));
	EXPECT_EQ(NULL, hpccd_next_expired(&s, T0 + MS - 1, &lost));

	/* room again: after the backoff the next probe leaves */
	EXPECT_EQ(sizeof(buf), recv(sv[1], buf, sizeof(buf), 0));
	ASSERT_EQ(f, hpccd_next_expired(&s, T0 + MS, &lost));
	EXPECT_FALSE(lost);
	ASSERT_TRUE(hpccd_want(&s, f, T0 + MS));
	hpccd_sent(&s, f, 12, T0 + MS);
	/* a late refusal of the old probe leaves the new one alone */
	p.probe_id = 11;
	EXPECT_FALSE(hpccd_probe_done(&s, &p, -EAGAIN, T0 + MS));
	EXPECT_EQ(HPCCD_OUTSTANDING, f->state);
	EXPECT_EQ(1, f->probes);
	p.probe_id = 12;
	o.n = 0;
	o.now = T0 + MS;
	hpccd_tx_queue(&b, sv[0], &p, &c, record, &o);
	EXPECT_EQ(1U, hpccd_tx_flush(&b, &c, record, &o));
	EXPECT_EQ(0, o.err[0]);
	EXPECT_EQ(1, f->probes);
	EXPECT_EQ(HPCCD_OUTSTANDING, f->state);
	EXPECT_EQ(1, blocked);
	EXPECT_TRUE(hpccd_response(&s, f, 12, T0 + 2 * MS));
	hpccd_sched_free(&s);
	close(sv[0]);
	close(sv[1]);
}

/*
 * hpccd_recv_batch(): 40 datagrams waiting are read as 32 and then 8, each
 * with its own length and bytes, one longer than HPCCD_RX_BUF truncated
 * and flagged; then nothing waits (0, not an error); a socket that is not
 * one is an error.
 */
TEST(recv_batch)
{
	static struct hpccd_rx_batch b;
	uint8_t buf[HPCCD_RX_BUF + 100];
	int sv[2], i, big = 100000;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	ASSERT_EQ(0, setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big,
				sizeof(big)));
	for (i = 0; i < 40; i++) {
		memset(buf, i, sizeof(buf));
		ASSERT_EQ(i == 39 ? (ssize_t)sizeof(buf) : 10 + i,
			  send(sv[0], buf, i == 39 ? sizeof(buf) : 10 + i, 0));
	}
	ASSERT_EQ(HPCCD_RX_BATCH, hpccd_recv_batch(sv[1], &b));
	EXPECT_EQ(HPCCD_RX_BATCH, b.n);
	for (i = 0; i < HPCCD_RX_BATCH; i++) {
		EXPECT_EQ(10U + i, b.msg[i].msg_len);
		EXPECT_EQ(i, b.buf[i][0]);
		EXPECT_EQ(i, b.buf[i][9 + i]);
		EXPECT_FALSE(b.msg[i].msg_hdr.msg_flags & MSG_TRUNC);
	}
	ASSERT_EQ(40 - HPCCD_RX_BATCH, hpccd_recv_batch(sv[1], &b));
	EXPECT_EQ(10U + HPCCD_RX_BATCH, b.msg[0].msg_len);
	EXPECT_EQ(HPCCD_RX_BATCH, b.buf[0][0]);
	EXPECT_EQ((unsigned int)HPCCD_RX_BUF, b.msg[7].msg_len);
	EXPECT_TRUE(b.msg[7].msg_hdr.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, hpccd_recv_batch(sv[1], &b));
	EXPECT_EQ(0U, b.n);
	close(sv[0]);
	close(sv[1]);
	EXPECT_EQ(-EBADF, hpccd_recv_batch(sv[1], &b));
	EXPECT_EQ(0U, b.n);
}

/*
 * hpccd_probe_id(): 4 refills' worth of ids are all different (64 random
 * bits: a repeat among 4,096 has odds of 1 in 10^12), and two pools,
 * seeded apart, share none.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

TEST(probe_ids)
{
	static struct hpccd_id_pool p1, p2;
	static uint64_t ids[8 * HPCCD_ID_POOL];
	unsigned int i, n = 4 * HPCCD_ID_POOL;

	ASSERT_LE(0, sodium_init());
	for (i = 0; i < n; i++)
		ids[i] = hpccd_probe_id(&p1);
	for (i = 0; i < n; i++)
		ids[n + i] = hpccd_probe_id(&p2);
	qsort(ids, 2 * n, sizeof(ids[0]), cmp_u64);
	for (i = 1; i < 2 * n; i++)
		ASSERT_NE(ids[i - 1], ids[i]) TH_LOG("id %u repeats", i);
}

TEST_HARNESS_MAIN
