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
#     with hpcc + hpccd against cubic.
# Emulated (TCG) CPUs are slow: read the ratios, not the absolute figures.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
D=$TOP/build/hpccd
SRV=198.18.0.2
CLI=198.18.0.1
FLOWS=${FLOWS:-100}
RATE=${RATE:-0}     # iperf3 -b per flow; 0: unlimited (always in flight)
RUN_S=${RUN_S:-10}
FLOOD_S=${FLOOD_S:-5}
TMP=$(mktemp -d)
HZ=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
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
for ns in bs br; do
	ip netns exec $ns "$D" -c /dev/null -S "$TMP/$ns.stats" \
		> "$TMP/$ns.log" 2>&1 &
	echo $! > "$TMP/$ns.pid"
done
ip netns exec br iperf3 -s -p 5201 >/dev/null 2>&1 &
retry 50 sh -c "ip netns exec br ss -Hltn | grep -q ':5201'"
retry 50 grep -q connected: "$TMP/bs.log" "$TMP/br.log"
sleep 1

echo "== receiver role: probe flood for ${FLOOD_S} s"
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

run() { # run CC - FLOWS iperf3 flows with CC; prints the figures
	local cc=$1 pid b0 b1 c0 c1 p0 p1 t0 t1
	pid=$(cat "$TMP/bs.pid")
	p0=$(dstat bs probes-sent); t0=$(dstat bs telemetry-pushed)
	b0=$(busy_ticks); c0=$(cpu_ticks "$pid")
	ip netns exec bs iperf3 -c $SRV -p 5201 -C "$cc" -P "$FLOWS" -b "$RATE" \
		-t "$RUN_S" -J > "$TMP/iperf.$cc" 2>&1
	b1=$(busy_ticks); c1=$(cpu_ticks "$pid")
	p1=$(dstat bs probes-sent); t1=$(dstat bs telemetry-pushed)
	python3 - "$TMP/iperf.$cc" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
print("  goodput %.1f Mbit/s, %d retransmits" %
      (e["sum_received"]["bits_per_second"] / 1e6, e["sum_sent"]["retransmits"]))
PY
	awk -v cc="$cc" -v b=$((b1 - b0)) -v c=$((c1 - c0)) -v p=$((p1 - p0)) \
	    -v t=$((t1 - t0)) -v hz="$HZ" -v s="$RUN_S" -v n="$FLOWS" 'BEGIN {
		printf "  %s: guest busy %.2f CPU s; hpccd %.2f CPU s = %.1f%% of one core per 100 flows; %d probes, %d pushes (%.0f probes/s)\n",
			cc, b / hz, c / hz, 100 * c / hz / s * 100 / n, p, t, p / s
		if (c) printf "  hpccd: %.0f probes + pushes per CPU second\n", (p + t) / (c / hz)
	}'
	echo "$cc $((b1 - b0))" >> "$TMP/busy"
}

echo "== sender role: $FLOWS flows of $RATE for ${RUN_S} s"
run cubic
run hpcc
awk '{ b[$1] = $2 } END { if (b["cubic"]) printf "guest busy CPU, hpcc + hpccd / cubic: %.2f\n", b["hpcc"] / b["cubic"] }' "$TMP/busy"

for ns in bs br; do kill "$(cat "$TMP/$ns.pid")"; done
ns_gone bs br
rm -rf "$TMP"
