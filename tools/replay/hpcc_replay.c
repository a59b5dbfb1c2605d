// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc-replay - replay a telemetry trace through the HPCC++ algorithm core
 * (the same source as tcp_hpcc.ko) and print the window trajectory.
 *
 * Reads samples on stdin (format: hpcc_trace.h, Documentation/hpcc-replay.rst)
 * and prints one line per sample: "U W Wc incStage" (U with 6 decimals, W
 * and Wc in bytes, rounded down).  Exit status 0; 2 on a malformed line or
 * bad option (message on stderr naming the line).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hpcc_core.h"
#include "hpcc_trace.h"

static const char usage[] =
"usage: hpcc-replay [OPTIONS] < TRACE\n"
"Replay a telemetry trace through the HPCC++ core; print \"U W Wc incStage\"\n"
"for each sample (U with 6 decimals, W and Wc in bytes).\n"
"\n"
"  --base-rtt-ns NS   T, the base RTT (1000..100000000)      [100000]\n"
"  --eta X            eta, target utilization (0.5..1)       [0.95]\n"
"  --max-stage N      maxStage (0..64)                       [5]\n"
"  --ewma-period PCT  U's EWMA period T_U, percent of T (100..800) [100]\n"
"  --w-init BYTES     W_init, also W_max (W_min..2^30)       [10 Gbit/s * T]\n"
"  --w-min BYTES      W_min (128..W_init)                    [3000]\n"
"  --w-ai BYTES       W_ai (0..W_init)             [W_init * (1 - eta) / N]\n"
"  --n-flows N        N of the rule of thumb (1..65535)      [16]\n"
"  --n-flows-source S configured, reported or max: a sample's reported N\n"
"                     sets the flow's W_ai (as tcp_hpcc)     [configured]\n"
"  -h, --help         this text\n"
"\n"
"Trace: one sample a line, \"ack_seq snd_nxt nhop\" then per hop\n"
"\"switch_id port_id B_bps ts_ns tx_bytes qlen_bytes\", then optionally the\n"
"receiver-reported N (0: none); '#' starts a comment.  tx_bytes \"-\": the\n"
"hop has none; \"uPPM\": none, Tx utilization PPM parts per million instead.\n"
"Exit status: 0, or 2 on a malformed line or option.\n";

static int bad_option(const char *opt, const char *val)
{
	fprintf(stderr, "hpcc-replay: invalid value '%s' for %s\n", val, opt);
	return 2;
}

static int parse_u64(const char *s, u64 min, u64 max, u64 *v)
{
	char *end;
	unsigned long long x;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return -1;
	*v = x;
	return 0;
}

/* U, Q32, as a decimal with 6 places (rounded to nearest). */
static void print_u(u64 u)
{
	u64 ip = u >> HPCC_U_SHIFT;
	u64 frac = ((u & (HPCC_U_ONE - 1)) * 1000000ULL + HPCC_U_ONE / 2) >>
		   HPCC_U_SHIFT;

	if (frac >= 1000000) {
		ip++;
		frac -= 1000000;
	}
	printf("%llu.%06llu", (unsigned long long)ip, (unsigned long long)frac);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base-rtt-ns", required_argument, NULL, 'T' },
		{ "eta", required_argument, NULL, 'e' },
		{ "max-stage", required_argument, NULL, 's' },
		{ "ewma-period", required_argument, NULL, 'E' },
		{ "w-init", required_argument, NULL, 'i' },
		{ "w-min", required_argument, NULL, 'm' },
		{ "w-ai", required_argument, NULL, 'a' },
		{ "n-flows", required_argument, NULL, 'n' },
		{ "n-flows-source", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hpcc_params p;
	struct hpcc_flow f;
	struct hpcc_sample s;
	u64 v, w_init = 0, w_min = 0, w_ai = 0, n_flows = HPCC_DEFAULT_N_FLOWS;
	u32 n_source = HPCC_N_SOURCE_CONFIGURED;
	int have_w_ai = 0, c;
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;

	hpcc_params_default(&p);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (parse_u64(optarg, HPCC_T_MIN_NS, HPCC_T_MAX_NS, &v))
				return bad_option("--base-rtt-ns", optarg);
			p.t_ns = v;
			break;
		case 'e': {
			char *end;
			double eta;

			errno = 0;
			eta = strtod(optarg, &end);
			if (errno || *end || !(eta >= 0.5 && eta <= 1.0))
				return bad_option("--eta", optarg);
			p.eta = (u64)llround(eta * (double)HPCC_U_ONE);
			break;
		}
		case 's':
			if (parse_u64(optarg, 0, HPCC_MAX_STAGE_MAX, &v))
				return bad_option("--max-stage", optarg);
			p.max_stage = (u32)v;
			break;
		case 'E':
			if (parse_u64(optarg, HPCC_EWMA_PERIOD_MIN,
				      HPCC_EWMA_PERIOD_MAX, &v))
				return bad_option("--ewma-period", optarg);
			p.ewma_pct = (u32)v;
			break;
		case 'i':
			if (parse_u64(optarg, HPCC_W_MIN_MIN, HPCC_W_MAX_MAX,
				      &w_init))
				return bad_option("--w-init", optarg);
			break;
		case 'm':
			if (parse_u64(optarg, HPCC_W_MIN_MIN, HPCC_W_MAX_MAX,
				      &w_min))
				return bad_option("--w-min", optarg);
			break;
		case 'a':
			if (parse_u64(optarg, 0, HPCC_W_MAX_MAX, &w_ai))
				return bad_option("--w-ai", optarg);
			have_w_ai = 1;
			break;
		case 'n':
			if (parse_u64(optarg, 1, HPCC_N_FLOWS_MAX, &n_flows))
				return bad_option("--n-flows", optarg);
			break;
		case 'S':
			if (!strcmp(optarg, "configured"))
				n_source = HPCC_N_SOURCE_CONFIGURED;
			else if (!strcmp(optarg, "reported"))
				n_source = HPCC_N_SOURCE_REPORTED;
			else if (!strcmp(optarg, "max"))
				n_source = HPCC_N_SOURCE_MAX;
			else
				return bad_option("--n-flows-source", optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hpcc-replay: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	/* W_init follows T unless given; W_ai follows W_init and eta. */
	p.w_init = w_init ? w_init << HPCC_W_SHIFT :
		   hpcc_bdp(HPCC_DEFAULT_LINE_RATE_BPS, p.t_ns);
	if (w_min)
		p.w_min = w_min << HPCC_W_SHIFT;
	p.w_ai = have_w_ai ? w_ai << HPCC_W_SHIFT :
		 hpcc_w_ai_rule_of_thumb(p.w_init, p.eta, (u32)n_flows);
	if (!hpcc_params_valid(&p)) {
		fprintf(stderr,
			"hpcc-replay: inconsistent parameters (need W_min <= W_init, W_ai <= W_init, W_init <= 2^30)\n");
		return 2;
	}

	hpcc_flow_init(&f, &p);
	while (getline(&line, &cap, stdin) != -1) {
		const char *err = NULL;
		int r;

		lineno++;
		r = hpcc_trace_parse_line(line, &s, &err);
		if (r < 0) {
			fprintf(stderr, "hpcc-replay: line %lu: %s\n", lineno,
				err);
			free(line);
			return 2;
		}
		if (r == 0)
			continue;
		/* as tcp_hpcc's ACK path (hpcc_take_telemetry()) */
		hpcc_flow_set_n(&f, &p, hpcc_n_select(n_source, (u32)n_flows,
						      s.n_flows));
		hpcc_new_ack(&f, &p, s.ack_seq, s.snd_nxt, s.hops, s.nhop);
		print_u(f.u);
		printf(" %llu %llu %u\n",
		       (unsigned long long)(f.w >> HPCC_W_SHIFT),
		       (unsigned long long)(f.wc >> HPCC_W_SHIFT), f.inc_stage);
	}
	free(line);
	if (ferror(stdin)) {
		fprintf(stderr, "hpcc-replay: read error\n");
		return 2;
	}
	return fflush(stdout) ? 2 : 0;
}
