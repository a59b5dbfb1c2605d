/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks by which both modules recognize a probe or a response on the
 * wire (include/uapi/linux/hpcc_wire.h):
 * tcp_hpcc's LOCAL_IN hook before it consumes one (kernel/hpcc_probe.c)
 * and hpcc_int's FORWARD hook before it stamps one (kernel/hpcc_int.c).
 * hpccd's parser applies the same rules in userspace (daemon/hpcc_wire.c).
 */
#ifndef _HPCC_WIRE_CHECK_H
#define _HPCC_WIRE_CHECK_H

#include <linux/tcp.h>
#include <linux/hpcc_wire.h>

/**
 * hpcc_wire_tcp_valid() - the TCP header of a probe or response
 * @th: the segment's TCP header
 *
 * The wire format has seq, ack, every flag and reserved bit, the window
 * and the urgent pointer 0, and a data offset of at least 5 (options are
 * allowed).  A segment with any of them set is not ours, whatever its DSCP
 * and payload: it goes on untouched to TCP or to the next hop.
 *
 * Return: true when @th is such a header.
 */
static inline bool hpcc_wire_tcp_valid(const struct tcphdr *th)
{
	return th->doff >= sizeof(*th) / 4 && !th->seq && !th->ack_seq &&
	       !(tcp_flag_word(th) & ~TCP_DATA_OFFSET) && !th->urg_ptr;
}

/**
 * hpcc_wire_hdr_valid() - the HPCC header of a probe or response
 * @h: the header, first in the TCP payload
 * @type: the enum hpcc_wire_type expected (by the packet's DSCP)
 * @room: bytes the packet has from @h on
 *
 * Return: true when the magic, version and @type match, hop_cap is 1 to
 * HPCC_MAX_HOPS, nhop is at most hop_cap, and all hop_cap records are
 * present.
 */
static inline bool hpcc_wire_hdr_valid(const struct hpcc_wire_hdr *h, u8 type,
				       unsigned int room)
{
	return h->magic == htonl(HPCC_WIRE_MAGIC) &&
	       h->version == HPCC_WIRE_VERSION && h->type == type &&
	       h->hop_cap && h->hop_cap <= HPCC_MAX_HOPS &&
	       h->nhop <= h->hop_cap &&
	       room >= sizeof(*h) + h->hop_cap * HPCC_WIRE_HOP_LEN;
}

#endif /* _HPCC_WIRE_CHECK_H */
