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
