/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_nl_prefix.h - a prefix from netlink attributes (addr4 or addr6 and
 * plen), for both modules: tcp_hpcc's fcr-set prefixes and keys,
 * hpcc_int's signing keys.
 */
#ifndef _HPCC_NL_PREFIX_H
#define _HPCC_NL_PREFIX_H

#include <net/genetlink.h>
#include <net/ipv6.h>
#include "lib/hpcc_fcr.h"

/*
 * hpcc_nl_prefix() - a prefix from its attributes into @p (IPv4 as
 * IPv4-mapped): exactly one of @a4 and @a6, @plen within its family's
 * length, no address bit set after it.  @nest is what extack names when an
 * attribute is missing.  Return: 0 or -EINVAL, extack set.
 */
static inline int hpcc_nl_prefix(const struct nlattr *nest,
				 const struct nlattr *a4,
				 const struct nlattr *a6,
				 const struct nlattr *plen,
				 struct hpcc_fcr_prefix *p,
				 struct netlink_ext_ack *extack)
{
	struct in6_addr a, m;
	unsigned int max;

	if (!a4 == !a6) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a prefix needs exactly one of addr4 and addr6");
		return -EINVAL;
	}
	if (!plen) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "a prefix needs plen");
		return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	if (a4) {
		ipv6_addr_set_v4mapped(nla_get_in_addr(a4), &a);
		memcpy(p->addr, &a, 16);
		max = 32;
	} else {
		nla_memcpy(p->addr, a6, 16);
		max = 128;
		if (hpcc_fcr_mapped(p->addr)) {
			NL_SET_ERR_MSG_ATTR(extack, a6,
					    "an IPv4-mapped prefix goes in addr4");
			return -EINVAL;
		}
	}
	p->plen = nla_get_u8(plen);
	if (p->plen > max) {
		NL_SET_ERR_MSG_ATTR(extack, plen,
				    "plen beyond the address family's length");
		return -EINVAL;
	}
	p->plen += 128 - max;
	/* the same prefix with its host bits cleared must be itself */
	memcpy(&a, p->addr, sizeof(a));
	ipv6_addr_prefix(&m, &a, p->plen);
	if (!ipv6_addr_equal(&a, &m)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "address bits set after the prefix length");
		return -EINVAL;
	}
	return 0;
}

/*
 * hpcc_nl_prefix_put() - @p into @msg in its family's form, the inverse of
 * hpcc_nl_prefix(): an IPv4-mapped prefix as @a4 with its IPv4 length,
 * any other as @a6; the length as @plen.  Return: 0 or -EMSGSIZE.
 */
static inline int hpcc_nl_prefix_put(struct sk_buff *msg,
				     const struct hpcc_fcr_prefix *p,
				     int a4, int a6, int plen)
{
	bool v4 = hpcc_fcr_mapped(p->addr) && p->plen >= 96;
	__be32 addr4;

	memcpy(&addr4, p->addr + 12, sizeof(addr4));
	if (v4 ? nla_put_in_addr(msg, a4, addr4) :
	    nla_put(msg, a6, 16, p->addr))
		return -EMSGSIZE;
	return nla_put_u8(msg, plen, v4 ? p->plen - 96 : p->plen);
}

#endif /* _HPCC_NL_PREFIX_H */
