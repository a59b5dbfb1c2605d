// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_nl - test client of the "hpcc" generic netlink family, on hpccd's
 * client library (daemon/lib/hpcc_genl.c, libmnl).
 *
 *   hpcc_nl flow-get SADDR SPORT DADDR DPORT     key=value lines
 *   hpcc_nl dump                                 one line per flow, then flows=N
 *   hpcc_nl telemetry SADDR SPORT DADDR DPORT HOP... [n=N]
 *   hpcc_nl telemetry SADDR SPORT DADDR DPORT u=U [n=N]
 *           (IPv4 or IPv6 addresses)
 *   hpcc_nl telemetry-push ... [r=R [g=G | b=B]]  as telemetry, by
 *           telemetry-push: prints the reply, or "quiet" without one; r=R
 *           sends the sample R times on one socket, a line each ("I:
 *           reply"), g=G with a flow-get of the flow after the G-th
 *           sample; b=B sends the R samples B to a send() without
 *           waiting and prints one line: the replies, and the CPU time
 *           per sample
 *           HOP = switch_id,port_id,rate_bps,ts_ns,tx_bytes,qlen; n=N sends
 *           N as the receiver-reported n-flows; u=U sends only the
 *           receiver's U (rx-u, Q16), no record
 *   hpcc_nl params-get | params-set NAME=VALUE... | stats
 *   hpcc_nl bad CASE SADDR SPORT DADDR DPORT     a malformed telemetry-set;
 *           exit 0 when the kernel rejects it (prints errno and extack)
 *   hpcc_nl predict SADDR SPORT DADDR DPORT N TRACE
 *           push N synthetic samples one at a time, each after the previous
 *           one was used by an ACK; write them as an hpcc-replay trace to
 *           TRACE and print "U W Wc incStage cwnd mss pacing_rate mode" per
 *           sample; exit 3 if TCP reduced the window for loss before or
 *           during the run (then W does not follow the samples alone)
 *   hpcc_nl listen N                             print N flow events
 *   hpcc_nl dump-change                          a flow-get dump that gets a
 *           new flow (a loopback connection with hpcc) after its first
 *           part was made (in the request's sendmsg; the next part is
 *           made at the first recv): prints "parts=P flows=F intr=0|1"
 *           (P: recvs; intr: a message was flagged NLM_F_DUMP_INTR)
 *
 * Errors print "error: ERRNO (strerror): extack message" and exit 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/hpcc.h>

#include "hpcc_genl.h"

/* The family through the daemon's client library (daemon/lib/hpcc_genl.c). */
static struct hpcc_genl g;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct nlmsghdr *msg_start(char *buf, uint8_t cmd, uint16_t flags)
{
	return hpcc_genl_msg(&g, buf, cmd, flags);
}

static int talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return hpcc_genl_talk(&g, nlh, cb, data);
}

static void open_family(void)
{
	int err = hpcc_genl_open(&g, 0);

	if (err) {
		fprintf(stderr, "error: family %s: %s (module loaded?)\n",
			HPCC_FAMILY_NAME, strerror(-err));
		exit(1);
	}
}

static int report(int err)
{
	if (!err)
		return 0;
	printf("error: %d (%s): %s\n", -err, strerror(-err), g.extack);
	return 1;
}

/*
 * put_tuple_as() - the 4-tuple of @av (SADDR SPORT DADDR DPORT) with
 * @family, leaving out attribute @omit (0: none); the "bad" cases use it
 * for malformed tuples.
 */
static void put_tuple_as(struct nlmsghdr *nlh, char **av, uint16_t family,
			 int omit)
{
	struct in_addr s, d;

	if (!inet_aton(av[0], &s) || !inet_aton(av[2], &d)) {
		fprintf(stderr, "bad address\n");
		exit(2);
	}
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, family);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_SADDR4, s.s_addr);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_DADDR4, d.s_addr);
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_SPORT, htons(atoi(av[1])));
	if (omit != HPCC_A_FLOW_DPORT)
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_DPORT, htons(atoi(av[3])));
}

static void put_tuple(struct nlmsghdr *nlh, char **av)
{
	put_tuple_as(nlh, av, AF_INET, 0);
}

/* A hop record, leaving out attribute @omit (0: none), for "bad". */
static void put_hop(struct nlmsghdr *nlh, const struct hpcc_hop_rec *h,
		    int omit)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, HPCC_A_FLOW_HOP);

	if (omit != HPCC_A_HOP_SWITCH_ID)
		mnl_attr_put_u32(nlh, HPCC_A_HOP_SWITCH_ID, h->switch_id);
	if (omit != HPCC_A_HOP_PORT_ID)
		mnl_attr_put_u32(nlh, HPCC_A_HOP_PORT_ID, h->port_id);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_RATE, h->rate);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_TS, h->ts);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_TX_BYTES, h->tx_bytes);
	if (omit != HPCC_A_HOP_QLEN)
		mnl_attr_put_u64(nlh, HPCC_A_HOP_QLEN, h->qlen);
	mnl_attr_nest_end(nlh, n);
}

static void print_kv(const struct hpcc_attrs *r, const char *const *names, int max)
{
	int i;

	/* the spec's names with '_' for '-': shell-friendly keys */
	for (i = 1; i <= max; i++) {
		char key[64], *c;

		if (!names[i] || !r->has[i])
			continue;
		snprintf(key, sizeof(key), "%s", names[i]);
		for (c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		printf("%s=%" PRIu64 "\n", key, r->v[i]);
	}
}

static int get_flow(char **av, struct hpcc_attrs *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_start(buf, HPCC_CMD_FLOW_GET, 0);

	put_tuple(nlh, av);
	return talk(nlh, hpcc_genl_attrs_cb, r);
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN];
	struct hpcc_attrs r;
	uint32_t a;

	hpcc_genl_attrs_cb(nlh, &r);
	a = r.v[HPCC_A_FLOW_SADDR4];
	inet_ntop(AF_INET, &a, s, sizeof(s));
	a = r.v[HPCC_A_FLOW_DADDR4];
	inet_ntop(AF_INET, &a, d, sizeof(d));
	printf("%s:%u %s:%u cwnd=%" PRIu64 " w=%" PRIu64 " mode=%" PRIu64 "\n",
	       s, ntohs(r.v[HPCC_A_FLOW_SPORT]),
	       d, ntohs(r.v[HPCC_A_FLOW_DPORT]),
	       r.v[HPCC_A_FLOW_CWND], r.v[HPCC_A_FLOW_W],
	       r.v[HPCC_A_FLOW_MODE]);
	(*(int *)data)++;
	return MNL_CB_OK;
}

static int parse_hop(const char *s, struct hpcc_hop_rec *h)
{
	memset(h, 0, sizeof(*h));	/* flags 0: a full record */
	return sscanf(s, "%" SCNu32 ",%" SCNu32 ",%" SCNu64 ",%" SCNu64
		      ",%" SCNu64 ",%" SCNu32, &h->switch_id, &h->port_id,
		      &h->rate, &h->ts, &h->tx_bytes, &h->qlen) == 6 ? 0 : -1;
}

static uint32_t tel_n_flows;	/* n=N of the telemetry command */
static int64_t tel_u = -1;	/* u=U of the telemetry command; -1: none */
static int tel_reps;		/* r=R of telemetry-push: R samples */
static int tel_get;		/* g=G of telemetry-push: flow-get after G */

static int tel_batch;		/* b=B of telemetry-push: B a send() */

/* SADDR SPORT DADDR DPORT, IPv4 or IPv6 addresses, both of one family */
static int parse_tuple(char **av, struct hpcc_tuple *t)
{
	memset(t, 0, sizeof(*t));
	if (strchr(av[0], ':')) {
		t->family = AF_INET6;
		if (inet_pton(AF_INET6, av[0], t->saddr6) != 1 ||
		    inet_pton(AF_INET6, av[2], t->daddr6) != 1)
			return -EINVAL;
	} else {
		t->family = AF_INET;
		if (inet_pton(AF_INET, av[0], &t->saddr) != 1 ||
		    inet_pton(AF_INET, av[2], &t->daddr) != 1)
			return -EINVAL;
	}
	t->sport = htons(atoi(av[1]));
	t->dport = htons(atoi(av[3]));
	return 0;
}

static int telemetry(char **av, const struct hpcc_hop_rec *hops, int nhop,
		     struct hpcc_flow_msg *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_tuple t;

	if (parse_tuple(av, &t))
		return -EINVAL;
	if (tel_u >= 0)
		hpcc_genl_telemetry_put_u(&g, buf, &t, tel_n_flows,
					  (uint32_t)tel_u);
	else
		hpcc_genl_telemetry_put(&g, buf, &t, hops, nhop, tel_n_flows);
	return talk((struct nlmsghdr *)buf, hpcc_genl_flow_cb, r);
}

/* the replies and errors waiting on the socket, read without waiting */
static void drain(unsigned long *replies, unsigned long *errors)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	while ((n = recv(mnl_socket_get_fd(g.nl), buf, sizeof(buf),
			 MSG_DONTWAIT)) > 0) {
		len = n;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR)
				(*errors)++;
			else
				(*replies)++;
		}
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * push_batches() - the b=B form of telemetry-push: @reps samples of the
 * flow, @batch to a send() without waiting (as hpccd's push.c sends
 * them), the replies read as they come; prints the process's CPU time
 * per sample, its own and the kernel's work in its system calls (the
 * module takes a request in the sender's send())
 */
static int push_batches(char **av, const struct hpcc_hop_rec *hops, int nhop,
			int reps, int batch)
{
	static char buf[2 * 65536];
	unsigned long replies = 0, errors = 0;
	struct mnl_nlmsg_batch *b;
	struct hpcc_tuple t;
	uint64_t c0;
	int i, n, rcv = 4 << 20;

	if (parse_tuple(av, &t) || batch < 1 || batch > 128 || reps < 1)
		return -EINVAL;
	setsockopt(mnl_socket_get_fd(g.nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcv,
		   sizeof(rcv));
	b = mnl_nlmsg_batch_start(buf, 65536);
	if (!b)
		return -ENOMEM;
	c0 = cpu_ns();
	for (i = 0; i < reps; i += n) {
		for (n = 0; n < batch && i + n < reps; n++) {
			hpcc_genl_telemetry_put(&g, mnl_nlmsg_batch_current(b),
						&t, hops, nhop, tel_n_flows);
			mnl_nlmsg_batch_next(b);
		}
		if (hpcc_genl_send_batch(&g, b))
			return -errno;
		mnl_nlmsg_batch_reset(b);
		drain(&replies, &errors);
	}
	drain(&replies, &errors);
	c0 = cpu_ns() - c0;
	mnl_nlmsg_batch_stop(b);
	printf("samples %d batch %d replies %lu errors %lu cpu_us %.0f us_per_sample %.3f\n",
	       reps, batch, replies, errors, c0 / 1e3, c0 / 1e3 / reps);
	return errors ? -EIO : 0;
}

/* The malformed requests of the "bad" command. */
static int bad(const char *c, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_start(buf, HPCC_CMD_TELEMETRY_SET, 0);
	struct hpcc_hop_rec h = {
		.switch_id = 1, .port_id = 1, .rate = 1000000000, .ts = 1000,
	};
	uint8_t v6[16] = { 0 };
	int i, err;

	if (!strcmp(c, "short-addr")) {
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, AF_INET);
		mnl_attr_put(nlh, HPCC_A_FLOW_SADDR4, 2, "ab");
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "long-port")) {
		put_tuple(nlh, av);
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_SPORT, 1);
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "rate-zero")) {
		put_tuple(nlh, av);
		h.rate = 0;
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "rate-too-high")) {
		put_tuple(nlh, av);
		h.rate = 1600000000001ULL;
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "zero-hops")) {
		put_tuple(nlh, av);
	} else if (!strcmp(c, "nine-hops")) {
		put_tuple(nlh, av);
		for (i = 0; i < 9; i++)
			put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "missing-dport")) {
		put_tuple_as(nlh, av, AF_INET, HPCC_A_FLOW_DPORT);
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "missing-qlen")) {
		put_tuple(nlh, av);
		put_hop(nlh, &h, HPCC_A_HOP_QLEN);
	} else if (!strcmp(c, "bad-family")) {
		put_tuple_as(nlh, av, 99, 0);
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "v4mapped")) {
		/* an IPv4 flow named by IPv4-mapped IPv6 addresses */
		v6[10] = 0xff;
		v6[11] = 0xff;
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, AF_INET6);
		mnl_attr_put(nlh, HPCC_A_FLOW_SADDR6, 16, v6);
		mnl_attr_put(nlh, HPCC_A_FLOW_DADDR6, 16, v6);
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_SPORT, htons(1));
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_DPORT, htons(1));
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "mixed-family")) {
		/* AF_INET with an IPv6 address too */
		put_tuple(nlh, av);
		mnl_attr_put(nlh, HPCC_A_FLOW_SADDR6, 16, v6);
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "v6-no-daddr")) {
		v6[15] = 1;
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, AF_INET6);
		mnl_attr_put(nlh, HPCC_A_FLOW_SADDR6, 16, v6);
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_SPORT, htons(1));
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_DPORT, htons(1));
		put_hop(nlh, &h, 0);
	} else if (!strcmp(c, "unknown-attr")) {
		put_tuple(nlh, av);
		put_hop(nlh, &h, 0);
		mnl_attr_put_u32(nlh, 200, 1);
	} else if (!strcmp(c, "u-with-hop")) {
		/* only U comes without records */
		put_tuple(nlh, av);
		put_hop(nlh, &h, 0);
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_RX_U, 1 << 16);
	} else if (!strcmp(c, "u-with-rx")) {
		put_tuple(nlh, av);
		mnl_attr_put(nlh, HPCC_A_FLOW_RX_BASED, 0, NULL);
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_RX_U, 1 << 16);
	} else if (!strcmp(c, "hop-not-nested")) {
		put_tuple(nlh, av);
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_HOP, 1);
	} else {
		fprintf(stderr, "unknown case %s\n", c);
		return 2;
	}
	err = talk(nlh, NULL, NULL);
	if (!err) {
		printf("accepted\n");
		return 1;
	}
	printf("error: %d (%s): %s\n", -err, strerror(-err), g.extack);
	return 0;
}

static int params_set(int ac, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_start(buf, HPCC_CMD_PARAMS_SET, 0);
	int i, k;

	for (i = 0; i < ac; i++) {
		char *eq = strchr(av[i], '=');

		if (!eq)
			return 2;
		*eq = 0;
		k = hpcc_name_lookup(hpcc_params_names, HPCC_A_PARAMS_MAX,
				     av[i]);
		if (!k) {
			fprintf(stderr, "unknown parameter %s\n", av[i]);
			return 2;
		}
		/* out-of-range values are the kernel's to reject */
		hpcc_genl_put_param(nlh, k, strtoull(eq + 1, NULL, 0));
	}
	return report(talk(nlh, NULL, NULL));
}

static int simple_get(uint8_t cmd, const char *const *names, int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_attrs r;
	int err = talk(msg_start(buf, cmd, 0), hpcc_genl_attrs_cb, &r);

	if (err)
		return report(err);
	print_kv(&r, names, max);
	return 0;
}

static uint64_t param(const char *name)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_attrs r;
	int k;

	if (talk(msg_start(buf, HPCC_CMD_PARAMS_GET, 0),
		 hpcc_genl_attrs_cb, &r))
		die("params-get");
	k = hpcc_name_lookup(hpcc_params_names, HPCC_A_PARAMS_MAX, name);
	return k ? r.v[k] : 0;
}

/*
 * predict: one hop of B = line rate; each sample advances ts by T and
 * txBytes by a pseudo-random share of B * T (40% to 130%), with a queue
 * now and then, so MD, AI and MI steps all happen.  Exits with 3 if TCP
 * reduced the window for loss meanwhile (W no longer follows the samples
 * alone), with 1 on other errors.
 */
static int predict(char **av, int n, const char *trace)
{
	uint64_t t_ns = param("t") * 1000, rate = param("line_rate") * 1000000;
	uint64_t bdp = rate / 8 * t_ns / 1000000000;
	struct hpcc_hop_rec h = {
		.switch_id = 7, .port_id = 3, .rate = rate, .ts = 1000000,
	};
	FILE *f = fopen(trace, "w");
	struct hpcc_flow_msg reply;
	struct hpcc_attrs r;
	uint64_t used, reductions;
	unsigned int x = 12345;
	int i, tries, err;

	if (!f)
		die(trace);
	err = get_flow(av, &r);
	if (err)
		return report(err);
	used = r.v[HPCC_A_FLOW_SAMPLES];
	reductions = r.v[HPCC_A_FLOW_REDUCTIONS];
	if (reductions) {	/* W is no longer W_init */
		printf("loss: reductions %" PRIu64 " before the first sample\n",
		       reductions);
		return 3;
	}
	for (i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		h.ts += t_ns;
		h.tx_bytes += bdp * (40 + (x >> 16) % 91) / 100;
		h.qlen = (x >> 8) % 4 == 0 ? bdp * ((x >> 4) % 50) / 100 : 0;
		err = telemetry(av, &h, 1, &reply);
		if (err)
			return report(err);
		for (tries = 0; tries < 2000; tries++) {
			err = get_flow(av, &r);
			if (err)
				return report(err);
			if (r.v[HPCC_A_FLOW_SAMPLES] > used)
				break;
			usleep(1000);
		}
		if (r.v[HPCC_A_FLOW_SAMPLES] != used + 1) {
			printf("error: sample %d used %" PRIu64 " times\n", i,
			       r.v[HPCC_A_FLOW_SAMPLES] - used);
			return 1;
		}
		if (r.v[HPCC_A_FLOW_REDUCTIONS] != reductions) {
			printf("loss: reductions %" PRIu64 " -> %" PRIu64
			       " at sample %d\n", reductions,
			       r.v[HPCC_A_FLOW_REDUCTIONS], i);
			return 3;
		}
		used++;
		fprintf(f, "%" PRIu64 " %" PRIu64 " 1 %u %u %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 "\n",
			r.v[HPCC_A_FLOW_LAST_ACK_SEQ],
			r.v[HPCC_A_FLOW_LAST_SND_NXT], h.switch_id, h.port_id,
			h.rate, h.ts, h.tx_bytes, (uint64_t)h.qlen);
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       r.v[HPCC_A_FLOW_U], r.v[HPCC_A_FLOW_W],
		       r.v[HPCC_A_FLOW_WC], r.v[HPCC_A_FLOW_INC_STAGE],
		       r.v[HPCC_A_FLOW_CWND], r.v[HPCC_A_FLOW_MSS],
		       r.v[HPCC_A_FLOW_PACING_RATE],
		       r.v[HPCC_A_FLOW_MODE]);
	}
	fclose(f);
	return 0;
}

static int listen_events(int n)
{
	char buf[1 << 16];
	int len, got = 0;

	if (mnl_socket_setsockopt(g.nl, NETLINK_ADD_MEMBERSHIP, &g.events_grp,
				  sizeof(g.events_grp)) < 0) {
		printf("error: %d (%s): join events\n", errno, strerror(errno));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (got < n) {
		const struct nlmsghdr *nlh = (const void *)buf;

		len = mnl_socket_recvfrom(g.nl, buf, sizeof(buf));
		if (len < 0)
			die("recvfrom");
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			struct hpcc_attrs r;

			hpcc_genl_attrs_cb(nlh, &r);
			printf("event %s sport=%u dport=%u\n",
			       r.cmd == HPCC_CMD_FLOW_NEW ? "flow-new" :
			       r.cmd == HPCC_CMD_FLOW_DEL ? "flow-del" :
			       r.cmd == HPCC_CMD_FLOW_ACTIVE ? "flow-active" : "?",
			       ntohs(r.v[HPCC_A_FLOW_SPORT]),
			       ntohs(r.v[HPCC_A_FLOW_DPORT]));
			fflush(stdout);
			got++;
		}
	}
	return 0;
}

/* A loopback connection with hpcc: a new flow entry once connect() returns. */
static int loopback_flow(int *fds)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	const char cc[] = "hpcc";

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	fds[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (fds[0] < 0 || fds[1] < 0 ||
	    bind(fds[0], (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fds[0], 1) ||
	    getsockname(fds[0], (struct sockaddr *)&a, &len) ||
	    setsockopt(fds[1], IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)) ||
	    connect(fds[1], (struct sockaddr *)&a, sizeof(a)))
		return -errno;
	return 0;
}

/*
 * dump_change() - a flow-get dump with a new flow between its first part
 * (made by sendmsg) and the next (made by the first recv, even if only
 * NLMSG_DONE is left), read one recv at a time; libmnl is not used to
 * read it, as it stops at the first NLM_F_DUMP_INTR message.
 */
static int dump_change(void)
{
	char req[MNL_SOCKET_BUFFER_SIZE], buf[1 << 16];
	int parts = 0, flows = 0, intr = 0, done = 0, fds[2] = { -1, -1 };
	struct nlmsghdr *nlh = msg_start(req, HPCC_CMD_FLOW_GET, NLM_F_DUMP);
	ssize_t n;
	int len;

	if (mnl_socket_sendto(g.nl, nlh, nlh->nlmsg_len) < 0)
		die("sendto");
	if (loopback_flow(fds))
		die("loopback connection");
	while (!done) {
		n = mnl_socket_recvfrom(g.nl, buf, sizeof(buf));
		if (n < 0)
			die("recvfrom");
		parts++;
		len = (int)n;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = 1;
			if (nlh->nlmsg_type == NLMSG_DONE ||
			    nlh->nlmsg_type == NLMSG_ERROR)
				done = 1;
			else
				flows++;
		}
	}
	printf("parts=%d flows=%d intr=%d\n", parts, flows, intr);
	close(fds[0]);
	close(fds[1]);
	return 0;
}

int main(int ac, char **av)
{
	struct hpcc_hop_rec hops[16];
	struct hpcc_flow_msg reply;
	struct hpcc_attrs r;
	int i, err;

	if (ac < 2)
		goto usage;
	open_family();
	if (!strcmp(av[1], "flow-get") && ac == 6) {
		err = get_flow(av + 2, &r);
		if (err)
			return report(err);
		printf("nhop=%d\n", r.nhop);
		print_kv(&r, hpcc_flow_names, HPCC_A_FLOW_MAX);
		return 0;
	}
	if (!strcmp(av[1], "dump")) {
		char buf[MNL_SOCKET_BUFFER_SIZE];
		int n = 0;

		err = talk(msg_start(buf, HPCC_CMD_FLOW_GET,
				     NLM_F_DUMP), dump_cb, &n);
		printf("flows=%d\n", n);
		/* the table changed during the dump: what it listed is true */
		if (err == -EINTR)
			printf("interrupted\n");
		return err == -EINTR ? 0 : report(err);
	}
	if (!strcmp(av[1], "telemetry-push")) {
		g.telemetry_cmd = HPCC_CMD_TELEMETRY_PUSH;
		av[1] = "telemetry";
		while (ac > 6 && av[ac - 1][1] == '=' &&
		       (av[ac - 1][0] == 'r' || av[ac - 1][0] == 'g' ||
			av[ac - 1][0] == 'b')) {
			if (av[ac - 1][0] == 'r')
				tel_reps = atoi(av[ac - 1] + 2);
			else if (av[ac - 1][0] == 'b')
				tel_batch = atoi(av[ac - 1] + 2);
			else
				tel_get = atoi(av[ac - 1] + 2);
			ac--;
		}
	}
	if (!strcmp(av[1], "telemetry") && ac >= 6 && ac - 6 <= 16) {
		if (!strncmp(av[ac - 1], "n=", 2))
			tel_n_flows = strtoul(av[--ac] + 2, NULL, 0);
		if (!strncmp(av[ac - 1], "u=", 2))
			tel_u = (int64_t)strtoul(av[--ac] + 2, NULL, 0);
		for (i = 6; i < ac; i++)
			if (parse_hop(av[i], &hops[i - 6]))
				goto usage;
		if (tel_batch)
			return report(push_batches(av + 2, hops, ac - 6,
						   tel_reps, tel_batch));
		for (i = 1; i <= (tel_reps > 0 ? tel_reps : 1); i++) {
			memset(&reply, 0, sizeof(reply));
			err = telemetry(av + 2, hops, ac - 6, &reply);
			if (err)
				return report(err);
			if (tel_reps > 0)
				printf("%d: ", i);
			if (!reply.cmd)
				printf("quiet\n");
			else
				printf("in_flight=%u srtt=%u\n",
				       reply.a.in_flight, reply.a.srtt);
			if (i == tel_get && get_flow(av + 2, &r))
				return report(-EIO);
		}
		return 0;
	}
	if (!strcmp(av[1], "params-get"))
		return simple_get(HPCC_CMD_PARAMS_GET, hpcc_params_names,
				  HPCC_A_PARAMS_MAX);
	if (!strcmp(av[1], "params-set"))
		return params_set(ac - 2, av + 2);
	if (!strcmp(av[1], "stats"))
		return simple_get(HPCC_CMD_STATS_GET, hpcc_stats_names,
				  HPCC_A_STATS_MAX);
	if (!strcmp(av[1], "bad") && ac == 7)
		return bad(av[2], av + 3);
	if (!strcmp(av[1], "predict") && ac == 8)
		return predict(av + 2, atoi(av[6]), av[7]);
	if (!strcmp(av[1], "listen") && ac == 3)
		return listen_events(atoi(av[2]));
	if (!strcmp(av[1], "dump-change") && ac == 2)
		return dump_change();
usage:
	fprintf(stderr, "usage: see the comment at the top of hpcc_nl.c\n");
	return 2;
}
