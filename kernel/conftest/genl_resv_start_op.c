// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: genl_family.resv_start_op (v6.1, "genetlink: start to validate
 * reserved header bytes").
 */
#include <net/genetlink.h>

static struct genl_family probe_family __maybe_unused = {
	.resv_start_op = 1,
};
