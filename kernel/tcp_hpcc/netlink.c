// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the "hpcc" generic netlink family: telemetry in, flows,
 * parameters and counters out, flow events.  Described by
 * Documentation/netlink/specs/hpcc.yaml and include/uapi/linux/hpcc.h.
 *
 * Per network namespace (netnsok).  telemetry-set needs CAP_NET_ADMIN in
 * the user namespace owning the network namespace (GENL_UNS_ADMIN_PERM), and
 * so do joining the events group (where the kernel has
 * GENL_MCAST_CAP_NET_ADMIN) and reading a flow's sequence numbers in
 * flow-get (hpcc_nl_seq_allowed()): hpccd may run in a container.  params-set needs
 * CAP_NET_ADMIN in the initial user namespace (GENL_ADMIN_PERM): W_init,
 * W_max and max-flows bound what every new flow may take
 * (Documentation/admin-guide.rst, "Privileges and memory").  telemetry-set
 * and params-set parse their attributes themselves, strictly and with the
 * policies generated from the spec for them, so that every rejected request
 * is counted (stats rejected-* and params-rejected), policy failures
 * included; the ops table names the same policies otherwise, and
 * selftests/host/uapi.sh checks it against the ops ynl-gen-c generates.
 */

#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <linux/hpcc_wire.h>

#include "common/hpcc_compat.h"
#include "tcp_hpcc.h"
#include "common/hpcc_nl_prefix.h"

enum hpcc_nl_grp {
	HPCC_NLGRP_EVENTS,
};

static struct genl_family hpcc_genl_family;

/*
 * The policies, ranges included, are generated from the YNL spec
 * (tools/ynl-policy, `make uapi`): hpcc_hop_nl_policy and one per
 * operation that takes attributes.
 */
#include "nl_policy.h"

/*
 * The settable parameters and where struct hpcc_cfg keeps them: params-get
 * puts and params-set parses them from this one list.  The policy above
 * (params-set's, generated) holds their ranges and widths: NLA_U8 fields
 * are u8, the others u32.
 */
static const struct {
	u16 attr;
	u16 off;
} hpcc_nl_params[] = {
#define HPCC_NL_PARAM(a, f) { a, offsetof(struct hpcc_cfg, f) }
	HPCC_NL_PARAM(HPCC_A_PARAMS_T, t_us),
	HPCC_NL_PARAM(HPCC_A_PARAMS_ETA, eta_permille),
	HPCC_NL_PARAM(HPCC_A_PARAMS_MAX_STAGE, max_stage),
	HPCC_NL_PARAM(HPCC_A_PARAMS_W_AI, w_ai_bytes),
	HPCC_NL_PARAM(HPCC_A_PARAMS_LINE_RATE, line_rate_mbps),
	HPCC_NL_PARAM(HPCC_A_PARAMS_W_MIN, w_min_bytes),
	HPCC_NL_PARAM(HPCC_A_PARAMS_STALE_RTTS, stale_rtts),
	HPCC_NL_PARAM(HPCC_A_PARAMS_PROBE_DSCP, probe_dscp),
	HPCC_NL_PARAM(HPCC_A_PARAMS_RESPONSE_DSCP, response_dscp),
	HPCC_NL_PARAM(HPCC_A_PARAMS_MAX_FLOWS, max_flows),
	HPCC_NL_PARAM(HPCC_A_PARAMS_PACING_GAIN, pacing_gain_pct),
	HPCC_NL_PARAM(HPCC_A_PARAMS_N_FLOWS, n_flows),
	HPCC_NL_PARAM(HPCC_A_PARAMS_N_FLOWS_SOURCE, n_source),
	HPCC_NL_PARAM(HPCC_A_PARAMS_START, start),
	HPCC_NL_PARAM(HPCC_A_PARAMS_EWMA_PERIOD, ewma_period_pct),
	HPCC_NL_PARAM(HPCC_A_PARAMS_IFA_PROTOCOL, ifa_protocol),
	HPCC_NL_PARAM(HPCC_A_PARAMS_CCM_TRIES, ccm_tries),
	HPCC_NL_PARAM(HPCC_A_PARAMS_CCM_SAMPLES, ccm_samples),
	HPCC_NL_PARAM(HPCC_A_PARAMS_CCM_GAP_RTTS, ccm_gap_rtts),
	HPCC_NL_PARAM(HPCC_A_PARAMS_CCM_PAUSE, ccm_pause_s),
	HPCC_NL_PARAM(HPCC_A_PARAMS_CCM_SHARE, ccm_share),
	HPCC_NL_PARAM(HPCC_A_PARAMS_INT_DSCP, int_dscp),
#undef HPCC_NL_PARAM
};

static_assert(sizeof_field(struct hpcc_cfg, probe_dscp) == 1 &&
	      sizeof_field(struct hpcc_cfg, response_dscp) == 1 &&
	      sizeof_field(struct hpcc_cfg, n_source) == 1 &&
	      sizeof_field(struct hpcc_cfg, start) == 1 &&
	      sizeof_field(struct hpcc_cfg, ifa_protocol) == 1 &&
	      sizeof_field(struct hpcc_cfg, ccm_tries) == 1 &&
	      sizeof_field(struct hpcc_cfg, ccm_samples) == 1 &&
	      sizeof_field(struct hpcc_cfg, ccm_gap_rtts) == 1 &&
	      sizeof_field(struct hpcc_cfg, ccm_share) == 1 &&
	      sizeof_field(struct hpcc_cfg, int_dscp) == 1);

/* hpcc_nl_param_u8() - whether parameter @i is a u8 (else a u32) */
static bool hpcc_nl_param_u8(int i)
{
	return hpcc_params_set_nl_policy[hpcc_nl_params[i].attr].type == NLA_U8;
}

static struct hpcc_net *hpcc_nl_net(struct genl_info *info)
{
	return hpcc_net(genl_info_net(info));
}

/*
 * hpcc_nl_key() - the flow's 4-tuple: family, sport, dport and the
 * family's addresses, saddr4 and daddr4 (AF_INET) or saddr6 and daddr6
 * (AF_INET6; the policy checks their length).  An IPv4-mapped IPv6
 * address is refused: a dual-stack socket talking IPv4 is an AF_INET
 * flow.  Return: 0 or -EINVAL (extack says which attribute is missing,
 * of the other family or wrong).
 */
static int hpcc_nl_key(struct genl_info *info, struct nlattr **tb,
		       struct hpcc_key *key)
{
	static const int need[] = {
		HPCC_A_FLOW_FAMILY, HPCC_A_FLOW_SPORT, HPCC_A_FLOW_DPORT,
	};
	int saddr, daddr, other_s, other_d, i;
	struct in6_addr s6, d6;
	u16 family;

	for (i = 0; i < ARRAY_SIZE(need); i++) {
		if (!tb[need[i]]) {
			NL_SET_ERR_ATTR_MISS(info->extack, NULL, need[i]);
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the flow needs family, addresses, sport and dport");
			return -EINVAL;
		}
	}
	family = nla_get_u16(tb[HPCC_A_FLOW_FAMILY]);
	if (family == AF_INET) {
		saddr = HPCC_A_FLOW_SADDR4;
		daddr = HPCC_A_FLOW_DADDR4;
		other_s = HPCC_A_FLOW_SADDR6;
		other_d = HPCC_A_FLOW_DADDR6;
	} else if (family == AF_INET6) {
		saddr = HPCC_A_FLOW_SADDR6;
		daddr = HPCC_A_FLOW_DADDR6;
		other_s = HPCC_A_FLOW_SADDR4;
		other_d = HPCC_A_FLOW_DADDR4;
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[HPCC_A_FLOW_FAMILY],
				    "family must be AF_INET or AF_INET6");
		return -EINVAL;
	}
	if (tb[other_s] || tb[other_d]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[other_s] ? tb[other_s] : tb[other_d],
				    "address of the other family");
		return -EINVAL;
	}
	for (i = 0; i < 2; i++) {
		int need_a = i ? daddr : saddr;

		if (!tb[need_a]) {
			NL_SET_ERR_ATTR_MISS(info->extack, NULL, need_a);
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the flow needs both addresses of its family");
			return -EINVAL;
		}
	}
	if (family == AF_INET) {
		hpcc_key_v4(key, nla_get_in_addr(tb[saddr]),
			    nla_get_in_addr(tb[daddr]),
			    nla_get_be16(tb[HPCC_A_FLOW_SPORT]),
			    nla_get_be16(tb[HPCC_A_FLOW_DPORT]));
		return 0;
	}
	s6 = nla_get_in6_addr(tb[saddr]);
	d6 = nla_get_in6_addr(tb[daddr]);
	if (ipv6_addr_v4mapped(&s6) || ipv6_addr_v4mapped(&d6)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    ipv6_addr_v4mapped(&s6) ? tb[saddr] :
				    tb[daddr],
				    "IPv4-mapped address: name the flow as AF_INET");
		return -EINVAL;
	}
	hpcc_key_v6(key, &s6, &d6, nla_get_be16(tb[HPCC_A_FLOW_SPORT]),
		    nla_get_be16(tb[HPCC_A_FLOW_DPORT]));
	return 0;
}

/*
 * hpcc_nl_hops() - collect the hop records of a telemetry-set request
 *	(none is allowed with @allow_empty: a receiver-based sample).
 * Return: 0; -EINVAL with *@bad_count set for 0 or too many records; or
 * -EINVAL for a record without all six fields (extack names it).
 */
static int hpcc_nl_hops(struct genl_info *info, struct hpcc_tlm *tlm,
			bool allow_empty, bool *bad_count)
{
	struct nlattr *tb[HPCC_A_HOP_MAX + 1];
	const struct nlattr *a;
	int rem, err, i;
	u32 fl;

	/* the uapi's flags are the core's */
	BUILD_BUG_ON(HPCC_HOP_FLAGS_NO_TX_BYTES != HPCC_HOP_NO_TX_BYTES);
	BUILD_BUG_ON(HPCC_HOP_FLAGS_TX_UTIL != HPCC_HOP_TX_UTIL);
	*bad_count = false;
	tlm->nhop = 0;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		struct hpcc_hop *h;

		if (nla_type(a) != HPCC_A_FLOW_HOP)
			continue;
		if (tlm->nhop == HPCC_MAX_HOPS) {
			*bad_count = true;
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "more than 8 hop records");
			return -EINVAL;
		}
		err = nla_parse_nested(tb, HPCC_A_HOP_MAX, a,
				       hpcc_hop_nl_policy, info->extack);
		if (err)
			return err;
		fl = tb[HPCC_A_HOP_FLAGS] ?
		     nla_get_u32(tb[HPCC_A_HOP_FLAGS]) : 0;
		for (i = HPCC_A_HOP_SWITCH_ID; i <= HPCC_A_HOP_QLEN; i++) {
			/* txBytes may be absent when flags says so */
			if (i == HPCC_A_HOP_TX_BYTES &&
			    fl & HPCC_HOP_FLAGS_NO_TX_BYTES)
				continue;
			if (!tb[i]) {
				NL_SET_ERR_ATTR_MISS(info->extack, a, i);
				NL_SET_ERR_MSG_MOD(info->extack,
						   "a hop record needs switch-id, port-id, rate, ts, tx-bytes (unless flags no-tx-bytes) and qlen");
				return -EINVAL;
			}
		}
		if (fl & HPCC_HOP_FLAGS_TX_UTIL &&
		    (!(fl & HPCC_HOP_FLAGS_NO_TX_BYTES) ||
		     !tb[HPCC_A_HOP_TX_UTIL])) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[HPCC_A_HOP_FLAGS],
					    "flags tx-util needs no-tx-bytes and tx-util");
			return -EINVAL;
		}
		h = &tlm->hops[tlm->nhop++];
		h->switch_id = nla_get_u32(tb[HPCC_A_HOP_SWITCH_ID]);
		h->port_id = nla_get_u32(tb[HPCC_A_HOP_PORT_ID]);
		h->rate_bps = nla_get_u64(tb[HPCC_A_HOP_RATE]);
		h->ts = nla_get_u64(tb[HPCC_A_HOP_TS]);
		h->tx_bytes = fl & HPCC_HOP_FLAGS_NO_TX_BYTES ? 0 :
			      nla_get_u64(tb[HPCC_A_HOP_TX_BYTES]);
		h->qlen = nla_get_u64(tb[HPCC_A_HOP_QLEN]);
		h->flags = fl;		/* 0: a full record */
		h->tx_util = fl & HPCC_HOP_FLAGS_TX_UTIL ?
			     nla_get_u32(tb[HPCC_A_HOP_TX_UTIL]) : 0;
	}
	if (!tlm->nhop && !allow_empty) {
		*bad_count = true;
		NL_SET_ERR_MSG_MOD(info->extack, "no hop record");
		return -EINVAL;
	}
	return 0;
}

/*
 * hpcc_nl_news() - has a telemetry reply news for socket @portid about @e,
 * whose state is now @pub?  Always with @all (telemetry-set replies to
 * every sample).  Else yes when in-flight is not what the last reply said,
 * when srtt moved by more than an eighth from that reply's, when the
 * module told the flow's state otherwise since (@e->tell_gen: an event or
 * a flow-get, after which the sender's view may be either), when the last
 * reply went to another socket, and at every HPCC_PUSH_REPLY_EVERY-th
 * sample, which mends a reply the sender lost.  A yes is taken as the
 * reply sent.  Under @e->tlm_lock.
 */
static bool hpcc_nl_news(struct hpcc_ent *e, const struct hpcc_pub *pub,
			 u32 portid, bool all)
{
	u32 gen = (u32)atomic_read(&e->tell_gen);
	u32 told = e->told_srtt_us;
	u32 d = pub->srtt_us > told ? pub->srtt_us - told :
				      told - pub->srtt_us;

	if (!all && pub->in_flight == e->told_in_flight && d <= told / 8 &&
	    gen == e->told_gen && portid == e->told_portid &&
	    ++e->quiet < HPCC_PUSH_REPLY_EVERY)
		return false;
	e->told_in_flight = pub->in_flight;
	e->told_srtt_us = pub->srtt_us;
	e->told_gen = gen;
	e->told_portid = portid;
	e->quiet = 0;
	return true;
}

/* A reply decided on was not sent or not delivered: the next sample
 * tells its news.  @e is looked up again (the caller left RCU).
 */
static void hpcc_nl_untold(struct hpcc_net *hn, const struct hpcc_key *key)
{
	struct hpcc_ent *e;

	rcu_read_lock();
	e = hpcc_ent_lookup(hn, key);
	if (e) {
		write_seqlock_bh(&e->tlm_lock);
		e->told_in_flight = HPCC_TOLD_NONE;
		write_sequnlock_bh(&e->tlm_lock);
	}
	rcu_read_unlock();
}

/*
 * hpcc_nl_telemetry() - telemetry-set, and with @push telemetry-push: the
 * reply only when hpcc_nl_news() says so.  @tb: the request's attributes,
 * checked by their policy; @err: the parse's outcome.
 */
static int hpcc_nl_telemetry(struct genl_info *info, struct nlattr **tb,
			     int err, bool push)
{
	/* the reply: in-flight and srtt */
	const size_t size = nla_total_size(sizeof(u8)) +
			    nla_total_size(sizeof(u32));
	struct hpcc_net *hn = hpcc_nl_net(info);
	struct sk_buff *msg;
	struct hpcc_tlm tlm = {};
	struct hpcc_key key;
	struct hpcc_pub pub;
	struct hpcc_ent *e;
	bool bad_count, reply = true;
	void *hdr;

	if (!err)
		err = hpcc_nl_key(info, tb, &key);
	if (!err && tb[HPCC_A_FLOW_RX_W] && !tb[HPCC_A_FLOW_RX_BASED]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[HPCC_A_FLOW_RX_W],
				    "rx-w needs rx-based");
		err = -EINVAL;
	}
	/* only U: the receiver withheld the records (section 9.1) */
	if (!err && tb[HPCC_A_FLOW_RX_U] &&
	    (tb[HPCC_A_FLOW_RX_BASED] || tb[HPCC_A_FLOW_HOP])) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[HPCC_A_FLOW_RX_U],
				    "rx-u comes without rx-based and without hop records");
		err = -EINVAL;
	}
	if (err) {
		hpcc_stat_inc(hn, HPCC_STAT_REJECTED_INVALID);
		return err;
	}
	/* receiver-based: the receiver ran the algorithm; a record is
	 * optional (the privacy mode sends none)
	 */
	tlm.rx = nla_get_flag(tb[HPCC_A_FLOW_RX_BASED]);
	tlm.rx_w = tb[HPCC_A_FLOW_RX_W] ? nla_get_u32(tb[HPCC_A_FLOW_RX_W]) : 0;
	tlm.has_u = !!tb[HPCC_A_FLOW_RX_U];
	tlm.u = tlm.has_u ? nla_get_u32(tb[HPCC_A_FLOW_RX_U]) : 0;
	err = hpcc_nl_hops(info, &tlm, tlm.rx || tlm.has_u, &bad_count);
	if (err) {
		hpcc_stat_inc(hn, bad_count ? HPCC_STAT_REJECTED_HOPS :
			      HPCC_STAT_REJECTED_INVALID);
		return err;
	}
	/* the receiver's N, 1..65535 (policy); 0 when it reported none */
	tlm.n_flows = tb[HPCC_A_FLOW_N_FLOWS] ?
		      nla_get_u32(tb[HPCC_A_FLOW_N_FLOWS]) : 0;
	/* telemetry-set's reply is allocated first, so that a sample stored
	 * is never refused; telemetry-push's only when it has news (a reply
	 * it cannot allocate is news at the next sample)
	 */
	msg = NULL;
	if (!push) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
	}

	rcu_read_lock();
	e = hpcc_ent_lookup(hn, &key);
	if (!e) {
		rcu_read_unlock();
		nlmsg_free(msg);
		hpcc_stat_inc(hn, HPCC_STAT_REJECTED_NO_FLOW);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no hpcc flow with this 4-tuple in this network namespace");
		return -ENOENT;
	}
	write_seqlock_bh(&e->tlm_lock);
	if (e->tlm_gen != READ_ONCE(e->used_gen)) {
		hpcc_stat_inc(hn, HPCC_STAT_TELEMETRY_SUPERSEDED);
		/* a receiver-based W not yet applied outlives the samples
		 * without one that follow it (the receiver sends W once per T)
		 */
		if (tlm.rx && !tlm.rx_w && e->tlm.rx)
			tlm.rx_w = e->tlm.rx_w;
	}
	e->tlm = tlm;
	WRITE_ONCE(e->tlm_time, ktime_get_ns());
	WRITE_ONCE(e->tlm_gen, e->tlm_gen + 1);
	WRITE_ONCE(e->telemetry_in, e->telemetry_in + 1);
	hpcc_pub_read(e, &pub);
	reply = hpcc_nl_news(e, &pub, info->snd_portid, !push);
	write_sequnlock_bh(&e->tlm_lock);
	rcu_read_unlock();
	hpcc_stat_inc(hn, HPCC_STAT_TELEMETRY_ACCEPTED);
	if (!reply) {
		hpcc_stat_inc(hn, HPCC_STAT_TELEMETRY_QUIET);
		return 0;
	}
	if (!msg) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg) {
			hpcc_nl_untold(hn, &key);
			return 0;
		}
	}

	hdr = genlmsg_put_reply(msg, info, &hpcc_genl_family, 0,
				push ? HPCC_CMD_TELEMETRY_PUSH :
				HPCC_CMD_TELEMETRY_SET);
	if (!hdr || nla_put_u8(msg, HPCC_A_FLOW_IN_FLIGHT, pub.in_flight) ||
	    nla_put_u32(msg, HPCC_A_FLOW_SRTT, pub.srtt_us)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
	if (err && push) {
		/* the sample is stored: no error for it, but the news (the
		 * sender's receive buffer was full) is told again
		 */
		hpcc_nl_untold(hn, &key);
		return 0;
	}
	return err;
}

/* parsed here, so that what the policy refuses is counted */
static int hpcc_nl_telemetry_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[HPCC_A_FLOW_RX_U + 1];
	int err;

	err = nlmsg_parse(info->nlhdr, GENL_HDRLEN, tb, HPCC_A_FLOW_RX_U,
			  hpcc_telemetry_set_nl_policy, info->extack);
	return hpcc_nl_telemetry(info, tb, err, false);
}

/* a command after resv_start_op: the core parses by the op's policy, and
 * refuses what it does not take before the module sees it
 */
static int hpcc_nl_telemetry_push(struct sk_buff *skb, struct genl_info *info)
{
	return hpcc_nl_telemetry(info, info->attrs, 0, true);
}

/* The most hpcc_nl_put_tuple() puts (an IPv6 flow). */
static size_t hpcc_nl_tuple_size(void)
{
	return nla_total_size(sizeof(u16)) +		/* FAMILY */
	       2 * nla_total_size(sizeof(struct in6_addr)) + /* S/DADDR6 */
	       2 * nla_total_size(sizeof(__be16)) +	/* SPORT, DPORT */
	       nla_total_size(sizeof(u32));		/* FLOWLABEL */
}

/*
 * hpcc_nl_put_tuple() - family, the family's addresses (saddr4 and daddr4,
 * or saddr6 and daddr6), sport and dport; an IPv6 flow's flow label, as
 * the ACK path last saw it (hpcc_flowlabel_check())
 */
static int hpcc_nl_put_tuple(struct sk_buff *msg, const struct hpcc_ent *e)
{
	const struct hpcc_key *k = &e->key;

	if (nla_put_u16(msg, HPCC_A_FLOW_FAMILY, k->family))
		return -EMSGSIZE;
	if (k->family == AF_INET) {
		if (nla_put_in_addr(msg, HPCC_A_FLOW_SADDR4,
				    k->saddr.s6_addr32[3]) ||
		    nla_put_in_addr(msg, HPCC_A_FLOW_DADDR4,
				    k->daddr.s6_addr32[3]))
			return -EMSGSIZE;
	} else if (nla_put_in6_addr(msg, HPCC_A_FLOW_SADDR6, &k->saddr) ||
		   nla_put_in6_addr(msg, HPCC_A_FLOW_DADDR6, &k->daddr) ||
		   nla_put_u32(msg, HPCC_A_FLOW_FLOWLABEL,
			       READ_ONCE(e->flowlabel))) {
		return -EMSGSIZE;
	}
	if (nla_put_be16(msg, HPCC_A_FLOW_SPORT, k->sport) ||
	    nla_put_be16(msg, HPCC_A_FLOW_DPORT, k->dport))
		return -EMSGSIZE;
	return 0;
}

static int hpcc_nl_put_hops(struct sk_buff *msg, struct hpcc_ent *e, u64 *age)
{
	struct hpcc_tlm tlm;
	struct nlattr *nest;
	unsigned int seq;
	u64 gen, t;
	u32 i;

	do {
		seq = read_seqbegin(&e->tlm_lock);
		gen = e->tlm_gen;
		t = e->tlm_time;
		tlm = e->tlm;
	} while (read_seqretry(&e->tlm_lock, seq));
	if (!gen)
		return 0;
	*age = div_u64(ktime_get_ns() - t, NSEC_PER_USEC);
	for (i = 0; i < tlm.nhop && i < HPCC_MAX_HOPS; i++) {
		const struct hpcc_hop *h = &tlm.hops[i];

		nest = nla_nest_start(msg, HPCC_A_FLOW_HOP);
		if (!nest ||
		    nla_put_u32(msg, HPCC_A_HOP_SWITCH_ID, h->switch_id) ||
		    nla_put_u32(msg, HPCC_A_HOP_PORT_ID, h->port_id) ||
		    nla_put_u64_64bit(msg, HPCC_A_HOP_RATE, h->rate_bps,
				      HPCC_A_HOP_PAD) ||
		    nla_put_u64_64bit(msg, HPCC_A_HOP_TS, h->ts,
				      HPCC_A_HOP_PAD) ||
		    nla_put_u64_64bit(msg, HPCC_A_HOP_TX_BYTES, h->tx_bytes,
				      HPCC_A_HOP_PAD) ||
		    nla_put_u64_64bit(msg, HPCC_A_HOP_QLEN, h->qlen,
				      HPCC_A_HOP_PAD) ||
		    (h->flags &&
		     nla_put_u32(msg, HPCC_A_HOP_FLAGS, h->flags)) ||
		    (h->flags & HPCC_HOP_TX_UTIL &&
		     nla_put_u32(msg, HPCC_A_HOP_TX_UTIL, h->tx_util)))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

#define HPCC_PUT64(msg, attr, v) \
	nla_put_u64_64bit(msg, attr, v, HPCC_A_FLOW_PAD)

/*
 * hpcc_nl_seq_allowed() - whether the sender of @skb may read a flow's
 * sequence numbers (last-ack-seq, last-snd-nxt): CAP_NET_ADMIN in the user
 * namespace owning @net, as GENL_UNS_ADMIN_PERM asks of telemetry-set.
 * They are what an off-path sender needs to get an FCR or CCM message, a
 * forged segment or a reset into the window of another user's connection;
 * the rest of flow-get is what inet_diag (ss -ti) shows any user.
 */
static bool hpcc_nl_seq_allowed(const struct sk_buff *skb, struct net *net)
{
	return netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN);
}

/*
 * hpcc_nl_fill_flow() - one flow-get message (do, dump); the sequence
 * numbers only with @seq_ok (hpcc_nl_seq_allowed()).  In a dump (@cb
 * set) a message is flagged NLM_F_DUMP_INTR when the table changed since
 * the dump began (genl_dump_check_consistent()).
 */
static int hpcc_nl_fill_flow(struct sk_buff *msg, struct hpcc_ent *e,
			     u32 portid, u32 seq, int flags, bool seq_ok,
			     struct netlink_callback *cb)
{
	u64 age = U64_MAX;
	struct hpcc_pub p;
	void *hdr;

	/* the reader's view of the flow is now this one, not the last
	 * telemetry reply's (hpcc_nl_news())
	 */
	atomic_inc(&e->tell_gen);
	hpcc_pub_read(e, &p);
	if (!p.w_ai) {
		rcu_read_lock();
		p.w_ai = rcu_dereference(e->hn->cfg)->p.w_ai;
		rcu_read_unlock();
	}
	hdr = genlmsg_put(msg, portid, seq, &hpcc_genl_family, flags,
			  HPCC_CMD_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (hpcc_nl_put_tuple(msg, e) || hpcc_nl_put_hops(msg, e, &age) ||
	    nla_put_u8(msg, HPCC_A_FLOW_IN_FLIGHT, p.in_flight) ||
	    nla_put_u32(msg, HPCC_A_FLOW_SRTT, p.srtt_us) ||
	    nla_put_u32(msg, HPCC_A_FLOW_MSS, p.mss) ||
	    nla_put_u32(msg, HPCC_A_FLOW_CWND, p.cwnd) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_PACING_RATE, p.pacing_rate) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_W, p.w >> HPCC_W_SHIFT) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_WC, p.wc >> HPCC_W_SHIFT) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_U, p.u) ||
	    nla_put_u32(msg, HPCC_A_FLOW_INC_STAGE, p.inc_stage) ||
	    nla_put_u8(msg, HPCC_A_FLOW_MODE, p.law) ||
	    (age != U64_MAX &&
	     HPCC_PUT64(msg, HPCC_A_FLOW_TELEMETRY_AGE, age)) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_TELEMETRY_IN, READ_ONCE(e->telemetry_in)) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_SAMPLES, p.samples) ||
	    nla_put_u32(msg, HPCC_A_FLOW_FALLBACKS, p.fallbacks) ||
	    nla_put_u32(msg, HPCC_A_FLOW_REDUCTIONS, p.reductions) ||
	    nla_put_u8(msg, HPCC_A_FLOW_LAST_STEP, p.last_step) ||
	    (seq_ok &&
	     (nla_put_u32(msg, HPCC_A_FLOW_LAST_ACK_SEQ, p.last_ack_seq) ||
	      nla_put_u32(msg, HPCC_A_FLOW_LAST_SND_NXT, p.last_snd_nxt))) ||
	    (p.n_flows &&
	     nla_put_u32(msg, HPCC_A_FLOW_N_FLOWS, p.n_flows)) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_W_AI, p.w_ai >> HPCC_W_SHIFT) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_FCR_RATE, p.fcr_rate) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_FCR_IN, READ_ONCE(e->fcr_in)) ||
	    HPCC_PUT64(msg, HPCC_A_FLOW_FCR_DELAY, p.fcr_delay) ||
	    nla_put_u32(msg, HPCC_A_FLOW_CCM_CHANGES, p.ccm_changes) ||
	    nla_put_u8(msg, HPCC_A_FLOW_CCM_CC, p.ccm_cc) ||
	    (p.rx && nla_put_flag(msg, HPCC_A_FLOW_RX_BASED))) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static int hpcc_nl_flow_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_net *hn = hpcc_nl_net(info);
	struct hpcc_key key;
	struct sk_buff *msg;
	struct hpcc_ent *e;
	int err;

	err = hpcc_nl_key(info, info->attrs, &key);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	e = hpcc_ent_lookup(hn, &key);
	if (!e) {
		rcu_read_unlock();
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no hpcc flow with this 4-tuple in this network namespace");
		return -ENOENT;
	}
	err = hpcc_nl_fill_flow(msg, e, info->snd_portid, info->snd_seq, 0,
				hpcc_nl_seq_allowed(skb, genl_info_net(info)),
				NULL);
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * hpcc_nl_flow_get_dumpit() - flow-get dump: one message per flow, bucket
 * by bucket, resuming at cb->args[0], the bucket, and cb->args[1], the
 * entries done in it.  A flow added or
 * removed between two parts shifts the indexes, so the dump may list a
 * flow twice or miss one that was there all along: then a message after
 * the change carries NLM_F_DUMP_INTR (the table's generation, taken at
 * each part, differs from the previous part's), and the reader must not
 * take a flow's absence as its end (hpccd's reconcile does not).
 */
static int hpcc_nl_flow_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct hpcc_net *hn = hpcc_net(sock_net(skb->sk));
	unsigned long b = cb->args[0], skip = cb->args[1], idx;
	bool seq_ok = hpcc_nl_seq_allowed(cb->skb, sock_net(skb->sk));
	struct hpcc_ent *e;

	/* never 0: nl_dump_check_consistent() ignores a prev_seq of 0 */
	cb->seq = (READ_ONCE(hn->flows_gen) << 1) | 1;
	rcu_read_lock();
	for (; b < ARRAY_SIZE(hn->buckets); b++, skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(e, &hn->buckets[b], node) {
			if (idx++ < skip)
				continue;
			if (hpcc_nl_fill_flow(skb, e, NETLINK_CB(cb->skb).portid,
					      cb->nlh->nlmsg_seq,
					      NLM_F_MULTI, seq_ok, cb)) {
				cb->args[0] = b;
				cb->args[1] = idx - 1;
				goto out;
			}
		}
	}
	cb->args[0] = b;
	cb->args[1] = 0;
out:
	rcu_read_unlock();
	return skb->len;
}

static int hpcc_nl_params_get(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_net *hn = hpcc_nl_net(info);
	const struct hpcc_cfg *c;
	struct sk_buff *msg;
	void *hdr;
	int err = -EMSGSIZE;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hpcc_genl_family, 0,
				HPCC_CMD_PARAMS_GET);
	if (!hdr)
		goto err;
	rcu_read_lock();
	c = rcu_dereference(hn->cfg);
	for (i = 0; i < ARRAY_SIZE(hpcc_nl_params); i++) {
		const void *v = (const u8 *)c + hpcc_nl_params[i].off;

		if (hpcc_nl_param_u8(i) ?
		    nla_put_u8(msg, hpcc_nl_params[i].attr, *(const u8 *)v) :
		    nla_put_u32(msg, hpcc_nl_params[i].attr, *(const u32 *)v))
			break;
	}
	if (i < ARRAY_SIZE(hpcc_nl_params) ||
	    nla_put_u64_64bit(msg, HPCC_A_PARAMS_W_INIT,
			      c->p.w_init >> HPCC_W_SHIFT, HPCC_A_PARAMS_PAD) ||
	    nla_put_u64_64bit(msg, HPCC_A_PARAMS_W_AI_EFF,
			      c->p.w_ai >> HPCC_W_SHIFT, HPCC_A_PARAMS_PAD)) {
		rcu_read_unlock();
		goto err;
	}
	rcu_read_unlock();
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return err;
}

static int hpcc_nl_params_apply(struct hpcc_net *hn, struct genl_info *info)
{
	struct nlattr *tb[HPCC_A_PARAMS_MAX + 1];
	struct hpcc_cfg base, *old, *c;
	struct nlattr *ro;
	int err, i;

	/* derived values the request may not set (outside the policy) */
	for (i = HPCC_A_PARAMS_W_INIT; i <= HPCC_A_PARAMS_W_AI_EFF; i++) {
		ro = nlmsg_find_attr(info->nlhdr, GENL_HDRLEN, i);
		if (ro) {
			NL_SET_ERR_MSG_ATTR(info->extack, ro,
					    "read only: derived from line-rate, T and eta");
			return -EINVAL;
		}
	}
	err = nlmsg_parse(info->nlhdr, GENL_HDRLEN, tb,
			  HPCC_A_PARAMS_INT_DSCP,
			  hpcc_params_set_nl_policy, info->extack);
	if (err)
		return err;

	mutex_lock(&hn->cfg_mutex);
	old = rcu_dereference_protected(hn->cfg,
					lockdep_is_held(&hn->cfg_mutex));
	base = *old;
	for (i = 0; i < ARRAY_SIZE(hpcc_nl_params); i++) {
		const struct nlattr *a = tb[hpcc_nl_params[i].attr];
		void *v = (u8 *)&base + hpcc_nl_params[i].off;

		if (!a)
			continue;
		if (hpcc_nl_param_u8(i))
			*(u8 *)v = nla_get_u8(a);
		else
			*(u32 *)v = nla_get_u32(a);
	}

	if (base.probe_dscp == base.response_dscp ||
	    base.int_dscp == base.probe_dscp ||
	    base.int_dscp == base.response_dscp) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "probe-dscp, response-dscp and int-dscp must differ");
		err = -EINVAL;
		goto unlock;
	}
	if (tb[HPCC_A_PARAMS_IFA_PROTOCOL] &&
	    !hpcc_wire_ifa_protocol_ok(base.ifa_protocol)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[HPCC_A_PARAMS_IFA_PROTOCOL],
				    "ifa-protocol is one hosts handle themselves (ICMP, TCP, UDP, an IPv6 extension header)");
		err = -EINVAL;
		goto unlock;
	}
	c = hpcc_cfg_build(&base);
	if (IS_ERR(c)) {
		err = PTR_ERR(c);
		if (err == -EINVAL)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "w-min and w-ai must not exceed W_init = line-rate * T");
		goto unlock;
	}
	rcu_assign_pointer(hn->cfg, c);
	kfree_rcu(old, rcu);
unlock:
	mutex_unlock(&hn->cfg_mutex);
	return err;
}

static int hpcc_nl_params_set(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_net *hn = hpcc_nl_net(info);
	int err = hpcc_nl_params_apply(hn, info);

	if (err)
		hpcc_stat_inc(hn, HPCC_STAT_PARAMS_REJECTED);
	return err;
}

/* fcr-get's keys: id, prefix, accept, retired; never the key's bytes */
static int hpcc_nl_fcr_keys_put(struct sk_buff *msg,
				const struct hpcc_nkeys *nk)
{
	u64 now = ktime_get_ns();
	struct nlattr *nest;
	u32 i;

	for (i = 0; nk && i < nk->r.n; i++) {
		const struct hpcc_nmac_key *k = &nk->r.k[i];

		if (k->expires && (s64)(k->expires - now) <= 0)
			continue;
		nest = nla_nest_start(msg, HPCC_A_FCR_KEY);
		if (!nest || nla_put_u32(msg, HPCC_A_FCR_KEY_ID, k->id) ||
		    hpcc_nl_prefix_put(msg, &k->pfx, HPCC_A_FCR_KEY_ADDR4,
				       HPCC_A_FCR_KEY_ADDR6,
				       HPCC_A_FCR_KEY_PLEN) ||
		    (k->accept && nla_put_flag(msg, HPCC_A_FCR_KEY_ACCEPT)) ||
		    (k->expires && nla_put_flag(msg, HPCC_A_FCR_KEY_RETIRED)))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/*
 * fcr-get: the namespace's FCR configuration; a managed prefix is reported
 * in its family's form (addr4 for an IPv4-mapped one).
 */
static int hpcc_nl_fcr_get(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_net *hn = hpcc_nl_net(info);
	const struct hpcc_cfg *c;
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	u32 i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hpcc_genl_family, 0,
				HPCC_CMD_FCR_GET);
	if (!hdr)
		goto err;
	rcu_read_lock();
	c = rcu_dereference(hn->cfg);
	if (nla_put_u16(msg, HPCC_A_FCR_PORT, c->fcr_port) ||
	    nla_put_u32(msg, HPCC_A_FCR_HOLD_MAX, c->fcr_hold_max_us) ||
	    nla_put_u64_64bit(msg, HPCC_A_FCR_RATE_MIN, c->fcr_rate_min,
			      HPCC_A_FCR_PAD))
		goto err_unlock;
	for (i = 0; i < c->fcr_nprefix; i++) {
		nest = nla_nest_start(msg, HPCC_A_FCR_PREFIX);
		if (!nest ||
		    hpcc_nl_prefix_put(msg, &c->fcr_prefix[i],
				       HPCC_A_FCR_PREFIX_ADDR4,
				       HPCC_A_FCR_PREFIX_ADDR6,
				       HPCC_A_FCR_PREFIX_PLEN))
			goto err_unlock;
		nla_nest_end(msg, nest);
	}
	if (nla_put_u32(msg, HPCC_A_FCR_KEY_OVERLAP,
			READ_ONCE(hn->key_overlap_s)) ||
	    hpcc_nl_fcr_keys_put(msg, rcu_dereference(hn->nkeys)))
		goto err_unlock;
	rcu_read_unlock();
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err_unlock:
	rcu_read_unlock();
err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* hpcc_nl_fcr_prefix() - one fcr-set prefix into @p (hpcc_nl_prefix()) */
static int hpcc_nl_fcr_prefix(const struct nlattr *nest,
			      struct hpcc_fcr_prefix *p,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[HPCC_A_FCR_PREFIX_MAX + 1];
	int err;

	err = nla_parse_nested(tb, HPCC_A_FCR_PREFIX_MAX, nest,
			       hpcc_fcr_prefix_nl_policy, extack);
	if (err)
		return err;
	return hpcc_nl_prefix(nest, tb[HPCC_A_FCR_PREFIX_ADDR4],
			      tb[HPCC_A_FCR_PREFIX_ADDR6],
			      tb[HPCC_A_FCR_PREFIX_PLEN], p, extack);
}

/*
 * hpcc_nl_fcr_key() - one fcr-set key into @k: id, key and a prefix
 * (hpcc_nl_prefix()).  Return: 0 or -EINVAL, extack set.
 */
static int hpcc_nl_fcr_key(const struct nlattr *nest, struct hpcc_nmac_key *k,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[HPCC_A_FCR_KEY_MAX + 1];
	int err;

	err = nla_parse_nested(tb, HPCC_A_FCR_KEY_MAX, nest,
			       hpcc_fcr_key_nl_policy, extack);
	if (err)
		return err;
	if (!tb[HPCC_A_FCR_KEY_ID] || !tb[HPCC_A_FCR_KEY_KEY]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "a key needs id and key");
		return -EINVAL;
	}
	memset(k, 0, sizeof(*k));
	err = hpcc_nl_prefix(nest, tb[HPCC_A_FCR_KEY_ADDR4],
			     tb[HPCC_A_FCR_KEY_ADDR6], tb[HPCC_A_FCR_KEY_PLEN],
			     &k->pfx, extack);
	if (err)
		return err;
	k->id = nla_get_u32(tb[HPCC_A_FCR_KEY_ID]);
	k->accept = !!tb[HPCC_A_FCR_KEY_ACCEPT];
	nla_memcpy(k->key, tb[HPCC_A_FCR_KEY_KEY], sizeof(k->key));
	return 0;
}

static void hpcc_nkeys_free(struct rcu_head *head)
{
	kfree_sensitive(container_of(head, struct hpcc_nkeys, rcu));
}

/*
 * hpcc_nl_fcr_keys() - the keys of an fcr-set request into @keys (at most
 * HPCC_NMAC_KEYS); Return: how many, or -EINVAL with extack set.
 */
static int hpcc_nl_fcr_keys(struct genl_info *info,
			    struct hpcc_nmac_key *keys)
{
	const struct nlattr *a;
	int err, rem, n = 0;

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != HPCC_A_FCR_KEY)
			continue;
		if (info->attrs[HPCC_A_FCR_KEYS_FLUSH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "key with keys-flush");
			return -EINVAL;
		}
		if (n == HPCC_NMAC_KEYS) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "more than 16 keys");
			return -EINVAL;
		}
		err = hpcc_nl_fcr_key(a, &keys[n], info->extack);
		if (err)
			return err;
		n++;
	}
	return n;
}

static int hpcc_nl_fcr_apply(struct hpcc_net *hn, struct genl_info *info)
{
	struct hpcc_fcr_prefix pfx[HPCC_FCR_PREFIXES];
	struct hpcc_nmac_key *keys = NULL;
	struct nlattr **tb = info->attrs;
	struct hpcc_nkeys *nk = NULL;
	struct hpcc_cfg *old, *c;
	const struct nlattr *a;
	int err, rem, n = 0;
	bool keys_given;
	int nkeys = 0;

	/* the core parsed and validated the request (the op's policy) */
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != HPCC_A_FCR_PREFIX)
			continue;
		if (tb[HPCC_A_FCR_PREFIXES_FLUSH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "prefix with prefixes-flush");
			return -EINVAL;
		}
		if (n == HPCC_FCR_PREFIXES) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "more than 16 prefixes");
			return -EINVAL;
		}
		err = hpcc_nl_fcr_prefix(a, &pfx[n], info->extack);
		if (err)
			return err;
		n++;
	}

	keys_given = tb[HPCC_A_FCR_KEYS_FLUSH] || tb[HPCC_A_FCR_KEY];
	if (keys_given) {
		keys = kcalloc(HPCC_NMAC_KEYS, sizeof(*keys), GFP_KERNEL);
		nk = kzalloc(sizeof(*nk), GFP_KERNEL_ACCOUNT);
		if (!keys || !nk) {
			err = -ENOMEM;
			goto out_free;
		}
		err = hpcc_nl_fcr_keys(info, keys);
		if (err < 0)
			goto out_free;
		nkeys = err;
	}

	mutex_lock(&hn->cfg_mutex);
	old = rcu_dereference_protected(hn->cfg,
					lockdep_is_held(&hn->cfg_mutex));
	c = kmemdup(old, sizeof(*old), GFP_KERNEL_ACCOUNT);
	if (!c) {
		mutex_unlock(&hn->cfg_mutex);
		err = -ENOMEM;
		goto out_free;
	}
	if (tb[HPCC_A_FCR_KEY_OVERLAP])
		hn->key_overlap_s = nla_get_u32(tb[HPCC_A_FCR_KEY_OVERLAP]);
	if (keys_given) {
		static const struct hpcc_nmac_ring none;
		struct hpcc_nkeys *ok;

		ok = rcu_dereference_protected(hn->nkeys,
					       lockdep_is_held(&hn->cfg_mutex));
		hpcc_nmac_replace(&nk->r, ok ? &ok->r : &none, keys, nkeys,
				  ktime_get_ns(),
				  (u64)hn->key_overlap_s * NSEC_PER_SEC);
		rcu_assign_pointer(hn->nkeys, nk);
		nk = NULL;
		if (ok)
			call_rcu(&ok->rcu, hpcc_nkeys_free);
	}
	if (tb[HPCC_A_FCR_PORT])
		c->fcr_port = nla_get_u16(tb[HPCC_A_FCR_PORT]);
	if (tb[HPCC_A_FCR_HOLD_MAX])
		c->fcr_hold_max_us = nla_get_u32(tb[HPCC_A_FCR_HOLD_MAX]);
	if (tb[HPCC_A_FCR_RATE_MIN])
		c->fcr_rate_min = nla_get_u64(tb[HPCC_A_FCR_RATE_MIN]);
	if (tb[HPCC_A_FCR_PREFIXES_FLUSH])
		c->fcr_nprefix = 0;
	if (n) {
		memcpy(c->fcr_prefix, pfx, n * sizeof(pfx[0]));
		c->fcr_nprefix = n;
	}
	rcu_assign_pointer(hn->cfg, c);
	kfree_rcu(old, rcu);
	mutex_unlock(&hn->cfg_mutex);
	err = 0;
out_free:
	kfree_sensitive(keys);
	kfree_sensitive(nk);
	return err;
}

static int hpcc_nl_fcr_set(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_net *hn = hpcc_nl_net(info);
	int err = hpcc_nl_fcr_apply(hn, info);

	if (err)
		hpcc_stat_inc(hn, HPCC_STAT_PARAMS_REJECTED);
	return err;
}

static int hpcc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	static const u8 attr[HPCC_STAT_NUM] = {
		[HPCC_STAT_TELEMETRY_ACCEPTED] = HPCC_A_STATS_TELEMETRY_ACCEPTED,
		[HPCC_STAT_TELEMETRY_SUPERSEDED] = HPCC_A_STATS_TELEMETRY_SUPERSEDED,
		[HPCC_STAT_REJECTED_INVALID] = HPCC_A_STATS_REJECTED_INVALID,
		[HPCC_STAT_REJECTED_HOPS] = HPCC_A_STATS_REJECTED_HOPS,
		[HPCC_STAT_REJECTED_NO_FLOW] = HPCC_A_STATS_REJECTED_NO_FLOW,
		[HPCC_STAT_SAMPLES] = HPCC_A_STATS_SAMPLES,
		[HPCC_STAT_FALLBACKS] = HPCC_A_STATS_FALLBACKS,
		[HPCC_STAT_RESUMES] = HPCC_A_STATS_RESUMES,
		[HPCC_STAT_FLOWS_CREATED] = HPCC_A_STATS_FLOWS_CREATED,
		[HPCC_STAT_TABLE_FULL] = HPCC_A_STATS_TABLE_FULL,
		[HPCC_STAT_ALLOC_FAILED] = HPCC_A_STATS_ALLOC_FAILED,
		[HPCC_STAT_PROBES_CONSUMED] = HPCC_A_STATS_PROBES_CONSUMED,
		[HPCC_STAT_RESPONSES_CONSUMED] = HPCC_A_STATS_RESPONSES_CONSUMED,
		[HPCC_STAT_DSCP_NOT_HPCC] = HPCC_A_STATS_DSCP_NOT_HPCC,
		[HPCC_STAT_PARAMS_REJECTED] = HPCC_A_STATS_PARAMS_REJECTED,
		[HPCC_STAT_KEY_COLLISIONS] = HPCC_A_STATS_KEY_COLLISIONS,
		[HPCC_STAT_NO_STATE_FAMILY] = HPCC_A_STATS_NO_STATE_FAMILY,
		[HPCC_STAT_EXTHDR_REFUSED] = HPCC_A_STATS_EXTHDR_REFUSED,
		[HPCC_STAT_FLOWS_REHASHED] = HPCC_A_STATS_FLOWS_REHASHED,
		[HPCC_STAT_FCR_ACCEPTED] = HPCC_A_STATS_FCR_ACCEPTED,
		[HPCC_STAT_FCR_MALFORMED] = HPCC_A_STATS_FCR_MALFORMED,
		[HPCC_STAT_FCR_OUT_OF_DOMAIN] = HPCC_A_STATS_FCR_OUT_OF_DOMAIN,
		[HPCC_STAT_FCR_OUT_OF_RANGE] = HPCC_A_STATS_FCR_OUT_OF_RANGE,
		[HPCC_STAT_FCR_NO_FLOW] = HPCC_A_STATS_FCR_NO_FLOW,
		[HPCC_STAT_FCR_BAD_SEQ] = HPCC_A_STATS_FCR_BAD_SEQ,
		[HPCC_STAT_FCR_IGNORED] = HPCC_A_STATS_FCR_IGNORED,
		[HPCC_STAT_CCM_REROUTES] = HPCC_A_STATS_CCM_REROUTES,
		[HPCC_STAT_CCM_WAITS] = HPCC_A_STATS_CCM_WAITS,
		[HPCC_STAT_CCM_NOTES] = HPCC_A_STATS_CCM_NOTES,
		[HPCC_STAT_CCM_MALFORMED] = HPCC_A_STATS_CCM_MALFORMED,
		[HPCC_STAT_CCM_NO_FLOW] = HPCC_A_STATS_CCM_NO_FLOW,
		[HPCC_STAT_CCM_BAD_SEQ] = HPCC_A_STATS_CCM_BAD_SEQ,
		[HPCC_STAT_CCM_CC_SET] = HPCC_A_STATS_CCM_CC_SET,
		[HPCC_STAT_CCM_CC_CLEARED] = HPCC_A_STATS_CCM_CC_CLEARED,
		[HPCC_STAT_CCM_AR_REROUTES] = HPCC_A_STATS_CCM_AR_REROUTES,
		[HPCC_STAT_CCM_IGNORED] = HPCC_A_STATS_CCM_IGNORED,
		[HPCC_STAT_RX_W_APPLIED] = HPCC_A_STATS_RX_W_APPLIED,
		[HPCC_STAT_RX_KEPT] = HPCC_A_STATS_RX_KEPT,
		[HPCC_STAT_NOTIFY_AUTH_OK] = HPCC_A_STATS_NOTIFY_AUTH_OK,
		[HPCC_STAT_NOTIFY_AUTH_RETIRED] = HPCC_A_STATS_NOTIFY_AUTH_RETIRED,
		[HPCC_STAT_NOTIFY_AUTH_MISSING] = HPCC_A_STATS_NOTIFY_AUTH_MISSING,
		[HPCC_STAT_NOTIFY_AUTH_UNKNOWN_KEY] = HPCC_A_STATS_NOTIFY_AUTH_UNKNOWN_KEY,
		[HPCC_STAT_NOTIFY_AUTH_BAD] = HPCC_A_STATS_NOTIFY_AUTH_BAD,
		[HPCC_STAT_RX_U_APPLIED] = HPCC_A_STATS_RX_U_APPLIED,
		[HPCC_STAT_TELEMETRY_QUIET] = HPCC_A_STATS_TELEMETRY_QUIET,
	};
	struct hpcc_net *hn = hpcc_nl_net(info);
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hpcc_genl_family, 0,
				HPCC_CMD_STATS_GET);
	if (!hdr)
		goto err;
	for (i = 0; i < HPCC_STAT_NUM; i++)
		if (nla_put_u64_64bit(msg, attr[i],
				      atomic64_read(&hn->stats[i]),
				      HPCC_A_STATS_PAD))
			goto err;
	if (nla_put_u32(msg, HPCC_A_STATS_FLOWS, atomic_read(&hn->nflows)))
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/**
 * hpcc_nl_flow_event() - multicast flow-new, flow-del or flow-active
 * @e: the flow
 * @cmd: HPCC_CMD_FLOW_NEW, HPCC_CMD_FLOW_DEL or HPCC_CMD_FLOW_ACTIVE
 *
 * Context: the flow's writer (socket lock), including softirq (GFP_ATOMIC);
 * nothing is built when the group has no listener in the flow's namespace.  An event that cannot
 * be built is lost; hpccd rediscovers flows with a flow-get dump.
 */
void hpcc_nl_flow_event(struct hpcc_ent *e, u8 cmd)
{
	struct net *net = e->hn->net;
	struct sk_buff *msg;
	void *hdr;

	/* a listener's view of the flow may now differ from the last
	 * telemetry reply's (hpcc_nl_news())
	 */
	atomic_inc(&e->tell_gen);
	if (!genl_has_listeners(&hpcc_genl_family, net, HPCC_NLGRP_EVENTS))
		return;
	/* the exact size: a burst of connections fills a listener's receive
	 * buffer with about 700-byte events instead of page-sized ones
	 */
	msg = genlmsg_new(hpcc_nl_tuple_size() + nla_total_size(sizeof(u32)) +
			  nla_total_size(sizeof(u8)), GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &hpcc_genl_family, 0, cmd);
	if (!hdr || hpcc_nl_put_tuple(msg, e) ||
	    (cmd == HPCC_CMD_FLOW_ACTIVE &&
	     (nla_put_u32(msg, HPCC_A_FLOW_SRTT, e->pub.srtt_us) ||
	      nla_put_u8(msg, HPCC_A_FLOW_CCM_CC, READ_ONCE(e->ccm.cc))))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&hpcc_genl_family, net, msg, 0,
				HPCC_NLGRP_EVENTS, GFP_ATOMIC);
}

static const struct genl_ops hpcc_nl_ops[] = {
	{
		.cmd = HPCC_CMD_TELEMETRY_SET,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = hpcc_nl_telemetry_set,
		/* no .policy: parsed (and rejections counted) by the handler */
	},
	{
		.cmd = HPCC_CMD_TELEMETRY_PUSH,
		.flags = GENL_UNS_ADMIN_PERM,
		.doit = hpcc_nl_telemetry_push,
		.policy = hpcc_telemetry_push_nl_policy,
		.maxattr = HPCC_A_FLOW_RX_U,
	},
	{
		.cmd = HPCC_CMD_FLOW_GET,
		.doit = hpcc_nl_flow_get_doit,
		.dumpit = hpcc_nl_flow_get_dumpit,
		.policy = hpcc_flow_get_nl_policy,
		.maxattr = HPCC_A_FLOW_DPORT,
	},
	{
		.cmd = HPCC_CMD_PARAMS_GET,
		.doit = hpcc_nl_params_get,
	},
	{
		.cmd = HPCC_CMD_PARAMS_SET,
		/* W_init, W_max and max-flows bound what every new flow may
		 * take: not for the owner of a user namespace
		 */
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_nl_params_set,
	},
	{
		.cmd = HPCC_CMD_STATS_GET,
		.doit = hpcc_nl_stats_get,
	},
	{
		.cmd = HPCC_CMD_FCR_GET,
		.doit = hpcc_nl_fcr_get,
	},
	{
		.cmd = HPCC_CMD_FCR_SET,
		/* which hosts may slow this host's flows down: not for the
		 * owner of a user namespace
		 */
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_nl_fcr_set,
		.policy = hpcc_fcr_set_nl_policy,
		.maxattr = HPCC_A_FCR_KEY_OVERLAP,
	},
};

/*
 * The events carry a flow's 4-tuple, flow label, srtt and CCM indicator,
 * never its sequence numbers; joining them takes CAP_NET_ADMIN over the
 * namespace: GENL_MCAST_CAP_NET_ADMIN (v6.8 and the backports Debian 12's
 * 6.1 has), or GENL_UNS_ADMIN_PERM in the group's flags, the same check's
 * first form in older stable kernels (Debian 11's 5.10.223).  A kernel
 * with neither lets any process of the namespace join; hpcc_nl_init()
 * says so.
 */
static const struct genl_multicast_group hpcc_nl_mcgrps[] = {
	[HPCC_NLGRP_EVENTS] = {
		.name = HPCC_MCGRP_EVENTS,
#if defined(HPCC_HAVE_GENL_MCAST_CAP)
		.flags = GENL_MCAST_CAP_NET_ADMIN,
#elif defined(HPCC_HAVE_GENL_MCAST_FLAGS)
		.flags = GENL_UNS_ADMIN_PERM,
#endif
	},
};

static struct genl_family hpcc_genl_family __ro_after_init = {
	.name = HPCC_FAMILY_NAME,
	.version = HPCC_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = hpcc_nl_ops,
	.n_ops = ARRAY_SIZE(hpcc_nl_ops),
#ifdef HPCC_HAVE_GENL_RESV_START_OP
	.resv_start_op = HPCC_CMD_STATS_GET + 1,
#endif
	.mcgrps = hpcc_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(hpcc_nl_mcgrps),
};

/**
 * hpcc_nl_init() - register the family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int hpcc_nl_init(void)
{
#if !defined(HPCC_HAVE_GENL_MCAST_CAP) && !defined(HPCC_HAVE_GENL_MCAST_FLAGS)
	pr_notice("this kernel checks no capability for multicast groups: any process may join the events group\n");
#endif
	return genl_register_family(&hpcc_genl_family);
}

/**
 * hpcc_nl_exit() - unregister the family
 */
void hpcc_nl_exit(void)
{
	genl_unregister_family(&hpcc_genl_family);
}
