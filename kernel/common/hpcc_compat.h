/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_compat.h - kernel compatibility for tcp_hpcc.
 *
 * Every difference between supported kernels is decided here from the
 * HPCC_HAVE_* macros that kernel/conftest/conftest.sh generates by compiling
 * probes against the target kernel's headers (hpcc_conftest.h), never from
 * LINUX_VERSION_CODE alone: distribution kernels backport interfaces.
 */
#ifndef _HPCC_COMPAT_H
#define _HPCC_COMPAT_H

#include <net/tcp.h>

#include "hpcc_conftest.h"

/* v6.12 moved the unaligned accessors (probe linux_unaligned_h). */
#ifdef HPCC_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * HPCC_DEFINE_CONG_CONTROL(name, impl) - define the cong_control hook @name
 * with the kernel's signature, calling
 * void impl(struct sock *sk, const struct rate_sample *rs).
 * v6.10 added the ack and flag arguments (probe cong_control_ack_flag).
 */
#ifdef HPCC_HAVE_CONG_CONTROL_ACK_FLAG
#define HPCC_DEFINE_CONG_CONTROL(name, impl)				\
static void name(struct sock *sk, u32 ack, int flag,			\
		 const struct rate_sample *rs)				\
{									\
	impl(sk, rs);							\
}
#else
#define HPCC_DEFINE_CONG_CONTROL(name, impl)				\
static void name(struct sock *sk, const struct rate_sample *rs)	\
{									\
	impl(sk, rs);							\
}
#endif

#ifndef HPCC_HAVE_TCP_SND_CWND_SET
static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val)
{
	tp->snd_cwnd = val;
}
#endif

#if IS_ENABLED(CONFIG_IPV6)
#include <net/ipv6.h>

/*
 * hpcc_autoflowlabel() - does @sk's IPv6 output set an automatic flow
 * label: its IPV6_AUTOFLOWLABEL option if set, else the namespace's
 * net.ipv6.auto_flowlabels default; ip6_autoflowlabel() in
 * net/ipv6/ip6_output.c, which is not exported.  v6.7 moved the option's
 * flags into inet6_sk()->flags (probe inet6_autoflowlabel_bit).
 */
static inline bool hpcc_autoflowlabel(struct net *net, const struct sock *sk)
{
#ifdef HPCC_HAVE_INET6_AUTOFLOWLABEL_BIT
	if (!inet6_test_bit(AUTOFLOWLABEL_SET, sk))
		return ip6_default_np_autolabel(net);
	return inet6_test_bit(AUTOFLOWLABEL, sk);
#else
	const struct ipv6_pinfo *np = inet6_sk(sk);

	if (!np->autoflowlabel_set)
		return ip6_default_np_autolabel(net);
	return np->autoflowlabel;
#endif
}

/*
 * v5.14 added multipath hash policy 3, a chosen set of fields (probe
 * ip6_multipath_hash_fields).  Before it a namespace cannot choose that
 * policy, so the fields it would read never matter.
 */
#ifndef HPCC_HAVE_IP6_MULTIPATH_HASH_FIELDS
#define FIB_MULTIPATH_HASH_FIELD_FLOWLABEL	BIT(3)
static inline u32 ip6_multipath_hash_fields(const struct net *net)
{
	return 0;
}
#endif
#endif

/*
 * hpcc_can_rehash() - would sk_rethink_txhash() give @sk a new flow hash:
 * its SO_TXREHASH setting, from net.core.txrehash by default (v5.19, probe
 * sk_txrehash); before it a socket always rehashed.  (The hash must also
 * be set, which it is for every TCP socket that has connected.)
 */
static inline bool hpcc_can_rehash(const struct sock *sk)
{
#ifdef HPCC_HAVE_SK_TXREHASH
	return READ_ONCE(sk->sk_txrehash) == SOCK_TXREHASH_ENABLED;
#else
	return true;
#endif
}

/*
 * hpcc_csum_replace_by_diff() - inet_proto_csum_replace_by_diff(), which
 * the ILA checksum fix (v6.16, in the 6.1.y and 6.12.y stable series) gave
 * an ipv6 argument (probe csum_replace_by_diff_ipv6).  Before it the
 * function did what it does for ipv6 false, all our callers pass.
 */
#ifdef HPCC_HAVE_CSUM_REPLACE_BY_DIFF_IPV6
#define hpcc_csum_replace_by_diff	inet_proto_csum_replace_by_diff
#else
static inline void hpcc_csum_replace_by_diff(__sum16 *sum,
					     struct sk_buff *skb, __wsum diff,
					     bool pseudohdr, bool ipv6)
{
	WARN_ON_ONCE(ipv6);
	inet_proto_csum_replace_by_diff(sum, skb, diff, pseudohdr);
}
#endif

/*
 * hpcc_lookup_established4(), hpcc_lookup_established6() - the
 * established-socket lookups __inet_lookup_established() and
 * __inet6_lookup_established(), with the inet_hashinfo argument they had
 * until the kernel took the hash from the namespace itself (probe
 * inet_lookup_established_net); the hash we pass is that same one,
 * net->ipv4.tcp_death_row.hashinfo.
 */
#ifdef HPCC_HAVE_INET_LOOKUP_ESTABLISHED_NET
#define hpcc_lookup_established4(net, hinfo, ...) \
	((void)(hinfo), __inet_lookup_established(net, __VA_ARGS__))
#define hpcc_lookup_established6(net, hinfo, ...) \
	((void)(hinfo), __inet6_lookup_established(net, __VA_ARGS__))
#else
#define hpcc_lookup_established4	__inet_lookup_established
#define hpcc_lookup_established6	__inet6_lookup_established
#endif

/*
 * v6.0 let an extack name a missing attribute (probe nl_set_err_attr_miss).
 * Before it the message set beside each use is all the caller gets.
 */
#ifndef HPCC_HAVE_NL_SET_ERR_ATTR_MISS
static inline void hpcc_nl_set_err_attr_miss(struct netlink_ext_ack *extack,
					     const struct nlattr *nest,
					     unsigned int type)
{
}

#define NL_SET_ERR_ATTR_MISS(extack, nest, type) \
	hpcc_nl_set_err_attr_miss(extack, nest, type)
#endif

/*
 * The generated policies (tools/ynl-policy) declare their ranges
 * HPCC_NLA_RANGE_CONST: const where an nla_policy may point at a const
 * netlink_range_validation, as ynl-gen-c assumes; not on older kernels.
 */
#ifdef HPCC_HAVE_NLA_CONST_RANGE
#define HPCC_NLA_RANGE_CONST const
#else
#define HPCC_NLA_RANGE_CONST
#endif

#endif /* _HPCC_COMPAT_H */
