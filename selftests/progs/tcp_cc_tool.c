// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cc_tool - socket-level helper for the shell selftests.
 *
 *   tcp_cc_tool get ADDR PORT  connect to ADDR:PORT (IPv4) and print the
 *                              connection's congestion control
 *   tcp_cc_tool hold NAME      open a TCP socket, select NAME with
 *                              TCP_CONGESTION, print "ready" and keep the
 *                              socket until stdin reaches end-of-file
 *   tcp_cc_tool many N NAME    connect N sockets with NAME to a listener
 *                              with NAME on 127.0.0.1 (2N connections),
 *                              print "ready", keep them until stdin
 *                              reaches end-of-file, then close them all
 *
 * Exit status: 0 on success, 1 on a failed system call (with the error on
 * stderr), 2 on bad usage.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: tcp_cc_tool get ADDR PORT | hold NAME\n");
	return 2;
}

static int cc_get(const char *addr, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char name[16] = "";
	socklen_t len = sizeof(name);
	int fd;

	sin.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return usage();
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("connect");
		return 1;
	}
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len)) {
		perror("getsockopt");
		return 1;
	}
	printf("%.*s\n", (int)strnlen(name, sizeof(name)), name);
	close(fd);
	return 0;
}

static int cc_hold(const char *name)
{
	char buf[64];
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name,
				 strlen(name))) {
		perror("setsockopt");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

static int set_cc(int fd, const char *name)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name));
}

static int cc_many(int n, const char *name)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rlimit rl = { 2 * n + 64, 2 * n + 64 };
	socklen_t alen = sizeof(a);
	int lfd, i, *fds;
	char buf[64];

	fds = calloc(2 * n, sizeof(int));
	if (!fds || setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit");
		return 1;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || set_cc(lfd, name) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) || listen(lfd, 128)) {
		perror("listener");
		return 1;
	}
	for (i = 0; i < n; i++) {
		fds[2 * i] = socket(AF_INET, SOCK_STREAM, 0);
		if (fds[2 * i] < 0 || set_cc(fds[2 * i], name) ||
		    connect(fds[2 * i], (struct sockaddr *)&a, sizeof(a))) {
			perror("connect");
			return 1;
		}
		fds[2 * i + 1] = accept(lfd, NULL, NULL);
		if (fds[2 * i + 1] < 0) {
			perror("accept");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < 2 * n; i++)
		close(fds[i]);
	close(lfd);
	free(fds);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "many"))
		return cc_many(atoi(argv[2]), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "get"))
		return cc_get(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return cc_hold(argv[2]);
	return usage();
}
