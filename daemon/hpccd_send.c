// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd_send.c - hpccd's packet sends (hpccd_send.h).
 */
#include <errno.h>

#include "hpccd_send.h"

int hpccd_send_pkt(int fd, const void *buf, size_t len,
		   const struct sockaddr *to, socklen_t tolen)
{
	ssize_t n = sendto(fd, buf, len, MSG_DONTWAIT, to, tolen);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}
