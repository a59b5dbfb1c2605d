// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cc_tool - socket-level helper for the shell selftests.
 *
 *   tcp_cc_tool get ADDR PORT  connect to ADDR:PORT (IPv4) and print the
 *                              connection's congestion control
 *   tcp_cc_tool hold NAME      open a TCP socket, select NAME with
 *                              TCP_CONGESTION, print "ready" and keep the
 *                              socket until stdin reaches end-of-file
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

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "get"))
		return cc_get(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return cc_hold(argv[2]);
	return usage();
}
