#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpccd's cost (a benchmark, not a test; run in a guest by
# `make bench-daemon`).  Two namespaces joined by veth, hpccd in each, and
# the tc pedit stand-in hop record of selftests/guest/daemon.sh on the
# sender, so every response is pushed to the module.
#
#  1. Receiver role: a flood of valid probes (prebuilt, from Python) at the
#     receiver's hpccd for FLOOD_S seconds; responses sent per second of
#     hpccd CPU time (user + system, /proc/PID/stat) is the rate one core
#     sustains.
#  2. Sender role: FLOWS iperf3 flows of RATE each (unlimited by default,
#     so every flow always has data in flight and is probed) for RUN_S seconds, first
#     with cubic, then with hpcc in the same boot; the sender's hpccd CPU
#     time per second (percent of one core) per 100 flows, probes and
#     pushes per CPU second, and the whole guest's busy CPU (/proc/stat)
#     with hpcc + hpccd against cubic.  And per sample against the kernel's
#     own per-packet cost, in the same boot: both hpccds' CPU time (the
#     sender's probes and pushes, the receiver's responses) per telemetry
#     push of the hpcc run, over the guest kernel's CPU time (system, irq
#     and softirq in /proc/stat, every process's system calls included)
#     per TCP segment sent (OutSegs, each also received over the veth:
#     both namespaces' /proc/net/snmp) in the cubic run.  And the cadence
#     the flows get: each hpcc flow's time between applied samples (the
#     module's samples count, read 2 s in and 2 s before the end) over its
#     srtt, the median and 90th percentile over the flows (issue 56's
#     "applied-sample interval"; FLOWS sets the count, 1 to 1024: one
#     iperf3 client and server per 128).
#     With RATE set, DELAY_MS (netem, each way) keeps a slow flow's data
#     in flight between its segments, so that it stays busy and probed.
#  3. The netlink channel alone, once a repetition: telemetry-push's CPU
#     per sample from a client that does nothing else (push_alone), and
#     its share of both hpccds' CPU per push.
#
# DAEMONS="NAME=PATH[:CONF] ..." compares hpccd builds, or settings (CONF,
# a configuration file for both hpccds; default none), in the same boot
# (default "this=build/hpccd"): each runs both roles in turn with the
# same flows;
# REPS repetitions (default 1) alternate cubic and each build, and the
# summary gives each figure's median with its range.
# Emulated (TCG) CPUs are slow: read the ratios, not the absolute figures.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
DAEMONS=${DAEMONS:-this=$TOP/build/hpccd}
REPS=${REPS:-1}
SRV=198.18.0.2
CLI=198.18.0.1
FLOWS=${FLOWS:-100}
# each flow's rate: TCP's own pacing capped (iperf3 --fq-rate, that is
# SO_MAX_PACING_RATE), a segment at a time; 0: unlimited (always in
# flight).  Not iperf3 -b, whose sender writes a 128 KB block at a time
# and idles between them (2 Mbit/s: a burst every half second), so its
# flows are not busy and hpccd stops probing them between bursts.
RATE=${RATE:-0}
RUN_S=${RUN_S:-10}
DELAY_MS=${DELAY_MS:-0}  # netem delay each way on the veth; 0: none
# an iperf3 client takes at most 128 flows (-P): one client and server
# (port 5201 + i) per 128
[ "$FLOWS" -ge 1 ] && [ "$FLOWS" -le 1024 ] ||
	{ echo "FLOWS: 1 to 1024 (8 iperf3 clients of 128), not $FLOWS" >&2; exit 1; }
CLIENTS=$(((FLOWS + 127) / 128))
FLOOD_S=${FLOOD_S:-5}
TMP=$(mktemp -d)
HZ=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# the kernel's share: system, irq, softirq
kern_ticks() { awk '/^cpu / { print $4 + $7 + $8 }' /proc/stat; }
# TCP segments sent in both namespaces (OutSegs; the veth delivers each)
out_segs() {
	local ns n=0
	for ns in bs br; do
		n=$((n + $(ip netns exec $ns awk '/^Tcp:/ && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
			/^Tcp:/ { print $c["OutSegs"] }' /proc/net/snmp)))
	done
	echo $n
}
dstat() {
	rm -f "$TMP/$1.stats"
	kill -USR1 "$(cat "$TMP/$1.pid")"
	retry 25 test -s "$TMP/$1.stats"
	sed -n "s/^$2=//p" "$TMP/$1.stats"
}

modprobe tcp_hpcc
ns_pair bs $CLI br $SRV
ip netns exec br sysctl -qw net.ipv4.tcp_congestion_control=cubic
stand_in_hop bs v0
# a round trip of 2 x DELAY_MS, so that a rate-limited flow keeps data in
# flight between its segments (a busy flow, probed all along)
if [ "$DELAY_MS" != 0 ]; then
	tc -n bs qdisc add dev v0 root netem delay "${DELAY_MS}ms" limit 100000
	tc -n br qdisc add dev v1 root netem delay "${DELAY_MS}ms" limit 100000
fi
for ((i = 0; i < CLIENTS; i++)); do
	ip netns exec br iperf3 -s -p $((5201 + i)) >/dev/null 2>&1 &
done
retry 50 sh -c "ip netns exec br ss -Hltn | grep -q ':$((5200 + CLIENTS))'"

start_daemons() { # start_daemons BIN[:CONF] - hpccd BIN in both namespaces
	local ns bin=${1%%:*} conf=/dev/null
	case $1 in *:*) conf=${1#*:} ;; esac
	for ns in bs br; do
		rm -f "$TMP/$ns.log"
		ip netns exec $ns "$bin" -c "$conf" -S "$TMP/$ns.stats" \
			> "$TMP/$ns.log" 2>&1 &
		echo $! > "$TMP/$ns.pid"
	done
	retry 50 grep -q connected: "$TMP/bs.log" "$TMP/br.log"
	sleep 1
}

stop_daemons() {
	local ns pid
	for ns in bs br; do
		pid=$(cat "$TMP/$ns.pid")
		kill "$pid" 2>/dev/null
		retry 50 sh -c "! kill -0 $pid 2>/dev/null"
	done
}

flood() { # flood NAME - the receiver role under a probe flood
	local pid c0 c1 r0 r1
	echo "== receiver role ($1): probe flood for ${FLOOD_S} s"
	pid=$(cat "$TMP/br.pid")
	c0=$(cpu_ticks "$pid"); r0=$(dstat br responses-sent)
	ip netns exec bs python3 - "$FLOOD_S" "$TOP/selftests/guest" <<'PY'
import socket, struct, sys, time
sys.path.insert(0, sys.argv[2])
from probe import packet
pkts = [packet("198.18.0.1", 40000 + i, "198.18.0.2", 5201, 60, "probe", i)
        for i in range(64)]
sk = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
n, end = 0, time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    for p in pkts:
        sk.sendto(p, ("198.18.0.2", 0))
    n += len(pkts)
print("flood: %d probes sent, %.0f per second" % (n, n / float(sys.argv[1])))
PY
	sleep 0.5
	c1=$(cpu_ticks "$pid"); r1=$(dstat br responses-sent)
	echo "receiver hpccd: probes-received $(dstat br probes-received), socket-drops $(dstat br socket-drops)"
	awk -v r=$((r1 - r0)) -v c=$((c1 - c0)) -v hz="$HZ" -v s="$FLOOD_S" 'BEGIN {
		printf "receiver hpccd: %d responses in %.2f CPU s (%.0f%% of one core): %.0f responses per CPU second\n",
			r, c / hz, 100 * c / hz / s, c ? r / (c / hz) : 0 }'
	echo "$1 responses_per_cpu_s $(awk -v r=$((r1 - r0)) -v c=$((c1 - c0)) -v hz="$HZ" 'BEGIN { print c ? r / (c / hz) : 0 }')" >> "$TMP/fig"
}

# flows_json FILE - the sender's tcp_hpcc flows (hpccctl -j), the time
# they were read at (/proc/uptime, CLOCK_BOOTTIME, 10 ms steps, in us) on
# the first line
flows_json() {
	awk '{ printf "%d\n", $1 * 1e6 }' /proc/uptime > "$1"
	ip netns exec bs "$TOP/build/hpccctl" -j flow show >> "$1"
}

# sample_interval - the applied-sample interval over srtt of the flows in
# both of flows_json's reads: (time between the reads) / (samples applied
# between them) / srtt, its median and 90th percentile over the flows,
# and the number of flows that applied no sample (counted at twice the
# time between the reads)
sample_interval() {
	python3 - "$TMP/flows0" "$TMP/flows1" <<'PY'
import json, statistics, sys
def read(p):
    with open(p) as f:
        t = int(f.readline())
        return t, {(x["sport"], x["dport"]): x for x in json.load(f)}
t0, a = read(sys.argv[1])
t1, b = read(sys.argv[2])
r, none = [], 0
for k, y in b.items():
    x = a.get(k)
    if not x or not y.get("srtt"):
        continue
    n = y.get("samples", 0) - x.get("samples", 0)
    if n <= 0:
        none += 1
        r.append(2.0 * (t1 - t0) / y["srtt"])
    else:
        r.append((t1 - t0) / n / y["srtt"])
print("  sample interval: %d flows in both reads, %d in the last"
      % (len(r), len(b)), file=sys.stderr)
if not r:
    print("- - -")
else:
    r.sort()
    print("%.2f %.2f %d" % (statistics.median(r), r[int(0.9 * (len(r) - 1))], none))
PY
}

run() { # run CC NAME - FLOWS iperf3 flows with CC; prints the figures
	local cc=$1 name=$2 pid rpid b0 b1 c0 c1 r0 r1 p0 p1 t0 t1 k0 k1 s0 s1
	pid=$(cat "$TMP/bs.pid") rpid=$(cat "$TMP/br.pid")
	p0=$(dstat bs probes-sent); t0=$(dstat bs telemetry-pushed)
	s0=$(out_segs)
	b0=$(busy_ticks); k0=$(kern_ticks); c0=$(cpu_ticks "$pid"); r0=$(cpu_ticks "$rpid")
	local ipid=() i n left=$FLOWS
	for ((i = 0; i < CLIENTS; i++)); do
		n=$((left > 128 ? 128 : left))
		left=$((left - n))
		ip netns exec bs iperf3 -c $SRV -p $((5201 + i)) -C "$cc" -P "$n" \
			$([ "$RATE" = 0 ] || echo "--fq-rate $RATE") \
			-t "$RUN_S" -J > "$TMP/iperf.$cc.$i" 2>&1 &
		ipid+=($!)
	done
	rm -f "$TMP/flows0" "$TMP/flows1"
	# the module's flow table twice, 2 s in and 2 s before the end: each
	# flow's applied samples between them (sample_interval)
	if [ "$cc" = hpcc ] && [ "$RUN_S" -gt 4 ]; then
		sleep 2
		flows_json "$TMP/flows0"
		sleep $((RUN_S - 4))
		flows_json "$TMP/flows1"
	fi
	wait "${ipid[@]}"
	b1=$(busy_ticks); k1=$(kern_ticks); c1=$(cpu_ticks "$pid"); r1=$(cpu_ticks "$rpid")
	s1=$(out_segs)
	p1=$(dstat bs probes-sent); t1=$(dstat bs telemetry-pushed)
	python3 - "$TMP/iperf.$cc".* <<'PY'
import json, sys
b = r = 0
for p in sys.argv[1:]:
    e = json.load(open(p))["end"]
    b += e["sum_received"]["bits_per_second"]
    r += e["sum_sent"]["retransmits"]
print("  goodput %.1f Mbit/s, %d retransmits" % (b / 1e6, r))
PY
	awk -v cc="$cc" -v b=$((b1 - b0)) -v c=$((c1 - c0)) -v p=$((p1 - p0)) \
	    -v t=$((t1 - t0)) -v hz="$HZ" -v s="$RUN_S" -v n="$FLOWS" 'BEGIN {
		printf "  %s: guest busy %.2f CPU s; hpccd %.2f CPU s = %.1f%% of one core per 100 flows; %d probes, %d pushes (%.0f probes/s)\n",
			cc, b / hz, c / hz, 100 * c / hz / s * 100 / n, p, t, p / s
		if (c) printf "  hpccd: %.0f probes + pushes per CPU second\n", (p + t) / (c / hz)
	}'
	awk -v k=$((k1 - k0)) -v s=$((s1 - s0)) -v hz="$HZ" 'BEGIN {
		if (s) printf "  kernel: %.2f CPU s for %d TCP segments sent and received: %.2f us a segment\n",
			k / hz, s, 1e6 * k / hz / s }'
	# NAME busy kernel segments hpccd(both) pushes probes hpccd(sender)
	#      interval/srtt: median p90 flows-without-a-sample
	echo "$name $((b1 - b0)) $((k1 - k0)) $((s1 - s0)) $((c1 - c0 + r1 - r0)) $((t1 - t0)) $((p1 - p0)) $((c1 - c0)) $(
		[ "$cc" = hpcc ] && sample_interval || echo "- - -")" >> "$TMP/runs"
}

# push_alone - telemetry-push's own cost, the netlink channel alone: one
# hpcc flow and no hpccd, 200,000 samples of the stand-in hop's record
# from hpcc_nl in batches of 64 (as hpccd sends them); the process's CPU
# time per sample, the module's work in its send() included.  What a
# shared ring or map in place of netlink could save at most.
push_alone() {
	local ipid out
	retry 50 sh -c "[ -z \"\$(ip netns exec br ss -Htn state established '( sport = :5201 )')\" ]"
	ip netns exec bs iperf3 -c $SRV -p 5201 -C hpcc --cport 6300 -b 1M \
		-t 8 > /dev/null 2>&1 &
	ipid=$!
	sleep 2
	out=$(ip netns exec bs "$TOP/build/selftests/hpcc_nl" telemetry-push \
		$CLI 6300 $SRV 5201 7,3,100000000,1000,1000,1500 r=200000 b=64)
	echo "  telemetry-push alone: $out"
	wait $ipid
	echo "push_alone us_per_sample $(echo "$out" |
		sed -n 's/.*us_per_sample \([0-9.]*\).*/\1/p')" >> "$TMP/fig"
}

first=${DAEMONS%% *}
for rep in $(seq 1 "$REPS"); do
	echo "== repetition $rep: sender role, $FLOWS flows of $RATE for ${RUN_S} s"
	start_daemons "${first#*=}"
	run cubic cubic
	stop_daemons
	for d in $DAEMONS; do
		start_daemons "${d#*=}"
		flood "${d%%=*}"
		echo "== hpcc with hpccd ${d%%=*} (${d#*=})"
		run hpcc "${d%%=*}"
		stop_daemons
	done
	push_alone
done

# medians and ranges over the repetitions; each hpccd build's figures
# against the cubic run of its repetition
python3 - "$TMP/runs" "$TMP/fig" "$HZ" "$RUN_S" "$FLOWS" <<'PY'
import statistics, sys
hz, run_s, flows = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
runs = [l.split() for l in open(sys.argv[1])]
figs = [l.split() for l in open(sys.argv[2])]
def show(label, xs, fmt):
    if not xs:
        return
    print("  %-44s %s [%s-%s]" % (label, fmt % statistics.median(xs), fmt % min(xs), fmt % max(xs)))
cubic = [r for r in runs if r[0] == "cubic"]
names = list(dict.fromkeys(r[0] for r in runs if r[0] != "cubic"))
print("== summary: median [range] of %d repetitions" % len(cubic))
kseg = [int(r[2]) / hz / int(r[3]) * 1e6 for r in cubic if int(r[3])]
show("kernel, us per TCP segment (cubic runs)", kseg, "%.2f")
alone = [float(f[2]) for f in figs if f[0] == "push_alone" and f[2:]]
show("telemetry-push alone, us per sample", alone, "%.2f")
for n in names:
    mine = [r for r in runs if r[0] == n]
    print(" hpccd %s" % n)
    show("responses per CPU second (flood)", [float(f[2]) for f in figs if f[0] == n], "%.0f")
    show("probes + pushes per sender CPU second",
         [(int(r[6]) + int(r[5])) / (int(r[7]) / hz) for r in mine if int(r[7])], "%.0f")
    show("sender hpccd, % of a core per 100 flows",
         [100 * int(r[7]) / hz / run_s * 100 / flows for r in mine], "%.1f")
    per = [int(r[4]) / hz / int(r[5]) * 1e6 for r in mine if int(r[5])]
    show("both hpccds, us per telemetry push", per, "%.1f")
    show("per push over per segment",
         [p / k for p, k in zip(per, kseg) if k], "%.1f")
    show("push alone over both hpccds' per push",
         [a / p for a, p in zip(alone, per) if p], "%.2f")
    show("guest busy CPU over cubic's",
         [int(r[1]) / int(c[1]) for r, c in zip(mine, cubic) if int(c[1])], "%.2f")
    show("applied-sample interval over srtt, median",
         [float(r[8]) for r in mine if r[8] != "-"], "%.2f")
    show("applied-sample interval over srtt, p90",
         [float(r[9]) for r in mine if r[9] != "-"], "%.2f")
    show("flows without an applied sample",
         [int(r[10]) for r in mine if r[10] != "-"], "%d")
PY

ns_gone bs br
rm -rf "$TMP"
