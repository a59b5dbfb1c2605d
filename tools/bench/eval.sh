#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/eval.sh [--quick] OUT - the evaluation suite's measurements
# (`make bench`, `make bench-quick`).  Runs as root in a guest (tools/vmrun):
# builds the testbed's dumbbell of 8 senders and 8 receivers once
# (tools/testbed/testbed.sh), then runs every scenario with each of hpcc,
# cubic, bbr and dctcp, REPS times, the (scenario, cc) pairs of each
# repetition in a random order (OUT/order.txt).  Raw results only:
# OUT/SCENARIO/CC/REP/ (queue samples, iperf3 JSON, fctgen results,
# tcpsample samples, counters); tools/bench/report.py turns them into the
# report.
# Documentation/evaluation.rst describes the scenarios and metrics.
#
# Resumable: a finished pair leaves OUT/SCENARIO/CC/REP/.done, and a run on
# an OUT that has meta.txt skips the finished pairs (same settings, same
# order), so that tools/bench/run can boot a new guest and go on after a
# guest crash.
#
# Environment: BENCH_CCS (default "hpcc cubic bbr dctcp"), BENCH_REPS,
# BENCH_SCENARIOS (default "s1 s2 s3 s4 s5 s6 s1v6 s2v6"; s1v6 and s2v6
# are S1 and S2 over IPv6, in the same dual-stack testbed; s1ioam and
# s2ioam the same with the router's IOAM as the telemetry; s7, the FCR
# draft's many-to-one test, runs only when named), BENCH_SEED,
# BENCH_RED_K,
# BENCH_FCT_SCALE, BENCH_WORKLOAD, BENCH_INCAST_N (S4's N, default "8" quick,
# "8 16 32" full), BENCH_COMMIT (tools/bench/run sets it).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
OUT=${1:?usage: eval.sh [--quick] OUT}
. "$TOP/tools/testbed/testbed.sh"
trap tb_down EXIT

CCS=${BENCH_CCS:-hpcc cubic bbr dctcp}
SCENARIOS=${BENCH_SCENARIOS:-s1 s2 s3 s4 s5 s6 s1v6 s2v6}
# both families on every link; every flow IPv4 but s1v6's and s2v6's
TB_FAMILY=dual
TB_FLOW_FAMILY=4
SEED=${BENCH_SEED:-1}
# dctcp's marking threshold K at the bottleneck: RED with min = K, max =
# K + 1, probability 1, ecn.  DCTCP's guideline is K > C * RTT / 7 (8.9 KB
# here); 20 KB (14 packets) leaves room for the token bucket's bursts.
RED_K=${BENCH_RED_K:-20000}
if [ $quick = 1 ]; then
	REPS=${BENCH_REPS:-1}
	LONG=5			# s1, s2: seconds per run
	PHASE=3			# s3: seconds between joins; s6: per rate
	INCAST_N=${BENCH_INCAST_N:-8}
	INCAST_ROUNDS=2
	FCT_FLOWS=300
else
	REPS=${BENCH_REPS:-3}
	LONG=10
	PHASE=5
	INCAST_N=${BENCH_INCAST_N:-8 16 32}
	INCAST_ROUNDS=5
	FCT_FLOWS=2000
fi
FCT_SCALE=${BENCH_FCT_SCALE:-40}	# websearch sizes divided by this
FCT_LOADS="30 50"
# s7: the FCR draft's loads (section 8.1), its long flows' size
MANY_LOADS="30 50 80 100"
MANY_SIZE=262144
WORKLOAD=${BENCH_WORKLOAD:-$TOP/../shared/workloads/websearch.cdf}
HOSTS=8

[ -r "$WORKLOAD" ] || { echo "eval: no workload $WORKLOAD (BENCH_WORKLOAD)" >&2; exit 1; }
mkdir -p "$OUT"
resumed=0
[ -s "$OUT/meta.txt" ] && resumed=1
[ $resumed = 1 ] || {
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel $(uname -r)"
	# (from tools/bench/run: git in the guest sees a read-only tree and
	# cannot refresh its index, so it calls every tree dirty)
	echo "commit ${BENCH_COMMIT:-$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)}"
	echo "cpus $(nproc)"
	echo "quick $quick"
	echo "reps $REPS"
	echo "ccs $CCS"
	echo "scenarios $SCENARIOS"
	echo "rate_mbit $TB_RATE_MBIT"
	echo "rtt_ms $TB_RTT_MS"
	echo "burst $TB_BURST"
	echo "limit $TB_LIMIT"
	echo "red_k $RED_K"
	echo "long_s $LONG"
	echo "phase_s $PHASE"
	echo "incast_n $INCAST_N"
	echo "incast_rounds $INCAST_ROUNDS"
	echo "fct_flows $FCT_FLOWS"
	echo "fct_scale $FCT_SCALE"
	echo "fct_loads $FCT_LOADS"
	echo "many_loads $MANY_LOADS"
	echo "many_size $MANY_SIZE"
	echo "workload $(basename "$WORKLOAD")"
	echo "hpcc_params $TB_HPCC_PARAMS"
} > "$OUT/meta.txt"

modprobe tcp_bbr && modprobe tcp_dctcp && modprobe tcp_hpcc || exit 1
# Only the initial netns may make a restricted algorithm (hpcc, bbr,
# dctcp) another netns's default: allow them all, once loaded.
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_available_congestion_control)" || exit 1
tb_up dumbbell $HOSTS || { echo "eval: testbed failed" >&2; exit 1; }
[ $resumed = 1 ] || tb_describe >> "$OUT/meta.txt"
[ $resumed = 1 ] && echo "resumed $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${BENCH_COMMIT:-?}" >> "$OUT/meta.txt"

# kcc CC - the kernel's name of CC: hpcc-n is hpcc with n-flows-source
# reported (each flow's W_ai from the N its receiver reports:
# Documentation/algorithm.rst, "Receiver-reported N"); hpcc-ss is hpcc
# with start slow-start (design.rst, "The control law in the kernel");
# hpcc-e is hpcc with ewma-period 200, U averaged over 2 T
# (algorithm.rst, "U's period");
# hpcc-q and hpcc-w are hpcc with the bottleneck hop's tx-model qdisc and
# wire, whatever the testbed's (TB_TX_MODEL; Documentation/testbed.rst,
# "The hop's tx-model"); hpcc-m0 and hpcc-m2 are hpcc with max-stage 0
# (every update multiplicative) and 2; hpcc-fcr is hpcc with Fast
# Congestion Response on the bottleneck and every sender (tb_fcr);
# hpcc-rx is hpcc run receiver-based (the senders' probes ask the
# receivers' hpccd for W, tb_rx; Documentation/design.rst); hpcc-u is
# hpcc with private responses that carry only U (tb_private: the
# receivers measure U on the records they withhold);
# hpcc-fcrq is hpcc-fcr with the hop's rate counting its queue (fcr-drain
# T, the base RTT plus 2 ms; design.rst, "Fast Congestion Response");
# hpcc-fcrmix is FCR's mixed mode: only tbs1..tbs4 announce FCR support,
# and every host sets net.ipv4.tcp_ecn=1 so that the other senders' flows
# are ECN-capable and take the hop's CE marks instead (the draft's
# sections 3.3 and 4; hpcc reacts to ECE as Reno does, hpcc_ssthresh())
kcc() {
	case $1 in hpcc-n|hpcc-ss|hpcc-e|hpcc-q|hpcc-w|hpcc-m0|hpcc-m2|hpcc-fcr|hpcc-fcrq|hpcc-fcrmix|hpcc-rx|hpcc-u) echo hpcc ;;
	*) echo "$1" ;; esac
}

# bench_cc CC - make CC every host's default; dctcp gets ECN and RED; hpcc
# and its variants get their n-flows-source, start, ewma-period and
# max-stage (the testbed's, TB_HPCC_PARAMS, unless the variant's), and the
# hop its tx-model (TB_TX_MODEL, or the variant's)
bench_cc() {
	local cc=$1 ns ecn=2 src=configured start=line-rate ewma ms txm=$TB_TX_MODEL
	ewma=$(echo "$TB_HPCC_PARAMS" | sed -n 's/.*ewma-period \([0-9]*\).*/\1/p')
	ewma=${ewma:-100}
	ms=$(echo "$TB_HPCC_PARAMS" | sed -n 's/.*max-stage \([0-9]*\).*/\1/p')
	ms=${ms:-5}
	[ "$cc" = hpcc-m0 ] && ms=0
	[ "$cc" = hpcc-m2 ] && ms=2
	[ "$cc" = dctcp ] && ecn=1
	[ "$cc" = hpcc-fcrmix ] && ecn=1
	[ "$cc" = hpcc-n ] && src=reported
	[ "$cc" = hpcc-ss ] && start=slow-start
	[ "$cc" = hpcc-e ] && ewma=200
	[ "$cc" = hpcc-q ] && txm=qdisc
	[ "$cc" = hpcc-w ] && txm=wire
	ip netns exec tbr "$TB_BIN/hpccctl" int change dev br0 tx-model "$txm" ||
		return 1
	if [ "$cc" = hpcc-fcr ]; then
		tb_fcr on || return 1
	elif [ "$cc" = hpcc-fcrq ]; then
		TB_FCR_DRAIN=$(((TB_RTT_MS + 2) * 1000)) tb_fcr on || return 1
	elif [ "$cc" = hpcc-fcrmix ]; then
		tb_fcr on $((HOSTS / 2)) || return 1
	elif [ "$(cat "$TB_TMP/fcr")" != off ]; then
		tb_fcr off || return 1
	fi
	# receiver-based HPCC for hpcc-rx only
	if [ "$cc" = hpcc-rx ]; then
		tb_rx on || return 1
	elif [ "$(cat "$TB_TMP/rx" 2>/dev/null)" = on ]; then
		tb_rx off || return 1
	fi
	# only U for hpcc-u only
	if [ "$cc" = hpcc-u ]; then
		tb_private on || return 1
	elif [ "$(cat "$TB_TMP/private" 2>/dev/null)" = on ]; then
		tb_private off || return 1
	fi
	for ns in $(tb_ns_all); do
		[ "$ns" = tbr ] && continue
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$(kcc "$cc")" \
			net.ipv4.tcp_ecn=$ecn || return 1
		case $cc in hpcc*)
			ip netns exec "$ns" "$TB_BIN/hpccctl" param set \
				n-flows-source $src start $start \
				ewma-period "$ewma" max-stage "$ms" || return 1 ;;
		esac
	done
	if [ "$cc" = dctcp ]; then
		# (a child of another kind needs another handle)
		ip netns exec tbr tc qdisc replace dev br0 parent 1:1 handle 20: \
			red limit "$TB_LIMIT" min "$RED_K" max $((RED_K + 1)) \
			avpkt 1500 burst $((RED_K / 1500 + 1)) probability 1 ecn \
			bandwidth "${TB_RATE_MBIT}mbit"
	else
		ip netns exec tbr tc qdisc replace dev br0 parent 1:1 handle 10: \
			bfifo limit "$TB_LIMIT"
	fi
}

# bench_counters FILE - TcpExt counters summed over the senders (fctgen -c
# reads the same ones itself; TCPSynRetrans: SYNs sent again, a lost SYN or
# SYN-ACK; an RTO increments TCPTimeouts only when it fires in Open without
# SACKed data, and one of the five *Fail* counters otherwise (tcp_timer.c,
# tcp_retransmit_timer()), so all six are kept)
bench_counters() {
	local ns
	for ns in $(tb_ns_all); do
		case $ns in tbs*) ;; *) continue ;; esac
		ip netns exec "$ns" cat /proc/net/netstat
	done | awk '/^TcpExt:/ { if (!h) { for (i = 2; i <= NF; i++) n[i] = $i; h = 1 }
			else { for (i = 2; i <= NF; i++) s[n[i]] += $i; h = 0 } }
		END { split("TCPTimeouts TCPLossProbes TCPSpuriousRTOs TCPSACKReorder " \
			    "TCPSynRetrans TCPSackRecoveryFail TCPSackFailures " \
			    "TCPLossFailures TCPRenoRecoveryFail TCPRenoFailures", c, " ")
		      for (i = 1; i in c; i++) print c[i], s[c[i]] + 0 }' > "$1"
}

# bench_drops - "bottleneck_drops N": the packets the bottleneck's root
# qdisc (tbf, its own and its child's) has dropped
bench_drops() {
	ip netns exec tbr tc -s qdisc show dev br0 | awk '
		/^qdisc tbf 1: root/ { root = 1; next }
		/^qdisc/ { root = 0 }
		root && /dropped/ { sub(/,$/, "", $7); print "bottleneck_drops", $7 + 0; exit }'
}

# bench_cpu FILE - the guest's CPU time so far (/proc/stat, in USER_HZ
# ticks: busy is user + nice + system + irq + softirq + steal, total adds
# idle and iowait) and the hpccd processes' (utime + stime, every
# namespace's daemon), for the cost of a run against another cc's
bench_cpu() {
	local p stats=()
	for p in $(pgrep -x hpccd); do
		[ -e "/proc/$p/stat" ] && stats+=("/proc/$p/stat")
	done
	{
		awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8 + $9
			print "cpu_busy_ticks", b; print "cpu_total_ticks", b + $5 + $6 }' /proc/stat
		# one awk for every daemon (a process start costs a TCG guest
		# 70-90 ms)
		awk '{ s += $14 + $15 } END { print "hpccd_ticks", s + 0 }' \
			"${stats[@]}" < /dev/null 2>/dev/null
	} > "$1"
}

# bench_hpccd FILE [after] - every namespace's hpccd: "NS ticks N" (utime +
# stime, USER_HZ) and its work counters, "NS COUNTER N" (SIGUSR1 writes
# them to TB_TMP/NS.hpccd.stats, renamed into place when complete), for
# what hpccd's CPU buys per namespace; and for dead flows its resyncs,
# flows-reconciled (flows a
# reconcile found it held and the module no longer had) and
# dumps-interrupted (reconciles whose dump the table changed under, which
# then looked its unlisted flows up one by one), with two gauges:
# "NS flows N", the flows in hpccd's table, and, in the "after" record
# (the only one report.py reads gauges from), "NS module-flows N", the
# module's (hpccctl stats) in that namespace.
#
# Every daemon is signalled at once and read by one awk, with no process
# started per namespace but the "after" record's hpccctl: a loop that
# starts about ten processes for each of 16 namespaces takes 14-15 s per
# record in a loaded guest, 30 s of every fctgen run (S4's 10 cases:
# 400 s of each algorithm's 520; a full run took 62 minutes per
# repetition with such a loop, against 28 without the records)
bench_hpccd() {
	local f ns p c i all nss=() pids=() args=()
	for f in "$TB_TMP"/*.hpccd.pid; do
		[ -e "$f" ] || continue
		ns=${f##*/}
		ns=${ns%.hpccd.pid}
		read -r p < "$f" || continue
		{ read -r c < "/proc/$p/comm"; } 2>/dev/null || continue
		[ "$c" = hpccd ] || continue
		rm -f "$TB_TMP/$ns.hpccd.stats"
		nss+=("$ns")
		pids+=("$p")
	done
	: > "$1"
	[ ${#pids[@]} -gt 0 ] || return 0
	kill -USR1 "${pids[@]}" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		all=1
		for ns in "${nss[@]}"; do
			[ -s "$TB_TMP/$ns.hpccd.stats" ] || { all=0; break; }
		done
		[ $all = 1 ] && break
		sleep 0.02
	done
	# mawk stops at a file it cannot open: skip a daemon gone since
	for i in "${!nss[@]}"; do
		[ -e "/proc/${pids[i]}/stat" ] || continue
		args+=("ns=${nss[i]}" "/proc/${pids[i]}/stat")
		[ -s "$TB_TMP/${nss[i]}.hpccd.stats" ] &&
			args+=("$TB_TMP/${nss[i]}.hpccd.stats")
	done
	awk '
	FILENAME ~ /^\/proc\// { print ns, "ticks", $14 + $15; next }
	/^(probes-sent|probes-received|probes-timed-out|responses-sent|responses-received|events|telemetry-pushed|flows-added|resyncs|flows-reconciled|dumps-interrupted|flows)=/ {
		split($0, kv, "="); print ns, kv[1], kv[2] }' "${args[@]}" < /dev/null \
		2>/dev/null > "$1"
	[ "${2:-}" = after ] || return 0
	for ns in "${nss[@]}"; do
		ip netns exec "$ns" "$TB_BIN/hpccctl" stats 2>/dev/null |
			awk -v ns="$ns" '$1 == "flows" { print ns, "module-flows", $2 }'
	done >> "$1"
}

# bench_fctgen DIR [fctgen options] < SCHEDULE - run a schedule, with
# queue samples, counters, the bottleneck's drops, CPU time and, with
# hpccd running, its per-namespace CPU and counters
bench_fctgen() {
	bench_fctgen_before "$1"
	bench_fctgen_run "$@"
}

# bench_fctgen_before DIR - the queue sampler and the "before" records
# (16 hpccd statistics dumps, which can take seconds in a loaded guest,
# so a run that times events from its flows' start takes them before it
# starts)
bench_fctgen_before() {
	tb_qsample "$1"
	bench_cpu "$1/cpu.before"
	bench_hpccd "$1/hpccd.before"
	bench_drops > "$1/drops.before"
}

# bench_fctgen_run DIR [fctgen options] < SCHEDULE - fctgen, then the
# "after" records
bench_fctgen_run() {
	local dir=$1
	shift
	"$TB_BIN/fctgen" -o "$dir/flows.txt" -c "$dir/counters" "$@" \
		> "$dir/fctgen.log" 2>&1
	echo "fctgen $?" >> "$dir/status"
	bench_drops > "$dir/drops.after"
	bench_cpu "$dir/cpu.after"
	bench_hpccd "$dir/hpccd.after" after
	tb_qstop
}

# Recording tcp_hpcc's tracepoints (hpcc_sample, hpcc_mode:
# Documentation/admin-guide.rst, "Tracepoints") on CLOCK_MONOTONIC, the
# clock of qsample, tcpsample and fctgen; a record per applied sample and
# per mode change, written by the ACK path itself.
#
# Enabling a trace event patches kernel text (its static key; and, with
# the record-cmd option, the sched_switch tracepoint in __schedule), and
# patching text while other vCPUs run it can crash an mttcg guest (an
# int3 Oops in __schedule+0x339 during S1 with hpcc, with the events
# enabled and disabled around every run).  So bench_trace_setup
# enables them once, with record-cmd off, before any run, and each run
# only switches the ring buffer (tracing_on, a flag, no patching).
TRACEFS=/sys/kernel/tracing
bench_trace_setup() {
	case " $CCS " in *" hpcc"*) ;; *) return 0 ;; esac
	mountpoint -q $TRACEFS || mount -t tracefs nodev $TRACEFS || return 1
	echo 0 > $TRACEFS/tracing_on &&
	echo 0 > $TRACEFS/options/record-cmd &&
	echo mono > $TRACEFS/trace_clock &&
	echo 16384 > $TRACEFS/buffer_size_kb &&
	echo > $TRACEFS/trace &&
	echo 1 > $TRACEFS/events/hpcc/enable
}

# bench_trace_on CC - for hpcc, start recording
bench_trace_on() {
	case $1 in hpcc*) ;; *) return 0 ;; esac
	echo > $TRACEFS/trace &&
	echo 1 > $TRACEFS/tracing_on
}

# bench_trace_off CC DIR - stop recording; DIR/hpcc_trace.txt, and the
# records the ring buffer lost (overrun) in DIR/status
bench_trace_off() {
	case $1 in hpcc*) ;; *) return 0 ;; esac
	echo 0 > $TRACEFS/tracing_on
	cat $TRACEFS/trace > "$2/hpcc_trace.txt"
	echo "trace_overrun $(cat $TRACEFS/per_cpu/cpu*/stats |
		awk '/^overrun:/ { n += $2 } END { print n + 0 }')" >> "$2/status"
	echo > $TRACEFS/trace
}

# s1: one long flow; the sender's cwnd, pacing rate and RTT every 100 ms
# (s1v6: over IPv6)
s1() {
	local cc=$1 dir=$2 spid fam=()
	[ "$TB_FLOW_FAMILY" = 6 ] && fam=(-6)
	ip netns exec tbs1 "$TB_BIN/tcpsample" -p 5201 "${fam[@]}" -o "$dir/tcp.tsv" &
	spid=$!
	bench_counters "$dir/counters.before"
	bench_cpu "$dir/cpu.before"
	bench_hpccd "$dir/hpccd.before"
	bench_trace_on "$cc"
	tb_run "$(kcc "$cc")" 1 "$LONG" "$dir"
	echo "tb_run $?" >> "$dir/status"
	bench_trace_off "$cc" "$dir"
	bench_cpu "$dir/cpu.after"
	bench_hpccd "$dir/hpccd.after" after
	bench_counters "$dir/counters.after"
	kill -INT "$spid"
	wait "$spid"
}

# s2: 2 and 8 long flows, from 2 or 8 senders to as many receivers (with
# FCR, its counters: fcr.before, fcr.after); S1 and S2 record the guest's
# CPU and every hpccd's (cpu.*, hpccd.*: the CPU per flow of sender- and
# receiver-based hpcc)
s2() {
	local cc=$1 dir=$2 n
	for n in 2 8; do
		mkdir -p "$dir/n$n"
		bench_fcr_if "$cc" "$dir/n$n/fcr.before"
		bench_cpu "$dir/n$n/cpu.before"
		bench_hpccd "$dir/n$n/hpccd.before"
		tb_run "$(kcc "$cc")" "$n" "$LONG" "$dir/n$n"
		echo "tb_run $?" >> "$dir/n$n/status"
		bench_cpu "$dir/n$n/cpu.after"
		bench_hpccd "$dir/n$n/hpccd.after" after
		bench_fcr_if "$cc" "$dir/n$n/fcr.after"
	done
}

s1v6() {
	local TB_FLOW_FAMILY=6
	s1 "$@"
}

s2v6() {
	local TB_FLOW_FAMILY=6
	s2 "$@"
}

# s1ioam, s2ioam: s1v6 and s2v6 with the router's own IOAM (a stock Linux
# transit node) as the telemetry instead of hpcc_int's records
# (tb_telemetry): no txBytes, U from the queue alone, B from a capacity
# line (Documentation/algorithm.rst, "Partial telemetry")
s1ioam() {
	local TB_FLOW_FAMILY=6 rc
	tb_telemetry ioam || return 1
	s1 "$@"
	rc=$?
	tb_telemetry int
	return $rc
}

s2ioam() {
	local TB_FLOW_FAMILY=6 rc
	tb_telemetry ioam || return 1
	s2 "$@"
	rc=$?
	tb_telemetry int
	return $rc
}

# s3: 4 flows join every PHASE s and leave in reverse; 100 ms bins
s3() {
	local cc=$1 dir=$2 f p=$((PHASE * 1000000))
	for f in 1 2 3 4; do
		echo "$f $(((f - 1) * p)) tbs$f tbd$f 198.19.0.$f 0 $(((8 - f) * p))"
	done > "$dir/schedule.txt"
	bench_trace_on "$cc"
	bench_fctgen "$dir" -b 100 -B "$dir/bins.txt" < "$dir/schedule.txt"
	bench_trace_off "$cc" "$dir"
}

# bench_fcr FILE - FCR counters (hpcc-fcr): the bottleneck hop's (br0's
# fcr-sent, fcr-rounds, fcr-dropped, ce-marked, not-ect, sender-max,
# sender-limited) and the senders'
# tcp_hpcc ones summed (fcr-accepted, fcr-no-flow, fcr-bad-seq, ...), a
# "name value" line each
bench_fcr() {
	local ns
	{
		ip netns exec tbr "$TB_BIN/hpccctl" int show | awk '
			$1 == "br0" { dev = 1; next } $1 == "fcr" && dev { next }
			dev && $1 == "sent" { for (i = 1; i < NF; i += 2) print "hop_" $i, $(i + 1); next }
			dev && $1 == "sender-max" { for (i = 1; i < NF; i += 2) print "hop_" $i, $(i + 1); dev = 0 }'
		for ns in $(tb_ns_all); do
			case $ns in tbs*) ;; *) continue ;; esac
			ip netns exec "$ns" "$TB_BIN/hpccctl" stats
		done | awk '$1 ~ /^fcr-/ { s[$1] += $2 } END { for (k in s) print k, s[k] }'
	} > "$1"
}

# bench_fcr_if CC FILE - bench_fcr FILE for the FCR variants
bench_fcr_if() {
	case $1 in hpcc-fcr*) bench_fcr "$2" ;; esac
}

# s4: incast N-to-1, sizes 64 KB and 1 MB/N per sender, without and with
# one long background flow (tbs8 -> tbd1); the N connections of a round are
# spread over the 8 senders; hpcc's tracepoints are recorded (hpcc_trace.txt)
s4() {
	local dir=$2 n size bg sub
	for n in $INCAST_N; do
		for size in 65536 $((1048576 / n)); do
			for bg in 0 1; do
				sub=$dir/n$n-s$size-bg$bg
				mkdir -p "$sub"
				cp "$OUT/schedules/incast-n$n-s$size-bg$bg.txt" \
					"$sub/schedule.txt" || return 1
				bench_fcr_if "$1" "$sub/fcr.before"
				bench_trace_on "$1"
				bench_fctgen "$sub" < "$sub/schedule.txt"
				bench_trace_off "$1" "$sub"
				bench_fcr_if "$1" "$sub/fcr.after"
			done
		done
	done
}

# s5: Poisson arrivals of websearch-sized flows at 30 % and 50 % load
s5() {
	local dir=$2 load sub
	for load in $FCT_LOADS; do
		sub=$dir/load$load
		mkdir -p "$sub"
		cp "$OUT/schedules/poisson-load$load-rep$REP.txt" "$sub/schedule.txt" ||
			return 1
		bench_fctgen "$sub" < "$sub/schedule.txt"
	done
}

# s7: the FCR draft's section 8.1 test scaled to the testbed
# (tools/bench/schedule.py's "many"): tbs1..tbs5 send MANY_SIZE-byte
# flows to tbd1 at MANY_LOADS % offered load (Poisson arrivals), tbs6 an
# 8-byte message every 5 ms on one connection for latency (fctgen's ping
# flow; each answer's time in pings.txt), for LONG s per load; FCR's
# counters with the FCR variants.  The ping flow runs in an fctgen of its
# own (port 7001; flows-ping.txt, fctgen-ping.log) at real-time priority
# (chrt -f 10; it sleeps in epoll between messages): with one process for
# both, the ping flow waited for the long flows' work in a loaded guest
# (gaps between messages up to 159 ms, 699 of about 2 000 samples with
# hpcc-fcr at 100 %), and a process of its own at normal
# priority still sent only 550 of 1 000 at 100 % in a quick run: the
# guest's CPU is busy, and the latency should measure the network, not
# the emulated CPU's scheduler
s7() {
	local dir=$2 load sub pid
	for load in $MANY_LOADS; do
		sub=$dir/load$load
		mkdir -p "$sub"
		cp "$OUT/schedules/many-load$load-rep$REP.txt" "$sub/schedule.txt" ||
			return 1
		bench_fcr_if "$1" "$sub/fcr.before"
		bench_fctgen_before "$sub"
		awk '$1 ~ /^#/ || $6 ~ /^p/' "$sub/schedule.txt" |
			chrt -f 10 "$TB_BIN/fctgen" -p 7001 -o "$sub/flows-ping.txt" \
				-P "$sub/pings.txt" > "$sub/fctgen-ping.log" 2>&1 &
		pid=$!
		awk '$1 ~ /^#/ || $6 !~ /^p/' "$sub/schedule.txt" |
			bench_fctgen_run "$sub"
		wait $pid
		echo "fctgen-ping $?" >> "$sub/status"
		bench_fcr_if "$1" "$sub/fcr.after"
	done
}

# bench_rate WHAT MBIT - set the bottleneck's rate (tbf; its child stays),
# print "WHAT UPTIME MBIT" with the time of the change, then make the INT
# hop report B = MBIT
bench_rate() {
	local up
	ip netns exec tbr tc qdisc change dev br0 root handle 1: tbf \
		rate "${2}mbit" burst "$TB_BURST" limit "$TB_LIMIT" || return 1
	read -r up _ < /proc/uptime
	echo "$1 $up $2"
	ip netns exec tbr "$TB_BIN/hpccctl" int change dev br0 rate "${2}mbit"
}

# bench_sleep_until UPTIME - sleep until /proc/uptime reads UPTIME (s)
bench_sleep_until() {
	local up
	read -r up _ < /proc/uptime
	sleep "$(awk -v a="$1" -v b="$up" 'BEGIN { d = a - b; print (d > 0 ? d : 0) }')"
}

# s6: one long flow; the bottleneck steps to half its rate after PHASE s
# and back PHASE s after that step took effect (tc itself can take 1-2 s
# to run in a busy guest; steps.txt has the real times).  The records
# taken before a run come first: timed from before them, the steps would
# fall before the flow started.
s6() {
	local dir=$2 p=$((PHASE * 1000000)) spid up
	echo "1 0 tbs1 tbd1 198.19.0.1 0 $((3 * p + 3000000))" > "$dir/schedule.txt"
	: > "$dir/steps.txt"
	bench_fctgen_before "$dir"
	(
		sleep "$PHASE"
		bench_rate down $((TB_RATE_MBIT / 2)) >> "$dir/steps.txt"
		read -r _ up _ < "$dir/steps.txt"
		bench_sleep_until "$(awk -v u="$up" -v p="$PHASE" 'BEGIN { print u + p }')"
		bench_rate up "$TB_RATE_MBIT" >> "$dir/steps.txt"
	) &
	spid=$!
	bench_fctgen_run "$dir" -b 100 -B "$dir/bins.txt" < "$dir/schedule.txt"
	wait "$spid"	# not a bare wait: hpccd runs in the background too
	bench_rate restore "$TB_RATE_MBIT" > /dev/null
}

[ -d "$OUT/schedules" ] || python3 "$TOP/tools/bench/schedule.py" plan --dir "$OUT/schedules" \
	--n "$INCAST_N" --rounds "$INCAST_ROUNDS" --loads "$FCT_LOADS" \
	--reps "$REPS" --cdf "$WORKLOAD" --scale "$FCT_SCALE" \
	--flows "$FCT_FLOWS" --hosts $HOSTS --rate-mbit "$TB_RATE_MBIT" \
	--rtt-ms "$TB_RTT_MS" --seed "$SEED" --many-loads "$MANY_LOADS" \
	--duration "$LONG" --many-size "$MANY_SIZE" || exit 1

# a scenario is a function of this file: refuse a name that is none
# ("S5" for s5) before any run, not with each run's failure
for s in $SCENARIOS; do
	declare -F "$s" > /dev/null ||
		{ echo "eval: no scenario $s (BENCH_SCENARIOS: $SCENARIOS)" >&2; exit 2; }
done
bench_trace_setup || { echo "eval: tracing setup failed" >&2; exit 1; }
started=$(date +%s)
[ $resumed = 1 ] || : > "$OUT/order.txt"
for ((REP = 1; REP <= REPS; REP++)); do
	pairs=()
	for s in $SCENARIOS; do
		for cc in $CCS; do
			pairs+=("$s $cc")
		done
	done
	# the guest has no /dev/fd: no process substitution
	yes "$SEED.$REP" | head -c 65536 > "$TB_TMP/random"
	printf '%s\n' "${pairs[@]}" | shuf --random-source="$TB_TMP/random" \
		> "$TB_TMP/order"
	mapfile -t pairs < "$TB_TMP/order"
	for pr in "${pairs[@]}"; do
		read -r s cc <<< "$pr"
		dir=$OUT/$s/$cc/$REP
		[ -e "$dir/.done" ] && continue
		rm -rf "$dir"
		mkdir -p "$dir"
		echo "rep $REP $s $cc $(($(date +%s) - started))" | tee -a "$OUT/order.txt"
		bench_cc "$cc" || { echo "eval: cannot select $cc" >&2; exit 1; }
		sleep 1		# let the previous run's queue drain
		dmesg -c > /dev/null
		if "$s" "$cc" "$dir"; then
			touch "$dir/.done"
		else
			echo "eval: $s $cc failed" | tee -a "$OUT/order.txt"
		fi
		# the kernel's messages during the run (tcp_hpcc's refusals of
		# FCR messages, rate-limited; a crash's are in vmrun.stderr)
		dmesg > "$dir/dmesg.txt"
	done
done
echo "elapsed_s $(($(date +%s) - started))" >> "$OUT/meta.txt"
