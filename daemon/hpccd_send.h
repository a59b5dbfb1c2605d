/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpccd_send.h - hpccd's packet sends: one probe or response on a raw
 * socket, never waiting for room.  A stalled egress (a full qdisc, a
 * device whose queue does not drain) fills the socket's send buffer; a
 * blocking sendto() would then hold the whole event loop (events,
 * responses, timers, signals) until the egress moved.  Instead the packet
 * is refused at once, and hpccd counts it (send-blocked) and goes on.
 */
#ifndef _HPCCD_SEND_H
#define _HPCCD_SEND_H

#include <stddef.h>
#include <sys/socket.h>

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

#endif /* _HPCCD_SEND_H */
