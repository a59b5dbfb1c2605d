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

int hpccd_send_pkt(int fd, const void *buf, size_t len,
		   const struct sockaddr *to, socklen_t tolen)
{
	ssize_t n = sendto(fd, buf, len, MSG_DONTWAIT, to, tolen);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
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

int hpccd_send(int fd, const void *buf, size_t len,
	       const struct sockaddr *to, socklen_t tolen,
	       const struct hpccd_send_counts *c)
{
	return hpccd_send_account(fd < 0 ? -EBADF :
				  hpccd_send_pkt(fd, buf, len, to, tolen), c);
}

int hpccd_send_probe(struct hpccd_sched *s, struct hpccd_flow *f,
		     uint64_t probe_id, uint64_t now, int fd, const void *buf,
		     size_t len, const struct sockaddr *to, socklen_t tolen,
		     const struct hpccd_send_counts *c)
{
	int err;

	hpccd_sent(s, f, probe_id, now);
	err = hpccd_send(fd, buf, len, to, tolen, c);
	if (err == -EAGAIN)
		hpccd_send_blocked(s, f, now);
	return err;
}
