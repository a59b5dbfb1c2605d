// SPDX-License-Identifier: GPL-2.0
/* Probe: <linux/unaligned.h> (v6.12 moved it there from <asm/unaligned.h>). */
#include <linux/unaligned.h>

static u16 __maybe_unused probe_fn(const void *p)
{
	return get_unaligned_be16(p);
}
