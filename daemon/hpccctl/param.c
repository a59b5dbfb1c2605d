// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl stats, param show, param set - the namespace's counters and
 * the parameters of its algorithm (draft section 5)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpccctl.h"
#include "print.h"

/* key value lines or a JSON object of the attributes @names names */
static void print_set(const struct hpcc_attrs *a, const char *const *names,
		      int max)
{
	int i;

	print_start(json);
	open_json_object(NULL);
	for (i = 1; i <= max; i++) {
		if (!names[i] || !a->has[i])
			continue;
		print_string(PRINT_FP, NULL, "%-22s ", names[i]);
		print_uint(PRINT_ANY, names[i], "%" PRIu64 "\n", a->v[i]);
	}
	close_json_object();
	print_end();
}

static int simple_get(uint8_t cmd, const char *what, const char *const *names,
		      int max)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct hpcc_attrs a;
	int err;

	err = hpcc_genl_talk(&g, hpcc_genl_msg(&g, buf, cmd, 0),
			     hpcc_genl_attrs_cb, &a);
	if (err)
		return fail(what, err);
	print_set(&a, names, max);
	return 0;
}

/* Arguments are checked before the module is needed: usage errors exit 2. */
static int param_set(int ac, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int type[HPCC_A_PARAMS_MAX];
	uint64_t val[HPCC_A_PARAMS_MAX];
	struct nlmsghdr *nlh;
	int i, n = 0, err;

	if (!ac || ac % 2 || ac / 2 > HPCC_A_PARAMS_MAX) {
		fprintf(stderr, "hpccctl: param set takes NAME VALUE pairs\n");
		return 2;
	}
	for (i = 0; i < ac; i += 2, n++) {
		const char *v = av[i + 1];
		char *end;
		int k;

		k = hpcc_name_lookup(hpcc_params_names, HPCC_A_PARAMS_MAX,
				     av[i]);
		if (!k) {
			fprintf(stderr, "hpccctl: unknown parameter \"%s\" (hpccctl param show lists them)\n",
				av[i]);
			return 2;
		}
		if (k == HPCC_A_PARAMS_W_INIT || k == HPCC_A_PARAMS_W_AI_EFF) {
			fprintf(stderr, "hpccctl: %s is read only\n",
				hpcc_params_names[k]);
			return 2;
		}
		errno = 0;
		type[n] = k;
		/* a parameter with an enum in the spec also takes its names */
		if (enum_lookup(hpcc_params_desc[k].enumeration, v, &val[n]))
			continue;
		val[n] = strtoull(v, &end, 0);
		if (errno || end == v || *end || v[0] == '-' ||
		    val[n] > (hpcc_params_desc[k].kind == HPCC_NL_U8 ?
			      UINT8_MAX : UINT32_MAX)) {
			fprintf(stderr, "hpccctl: %s: \"%s\" is not a valid value\n",
				hpcc_params_names[k], v);
			return 2;
		}
	}
	if (open_family())
		return 1;
	nlh = hpcc_genl_msg(&g, buf, HPCC_CMD_PARAMS_SET, 0);
	for (i = 0; i < n; i++)
		hpcc_genl_put_param(nlh, type[i], val[i]);
	err = hpcc_genl_talk(&g, nlh, NULL, NULL);
	return err ? fail("params-set", err) : 0;
}

/* stats: the namespace's counters */
int stats_cmd(int ac, char **av)
{
	if (ac)
		return usage(stderr);
	return open_family() ? 1 :
	       simple_get(HPCC_CMD_STATS_GET, "stats-get",
			  hpcc_stats_names, HPCC_A_STATS_MAX);
}

/* param show | param set NAME VALUE... */
int param_cmd(int ac, char **av)
{
	if (!ac || (!strcmp(av[0], "show") && ac == 1))
		return open_family() ? 1 :
		       simple_get(HPCC_CMD_PARAMS_GET, "params-get",
				  hpcc_params_names, HPCC_A_PARAMS_MAX);
	if (!strcmp(av[0], "set"))
		return param_set(ac - 1, av + 1);
	return usage(stderr);
}
