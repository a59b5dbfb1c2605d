// SPDX-License-Identifier: GPL-2.0
/*
 * xmit.c - hpccd's packet path (xmit.h).
 */
#include <errno.h>
#include <string.h>
#include <sodium.h>

#include "xmit.h"

int hpccd_recv_batch(int fd, struct hpccd_rx_batch *b)
{
	unsigned int i;
	int n;

	for (i = 0; i < HPCCD_RX_BATCH; i++) {
		b->iov[i].iov_base = b->buf[i];
		b->iov[i].iov_len = sizeof(b->buf[i]);
		memset(&b->msg[i], 0, sizeof(b->msg[i]));
		b->msg[i].msg_hdr.msg_iov = &b->iov[i];
		b->msg[i].msg_hdr.msg_iovlen = 1;
		b->msg[i].msg_hdr.msg_name = &b->ll[i];
		b->msg[i].msg_hdr.msg_namelen = sizeof(b->ll[i]);
	}
	b->n = 0;
	n = recvmmsg(fd, b->msg, HPCCD_RX_BATCH, MSG_DONTWAIT, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	b->n = n;
	return n;
}

uint64_t hpccd_probe_id(struct hpccd_id_pool *pool)
{
	unsigned char seed[randombytes_SEEDBYTES];

	if (!pool->left) {
		randombytes_buf(seed, sizeof(seed));
		randombytes_buf_deterministic(pool->id, sizeof(pool->id), seed);
		sodium_memzero(seed, sizeof(seed));
		pool->left = HPCCD_ID_POOL;
	}
	return pool->id[--pool->left];
}

int hpccd_send_account(int err, const struct hpccd_send_counts *c)
{
	if (err == -EAGAIN || err == -ENOBUFS) {
		(*c->blocked)++;
		return -EAGAIN;
	}
	if (err)
		(*c->errors)++;
	return err;
}

unsigned int hpccd_tx_flush(struct hpccd_tx_batch *b,
			    const struct hpccd_send_counts *c,
			    hpccd_tx_done_fn done, void *ctx)
{
	unsigned int i, at = 0, sent = 0;
	int n, err;

	for (i = 0; i < b->n; i++) {
		b->iov[i].iov_base = b->pkt[i].buf;
		b->iov[i].iov_len = b->pkt[i].len;
		memset(&b->msg[i], 0, sizeof(b->msg[i]));
		b->msg[i].msg_hdr.msg_iov = &b->iov[i];
		b->msg[i].msg_hdr.msg_iovlen = 1;
		b->msg[i].msg_hdr.msg_name = b->pkt[i].tolen ?
					     &b->pkt[i].to : NULL;
		b->msg[i].msg_hdr.msg_namelen = b->pkt[i].tolen;
	}
	while (at < b->n) {
		n = sendmmsg(b->fd, b->msg + at, b->n - at, MSG_DONTWAIT);
		if (n > 0) {
			for (i = at; i < at + (unsigned int)n; i++) {
				err = b->msg[i].msg_len == b->pkt[i].len ?
				      0 : -EMSGSIZE;
				sent += !err;
				done(&b->pkt[i], hpccd_send_account(err, c),
				     ctx);
			}
			at += n;
			continue;
		}
		/* The packet at @at failed.  After a partial send sendmmsg()
		 * returns the count and drops the error; the call after it
		 * (this loop's next, from the first packet not sent) gets it
		 * again, so it is seen here either way.
		 */
		err = n < 0 ? (errno == EWOULDBLOCK ? -EAGAIN : -errno) :
			      -EIO;
		done(&b->pkt[at++], hpccd_send_account(err, c), ctx);
		if (err != -EAGAIN)
			continue;
		/* the socket has no room: the rest cannot leave either (a
		 * device's ENOBUFS is one packet's: the rest are tried)
		 */
		for (; at < b->n; at++)
			done(&b->pkt[at], hpccd_send_account(-EAGAIN, c), ctx);
	}
	b->n = 0;
	return sent;
}

void hpccd_tx_queue(struct hpccd_tx_batch *b, int fd,
		    const struct hpccd_tx_pkt *pkt,
		    const struct hpccd_send_counts *c,
		    hpccd_tx_done_fn done, void *ctx)
{
	struct hpccd_tx_pkt *p;

	if (fd < 0 || !pkt->len || pkt->len > sizeof(p->buf)) {
		done(pkt, hpccd_send_account(fd < 0 ? -EAFNOSUPPORT :
					     -EMSGSIZE, c), ctx);
		return;
	}
	if (b->n && (b->n == HPCCD_TX_BATCH || b->fd != fd))
		hpccd_tx_flush(b, c, done, ctx);
	b->fd = fd;
	p = &b->pkt[b->n++];
	memcpy(p->buf, pkt->buf, pkt->len);
	p->len = pkt->len;
	p->to = pkt->to;
	p->tolen = pkt->tolen;
	p->probe = pkt->probe;
	p->t = pkt->t;
	p->probe_id = pkt->probe_id;
}

bool hpccd_probe_done(struct hpccd_sched *s, const struct hpccd_tx_pkt *p,
		      int err, uint64_t now)
{
	struct hpccd_flow *f;

	if (!err)
		return true;
	if (err != -EAGAIN)
		return false;
	f = hpccd_flow_find(s, &p->t);
	if (f && hpccd_outstanding(f, p->probe_id))
		hpccd_send_blocked(s, f, now);
	return false;
}
