/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/hpcc-int.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_HPCC_INT_H
#define _UAPI_LINUX_HPCC_INT_H

#define HPCC_INT_FAMILY_NAME	"hpcc-int"
#define HPCC_INT_FAMILY_VERSION	1

/**
 * enum hpcc_int_encoding - The telemetry encoding a device stamps
 *   (Documentation/design.rst, "Telemetry encodings").
 * @HPCC_INT_ENCODING_OWN: The project's hop record
 *   (include/uapi/linux/hpcc_wire.h): the next pre-allocated record, the
 *   packet never grows. A probe that carries an INT-MD stack has its record
 *   stamped after the stack.
 * @HPCC_INT_ENCODING_INT_MD: P4.org INT-MD v2.1 over TCP (section 5.7.2, the
 *   probe DSCP signals the shim after the TCP header; section 5.8): the hop
 *   pushes Hop ML words of metadata onto the stack, in the order of the
 *   instruction bitmap, the packet grows by them. Switch ID (switch-id), level
 *   1 and 2 ingress and egress interface IDs (ifindex), queue ID 0 and queue
 *   occupancy (the egress qdisc's backlog in bytes, saturated at 2^24 - 1) and
 *   the egress timestamp (ktime_get_ns()); every other field, and the checksum
 *   complement (the TCP checksum is updated instead), all ones ("invalid").
 *   Remaining Hop Count 0 sets E, a packet that would pass the device's MTU
 *   sets M; neither is stamped (counted full). A probe without an INT-MD shim
 *   leaves unstamped (other-encoding).
 */
enum hpcc_int_encoding {
	HPCC_INT_ENCODING_OWN,
	HPCC_INT_ENCODING_INT_MD,
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

	__HPCC_INT_A_DEV_MAX,
	HPCC_INT_A_DEV_MAX = (__HPCC_INT_A_DEV_MAX - 1)
};

enum {
	HPCC_INT_A_CONFIG_SWITCH_ID = 1,
	HPCC_INT_A_CONFIG_PROBE_DSCP,
	HPCC_INT_A_CONFIG_DEVS,

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
