// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl - show and set the state of tcp_hpcc in the current network
 * namespace, over the "hpcc" generic netlink family
 * (Documentation/netlink/specs/hpcc.yaml) through daemon/lib/hpcc_genl.c.
 *
 * Options: -j/--json, -h/--help, -V/--version (before the command).
 *
 *   hpccctl [-j] flow show [src ADDR] [dst ADDR] [sport PORT] [dport PORT]
 *   hpccctl [-j] stats
 *   hpccctl [-j] param show
 *   hpccctl param set NAME VALUE [NAME VALUE]...
 *   hpccctl [-j] int show
 *   hpccctl int add dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]
 *   hpccctl int del dev DEV
 *   hpccctl int change dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]
 *   hpccctl int set [switch-id N] [probe-dscp N] [int-dscp N] [ifa-protocol N]
 *	[key-file FILE]
 *
 * The int commands talk to hpcc_int.ko's "hpcc-int" family
 * (Documentation/netlink/specs/hpcc-int.yaml).
 * -j prints JSON (json-c) under the spec's attribute names, in the text's units
 * (print.c: one call per field renders either; hpccctl.8 gives the units).
 * Exit status: 0 success, 1 the kernel refused or the module is not
 * loaded (the message and the kernel's extack on stderr), 2 usage.
 * The man page is daemon/hpccctl/hpccctl.8.
 *
 * main.c holds the options and the command table (one entry per command:
 * its name, its handler and its usage lines, as wireguard-tools' wg.c);
 * each command or group of commands has its own file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "hpccctl.h"

struct hpcc_genl g;
bool json;

/*
 * The commands: name, handler (given the words after the name) and usage
 * lines, each after "hpccctl ", in the order --help lists them.
 */
static const struct {
	const char *name;
	int (*handler)(int ac, char **av);
	const char *help;
} commands[] = {
	{ "flow", flow_cmd,
	  "[-j] flow show [src ADDR] [dst ADDR] [sport PORT] [dport PORT]\n" },
	{ "stats", stats_cmd,
	  "[-j] stats\n" },
	{ "param", param_cmd,
	  "[-j] param show\n"
	  "param set NAME VALUE [NAME VALUE]...\n" },
	{ "fcr", fcr_cmd,
	  "[-j] fcr show\n"
	  "fcr set [port PORT] [hold-max USEC] [rate-min RATE] [prefix ADDR/LEN]... [flush] [key-file FILE] [keys-flush] [key-overlap SEC]\n" },
	{ "int", int_cmd,
	  "[-j] int show\n"
	  "int add dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]\n"
	  "           [fcr-qlen-high BYTES] [fcr-qlen-low BYTES] [fcr-interval USEC] [fcr-eta PERMILLE]\n"
	  "           [fcr-sender-max N] [fcr-drain USEC]\n"
	  "           [ccm-qlen-high BYTES] [ccm-qlen-low BYTES] [ccm-interval USEC]\n"
	  "           [ccm-ar-gap USEC]\n"
	  "int del dev DEV\n"
	  "int change dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]\n"
	  "           [fcr-qlen-high BYTES] [fcr-qlen-low BYTES] [fcr-interval USEC] [fcr-eta PERMILLE]\n"
	  "           [fcr-sender-max N] [fcr-drain USEC]\n"
	  "           [ccm-qlen-high BYTES] [ccm-qlen-low BYTES] [ccm-interval USEC]\n"
	  "           [ccm-ar-gap USEC]\n"
	  "int set [switch-id N] [probe-dscp N] [int-dscp N] [ifa-protocol N]\n"
	  "           [fcr-port N] [fcr-dscp N]\n"
	  "           [fcr-msg-rate N] [fcr-msg-burst N] [fcr-dst-rate N] [fcr-dst-burst N]\n"
	  "           [key-file FILE] [fcr-dst ADDR/LEN]... [fcr-dst-flush]\n" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/*
 * usage() - the commands' usage lines (a line that starts with a blank
 * continues the one before), then the options, on @out
 * Return: the exit status: 0 for --help (stdout), 2 for a usage error.
 */
int usage(FILE *out)
{
	const char *p, *nl;
	unsigned int i;
	bool first = true;

	for (i = 0; i < N_COMMANDS; i++)
		for (p = commands[i].help; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			fprintf(out, "%s%s%.*s\n", first ? "usage: " : "       ",
				*p == ' ' ? "" : "hpccctl ",
				(int)(nl - p), p);
			first = false;
		}
	fprintf(out,
		"       hpccctl -h | -V\n"
		"  -j, --json     JSON output, with the YNL spec's attribute names\n"
		"  -h, --help     this text\n"
		"  -V, --version  the version\n");
	return out == stdout ? 0 : 2;
}

int main(int ac, char **av)
{
	static const struct option long_opts[] = {
		{ "json",    no_argument, NULL, 'j' },
		{ "help",    no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int i;
	int c;

	/* "+": options end at the first command word */
	while ((c = getopt_long(ac, av, "+jhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			return usage(stdout);
		case 'V':
			printf("hpccctl %s\n", HPCC_VERSION);
			return 0;
		default:
			return usage(stderr);
		}
	}
	ac -= optind;
	av += optind;
	if (ac < 1)
		return usage(stderr);
	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(av[0], commands[i].name))
			return commands[i].handler(ac - 1, av + 1);
	return usage(stderr);
}
