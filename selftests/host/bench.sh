#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The evaluation suite's tools on the host (`make bench` runs them in a
# guest): schedule.py's Poisson load and incast rounds, fctgen between two
# network namespaces (completion, byte counts, bins, counters, bad input),
# and report.py turning fctgen results into the S5 table and plot.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
S=$TOP/tools/bench/schedule.py
FG=$TOP/build/fctgen
W=$(mktemp -d)
# our own CDF (the workloads of ../shared/ need not be beside a clone):
# mean 75 450 B, largest 1 MB
CDF=$W/test.cdf
printf '%s\n' "# size percent" "0 0" "1000 50" "100000 90" "1000000 100" > "$CDF"
# fctgen's namespaces; shell names, as topo_ns (ns_pair) requires
A=hpccbencha$$
B=hpccbenchb$$
trap 'ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; rm -rf "$W"' EXIT

# 2000 flows at 30 % of 50 Mbit/s: the mean inter-arrival time is within 5 %
# of the one that offers 30 % (the sizes' mean is heavy-tailed: the realized
# load only within 15 %), sizes are scaled (max 1 MB / 40), ids 1..2000
poisson_load() {
	python3 "$S" poisson --cdf "$CDF" --scale 40 --load 30 --flows 2000 \
		--hosts 8 --rate-mbit 50 --seed 7 > "$W/p.txt" || return 1
	head -1 "$W/p.txt"
	awk '/^# poisson/ { rate = $10 } !/^#/ { n++; b += $6; if (n == 1) t0 = $2;
		t1 = $2; if ($6 > max) max = $6; if ($1 != n) bad = 1 }
	     END { span = (t1 - t0) / 1e6; load = b * 8 / span / 50e6;
		ia = span / (n - 1) * rate;
		printf "flows %d load %.3f inter-arrival x rate %.3f max %d\n",
			n, load, ia, max;
		exit !(n == 2000 && ia > 0.95 && ia < 1.05 && load > 0.255 &&
		       load < 0.345 && max <= 25000 && !bad) }' "$W/p.txt"
}

# 3 rounds of 8 and a background flow: 25 flows, round r's ids r*1000+1..8
# from tbs1..tbs8 at one start time, rounds 0.5 s + 3 ideal apart
incast_rounds() {
	python3 "$S" incast --n 8 --size 65536 --bg 1 --rounds 3 --hosts 8 \
		--rate-mbit 50 --rtt-ms 10 > "$W/i.txt" || return 1
	cat "$W/i.txt"
	awk '!/^#/ { n++ } $1 == 0 && $6 == 0 && $7 > 0 { bg++ }
	     $1 == 2008 { t2 = $2; src = $3 } $1 == 3001 { t3 = $2 }
	     END { exit !(n == 25 && bg == 1 && src == "tbs8" &&
			  t3 - t2 >= 0.78e6) }' "$W/i.txt"
}

# the FCR draft's section 8.1 test at 50 % for 100 s: tbs1..tbs5's
# 256 KB flows to tbd1 offer 50 % of 50 Mbit/s within 10 %, each sender
# 15-25 % of them, ids 1.. in start order; tbs6's ping flow (an 8-byte
# message every 5 ms on one connection) from 0.2 s to 100.2 s, id 100000
many_load() {
	python3 "$S" many --load 50 --duration 100 --size 262144 \
		--rate-mbit 50 --seed 3 > "$W/m.txt" || return 1
	head -1 "$W/m.txt"
	grep ' p5000 ' "$W/m.txt"
	awk '!/^#/ && $1 < 100000 { n++; b += $6; s[$3]++; if ($1 != n) bad = 1
		if ($4 != "tbd1" || $6 != 262144 || $2 < 200000 || $2 > 100200000) bad = 2 }
	     !/^#/ && $1 >= 100000 { if ($0 != "100000 200000 tbs6 tbd1 198.19.0.1 p5000 100200000") bad = 3; l++ }
	     END { load = b * 8 / 100 / 50e6
		for (k in s) { if (s[k] < 0.15 * n || s[k] > 0.25 * n) bad = 4; ns++ }
		printf "flows %d load %.3f senders %d ping flows %d bad %d\n", n, load, ns, l, bad
		exit !(load > 0.45 && load < 0.55 && ns == 5 && l == 1 && !bad) }' "$W/m.txt"
}

# S7's table, its columns beside the draft's and the targets' rows (S7's
# latency p99.9 reported; mixed mode's Jain and CE marks) from made-up
# results: hpcc's messages take 10, 12, 14 and 40 ms, hpcc-fcr's 10-13 ms
report_s7() {
	local d=$W/report-s7 cc r lat i
	mkdir -p "$d"
	printf '%s\n' "rate_mbit 50" "rtt_ms 10" "reps 1" "long_s 10" \
		"many_size 250000" > "$d/meta.txt"
	for cc in hpcc hpcc-fcr; do
		r=$d/s7/$cc/1/load30
		mkdir -p "$r"
		lat="10000 12000 14000 40000"
		[ $cc = hpcc-fcr ] && lat="10000 11000 12000 13000"
		{
			echo "# t0_us 1000000"
			echo "1 250000 tbs1 0 1000 100000 0 ok"
			echo "2 250000 tbs2 0 1000 100000 0 ok"
			echo "100000 32 tbs6 0 0 200000 0 ok"
		} > "$r/flows.txt"
		i=0
		for l in $lat; do
			echo "100000 $i $((i * 5000)) $l"
			i=$((i + 1))
		done > "$r/pings.txt"
	done
	r=$d/s7/hpcc-fcr/1/load30
	printf '%s\n' "hop_sent 0" "hop_ce-marked 0" "fcr-accepted 0" > "$r/fcr.before"
	printf '%s\n' "hop_sent 12" "hop_ce-marked 3" "fcr-accepted 10" > "$r/fcr.after"
	r=$d/s2/hpcc-fcrmix/1/n8
	mkdir -p "$r"
	echo '{"jain": 0.97, "queue_p50": 1000, "queue_p99": 5000, "retransmits": 0}' \
		> "$r/summary.json"
	printf '%s\n' "hop_sent 0" "hop_ce-marked 0" > "$r/fcr.before"
	printf '%s\n' "hop_sent 4" "hop_ce-marked 5" > "$r/fcr.after"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep '^| 30 %\|^| S7\|^| S2 hpcc-fcrmix\|^| hpcc-fcrmix' "$d/report.md"
	grep -q '^| 30 % | hpcc | 8.00 | 99 | 4 | 19.0 | 40.0 | 40.0 | .* |  |$' "$d/report.md" &&
	grep -q '^| 30 % | hpcc-fcr | 8.00 | 99 | 4 | 11.5 | 13.0 | 13.0 | .* | 12 / 10 / 3 |$' "$d/report.md" &&
	grep -q '^| 30 % | 1.61, 1.61, 0.0 % | 8.00, 8.00, 0.0 % | 5.89, 5.79, 1.7 % | 19.0, 11.5, 39.5 % | 8.89, 7.65, 13.9 % | 40.0, 13.0, 67.5 % | 21.77, 8.79, 59.6 % | 40.0, 13.0, 67.5 % |$' "$d/report.md" &&
	grep -q '^| S7 hpcc-fcr latency p99.9 against hpcc.s (reported) | 30 %: 13.0 vs 40.0 ms | reported |$' "$d/report.md" &&
	grep -q '^| S2 hpcc-fcrmix (FCR on half the senders) Jain.s index of 8 flows >= 0.95 | 0.970 | yes |$' "$d/report.md" &&
	grep -q '^| hpcc-fcrmix: the senders without FCR get CE marks (S2, S7) | 5 marks in 1 runs | yes |$' "$d/report.md" &&
	grep -q '^| hpcc-fcrmix | 8 | 0.970 | 1.0 | 5.0 | 0 | 4 / 5 |$' "$d/report.md"
}

fg_pair() {
	[ "$(id -u)" = 0 ] || return 4
	ns_pair "$A" 198.18.200.1 "$B" 198.18.200.2
}

# six flows A -> B: sizes 1 B .. 1 MB and one long flow of 0.5 s; all ok,
# every sized flow's bins add up to its size
fctgen_flows() {
	printf '%s\n' "# comment" \
		"1 0 $A $B 198.18.200.2 1 0" \
		"2 1000 $A $B 198.18.200.2 1448 0" \
		"3 2000 $A $B 198.18.200.2 65536 0" \
		"4 3000 $A $B 198.18.200.2 1048576 0" \
		"5 0 $A $B 198.18.200.2 0 500000" \
		"6 400000 $A $B 198.18.200.2 100000 0" |
		"$FG" -b 100 -B "$W/bins" -c "$W/cnt" -o "$W/flows" || return 1
	cat "$W/flows"
	[ "$(grep -c ' ok$' "$W/flows")" = 6 ] || return 1
	[ -s "$W/cnt.before" ] && grep -q '^TCPTimeouts [0-9]' "$W/cnt.after" &&
		grep -q '^TCPSackRecoveryFail [0-9]' "$W/cnt.after" ||
		return 1
	awk 'NR == FNR { got[$1] += $3; next }
	     !/^#/ && $2 > 0 && got[$1] != $2 { print "flow " $1 ": " got[$1]; bad = 1 }
	     !/^#/ && $1 == 5 && ($6 < 490000 || got[5] == 0) { bad = 1 }
	     END { exit bad }' "$W/bins" "$W/flows"
}

# a bad line: exit 2, the line named
fctgen_rejects() {
	local err rc
	err=$(printf '1 0 %s %s 198.18.200.2 0 0\n' "$A" "$B" |
		"$FG" -o "$W/x" 2>&1) && rc=0 || rc=$?
	echo "exit $rc: $err"
	[ "$rc" = 2 ] && echo "$err" | grep -q 'line 1' || return 1
	err=$(printf '1 0 nonexistent-ns %s 198.18.200.2 10 0\n' "$B" |
		"$FG" -o "$W/x" 2>&1) && rc=0 || rc=$?
	echo "exit $rc: $err"
	[ "$rc" = 2 ]
}

# report.py on fctgen's results filed as an S5 run: the table has the
# flows < 100 KB and the run's CPU seconds (guest busy, hpccd: eval.sh's
# bench_cpu records, in ticks of 10 ms), and the plot exists
report_s5() {
	local d=$W/report
	mkdir -p "$d/s5/hpcc/1/load30"
	printf '%s\n' "rate_mbit 50" "rtt_ms 10" "long_s 10" "phase_s 5" \
		"incast_rounds 5" "fct_flows 6" "fct_scale 40" "fct_loads 30" \
		"reps 1" > "$d/meta.txt"
	cp "$W/flows" "$d/s5/hpcc/1/load30/flows.txt"
	printf '%s\n' "cpu_busy_ticks 1000" "cpu_total_ticks 5000" "hpccd_ticks 10" \
		> "$d/s5/hpcc/1/load30/cpu.before"
	printf '%s\n' "cpu_busy_ticks 1250" "cpu_total_ticks 5600" "hpccd_ticks 40" \
		> "$d/s5/hpcc/1/load30/cpu.after"
	# RTOs: TCPTimeouts and the RTOs counted in other states add up (4)
	printf '%s\n' "TCPTimeouts 1" "TCPSackRecoveryFail 0" "TCPLossFailures 5" \
		> "$d/s5/hpcc/1/load30/counters.before"
	printf '%s\n' "TCPTimeouts 2" "TCPSackRecoveryFail 2" "TCPLossFailures 6" \
		> "$d/s5/hpcc/1/load30/counters.after"
	# hpccd: 2 s of CPU for 100 probes at the senders, 1 s and 50 at the
	# receivers: 20 ms per probe sent; 2 resyncs, 4 flows reconciled and
	# 3 dumps interrupted in the run, and the gauges after it (before's are not subtracted):
	# 5 flows in hpccd's tables, 3 in the module's
	printf '%s\n' "tbs1 ticks 100" "tbs1 probes-sent 10" "tbd1 ticks 50" \
		"tbd1 probes-sent 0" "tbd1 responses-sent 5" "tbs1 resyncs 1" \
		"tbs1 flows-reconciled 10" "tbs1 flows 7" "tbs1 module-flows 6" \
		"tbs1 dumps-interrupted 2" > "$d/s5/hpcc/1/load30/hpccd.before"
	printf '%s\n' "tbs1 ticks 300" "tbs1 probes-sent 110" "tbd1 ticks 150" \
		"tbd1 probes-sent 50" "tbd1 responses-sent 105" "tbs1 resyncs 3" \
		"tbs1 flows-reconciled 14" "tbs1 flows 3" "tbs1 module-flows 1" \
		"tbd1 flows 2" "tbd1 module-flows 2" "tbs1 dumps-interrupted 5" \
		> "$d/s5/hpcc/1/load30/hpccd.after"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep '^| hpcc' "$d/report.md"
	grep '^| S5 no collapse' "$d/report.md"
	grep -A4 '^hpccd at 30' "$d/report.md"
	grep -A4 '^Dead flows at 30' "$d/report.md"
	grep -q '^| hpcc | [0-9.]* | 2\.0 / 1\.0 | 100 / 50 | 0 / 100 | 0 / 0 | 0 / 0 | 20\.00 |$' "$d/report.md" &&
	grep -q '^| hpcc | 2 | 4 | 3 | 5 | 3 |$' "$d/report.md" &&
	grep -q '^| hpcc | [0-9.]* | [0-9.]* |.* | 4 | n/a | n/a | 0 | 2\.5 | 0\.3 |$' "$d/report.md" &&
	grep -q '^| S5 no collapse at 30 % load .* | 0 of 1 runs collapsed; .* | yes |$' "$d/report.md" &&
		[ -s "$d/s5_fct_load30.png" ] || return 1
	# a second run whose handshakes waited out SYN retransmissions (the
	# connection 3 s after the start) and with a flow that never finished
	mkdir -p "$d/s5/hpcc/2/load30"
	awk '!/^#/ && $1 == 2 { $5 = $4 + 3000000; $6 = $5 + 10000 }
	     !/^#/ && $1 == 6 { $8 = "timeout" } { print }' "$W/flows" \
		> "$d/s5/hpcc/2/load30/flows.txt"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep '^| S5 no collapse' "$d/report.md"
	grep -q '^| S5 no collapse at 30 % load .* | 1 of 2 runs collapsed; .* | \*\*no\*\* |$' "$d/report.md"
}

# report.py on a tracepoint record (tcp_hpcc's hpcc_sample and hpcc_mode
# lines as the trace file shows them) filed as an S1 run: 101 samples of
# the data flow 15 ms apart at a 10 ms srtt, one fallback and one resume,
# and the iperf3 control connection's 2 samples, which are not the data
# flow: the telemetry table and target give 1.50 x srtt and 1 fallback,
# and after the first 20 samples (U 0.920-0.999 and one 0.900, W 60020 to
# 60100 bytes) U's p10/p50/p90 0.93/0.96/0.99, 20 of 81 samples at or above
# the default eta 0.98 (25 %) and W 60.1 KB.  An hpcc-rx run's 30
# receiver-based samples (hop=0/0, U=1000/1000: no U at the sender) give
# n/a for U, not 1.00 and 100 %; an hpcc-u run's 30 samples without
# records (hop=0/0, U=500/1000: the receiver's U, applied) give U 0.50
report_telemetry() {
	local d=$W/report-tl r=$W/report-tl/s1/hpcc/1 x=$W/report-tl/s1/hpcc-rx/1
	local u=$W/report-tl/s1/hpcc-u/1
	mkdir -p "$r" "$x" "$u"
	awk 'BEGIN {
		for (i = 0; i < 30; i++)
			printf "          <idle>-0       [001] ..s2.   %.6f: hpcc_sample: 198.19.0.1:6001 > 198.19.1.1:5201 step=wc U=1000/1000 W=%d Wc=%d incStage=0 hop=0/0 age_ns=100000 interval_ns=15000000 srtt_us=10000 n=0\n",
				100 + i * 0.015, 70000 + i, 70000 + i
	}' > "$x/hpcc_trace.txt"
	sed 's/U=1000\/1000/U=500\/1000/' "$x/hpcc_trace.txt" > "$u/hpcc_trace.txt"
	printf '%s\n' "rate_mbit 50" "rtt_ms 10" "long_s 10" "phase_s 5" \
		"reps 1" > "$d/meta.txt"
	awk 'BEGIN {
		f = "198.19.0.1:6001 > 198.19.1.1:5201"
		for (i = 0; i <= 100; i++)
			printf "          iperf3-321     [001] ..s2.   %.6f: hpcc_sample: %s step=wc U=%d/1000 W=%d Wc=%d incStage=%d hop=1/1 age_ns=200000 interval_ns=%d srtt_us=10000\n",
				100 + i * 0.015, f, 900 + i % 100, 60000 + i, 60000 + i, i % 5, i ? 15000000 : 0
		printf "          <idle>-0       [000] ..s2.   101.000000: hpcc_mode: %s hpcc -> fallback cwnd=40 W=60050 since_ns=40000000\n", f
		printf "          <idle>-0       [000] ..s2.   101.100000: hpcc_mode: %s fallback -> hpcc cwnd=41 W=60050 since_ns=140000000\n", f
		for (i = 0; i < 2; i++)
			printf "          iperf3-321     [000] .....   %.6f: hpcc_sample: 198.19.0.1:6000 > 198.19.1.1:5201 step=first U=1000/1000 W=62500 Wc=62500 incStage=0 hop=0/1 age_ns=100000 interval_ns=%d srtt_us=10000\n",
				100 + i, i * 1000000000
	}' > "$r/hpcc_trace.txt"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep '^| S1 \|interval between applied samples' "$d/report.md"
	grep -q '^| S1 | 101 | 15.00 | 1.50 | 0.20 | 1.0 | 0.93 / 0.96 / 0.99 | 25 % | 60.1 |$' "$d/report.md" &&
	grep -q '^| S1 median interval between applied samples <= 1.5 x srtt | 1.50 x srtt | yes |$' "$d/report.md" &&
	grep -q '^| S1 HPCC-RX | 30 | 15.00 | 1.50 | 0.10 | 0.0 | n/a / n/a / n/a | n/a | 70.0 |$' "$d/report.md" &&
	grep -q '^| S1 HPCC-U | 30 | 15.00 | 1.50 | 0.10 | 0.0 | 0.50 / 0.50 / 0.50 | 0 % | 70.0 |$' "$d/report.md" &&
		[ -s "$d/s1_hpcc_trace.png" ]
}

# report.py on guest-failures.txt: a guest that reached tools/vmrun's
# time limit (exit 124, old or new wording) is not counted as a crash
report_failures() {
	local d=$W/report-gf
	mkdir -p "$d"
	printf '%s\n' "rate_mbit 50" "rtt_ms 10" "reps 1" > "$d/meta.txt"
	printf '%s\n' "guest 1 (mttcg): vmrun exit 124, during: rep 3 s4 dctcp 847" \
		"guest 2 (mttcg): crash (vmrun exit 125, log vmrun.stderr.2), during: rep 3 s5 hpcc 30" \
		"[  12.000000] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" \
		"guest 3 (mttcg): timeout after 2400s (vmrun exit 124, log vmrun.stderr.3), during: rep 3 s5 hpcc 50" \
		> "$d/guest-failures.txt"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep 'did not finish' "$d/report.md"
	grep -q '^- guests that did not finish: 3 (1 crashed, 2 reached the time limit)' "$d/report.md"
}

# report.py on S4 runs of hpcc-fcr and dctcp (N = 16, 64 KB, no
# background): one round of two flows each (ids 1001, 1002), hpcc-fcr's
# in 40 ms with a 100 KB peak queue, 2 RTOs, 30 messages sent by the hop
# and two rates that arrived 1 and 3 ms and were applied 2 and 4 ms after
# the hop sent them (arrival p50 1 ms, nearest rank); dctcp's in
# 30 ms: the S4 row shows the FCR columns, and the FCR targets read
# 2 RTOs (not met), a peak of 100 KB of 250 (met) and a round p99 above
# dctcp's (not met)
report_s4_fcr() {
	local d=$W/report-s4 cc r
	mkdir -p "$d"
	printf '%s\n' "rate_mbit 50" "rtt_ms 10" "reps 1" "incast_rounds 1" \
		"limit 250000" > "$d/meta.txt"
	for cc in hpcc-fcr dctcp; do
		r=$d/s4/$cc/1/n16-s65536-bg0
		mkdir -p "$r"
		printf '%s\n' "# t0_us 1000000" \
			"1001 65536 tbs1 0 1000 $([ $cc = dctcp ] && echo 31000 || echo 41000) 0 ok" \
			"1002 65536 tbs2 0 1000 20000 0 ok" > "$r/flows.txt"
		printf '%s\n' "0 0" "10 $([ $cc = dctcp ] && echo 30000 || echo 100000)" "20 0" \
			> "$r/queue.tsv"
		printf '%s\n' "TCPTimeouts 0" > "$r/counters.before"
		printf '%s\n' "TCPTimeouts $([ $cc = dctcp ] && echo 0 || echo 2)" \
			> "$r/counters.after"
	done
	r=$d/s4/hpcc-fcr/1/n16-s65536-bg0
	printf '%s\n' "hop_sent 10" "fcr-accepted 5" > "$r/fcr.before"
	printf '%s\n' "hop_sent 40" "fcr-accepted 33" > "$r/fcr.after"
	printf '%s\n' \
		"          <idle>-0       [000] ..s2.   10.000000: hpcc_fcr: 198.19.0.1:6001 > 198.19.1.1:5201 rate=2968750 delay_ns=2000000 rx_ns=1000000 cwnd=2 pacing=371093" \
		"          <idle>-0       [000] ..s2.   10.010000: hpcc_fcr: 198.19.0.2:6002 > 198.19.1.1:5201 rate=2968750 delay_ns=4000000 rx_ns=3000000 cwnd=2 pacing=371093" \
		> "$r/hpcc_trace.txt"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep '^| 16 \|^| S4 hpcc-fcr' "$d/report.md"
	grep -q '^| 16 | 64 KB | no | hpcc-fcr | .* | 40 | 40 | 40 | 2 | .* | 100 | 0 | 30 / 2 | 1.0 | 2.0 / 4.0 |$' "$d/report.md" &&
	grep -q '^| 16 | 64 KB | no | dctcp | .* | 30 | 30 | 30 | 0 | .* | 30 | 0 |  |  |  |$' "$d/report.md" &&
	grep -q '^| S4 hpcc-fcr no RTO at N = 16 (all runs) | 2 RTOs | \*\*no\*\* |$' "$d/report.md" &&
	grep -q '^| S4 hpcc-fcr peak queue <= half the buffer (every case) | 100 KB of 250 | yes |$' "$d/report.md" &&
	grep -q '^| S4 hpcc-fcr round p99 <= dctcp.s (every case) | 16-65536-0: 40 vs 30 ms | \*\*no\*\* |$' "$d/report.md"
}

# a ping flow A -> B for 0.5 s at 10 ms beside a sized flow: about 50
# messages, every one answered (a sample each, seq 0.. in order, sent 10
# ms apart on average: epoll's millisecond wait makes each up to 1 ms
# late, the grid keeps the mean), ok, its size 8 x messages; and bad ping sizes
# (p0, p-5, px, above 10 s) exit 2
fctgen_ping() {
	local z
	printf '%s\n' "7 0 $A $B 198.18.200.2 p10000 500000" \
		"8 100000 $A $B 198.18.200.2 1000 0" |
		"$FG" -o "$W/pg.txt" -P "$W/pg.pings" || return 1
	cat "$W/pg.txt"
	awk '{ if ($1 != 7 || $2 != NR - 1 || $4 < 0 || $4 > 100000) bad = 1
	       if (NR == 1) t0 = $3; t1 = $3 }
	     END { gap = (t1 - t0) / (NR - 1)
		   printf "pings %d bad %d mean gap %.0f us\n", NR, bad, gap
		   exit !(NR >= 45 && NR <= 51 && !bad && gap > 9500 && gap < 10500) }' "$W/pg.pings" &&
	awk -v n="$(wc -l < "$W/pg.pings")" '$1 == 7 { ok = $8 == "ok" && $2 == 8 * n }
		END { exit !ok }' "$W/pg.txt" || return 1
	for z in p0 p-5 px p20000000; do
		echo "1 0 $A $B 198.18.200.2 $z 100000" | "$FG" -o "$W/pz.txt" 2> /dev/null
		[ $? = 2 ] || { echo "$z accepted"; return 1; }
	done
}

# report.py when a one-packet flow completes in less than its serialization
# time at the nominal rate (an unshaped path, as fctgen's test on the host):
# the base RTT is not negative, and no slowdown is
report_s5_fast() {
	local d=$W/report-fast
	mkdir -p "$d/s5/hpcc/1/load30"
	printf '%s\n' "rate_mbit 50" "rtt_ms 10" "long_s 10" "phase_s 5" \
		"incast_rounds 5" "fct_flows 3" "fct_scale 40" "fct_loads 30" \
		"reps 1" > "$d/meta.txt"
	# flow 2: 1448 B in 100 us, 231 us at 50 Mbit/s
	printf '%s\n' "# t0_us 0" "1 1 a 0 100 400 0 ok" \
		"2 1448 a 1000 1100 1200 0 ok" "3 65536 a 2000 2100 14000 0 ok" \
		> "$d/s5/hpcc/1/load30/flows.txt"
	/usr/bin/python3 "$TOP/tools/bench/report.py" "$d" > /dev/null || return 1
	grep '^Slowdown' "$d/report.md" | grep -o 'base RTT, [^ ]* ms'
	grep '^| hpcc' "$d/report.md"
	grep -q '^Slowdown.*base RTT, [0-9.]* ms' "$d/report.md" &&
		grep -q '^| hpcc | [0-9.]* | [0-9.]* | [0-9.]* |' "$d/report.md" &&
		! grep '^| hpcc' "$d/report.md" | grep -q -- '-[0-9]'
}

ktap_print_header
# ccm_report.py on two synthetic runs of tools/bench/ccm.sh (B 10 Mbit/s,
# two flows): hpcc-ccm-1, u1 full and u2 idle for 2 s after t_add, then
# both full to the end, 17 s after t_add (fabric 32 of 34 s: 94 %; the
# second from 1.8 s on averages 0.8 x B on u2: resolve 1.8 s), flows of 6
# and 2 Mbit/s (Jain 0.8), 5 path changes, 2 the host rule's, 3 of them
# at or after t_add by its trace (t0_mono 50: t_add at 53.0 on the trace's
# clock; records at 51.0, 52.5, 53.0, 60.0, 70.0); dctcp-plb-1, u2 never
# above half (never resolved), 1 change, no own column, no trace ("-").  incast-hpcc-ccm-1: the incast
# flows (1, 2) changed nothing, the collided ones 3 and 1 times, 8 Mbit/s
# each pair.  hpcc-ccms-1: hpcc-ccm-1's run with the sampler going on
# 15 s after the flows ended (t0 + 20 s): the same figures, not a last
# 10 s of nothing.  flap-hpcc-ccm-1: 20 s flows changed 4, 1 and 0 times (0.20
# per s at most, 5 in all), 5 Mbit/s each (75 % of 2 x B, Jain 1.00),
# its UDP 6.25 Mbit/s (printed 6.2).
report_ccm() {
	local d=$W/ccm
	mkdir -p "$d/hpcc-ccm-1" "$d/hpcc-ccms-1" "$d/dctcp-plb-1" "$d/incast-hpcc-ccm-1" \
		"$d/flap-hpcc-ccm-1" || return 1
	printf '%s\n' "leafspine: 2 senders, 2 spines, uplinks tbf 10 Mbit/s bfifo 1000 B, netem 10 ms" \
		"flows 2 x 20 s, spine 2 added at 3 s" > "$d/setup.txt"
	python3 - "$d" <<'EOF' || return 1
import json, os, sys
d = sys.argv[1]
def run(name, u2_rate, resolve_at, changes, own, rates, per_flow=None,
        udp=None, idle=0, trace=None):
    r = os.path.join(d, name)
    if trace is not None:
        with open(os.path.join(r, "ccm_trace.txt"), "w") as f:
            for t in trace:
                f.write("          <idle>-0       [000] .Ns2.   %.6f: hpcc_ccm: "
                        "[fd00:18:1::1]:4000 > [fd00:19:1::1]:5201 u=1 note=0\n" % t)
    with open(os.path.join(r, "meta.txt"), "w") as f:
        f.write("variant x\nt0 100.0\nt0_mono 50.0\nt_add 103.0\npath_changes %d\n" % changes)
        if udp is not None:
            f.write("udp_mbit %.2f\n" % udp)
        if own is not None:
            f.write("own_changes %d\n" % own)
        if per_flow is not None:
            f.write("flow_changes %s\n" % " ".join(map(str, per_flow)))
    a = b = 0
    with open(os.path.join(r, "rates.raw"), "w") as f:
        for i in range(0, 201 + idle * 10):
            t = 100.0 + i * 0.1
            f.write("%.1f %d %d\n" % (t, a, b))
            if t >= 120.0:
                continue
            a += 10e6 / 8 * 0.1
            b += (u2_rate if t >= 103.0 + resolve_at else 0) / 8 * 0.1
    for i, x in enumerate(rates, 1):
        with open(os.path.join(r, "flow%d.json" % i), "w") as f:
            json.dump({"end": {"sum_received": {"bits_per_second": x}}}, f)
run("hpcc-ccm-1", 10e6, 2.0, 5, 2, [6e6, 2e6],
    trace=[51.0, 52.5, 53.0, 60.0, 70.0])
run("dctcp-plb-1", 4e6, 0.0, 1, None, [4e6, 4e6])
# as hpcc-ccm-1, but the sampler ran 15 s past the flows' end
run("hpcc-ccms-1", 10e6, 2.0, 5, 2, [6e6, 2e6], idle=15)
run("incast-hpcc-ccm-1", 10e6, 2.0, 4, 1, [4e6, 4e6, 6e6, 2e6], [0, 0, 3, 1])
run("flap-hpcc-ccm-1", 10e6, 0.0, 5, 2, [5e6, 5e6, 5e6], [4, 1, 0], 6.25)
EOF
	python3 "$TOP/tools/bench/ccm_report.py" "$d" > "$W/ccm.md" || return 1
	cat "$W/ccm.md"
	grep -q '^| hpcc-ccm | 1 | 94 \[94-94\] | 100 \[100-100\] | 1\.8 \[1\.8-1\.8\] | 5 \[5-5\] (own 2 \[2-2\]) | 3 \[3-3\] | 40 \[40-40\] | 0\.80 \[0\.80-0\.80\] |$' "$W/ccm.md" &&
		grep -q '^| hpcc-ccms | 1 | 94 \[94-94\] | 100 \[100-100\] | 1\.8 \[1\.8-1\.8\] |' "$W/ccm.md" &&
		grep -q '^| dctcp-plb | 1 | 70 \[70-70\] | 70 \[70-70\] | never | 1 \[1-1\] | - | 40 \[40-40\] | 1\.00 \[1\.00-1\.00\] |$' "$W/ccm.md" &&
		grep -q '^| hpcc-ccm | 1 | 0 \[0-0\] | 4 \[4-4\] | 8\.0 \[8\.0-8\.0\] | 8\.0 \[8\.0-8\.0\] | 94 \[94-94\] |$' "$W/ccm.md" &&
		grep -q '^| hpcc-ccm | 1 | 0\.20 \[0\.20-0\.20\] | 5 \[5-5\] | 75 \[75-75\] | 1\.00 \[1\.00-1\.00\] | 6\.2 \[6\.2-6\.2\] |$' "$W/ccm.md"
}

ktap_set_plan 13
t "report.py: guest failures, timeouts apart from crashes" report_failures
t "schedule.py poisson: 2000 flows, arrival rate for 30 % load, scaled sizes" poisson_load
t "schedule.py incast: rounds of N at one time, background flow, gaps" incast_rounds
t "report.py: hpcc's telemetry table, target and plot from a tracepoint record" report_telemetry
t "report.py: S4 with hpcc-fcr, its FCR columns and issue 19's targets" report_s4_fcr
t "schedule.py many: the FCR draft's 8.1 test, load, senders, latency messages" many_load
t "report.py: S7 beside the draft's table, mixed mode's Jain and CE marks" report_s7
t "ccm_report.py: fabric use, resolve time, path changes (own, after t_add), goodput, Jain" report_ccm
t "report.py: S5 on a path faster than its nominal rate, no negative slowdown" report_s5_fast
if fg_pair; then
	t "fctgen: six flows complete, bins add up to each size" fctgen_flows
	t "fctgen: bad schedule lines exit 2" fctgen_rejects
	t "fctgen: a ping flow's messages each answered and timed, bad periods refused" fctgen_ping
	t "report.py: S5 table and plot from fctgen results" report_s5
else
	ktap_test_skip "fctgen: six flows (needs root and netns)"
	ktap_test_skip "fctgen: bad schedule lines (needs root and netns)"
	ktap_test_skip "fctgen: a ping flow (needs root and netns)"
	ktap_test_skip "report.py: S5 (needs fctgen results)"
fi
ktap_finished
