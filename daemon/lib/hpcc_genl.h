/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_genl.h - a small client of the "hpcc" generic netlink family
 * (Documentation/netlink/specs/hpcc.yaml) on libmnl, for hpccd and
 * hpccctl.  Errors are returned, never fatal: a daemon must outlive the
 * module being unloaded.
 */
#ifndef _HPCC_GENL_H
#define _HPCC_GENL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/hpcc.h>
#include <linux/hpcc_int.h>

#include "hpcc_nl_gen.h"
#include "hpccd/config.h"
#include "hpcc_wire.h"

/* HPCC_HAS(type) - the bit of @type in a generated structure's present */
#define HPCC_HAS(type) (1ULL << (type))

/**
 * struct hpcc_flow_msg - one message of the flow attribute set, typed: an
 * event (flow-new, flow-del, flow-active), a flow-get reply or dump entry,
 * or the telemetry-set reply
 * @cmd: the message's command, HPCC_CMD_*
 * @ignored: attributes the parser ignored (unknown, wrong length)
 * @a: the attributes (generated from the spec, hpcc_nl_gen.h); a.present
 *	tells which came
 */
struct hpcc_flow_msg {
	uint8_t cmd;
	int ignored;
	struct hpcc_flow_attrs a;
};

/**
 * struct hpcc_genl - one netlink socket talking to the family
 * @nl: the socket
 * @family_id: the family's id, 0 while the module is not loaded
 * @events_grp: id of the "events" multicast group
 * @notify_grp: id of nlctrl's "notify" group (family added or removed)
 * @seq: last request sequence number
 * @skipped: messages hpcc_genl_talk() read and skipped: replies to earlier
 *	requests (one that timed out), or not from the kernel
 * @talks: requests hpcc_genl_talk() sent and waited for
 * @extack: the extack message of the last error reply, or ""
 * @ops: the family's operations at the last lookup, a bit (HPCC_HAS())
 *	per command id below 64
 * @telemetry_cmd: the command of hpcc_genl_telemetry_put()'s requests:
 *	HPCC_CMD_TELEMETRY_SET (0 is taken as that), or HPCC_CMD_TELEMETRY_PUSH
 *	for a reply only when it has news
 */
struct hpcc_genl {
	struct mnl_socket *nl;
	uint16_t family_id;
	uint32_t events_grp;
	uint32_t notify_grp;
	uint32_t seq;
	uint64_t skipped;
	uint64_t talks;
	char extack[256];
	uint64_t ops;
	uint8_t telemetry_cmd;
};

/*
 * Attributes of one message, by type (flow, params and stats sets have
 * fewer than 64), copied out of the receive buffer: the untyped view, for
 * tools that print whatever a message holds (hpccctl).  hpccd reads the
 * typed structures of hpcc_nl_gen.h instead.  Numbers are in v[]; a flow's
 * IPv6 addresses (saddr6, daddr6: 16 bytes, network order) in saddr6 and
 * daddr6, with has[] set.
 */
#define HPCC_ATTRS_MAX 64
struct hpcc_attrs {
	uint8_t cmd;
	uint8_t has[HPCC_ATTRS_MAX];
	uint64_t v[HPCC_ATTRS_MAX];
	int nhop;
	struct hpcc_hop_rec hops[HPCC_MAX_HOPS];
	uint8_t saddr6[16];
	uint8_t daddr6[16];
};

/**
 * hpcc_genl_open() - open a socket and look the family up
 * @g: zeroed or closed
 * @timeout_ms: receive timeout for requests, 0 for none
 *
 * Return: 0; -ENOENT when the family is not registered (the socket stays
 * open, @g->family_id is 0: call hpcc_genl_resolve() later); -errno.
 */
int hpcc_genl_open(struct hpcc_genl *g, unsigned int timeout_ms);

/** hpcc_genl_close() - close the socket */
void hpcc_genl_close(struct hpcc_genl *g);

/**
 * hpcc_genl_resolve() - (re)read the family's id and group ids
 * Return: 0, -ENOENT if the module is not loaded, or -errno.
 */
int hpcc_genl_resolve(struct hpcc_genl *g);

/**
 * hpcc_genl_use_family() - talk to another family on the same socket
 * @g: open
 * @family: its name, such as HPCC_INT_FAMILY_NAME (same version, 1)
 *
 * Return: 0, -ENOENT when that family is not registered, or -errno.
 */
int hpcc_genl_use_family(struct hpcc_genl *g, const char *family);

/**
 * hpcc_genl_msg() - start a request in @buf (MNL_SOCKET_BUFFER_SIZE bytes)
 * Return: the message, to add attributes to.
 */
struct nlmsghdr *hpcc_genl_msg(struct hpcc_genl *g, void *buf, uint8_t cmd,
			       uint16_t flags);

/**
 * hpcc_genl_talk() - send @nlh and run @cb on each reply until the ACK or
 * NLMSG_DONE
 *
 * A dump whose table changed while it ran (a message flagged
 * NLM_F_DUMP_INTR) is read to its end, @cb run on every message, and
 * then -EINTR returned: what it listed is true, but a missing entry may
 * still exist.
 *
 * Messages with another sequence number or port id (the late reply of a
 * request that timed out, the rest of its dump) are skipped and counted
 * in @g->skipped, so one timeout costs that request only; only this
 * request's messages can make it -EINTR (hpcc_genl_run()).
 *
 * Return: 0, -EINTR (above), or the negative errno of the error reply
 * (extack message in @g->extack) or of the socket.
 */
int hpcc_genl_talk(struct hpcc_genl *g, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data);

/**
 * hpcc_genl_run() - what hpcc_genl_talk() does with each buffer it reads
 * @g: the socket's state (@g->skipped counts what is skipped)
 * @buf: the messages read, @len bytes; NLM_F_DUMP_INTR is cleared on those
 *	of the request
 * @len: their length
 * @seq: the request's sequence number
 * @portid: the socket's port id (the kernel's replies carry it)
 * @cb: run on each data message of the request, with @data
 * @data: for @cb
 * @intr: set when a message of the request was flagged NLM_F_DUMP_INTR
 *	(left as it is otherwise)
 *
 * Messages of another request or port id are skipped and counted, their
 * flags ignored: an interrupted dump of a request that timed out does not
 * make this one -EINTR.
 *
 * Return: > 0 to read on, 0 at the request's ACK or NLMSG_DONE, -1 with
 * errno (an error reply: its errno, extack in @g->extack).
 */
int hpcc_genl_run(struct hpcc_genl *g, void *buf, size_t len,
		  unsigned int seq, unsigned int portid, mnl_cb_t cb,
		  void *data, bool *intr);

/**
 * hpcc_genl_put_tuple() - the flow's family, addresses and ports as
 * attributes: family AF_INET with saddr4/daddr4, or AF_INET6 (@t->family)
 * with saddr6/daddr6; the flow label is not sent (not part of the key)
 */
void hpcc_genl_put_tuple(struct nlmsghdr *nlh, const struct hpcc_tuple *t);

/**
 * hpcc_genl_attrs_cb() - mnl callback: fill the struct hpcc_attrs @data
 * from one message (hop records of a flow message too)
 */
int hpcc_genl_attrs_cb(const struct nlmsghdr *nlh, void *data);

/**
 * hpcc_genl_flow_cb() - mnl callback: parse one flow message into the
 * struct hpcc_flow_msg @data
 * Return: MNL_CB_OK, or MNL_CB_ERROR for a message without a genl header.
 */
int hpcc_genl_flow_cb(const struct nlmsghdr *nlh, void *data);

/**
 * hpcc_flow_msg_tuple() - the flow a message names
 * Return: true and @t filled (network byte order; the rest of @t zeroed)
 * when it carries an AF_INET family with both IPv4 addresses, or AF_INET6
 * with both IPv6 addresses, and both ports; false otherwise.  An IPv6
 * flow's @t->flowlabel is the message's flowlabel (0 without one).
 */
bool hpcc_flow_msg_tuple(const struct hpcc_flow_msg *m, struct hpcc_tuple *t);

/*
 * Telemetry pushes do not wait for the module: hpccd puts the requests of
 * a burst of responses into one batch, sends it without blocking, and
 * reads the replies when they are there.
 */

/**
 * hpcc_genl_telemetry_put() - build one telemetry-set request in @buf
 * @g: the socket (family id, sequence numbers)
 * @buf: room for MNL_SOCKET_BUFFER_SIZE bytes, such as
 *	mnl_nlmsg_batch_current() of a batch with that much spare room
 * @t: the flow
 * @hops: @nhop records, 1..HPCC_MAX_HOPS (at most 620 bytes in all)
 * @nhop: number of records
 * @n_flows: the receiver-reported N (1..65535), sent as n-flows; 0: none
 *
 * No NLM_F_ACK: the module answers a request it takes with the flow's
 * reply (its in-flight and srtt; as telemetry-push, @g->telemetry_cmd,
 * only when they have news) and one it refuses with an error message
 * carrying the request's sequence number (-ENOENT: no such flow,
 * -EINVAL/-ERANGE: records refused, -EPERM: no CAP_NET_ADMIN).
 *
 * Return: the request's sequence number.
 */
uint32_t hpcc_genl_telemetry_put(struct hpcc_genl *g, void *buf,
				 const struct hpcc_tuple *t,
				 const struct hpcc_hop_rec *hops, int nhop,
				 uint32_t n_flows);

/**
 * hpcc_genl_telemetry_put_rx() - hpcc_genl_telemetry_put() of a
 *	receiver-based sample
 * @g: the socket
 * @buf: as hpcc_genl_telemetry_put()'s
 * @t: the flow
 * @hops: @nhop records, 0..HPCC_MAX_HOPS (none with @rx: the privacy mode)
 * @nhop: number of records
 * @n_flows: the receiver-reported N, 0: none
 * @rx: the sample is receiver-based (rx-based): the module uses @rx_w, not
 *	the records
 * @rx_w: with @rx, the receiver's W in bytes (1..2^30), sent as rx-w; 0:
 *	the receiver updated W locally (the sample only keeps the flow's
 *	telemetry fresh)
 *
 * Return: the request's sequence number.
 */
uint32_t hpcc_genl_telemetry_put_rx(struct hpcc_genl *g, void *buf,
				    const struct hpcc_tuple *t,
				    const struct hpcc_hop_rec *hops, int nhop,
				    uint32_t n_flows, bool rx, uint32_t rx_w);

/**
 * hpcc_genl_telemetry_put_u() - hpcc_genl_telemetry_put() of a sample that
 *	carries only the receiver's U (rx-u; draft-miao-ccwg-hpcc section
 *	9.1, the privacy mode): no records
 * @g: the socket
 * @buf: as hpcc_genl_telemetry_put()'s
 * @t: the flow
 * @n_flows: the receiver-reported N, 0: none
 * @u: U, Q16 (HPCC_WIRE_U_SHIFT), 0..2^32 - 1
 *
 * Return: the request's sequence number.
 */
uint32_t hpcc_genl_telemetry_put_u(struct hpcc_genl *g, void *buf,
				   const struct hpcc_tuple *t, uint32_t n_flows,
				   uint32_t u);

/**
 * struct hpcc_nkey_attrs - the attribute types of one family's MAC key
 *	nests for FCR messages and CCM notifications (struct
 *	hpcc_wire_nmac): tcp_hpcc's fcr-set "key", hpcc_int's config-set
 *	"key"
 * @nest: the nest
 * @id: the key id, u32
 * @key: the key bytes, HPCC_WIRE_NMAC_KEY_LEN
 * @addr4: the prefix's address, IPv4
 * @addr6: the prefix's address, IPv6
 * @plen: the prefix length, u8
 * @accept: the flag "accept, never sign"; 0: the family has none (a hop
 *	signs: accept lines are not sent to it)
 * @flush: the flag that removes every key (a message with no key nest)
 */
struct hpcc_nkey_attrs {
	uint16_t nest, id, key, addr4, addr6, plen, accept, flush;
};

extern const struct hpcc_nkey_attrs hpcc_fcr_nkey_attrs;
extern const struct hpcc_nkey_attrs hpcc_int_nkey_attrs;

/**
 * hpcc_genl_nkeys_put() - notify-key lines (struct hpccd_nkey) as key nests
 * @nlh: a fcr-set (tcp_hpcc) or config-set (hpcc_int) request
 * @k: the keys
 * @n: how many, 0..HPCCD_MAX_NKEYS
 * @t: the family's attribute types
 *
 * An IPv4-mapped prefix of length 96 or more goes as addr4 with the
 * length less 96.  With no key put (none given, or only accept lines for
 * a family without @t->accept) the flush flag goes instead: the message
 * replaces the family's keys with the given ones either way, and the
 * module keeps the keys it removes for its overlap.
 *
 * Return: how many key nests were put.
 */
unsigned int hpcc_genl_nkeys_put(struct nlmsghdr *nlh,
				 const struct hpccd_nkey *k, unsigned int n,
				 const struct hpcc_nkey_attrs *t);

/**
 * hpcc_genl_flow_get_put() - build a flow-get request of flow @t in @buf
 * (as hpcc_genl_telemetry_put()'s), for a batch
 *
 * No NLM_F_ACK: the module answers with the flow's message (a flow-get
 * reply: in-flight, srtt, ccm-cc, flowlabel, ...), or with an error
 * message carrying the request's sequence number (-ENOENT: no such flow).
 *
 * Return: the request's sequence number.
 */
uint32_t hpcc_genl_flow_get_put(struct hpcc_genl *g, void *buf,
				const struct hpcc_tuple *t);

/**
 * hpcc_genl_send_batch() - send the messages of @b, without blocking
 * Return: 0 (nothing to send too), or -errno; the module has run every
 * request when it returns (netlink requests run in the sender's call).
 */
int hpcc_genl_send_batch(struct hpcc_genl *g, struct mnl_nlmsg_batch *b);

/**
 * hpcc_genl_read_replies() - read the replies queued on @g without waiting
 * @g: the socket
 * @max_reads: receive calls at most (each reads up to 64 KiB of messages)
 * @cb: run on each reply that is not an error or ACK
 * @err_cb: run on each error reply: the request's sequence number and the
 *	negative errno
 * @data: passed to both
 * @overruns: incremented for each ENOBUFS (replies lost: the receive
 *	buffer overran)
 * Return: receive calls that returned messages (less than @max_reads when
 * the queue emptied), or -errno.
 */
int hpcc_genl_read_replies(struct hpcc_genl *g, int max_reads, mnl_cb_t cb,
			   void (*err_cb)(uint32_t seq, int err, void *data),
			   void *data, uint64_t *overruns);

/** hpcc_genl_params() - params-get into @p; 0 or -errno */
int hpcc_genl_params(struct hpcc_genl *g, struct hpcc_params_attrs *p);

/**
 * hpcc_genl_flow_get() - flow-get of one flow into @m
 * Return: 0; -ENOENT when the flow (or the family) does not exist; -errno.
 */
int hpcc_genl_flow_get(struct hpcc_genl *g, const struct hpcc_tuple *t,
		       struct hpcc_flow_msg *m);

/*
 * The names of the attributes (hpcc_flow_names, hpcc_params_names,
 * hpcc_stats_names, hpcc_int_dev_names, hpcc_int_config_names, ...) and
 * their descriptors are generated from the YNL specs: hpcc_nl_gen.h.
 */

/**
 * hpcc_name_lookup() - the attribute type named @s in @names[1..@max]
 * ('-' and '_' match each other)
 * Return: the type, or 0 when there is none.
 */
int hpcc_name_lookup(const char *const *names, int max, const char *s);

/**
 * hpcc_genl_put_param() - add parameter @type with @value to a params-set
 * request, in the attribute's width (u8 DSCPs, u64 read-only values, u32
 * the rest)
 * Return: 0, or -ERANGE when @value does not fit that width.
 */
int hpcc_genl_put_param(struct nlmsghdr *nlh, int type, uint64_t value);

#endif /* _HPCC_GENL_H */
