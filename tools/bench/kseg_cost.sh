#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/kseg_cost.sh [SECONDS [REPS]] - the kernel's own CPU time per
# TCP segment on the machine it runs on (a benchmark, not a test; root,
# iperf3): one cubic flow over veth between two namespaces for SECONDS
# (10), REPS times (3); for each, the segments the sender sent (OutSegs,
# each also received) and the whole machine's system, irq and softirq
# time (/proc/stat) over them, sender and receiver together.  Run it on
# an idle host, not in a guest: it is the hardware-core figure that
# hpccd's per-sample cost, measured in guests as a ratio to the guest
# kernel's per-segment cost (make bench-daemon), is scaled by
# (Documentation/evaluation.rst, "On paper: a 100 Gbit/s host").
set -eu
S=${1:-10}
REPS=${2:-3}
A=kseg-a-$$
B=kseg-b-$$
PID=$(mktemp)
cleanup() {
	[ -s "$PID" ] && kill "$(cat "$PID")" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -f "$PID"
}
trap cleanup EXIT
ip netns add "$A"
ip netns add "$B"
ip link add va netns "$A" type veth peer name vb netns "$B"
ip -n "$A" addr add 198.18.9.1/24 dev va
ip -n "$B" addr add 198.18.9.2/24 dev vb
for n in "$A" "$B"; do
	ip -n "$n" link set lo up
done
ip -n "$A" link set va up
ip -n "$B" link set vb up
ip netns exec "$B" iperf3 -s -D -p 5301 -I "$PID"
sleep 1
# OutSegs of namespace $1; system + irq + softirq ticks of the machine
# shellcheck disable=SC2016
segs() { ip netns exec "$1" awk '/^Tcp:/ { if (++n == 2) print $12 }' /proc/net/snmp; }
ticks() { awk '/^cpu / { print $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)
for r in $(seq 1 "$REPS"); do
	s0=$(segs "$A"); c0=$(ticks)
	ip netns exec "$A" iperf3 -c 198.18.9.2 -p 5301 -C cubic -t "$S" > /dev/null
	s1=$(segs "$A"); c1=$(ticks)
	awk -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v h="$hz" -v t="$S" -v r="$r" 'BEGIN {
		printf "run %d: %d segments (%.1f Gbit/s of 1448-byte segments), kernel %.2f CPU-s, %.3f us a segment\n",
		       r, s, s * 1448 * 8 / t / 1e9, c / h, c / h / s * 1e6 }'
done
