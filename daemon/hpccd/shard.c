// SPDX-License-Identifier: GPL-2.0
/*
 * shard.c - hpccd's shards: with shards N, N threads each run the whole
 * daemon (its own D, sockets, module link and event loop) for the flows
 * hpccd_shard_of() gives it, and the kernel gives each the packets of
 * those flows (fanout.h).  Shard 0 is the main thread: it reads the
 * signals and hands a reload's settings and the statistics requests to
 * the others through their eventfd; nothing of a flow crosses threads.
 *
 * The fanout group gives a packet to the socket its program's value
 * modulo the group's size names, sockets numbered in the order they
 * joined (packet(7)); a socket that leaves moves the last one into its
 * place.  So the shards set up (and join) one after the other, none
 * talks to the module or probes before all have joined, and none closes
 * its sockets before every loop has stopped: the mapping holds for as
 * long as any shard reads.  A shard that ends on its own is fatal: shard
 * 0 stops every shard and hpccd exits 1, rather than run with flows
 * nobody probes.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sodium.h>

#include "hpccd.h"

/* commands, a bit each */
#define CMD_RELOAD	1U
#define CMD_STATS	2U
#define CMD_EXIT	4U

/* how long shard 0 waits for the others' reports */
#define REPORT_WAIT_NS	1000000000ULL

/**
 * struct shard - one shard, seen from the others (S.s[0]: shard 0's)
 * @th: its thread
 * @ctl_fd: its eventfd (shard 0's: S.main_fd)
 * @cmd: commands it has not taken (CMD_*)
 * @cfg: a reload's settings for it to take (sodium_malloc(): key bytes)
 * @started: its setup ended, @setup_err its result (it has joined the
 *	fanout groups when that is 0)
 * @report: its last report; @reported: since the last request
 * @stopped: its loop ended and its last report is posted
 */
struct shard {
	pthread_t th;
	int ctl_fd;
	unsigned int cmd;
	struct hpccd_cfg *cfg;
	bool started;
	int setup_err;
	struct hpccd_report report;
	bool reported, stopped;
};

/*
 * S - the shards, under @lock (@cond: any change of it); @n the threads
 * started, shard 0's included; @go: all have joined, they may talk to
 * the module; @stopping: shards_stop() asked every loop to end; @closing:
 * every loop has, they may close their sockets; @died: a shard whose loop
 * ended on its own (0: none); @main_fd: shard 0's eventfd; @fanout_arg:
 * PACKET_FANOUT's argument of each family's group, 0 until shard 0 made it
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int n, died;
	bool go, stopping, closing;
	int main_fd;
	int fanout_arg[2];
	struct shard s[HPCCD_SHARDS_MAX];
} S = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.main_fd = -1,
};

static struct hpccd_cfg *cfg_copy(const struct hpccd_cfg *c)
{
	struct hpccd_cfg *k = sodium_malloc(sizeof(*k));

	if (k)
		memcpy(k, c, sizeof(*k));
	return k;
}

int fanout_join(int fd, int family)
{
	struct sock_filter code[HPCCD_FANOUT_PROG_MAX];
	struct sock_fprog prog = { .filter = code };
	int *arg = &S.fanout_arg[family == AF_INET6], v;
	socklen_t len = sizeof(v);

	if (D.nshards < 2)
		return 0;
	if (!D.shard) {
		/* the first: a group id of its own, then the program */
		v = (PACKET_FANOUT_CBPF | PACKET_FANOUT_FLAG_UNIQUEID) << 16;
		if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, sizeof(v)) ||
		    getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, &len))
			return -errno;
		*arg = (v & 0xffff) | PACKET_FANOUT_CBPF << 16;
		prog.len = hpccd_fanout_prog(family, code);
		if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT_DATA, &prog,
			       sizeof(prog)))
			return -errno;
		return 0;
	}
	/* never group 0 of another program's: shard 0 made none for this
	 * family (it had no such socket)
	 */
	v = *arg;
	if (!v)
		return -ENODEV;
	if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, sizeof(v)))
		return -errno;
	return 0;
}

/* wake() - wake shard @i's loop (under S.lock) */
static void wake(unsigned int i)
{
	uint64_t one = 1;
	int fd = i ? S.s[i].ctl_fd : S.main_fd;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		logmsg(LOG_ERR, "shard %u: %s", i, strerror(errno));
}

/* poke() - give shard @i a command (under S.lock) */
static void poke(unsigned int i, unsigned int cmd)
{
	S.s[i].cmd |= cmd;
	wake(i);
}

/* report() - post this shard's report for shard 0 (not under S.lock) */
static void report(struct shard *s)
{
	struct hpccd_report r;
	size_t len = 0;
	FILE *out;

	stats_snapshot();
	memcpy(r.counters, D.counters, sizeof(r.counters));
	r.nflows = D.sched.nflows;
	r.queued = hpccd_queued(&D.sched);
	r.lines = NULL;
	out = open_memstream(&r.lines, &len);
	if (out) {
		flow_lines(out);
		if (fclose(out)) {
			free(r.lines);
			r.lines = NULL;
		}
	}
	pthread_mutex_lock(&S.lock);
	free(s->report.lines);
	s->report = r;
	s->reported = true;
	pthread_cond_broadcast(&S.cond);
	pthread_mutex_unlock(&S.lock);
}

bool on_ctl(void)
{
	struct shard *s = &S.s[D.shard];
	struct hpccd_cfg *c;
	unsigned int cmd, died;
	uint64_t v;

	if (read(D.loop.ctl_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return true;
	pthread_mutex_lock(&S.lock);
	cmd = s->cmd;
	s->cmd = 0;
	c = cmd & CMD_RELOAD ? s->cfg : NULL;
	if (c)
		s->cfg = NULL;
	died = S.died;
	pthread_mutex_unlock(&S.lock);
	if (!D.shard) {
		/* shard 0 is woken only for a shard that ended */
		if (died)
			logmsg(LOG_ERR, "shard %u ended on its own: stopping hpccd",
			       died);
		return !died;
	}
	if (c) {
		take_cfg(c);
		sodium_free(c);
	}
	/* the module's parameters, after every reload, even a failed one */
	if ((cmd & CMD_RELOAD) && D.link.req.family_id)
		module_params();
	if (cmd & CMD_STATS)
		report(s);
	return !(cmd & CMD_EXIT);
}

static void *shard_thread(void *arg)
{
	struct shard *s = arg;
	unsigned int i = s - S.s;
	bool go;
	int err = -ENOMEM;

	if (!hpccd_state_new()) {
		D.shard = i;
		D.loop.ctl_fd = s->ctl_fd;
		pthread_mutex_lock(&S.lock);
		D.nshards = S.n;
		D.cfg = *s->cfg;
		sodium_free(s->cfg);
		s->cfg = NULL;
		pthread_mutex_unlock(&S.lock);
		err = keys_alloc() ? -ENOMEM : shard_setup(NULL);
	}
	pthread_mutex_lock(&S.lock);
	s->setup_err = err;
	s->started = true;
	pthread_cond_broadcast(&S.cond);
	/* nobody talks to the module before every shard has joined */
	while (!err && !S.go && !S.stopping)
		pthread_cond_wait(&S.cond, &S.lock);
	go = !err && S.go && !S.stopping;
	pthread_mutex_unlock(&S.lock);
	if (err) {
		/* shards_start() gives up: nothing of this shard is read */
		if (hpccd_self)
			shard_teardown();
		return NULL;
	}
	if (go) {
		connect_module();
		shard_run();
	}
	report(s);
	pthread_mutex_lock(&S.lock);
	s->stopped = true;
	if (!S.stopping && !S.died) {
		S.died = i;
		wake(0);
	}
	pthread_cond_broadcast(&S.cond);
	/* the sockets stay in the groups while any shard reads */
	while (!S.closing)
		pthread_cond_wait(&S.cond, &S.lock);
	pthread_mutex_unlock(&S.lock);
	/* shards_stop() joins the thread: nobody waits for more */
	shard_teardown();
	return NULL;
}

int shards_start(const struct hpccd_cfg *c)
{
	pthread_condattr_t ca;
	struct shard *s;
	unsigned int i;
	int err = 0;

	/* report waits on CLOCK_MONOTONIC: a clock step cannot stretch them */
	if (pthread_condattr_init(&ca) ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&S.cond, &ca))
		return -ENOMEM;
	pthread_condattr_destroy(&ca);
	S.main_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (S.main_fd < 0)
		return -errno;
	D.loop.ctl_fd = S.main_fd;
	pthread_mutex_lock(&S.lock);
	S.n = D.nshards;
	pthread_mutex_unlock(&S.lock);
	for (i = 1; i < D.nshards; i++) {
		s = &S.s[i];
		s->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->ctl_fd < 0) {
			err = -errno;
			break;
		}
		s->cfg = cfg_copy(c);
		if (!s->cfg) {
			err = -ENOMEM;
			break;
		}
		err = -pthread_create(&s->th, NULL, shard_thread, s);
		if (err)
			break;
		/* one after the other: shard i is the groups' socket i */
		pthread_mutex_lock(&S.lock);
		while (!s->started)
			pthread_cond_wait(&S.cond, &S.lock);
		err = s->setup_err;
		pthread_mutex_unlock(&S.lock);
		if (err) {
			pthread_join(s->th, NULL);
			break;
		}
	}
	if (!err) {
		pthread_mutex_lock(&S.lock);
		S.go = true;
		pthread_cond_broadcast(&S.cond);
		pthread_mutex_unlock(&S.lock);
		return 0;
	}
	logmsg(LOG_ERR, "shard %u: %s", i, strerror(-err));
	s = &S.s[i];
	if (s->cfg)
		sodium_free(s->cfg);
	s->cfg = NULL;
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	s->ctl_fd = -1;
	/* those running */
	S.n = i;
	shards_stop();
	return err;
}

void shards_stop(void)
{
	unsigned int i;

	/* once: a second call (an error path's) finds them joined */
	if (S.n < 2 || S.closing)
		return;
	/* every loop ends (each posts its last report), then the sockets
	 * close: no shard reads while the groups shrink
	 */
	pthread_mutex_lock(&S.lock);
	S.stopping = true;
	for (i = 1; i < S.n; i++)
		poke(i, CMD_EXIT);
	pthread_cond_broadcast(&S.cond);
	for (i = 1; i < S.n; i++)
		while (!S.s[i].stopped)
			pthread_cond_wait(&S.cond, &S.lock);
	S.closing = true;
	pthread_cond_broadcast(&S.cond);
	pthread_mutex_unlock(&S.lock);
	for (i = 1; i < S.n; i++) {
		pthread_join(S.s[i].th, NULL);
		close(S.s[i].ctl_fd);
		S.s[i].ctl_fd = -1;
		/* a reload's settings the shard did not take */
		if (S.s[i].cfg)
			sodium_free(S.s[i].cfg);
		S.s[i].cfg = NULL;
	}
}

bool shards_failed(void)
{
	return S.died != 0;
}

void shards_reload(const struct hpccd_cfg *c)
{
	struct hpccd_cfg *k;
	unsigned int i;

	pthread_mutex_lock(&S.lock);
	for (i = 1; i < S.n; i++) {
		if (S.s[i].stopped)
			continue;
		/* a failed reload (@c NULL) or a copy that failed keeps the
		 * last good settings a busy shard has not taken yet
		 */
		k = c ? cfg_copy(c) : NULL;
		if (k) {
			if (S.s[i].cfg)
				sodium_free(S.s[i].cfg);
			S.s[i].cfg = k;
		} else if (c) {
			logmsg(LOG_ERR, "shard %u: reload: out of memory; its settings kept",
			       i);
		}
		poke(i, CMD_RELOAD);
	}
	pthread_mutex_unlock(&S.lock);
}

unsigned int shards_gather(struct hpccd_report *sum,
			   char *lines[HPCCD_SHARDS_MAX])
{
	struct timespec until;
	unsigned int i, j, late = 0;
	uint64_t at;

	clock_gettime(CLOCK_MONOTONIC, &until);
	at = (uint64_t)until.tv_sec * 1000000000ULL + until.tv_nsec +
	     REPORT_WAIT_NS;
	until.tv_sec = at / 1000000000ULL;
	until.tv_nsec = at % 1000000000ULL;
	pthread_mutex_lock(&S.lock);
	/* stopped shards posted their last report as they stopped */
	for (i = 1; i < S.n; i++) {
		if (S.s[i].stopped)
			continue;
		S.s[i].reported = false;
		poke(i, CMD_STATS);
	}
	for (i = 1; i < S.n; i++) {
		while (!S.s[i].reported && !S.s[i].stopped &&
		       pthread_cond_timedwait(&S.cond, &S.lock, &until) !=
		       ETIMEDOUT)
			;
		/* one that did not answer in time is left out */
		if (!S.s[i].reported && !S.s[i].stopped) {
			late++;
			continue;
		}
		for (j = 0; j < C_NUM; j++)
			sum->counters[j] += S.s[i].report.counters[j];
		sum->nflows += S.s[i].report.nflows;
		sum->queued += S.s[i].report.queued;
		lines[i] = S.s[i].report.lines;
		S.s[i].report.lines = NULL;
	}
	pthread_mutex_unlock(&S.lock);
	return late;
}
