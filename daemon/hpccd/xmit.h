/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmit.h - hpccd's packet path, a system call per batch where it can: the
 * packets waiting on a packet socket read by one recvmmsg(), probe ids
 * drawn from a pool, and the probes and responses of a burst sent on
 * their raw socket by one sendmmsg(), never waiting for room.  A stalled
 * egress (a full qdisc, a device whose queue does not drain) fills the
 * socket's send buffer; a blocking send would then hold the whole event
 * loop (events, responses, timers, signals) until the egress moved.
 * Instead the packet is refused at once, and hpccd counts it
 * (send-blocked) and goes on; a probe's flow backs off
 * (hpccd_probe_done()).
 */
#ifndef _HPCCD_XMIT_H
#define _HPCCD_XMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include "hpcc_wire.h"
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

/* packets a struct hpccd_tx_batch holds before it is sent */
#define HPCCD_TX_BATCH		32

/**
 * struct hpccd_tx_pkt - a packet waiting in a struct hpccd_tx_batch
 * @buf: the packet, its IP header included
 * @len: its length, bytes, 1..HPCC_PKT_MAX
 * @to: its destination (for the route only: the header is sent as built)
 * @tolen: @to's length
 * @probe: a probe of flow @t with id @probe_id; else a response
 * @t: the probe's flow
 * @probe_id: the probe's id
 */
struct hpccd_tx_pkt {
	uint8_t buf[HPCC_PKT_MAX];
	size_t len;
	struct sockaddr_storage to;
	socklen_t tolen;
	bool probe;
	struct hpcc_tuple t;
	uint64_t probe_id;
};

/**
 * typedef hpccd_tx_done_fn - what became of a packet of a batch
 * @p: the packet
 * @err: 0 when it was sent whole; else as hpccd_send_account() returns
 *	it (-EAGAIN for a socket without room or a refusing device, counted
 *	send-blocked; another -errno counted send-errors)
 * @ctx: the flush's context
 */
typedef void (*hpccd_tx_done_fn)(const struct hpccd_tx_pkt *p, int err,
				 void *ctx);

/**
 * struct hpccd_tx_batch - packets for one raw socket, sent together by
 *	one sendmmsg() (hpccd_tx_flush())
 * @fd: the socket of the packets waiting
 * @n: packets waiting, 0..HPCCD_TX_BATCH
 * @pkt: the packets
 * @msg: their message headers, filled by the flush
 * @iov: one buffer each
 */
struct hpccd_tx_batch {
	int fd;
	unsigned int n;
	struct hpccd_tx_pkt pkt[HPCCD_TX_BATCH];
	struct mmsghdr msg[HPCCD_TX_BATCH];
	struct iovec iov[HPCCD_TX_BATCH];
};

/**
 * hpccd_tx_flush() - send the packets waiting in @b, in order, never
 * waiting for room
 * @b: the batch; empty afterwards
 * @c: where the refusals are counted
 * @done: called once for each packet, in order, with its outcome
 * @ctx: passed to @done
 *
 * One sendmmsg() takes the batch, or as much of it as the socket takes: a
 * packet the socket refuses for want of room (-EAGAIN: a stalled egress)
 * leaves every packet after it unsent too, each counted send-blocked and
 * reported -EAGAIN; one the kernel refuses with -ENOBUFS (no memory, or
 * its device's queue full) is counted send-blocked and reported -EAGAIN
 * alone; one refused for another reason (-EHOSTUNREACH, say) is counted
 * send-errors; the packets after those two are sent.
 *
 * Return: the packets sent.
 */
unsigned int hpccd_tx_flush(struct hpccd_tx_batch *b,
			    const struct hpccd_send_counts *c,
			    hpccd_tx_done_fn done, void *ctx);

/**
 * hpccd_tx_queue() - add a packet to @b for socket @fd, flushing @b first
 * when it is full or holds another socket's packets
 * @b: the batch
 * @fd: the socket; < 0 (no socket for the family): the packet is reported
 *	to @done at once as -EAFNOSUPPORT, counted send-errors
 * @pkt: the packet (as struct hpccd_tx_pkt); copied.  A length of 0 or
 *	above HPCC_PKT_MAX is reported to @done at once as -EMSGSIZE, counted
 *	send-errors
 * @c: as hpccd_tx_flush()
 * @done: as hpccd_tx_flush()
 * @ctx: as hpccd_tx_flush()
 *
 * The packet leaves at the next flush: the caller flushes before it waits
 * for events again.
 */
void hpccd_tx_queue(struct hpccd_tx_batch *b, int fd,
		    const struct hpccd_tx_pkt *pkt,
		    const struct hpccd_send_counts *c,
		    hpccd_tx_done_fn done, void *ctx);

/**
 * hpccd_probe_done() - what the scheduler makes of a probe's send: a probe
 * the socket had no room for (@err -EAGAIN) did not leave, so its flow, if
 * that probe is still one of its probes out, is not counted a probe and
 * backs off, abandoning every probe it has out (hpccd_send_blocked():
 * asked again after its doubled timeout, so a stalled egress is tried at
 * the backoff's pace, not at every response)
 * @s: the scheduler
 * @p: the probe (hpccd_sent() registered it when it was queued)
 * @err: its outcome, as hpccd_tx_done_fn
 * @now: CLOCK_MONOTONIC, ns
 * Return: true when the probe was sent.
 */
bool hpccd_probe_done(struct hpccd_sched *s, const struct hpccd_tx_pkt *p,
		      int err, uint64_t now);

#endif /* _HPCCD_XMIT_H */
