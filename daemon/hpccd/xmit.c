// SPDX-License-Identifier: GPL-2.0
/*
 * xmit.c - hpccd's packet transmit path (xmit.h).
 */
#include <errno.h>

#include "xmit.h"

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
