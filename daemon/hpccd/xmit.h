/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmit.h - hpccd's packet transmit path: one probe or response sent on
 * a raw socket, never waiting for room.  A stalled egress (a full qdisc, a
 * device whose queue does not drain) fills the socket's send buffer; a
 * blocking sendto() would then hold the whole event loop (events,
 * responses, timers, signals) until the egress moved.  Instead the packet
 * is refused at once, and hpccd counts it (send-blocked) and goes on; a
 * probe's flow backs off (hpccd_send_probe()).
 */
#ifndef _HPCCD_XMIT_H
#define _HPCCD_XMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "sched.h"

/**
 * struct hpccd_send_counts - where sends are counted (hpccd's counters)
 * @blocked: packets refused for want of room (send-blocked)
 * @errors: packets refused for another reason (send-errors)
 */
struct hpccd_send_counts {
	uint64_t *blocked;
	uint64_t *errors;
};

/**
 * hpccd_send_pkt() - send one packet without blocking
 * @fd: the socket (hpccd's raw sockets: the IP header is in @buf)
 * @buf: the packet, @len bytes
 * @len: its length
 * @to: the destination, @tolen bytes (NULL and 0 on a connected socket)
 * @tolen: its length
 *
 * Return: 0 when the whole packet was taken; -EAGAIN when the socket has
 * no room for it (its send buffer is full: backpressure, the packet is
 * dropped); -ENOBUFS when the kernel had no memory or the device queue
 * refused it; -EMSGSIZE when it took less than @len; another -errno
 * otherwise.
 */
int hpccd_send_pkt(int fd, const void *buf, size_t len,
		   const struct sockaddr *to, socklen_t tolen);

/**
 * hpccd_send_account() - count the result @err of a send in @c
 *
 * -EAGAIN (the socket's send buffer is full) and -ENOBUFS (the kernel had
 * no memory, or the device queue refused the packet) are both a stalled
 * or short egress: counted in @c->blocked; any other error in
 * @c->errors.
 *
 * Return: 0; -EAGAIN for either of the first two; @err otherwise.
 */
int hpccd_send_account(int err, const struct hpccd_send_counts *c);

/**
 * hpccd_send() - hpccd_send_pkt(), counted (hpccd_send_account()); @fd < 0
 * (no socket for the family) is -EBADF, an error
 * Return: as hpccd_send_account().
 */
int hpccd_send(int fd, const void *buf, size_t len,
	       const struct sockaddr *to, socklen_t tolen,
	       const struct hpccd_send_counts *c);

/**
 * hpccd_send_probe() - send probe @probe_id of flow @f (@buf, @len bytes)
 * at @now: the probe is registered (hpccd_sent()), then sent
 * (hpccd_send()); a probe the socket has no room for did not leave:
 * hpccd_send_blocked() uncounts it from the flow's probes and backs the
 * flow off, asked again after its doubled timeout.
 * Return: as hpccd_send().
 */
int hpccd_send_probe(struct hpccd_sched *s, struct hpccd_flow *f,
		     uint64_t probe_id, uint64_t now, int fd, const void *buf,
		     size_t len, const struct sockaddr *to, socklen_t tolen,
		     const struct hpccd_send_counts *c);

#endif /* _HPCCD_XMIT_H */
