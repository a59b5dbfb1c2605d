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

#include "hpccctl.h"

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

/* flow [show [FILTER]...] */
int flow_cmd(int ac, char **av)
{
	if (!ac)
		return flow_show(0, NULL);
	if (!strcmp(av[0], "show"))
		return flow_show(ac - 1, av + 1);
	return usage(stderr);
}
