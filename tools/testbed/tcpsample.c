// SPDX-License-Identifier: GPL-2.0
/*
 * tcpsample - sample a TCP sender's cwnd, pacing rate and RTT, cheaply.
 *
 *   tcpsample -p DPORT [-i INTERVAL_US] [-6] -o RAW
 *
 * Every INTERVAL_US (default 100000) it dumps the established IPv4 (with
 * -6: IPv6) TCP sockets of the current network namespace over NETLINK_SOCK_DIAG (libmnl,
 * in-process; no fork of ss) and, of those whose destination port is DPORT,
 * records the one with the most bytes acked (a data connection, not iperf3's
 * control connection) until SIGINT or SIGTERM.  RAW gets one line per sample:
 *
 *   t_us cwnd_bytes pacing_rate_bps srtt_us bytes_acked unacked_bytes
 *   notsent_bytes busy_us rwnd_limited_us sndbuf_limited_us app_limited
 *
 * t_us on CLOCK_MONOTONIC (qsample's t0_us is on the same clock), cwnd_bytes
 * = tcpi_snd_cwnd x tcpi_snd_mss (for hpcc: W rounded down to segments),
 * unacked_bytes = tcpi_unacked x tcpi_snd_mss (in flight, lost and
 * retransmitted included), notsent_bytes the data written but not yet sent,
 * busy_us, rwnd_limited_us and sndbuf_limited_us the kernel's cumulative
 * chrono counters (tcp_chrono_start() in net/ipv4/tcp_output.c: time with
 * data in flight, and of it the time the receive window or the send buffer
 * held the sender back), app_limited the latest delivery-rate sample's
 * application-limited bit.  A window-limited sender has unacked_bytes near
 * cwnd_bytes; one held back by the pacer or by its own host has less in
 * flight with notsent_bytes waiting.
 * Exit status 0, 1 when the netlink socket fails, 2 usage.
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <libmnl/libmnl.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

struct best {
	uint16_t dport;		/* network order */
	int found;
	struct tcp_info ti;
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct tcp_info *ti = data;
	size_t len = mnl_attr_get_payload_len(a);

	if (mnl_attr_get_type(a) == INET_DIAG_INFO) {
		memset(ti, 0, sizeof(*ti));
		memcpy(ti, mnl_attr_get_payload(a),
		       len < sizeof(*ti) ? len : sizeof(*ti));
	}
	return MNL_CB_OK;
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct best *b = data;
	struct tcp_info ti = { 0 };

	if (m->id.idiag_dport != b->dport)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*m), attr_cb, &ti);
	if (!b->found || ti.tcpi_bytes_acked > b->ti.tcpi_bytes_acked) {
		b->ti = ti;
		b->found = 1;
	}
	return MNL_CB_OK;
}

static int usage(void)
{
	fprintf(stderr, "usage: tcpsample -p DPORT [-i INTERVAL_US] [-6] -o RAW\n");
	return 2;
}

int main(int ac, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	long interval_us = 100000, port = 0;
	int family = AF_INET;
	const char *raw = NULL;
	struct mnl_socket *nl;
	uint64_t next;
	FILE *out;
	int c;

	while ((c = getopt(ac, av, "p:i:o:6h")) != -1) {
		switch (c) {
		case '6': family = AF_INET6; break;
		case 'p': port = atol(optarg); break;
		case 'i': interval_us = atol(optarg); break;
		case 'o': raw = optarg; break;
		default: return usage();
		}
	}
	if (!raw || port <= 0 || port > 65535 || interval_us < 1000 ||
	    interval_us > 10000000)
		return usage();
	nl = mnl_socket_open(NETLINK_SOCK_DIAG);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		perror("tcpsample: netlink");
		return 1;
	}
	out = fopen(raw, "w");
	if (!out) {
		perror(raw);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	next = mono_us();
	while (!stop) {
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct inet_diag_req_v2 *req;
		struct best b = { .dport = htons(port) };
		unsigned int seq = (unsigned int)next;
		int64_t d;
		int n;

		nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		nlh->nlmsg_seq = seq;
		req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
		req->sdiag_family = family;
		req->sdiag_protocol = IPPROTO_TCP;
		req->idiag_states = 1 << 1;	/* TCP_ESTABLISHED */
		req->idiag_ext = 1 << (INET_DIAG_INFO - 1);
		if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
			perror("tcpsample: send");
			return 1;
		}
		while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
			n = mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl),
				       msg_cb, &b);
			if (n <= MNL_CB_STOP)
				break;
		}
		if (b.found)
			fprintf(out,
				"%llu %llu %llu %u %llu %llu %u %llu %llu %llu %u\n",
				(unsigned long long)mono_us(),
				(unsigned long long)b.ti.tcpi_snd_cwnd *
					b.ti.tcpi_snd_mss,
				(unsigned long long)b.ti.tcpi_pacing_rate * 8,
				b.ti.tcpi_rtt,
				(unsigned long long)b.ti.tcpi_bytes_acked,
				(unsigned long long)b.ti.tcpi_unacked *
					b.ti.tcpi_snd_mss,
				b.ti.tcpi_notsent_bytes,
				(unsigned long long)b.ti.tcpi_busy_time,
				(unsigned long long)b.ti.tcpi_rwnd_limited,
				(unsigned long long)b.ti.tcpi_sndbuf_limited,
				(unsigned int)b.ti.tcpi_delivery_rate_app_limited);
		next += interval_us;
		d = (int64_t)(next - mono_us());
		if (d > 0)
			usleep(d);
		else
			next = mono_us();
	}
	fclose(out);
	mnl_socket_close(nl);
	return 0;
}
