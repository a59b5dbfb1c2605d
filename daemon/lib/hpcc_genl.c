// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_genl.c - client of the "hpcc" generic netlink family on libmnl
 * (hpcc_genl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>

#include "hpcc_genl.h"

struct hpcc_ctrl_reply {
	const char *group;	/* the group to find */
	uint32_t grp;
	uint16_t id;
	uint64_t ops;		/* a bit per command id below 64 */
};

static void ctrl_ops(const struct nlattr *ops, struct hpcc_ctrl_reply *r)
{
	const struct nlattr *op, *a;

	mnl_attr_for_each_nested(op, ops)
		mnl_attr_for_each_nested(a, op)
			if (mnl_attr_get_type(a) == CTRL_ATTR_OP_ID &&
			    mnl_attr_validate(a, MNL_TYPE_U32) >= 0 &&
			    mnl_attr_get_u32(a) < 64)
				r->ops |= 1ULL << mnl_attr_get_u32(a);
}

static void ctrl_groups(const struct nlattr *groups, struct hpcc_ctrl_reply *r)
{
	const struct nlattr *grp, *a;

	mnl_attr_for_each_nested(grp, groups) {
		const char *name = NULL;
		uint32_t id = 0;

		mnl_attr_for_each_nested(a, grp) {
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				name = mnl_attr_get_str(a);
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
			    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(a);
		}
		if (name && !strcmp(name, r->group))
			r->grp = id;
	}
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_ctrl_reply *r = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			r->id = mnl_attr_get_u16(a);
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS)
			ctrl_groups(a, r);
		if (mnl_attr_get_type(a) == CTRL_ATTR_OPS)
			ctrl_ops(a, r);
	}
	return MNL_CB_OK;
}

static int ctrl_lookup(struct hpcc_genl *g, const char *family,
		       const char *group, uint16_t *id, uint32_t *grp,
		       uint64_t *ops)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_ctrl_reply r = { .group = group };
	struct nlmsghdr *nlh = hpcc_genl_msg(g, buf, CTRL_CMD_GETFAMILY, 0);
	struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	int err;

	nlh->nlmsg_type = GENL_ID_CTRL;
	gh->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	err = hpcc_genl_talk(g, nlh, ctrl_cb, &r);
	if (err)
		return err;
	if (!r.id)
		return -ENOENT;
	*id = r.id;
	*grp = r.grp;
	if (ops)
		*ops = r.ops;
	return 0;
}

int hpcc_genl_use_family(struct hpcc_genl *g, const char *family)
{
	uint32_t grp;
	int err;

	err = ctrl_lookup(g, family, "", &g->family_id, &grp, &g->ops);
	if (err)
		g->family_id = 0;
	return err;
}

int hpcc_genl_resolve(struct hpcc_genl *g)
{
	uint16_t ctrl_id;
	int err;

	g->family_id = 0;
	if (!g->notify_grp)
		ctrl_lookup(g, "nlctrl", "notify", &ctrl_id, &g->notify_grp,
			    NULL);
	err = ctrl_lookup(g, HPCC_FAMILY_NAME, HPCC_MCGRP_EVENTS,
			  &g->family_id, &g->events_grp, &g->ops);
	if (err)
		g->family_id = 0;
	return err;
}

int hpcc_genl_open(struct hpcc_genl *g, unsigned int timeout_ms)
{
	struct timeval tv = {
		.tv_sec = timeout_ms / 1000,
		.tv_usec = (timeout_ms % 1000) * 1000,
	};
	int one = 1;

	memset(g, 0, sizeof(*g));
	g->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!g->nl)
		return -errno;
	if (mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		hpcc_genl_close(g);
		return err;
	}
	mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(g->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (timeout_ms)
		setsockopt(mnl_socket_get_fd(g->nl), SOL_SOCKET, SO_RCVTIMEO,
			   &tv, sizeof(tv));
	return hpcc_genl_resolve(g);
}

void hpcc_genl_close(struct hpcc_genl *g)
{
	if (g->nl)
		mnl_socket_close(g->nl);
	g->nl = NULL;
	g->family_id = 0;
}

struct nlmsghdr *hpcc_genl_msg(struct hpcc_genl *g, void *buf, uint8_t cmd,
			       uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = g->family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++g->seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = HPCC_FAMILY_VERSION;
	return nlh;
}

/* What the callbacks of one request see. */
struct hpcc_talk {
	struct hpcc_genl *g;
	mnl_cb_t cb;
	void *data;
	bool intr;	/* a message was flagged NLM_F_DUMP_INTR */
};

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_talk *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/* The error reply: its errno and extack message (NLM_F_ACK_TLVS). */
static int err_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_talk *t = data;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&e->msg);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS &&
	    off <= mnl_nlmsg_get_payload_len(nlh))
		mnl_attr_for_each_payload((const void *)((const char *)e + off),
					  mnl_nlmsg_get_payload_len(nlh) - off) {
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
				snprintf(t->g->extack, sizeof(t->g->extack),
					 "%s", mnl_attr_get_str(attr));
		}
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_STOP;
}

/*
 * talk_run() - run the callbacks on the messages of @buf (@len bytes) that
 * answer request @seq from the kernel, skipping the others as iproute2
 * and libmnl's users do: a reply or dump part of an earlier request that
 * timed out (its sequence number is another) stays queued until read, and
 * taken for this request's reply it would fail this request and leave
 * this reply queued for the next one, and so on for every later request.
 * Skipped messages are counted in @g->skipped, and their flags are not
 * looked at: a stale dump part flagged NLM_F_DUMP_INTR says nothing of
 * this request.  NLM_F_DUMP_INTR on a message of this request is cleared
 * (libmnl would stop there with EINTR and leave the rest of the dump in
 * the socket for the next request to trip on) and noted in @t.
 *
 * Return: as mnl_cb_run2(): > 0 to read on, 0 at the ACK or NLMSG_DONE,
 * -1 with errno.
 */
static int talk_run(struct hpcc_genl *g, void *buf, size_t len,
		    unsigned int seq, unsigned int portid,
		    struct hpcc_talk *t, mnl_cb_t *ctl)
{
	struct nlmsghdr *nlh = buf;
	int n = (int)len, ret = MNL_CB_OK;

	while (mnl_nlmsg_ok(nlh, n)) {
		if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != portid) {
			g->skipped++;
		} else {
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
				nlh->nlmsg_flags &= ~NLM_F_DUMP_INTR;
				t->intr = true;
			}
			ret = mnl_cb_run2(nlh, nlh->nlmsg_len, seq, portid,
					  data_cb, t, ctl, NLMSG_MIN_TYPE);
			if (ret <= MNL_CB_STOP)
				return ret;
		}
		nlh = mnl_nlmsg_next(nlh, &n);
	}
	return ret;
}

static mnl_cb_t talk_ctl[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = err_cb, [NLMSG_DONE] = done_cb,
};

int hpcc_genl_run(struct hpcc_genl *g, void *buf, size_t len,
		  unsigned int seq, unsigned int portid, mnl_cb_t cb,
		  void *data, bool *intr)
{
	struct hpcc_talk t = { .g = g, .cb = cb, .data = data };
	int ret = talk_run(g, buf, len, seq, portid, &t, talk_ctl);

	*intr |= t.intr;
	return ret;
}

int hpcc_genl_talk(struct hpcc_genl *g, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	struct hpcc_talk t = { .g = g, .cb = cb, .data = data };
	unsigned int seq = nlh->nlmsg_seq, portid = mnl_socket_get_portid(g->nl);
	char buf[1 << 16];
	ssize_t n;
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	g->extack[0] = 0;
	g->talks++;
	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(g->nl, buf, sizeof(buf));
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		ret = talk_run(g, buf, n, seq, portid, &t, talk_ctl);
	} while (ret > 0);
	if (ret < 0)
		return -errno;
	return t.intr ? -EINTR : 0;
}

void hpcc_genl_put_tuple(struct nlmsghdr *nlh, const struct hpcc_tuple *t)
{
	if (t->family == AF_INET6) {
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, AF_INET6);
		mnl_attr_put(nlh, HPCC_A_FLOW_SADDR6, 16, t->saddr6);
		mnl_attr_put(nlh, HPCC_A_FLOW_DADDR6, 16, t->daddr6);
	} else {
		mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, AF_INET);
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_SADDR4, t->saddr);
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_DADDR4, t->daddr);
	}
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_SPORT, t->sport);
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_DPORT, t->dport);
}

static uint64_t attr_num(const struct nlattr *a)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1: return mnl_attr_get_u8(a);
	case 2: return mnl_attr_get_u16(a);
	case 4: return mnl_attr_get_u32(a);
	case 8: return mnl_attr_get_u64(a);
	default: return 0;
	}
}

static void attrs_hop(const struct nlattr *nest, struct hpcc_hop_rec *h)
{
	const struct nlattr *a;

	memset(h, 0, sizeof(*h));
	mnl_attr_for_each_nested(a, nest) {
		uint64_t v = attr_num(a);

		switch (mnl_attr_get_type(a)) {
		case HPCC_A_HOP_SWITCH_ID: h->switch_id = v; break;
		case HPCC_A_HOP_PORT_ID: h->port_id = v; break;
		case HPCC_A_HOP_RATE: h->rate = v; break;
		case HPCC_A_HOP_TS: h->ts = v; break;
		case HPCC_A_HOP_TX_BYTES: h->tx_bytes = v; break;
		case HPCC_A_HOP_QLEN: h->qlen = v; break;
		case HPCC_A_HOP_FLAGS: h->flags = v; break;
		case HPCC_A_HOP_TX_UTIL: h->tx_util = v; break;
		}
	}
}

int hpcc_genl_attrs_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_attrs *r = data;
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	memset(r, 0, sizeof(*r));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_ERROR;
	r->cmd = gh->cmd;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		uint16_t t = mnl_attr_get_type(a);

		if (t == HPCC_A_FLOW_HOP && r->cmd != HPCC_CMD_PARAMS_GET &&
		    r->cmd != HPCC_CMD_STATS_GET) {
			if (r->nhop < HPCC_MAX_HOPS)
				attrs_hop(a, &r->hops[r->nhop++]);
			continue;
		}
		if (t < HPCC_ATTRS_MAX) {
			r->has[t] = 1;
			r->v[t] = attr_num(a);
		}
		/* a flow's IPv6 addresses (binary, exactly 16 bytes) */
		if ((t == HPCC_A_FLOW_SADDR6 || t == HPCC_A_FLOW_DADDR6) &&
		    r->cmd != HPCC_CMD_PARAMS_GET &&
		    r->cmd != HPCC_CMD_STATS_GET) {
			if (mnl_attr_get_payload_len(a) == 16)
				memcpy(t == HPCC_A_FLOW_SADDR6 ? r->saddr6 :
				       r->daddr6, mnl_attr_get_payload(a), 16);
			else
				r->has[t] = 0;
		}
	}
	return MNL_CB_OK;
}

/*
 * genl_attrs() - the attributes after the genl header of @nlh: @first and
 * @len bytes; false when the message is too short for the header
 */
static bool genl_attrs(const struct nlmsghdr *nlh, const struct nlattr **first,
		       size_t *len)
{
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return false;
	*first = mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN);
	*len = mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN;
	return true;
}

int hpcc_genl_flow_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);
	struct hpcc_flow_msg *m = data;
	const struct nlattr *first;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (!genl_attrs(nlh, &first, &len))
		return MNL_CB_ERROR;
	m->cmd = gh->cmd;
	m->ignored = hpcc_flow_parse(first, len, &m->a);
	return MNL_CB_OK;
}

bool hpcc_flow_msg_tuple(const struct hpcc_flow_msg *m, struct hpcc_tuple *t)
{
	const uint64_t need = HPCC_HAS(HPCC_A_FLOW_FAMILY) |
		HPCC_HAS(HPCC_A_FLOW_SPORT) | HPCC_HAS(HPCC_A_FLOW_DPORT);
	const uint64_t v4 = HPCC_HAS(HPCC_A_FLOW_SADDR4) |
		HPCC_HAS(HPCC_A_FLOW_DADDR4);
	const uint64_t v6 = HPCC_HAS(HPCC_A_FLOW_SADDR6) |
		HPCC_HAS(HPCC_A_FLOW_DADDR6);

	if ((m->a.present & need) != need)
		return false;
	memset(t, 0, sizeof(*t));
	if (m->a.family == AF_INET && (m->a.present & v4) == v4) {
		t->saddr = m->a.saddr4;
		t->daddr = m->a.daddr4;
	} else if (m->a.family == AF_INET6 && (m->a.present & v6) == v6) {
		memcpy(t->saddr6, m->a.saddr6, 16);
		memcpy(t->daddr6, m->a.daddr6, 16);
		/* the label its data carries; 20 bits, whatever came */
		if (m->a.present & HPCC_HAS(HPCC_A_FLOW_FLOWLABEL))
			t->flowlabel = m->a.flowlabel & 0xfffff;
	} else {
		return false;
	}
	t->family = m->a.family;
	t->sport = m->a.sport;
	t->dport = m->a.dport;
	return true;
}

static int params_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *first;
	size_t len;

	if (!genl_attrs(nlh, &first, &len))
		return MNL_CB_ERROR;
	hpcc_params_parse(first, len, data);
	return MNL_CB_OK;
}

/* the command of a telemetry request: telemetry-set unless set otherwise */
static uint8_t telemetry_cmd(const struct hpcc_genl *g)
{
	return g->telemetry_cmd ? g->telemetry_cmd : HPCC_CMD_TELEMETRY_SET;
}

uint32_t hpcc_genl_telemetry_put(struct hpcc_genl *g, void *buf,
				 const struct hpcc_tuple *t,
				 const struct hpcc_hop_rec *hops, int nhop,
				 uint32_t n_flows)
{
	return hpcc_genl_telemetry_put_rx(g, buf, t, hops, nhop, n_flows,
					  false, 0);
}

uint32_t hpcc_genl_telemetry_put_rx(struct hpcc_genl *g, void *buf,
				    const struct hpcc_tuple *t,
				    const struct hpcc_hop_rec *hops, int nhop,
				    uint32_t n_flows, bool rx, uint32_t rx_w)
{
	struct nlmsghdr *nlh;
	int i;

	nlh = hpcc_genl_msg(g, buf, telemetry_cmd(g), 0);
	hpcc_genl_put_tuple(nlh, t);
	for (i = 0; i < nhop; i++) {
		struct nlattr *n = mnl_attr_nest_start(nlh, HPCC_A_FLOW_HOP);

		mnl_attr_put_u32(nlh, HPCC_A_HOP_SWITCH_ID, hops[i].switch_id);
		mnl_attr_put_u32(nlh, HPCC_A_HOP_PORT_ID, hops[i].port_id);
		mnl_attr_put_u64(nlh, HPCC_A_HOP_RATE, hops[i].rate);
		mnl_attr_put_u64(nlh, HPCC_A_HOP_TS, hops[i].ts);
		mnl_attr_put_u64(nlh, HPCC_A_HOP_TX_BYTES, hops[i].tx_bytes);
		mnl_attr_put_u64(nlh, HPCC_A_HOP_QLEN, hops[i].qlen);
		/* a partial record (Documentation/algorithm.rst) */
		if (hops[i].flags)
			mnl_attr_put_u32(nlh, HPCC_A_HOP_FLAGS, hops[i].flags);
		if (hops[i].flags & HPCC_HOP_FLAGS_TX_UTIL)
			mnl_attr_put_u32(nlh, HPCC_A_HOP_TX_UTIL,
					 hops[i].tx_util);
		mnl_attr_nest_end(nlh, n);
	}
	if (n_flows)
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_N_FLOWS, n_flows);
	if (rx)
		mnl_attr_put(nlh, HPCC_A_FLOW_RX_BASED, 0, NULL);
	if (rx && rx_w)
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_RX_W, rx_w);
	return nlh->nlmsg_seq;
}

uint32_t hpcc_genl_telemetry_put_u(struct hpcc_genl *g, void *buf,
				   const struct hpcc_tuple *t, uint32_t n_flows,
				   uint32_t u)
{
	struct nlmsghdr *nlh;

	nlh = hpcc_genl_msg(g, buf, telemetry_cmd(g), 0);
	hpcc_genl_put_tuple(nlh, t);
	if (n_flows)
		mnl_attr_put_u32(nlh, HPCC_A_FLOW_N_FLOWS, n_flows);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_RX_U, u);
	return nlh->nlmsg_seq;
}

const struct hpcc_nkey_attrs hpcc_fcr_nkey_attrs = {
	HPCC_A_FCR_KEY, HPCC_A_FCR_KEY_ID, HPCC_A_FCR_KEY_KEY,
	HPCC_A_FCR_KEY_ADDR4, HPCC_A_FCR_KEY_ADDR6, HPCC_A_FCR_KEY_PLEN,
	HPCC_A_FCR_KEY_ACCEPT, HPCC_A_FCR_KEYS_FLUSH,
};

const struct hpcc_nkey_attrs hpcc_int_nkey_attrs = {
	HPCC_INT_A_CONFIG_KEY, HPCC_INT_A_SIGN_KEY_ID, HPCC_INT_A_SIGN_KEY_KEY,
	HPCC_INT_A_SIGN_KEY_ADDR4, HPCC_INT_A_SIGN_KEY_ADDR6,
	HPCC_INT_A_SIGN_KEY_PLEN, 0, HPCC_INT_A_CONFIG_KEYS_FLUSH,
};

unsigned int hpcc_genl_nkeys_put(struct nlmsghdr *nlh,
				 const struct hpccd_nkey *k, unsigned int n,
				 const struct hpcc_nkey_attrs *t)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned int i, put = 0;

	for (i = 0; i < n; i++, k++) {
		bool v4 = !memcmp(k->pfx.addr, mapped, sizeof(mapped)) &&
			  k->pfx.len >= 96;
		struct nlattr *nest;

		if (k->accept && !t->accept)
			continue;
		nest = mnl_attr_nest_start(nlh, t->nest);
		mnl_attr_put_u32(nlh, t->id, k->id);
		mnl_attr_put(nlh, t->key, sizeof(k->key), k->key);
		if (v4)
			mnl_attr_put(nlh, t->addr4, 4, k->pfx.addr + 12);
		else
			mnl_attr_put(nlh, t->addr6, 16, k->pfx.addr);
		mnl_attr_put_u8(nlh, t->plen, v4 ? k->pfx.len - 96 : k->pfx.len);
		if (k->accept)
			mnl_attr_put(nlh, t->accept, 0, NULL);
		mnl_attr_nest_end(nlh, nest);
		put++;
	}
	if (!put)
		mnl_attr_put(nlh, t->flush, 0, NULL);
	return put;
}

uint32_t hpcc_genl_flow_get_put(struct hpcc_genl *g, void *buf,
				const struct hpcc_tuple *t)
{
	struct nlmsghdr *nlh = hpcc_genl_msg(g, buf, HPCC_CMD_FLOW_GET, 0);

	hpcc_genl_put_tuple(nlh, t);
	return nlh->nlmsg_seq;
}

int hpcc_genl_send_batch(struct hpcc_genl *g, struct mnl_nlmsg_batch *b)
{
	size_t len = mnl_nlmsg_batch_size(b);

	if (!len)
		return 0;
	if (send(mnl_socket_get_fd(g->nl), mnl_nlmsg_batch_head(b), len,
		 MSG_DONTWAIT) != (ssize_t)len)
		return -errno;
	return 0;
}

/* What the callbacks of hpcc_genl_read_replies() see. */
struct hpcc_replies {
	mnl_cb_t cb;
	void (*err_cb)(uint32_t seq, int err, void *data);
	void *data;
};

static int reply_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hpcc_replies *r = data;

	r->cb(nlh, r->data);
	return MNL_CB_OK;
}

static int reply_err_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct hpcc_replies *r = data;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(*e) && e->error)
		r->err_cb(e->msg.nlmsg_seq, e->error, r->data);
	return MNL_CB_OK;
}

int hpcc_genl_read_replies(struct hpcc_genl *g, int max_reads, mnl_cb_t cb,
			   void (*err_cb)(uint32_t seq, int err, void *data),
			   void *data, uint64_t *overruns)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = reply_err_cb };
	struct hpcc_replies r = { .cb = cb, .err_cb = err_cb, .data = data };
	unsigned int portid = mnl_socket_get_portid(g->nl);
	char buf[1 << 16];
	ssize_t n;
	int reads;

	for (reads = 0; reads < max_reads; reads++) {
		n = recv(mnl_socket_get_fd(g->nl), buf, sizeof(buf),
			 MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				(*overruns)++;
				continue;
			}
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? reads : -errno;
		}
		mnl_cb_run2(buf, n, 0, portid, reply_data_cb, &r, ctl,
			    NLMSG_MIN_TYPE);
	}
	return reads;
}

int hpcc_genl_params(struct hpcc_genl *g, struct hpcc_params_attrs *p)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(p, 0, sizeof(*p));
	if (!g->family_id)
		return -ENOENT;
	return hpcc_genl_talk(g, hpcc_genl_msg(g, buf, HPCC_CMD_PARAMS_GET, 0),
			      params_cb, p);
}

int hpcc_genl_flow_get(struct hpcc_genl *g, const struct hpcc_tuple *t,
		       struct hpcc_flow_msg *m)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	if (!g->family_id)
		return -ENOENT;
	hpcc_genl_flow_get_put(g, buf, t);
	return hpcc_genl_talk(g, (struct nlmsghdr *)buf, hpcc_genl_flow_cb, m);
}

int hpcc_name_lookup(const char *const *names, int max, const char *s)
{
	int k;
	size_t i;

	for (k = 1; k <= max; k++) {
		const char *n = names[k];

		if (!n)
			continue;
		for (i = 0; n[i] && s[i]; i++)
			if (n[i] != s[i] && !(n[i] == '-' && s[i] == '_'))
				break;
		if (!n[i] && !s[i])
			return k;
	}
	return 0;
}

int hpcc_genl_put_param(struct nlmsghdr *nlh, int type, uint64_t value)
{
	if (type < 1 || type > HPCC_A_PARAMS_MAX)
		return -EINVAL;
	switch (hpcc_params_desc[type].kind) {	/* the spec's width */
	case HPCC_NL_U8:
		if (value > UINT8_MAX)
			return -ERANGE;
		mnl_attr_put_u8(nlh, type, value);
		return 0;
	case HPCC_NL_U16:
		if (value > UINT16_MAX)
			return -ERANGE;
		mnl_attr_put_u16(nlh, type, value);
		return 0;
	case HPCC_NL_U32:
		if (value > UINT32_MAX)
			return -ERANGE;
		mnl_attr_put_u32(nlh, type, value);
		return 0;
	case HPCC_NL_U64:
		mnl_attr_put_u64(nlh, type, value);
		return 0;
	default:
		return -EINVAL;
	}
}
