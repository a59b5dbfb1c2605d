// SPDX-License-Identifier: GPL-2.0
/*
 * hpccctl flow show - the namespace's hpcc flows, one line each in the
 * manner of ss(8), or every attribute in JSON
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hpcc.h>

#include "hpccctl.h"
#include "print.h"

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

int dump_cb(const struct nlmsghdr *nlh, void *data)
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

/*
 * The units hpccctl shows, text and JSON alike (hpccctl.8): U as a
 * fraction (1.0 is full; the module's fixed point has HPCC_U_FRAC_BITS
 * fraction bits), the pacing rate in Mbit/s (the module's is in bytes per
 * second); every other attribute in its spec unit.
 */
#define HPCC_U_FRAC_BITS 32
#define U_ONE ((double)(1ULL << HPCC_U_FRAC_BITS))

/* PRINT_ANY when the flow has attribute @i, else the text's column only */
static enum print_type has(const struct hpcc_attrs *a, int i)
{
	return a->has[i] ? PRINT_ANY : PRINT_FP;
}

/* the text's columns, in their order; JSON: the same fields under the
 * spec's names
 */
static bool flow_column(int i)
{
	switch (i) {
	case HPCC_A_FLOW_MODE: case HPCC_A_FLOW_CWND: case HPCC_A_FLOW_W:
	case HPCC_A_FLOW_WC: case HPCC_A_FLOW_U: case HPCC_A_FLOW_INC_STAGE:
	case HPCC_A_FLOW_SRTT: case HPCC_A_FLOW_PACING_RATE:
	case HPCC_A_FLOW_TELEMETRY_AGE: case HPCC_A_FLOW_SAMPLES:
	case HPCC_A_FLOW_FALLBACKS:
	case HPCC_A_FLOW_FAMILY:
	case HPCC_A_FLOW_SADDR4: case HPCC_A_FLOW_DADDR4:
	case HPCC_A_FLOW_SADDR6: case HPCC_A_FLOW_DADDR6:
	case HPCC_A_FLOW_SPORT: case HPCC_A_FLOW_DPORT:
		return true;
	}
	return false;
}

/* the hop records of the newest sample (JSON only; the text counts them) */
static void flow_hops(const struct hpcc_attrs *a)
{
	int i;

	open_json_array("hops");
	for (i = 0; i < a->nhop; i++) {
		const struct hpcc_hop_rec *h = &a->hops[i];

		open_json_object(NULL);
		print_uint(PRINT_JSON, "switch-id", NULL, h->switch_id);
		print_uint(PRINT_JSON, "port-id", NULL, h->port_id);
		print_uint(PRINT_JSON, "rate", NULL, h->rate);
		print_uint(PRINT_JSON, "ts", NULL, h->ts);
		print_uint(PRINT_JSON, "tx-bytes", NULL, h->tx_bytes);
		print_uint(PRINT_JSON, "qlen", NULL, h->qlen);
		if (h->flags)
			print_uint(PRINT_JSON, "flags", NULL, h->flags);
		if (h->flags & HPCC_HOP_FLAGS_TX_UTIL)
			print_uint(PRINT_JSON, "tx-util", NULL, h->tx_util);
		close_json_object();
	}
	close_json_array();
	print_int(PRINT_FP, NULL, " %4d\n", a->nhop);
}

/*
 * flow_print() - one flow: a line in the manner of ss(8), or a JSON
 * object of every attribute the module gave.  Addresses are text (saddr,
 * daddr, and the spec's address attributes as the kernel's YNL CLI shows
 * them), the ports in host order.
 */
void flow_print(const struct hpcc_attrs *a)
{
	char s[INET6_ADDRSTRLEN], ap[INET6_ADDRSTRLEN + 8];
	uint64_t mode = a->v[HPCC_A_FLOW_MODE];
	int i;

	open_json_object(NULL);
	print_int(PRINT_JSON, "family", NULL, a->v[HPCC_A_FLOW_FAMILY]);
	addr_text(a, true, s, sizeof(s));
	print_string(PRINT_JSON, "saddr", NULL, s);
	if (a->has[HPCC_A_FLOW_SADDR4] || a->has[HPCC_A_FLOW_SADDR6])
		print_string(PRINT_JSON, a->has[HPCC_A_FLOW_SADDR6] ?
			     "saddr6" : "saddr4", NULL, s);
	print_int(PRINT_JSON, "sport", NULL, ntohs(a->v[HPCC_A_FLOW_SPORT]));
	addr_text(a, false, s, sizeof(s));
	print_string(PRINT_JSON, "daddr", NULL, s);
	if (a->has[HPCC_A_FLOW_DADDR4] || a->has[HPCC_A_FLOW_DADDR6])
		print_string(PRINT_JSON, a->has[HPCC_A_FLOW_DADDR6] ?
			     "daddr6" : "daddr4", NULL, s);
	print_int(PRINT_JSON, "dport", NULL, ntohs(a->v[HPCC_A_FLOW_DPORT]));
	addr_port(a, true, ap, sizeof(ap));
	print_string(PRINT_FP, NULL, "%-21s ", ap);
	addr_port(a, false, ap, sizeof(ap));
	print_string(PRINT_FP, NULL, "%-21s ", ap);

	/* the columns */
	print_uint(has(a, HPCC_A_FLOW_MODE) & PRINT_JSON, "mode", NULL, mode);
	print_string(PRINT_ANY, "mode-name", "%-8s",
		     enum_name(&hpcc_enum_mode, mode));
	print_uint(has(a, HPCC_A_FLOW_CWND), "cwnd", " %6" PRIu64,
		   a->v[HPCC_A_FLOW_CWND]);
	print_uint(has(a, HPCC_A_FLOW_W), "w", " %10" PRIu64,
		   a->v[HPCC_A_FLOW_W]);
	print_uint(has(a, HPCC_A_FLOW_WC), "wc", " %10" PRIu64,
		   a->v[HPCC_A_FLOW_WC]);
	print_float(has(a, HPCC_A_FLOW_U), "u", " %6.3f",
		    a->v[HPCC_A_FLOW_U] / U_ONE);
	print_uint(has(a, HPCC_A_FLOW_INC_STAGE), "inc-stage", " %5" PRIu64,
		   a->v[HPCC_A_FLOW_INC_STAGE]);
	print_uint(has(a, HPCC_A_FLOW_SRTT), "srtt", " %8" PRIu64,
		   a->v[HPCC_A_FLOW_SRTT]);
	print_float(has(a, HPCC_A_FLOW_PACING_RATE), "pacing-rate", " %9.1f",
		    a->v[HPCC_A_FLOW_PACING_RATE] * 8 / 1e6);
	if (a->has[HPCC_A_FLOW_TELEMETRY_AGE])
		print_uint(PRINT_ANY, "telemetry-age", " %8" PRIu64,
			   a->v[HPCC_A_FLOW_TELEMETRY_AGE]);
	else
		print_string(PRINT_FP, NULL, " %8s", "-");
	print_uint(has(a, HPCC_A_FLOW_SAMPLES), "samples", " %8" PRIu64,
		   a->v[HPCC_A_FLOW_SAMPLES]);
	print_uint(has(a, HPCC_A_FLOW_FALLBACKS), "fallbacks", " %5" PRIu64,
		   a->v[HPCC_A_FLOW_FALLBACKS]);

	/* the rest, JSON only, by spec name: numbers and flags */
	for (i = 1; i <= HPCC_A_FLOW_MAX; i++) {
		if (flow_column(i) || !hpcc_flow_names[i] || !a->has[i])
			continue;
		if (hpcc_flow_desc[i].kind == HPCC_NL_FLAG)
			print_bool(PRINT_JSON, hpcc_flow_names[i], NULL, true);
		else
			print_uint(PRINT_JSON, hpcc_flow_names[i], NULL, a->v[i]);
	}
	flow_hops(a);
	close_json_object();
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
			if (errno || *end || end == av[i + 1] || v > HPCC_N_FLOWS_MAX)
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
	print_start(json);
	open_json_array(NULL);
	if (!json)
		printf("%-21s %-21s %-8s %6s %10s %10s %6s %5s %8s %9s %8s %8s %5s %4s\n",
		       "Local Address:Port", "Peer Address:Port", "Mode",
		       "Cwnd", "W", "Wc", "U", "Stage", "SRTT(us)",
		       "Pace(Mb)", "Age(us)", "Samples", "Fallb", "Hops");
	for (i = 0; i < l.n; i++)
		flow_print(&l.v[i]);
	close_json_array();
	print_end();
	free(l.v);
	return 0;
}

/* flow [show [FILTER]...] */
int flow_cmd(int ac, char **av)
{
	if (!ac)
		return flow_show(0, NULL);
	if (!strcmp(av[0], "show"))
		return flow_show(ac - 1, av + 1);
	return usage(stderr);
}
