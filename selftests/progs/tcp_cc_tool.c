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
 *   tcp_cc_tool owned ADDR PORT CPORT NAME
 *                              connect from port CPORT to ADDR:PORT (IPv4)
 *                              with NAME, print "connected", then act on
 *                              each line of stdin until end-of-file:
 *     send N   send N bytes; print "sent"
 *     hold MS  keep the socket owned by user (sock_owned_by_user()) for MS
 *              ms: a thread sends a page registered with userfaultfd(2)
 *              (missing pages), so that tcp_sendmsg() waits in its copy
 *              from user with the socket lock held; "held T" when the
 *              fault is read.  At the end a second thread reads TCP_INFO:
 *              tcp_get_info() reads sk_pacing_rate, then waits for the
 *              socket lock (lock_sock_fast()); once that thread waits
 *              (state D), "released T" and the page is filled, the send
 *              completes and release_sock() processes the ACKs queued
 *              meanwhile (the socket's backlog).  Then "held-rate R" (the
 *              second thread's reading, from within the hold) and
 *              "after-rate R" (TCP_INFO after the send), R in bytes per
 *              second, T CLOCK_REALTIME in microseconds, and first
 *              "before-rate R", read just before the held send began;
 *              "not-owned" and exit status 1 when the second thread's
 *              read did not wait.
 *              Needs CAP_SYS_PTRACE (a fault in kernel mode) unless
 *              vm.unprivileged_userfaultfd is 1.
 *
 * Exit status: 0 on success, 1 on a failed system call (with the error on
 * stderr), 2 on bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <linux/tcp.h>	/* struct tcp_info with tcpi_pacing_rate */
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: tcp_cc_tool get ADDR PORT | hold NAME | many N NAME |\n"
		"       owned ADDR PORT CPORT NAME\n");
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

/* CLOCK_REALTIME for the stamps printed (fcr.py's time.time_ns()),
 * CLOCK_MONOTONIC for waits
 */
static uint64_t clock_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t pacing_rate(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return 0;
	return ti.tcpi_pacing_rate;
}

struct owned {
	int fd;
	void *page;
	long page_len;
	ssize_t sent;		/* the held send's result, read after join */
	int err;		/* its errno */
	int tid;		/* the TCP_INFO reader's (atomic) */
	int done;		/* the reader returned (atomic) */
	uint64_t rate;		/* what it read, read after join */
};

static void *held_send(void *arg)
{
	struct owned *o = arg;

	o->sent = send(o->fd, o->page, o->page_len, 0);
	o->err = errno;
	return NULL;
}

static void *info_read(void *arg)
{
	struct owned *o = arg;

	__atomic_store_n(&o->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	o->rate = pacing_rate(o->fd);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* 'D' while the reader waits for the socket lock (__lock_sock()) */
static char task_state(int tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* the reader, up to 10 s: 1 once it waits on the socket lock, 0 when it
 * returned without waiting (the socket was not owned) or never waited
 */
static int reader_waits(struct owned *o)
{
	int i, tid;

	for (i = 0; i < 10000; i++) {
		if (__atomic_load_n(&o->done, __ATOMIC_ACQUIRE))
			return 0;
		tid = __atomic_load_n(&o->tid, __ATOMIC_ACQUIRE);
		if (tid && task_state(tid) == 'D')
			return 1;
		usleep(1000);
	}
	return 0;
}

static int hold_owned(int fd, int ms)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_zeropage zero = { 0 };
	struct owned o = { .fd = fd, .page_len = sysconf(_SC_PAGESIZE) };
	struct pollfd pfd = { .events = POLLIN };
	bool sending = false, reading = false;
	pthread_t sender, reader;
	struct uffd_msg msg;
	uint64_t held, end;
	int uffd, ret, rc = 1;

	o.page = mmap(NULL, o.page_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (o.page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0) {
		perror("userfaultfd (CONFIG_USERFAULTFD; CAP_SYS_PTRACE)");
		munmap(o.page, o.page_len);
		return 1;
	}
	reg.range.start = (unsigned long)o.page;
	reg.range.len = o.page_len;
	if (ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		perror("UFFDIO_API, UFFDIO_REGISTER");
		goto out;
	}
	printf("before-rate %llu\n", (unsigned long long)pacing_rate(fd));
	ret = pthread_create(&sender, NULL, held_send, &o);
	if (ret) {
		fprintf(stderr, "pthread_create: %s\n", strerror(ret));
		goto out;
	}
	sending = true;
	pfd.fd = uffd;
	if (poll(&pfd, 1, 60000) != 1 ||
	    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		fprintf(stderr, "no page fault from the send\n");
		goto out;
	}
	held = clock_us(CLOCK_REALTIME);
	end = clock_us(CLOCK_MONOTONIC) + (uint64_t)ms * 1000;
	printf("held %llu\n", (unsigned long long)held);
	fflush(stdout);
	while (clock_us(CLOCK_MONOTONIC) < end)
		usleep(1000);
	ret = pthread_create(&reader, NULL, info_read, &o);
	if (ret) {
		fprintf(stderr, "pthread_create: %s\n", strerror(ret));
		goto out;
	}
	reading = true;
	if (reader_waits(&o))
		rc = 0;
	else
		printf("not-owned\n");
	printf("released %llu\n", (unsigned long long)clock_us(CLOCK_REALTIME));
	fflush(stdout);
	zero.range = reg.range;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zero)) {
		perror("UFFDIO_ZEROPAGE");
		rc = 1;
	}
out:
	/* closing the userfaultfd wakes a send still waiting (EFAULT) */
	close(uffd);
	if (sending)
		pthread_join(sender, NULL);
	if (reading) {
		pthread_join(reader, NULL);
		printf("held-rate %llu\n", (unsigned long long)o.rate);
	}
	if (sending && o.sent != o.page_len) {
		fprintf(stderr, "the held send returned %zd (%s)\n", o.sent,
			o.sent < 0 ? strerror(o.err) : "short");
		rc = 1;
	}
	if (!rc)
		printf("after-rate %llu\n", (unsigned long long)pacing_rate(fd));
	fflush(stdout);
	munmap(o.page, o.page_len);
	return rc;
}

static int cc_owned(const char *addr, const char *port, const char *cport,
		    const char *name)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in src = { .sin_family = AF_INET };
	char line[128], *buf;
	int fd, one = 1, n;

	sin.sin_port = htons(atoi(port));
	src.sin_port = htons(atoi(cport));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return usage();
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || set_cc(fd, name) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("connect");
		return 1;
	}
	printf("connected\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "send %d", &n) == 1 && n > 0) {
			buf = calloc(1, n);
			if (!buf || send(fd, buf, n, 0) != n) {
				perror("send");
				return 1;
			}
			free(buf);
			printf("sent\n");
			fflush(stdout);
		} else if (sscanf(line, "hold %d", &n) == 1 && n >= 0) {
			if (hold_owned(fd, n))
				return 1;
		} else {
			return usage();
		}
	}
	close(fd);
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
	if (argc == 6 && !strcmp(argv[1], "owned"))
		return cc_owned(argv[2], argv[3], argv[4], argv[5]);
	return usage();
}
