// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd sender - the sender role: probes built in the encoding the
 * configuration gives and sent through the raw sockets within the probe
 * budget, and the responses to them checked (outstanding id, MAC, hop
 * rates) and queued for the module.
 */

#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/hpcc.h>

#include "hpccd.h"

/*
 * send_addr() - the socket and destination address of a packet to @daddr
 * (4 or 16 bytes, network order, by @family) in @to (*@tolen bytes);
 * @ifindex is the scope of a link-local IPv6 destination (0 otherwise).
 * The address tells the kernel only the route: the header is sent as
 * built.
 * Return: the raw socket, -1 when there is none for @family.
 */
static int send_addr(int family, const void *daddr, int ifindex,
		     struct sockaddr_storage *to, socklen_t *tolen)
{
	struct sockaddr_in6 *to6 = (struct sockaddr_in6 *)to;
	struct sockaddr_in *to4 = (struct sockaddr_in *)to;

	memset(to, 0, sizeof(*to));
	if (family == AF_INET6) {
		to6->sin6_family = AF_INET6;
		memcpy(&to6->sin6_addr, daddr, 16);
		to6->sin6_scope_id = ifindex;
		*tolen = sizeof(*to6);
		return D.io.raw6_fd;
	}
	to4->sin_family = AF_INET;
	memcpy(&to4->sin_addr, daddr, 4);
	*tolen = sizeof(*to4);
	return D.io.raw_fd;
}

/* Where sends are counted: send-blocked, send-errors (this shard's). */
static const struct hpccd_send_counts *send_counts(void)
{
	static __thread struct hpccd_send_counts c;

	c.blocked = &D.counters[C_SEND_BLOCKED];
	c.errors = &D.counters[C_SEND_ERRORS];
	return &c;
}

static void send_log(int err)
{
	if (err && err != -EAGAIN)
		logmsg(LOG_DEBUG, "send: %s", err == -EAFNOSUPPORT ?
		       "no socket for the family" : strerror(-err));
}

/*
 * tx_done() - what became of a packet the batch sent (hpccd_tx_flush()):
 * a response sent is counted with its bytes; a probe sent is counted, and
 * one the full socket refused (the egress is stalled) is not, its flow
 * asking again after its doubled timeout rather than at the next
 * response (hpccd_probe_done()).
 */
static void tx_done(const struct hpccd_tx_pkt *p, int err, void *ctx)
{
	send_log(err);
	if (!p->probe) {
		if (!err) {
			D.counters[C_RESPONSES_SENT]++;
			D.counters[C_RESPONSE_BYTES] += p->len;
		}
		return;
	}
	if (hpccd_probe_done(&D.sched, p, err, now_ns()))
		D.counters[C_PROBES_SENT]++;
}

/* the batch of @fd's packets */
static struct hpccd_tx_batch *tx_batch(int fd)
{
	return fd >= 0 && fd == D.io.raw6_fd ? &D.io.tx6 : &D.io.tx4;
}

/*
 * tx_queue() - @p to @daddr (4 or 16 bytes, network order, by @family;
 * @ifindex the scope of a link-local IPv6 destination, 0 otherwise) into
 * its socket's batch, sent at the next tx_flush() or when the batch
 * fills.  It never waits for room: a socket whose send buffer is full (a
 * stalled egress) refuses the packet, which is counted (send-blocked) and
 * dropped, and the loop goes on.
 */
static void tx_queue(struct hpccd_tx_pkt *p, int family, const void *daddr,
		     int ifindex)
{
	int fd = send_addr(family, daddr, ifindex, &p->to, &p->tolen);

	hpccd_tx_queue(tx_batch(fd), fd, p, send_counts(), tx_done, NULL);
}

void tx_flush(void)
{
	if (D.io.tx4.n)
		hpccd_tx_flush(&D.io.tx4, send_counts(), tx_done, NULL);
	if (D.io.tx6.n)
		hpccd_tx_flush(&D.io.tx6, send_counts(), tx_done, NULL);
}

void send_response(const void *buf, size_t len, int family,
		   const void *daddr, int ifindex)
{
	struct hpccd_tx_pkt p = { .len = len };

	if (len <= sizeof(p.buf))
		memcpy(p.buf, buf, len);
	tx_queue(&p, family, daddr, ifindex);
}

/* The destination of a flow's probes: its remote address. */
static const void *tuple_daddr(const struct hpcc_tuple *t)
{
	return t->family == AF_INET6 ? (const void *)t->daddr6 :
				       (const void *)&t->daddr;
}

void probe_send(struct hpccd_flow *f, uint64_t now)
{
	uint64_t id = hpccd_probe_id(&D.io.ids);
	struct hpccd_tx_pkt p;
	uint8_t *buf = p.buf;
	size_t len;

	int enc = hpccd_cfg_encoding(&D.cfg, f->t.family, tuple_daddr(&f->t));

	if (enc == HPCCD_ENC_IOAM) {
		len = hpcc_build_probe_ioam(buf, &f->t, D.link.probe_dscp,
					    (uint16_t)D.cfg.ioam_namespace,
					    (uint8_t)D.cfg.max_hops, id, now);
		D.counters[C_PROBES_IOAM] += len > 0;
	} else if (enc == HPCCD_ENC_INT_MD) {
		/* room for the response: it is no larger than the probe */
		len = hpcc_build_probe_intmd(buf, &f->t, D.link.int_dscp,
					     D.cfg.max_hops < 2 ? 2 :
					     (uint8_t)D.cfg.max_hops,
					     (uint8_t)D.cfg.max_hops, id, now,
					     ++D.io.ip_id);
		D.counters[C_PROBES_INT_MD] += len > 0;
	} else if (enc == HPCCD_ENC_IFA) {
		len = hpcc_build_probe_ifa(buf, &f->t, D.link.probe_dscp,
					   D.link.ifa_protocol,
					   (uint8_t)D.cfg.max_hops, id, now,
					   ++D.io.ip_id);
		D.counters[C_PROBES_IFA] += len > 0;
	} else {
		/* the FCR support flag and the CC indicator (CCM section
		 * 6.1) ride in the HPCC encoding's extensions only
		 */
		unsigned int ext = HPCC_PROBE_PAD;	/* see on_probe() */

		if (hpccd_cfg_fcr(&D.cfg, f->t.family, tuple_daddr(&f->t)))
			ext |= HPCC_PROBE_FCR;
		if (f->ccm_cc)
			ext |= HPCC_PROBE_CC;
		if (hpccd_cfg_ccm(&D.cfg, f->t.family, tuple_daddr(&f->t)))
			ext |= HPCC_PROBE_AR;
		if (hpccd_rx_ask(f, now) &&
		    hpccd_cfg_rx_based(&D.cfg, f->t.family,
				       tuple_daddr(&f->t)))
			ext |= HPCC_PROBE_RX;
		len = hpcc_build_probe_ext(buf, &f->t, D.link.probe_dscp,
					   D.cfg.max_hops, id, now,
					   ++D.io.ip_id, ext);
		D.counters[C_PROBES_FCR] += len && (ext & HPCC_PROBE_FCR);
		D.counters[C_PROBES_CC] += len && (ext & HPCC_PROBE_CC);
		D.counters[C_PROBES_AR] += len && (ext & HPCC_PROBE_AR);
		D.counters[C_PROBES_RX] += len && (ext & HPCC_PROBE_RX);
	}
	hpccd_sent(&D.sched, f, id, now);
	if (!len)
		return;
	/* sent with the burst's batch (tx_done() counts it) */
	p.len = len;
	p.probe = true;
	p.t = f->t;
	p.probe_id = id;
	tx_queue(&p, f->t.family, tuple_daddr(&f->t), 0);
}

/* The flow has data in flight: probe it now, or when a token comes. */
void probe_want(struct hpccd_flow *f)
{
	uint64_t now = now_ns();

	if (hpccd_want(&D.sched, f, now))
		probe_send(f, now);
	else if (f->state == HPCCD_QUEUED)
		D.counters[C_PROBES_DEFERRED]++;
}

/*
 * response_authentic() - the MAC check of a response (hpcc_auth_check()):
 * counted; false when it is refused.
 */
static bool response_authentic(const uint8_t *raw, const struct hpcc_pkt *p,
			       uint64_t now)
{
	enum hpcc_auth_result r = hpcc_auth_check(D.keys.ring, raw, p, now);

	switch (r) {
	case HPCC_AUTH_NONE:
		return true;
	case HPCC_AUTH_OK:
		D.counters[C_AUTH_OK]++;
		return true;
	case HPCC_AUTH_OK_RETIRED:
		D.counters[C_AUTH_OK_RETIRED]++;
		return true;
	case HPCC_AUTH_MISSING:
		D.counters[C_AUTH_MISSING]++;
		break;
	case HPCC_AUTH_UNKNOWN_KEY:
		D.counters[C_AUTH_UNKNOWN_KEY]++;
		break;
	case HPCC_AUTH_BAD:
		D.counters[C_AUTH_BAD]++;
		break;
	}
	/* auth-permissive: counted above, taken all the same */
	if (!hpcc_auth_accepted(r, &D.cfg, p))
		return false;
	D.counters[C_AUTH_PERMITTED]++;
	return true;
}

/*
 * response_push() - a response's sample for flow @t: the next probe
 * leaves first if the flow has data in flight, then the sample is queued
 * for the module: the hop records, or with @rx what the receiver computed
 * (its W or U)
 */
static void response_push(struct hpccd_flow *f, const struct hpcc_tuple *t,
			  const struct hpcc_pkt *p, bool rx)
{
	D.counters[C_RESPONSES_WITH_N] += !!p->n_flows;
	if (f->in_flight)
		probe_want(f);
	if (rx)
		push_add_rx(t, p);
	else
		push_add(t, p);
}

/*
 * on_response() - a response to one of our probes.  The next probe leaves
 * at once while the module last said the flow had data in flight (the
 * draft's cadence: a new probe when the response arrives, section 6.2),
 * and the records are pushed after it, in the burst's batch; the module's
 * reply (read later) updates in-flight and srtt, and a refusal backs the
 * flow off then.
 */
void on_response(struct hpcc_pkt *p, const uint8_t *raw)
{
	struct hpcc_tuple t;
	struct hpccd_flow *f;
	uint64_t now = now_ns();
	int i;

	hpcc_tuple_reverse(&t, &p->tuple);
	f = hpccd_flow_find(&D.sched, &t);
	D.counters[C_RESPONSES_RECEIVED]++;
	/* the fanout gives a flow's responses to its shard: one that came
	 * to another (forged, or sent before a restart with other shards)
	 * is counted apart
	 */
	if (!f && hpccd_shard_of(&t, D.nshards) != D.shard) {
		D.counters[C_RESPONSES_OTHER_SHARD]++;
		return;
	}
	if (!f || !hpccd_outstanding(f, p->probe_id)) {
		D.counters[C_RESPONSES_UNEXPECTED]++;
		return;
	}
	/* before the probe is taken as answered: a forged response must not
	 * stand for the real one, which may still come
	 */
	if (!response_authentic(raw, p, now))
		return;
	if (!hpccd_response(&D.sched, f, p->probe_id, now)) {
		D.counters[C_RESPONSES_UNEXPECTED]++;
		return;
	}
	if (p->mode & HPCC_WIRE_MODE_REFUSED &&
	    hpccd_cfg_rx_based(&D.cfg, t.family, tuple_daddr(&t))) {
		/* the receiver does not run it now (its table may be full):
		 * this flow asks again after a backoff
		 */
		D.counters[C_RESPONSES_RX_REFUSED]++;
		/* the other probes out asked too: one refusal a wait */
		if (hpccd_rx_ask(f, now))
			hpccd_rx_refused(f, now);
	}
	if (p->mode & HPCC_WIRE_MODE_RX) {
		hpccd_rx_accepted(f);
		D.counters[C_RESPONSES_RX]++;
		D.counters[C_RESPONSES_RX_W] += !!p->w_rx;
		response_push(f, &t, p, true);
		return;
	}
	if (p->mode & HPCC_WIRE_MODE_U) {
		/* only U (section 9.1): pushed when the response has one;
		 * one without (the flow's first probe there, a path change,
		 * a receiver that could not measure) is probed again, and
		 * the flow falls back if none ever comes
		 */
		D.counters[C_RESPONSES_U]++;
		if (!p->has_u) {
			ask_flow(f);
			return;
		}
		D.counters[C_RESPONSES_U_VALUE]++;
		response_push(f, &t, p, true);
		return;
	}
	if (!p->nhop) {
		/* No INT hop stamped this probe (none on the path, or one
		 * being reconfigured): nothing to feed, but keep probing
		 * while the flow sends, or it would never get telemetry
		 * again until it idles and the module reports it active.
		 */
		D.counters[C_RESPONSES_NO_HOPS]++;
		ask_flow(f);
		return;
	}
	for (i = 0; i < p->nhop; i++) {
		/* no B (IOAM, INT-MD): the capacity table's, or the default */
		if (!p->hops[i].rate) {
			p->hops[i].rate = hpccd_cfg_rate(&D.cfg,
							 p->hops[i].switch_id,
							 p->hops[i].port_id);
			if (!p->hops[i].rate) {
				D.counters[C_RESPONSES_NO_RATE]++;
				ask_flow(f);
				return;
			}
		}
		if (p->hops[i].rate > HPCC_RATE_MAX) {
			D.counters[C_RESPONSES_BAD_HOP]++;
			ask_flow(f);
			return;
		}
	}
	response_push(f, &t, p, false);
}
