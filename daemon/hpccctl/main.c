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
 *   hpccctl int set [switch-id N] [probe-dscp N] [ifa-protocol N] [key-file FILE]
 *
 * The int commands talk to hpcc_int.ko's "hpcc-int" family
 * (Documentation/netlink/specs/hpcc-int.yaml).
 * -j prints JSON (json-c) with the spec's attribute names and units.
 * Exit status: 0 success, 1 the kernel refused or the module is not
 * loaded (the message and the kernel's extack on stderr), 2 usage.
 * The man page is daemon/hpccctl/hpccctl.8.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/hpcc.h>

#include "hpcc_genl.h"
#include "hpccd_config.h"
#include "lib/hpcc_fcr.h"

static struct hpcc_genl g;
static bool json;

static int usage(FILE *out)
{
	fprintf(out,
		"usage: hpccctl [-j] flow show [src ADDR] [dst ADDR] [sport PORT] [dport PORT]\n"
		"       hpccctl [-j] stats\n"
		"       hpccctl [-j] param show\n"
		"       hpccctl param set NAME VALUE [NAME VALUE]...\n"
		"       hpccctl [-j] fcr show\n"
		"       hpccctl fcr set [port PORT] [hold-max USEC] [rate-min RATE] [prefix ADDR/LEN]... [flush] [key-file FILE] [keys-flush] [key-overlap SEC]\n"
		"       hpccctl [-j] int show\n"
		"       hpccctl int add dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]\n"
		"                  [fcr-qlen-high BYTES] [fcr-qlen-low BYTES] [fcr-interval USEC] [fcr-eta PERMILLE]\n"
		"                  [fcr-sender-max N] [fcr-drain USEC]\n"
		"                  [ccm-qlen-high BYTES] [ccm-qlen-low BYTES] [ccm-interval USEC]\n"
		"                  [ccm-ar-gap USEC]\n"
		"       hpccctl int del dev DEV\n"
		"       hpccctl int change dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]\n"
		"                  [fcr-qlen-high BYTES] [fcr-qlen-low BYTES] [fcr-interval USEC] [fcr-eta PERMILLE]\n"
		"                  [fcr-sender-max N] [fcr-drain USEC]\n"
		"                  [ccm-qlen-high BYTES] [ccm-qlen-low BYTES] [ccm-interval USEC]\n"
		"                  [ccm-ar-gap USEC]\n"
		"       hpccctl int set [switch-id N] [probe-dscp N] [ifa-protocol N] [fcr-port N] [fcr-dscp N]\n"
		"                  [fcr-msg-rate N] [fcr-msg-burst N] [fcr-dst-rate N] [fcr-dst-burst N]\n"
		"                  [key-file FILE] [fcr-dst ADDR/LEN]... [fcr-dst-flush]\n"
		"       hpccctl -h | -V\n"
		"  -j, --json     JSON output, with the YNL spec's attribute names\n"
		"  -h, --help     this text\n"
		"  -V, --version  the version\n");
	return out == stdout ? 0 : 2;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "hpccctl: %s: %s%s%s\n", what, strerror(-err),
		g.extack[0] ? ": " : "", g.extack);
	return 1;
}

static int open_family(void)
{
	int err = hpcc_genl_open(&g, 5000);

	if (err == -ENOENT) {
		fprintf(stderr,
			"hpccctl: the hpcc generic netlink family is not registered (modprobe tcp_hpcc)\n");
		return 1;
	}
	if (err)
		return fail("netlink", err);
	return 0;
}

static void json_print(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* key value lines or a JSON object of the attributes @names names */
static void print_set(const struct hpcc_attrs *a, const char *const *names,
		      int max)
{
	struct json_object *o = json ? json_object_new_object() : NULL;
	int i;

	for (i = 1; i <= max; i++) {
		if (!names[i] || !a->has[i])
			continue;
		if (o)
			json_object_object_add(o, names[i],
					       json_object_new_uint64(a->v[i]));
		else
			printf("%-22s %" PRIu64 "\n", names[i], a->v[i]);
	}
	if (o)
		json_print(o);
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

/*
 * enum_lookup() - @v is the name of an entry of @e (the spec's enum of a
 * parameter): true, and its value in @val; false for a number or no @e.
 */
static bool enum_lookup(const struct hpcc_nl_enum *e, const char *v,
			uint64_t *val)
{
	unsigned int i;

	for (i = 0; e && i < e->n; i++)
		if (e->names[i] && !strcmp(e->names[i], v)) {
			*val = i;
			return true;
		}
	return false;
}

/* enum_name() - the name of value @v of the spec's enum @e, "?" if none */
static const char *enum_name(const struct hpcc_nl_enum *e, uint64_t v)
{
	return v < e->n && e->names[v] ? e->names[v] : "?";
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

/* fcr show / fcr set */

static int parse_rate(const char *s, uint64_t *rate);

/* fcr_cb() - the typed fcr-get reply into the struct hpcc_fcr_attrs */
static int fcr_cb(const struct nlmsghdr *nlh, void *data)
{
	hpcc_fcr_parse(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
		       mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN, data);
	return MNL_CB_OK;
}

/*
 * addr_plen_text() - "a.b.c.d/n" or "x::/n" of a reported prefix: @a4
 * when @v4 (addr4 present), else @a6 when @v6, else "?"
 */
static void addr_plen_text(bool v4, bool v6, const uint32_t *a4,
			   const uint8_t *a6, unsigned int plen, char *s,
			   size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (v4)
		inet_ntop(AF_INET, a4, a, sizeof(a));
	else if (v6)
		inet_ntop(AF_INET6, a6, a, sizeof(a));
	snprintf(s, len, "%s/%u", a, plen);
}

/* prefix_text() - addr_plen_text() of a reported FCR prefix */
static void prefix_text(const struct hpcc_fcr_prefix_attrs *p, char *s,
			size_t len)
{
	addr_plen_text(p->present & (1ULL << HPCC_A_FCR_PREFIX_ADDR4),
		       p->present & (1ULL << HPCC_A_FCR_PREFIX_ADDR6),
		       &p->addr4, p->addr6, p->plen, s, len);
}

/* key_text() - the prefix of a reported key (addr_plen_text()) */
static void key_text(const struct hpcc_fcr_key_attrs *k, char *s, size_t len)
{
	addr_plen_text(k->present & (1ULL << HPCC_A_FCR_KEY_ADDR4),
		       k->present & (1ULL << HPCC_A_FCR_KEY_ADDR6),
		       &k->addr4, k->addr6, k->plen, s, len);
}

static int fcr_show(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], pfx[INET6_ADDRSTRLEN + 4];
	struct hpcc_fcr_attrs f;
	struct json_object *o, *l;
	unsigned int i;
	int err;

	if (open_family())
		return 1;
	err = hpcc_genl_talk(&g, hpcc_genl_msg(&g, buf, HPCC_CMD_FCR_GET, 0),
			     fcr_cb, &f);
	if (err)
		return fail("fcr-get", err);
	if (!json) {
		printf("fcr %s port %u hold-max %u rate-min %" PRIu64 "\nprefixes",
		       f.port && f.n_prefix ? "on" : "off", f.port, f.hold_max,
		       f.rate_min);
		for (i = 0; i < f.n_prefix; i++) {
			prefix_text(&f.prefix[i], pfx, sizeof(pfx));
			printf(" %s", pfx);
		}
		puts(f.n_prefix ? "" : " none");
		printf("keys");
		for (i = 0; i < f.n_key; i++) {
			key_text(&f.key[i], pfx, sizeof(pfx));
			printf(" %u %s%s%s", f.key[i].id, pfx,
			       f.key[i].present & (1ULL << HPCC_A_FCR_KEY_ACCEPT) ?
			       " accept" : "",
			       f.key[i].present & (1ULL << HPCC_A_FCR_KEY_RETIRED) ?
			       " retired" : "");
		}
		printf("%s key-overlap %u\n", f.n_key ? "" : " none",
		       f.key_overlap);
		return 0;
	}
	o = json_object_new_object();
	json_object_object_add(o, "port", json_object_new_uint64(f.port));
	json_object_object_add(o, "hold-max", json_object_new_uint64(f.hold_max));
	json_object_object_add(o, "rate-min", json_object_new_uint64(f.rate_min));
	l = json_object_new_array();
	for (i = 0; i < f.n_prefix; i++) {
		prefix_text(&f.prefix[i], pfx, sizeof(pfx));
		json_object_array_add(l, json_object_new_string(pfx));
	}
	json_object_object_add(o, "prefix", l);
	l = json_object_new_array();
	for (i = 0; i < f.n_key; i++) {
		struct json_object *k = json_object_new_object();

		key_text(&f.key[i], pfx, sizeof(pfx));
		json_object_object_add(k, "id", json_object_new_uint64(f.key[i].id));
		json_object_object_add(k, "prefix", json_object_new_string(pfx));
		json_object_object_add(k, "accept", json_object_new_boolean(
			!!(f.key[i].present & (1ULL << HPCC_A_FCR_KEY_ACCEPT))));
		json_object_object_add(k, "retired", json_object_new_boolean(
			!!(f.key[i].present & (1ULL << HPCC_A_FCR_KEY_RETIRED))));
		json_object_array_add(l, k);
	}
	json_object_object_add(o, "key", l);
	json_object_object_add(o, "key-overlap",
			       json_object_new_uint64(f.key_overlap));
	json_print(o);
	return 0;
}

/*
 * prefix_put() - ADDR/LEN into a nest @type of @nlh with attributes @a4 or
 * @a6 and @plen; usage errors (exit 2, naming @what) are found before
 * anything is sent (@nlh NULL: only check)
 */
static int prefix_put(struct nlmsghdr *nlh, const char *arg, const char *what,
		      int type, int a4, int a6, int plen)
{
	char a[INET6_ADDRSTRLEN];
	const char *slash = strchr(arg, '/');
	unsigned char b[16];
	struct nlattr *nest;
	unsigned long len;
	char *end;
	int v4;

	if (!slash || (size_t)(slash - arg) >= sizeof(a))
		goto bad;
	memcpy(a, arg, slash - arg);
	a[slash - arg] = 0;
	v4 = inet_pton(AF_INET, a, b) == 1;
	if (!v4 && inet_pton(AF_INET6, a, b) != 1)
		goto bad;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || len > (v4 ? 32U : 128U))
		goto bad;
	if (!nlh)
		return 0;
	nest = mnl_attr_nest_start(nlh, type);
	if (v4)
		mnl_attr_put(nlh, a4, 4, b);
	else
		mnl_attr_put(nlh, a6, 16, b);
	mnl_attr_put_u8(nlh, plen, len);
	mnl_attr_nest_end(nlh, nest);
	return 0;
bad:
	fprintf(stderr, "hpccctl: %s: \"%s\" is not ADDR/LEN\n", what, arg);
	return 2;
}

/* fcr_prefix() - prefix_put() of fcr-set's managed prefix */
static int fcr_prefix(struct nlmsghdr *nlh, const char *arg)
{
	return prefix_put(nlh, arg, "prefix", HPCC_A_FCR_PREFIX,
			  HPCC_A_FCR_PREFIX_ADDR4, HPCC_A_FCR_PREFIX_ADDR6,
			  HPCC_A_FCR_PREFIX_PLEN);
}

/*
 * keys_put() - the notify-key lines of key file @path (hpccd's key file
 * format, daemon/hpccd/hpccd_config.h: mode 600, owned by the caller) into key
 * nests of @nlh (@nlh NULL: only read it); none gives the flush flag.
 * The key bytes are wiped from memory once put.
 */
static int keys_put(struct nlmsghdr *nlh, const char *path,
		    const struct hpcc_nkey_attrs *t)
{
	static struct hpccd_cfg c;

	memset(&c, 0, sizeof(c));
	if (snprintf(c.key_file, sizeof(c.key_file), "%s", path) >=
	    (int)sizeof(c.key_file) || hpccd_cfg_read_keys(&c)) {
		fprintf(stderr, "hpccctl: key-file %s: not used\n", path);
		return 2;
	}
	if (nlh)
		hpcc_genl_nkeys_put(nlh, c.nkeys, c.n_nkeys, t);
	explicit_bzero(&c, sizeof(c));
	return 0;
}

/* fcr_args() - check the arguments (@nlh NULL) or put them into @nlh */
static int fcr_args(int ac, char **av, struct nlmsghdr *nlh)
{
	uint64_t v;
	char *end;
	int i;

	for (i = 0; i < ac; i++) {
		const char *k = av[i];

		if (!strcmp(k, "flush")) {
			if (nlh)
				mnl_attr_put(nlh, HPCC_A_FCR_PREFIXES_FLUSH, 0, NULL);
			continue;
		}
		if (!strcmp(k, "keys-flush")) {
			if (nlh)
				mnl_attr_put(nlh, HPCC_A_FCR_KEYS_FLUSH, 0, NULL);
			continue;
		}
		if (i + 1 >= ac)
			goto bad;
		i++;
		if (!strcmp(k, "key-file")) {
			if (keys_put(nlh, av[i], &hpcc_fcr_nkey_attrs))
				return 2;
			continue;
		}
		if (!strcmp(k, "prefix")) {
			if (fcr_prefix(nlh, av[i]))
				return 2;
			continue;
		}
		if (!strcmp(k, "rate-min")) {
			if (parse_rate(av[i], &v))
				goto bad;
			if (nlh)
				mnl_attr_put_u64(nlh, HPCC_A_FCR_RATE_MIN, v);
			continue;
		}
		errno = 0;
		v = strtoull(av[i], &end, 0);
		if (errno || end == av[i] || *end || av[i][0] == '-')
			goto bad;
		if (!strcmp(k, "port") && v <= UINT16_MAX) {
			if (nlh)
				mnl_attr_put_u16(nlh, HPCC_A_FCR_PORT, v);
		} else if (!strcmp(k, "hold-max") && v <= UINT32_MAX) {
			if (nlh)
				mnl_attr_put_u32(nlh, HPCC_A_FCR_HOLD_MAX, v);
		} else if (!strcmp(k, "key-overlap") && v <= UINT32_MAX) {
			if (nlh)
				mnl_attr_put_u32(nlh, HPCC_A_FCR_KEY_OVERLAP, v);
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "hpccctl: fcr set: bad argument \"%s\"\n", av[i < ac ? i : ac - 1]);
	return 2;
}

static int fcr_set(int ac, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int err;

	if (!ac) {
		fprintf(stderr, "hpccctl: fcr set needs something to set\n");
		return 2;
	}
	err = fcr_args(ac, av, NULL);
	if (err)
		return err;
	if (open_family())
		return 1;
	nlh = hpcc_genl_msg(&g, buf, HPCC_CMD_FCR_SET, 0);
	fcr_args(ac, av, nlh);
	err = hpcc_genl_talk(&g, nlh, NULL, NULL);
	return err ? fail("fcr-set", err) : 0;
}

/* flow show */

/*
 * A flow show filter: src and dst are 0 (any), AF_INET or AF_INET6, with
 * the address in saddr/daddr (network order, 4 or 16 bytes).
 */
struct flow_filter {
	int src, dst;
	bool sport, dport;
	uint8_t saddr[16], daddr[16];
	uint16_t sp, dp;	/* host order */
};

/* The messages of a dump, growing as they come; @f filters flows, if set. */
struct attrs_list {
	struct hpcc_attrs *v;
	size_t n, cap;
	const struct flow_filter *f;
};

/* attrs_push() - room for one more at the end; NULL (errno set) if none */
static struct hpcc_attrs *attrs_push(struct attrs_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct hpcc_attrs *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			errno = ENOMEM;
			return NULL;
		}
		l->v = v;
		l->cap = cap;
	}
	return &l->v[l->n++];
}

/*
 * flow_addr() - a flow's local (@local) or remote address, as the
 * family's bytes (network order) in @out; returns the family, 0 when the
 * message has no family or no address of it
 */
static int flow_addr(const struct hpcc_attrs *a, bool local, uint8_t *out)
{
	int s4 = local ? HPCC_A_FLOW_SADDR4 : HPCC_A_FLOW_DADDR4;
	int s6 = local ? HPCC_A_FLOW_SADDR6 : HPCC_A_FLOW_DADDR6;
	uint32_t ip;

	if (a->v[HPCC_A_FLOW_FAMILY] == AF_INET && a->has[s4]) {
		ip = a->v[s4];
		memcpy(out, &ip, 4);
		return AF_INET;
	}
	if (a->v[HPCC_A_FLOW_FAMILY] == AF_INET6 && a->has[s6]) {
		memcpy(out, local ? a->saddr6 : a->daddr6, 16);
		return AF_INET6;
	}
	return 0;
}

/* addr_matches() - @fam/@want (a filter's) against the flow's address */
static bool addr_matches(const struct hpcc_attrs *a, bool local, int fam,
			 const uint8_t *want)
{
	uint8_t have[16];
	int f = flow_addr(a, local, have);

	return !fam || (f == fam &&
			!memcmp(have, want, fam == AF_INET ? 4 : 16));
}

static bool flow_matches(const struct hpcc_attrs *a,
			 const struct flow_filter *f)
{
	uint8_t x[16];

	if (!flow_addr(a, true, x) || !flow_addr(a, false, x))
		return false;
	return addr_matches(a, true, f->src, f->saddr) &&
	       addr_matches(a, false, f->dst, f->daddr) &&
	       (!f->sport || ntohs(a->v[HPCC_A_FLOW_SPORT]) == f->sp) &&
	       (!f->dport || ntohs(a->v[HPCC_A_FLOW_DPORT]) == f->dp);
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs_list *l = data;
	struct hpcc_attrs a, *slot;

	if (hpcc_genl_attrs_cb(nlh, &a) != MNL_CB_OK)
		return MNL_CB_ERROR;
	if (l->f && !flow_matches(&a, l->f))
		return MNL_CB_OK;
	slot = attrs_push(l);
	if (!slot)
		return MNL_CB_ERROR;
	*slot = a;
	return MNL_CB_OK;
}

/* addr_text() - the flow's local or remote address as text ("?" if none) */
static void addr_text(const struct hpcc_attrs *a, bool local, char *s,
		      size_t len)
{
	uint8_t ip[16];
	int fam = flow_addr(a, local, ip);

	if (!fam || !inet_ntop(fam, ip, s, len))
		snprintf(s, len, "?");
}

/* addr_port() - "a.b.c.d:port" or "[v6]:port", as ss(8) prints them */
static void addr_port(const struct hpcc_attrs *a, bool local, char *out,
		      size_t len)
{
	char s[INET6_ADDRSTRLEN];
	int port = local ? HPCC_A_FLOW_SPORT : HPCC_A_FLOW_DPORT;

	addr_text(a, local, s, sizeof(s));
	snprintf(out, len, a->v[HPCC_A_FLOW_FAMILY] == AF_INET6 ?
		 "[%s]:%u" : "%s:%u", s, ntohs(a->v[port]));
}

static struct json_object *flow_json(const struct hpcc_attrs *a)
{
	struct json_object *o = json_object_new_object(), *hops;
	char s[INET6_ADDRSTRLEN];
	int i;

	/*
	 * family; saddr and daddr (either family) as text; the spec's address
	 * attributes too, as text (their display hints, as the kernel's YNL
	 * CLI prints them); the ports in host order; everything else by its
	 * spec name as a number
	 */
	json_object_object_add(o, "family",
			       json_object_new_int(a->v[HPCC_A_FLOW_FAMILY]));
	addr_text(a, true, s, sizeof(s));
	json_object_object_add(o, "saddr", json_object_new_string(s));
	if (a->has[HPCC_A_FLOW_SADDR4] || a->has[HPCC_A_FLOW_SADDR6])
		json_object_object_add(o, a->has[HPCC_A_FLOW_SADDR6] ?
				       "saddr6" : "saddr4",
				       json_object_new_string(s));
	json_object_object_add(o, "sport",
			       json_object_new_int(ntohs(a->v[HPCC_A_FLOW_SPORT])));
	addr_text(a, false, s, sizeof(s));
	json_object_object_add(o, "daddr", json_object_new_string(s));
	if (a->has[HPCC_A_FLOW_DADDR4] || a->has[HPCC_A_FLOW_DADDR6])
		json_object_object_add(o, a->has[HPCC_A_FLOW_DADDR6] ?
				       "daddr6" : "daddr4",
				       json_object_new_string(s));
	json_object_object_add(o, "dport",
			       json_object_new_int(ntohs(a->v[HPCC_A_FLOW_DPORT])));
	for (i = 1; i <= HPCC_A_FLOW_MAX; i++) {
		if (i == HPCC_A_FLOW_SADDR4 || i == HPCC_A_FLOW_DADDR4 ||
		    i == HPCC_A_FLOW_SADDR6 || i == HPCC_A_FLOW_DADDR6 ||
		    i == HPCC_A_FLOW_SPORT || i == HPCC_A_FLOW_DPORT)
			continue;
		if (hpcc_flow_names[i] && a->has[i])
			json_object_object_add(o, hpcc_flow_names[i],
					       hpcc_flow_desc[i].kind == HPCC_NL_FLAG ?
					       json_object_new_boolean(1) :
					       json_object_new_uint64(a->v[i]));
	}
	json_object_object_add(o, "mode-name",
			       json_object_new_string(enum_name(&hpcc_enum_mode,
								a->v[HPCC_A_FLOW_MODE])));
	hops = json_object_new_array();
	for (i = 0; i < a->nhop; i++) {
		const struct hpcc_hop_rec *h = &a->hops[i];
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "switch-id",
				       json_object_new_uint64(h->switch_id));
		json_object_object_add(r, "port-id",
				       json_object_new_uint64(h->port_id));
		json_object_object_add(r, "rate", json_object_new_uint64(h->rate));
		json_object_object_add(r, "ts", json_object_new_uint64(h->ts));
		json_object_object_add(r, "tx-bytes",
				       json_object_new_uint64(h->tx_bytes));
		json_object_object_add(r, "qlen", json_object_new_uint64(h->qlen));
		if (h->flags)
			json_object_object_add(r, "flags",
					       json_object_new_uint64(h->flags));
		if (h->flags & HPCC_HOP_FLAGS_TX_UTIL)
			json_object_object_add(r, "tx-util",
					       json_object_new_uint64(h->tx_util));
		json_object_array_add(hops, r);
	}
	json_object_object_add(o, "hops", hops);
	return o;
}

/* One line per flow, in the manner of ss(8). */
static void flow_line(const struct hpcc_attrs *a)
{
	char l[INET6_ADDRSTRLEN + 8], p[INET6_ADDRSTRLEN + 8], age[16];

	addr_port(a, true, l, sizeof(l));
	addr_port(a, false, p, sizeof(p));
	if (a->has[HPCC_A_FLOW_TELEMETRY_AGE])
		snprintf(age, sizeof(age), "%.1f",
			 a->v[HPCC_A_FLOW_TELEMETRY_AGE] / 1000.0);
	else
		snprintf(age, sizeof(age), "-");
	printf("%-21s %-21s %-8s %6" PRIu64 " %10" PRIu64 " %10" PRIu64
	       " %6.3f %5" PRIu64 " %8" PRIu64 " %9.1f %8s %8" PRIu64
	       " %5" PRIu64 " %4d\n",
	       l, p, enum_name(&hpcc_enum_mode, a->v[HPCC_A_FLOW_MODE]), a->v[HPCC_A_FLOW_CWND],
	       a->v[HPCC_A_FLOW_W], a->v[HPCC_A_FLOW_WC],
	       a->v[HPCC_A_FLOW_U] / 4294967296.0,
	       a->v[HPCC_A_FLOW_INC_STAGE], a->v[HPCC_A_FLOW_SRTT],
	       a->v[HPCC_A_FLOW_PACING_RATE] * 8 / 1e6, age,
	       a->v[HPCC_A_FLOW_SAMPLES], a->v[HPCC_A_FLOW_FALLBACKS], a->nhop);
}

static int parse_filter(int ac, char **av, struct flow_filter *f)
{
	int i;

	for (i = 0; i < ac; i += 2) {
		char *end;
		unsigned long v;

		if (i + 1 >= ac)
			goto bad;
		if (!strcmp(av[i], "src") || !strcmp(av[i], "dst")) {
			uint8_t *ip = av[i][0] == 's' ? f->saddr : f->daddr;
			int fam = strchr(av[i + 1], ':') ? AF_INET6 : AF_INET;
			uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0xff, 0xff };

			if (inet_pton(fam, av[i + 1], ip) != 1)
				goto bad;
			/* an IPv4-mapped address names an IPv4 flow */
			if (fam == AF_INET6 && !memcmp(ip, v4, 12)) {
				memmove(ip, ip + 12, 4);
				fam = AF_INET;
			}
			*(av[i][0] == 's' ? &f->src : &f->dst) = fam;
		} else if (!strcmp(av[i], "sport") || !strcmp(av[i], "dport")) {
			errno = 0;
			v = strtoul(av[i + 1], &end, 10);
			if (errno || *end || end == av[i + 1] || v > 65535)
				goto bad;
			if (av[i][0] == 's') {
				f->sport = true;
				f->sp = v;
			} else {
				f->dport = true;
				f->dp = v;
			}
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "hpccctl: flow show: bad filter near \"%s\"\n", av[i]);
	return 2;
}

static int flow_show(int ac, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct flow_filter f = { 0 };
	struct attrs_list l = { .f = &f };
	struct json_object *arr;
	size_t i;
	int err, tries = 3;

	err = parse_filter(ac, av, &f);
	if (err)
		return err;
	if (open_family())
		return 1;
	/* a table that changed under the dump (EINTR) may have been listed
	 * with a flow missing or twice: dump again, and after the last try
	 * show it with a warning
	 */
	do {
		free(l.v);
		l.v = NULL;
		l.n = 0;
		l.cap = 0;
		err = hpcc_genl_talk(&g, hpcc_genl_msg(&g, buf,
						       HPCC_CMD_FLOW_GET,
						       NLM_F_DUMP), dump_cb, &l);
	} while (err == -EINTR && --tries);
	if (err == -EINTR) {
		fprintf(stderr, "hpccctl: the flow table changed during the dump: a flow may be missing or shown twice\n");
	} else if (err) {
		free(l.v);
		return fail("flow-get", err);
	}
	if (json) {
		arr = json_object_new_array();
		for (i = 0; i < l.n; i++)
			json_object_array_add(arr, flow_json(&l.v[i]));
		json_print(arr);
	} else {
		printf("%-21s %-21s %-8s %6s %10s %10s %6s %5s %8s %9s %8s %8s %5s %4s\n",
		       "Local Address:Port", "Peer Address:Port", "Mode",
		       "Cwnd", "W", "Wc", "U", "Stage", "SRTT(us)",
		       "Pace(Mb)", "Age(ms)", "Samples", "Fallb", "Hops");
		for (i = 0; i < l.n; i++)
			flow_line(&l.v[i]);
	}
	free(l.v);
	return 0;
}

/* int: the software INT hop (hpcc_int.ko) */

static int open_int_family(void)
{
	int err = hpcc_genl_open(&g, 5000);

	if (err && err != -ENOENT)
		return fail("netlink", err);
	err = hpcc_genl_use_family(&g, HPCC_INT_FAMILY_NAME);
	if (err == -ENOENT) {
		fprintf(stderr,
			"hpccctl: the hpcc-int generic netlink family is not registered (modprobe hpcc_int)\n");
		return 1;
	}
	return err ? fail("netlink", err) : 0;
}

/*
 * parse_rate() - RATE as tc(8) writes it: a number with an optional unit
 * bit, kbit, mbit, gbit or tbit (decimal multiples), bits per second.
 * Return: 0, or -1 when @s is not a rate in 1..2^64-1.
 */
static int parse_rate(const char *s, uint64_t *rate)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 },
		{ "gbit", 1e9 }, { "tbit", 1e12 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || s[0] == '-' || !(v > 0))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		v *= units[i].mul;
		if (v < 1 || v >= 18446744073709551616.0)
			return -1;
		*rate = (uint64_t)v;
		return 0;
	}
	return -1;
}

/* The config-get reply both as plain values and typed (its keys). */
struct int_config {
	struct hpcc_attrs c;
	struct hpcc_int_config_attrs t;
};

static int int_config_cb(const struct nlmsghdr *nlh, void *data)
{
	struct int_config *ic = data;

	hpcc_int_config_parse(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
			      mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN,
			      &ic->t);
	return hpcc_genl_attrs_cb(nlh, &ic->c);
}

/* dst_text() - "PREFIX" of a reported fcr-dst prefix */
static void dst_text(const struct hpcc_int_dst_prefix_attrs *d, char *s,
		     size_t len)
{
	addr_plen_text(d->present & (1ULL << HPCC_INT_A_DST_PREFIX_ADDR4),
		       d->present & (1ULL << HPCC_INT_A_DST_PREFIX_ADDR6),
		       &d->addr4, d->addr6, d->plen, s, len);
}

/* sign_key_text() - "ID PREFIX" of a reported signing key */
static void sign_key_text(const struct hpcc_int_sign_key_attrs *k, char *s,
			  size_t len)
{
	char p[INET6_ADDRSTRLEN + 4];

	addr_plen_text(k->present & (1ULL << HPCC_INT_A_SIGN_KEY_ADDR4),
		       k->present & (1ULL << HPCC_INT_A_SIGN_KEY_ADDR6),
		       &k->addr4, k->addr6, k->plen, p, sizeof(p));
	snprintf(s, len, "%u %s", k->id, p);
}

static int int_show(void)
{
	static struct int_config ic;
	char kt[INET6_ADDRSTRLEN + 16];
	char buf[MNL_SOCKET_BUFFER_SIZE], name[IF_NAMESIZE];
	struct json_object *o = NULL, *devs = NULL;
	struct attrs_list l = { 0 };
	size_t i;
	int err, k;

	if (open_int_family())
		return 1;
	memset(&ic, 0, sizeof(ic));
	err = hpcc_genl_talk(&g, hpcc_genl_msg(&g, buf, HPCC_INT_CMD_CONFIG_GET, 0),
			     int_config_cb, &ic);
	if (err)
		return fail("config-get", err);
	err = hpcc_genl_talk(&g, hpcc_genl_msg(&g, buf, HPCC_INT_CMD_DEV_GET,
					       NLM_F_DUMP), dump_cb, &l);
	if (err) {
		free(l.v);
		return fail("dev-get", err);
	}
	if (json) {
		o = json_object_new_object();
		for (k = 1; k <= HPCC_INT_A_CONFIG_MAX; k++) {
			struct json_object *ka;

			if (k == HPCC_INT_A_CONFIG_KEYS_FLUSH ||
			    k == HPCC_INT_A_CONFIG_FCR_DST_FLUSH)
				continue;
			if (k == HPCC_INT_A_CONFIG_FCR_DST) {
				ka = json_object_new_array();
				for (i = 0; i < ic.t.n_fcr_dst; i++) {
					dst_text(&ic.t.fcr_dst[i], kt, sizeof(kt));
					json_object_array_add(ka, json_object_new_string(kt));
				}
				json_object_object_add(o, "fcr-dst", ka);
				continue;
			}
			if (k != HPCC_INT_A_CONFIG_KEY) {
				json_object_object_add(o, hpcc_int_config_names[k],
						       json_object_new_uint64(ic.c.v[k]));
				continue;
			}
			ka = json_object_new_array();
			for (i = 0; i < ic.t.n_key; i++) {
				sign_key_text(&ic.t.key[i], kt, sizeof(kt));
				json_object_array_add(ka, json_object_new_string(kt));
			}
			json_object_object_add(o, "key", ka);
		}
		devs = json_object_new_array();
	} else {
		printf("switch-id %" PRIu64 " probe-dscp %" PRIu64
		       " ifa-protocol %" PRIu64 " fcr-port %" PRIu64
		       " fcr-dscp %" PRIu64 "\n",
		       ic.c.v[HPCC_INT_A_CONFIG_SWITCH_ID],
		       ic.c.v[HPCC_INT_A_CONFIG_PROBE_DSCP],
		       ic.c.v[HPCC_INT_A_CONFIG_IFA_PROTOCOL],
		       ic.c.v[HPCC_INT_A_CONFIG_FCR_PORT],
		       ic.c.v[HPCC_INT_A_CONFIG_FCR_DSCP]);
		printf("keys");
		for (i = 0; i < ic.t.n_key; i++) {
			sign_key_text(&ic.t.key[i], kt, sizeof(kt));
			printf(" %s", kt);
		}
		puts(ic.t.n_key ? "" : " none");
		printf("fcr-msg-rate %" PRIu64 " fcr-msg-burst %" PRIu64
		       " fcr-dst-rate %" PRIu64 " fcr-dst-burst %" PRIu64
		       "\nfcr-dst",
		       ic.c.v[HPCC_INT_A_CONFIG_FCR_MSG_RATE],
		       ic.c.v[HPCC_INT_A_CONFIG_FCR_MSG_BURST],
		       ic.c.v[HPCC_INT_A_CONFIG_FCR_DST_RATE],
		       ic.c.v[HPCC_INT_A_CONFIG_FCR_DST_BURST]);
		for (i = 0; i < ic.t.n_fcr_dst; i++) {
			dst_text(&ic.t.fcr_dst[i], kt, sizeof(kt));
			printf(" %s", kt);
		}
		puts(ic.t.n_fcr_dst ? "" : " any");
		printf("%-16s %7s %14s %-8s %-8s %12s %10s %10s %10s %10s\n",
		       "dev", "ifindex", "rate(bit/s)", "encoding", "tx-model",
		       "stamped", "full", "malformed", "unwritable",
		       "other-enc");
	}
	for (i = 0; i < l.n; i++) {
		const struct hpcc_attrs *a = &l.v[i];

		if (!if_indextoname(a->v[HPCC_INT_A_DEV_IFINDEX], name))
			snprintf(name, sizeof(name), "?");
		if (json) {
			struct json_object *d = json_object_new_object();

			json_object_object_add(d, "dev", json_object_new_string(name));
			/* an attribute with a spec enum by its name */
			for (k = 1; k <= HPCC_INT_A_DEV_MAX; k++) {
				const struct hpcc_nl_enum *e =
					hpcc_int_dev_desc[k].enumeration;

				if (!hpcc_int_dev_names[k] || !a->has[k])
					continue;
				json_object_object_add(d, hpcc_int_dev_names[k], e ?
						       json_object_new_string(enum_name(e, a->v[k])) :
						       json_object_new_uint64(a->v[k]));
			}
			json_object_array_add(devs, d);
			continue;
		}
		printf("%-16s %7" PRIu64 " %14" PRIu64 " %-8s %-8s %12" PRIu64
		       " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       "\n", name,
		       a->v[HPCC_INT_A_DEV_IFINDEX], a->v[HPCC_INT_A_DEV_RATE],
		       enum_name(&hpcc_int_enum_encoding,
				 a->v[HPCC_INT_A_DEV_ENCODING]),
		       enum_name(&hpcc_int_enum_tx_model,
				 a->v[HPCC_INT_A_DEV_TX_MODEL]),
		       a->v[HPCC_INT_A_DEV_STAMPED], a->v[HPCC_INT_A_DEV_FULL],
		       a->v[HPCC_INT_A_DEV_MALFORMED],
		       a->v[HPCC_INT_A_DEV_UNWRITABLE],
		       a->v[HPCC_INT_A_DEV_OTHER_ENCODING]);
		if (!a->v[HPCC_INT_A_DEV_FCR_QLEN_HIGH])
			continue;
		printf("  fcr qlen-high %" PRIu64 " qlen-low %" PRIu64
		       " interval %" PRIu64 " eta %" PRIu64 " congested %" PRIu64
		       " rate %" PRIu64 " active %" PRIu64 "\n"
		       "      sent %" PRIu64 " dropped %" PRIu64 " rounds %" PRIu64
		       " ce-marked %" PRIu64 " not-ect %" PRIu64
		       " table-full %" PRIu64 " early-rounds %" PRIu64 "\n"
		       "      sender-max %" PRIu64 " sender-limited %" PRIu64
		       " drain %" PRIu64 "\n",
		       a->v[HPCC_INT_A_DEV_FCR_QLEN_HIGH],
		       a->v[HPCC_INT_A_DEV_FCR_QLEN_LOW],
		       a->v[HPCC_INT_A_DEV_FCR_INTERVAL],
		       a->v[HPCC_INT_A_DEV_FCR_ETA],
		       a->v[HPCC_INT_A_DEV_FCR_CONGESTED],
		       a->v[HPCC_INT_A_DEV_FCR_RATE],
		       a->v[HPCC_INT_A_DEV_FCR_ACTIVE],
		       a->v[HPCC_INT_A_DEV_FCR_SENT],
		       a->v[HPCC_INT_A_DEV_FCR_DROPPED],
		       a->v[HPCC_INT_A_DEV_FCR_ROUNDS],
		       a->v[HPCC_INT_A_DEV_CE_MARKED],
		       a->v[HPCC_INT_A_DEV_NOT_ECT],
		       a->v[HPCC_INT_A_DEV_FCR_TABLE_FULL],
		       a->v[HPCC_INT_A_DEV_FCR_EARLY_ROUNDS],
		       a->v[HPCC_INT_A_DEV_FCR_SENDER_MAX],
		       a->v[HPCC_INT_A_DEV_FCR_SENDER_LIMITED],
		       a->v[HPCC_INT_A_DEV_FCR_DRAIN]);
	}
	for (i = 0; !json && i < l.n; i++) {
		const struct hpcc_attrs *a = &l.v[i];

		/* what the namespace's bounds refused of the port's messages */
		if (!a->v[HPCC_INT_A_DEV_FCR_QLEN_HIGH] &&
		    !a->v[HPCC_INT_A_DEV_CCM_QLEN_HIGH] &&
		    !a->v[HPCC_INT_A_DEV_FCR_MSG_LIMITED] &&
		    !a->v[HPCC_INT_A_DEV_FCR_DST_LIMITED] &&
		    !a->v[HPCC_INT_A_DEV_FCR_DST_REFUSED])
			continue;
		if (!if_indextoname(a->v[HPCC_INT_A_DEV_IFINDEX], name))
			snprintf(name, sizeof(name), "?");
		printf("%-16s msg-limited %" PRIu64 " dst-limited %" PRIu64
		       " dst-refused %" PRIu64 "\n", name,
		       a->v[HPCC_INT_A_DEV_FCR_MSG_LIMITED],
		       a->v[HPCC_INT_A_DEV_FCR_DST_LIMITED],
		       a->v[HPCC_INT_A_DEV_FCR_DST_REFUSED]);
	}
	for (i = 0; !json && i < l.n; i++) {
		const struct hpcc_attrs *a = &l.v[i];

		/* CCM on, or a port that marks AR indicators */
		if (!a->v[HPCC_INT_A_DEV_CCM_QLEN_HIGH] &&
		    !a->v[HPCC_INT_A_DEV_CCM_AR_MARKED])
			continue;
		if (!if_indextoname(a->v[HPCC_INT_A_DEV_IFINDEX], name))
			snprintf(name, sizeof(name), "?");
		printf("%-16s ccm qlen-high %" PRIu64 " qlen-low %" PRIu64
		       " interval %" PRIu64 " ar-gap %" PRIu64
		       " congested %" PRIu64 "\n"
		       "      cc-sent %" PRIu64 " released-sent %" PRIu64
		       " ar-sent %" PRIu64 " dropped %" PRIu64 " no-ar %" PRIu64
		       " cc-kept %" PRIu64 " ar-marked %" PRIu64
		       " ar-limited %" PRIu64 "\n",
		       name, a->v[HPCC_INT_A_DEV_CCM_QLEN_HIGH],
		       a->v[HPCC_INT_A_DEV_CCM_QLEN_LOW],
		       a->v[HPCC_INT_A_DEV_CCM_INTERVAL],
		       a->v[HPCC_INT_A_DEV_CCM_AR_GAP],
		       a->v[HPCC_INT_A_DEV_CCM_CONGESTED],
		       a->v[HPCC_INT_A_DEV_CCM_CC_SENT],
		       a->v[HPCC_INT_A_DEV_CCM_RELEASED_SENT],
		       a->v[HPCC_INT_A_DEV_CCM_AR_SENT],
		       a->v[HPCC_INT_A_DEV_CCM_DROPPED],
		       a->v[HPCC_INT_A_DEV_CCM_NO_AR],
		       a->v[HPCC_INT_A_DEV_CCM_CC_KEPT],
		       a->v[HPCC_INT_A_DEV_CCM_AR_MARKED],
		       a->v[HPCC_INT_A_DEV_CCM_AR_LIMITED]);
	}
	if (json) {
		json_object_object_add(o, "dev", devs);
		json_print(o);
	}
	free(l.v);
	return 0;
}

/*
 * int_enum_arg() - @val as a name of the spec's enum @e into @out; else
 * print "hpccctl: KEY: "VAL" is not A, B or C" and return -1.
 */
static int int_enum_arg(const char *key, const struct hpcc_nl_enum *e,
			const char *val, uint64_t *out)
{
	size_t i;

	if (enum_lookup(e, val, out))
		return 0;
	fprintf(stderr, "hpccctl: %s: \"%s\" is not ", key, val);
	for (i = 0; i < e->n; i++)
		fprintf(stderr, "%s%s", i ? (i + 1 == e->n ? " or " : ", ") : "",
			e->names[i]);
	fputc('\n', stderr);
	return -1;
}

#define FCR_USE "[fcr-qlen-high BYTES] [fcr-qlen-low BYTES] [fcr-interval USEC] [fcr-eta PERMILLE]\n" \
	"       [fcr-sender-max N] [fcr-drain USEC]\n" \
	"       [ccm-qlen-high BYTES] [ccm-qlen-low BYTES] [ccm-interval USEC]\n" \
	"       [ccm-ar-gap USEC]"

/*
 * int add dev DEV [rate RATE] [encoding E] [tx-model M] [fcr-...], int del dev DEV
 * and int change dev DEV [rate RATE] [encoding E] [tx-model M] (dev-set: in
 * place, no unstamped gap);
 * usage errors exit 2.
 */
static int int_dev(uint8_t cmd, int ac, char **av)
{
	static const char *const use[] = {
		[HPCC_INT_CMD_DEV_ADD] = "add dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]"
			"%s",
		[HPCC_INT_CMD_DEV_DEL] = "del dev DEV%s",
		[HPCC_INT_CMD_DEV_SET] = "change dev DEV [rate RATE] [encoding own|int-md|ifa] [tx-model qdisc|wire]"
			"%s",
	};
	static const char *const op[] = {
		[HPCC_INT_CMD_DEV_ADD] = "dev-add",
		[HPCC_INT_CMD_DEV_DEL] = "dev-del",
		[HPCC_INT_CMD_DEV_SET] = "dev-set",
	};
	bool takes_rate = cmd != HPCC_INT_CMD_DEV_DEL;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	const char *dev = NULL;
	uint64_t rate = 0;
	uint64_t enc = 0, txm = 0;
	unsigned int ifindex;
	bool has_enc = false, has_txm = false;
	/* fcr-qlen-high, fcr-qlen-low, fcr-interval, fcr-eta,
	 * fcr-sender-max, fcr-drain, ccm-qlen-high, ccm-qlen-low,
	 * ccm-interval, ccm-ar-gap (u32 each): given, value
	 */
	static const int fcr_attr[] = {
		HPCC_INT_A_DEV_FCR_QLEN_HIGH, HPCC_INT_A_DEV_FCR_QLEN_LOW,
		HPCC_INT_A_DEV_FCR_INTERVAL, HPCC_INT_A_DEV_FCR_ETA,
		HPCC_INT_A_DEV_FCR_SENDER_MAX, HPCC_INT_A_DEV_FCR_DRAIN,
		HPCC_INT_A_DEV_CCM_QLEN_HIGH, HPCC_INT_A_DEV_CCM_QLEN_LOW,
		HPCC_INT_A_DEV_CCM_INTERVAL, HPCC_INT_A_DEV_CCM_AR_GAP,
	};
	enum { NFCR = sizeof(fcr_attr) / sizeof(fcr_attr[0]) };
	bool has_fcr[NFCR] = { false }, any_fcr = false;
	uint64_t fcr[NFCR];
	int i, k, err;

	for (i = 0; i + 1 < ac; i += 2) {
		k = takes_rate ? hpcc_name_lookup(hpcc_int_dev_names,
						  HPCC_INT_A_DEV_MAX, av[i]) : 0;
		for (err = 0; err < NFCR && fcr_attr[err] != k; err++)
			;
		if (err < NFCR && !has_fcr[err]) {
			char *end;

			errno = 0;
			fcr[err] = strtoull(av[i + 1], &end, 0);
			if (errno || end == av[i + 1] || *end ||
			    av[i + 1][0] == '-' || fcr[err] > UINT32_MAX) {
				fprintf(stderr, "hpccctl: %s: \"%s\" is not a valid value\n",
					av[i], av[i + 1]);
				return 2;
			}
			has_fcr[err] = true;
			any_fcr = true;
		} else if (!strcmp(av[i], "dev") && !dev) {
			dev = av[i + 1];
		} else if (takes_rate && !strcmp(av[i], "rate") && !rate) {
			if (parse_rate(av[i + 1], &rate)) {
				fprintf(stderr, "hpccctl: rate: \"%s\" is not a rate (such as 100mbit)\n",
					av[i + 1]);
				return 2;
			}
		} else if (takes_rate && !strcmp(av[i], "encoding") &&
			   !has_enc) {
			if (int_enum_arg("encoding", &hpcc_int_enum_encoding,
					 av[i + 1], &enc))
				return 2;
			has_enc = true;
		} else if (takes_rate && !strcmp(av[i], "tx-model") &&
			   !has_txm) {
			if (int_enum_arg("tx-model", &hpcc_int_enum_tx_model,
					 av[i + 1], &txm))
				return 2;
			has_txm = true;
		} else {
			break;
		}
	}
	if (i != ac || !dev ||
	    (cmd == HPCC_INT_CMD_DEV_SET && !rate && !has_enc && !has_txm &&
	     !any_fcr)) {
		fprintf(stderr, "hpccctl: usage: int ");
		fprintf(stderr, use[cmd], takes_rate ? "\n       " FCR_USE : "");
		fputc('\n', stderr);
		return 2;
	}
	ifindex = if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "hpccctl: no device \"%s\"\n", dev);
		return 1;
	}
	if (open_int_family())
		return 1;
	nlh = hpcc_genl_msg(&g, buf, cmd, 0);
	mnl_attr_put_u32(nlh, HPCC_INT_A_DEV_IFINDEX, ifindex);
	if (rate)
		mnl_attr_put_u64(nlh, HPCC_INT_A_DEV_RATE, rate);
	if (has_enc)
		mnl_attr_put_u8(nlh, HPCC_INT_A_DEV_ENCODING, (uint8_t)enc);
	if (has_txm)
		mnl_attr_put_u8(nlh, HPCC_INT_A_DEV_TX_MODEL, (uint8_t)txm);
	for (k = 0; k < NFCR; k++)
		if (has_fcr[k])
			mnl_attr_put_u32(nlh, fcr_attr[k], (uint32_t)fcr[k]);
	err = hpcc_genl_talk(&g, nlh, NULL, NULL);
	return err ? fail(op[cmd], err) : 0;
}

/* int_dst() - prefix_put() of config-set's fcr-dst */
static int int_dst(struct nlmsghdr *nlh, const char *arg)
{
	return prefix_put(nlh, arg, "fcr-dst", HPCC_INT_A_CONFIG_FCR_DST,
			  HPCC_INT_A_DST_PREFIX_ADDR4,
			  HPCC_INT_A_DST_PREFIX_ADDR6,
			  HPCC_INT_A_DST_PREFIX_PLEN);
}

/*
 * int set [NAME N]... [key-file FILE] [fcr-dst ADDR/LEN]... [fcr-dst-flush]:
 * each NAME a number attribute of the spec's config set (u8, u16 or u32),
 * at most once; usage errors exit 2 before anything is sent
 */
static int int_set(int ac, char **av)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = NULL;
	const char *key_file = NULL;
	uint64_t val[HPCC_INT_A_CONFIG_MAX + 1];
	bool has[HPCC_INT_A_CONFIG_MAX + 1] = { false }, flush = false;
	int i, k, pass, err;

	if (!ac)
		goto usage;
	/* pass 0 checks, pass 1 builds the request */
	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			if (open_int_family())
				return 1;
			nlh = hpcc_genl_msg(&g, buf, HPCC_INT_CMD_CONFIG_SET, 0);
		}
		for (i = 0; i < ac; i++) {
			const struct hpcc_nl_attr_desc *d;
			uint64_t max;
			char *end;

			if (!strcmp(av[i], "fcr-dst-flush")) {
				if (!pass && flush)
					goto usage;
				flush = true;
				if (pass)
					mnl_attr_put(nlh, HPCC_INT_A_CONFIG_FCR_DST_FLUSH,
						     0, NULL);
				continue;
			}
			if (i + 1 == ac)
				goto usage;
			if (!strcmp(av[i], "key-file")) {
				if (!pass && key_file)
					goto usage;
				key_file = av[++i];
				if (keys_put(nlh, key_file, &hpcc_int_nkey_attrs))
					return 2;
				continue;
			}
			if (!strcmp(av[i], "fcr-dst")) {
				if (int_dst(nlh, av[++i]))
					return 2;
				continue;
			}
			k = hpcc_name_lookup(hpcc_int_config_names,
					     HPCC_INT_A_CONFIG_MAX, av[i]);
			d = &hpcc_int_config_desc[k];
			/* devs is read only */
			if (!k || k == HPCC_INT_A_CONFIG_DEVS ||
			    (d->kind != HPCC_NL_U8 && d->kind != HPCC_NL_U16 &&
			     d->kind != HPCC_NL_U32))
				goto usage;
			i++;
			if (pass) {
				if (d->kind == HPCC_NL_U32)
					mnl_attr_put_u32(nlh, k, val[k]);
				else if (d->kind == HPCC_NL_U16)
					mnl_attr_put_u16(nlh, k, val[k]);
				else
					mnl_attr_put_u8(nlh, k, val[k]);
				continue;
			}
			if (has[k])
				goto usage;
			max = d->kind == HPCC_NL_U32 ? UINT32_MAX :
			      d->kind == HPCC_NL_U16 ? UINT16_MAX : UINT8_MAX;
			errno = 0;
			val[k] = strtoull(av[i], &end, 0);
			if (errno || end == av[i] || *end || av[i][0] == '-' ||
			    val[k] > max) {
				fprintf(stderr, "hpccctl: %s: \"%s\" is not a valid value\n",
					av[i - 1], av[i]);
				return 2;
			}
			has[k] = true;
		}
		if (!pass)
			flush = false;
	}
	err = hpcc_genl_talk(&g, nlh, NULL, NULL);
	return err ? fail("config-set", err) : 0;
usage:
	fprintf(stderr, "hpccctl: usage: int set [switch-id N] [probe-dscp N] [ifa-protocol N] [fcr-port N] [fcr-dscp N]\n"
		"       [fcr-msg-rate N] [fcr-msg-burst N] [fcr-dst-rate N] [fcr-dst-burst N]\n"
		"       [key-file FILE] [fcr-dst ADDR/LEN]... [fcr-dst-flush]\n");
	return 2;
}

static int int_cmd(int ac, char **av)
{
	if (!ac || (!strcmp(av[0], "show") && ac == 1))
		return int_show();
	if (!strcmp(av[0], "add"))
		return int_dev(HPCC_INT_CMD_DEV_ADD, ac - 1, av + 1);
	if (!strcmp(av[0], "del"))
		return int_dev(HPCC_INT_CMD_DEV_DEL, ac - 1, av + 1);
	if (!strcmp(av[0], "change"))
		return int_dev(HPCC_INT_CMD_DEV_SET, ac - 1, av + 1);
	if (!strcmp(av[0], "set"))
		return int_set(ac - 1, av + 1);
	return usage(stderr);
}

int main(int ac, char **av)
{
	static const struct option long_opts[] = {
		{ "json",    no_argument, NULL, 'j' },
		{ "help",    no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
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
	if (!strcmp(av[0], "flow") && ac >= 2 && !strcmp(av[1], "show"))
		return flow_show(ac - 2, av + 2);
	if (!strcmp(av[0], "flow") && ac == 1)
		return flow_show(0, NULL);
	if (!strcmp(av[0], "stats") && ac == 1)
		return open_family() ? 1 :
		       simple_get(HPCC_CMD_STATS_GET, "stats-get",
				  hpcc_stats_names, HPCC_A_STATS_MAX);
	if (!strcmp(av[0], "param") && (ac == 1 || !strcmp(av[1], "show")) &&
	    ac <= 2)
		return open_family() ? 1 :
		       simple_get(HPCC_CMD_PARAMS_GET, "params-get",
				  hpcc_params_names, HPCC_A_PARAMS_MAX);
	if (!strcmp(av[0], "param") && ac >= 2 && !strcmp(av[1], "set"))
		return param_set(ac - 2, av + 2);
	if (!strcmp(av[0], "int"))
		return int_cmd(ac - 1, av + 1);
	if (!strcmp(av[0], "fcr") && (ac == 1 || !strcmp(av[1], "show")) &&
	    ac <= 2)
		return fcr_show();
	if (!strcmp(av[0], "fcr") && ac >= 2 && !strcmp(av[1], "set"))
		return fcr_set(ac - 2, av + 2);
	return usage(stderr);
}
