// SPDX-License-Identifier: GPL-2.0
/*
 * lib.c - the rules of kernel/lib/ that hpcc_int.ko links.  Kbuild puts an
 * object in one module only, and tcp_hpcc.ko links these too: each module
 * compiles its own copy here, so a router loads hpcc_int.ko alone (no
 * symbol is exported, so two loaded modules do not clash).
 */

#include "lib/hpcc_fcr.c"
#include "lib/hpcc_ccm.c"
#include "lib/hpcc_nmac.c"
#include "lib/hpcc_overlap.c"
