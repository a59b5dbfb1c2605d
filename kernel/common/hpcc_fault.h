/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_fault.h - test-only delays that widen the teardown race windows of
 * both modules, so that a debugging kernel (KASAN) can see a hook that
 * still runs when a namespace's state is freed (Documentation/testing.rst,
 * "Teardown race injection").
 *
 * Built in only when the modules are compiled with HPCC_FAULT_INJECT=y
 * (make check-debug does; DKMS and make modules do not): then each module
 * has two parameters, root-only (0600), both 0 (off) after loading:
 *
 * fault_hook_delay_us - busy-wait this long at the start of the module's
 *   packet hook (hpcc_probe_hook(), hpcc_int_hook()), before it reads the
 *   namespace's state; 0..HPCC_FAULT_HOOK_MAX_US microseconds.
 * fault_exit_delay_ms - sleep this long at the start of the namespace's
 *   .exit, before its state is freed; 0..HPCC_FAULT_EXIT_MAX_MS
 *   milliseconds.
 *
 * One file per module defines HPCC_FAULT_DEFINE_PARAMS before including
 * this header; that file gets the two parameters' definitions, the others
 * their declarations.  Larger values are clamped.  Without HPCC_FAULT_INJECT both helpers are
 * empty and the parameters do not exist.
 */
#ifndef _HPCC_FAULT_H
#define _HPCC_FAULT_H

#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>

#define HPCC_FAULT_HOOK_MAX_US	5000U
#define HPCC_FAULT_EXIT_MAX_MS	1000U

#ifdef HPCC_FAULT_INJECT

#ifdef HPCC_FAULT_DEFINE_PARAMS
unsigned int hpcc_fault_hook_delay_us;
module_param_named(fault_hook_delay_us, hpcc_fault_hook_delay_us, uint, 0600);
MODULE_PARM_DESC(fault_hook_delay_us, "test only: busy-wait in the hook (us)");
unsigned int hpcc_fault_exit_delay_ms;
module_param_named(fault_exit_delay_ms, hpcc_fault_exit_delay_ms, uint, 0600);
MODULE_PARM_DESC(fault_exit_delay_ms, "test only: sleep in .exit (ms)");
#else
extern unsigned int hpcc_fault_hook_delay_us;
extern unsigned int hpcc_fault_exit_delay_ms;
#endif

/* Context: a netfilter hook (softirq or process context, RCU read side). */
static inline void hpcc_fault_hook_delay(void)
{
	unsigned int us = READ_ONCE(hpcc_fault_hook_delay_us);

	if (us)
		udelay(min(us, HPCC_FAULT_HOOK_MAX_US));
}

/* Context: a pernet .exit (process context, may sleep). */
static inline void hpcc_fault_exit_delay(void)
{
	unsigned int ms = READ_ONCE(hpcc_fault_exit_delay_ms);

	if (ms)
		msleep(min(ms, HPCC_FAULT_EXIT_MAX_MS));
}

#else

static inline void hpcc_fault_hook_delay(void) {}
static inline void hpcc_fault_exit_delay(void) {}

#endif /* HPCC_FAULT_INJECT */

#endif /* _HPCC_FAULT_H */
