// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd link - the module link: the flow table kept as the module's (flow-
 * get dumps, flow-new, flow-active and flow-del events, reconcile and
 * resync after lost events), the module found again when it comes and goes
 * (nlctrl notifications, family lookups), its parameters read, the packet
 * filters set to its DSCPs and the notify keys pushed to it.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <syslog.h>
#include <linux/filter.h>
#include <linux/genetlink.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "hpccd.h"

static void check_flow(struct hpccd_flow *f);
static void read_params(void);

/*
 * flow_msg_tuple() - hpcc_flow_msg_tuple() for events and dumps alike,
 * counting the IPv6 flows this hpccd cannot probe (ipv6-ignored: it has no
 * IPv6 sockets, on a host without IPv6)
 */
static bool flow_msg_tuple(const struct hpcc_flow_msg *m, struct hpcc_tuple *t)
{
	if (!hpcc_flow_msg_tuple(m, t))
		return false;
	if (t->family == AF_INET6 && (D.io.raw6_fd < 0 || D.io.pkt6_fd < 0)) {
		D.counters[C_IPV6_IGNORED]++;
		return false;
	}
	return true;
}

/*
 * flow_learn() - the flow of @t, added if new; NULL for another shard's
 * (each shard sees every event and dump, and keeps its own flows) or when
 * the table is full (flows-over-limit)
 */
static struct hpccd_flow *flow_learn(const struct hpcc_tuple *t)
{
	struct hpccd_flow *f;
	bool created;

	if (hpccd_shard_of(t, D.nshards) != D.shard)
		return NULL;
	f = hpccd_flow_add(&D.sched, t, &created);
	if (!f) {
		D.counters[C_FLOWS_OVER_LIMIT]++;
		return NULL;
	}
	if (created)
		D.counters[C_FLOWS_ADDED]++;
	/* not the flow's identity: the module's newest word on its path */
	f->t.flowlabel = t->flowlabel;
	return f;
}

void flow_forget(struct hpccd_flow *f)
{
	hpccd_flow_remove(&D.sched, f);
	D.counters[C_FLOWS_REMOVED]++;
}

/*
 * flow_take() - what a message of the module (a dump's, a flow-get's or
 * a telemetry-set's reply) says of @f now: its srtt, whether it has data
 * in flight, its CC indicator if the message gives it; and probe it if it
 * has data in flight
 */
void flow_take(struct hpccd_flow *f, const struct hpcc_flow_msg *m)
{
	f->srtt_us = m->a.srtt;
	f->in_flight = m->a.in_flight;
	if (m->a.present & HPCC_HAS(HPCC_A_FLOW_CCM_CC))
		f->ccm_cc = m->a.ccm_cc;
	if (f->in_flight)
		probe_want(f);
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_flow_msg m;
	struct hpccd_flow *f;
	struct hpcc_tuple t;

	if (hpcc_genl_flow_cb(nlh, &m) != MNL_CB_OK)
		return MNL_CB_OK;
	if (!flow_msg_tuple(&m, &t))
		return MNL_CB_OK;
	f = flow_learn(&t);
	if (f)
		flow_take(f, &m);
	return MNL_CB_OK;
}

/*
 * Events were lost (ENOBUFS): the events still queued predate the dump
 * that follows, so they are dropped unread; the dump brings the table up
 * to date (flows the module no longer has are forgotten).
 */
static void drain_events(void)
{
	char buf[4096];
	int fd = mnl_socket_get_fd(D.link.ev.nl);

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0 ||
	       errno == ENOBUFS || errno == EINTR)
		;
}

static void check_unseen(struct hpccd_flow *f, void *data)
{
	check_flow(f);
}

/* A family lookup that failed waits 1 s, doubled at each failure ... */
#define LOOKUP_RETRY_MIN_NS	1000000000ULL
/* ... up to reconcile-s (cfg.reconcile_s). */

/*
 * lookup_later() - look the family up again later: after a lookup that
 * failed, or while the module is away (its notification, when it is
 * loaded again, may be lost in an event overrun).  The wait starts at
 * LOOKUP_RETRY_MIN_NS and doubles at each call, up to reconcile-s.
 */
static void lookup_later(uint64_t now)
{
	uint64_t max = D.cfg.reconcile_s * 1000000000ULL;

	D.link.lookup_retry_ns = D.link.lookup_retry_ns ?
				 2 * D.link.lookup_retry_ns :
				 LOOKUP_RETRY_MIN_NS;
	if (D.link.lookup_retry_ns > max)
		D.link.lookup_retry_ns = max;
	D.link.reconcile_at = now + D.link.lookup_retry_ns;
}

/*
 * module_params() - read the module's parameters again (a reload, a
 * resync that found the same family) and bring the packet filters to its
 * DSCPs and IFA protocol: attach_filter() replaces them only when those
 * changed (logged here), and replacing a filter drains nothing, so no
 * queued probe or response is lost; a filter whose attach failed before
 * is attached now.
 */
void module_params(void)
{
	uint8_t pd = D.link.probe_dscp, rd = D.link.response_dscp;
	uint8_t id = D.link.int_dscp, ip = D.link.ifa_protocol;
	int err;

	read_params();
	if (pd != D.link.probe_dscp || rd != D.link.response_dscp ||
	    id != D.link.int_dscp || ip != D.link.ifa_protocol)
		logmsg(LOG_INFO, "module parameters changed: probe DSCP %u, response DSCP %u, INT DSCP %u, IFA protocol %u",
		       D.link.probe_dscp, D.link.response_dscp,
		       D.link.int_dscp, D.link.ifa_protocol);
	err = attach_filter();
	if (err)
		logmsg(LOG_ERR, "packet filter: %s", strerror(-err));
}

/* join_events() - the module's events group on the event socket */
static void join_events(void)
{
	if (mnl_socket_setsockopt(D.link.ev.nl, NETLINK_ADD_MEMBERSHIP,
				  &D.link.ev.events_grp,
				  sizeof(D.link.ev.events_grp)) < 0)
		logmsg(LOG_ERR, "join events: %s", strerror(errno));
}

/*
 * setup_again() - the per-connection setup (the module's parameters and
 * the packet filters, module_params(); the notify keys; the events
 * group), done again for a family whose ids did not change: a module
 * reloaded while events were lost may get the same family id and group
 * back, and then has its defaults and no keys.
 */
static void setup_again(void)
{
	join_events();
	module_params();
	push_nkeys();
}

/*
 * resync_family() - after lost events, look the family up again: nlctrl's
 * notifications (family removed, family added) come on the event socket
 * with the module's events, so an overrun can lose them, and the drain
 * before the dump discards those still queued.  A module unloaded during
 * the overrun leaves a family id that no longer exists, and one loaded
 * again a new id and events group (or, the ids being reused, the same
 * ones): dumping the old id would fail at every resync and reconcile, for
 * good, and a module with the same ids would run without the parameters
 * and keys hpccd sets.
 *
 * Return: 1 when the family changed: hpccd reconnected to the new one
 * (reconnects; connect_module() dumped its flows) or, the module being
 * gone, dropped its flows and looks for it later; 0 when the ids are the
 * same: the per-connection setup is done again (setup_again()) and the
 * caller dumps; a negative errno when the lookup itself failed (a
 * timeout, memory): the ids are kept, the resync stays pending and is
 * tried again after lookup_later()'s wait.
 */
static int resync_family(void)
{
	uint16_t id = D.link.req.family_id;
	uint32_t grp = D.link.req.events_grp;
	int err;

	D.counters[C_FAMILY_LOOKUPS]++;
	err = hpcc_genl_resolve(&D.link.req);
	if (err && err != -ENOENT) {
		D.link.req.family_id = id;
		D.link.req.events_grp = grp;
		D.counters[C_FAMILY_LOOKUPS_FAILED]++;
		lookup_later(now_ns());
		logmsg(LOG_WARNING, "resync: family lookup: %s; again in %" PRIu64 " ms",
		       strerror(-err), D.link.lookup_retry_ns / 1000000);
		return err;
	}
	D.link.resync_pending = false;
	D.link.lookup_retry_ns = 0;
	D.counters[C_RESYNCS]++;
	if (!err && D.link.req.family_id == id &&
	    D.link.req.events_grp == grp) {
		setup_again();
		return 0;
	}
	if (err) {
		logmsg(LOG_INFO, "module unloaded while events were lost");
		hpccd_sched_clear(&D.sched);
		D.link.req.family_id = D.link.ev.family_id = 0;
		lookup_later(now_ns());
		return 1;
	}
	logmsg(LOG_INFO, "module reloaded while events were lost: family %u, now %u",
	       id, D.link.req.family_id);
	D.counters[C_RECONNECTS]++;
	connect_module();
	return 1;
}

/*
 * lookup_module() - the module is away: look its family up (its
 * notification when it was loaded may have been lost in an event
 * overrun, or hpccd may have seen it go and lost the one of its return)
 * and connect when it is there; otherwise look again later
 * (lookup_later()).
 */
static void lookup_module(uint64_t now)
{
	int err;

	D.counters[C_FAMILY_LOOKUPS]++;
	err = hpcc_genl_resolve(&D.link.req);
	if (err) {
		if (err != -ENOENT) {
			D.counters[C_FAMILY_LOOKUPS_FAILED]++;
			logmsg(LOG_DEBUG, "family lookup: %s", strerror(-err));
		}
		lookup_later(now);
		return;
	}
	logmsg(LOG_INFO, "module found by a lookup");
	D.counters[C_RECONNECTS]++;
	connect_module();
}

/*
 * reconcile() - make the flow table the module's: dump its flows (learning
 * new ones, probing those with data in flight) and forget those it did not
 * list.  Probe state of the flows that stay is kept.  After lost events
 * (D.link.resync_pending) the queued events are drained first, and the
 * family is looked up again (resync_family()); a lookup that fails keeps
 * the resync pending, tried again with a backoff.  While the module is
 * away it is looked up instead (lookup_module()).  A dump the table
 * changed under (NLM_F_DUMP_INTR) may have missed live flows: those it did
 * not list are looked up one by one instead (dumps-interrupted).
 */
void reconcile(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint64_t start = now_ns();
	uint32_t gone;
	int err;

	D.link.reconcile_at = start + D.cfg.reconcile_s * 1000000000ULL;
	if (!D.link.req.family_id) {
		if (D.link.resync_pending) {
			D.link.resync_pending = false;
			D.counters[C_RESYNCS]++;
			drain_events();
		}
		lookup_module(start);
		return;
	}
	if (D.link.resync_pending) {
		drain_events();
		if (resync_family())
			return;
	}
	hpccd_reconcile_begin(&D.sched);
	err = hpcc_genl_talk(&D.link.req,
			     hpcc_genl_msg(&D.link.req, buf, HPCC_CMD_FLOW_GET,
					   NLM_F_DUMP), dump_cb, NULL);
	D.link.dump_end = now_ns();
	D.link.dump_ns = D.link.dump_end - start;
	if (err == -EINTR) {
		/* the table changed between the dump's parts: a flow it did
		 * not list may live on (the kernel's resume index shifted
		 * past it), so each is asked for by itself (check_flow():
		 * ENOENT forgets it, and counts flows-gone)
		 */
		D.counters[C_DUMPS_INTERRUPTED]++;
		D.counters[C_RECONCILES]++;
		gone = D.counters[C_FLOWS_GONE];
		/* the dump's probes leave before those lookups wait */
		tx_flush();
		hpccd_reconcile_unseen(&D.sched, check_unseen, NULL);
		gone = (uint32_t)(D.counters[C_FLOWS_GONE] - gone);
		D.counters[C_FLOWS_RECONCILED] += gone;
		return;
	}
	if (err) {
		logmsg(LOG_WARNING, "flow dump: %s", strerror(-err));
		return;
	}
	gone = hpccd_reconcile_end(&D.sched);
	D.counters[C_RECONCILES]++;
	D.counters[C_FLOWS_RECONCILED] += gone;
	D.counters[C_FLOWS_REMOVED] += gone;
	if (gone)
		logmsg(LOG_INFO, "reconcile: forgot %u flows the module no longer has",
		       gone);
}

/*
 * rx_params() - the parameters receiver-based flows run with: the
 * module's, converted as the module converts them (hpcc_cfg_build(),
 * kernel/tcp_hpcc/net.c).  A module that does not report them all leaves
 * receiver-based requests refused.
 */
static void rx_params(const struct hpcc_params_attrs *a)
{
	const uint64_t need = HPCC_HAS(HPCC_A_PARAMS_T) |
			      HPCC_HAS(HPCC_A_PARAMS_ETA) |
			      HPCC_HAS(HPCC_A_PARAMS_MAX_STAGE) |
			      HPCC_HAS(HPCC_A_PARAMS_W_INIT) |
			      HPCC_HAS(HPCC_A_PARAMS_W_MIN) |
			      HPCC_HAS(HPCC_A_PARAMS_W_AI_EFF);
	struct hpcc_params p;

	D.rx.params_ok = false;
	if ((a->present & need) != need)
		return;
	hpcc_params_default(&p);
	p.t_ns = (uint64_t)a->t * 1000;
	p.eta = (((uint64_t)a->eta << HPCC_U_SHIFT) + 500) / 1000;
	p.max_stage = a->max_stage;
	if (a->present & HPCC_HAS(HPCC_A_PARAMS_EWMA_PERIOD))
		p.ewma_pct = a->ewma_period;
	p.w_init = a->w_init << HPCC_W_SHIFT;
	p.w_min = (uint64_t)a->w_min << HPCC_W_SHIFT;
	p.w_ai = a->w_ai_eff << HPCC_W_SHIFT;
	if (!hpcc_params_valid(&p)) {
		logmsg(LOG_WARNING, "params-get: parameters the algorithm refuses; receiver-based requests refused");
		return;
	}
	D.rx.params = p;
	D.rx.params_ok = true;
}

static void read_params(void)
{
	const uint64_t need = HPCC_HAS(HPCC_A_PARAMS_PROBE_DSCP) |
			      HPCC_HAS(HPCC_A_PARAMS_RESPONSE_DSCP);
	struct hpcc_params_attrs p;
	int err = hpcc_genl_params(&D.link.req, &p);

	if (!err && (p.present & need) != need)
		err = -EPROTO;
	if (err) {
		logmsg(LOG_WARNING, "params-get: %s", strerror(-err));
		return;
	}
	D.link.probe_dscp = p.probe_dscp;
	D.link.response_dscp = p.response_dscp;
	/* a module without int-dscp: INT-MD probes take the probe DSCP */
	D.link.int_dscp = p.present & HPCC_HAS(HPCC_A_PARAMS_INT_DSCP) ?
			  p.int_dscp : p.probe_dscp;
	rx_params(&p);
	/* a module without IFA support: the default, which it ignores */
	D.link.ifa_protocol = p.present & HPCC_HAS(HPCC_A_PARAMS_IFA_PROTOCOL) ?
			      p.ifa_protocol : HPCC_IFA_PROTOCOL;
}

/*
 * set_filter() - attach @code to @fd; @first: the socket had no filter,
 * and what it queued meanwhile is drained (unfiltered).  Replacing a
 * filter drains nothing: what the old one let in are probes and responses
 * still to be read (the DSCP checks count the others).
 */
static int set_filter(int fd, struct sock_filter *code, unsigned short len,
		      bool first)
{
	struct sock_fprog prog = { .len = len, .filter = code };
	char drain[64];

	if (fd < 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) < 0)
		return -errno;
	while (first && recv(fd, drain, sizeof(drain), MSG_DONTWAIT) >= 0)
		;
	return 0;
}

/*
 * The AF_PACKET filters (SOCK_DGRAM: offset 0 is the IP header): not
 * outgoing; IPv4: TCP or the module's ifa-protocol (IFA probes); IPv6: a
 * next header of TCP, of ifa-protocol, or of an extension header that
 * hpcc_parse() walks (hop-by-hop 0, routing 43, destination options 60;
 * what follows them is its to check and count); then the DSCP of a
 * probe, an INT-MD probe or a response (IPv4: the TOS byte's high 6 bits;
 * IPv6: the traffic class's, bits 4-9 of the first 16-bit word).  Frames
 * not addressed to this host pass, to be counted (probes-not-unicast) and
 * dropped.
 */
int attach_filter(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 8, 0),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.ifa_protocol, 0, 5),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 1),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.probe_dscp, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.int_dscp, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.response_dscp, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
	};
	struct sock_filter code6[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS,
				 SKF_AD_OFF + SKF_AD_PKTTYPE),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING,
				 12, 0),
		/* 2 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 4, 0),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.ifa_protocol,
				 3, 0),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_HOPOPTS,
				 2, 0),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ROUTING,
				 1, 0),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_DSTOPTS,
				 0, 6),
		/* 8 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
		/* 9 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 6),
		/* 10 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x3f),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.probe_dscp,
				  3, 0),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, D.link.int_dscp,
				  2, 0),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				  D.link.response_dscp, 1, 0),
		/* 14 */ BPF_STMT(BPF_RET | BPF_K, 0),
		/* 15 */ BPF_STMT(BPF_RET | BPF_K, 0xffff),
	};
	uint8_t want[4] = {
		D.link.probe_dscp, D.link.response_dscp, D.link.int_dscp,
		D.link.ifa_protocol
	};
	bool first = !D.io.filter_on;
	int err;

	/* a reload or reconnect with the same DSCPs: nothing to change */
	if (D.io.filter_on && !memcmp(D.io.filter_of, want, sizeof(want)))
		return 0;
	err = set_filter(D.io.pkt_fd, code, sizeof(code) / sizeof(code[0]),
			 first);
	if (!err)
		err = set_filter(D.io.pkt6_fd, code6,
				 sizeof(code6) / sizeof(code6[0]), first);
	if (err)
		return err;
	D.io.filter_on = true;
	memcpy(D.io.filter_of, want, sizeof(want));
	return 0;
}

/*
 * push_nkeys() - the key file's notify-key lines to the module (fcr-set
 * key nests: tcp_hpcc checks FCR messages and CCM notifications with
 * them), at the start, at each reload and when the module appears, once
 * the file has had such lines; a file without them any more flushes the
 * keys hpccd set (the module keeps those it removes for its key-overlap).
 * A failure is logged and counted; the keys are pushed again at the next
 * reload or module load.
 */
void push_nkeys(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int err;

	/* the module's, one set for the namespace: shard 0's to set */
	if (!D.link.req.family_id || !D.keys.nkeys_owned || D.shard)
		return;
	nlh = hpcc_genl_msg(&D.link.req, buf, HPCC_CMD_FCR_SET, 0);
	hpcc_genl_nkeys_put(nlh, D.keys.nkeys, D.keys.n_nkeys,
			    &hpcc_fcr_nkey_attrs);
	err = hpcc_genl_talk(&D.link.req, nlh, NULL, NULL);
	explicit_bzero(buf, sizeof(buf));
	if (err) {
		D.counters[C_NKEYS_PUSH_FAILED]++;
		logmsg(LOG_ERR, "notify keys: fcr-set: %s%s%s", strerror(-err),
		       D.link.req.extack[0] ? ": " : "", D.link.req.extack);
		return;
	}
	D.counters[C_NKEYS_PUSHED]++;
	logmsg(LOG_INFO, "notify keys: %u set in the module", D.keys.n_nkeys);
	if (!D.keys.n_nkeys)
		D.keys.nkeys_owned = false;
}

void connect_module(void)
{
	int err;

	/* what was queued leaves before the requests below wait */
	tx_flush();
	hpccd_sched_clear(&D.sched);
	/* ev never sends requests: replies would mix with events */
	if (hpcc_genl_resolve(&D.link.req)) {
		D.link.ev.family_id = 0;
		logmsg(LOG_INFO, "module not loaded; waiting for it");
		lookup_later(now_ns());
		return;
	}
	D.link.lookup_retry_ns = 0;
	D.link.ev.family_id = D.link.req.family_id;
	D.link.ev.events_grp = D.link.req.events_grp;
	join_events();
	read_params();
	push_nkeys();
	err = attach_filter();
	if (err)
		logmsg(LOG_ERR, "packet filter: %s", strerror(-err));
	reconcile();
	logmsg(LOG_INFO, "connected: family %u, probe DSCP %u, response DSCP %u, INT DSCP %u, %u flows",
	       D.link.req.family_id, D.link.probe_dscp, D.link.response_dscp,
	       D.link.int_dscp, D.sched.nflows);
}

/* nlctrl notification: the family was added or removed. */
static void ctrl_event(const struct nlmsghdr *nlh, uint8_t cmd)
{
	const struct nlattr *a;
	bool ours = false;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0 &&
		    !strcmp(mnl_attr_get_str(a), HPCC_FAMILY_NAME))
			ours = true;
	if (!ours)
		return;
	if (cmd == CTRL_CMD_DELFAMILY) {
		logmsg(LOG_INFO, "module unloaded");
		hpccd_sched_clear(&D.sched);
		D.link.req.family_id = D.link.ev.family_id = 0;
		/* looked up later too: its notification may be lost */
		D.link.lookup_retry_ns = 0;
		lookup_later(now_ns());
	} else if (cmd == CTRL_CMD_NEWFAMILY) {
		D.counters[C_RECONNECTS]++;
		connect_module();
	}
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	struct hpcc_flow_msg m;
	struct hpccd_flow *f;
	struct hpcc_tuple t;

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		ctrl_event(nlh, gh->cmd);
		return MNL_CB_OK;
	}
	if (!D.link.ev.family_id || nlh->nlmsg_type != D.link.ev.family_id)
		return MNL_CB_OK;
	D.counters[C_EVENTS]++;
	if (hpcc_genl_flow_cb(nlh, &m) != MNL_CB_OK)
		return MNL_CB_OK;
	if (!flow_msg_tuple(&m, &t))
		return MNL_CB_OK;
	switch (m.cmd) {
	case HPCC_CMD_FLOW_NEW:
		flow_learn(&t);
		break;
	case HPCC_CMD_FLOW_ACTIVE:
		f = flow_learn(&t);
		if (f) {
			f->losses_in_row = 0;
			/* in flight: the event says so */
			m.a.in_flight = true;
			flow_take(f, &m);
		}
		break;
	case HPCC_CMD_FLOW_DEL:
		f = hpccd_flow_find(&D.sched, &t);
		if (f)
			flow_forget(f);
		break;
	}
	return MNL_CB_OK;
}

/* A resync waits at least this long after the last dump ended ... */
#define RESYNC_GAP_MIN_NS	1000000000ULL
/* ... and twice as long as that dump took: dumps after lost events take at
 * most a third of the daemon's time however fast events are lost.
 */
#define RESYNC_GAP_DUMPS	2

/*
 * Events were lost (ENOBUFS): schedule a resync, a dump that drains the
 * event queue first (reconcile()).  It runs from the timer, not at once:
 * under a burst of events that overruns the socket again while a large
 * table is dumped, resyncing back to back would leave no time for probes,
 * responses, signals or the events themselves.  Until it runs, the events
 * that still arrive are applied as usual.
 */
static void resync_request(void)
{
	uint64_t at = D.link.dump_end + RESYNC_GAP_MIN_NS;

	if (at < D.link.dump_end + RESYNC_GAP_DUMPS * D.link.dump_ns)
		at = D.link.dump_end + RESYNC_GAP_DUMPS * D.link.dump_ns;
	if (!D.link.resync_pending)
		logmsg(LOG_WARNING, "events overrun; resync");
	D.link.resync_pending = true;
	if (at < D.link.reconcile_at)
		D.link.reconcile_at = at;
}

/* Reads per call: the loop serves packets and timers between bursts. */
#define EVENT_READS		64

void read_events(void)
{
	char buf[1 << 16];
	ssize_t n;
	int i;

	for (i = 0; i < EVENT_READS; i++) {
		n = recv(mnl_socket_get_fd(D.link.ev.nl), buf, sizeof(buf),
			 MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				resync_request();
				continue;
			}
			return;
		}
		mnl_cb_run(buf, n, 0, 0, event_cb, NULL);
	}
}

/*
 * flow_got() - the module's flow-get reply @m about @f: probe it if it still
 * has data in flight
 */
void flow_got(struct hpccd_flow *f, const struct hpcc_flow_msg *m)
{
	struct hpcc_tuple t;

	/* the label, as events and dumps give it (hpcc_flow_msg_tuple()) */
	if (hpcc_flow_msg_tuple(m, &t))
		f->t.flowlabel = t.flowlabel;
	flow_take(f, m);
}

/*
 * check_flow() - ask the module about @f and wait for the answer (after a
 * dump that may have missed it: reconcile()); a flow the module no longer
 * has (ENOENT) is forgotten.  The probe cycle asks without waiting:
 * ask_flow().
 */
static void check_flow(struct hpccd_flow *f)
{
	struct hpcc_flow_msg m;
	int err = hpcc_genl_flow_get(&D.link.req, &f->t, &m);

	if (err == -ENOENT) {
		D.counters[C_FLOWS_GONE]++;
		flow_forget(f);
		return;
	}
	if (err) {
		/* the module is busy or going: try again after a backoff */
		logmsg(LOG_DEBUG, "flow-get: %s", strerror(-err));
		hpccd_backoff(&D.sched, f, now_ns());
		return;
	}
	flow_got(f, &m);
}
