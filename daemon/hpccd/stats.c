// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd stats - the statistics: the counters and one line per flow, to
 * stderr or to the statistics file (replaced whole) on SIGUSR1 and at
 * exit.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "hpccd.h"

static const char *const counter_names[C_PARSE_BASE] = {
	"flows-added", "flows-removed", "probes-sent", "probes-timed-out",
	"probes-deferred", "probes-received", "probes-not-local",
	"responses-sent", "responses-received", "responses-unexpected",
	"responses-no-hops", "responses-bad-hop", "telemetry-pushed",
	"telemetry-rejected", "send-errors", "bad-dscp", "events",
	"reconnects", "socket-drops", "probes-not-unicast",
	"probes-bad-source", "responses-rate-limited", "resyncs",
	"reconciles", "flows-reconciled", "flows-over-limit", "flows-gone",
	"push-replies-lost", "responses-with-n", "n-flows-evicted",
	"ipv6-ignored", "probes-ioam", "ioam-traces", "ioam-refused",
	"ioam-overflow", "responses-no-rate", "probes-int-md", "int-md-stacks",
	"int-md-refused", "int-md-incomplete", "probes-ifa", "ifa-stacks",
	"ifa-refused", "ifa-no-rate", "ifa-other-protocol", "hops-skipped",
	"dumps-interrupted", "probes-fcr", "probes-cc", "probes-ar",
	"probes-rx", "rx-asked", "rx-w-sent", "rx-refused", "rx-full",
	"rx-invalid", "responses-private", "responses-signed",
	"responses-rx", "responses-rx-w", "responses-rx-refused",
	"auth-ok", "auth-ok-retired", "auth-missing", "auth-unknown-key",
	"auth-bad", "keys-retired", "u-sent", "u-kept", "u-unavailable",
	"responses-u", "responses-u-value", "notify-keys-pushed",
	"notify-keys-push-failed", "netlink-replies-skipped", "send-blocked",
	"flow-gets", "flow-gets-failed", "netlink-round-trips",
	"family-lookups", "family-lookups-failed", "auth-permitted",
	"responses-rl-crowded", "responses-over-budget", "responses-over-bytes",
	"probes-rp-failed", "probes-no-neighbour", "lookups-failed",
	"response-bytes", "lookups", "responses-too-large",
	"probes-no-tcp", "n-flows-over-source", "tcp-lookups",
	"tcp-lookups-failed", "probes-lookup-failed", "neighbour-lookups",
	"neighbour-stalls", "probes-rp-nh", "probes-own-flow", "tcp-dumps",
	"tcp-flows-learned", "packets-truncated", "probes-pipeline-skipped",
	"telemetry-replies", "responses-other-shard",
};

/* Packets the packet sockets dropped for a full receive buffer. */
static void packet_drops(void)
{
	int fds[2] = { D.io.pkt_fd, D.io.pkt6_fd }, i;
	struct tpacket_stats st;
	socklen_t len;

	/* the kernel resets the counts on each read */
	for (i = 0; i < 2; i++) {
		len = sizeof(st);
		if (fds[i] >= 0 &&
		    !getsockopt(fds[i], SOL_PACKET, PACKET_STATISTICS, &st,
				&len))
			D.counters[C_SOCKET_DROPS] += st.tp_drops;
	}
}

/*
 * stats_open() - a new file beside the statistics file, FILE.XXXXXX
 * (mkstemp(): a fresh name, O_EXCL, so never a symbolic link or another's
 * file), mode 0666 less the umask as fopen() would give; its name in @tmp.
 */
static FILE *stats_open(char *tmp, size_t len)
{
	mode_t mask = umask(0);
	FILE *out;
	int fd;

	umask(mask);
	if ((size_t)snprintf(tmp, len, "%s.XXXXXX", D.cfg.stats_file) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, 0666 & ~mask) || !(out = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		return NULL;
	}
	return out;
}

/* stats_snapshot() - the counters that mirror state, brought up to date */
void stats_snapshot(void)
{
	packet_drops();
	D.counters[C_NL_SKIPPED] = D.link.req.skipped;
	D.counters[C_NL_ROUND_TRIPS] = D.link.req.talks;
	D.counters[C_PROBES_PIPE_SKIPPED] = D.sched.pipe_deferred;
}

/*
 * flow_lines() - one line per flow of this shard; with shards, each says
 * whose it is
 */
void flow_lines(FILE *out)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const struct hpccd_flow *f;
	bool v6;

	LIST_FOREACH(f, &D.sched.flows, all) {
		v6 = f->t.family == AF_INET6;
		inet_ntop(v6 ? AF_INET6 : AF_INET,
			  v6 ? (const void *)f->t.saddr6 :
			  (const void *)&f->t.saddr, s, sizeof(s));
		inet_ntop(v6 ? AF_INET6 : AF_INET,
			  v6 ? (const void *)f->t.daddr6 :
			  (const void *)&f->t.daddr, d, sizeof(d));
		/* IPv6 as [addr]:port, and the flow label probes carry */
		fprintf(out, "flow %s%s%s:%u %s%s%s:%u", v6 ? "[" : "", s,
			v6 ? "]" : "", ntohs(f->t.sport), v6 ? "[" : "", d,
			v6 ? "]" : "", ntohs(f->t.dport));
		if (v6)
			fprintf(out, " flowlabel=0x%05x", f->t.flowlabel);
		fprintf(out, " probes=%" PRIu64 " responses=%"
			PRIu64 " lost=%" PRIu64 " rtt_us=%" PRIu64
			" srtt_us=%u probing=%d out=%u", f->probes,
			f->responses, f->lost, f->rtt_ns / 1000, f->srtt_us,
			f->state != HPCCD_IDLE, f->nout);
		if (D.nshards > 1)
			fprintf(out, " shard=%u", D.shard);
		fputc('\n', out);
	}
}

/*
 * Counters as key=value lines, then one line per flow; a statistics file
 * is replaced whole (rename() of stats_open()'s file).  With shards (shard
 * 0 writes it), the counters and flow counts are the sums of all shards'
 * and shards= says how many; a shard that did not report within a second
 * is left out and said so (shards-late=).
 */
void write_stats(void)
{
	char tmp[300], *lines[HPCCD_SHARDS_MAX] = { NULL };
	struct hpccd_report sum;
	unsigned int late = 0, i;
	FILE *out;

	memset(&sum, 0, sizeof(sum));
	if (D.nshards > 1)
		late = shards_gather(&sum, lines);
	if (!D.cfg.stats_file[0]) {
		out = stderr;
	} else {
		out = stats_open(tmp, sizeof(tmp));
		if (!out) {
			logmsg(LOG_ERR, "%s: %s", D.cfg.stats_file,
			       strerror(errno));
			goto free;
		}
	}
	stats_snapshot();
	fprintf(out, "connected=%d\nflows=%u\nqueued=%u\n",
		D.link.req.family_id != 0, D.sched.nflows + sum.nflows,
		hpccd_queued(&D.sched) + sum.queued);
	if (D.nshards > 1)
		fprintf(out, "shards=%u\nshards-late=%u\n", D.nshards, late);
	for (i = 0; i < C_NUM; i++)
		fprintf(out, "%s%s=%" PRIu64 "\n",
			i < C_PARSE_BASE ? "" : "dropped-",
			i < C_PARSE_BASE ? counter_names[i] :
			hpcc_parse_err_name(i - C_PARSE_BASE),
			D.counters[i] + sum.counters[i]);
	flow_lines(out);
	for (i = 1; i < D.nshards; i++)
		if (lines[i])
			fputs(lines[i], out);
	if (out != stderr) {
		if (fclose(out) || rename(tmp, D.cfg.stats_file)) {
			logmsg(LOG_ERR, "%s: %s", D.cfg.stats_file,
			       strerror(errno));
			unlink(tmp);
		}
	}
free:
	for (i = 1; i < D.nshards; i++)
		free(lines[i]);
}
