// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_fcr.c - the Fast Congestion Response codec, managed prefixes and hold
 * set (hpcc_fcr.h), compiled by both modules and by userspace.
 */

#include "hpcc_fcr.h"

/**
 * hpcc_fcr_get_addrs() - a message's flow addresses, checked against its
 *	family (FCR and CCM messages carry them alike)
 * @s: the source address on the wire, 16 bytes
 * @d: the destination address on the wire, 16 bytes
 * @family: the message's family
 * @saddr: filled with @s when @family is 4 or 6
 * @daddr: filled with @d, the same way
 *
 * Return: true for family 4 with both addresses IPv4-mapped or family 6
 * with neither; false otherwise.
 */
bool hpcc_fcr_get_addrs(const u8 *s, const u8 *d, u8 family,
			u8 *saddr, u8 *daddr)
{
	bool v4 = family == 4;
	int i;

	if (family != 4 && family != 6)
		return false;
	for (i = 0; i < 16; i++) {
		saddr[i] = s[i];
		daddr[i] = d[i];
	}
	return v4 == hpcc_fcr_mapped(saddr) && v4 == hpcc_fcr_mapped(daddr);
}

/**
 * hpcc_fcr_decode() - read an FCR message
 * @b: the UDP payload, or its first @len bytes as read from the packet
 * @len: the bytes at @b; bytes after HPCC_WIRE_FCR_LEN are ignored
 * @m: filled when the message is valid
 *
 * Return: enum hpcc_fcr_err; HPCC_FCR_OK (0) for a message whose header is
 * an FCR's, whose family and addresses agree and whose rate and interval
 * are within the wire format's ranges.  The flags byte is ignored.  Whether
 * the sender expects such a rate and has such a flow is the caller's check.
 */
int hpcc_fcr_decode(const u8 *b, unsigned int len,
		    struct hpcc_fcr_msg *m)
{
	if (len < HPCC_WIRE_FCR_LEN)
		return HPCC_FCR_E_SHORT;
	if (hpcc_fcr_get32(b + HPCC_FCR_O_MAGIC) != HPCC_WIRE_MAGIC ||
	    b[HPCC_FCR_O_VERSION] != HPCC_WIRE_VERSION ||
	    b[HPCC_FCR_O_TYPE] != HPCC_WIRE_FCR)
		return HPCC_FCR_E_HEADER;
	m->family = b[HPCC_FCR_O_FAMILY];
	if (!hpcc_fcr_get_addrs(b + HPCC_FCR_O_SADDR, b + HPCC_FCR_O_DADDR,
				m->family, m->saddr, m->daddr))
		return HPCC_FCR_E_FAMILY;
	m->rate = hpcc_fcr_get64(b + HPCC_FCR_O_RATE);
	if (!m->rate || m->rate > HPCC_RATE_MAX)
		return HPCC_FCR_E_RATE;
	m->interval = hpcc_fcr_get32(b + HPCC_FCR_O_INTERVAL);
	if (!m->interval || m->interval > HPCC_FCR_INTERVAL_MAX)
		return HPCC_FCR_E_INTERVAL;
	m->switch_id = hpcc_fcr_get32(b + HPCC_FCR_O_SWITCH);
	m->port_id = hpcc_fcr_get32(b + HPCC_FCR_O_PORT);
	m->ts = hpcc_fcr_get64(b + HPCC_FCR_O_TS);
	m->seq = hpcc_fcr_get32(b + HPCC_FCR_O_SEQ);
	m->round = hpcc_fcr_get32(b + HPCC_FCR_O_ROUND);
	m->sport = hpcc_fcr_get16(b + HPCC_FCR_O_SPORT);
	m->dport = hpcc_fcr_get16(b + HPCC_FCR_O_DPORT);
	return HPCC_FCR_OK;
}

/**
 * hpcc_fcr_encode() - write an FCR message
 * @b: HPCC_WIRE_FCR_LEN bytes
 * @m: the message; its fields are written as they are (the hop that sends
 *	it keeps them in range)
 */
void hpcc_fcr_encode(u8 *b, const struct hpcc_fcr_msg *m)
{
	int i;

	hpcc_fcr_put32(b + HPCC_FCR_O_MAGIC, HPCC_WIRE_MAGIC);
	b[HPCC_FCR_O_VERSION] = HPCC_WIRE_VERSION;
	b[HPCC_FCR_O_TYPE] = HPCC_WIRE_FCR;
	b[HPCC_FCR_O_FAMILY] = m->family;
	b[HPCC_FCR_O_FLAGS] = 0;
	hpcc_fcr_put32(b + HPCC_FCR_O_SWITCH, m->switch_id);
	hpcc_fcr_put32(b + HPCC_FCR_O_PORT, m->port_id);
	hpcc_fcr_put64(b + HPCC_FCR_O_RATE, m->rate);
	hpcc_fcr_put64(b + HPCC_FCR_O_TS, m->ts);
	hpcc_fcr_put32(b + HPCC_FCR_O_SEQ, m->seq);
	hpcc_fcr_put32(b + HPCC_FCR_O_ROUND, m->round);
	hpcc_fcr_put16(b + HPCC_FCR_O_SPORT, m->sport);
	hpcc_fcr_put16(b + HPCC_FCR_O_DPORT, m->dport);
	hpcc_fcr_put32(b + HPCC_FCR_O_INTERVAL, m->interval);
	for (i = 0; i < 16; i++) {
		b[HPCC_FCR_O_SADDR + i] = m->saddr[i];
		b[HPCC_FCR_O_DADDR + i] = m->daddr[i];
	}
}

/**
 * hpcc_fcr_prefix_match() - whether @a lies in prefix @p
 * @a: an address, IPv6 or IPv4-mapped
 * @p: the prefix
 *
 * Return: true when the first @p->plen bits of @a are @p->addr's.
 */
bool hpcc_fcr_prefix_match(const u8 *a,
			   const struct hpcc_fcr_prefix *p)
{
	unsigned int bits = p->plen > 128 ? 128 : p->plen;
	unsigned int i;

	for (i = 0; i < bits / 8; i++)
		if (a[i] != p->addr[i])
			return false;
	if (bits % 8) {
		u8 mask = (u8)(0xff00 >> (bits % 8));

		if ((a[i] ^ p->addr[i]) & mask)
			return false;
	}
	return true;
}

/**
 * hpcc_fcr_in_domain() - whether @a lies in one of @n prefixes
 * @a: an address, IPv6 or IPv4-mapped
 * @p: the managed prefixes
 * @n: how many, 0 to HPCC_FCR_PREFIXES; with 0 nothing is in the domain
 *
 * Return: true when a prefix holds @a.
 */
bool hpcc_fcr_in_domain(const u8 *a,
			const struct hpcc_fcr_prefix *p,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (hpcc_fcr_prefix_match(a, &p[i]))
			return true;
	return false;
}

/**
 * hpcc_fcr_hold_put() - take a valid message into a flow's holds
 * @h: the flow's HPCC_FCR_HOLDS holds
 * @m: the message
 * @now: the time, ns
 * @hold_max: the longest a rate is held, ns
 *
 * A port's newer round replaces its older one (rounds compare in serial
 * number arithmetic); another port's message takes a free or expired slot,
 * or the slot of the highest rate when that is higher: the lowest rates are
 * the ones that matter (section 4).
 *
 * Replays: a slot keeps its port's round and sequence number after its
 * hold ends, until another port takes it.  A message of that port with a
 * round not newer is refused while the hold is in force, and after it
 * ended too unless its sequence number is after the slot's (a hop that
 * restarted its rounds names later data): so a captured message, signed
 * or not, cannot be replayed to hold its rate again once the hold ended.
 * The caller has checked the sequence number against the flow's window.
 *
 * Return: enum hpcc_fcr_put_res.
 */
int hpcc_fcr_hold_put(struct hpcc_fcr_hold *h,
		      const struct hpcc_fcr_msg *m, u64 now,
		      u64 hold_max)
{
	u64 hold = (u64)m->interval * 2000;
	int i, free = -1, high = 0;
	int res = HPCC_FCR_PUT_NEW;

	for (i = 0; i < HPCC_FCR_HOLDS; i++) {
		bool live = h[i].rate && h[i].until > now;

		if (h[i].until && h[i].switch_id == m->switch_id &&
		    h[i].port_id == m->port_id) {
			if ((s32)(m->round - h[i].round) <= 0 &&
			    (live || (s32)(m->seq - h[i].seq) <= 0))
				return HPCC_FCR_PUT_OLD;
			free = i;
			res = live ? HPCC_FCR_PUT_UPDATED : HPCC_FCR_PUT_NEW;
			break;
		}
		if (free < 0 && !live)
			free = i;
		if (h[i].rate > h[high].rate)
			high = i;
	}
	if (free < 0) {
		if (h[high].rate <= m->rate)
			return HPCC_FCR_PUT_FULL;
		free = high;
		res = HPCC_FCR_PUT_REPLACED;
	}
	h[free].switch_id = m->switch_id;
	h[free].port_id = m->port_id;
	h[free].round = m->round;
	h[free].seq = m->seq;
	h[free].rate = m->rate;
	h[free].ts = m->ts;
	h[free].rx = now;
	h[free].until = now + (hold < hold_max ? hold : hold_max);
	return res;
}

/**
 * hpcc_fcr_lowest() - the rate a flow must keep to: the lowest of its
 *	holds in force (section 4, "the NIC should use the lowest rate
 *	information from all received FCRs")
 * @h: the flow's HPCC_FCR_HOLDS holds
 * @now: the time, ns
 *
 * Return: bits per second; 0 when no hold is in force.
 */
u64 hpcc_fcr_lowest(const struct hpcc_fcr_hold *h, u64 now)
{
	u64 low = 0;
	int i;

	for (i = 0; i < HPCC_FCR_HOLDS; i++)
		if (h[i].rate && h[i].until > now && (!low || h[i].rate < low))
			low = h[i].rate;
	return low;
}
