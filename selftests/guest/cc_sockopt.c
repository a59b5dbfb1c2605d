// SPDX-License-Identifier: GPL-2.0
/*
 * cc_sockopt - selecting "hpcc" through the socket API (guest test; needs
 * tcp_hpcc loaded).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"

static int get_cc(int fd, char *name, socklen_t size)
{
	socklen_t len = size;

	memset(name, 0, size);
	return getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len);
}

TEST(setsockopt_reads_back)
{
	char name[16];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "hpcc", 4));
	ASSERT_EQ(0, get_cc(fd, name, sizeof(name)));
	EXPECT_STREQ("hpcc", name);
	close(fd);
}

TEST(unknown_name_is_refused)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION,
				 "hpcc_nonesuch", 13));
	EXPECT_EQ(ENOENT, errno);
	close(fd);
}

/* A loopback connection whose both ends run hpcc moves 4 MB intact. */
TEST(loopback_transfer)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	static char buf[65536];
	size_t total = 4 << 20, got = 0;
	char name[16];
	int lfd, cfd, afd;
	pid_t pid;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, setsockopt(lfd, IPPROTO_TCP, TCP_CONGESTION, "hpcc", 4));
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_EQ(0, listen(lfd, 1));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&sin, &slen));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		size_t sent = 0;

		cfd = socket(AF_INET, SOCK_STREAM, 0);
		if (setsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, "hpcc", 4) ||
		    connect(cfd, (struct sockaddr *)&sin, sizeof(sin)))
			_exit(1);
		memset(buf, 0xa5, sizeof(buf));
		while (sent < total) {
			ssize_t n = write(cfd, buf, sizeof(buf));

			if (n <= 0)
				_exit(1);
			sent += n;
		}
		close(cfd);
		_exit(0);
	}
	afd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, afd);
	ASSERT_EQ(0, get_cc(afd, name, sizeof(name)));
	EXPECT_STREQ("hpcc", name);
	for (;;) {
		ssize_t n = read(afd, buf, sizeof(buf));

		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			ASSERT_EQ((char)0xa5, buf[i]);
		got += n;
	}
	EXPECT_EQ(total, got);
	close(afd);
	close(lfd);
	{
		int status;

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

TEST_HARNESS_MAIN
