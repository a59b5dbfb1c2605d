#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under traffic: both modules are unloaded and loaded again, and
# network namespaces are deleted, while probes and responses arrive at the
# hosts' LOCAL_IN hook (tcp_hpcc) and forwarded probes cross the router's
# FORWARD hook (hpcc_int), at the highest rate probe_flood reaches in the
# guest.  A hook that still runs when its namespace state is freed is a
# use-after-free: a debugging kernel (KASAN) reports it, a stock kernel may
# Oops; either fails the run through tools/vmrun's kernel-log check, and
# each case here also checks the kernel log itself so the failure is named.
#
#   hs 198.18.2.1 --v0|v1-- hr (router; hpcc_int on both egress ports)
#                              --w1|w0-- hd 198.18.3.1
#
# UNLOAD_CYCLES sets the cycles per module: default 20 on the debugging
# kernel (make check-debug, with fault injection: where a race becomes a
# KASAN report), 4 on stock kernels (where only an Oops would show it;
# 20 cycles took 190 s of make check's 30 minutes, 10 cycles 40-73 s per
# module on 2026-11-25; 6 until 2026-11-27, when fcr.sh needed the time).
# UNLOAD_NETNS the
# namespace deletions: default 5 on the debugging kernel, 2 on stock ones
# (each takes 10-25 s in a single-threaded TCG guest, most of it the
# namespace's teardown; 3 until 2026-11-27).
#
# Modules built with HPCC_FAULT_INJECT=y (make check-debug) have test-only
# delays (kernel/hpcc_fault.h): before each rmmod the cycled module is set
# to busy-wait UNLOAD_FAULT_HOOK_US (default 5000) in its hook and to sleep
# UNLOAD_FAULT_EXIT_MS (default 1) at the start of each namespace's .exit,
# which widens the window in which a hook entered before the unregister
# still runs when the state is freed.  The hook's delay must outlast the
# later namespaces' .exit: the core frees net_generic() state (hpcc_int's)
# only after every namespace's .exit has run.  Stock builds have no such
# parameters and run without them.  Runs as root in a guest.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

CTL=$TOP/build/hpccctl
FLOOD=$BIN/probe_flood
CYCLES=${UNLOAD_CYCLES:-$((SLOW > 1 ? 20 : 4))}
NNETNS=${UNLOAD_NETNS:-$((SLOW > 1 ? 5 : 2))}
SRC=198.18.2.1
DST=198.18.3.1
TMP=$(mktemp -d)
# the floods, "PID NAME" a line (test cases run in subshells)
PIDS=$TMP/pids

cleanup() {
	stop_floods
	local n
	for n in hs hr hd hx; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# kernel_clean - no report in the kernel log since the test started
kernel_clean() { kernel_clean_since 'unload.sh: start'; }

# flood NS SRC DST SECS NAME - probe_flood in the background
flood() {
	ip netns exec "$1" "$FLOOD" "$2" "$3" "$4" > "$TMP/$5.out" 2>&1 &
	echo "$! $5" >> "$PIDS"
}

# stop PID NAME - stop a flood and wait until it has printed its count
# (a flood started in another test case's subshell is not our child)
stop() {
	kill "$1" 2>/dev/null
	retry 50 grep -q '^sent' "$TMP/$2.out"
}

# kill_flood - stop the newest flood
kill_flood() {
	local rc=0
	# shellcheck disable=SC2046
	stop $(tail -n 1 "$PIDS") || rc=1
	sed -i '$d' "$PIDS"
	return $rc
}

stop_floods() {
	local p n
	[ -f "$PIDS" ] || return 0
	while read -r p n; do stop "$p" "$n"; done < "$PIDS"
	: > "$PIDS"
}

# flood_sent NAME - packets the flood called NAME sent
flood_sent() { sed -n 's/^sent \([0-9]*\) .*/\1/p' "$TMP/$1.out"; }

rstat() { # rstat NS COUNTER - a counter of tcp_hpcc in NS (hpccctl -j stats)
	ip netns exec "$1" "$CTL" -j stats 2>/dev/null | python3 -S -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], 0))' "$2"
}

int_add() { # int_add DEV - stamp probes leaving DEV in hr
	ip netns exec hr "$CTL" int add dev "$1" rate 1gbit
}

# The IPv4 netfilter hooks' static keys (nf_hooks_needed) stay on while
# the mangle table of the initial namespace holds a hook at each of them:
# registering and unregistering ours then never patches kernel text, on
# which multi-threaded TCG faults (Documentation/testing.rst, "Emulator
# mode"), so that this test can run with two vCPUs really at once, the
# condition for a hook still running while its namespace state is freed.
pin_static_keys() {
	iptables-legacy -t mangle -n -L > /dev/null || return 1
	grep -qx mangle /proc/net/ip_tables_names
}

setup() {
	echo "unload.sh: start" > /dev/kmsg
	pin_static_keys || { echo "iptables-legacy: no mangle table"; return 1; }
	modprobe tcp_hpcc && modprobe hpcc_int || return 1
	ip netns add hs && ip netns add hr && ip netns add hd &&
	ip link add v0 netns hs type veth peer name v1 netns hr &&
	ip link add w0 netns hd type veth peer name w1 netns hr &&
	ip -n hs addr add $SRC/24 dev v0 && ip -n hr addr add 198.18.2.254/24 dev v1 &&
	ip -n hd addr add $DST/24 dev w0 && ip -n hr addr add 198.18.3.254/24 dev w1 &&
	for n in hs hr hd; do ip -n $n link set lo up; done &&
	ip -n hs link set v0 up && ip -n hr link set v1 up &&
	ip -n hd link set w0 up && ip -n hr link set w1 up &&
	ip -n hs route add default via 198.18.2.254 &&
	ip -n hd route add default via 198.18.3.254 &&
	ip netns exec hr sysctl -qw net.ipv4.ip_forward=1 &&
	int_add v1 && int_add w1 || return 1
	# the floods run for the whole test; each case checks they still move
	# (a day: stop_floods ends them; on the debugging kernel this test
	# takes far longer than the ten minutes they once had)
	flood hs $SRC $DST 86400 fwd && flood hd $DST $SRC 86400 rev
	sleep 2
	local c
	c=$(rstat hd probes-consumed)
	echo "hd consumed $c probes in 2 s; hr stamped: $(ip netns exec hr "$CTL" int show | grep -E '^ *(v1|w1) ' | awk '{print $1, $4}' | tr '\n' ' ')"
	[ "${c:-0}" -gt 0 ]
}

FAULT_HOOK_US=${UNLOAD_FAULT_HOOK_US:-5000}
FAULT_EXIT_MS=${UNLOAD_FAULT_EXIT_MS:-1}

# fault_arm MODULE - widen MODULE's teardown race window, if it was built
# with HPCC_FAULT_INJECT; prints nothing, fails if a write is refused
fault_arm() {
	local p=/sys/module/$1/parameters
	[ -e "$p/fault_hook_delay_us" ] || return 0
	echo "$FAULT_HOOK_US" > "$p/fault_hook_delay_us" &&
		echo "$FAULT_EXIT_MS" > "$p/fault_exit_delay_ms"
}

# cycles MODULE - rmmod and modprobe MODULE CYCLES times under the floods
cycles() {
	local m=$1 i c0 c1
	if [ -e "/sys/module/$m/parameters/fault_hook_delay_us" ]; then
		echo "fault injection: hook ${FAULT_HOOK_US} us, .exit ${FAULT_EXIT_MS} ms before each rmmod"
	else
		echo "no fault injection (a stock build)"
	fi
	for ((i = 0; i < CYCLES; i++)); do
		fault_arm "$m" || { echo "fault parameters of $m refused"; return 1; }
		rmmod "$m" || { echo "rmmod $m, cycle $i"; return 1; }
		modprobe "$m" || { echo "modprobe $m, cycle $i"; return 1; }
		if [ "$m" = hpcc_int ]; then
			int_add v1 && int_add w1 || return 1
		fi
		kernel_clean || { echo "after cycle $i"; return 1; }
	done
	echo "$CYCLES cycles of $m"
	# the floods ran through every cycle (one that ended prints its count)
	! grep -q '^sent' "$TMP/fwd.out" "$TMP/rev.out" ||
		{ echo "a flood ended early"; return 1; }
	# still consuming after the last load: the hook is back
	c0=$(rstat hd probes-consumed)
	retry 50 sh -c "[ \"\$(ip netns exec hd '$CTL' stats | awk '\$1 == \"probes-consumed\" { print \$2 }')\" -gt ${c0:-0} ]"
	c1=$(rstat hd probes-consumed)
	echo "hd probes-consumed $c0 -> $c1 after the last load"
	[ "${c1:-0}" -gt "${c0:-0}" ]
}

# A namespace that receives probes and is forwarded probes is deleted while
# they arrive, NNETNS times.  Its own flood stops first (a process inside
# would keep it alive); the flood from hs goes on until the namespace has
# gone, which its veth peer in hr disappearing shows.
netns_churn() {
	local i x y
	for ((i = 0; i < NNETNS; i++)); do
		x=198.18.$((10 + i))
		ip netns add hx &&
		ip link add xa$i netns hx type veth peer name xb$i netns hr &&
		ip -n hx addr add $x.1/24 dev xa$i &&
		ip -n hr addr add $x.254/24 dev xb$i &&
		ip -n hx link set lo up && ip -n hx link set xa$i up &&
		ip -n hr link set xb$i up &&
		ip -n hx route add default via $x.254 &&
		ip netns exec hx sysctl -qw net.ipv4.tcp_congestion_control=cubic &&
		int_add xb$i || { echo "set-up $i"; return 1; }
		flood hs $SRC $x.1 600 "x$i"
		ip netns exec hx "$FLOOD" $x.1 $SRC 600 > "$TMP/y$i.out" 2>&1 &
		y=$!
		# both floods are sending (a fixed sleep was too short in a
		# loaded guest: one run's flood had not sent a packet in 0.5 s)
		retry 150 sh -c "grep -q '^first' '$TMP/y$i.out' &&
			grep -q '^first' '$TMP/x$i.out'" ||
			{ echo "floods of namespace $i did not start"; return 1; }
		sleep 0.3
		stop $y "y$i" || { echo "the flood in namespace $i did not end"; return 1; }
		ip netns del hx || { echo "delete $i"; return 1; }
		retry 100 sh -c "! ip -n hr link show xb$i 2>/dev/null" ||
			{ echo "namespace $i not torn down"; return 1; }
		kill_flood || { echo "the flood into namespace $i did not end"; return 1; }
		echo "namespace $i: its flood $(tail -n 1 "$TMP/y$i.out"); flood into it $(tail -n 1 "$TMP/x$i.out")"
		[ "$(flood_sent "y$i")" -gt 0 ] && [ "$(flood_sent "x$i")" -gt 0 ] || return 1
		kernel_clean || { echo "after namespace $i"; return 1; }
	done
	echo "$NNETNS namespaces deleted under traffic"
}

floods_moved() {
	stop_floods
	local f n=0
	for f in fwd rev; do
		echo "$f: $(tail -n 1 "$TMP/$f.out")"
		[ "$(flood_sent $f)" -gt 0 ] && n=$((n + 1))
	done
	[ $n = 2 ]
}

ktap_print_header
ktap_set_plan 5
t "both modules loaded, router up, floods of probes and responses consumed" setup
t "rmmod/modprobe tcp_hpcc $CYCLES times while probes and responses arrive" cycles tcp_hpcc
t "rmmod/modprobe hpcc_int $CYCLES times while probes are forwarded" cycles hpcc_int
t "$NNETNS namespaces deleted while they receive and forward probes" netns_churn
t "the floods ran throughout; kernel log clean" floods_moved
ktap_finished
