// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl int show, add, del, change, set - the software INT hop
 * (hpcc_int.ko, the "hpcc-int" family): its devices, their rates,
 * encodings, FCR and CCM settings, and the namespace's hop settings
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "hpccctl.h"

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

int int_cmd(int ac, char **av)
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
