/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_int.h - shared declarations of hpcc_int.ko: the per-namespace and
 * per-device state, a port's flow table for FCR and CCM, and the functions
 * one file of the module calls in another.  main.c orders init and exit;
 * stamp.c holds the hooks and the stamping, fcr.c Fast Congestion
 * Response, ccm.c Coordinated Congestion Management and netlink.c the
 * "hpcc-int" family.
 */
#ifndef _HPCC_INT_H
#define _HPCC_INT_H

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

#include "common/hpcc_compat.h"
#include "common/hpcc_fault.h"
#include "lib/hpcc_ccm.h"
#include "lib/hpcc_int_lim.h"
#include "lib/hpcc_nmac.h"
#include "common/hpcc_nl_prefix.h"
#include "common/hpcc_wire_check.h"

#define HPCC_INT_PROBE_DSCP_DEFAULT	60
#define HPCC_INT_INT_DSCP_DEFAULT	23
#define HPCC_INT_IFA_PROTOCOL_DEFAULT	253
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

struct hpcc_int_fcr;

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
 * @probe_dscp: DSCP of probes but INT-MD ones, 1..63 (READ_ONCE/WRITE_ONCE)
 * @int_dscp: DSCP of INT-MD probes, 1..63, not @probe_dscp
 *	(READ_ONCE/WRITE_ONCE)
 * @ifa_protocol: IP protocol (IPv6: next header) of IFA probes, 1..254 and
 *	hpcc_wire_ifa_protocol_ok() (READ_ONCE/WRITE_ONCE)
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
 * @cfg_mutex: serializes config-set (taken before @fcr_mutex)
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
	u8 int_dscp;
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
	struct mutex cfg_mutex;	/* config-set */
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

extern unsigned int hpcc_int_net_id;

static inline struct hpcc_int_net *hpcc_int_net(const struct net *net)
{
	return net_generic(net, hpcc_int_net_id);
}

#define HPCC_INT_FCR_PROBE	8	/* slots a flow may hash to */
#define HPCC_INT_FCR_SENDERS	64	/* supporting senders a port knows */
#define HPCC_INT_FCR_QUEUE	256	/* messages waiting to be sent */
#define HPCC_INT_FCR_PORT_DEFAULT	HPCC_WIRE_FCR_PORT
#define HPCC_INT_FCR_DSCP_DEFAULT	61
#define HPCC_INT_FCR_INTERVAL_DEFAULT	1000	/* us */
#define HPCC_INT_FCR_ETA_DEFAULT	950
#define HPCC_INT_FCR_SENDER_MAX_DEFAULT	64	/* messages per interval */
#define HPCC_INT_FCR_LIMITS	HPCC_INT_FCR_FLOWS	/* senders limited */
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

/* Whether the port tracks its flows: FCR or CCM on (READ_ONCE). */
static inline bool hpcc_int_tracks(const struct hpcc_int_dev *d)
{
	return READ_ONCE(d->fcr_high) || READ_ONCE(d->ccm_high);
}

/* stamp.c: the hooks, INT, INT-MD and IFA stamping */
void hpcc_int_queue(struct net_device *dev, struct hpcc_int_dev *d,
		    u64 now, u64 rate, u64 *bytes, u64 *backlog);
unsigned int hpcc_int_hook(void *priv, struct sk_buff *skb,
			   const struct nf_hook_state *state);
unsigned int hpcc_int_hook6(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state);
unsigned int hpcc_int_out_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state);

/* fcr.c: Fast Congestion Response */
void hpcc_int_fcr_probe_ext(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			    struct sk_buff *skb, unsigned int off);
void hpcc_int_fcr_send(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       const struct hpcc_int_fcr_req *t);
void hpcc_int_fcr_data(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       struct sk_buff *skb, struct net_device *dev,
		       unsigned int off);
void hpcc_int_fcr_work(struct work_struct *work);

/* ccm.c: Coordinated Congestion Management */
bool hpcc_int_ccm_label_paths(const struct net *net, struct sk_buff *skb);
u16 hpcc_int_ccm_ar_mark(struct sk_buff *skb, unsigned int off,
			 unsigned int eoff, u16 flags);
void hpcc_int_ccm_send(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       const struct hpcc_int_fcr_flow *fl, u8 ntype,
		       const u8 *dst, u64 now);
void hpcc_int_ccm_release(struct hpcc_int_net *hn,
			  struct hpcc_int_dev *d,
			  struct hpcc_int_fcr *f, u64 now,
			  bool now_send);
bool hpcc_int_ccm_last_hop(struct sk_buff *skb, u8 family);
void hpcc_int_ccm_data(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
		       struct hpcc_int_fcr *f,
		       struct hpcc_int_fcr_flow *fl, bool last, u64 now);

/* netlink.c: the "hpcc-int" family */
extern struct genl_family hpcc_int_genl_family;
bool hpcc_int_dev_remove(struct hpcc_int_net *hn, int ifindex);

/*
 * hpcc_qdisc_bytes(q), hpcc_cpu_qbytes(b) - the bytes qdisc @q has
 * dequeued, or those of one CPU's share @b (per_cpu_ptr(q->cpu_bstats,
 * cpu)) when its stats are per CPU.  v5.18 made the counters u64_stats_t
 * (probe gnet_stats_basic_sync); before it they are plain u64, per CPU
 * one struct further down.  Here rather than in hpcc_compat.h because
 * they need <net/sch_generic.h>, and last so that no line above moves.
 */
#ifdef HPCC_HAVE_GNET_STATS_BASIC_SYNC
#define hpcc_qdisc_bytes(q)	u64_stats_read(&(q)->bstats.bytes)

static inline u64 hpcc_cpu_qbytes(const struct gnet_stats_basic_sync *b)
{
	return u64_stats_read(&b->bytes);
}
#else
#define hpcc_qdisc_bytes(q)	((q)->bstats.bytes)

static inline u64 hpcc_cpu_qbytes(const struct gnet_stats_basic_cpu *b)
{
	return b->bstats.bytes;
}
#endif

#endif /* _HPCC_INT_H */
