// SPDX-License-Identifier: GPL-2.0
/* Probe: param_set_uint_minmax() (v5.15). */
#include <linux/moduleparam.h>

static int __maybe_unused probe_fn(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1);
}
