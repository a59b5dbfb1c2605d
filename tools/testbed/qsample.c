// SPDX-License-Identifier: GPL-2.0
/*
 * qsample - sample the backlog of a device's root qdisc, cheaply.
 *
 *   qsample -d DEV [-i INTERVAL_US] [-t SECONDS] [-o RAW]
 *
 * Every INTERVAL_US (default 2000) it refills a libnl-3 route qdisc cache
 * in-process (one RTM_GETQDISC dump; no fork of tc) and records the root
 * qdisc's backlog (bytes) and qlen (packets) of DEV in the current network
 * namespace.  It stops after SECONDS (default: until SIGINT or SIGTERM),
 * writes RAW (when given) as "t_ms backlog_bytes qlen_pkts drops" lines,
 * and prints one summary line:
 *
 *   samples N p50 BYTES p99 BYTES max BYTES t0_us US
 *
 * where t0_us is the CLOCK_MONOTONIC time (microseconds) of t_ms 0, so that
 * other tools' timestamps on the same clock (tools/bench/fctgen) line up.
 *
 * Exit status 0, 1 when DEV or its root qdisc cannot be read, 2 usage.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/pkt_sched.h>
#include <netlink/netlink.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>

struct sample {
	uint32_t t_ms;
	uint32_t backlog;
	uint32_t qlen;
	uint32_t drops;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of the sorted @v[0..@n-1] */
static uint32_t pct(const uint32_t *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100.0 * n + 0.999999);

	if (!n)
		return 0;
	return v[k ? (k > n ? n : k) - 1 : 0];
}

int main(int ac, char **av)
{
	const char *dev = NULL, *raw = NULL;
	long interval_us = 2000;
	double secs = 0, t0, next;
	struct sample *s = NULL;
	size_t n = 0, cap = 0, i;
	struct nl_sock *sk;
	struct nl_cache *cache;
	uint32_t *b;
	int c, ifindex;

	while ((c = getopt(ac, av, "d:i:t:o:h")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'i': interval_us = atol(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'o': raw = optarg; break;
		default:
			fprintf(stderr, "usage: qsample -d DEV [-i INTERVAL_US] [-t SECONDS] [-o RAW]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!dev || interval_us < 100 || interval_us > 10000000 || secs < 0) {
		fprintf(stderr, "usage: qsample -d DEV [-i INTERVAL_US] [-t SECONDS] [-o RAW]\n");
		return 2;
	}
	ifindex = if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "qsample: no device %s\n", dev);
		return 1;
	}
	sk = nl_socket_alloc();
	if (!sk || nl_connect(sk, NETLINK_ROUTE) ||
	    rtnl_qdisc_alloc_cache(sk, &cache)) {
		fprintf(stderr, "qsample: cannot read qdiscs\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = next = now_s();
	while (!stop && (!secs || now_s() - t0 < secs)) {
		struct rtnl_qdisc *q;

		if (!nl_cache_refill(sk, cache) &&
		    (q = rtnl_qdisc_get_by_parent(cache, ifindex, TC_H_ROOT))) {
			if (n == cap) {
				struct sample *ns;

				cap = cap ? 2 * cap : 16384;
				ns = realloc(s, cap * sizeof(*s));
				if (!ns) {
					fprintf(stderr, "qsample: out of memory\n");
					break;
				}
				s = ns;
			}
			s[n].t_ms = (uint32_t)((now_s() - t0) * 1000);
			s[n].backlog = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_BACKLOG);
			s[n].qlen = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_QLEN);
			s[n].drops = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_DROPS);
			n++;
			rtnl_qdisc_put(q);
		}
		next += interval_us / 1e6;
		{
			double d = next - now_s();

			if (d > 0)
				usleep((useconds_t)(d * 1e6));
			else
				next = now_s();	/* late: do not catch up */
		}
	}
	nl_cache_free(cache);
	nl_socket_free(sk);
	if (!n) {
		fprintf(stderr, "qsample: %s has no root qdisc to read\n", dev);
		return 1;
	}
	if (raw) {
		FILE *f = fopen(raw, "w");

		if (!f) {
			fprintf(stderr, "qsample: %s: %s\n", raw, strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++)
			fprintf(f, "%u %u %u %u\n", s[i].t_ms, s[i].backlog,
				s[i].qlen, s[i].drops);
		fclose(f);
	}
	b = malloc(n * sizeof(*b));
	if (!b)
		return 1;
	for (i = 0; i < n; i++)
		b[i] = s[i].backlog;
	qsort(b, n, sizeof(*b), cmp_u32);
	printf("samples %zu p50 %u p99 %u max %u t0_us %.0f\n", n,
	       pct(b, n, 50), pct(b, n, 99), b[n - 1], t0 * 1e6);
	free(b);
	free(s);
	return 0;
}
