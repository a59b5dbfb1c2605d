/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fanout.h - how hpccd's shards split flows (the shards setting,
 * hpccd(8)): a flow belongs to the shard hpccd_shard_of() names, and the
 * kernel delivers the flow's responses and the probes of a peer's flow of
 * the same 5-tuple to that shard's packet socket, by a classic BPF program
 * of the packet-socket fanout group (PACKET_FANOUT_CBPF, packet(7)) that
 * computes the same hash from the packet.  So a flow's probes, responses
 * and telemetry stay on one thread, and no sample crosses cores.
 *
 * The hash is symmetric: a probe (the flow's tuple) and its response (the
 * tuple reversed) have the same one.  It reads the addresses and the
 * ports where hpcc_parse() finds them: behind the IPv4 header's options,
 * behind up to HPCC_IP6_MAX_EXTHDRS IPv6 hop-by-hop, routing and
 * destination options headers, and behind the 4-byte IFA header of a
 * packet whose protocol is not TCP (an IFA probe's).  Pure functions: no
 * I/O, no state.
 */
#ifndef _HPCCD_FANOUT_H
#define _HPCCD_FANOUT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

#include "hpcc_wire.h"

/* the program's instructions at most, IPv6's being the longer */
#define HPCCD_FANOUT_PROG_MAX	(48 + HPCC_IP6_MAX_EXTHDRS * 11)

/**
 * hpccd_fanout_hash() - the hash of a flow that the fanout program computes
 *	from its packets: the addresses' 32-bit words and the two ports
 *	XORed (in host order as loaded from the wire), times 0x9e3779b1,
 *	the top 16 bits
 * @t: the flow's tuple, either direction
 *
 * Return: 0..65535.
 */
uint32_t hpccd_fanout_hash(const struct hpcc_tuple *t);

/**
 * hpccd_shard_of() - the shard that owns a flow: the fanout group's socket
 *	the kernel gives its packets, the program's return value modulo
 *	the group's sockets (packet(7), PACKET_FANOUT_CBPF)
 * @t: the flow's tuple
 * @n: shards, 1..HPCCD_SHARDS_MAX (config.h)
 *
 * Return: 0..@n - 1.
 */
static inline unsigned int hpccd_shard_of(const struct hpcc_tuple *t,
					  unsigned int n)
{
	return n > 1 ? hpccd_fanout_hash(t) % n : 0;
}

/**
 * hpccd_fanout_prog() - the fanout group's classic BPF program for one
 *	family's packet socket (SOCK_DGRAM: offsets from the network header)
 * @family: AF_INET or AF_INET6
 * @code: room for HPCCD_FANOUT_PROG_MAX instructions
 *
 * For the packets hpccd takes it returns hpccd_fanout_hash() of their
 * tuple; others (not IP, truncated, more extension headers than
 * hpcc_parse() walks) go to a shard that drops them as it would have
 * without shards.
 *
 * Return: the instructions written.
 */
unsigned int hpccd_fanout_prog(int family, struct sock_filter *code);

#endif /* _HPCCD_FANOUT_H */
