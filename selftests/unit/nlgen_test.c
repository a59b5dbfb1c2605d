// SPDX-License-Identifier: GPL-2.0
/*
 * nlgen_test - the netlink client's typed structures and tables, generated
 * from the YNL specs (daemon/lib/hpcc_nl_gen.[ch], tools/ynl-client), and the
 * typed calls of daemon/lib/hpcc_genl.c built on them: messages built with
 * libmnl as the kernel sends them, then parsed.  Host test, ASan and UBSan.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "kselftest_harness.h"
#include "hpcc_genl.h"

/* msg() - a genl message of @cmd in @buf, as the kernel would send it */
static struct nlmsghdr *msg(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = 0x20;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = 1;
	return nlh;
}

static void put_tuple(struct nlmsghdr *nlh, uint16_t family)
{
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, family);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_SADDR4, htonl(0xc6120001));
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_DADDR4, htonl(0xc6120002));
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_SPORT, htons(40000));
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_DPORT, htons(5201));
}

static void put_hop(struct nlmsghdr *nlh, uint32_t sw)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, HPCC_A_FLOW_HOP);

	mnl_attr_put_u32(nlh, HPCC_A_HOP_SWITCH_ID, sw);
	mnl_attr_put_u32(nlh, HPCC_A_HOP_PORT_ID, 3);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_RATE, 50000000);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_TS, 1000 + sw);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_TX_BYTES, 5000);
	mnl_attr_put_u64(nlh, HPCC_A_HOP_QLEN, 1500);
	mnl_attr_put(nlh, HPCC_A_HOP_PAD, 0, NULL);
	mnl_attr_nest_end(nlh, n);
}

TEST(flow_message_typed)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg(buf, HPCC_CMD_FLOW_GET);
	struct hpcc_flow_msg m;
	struct hpcc_tuple t;

	put_tuple(nlh, AF_INET);
	put_hop(nlh, 7);
	put_hop(nlh, 8);
	mnl_attr_put_u8(nlh, HPCC_A_FLOW_IN_FLIGHT, 1);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_SRTT, 11300);
	mnl_attr_put(nlh, HPCC_A_FLOW_PAD, 0, NULL);	/* alignment */
	mnl_attr_put_u64(nlh, HPCC_A_FLOW_W, 75000ULL << 8);
	mnl_attr_put_u8(nlh, HPCC_A_FLOW_MODE, HPCC_MODE_HPCC);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_EQ(HPCC_CMD_FLOW_GET, m.cmd);
	EXPECT_EQ(0, m.ignored);
	EXPECT_EQ(0, m.a.bad);
	EXPECT_TRUE(m.a.present & HPCC_HAS(HPCC_A_FLOW_SRTT));
	EXPECT_FALSE(m.a.present & HPCC_HAS(HPCC_A_FLOW_CWND));
	EXPECT_EQ(11300, m.a.srtt);
	EXPECT_EQ(1, m.a.in_flight);
	EXPECT_EQ(75000ULL << 8, m.a.w);
	EXPECT_EQ(HPCC_MODE_HPCC, m.a.mode);
	ASSERT_EQ(2, m.a.n_hop);
	EXPECT_EQ(7, m.a.hop[0].switch_id);
	EXPECT_EQ(8, m.a.hop[1].switch_id);
	EXPECT_EQ(1008, m.a.hop[1].ts);
	EXPECT_EQ(50000000, m.a.hop[0].rate);
	ASSERT_TRUE(hpcc_flow_msg_tuple(&m, &t));
	EXPECT_EQ(htonl(0xc6120001), t.saddr);
	EXPECT_EQ(htons(5201), t.dport);
}

/* A wrong length is ignored and flagged, never read past or half-read. */
TEST(wrong_length_ignored)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg(buf, HPCC_CMD_FLOW_ACTIVE);
	struct hpcc_flow_msg m;

	put_tuple(nlh, AF_INET);
	mnl_attr_put_u64(nlh, HPCC_A_FLOW_SRTT, 5);	/* a u32 */
	mnl_attr_put_u16(nlh, 200, 1);			/* unknown */
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_EQ(2, m.ignored);
	EXPECT_EQ(0, m.a.srtt);
	EXPECT_FALSE(m.a.present & HPCC_HAS(HPCC_A_FLOW_SRTT));
	EXPECT_TRUE(m.a.bad & HPCC_HAS(HPCC_A_FLOW_SRTT));
}

/* More hop records than the spec's max-hops: the rest are ignored. */
TEST(hops_bounded)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg(buf, HPCC_CMD_FLOW_GET);
	struct hpcc_flow_msg m;
	int i;

	for (i = 0; i < HPCC_MAX_HOPS + 3; i++)
		put_hop(nlh, i);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_EQ(HPCC_MAX_HOPS, m.a.n_hop);
	EXPECT_EQ(3, m.ignored);
	EXPECT_EQ(HPCC_MAX_HOPS - 1, m.a.hop[HPCC_MAX_HOPS - 1].switch_id);
}

/* An attribute that claims more bytes than the message has ends parsing. */
TEST(truncated_attribute)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg(buf, HPCC_CMD_FLOW_GET);
	struct hpcc_flow_msg m;
	struct nlattr *a;

	mnl_attr_put_u32(nlh, HPCC_A_FLOW_SRTT, 9);
	a = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_CWND, 10);
	a->nla_len = 200;
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_EQ(9, m.a.srtt);
	EXPECT_FALSE(m.a.present & HPCC_HAS(HPCC_A_FLOW_CWND));
}

/*
 * A flow is named by its family with that family's two addresses and both
 * ports; hpcc_genl_put_tuple() writes what hpcc_flow_msg_tuple() reads.
 */
TEST(tuple_needs_family_addresses_and_ports)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg(buf, HPCC_CMD_FLOW_NEW);
	struct hpcc_tuple t, t6 = {
		.family = AF_INET6, .sport = htons(40000), .dport = htons(5201),
		.saddr6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		.daddr6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
		.flowlabel = 0x12345,
	};
	struct hpcc_flow_msg m;

	/* AF_INET6 with IPv4 addresses */
	put_tuple(nlh, AF_INET6);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_FALSE(hpcc_flow_msg_tuple(&m, &t));

	/* an IPv6 flow, written and read back; the flow label is no key */
	nlh = msg(buf, HPCC_CMD_FLOW_NEW);
	hpcc_genl_put_tuple(nlh, &t6);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_EQ(0, m.ignored);
	ASSERT_TRUE(hpcc_flow_msg_tuple(&m, &t));
	EXPECT_EQ(AF_INET6, t.family);
	EXPECT_EQ(0, memcmp(t.saddr6, t6.saddr6, 16));
	EXPECT_EQ(0, memcmp(t.daddr6, t6.daddr6, 16));
	EXPECT_EQ(t6.sport, t.sport);
	EXPECT_EQ(t6.dport, t.dport);
	EXPECT_EQ(0, t.flowlabel);
	EXPECT_EQ(0, t.saddr);

	/* and an IPv4 one */
	memset(&t6, 0, sizeof(t6));
	t6.saddr = htonl(0xc6120001);
	t6.daddr = htonl(0xc6120002);
	t6.sport = htons(1);
	t6.dport = htons(2);
	nlh = msg(buf, HPCC_CMD_FLOW_NEW);
	hpcc_genl_put_tuple(nlh, &t6);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	ASSERT_TRUE(hpcc_flow_msg_tuple(&m, &t));
	EXPECT_EQ(AF_INET, t.family);
	EXPECT_EQ(t6.saddr, t.saddr);
	EXPECT_EQ(t6.dport, t.dport);

	nlh = msg(buf, HPCC_CMD_FLOW_NEW);
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_FAMILY, AF_INET);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_SADDR4, 1);
	mnl_attr_put_u32(nlh, HPCC_A_FLOW_DADDR4, 2);
	mnl_attr_put_u16(nlh, HPCC_A_FLOW_SPORT, 3);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_FALSE(hpcc_flow_msg_tuple(&m, &t));
}

/* The generated tables spell what the spec spells. */
TEST(tables_follow_the_spec)
{
	EXPECT_STREQ("inc-stage", hpcc_flow_names[HPCC_A_FLOW_INC_STAGE]);
	EXPECT_STREQ("probes-consumed",
		     hpcc_stats_names[HPCC_A_STATS_PROBES_CONSUMED]);
	EXPECT_STREQ("key-collisions",
		     hpcc_stats_names[HPCC_A_STATS_KEY_COLLISIONS]);
	EXPECT_STREQ("unwritable",
		     hpcc_int_dev_names[HPCC_INT_A_DEV_UNWRITABLE]);
	/* the tuple, hop records and pads are not plain numbers */
	EXPECT_EQ(NULL, hpcc_flow_names[HPCC_A_FLOW_FAMILY]);
	EXPECT_EQ(NULL, hpcc_flow_names[HPCC_A_FLOW_SADDR4]);
	EXPECT_EQ(NULL, hpcc_flow_names[HPCC_A_FLOW_HOP]);
	EXPECT_EQ(NULL, hpcc_stats_names[HPCC_A_STATS_PAD]);
	EXPECT_EQ(HPCC_NL_U8, hpcc_params_desc[HPCC_A_PARAMS_PROBE_DSCP].kind);
	EXPECT_EQ(HPCC_NL_U64, hpcc_params_desc[HPCC_A_PARAMS_W_INIT].kind);
	EXPECT_EQ(1, hpcc_flow_desc[HPCC_A_FLOW_SPORT].be);
	EXPECT_EQ(1, hpcc_flow_desc[HPCC_A_FLOW_HOP].multi);
	EXPECT_EQ(HPCC_A_PARAMS_MAX_STAGE,
		  hpcc_name_lookup(hpcc_params_names, HPCC_A_PARAMS_MAX,
				   "max_stage"));
}

/* The spec's enums: names by value, and the attributes that use them. */
TEST(enums_follow_the_spec)
{
	const struct hpcc_nl_enum *e;

	e = hpcc_params_desc[HPCC_A_PARAMS_START].enumeration;
	ASSERT_EQ(&hpcc_enum_start, e);
	ASSERT_EQ(2, e->n);
	EXPECT_STREQ("line-rate", e->names[HPCC_START_LINE_RATE]);
	EXPECT_STREQ("slow-start", e->names[HPCC_START_SLOW_START]);
	EXPECT_EQ(&hpcc_enum_n_source,
		  hpcc_params_desc[HPCC_A_PARAMS_N_FLOWS_SOURCE].enumeration);
	EXPECT_STREQ("max", hpcc_enum_n_source.names[HPCC_N_SOURCE_MAX]);
	/* enum mode starts at 1: value 0 is a gap */
	e = hpcc_flow_desc[HPCC_A_FLOW_MODE].enumeration;
	ASSERT_EQ(&hpcc_enum_mode, e);
	EXPECT_EQ(NULL, e->names[0]);
	EXPECT_STREQ("fallback", e->names[HPCC_MODE_FALLBACK]);
	EXPECT_EQ(NULL, hpcc_params_desc[HPCC_A_PARAMS_T].enumeration);
}

/* params-set values go out in the spec's width, or are refused. */
TEST(param_width_from_spec)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg(buf, HPCC_CMD_PARAMS_SET);
	struct hpcc_params_attrs p;

	EXPECT_EQ(-ERANGE, hpcc_genl_put_param(nlh, HPCC_A_PARAMS_PROBE_DSCP, 300));
	EXPECT_EQ(-ERANGE, hpcc_genl_put_param(nlh, HPCC_A_PARAMS_T, 1ULL << 32));
	EXPECT_EQ(-EINVAL, hpcc_genl_put_param(nlh, HPCC_A_PARAMS_PAD, 0));
	EXPECT_EQ(-EINVAL, hpcc_genl_put_param(nlh, HPCC_A_PARAMS_MAX + 1, 0));
	ASSERT_EQ(0, hpcc_genl_put_param(nlh, HPCC_A_PARAMS_PROBE_DSCP, 46));
	ASSERT_EQ(0, hpcc_genl_put_param(nlh, HPCC_A_PARAMS_T, 90));
	EXPECT_EQ(0, hpcc_params_parse(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
				       mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN, &p));
	EXPECT_EQ(46, p.probe_dscp);
	EXPECT_EQ(90, p.t);
}

/*
 * A flow-get for a batch (hpccd's ask without waiting): the flow's tuple,
 * no NLM_F_ACK (the reply or an error message answers it), and its own
 * sequence number, by which hpccd finds the flow its reply is about.
 */
TEST(flow_get_put)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_genl g = { .family_id = 0x20, .seq = 41 };
	struct hpcc_tuple t = {
		.family = AF_INET6, .sport = htons(40000), .dport = htons(5201),
	}, r;
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct hpcc_flow_msg m;

	t.saddr6[0] = 0x20;
	t.daddr6[15] = 2;
	ASSERT_EQ(42, hpcc_genl_flow_get_put(&g, buf, &t));
	EXPECT_EQ(42, nlh->nlmsg_seq);
	EXPECT_EQ(0x20, nlh->nlmsg_type);
	EXPECT_EQ(NLM_F_REQUEST, nlh->nlmsg_flags);
	ASSERT_EQ(MNL_CB_OK, hpcc_genl_flow_cb(nlh, &m));
	EXPECT_EQ(HPCC_CMD_FLOW_GET, m.cmd);
	EXPECT_EQ(0, m.ignored);
	ASSERT_TRUE(hpcc_flow_msg_tuple(&m, &r));
	EXPECT_EQ(0, memcmp(r.saddr6, t.saddr6, 16));
	EXPECT_EQ(0, memcmp(r.daddr6, t.daddr6, 16));
	EXPECT_EQ(t.sport, r.sport);
	EXPECT_EQ(t.dport, r.dport);
	EXPECT_EQ(43, hpcc_genl_flow_get_put(&g, buf, &t));
}

/*
 * queue_getfamily() - a CTRL_CMD_GETFAMILY request to nlctrl on @g's socket
 * whose reply is left unread, as a request that timed out leaves its
 * reply: one family (@name) or, with NLM_F_DUMP, all of them
 */
static int queue_getfamily(struct hpcc_genl *g, const char *name,
			   uint16_t flags)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = hpcc_genl_msg(g, buf, CTRL_CMD_GETFAMILY,
					     flags | NLM_F_ACK);
	struct genlmsghdr *gh = mnl_nlmsg_get_payload(nlh);

	nlh->nlmsg_type = GENL_ID_CTRL;
	gh->version = 1;
	if (name)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0 ? -errno : 0;
}

/*
 * A reply still queued from an earlier request (one that timed out) is
 * skipped by the next request, not taken for its reply: that request and
 * every later one get their own answers.  Against the kernel's nlctrl,
 * which every host has (the hpcc family need not be there).  Taken as
 * the reply, the stale one would fail the request with EPROTO and leave
 * its reply queued for the next one: every later request would fail.
 */
TEST(stale_reply_skipped)
{
	struct hpcc_genl g;
	uint64_t talks;
	int err, i;

	err = hpcc_genl_open(&g, 1000);
	ASSERT_TRUE(err == 0 || err == -ENOENT) TH_LOG("open: %d", err);
	ASSERT_EQ(0, queue_getfamily(&g, "nlctrl", 0));
	talks = g.talks;
	for (i = 0; i < 3; i++) {
		g.family_id = 0;
		EXPECT_EQ(0, hpcc_genl_use_family(&g, "nlctrl"))
			TH_LOG("request %d after the stale reply", i);
		EXPECT_EQ(GENL_ID_CTRL, g.family_id);
	}
	/* the reply and its ACK */
	EXPECT_EQ(2, g.skipped);
	/* each lookup one round trip */
	EXPECT_EQ(talks + 3, g.talks);
	hpcc_genl_close(&g);
}

/* The same with the rest of a dump of every family left queued. */
TEST(stale_dump_skipped)
{
	struct hpcc_genl g;
	int err, i;

	err = hpcc_genl_open(&g, 1000);
	ASSERT_TRUE(err == 0 || err == -ENOENT) TH_LOG("open: %d", err);
	ASSERT_EQ(0, queue_getfamily(&g, NULL, NLM_F_DUMP));
	for (i = 0; i < 3; i++) {
		g.family_id = 0;
		EXPECT_EQ(0, hpcc_genl_use_family(&g, "nlctrl"))
			TH_LOG("request %d after the stale dump", i);
		EXPECT_EQ(GENL_ID_CTRL, g.family_id);
	}
	/* a family or more, and NLMSG_DONE */
	EXPECT_GE(g.skipped, 2);
	hpcc_genl_close(&g);
}

/* count_cb() - counts the data messages hpcc_genl_run() hands on */
static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(*(int *)data)++;
	return MNL_CB_OK;
}

/*
 * dump_part() - a flow-get dump part, request @seq, to port @pid, with
 * @flags, after the messages already in @buf (@len bytes): the new length
 */
static size_t dump_part(char *buf, size_t len, uint32_t seq, uint32_t pid,
			uint16_t flags)
{
	struct nlmsghdr *nlh = msg(buf + len, HPCC_CMD_FLOW_GET);

	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	nlh->nlmsg_flags = NLM_F_MULTI | flags;
	put_tuple(nlh, AF_INET);
	return len + nlh->nlmsg_len;
}

/* dump_done() - the dump's NLMSG_DONE, as dump_part() */
static size_t dump_done(char *buf, size_t len, uint32_t seq, uint32_t pid,
			uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + len);
	int *err = mnl_nlmsg_put_extra_header(nlh, sizeof(int));

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	nlh->nlmsg_flags = NLM_F_MULTI | flags;
	*err = 0;
	return len + nlh->nlmsg_len;
}

/*
 * The rest of an interrupted dump of a request that timed out (request 7,
 * NLM_F_DUMP_INTR on its parts) read with request 8's whole dump: it is
 * skipped, and request 8's dump, which the table did not change under,
 * is not interrupted.  Were every message of the buffer scanned for the
 * flag, request 8 would fail with -EINTR and a reconcile would then look
 * up each of its flows one by one.  The flag on request 8's own part
 * still counts.
 */
TEST(stale_dump_intr_skipped)
{
	char buf[4 * MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_genl g = { .seq = 8 };
	const uint32_t pid = 1234;
	bool intr = false;
	size_t len = 0;
	int n = 0;

	len = dump_part(buf, len, 7, pid, NLM_F_DUMP_INTR);
	len = dump_done(buf, len, 7, pid, NLM_F_DUMP_INTR);
	len = dump_part(buf, len, 8, pid, 0);
	len = dump_part(buf, len, 8, pid, 0);
	len = dump_done(buf, len, 8, pid, 0);
	EXPECT_EQ(0, hpcc_genl_run(&g, buf, len, 8, pid, count_cb, &n,
				   &intr));
	EXPECT_FALSE(intr);
	EXPECT_EQ(2, n);
	EXPECT_EQ(2, g.skipped);
	/* the stale messages are left as they came */
	EXPECT_TRUE(((struct nlmsghdr *)buf)->nlmsg_flags & NLM_F_DUMP_INTR);

	/* request 9's own part flagged: interrupted, the rest still run */
	len = 0;
	n = 0;
	len = dump_part(buf, len, 9, pid, NLM_F_DUMP_INTR);
	len = dump_part(buf, len, 9, pid, 0);
	len = dump_done(buf, len, 9, pid, 0);
	EXPECT_EQ(0, hpcc_genl_run(&g, buf, len, 9, pid, count_cb, &n,
				   &intr));
	EXPECT_TRUE(intr);
	EXPECT_EQ(2, n);
}

TEST_HARNESS_MAIN
