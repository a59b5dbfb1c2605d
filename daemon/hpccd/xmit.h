/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmit.h - hpccd's packet path: packets read from its packet sockets a
 * batch per system call, probe ids drawn from a pool, and one probe or
 * response sent on a raw socket, never waiting for room.  A stalled egress (a full qdisc, a
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
#include <linux/if_packet.h>

#include "sched.h"

/* packets a hpccd_recv_batch() call reads at most */
#define HPCCD_RX_BATCH		32
/* bytes kept of each: a probe or response is at most HPCC_PKT_MAX */
#define HPCCD_RX_BUF		2048
/* probe ids a refill of the pool draws (8 bytes each) */
#define HPCCD_ID_POOL		512

/**
 * struct hpccd_rx_batch - the packets one recvmmsg() read
 * @msg: the message headers, @n of them filled
 * @iov: one buffer each
 * @ll: each packet's link-layer source (its ingress interface)
 * @buf: the packets, truncated to HPCCD_RX_BUF bytes (@msg[i].msg_len
 *	is the bytes kept; MSG_TRUNC in its msg_flags says more were sent)
 * @n: packets read, 0..HPCCD_RX_BATCH
 */
struct hpccd_rx_batch {
	struct mmsghdr msg[HPCCD_RX_BATCH];
	struct iovec iov[HPCCD_RX_BATCH];
	struct sockaddr_ll ll[HPCCD_RX_BATCH];
	uint8_t buf[HPCCD_RX_BATCH][HPCCD_RX_BUF];
	unsigned int n;
};

/**
 * hpccd_recv_batch() - read up to HPCCD_RX_BATCH packets waiting on @fd in
 * one system call (recvmmsg()), without waiting for more
 * @fd: a datagram or packet socket
 * @b: where they go
 *
 * A burst of responses or probes costs one system call per
 * HPCCD_RX_BATCH packets instead of one each.
 *
 * Return: the packets read (also @b->n), 1..HPCCD_RX_BATCH; 0 when none
 * was waiting; -errno on another error (@b->n 0).
 */
int hpccd_recv_batch(int fd, struct hpccd_rx_batch *b);

/**
 * struct hpccd_id_pool - probe ids drawn ahead, HPCCD_ID_POOL at a time
 * @id: the ids
 * @left: ids not yet taken, from the end of @id
 */
struct hpccd_id_pool {
	uint64_t id[HPCCD_ID_POOL];
	unsigned int left;
};

/**
 * hpccd_probe_id() - the next probe id: 64 random bits a probe's response
 * must echo (an off-path sender that cannot see the probe cannot guess
 * it).  A refill takes one 32-byte seed from the kernel's random source
 * (libsodium's randombytes_buf()) and expands it with ChaCha20
 * (randombytes_buf_deterministic()) into HPCCD_ID_POOL ids: one system
 * call per HPCCD_ID_POOL probes instead of one each.  libsodium must be
 * initialised (sodium_init()).
 * @pool: the pool, zeroed at the start
 * Return: the id.
 */
uint64_t hpccd_probe_id(struct hpccd_id_pool *pool);

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
