// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_wire.c - build and parse HPCC probe and response packets
 * (hpcc_wire.h).  Every read is bounds-checked against the packet length
 * and done byte-wise (unaligned-safe), as packets come from the network.
 */
#include <endian.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/hpcc.h>

#include "hpcc_wire.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

/* RFC 1071 sum over @len bytes, folded to 16 bits, starting from @sum. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += hpcc_get16(p + i);
	if (len & 1)
		sum += p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* IPv4 header: DSCP << 2 (ECN 0), DF, TTL 64, protocol @proto (TCP, or
 * an IFA probe's ifa-protocol), its checksum.
 */
static void put_ip(uint8_t *ip, const struct hpcc_tuple *t, uint8_t dscp,
		   size_t total, uint16_t ip_id, uint8_t proto)
{
	memset(ip, 0, HPCC_IP_LEN);
	ip[0] = 0x45;
	ip[1] = dscp << 2;
	put16(ip + 2, total);
	put16(ip + 4, ip_id);
	put16(ip + 6, 0x4000);			/* DF */
	ip[8] = 64;				/* TTL */
	ip[9] = proto;
	memcpy(ip + 12, &t->saddr, 4);
	memcpy(ip + 16, &t->daddr, 4);
	put16(ip + 10, ~csum_add(0, ip, HPCC_IP_LEN) & 0xffff);
}

/* IPv6 header (RFC 8200 section 3): traffic class DSCP << 2 (ECN 0), the
 * flow label, next header @next (TCP, hop-by-hop options, or an IFA
 * probe's ifa-protocol), hop limit 64.
 */
static void put_ip6(uint8_t *ip, const struct hpcc_tuple *t, uint8_t dscp,
		    size_t total, uint8_t next)
{
	put32(ip, 6U << 28 | (uint32_t)(dscp << 2) << 20 | t->flowlabel);
	put16(ip + 4, total - HPCC_IP6_LEN);
	ip[6] = next;
	ip[7] = 64;				/* hop limit */
	memcpy(ip + 8, t->saddr6, 16);
	memcpy(ip + 24, t->daddr6, 16);
}

static size_t ip_len(const struct hpcc_tuple *t)
{
	return t->family == AF_INET6 ? HPCC_IP6_LEN : HPCC_IP_LEN;
}

/* TCP header at @th with no flags, seq, ack and window 0, and its checksum
 * over the pseudo-header (IPv4: RFC 793; IPv6: RFC 8200 section 8.1) and
 * the @seg bytes of the segment (the payload must be in place).
 */
static void put_tcp(uint8_t *ip, uint8_t *th, size_t seg, bool v6)
{
	uint32_t sum;

	memset(th + 4, 0, HPCC_TCP_LEN - 4);	/* ports already set */
	th[12] = (HPCC_TCP_LEN / 4) << 4;
	if (v6)
		sum = csum_add(0, ip + 8, 32);	/* addresses */
	else
		sum = csum_add(0, ip + 12, 8);
	sum += 6 + seg;
	sum = csum_add(sum, th, seg);
	put16(th + 16, ~sum & 0xffff);
}

/* An 8-byte extension (struct hpcc_wire_ext) at @e. */
static void put_ext(uint8_t *e, uint8_t kind, uint32_t value)
{
	e[0] = kind;
	e[1] = HPCC_WIRE_EXT_LEN;
	put16(e + 2, 0);
	put32(e + 4, value);
}

static void put_hdr(uint8_t *h, uint8_t type, uint8_t nhop, uint8_t hop_cap,
		    uint64_t probe_id, uint64_t ts)
{
	put32(h, HPCC_WIRE_MAGIC);
	h[4] = HPCC_WIRE_VERSION;
	h[5] = type;
	h[6] = nhop;
	h[7] = hop_cap;
	put64(h + 8, probe_id);
	put64(h + 16, ts);
}

static void put_hop(uint8_t *p, const struct hpcc_hop_rec *r)
{
	put32(p, r->switch_id);
	put32(p + 4, r->port_id);
	put64(p + 8, r->rate);
	put64(p + 16, r->ts);
	put64(p + 24, r->tx_bytes);
	put32(p + 32, r->qlen);
	p[36] = (uint8_t)(r->flags & (HPCC_HOP_FLAGS_NO_TX_BYTES |
				      HPCC_HOP_FLAGS_TX_UTIL));
	p[37] = 0;
	put16(p + 38, r->flags & HPCC_HOP_FLAGS_TX_UTIL ?
		      (uint16_t)(r->tx_util / 2 > 65535 ? 65535 :
				 r->tx_util / 2) : 0);
}

static void get_hop(const uint8_t *p, struct hpcc_hop_rec *r)
{
	r->switch_id = hpcc_get32(p);
	r->port_id = hpcc_get32(p + 4);
	r->rate = hpcc_get64(p + 8);
	r->ts = hpcc_get64(p + 16);
	r->tx_bytes = hpcc_get64(p + 24);
	r->qlen = hpcc_get32(p + 32);
	/* unknown bits ignored; Tx utilization only with no txBytes */
	r->flags = p[36] & HPCC_HOP_FLAGS_NO_TX_BYTES;
	if (r->flags && p[36] & HPCC_HOP_FLAGS_TX_UTIL) {
		r->flags |= HPCC_HOP_FLAGS_TX_UTIL;
		r->tx_util = (uint32_t)hpcc_get16(p + 38) * 2;
	} else {
		r->tx_util = 0;
	}
	if (r->flags & HPCC_HOP_FLAGS_NO_TX_BYTES)
		r->tx_bytes = 0;
}

static size_t pkt_len(size_t iplen, uint8_t hop_cap)
{
	return iplen + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN +
	       (size_t)hop_cap * HPCC_WIRE_HOP_LEN;
}

static bool tuple_ok(const struct hpcc_tuple *t)
{
	if (t->family == AF_INET6)
		return t->flowlabel <= 0xfffff;
	return !t->family || t->family == AF_INET;
}

/* The IP header of a packet of @total bytes from @t. */
static void put_iph(uint8_t *ip, const struct hpcc_tuple *t, uint8_t dscp,
		    size_t total, uint16_t ip_id, uint8_t proto)
{
	if (t->family == AF_INET6)
		put_ip6(ip, t, dscp, total, proto);
	else
		put_ip(ip, t, dscp, total, ip_id, proto);
}

/*
 * put_probe() - what every probe carries after its IP header and whatever
 * encoding sits before the HPCC header: the flow's ports in the TCP header
 * at @th (put_tcp() fills the rest once the payload is in place), and at
 * @h the HPCC probe header with @hop_cap empty records.
 */
static void put_probe(uint8_t *th, uint8_t *h, const struct hpcc_tuple *t,
		      uint8_t hop_cap, uint64_t probe_id, uint64_t ts)
{
	memcpy(th, &t->sport, 2);
	memcpy(th + 2, &t->dport, 2);
	put_hdr(h, HPCC_WIRE_PROBE, 0, hop_cap, probe_id, ts);
	memset(h + HPCC_WIRE_HDR_LEN, 0, (size_t)hop_cap * HPCC_WIRE_HOP_LEN);
}

size_t hpcc_build_probe(void *buf, const struct hpcc_tuple *t, uint8_t dscp,
			uint8_t hop_cap, uint64_t probe_id, uint64_t ts,
			uint16_t ip_id)
{
	return hpcc_build_probe_ext(buf, t, dscp, hop_cap, probe_id, ts, ip_id,
				    0);
}

size_t hpcc_build_probe_ext(void *buf, const struct hpcc_tuple *t,
			    uint8_t dscp, uint8_t hop_cap, uint64_t probe_id,
			    uint64_t ts, uint16_t ip_id, unsigned int ext)
{
	size_t iplen = ip_len(t), total = pkt_len(iplen, hop_cap);
	uint8_t *ip = buf, *th = ip + iplen, *h = th + HPCC_TCP_LEN;
	uint8_t *e = h + HPCC_WIRE_HDR_LEN + (size_t)hop_cap * HPCC_WIRE_HOP_LEN;

	size_t elen, pad = 0;

	if (!dscp || dscp > HPCC_DSCP_MAX || !hop_cap || hop_cap > HPCC_MAX_HOPS ||
	    !tuple_ok(t) ||
	    ext & ~(HPCC_PROBE_FCR | HPCC_PROBE_CC | HPCC_PROBE_AR |
		    HPCC_PROBE_RX | HPCC_PROBE_PAD))
		return 0;
	elen = (size_t)!!(ext & HPCC_PROBE_FCR) * HPCC_WIRE_EXT_LEN +
	       (size_t)!!(ext & HPCC_PROBE_CC) * HPCC_WIRE_EXT_LEN +
	       (size_t)!!(ext & HPCC_PROBE_AR) * HPCC_WIRE_EXT_AR_LEN +
	       (size_t)!!(ext & HPCC_PROBE_RX) * HPCC_WIRE_EXT_LEN;
	/* every extension is 8n bytes: the pad is 0 or at least 8 */
	if ((ext & HPCC_PROBE_PAD) && elen < HPCC_WIRE_RESP_EXT_MAX)
		pad = HPCC_WIRE_RESP_EXT_MAX - elen;
	total += elen + pad;
	put_iph(ip, t, dscp, total, ip_id, 6);
	put_probe(th, h, t, hop_cap, probe_id, ts);
	if (ext & HPCC_PROBE_FCR) {
		e[0] = HPCC_WIRE_EXT_FCR;
		e[1] = HPCC_WIRE_EXT_LEN;
		put16(e + 2, 0);
		put32(e + 4, HPCC_WIRE_FCR_SUPPORT);
		e += HPCC_WIRE_EXT_LEN;
	}
	if (ext & HPCC_PROBE_CC) {
		e[0] = HPCC_WIRE_EXT_CCM;
		e[1] = HPCC_WIRE_EXT_LEN;
		put16(e + 2, 0);
		put32(e + 4, HPCC_WIRE_CCM_CC);
		e += HPCC_WIRE_EXT_LEN;
	}
	if (ext & HPCC_PROBE_AR) {
		e[0] = HPCC_WIRE_EXT_AR;
		e[1] = HPCC_WIRE_EXT_AR_LEN;
		put16(e + 2, 0);
		put32(e + 4, 0);
		if (t->family == AF_INET6) {
			memcpy(e + HPCC_WIRE_EXT_LEN, t->saddr6, 16);
		} else {
			memset(e + HPCC_WIRE_EXT_LEN, 0, 10);
			e[HPCC_WIRE_EXT_LEN + 10] = 0xff;
			e[HPCC_WIRE_EXT_LEN + 11] = 0xff;
			memcpy(e + HPCC_WIRE_EXT_LEN + 12, &t->saddr, 4);
		}
		e += HPCC_WIRE_EXT_AR_LEN;
	}
	if (ext & HPCC_PROBE_RX) {
		put_ext(e, HPCC_WIRE_EXT_MODE, HPCC_WIRE_MODE_RX);
		e += HPCC_WIRE_EXT_LEN;
	}
	if (pad) {
		memset(e, 0, pad);
		e[0] = HPCC_WIRE_EXT_PAD;
		e[1] = (uint8_t)pad;
	}
	put_tcp(ip, th, total - iplen, t->family == AF_INET6);
	return total;
}

size_t hpcc_build_probe_intmd(void *buf, const struct hpcc_tuple *t,
			      uint8_t dscp, uint8_t hop_cap, uint8_t hops,
			      uint64_t probe_id, uint64_t ts, uint16_t ip_id)
{
	size_t iplen = ip_len(t);
	size_t total = pkt_len(iplen, hop_cap) + HPCC_INTMD_HDR_LEN;
	uint8_t *ip = buf, *th = ip + iplen, *s = th + HPCC_TCP_LEN;
	uint8_t *h = s + HPCC_INTMD_HDR_LEN;

	if (!dscp || dscp > HPCC_DSCP_MAX || !hop_cap || hop_cap > HPCC_MAX_HOPS ||
	    !hops || hops > HPCC_MAX_HOPS || !tuple_ok(t))
		return 0;
	put_iph(ip, t, dscp, total, ip_id, 6);
	put_probe(th, h, t, hop_cap, probe_id, ts);
	memset(s, 0, HPCC_INTMD_HDR_LEN);
	s[0] = 1 << 4;				/* INT-MD, NPT 0 */
	s[1] = (HPCC_INTMD_HDR_LEN - 4) / 4;	/* header, empty stack */
	s[4] = 2 << 4;				/* version 2 */
	s[6] = HPCC_INTMD_HOP_LEN / 4;		/* Hop ML */
	s[7] = hops;				/* Remaining Hop Count */
	put16(s + 8, HPCC_INTMD_INSTRUCTIONS);
	put_tcp(ip, th, total - iplen, t->family == AF_INET6);
	return total;
}

size_t hpcc_build_probe_ifa(void *buf, const struct hpcc_tuple *t,
			    uint8_t dscp, uint8_t proto, uint8_t hops,
			    uint64_t probe_id, uint64_t ts, uint16_t ip_id)
{
	/* room for the response (hpcc_wire.h) */
	uint8_t hop_cap = hops < 2 ? 2 : hops;
	size_t iplen = ip_len(t);
	size_t total = pkt_len(iplen, hop_cap) + 8;
	uint8_t *ip = buf, *f = ip + iplen, *th = f + 4;
	uint8_t *m = th + HPCC_TCP_LEN, *h = m + 4;

	if (!dscp || dscp > HPCC_DSCP_MAX || !hpcc_wire_ifa_protocol_ok(proto) ||
	    !hops || hops > HPCC_MAX_HOPS || !tuple_ok(t))
		return 0;
	put_iph(ip, t, dscp, total, ip_id, proto);
	put_probe(th, h, t, hop_cap, probe_id, ts);
	f[0] = 2 << 4 | 0xf;			/* version 2, GNS: local */
	f[1] = 6;				/* TCP */
	f[2] = 0;				/* no flags */
	f[3] = (uint8_t)(hops * 8);		/* Max Length, words */
	m[0] = 0;				/* Request Vector */
	m[1] = 0;				/* Action Vector */
	m[2] = hops;				/* Hop Limit */
	m[3] = 0;				/* Current Length */
	put_tcp(ip, th, total - iplen - 4, t->family == AF_INET6);
	return total;
}

size_t hpcc_build_probe_ioam(void *buf, const struct hpcc_tuple *t,
			     uint8_t dscp, uint16_t ns_id, uint8_t nodes,
			     uint64_t probe_id, uint64_t ts)
{
	size_t data = (size_t)nodes * HPCC_IOAM_NODE_LEN;
	size_t hbh = (16 + data + 7) / 8 * 8, total;
	/* room for the response (hpcc_wire.h) */
	uint8_t hop_cap = nodes < 2 ? 2 : nodes;
	uint8_t *ip = buf, *o, *th, *h;

	if (t->family != AF_INET6 || !dscp || dscp > HPCC_DSCP_MAX || !nodes ||
	    nodes > HPCC_MAX_HOPS || !tuple_ok(t))
		return 0;
	total = HPCC_IP6_LEN + hbh + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN +
		(size_t)hop_cap * HPCC_WIRE_HOP_LEN;
	put_ip6(ip, t, dscp, total, 0);		/* hop-by-hop options */
	o = ip + HPCC_IP6_LEN;
	memset(o, 0, hbh);
	o[0] = 6;				/* then TCP */
	o[1] = (uint8_t)(hbh / 8 - 1);
	o[2] = 1;				/* PadN, 0 bytes of data */
	o[3] = 0;
	o[4] = 0x31;				/* IOAM */
	o[5] = (uint8_t)(2 + 8 + data);
	o[7] = 0;				/* pre-allocated trace */
	put16(o + 8, ns_id);
	o[10] = (HPCC_IOAM_NODE_LEN / 4) << 3;	/* NodeLen, no flag */
	o[11] = (uint8_t)(data / 4);		/* RemainingLen */
	o[12] = HPCC_IOAM_TRACE_TYPE >> 16;
	o[13] = (HPCC_IOAM_TRACE_TYPE >> 8) & 0xff;
	o[14] = HPCC_IOAM_TRACE_TYPE & 0xff;
	if (hbh > 16 + data) {			/* PadN to 8n */
		o[16 + data] = 1;
		o[16 + data + 1] = (uint8_t)(hbh - 16 - data - 2);
	}
	th = o + hbh;
	h = th + HPCC_TCP_LEN;
	put_probe(th, h, t, hop_cap, probe_id, ts);
	put_tcp(ip, th, total - HPCC_IP6_LEN - hbh, true);
	return total;
}

size_t hpcc_build_response(void *buf, const struct hpcc_pkt *probe,
			   uint8_t dscp, uint16_t ip_id, uint32_t n_flows)
{
	struct hpcc_resp_opt o = { .n_flows = n_flows };

	return hpcc_build_response_opt(buf, probe, dscp, ip_id, &o);
}

size_t hpcc_build_response_opt(void *buf, const struct hpcc_pkt *probe,
			       uint8_t dscp, uint16_t ip_id,
			       const struct hpcc_resp_opt *o)
{
	uint8_t nhop = o->mode & HPCC_WIRE_MODE_PRIVATE ? 0 : probe->nhop;
	uint8_t hop_cap = nhop ? nhop : 1;
	struct hpcc_tuple back;
	size_t iplen, total;
	uint8_t *ip = buf, *th, *h, *ext;
	uint8_t i;

	hpcc_tuple_reverse(&back, &probe->tuple);
	iplen = ip_len(&back);
	total = pkt_len(iplen, hop_cap) +
		(o->n_flows ? HPCC_WIRE_EXT_LEN : 0) +
		(o->mode ? HPCC_WIRE_EXT_LEN : 0) +
		(o->w ? HPCC_WIRE_EXT_LEN : 0) +
		(o->has_u ? HPCC_WIRE_EXT_LEN : 0) +
		(o->mac_key_id ? HPCC_WIRE_EXT_MAC_LEN : 0);
	th = ip + iplen;
	h = th + HPCC_TCP_LEN;
	ext = h + HPCC_WIRE_HDR_LEN + (size_t)hop_cap * HPCC_WIRE_HOP_LEN;
	if (probe->type != HPCC_WIRE_PROBE || !dscp || dscp > HPCC_DSCP_MAX ||
	    nhop > HPCC_MAX_HOPS || !tuple_ok(&back))
		return 0;
	put_iph(ip, &back, dscp, total, ip_id, 6);
	memcpy(th, &back.sport, 2);
	memcpy(th + 2, &back.dport, 2);
	put_hdr(h, HPCC_WIRE_RESPONSE, nhop, hop_cap, probe->probe_id,
		probe->ts);
	memset(h + HPCC_WIRE_HDR_LEN, 0, (size_t)hop_cap * HPCC_WIRE_HOP_LEN);
	for (i = 0; i < nhop; i++)
		put_hop(h + HPCC_WIRE_HDR_LEN + (size_t)i * HPCC_WIRE_HOP_LEN,
			&probe->hops[i]);
	if (o->n_flows) {
		put_ext(ext, HPCC_WIRE_EXT_N_FLOWS,
			o->n_flows > HPCC_N_FLOWS_MAX ? HPCC_N_FLOWS_MAX : o->n_flows);
		ext += HPCC_WIRE_EXT_LEN;
	}
	if (o->mode) {
		put_ext(ext, HPCC_WIRE_EXT_MODE, o->mode);
		ext += HPCC_WIRE_EXT_LEN;
	}
	if (o->w) {
		put_ext(ext, HPCC_WIRE_EXT_W,
			o->w > HPCC_WIRE_W_MAX ? HPCC_WIRE_W_MAX : o->w);
		ext += HPCC_WIRE_EXT_LEN;
	}
	if (o->has_u) {
		put_ext(ext, HPCC_WIRE_EXT_U, o->u);
		ext += HPCC_WIRE_EXT_LEN;
	}
	if (o->mac_key_id) {
		put_ext(ext, HPCC_WIRE_EXT_MAC, o->mac_key_id);
		ext[1] = HPCC_WIRE_EXT_MAC_LEN;
		memset(ext + HPCC_WIRE_EXT_LEN, 0, HPCC_WIRE_MAC_TAG_LEN);
	}
	put_tcp(ip, th, total - iplen, back.family == AF_INET6);
	return total;
}

void hpcc_tcp_csum_update(void *buf, size_t len)
{
	uint8_t *ip = buf;
	bool v6 = ip[0] >> 4 == 6;
	size_t iplen = v6 ? HPCC_IP6_LEN : HPCC_IP_LEN;

	if (len < iplen + HPCC_TCP_LEN)
		return;
	put_tcp(ip, ip + iplen, len - iplen, v6);
}

/*
 * The extensions in the @rest bytes after the records (struct
 * hpcc_wire_ext): each at least 8 bytes, a multiple of 4, inside @rest;
 * at most HPCC_WIRE_EXT_MAX bytes of them, so a walk is bounded.  Unknown
 * kinds are skipped.  Bytes after the records that cannot hold an
 * extension header (fewer than 4) are padding and ignored, as a version-1
 * parser ignores everything there.
 */
struct ext_vals {
	uint32_t n_flows;
	uint32_t mode;
	uint32_t w;
	bool has_u;
	uint32_t u;
	uint32_t mac_key_id;
	const uint8_t *mac;
};

static enum hpcc_parse_err parse_ext(const uint8_t *e, size_t rest,
				     struct ext_vals *x)
{
	size_t elen;
	uint32_t v;

	if (rest > HPCC_WIRE_EXT_MAX)
		return HPCC_PARSE_EXT;
	while (rest >= 4) {
		elen = e[1];
		if (elen < HPCC_WIRE_EXT_LEN || elen % 4 || elen > rest)
			return HPCC_PARSE_EXT;
		v = hpcc_get32(e + 4);
		switch (e[0]) {
		case HPCC_WIRE_EXT_N_FLOWS:
			if (!v || v > HPCC_N_FLOWS_MAX)
				return HPCC_PARSE_EXT;
			x->n_flows = v;
			break;
		case HPCC_WIRE_EXT_MODE:
			x->mode = v;
			break;
		case HPCC_WIRE_EXT_W:
			if (!v || v > HPCC_WIRE_W_MAX)
				return HPCC_PARSE_EXT;
			x->w = v;
			break;
		case HPCC_WIRE_EXT_U:
			x->has_u = true;
			x->u = v;
			break;
		case HPCC_WIRE_EXT_MAC:
			/* the last extension: nothing after it is covered */
			if (elen != HPCC_WIRE_EXT_MAC_LEN || rest != elen || !v)
				return HPCC_PARSE_EXT;
			x->mac_key_id = v;
			x->mac = e;
			break;
		}
		e += elen;
		rest -= elen;
	}
	return HPCC_PARSE_OK;
}

/*
 * The IPv4 header of @ip (@len bytes, at least HPCC_IP_LEN): *@ihl its
 * length, *@total the packet's.
 */
static enum hpcc_parse_err parse_ip4(const uint8_t *ip, size_t len,
				     size_t *ihl, size_t *total, uint8_t *proto)
{
	*ihl = (size_t)(ip[0] & 0xf) * 4;
	if (*ihl < HPCC_IP_LEN)
		return HPCC_PARSE_IP_VERSION;
	*total = hpcc_get16(ip + 2);
	if (*total > len || *total < *ihl + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN)
		return HPCC_PARSE_IP_LEN;
	if (csum_add(0, ip, *ihl) != 0xffff)
		return HPCC_PARSE_IP_CSUM;
	if (hpcc_get16(ip + 6) & 0x3fff)
		return HPCC_PARSE_FRAGMENT;
	*proto = ip[9];
	return HPCC_PARSE_OK;
}

/*
 * The IPv6 header of @ip (@len bytes, at least HPCC_IP6_LEN) and its
 * extension headers, walked as kernel/common/hpcc_wire_check.h's hpcc_wire_ipv6_l4()
 * walks them: *@ihl the offset of the TCP header, *@total the packet's
 * length.
 */
/*
 * The IOAM option in the hop-by-hop header at @off (@hlen bytes, within
 * the packet) of @ip: its offset and length in *@ioam_off, *@ioam_len, if
 * there is one whose length fits the header.  The first pre-allocated
 * trace (IOAM option type 0, RFC 9486 section 3: the byte after the
 * option's reserved byte) wins, so one behind an incremental trace or
 * another IOAM option is still found; without one, the first IOAM option
 * (which hpcc_decode_ioam() refuses and hpccd counts).
 */
static void find_ioam(const uint8_t *ip, size_t off, size_t hlen,
		      uint16_t *ioam_off, uint16_t *ioam_len)
{
	size_t o = off + 2, end = off + hlen;

	while (o < end) {
		if (ip[o] == 0) {		/* Pad1 */
			o++;
			continue;
		}
		if (o + 2 > end || o + 2 + ip[o + 1] > end)
			return;
		if (ip[o] == 0x31) {
			/* option type 0: a pre-allocated trace */
			bool prealloc = ip[o + 1] >= 2 && !ip[o + 3];

			if (prealloc || !*ioam_off) {
				*ioam_off = (uint16_t)o;
				*ioam_len = (uint16_t)(2 + ip[o + 1]);
			}
			if (prealloc)
				return;
		}
		o += 2 + ip[o + 1];
	}
}

static enum hpcc_parse_err parse_ip6(const uint8_t *ip, size_t len,
				     size_t *ihl, size_t *total,
				     uint16_t *ioam_off, uint16_t *ioam_len,
				     uint8_t *proto)
{
	uint8_t nexthdr = ip[6];
	size_t off = HPCC_IP6_LEN;
	bool ext = true;
	int n;

	*total = HPCC_IP6_LEN + (size_t)hpcc_get16(ip + 4);
	if (*total > len)
		return HPCC_PARSE_IP_LEN;
	for (n = 0; ext; n++) {
		switch (nexthdr) {
		case 0:		/* hop-by-hop options */
		case 60:	/* destination options */
		case 43:	/* routing */
			break;
		case 44:	/* fragment */
		case 51:	/* AH */
		case 50:	/* ESP */
			return HPCC_PARSE_IP6_EXTHDR;
		default:	/* the upper layer: TCP, IFA, anything */
			ext = false;
			continue;
		}
		/* nexthdr, hdrlen (8-byte units beyond the first 8) and for
		 * a routing header its type and segments left
		 */
		if (n == HPCC_IP6_MAX_EXTHDRS || off + 8 > *total ||
		    (nexthdr == 43 && ip[off + 3]))
			return HPCC_PARSE_IP6_EXTHDR;
		if (!n && !nexthdr &&
		    off + ((size_t)ip[off + 1] + 1) * 8 <= *total)
			find_ioam(ip, off, ((size_t)ip[off + 1] + 1) * 8,
				  ioam_off, ioam_len);
		nexthdr = ip[off];
		off += ((size_t)ip[off + 1] + 1) * 8;
	}
	if (*total < off + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN)
		return HPCC_PARSE_IP_LEN;
	*ihl = off;
	*proto = nexthdr;
	return HPCC_PARSE_OK;
}

enum hpcc_parse_err hpcc_parse(const void *buf, size_t len,
			       struct hpcc_pkt *pkt)
{
	struct ext_vals x = { 0 };
	const uint8_t *ip = buf, *th, *h;
	size_t ihl = 0, total = 0, doff, rest, int_len = 0, int_off = 0;
	size_t ifa_off = 0, ifa_len = 0;
	uint8_t proto = 6;
	enum hpcc_parse_err err;
	uint16_t ioam_off = 0, ioam_len = 0;
	bool v6;
	uint8_t i;

	if (len < HPCC_IP_LEN + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN)
		return HPCC_PARSE_SHORT;
	v6 = ip[0] >> 4 == 6;
	if (v6 && len < HPCC_IP6_LEN + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN)
		return HPCC_PARSE_SHORT;
	if (v6)
		err = parse_ip6(ip, len, &ihl, &total, &ioam_off, &ioam_len,
				&proto);
	else if (ip[0] >> 4 == 4)
		err = parse_ip4(ip, len, &ihl, &total, &proto);
	else
		err = HPCC_PARSE_IP_VERSION;
	if (err)
		return err;
	/* not TCP: an IFA probe's IFA header (version 2, next header TCP),
	 * whatever protocol number marks IFA (the caller checks it)
	 */
	if (proto != 6) {
		if (total < ihl + 4 + HPCC_TCP_LEN + HPCC_WIRE_HDR_LEN ||
		    ip[ihl] >> 4 != 2 || ip[ihl + 1] != 6)
			return HPCC_PARSE_NOT_TCP;
		ifa_off = ihl;
		ihl += 4;
	}
	th = ip + ihl;
	doff = (size_t)(th[12] >> 4) * 4;
	if (doff < HPCC_TCP_LEN || ihl + doff + HPCC_WIRE_HDR_LEN > total)
		return HPCC_PARSE_TCP_DOFF;
	/* seq, ack, reserved bits and flags, window, urgent pointer */
	if (hpcc_get32(th + 4) || hpcc_get32(th + 8) || (th[12] & 0x0f) || th[13] ||
	    hpcc_get16(th + 14) || hpcc_get16(th + 18))
		return HPCC_PARSE_TCP_FIELDS;
	h = th + doff;
	if (ifa_off) {
		/* the IFA metadata header (Current Length in words: whole
		 * 32-byte hops) and stack before the HPCC header
		 */
		if (ihl + doff + 4 + HPCC_WIRE_HDR_LEN > total)
			return HPCC_PARSE_IFA;
		ifa_len = ihl - ifa_off + doff + 4 + (size_t)h[3] * 4;
		if ((h[3] * 4) % 32 ||
		    ifa_off + ifa_len + HPCC_WIRE_HDR_LEN > total)
			return HPCC_PARSE_IFA;
		h = ip + ifa_off + ifa_len;
	} else if (h[0] >> 4 == 1) {
		/* an INT-MD shim (type 1; the HPCC magic starts with type
		 * 4), its header and stack before a probe's HPCC header
		 */
		int_len = 4 + (size_t)h[1] * 4;
		if ((h[0] >> 2) & 3 || h[1] * 4 < 12 ||
		    ihl + doff + int_len + HPCC_WIRE_HDR_LEN > total)
			return HPCC_PARSE_INT;
		int_off = ihl + doff;
		h += int_len;
	}
	rest = total - (size_t)(h - ip) - HPCC_WIRE_HDR_LEN;
	if (hpcc_get32(h) != HPCC_WIRE_MAGIC)
		return HPCC_PARSE_MAGIC;
	if (h[4] != HPCC_WIRE_VERSION)
		return HPCC_PARSE_VERSION;
	if (h[5] != HPCC_WIRE_PROBE && h[5] != HPCC_WIRE_RESPONSE)
		return HPCC_PARSE_TYPE;
	if (int_len && h[5] != HPCC_WIRE_PROBE)	/* hops stamp probes only */
		return HPCC_PARSE_INT;
	if (ifa_off && h[5] != HPCC_WIRE_PROBE)
		return HPCC_PARSE_IFA;
	if (!h[7] || h[7] > HPCC_MAX_HOPS)
		return HPCC_PARSE_HOP_CAP;
	if (h[6] > h[7])
		return HPCC_PARSE_NHOP;
	if (rest < (size_t)h[7] * HPCC_WIRE_HOP_LEN)
		return HPCC_PARSE_TRUNCATED;
	if (parse_ext(h + HPCC_WIRE_HDR_LEN + (size_t)h[7] * HPCC_WIRE_HOP_LEN,
		      rest - (size_t)h[7] * HPCC_WIRE_HOP_LEN, &x))
		return HPCC_PARSE_EXT;

	memset(pkt, 0, sizeof(*pkt));
	if (v6) {
		pkt->tuple.family = AF_INET6;
		memcpy(pkt->tuple.saddr6, ip + 8, 16);
		memcpy(pkt->tuple.daddr6, ip + 24, 16);
		pkt->tuple.flowlabel = hpcc_get32(ip) & 0xfffff;
		pkt->dscp = (hpcc_get16(ip) >> 4 & 0xff) >> 2;
	} else {
		pkt->tuple.family = AF_INET;
		memcpy(&pkt->tuple.saddr, ip + 12, 4);
		memcpy(&pkt->tuple.daddr, ip + 16, 4);
		pkt->dscp = ip[1] >> 2;
	}
	memcpy(&pkt->tuple.sport, th, 2);
	memcpy(&pkt->tuple.dport, th + 2, 2);
	pkt->type = h[5];
	pkt->nhop = h[6];
	pkt->hop_cap = h[7];
	pkt->probe_id = hpcc_get64(h + 8);
	pkt->ts = hpcc_get64(h + 16);
	pkt->n_flows = x.n_flows;
	pkt->mode = (uint8_t)(x.mode & (HPCC_WIRE_MODE_RX |
					HPCC_WIRE_MODE_REFUSED |
					HPCC_WIRE_MODE_PRIVATE |
					HPCC_WIRE_MODE_U));
	pkt->w_rx = x.w;
	pkt->has_u = x.has_u;
	pkt->u_rx = x.u;
	pkt->mac_key_id = x.mac_key_id;
	pkt->mac_off = x.mac ? (uint16_t)(x.mac - ip) : 0;
	pkt->hdr_off = (uint16_t)(h - ip);
	pkt->ioam_off = ioam_off;
	pkt->ioam_len = ioam_len;
	pkt->int_off = (uint16_t)int_off;
	pkt->int_len = (uint16_t)int_len;
	pkt->ifa_off = (uint16_t)ifa_off;
	pkt->ifa_len = (uint16_t)ifa_len;
	pkt->ifa_proto = ifa_off ? proto : 0;
	for (i = 0; i < pkt->nhop; i++)
		get_hop(h + HPCC_WIRE_HDR_LEN + (size_t)i * HPCC_WIRE_HOP_LEN,
			&pkt->hops[i]);
	return HPCC_PARSE_OK;
}

void hpcc_tuple_reverse(struct hpcc_tuple *r, const struct hpcc_tuple *t)
{
	*r = *t;
	r->saddr = t->daddr;
	r->daddr = t->saddr;
	memcpy(r->saddr6, t->daddr6, 16);
	memcpy(r->daddr6, t->saddr6, 16);
	r->sport = t->dport;
	r->dport = t->sport;
}

const char *hpcc_parse_err_name(enum hpcc_parse_err e)
{
	static const char *const names[HPCC_PARSE_NUM] = {
		[HPCC_PARSE_OK] = "ok",
		[HPCC_PARSE_SHORT] = "short",
		[HPCC_PARSE_IP_VERSION] = "ip-version",
		[HPCC_PARSE_IP_LEN] = "ip-len",
		[HPCC_PARSE_IP_CSUM] = "ip-csum",
		[HPCC_PARSE_FRAGMENT] = "fragment",
		[HPCC_PARSE_NOT_TCP] = "not-tcp",
		[HPCC_PARSE_TCP_DOFF] = "tcp-doff",
		[HPCC_PARSE_TCP_FIELDS] = "tcp-fields",
		[HPCC_PARSE_MAGIC] = "magic",
		[HPCC_PARSE_VERSION] = "version",
		[HPCC_PARSE_TYPE] = "type",
		[HPCC_PARSE_HOP_CAP] = "hop-cap",
		[HPCC_PARSE_NHOP] = "nhop",
		[HPCC_PARSE_TRUNCATED] = "truncated",
		[HPCC_PARSE_EXT] = "ext",
		[HPCC_PARSE_IP6_EXTHDR] = "ip6-exthdr",
		[HPCC_PARSE_INT] = "int-shim",
		[HPCC_PARSE_IFA] = "ifa",
	};

	return (unsigned int)e < HPCC_PARSE_NUM ? names[e] : "?";
}
