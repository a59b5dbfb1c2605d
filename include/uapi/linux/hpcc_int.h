/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/hpcc-int.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_HPCC_INT_H
#define _UAPI_LINUX_HPCC_INT_H

#define HPCC_INT_FAMILY_NAME	"hpcc-int"
#define HPCC_INT_FAMILY_VERSION	1

#define HPCC_INT_INTERVAL_MAX		32767
#define HPCC_INT_MSG_RATE_MAX		10000000
#define HPCC_INT_MSG_BURST_MAX		65536
#define HPCC_INT_FCR_MSG_RATE_DEFAULT	100000
#define HPCC_INT_FCR_MSG_BURST_DEFAULT	1024
#define HPCC_INT_FCR_DST_RATE_DEFAULT	16000
#define HPCC_INT_FCR_DST_BURST_DEFAULT	64
#define HPCC_INT_FCR_DST_MAX		16

/**
 * enum hpcc_int_encoding - The telemetry encoding a device stamps
 *   (Documentation/design.rst, "Telemetry encodings").
 * @HPCC_INT_ENCODING_OWN: The project's hop record
 *   (include/uapi/linux/hpcc_wire.h): the next pre-allocated record, the
 *   packet never grows. A probe that carries an INT-MD or IFA stack has its
 *   record stamped after the stack.
 * @HPCC_INT_ENCODING_INT_MD: P4.org INT-MD v2.1 over TCP (section 5.7.2, the
 *   probe DSCP signals the shim after the TCP header; section 5.8): the hop
 *   pushes Hop ML words of metadata onto the stack, in the order of the
 *   instruction bitmap, the packet grows by them. Switch ID (switch-id), level
 *   1 and 2 ingress and egress interface IDs (ifindex), queue ID 0 and queue
 *   occupancy (the egress qdisc's backlog in bytes, saturated at 2^24 - 1),
 *   the egress timestamp (ktime_get_ns()) and the egress Tx utilization
 *   (1/10000 of B, at most 20000: the qdisc's bytes since the device's
 *   previous measurement, at least 100 us before; all ones before the first);
 *   every other field, and the checksum complement (the TCP checksum is
 *   updated instead), all ones ("invalid"). Remaining Hop Count 0 sets E, a
 *   packet that would pass the device's MTU sets M; neither is stamped
 *   (counted full). A probe without an INT-MD shim leaves unstamped
 *   (other-encoding).
 * @HPCC_INT_ENCODING_IFA: Broadcom's IFA 2.0 (draft-kumar-ippm-ifa-08), on
 *   probes whose IP protocol is the namespace's ifa-protocol: the hop pushes
 *   32 bytes of metadata on the stack after the IFA metadata header (section
 *   4.3; the newest hop first), the packet grows by them: LNS 1, device ID
 *   (the low 20 bits of switch-id), IP TTL (IPv6: hop limit); the egress port
 *   speed code of B (0xf when B is none of the draft's speeds), congestion 0,
 *   queue ID 0, Rx timestamp seconds (20 bits); egress and ingress system
 *   ports (ifindex, 16 bits each); Rx timestamp ns (ktime_get_ns()); residence
 *   time, the time the qdisc backlog takes to drain at B (ns); three opaque
 *   words of 0. Hop Limit 0, Current Length at Max Length or a packet that
 *   would pass the device's MTU: not stamped (counted full). A probe that is
 *   not IFA leaves unstamped (other-encoding).
 */
enum hpcc_int_encoding {
	HPCC_INT_ENCODING_OWN,
	HPCC_INT_ENCODING_INT_MD,
	HPCC_INT_ENCODING_IFA,
};

/**
 * enum hpcc_int_tx_model - Where a device's txBytes and qlen come from
 *   (Documentation/design.rst, "The software INT hop").
 * @HPCC_INT_TX_MODEL_QDISC: The egress qdisc's own counters: txBytes the bytes
 *   it has handed to the driver, qlen its backlog. Right where the qdisc feeds
 *   a link of rate B (a NIC, whose ring BQL keeps short).
 * @HPCC_INT_TX_MODEL_WIRE: A wire of rate B after the qdisc: the bytes the
 *   qdisc hands on enter the wire's FIFO, which sends B bytes per second of
 *   them; txBytes is what the wire has sent and qlen adds the wire's backlog
 *   to the qdisc's. For a shaper with a burst allowance (a tbf whose bucket
 *   releases up to its burst at once), whose own counters move faster than B:
 *   on such a port txBytes / dt reads above B with an empty queue, which no
 *   real port can do. Updated at every probe the device stamps, as a fluid:
 *   between two probes the wire sends min(its backlog + the bytes handed on, B
 *   x dt), saturating at 2^40 bytes of backlog. The state restarts (an empty
 *   wire) when the mode or B changes, or the qdisc's counter goes back (a new
 *   qdisc).
 */
enum hpcc_int_tx_model {
	HPCC_INT_TX_MODEL_QDISC,
	HPCC_INT_TX_MODEL_WIRE,
};

enum {
	HPCC_INT_A_DEV_IFINDEX = 1,
	HPCC_INT_A_DEV_RATE,
	HPCC_INT_A_DEV_STAMPED,
	HPCC_INT_A_DEV_FULL,
	HPCC_INT_A_DEV_MALFORMED,
	HPCC_INT_A_DEV_UNWRITABLE,
	HPCC_INT_A_DEV_PAD,
	HPCC_INT_A_DEV_ENCODING,
	HPCC_INT_A_DEV_OTHER_ENCODING,
	HPCC_INT_A_DEV_TX_MODEL,
	HPCC_INT_A_DEV_FCR_QLEN_HIGH,
	HPCC_INT_A_DEV_FCR_QLEN_LOW,
	HPCC_INT_A_DEV_FCR_INTERVAL,
	HPCC_INT_A_DEV_FCR_ETA,
	HPCC_INT_A_DEV_FCR_SENT,
	HPCC_INT_A_DEV_FCR_DROPPED,
	HPCC_INT_A_DEV_FCR_ROUNDS,
	HPCC_INT_A_DEV_CE_MARKED,
	HPCC_INT_A_DEV_NOT_ECT,
	HPCC_INT_A_DEV_FCR_TABLE_FULL,
	HPCC_INT_A_DEV_FCR_CONGESTED,
	HPCC_INT_A_DEV_FCR_RATE,
	HPCC_INT_A_DEV_FCR_ACTIVE,
	HPCC_INT_A_DEV_FCR_EARLY_ROUNDS,
	HPCC_INT_A_DEV_FCR_SENDER_MAX,
	HPCC_INT_A_DEV_FCR_SENDER_LIMITED,
	HPCC_INT_A_DEV_FCR_DRAIN,
	HPCC_INT_A_DEV_CCM_QLEN_HIGH,
	HPCC_INT_A_DEV_CCM_QLEN_LOW,
	HPCC_INT_A_DEV_CCM_INTERVAL,
	HPCC_INT_A_DEV_CCM_CONGESTED,
	HPCC_INT_A_DEV_CCM_CC_SENT,
	HPCC_INT_A_DEV_CCM_RELEASED_SENT,
	HPCC_INT_A_DEV_CCM_AR_SENT,
	HPCC_INT_A_DEV_CCM_DROPPED,
	HPCC_INT_A_DEV_CCM_NO_AR,
	HPCC_INT_A_DEV_CCM_CC_KEPT,
	HPCC_INT_A_DEV_CCM_AR_MARKED,
	HPCC_INT_A_DEV_CCM_AR_GAP,
	HPCC_INT_A_DEV_CCM_AR_LIMITED,
	HPCC_INT_A_DEV_FCR_MSG_LIMITED,
	HPCC_INT_A_DEV_FCR_DST_LIMITED,
	HPCC_INT_A_DEV_FCR_DST_REFUSED,

	__HPCC_INT_A_DEV_MAX,
	HPCC_INT_A_DEV_MAX = (__HPCC_INT_A_DEV_MAX - 1)
};

enum {
	HPCC_INT_A_SIGN_KEY_ID = 1,
	HPCC_INT_A_SIGN_KEY_KEY,
	HPCC_INT_A_SIGN_KEY_ADDR4,
	HPCC_INT_A_SIGN_KEY_ADDR6,
	HPCC_INT_A_SIGN_KEY_PLEN,

	__HPCC_INT_A_SIGN_KEY_MAX,
	HPCC_INT_A_SIGN_KEY_MAX = (__HPCC_INT_A_SIGN_KEY_MAX - 1)
};

enum {
	HPCC_INT_A_DST_PREFIX_ADDR4 = 1,
	HPCC_INT_A_DST_PREFIX_ADDR6,
	HPCC_INT_A_DST_PREFIX_PLEN,

	__HPCC_INT_A_DST_PREFIX_MAX,
	HPCC_INT_A_DST_PREFIX_MAX = (__HPCC_INT_A_DST_PREFIX_MAX - 1)
};

enum {
	HPCC_INT_A_CONFIG_SWITCH_ID = 1,
	HPCC_INT_A_CONFIG_PROBE_DSCP,
	HPCC_INT_A_CONFIG_IFA_PROTOCOL,
	HPCC_INT_A_CONFIG_DEVS,
	HPCC_INT_A_CONFIG_FCR_PORT,
	HPCC_INT_A_CONFIG_FCR_DSCP,
	HPCC_INT_A_CONFIG_KEY,
	HPCC_INT_A_CONFIG_KEYS_FLUSH,
	HPCC_INT_A_CONFIG_FCR_MSG_RATE,
	HPCC_INT_A_CONFIG_FCR_MSG_BURST,
	HPCC_INT_A_CONFIG_FCR_DST_RATE,
	HPCC_INT_A_CONFIG_FCR_DST_BURST,
	HPCC_INT_A_CONFIG_FCR_DST,
	HPCC_INT_A_CONFIG_FCR_DST_FLUSH,
	HPCC_INT_A_CONFIG_INT_DSCP,

	__HPCC_INT_A_CONFIG_MAX,
	HPCC_INT_A_CONFIG_MAX = (__HPCC_INT_A_CONFIG_MAX - 1)
};

enum {
	HPCC_INT_CMD_DEV_ADD = 1,
	HPCC_INT_CMD_DEV_DEL,
	HPCC_INT_CMD_DEV_GET,
	HPCC_INT_CMD_CONFIG_GET,
	HPCC_INT_CMD_CONFIG_SET,
	HPCC_INT_CMD_DEV_SET,

	__HPCC_INT_CMD_MAX,
	HPCC_INT_CMD_MAX = (__HPCC_INT_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_HPCC_INT_H */
