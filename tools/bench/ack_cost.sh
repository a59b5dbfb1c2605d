#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-ACK cost of hpcc against cubic (a benchmark, not a test; run in a
# guest by `make bench-ack`).  An iperf3 flow over veth for each algorithm,
# alternating cubic, hpcc, cubic, hpcc, ... in one boot; ftrace's
# function_graph tracer times the congestion control's per-ACK hooks:
#   hpcc:  hpcc_cong_control (the whole law, pacing rate included)
#   cubic: cubictcp_cong_avoid + cubictcp_acked (the kernel's own pacing
#          rate update is not counted, which favours cubic)
# and divides by the ACKs of the flow (calls of hpcc_cong_control, and of
# cubictcp_acked).  hpcc runs in HPCC mode with telemetry pushed every 10 ms.
# Tracing inflates every call by a similar fixed amount; the ratio is what
# the note reports.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
NL=$TOP/build/selftests/hpcc_nl
T=$TRACEFS
REPS=${REPS:-3}
SRV=198.18.0.2
CLI=198.18.0.1

tracefs_mount
modprobe tcp_hpcc; modprobe tcp_cubic 2>/dev/null
ns_pair bs $CLI br $SRV
ip netns exec bs "$NL" params-set t=10000 line_rate=1000 stale_rtts=1000 >/dev/null
ip netns exec br iperf3 -s -p 5201 >/dev/null 2>&1 &
sleep 1

# run CC PORT: prints "calls total_us" for the hooks of CC.  The tracer
# hooks only those functions (set_ftrace_filter): under set_graph_function
# at depth 1, 6.1 also traced other functions of the tasks that ran them
# (tools/bench/fwd_cost.sh), and a full ring buffer loses calls.  A run
# whose ring buffer overran says so.
run() {
	local cc=$1 port=$2 pusher='' lost
	echo 0 > $T/tracing_on; echo nop > $T/current_tracer; echo > $T/trace
	echo 16384 > $T/buffer_size_kb
	if [ "$cc" = hpcc ]; then
		echo hpcc_cong_control > $T/set_ftrace_filter
	else
		printf 'cubictcp_cong_avoid\ncubictcp_acked\n' > $T/set_ftrace_filter
	fi || return 1
	echo function_graph > $T/current_tracer
	echo 1 > $T/tracing_on
	if [ "$cc" = hpcc ]; then
		( ts=1000000; tx=0; sleep 0.3
		  while :; do ts=$((ts + 10000000)); tx=$((tx + 900000))
			ip netns exec bs "$NL" telemetry $CLI $port $SRV 5201 \
				7,3,1000000000,$ts,$tx,0 >/dev/null 2>&1
			sleep 0.01; done ) & pusher=$!
	fi
	ip netns exec bs iperf3 -c $SRV -p 5201 -C "$cc" --cport "$port" -t 3 >/dev/null
	echo 0 > $T/tracing_on
	[ -n "$pusher" ] && kill "$pusher" 2>/dev/null
	lost=$(tracefs_lost)
	[ "$lost" = 0 ] || echo "the trace lost $lost events ($cc): too few ACKs counted" >&2
	awk -v cc="$cc" '
		/us +\|/ { for (i = 1; i <= NF; i++) if ($(i+1) == "us") { d = $i; break }
			   if (cc == "hpcc" && /hpcc_cong_control/) { n++; s += d }
			   if (cc != "hpcc" && /cubictcp_acked/) { n++; s += d }
			   if (cc != "hpcc" && /cubictcp_cong_avoid/) { s += d } }
		END { printf "%d %.1f\n", n, s }' $T/trace
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
}

port=41000
for ((r = 0; r < REPS; r++)); do
	for cc in cubic hpcc; do
		port=$((port + 1))
		out=$(run $cc $port | tail -1)
		n=${out% *}; s=${out#* }
		echo "$cc rep $r: $n ACKs, $(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.3f", n ? s / n : 0 }') us per ACK in the hooks"
	done
done | tee /tmp/ack_cost.txt
python3 - /tmp/ack_cost.txt <<'PY'
import statistics, sys
v = {"cubic": [], "hpcc": []}
for l in open(sys.argv[1]):
    f = l.split()
    v[f[0]].append(float(f[5]))  # "CC rep R: N ACKs, X us per ACK ..."
c, h = statistics.median(v["cubic"]), statistics.median(v["hpcc"])
print("median per-ACK cost: cubic %.3f us, hpcc %.3f us, hpcc/cubic %.2f" % (c, h, h / c if c else 0))
PY
echo 1408 > $T/buffer_size_kb  # the kernel's default
ns_gone bs br
