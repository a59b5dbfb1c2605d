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
#include "print.h"

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

/* a number of the namespace's config: text @fmt, JSON its spec name */
static void config_uint(const struct int_config *ic, int k, const char *fmt)
{
	print_uint(PRINT_ANY, hpcc_int_config_names[k], fmt, ic->c.v[k]);
}

/* int_config_print() - the namespace's hop settings (config-get) */
static void int_config_print(const struct int_config *ic)
{
	char kt[INET6_ADDRSTRLEN + 16];
	size_t i;

	config_uint(ic, HPCC_INT_A_CONFIG_SWITCH_ID, "switch-id %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_PROBE_DSCP, " probe-dscp %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_INT_DSCP, " int-dscp %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_IFA_PROTOCOL,
		    " ifa-protocol %" PRIu64);
	print_uint(PRINT_JSON, hpcc_int_config_names[HPCC_INT_A_CONFIG_DEVS],
		   NULL, ic->c.v[HPCC_INT_A_CONFIG_DEVS]);
	config_uint(ic, HPCC_INT_A_CONFIG_FCR_PORT, " fcr-port %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_FCR_DSCP, " fcr-dscp %" PRIu64 "\n");
	print_string(PRINT_FP, NULL, "%s", "keys");
	open_json_array("key");
	for (i = 0; i < ic->t.n_key; i++) {
		sign_key_text(&ic->t.key[i], kt, sizeof(kt));
		print_string(PRINT_ANY, NULL, " %s", kt);
	}
	close_json_array();
	print_string(PRINT_FP, NULL, "%s\n", ic->t.n_key ? "" : " none");
	config_uint(ic, HPCC_INT_A_CONFIG_FCR_MSG_RATE,
		    "fcr-msg-rate %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_FCR_MSG_BURST,
		    " fcr-msg-burst %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_FCR_DST_RATE,
		    " fcr-dst-rate %" PRIu64);
	config_uint(ic, HPCC_INT_A_CONFIG_FCR_DST_BURST,
		    " fcr-dst-burst %" PRIu64 "\n");
	print_string(PRINT_FP, NULL, "%s", "fcr-dst");
	open_json_array("fcr-dst");
	for (i = 0; i < ic->t.n_fcr_dst; i++) {
		dst_text(&ic->t.fcr_dst[i], kt, sizeof(kt));
		print_string(PRINT_ANY, NULL, " %s", kt);
	}
	close_json_array();
	print_string(PRINT_FP, NULL, "%s\n", ic->t.n_fcr_dst ? "" : " any");
}

/*
 * dev_uint() - a number of a port: @fmt in the text when @text, the
 * member of its spec name in JSON when the port has it
 */
static void dev_uint(const struct hpcc_attrs *a, int k, const char *fmt,
		     bool text)
{
	print_uint((a->has[k] ? PRINT_JSON : 0) | (text ? PRINT_FP : 0),
		   hpcc_int_dev_names[k], fmt, a->v[k]);
}

/* dev_enum() - an attribute with a spec enum, by its name in both */
static void dev_enum(const struct hpcc_attrs *a, int k, const char *fmt)
{
	print_string(a->has[k] ? PRINT_ANY : PRINT_FP, hpcc_int_dev_names[k],
		     fmt, enum_name(hpcc_int_dev_desc[k].enumeration, a->v[k]));
}

/* dev_label() - text only: a label of a port's line, when @text */
static void dev_label(const char *s, bool text)
{
	if (text)
		print_string(PRINT_FP, NULL, "%s", s);
}

/* the port's line under the column heads: stamping and its counters */
static void int_dev_line(const struct hpcc_attrs *a, const char *name)
{
	print_string(PRINT_ANY, "dev", "%-16s", name);
	dev_uint(a, HPCC_INT_A_DEV_IFINDEX, " %7" PRIu64, true);
	dev_uint(a, HPCC_INT_A_DEV_RATE, " %14" PRIu64, true);
	dev_enum(a, HPCC_INT_A_DEV_ENCODING, " %-8s");
	dev_enum(a, HPCC_INT_A_DEV_TX_MODEL, " %-8s");
	dev_uint(a, HPCC_INT_A_DEV_STAMPED, " %12" PRIu64, true);
	dev_uint(a, HPCC_INT_A_DEV_FULL, " %10" PRIu64, true);
	dev_uint(a, HPCC_INT_A_DEV_MALFORMED, " %10" PRIu64, true);
	dev_uint(a, HPCC_INT_A_DEV_UNWRITABLE, " %10" PRIu64, true);
	dev_uint(a, HPCC_INT_A_DEV_OTHER_ENCODING, " %10" PRIu64 "\n", true);
}

/* FCR on the port (the text: while fcr-qlen-high is set) */
static void int_dev_fcr(const struct hpcc_attrs *a)
{
	bool text = a->v[HPCC_INT_A_DEV_FCR_QLEN_HIGH];

	dev_label("  fcr", text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_QLEN_HIGH, " qlen-high %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_QLEN_LOW, " qlen-low %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_INTERVAL, " interval %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_ETA, " eta %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_CONGESTED, " congested %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_RATE, " rate %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_ACTIVE, " active %" PRIu64 "\n", text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_SENT, "      sent %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_DROPPED, " dropped %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_ROUNDS, " rounds %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CE_MARKED, " ce-marked %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_NOT_ECT, " not-ect %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_TABLE_FULL, " table-full %" PRIu64,
		 text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_EARLY_ROUNDS,
		 " early-rounds %" PRIu64 "\n", text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_SENDER_MAX,
		 "      sender-max %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_SENDER_LIMITED,
		 " sender-limited %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_DRAIN, " drain %" PRIu64 "\n", text);
}

/* what the namespace's bounds refused of the port's messages (the text:
 * with FCR or CCM on, or a refusal)
 */
static void int_dev_limited(const struct hpcc_attrs *a, const char *name)
{
	bool text = a->v[HPCC_INT_A_DEV_FCR_QLEN_HIGH] ||
		    a->v[HPCC_INT_A_DEV_CCM_QLEN_HIGH] ||
		    a->v[HPCC_INT_A_DEV_FCR_MSG_LIMITED] ||
		    a->v[HPCC_INT_A_DEV_FCR_DST_LIMITED] ||
		    a->v[HPCC_INT_A_DEV_FCR_DST_REFUSED];

	if (text)
		print_string(PRINT_FP, NULL, "%-16s", name);
	dev_uint(a, HPCC_INT_A_DEV_FCR_MSG_LIMITED, " msg-limited %" PRIu64,
		 text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_DST_LIMITED, " dst-limited %" PRIu64,
		 text);
	dev_uint(a, HPCC_INT_A_DEV_FCR_DST_REFUSED,
		 " dst-refused %" PRIu64 "\n", text);
}

/* CCM on the port (the text: with CCM on, or AR indicators marked) */
static void int_dev_ccm(const struct hpcc_attrs *a, const char *name)
{
	bool text = a->v[HPCC_INT_A_DEV_CCM_QLEN_HIGH] ||
		    a->v[HPCC_INT_A_DEV_CCM_AR_MARKED];

	if (text)
		print_string(PRINT_FP, NULL, "%-16s ccm", name);
	dev_uint(a, HPCC_INT_A_DEV_CCM_QLEN_HIGH, " qlen-high %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_QLEN_LOW, " qlen-low %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_INTERVAL, " interval %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_AR_GAP, " ar-gap %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_CONGESTED, " congested %" PRIu64 "\n",
		 text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_CC_SENT, "      cc-sent %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_RELEASED_SENT,
		 " released-sent %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_AR_SENT, " ar-sent %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_DROPPED, " dropped %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_NO_AR, " no-ar %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_CC_KEPT, " cc-kept %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_AR_MARKED, " ar-marked %" PRIu64, text);
	dev_uint(a, HPCC_INT_A_DEV_CCM_AR_LIMITED, " ar-limited %" PRIu64 "\n",
		 text);
}

static void dev_name(const struct hpcc_attrs *a, char *name)
{
	if (!if_indextoname(a->v[HPCC_INT_A_DEV_IFINDEX], name))
		snprintf(name, IF_NAMESIZE, "?");
}

/*
 * int_print() - int show's output (print.h): the namespace's settings,
 * then its ports.  Text: each port's line (with its FCR block), then the
 * ports' refusals, then their CCM lines; JSON: one object per port under
 * "dev", every attribute the module gave by its spec name, the enums by
 * name.  Both in the module's units (bit/s, us, thousandths, bytes).
 */
void int_print(const struct int_config *ic, const struct hpcc_attrs *devs,
	       size_t n)
{
	char name[IF_NAMESIZE];
	size_t i;

	print_start(json);
	open_json_object(NULL);
	int_config_print(ic);
	if (!print_json())
		printf("%-16s %7s %14s %-8s %-8s %12s %10s %10s %10s %10s\n",
		       "dev", "ifindex", "rate(bit/s)", "encoding", "tx-model",
		       "stamped", "full", "malformed", "unwritable",
		       "other-enc");
	open_json_array("dev");
	for (i = 0; i < n; i++) {
		dev_name(&devs[i], name);
		open_json_object(NULL);
		int_dev_line(&devs[i], name);
		int_dev_fcr(&devs[i]);
		if (print_json()) {
			int_dev_limited(&devs[i], name);
			int_dev_ccm(&devs[i], name);
		}
		close_json_object();
	}
	close_json_array();
	for (i = 0; !print_json() && i < n; i++) {
		dev_name(&devs[i], name);
		int_dev_limited(&devs[i], name);
	}
	for (i = 0; !print_json() && i < n; i++) {
		dev_name(&devs[i], name);
		int_dev_ccm(&devs[i], name);
	}
	close_json_object();
	print_end();
}

static int int_show(void)
{
	static struct int_config ic;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct attrs_list l = { 0 };
	int err;

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
	int_print(&ic, l.v, l.n);
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
	fprintf(stderr, "hpccctl: usage: int set [switch-id N] [probe-dscp N] [int-dscp N] [ifa-protocol N]\n"
		"       [fcr-port N] [fcr-dscp N] [fcr-msg-rate N] [fcr-msg-burst N] [fcr-dst-rate N] [fcr-dst-burst N]\n"
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
