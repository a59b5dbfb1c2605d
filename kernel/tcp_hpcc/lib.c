// SPDX-License-Identifier: GPL-2.0
/*
 * lib.c - the rules of kernel/lib/ that tcp_hpcc.ko links (the algorithm
 * core is lib/hpcc_core.o, which only this module links).  Kbuild puts an
 * object in one module only, and hpcc_int.ko links these too: each module
 * compiles its own copy here (no symbol is exported, so two loaded
 * modules do not clash).
 */

#include "lib/hpcc_fcr.c"
#include "lib/hpcc_ccm.c"
#include "lib/hpcc_nmac.c"
#include "lib/hpcc_overlap.c"
