// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl fcr show, fcr set - the namespace's fast congestion response
 * (FCR) receiver: its port, prefixes, hold and rate bounds and MAC keys
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpccctl.h"
#include "print.h"

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
void addr_plen_text(bool v4, bool v6, const uint32_t *a4,
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
	unsigned int i;
	bool accept, retired;
	int err;

	if (open_family())
		return 1;
	err = hpcc_genl_talk(&g, hpcc_genl_msg(&g, buf, HPCC_CMD_FCR_GET, 0),
			     fcr_cb, &f);
	if (err)
		return fail("fcr-get", err);
	print_start(json);
	open_json_object(NULL);
	print_string(PRINT_FP, NULL, "fcr %s",
		     f.port && f.n_prefix ? "on" : "off");
	print_uint(PRINT_ANY, "port", " port %" PRIu64, f.port);
	print_uint(PRINT_ANY, "hold-max", " hold-max %" PRIu64, f.hold_max);
	print_uint(PRINT_ANY, "rate-min", " rate-min %" PRIu64 "\n",
		   f.rate_min);
	print_string(PRINT_FP, NULL, "%s", "prefixes");
	open_json_array("prefix");
	for (i = 0; i < f.n_prefix; i++) {
		prefix_text(&f.prefix[i], pfx, sizeof(pfx));
		print_string(PRINT_ANY, NULL, " %s", pfx);
	}
	close_json_array();
	print_string(PRINT_FP, NULL, "%s\n", f.n_prefix ? "" : " none");
	print_string(PRINT_FP, NULL, "%s", "keys");
	open_json_array("key");
	for (i = 0; i < f.n_key; i++) {
		accept = f.key[i].present & (1ULL << HPCC_A_FCR_KEY_ACCEPT);
		retired = f.key[i].present & (1ULL << HPCC_A_FCR_KEY_RETIRED);
		key_text(&f.key[i], pfx, sizeof(pfx));
		open_json_object(NULL);
		print_uint(PRINT_ANY, "id", " %" PRIu64, f.key[i].id);
		print_string(PRINT_ANY, "prefix", " %s", pfx);
		print_bool(PRINT_ANY, "accept", accept ? " accept" : NULL,
			   accept);
		print_bool(PRINT_ANY, "retired", retired ? " retired" : NULL,
			   retired);
		close_json_object();
	}
	close_json_array();
	print_string(PRINT_FP, NULL, "%s", f.n_key ? "" : " none");
	print_uint(PRINT_ANY, "key-overlap", " key-overlap %" PRIu64 "\n",
		   f.key_overlap);
	close_json_object();
	print_end();
	return 0;
}

/*
 * prefix_put() - ADDR/LEN into a nest @type of @nlh with attributes @a4 or
 * @a6 and @plen; usage errors (exit 2, naming @what) are found before
 * anything is sent (@nlh NULL: only check)
 */
int prefix_put(struct nlmsghdr *nlh, const char *arg, const char *what,
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
 * format, daemon/hpccd/config.h: mode 600, owned by the caller) into key
 * nests of @nlh (@nlh NULL: only read it); none gives the flush flag.
 * The key bytes are wiped from memory once put.
 */
int keys_put(struct nlmsghdr *nlh, const char *path,
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

/* fcr show | fcr set ... */
int fcr_cmd(int ac, char **av)
{
	if (!ac || (!strcmp(av[0], "show") && ac == 1))
		return fcr_show();
	if (!strcmp(av[0], "set"))
		return fcr_set(ac - 1, av + 1);
	return usage(stderr);
}
