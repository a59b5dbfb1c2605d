#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc as a module and as a congestion control a socket, namespace or
# route can select (a restricted one: tcp_allowed_congestion_control).  Runs as root inside a guest (tools/vmrun).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV=198.18.0.2   # RFC 2544 benchmarking range, inside the guest only
CLI=198.18.0.1
P=/sys/module/tcp_hpcc/parameters

cleanup() {
	ns_gone hs hr
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

# net.ipv4.tcp_allowed_congestion_control: hpcc is restricted (as dctcp and
# bbr) until the operator lists it
ALLOWED=net.ipv4.tcp_allowed_congestion_control
listed() { sysctl -n $ALLOWED | tr ' ' '\n' | grep -qx hpcc; }
# list_hpcc - add hpcc to the list
list_hpcc() { sysctl -qw "$ALLOWED=$(sysctl -n $ALLOWED) hpcc"; }

# fresh_load - tcp_hpcc loaded again as modprobe loads it, without the
# guest runner's install line (which lists hpcc); not listed then
fresh_load() {
	modprobe -r tcp_hpcc && modprobe --ignore-install tcp_hpcc || return 1
	echo "as loaded: $ALLOWED = $(sysctl -n $ALLOWED)"
	! listed || { echo "hpcc is allowed as loaded"; return 1; }
}

# select_as NAME - TCP_CONGESTION hpcc on a socket, as root or (nobody) a
# process without any capability; prints the socket's congestion control
# or the error
select_as() {
	local pre=()
	[ "$1" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534
		--clear-groups --inh-caps=-all --bounding-set=-all)
	"${pre[@]}" python3 -S -c '
import socket
s = socket.socket()
try:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"hpcc")
except OSError as e:
    print(e.strerror)
    raise SystemExit(1)
print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode())'
}

# An unprivileged socket may select hpcc only once the list has it; a
# privileged one always may.  (Unrestricted, a loaded module would be
# allowed to any socket.)
unprivileged_select() {
	local out rc=0
	fresh_load || return 1
	out=$(select_as nobody) && { echo "nobody selected hpcc unlisted"; rc=1; }
	echo "not listed, nobody: $out"
	echo "$out" | grep -q "Operation not permitted" || rc=1
	out=$(select_as root) || rc=1
	echo "not listed, root: $out"
	[ "$out" = hpcc ] || rc=1
	list_hpcc || return 1
	out=$(select_as nobody) || rc=1
	echo "listed ($(sysctl -n $ALLOWED)), nobody: $out"
	[ "$out" = hpcc ] || rc=1
	return $rc
}

# refusal_leaks - whether this kernel takes a module reference for a
# namespace's default and keeps it when it refuses a restricted one (6.1's
# tcp_set_default_congestion_control() gets the module before its EPERM
# check; 6.12 checks first): tried with dctcp, restricted and modular,
# from namespace hs.  A kernel with dctcp built in, or dctcp allowed, is
# taken not to.
refusal_leaks() {
	local f=/sys/module/tcp_dctcp/refcnt a b
	modprobe tcp_dctcp 2>/dev/null && [ -r $f ] || return 1
	a=$(cat $f)
	ip netns exec hs sysctl -qw net.ipv4.tcp_congestion_control=dctcp \
		2>/dev/null && return 1
	b=$(cat $f)
	echo "tcp_dctcp refcnt $a -> $b after a refused default"
	[ "$b" -gt "$a" ]
}

# A namespace other than the initial one may default only to a listed
# congestion control.  (Unrestricted, a loaded module could be any
# namespace's default.)
sysctl_in_netns() {
	fresh_load && topo_ns hs || return 1
	if refusal_leaks; then
		echo "this kernel keeps a module reference when it refuses a namespace's default (tcp_dctcp's count grew): hpcc's refusal not tried, or tcp_hpcc could never unload again"
	elif ip netns exec hs sysctl -qw net.ipv4.tcp_congestion_control=hpcc 2>/dev/null; then
		echo "hpcc became the default of hs without being allowed"
		return 1
	fi
	list_hpcc &&
	ip netns exec hs sysctl -qw net.ipv4.tcp_congestion_control=hpcc ||
		return 1
	[ "$(ip netns exec hs sysctl -n net.ipv4.tcp_congestion_control)" = hpcc ] ||
		return 1
	echo "listed: $(sysctl -n $ALLOWED)"
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
	! echo 0 > $P/base_rtt_us 2>/dev/null && ! echo 64 > $P/probe_dscp 2>/dev/null ||
		return 1
	# ifa_protocol: the range, and not a protocol hosts handle themselves
	! echo 6 > $P/ifa_protocol 2>/dev/null && ! echo 255 > $P/ifa_protocol 2>/dev/null &&
		[ "$(cat $P/ifa_protocol)" = 253 ] && echo 131 > $P/ifa_protocol &&
		[ "$(cat $P/ifa_protocol)" = 131 ] && echo 253 > $P/ifa_protocol
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
ktap_set_plan 13
t "modprobe tcp_hpcc loads the module built for $(uname -r)" modprobe tcp_hpcc
t "modinfo vermagic matches the running kernel" vermagic_matches
t "hpcc is listed in tcp_available_congestion_control" \
	grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
t "an unprivileged socket may select hpcc only once tcp_allowed_congestion_control lists it" unprivileged_select
t "a network namespace may default to hpcc only once tcp_allowed_congestion_control lists it" sysctl_in_netns
t "module parameters are range-checked on write" param_ranges
t "two namespaces joined by veth, iperf3 server up" topology
t "ip route ... congctl hpcc selects hpcc for that route" route_congctl
t "iperf3 -C hpcc moves data between two namespaces" iperf3_hpcc
t "unloading is refused while a socket uses hpcc" unload_refused_while_used
t "unloading succeeds once no socket or namespace uses it" unload_after_release
t "loading with an out-of-range parameter fails" bad_load_param
t "20 load/unload cycles" load_unload_cycles
ktap_finished
