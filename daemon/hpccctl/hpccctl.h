/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpccctl.h - what hpccctl's command files share: the netlink handle,
 * the output mode, the helpers of util.c, and each command's entry
 * (main.c's command table).
 */
#ifndef _HPCCCTL_H
#define _HPCCCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/hpcc.h>

#include "hpcc_genl.h"
#include "hpccd/config.h"
#include "lib/hpcc_fcr.h"

/* main.c: the one netlink handle, -j, and the usage text */
extern struct hpcc_genl g;
extern bool json;
int usage(FILE *out);

/* util.c */
int fail(const char *what, int err);
int open_family(void);
void json_print(struct json_object *o);
bool enum_lookup(const struct hpcc_nl_enum *e, const char *v,
		 uint64_t *val);
const char *enum_name(const struct hpcc_nl_enum *e, uint64_t v);
int open_int_family(void);
int parse_rate(const char *s, uint64_t *rate);

/* fcr.c: what int set shares with fcr set */
void addr_plen_text(bool v4, bool v6, const uint32_t *a4,
		    const uint8_t *a6, unsigned int plen, char *s,
		    size_t len);
int prefix_put(struct nlmsghdr *nlh, const char *arg, const char *what,
	       int type, int a4, int a6, int plen);
int keys_put(struct nlmsghdr *nlh, const char *path,
	     const struct hpcc_nkey_attrs *t);

/* flow.c: dumps (flow show, int show) */
struct flow_filter;

/* The messages of a dump, growing as they come; @f filters flows, if set. */
struct attrs_list {
	struct hpcc_attrs *v;
	size_t n, cap;
	const struct flow_filter *f;
};

int dump_cb(const struct nlmsghdr *nlh, void *data);
/* flow_print() - one flow, its line or its JSON object (print.h) */
void flow_print(const struct hpcc_attrs *a);

/* int.c: the config-get reply both as plain values and typed (its keys) */
struct int_config {
	struct hpcc_attrs c;
	struct hpcc_int_config_attrs t;
};

/* int_print() - int show's output for a config and @n ports (print.h) */
void int_print(const struct int_config *ic, const struct hpcc_attrs *devs,
	       size_t n);

/* the commands: argc and argv after the command's name; the exit status */
int flow_cmd(int ac, char **av);
int stats_cmd(int ac, char **av);
int param_cmd(int ac, char **av);
int fcr_cmd(int ac, char **av);
int int_cmd(int ac, char **av);

#endif /* _HPCCCTL_H */
