// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd push - telemetry pushes and flow-gets the loop does not wait for:
 * one batch of requests per burst of responses, their replies and refusals
 * read as they come and matched to their flows by sequence number.
 */

#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "hpccd.h"

/* Send the telemetry pushes of this burst of responses. */
void push_flush(void)
{
	int err;

	if (!D.push.batch)
		return;
	err = hpcc_genl_send_batch(&D.push.genl, D.push.batch);
	if (!err)
		D.counters[C_TELEMETRY_PUSHED] += D.push.npush;
	D.push.npush = 0;
	if (err) {
		/* the module refused the whole batch at the socket (it is
		 * going, or memory is short): its flows keep probing
		 */
		D.counters[C_SEND_ERRORS]++;
		logmsg(LOG_DEBUG, "telemetry push: %s", strerror(-err));
	}
	mnl_nlmsg_batch_reset(D.push.batch);
}

/*
 * push_slot() - where the next request of the burst's batch goes.  The
 * samples go as telemetry-push, whose reply comes only with news, when the
 * module has it; else as telemetry-set.
 */
static struct nlmsghdr *push_slot(void)
{
	if (!D.push.batch)
		D.push.batch = mnl_nlmsg_batch_start(D.push.buf, PUSH_BATCH);
	D.push.genl.family_id = D.link.req.family_id;
	D.push.genl.telemetry_cmd =
		D.link.req.ops & HPCC_HAS(HPCC_CMD_TELEMETRY_PUSH) ?
		HPCC_CMD_TELEMETRY_PUSH : HPCC_CMD_TELEMETRY_SET;
	return mnl_nlmsg_batch_current(D.push.batch);
}

/*
 * push_queued() - the request of sequence number @seq about flow @t (a
 * flow-get when @ask) is in push_slot(): remember it for its reply, and
 * send the batch when it is full (the batch without the last one, which
 * starts the next)
 */
static void push_queued(uint32_t seq, bool ask, const struct hpcc_tuple *t)
{
	D.push.ring[seq % PUSH_RING].seq = seq;
	D.push.ring[seq % PUSH_RING].ask = ask;
	D.push.ring[seq % PUSH_RING].t = *t;
	D.push.npush += !ask;
	if (!mnl_nlmsg_batch_next(D.push.batch)) {
		/* this one starts the next batch */
		D.push.npush -= !ask;
		push_flush();
		D.push.npush = !ask;
	}
}

/* Queue a sample for flow @t (push_slot()'s command); the batch goes out
 * when it is full or at the end of the burst (push_flush()).
 */
void push_add(const struct hpcc_tuple *t, const struct hpcc_pkt *p)
{
	push_queued(hpcc_genl_telemetry_put(&D.push.genl, push_slot(), t,
					    p->hops, p->nhop, p->n_flows),
		    false, t);
}

/*
 * A sample the receiver computed: its W when receiver-based (or none: W
 * updated there), else its U (the privacy mode that carries only U).
 */
void push_add_rx(const struct hpcc_tuple *t, const struct hpcc_pkt *p)
{
	struct nlmsghdr *nlh = push_slot();
	uint32_t seq;

	if (p->mode & HPCC_WIRE_MODE_RX)
		seq = hpcc_genl_telemetry_put_rx(&D.push.genl, nlh, t, NULL, 0,
						 p->n_flows, true, p->w_rx);
	else
		seq = hpcc_genl_telemetry_put_u(&D.push.genl, nlh, t,
						p->n_flows, p->u_rx);
	push_queued(seq, false, t);
}

/*
 * ask_flow() - ask the module about idle @f (has it data in flight?)
 * without waiting: a flow-get in the burst's batch, sent by push_flush()
 * with the telemetry pushes, its reply read with theirs (flow_got(), or
 * push_err_cb()).  Until the reply @f is HPCCD_ASKING; if no reply comes
 * (lost to a full receive buffer), it is asked again after its timeout
 * (hpccd_ask()).  The reply is taken only while @f is still asked that
 * question (hpccd_answered()): a late one, after the flow was probed or
 * asked again, is ignored.  A flow that is not idle (probed meanwhile,
 * or already asked) is left alone.
 */
void ask_flow(struct hpccd_flow *f)
{
	uint32_t seq;

	if (!D.link.req.family_id || f->state != HPCCD_IDLE)
		return;
	seq = hpcc_genl_flow_get_put(&D.push.genl, push_slot(), &f->t);
	hpccd_ask(&D.sched, f, now_ns(), seq);
	D.counters[C_FLOW_GETS]++;
	push_queued(seq, true, &f->t);
}

/* The push that carried sequence number @seq, if the ring still has it. */
static struct hpccd_flow *push_flow(uint32_t seq)
{
	if (D.push.ring[seq % PUSH_RING].seq != seq)
		return NULL;
	return hpccd_flow_find(&D.sched, &D.push.ring[seq % PUSH_RING].t);
}

/* The module took a push: what it says of the flow now (telemetry-push:
 * only when it has news, so a flow keeps what the last reply said).  The
 * reply names no flow (in-flight and srtt only); its sequence number
 * does.  Or the reply to a flow-get of ask_flow().
 */
static int push_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	uint32_t seq = nlh->nlmsg_seq;
	struct hpcc_flow_msg m;
	struct hpccd_flow *f;

	if (hpcc_genl_flow_cb(nlh, &m) != MNL_CB_OK)
		return MNL_CB_OK;
	if (m.cmd == HPCC_CMD_FLOW_GET) {
		f = push_flow(seq);
		/* not a late reply: the flow is still asked this question */
		if (f && D.push.ring[seq % PUSH_RING].ask &&
		    hpccd_answered(&D.sched, f, seq))
			flow_got(f, &m);
		return MNL_CB_OK;
	}
	if (m.cmd != HPCC_CMD_TELEMETRY_SET &&
	    m.cmd != HPCC_CMD_TELEMETRY_PUSH)
		return MNL_CB_OK;
	D.counters[C_TELEMETRY_REPLIES]++;
	f = push_flow(nlh->nlmsg_seq);
	/* a flow whose sending resumed while its last probe was out is
	 * probed again
	 */
	if (f)
		flow_take(f, &m);
	return MNL_CB_OK;
}

/* The module refused a push or a flow-get: the flow is gone, or it backs
 * off.
 */
static void push_err_cb(uint32_t seq, int err, void *data)
{
	struct hpccd_flow *f = push_flow(seq);
	bool ask = D.push.ring[seq % PUSH_RING].seq == seq &&
		   D.push.ring[seq % PUSH_RING].ask;

	/* a late refusal of a flow-get: the flow was probed or asked again
	 * since (a flow-active, so it lives), and what happened since says
	 * more; only a refusal other than ENOENT is counted
	 */
	if (ask && f && !hpccd_answered(&D.sched, f, seq)) {
		D.counters[C_FLOW_GETS_FAILED] += err != -ENOENT;
		return;
	}
	if (err == -ENOENT) {
		D.counters[C_FLOWS_GONE]++;
		if (f)
			flow_forget(f);
		return;
	}
	if (ask) {
		/* the module is busy or going: ask again after a backoff */
		D.counters[C_FLOW_GETS_FAILED]++;
		logmsg(LOG_DEBUG, "flow-get: %s", strerror(-err));
		if (f)
			hpccd_backoff(&D.sched, f, now_ns());
		return;
	}
	/* counted; the flow asks again after a backoff, so a refusal never
	 * ends its probing (nor turns into a loop)
	 */
	D.counters[C_TELEMETRY_REJECTED]++;
	logmsg(LOG_DEBUG, "telemetry refused: %s", strerror(-err));
	if (f)
		hpccd_backoff(&D.sched, f, now_ns());
}

void read_push_replies(void)
{
	hpcc_genl_read_replies(&D.push.genl, 64, push_reply_cb, push_err_cb,
			       NULL, &D.counters[C_PUSH_REPLIES_LOST]);
}
