// SPDX-License-Identifier: GPL-2.0
/*
 * connhold - open many TCP connections and hold them, a few of them busy:
 * the load of the scale benchmark (tools/bench/scale.sh).  iperf3 and
 * fctgen move data on tens of connections; this holds 100,000.
 *
 *   connhold server PORT...
 *	listen on each PORT (backlog 65535), accept every connection and read
 *	and discard what arrives, until SIGTERM.
 *   connhold client DST N [-c CC] [-a ACTIVE] [-r BYTES] [-P PORT...]
 *	open N connections to DST, round robin over the ports (default
 *	5001), at most 512 handshakes outstanding, with congestion control CC
 *	(TCP_CONGESTION) if given; then write BYTES (default 1000) every 10
 *	ms on the first ACTIVE connections (default 0), until SIGTERM.
 *
 * Both print "ready N failed M S.SSS s" once every connection they expect
 * is up (the client: established or failed; the server: never, it prints
 * "accepted N" on SIGUSR1), and exit 0 on SIGTERM after closing them.
 * Descriptors: RLIMIT_NOFILE is raised to N + 64 (the server's to
 * fs.nr_open), which needs root.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS	16
#define MAX_INFLIGHT	512

static volatile sig_atomic_t stop, report;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	report = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* raise_nofile() - room for @n descriptors, at most fs.nr_open */
static void raise_nofile(long n)
{
	struct rlimit rl = { .rlim_cur = n + 64, .rlim_max = n + 64 };
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");
	long max;

	if (f && fscanf(f, "%ld", &max) == 1 && (long)rl.rlim_max > max)
		rl.rlim_cur = rl.rlim_max = max;
	if (f)
		fclose(f);
	if (!setrlimit(RLIMIT_NOFILE, &rl))
		return;
	/* not allowed to raise the hard limit: go as far as it allows */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("getrlimit RLIMIT_NOFILE");
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit RLIMIT_NOFILE");
	fprintf(stderr, "connhold: at most %lu descriptors\n", (unsigned long)rl.rlim_max);
}

static void signals(void)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGUSR1, on_usr1);
	signal(SIGPIPE, SIG_IGN);
}

static int port_arg(const char *s)
{
	char *end;
	long p = strtol(s, &end, 10);

	if (*end || p < 1 || p > 65535) {
		fprintf(stderr, "connhold: bad port %s\n", s);
		exit(2);
	}
	return p;
}

static int server(int argc, char **argv)
{
	static char buf[65536];
	struct epoll_event ev, evs[256];
	long accepted = 0;
	int ep, i, n;

	raise_nofile(1 << 20);
	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < argc; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(port_arg(argv[i])) };
		int one = 1, s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

		if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 65535))
			die("listen");
		ev.events = EPOLLIN;
		ev.data.u64 = (1ULL << 32) | (unsigned int)s;
		epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
	}
	printf("listening\n");
	fflush(stdout);
	while (!stop) {
		n = epoll_wait(ep, evs, 256, 200);
		if (report) {
			report = 0;
			printf("accepted %ld\n", accepted);
			fflush(stdout);
		}
		for (i = 0; i < n; i++) {
			int fd = (int)(evs[i].data.u64 & 0xffffffff);

			if (evs[i].data.u64 >> 32) {
				int c;

				while ((c = accept4(fd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					ev.events = EPOLLIN;
					ev.data.u64 = (unsigned int)c;
					epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
					accepted++;
				}
				continue;
			}
			if (read(fd, buf, sizeof(buf)) == 0)
				close(fd);
		}
	}
	printf("accepted %ld\n", accepted);
	return 0;
}

static int client(int argc, char **argv)
{
	static char buf[65536];
	int ports[MAX_PORTS], nports = 0, active = 0, bytes = 1000;
	const char *cc = NULL;
	struct epoll_event ev, evs[256];
	long n, i, opened = 0, up = 0, failed = 0, inflight = 0;
	struct in_addr dst;
	double t0, next;
	int ep, *fds, opt;

	if (argc < 2 || inet_pton(AF_INET, argv[0], &dst) != 1)
		goto usage;
	n = strtol(argv[1], NULL, 10);
	if (n < 1 || n > 4000000)
		goto usage;
	optind = 2;
	while ((opt = getopt(argc, argv, "c:a:r:P:")) != -1) {
		switch (opt) {
		case 'c': cc = optarg; break;
		case 'a': active = atoi(optarg); break;
		case 'r': bytes = atoi(optarg); break;
		case 'P':
			if (nports == MAX_PORTS)
				goto usage;
			ports[nports++] = port_arg(optarg);
			break;
		default: goto usage;
		}
	}
	if (optind != argc || active < 0 || bytes < 1 || bytes > (int)sizeof(buf))
		goto usage;
	if (!nports)
		ports[nports++] = 5001;
	raise_nofile(n);
	fds = calloc(n, sizeof(*fds));
	ep = epoll_create1(0);
	if (!fds || ep < 0)
		die("setup");
	t0 = now_s();
	while (!stop && up + failed < n) {
		while (opened < n && inflight < MAX_INFLIGHT) {
			struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = dst,
				.sin_port = htons(ports[opened % nports]) };
			int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

			if (s < 0)
				die("socket");
			if (cc && setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)))
				die("TCP_CONGESTION");
			fds[opened] = s;
			if (connect(s, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS) {
				failed++;
				close(s);
				fds[opened++] = -1;
				continue;
			}
			ev.events = EPOLLOUT;
			ev.data.u64 = opened++;
			epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
			inflight++;
		}
		int k = epoll_wait(ep, evs, 256, 1000);

		for (i = 0; i < k; i++) {
			long idx = evs[i].data.u64;
			int err = 0;
			socklen_t len = sizeof(err);

			getsockopt(fds[idx], SOL_SOCKET, SO_ERROR, &err, &len);
			epoll_ctl(ep, EPOLL_CTL_DEL, fds[idx], NULL);
			inflight--;
			if (err) {
				failed++;
				close(fds[idx]);
				fds[idx] = -1;
			} else {
				up++;
			}
		}
	}
	printf("ready %ld failed %ld %.3f s\n", up, failed, now_s() - t0);
	fflush(stdout);
	memset(buf, 'x', sizeof(buf));
	next = now_s();
	while (!stop) {
		if (report) {
			report = 0;
			printf("up %ld\n", up);
			fflush(stdout);
		}
		for (i = 0; i < active && i < n; i++)
			if (fds[i] >= 0 && write(fds[i], buf, bytes) < 0 &&
			    errno != EAGAIN) {
				close(fds[i]);
				fds[i] = -1;
			}
		next += 0.010;
		double d = next - now_s();

		if (d > 0)
			usleep(d * 1e6);
		else
			next = now_s();
	}
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return 0;
usage:
	fprintf(stderr, "usage: connhold client DST N [-c CC] [-a ACTIVE] [-r BYTES] [-P PORT]...\n"
			"       connhold server PORT...\n");
	return 2;
}

int main(int argc, char **argv)
{
	signals();
	if (argc >= 3 && !strcmp(argv[1], "server"))
		return server(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "client"))
		return client(argc - 2, argv + 2);
	fprintf(stderr, "usage: connhold server PORT... | connhold client DST N [options]\n");
	return 2;
}
