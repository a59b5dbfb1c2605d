// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd responder - the receiver role: a probe addressed to this host
 * answered with its hop records (from the HPCC, IOAM, INT-MD or IFA
 * encoding), N, a receiver-based W or U, within the per-source response
 * rate and the namespace's response budgets, after the destination,
 * reverse-path, neighbour and tcp-check verdicts of lookup.c.
 */

#include <errno.h>
#include <string.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "hpccd.h"

/* 127/8, or ::1: only ever on the loopback device. */
static bool loopback_addr(int family, const void *addr)
{
	static const uint8_t lo6[16] = { [15] = 1 };

	if (family == AF_INET6)
		return !memcmp(addr, lo6, 16);
	return *(const uint8_t *)addr == 127;
}

/*
 * Never a host's address: IPv4 zero, multicast, class E and limited
 * broadcast; IPv6 unspecified (::), multicast (ff00::/8) and IPv4-mapped
 * (::ffff:0:0/96, which never appears on the wire, RFC 4291 2.5.5.2).
 */
static bool martian(int family, const void *addr)
{
	static const uint8_t zero[16];
	const uint8_t *a = addr;

	if (family == AF_INET6)
		return !memcmp(a, zero, 16) || a[0] == 0xff ||
		       !memcmp(a, v4mapped_prefix, 12);
	return !(a[0] | a[1] | a[2] | a[3]) || a[0] >= 0xe0;
}

/*
 * obs_records() - the @n hops a standard encoding reported, @h, as the
 * response's records in @q, replacing any the probe carries
 * (hpcc_obs_to_rec(): B from the hop or this host's capacity table, else
 * 0 for the sender to fill; qlen in bytes, or from the hop latency; Tx
 * utilization in Q16); a hop the core cannot use gets ts 0 and is counted
 * (hops-skipped).
 */
static void obs_records(struct hpcc_pkt *q, const struct hpcc_hop_obs *h,
			uint8_t n, const struct hpcc_obs_units *units)
{
	uint8_t i;

	for (i = 0; i < n; i++) {
		uint64_t rate = 0;

		if (!(h[i].present & HPCC_OBS_RATE))
			rate = hpccd_cfg_rate(&D.cfg, h[i].rec.switch_id,
					      h[i].rec.port_id);
		if (!hpcc_obs_to_rec(&h[i], units, rate, &q->hops[i]))
			D.counters[C_HOPS_SKIPPED]++;
	}
	q->nhop = n;
}

/*
 * ioam_records() - a probe's IOAM trace (@raw, the packet from its IP
 * header), when a node filled it, as the response's records in @q
 * (obs_records(): node_id, egress interface, ts, queue depth in bytes).
 * Nodes beyond HPCC_MAX_HOPS, a malformed option and the Overflow flag are
 * counted.
 */
static void ioam_records(struct hpcc_pkt *q, const uint8_t *raw)
{
	const struct hpcc_obs_units units = { .qlen_unit = 1 };
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_ioam_info info;
	enum hpcc_decode_err e;
	uint8_t n;

	/* more nodes than records: HPCC_DECODE_TOO_MANY, refused */
	e = hpcc_decode_ioam(raw + q->ioam_off, q->ioam_len, D.cfg.ioam_ts, h,
			     HPCC_MAX_HOPS, &n, &info);
	if (e != HPCC_DECODE_OK) {
		D.counters[C_IOAM_REFUSED]++;
		return;
	}
	D.counters[C_IOAM_TRACES]++;
	if (info.flags & HPCC_IOAM_FLAG_OVERFLOW)
		D.counters[C_IOAM_OVERFLOW]++;
	if (n)			/* else no IOAM node on the path */
		obs_records(q, h, n, &units);
}

/*
 * int_records() - a probe's INT-MD stack (@raw, the packet from its IP
 * header), when a hop pushed metadata, as the response's records in @q
 * (obs_records(): switch ID, egress port, egress (else ingress)
 * timestamp in ns from the unit int-ts-unit gives the hop's switch,
 * queue occupancy x int-qlen-unit, the Tx utilization when
 * int-tx-util-full says what 100 % is).  A stack the decoder refuses and
 * the E and M flags (a hop added nothing) are counted.
 */
static void int_records(struct hpcc_pkt *q, const uint8_t *raw)
{
	const struct hpcc_obs_units units = {
		.qlen_unit = D.cfg.int_qlen_unit,
		.tx_util_full = D.cfg.int_tx_util_full,
	};
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_intmd_info info;
	enum hpcc_decode_err e;
	unsigned int unit;
	uint8_t n, i;

	e = hpcc_decode_intmd(raw + q->int_off, q->int_len, h, HPCC_MAX_HOPS,
			      &n, &info);
	if (e != HPCC_DECODE_OK) {
		D.counters[C_INT_MD_REFUSED]++;
		return;
	}
	D.counters[C_INT_MD_STACKS]++;
	if (info.flags & 3)		/* E or M */
		D.counters[C_INT_MD_INCOMPLETE]++;
	for (i = 0; i < n; i++) {
		unit = hpccd_cfg_int_ts_unit(&D.cfg,
					     h[i].present & HPCC_OBS_SWITCH_ID,
					     h[i].rec.switch_id);
		h[i].rec.ts = hpcc_int_ts_ns(h[i].rec.ts, unit);
	}
	if (n)
		obs_records(q, h, n, &units);
}

/*
 * ifa_records() - a probe's IFA stack (@raw, the packet from its IP
 * header), when a hop pushed metadata, as the response's records in @q
 * (obs_records(): device ID, egress port, Rx timestamp, B from the port
 * speed code, else from this host's capacity table or default-rate, and
 * qlen from the residence time: (residence - ifa-base-ns) x B, as IFA's
 * fixed metadata has no queue occupancy).  A hop without B is counted
 * (ifa-no-rate), and so is a stack the decoder refuses.
 */
static void ifa_records(struct hpcc_pkt *q, const uint8_t *raw)
{
	const struct hpcc_obs_units units = {
		.qlen_unit = 1,
		.base_ns = D.cfg.ifa_base_ns,
	};
	struct hpcc_hop_obs h[HPCC_MAX_HOPS];
	struct hpcc_ifa_info info;
	enum hpcc_decode_err e;
	uint8_t n, i;

	e = hpcc_decode_ifa(raw + q->ifa_off, q->ifa_len, h, HPCC_MAX_HOPS, &n,
			    &info);
	if (e != HPCC_DECODE_OK) {
		D.counters[C_IFA_REFUSED]++;
		return;
	}
	D.counters[C_IFA_STACKS]++;
	if (!n)
		return;
	obs_records(q, h, n, &units);
	/* B from neither the speed code nor this host's capacity table */
	for (i = 0; i < n; i++)
		if (!q->hops[i].rate)
			D.counters[C_IFA_NO_RATE]++;
}

/*
 * rated_hops() - @p's records into @hops (HPCC_MAX_HOPS of them), a missing
 * B (IOAM, INT-MD) from the capacity table, as the sender would take it:
 * the records the receiver runs the algorithm on
 */
static void rated_hops(struct hpcc_hop_rec *hops, const struct hpcc_pkt *p)
{
	uint8_t i;

	memcpy(hops, p->hops, sizeof(p->hops));
	for (i = 0; i < p->nhop; i++)
		if (!hops[i].rate)
			hops[i].rate = hpccd_cfg_rate(&D.cfg, hops[i].switch_id,
						      hops[i].port_id);
}

/*
 * rx_answer() - a probe that asks for receiver-based HPCC (draft-pan-
 * tsvwg-hpccplus-02 section 6.2): NewINT on its records, W in the
 * response when Wc was updated (at most once per T), or a refusal: rx-answer
 * 0, the module's parameters unknown, no TCP connection here for the
 * flow (@tcp_ok false, tcp-check), the table full, or records that
 * cannot be used (none, a hop without B).  B missing from a record (IOAM,
 * INT-MD) comes from the capacity table, as the sender would take it.
 */
static void rx_answer(const struct hpcc_pkt *p, uint32_t n, bool tcp_ok,
		      uint64_t now, struct hpcc_resp_opt *o)
{
	struct hpcc_hop_rec hops[HPCC_MAX_HOPS];
	enum hpccd_rx_res r = HPCCD_RX_INVALID;
	uint32_t w = 0;

	D.counters[C_RX_ASKED]++;
	if (!D.cfg.rx_answer || !D.rx.params_ok || !D.rx.flows.f || !tcp_ok) {
		D.counters[C_RX_REFUSED]++;
		o->mode = HPCC_WIRE_MODE_REFUSED;
		return;
	}
	rated_hops(hops, p);
	r = hpccd_rx_note(&D.rx.flows, &D.rx.params, &p->tuple, hops, p->nhop,
			  n, now, &w);
	switch (r) {
	case HPCCD_RX_SEND_W:
		D.counters[C_RX_W_SENT]++;
		o->w = w;
		/* fall through */
	case HPCCD_RX_KEEP:
		o->mode = HPCC_WIRE_MODE_RX;
		return;
	case HPCCD_RX_FULL:
		D.counters[C_RX_FULL]++;
		break;
	case HPCCD_RX_INVALID:
	case HPCCD_RX_SEND_U:	/* hpccd_rx_note_u()'s only */
		D.counters[C_RX_INVALID]++;
		break;
	}
	o->mode = HPCC_WIRE_MODE_REFUSED;
}

/*
 * u_answer() - a private response to a flow that is not receiver-based
 * (draft-miao-ccwg-hpcc section 9.1: the response "only carries U"): U
 * measured here on the records the response withholds, sent when they
 * updated it.  Without this host's module parameters, a TCP connection
 * for the flow (@tcp_ok, tcp-check), a slot or usable records, the
 * response carries neither records nor U, and the sender
 * falls back once its telemetry is stale.
 */
static void u_answer(const struct hpcc_pkt *p, bool tcp_ok, uint64_t now,
		     struct hpcc_resp_opt *o)
{
	struct hpcc_hop_rec hops[HPCC_MAX_HOPS];
	enum hpccd_rx_res r = HPCCD_RX_INVALID;

	o->mode |= HPCC_WIRE_MODE_U;
	if (D.rx.params_ok && D.rx.flows.f && tcp_ok) {
		rated_hops(hops, p);
		r = hpccd_rx_note_u(&D.rx.flows, &D.rx.params, &p->tuple, hops,
				    p->nhop, now, &o->u);
	}
	switch (r) {
	case HPCCD_RX_SEND_U:
		o->has_u = true;
		D.counters[C_U_SENT]++;
		break;
	case HPCCD_RX_KEEP:
		D.counters[C_U_KEPT]++;
		break;
	default:
		D.counters[C_U_UNAVAILABLE]++;
	}
}

/*
 * response_bound() - the largest response @p can draw, built in @buf: its
 * records (none when @private), N with report-n-flows, the mode extension
 * and W (receiver-based asked) or U (@private; the same size), a MAC with
 * @key.  The response sent is at most this (hpcc_build_response_opt()).
 * Return: its length, 0 when none can be built.
 */
static size_t response_bound(const struct hpcc_pkt *p, bool private,
			     const struct hpccd_key *key, uint8_t *buf)
{
	struct hpcc_resp_opt o = { 0 };
	bool rx = p->mode & HPCC_WIRE_MODE_RX;

	o.n_flows = D.cfg.report_n_flows && D.resp.nf.max ? 1 : 0;
	o.mode = (rx ? HPCC_WIRE_MODE_RX : 0) |
		 (private ? HPCC_WIRE_MODE_PRIVATE | HPCC_WIRE_MODE_U : 0);
	o.w = rx ? 1 : 0;
	o.has_u = private && !rx;
	o.mac_key_id = key ? key->id : 0;
	return hpcc_build_response_opt(buf, p, D.link.response_dscp, 0, &o);
}

/*
 * on_probe() - answer a probe addressed to this host, of either family:
 * the checks are the same (PACKET_HOST, a local unicast destination, a
 * unicast source with a route back, the per-source limit); an IPv6
 * source's limit is its /64's (hpccd_rl_allow()).
 */
void on_probe(struct hpcc_pkt *p, const uint8_t *raw,
	      const struct sockaddr_ll *ll)
{
	int fam = p->tuple.family == AF_INET6 ? AF_INET6 : AF_INET;
	const void *src = fam == AF_INET6 ? (const void *)p->tuple.saddr6 :
					    (const void *)&p->tuple.saddr;
	const void *dst = fam == AF_INET6 ? (const void *)p->tuple.daddr6 :
					    (const void *)&p->tuple.daddr;
	bool on_lo = ll->sll_ifindex == 1;	/* LOOPBACK_IFINDEX */
	struct hpcc_resp_opt o = { 0 };
	const struct hpccd_key *key;
	uint8_t buf[HPCC_PKT_MAX], type;
	enum src_verdict v;
	int dtype, vrf, ifx;
	bool private, own, tcp_ok = true;	/* may have receiver state */
	size_t len, probe_len, bound;
	uint64_t now;
	uint32_t n = 0;

	D.counters[C_PROBES_RECEIVED]++;
	/* its IP length (hpcc_parse() checked it against the buffer) */
	probe_len = fam == AF_INET6 ? HPCC_IP6_LEN + hpcc_get16(raw + 4) :
				      hpcc_get16(raw + 2);
	/* an IFA-shaped packet of another protocol: not ours to answer */
	if (p->ifa_off && p->ifa_proto != D.link.ifa_protocol) {
		D.counters[C_IFA_OTHER_PROTOCOL]++;
		return;
	}
	if (ll->sll_pkttype != PACKET_HOST) {
		D.counters[C_PROBES_NOT_UNICAST]++;
		return;
	}
	now = now_ns();
	/* the VRF of the interface it came in on: its lookups use that
	 * table (cached per interface: not the wire's to multiply)
	 */
	vrf = on_lo ? 0 : vrf_of(ll->sll_ifindex, now);
	/* the device a socket of the flow would be bound to */
	ifx = vrf ? vrf : ll->sll_ifindex;
	/* what needs no lookup first (a destination the cache knows is
	 * not this host's: a forwarding host sees probes for others as
	 * PACKET_HOST, and they must not spend their sources' tokens or the
	 * budget), then the limits, then the lookups
	 */
	if (martian(fam, dst) || (loopback_addr(fam, dst) && !on_lo) ||
	    (addr_type_cached(fam, dst, vrf, now, &type) &&
	     type != RTN_LOCAL)) {
		D.counters[C_PROBES_NOT_LOCAL]++;
		return;
	}
	if (martian(fam, src) || (loopback_addr(fam, src) && !on_lo)) {
		D.counters[C_PROBES_BAD_SOURCE]++;
		return;
	}
	/* this host's known TCP flows first (a cache read): their probes
	 * have a per-source limit of their own, which a flood naming their
	 * peer's address with other ports cannot spend, and no budget
	 */
	own = own_flow(&p->tuple, ifx, now);
	if (!hpccd_rl_allow(own ? &D.resp.rl_own : &D.resp.rl, fam, src, now)) {
		D.counters[C_RESPONSES_RATE_LIMITED]++;
		D.counters[C_RESPONSES_RL_CROWDED] = D.resp.rl.crowded +
						     D.resp.rl_own.crowded;
		return;
	}
	/* the budget bounds what probes not tied to this host's TCP
	 * connections draw; those of its own flows (an incast receiver's
	 * many senders) are bounded by the per-source limit only.  A flood
	 * beyond it has this host's connections learnt at once (once a
	 * second at most), so a new flow's probe is not refused with it.
	 */
	if (!own && !hpccd_budget_take(&D.resp.budget, now)) {
		tcp_flows_learn(now);
		own = own_flow(&p->tuple, ifx, now);
		if (!own) {
			D.counters[C_RESPONSES_OVER_BUDGET]++;
			return;
		}
	}
	D.counters[C_PROBES_OWN_FLOW] += own;
	dtype = addr_type(fam, dst, vrf, now);
	if (dtype < 0) {
		D.counters[C_PROBES_LOOKUP_FAILED]++;
		return;
	}
	if (dtype != RTN_LOCAL) {
		D.counters[C_PROBES_NOT_LOCAL]++;
		return;
	}
	v = src_check(fam, src, dst, ll->sll_ifindex, vrf, on_lo, now);
	switch (v) {
	case SRC_OK:
		break;
	case SRC_BAD:
		D.counters[C_PROBES_BAD_SOURCE]++;
		return;
	case SRC_RP:
		D.counters[C_PROBES_RP_FAILED]++;
		return;
	case SRC_NO_REPLY:
		D.counters[C_PROBES_LOOKUP_FAILED]++;
		return;
	case SRC_NEW_NEIGH:
		/* paid for: the neighbour gate let it create an entry */
		break;
	case SRC_NO_NEIGH:
		D.counters[C_PROBES_NO_NEIGHBOUR]++;
		return;
	}
	/* the sender asked for an IOAM trace, an INT-MD stack or an IFA
	 * stack: its hops, when it has any, are the response's records (an
	 * hpcc_int hop of the project's encoding on the same path may have
	 * stamped the probe's one record as well; it is dropped)
	 */
	if (p->ioam_off)
		ioam_records(p, raw);
	if (p->int_off)
		int_records(p, raw);
	if (p->ifa_off)
		ifa_records(p, raw);
	private = hpccd_cfg_private(&D.cfg, fam, src);
	key = hpcc_keyring_sign_key(D.keys.ring, fam, src);
	/* the size check and the bytes before any state or MAC: a
	 * spoofed probe must not draw more bytes than it cost; a probe of
	 * this host's TCP flows may draw the fixed tail more
	 * (response-amplification), and one whose flow the cache does not
	 * know yet is looked up for it (its budget token is spent); the
	 * largest response the probe can draw (N, mode, W or U, MAC) is
	 * charged, at most 8 bytes more than sent
	 */
	bound = response_bound(p, private, key, buf);
	if (!hpccd_cfg_response_fits(&D.cfg, bound, probe_len, own)) {
		if (own || !D.cfg.tcp_check ||
		    !hpccd_cfg_response_fits(&D.cfg, bound, probe_len, true) ||
		    !tcp_flow_known(&p->tuple, ifx, now)) {
			D.counters[C_RESPONSES_TOO_LARGE]++;
			return;
		}
		own = true;
		D.counters[C_PROBES_OWN_FLOW]++;
	}
	if (!bound ||
	    (!own &&
	     !hpccd_budget_bytes(&D.resp.budget, (uint32_t)bound, now))) {
		D.counters[C_RESPONSES_OVER_BYTES] += bound > 0;
		return;
	}
	/* state only for flows of this host's TCP connections (tcp-check):
	 * N, receiver-based W, only-U
	 */
	if (D.cfg.tcp_check &&
	    ((D.cfg.report_n_flows && D.resp.nf.max) ||
	     (p->mode & HPCC_WIRE_MODE_RX) || private) &&
	    !tcp_flow_known(&p->tuple, ifx, now)) {
		D.counters[C_PROBES_NO_TCP]++;
		tcp_ok = false;
	}
	if (D.cfg.report_n_flows && D.resp.nf.max && tcp_ok) {
		uint64_t over = D.resp.nf.over_source;

		n = hpccd_nf_note(&D.resp.nf, &p->tuple, p->hops, p->nhop, now);
		/* a shard sees its part of a hop's flows: N over all of
		 * them is about that times the shards (at least 1 each)
		 */
		if (n && D.nshards > 1)
			n = n * D.nshards < 65535 ? n * D.nshards : 65535;
		D.counters[C_N_FLOWS_EVICTED] = D.resp.nf.evicted;
		D.counters[C_N_FLOWS_OVER_SOURCE] = D.resp.nf.over_source;
		/* a flow beyond its source's share gets no state either */
		if (D.resp.nf.over_source != over)
			tcp_ok = false;
	}
	o.n_flows = n;
	if (p->mode & HPCC_WIRE_MODE_RX)
		rx_answer(p, n, tcp_ok, now, &o);
	if (private) {
		o.mode |= HPCC_WIRE_MODE_PRIVATE;
		D.counters[C_RESPONSES_PRIVATE]++;
		/* only W for a receiver-based flow, else only U */
		if (!(o.mode & HPCC_WIRE_MODE_RX))
			u_answer(p, tcp_ok, now, &o);
	}
	if (key)
		o.mac_key_id = key->id;
	len = hpcc_build_response_opt(buf, p, D.link.response_dscp,
				      ++D.io.ip_id, &o);
	if (len > bound)
		return;		/* cannot happen: response_bound() */
	if (len && key) {
		if (hpcc_auth_sign(buf, len, key))
			return;		/* cannot happen: built above */
		D.counters[C_RESPONSES_SIGNED]++;
	}
	/* sent with the burst's batch, counted when it leaves */
	if (len)
		send_response(buf, len, fam, src,
			      link_local6(fam, src) ? ll->sll_ifindex : 0);
}
