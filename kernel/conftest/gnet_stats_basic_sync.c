// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: a qdisc's byte counters are u64_stats_t in struct
 * gnet_stats_basic_sync, read with u64_stats_read() (v5.18, "net: sched:
 * Merge Qdisc::bstats and Qdisc::cpu_bstats data types").
 */
#include <net/sch_generic.h>

static u64 __maybe_unused probe_fn(const struct Qdisc *q)
{
	return u64_stats_read(&q->bstats.bytes) +
	       u64_stats_read(&this_cpu_ptr(q->cpu_bstats)->bytes);
}
