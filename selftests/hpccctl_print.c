// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl_print - hpccctl's flow printer (daemon/hpccctl/flow.c,
 * flow_print() on print.c) without the module: one made-up flow as
 * `hpccctl flow show` prints it, or, with -j, as `hpccctl -j flow show`
 * does, for selftests/host/hpccctl.sh to compare the two (same fields,
 * same units).
 *
 *   hpccctl_print [-j]
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "hpccctl.h"
#include "print.h"

/* what hpccctl's main.c defines */
struct hpcc_genl g;
bool json;

int usage(FILE *out)
{
	return 2;
}

static void set(struct hpcc_attrs *a, int type, uint64_t v)
{
	a->has[type] = 1;
	a->v[type] = v;
}

int main(int argc, char **argv)
{
	struct hpcc_attrs a;

	json = argc > 1 && !strcmp(argv[1], "-j");
	memset(&a, 0, sizeof(a));
	set(&a, HPCC_A_FLOW_FAMILY, AF_INET);
	set(&a, HPCC_A_FLOW_SADDR4, htonl(0x0a000001));
	set(&a, HPCC_A_FLOW_DADDR4, htonl(0x0a000002));
	set(&a, HPCC_A_FLOW_SPORT, htons(40000));
	set(&a, HPCC_A_FLOW_DPORT, htons(5201));
	set(&a, HPCC_A_FLOW_MODE, HPCC_MODE_HPCC);
	set(&a, HPCC_A_FLOW_CWND, 57);
	set(&a, HPCC_A_FLOW_W, 81920);
	set(&a, HPCC_A_FLOW_WC, 86016);
	/* U 0.95 (fixed point, 32 fraction bits), 25 Gbit/s, 1.5 ms */
	set(&a, HPCC_A_FLOW_U, 4080218931ULL);
	set(&a, HPCC_A_FLOW_INC_STAGE, 3);
	set(&a, HPCC_A_FLOW_SRTT, 42);
	set(&a, HPCC_A_FLOW_PACING_RATE, 3125000000ULL);
	set(&a, HPCC_A_FLOW_TELEMETRY_AGE, 1500);
	set(&a, HPCC_A_FLOW_SAMPLES, 1234);
	set(&a, HPCC_A_FLOW_FALLBACKS, 1);
	a.nhop = 1;
	a.hops[0].switch_id = 7;
	a.hops[0].rate = 25000000000ULL;
	print_start(json);
	open_json_array(NULL);
	flow_print(&a);
	close_json_array();
	print_end();
	return 0;
}
