#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Telemetry from Linux's own IOAM (RFC 9197 pre-allocated trace,
# net/ipv6/ioam6.c): an IPv6 hpcc flow through a stock Linux forwarder
# whose ingress has ioam6_enabled.  The sender's hpccd sends IOAM probes to
# the prefix its configuration names (encoding = ioam PREFIX/LEN); the
# forwarder fills one node (node_id, interface IDs, timestamp, the egress
# qdisc's backlog as queue depth); the receiver's hpccd decodes the trace
# into the response's records, marked without txBytes; the sender fills B
# from its capacity table and the module runs the partial-telemetry rules
# (Documentation/algorithm.rst).  Without a rate for the hop, responses
# are refused and counted.
#
#   hs (fd00:49:1::1) -- v0|v1 -- rt -- v2|v3 -- hr (fd00:49:2::1)
#   rt: net.ipv6.ioam6_id 5, v1 ioam6_enabled, v2 ioam6_id 7 (egress
#   interface), IOAM namespace 123, tbf 100 Mbit/s on v2
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV=fd00:49:2::1
CTL=$TOP/build/hpccctl
TMP=$(mktemp -d)
mkdir -m 1777 "$TMP/run"

trap 'ns_gone hs rt hr; rm -rf "$TMP"' EXIT

topology() {
	topo_dumbbell 49 6 || return 1
	# the IOAM transit node: its ID, the ingress that fills, the egress
	# interface's ID, the namespace
	ip netns exec rt sysctl -qw net.ipv6.ioam6_id=5 \
		net.ipv6.conf.v1.ioam6_enabled=1 net.ipv6.conf.v2.ioam6_id=7 &&
	ip -n rt ioam namespace add 123 || return 1
	topo_tbf rt v2 100mbit 32k 250k &&
	ip netns exec hr sysctl -qw net.ipv4.tcp_congestion_control=cubic &&
	# a server for each flow: a killed client's connection may outlive
	# flow_stop's wait in a loaded guest, and iperf3's server answers
	# "busy" to the next test until it ends
	{ ip netns exec hr iperf3 -s -p 5201 >/dev/null 2>&1 & } &&
	{ ip netns exec hr iperf3 -s -p 5202 >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5202'"
}

daemons_start() {
	modprobe tcp_hpcc || return 1
	cat > "$TMP/hs.conf" <<EOF
encoding = ioam fd00:49:2::/64
ioam-namespace = 123
capacity = 5 7 100000000
reconcile-s = 1
EOF
	start_hpccd hs && start_hpccd hr caps-only
}

# flowj EXPR - flow_json (selftests/lib.sh) on the sender's iperf3 data
# connection (port 6201)
flowj() {
	flow_json hs $SRV 6201 "$1"
}

# flow_start [PORT CPORT] - hs's hpcc flow to hr's server on PORT (5201)
# from CPORT (6201); iperf3's output in $TMP/iperf
flow_start() {
	ip netns exec hs iperf3 -6 -c $SRV -p "${1:-5201}" --cport "${2:-6201}" -C hpcc \
		-t $((120 * SLOW)) -b 50M -J > "$TMP/iperf" 2>&1 &
	echo $! > "$TMP/iperf.pid"
}

# flow_stop [PORT] - end it, and wait (10 s at most) until hr's server on
# PORT (5201) holds no connection
flow_stop() {
	end_procs "$(cat "$TMP/iperf.pid")"
	retry 50 sh -c "[ -z \"\$(ip netns exec hr ss -Htn state established '( sport = :${1:-5201} )')\" ]"
	return 0
}

# The flow runs HPCC on the forwarder's IOAM node: one record, switch 5,
# egress port 7, B from the capacity table, no txBytes.  "Runs HPCC" is
# 10 samples applied to the new flow, not a snapshot of the mode
# (encodings.sh's flow() says why).
ioam_telemetry() {
	local rc=0
	flow_start
	retry 50 flowj 'f["samples"] >= 10 and age(f) < 100000 and len(f["hops"]) == 1 and f["hops"][0]["switch-id"] == 5 and f["hops"][0]["port-id"] == 7 and f["hops"][0]["rate"] == 100000000 and f["hops"][0].get("flags") == 1' || {
		echo "last read:"; cat "$TMP/flowj.last"; rc=1; }
	# stopped before the counters are read (encodings.sh's flow())
	ip netns exec hs "$CTL" flow show sport 6201
	flow_stop
	echo "sender: probes-ioam $(dstat hs probes-ioam), responses-received $(dstat hs responses-received), telemetry-pushed $(dstat hs telemetry-pushed), responses-no-rate $(dstat hs responses-no-rate)"
	echo "receiver: ioam-traces $(dstat hr ioam-traces), ioam-refused $(dstat hr ioam-refused), ioam-overflow $(dstat hr ioam-overflow), responses-sent $(dstat hr responses-sent)"
	echo "receiver module: probes-consumed $(mstat hr probes-consumed)"
	[ $rc = 0 ] && dstat_ge hs probes-ioam 10 && dstat_ge hr ioam-traces 10 &&
		[ "$(dstat hr ioam-refused)" = 0 ] &&
		[ "$(dstat hr ioam-overflow)" = 0 ] &&
		[ "$(dstat hs telemetry-rejected)" = 0 ] &&
		[ "$(mstat hr probes-consumed)" -ge 10 ]
}

# Without a rate for the hop (no capacity line, no default-rate) the
# responses are refused before the module, and counted.
no_rate_refused() {
	local n0 p0 rc=0
	grep -v '^capacity' "$TMP/hs.conf" > "$TMP/hs.conf.new" &&
		mv "$TMP/hs.conf.new" "$TMP/hs.conf" && chmod 644 "$TMP/hs.conf"
	kill -HUP "$(pid_of hs)" || return 1
	retry 25 grep -q reloaded "$TMP/hs.log" || return 1
	n0=$(dstat hs responses-no-rate)
	p0=$(dstat hs telemetry-pushed)
	# its own server and client ports: ioam_telemetry's connection may
	# still hold 5201's server
	flow_start 5202 6202
	retry 50 dstat_ge hs responses-no-rate $((n0 + 5)) ||
		{ echo "iperf3:"; grep -m 1 '"error"' "$TMP/iperf" || tail -n 3 "$TMP/iperf"; rc=1; }
	echo "responses-no-rate $n0 -> $(dstat hs responses-no-rate), telemetry-pushed $p0 -> $(dstat hs telemetry-pushed)"
	[ "$(dstat hs telemetry-pushed)" = "$p0" ] || rc=1
	flow_stop 5202
	return $rc
}

# dstat_ge NS KEY N - the hpccd counter is at least N
dstat_ge() {
	local v
	v=$(dstat "$1" "$2") && [ -n "$v" ] && [ "$v" -ge "$3" ]
}

# why_not - why this kernel cannot run the cases, or nothing: Linux is an
# IOAM node from 5.15 (ioam6) and fills the queue depth from 5.17, which
# no interface shows but the version (admin-guide.rst, "Kernels")
why_not() {
	[ -e /proc/sys/net/ipv6/ioam6_id ] ||
		{ echo "this kernel is no IOAM node (ioam6: 5.15)"; return; }
	[ "$(printf '5.17\n%s\n' "$(uname -r | cut -d- -f1)" | sort -V | head -n 1)" = 5.17 ] ||
		echo "this kernel's IOAM fills no queue depth (5.17)"
}

CASES=("hs - rt (IOAM transit, tbf) - hr over IPv6|topology"
       "hpccd in both; the sender's probes to the prefix carry an IOAM trace|daemons_start"
       "the flow runs HPCC on the forwarder's IOAM node (B from the capacity table)|ioam_telemetry"
       "no rate for the hop: responses refused and counted, nothing pushed|no_rate_refused")
ktap_print_header
ktap_set_plan ${#CASES[@]}
why=$(why_not)
for c in "${CASES[@]}"; do
	if [ -n "$why" ]; then
		ktap_test_skip "${c%|*}: $why"
	else
		t "${c%|*}" "${c##*|}"
	fi
done
ktap_finished
