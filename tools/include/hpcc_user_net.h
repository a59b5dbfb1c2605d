/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_user_net.h - the kernel's address helpers kernel/lib/hpcc_int_lim.h
 * uses (include/linux/in.h, include/net/ipv6.h), as the kernel defines
 * them, for its userspace builds: the host unit test and the ns-3 model.
 */
#ifndef _HPCC_USER_NET_H
#define _HPCC_USER_NET_H

#include <arpa/inet.h>
#include <linux/types.h>
#include <netinet/in.h>
#include <stdbool.h>

static inline bool ipv4_is_multicast(__be32 a)
{
	return (a & htonl(0xf0000000)) == htonl(0xe0000000);
}

static inline bool ipv4_is_lbcast(__be32 a)
{
	return a == htonl(INADDR_BROADCAST);
}

static inline bool ipv4_is_zeronet(__be32 a)
{
	return (a == 0) || ((a & htonl(0xff000000)) == htonl(0x00000000));
}

static inline bool ipv4_is_loopback(__be32 a)
{
	return (a & htonl(0xff000000)) == htonl(0x7f000000);
}

static inline bool ipv6_addr_any(const struct in6_addr *a)
{
	return !(a->s6_addr32[0] | a->s6_addr32[1] | a->s6_addr32[2] |
		 a->s6_addr32[3]);
}

static inline bool ipv6_addr_loopback(const struct in6_addr *a)
{
	return !(a->s6_addr32[0] | a->s6_addr32[1] | a->s6_addr32[2] |
		 (a->s6_addr32[3] ^ htonl(1)));
}

static inline bool ipv6_addr_is_multicast(const struct in6_addr *a)
{
	return (a->s6_addr32[0] & htonl(0xFF000000)) == htonl(0xFF000000);
}

static inline bool ipv6_addr_v4mapped(const struct in6_addr *a)
{
	return !(a->s6_addr32[0] | a->s6_addr32[1] |
		 (a->s6_addr32[2] ^ htonl(0x0000ffff)));
}

#endif
