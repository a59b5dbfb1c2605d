// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl_print - hpccctl's printers on print.c without the modules:
 * one made-up flow as `hpccctl flow show` prints it (flow.c's
 * flow_print()), or with int, a made-up hop namespace of two ports as
 * `hpccctl int show` does (int.c's int_print()); with -j, as
 * `hpccctl -j ...` does, for selftests/host/hpccctl.sh to compare the two
 * (same fields, same units).
 *
 *   hpccctl_print [-j] [int]
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

/*
 * int_show() - the hop namespace: a key, a destination prefix, port 1 (br0
 * in hpccctl.sh's reading: ifindex 1 is lo here) with FCR, CCM and
 * refusals, port 2 stamping only
 */
static void int_show(void)
{
	static struct int_config ic;
	static struct hpcc_attrs d[2];
	int k;

	memset(&ic, 0, sizeof(ic));
	memset(d, 0, sizeof(d));
	set(&ic.c, HPCC_INT_A_CONFIG_SWITCH_ID, 4026531840U);
	set(&ic.c, HPCC_INT_A_CONFIG_PROBE_DSCP, 60);
	set(&ic.c, HPCC_INT_A_CONFIG_IFA_PROTOCOL, 253);
	set(&ic.c, HPCC_INT_A_CONFIG_DEVS, 2);
	set(&ic.c, HPCC_INT_A_CONFIG_FCR_PORT, 6862);
	set(&ic.c, HPCC_INT_A_CONFIG_FCR_DSCP, 61);
	set(&ic.c, HPCC_INT_A_CONFIG_FCR_MSG_RATE, 100000);
	set(&ic.c, HPCC_INT_A_CONFIG_FCR_MSG_BURST, 1024);
	set(&ic.c, HPCC_INT_A_CONFIG_FCR_DST_RATE, 16000);
	set(&ic.c, HPCC_INT_A_CONFIG_FCR_DST_BURST, 64);
	ic.t.n_key = 1;
	ic.t.key[0].present = 1ULL << HPCC_INT_A_SIGN_KEY_ADDR4;
	ic.t.key[0].id = 7;
	ic.t.key[0].addr4 = htonl(0x0a000000);
	ic.t.key[0].plen = 8;
	ic.t.n_fcr_dst = 1;
	ic.t.fcr_dst[0].present = 1ULL << HPCC_INT_A_DST_PREFIX_ADDR6;
	ic.t.fcr_dst[0].addr6[0] = 0xfd;
	ic.t.fcr_dst[0].plen = 16;
	/* port 1: every attribute, each a different number (k x 1000 + k) */
	for (k = 1; k <= HPCC_INT_A_DEV_MAX; k++)
		if (k != HPCC_INT_A_DEV_PAD)
			set(&d[0], k, k * 1000ULL + k);
	set(&d[0], HPCC_INT_A_DEV_IFINDEX, 1);
	set(&d[0], HPCC_INT_A_DEV_RATE, 50000000);
	set(&d[0], HPCC_INT_A_DEV_ENCODING, HPCC_INT_ENCODING_INT_MD);
	set(&d[0], HPCC_INT_A_DEV_TX_MODEL, 1);
	/* port 2: stamping only, FCR and CCM off */
	for (k = HPCC_INT_A_DEV_IFINDEX; k <= HPCC_INT_A_DEV_FCR_DRAIN; k++)
		if (k != HPCC_INT_A_DEV_PAD)
			set(&d[1], k, 0);
	set(&d[1], HPCC_INT_A_DEV_IFINDEX, 1000000);
	set(&d[1], HPCC_INT_A_DEV_RATE, 25000000000ULL);
	set(&d[1], HPCC_INT_A_DEV_STAMPED, 12345);
	int_print(&ic, d, 2);
}

int main(int argc, char **argv)
{
	struct hpcc_attrs a;
	int i = 1;

	json = argc > i && !strcmp(argv[i], "-j");
	i += json;
	if (argc > i && !strcmp(argv[i], "int")) {
		int_show();
		return 0;
	}
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
