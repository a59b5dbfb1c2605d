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

	if (!D.push_batch)
		return;
	err = hpcc_genl_send_batch(&D.push, D.push_batch);
	if (err) {
		/* the module refused the whole batch at the socket (it is
		 * going, or memory is short): its flows keep probing
		 */
		D.counters[C_SEND_ERRORS]++;
		logmsg(LOG_DEBUG, "telemetry-set: %s", strerror(-err));
	}
	mnl_nlmsg_batch_reset(D.push_batch);
}

/* Queue a telemetry-set for flow @t; the batch goes out when it is full or
 * at the end of the burst (push_flush()).
 */
void push_add(const struct hpcc_tuple *t, const struct hpcc_pkt *p)
{
	uint32_t seq;

	if (!D.push_batch)
		D.push_batch = mnl_nlmsg_batch_start(D.push_buf, PUSH_BATCH);
	D.push.family_id = D.req.family_id;
	seq = hpcc_genl_telemetry_put(&D.push,
				      mnl_nlmsg_batch_current(D.push_batch),
				      t, p->hops, p->nhop, p->n_flows);
	D.push_ring[seq % PUSH_RING].seq = seq;
	D.push_ring[seq % PUSH_RING].ask = false;
	D.push_ring[seq % PUSH_RING].t = *t;
	if (!mnl_nlmsg_batch_next(D.push_batch))
		push_flush();	/* the batch without the last one */
}

/*
 * A sample the receiver computed: its W when receiver-based (or none: W
 * updated there), else its U (the privacy mode that carries only U).
 */
void push_add_rx(const struct hpcc_tuple *t, const struct hpcc_pkt *p)
{
	uint32_t seq;

	if (!D.push_batch)
		D.push_batch = mnl_nlmsg_batch_start(D.push_buf, PUSH_BATCH);
	D.push.family_id = D.req.family_id;
	if (p->mode & HPCC_WIRE_MODE_RX)
		seq = hpcc_genl_telemetry_put_rx(&D.push,
						 mnl_nlmsg_batch_current(D.push_batch),
						 t, NULL, 0, p->n_flows, true,
						 p->w_rx);
	else
		seq = hpcc_genl_telemetry_put_u(&D.push,
						mnl_nlmsg_batch_current(D.push_batch),
						t, p->n_flows, p->u_rx);
	D.push_ring[seq % PUSH_RING].seq = seq;
	D.push_ring[seq % PUSH_RING].ask = false;
	D.push_ring[seq % PUSH_RING].t = *t;
	if (!mnl_nlmsg_batch_next(D.push_batch))
		push_flush();
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

	if (!D.req.family_id || f->state != HPCCD_IDLE)
		return;
	if (!D.push_batch)
		D.push_batch = mnl_nlmsg_batch_start(D.push_buf, PUSH_BATCH);
	D.push.family_id = D.req.family_id;
	seq = hpcc_genl_flow_get_put(&D.push,
				     mnl_nlmsg_batch_current(D.push_batch),
				     &f->t);
	hpccd_ask(&D.sched, f, now_ns(), seq);
	D.push_ring[seq % PUSH_RING].seq = seq;
	D.push_ring[seq % PUSH_RING].ask = true;
	D.push_ring[seq % PUSH_RING].t = f->t;
	D.counters[C_FLOW_GETS]++;
	if (!mnl_nlmsg_batch_next(D.push_batch))
		push_flush();
}

/* The push that carried sequence number @seq, if the ring still has it. */
static struct hpccd_flow *push_flow(uint32_t seq)
{
	if (D.push_ring[seq % PUSH_RING].seq != seq)
		return NULL;
	return hpccd_flow_find(&D.sched, &D.push_ring[seq % PUSH_RING].t);
}

/* The module took a push: what it says of the flow now.  The reply names
 * no flow (in-flight and srtt only); its sequence number does.  Or the
 * reply to a flow-get of ask_flow().
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
		if (f && D.push_ring[seq % PUSH_RING].ask &&
		    hpccd_answered(&D.sched, f, seq))
			flow_got(f, &m);
		return MNL_CB_OK;
	}
	if (m.cmd != HPCC_CMD_TELEMETRY_SET)
		return MNL_CB_OK;
	D.counters[C_TELEMETRY_PUSHED]++;
	f = push_flow(nlh->nlmsg_seq);
	if (!f)
		return MNL_CB_OK;
	f->srtt_us = m.a.srtt;
	f->in_flight = m.a.in_flight;
	flow_take_cc(f, &m);
	/* a flow whose sending resumed while its last probe was out */
	if (f->in_flight)
		probe_want(f);
	return MNL_CB_OK;
}

/* The module refused a push or a flow-get: the flow is gone, or it backs
 * off.
 */
static void push_err_cb(uint32_t seq, int err, void *data)
{
	struct hpccd_flow *f = push_flow(seq);
	bool ask = D.push_ring[seq % PUSH_RING].seq == seq &&
		   D.push_ring[seq % PUSH_RING].ask;

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
	logmsg(LOG_DEBUG, "telemetry-set: %s", strerror(-err));
	if (f)
		hpccd_backoff(&D.sched, f, now_ns());
}

void read_push_replies(void)
{
	hpcc_genl_read_replies(&D.push, 64, push_reply_cb, push_err_cb, NULL,
			       &D.counters[C_PUSH_REPLIES_LOST]);
}
