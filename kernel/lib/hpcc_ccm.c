// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_ccm.c - the Coordinated Congestion Management notification codec and
 * the host's coordination rule (hpcc_ccm.h), compiled by both modules
 * and by userspace.
 */

#include "hpcc_ccm.h"

/**
 * hpcc_ccm_decode() - read a CCM notification
 * @b: the UDP payload
 * @len: its length, bytes; bytes after HPCC_WIRE_CCM_LEN are ignored
 * @m: filled when the notification is valid
 *
 * Return: enum hpcc_ccm_err; HPCC_CCM_OK (0) for a notification whose
 * header is a CCM notification's, whose type is one of the three, whose
 * family, addresses and flow label agree and whose protocol is TCP.  The
 * flags and reserved bytes are ignored.  Whether the receiver has such a
 * flow and the sequence number lies in its window is the caller's check.
 */
int hpcc_ccm_decode(const u8 *b, unsigned int len,
		    struct hpcc_ccm_msg *m)
{
	if (len < HPCC_WIRE_CCM_LEN)
		return HPCC_CCM_E_SHORT;
	if (hpcc_fcr_get32(b + HPCC_CCM_O_MAGIC) != HPCC_WIRE_MAGIC ||
	    b[HPCC_CCM_O_VERSION] != HPCC_WIRE_VERSION ||
	    b[HPCC_CCM_O_TYPE] != HPCC_WIRE_CCM)
		return HPCC_CCM_E_HEADER;
	m->ntype = b[HPCC_CCM_O_NTYPE];
	if (m->ntype < HPCC_CCM_CC_REQUIRED || m->ntype > HPCC_CCM_AR_REQUIRED)
		return HPCC_CCM_E_NTYPE;
	m->family = b[HPCC_CCM_O_FAMILY];
	if (!hpcc_fcr_get_addrs(b + HPCC_CCM_O_SADDR, b + HPCC_CCM_O_DADDR,
				m->family, m->saddr, m->daddr))
		return HPCC_CCM_E_FAMILY;
	if (b[HPCC_CCM_O_PROTO] != HPCC_CCM_PROTO_TCP)
		return HPCC_CCM_E_PROTO;
	m->flowlabel = hpcc_fcr_get32(b + HPCC_CCM_O_LABEL);
	if (m->flowlabel > HPCC_CCM_LABEL_MAX ||
	    (m->family == 4 && m->flowlabel))
		return HPCC_CCM_E_LABEL;
	m->switch_id = hpcc_fcr_get32(b + HPCC_CCM_O_SWITCH);
	m->port_id = hpcc_fcr_get32(b + HPCC_CCM_O_PORT);
	m->ts = hpcc_fcr_get64(b + HPCC_CCM_O_TS);
	m->seq = hpcc_fcr_get32(b + HPCC_CCM_O_SEQ);
	m->sport = hpcc_fcr_get16(b + HPCC_CCM_O_SPORT);
	m->dport = hpcc_fcr_get16(b + HPCC_CCM_O_DPORT);
	return HPCC_CCM_OK;
}

/**
 * hpcc_ccm_encode() - write a CCM notification
 * @b: HPCC_WIRE_CCM_LEN bytes
 * @m: the notification; its fields are written as they are (the hop that
 *	sends it keeps them in range), protocol TCP, flags and reserved 0
 */
void hpcc_ccm_encode(u8 *b, const struct hpcc_ccm_msg *m)
{
	int i;

	hpcc_fcr_put32(b + HPCC_CCM_O_MAGIC, HPCC_WIRE_MAGIC);
	b[HPCC_CCM_O_VERSION] = HPCC_WIRE_VERSION;
	b[HPCC_CCM_O_TYPE] = HPCC_WIRE_CCM;
	b[HPCC_CCM_O_FAMILY] = m->family;
	b[HPCC_CCM_O_NTYPE] = m->ntype;
	hpcc_fcr_put32(b + HPCC_CCM_O_SWITCH, m->switch_id);
	hpcc_fcr_put32(b + HPCC_CCM_O_PORT, m->port_id);
	hpcc_fcr_put64(b + HPCC_CCM_O_TS, m->ts);
	hpcc_fcr_put32(b + HPCC_CCM_O_SEQ, m->seq);
	hpcc_fcr_put32(b + HPCC_CCM_O_LABEL, m->flowlabel);
	hpcc_fcr_put16(b + HPCC_CCM_O_SPORT, m->sport);
	hpcc_fcr_put16(b + HPCC_CCM_O_DPORT, m->dport);
	b[HPCC_CCM_O_PROTO] = HPCC_CCM_PROTO_TCP;
	b[HPCC_CCM_O_FLAGS] = 0;
	b[HPCC_CCM_O_RESERVED] = 0;
	b[HPCC_CCM_O_RESERVED + 1] = 0;
	for (i = 0; i < 16; i++) {
		b[HPCC_CCM_O_SADDR + i] = m->saddr[i];
		b[HPCC_CCM_O_DADDR + i] = m->daddr[i];
	}
}

/**
 * hpcc_ccm_gap() - how long @f's last path change keeps it from another, ns
 * @f: the flow's state
 * @c: the parameters
 * @rtt_ns: the flow's RTT, ns, below 2^40
 *
 * @c->gap_rtts RTTs after a change made with no other try in use,
 * doubling with each try in use up to 2^HPCC_CCM_BACKOFF_MAX times that:
 * changes that did not help come ever further apart, like PLB's rehash
 * after 12 congested rounds but without its fixed wait for the first one.
 *
 * Return: the gap, ns (below 2^58).
 */
u64 hpcc_ccm_gap(const struct hpcc_ccm_flow *f,
		 const struct hpcc_ccm_cfg *c, u64 rtt_ns)
{
	u32 k = f->tried > 1 ? f->tried - 1 : 0;

	if (k > HPCC_CCM_BACKOFF_MAX)
		k = HPCC_CCM_BACKOFF_MAX;
	return hpcc_ccm_base_gap(c, rtt_ns) << k;
}

/**
 * hpcc_ccm_refill() - give back one try once 2^HPCC_CCM_REFILL_SHIFT base
 *	gaps (@c->gap_rtts RTTs each) have passed since the later of the
 *	flow's last path change and its last try given back
 * @f: the flow's state, updated
 * @c: the parameters
 * @now: the time, ns
 * @rtt_ns: the flow's RTT, ns, below 2^40
 *
 * The tries are a budget, not a count per episode: a flow makes at most
 * @c->tries changes in a burst, and at most one per refill period after
 * that, however its congestion comes and goes.  With tries per episode
 * (an episode ending after a calm of one gap), each landing on a calm
 * path would start a new episode: flows on the leaf-spine changed paths
 * 2.4 times a second that way (bench-ccm's flap scenario).  A collision that
 * outlasts the tries still gets a try per refill period, as PLB rehashes
 * for as long as congestion persists.
 */
void hpcc_ccm_refill(struct hpcc_ccm_flow *f,
		     const struct hpcc_ccm_cfg *c,
		     u64 now, u64 rtt_ns)
{
	u64 from = f->last_change > f->refill_ts ? f->last_change :
		   f->refill_ts;

	if (f->tried && now >= from &&
	    now - from >= hpcc_ccm_base_gap(c, rtt_ns) << HPCC_CCM_REFILL_SHIFT) {
		f->tried--;
		f->refill_ts = now ? now : 1;
	}
}

/*
 * Whether @f may change its path at @now: a try left, not incast, not in
 * recovery or a pause, and the gap since its last change passed.
 */
bool hpcc_ccm_may_change(const struct hpcc_ccm_flow *f,
			 const struct hpcc_ccm_cfg *c,
			 u64 now, u64 rtt_ns, bool recovery)
{
	if (f->tried >= c->tries || f->cc || recovery ||
	    now < f->pause_until || hpcc_ccm_incast(f, c, now, rtt_ns))
		return false;
	return !f->last_change || now < f->last_change ||
	       now - f->last_change >= hpcc_ccm_gap(f, c, rtt_ns);
}

/**
 * hpcc_ccm_decide() - the coordination rule on one telemetry sample
 *	(CCM sections 5 and 6.4; HPCC++ section 9.4)
 * @f: the flow's state, updated
 * @c: the parameters
 * @s: the sample
 *
 * Incast (the CC indicator set; or, in this sample or the
 * 2^HPCC_CCM_INCAST_SHIFT base gaps before it, the binding hop the last
 * one or the last hop at eta or above), loss recovery, a pause after an
 * RTO, or @c->tries 0: HPCC's law.  Otherwise congestion in the fabric is
 * answered by path changes, while the flow has a try left
 * (hpcc_ccm_refill()): once the congestion has lasted @c->gap_rtts RTTs
 * under HPCC's law and @c->samples congested samples in a row, a
 * change, at once when @s->rnd's low bit is 0, else at the next
 * congested sample, and at the latest after 2 x @c->samples (so flows
 * that share a hop do not all leave it at the same sample); the next no
 * sooner than hpcc_ccm_gap() later
 * (@c->gap_rtts RTTs, doubling with each try in use).  The samples in
 * the first @c->gap_rtts RTTs after a change wait for the new path's
 * telemetry (no decrease), later ones run HPCC's law, and so do all
 * once the tries are used.  So a flow changes its path at most
 * @c->tries times in a burst, once per @c->gap_rtts
 * RTTs at most, and once per 2^HPCC_CCM_REFILL_SHIFT x @c->gap_rtts
 * RTTs over time.
 *
 * While the streak grows the law runs (HPCC_CCM_RATE): what HPCC's own
 * decrease removes within @c->gap_rtts RTTs is HPCC's to handle.  A rule
 * that held W there would make congestion of every U reading above 1:
 * on the leaf-spine, where U reads 1.0 to 1.4 at uplinks HPCC keeps near
 * 80 % of B, a single such sample would freeze W, U would stay above 1
 * for the whole gap, and the change would follow; with such a hold every
 * flow changed its path once per refill period for as long as it ran
 * (bench-ccm: 14 to 15 changes per flow in 25 s, the collision and the
 * flap alike).
 *
 * Return: enum hpcc_ccm_act; with HPCC_CCM_REROUTE the change is recorded
 * (the caller makes it).
 */
int hpcc_ccm_decide(struct hpcc_ccm_flow *f,
		    const struct hpcc_ccm_cfg *c,
		    const struct hpcc_ccm_sample *s)
{
	u32 need = c->samples ? c->samples : 1;

	hpcc_ccm_refill(f, c, s->now, s->rtt_ns);
	if (s->last_hop || s->last_busy)
		f->incast_ts = s->now ? s->now : 1;
	if (!s->congested) {
		f->streak = 0;
		return HPCC_CCM_RATE;
	}
	if (f->cc || hpcc_ccm_incast(f, c, s->now, s->rtt_ns) ||
	    s->recovery || !c->tries || s->now < f->pause_until) {
		f->streak = 0;
		return HPCC_CCM_RATE;
	}
	if (f->tried >= c->tries) {
		f->streak = 0;
		return hpcc_ccm_settling(f, c, s);
	}
	if (!f->streak)
		f->streak_ts = s->now;
	if (f->streak < 255)
		f->streak++;
	if (!hpcc_ccm_may_change(f, c, s->now, s->rtt_ns, false))
		return hpcc_ccm_settling(f, c, s);
	/* HPCC's law runs while the streak grows: only congestion the
	 * decrease does not remove is the path's
	 */
	if (f->streak < need || (f->streak < 2 * need && (s->rnd & 1)) ||
	    s->now - f->streak_ts < hpcc_ccm_base_gap(c, s->rtt_ns))
		return HPCC_CCM_RATE;
	hpcc_ccm_changed(f, s->now);
	return HPCC_CCM_REROUTE;
}

/**
 * hpcc_ccm_note() - a host's answer to a valid notification for one of its
 *	flows (CCM section 6.4)
 * @f: the flow's state, updated
 * @c: the parameters
 * @m: the notification
 * @now: the time, ns
 * @rtt_ns: the flow's RTT, ns
 * @recovery: the flow is in loss recovery
 * @label: the flow's current IPv6 flow label (0 for IPv4)
 * @busy: the notifying hop is not in the flow's telemetry (no telemetry
 *	yet, or a switch that sends notifications but stamps nothing: its
 *	word is taken), or the flow's U is at eta or above
 *
 * A type 3 changes the path under the host rule's limits
 * (hpcc_ccm_may_change()): a try left (hpcc_ccm_refill()), not incast by
 * its indicator or its telemetry, and the gap since the last change.
 * Without the tries, a hop that stays congested could move a flow at
 * every gap; without the telemetry, a flow the last hop holds back but
 * whose path also crosses a congested hop of the fabric (which sends the
 * type 3, not knowing the last hop's state) would move for nothing.  A
 * flow whose own telemetry covers the notifying hop and shows its path
 * below eta (!@busy) keeps it: the hop's queue was a burst, or the flow
 * is no longer where the queue was (on the leaf-spine, two of three type
 * 3 that moved flows found their U at 0.2 to 0.8, and they moved once per
 * refill period for as long as they ran: bench-ccm).
 *
 * Return: enum hpcc_ccm_note_res.
 */
int hpcc_ccm_note(struct hpcc_ccm_flow *f,
		  const struct hpcc_ccm_cfg *c,
		  const struct hpcc_ccm_msg *m, u64 now,
		  u64 rtt_ns, bool recovery, u32 label,
		  bool busy)
{
	switch (m->ntype) {
	case HPCC_CCM_CC_REQUIRED:
		if (f->cc)
			return HPCC_CCM_NOTE_IGNORED;
		f->cc = 1;
		f->streak = 0;
		return HPCC_CCM_NOTE_CC_SET;
	case HPCC_CCM_CC_RELEASED:
		if (!f->cc)
			return HPCC_CCM_NOTE_IGNORED;
		f->cc = 0;
		return HPCC_CCM_NOTE_CC_CLEARED;
	case HPCC_CCM_AR_REQUIRED:
		hpcc_ccm_refill(f, c, now, rtt_ns);
		if (!c->tries || m->flowlabel != label || !busy ||
		    !hpcc_ccm_may_change(f, c, now, rtt_ns, recovery))
			return HPCC_CCM_NOTE_IGNORED;
		hpcc_ccm_changed(f, now);
		return HPCC_CCM_NOTE_REROUTE;
	}
	return HPCC_CCM_NOTE_IGNORED;
}

/**
 * hpcc_ccm_ar_allow() - the hop's ccm-ar-gap: whether a port may send a
 *	type 3 now, whichever flow it is for (hpcc_int; the CCM draft's
 *	section 6.3.5 sends one per congested flow, and a port that told all
 *	its flows at once sent them together to the same other path)
 * @last: when the port last sent one, ns; 0: never; set to @now when
 *	allowed
 * @gap: ccm-ar-gap, ns; 0: no limit
 * @now: the time, ns, not 0
 *
 * Return: true: send it; false: held back (the caller counts it,
 * ccm-ar-limited, and the flow's next decision comes a ccm-interval
 * later).
 */
bool hpcc_ccm_ar_allow(u64 *last, u64 gap, u64 now)
{
	if (gap && *last && now - *last < gap)
		return false;
	*last = now;
	return true;
}

/**
 * hpcc_ccm_pend_put() - keep a valid notification until the flow acts
 * @p: the flow's pending notifications
 * @m: the notification, its sequence number in the flow's window (the
 *	caller's check, made before this one)
 *
 * A type 1 or 2 replaces a pending type 1 or 2: the newest says whether
 * the incast goes on.  A type 3 replaces a pending type 3: the newest
 * names the path.  So a burst of notifications between two ACKs costs
 * the flow at most one change of the CC indicator and one path change.
 *
 * Replays: a notification from the hop port of the last one taken, with
 * a ts not after that one's and a sequence number not after its (a copy,
 * or an older one of that hop), is refused and leaves what is pending as
 * it is.  A hop whose clock restarted names later data, and is taken.
 *
 * Return: true when taken; false for a replay.
 */
bool hpcc_ccm_pend_put(struct hpcc_ccm_pend *p,
		       const struct hpcc_ccm_msg *m)
{
	if (p->last_ts && p->last_switch == m->switch_id &&
	    p->last_port == m->port_id &&
	    (s64)(m->ts - p->last_ts) <= 0 && (s32)(m->seq - p->last_seq) <= 0)
		return false;
	p->last_switch = m->switch_id;
	p->last_port = m->port_id;
	p->last_seq = m->seq;
	p->last_ts = m->ts ? m->ts : 1;
	if (m->ntype == HPCC_CCM_AR_REQUIRED) {
		p->ar = 1;
		p->ar_seq = m->seq;
		p->ar_label = m->flowlabel;
		p->ar_switch = m->switch_id;
		p->ar_port = m->port_id;
	} else {
		p->cc = m->ntype;
		p->cc_seq = m->seq;
	}
	return true;
}

/**
 * hpcc_ccm_pend_take() - the pending notifications, in the order to act
 *	on them, and none left pending
 * @p: the flow's pending notifications, emptied
 * @out: filled with up to two notifications: the type 1 or 2 first, so
 *	that a flow a hop found incast is not moved by a type 3 that came
 *	with it (section 6.4: the CC indicator stops adaptive routing), then
 *	the type 3; only @ntype, @seq and, for the type 3, @flowlabel,
 *	@switch_id and @port_id are meaningful
 *
 * Return: the number of notifications in @out, 0 to 2.
 */
int hpcc_ccm_pend_take(struct hpcc_ccm_pend *p,
		       struct hpcc_ccm_msg out[2])
{
	int n = 0;

	if (p->cc) {
		out[n++] = (struct hpcc_ccm_msg){ .ntype = p->cc,
						  .seq = p->cc_seq };
	}
	if (p->ar) {
		out[n++] = (struct hpcc_ccm_msg){
			.ntype = HPCC_CCM_AR_REQUIRED,
			.seq = p->ar_seq,
			.flowlabel = p->ar_label,
			.switch_id = p->ar_switch,
			.port_id = p->ar_port,
		};
	}
	p->cc = 0;
	p->ar = 0;
	return n;
}
