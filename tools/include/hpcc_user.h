/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_user.h - the kernel names the algorithm core uses, for its
 * userspace builds (hpcc-replay, tests, fuzzers, hpccd).  Only compiler
 * headers: no libc dependency.
 */
#ifndef _HPCC_USER_H
#define _HPCC_USER_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#define BIT(nr)		(1UL << (nr))
#endif

#endif
