// SPDX-License-Identifier: GPL-2.0
/*
 * probe_flood - send probes and responses (include/uapi/linux/hpcc_wire.h, built
 * by daemon/lib/hpcc_wire.c) as fast as a raw socket takes them, for the
 * guest tests that unload modules and delete namespaces under traffic
 * (selftests/guest/unload.sh).
 *
 *   probe_flood SRC[/LEN] DST SECONDS [PROBE_DSCP RESPONSE_DSCP [probes]]
 *
 * Alternates a probe from SRC to DST and a response from SRC to DST (as if
 * DST had probed SRC), each with a new id and source port (40000..40999),
 * for SECONDS or until SIGTERM or SIGINT; with "probes", only probes.
 * SRC and DST are IPv4 or both IPv6.  SRC/LEN (IPv4 LEN 8..31, IPv6 LEN
 * 96..127) spoofs the source: each packet takes the next address of the
 * prefix, its host part 1 .. 2^(32-LEN) - 2 (IPv6: 2^(128-LEN) - 2) in
 * turn (the reflection tests of selftests/guest/reflect.sh).  Send errors (no route while a
 * namespace goes away, a full queue) are counted, not fatal.  Prints
 * "first" (flushed) when its first packet has gone out, so a test can wait
 * for the flood to be running instead of sleeping, and "sent N errors N" at
 * the end; exits 0 when at least one packet went out, 1 when none did, 2 on
 * usage errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hpcc_wire.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int dscp_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 1 && v <= 63) ? (int)v : -1;
}

int main(int argc, char **argv)
{
	uint8_t buf[HPCC_PKT_MAX], pbuf[HPCC_PKT_MAX];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6 };
	const struct sockaddr *sa = (const struct sockaddr *)&to;
	socklen_t salen = sizeof(to);
	bool v6;
	struct hpcc_tuple t = { 0 };
	unsigned long long sent = 0, errors = 0;
	int pdscp = 60, rdscp = 61, one = 1, fd, secs, plen = 32;
	uint64_t end, id = 1;
	bool probes_only = false;
	uint32_t base = 0, hosts = 0;
	char src[INET6_ADDRSTRLEN + 4], *slash;

	if (argc != 4 && argc != 6 && argc != 7) {
		fprintf(stderr, "usage: probe_flood SRC[/LEN] DST SECONDS [PROBE_DSCP RESPONSE_DSCP [probes]]\n");
		return 2;
	}
	secs = atoi(argv[3]);
	if (argc >= 6) {
		pdscp = dscp_arg(argv[4]);
		rdscp = dscp_arg(argv[5]);
	}
	if (argc == 7) {
		if (strcmp(argv[6], "probes")) {
			fprintf(stderr, "probe_flood: '%s': only \"probes\"\n",
				argv[6]);
			return 2;
		}
		probes_only = true;
	}
	snprintf(src, sizeof(src), "%s", argv[1]);
	v6 = strchr(argv[2], ':') != NULL;
	slash = strchr(src, '/');
	if (slash) {
		*slash = 0;
		plen = atoi(slash + 1);
		if (v6 ? plen < 96 || plen > 127 : plen < 8 || plen > 31) {
			fprintf(stderr, "probe_flood: prefix length 8..31 (IPv6: 96..127)\n");
			return 2;
		}
	} else if (v6) {
		plen = 128;
	}
	t.family = v6 ? AF_INET6 : AF_INET;
	if (inet_pton(t.family, src, v6 ? (void *)t.saddr6 :
					  (void *)&t.saddr) != 1 ||
	    inet_pton(t.family, argv[2], v6 ? (void *)t.daddr6 :
					      (void *)&t.daddr) != 1 ||
	    secs < 1 || pdscp < 0 || rdscp < 0) {
		fprintf(stderr, "probe_flood: bad address, seconds or DSCP\n");
		return 2;
	}
	/* IPv6 IPPROTO_RAW: the header is ours (the kernel sets hdrincl) */
	fd = socket(t.family, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || (!v6 && setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one,
					  sizeof(one)))) {
		perror("probe_flood: raw socket");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (v6 && plen < 128) {
		uint32_t lo;

		memcpy(&lo, t.saddr6 + 12, 4);
		/* a /96 spans all 32 bits: 1U << 32 is undefined */
		base = ntohl(lo) & (uint32_t)~((1ULL << (128 - plen)) - 1);
		hosts = (uint32_t)((1ULL << (128 - plen)) - 2);
	} else if (!v6 && plen < 32) {
		base = ntohl(t.saddr) & ~((1U << (32 - plen)) - 1);
		hosts = (1U << (32 - plen)) - 2;
	}
	to.sin_addr.s_addr = t.daddr;
	memcpy(&to6.sin6_addr, t.daddr6, 16);
	if (v6) {
		sa = (const struct sockaddr *)&to6;
		salen = sizeof(to6);
	}
	t.dport = htons(5201);
	end = now_ns() + (uint64_t)secs * 1000000000u;
	while (!stop && now_ns() < end) {
		size_t len;

		t.sport = htons(40000 + id % 1000);
		if (hosts && v6) {
			uint32_t lo = htonl(base + 1 + (uint32_t)(id % hosts));

			memcpy(t.saddr6 + 12, &lo, 4);
		} else if (hosts) {
			t.saddr = htonl(base + 1 + (uint32_t)(id % hosts));
		}
		if (probes_only || (id & 1)) {
			len = hpcc_build_probe(buf, &t, pdscp, 4, id, now_ns(),
					       (uint16_t)id);
		} else {
			/* the response to a probe DST sent to SRC */
			struct hpcc_tuple rt;
			struct hpcc_pkt p;

			hpcc_tuple_reverse(&rt, &t);
			len = hpcc_build_probe(pbuf, &rt, pdscp, 4, id, now_ns(),
					       (uint16_t)id);
			if (hpcc_parse(pbuf, len, &p) != HPCC_PARSE_OK)
				return 2;
			len = hpcc_build_response(buf, &p, rdscp, (uint16_t)id, 0);
		}
		if (!len || sendto(fd, buf, len, 0, sa, salen) < 0)
			errors++;
		else if (!sent++) {
			printf("first\n");
			fflush(stdout);
		}
		id++;
	}
	printf("sent %llu errors %llu\n", sent, errors);
	return sent ? 0 : 1;
}
