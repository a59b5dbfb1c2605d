// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - hpcc_int.ko, a software INT transit hop for Linux forwarding
 * paths (software routers, testbeds).
 *
 * On every forwarded IPv4 or IPv6 packet that carries the namespace's probe
 * DSCP (IPv6: in the traffic class; extension headers as
 * hpcc_wire_ipv6_l4() walks them in transit) and leaves through a
 * configured egress device, a netfilter hook at
 * NF_INET_FORWARD (last priority: after the routing decision, before the
 * packet reaches the device's qdisc) fills the next pre-allocated hop record
 * of the HPCC probe (include/uapi/linux/hpcc_wire.h, draft-miao-ccwg-hpcc section
 * 4.1) with:
 *
 *   switch_ID  the namespace's switch-id (config-set; default: its inode)
 *   port_ID    the egress ifindex
 *   B          the device's configured rate (dev-add, changed in place by
 *              dev-set; default: link speed)
 *   ts         ktime_get_ns() when stamped
 *   txBytes    bytes the egress device's qdiscs have handed to the driver
 *              (their byte counters: the root qdisc's, or the sum of the
 *              per-queue qdiscs under mq); for a device without a queue
 *              (noqueue), bytes of the IP packets this namespace sent
 *              through it, counted by a POST_ROUTING hook of this module
 *   qlen       the egress qdisc backlog in bytes, before this probe is
 *              queued (the root qdisc; the sum of the per-queue qdiscs under
 *              mq), saturated at 2^32 - 1
 *
 * ts, txBytes and qlen are read together in the hook, one snapshot
 * (draft-pan-tsvwg-hpccplus-02 section 6.1), and nothing in the hook calls
 * into the driver: dev_get_stats() would, and a driver's ndo_get_stats64
 * may take a lock that is not BH-safe (bonding's stats_lock), a deadlock
 * in the forwarding path.  Documentation/design.rst, "The software INT
 * hop", gives the error bound on the txRate a sender derives.
 *
 * and increments nhop.  The packet never changes length (records are
 * pre-allocated by the sender), so it never grows beyond the MTU, and the
 * TCP checksum is updated incrementally.  Probes that cannot be stamped go
 * on unchanged and are counted per device: full, malformed, unwritable.
 *
 * A device may stamp INT-MD v2.1 instead (encoding int-md; P4.org INT
 * Dataplane Specification v2.1, sections 5.7.2 and 5.8): the hop pushes
 * Hop ML words of metadata onto the INT-MD stack the probe carries after
 * its TCP header, so the packet grows (hpcc_int_stamp_md()).  A probe
 * without an INT-MD shim leaves such a device unstamped (other-encoding).
 *
 * Configured over the "hpcc-int" generic netlink family
 * (Documentation/netlink/specs/hpcc-int.yaml, `hpccctl int ...`).  State is
 * per network namespace; writers hold RTNL (which also orders them against
 * device unregistration), the hook reads the device table under RCU.
 */

#include <linux/ethtool.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/netdevice.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/netfilter_bridge.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/xarray.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/genetlink.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ip_fib.h>
#include <net/netns/generic.h>
#include <net/nexthop.h>
#include <net/route.h>
#include <net/sch_generic.h>

#include <linux/hpcc.h>
#include <linux/hpcc_wire.h>
#include <linux/hpcc_int.h>

#define HPCC_FAULT_DEFINE_PARAMS
#include "common/hpcc_compat.h"
#include "common/hpcc_fault.h"
#include "lib/hpcc_ccm.h"
#include "lib/hpcc_int_lim.h"
#include "lib/hpcc_nmac.h"
#include "common/hpcc_nl_prefix.h"
#include "common/hpcc_wire_check.h"

#define HPCC_INT_PROBE_DSCP_DEFAULT	60
#define HPCC_INT_IFA_PROTOCOL_DEFAULT	253
#define HPCC_INT_RATE_MAX		1600000000000ULL	/* 1.6 Tbit/s */
/* FORWARD and POST_ROUTING, for IPv4 and (when the kernel has it) IPv6 */
#define HPCC_INT_NHOOKS			(IS_ENABLED(CONFIG_IPV6) ? 4 : 2)

enum hpcc_int_cnt {
	HPCC_INT_CNT_STAMPED,
	HPCC_INT_CNT_FULL,
	HPCC_INT_CNT_MALFORMED,
	HPCC_INT_CNT_UNWRITABLE,
	HPCC_INT_CNT_OTHER_ENCODING,
	HPCC_INT_CNT_NUM,
};

/* The netlink attribute of each counter. */
static const int hpcc_int_cnt_attr[HPCC_INT_CNT_NUM] = {
	[HPCC_INT_CNT_STAMPED] = HPCC_INT_A_DEV_STAMPED,
	[HPCC_INT_CNT_FULL] = HPCC_INT_A_DEV_FULL,
	[HPCC_INT_CNT_MALFORMED] = HPCC_INT_A_DEV_MALFORMED,
	[HPCC_INT_CNT_UNWRITABLE] = HPCC_INT_A_DEV_UNWRITABLE,
	[HPCC_INT_CNT_OTHER_ENCODING] = HPCC_INT_A_DEV_OTHER_ENCODING,
};

/* FCR counters of a device, and their netlink attributes. */
enum hpcc_int_fcr_cnt {
	HPCC_INT_FCR_CNT_SENT,
	HPCC_INT_FCR_CNT_DROPPED,
	HPCC_INT_FCR_CNT_ROUNDS,
	HPCC_INT_FCR_CNT_CE_MARKED,
	HPCC_INT_FCR_CNT_NOT_ECT,
	HPCC_INT_FCR_CNT_TABLE_FULL,
	HPCC_INT_FCR_CNT_EARLY_ROUNDS,
	HPCC_INT_FCR_CNT_SENDER_LIMITED,
	HPCC_INT_FCR_CNT_MSG_LIMITED,
	HPCC_INT_FCR_CNT_DST_LIMITED,
	HPCC_INT_FCR_CNT_DST_REFUSED,
	HPCC_INT_FCR_CNT_NUM,
};

static const int hpcc_int_fcr_cnt_attr[HPCC_INT_FCR_CNT_NUM] = {
	[HPCC_INT_FCR_CNT_SENT] = HPCC_INT_A_DEV_FCR_SENT,
	[HPCC_INT_FCR_CNT_DROPPED] = HPCC_INT_A_DEV_FCR_DROPPED,
	[HPCC_INT_FCR_CNT_ROUNDS] = HPCC_INT_A_DEV_FCR_ROUNDS,
	[HPCC_INT_FCR_CNT_CE_MARKED] = HPCC_INT_A_DEV_CE_MARKED,
	[HPCC_INT_FCR_CNT_NOT_ECT] = HPCC_INT_A_DEV_NOT_ECT,
	[HPCC_INT_FCR_CNT_TABLE_FULL] = HPCC_INT_A_DEV_FCR_TABLE_FULL,
	[HPCC_INT_FCR_CNT_EARLY_ROUNDS] = HPCC_INT_A_DEV_FCR_EARLY_ROUNDS,
	[HPCC_INT_FCR_CNT_SENDER_LIMITED] = HPCC_INT_A_DEV_FCR_SENDER_LIMITED,
	[HPCC_INT_FCR_CNT_MSG_LIMITED] = HPCC_INT_A_DEV_FCR_MSG_LIMITED,
	[HPCC_INT_FCR_CNT_DST_LIMITED] = HPCC_INT_A_DEV_FCR_DST_LIMITED,
	[HPCC_INT_FCR_CNT_DST_REFUSED] = HPCC_INT_A_DEV_FCR_DST_REFUSED,
};

/*
 * CCM counters of a device, and their netlink attributes; the first three
 * are the notifications sent, by type (HPCC_CCM_CC_REQUIRED - 1 ...).
 */
enum hpcc_int_ccm_cnt {
	HPCC_INT_CCM_CNT_CC_SENT,
	HPCC_INT_CCM_CNT_RELEASED_SENT,
	HPCC_INT_CCM_CNT_AR_SENT,
	HPCC_INT_CCM_CNT_DROPPED,
	HPCC_INT_CCM_CNT_NO_AR,
	HPCC_INT_CCM_CNT_CC_KEPT,
	HPCC_INT_CCM_CNT_AR_MARKED,
	HPCC_INT_CCM_CNT_AR_LIMITED,
	HPCC_INT_CCM_CNT_NUM,
};

static const int hpcc_int_ccm_cnt_attr[HPCC_INT_CCM_CNT_NUM] = {
	[HPCC_INT_CCM_CNT_CC_SENT] = HPCC_INT_A_DEV_CCM_CC_SENT,
	[HPCC_INT_CCM_CNT_RELEASED_SENT] = HPCC_INT_A_DEV_CCM_RELEASED_SENT,
	[HPCC_INT_CCM_CNT_AR_SENT] = HPCC_INT_A_DEV_CCM_AR_SENT,
	[HPCC_INT_CCM_CNT_DROPPED] = HPCC_INT_A_DEV_CCM_DROPPED,
	[HPCC_INT_CCM_CNT_NO_AR] = HPCC_INT_A_DEV_CCM_NO_AR,
	[HPCC_INT_CCM_CNT_CC_KEPT] = HPCC_INT_A_DEV_CCM_CC_KEPT,
	[HPCC_INT_CCM_CNT_AR_MARKED] = HPCC_INT_A_DEV_CCM_AR_MARKED,
	[HPCC_INT_CCM_CNT_AR_LIMITED] = HPCC_INT_A_DEV_CCM_AR_LIMITED,
};

struct hpcc_int_fcr;

/* INT-MD metadata header flags (byte 0: Ver 4, D E M 3, reserved 1). */
#define HPCC_INT_MD_FLAG_E	0x04	/* Remaining Hop Count was 0 */
#define HPCC_INT_MD_FLAG_M	0x02	/* the MTU left no room */

/**
 * struct hpcc_int_dev - one egress device that stamps probes
 * @ifindex: the device, also the stamped port_ID
 * @rate: B, bits per second (dev-set writes it in place: READ_ONCE)
 * @encoding: enum hpcc_int_encoding (dev-set writes it in place: READ_ONCE)
 * @out_bytes: bytes of IP packets that left through the device (the
 *	POST_ROUTING hook), its txBytes while it has no queue
 * @lock: serializes the Tx utilization's state (INT-MD) and the wire's
 *	(tx-model wire) between the CPUs that stamp (softirq) and dev-set,
 *	which restarts the wire (BH off)
 * @util: the Tx utilization's state (hpcc_int_util_update())
 * @tx_model: enum hpcc_int_tx_model (dev-set writes it in place:
 *	READ_ONCE)
 * @wire_ts: when the wire was last brought up to date, ns; 0: restart
 * @wire_in: the qdisc's byte counter then
 * @wire_q: the wire's backlog then, bytes (at most HPCC_INT_WIRE_Q_MAX)
 * @wire_tx: the bytes the wire has sent, its txBytes
 * @cnt: counters, enum hpcc_int_cnt
 * @fcr_high: FCR's fcr-qlen-high, bytes; 0: FCR off (RTNL writes,
 *	READ_ONCE)
 * @fcr_low: fcr-qlen-low, bytes (RTNL writes, READ_ONCE)
 * @fcr_interval: fcr-interval, us (RTNL writes, READ_ONCE)
 * @fcr_eta: fcr-eta, thousandths (RTNL writes, READ_ONCE)
 * @fcr_sender_max: fcr-sender-max, messages per sender per fcr-interval
 *	(RTNL writes, READ_ONCE)
 * @fcr_drain: fcr-drain, us; 0: the rate does not count the queue (RTNL
 *	writes, READ_ONCE)
 * @fcr: the port's flow table and FCR and CCM state, allocated when FCR
 *	or CCM is first turned on (RCU)
 * @fcr_cnt: FCR counters, enum hpcc_int_fcr_cnt
 * @ccm_high: CCM's ccm-qlen-high, bytes; 0: CCM off (RTNL writes,
 *	READ_ONCE)
 * @ccm_low: ccm-qlen-low, bytes (RTNL writes, READ_ONCE)
 * @ccm_interval: ccm-interval, us (RTNL writes, READ_ONCE)
 * @ccm_ar_gap: ccm-ar-gap, us: fewest between two type 3 of the port; 0:
 *	no limit but the per-flow ccm-interval (RTNL writes, READ_ONCE)
 * @ccm_cnt: CCM counters, enum hpcc_int_ccm_cnt
 * @rcu: freed after a grace period (the hook reads under RCU)
 */
struct hpcc_int_dev {
	int ifindex;
	u64 rate;
	u8 encoding;
	atomic64_t out_bytes;
	spinlock_t lock;	/* the util_* and wire_* fields */
	struct hpcc_int_util util;
	u8 tx_model;
	u64 wire_ts;
	u64 wire_in;
	u64 wire_q;
	u64 wire_tx;
	atomic64_t cnt[HPCC_INT_CNT_NUM];
	u32 fcr_high;
	u32 fcr_low;
	u32 fcr_interval;
	u32 fcr_eta;
	u32 fcr_sender_max;
	u32 fcr_drain;
	struct hpcc_int_fcr __rcu *fcr;
	atomic64_t fcr_cnt[HPCC_INT_FCR_CNT_NUM];
	u32 ccm_high;
	u32 ccm_low;
	u32 ccm_interval;
	u32 ccm_ar_gap;
	atomic64_t ccm_cnt[HPCC_INT_CCM_CNT_NUM];
	struct rcu_head rcu;
};

/**
 * struct hpcc_int_net - per network namespace state
 * @devs: ifindex -> struct hpcc_int_dev; writers hold RTNL, readers RCU
 * @ndevs: entries in @devs (RTNL)
 * @switch_id: switch_ID stamped (READ_ONCE/WRITE_ONCE)
 * @probe_dscp: DSCP of probes, 1..63 (READ_ONCE/WRITE_ONCE)
 * @ifa_protocol: IP protocol (IPv6: next header) of IFA probes, 143..254
 *	(READ_ONCE/WRITE_ONCE)
 * @ops: the forward hook (stamps) and the post-routing hook (counts)
 * @net: the namespace (not referenced: the state lives as long as it)
 * @fcr_ndevs: devices with FCR or CCM on (RTNL writes, READ_ONCE): the
 *	forward hooks look at packets other than probes only while it is
 *	not 0
 * @fcr_port: UDP port FCR messages and CCM notifications go to
 *	(READ_ONCE/WRITE_ONCE)
 * @fcr_dscp: their DSCP (READ_ONCE/WRITE_ONCE)
 * @fcr_lock: protects @fcr_queue (BH)
 * @fcr_queue: FCR messages and CCM notifications waiting for @fcr_work,
 *	struct hpcc_int_fcr_req
 * @fcr_queued: their number, at most HPCC_INT_FCR_QUEUE
 * @fcr_work: sends them
 * @fcr_mutex: serializes @fcr_work's use of @fcr_sock
 * @fcr_sock: the UDP sockets they leave from, IPv4 and IPv6, created at
 *	first use
 * @keys: the keys messages are signed with (RCU; writers hold @fcr_mutex)
 * @lim_cfg: the sending bounds, config-set fcr-msg-rate, fcr-msg-burst,
 *	fcr-dst-rate, fcr-dst-burst (READ_ONCE/WRITE_ONCE each)
 * @lim_lock: protects @lim (BH)
 * @lim_rnd: seed of @lim's destination hash
 * @lim: the total and per-destination buckets (hpcc_int_fcr_gate())
 * @dsts: the prefixes messages may go to, config-set fcr-dst (RCU;
 *	writers hold @fcr_mutex); NULL: every unicast address
 */
struct hpcc_int_net {
	struct xarray devs;
	u32 ndevs;
	u32 switch_id;
	u8 probe_dscp;
	u8 ifa_protocol;
	struct nf_hook_ops ops[HPCC_INT_NHOOKS];
	struct net *net;
	u32 fcr_ndevs;
	u16 fcr_port;
	u8 fcr_dscp;
	spinlock_t fcr_lock;	/* fcr_queue */
	struct list_head fcr_queue;
	atomic_t fcr_queued;
	struct work_struct fcr_work;
	struct mutex fcr_mutex;	/* fcr_sock, keys writers */
	struct socket *fcr_sock[2];
	struct hpcc_int_keys __rcu *keys;
	struct hpcc_int_lim_cfg lim_cfg;
	spinlock_t lim_lock;	/* lim */
	u32 lim_rnd;
	struct hpcc_int_lim lim;
	struct hpcc_int_dsts __rcu *dsts;
};

/**
 * struct hpcc_int_dsts - the prefixes FCR messages and CCM notifications
 *	may go to (config-set fcr-dst)
 * @rcu: for the free after a grace period
 * @n: how many, 1 to HPCC_INT_FCR_DST_MAX
 * @p: the prefixes, IPv6 or IPv4-mapped
 */
struct hpcc_int_dsts {
	struct rcu_head rcu;
	u32 n;
	struct hpcc_fcr_prefix p[HPCC_INT_FCR_DST_MAX];
};

/**
 * struct hpcc_int_keys - the keys a hop signs FCR messages and CCM
 *	notifications with (config-set key; kernel/lib/hpcc_nmac.h)
 * @rcu: for the free after a grace period (kfree_sensitive())
 * @r: the keys, configured only (a hop keeps none for an overlap)
 */
struct hpcc_int_keys {
	struct rcu_head rcu;
	struct hpcc_nmac_ring r;
};

static unsigned int hpcc_int_net_id __read_mostly;

static struct hpcc_int_net *hpcc_int_net(const struct net *net)
{
	return net_generic(net, hpcc_int_net_id);
}

/* Add @q's byte counter and byte backlog (per-CPU counters summed). */
static void hpcc_int_qdisc_add(const struct Qdisc *q, u64 *bytes,
			       u64 *backlog)
{
	int cpu;

	if (!qdisc_is_percpu_stats(q)) {
		*bytes += u64_stats_read(&q->bstats.bytes);
		*backlog += READ_ONCE(q->qstats.backlog);
		return;
	}
	for_each_possible_cpu(cpu) {
		*bytes += u64_stats_read(&per_cpu_ptr(q->cpu_bstats, cpu)->bytes);
		*backlog += READ_ONCE(per_cpu_ptr(q->cpu_qstats, cpu)->backlog);
	}
}

/*
 * hpcc_int_qdisc() - the bytes @dev's qdiscs have dequeued to the driver
 * and the bytes they hold.  Under a multiqueue root (mq, mqprio) the root's
 * own counters are only summed at dump time, so the per-queue qdiscs are
 * added here; otherwise every queue points at the root.  A device without
 * a queue (noqueue) holds nothing, and its byte count is what the
 * POST_ROUTING hook counted.  Context: RCU; lockless reads of 64-bit
 * counters, no call into the driver.
 */
static void hpcc_int_qdisc(struct net_device *dev,
			   const struct hpcc_int_dev *d, u64 *bytes,
			   u64 *backlog)
{
	const struct Qdisc *root = rcu_dereference(dev->qdisc);
	const struct Qdisc *q, *last = NULL;
	unsigned int i;

	*bytes = 0;
	*backlog = 0;
	if (!root || !root->enqueue) {
		*bytes = atomic64_read(&d->out_bytes);
		return;
	}
	if (!(root->flags & TCQ_F_MQROOT)) {
		hpcc_int_qdisc_add(root, bytes, backlog);
		return;
	}
	for (i = 0; i < dev->real_num_tx_queues; i++) {
		q = rcu_dereference(netdev_get_tx_queue(dev, i)->qdisc);
		if (q && q != last)
			hpcc_int_qdisc_add(q, bytes, backlog);
		last = q;
	}
}

/* The wire's backlog saturates here (1.1 TB: a day at 100 Mbit/s). */
#define HPCC_INT_WIRE_Q_MAX	BIT_ULL(40)

/*
 * hpcc_int_wire() - tx-model wire: bring @d's wire up to @now, given the
 * qdisc's byte counter @in, as a fluid FIFO of rate @rate bit/s: it sends
 * min(backlog + the bytes handed on since, @rate x dt) and keeps the rest.
 * A restart (wire_ts 0, after dev-add or dev-set) or a counter that went
 * back (a new qdisc) starts from an empty wire at @in; a @now before the
 * last update (another CPU's stamp came first) sends nothing.  Context:
 * @d->lock held.
 */
static void hpcc_int_wire(struct hpcc_int_dev *d, u64 now, u64 in, u64 rate)
{
	u64 dt, avail, cap;

	if (!d->wire_ts || in < d->wire_in) {
		d->wire_q = 0;
	} else {
		avail = min(d->wire_q + (in - d->wire_in), HPCC_INT_WIRE_Q_MAX);
		dt = now > d->wire_ts ? now - d->wire_ts : 0;
		/* rate x dt / 8e9 bytes, with a 128-bit product */
		cap = min(mul_u64_u64_div_u64(dt, rate, 8 * NSEC_PER_SEC),
			  avail);
		d->wire_tx += cap;
		d->wire_q = avail - cap;
	}
	d->wire_ts = max(now, d->wire_ts);
	d->wire_in = in;
}

/*
 * hpcc_int_queue() - txBytes and qlen of @dev at @now, read in one pass:
 * the qdisc's (hpcc_int_qdisc()), or under tx-model wire the wire's
 * (hpcc_int_wire() at B = @rate, the B the caller stamps; the qdisc read
 * under @d->lock, so that the counter each update sees never goes back):
 * the bytes it has sent, and its backlog added to the qdisc's.
 * Context: RCU, softirq.
 */
static void hpcc_int_queue(struct net_device *dev, struct hpcc_int_dev *d,
			   u64 now, u64 rate, u64 *bytes, u64 *backlog)
{
	u64 in;

	if (READ_ONCE(d->tx_model) != HPCC_INT_TX_MODEL_WIRE) {
		hpcc_int_qdisc(dev, d, bytes, backlog);
		return;
	}
	spin_lock(&d->lock);
	hpcc_int_qdisc(dev, d, &in, backlog);
	hpcc_int_wire(d, now, in, rate);
	*bytes = d->wire_tx;
	*backlog += d->wire_q;
	spin_unlock(&d->lock);
}

/*
 * hpcc_int_stamp_at() - fill the next hop record of the probe in @skb,
 * which leaves through @dev, its TCP header at @off and its HPCC header at
 * @hoff (after an INT-MD or IFA stack, if it carries one).  The TCP
 * checksum is updated incrementally (the pseudo-header, IPv4's or IPv6's,
 * does not change).  Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_stamp_at(struct hpcc_int_net *hn,
					   struct hpcc_int_dev *d,
					   struct sk_buff *skb,
					   struct net_device *dev,
					   unsigned int off, unsigned int hoff)
{
	struct hpcc_wire_hdr _h, *h;
	struct hpcc_wire_hop rec, *hop;
	u64 tx_bytes, backlog, now, rate;
	struct tcphdr *th;
	unsigned int roff;
	__be16 oldw, neww;
	__wsum diff;

	/* a header read at @hoff means skb->len > hoff */
	h = skb_header_pointer(skb, hoff, sizeof(_h), &_h);
	if (!h || !hpcc_wire_hdr_valid(h, HPCC_WIRE_PROBE, skb->len - hoff))
		return HPCC_INT_CNT_MALFORMED;
	if (h->nhop == h->hop_cap)
		return HPCC_INT_CNT_FULL;
	roff = hoff + sizeof(_h) + h->nhop * sizeof(rec);
	if (skb_ensure_writable(skb, roff + sizeof(rec)))
		return HPCC_INT_CNT_UNWRITABLE;

	/* Linear and private from here on; the offsets still hold. */
	th = (struct tcphdr *)(skb->data + off);
	h = (struct hpcc_wire_hdr *)(skb->data + hoff);
	hop = (struct hpcc_wire_hop *)(skb->data + roff);

	rec.switch_id = htonl(READ_ONCE(hn->switch_id));
	rec.port_id = htonl(dev->ifindex);
	/* one B and one snapshot: no packet of this CPU moves between the
	 * reads
	 */
	rate = READ_ONCE(d->rate);
	rec.rate = cpu_to_be64(rate);
	now = ktime_get_ns();
	rec.ts = cpu_to_be64(now);
	hpcc_int_queue(dev, d, now, rate, &tx_bytes, &backlog);
	rec.tx_bytes = cpu_to_be64(tx_bytes);
	rec.qlen = htonl(min_t(u64, backlog, U32_MAX));
	rec.flags = 0;		/* a full record */
	rec.reserved = 0;
	rec.tx_util = 0;

	/* Both regions start at an even offset from the TCP header. */
	diff = csum_sub(csum_partial(&rec, sizeof(rec), 0),
			csum_partial(hop, sizeof(rec), 0));
	memcpy(hop, &rec, sizeof(rec));
	inet_proto_csum_replace_by_diff(&th->check, skb, diff, false, false);

	/* nhop and hop_cap share the 16-bit word at offset 6 of the header. */
	oldw = *(__be16 *)&h->nhop;
	h->nhop++;
	neww = *(__be16 *)&h->nhop;
	inet_proto_csum_replace2(&th->check, skb, oldw, neww, false);
	return HPCC_INT_CNT_STAMPED;
}

/*
 * hpcc_int_stamp() - hpcc_int_stamp_at() for a TCP probe whose TCP header
 * is at @off: its HPCC header follows, or follows an INT-MD stack.
 */
static enum hpcc_int_cnt hpcc_int_stamp(struct hpcc_int_net *hn,
					struct hpcc_int_dev *d,
					struct sk_buff *skb,
					struct net_device *dev,
					unsigned int off)
{
	/* an INT-MD stack (hops of another encoding on the path) may come
	 * first
	 */
	unsigned int hoff = hpcc_wire_tcp_hdr(skb, off, true);

	if (!hoff)
		return HPCC_INT_CNT_MALFORMED;
	return hpcc_int_stamp_at(hn, d, skb, dev, off, hoff);
}

/*
 * hpcc_int_bridged() - whether @skb is a bridged frame that br_netfilter
 * passes through the IP hooks: the bridge restores its Ethernet header
 * from state of its own at the output port, so the hop must not change
 * its length.
 */
static bool hpcc_int_bridged(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	return nf_bridge_info_exists(skb);
#else
	return false;
#endif
}

/*
 * hpcc_int_insert() - insert @len bytes of @data (a multiple of 4) at
 * offset @at of the probe in @skb, which leaves through @out, its TCP
 * header at @off and before @at (at an even distance from it), growing the
 * packet: the bytes in front of @at move @len bytes towards the headroom,
 * and the MAC header in front of the IP header (the one it came in with)
 * moves with them, so the network, transport and MAC header offsets all
 * still point at what they pointed at; the IP length grows (and the IPv4
 * header checksum with it), and the TCP checksum gains the inserted words
 * and the longer pseudo-header.  The bytes after @at keep their alignment
 * to the TCP header, so their words are unchanged.  The caller updates its
 * own headers.
 *
 * The headroom left is at least the moved MAC header's length and @out's
 * LL_RESERVED_SPACE(), so that neither the move nor the output path's
 * link-layer header needs more (the packet is copied here, once, when it
 * had less).  A frame br_netfilter bridges is never grown.
 *
 * Context: the FORWARD hook, skb->data at the IP header.
 * Return: 0; -EOPNOTSUPP for a bridged frame; -ENOMEM when the packet
 * cannot be made linear and private up to @at or given the headroom.  On
 * an error the packet's bytes are unchanged.
 */
static int hpcc_int_insert(struct sk_buff *skb, const struct net_device *out,
			   unsigned int off, unsigned int at,
			   const void *data, unsigned int len)
{
	unsigned int mac = 0;
	struct tcphdr *th;
	__be32 grow;
	__wsum diff;
	u8 *from;

	if (hpcc_int_bridged(skb))
		return -EOPNOTSUPP;
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		return -ENOMEM;
	/* the MAC header, when it lies in the headroom right in front of the
	 * IP header, moves with the data: that is mac_len bytes at most
	 */
	if (skb_mac_header_was_set(skb) && skb_mac_offset(skb) < 0)
		mac = -skb_mac_offset(skb);
	if (skb_ensure_writable(skb, at) ||
	    skb_cow_head(skb, len + max_t(unsigned int, mac,
					  LL_RESERVED_SPACE(out))))
		return -ENOMEM;

	/* skb_cow_head() may have moved the head: offsets, not pointers */
	from = skb->data - mac;
	skb_push(skb, len);
	memmove(from - len, from, mac + at);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, off);
	if (mac)
		skb_set_mac_header(skb, -(int)mac);
	memcpy(skb->data + at, data, len);
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;

	th = (struct tcphdr *)(skb->data + off);
	grow = htonl(len);
	diff = csum_add(csum_partial(data, len, 0),
			csum_partial(&grow, sizeof(grow), 0));
	inet_proto_csum_replace_by_diff(&th->check, skb, diff, false, false);
	if (ip_hdr(skb)->version == 4) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(ntohs(iph->tot_len) + len);
		ip_send_check(iph);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		ip6h->payload_len = htons(ntohs(ip6h->payload_len) + len);
	}
	return 0;
}

/* INT-MD instruction bit @b (0 = the bitmap's MSB) asks for 8 bytes. */
static unsigned int hpcc_int_md_bytes(unsigned int b)
{
	return b >= 4 && b <= 6 ? 8 : 4;
}

/*
 * hpcc_int_tx_util() - the egress port's Tx utilization for INT-MD bit 7
 * (hpcc_int_util_update()), from @tx_bytes read at @now, at B = @rate.
 * Context: the FORWARD hook (softirq).
 * Return: the utilization, or U32_MAX for none yet (the spec's invalid).
 */
static u32 hpcc_int_tx_util(struct hpcc_int_dev *d, u64 now, u64 tx_bytes,
			    u64 rate)
{
	u32 util;

	spin_lock(&d->lock);
	util = hpcc_int_util_update(&d->util, now, tx_bytes, rate);
	spin_unlock(&d->lock);
	return util;
}

/*
 * hpcc_int_md_fill() - this hop's @ml bytes of INT-MD metadata for the
 * instruction bitmap @ins into @md (section 5.8: fields in bit order, then
 * domain-specific metadata, then the checksum complement; a field the hop
 * cannot provide, and every domain-specific word, all ones).  The queue
 * and the timestamp are read together, one snapshot.  The caller checked
 * that the baseline fields fit in @ml.
 */
static void hpcc_int_md_fill(u8 *md, unsigned int ml, u16 ins,
			     const struct hpcc_int_net *hn,
			     struct hpcc_int_dev *d,
			     const struct net_device *in,
			     struct net_device *out)
{
	u32 in_id = in ? in->ifindex : U32_MAX;
	u64 tx_bytes, backlog, now, rate;
	unsigned int b, o = 0;

	memset(md, 0xff, ml);
	rate = READ_ONCE(d->rate);
	now = ktime_get_ns();
	hpcc_int_queue(out, d, now, rate, &tx_bytes, &backlog);
	for (b = 0; b < 15; b++) {
		if (!(ins & (0x8000 >> b)))
			continue;
		switch (b) {
		case 0:		/* node ID */
			put_unaligned_be32(READ_ONCE(hn->switch_id), md + o);
			break;
		case 1:		/* level 1 ingress and egress interface IDs */
			put_unaligned_be32((in_id & 0xffff) << 16 |
					   (out->ifindex & 0xffff), md + o);
			break;
		case 3:		/* queue ID 0, queue occupancy in bytes */
			put_unaligned_be32(min_t(u64, backlog, 0xffffff),
					   md + o);
			break;
		case 5:		/* egress timestamp, ns */
			put_unaligned_be64(now, md + o);
			break;
		case 6:		/* level 2 ingress and egress interface IDs */
			put_unaligned_be32(in_id, md + o);
			put_unaligned_be32(out->ifindex, md + o + 4);
			break;
		case 7:		/* egress Tx utilization, 1/10000 of B */
			put_unaligned_be32(hpcc_int_tx_util(d, now, tx_bytes,
							    rate),
					   md + o);
			break;
		default:	/* hop latency, ingress timestamp, buffer,
				 * reserved: invalid
				 */
			break;
		}
		o += hpcc_int_md_bytes(b);
	}
}

/*
 * hpcc_int_md_flag() - set @flag (E or M) in the INT-MD metadata header at
 * @moff, the TCP header at @off, keeping the TCP checksum; the packet is
 * otherwise left as it is.  Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_md_flag(struct sk_buff *skb,
					  unsigned int off, unsigned int moff,
					  u8 flag)
{
	__be16 oldw, *w;

	if (skb_ensure_writable(skb, moff + 2))
		return HPCC_INT_CNT_UNWRITABLE;
	/* Ver, D E M and the reserved bits: the first 16-bit word, at an
	 * even offset from the TCP header
	 */
	w = (__be16 *)(skb->data + moff);
	oldw = *w;
	*((u8 *)w) |= flag;
	inet_proto_csum_replace2(&((struct tcphdr *)(skb->data + off))->check,
				 skb, oldw, *w, false);
	return HPCC_INT_CNT_FULL;
}

/*
 * hpcc_int_stamp_md() - push this hop's INT-MD metadata (P4.org INT v2.1,
 * section 5.8) onto the stack of the probe in @skb, which came in through
 * @in and leaves through @dev, its TCP header at @off, the INT shim right
 * after it (section 5.7.2).  The metadata go right after the 12-byte
 * metadata header, in front of the upstream hops' (the stack's top is the
 * newest hop): the headers in front move Hop ML x 4 bytes towards the
 * headroom, the shim's Length and the IP length grow, Remaining Hop Count
 * drops by one, and the TCP checksum is updated incrementally (the
 * inserted words sit at an even offset from the TCP header, so the words
 * after them keep their alignment).  Remaining Hop Count 0 sets E and a
 * packet that would pass the device's MTU sets M (section 5.8); neither
 * is stamped.  Context: the FORWARD hook, skb->data at the IP header.
 * Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_stamp_md(struct hpcc_int_net *hn,
					   struct hpcc_int_dev *d,
					   struct sk_buff *skb,
					   const struct net_device *in,
					   struct net_device *dev,
					   unsigned int off)
{
	u8 _m[HPCC_WIRE_INT_SHIM_LEN + HPCC_WIRE_INT_MD_LEN], *m;
	unsigned int soff, moff, ml, need, b;
	u8 md[31 * 4];
	__be16 oldw, *w;
	struct tcphdr _th, *th;
	int int_len;
	u16 ins;

	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th || !hpcc_wire_tcp_valid(th) || skb_network_offset(skb) ||
	    skb_is_gso(skb))
		return HPCC_INT_CNT_MALFORMED;
	soff = off + th->doff * 4;
	int_len = hpcc_wire_int_len(skb, soff);
	if (!int_len)
		return HPCC_INT_CNT_OTHER_ENCODING;
	if (int_len < 0)
		return HPCC_INT_CNT_MALFORMED;
	m = skb_header_pointer(skb, soff, sizeof(_m), _m);
	if (!m || m[HPCC_WIRE_INT_SHIM_LEN] >> 4 != 2)	/* version 2 */
		return HPCC_INT_CNT_MALFORMED;
	moff = soff + HPCC_WIRE_INT_SHIM_LEN;
	ml = (m[HPCC_WIRE_INT_SHIM_LEN + 2] & 0x1f) * 4;
	ins = get_unaligned_be16(m + HPCC_WIRE_INT_SHIM_LEN + 4);
	for (need = 0, b = 0; b < 16; b++)
		if (ins & (0x8000 >> b))
			need += hpcc_int_md_bytes(b);
	/* Hop ML 0, or less than the bitmap's fields: no hop can add a whole
	 * Hop ML that holds them (section 5.8: zero bytes or Hop ML x 4)
	 */
	if (!ml || ml < need)
		return HPCC_INT_CNT_MALFORMED;
	if (!m[HPCC_WIRE_INT_SHIM_LEN + 3])
		return hpcc_int_md_flag(skb, off, moff, HPCC_INT_MD_FLAG_E);
	if (skb->len + ml > READ_ONCE(dev->mtu) || m[1] + ml / 4 > 255)
		return hpcc_int_md_flag(skb, off, moff, HPCC_INT_MD_FLAG_M);

	hpcc_int_md_fill(md, ml, ins, hn, d, in, dev);
	if (hpcc_int_insert(skb, dev, off, moff + HPCC_WIRE_INT_MD_LEN, md,
			    ml))
		return HPCC_INT_CNT_UNWRITABLE;

	th = (struct tcphdr *)(skb->data + off);
	/* the shim's Length (its first word: Type, NPT, Length) */
	w = (__be16 *)(skb->data + soff);
	oldw = *w;
	((u8 *)w)[1] += ml / 4;
	inet_proto_csum_replace2(&th->check, skb, oldw, *w, false);
	/* Remaining Hop Count (the header's second word: Hop ML, RHC) */
	w = (__be16 *)(skb->data + moff + 2);
	oldw = *w;
	((u8 *)w)[1]--;
	inet_proto_csum_replace2(&th->check, skb, oldw, *w, false);
	return HPCC_INT_CNT_STAMPED;
}

/* The IFA egress port speed code of B (draft-kumar-ippm-ifa: 0 10G, 1
 * 25G, 2 40G, 3 50G, 4 100G, 5 200G, 6 400G), 0xf for any other B.
 */
static u32 hpcc_int_ifa_speed(u64 rate)
{
	static const u16 gbit[] = { 10, 25, 40, 50, 100, 200, 400 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gbit); i++)
		if (rate == (u64)gbit[i] * 1000000000)
			return i;
	return 0xf;
}

/*
 * hpcc_int_stamp_ifa() - push this hop's 32 bytes of IFA 2.0 metadata
 * (draft-kumar-ippm-ifa-08; the layout hpcc_decode_ifa() reads) on the
 * stack of the IFA probe in @skb (hpcc_wire_ifa_find(), its IFA header at
 * @off), which came in through @in and leaves through @dev, with @ttl
 * its IP TTL (IPv6: hop limit) after this hop: LNS 1, device ID (the low
 * 20 bits of switch-id), @ttl; the speed code of B, congestion 0, queue
 * ID 0, Rx timestamp seconds mod 2^20; egress and ingress ports (ifindex,
 * 16 bits); Rx timestamp ns; residence time, the time the egress qdisc's
 * backlog takes to drain at B (what a FIFO port would hold this probe;
 * the hop stamps before the queue); three opaque words of 0.  The stack
 * grows right after the metadata header (the newest hop first), Hop Limit
 * drops by one and Current Length grows by 8 words.  Hop Limit 0,
 * Current Length at Max Length, or a packet that would pass the MTU: not
 * stamped, counted full.  Return: the counter to increment.
 */
static enum hpcc_int_cnt hpcc_int_stamp_ifa(struct hpcc_int_net *hn,
					    struct hpcc_int_dev *d,
					    struct sk_buff *skb,
					    const struct net_device *in,
					    struct net_device *dev,
					    unsigned int off, u8 ttl)
{
	u32 in_id = in ? in->ifindex : U32_MAX;
	u64 tx_bytes, backlog, now, rate, res;
	u8 md[HPCC_WIRE_IFA_HOP_LEN];
	struct hpcc_wire_ifa ifa;
	struct tcphdr *th;
	__be16 oldw, *w;

	if (skb_network_offset(skb) || skb_is_gso(skb) ||
	    !hpcc_wire_ifa_find(skb, off, &ifa))
		return HPCC_INT_CNT_MALFORMED;
	/* Hop Limit, Max Length (words), the MTU */
	if (!ifa.hop_limit ||
	    ifa.cur_len + HPCC_WIRE_IFA_HOP_LEN / 4 > ifa.max_len ||
	    skb->len + HPCC_WIRE_IFA_HOP_LEN > READ_ONCE(dev->mtu))
		return HPCC_INT_CNT_FULL;

	rate = READ_ONCE(d->rate);
	now = ktime_get_ns();
	hpcc_int_queue(dev, d, now, rate, &tx_bytes, &backlog);
	/* backlog x 8e9 / B ns, without overflow: B >= 1 bit/s, backlog
	 * below 2^40 bytes
	 */
	res = div64_u64(min_t(u64, backlog, 1ULL << 40) * 8 * NSEC_PER_USEC,
			max_t(u64, rate / 1000000, 1));
	memset(md, 0, sizeof(md));
	put_unaligned_be32(1U << 28 | (READ_ONCE(hn->switch_id) & 0xfffff) << 8 |
			   ttl, md);
	put_unaligned_be32(hpcc_int_ifa_speed(rate) << 28 |
			   (u32)(div_u64(now, NSEC_PER_SEC) & 0xfffff), md + 4);
	put_unaligned_be32((dev->ifindex & 0xffff) << 16 | (in_id & 0xffff),
			   md + 8);
	put_unaligned_be32(do_div(now, NSEC_PER_SEC), md + 12);
	put_unaligned_be32(min_t(u64, res, U32_MAX), md + 16);
	if (hpcc_int_insert(skb, dev, ifa.tcp,
			    ifa.md + HPCC_WIRE_IFA_MD_HDR_LEN, md, sizeof(md)))
		return HPCC_INT_CNT_UNWRITABLE;

	/* Hop Limit and Current Length: the metadata header's second word,
	 * at an even distance from the TCP header
	 */
	th = (struct tcphdr *)(skb->data + ifa.tcp);
	w = (__be16 *)(skb->data + ifa.md + 2);
	oldw = *w;
	((u8 *)w)[0]--;
	((u8 *)w)[1] += HPCC_WIRE_IFA_HOP_LEN / 4;
	inet_proto_csum_replace2(&th->check, skb, oldw, *w, false);
	return HPCC_INT_CNT_STAMPED;
}

/*
 * hpcc_int_egress() - the configured device a forwarded packet with @dscp
 * leaves through when @dscp is the probe DSCP, else NULL.  Both forward
 * hooks' first step; netfilter hooks run under rcu_read_lock().
 */
static struct hpcc_int_dev *hpcc_int_egress(struct hpcc_int_net *hn, u8 dscp,
					    const struct nf_hook_state *state)
{
	hpcc_fault_hook_delay();
	if (dscp != READ_ONCE(hn->probe_dscp) || !state->out)
		return NULL;
	return xa_load(&hn->devs, state->out->ifindex);
}

/*
 * hpcc_int_stamp_any() - stamp a TCP probe (its TCP header at @off) in the
 * device's encoding; an ifa device leaves it unstamped (other-encoding)
 */
static enum hpcc_int_cnt hpcc_int_stamp_any(struct hpcc_int_net *hn,
					    struct hpcc_int_dev *d,
					    struct sk_buff *skb,
					    const struct nf_hook_state *state,
					    unsigned int off)
{
	switch (READ_ONCE(d->encoding)) {
	case HPCC_INT_ENCODING_INT_MD:
		return hpcc_int_stamp_md(hn, d, skb, state->in, state->out,
					 off);
	case HPCC_INT_ENCODING_IFA:
		return HPCC_INT_CNT_OTHER_ENCODING;
	default:
		return hpcc_int_stamp(hn, d, skb, state->out, off);
	}
}

/*
 * hpcc_int_stamp_ifa_any() - an IFA probe (its IFA header at @off, @ttl
 * its TTL or hop limit) in the device's encoding: an ifa device pushes
 * its metadata, an own device fills the record after the IFA stack, an
 * int-md device leaves it unstamped (other-encoding)
 */
static enum hpcc_int_cnt hpcc_int_stamp_ifa_any(struct hpcc_int_net *hn,
						struct hpcc_int_dev *d,
						struct sk_buff *skb,
						const struct nf_hook_state *state,
						unsigned int off, u8 ttl)
{
	struct hpcc_wire_ifa ifa;

	switch (READ_ONCE(d->encoding)) {
	case HPCC_INT_ENCODING_IFA:
		return hpcc_int_stamp_ifa(hn, d, skb, state->in, state->out,
					  off, ttl);
	case HPCC_INT_ENCODING_INT_MD:
		return HPCC_INT_CNT_OTHER_ENCODING;
	default:
		if (!hpcc_wire_ifa_find(skb, off, &ifa))
			return HPCC_INT_CNT_MALFORMED;
		return hpcc_int_stamp_at(hn, d, skb, state->out, ifa.tcp,
					 ifa.hdr);
	}
}

/* The traffic class of the IPv6 socket @sk's datagrams. */
static void hpcc_int_fcr_tclass(struct sock *sk, u8 tclass)
{
#if IS_ENABLED(CONFIG_IPV6)
	lock_sock(sk);
	inet6_sk(sk)->tclass = tclass;
	release_sock(sk);
#endif
}

/* --- Fast Congestion Response ------------------------------------------- */

/*
 * A port with FCR (dev-add/dev-set fcr-qlen-high) tracks the flows it
 * forwards and the senders that announced FCR support in their probes
 * (HPCC_WIRE_EXT_FCR), and while its backlog says congested (at or above
 * fcr-qlen-high until at or below fcr-qlen-low) runs rounds fcr-interval
 * apart: each round's rate is B x fcr-eta / 1000 over the flows seen in the
 * last interval (draft section 5: the same rate for every sender), lowered
 * within the round as more flows send, and a round starts early once that
 * count has grown by a third since the round began (an incast's late
 * senders, which the first count could not see), and each
 * flow of a supporting sender gets one FCR message per round, built from
 * its packet (its sequence number is the message's nonce) and sent by a
 * work item from the namespace's UDP sockets (a packet hook neither sends
 * nor sleeps), at most fcr-sender-max per sender per interval.  Flows of
 * other senders get CE marks (mixed mode, sections 3.1 and 3.3).
 * Documentation/design.rst, "Fast Congestion Response".
 */
#define HPCC_INT_FCR_FLOWS	256	/* flows a port tracks */
#define HPCC_INT_FCR_PROBE	8	/* slots a flow may hash to */
#define HPCC_INT_FCR_SENDERS	64	/* supporting senders a port knows */
#define HPCC_INT_FCR_QUEUE	256	/* messages waiting to be sent */
#define HPCC_INT_FCR_PORT_DEFAULT	HPCC_WIRE_FCR_PORT
#define HPCC_INT_FCR_DSCP_DEFAULT	61
#define HPCC_INT_FCR_INTERVAL_DEFAULT	1000	/* us */
#define HPCC_INT_FCR_ETA_DEFAULT	950
#define HPCC_INT_FCR_SENDER_MAX_DEFAULT	64	/* messages per interval */
#define HPCC_INT_FCR_LIMITS	HPCC_INT_FCR_FLOWS	/* senders limited */
/* A round starts early when its count of flows has grown by NUM/DEN ... */
#define HPCC_INT_FCR_EARLY_NUM		4
#define HPCC_INT_FCR_EARLY_DEN		3
/* ... and it is at least fcr-interval / GAP old (hpcc_int_fcr_count()). */
#define HPCC_INT_FCR_EARLY_GAP		4
/* A sender's support is forgotten this long after its last probe, ns. */
#define HPCC_INT_FCR_SENDER_TTL		(10ULL * NSEC_PER_SEC)
#define HPCC_INT_CCM_INTERVAL_DEFAULT	10000	/* us */
/* Data segments read the port's backlog at most this often per fcr-interval. */
#define HPCC_INT_FCR_SAMPLES		16

/**
 * struct hpcc_int_fcr_flow - a flow a port forwards
 * @saddr: source address, IPv4-mapped for IPv4
 * @daddr: destination address, the same way
 * @sport: source port
 * @dport: destination port
 * @family: 4 or 6; 0: the slot is free
 * @support: a probe of this flow announced FCR support
 * @seq: the TCP sequence number of its newest data segment
 * @seen: when its newest data segment (or first probe) passed, ns
 * @sent_round: the round it last got a message in
 * @counted_round: the round whose count of active flows includes it
 * @label: the IPv6 flow label of its newest data segment (0 for IPv4)
 * @tag: its probes carry the coordination tag (the AR indicator): its
 *	sender takes CCM notifications
 * @cc: its newest probe carried the CC indicator
 * @ar_choice: its newest probe's AR indicator named the flow's source as
 *	the AR point and had HPCC_WIRE_AR_CHOICE: a type 3 to the source
 *	can move the flow
 * @incast: HPCC_INT_CCM_INCAST: it was sent a type 1 in the port's
 *	current CCM episode; HPCC_INT_CCM_OWED: the episode ended and it is
 *	owed a type 2, which goes out with its next data segment (the
 *	sequence number of data in flight, which the sender's window check
 *	takes; its last one may be acknowledged by the time the port drains);
 *	0: neither
 * @ccm_ts: when the port last decided about it (a type 3 or a count),
 *	ns; 0: never
 */
/* struct hpcc_int_fcr_flow.incast */
#define HPCC_INT_CCM_INCAST	1
#define HPCC_INT_CCM_OWED	2

struct hpcc_int_fcr_flow {
	u8 saddr[16];
	u8 daddr[16];
	__be16 sport;
	__be16 dport;
	u8 family;
	u8 support;
	u32 seq;
	u64 seen;
	u32 sent_round;
	u32 counted_round;
	u32 label;
	u8 tag;
	u8 cc;
	u8 ar_choice;
	u8 incast;
	u64 ccm_ts;
};

/**
 * struct hpcc_int_fcr_limit - the messages a port sent one sender
 * @saddr: the sender's address, IPv4-mapped for IPv4
 * @tat: the theoretical arrival time of its next message, ns (a generic
 *	cell rate algorithm, ITU-T I.371): each message moves it on by
 *	fcr-interval / fcr-sender-max; a message is allowed while it is at
 *	most fcr-interval ahead of now.  At or before now: the sender has its
 *	whole budget, and the slot may be taken by another.
 */
struct hpcc_int_fcr_limit {
	u8 saddr[16];
	u64 tat;
};

/**
 * struct hpcc_int_fcr - a port's flow table and FCR and CCM state,
 * allocated when FCR or CCM is first turned on for it and freed with it
 * @lock: serializes everything below between the CPUs that forward
 * @hash_rnd: seed of the flow and sender hashes
 * @congested: the port is congested for FCR (hysteresis state)
 * @ccm_congested: the port is congested for CCM (its own hysteresis)
 * @ar_ts: when the port last sent a type 3, ns; 0: never (ccm-ar-gap)
 * @round: the current round, one more at each
 * @round_ts: when it started, ns; 0: start one at the next packet
 * @rate: its rate, bits per second: B x fcr-eta / 1000 / @active (and
 *	the queue's share, hpcc_int_fcr_rate())
 * @active: the flows it counted, at its start and since
 * @round_active: @active at its start
 * @round_qlen: the port's backlog at its start, bytes
 * @qlen_ts: when a data segment last read the port's backlog, ns; 0: never
 * @qlen: the backlog it read, bytes (hpcc_int_fcr_backlog())
 * @senders: supporting senders' addresses (IPv4-mapped), by hash
 * @sender_seen: when each last probed, ns; 0: free
 * @flows: the flows, open addressing over HPCC_INT_FCR_PROBE slots
 * @limits: the messages each sender was sent, by hash, the same way
 *	(hpcc_int_fcr_allow())
 */
struct hpcc_int_fcr {
	spinlock_t lock;	/* the whole state */
	u32 hash_rnd;
	bool congested;
	bool ccm_congested;
	u64 ar_ts;
	u32 round;
	u64 round_ts;
	u64 rate;
	u32 active;
	u32 round_active;
	u64 round_qlen;
	u64 qlen_ts;
	u64 qlen;
	u8 senders[HPCC_INT_FCR_SENDERS][16];
	u64 sender_seen[HPCC_INT_FCR_SENDERS];
	struct hpcc_int_fcr_flow flows[HPCC_INT_FCR_FLOWS];
	struct hpcc_int_fcr_limit limits[HPCC_INT_FCR_LIMITS];
};

/**
 * struct hpcc_int_fcr_req - a message waiting in the namespace's queue
 * @node: in hpcc_int_net.fcr_queue
 * @ifindex: the port it came from (its counters count it)
 * @ntype: 0: an FCR message, @m; else a CCM notification of this type,
 *	@c
 * @dst: where it goes, IPv4-mapped when the flow is IPv4: the flow's
 *	sender (for a type 3, its AR point)
 * @m: the FCR message
 * @c: the CCM notification
 */
struct hpcc_int_fcr_req {
	struct list_head node;
	int ifindex;
	u8 ntype;
	u8 dst[16];
	union {
		struct hpcc_fcr_msg m;
		struct hpcc_ccm_msg c;
	};
};

/* The flow's slot, or a free or stale one taken for it; NULL: no room. */
static struct hpcc_int_fcr_flow *
hpcc_int_fcr_flow(struct hpcc_int_fcr *f, const struct hpcc_int_fcr_flow *k,
		  u64 now, u64 stale)
{
	const size_t klen = offsetof(struct hpcc_int_fcr_flow, family) + 1;
	u32 h = jhash(k, klen, f->hash_rnd);
	struct hpcc_int_fcr_flow *fl, *free = NULL;
	int i;

	for (i = 0; i < HPCC_INT_FCR_PROBE; i++) {
		fl = &f->flows[(h + i) % HPCC_INT_FCR_FLOWS];
		if (fl->family && !memcmp(fl, k, klen))
			return fl;
		/* a flow owed a type 2 keeps its slot while the episode
		 * lasts
		 */
		if (!free && (!fl->family ||
			      (fl->seen + stale < now &&
			       !(fl->incast && f->ccm_congested))))
			free = fl;
	}
	if (free) {
		memset(free, 0, sizeof(*free));
		memcpy(free, k, klen);
		free->seen = now;
		free->sent_round = f->round - 1;
		free->counted_round = f->round - 1;
	}
	return free;
}

/* Whether the port tracks its flows: FCR or CCM on (READ_ONCE). */
static bool hpcc_int_tracks(const struct hpcc_int_dev *d)
{
	return READ_ONCE(d->fcr_high) || READ_ONCE(d->ccm_high);
}

/*
 * hpcc_int_stale() - how long after its last packet a flow's slot may be
 * taken by another flow, ns: two of the longer of fcr-interval and (with
 * CCM on) ccm-interval
 */
static u64 hpcc_int_stale(const struct hpcc_int_dev *d)
{
	u32 us = READ_ONCE(d->fcr_interval);

	if (READ_ONCE(d->ccm_high))
		us = max(us, READ_ONCE(d->ccm_interval));
	return 2ULL * NSEC_PER_USEC * us;
}

/*
 * The hash of sender address @a (IPv4-mapped), hashed once per packet for
 * both the supporting-senders table (% HPCC_INT_FCR_SENDERS) and the
 * per-sender limits (hpcc_int_fcr_allow()).
 */
static u32 hpcc_int_fcr_shash(const struct hpcc_int_fcr *f, const u8 *a)
{
	return jhash(a, 16, f->hash_rnd);
}

/*
 * hpcc_int_fcr_allow() - may the port send sender @saddr one more message
 * now (@h: its hpcc_int_fcr_shash())?  At most @max per @interval (ns)
 * as a steady rate, and as a burst after a quiet interval (struct
 * hpcc_int_fcr_limit).  A sender not in the table takes a slot whose
 * budget is whole, or else the one of its hash's HPCC_INT_FCR_PROBE slots
 * that is soonest whole (that sender's count starts again: with more than
 * that many senders, each sent a message within the interval, hashing
 * alike, a sender may get more).  Return: true, and the message counted,
 * or false.  Context: @f->lock held.
 */
static bool hpcc_int_fcr_allow(struct hpcc_int_fcr *f, const u8 *saddr,
			       u32 h, u64 now, u64 interval, u32 max)
{
	u64 cost = max_t(u64, div_u64(interval, max), 1), t;
	struct hpcc_int_fcr_limit *l, *victim = NULL;
	int i;

	for (i = 0; i < HPCC_INT_FCR_PROBE; i++) {
		l = &f->limits[(h + i) % HPCC_INT_FCR_LIMITS];
		if (!memcmp(l->saddr, saddr, 16))
			goto found;
		if (!victim || l->tat < victim->tat)
			victim = l;
	}
	l = victim;
	memcpy(l->saddr, saddr, 16);
	l->tat = now;
found:
	t = max(l->tat, now);
	if (t - now + cost > interval)
		return false;
	l->tat = t + cost;
	return true;
}

/*
 * hpcc_int_fcr_key() - the 4-tuple and family of the TCP packet in @skb
 * (TCP header @th), in the flow table's form
 */
static void hpcc_int_fcr_key(const struct sk_buff *skb,
			     const struct tcphdr *th,
			     struct hpcc_int_fcr_flow *k)
{
	memset(k, 0, sizeof(*k));
	if (ip_hdr(skb)->version == 4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr,
				       (struct in6_addr *)k->saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)k->daddr);
		k->family = 4;
	} else {
		memcpy(k->saddr, &ipv6_hdr(skb)->saddr, 16);
		memcpy(k->daddr, &ipv6_hdr(skb)->daddr, 16);
		k->family = 6;
	}
	k->sport = th->source;
	k->dport = th->dest;
}

/*
 * hpcc_int_label_paths() - whether the route of the forwarded IPv6 packet
 * in @skb has more than one next hop and the namespace's multipath hash
 * covers the flow label (fib_multipath_hash_policy 0, L3, or 2, L3 of the
 * inner or only header; or 3 with the flow label among
 * fib_multipath_hash_fields): a new flow label from the sender may move
 * the flow here.  Context: RCU (a netfilter hook).
 */
static bool hpcc_int_label_paths(const struct net *net, struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct rt6_info *rt = (struct rt6_info *)skb_dst(skb);
	int policy = ip6_multipath_hash_policy(net);
	struct fib6_info *from;

	if (!rt || policy == 1 ||
	    (policy == 3 && !(ip6_multipath_hash_fields(net) &
			      FIB_MULTIPATH_HASH_FIELD_FLOWLABEL)))
		return false;
	from = rcu_dereference(rt->from);
	if (!from)
		return false;
	if (from->nh)
		return nexthop_num_path(from->nh) > 1;
	return READ_ONCE(from->fib6_nsiblings) > 0;
#else
	return false;
#endif
}

/*
 * hpcc_int_ar_mark() - set HPCC_WIRE_AR_CHOICE in the AR indicator at
 * @eoff of the probe whose TCP header is at @off, updating the TCP
 * checksum.  Return: the flags now, or @flags when the packet could not be
 * written (then unchanged).
 */
static u16 hpcc_int_ar_mark(struct sk_buff *skb, unsigned int off,
			    unsigned int eoff, u16 flags)
{
	struct hpcc_wire_ext *e;
	struct tcphdr *th;
	__be16 old;

	if (skb_ensure_writable(skb, eoff + HPCC_WIRE_EXT_AR_LEN))
		return flags;
	th = (struct tcphdr *)(skb->data + off);
	e = (struct hpcc_wire_ext *)(skb->data + eoff);
	old = e->reserved;
	flags |= HPCC_WIRE_AR_CHOICE;
	e->reserved = htons(flags);
	/* the extension starts at an even offset from the TCP header */
	inet_proto_csum_replace2(&th->check, skb, old, e->reserved, false);
	return flags;
}

/*
 * hpcc_int_probe_ext() - a probe of the project's encoding leaving through
 * @d, its TCP header at @off: read its extensions, which follow the
 * hop_cap records (include/uapi/linux/hpcc_wire.h); a malformed one ends
 * the walk.  An IPv6 probe's AR indicator gets HPCC_WIRE_AR_CHOICE where
 * the route chooses among paths by the flow label (on every configured
 * device).  With FCR or CCM on the port, the flow's entry learns what the
 * probe says: FCR support (its sender's too), the coordination tag, the
 * CC indicator, the AR indicator.  Context: RCU, softirq.
 */
static void hpcc_int_probe_ext(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			       struct sk_buff *skb, unsigned int off)
{
	struct hpcc_int_fcr *f = rcu_dereference(d->fcr);
	bool support = false, tag = false, cc = false, v6;
	unsigned int hoff, eoff, end, s, ar_off = 0;
	struct hpcc_int_fcr_flow k, *fl;
	struct hpcc_wire_hdr _h;
	const struct hpcc_wire_hdr *h;
	struct tcphdr _th;
	const struct tcphdr *th;
	u8 ar_addr[16] __aligned(4);
	u16 ar_flags = 0;
	u64 now;

	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	hoff = hpcc_wire_tcp_hdr(skb, off, true);
	if (!th || !hoff)
		return;
	h = skb_header_pointer(skb, hoff, sizeof(_h), &_h);
	if (!h || !hpcc_wire_hdr_valid(h, HPCC_WIRE_PROBE, skb->len - hoff))
		return;
	eoff = hoff + sizeof(*h) + h->hop_cap * HPCC_WIRE_HOP_LEN;
	end = min(skb->len, eoff + HPCC_WIRE_EXT_MAX);
	while (eoff + HPCC_WIRE_EXT_LEN <= end) {
		struct hpcc_wire_ext _e;
		const struct hpcc_wire_ext *e;

		e = skb_header_pointer(skb, eoff, sizeof(_e), &_e);
		if (!e || e->len < HPCC_WIRE_EXT_LEN || e->len % 4 ||
		    eoff + e->len > end)
			break;
		if (e->kind == HPCC_WIRE_EXT_FCR) {
			support = ntohl(e->value) & HPCC_WIRE_FCR_SUPPORT;
		} else if (e->kind == HPCC_WIRE_EXT_CCM) {
			cc = ntohl(e->value) & HPCC_WIRE_CCM_CC;
		} else if (e->kind == HPCC_WIRE_EXT_AR &&
			   e->len == HPCC_WIRE_EXT_AR_LEN &&
			   !skb_copy_bits(skb, eoff + HPCC_WIRE_EXT_LEN, ar_addr,
					  sizeof(ar_addr))) {
			ar_off = eoff;
			ar_flags = ntohs(e->reserved);
		}
		eoff += e->len;
	}
	v6 = ip_hdr(skb)->version == 6;
	if (ar_off) {
		/* the AR point's address must be of the flow's family */
		tag = v6 != ipv6_addr_v4mapped((struct in6_addr *)ar_addr);
		if (tag && v6 && !(ar_flags & HPCC_WIRE_AR_CHOICE) &&
		    hpcc_int_label_paths(hn->net, skb)) {
			ar_flags = hpcc_int_ar_mark(skb, off, ar_off, ar_flags);
			if (ar_flags & HPCC_WIRE_AR_CHOICE)
				atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_AR_MARKED]);
		}
	}
	if (!f || !(support || (tag && READ_ONCE(d->ccm_high))))
		return;
	/* the packet may have moved (hpcc_int_ar_mark()) */
	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th)
		return;
	hpcc_int_fcr_key(skb, th, &k);
	now = ktime_get_ns();
	spin_lock(&f->lock);
	fl = hpcc_int_fcr_flow(f, &k, now, hpcc_int_stale(d));
	if (fl) {
		fl->support |= support;
		fl->tag = tag;
		fl->cc = cc;
		/* a type 3 goes only to the flow's own source: a sender
		 * could name any address as the AR point, and no Linux hop
		 * names itself
		 */
		fl->ar_choice = tag && (ar_flags & HPCC_WIRE_AR_CHOICE) &&
				!memcmp(ar_addr, k.saddr, 16);
	}
	if (support) {
		s = hpcc_int_fcr_shash(f, k.saddr) % HPCC_INT_FCR_SENDERS;
		memcpy(f->senders[s], k.saddr, 16);
		f->sender_seen[s] = now;
	}
	spin_unlock(&f->lock);
}

/*
 * hpcc_int_fcr_rate() - the round's rate, bits/s: B x fcr-eta / 1000 over
 * its active flows; with fcr-drain, times D / (D + qlen), D = B x
 * fcr-drain in bytes and qlen the backlog at the round's start (HPCC's U
 * has qlen / (B x T), draft-pan-tsvwg-hpccplus-02 section 4.2,
 * MeasureInflight line 5), at least an eighth of the share.  qlen is the
 * round's, so the rate only falls within a round as flows are counted.
 * Context: @f->lock held.
 */
static void hpcc_int_fcr_rate(struct hpcc_int_dev *d, struct hpcc_int_fcr *f)
{
	u64 b = READ_ONCE(d->rate), share, dq;
	u32 drain = READ_ONCE(d->fcr_drain);

	share = max_t(u64, div_u64(b / 1000 * READ_ONCE(d->fcr_eta),
				   f->active), 1);
	/* B <= 1.6 Tbit/s (the policy) times 32767 us fits in a u64 */
	dq = drain ? div_u64(b * drain, 8 * USEC_PER_SEC) : 0;
	if (dq)
		share = max(mul_u64_u64_div_u64(share, dq, dq + f->round_qlen),
			    max_t(u64, share / 8, 1));
	WRITE_ONCE(f->rate, share);
}

/*
 * hpcc_int_fcr_round() - start a round at @now: count the flows seen in
 * the last interval and hand each the same share of eta x B.  Context:
 * @f->lock held.
 */
static void hpcc_int_fcr_round(struct hpcc_int_dev *d, struct hpcc_int_fcr *f,
			       u64 now, u64 interval, u64 backlog)
{
	struct hpcc_int_fcr_flow *fl;
	u32 n = 0;
	int i;

	f->round++;
	for (i = 0; i < HPCC_INT_FCR_FLOWS; i++) {
		fl = &f->flows[i];
		if (fl->family && fl->seen + interval >= now) {
			fl->counted_round = f->round;
			n++;
		}
	}
	f->round_ts = now;
	f->round_qlen = backlog;
	WRITE_ONCE(f->active, max(n, 1U));
	f->round_active = f->active;
	hpcc_int_fcr_rate(d, f);
	atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_ROUNDS]);
}

/*
 * hpcc_int_fcr_count() - @fl sends in the current round but was not seen
 * in the interval before it: count it, lower the rate the round's later
 * messages carry, and start a round now once the count has grown by a
 * third since the round began (HPCC_INT_FCR_EARLY_NUM/DEN) and the round
 * is at least a quarter of fcr-interval old (HPCC_INT_FCR_EARLY_GAP), so
 * that the flows already told the first rate hear the lower one soon
 * after the newcomers, not an interval later.  An early round counts
 * afresh, as a regular one does (the flows seen in the last interval):
 * the first version counted at least the flows the round it replaced had
 * counted, so that an early round would only lower the rate, and under
 * Poisson arrivals (S7 at 100 %, 2026-11-27: 1 750 of 3 189 rounds early)
 * chains of early rounds kept counting flows that had ended and pushed
 * the rate below the senders' rate-min (30 192 messages refused).  The
 * gap bounds the rounds to four per interval, so the messages to four per
 * tracked flow per interval.  Context: @f->lock held.
 */
static void hpcc_int_fcr_count(struct hpcc_int_dev *d, struct hpcc_int_fcr *f,
			       struct hpcc_int_fcr_flow *fl, u64 now,
			       u64 interval, u64 backlog)
{
	if (fl->counted_round == f->round)
		return;
	fl->counted_round = f->round;
	/* never more than the table holds */
	if (f->active >= HPCC_INT_FCR_FLOWS)
		return;
	WRITE_ONCE(f->active, f->active + 1);
	if (f->active * HPCC_INT_FCR_EARLY_DEN >=
	    f->round_active * HPCC_INT_FCR_EARLY_NUM &&
	    now - f->round_ts >= div_u64(interval, HPCC_INT_FCR_EARLY_GAP)) {
		hpcc_int_fcr_round(d, f, now, interval, backlog);
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_EARLY_ROUNDS]);
		return;
	}
	hpcc_int_fcr_rate(d, f);
}

/* The counter of a message that was not sent. */
static atomic64_t *hpcc_int_dropped(struct hpcc_int_dev *d, u8 ntype)
{
	return ntype ? &d->ccm_cnt[HPCC_INT_CCM_CNT_DROPPED] :
		       &d->fcr_cnt[HPCC_INT_FCR_CNT_DROPPED];
}

/*
 * hpcc_int_fcr_gate() - may the namespace send @t: its destination a
 * unicast address of the flow's family (hpcc_int_dst_unicast()) in one of
 * the fcr-dst prefixes when there are any, and the total and the
 * destination's buckets not empty (hpcc_int_lim_allow()).  Every message
 * and notification of every port passes here: the destination is the
 * source address of a forwarded packet, which its sender chose.
 * Context: softirq or BH off.
 * Return: HPCC_INT_FCR_CNT_NUM when it may, else the counter of the refusal.
 */
static enum hpcc_int_fcr_cnt
hpcc_int_fcr_gate(struct hpcc_int_net *hn, const struct hpcc_int_fcr_req *t)
{
	const struct hpcc_int_dsts *ds;
	enum hpcc_int_lim_verdict v;
	struct hpcc_int_lim_cfg c;
	bool ok;

	if (!hpcc_int_dst_unicast(t->dst, t->ntype ? t->c.family :
				  t->m.family))
		return HPCC_INT_FCR_CNT_DST_REFUSED;
	rcu_read_lock();
	ds = rcu_dereference(hn->dsts);
	ok = !ds || hpcc_fcr_in_domain(t->dst, ds->p, ds->n);
	rcu_read_unlock();
	if (!ok)
		return HPCC_INT_FCR_CNT_DST_REFUSED;
	c.rate = READ_ONCE(hn->lim_cfg.rate);
	c.burst = READ_ONCE(hn->lim_cfg.burst);
	c.dst_rate = READ_ONCE(hn->lim_cfg.dst_rate);
	c.dst_burst = READ_ONCE(hn->lim_cfg.dst_burst);
	spin_lock(&hn->lim_lock);
	v = hpcc_int_lim_allow(&hn->lim, t->dst,
			       jhash(t->dst, 16, hn->lim_rnd), ktime_get_ns(),
			       &c);
	spin_unlock(&hn->lim_lock);
	if (v == HPCC_INT_LIM_DST)
		return HPCC_INT_FCR_CNT_DST_LIMITED;
	if (v == HPCC_INT_LIM_TOTAL)
		return HPCC_INT_FCR_CNT_MSG_LIMITED;
	return HPCC_INT_FCR_CNT_NUM;
}

/*
 * hpcc_int_fcr_send() - queue a copy of @t (its node aside) for the work
 * item that sends it (hpcc_int_fcr_work()), when the namespace's bounds
 * let it go (hpcc_int_fcr_gate(), refusals counted); a full queue or no
 * memory drops it, counted.  Context: softirq or BH off.
 */
static void hpcc_int_fcr_send(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			      const struct hpcc_int_fcr_req *t)
{
	struct hpcc_int_fcr_req *r = NULL;
	enum hpcc_int_fcr_cnt refused = hpcc_int_fcr_gate(hn, t);

	if (refused != HPCC_INT_FCR_CNT_NUM) {
		atomic64_inc(&d->fcr_cnt[refused]);
		return;
	}
	if (atomic_inc_return(&hn->fcr_queued) <= HPCC_INT_FCR_QUEUE)
		r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r) {
		atomic_dec(&hn->fcr_queued);
		atomic64_inc(hpcc_int_dropped(d, t->ntype));
		return;
	}
	*r = *t;
	r->ifindex = d->ifindex;
	spin_lock(&hn->fcr_lock);
	list_add_tail(&r->node, &hn->fcr_queue);
	spin_unlock(&hn->fcr_lock);
	queue_work(system_highpri_wq, &hn->fcr_work);
}

/*
 * hpcc_int_ccm_send() - queue a notification of type @ntype about @fl to
 * @dst.  Context: @f->lock held, softirq.
 */
static void hpcc_int_ccm_send(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			      const struct hpcc_int_fcr_flow *fl, u8 ntype,
			      const u8 *dst, u64 now)
{
	struct hpcc_int_fcr_req r = { .ntype = ntype };
	struct hpcc_ccm_msg *c = &r.c;

	memcpy(r.dst, dst, 16);
	c->family = fl->family;
	c->ntype = ntype;
	c->switch_id = READ_ONCE(hn->switch_id);
	c->port_id = d->ifindex;
	c->ts = now;
	c->seq = fl->seq;
	c->flowlabel = fl->label;
	c->sport = ntohs(fl->sport);
	c->dport = ntohs(fl->dport);
	memcpy(c->saddr, fl->saddr, 16);
	memcpy(c->daddr, fl->daddr, 16);
	hpcc_int_fcr_send(hn, d, &r);
}

/*
 * hpcc_int_ccm_release() - the port's CCM episode is over: every flow
 * that was sent a type 1 in it is owed a type 2 (draft-lyu-rtgwg-
 * coordinated-congestion-management section 6.3.2), which
 * hpcc_int_fcr_data() sends with the flow's next data segment, so that it
 * names data in flight.  @now_send (CCM turned off by dev-set, after
 * which the port may look at no data segment again): each is sent now,
 * with the flow's last sequence number.  At most HPCC_INT_FCR_FLOWS; the
 * namespace's queue holds HPCC_INT_FCR_QUEUE, the rest are counted as
 * dropped.  Context: @f->lock held, softirq or BH off (dev-set).
 */
static void hpcc_int_ccm_release(struct hpcc_int_net *hn,
				 struct hpcc_int_dev *d,
				 struct hpcc_int_fcr *f, u64 now,
				 bool now_send)
{
	struct hpcc_int_fcr_flow *fl;
	int i;

	WRITE_ONCE(f->ccm_congested, false);
	for (i = 0; i < HPCC_INT_FCR_FLOWS; i++) {
		fl = &f->flows[i];
		if (!fl->family || fl->incast != HPCC_INT_CCM_INCAST)
			continue;
		fl->incast = HPCC_INT_CCM_OWED;
		if (!now_send)
			continue;
		fl->incast = 0;
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_CC_RELEASED, fl->saddr,
				  now);
	}
}

/*
 * hpcc_int_last_hop() - whether the port is the last hop of the forwarded
 * packet in @skb (of family @family): its route has no gateway, the
 * destination is on the link (section 6.3.1: congestion there is incast).
 * Context: RCU (a netfilter hook).
 */
static bool hpcc_int_last_hop(struct sk_buff *skb, u8 family)
{
	if (family == 4) {
		const struct rtable *rt = skb_rtable(skb);

		return rt && !rt->rt_gw_family;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (skb_dst(skb))
		return !(((struct rt6_info *)skb_dst(skb))->rt6i_flags &
			 RTF_GATEWAY);
#endif
	return false;
}

/*
 * hpcc_int_ccm_data() - CCM on a data segment of the tagged flow @fl
 * (@last: the port is its last hop) while the port is congested (draft-
 * lyu-rtgwg-coordinated-congestion-management section 6.3): at its last
 * hop a type 1, once per episode; elsewhere, at most once per
 * ccm-interval, a type 3 to its source (the AR point) when its AR
 * indicator names the source and shows a choice of paths and its CC
 * indicator is clear, and the port sent none in the last ccm-ar-gap,
 * else a count (ccm-cc-kept, ccm-no-ar, ccm-ar-limited): a port that told
 * all its flows to move at once would send them all to the same other
 * path.  Context: @f->lock held, softirq.
 */
static void hpcc_int_ccm_data(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			      struct hpcc_int_fcr *f,
			      struct hpcc_int_fcr_flow *fl, bool last, u64 now)
{
	u64 interval = (u64)READ_ONCE(d->ccm_interval) * NSEC_PER_USEC;
	u64 gap = (u64)READ_ONCE(d->ccm_ar_gap) * NSEC_PER_USEC;

	if (last) {
		/* a flow still owed its type 2 has its CC indicator set */
		if (fl->incast) {
			fl->incast = HPCC_INT_CCM_INCAST;
			return;
		}
		fl->incast = HPCC_INT_CCM_INCAST;
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_CC_REQUIRED, fl->saddr,
				  now);
		return;
	}
	if (fl->ccm_ts && now - fl->ccm_ts < interval)
		return;
	fl->ccm_ts = now;
	if (fl->cc) {
		atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_CC_KEPT]);
	} else if (!fl->ar_choice) {
		atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_NO_AR]);
	} else if (!hpcc_ccm_ar_allow(&f->ar_ts, gap, now)) {
		atomic64_inc(&d->ccm_cnt[HPCC_INT_CCM_CNT_AR_LIMITED]);
	} else {
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_AR_REQUIRED, fl->saddr,
				  now);
	}
}

/*
 * hpcc_int_fcr_backlog() - the port's backlog for a data segment at @now:
 * read (hpcc_int_queue()) when the last read is HPCC_INT_FCR_SAMPLES-th of
 * @interval old or more, else the last read's.  A read walks the per-CPU
 * counters of every qdisc under the root (and takes @d->lock under
 * tx-model wire), a cost that grows with the CPUs and queues: a port reads
 * at most HPCC_INT_FCR_SAMPLES times per fcr-interval for its data
 * segments, whatever their rate (16000 reads a second at the default 1
 * ms).  Probes read it each, their stamps exact.  A @now before the last
 * read (another CPU's, later) takes that read.  Context: @f->lock held,
 * softirq.
 */
static u64 hpcc_int_fcr_backlog(struct hpcc_int_dev *d, struct hpcc_int_fcr *f,
				struct net_device *dev, u64 now, u64 interval)
{
	u64 bytes;

	if (!f->qlen_ts || (now > f->qlen_ts &&
			    now - f->qlen_ts >=
			    div_u64(interval, HPCC_INT_FCR_SAMPLES))) {
		hpcc_int_queue(dev, d, now, READ_ONCE(d->rate), &bytes,
			       &f->qlen);
		f->qlen_ts = now;
	}
	return f->qlen;
}

/*
 * hpcc_int_fcr_data() - a TCP packet (not a probe) leaving through @d, its
 * TCP header at @off: when it is a data segment (ACK set, payload), track
 * its flow; while the port is congested, an FCR
 * message for a flow whose sender supports FCR (one per round), a CE mark
 * for the others.  A flow whose own probes did not announce support but
 * whose sender's did gets both: it may be one of that host's flows that
 * does not run hpcc, which the sender refuses the message for (fcr-no-flow)
 * and which the mark still slows if it is ECN-capable.  With CCM on, the
 * same segment drives the port's CCM episode (hpcc_int_ccm_data(),
 * hpcc_int_ccm_release()).  Context: RCU, softirq.
 */
static void hpcc_int_fcr_data(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			      struct sk_buff *skb, struct net_device *dev,
			      unsigned int off)
{
	struct hpcc_int_fcr *f = rcu_dereference(d->fcr);
	u64 now, backlog, interval, high, ccm_high;
	bool fcr = false, mark = false, last = false;
	struct hpcc_int_fcr_flow k, *fl;
	struct hpcc_int_fcr_req r = { };
	struct hpcc_fcr_msg *m = &r.m;
	struct tcphdr _th;
	const struct tcphdr *th;
	unsigned int s;
	u32 sh;

	high = READ_ONCE(d->fcr_high);
	ccm_high = READ_ONCE(d->ccm_high);
	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	/* flows are the ones that carry data: not pure ACKs, and not a
	 * response (or a probe with another DSCP), whose TCP header has no
	 * flags and sequence number 0 (include/uapi/linux/hpcc_wire.h): a
	 * response to a probe of the reverse flow has this flow's 4-tuple,
	 * and a message built from it carried sequence number 0, which the
	 * sender refused (fcr-bad-seq: all 55 in an S7 run, 2026-11-27).
	 * Every data segment of an established connection has ACK set.
	 */
	if (!f || !(high || ccm_high) || !th || !th->ack ||
	    skb->len <= off + th->doff * 4)
		return;
	hpcc_int_fcr_key(skb, th, &k);
	if (ccm_high)
		last = hpcc_int_last_hop(skb, k.family);
	now = ktime_get_ns();
	interval = (u64)READ_ONCE(d->fcr_interval) * NSEC_PER_USEC;

	spin_lock(&f->lock);
	backlog = hpcc_int_fcr_backlog(d, f, dev, now, interval);
	if (!f->congested && high && backlog >= high) {
		f->congested = true;
		f->round_ts = 0;
	} else if (f->congested && backlog <= READ_ONCE(d->fcr_low)) {
		f->congested = false;
	}
	fl = hpcc_int_fcr_flow(f, &k, now, hpcc_int_stale(d));
	if (fl) {
		fl->seq = ntohl(th->seq);
		fl->seen = now;
		if (k.family == 6)
			fl->label = ntohl(ip6_flowlabel(ipv6_hdr(skb)));
	} else {
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_TABLE_FULL]);
	}
	/* CCM: the episode, with its own hysteresis; turned off, it ends */
	if (!f->ccm_congested && ccm_high && backlog >= ccm_high)
		WRITE_ONCE(f->ccm_congested, true);
	else if (f->ccm_congested &&
		 (!ccm_high || backlog <= READ_ONCE(d->ccm_low)))
		hpcc_int_ccm_release(hn, d, f, now, false);
	if (f->ccm_congested && fl && fl->tag) {
		hpcc_int_ccm_data(hn, d, f, fl, last, now);
	} else if (fl && fl->incast == HPCC_INT_CCM_OWED) {
		fl->incast = 0;
		hpcc_int_ccm_send(hn, d, fl, HPCC_CCM_CC_RELEASED, fl->saddr,
				  now);
	}
	if (high && f->congested) {
		if (!f->round_ts || now - f->round_ts >= interval)
			hpcc_int_fcr_round(d, f, now, interval, backlog);
		else if (fl)
			hpcc_int_fcr_count(d, f, fl, now, interval, backlog);
		sh = hpcc_int_fcr_shash(f, k.saddr);
		s = sh % HPCC_INT_FCR_SENDERS;
		fcr = fl && fl->sent_round != f->round &&
		      (fl->support ||
		       (f->sender_seen[s] &&
			f->sender_seen[s] + HPCC_INT_FCR_SENDER_TTL > now &&
			!memcmp(f->senders[s], k.saddr, 16)));
		mark = !fl || !fl->support;
		if (fcr && !hpcc_int_fcr_allow(f, k.saddr, sh, now, interval,
					       READ_ONCE(d->fcr_sender_max))) {
			atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_SENDER_LIMITED]);
			fcr = false;
		}
		if (fcr) {
			fl->sent_round = f->round;
			m->family = k.family;
			m->switch_id = READ_ONCE(hn->switch_id);
			m->port_id = d->ifindex;
			m->rate = f->rate;
			m->ts = now;
			m->seq = fl->seq;
			m->round = f->round;
			m->interval = READ_ONCE(d->fcr_interval);
			m->sport = ntohs(k.sport);
			m->dport = ntohs(k.dport);
			memcpy(m->saddr, k.saddr, 16);
			memcpy(m->daddr, k.daddr, 16);
			memcpy(r.dst, k.saddr, 16);
		}
	}
	spin_unlock(&f->lock);

	if (fcr)
		hpcc_int_fcr_send(hn, d, &r);
	if (!mark)
		return;
	if (skb_ensure_writable(skb, skb_network_offset(skb) +
				(k.family == 4 ? sizeof(struct iphdr) :
				 sizeof(struct ipv6hdr))) ||
	    !(k.family == 4 ? INET_ECN_set_ce(skb) :
	      IP6_ECN_set_ce(skb, ipv6_hdr(skb))))
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_NOT_ECT]);
	else
		atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_CE_MARKED]);
}

/*
 * hpcc_int_fcr_sock() - the namespace's UDP socket of @family, created at
 * its first use.  Context: the work item (hn->fcr_mutex held).
 */
static struct socket *hpcc_int_fcr_sock(struct net *net,
					struct hpcc_int_net *hn, int family)
{
	struct socket **sp = &hn->fcr_sock[family == AF_INET6];
	int err;

	if (*sp)
		return *sp;
	err = sock_create_kern(net, family, SOCK_DGRAM, IPPROTO_UDP, sp);
	if (err) {
		*sp = NULL;
		return NULL;
	}
	return *sp;
}

/*
 * hpcc_int_sign() - append the MAC trailer to the message of @len bytes
 * in @b (with HPCC_WIRE_NMAC_LEN bytes of room) for destination @dst
 * (IPv6 or IPv4-mapped), with the key of the longest prefix holding it;
 * Return: the datagram's length, @len when no key holds @dst.
 * Context: process (the message work).
 */
static unsigned int hpcc_int_sign(struct hpcc_int_net *hn, u8 *b,
				  unsigned int len, const u8 *dst)
{
	const struct hpcc_nmac_key *k;
	const struct hpcc_int_keys *ks;

	rcu_read_lock();
	ks = rcu_dereference(hn->keys);
	k = ks ? hpcc_nmac_sign_key(&ks->r, dst) : NULL;
	if (k)
		len = hpcc_nmac_sign(b, len, k);
	rcu_read_unlock();
	return len;
}

/*
 * hpcc_int_fcr_work() - send the queued FCR messages and CCM
 * notifications, each as a UDP datagram from this namespace (the source
 * address routing picks: the hop's own on the way) to its destination
 * (the flow's sender; a type 3's AR point), port fcr-port, DSCP fcr-dscp.
 * Context: process (system_highpri_wq).
 */
static void hpcc_int_fcr_work(struct work_struct *work)
{
	struct hpcc_int_net *hn = container_of(work, struct hpcc_int_net,
					       fcr_work);
	/* the longer message, and the MAC trailer */
	u8 b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	struct hpcc_int_fcr_req *r;
	struct hpcc_int_dev *d;
	LIST_HEAD(q);

	BUILD_BUG_ON(HPCC_WIRE_CCM_LEN > HPCC_WIRE_FCR_LEN);
	spin_lock_bh(&hn->fcr_lock);
	list_splice_init(&hn->fcr_queue, &q);
	spin_unlock_bh(&hn->fcr_lock);

	mutex_lock(&hn->fcr_mutex);
	while ((r = list_first_entry_or_null(&q, struct hpcc_int_fcr_req,
					     node))) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
		struct sockaddr_in a4 = { .sin_family = AF_INET };
		struct kvec iov = { .iov_base = b };
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		u16 port = READ_ONCE(hn->fcr_port);
		u8 tos = READ_ONCE(hn->fcr_dscp) << 2;
		struct socket *sock;
		int err = -EAFNOSUPPORT;
		u8 family;

		list_del(&r->node);
		atomic_dec(&hn->fcr_queued);
		if (r->ntype) {
			hpcc_ccm_encode(b, &r->c);
			iov.iov_len = HPCC_WIRE_CCM_LEN;
			family = r->c.family;
		} else {
			hpcc_fcr_encode(b, &r->m);
			iov.iov_len = HPCC_WIRE_FCR_LEN;
			family = r->m.family;
		}
		iov.iov_len = hpcc_int_sign(hn, b, iov.iov_len, r->dst);
		if (family == 4) {
			sock = hpcc_int_fcr_sock(hn->net, hn, AF_INET);
			memcpy(&a4.sin_addr, r->dst + 12, 4);
			a4.sin_port = htons(port);
			msg.msg_name = &a4;
			msg.msg_namelen = sizeof(a4);
			if (sock) {
				ip_sock_set_tos(sock->sk, tos);
				err = kernel_sendmsg(sock, &msg, &iov, 1,
						     iov.iov_len);
			}
		} else if (IS_ENABLED(CONFIG_IPV6)) {
			sock = hpcc_int_fcr_sock(hn->net, hn, AF_INET6);
			memcpy(&a6.sin6_addr, r->dst, 16);
			a6.sin6_port = htons(port);
			msg.msg_name = &a6;
			msg.msg_namelen = sizeof(a6);
			if (sock) {
				hpcc_int_fcr_tclass(sock->sk, tos);
				err = kernel_sendmsg(sock, &msg, &iov, 1,
						     iov.iov_len);
			}
		}
		rcu_read_lock();
		d = xa_load(&hn->devs, r->ifindex);
		if (d && err < 0)
			atomic64_inc(hpcc_int_dropped(d, r->ntype));
		else if (d && r->ntype)
			atomic64_inc(&d->ccm_cnt[r->ntype - 1]);
		else if (d)
			atomic64_inc(&d->fcr_cnt[HPCC_INT_FCR_CNT_SENT]);
		rcu_read_unlock();
		kfree(r);
	}
	mutex_unlock(&hn->fcr_mutex);
}

static unsigned int hpcc_int_hook(void *priv, struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct hpcc_int_net *hn = priv;
	struct hpcc_int_dev *d;
	enum hpcc_int_cnt c;
	unsigned int off;

	off = skb_network_offset(skb) + ip_hdrlen(skb);
	d = hpcc_int_egress(hn, ipv4_get_dsfield(iph) >> 2, state);
	if (!d) {
		/* not a probe: FCR's view of the port's flows */
		if (READ_ONCE(hn->fcr_ndevs) && state->out &&
		    iph->protocol == IPPROTO_TCP && !ip_is_fragment(iph)) {
			d = xa_load(&hn->devs, state->out->ifindex);
			if (d)
				hpcc_int_fcr_data(hn, d, skb, state->out, off);
		}
		return NF_ACCEPT;
	}
	if (ip_is_fragment(iph)) {
		c = HPCC_INT_CNT_MALFORMED;
	} else if (iph->protocol == IPPROTO_TCP) {
		hpcc_int_probe_ext(hn, d, skb, off);
		c = hpcc_int_stamp_any(hn, d, skb, state, off);
	} else if (iph->protocol == READ_ONCE(hn->ifa_protocol)) {
		c = hpcc_int_stamp_ifa_any(hn, d, skb, state, off, iph->ttl);
	} else {
		c = HPCC_INT_CNT_MALFORMED;
	}
	atomic64_inc(&d->cnt[c]);
	return NF_ACCEPT;
}

#if IS_ENABLED(CONFIG_IPV6)
/*
 * The IPv6 forward hook: the probe DSCP in the traffic class, the TCP
 * header after the extension headers a transit node skips
 * (hpcc_wire_ipv6_l4()); a packet that is not TCP, or whose extension
 * headers refuse it (a fragment, AH, ESP), is counted as malformed.  The
 * hop limit is the forwarding path's (decremented before this hook).
 */
static unsigned int hpcc_int_hook6(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct hpcc_int_net *hn = priv;
	struct hpcc_int_dev *d;
	enum hpcc_int_cnt c;
	u8 proto;
	int off;

	d = hpcc_int_egress(hn, ipv6_get_dsfield(ipv6_hdr(skb)) >> 2, state);
	if (!d) {
		/* not a probe: FCR's view of the port's flows */
		if (!READ_ONCE(hn->fcr_ndevs) || !state->out)
			return NF_ACCEPT;
		d = xa_load(&hn->devs, state->out->ifindex);
		if (!d || !hpcc_int_tracks(d))
			return NF_ACCEPT;
		off = hpcc_wire_ipv6_l4(skb, true, &proto);
		if (off > 0 && proto == IPPROTO_TCP)
			hpcc_int_fcr_data(hn, d, skb, state->out, off);
		return NF_ACCEPT;
	}
	off = hpcc_wire_ipv6_l4(skb, true, &proto);
	if (off <= 0) {
		c = HPCC_INT_CNT_MALFORMED;
	} else if (proto == IPPROTO_TCP) {
		hpcc_int_probe_ext(hn, d, skb, off);
		c = hpcc_int_stamp_any(hn, d, skb, state, off);
	} else if (proto == READ_ONCE(hn->ifa_protocol)) {
		c = hpcc_int_stamp_ifa_any(hn, d, skb, state, off,
					   ipv6_hdr(skb)->hop_limit);
	} else {
		c = HPCC_INT_CNT_MALFORMED;
	}
	atomic64_inc(&d->cnt[c]);
	return NF_ACCEPT;
}
#endif

/*
 * Bytes leaving a configured device that has no queue (noqueue), its
 * txBytes (hpcc_int_qdisc()).  A device with a qdisc is skipped before the
 * lookup: its qdisc counts the bytes, and the usual path costs one pointer
 * read instead of an atomic add per packet.
 */
static unsigned int hpcc_int_out_hook(void *priv, struct sk_buff *skb,
				      const struct nf_hook_state *state)
{
	struct hpcc_int_net *hn = priv;
	const struct Qdisc *root;
	struct hpcc_int_dev *d;

	if (!state->out || xa_empty(&hn->devs))
		return NF_ACCEPT;
	/* netfilter hooks run under rcu_read_lock() */
	root = rcu_dereference(state->out->qdisc);
	if (root && root->enqueue)
		return NF_ACCEPT;
	d = xa_load(&hn->devs, state->out->ifindex);
	if (d)
		atomic64_add(skb->len, &d->out_bytes);
	return NF_ACCEPT;
}

/* --- configuration, netlink -------------------------------------------- */

static struct genl_family hpcc_int_genl_family;

/*
 * The policies, ranges included (an ifindex is a positive int: a larger u32
 * would come back as an errno), are generated from the YNL spec
 * (tools/ynl-policy, `make uapi`), one per operation that takes attributes.
 */
#include "nl_policy.h"

static int hpcc_int_ifindex(struct genl_info *info)
{
	if (!info->attrs[HPCC_INT_A_DEV_IFINDEX]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, HPCC_INT_A_DEV_IFINDEX);
		NL_SET_ERR_MSG_MOD(info->extack, "ifindex is required");
		return -EINVAL;
	}
	return nla_get_u32(info->attrs[HPCC_INT_A_DEV_IFINDEX]);
}

/*
 * hpcc_int_link_rate() - the link speed of @dev in bits/s, 0 when the
 * driver does not know it.  Context: RTNL.
 */
static u64 hpcc_int_link_rate(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(dev, &ks) ||
	    ks.base.speed == SPEED_UNKNOWN || !ks.base.speed)
		return 0;
	return (u64)ks.base.speed * 1000000;
}

/*
 * hpcc_int_fcr_config() - the FCR attributes of dev-add or dev-set into
 * @d (RTNL held; @d already in the table when @live): those given change,
 * the others keep their values, fcr-qlen-low defaults to half of a new
 * fcr-qlen-high.  The state is allocated when FCR is first turned on and
 * stays until the device goes.  Return: 0, -EINVAL (fcr-qlen-low not below
 * fcr-qlen-high) or -ENOMEM, with extack.
 */
static int hpcc_int_fcr_config(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			       struct genl_info *info, bool live)
{
	struct nlattr **tb = info->attrs;
	u32 high = d->fcr_high, low = d->fcr_low;
	u32 chigh = d->ccm_high, clow = d->ccm_low;
	bool tracked = d->fcr_high || d->ccm_high;
	struct hpcc_int_fcr *f;

	if (tb[HPCC_INT_A_DEV_FCR_QLEN_HIGH]) {
		high = nla_get_u32(tb[HPCC_INT_A_DEV_FCR_QLEN_HIGH]);
		low = high / 2;
	}
	if (tb[HPCC_INT_A_DEV_FCR_QLEN_LOW])
		low = nla_get_u32(tb[HPCC_INT_A_DEV_FCR_QLEN_LOW]);
	if (high && low >= high) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "fcr-qlen-low must be below fcr-qlen-high");
		return -EINVAL;
	}
	if (tb[HPCC_INT_A_DEV_CCM_QLEN_HIGH]) {
		chigh = nla_get_u32(tb[HPCC_INT_A_DEV_CCM_QLEN_HIGH]);
		clow = chigh / 2;
	}
	if (tb[HPCC_INT_A_DEV_CCM_QLEN_LOW])
		clow = nla_get_u32(tb[HPCC_INT_A_DEV_CCM_QLEN_LOW]);
	if (chigh && clow >= chigh) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "ccm-qlen-low must be below ccm-qlen-high");
		return -EINVAL;
	}
	if ((high || chigh) && !rtnl_dereference(d->fcr)) {
		f = kvzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
		if (!f)
			return -ENOMEM;
		spin_lock_init(&f->lock);
		f->hash_rnd = get_random_u32();
		rcu_assign_pointer(d->fcr, f);
	}
	if (tb[HPCC_INT_A_DEV_FCR_INTERVAL])
		WRITE_ONCE(d->fcr_interval,
			   nla_get_u32(tb[HPCC_INT_A_DEV_FCR_INTERVAL]));
	if (tb[HPCC_INT_A_DEV_FCR_ETA])
		WRITE_ONCE(d->fcr_eta, nla_get_u32(tb[HPCC_INT_A_DEV_FCR_ETA]));
	if (tb[HPCC_INT_A_DEV_FCR_SENDER_MAX])
		WRITE_ONCE(d->fcr_sender_max,
			   nla_get_u32(tb[HPCC_INT_A_DEV_FCR_SENDER_MAX]));
	if (tb[HPCC_INT_A_DEV_FCR_DRAIN])
		WRITE_ONCE(d->fcr_drain, nla_get_u32(tb[HPCC_INT_A_DEV_FCR_DRAIN]));
	if (tb[HPCC_INT_A_DEV_CCM_INTERVAL])
		WRITE_ONCE(d->ccm_interval,
			   nla_get_u32(tb[HPCC_INT_A_DEV_CCM_INTERVAL]));
	if (tb[HPCC_INT_A_DEV_CCM_AR_GAP])
		WRITE_ONCE(d->ccm_ar_gap,
			   nla_get_u32(tb[HPCC_INT_A_DEV_CCM_AR_GAP]));
	WRITE_ONCE(d->fcr_low, low);
	WRITE_ONCE(d->ccm_low, clow);
	if (live && tracked != (high || chigh))
		WRITE_ONCE(hn->fcr_ndevs, hn->fcr_ndevs + (tracked ? -1 : 1));
	WRITE_ONCE(d->fcr_high, high);
	WRITE_ONCE(d->ccm_high, chigh);
	/* CCM turned off ends its episode: the type 2s are owed */
	f = rtnl_dereference(d->fcr);
	if (!chigh && f) {
		spin_lock_bh(&f->lock);
		if (f->ccm_congested)
			hpcc_int_ccm_release(hn, d, f, ktime_get_ns(),
					     true);
		spin_unlock_bh(&f->lock);
	}
	return 0;
}

/* The FCR and CCM attributes dev-set may change. */
static bool hpcc_int_fcr_attrs(struct nlattr **tb)
{
	return tb[HPCC_INT_A_DEV_FCR_QLEN_HIGH] ||
	       tb[HPCC_INT_A_DEV_FCR_QLEN_LOW] ||
	       tb[HPCC_INT_A_DEV_FCR_INTERVAL] || tb[HPCC_INT_A_DEV_FCR_ETA] ||
	       tb[HPCC_INT_A_DEV_FCR_SENDER_MAX] || tb[HPCC_INT_A_DEV_FCR_DRAIN] ||
	       tb[HPCC_INT_A_DEV_CCM_QLEN_HIGH] ||
	       tb[HPCC_INT_A_DEV_CCM_QLEN_LOW] || tb[HPCC_INT_A_DEV_CCM_INTERVAL] ||
	       tb[HPCC_INT_A_DEV_CCM_AR_GAP];
}

/* Free a device's entry and its FCR state (an RCU callback). */
static void hpcc_int_dev_free(struct rcu_head *head)
{
	struct hpcc_int_dev *d = container_of(head, struct hpcc_int_dev, rcu);

	kvfree(rcu_dereference_protected(d->fcr, 1));
	kfree(d);
}

static int hpcc_int_dev_add(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct net_device *dev;
	struct hpcc_int_dev *d;
	int ifindex, err;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return -ENOMEM;
	d->ifindex = ifindex;
	spin_lock_init(&d->lock);
	d->util.bp = U32_MAX;
	d->fcr_interval = HPCC_INT_FCR_INTERVAL_DEFAULT;
	d->fcr_eta = HPCC_INT_FCR_ETA_DEFAULT;
	d->fcr_sender_max = HPCC_INT_FCR_SENDER_MAX_DEFAULT;
	d->ccm_interval = HPCC_INT_CCM_INTERVAL_DEFAULT;
	if (info->attrs[HPCC_INT_A_DEV_ENCODING])
		d->encoding = nla_get_u8(info->attrs[HPCC_INT_A_DEV_ENCODING]);
	if (info->attrs[HPCC_INT_A_DEV_TX_MODEL])
		d->tx_model = nla_get_u8(info->attrs[HPCC_INT_A_DEV_TX_MODEL]);

	rtnl_lock();
	dev = __dev_get_by_index(genl_info_net(info), ifindex);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[HPCC_INT_A_DEV_IFINDEX],
				    "no such device in this namespace");
		err = -ENODEV;
		goto out;
	}
	if (info->attrs[HPCC_INT_A_DEV_RATE]) {
		d->rate = nla_get_u64(info->attrs[HPCC_INT_A_DEV_RATE]);
	} else {
		d->rate = hpcc_int_link_rate(dev);
		if (!d->rate || d->rate > HPCC_INT_RATE_MAX) {
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the link speed is unknown: give the rate");
			err = -EINVAL;
			goto out;
		}
	}
	err = hpcc_int_fcr_config(hn, d, info, false);
	if (err)
		goto out;
	err = xa_insert(&hn->devs, ifindex, d, GFP_KERNEL_ACCOUNT);
	if (err == -EBUSY) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device already stamps probes");
		err = -EEXIST;
	}
	if (!err) {
		hn->ndevs++;
		if (d->fcr_high || d->ccm_high)
			WRITE_ONCE(hn->fcr_ndevs, hn->fcr_ndevs + 1);
		d = NULL;
	}
out:
	rtnl_unlock();
	if (d) {
		kvfree(rcu_dereference_protected(d->fcr, 1));
		kfree(d);
	}
	return err;
}

/*
 * hpcc_int_dev_set() - dev-set: a new B, encoding and/or tx-model for a
 * device that stamps, written in place (the forward hook reads them with
 * READ_ONCE), so no probe crosses the device unstamped while they change.
 * A new B or tx-model restarts the wire (hpcc_int_wire()).
 */
static int hpcc_int_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct hpcc_int_dev *d;
	int ifindex;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	if (!info->attrs[HPCC_INT_A_DEV_RATE] &&
	    !info->attrs[HPCC_INT_A_DEV_ENCODING] &&
	    !info->attrs[HPCC_INT_A_DEV_TX_MODEL] &&
	    !hpcc_int_fcr_attrs(info->attrs)) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, HPCC_INT_A_DEV_RATE);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "rate, encoding, tx-model or an fcr or ccm setting is required");
		return -EINVAL;
	}
	rtnl_lock();
	d = xa_load(&hn->devs, ifindex);
	if (d && hpcc_int_fcr_attrs(info->attrs)) {
		int err = hpcc_int_fcr_config(hn, d, info, true);

		if (err) {
			rtnl_unlock();
			return err;
		}
	}
	if (d && info->attrs[HPCC_INT_A_DEV_RATE])
		WRITE_ONCE(d->rate,
			   nla_get_u64(info->attrs[HPCC_INT_A_DEV_RATE]));
	if (d && info->attrs[HPCC_INT_A_DEV_ENCODING])
		WRITE_ONCE(d->encoding,
			   nla_get_u8(info->attrs[HPCC_INT_A_DEV_ENCODING]));
	if (d && info->attrs[HPCC_INT_A_DEV_TX_MODEL])
		WRITE_ONCE(d->tx_model,
			   nla_get_u8(info->attrs[HPCC_INT_A_DEV_TX_MODEL]));
	if (d && (info->attrs[HPCC_INT_A_DEV_RATE] ||
		  info->attrs[HPCC_INT_A_DEV_TX_MODEL])) {
		spin_lock_bh(&d->lock);
		d->wire_ts = 0;
		spin_unlock_bh(&d->lock);
	}
	rtnl_unlock();
	if (!d) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device does not stamp probes");
		return -ENOENT;
	}
	return 0;
}

/* hpcc_int_dev_remove() - drop @ifindex's entry, if any.  Context: RTNL. */
static bool hpcc_int_dev_remove(struct hpcc_int_net *hn, int ifindex)
{
	struct hpcc_int_dev *d = xa_erase(&hn->devs, ifindex);

	if (!d)
		return false;
	hn->ndevs--;
	if (d->fcr_high || d->ccm_high)
		WRITE_ONCE(hn->fcr_ndevs, hn->fcr_ndevs - 1);
	call_rcu(&d->rcu, hpcc_int_dev_free);
	return true;
}

static int hpcc_int_dev_del(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	int ifindex;
	bool found;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	rtnl_lock();
	found = hpcc_int_dev_remove(hn, ifindex);
	rtnl_unlock();
	if (!found) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device does not stamp probes");
		return -ENOENT;
	}
	return 0;
}

static int hpcc_int_dev_fill(struct sk_buff *msg, const struct hpcc_int_dev *d,
			     u32 portid, u32 seq, int flags)
{
	const struct hpcc_int_fcr *f;
	void *hdr;
	int i;

	hdr = genlmsg_put(msg, portid, seq, &hpcc_int_genl_family, flags,
			  HPCC_INT_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, HPCC_INT_A_DEV_IFINDEX, d->ifindex) ||
	    nla_put_u64_64bit(msg, HPCC_INT_A_DEV_RATE, READ_ONCE(d->rate),
			      HPCC_INT_A_DEV_PAD) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_ENCODING, READ_ONCE(d->encoding)) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_TX_MODEL, READ_ONCE(d->tx_model)))
		goto err;
	for (i = 0; i < HPCC_INT_CNT_NUM; i++)
		if (nla_put_u64_64bit(msg, hpcc_int_cnt_attr[i],
				      atomic64_read(&d->cnt[i]),
				      HPCC_INT_A_DEV_PAD))
			goto err;
	for (i = 0; i < HPCC_INT_FCR_CNT_NUM; i++)
		if (nla_put_u64_64bit(msg, hpcc_int_fcr_cnt_attr[i],
				      atomic64_read(&d->fcr_cnt[i]),
				      HPCC_INT_A_DEV_PAD))
			goto err;
	f = rcu_dereference(d->fcr);
	if (nla_put_u32(msg, HPCC_INT_A_DEV_FCR_QLEN_HIGH, READ_ONCE(d->fcr_high)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_QLEN_LOW, READ_ONCE(d->fcr_low)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_INTERVAL,
			READ_ONCE(d->fcr_interval)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_ETA, READ_ONCE(d->fcr_eta)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_SENDER_MAX,
			READ_ONCE(d->fcr_sender_max)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_DRAIN, READ_ONCE(d->fcr_drain)) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_FCR_CONGESTED,
		       f ? READ_ONCE(f->congested) : 0) ||
	    nla_put_u64_64bit(msg, HPCC_INT_A_DEV_FCR_RATE,
			      f ? READ_ONCE(f->rate) : 0, HPCC_INT_A_DEV_PAD) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_ACTIVE,
			f ? READ_ONCE(f->active) : 0) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_QLEN_HIGH,
			READ_ONCE(d->ccm_high)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_QLEN_LOW, READ_ONCE(d->ccm_low)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_INTERVAL,
			READ_ONCE(d->ccm_interval)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_AR_GAP,
			READ_ONCE(d->ccm_ar_gap)) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_CCM_CONGESTED,
		       f ? READ_ONCE(f->ccm_congested) : 0))
		goto err;
	for (i = 0; i < HPCC_INT_CCM_CNT_NUM; i++)
		if (nla_put_u64_64bit(msg, hpcc_int_ccm_cnt_attr[i],
				      atomic64_read(&d->ccm_cnt[i]),
				      HPCC_INT_A_DEV_PAD))
			goto err;
	genlmsg_end(msg, hdr);
	return 0;
err:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

static int hpcc_int_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct hpcc_int_dev *d;
	struct sk_buff *msg;
	int ifindex, err;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	d = xa_load(&hn->devs, ifindex);
	err = d ? hpcc_int_dev_fill(msg, d, info->snd_portid, info->snd_seq, 0)
		: -ENOENT;
	rcu_read_unlock();
	if (err) {
		if (err == -ENOENT)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the device does not stamp probes");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int hpcc_int_dev_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct hpcc_int_net *hn = hpcc_int_net(sock_net(skb->sk));
	unsigned long idx = cb->args[0];
	struct hpcc_int_dev *d;
	int err = 0;

	rcu_read_lock();
	xa_for_each_start(&hn->devs, idx, d, cb->args[0]) {
		err = hpcc_int_dev_fill(skb, d, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
	}
	rcu_read_unlock();
	cb->args[0] = idx;
	return err ? skb->len : 0;
}

/* config-get's keys: id and prefix, never the key's bytes */
static int hpcc_int_keys_put(struct sk_buff *msg, struct hpcc_int_net *hn)
{
	const struct hpcc_int_keys *ks;
	struct nlattr *nest;
	int err = 0;
	u32 i;

	rcu_read_lock();
	ks = rcu_dereference(hn->keys);
	for (i = 0; ks && i < ks->r.n && !err; i++) {
		const struct hpcc_nmac_key *k = &ks->r.k[i];

		nest = nla_nest_start(msg, HPCC_INT_A_CONFIG_KEY);
		if (!nest || nla_put_u32(msg, HPCC_INT_A_SIGN_KEY_ID, k->id) ||
		    hpcc_nl_prefix_put(msg, &k->pfx, HPCC_INT_A_SIGN_KEY_ADDR4,
				       HPCC_INT_A_SIGN_KEY_ADDR6,
				       HPCC_INT_A_SIGN_KEY_PLEN))
			err = -EMSGSIZE;
		else
			nla_nest_end(msg, nest);
	}
	rcu_read_unlock();
	return err;
}

/* config-get's fcr-dst prefixes */
static int hpcc_int_dsts_put(struct sk_buff *msg, struct hpcc_int_net *hn)
{
	const struct hpcc_int_dsts *ds;
	struct nlattr *nest;
	int err = 0;
	u32 i;

	rcu_read_lock();
	ds = rcu_dereference(hn->dsts);
	for (i = 0; ds && i < ds->n && !err; i++) {
		nest = nla_nest_start(msg, HPCC_INT_A_CONFIG_FCR_DST);
		if (!nest ||
		    hpcc_nl_prefix_put(msg, &ds->p[i], HPCC_INT_A_DST_PREFIX_ADDR4,
				       HPCC_INT_A_DST_PREFIX_ADDR6,
				       HPCC_INT_A_DST_PREFIX_PLEN))
			err = -EMSGSIZE;
		else
			nla_nest_end(msg, nest);
	}
	rcu_read_unlock();
	return err;
}

static int hpcc_int_config_get(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hpcc_int_genl_family, 0,
				HPCC_INT_CMD_CONFIG_GET);
	if (!hdr ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_SWITCH_ID, READ_ONCE(hn->switch_id)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_PROBE_DSCP, READ_ONCE(hn->probe_dscp)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_DEVS, READ_ONCE(hn->ndevs)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_IFA_PROTOCOL,
		       READ_ONCE(hn->ifa_protocol)) ||
	    nla_put_u16(msg, HPCC_INT_A_CONFIG_FCR_PORT, READ_ONCE(hn->fcr_port)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_FCR_DSCP, READ_ONCE(hn->fcr_dscp)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_MSG_RATE,
			READ_ONCE(hn->lim_cfg.rate)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_MSG_BURST,
			READ_ONCE(hn->lim_cfg.burst)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_DST_RATE,
			READ_ONCE(hn->lim_cfg.dst_rate)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_DST_BURST,
			READ_ONCE(hn->lim_cfg.dst_burst)) ||
	    hpcc_int_keys_put(msg, hn) || hpcc_int_dsts_put(msg, hn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static void hpcc_int_keys_free(struct rcu_head *head)
{
	kfree_sensitive(container_of(head, struct hpcc_int_keys, rcu));
}

/*
 * hpcc_int_keys_set() - config-set's keys (key nests, or keys-flush: none)
 * replace the namespace's.  Return: 0, -EINVAL with extack, -ENOMEM.
 */
static int hpcc_int_keys_set(struct hpcc_int_net *hn, struct genl_info *info)
{
	struct hpcc_int_keys *ks, *old;
	const struct nlattr *a;
	int err, rem;

	ks = kzalloc(sizeof(*ks), GFP_KERNEL_ACCOUNT);
	if (!ks)
		return -ENOMEM;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		struct nlattr *tb[HPCC_INT_A_SIGN_KEY_MAX + 1];
		struct hpcc_nmac_key *k = &ks->r.k[ks->r.n];

		if (nla_type(a) != HPCC_INT_A_CONFIG_KEY)
			continue;
		err = -EINVAL;
		if (info->attrs[HPCC_INT_A_CONFIG_KEYS_FLUSH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "key with keys-flush");
			goto out;
		}
		if (ks->r.n == HPCC_NMAC_KEYS) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "more than 16 keys");
			goto out;
		}
		err = nla_parse_nested(tb, HPCC_INT_A_SIGN_KEY_MAX, a,
				       hpcc_int_sign_key_nl_policy,
				       info->extack);
		if (err)
			goto out;
		if (!tb[HPCC_INT_A_SIGN_KEY_ID] || !tb[HPCC_INT_A_SIGN_KEY_KEY]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "a key needs id and key");
			err = -EINVAL;
			goto out;
		}
		err = hpcc_nl_prefix(a, tb[HPCC_INT_A_SIGN_KEY_ADDR4],
				     tb[HPCC_INT_A_SIGN_KEY_ADDR6],
				     tb[HPCC_INT_A_SIGN_KEY_PLEN], &k->pfx,
				     info->extack);
		if (err)
			goto out;
		k->id = nla_get_u32(tb[HPCC_INT_A_SIGN_KEY_ID]);
		nla_memcpy(k->key, tb[HPCC_INT_A_SIGN_KEY_KEY], sizeof(k->key));
		ks->r.n++;
	}
	mutex_lock(&hn->fcr_mutex);
	old = rcu_dereference_protected(hn->keys,
					lockdep_is_held(&hn->fcr_mutex));
	rcu_assign_pointer(hn->keys, ks);
	mutex_unlock(&hn->fcr_mutex);
	if (old)
		call_rcu(&old->rcu, hpcc_int_keys_free);
	return 0;
out:
	kfree_sensitive(ks);
	return err;
}

/*
 * hpcc_int_dsts_parse() - config-set's fcr-dst prefixes into @dsp (NULL
 * for none, as fcr-dst-flush gives: every unicast address).  Return: 0,
 * -EINVAL with extack, -ENOMEM.
 */
static int hpcc_int_dsts_parse(struct genl_info *info,
			       struct hpcc_int_dsts **dsp)
{
	struct hpcc_int_dsts *ds;
	const struct nlattr *a;
	int err, rem;

	*dsp = NULL;
	ds = kzalloc(sizeof(*ds), GFP_KERNEL_ACCOUNT);
	if (!ds)
		return -ENOMEM;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		struct nlattr *tb[HPCC_INT_A_DST_PREFIX_MAX + 1];

		if (nla_type(a) != HPCC_INT_A_CONFIG_FCR_DST)
			continue;
		err = -EINVAL;
		if (info->attrs[HPCC_INT_A_CONFIG_FCR_DST_FLUSH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "fcr-dst with fcr-dst-flush");
			goto out;
		}
		if (ds->n == HPCC_INT_FCR_DST_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "more than 16 fcr-dst prefixes");
			goto out;
		}
		err = nla_parse_nested(tb, HPCC_INT_A_DST_PREFIX_MAX, a,
				       hpcc_int_dst_prefix_nl_policy,
				       info->extack);
		if (err)
			goto out;
		err = hpcc_nl_prefix(a, tb[HPCC_INT_A_DST_PREFIX_ADDR4],
				     tb[HPCC_INT_A_DST_PREFIX_ADDR6],
				     tb[HPCC_INT_A_DST_PREFIX_PLEN], &ds->p[ds->n],
				     info->extack);
		if (err)
			goto out;
		ds->n++;
	}
	if (ds->n)
		*dsp = ds;
	else
		kfree(ds);
	return 0;
out:
	kfree(ds);
	return err;
}

/* hpcc_int_dsts_set() - @ds (hpcc_int_dsts_parse()) replaces the namespace's. */
static void hpcc_int_dsts_set(struct hpcc_int_net *hn, struct hpcc_int_dsts *ds)
{
	struct hpcc_int_dsts *old;

	mutex_lock(&hn->fcr_mutex);
	old = rcu_dereference_protected(hn->dsts,
					lockdep_is_held(&hn->fcr_mutex));
	rcu_assign_pointer(hn->dsts, ds);
	mutex_unlock(&hn->fcr_mutex);
	if (old)
		kfree_rcu(old, rcu);
}

/* The attributes config-set sets; devs is read only. */
static const int hpcc_int_config_set_attrs[] = {
	HPCC_INT_A_CONFIG_SWITCH_ID, HPCC_INT_A_CONFIG_PROBE_DSCP,
	HPCC_INT_A_CONFIG_IFA_PROTOCOL, HPCC_INT_A_CONFIG_FCR_PORT,
	HPCC_INT_A_CONFIG_FCR_DSCP, HPCC_INT_A_CONFIG_KEY,
	HPCC_INT_A_CONFIG_KEYS_FLUSH, HPCC_INT_A_CONFIG_FCR_MSG_RATE,
	HPCC_INT_A_CONFIG_FCR_MSG_BURST, HPCC_INT_A_CONFIG_FCR_DST_RATE,
	HPCC_INT_A_CONFIG_FCR_DST_BURST, HPCC_INT_A_CONFIG_FCR_DST,
	HPCC_INT_A_CONFIG_FCR_DST_FLUSH,
};

static int hpcc_int_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct nlattr **tb = info->attrs;
	struct hpcc_int_dsts *ds = NULL;
	unsigned int i;
	bool dsts;
	int err;

	for (i = 0; i < ARRAY_SIZE(hpcc_int_config_set_attrs); i++)
		if (tb[hpcc_int_config_set_attrs[i]])
			break;
	if (i == ARRAY_SIZE(hpcc_int_config_set_attrs)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "nothing to set: give switch-id, probe-dscp, ifa-protocol, fcr-port, fcr-dscp, key, keys-flush, fcr-msg-rate, fcr-msg-burst, fcr-dst-rate, fcr-dst-burst, fcr-dst or fcr-dst-flush");
		return -EINVAL;
	}
	/* a request that fails changes nothing: the prefixes are parsed
	 * before the keys are set, and set after
	 */
	dsts = tb[HPCC_INT_A_CONFIG_FCR_DST] || tb[HPCC_INT_A_CONFIG_FCR_DST_FLUSH];
	if (dsts) {
		err = hpcc_int_dsts_parse(info, &ds);
		if (err)
			return err;
	}
	if (tb[HPCC_INT_A_CONFIG_KEY] || tb[HPCC_INT_A_CONFIG_KEYS_FLUSH]) {
		err = hpcc_int_keys_set(hn, info);
		if (err) {
			kfree(ds);
			return err;
		}
	}
	if (dsts)
		hpcc_int_dsts_set(hn, ds);
	if (tb[HPCC_INT_A_CONFIG_FCR_MSG_RATE])
		WRITE_ONCE(hn->lim_cfg.rate,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_MSG_RATE]));
	if (tb[HPCC_INT_A_CONFIG_FCR_MSG_BURST])
		WRITE_ONCE(hn->lim_cfg.burst,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_MSG_BURST]));
	if (tb[HPCC_INT_A_CONFIG_FCR_DST_RATE])
		WRITE_ONCE(hn->lim_cfg.dst_rate,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_DST_RATE]));
	if (tb[HPCC_INT_A_CONFIG_FCR_DST_BURST])
		WRITE_ONCE(hn->lim_cfg.dst_burst,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_DST_BURST]));
	if (tb[HPCC_INT_A_CONFIG_FCR_PORT])
		WRITE_ONCE(hn->fcr_port, nla_get_u16(tb[HPCC_INT_A_CONFIG_FCR_PORT]));
	if (tb[HPCC_INT_A_CONFIG_FCR_DSCP])
		WRITE_ONCE(hn->fcr_dscp, nla_get_u8(tb[HPCC_INT_A_CONFIG_FCR_DSCP]));
	if (tb[HPCC_INT_A_CONFIG_IFA_PROTOCOL])
		WRITE_ONCE(hn->ifa_protocol,
			   nla_get_u8(tb[HPCC_INT_A_CONFIG_IFA_PROTOCOL]));
	if (tb[HPCC_INT_A_CONFIG_SWITCH_ID])
		WRITE_ONCE(hn->switch_id, nla_get_u32(tb[HPCC_INT_A_CONFIG_SWITCH_ID]));
	if (tb[HPCC_INT_A_CONFIG_PROBE_DSCP])
		WRITE_ONCE(hn->probe_dscp, nla_get_u8(tb[HPCC_INT_A_CONFIG_PROBE_DSCP]));
	return 0;
}

/* Each operation's maxattr is what ynl-gen-c writes for the spec
 * (selftests/host/uapi.sh compares): a bound that lags the spec makes the
 * core parse into too small an array.
 *
 * Writes need CAP_NET_ADMIN in the initial user namespace, as ioam6's
 * do: a configured device grows forwarded packets and makes the host send
 * FCR messages and CCM notifications to other hosts, which is not
 * something root of an unprivileged user namespace may set up (the family
 * loads on demand for anyone).
 */
static const struct genl_ops hpcc_int_nl_ops[] = {
	{
		.cmd = HPCC_INT_CMD_DEV_ADD,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_dev_add,
		.policy = hpcc_int_dev_add_nl_policy,
		.maxattr = HPCC_INT_A_DEV_CCM_AR_GAP,
	},
	{
		.cmd = HPCC_INT_CMD_DEV_DEL,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_dev_del,
		.policy = hpcc_int_dev_del_nl_policy,
		.maxattr = HPCC_INT_A_DEV_IFINDEX,
	},
	{
		.cmd = HPCC_INT_CMD_DEV_GET,
		.doit = hpcc_int_dev_get_doit,
		.dumpit = hpcc_int_dev_get_dumpit,
		.policy = hpcc_int_dev_get_nl_policy,
		.maxattr = HPCC_INT_A_DEV_IFINDEX,
	},
	{
		.cmd = HPCC_INT_CMD_CONFIG_GET,
		.doit = hpcc_int_config_get,
	},
	{
		.cmd = HPCC_INT_CMD_CONFIG_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_config_set,
		.policy = hpcc_int_config_set_nl_policy,
		.maxattr = HPCC_INT_A_CONFIG_FCR_DST_FLUSH,
	},
	{
		.cmd = HPCC_INT_CMD_DEV_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_dev_set,
		.policy = hpcc_int_dev_set_nl_policy,
		.maxattr = HPCC_INT_A_DEV_CCM_AR_GAP,
	},
};

static struct genl_family hpcc_int_genl_family __ro_after_init = {
	.name = HPCC_INT_FAMILY_NAME,
	.version = HPCC_INT_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = hpcc_int_nl_ops,
	.n_ops = ARRAY_SIZE(hpcc_int_nl_ops),
	.resv_start_op = HPCC_INT_CMD_CONFIG_SET + 1,
};

/* --- namespaces and devices ---------------------------------------------- */

static int hpcc_int_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	/* Also sent when a device leaves for another namespace. */
	if (event == NETDEV_UNREGISTER)
		hpcc_int_dev_remove(hpcc_int_net(dev_net(dev)), dev->ifindex);
	return NOTIFY_DONE;
}

static struct notifier_block hpcc_int_netdev_nb = {
	.notifier_call = hpcc_int_netdev_event,
};

static int __net_init hpcc_int_net_init(struct net *net)
{
	struct hpcc_int_net *hn = hpcc_int_net(net);

	xa_init(&hn->devs);
	hn->net = net;
	hn->fcr_port = HPCC_INT_FCR_PORT_DEFAULT;
	hn->fcr_dscp = HPCC_INT_FCR_DSCP_DEFAULT;
	spin_lock_init(&hn->fcr_lock);
	INIT_LIST_HEAD(&hn->fcr_queue);
	INIT_WORK(&hn->fcr_work, hpcc_int_fcr_work);
	mutex_init(&hn->fcr_mutex);
	spin_lock_init(&hn->lim_lock);
	hn->lim_rnd = get_random_u32();
	hn->lim_cfg.rate = HPCC_INT_FCR_MSG_RATE_DEFAULT;
	hn->lim_cfg.burst = HPCC_INT_FCR_MSG_BURST_DEFAULT;
	hn->lim_cfg.dst_rate = HPCC_INT_FCR_DST_RATE_DEFAULT;
	hn->lim_cfg.dst_burst = HPCC_INT_FCR_DST_BURST_DEFAULT;
	hn->switch_id = net->ns.inum;
	hn->probe_dscp = HPCC_INT_PROBE_DSCP_DEFAULT;
	hn->ifa_protocol = HPCC_INT_IFA_PROTOCOL_DEFAULT;
	hn->ops[0] = (struct nf_hook_ops){
		.hook = hpcc_int_hook,
		.priv = hn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_FORWARD,
		.priority = NF_IP_PRI_LAST,
	};
	hn->ops[1] = (struct nf_hook_ops){
		.hook = hpcc_int_out_hook,
		.priv = hn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_POST_ROUTING,
		.priority = NF_IP_PRI_LAST,
	};
#if IS_ENABLED(CONFIG_IPV6)
	hn->ops[2] = (struct nf_hook_ops){
		.hook = hpcc_int_hook6,
		.priv = hn,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_FORWARD,
		.priority = NF_IP6_PRI_LAST,
	};
	hn->ops[3] = (struct nf_hook_ops){
		.hook = hpcc_int_out_hook,
		.priv = hn,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_POST_ROUTING,
		.priority = NF_IP6_PRI_LAST,
	};
#endif
	return nf_register_net_hooks(net, hn->ops, ARRAY_SIZE(hn->ops));
}

/*
 * The hook goes in .pre_exit, not .exit: the core waits for an RCU grace
 * period after .pre_exit (cleanup_net(), unregister_pernet_subsys()), so
 * hpcc_int_hook() no longer runs on any CPU when .exit empties the table
 * and the core frees this namespace's net_generic() state right after it.
 */
static void __net_exit hpcc_int_net_pre_exit(struct net *net)
{
	nf_unregister_net_hooks(net, hpcc_int_net(net)->ops,
				ARRAY_SIZE(hpcc_int_net(net)->ops));
}

static void __net_exit hpcc_int_net_exit(struct net *net)
{
	struct hpcc_int_net *hn = hpcc_int_net(net);
	struct hpcc_int_fcr_req *r, *tmp;
	struct hpcc_int_dev *d;
	unsigned long i;

	hpcc_fault_exit_delay();
	/* no hook queues a message any more (.pre_exit, a grace period) */
	cancel_work_sync(&hn->fcr_work);
	list_for_each_entry_safe(r, tmp, &hn->fcr_queue, node)
		kfree(r);
	for (i = 0; i < ARRAY_SIZE(hn->fcr_sock); i++)
		if (hn->fcr_sock[i])
			sock_release(hn->fcr_sock[i]);
	kfree_sensitive(rcu_dereference_protected(hn->keys, true));
	kfree(rcu_dereference_protected(hn->dsts, true));
	/* The devices have gone, and their entries with them, before a
	 * namespace's subsystems exit, and no request can reach a dying
	 * namespace: this only catches what is left, without RTNL.
	 */
	xa_for_each(&hn->devs, i, d)
		hpcc_int_dev_remove(hn, i);
	xa_destroy(&hn->devs);
}

static struct pernet_operations hpcc_int_net_ops = {
	.init = hpcc_int_net_init,
	.pre_exit = hpcc_int_net_pre_exit,
	.exit = hpcc_int_net_exit,
	.id = &hpcc_int_net_id,
	.size = sizeof(struct hpcc_int_net),
};

static int __init hpcc_int_init(void)
{
	int err;

	err = register_pernet_subsys(&hpcc_int_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&hpcc_int_netdev_nb);
	if (err)
		goto err_pernet;
	err = genl_register_family(&hpcc_int_genl_family);
	if (err)
		goto err_notifier;
	return 0;
err_notifier:
	unregister_netdevice_notifier(&hpcc_int_netdev_nb);
err_pernet:
	unregister_pernet_subsys(&hpcc_int_net_ops);
	return err;
}

static void __exit hpcc_int_exit(void)
{
	genl_unregister_family(&hpcc_int_genl_family);
	unregister_netdevice_notifier(&hpcc_int_netdev_nb);
	unregister_pernet_subsys(&hpcc_int_net_ops);
	/* kfree_rcu() callbacks must not outlive the module */
	rcu_barrier();
}

module_init(hpcc_int_init);
module_exit(hpcc_int_exit);

MODULE_AUTHOR("tcp_hpcc developers");
MODULE_DESCRIPTION("HPCC++ software INT transit hop: stamps probes at the egress of forwarded packets");
MODULE_LICENSE("GPL");
MODULE_VERSION(HPCC_VERSION);
MODULE_ALIAS_GENL_FAMILY(HPCC_INT_FAMILY_NAME);
