#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc as a module and as a congestion control any socket, namespace or
# route can select.  Runs as root inside a guest (tools/vmrun).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV=198.18.0.2   # RFC 2544 benchmarking range, inside the guest only
CLI=198.18.0.1
P=/sys/module/tcp_hpcc/parameters

cleanup() {
	ip netns pids hr 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del hs 2>/dev/null
	ip netns del hr 2>/dev/null
}
trap cleanup EXIT

loaded() { grep -q '^tcp_hpcc ' /proc/modules; }
refcnt_is() { [ "$(cat /sys/module/tcp_hpcc/refcnt)" = "$1" ]; }

vermagic_matches() {
	local vm
	vm=$(modinfo -F vermagic tcp_hpcc | cut -d' ' -f1)
	echo "vermagic $vm, running $(uname -r)"
	[ "$vm" = "$(uname -r)" ]
}

sysctl_in_netns() {
	ip netns add hs || return 1
	ip netns exec hs sysctl -qw net.ipv4.tcp_congestion_control=hpcc ||
		return 1
	[ "$(ip netns exec hs sysctl -n net.ipv4.tcp_congestion_control)" = hpcc ] ||
		return 1
	# the init namespace keeps its own default
	[ "$(sysctl -n net.ipv4.tcp_congestion_control)" != hpcc ]
}

param_ranges() {
	[ "$(cat $P/eta_permille)" = 950 ] || return 1
	if echo 400 > $P/eta_permille 2>/dev/null; then
		echo "eta_permille=400 was accepted"; return 1
	fi
	[ "$(cat $P/eta_permille)" = 950 ] || return 1
	echo 900 > $P/eta_permille && [ "$(cat $P/eta_permille)" = 900 ] ||
		return 1
	echo 950 > $P/eta_permille
	! echo 0 > $P/base_rtt_us 2>/dev/null && ! echo 64 > $P/probe_dscp 2>/dev/null
}

topology() {
	ns_pair hs $CLI hr $SRV &&
	ip netns exec hr sysctl -qw net.ipv4.tcp_congestion_control=cubic &&
	{ ip netns exec hr iperf3 -s -p 5201 >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5201'"
}

route_congctl() {
	local cc
	ip netns exec hs sysctl -qw net.ipv4.tcp_congestion_control=cubic
	cc=$(ip netns exec hs "$BIN/tcp_cc_tool" get $SRV 5201) || return 1
	echo "without a route metric: $cc"
	[ "$cc" = cubic ] || return 1
	ip -n hs route add $SRV/32 dev v0 congctl hpcc || return 1
	ip -n hs route show $SRV/32
	cc=$(ip netns exec hs "$BIN/tcp_cc_tool" get $SRV 5201) || return 1
	echo "with 'congctl hpcc': $cc"
	ip -n hs route del $SRV/32
	[ "$cc" = hpcc ]
}

iperf3_hpcc() {
	local j
	j=$(ip netns exec hs iperf3 -c $SRV -p 5201 -C hpcc -t 3 -J) || {
		echo "$j" | tail -5; return 1; }
	echo "$j" | python3 -S -c '
import json, sys
e = json.load(sys.stdin)["end"]
cc, rx = e["sender_tcp_congestion"], e["sum_received"]["bytes"]
print("sender cc %s, %d bytes received, %.1f Mbit/s" %
      (cc, rx, e["sum_received"]["bits_per_second"] / 1e6))
sys.exit(0 if cc == "hpcc" and rx > 0 else 1)'
}

unload_refused_while_used() {
	local line rc=0
	coproc HOLD { "$BIN/tcp_cc_tool" hold hpcc; }
	read -r line <&"${HOLD[0]}"
	[ "$line" = ready ] || return 1
	if rmmod tcp_hpcc 2>/dev/null; then
		echo "rmmod succeeded while a socket used hpcc"; rc=1
	fi
	loaded || rc=1
	eval "exec ${HOLD[1]}>&-"
	wait "$HOLD_PID"
	return $rc
}

unload_after_release() {
	# namespaces hold references through their default; let them go
	cleanup
	retry 100 refcnt_is 0 || { echo "refcnt $(cat /sys/module/tcp_hpcc/refcnt)"; return 1; }
	rmmod tcp_hpcc && ! loaded
}

load_unload_cycles() {
	local i
	for ((i = 0; i < 20; i++)); do
		modprobe tcp_hpcc || { echo "load $i failed"; return 1; }
		grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control ||
			return 1
		modprobe -r tcp_hpcc || { echo "unload $i failed"; return 1; }
	done
	! loaded && ! grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
}

bad_load_param() {
	! modprobe tcp_hpcc max_stage=65 2>/dev/null && ! loaded
}

ktap_print_header
ktap_set_plan 12
t "modprobe tcp_hpcc loads the module built for $(uname -r)" modprobe tcp_hpcc
t "modinfo vermagic matches the running kernel" vermagic_matches
t "hpcc is listed in tcp_available_congestion_control" \
	grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
t "sysctl tcp_congestion_control=hpcc works in a network namespace" sysctl_in_netns
t "module parameters are range-checked on write" param_ranges
t "two namespaces joined by veth, iperf3 server up" topology
t "ip route ... congctl hpcc selects hpcc for that route" route_congctl
t "iperf3 -C hpcc moves data between two namespaces" iperf3_hpcc
t "unloading is refused while a socket uses hpcc" unload_refused_while_used
t "unloading succeeds once no socket or namespace uses it" unload_after_release
t "loading with an out-of-range parameter fails" bad_load_param
t "20 load/unload cycles" load_unload_cycles
ktap_finished
