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
#   hf 198.18.4.1 --f0|f1-- hr --g1|g0-- hg 198.18.5.1
#
# FCR messages and CCM notifications flow too: hr's g1 (tbf 20 Mbit/s, its
# queue kept full by UDP from hf) sends them to hf, whose hpcc flow's
# probes (hpccd, fcr and ccm lines) announce FCR support and carry the
# coordination tag, while hpcc_int is cycled and namespaces are deleted;
# msgflood.py sends them to hs while tcp_hpcc is cycled (no hpcc socket
# may exist then) and into each namespace deleted.  The receivers take
# them on the FCR port from the router's prefix (fcr set, again after each
# load of tcp_hpcc).
#
# UNLOAD_CYCLES sets the cycles per module: default 20 on the debugging
# kernel (make check-debug, with fault injection: where a race becomes a
# KASAN report), 4 on stock kernels (where only an Oops would show it;
# 20 cycles take 190 s of make check's 30 minutes, 10 cycles 40-73 s per
# module, and fcr.sh needs the time).
# UNLOAD_NETNS the
# namespace deletions: default 5 on the debugging kernel, 2 on stock ones
# (each takes 10-25 s in a single-threaded TCG guest, most of it the
# namespace's teardown).
#
# Modules built with HPCC_FAULT_INJECT=y (make check-debug) have test-only
# delays (kernel/common/hpcc_fault.h): before each rmmod the cycled module is set
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
MSGFLOOD="python3 $TOP/selftests/guest/msgflood.py"
CYCLES=${UNLOAD_CYCLES:-$((SLOW > 1 ? 20 : 4))}
NNETNS=${UNLOAD_NETNS:-$((SLOW > 1 ? 5 : 2))}
SRC=198.18.2.1
DST=198.18.3.1
TMP=$(mktemp -d)
# the floods, "PID NAME" a line (test cases run in subshells)
PIDS=$TMP/pids

cleanup() {
	stop_floods
	ns_gone hs hr hd hx hf hg
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

# msg_flood NS DST SECS NAME - msgflood.py from NS to DST's FCR port, for a
# flow of DST, in the background (stopped as the probe floods are)
msg_flood() {
	ip netns exec "$1" $MSGFLOOD "$2" 6862 "$2" 41000 198.18.3.1 5201 "$3" \
		> "$TMP/$4.out" 2>&1 &
	echo "$! $4" >> "$PIDS"
}

# fcr_on NS ADDR - NS takes FCR messages and CCM notifications from ADDR
fcr_on() { ip netns exec "$1" "$CTL" fcr set port 6862 prefix "$2/32"; }

# fcr_in NS - what NS's tcp_hpcc took in on its FCR port: messages and
# notifications for no flow (all of msgflood.py's) and for hpcc flows
fcr_in() {
	ip netns exec "$1" "$CTL" stats | awk '
		$1 ~ /^(fcr-no-flow|fcr-accepted|ccm-no-flow|ccm-notes)$/ { n += $2 }
		END { print n + 0 }'
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
	topo_ns hs hr hd &&
	topo_link hs v0 hr v1 && topo_link hd w0 hr w1 &&
	topo_addr hs v0 $SRC/24 && topo_addr hr v1 198.18.2.254/24 &&
	topo_addr hd w0 $DST/24 && topo_addr hr w1 198.18.3.254/24 &&
	ip -n hs route add default via 198.18.2.254 &&
	ip -n hd route add default via 198.18.3.254 &&
	ip netns exec hr sysctl -qw net.ipv4.ip_forward=1 &&
	int_add v1 && int_add w1 && fcr_on hs 198.18.2.254 || return 1
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

# g1_add - hpcc_int on g1 with FCR and CCM on: at a 30000-byte backlog
# (10000 to clear), FCR rounds 20 ms apart
g1_add() {
	ip netns exec hr "$CTL" int add dev g1 rate 20mbit fcr-qlen-high 30000 \
		fcr-qlen-low 10000 fcr-interval 20000 &&
	ip netns exec hr "$CTL" int change dev g1 ccm-qlen-high 30000
}

# g1 KEY... - g1's counters (int_stat)
g1() { int_stat hr g1 "$@"; }

# sent_more KEY N - g1's counter KEY is above N
sent_more() { [ "$(g1 "$1")" -gt "$2" ] 2>/dev/null; }

# A congested FCR and CCM port: hf's hpcc flow to hg (its probes announce
# support and carry the coordination tag) and a cubic one, over g1, whose
# queue UDP from hf keeps full; g1 sends FCR messages and a CCM
# notification (type 1) to hf, whose tcp_hpcc takes them
fcr_ccm_path() {
	local n bg=
	topo_ns hf hg &&
	topo_link hf f0 hr f1 && topo_link hg g0 hr g1 &&
	topo_addr hf f0 198.18.4.1/24 && topo_addr hr f1 198.18.4.254/24 &&
	topo_addr hg g0 198.18.5.1/24 && topo_addr hr g1 198.18.5.254/24 &&
	ip -n hf route add default via 198.18.4.254 &&
	ip -n hg route add default via 198.18.5.254 &&
	# no GSO through g1's tbf: on 5.10 its tbf_segment() adds nothing
	# to the backlog for the segments of a GSO packet larger than the
	# burst, which then drifts below zero over the test's minutes, read
	# as 0 by the hop, which then never counts g1 congested again (the
	# admin guide's Kernels table)
	ip netns exec hf ethtool -K f0 tso off gso off > /dev/null &&
	topo_tbf hr g1 20mbit 16k 200k &&
	g1_add && fcr_on hf 198.18.4.254 || return 1
	mkdir -p -m 1777 "$TMP/run" &&
	printf 'fcr = 198.18.5.0/24\nccm = 198.18.5.0/24\n' > "$TMP/hf.conf" &&
	start_hpccd hf && start_hpccd hg || return 1
	for n in 5201 5202 5203; do
		ip netns exec hg iperf3 -s -p $n > /dev/null 2>&1 &
	done
	retry 50 sh -c "ip netns exec hg ss -Hltn | grep -q ':5203'" || return 1
	ip netns exec hf iperf3 -c 198.18.5.1 -p 5201 -C hpcc -b 5M -t 86400 \
		> /dev/null 2>&1 &
	bg="$bg $!"
	ip netns exec hf iperf3 -c 198.18.5.1 -p 5202 -C cubic -t 86400 \
		> /dev/null 2>&1 &
	bg="$bg $!"
	ip netns exec hf iperf3 -c 198.18.5.1 -p 5203 -u -b 30M -t 86400 \
		> /dev/null 2>&1 &
	bg="$bg $!"
	echo "$bg" > "$TMP/bg"
	retry 200 sent_more fcr-sent 0 || { echo "g1 sent no FCR message"; }
	retry 200 sent_more ccm-cc-sent 0 || { echo "g1 sent no CCM notification"; }
	echo "g1: $(g1 fcr-sent ccm-cc-sent fcr-congested) (fcr-sent ccm-cc-sent fcr-congested); hf: fcr-accepted $(mstat hf fcr-accepted) ccm-notes $(mstat hf ccm-notes)"
	sent_more fcr-sent 0 && sent_more ccm-cc-sent 0 &&
		[ "$(mstat hf fcr-accepted)" -gt 0 ] && [ "$(mstat hf ccm-notes)" -gt 0 ]
}

# quiet_path - end hf's flows (no hpcc socket may be left when tcp_hpcc is
# cycled); the hop's messages to hf stop with them
quiet_path() {
	# shellcheck disable=SC2046
	end_procs $(cat "$TMP/bg")
	retry 100 sh -c "! ip netns exec hf ss -Htan exclude time-wait | grep -q ':520[12] '" ||
		{ echo "hf's flows did not end"; return 1; }
	# (hg's iperf3 server took the client's hpcc for its end)
	retry 100 sh -c "! ip netns exec hf ss -Htani exclude time-wait | grep -q hpcc &&
		! ip netns exec hg ss -Htani exclude time-wait | grep -q hpcc" ||
		{ echo "hpcc sockets left"; return 1; }
}

# hs_msgs - msgflood.py from hr to hs for the rest of the test; hs takes
# its messages in
hs_msgs() {
	local c0
	c0=$(fcr_in hs)
	msg_flood hr 198.18.2.1 86400 msgs &&
	retry 150 grep -q '^first' "$TMP/msgs.out" &&
	retry 100 sh -c "[ \$(ip netns exec hs '$CTL' stats | awk '\$1 ~ /^(fcr|ccm)-no-flow\$/ { n += \$2 } END { print n + 0 }') -gt $c0 ]" ||
		{ echo "hs takes no FCR or CCM in"; return 1; }
	echo "hs: FCR and CCM for no flow $c0 -> $(fcr_in hs)"
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
	local m=$1 i c0 c1 p n
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
			int_add v1 && int_add w1 && g1_add || return 1
		else
			fcr_on hs 198.18.2.254 && fcr_on hf 198.18.4.254 || return 1
		fi
		kernel_clean || { echo "after cycle $i"; return 1; }
	done
	echo "$CYCLES cycles of $m"
	# the floods ran through every cycle (one that ended prints its count)
	while read -r p n; do
		! grep -q '^sent' "$TMP/$n.out" ||
			{ echo "flood $n ended early"; return 1; }
	done < "$PIDS"
	# and so did the FCR and CCM traffic: after the last load, the hop
	# sends again (hpcc_int) or hs takes msgflood.py's in (tcp_hpcc)
	if [ "$m" = hpcc_int ]; then
		c0=$(g1 fcr-sent)
		retry 100 sent_more fcr-sent "$c0" || { echo "g1 sends no FCR"; return 1; }
		echo "g1 fcr-sent $c0 -> $(g1 fcr-sent) after the last load"
	else
		c0=$(fcr_in hs)
		retry 50 sh -c "[ \$(ip netns exec hs '$CTL' stats | awk '\$1 ~ /^(fcr|ccm)-no-flow\$/ { n += \$2 } END { print n + 0 }') -gt $c0 ]" ||
			{ echo "hs takes no FCR or CCM in"; return 1; }
		echo "hs FCR and CCM taken in: $c0 -> $(fcr_in hs) after the last load"
	fi
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
		topo_ns hx && topo_link hx xa$i hr xb$i &&
		topo_addr hx xa$i $x.1/24 && topo_addr hr xb$i $x.254/24 &&
		ip -n hx route add default via $x.254 &&
		ip netns exec hx sysctl -qw net.ipv4.tcp_congestion_control=cubic &&
		int_add xb$i && fcr_on hx $x.254 || { echo "set-up $i"; return 1; }
		flood hs $SRC $x.1 600 "x$i"
		msg_flood hr $x.1 600 "m$i"
		ip netns exec hx "$FLOOD" $x.1 $SRC 600 > "$TMP/y$i.out" 2>&1 &
		y=$!
		# both floods are sending (a fixed sleep was too short in a
		# loaded guest: one run's flood had not sent a packet in 0.5 s)
		retry 150 sh -c "grep -q '^first' '$TMP/y$i.out' &&
			grep -q '^first' '$TMP/x$i.out' &&
			grep -q '^first' '$TMP/m$i.out'" ||
			{ echo "floods of namespace $i did not start"; return 1; }
		# hx's tcp_hpcc takes msgflood.py's messages in
		retry 100 sh -c "[ \$(ip netns exec hx '$CTL' stats | awk '\$1 ~ /^(fcr|ccm)-no-flow\$/ { n += \$2 } END { print n + 0 }') -gt 0 ]" ||
			{ echo "namespace $i took no FCR or CCM in"; return 1; }
		echo "namespace $i: FCR and CCM taken in $(fcr_in hx) before its deletion"
		stop $y "y$i" || { echo "the flood in namespace $i did not end"; return 1; }
		ip netns del hx || { echo "delete $i"; return 1; }
		retry 100 sh -c "! ip -n hr link show xb$i 2>/dev/null" ||
			{ echo "namespace $i not torn down"; return 1; }
		kill_flood || { echo "the message flood into namespace $i did not end"; return 1; }
		kill_flood || { echo "the flood into namespace $i did not end"; return 1; }
		echo "namespace $i: its flood $(tail -n 1 "$TMP/y$i.out"); flood into it $(tail -n 1 "$TMP/x$i.out"); messages into it $(tail -n 1 "$TMP/m$i.out")"
		[ "$(flood_sent "y$i")" -gt 0 ] && [ "$(flood_sent "x$i")" -gt 0 ] &&
			[ "$(flood_sent "m$i")" -gt 0 ] || return 1
		kernel_clean || { echo "after namespace $i"; return 1; }
	done
	echo "$NNETNS namespaces deleted under traffic"
}

floods_moved() {
	stop_floods
	local f n=0
	for f in fwd rev msgs; do
		echo "$f: $(tail -n 1 "$TMP/$f.out")"
		[ "$(flood_sent $f)" -gt 0 ] && n=$((n + 1))
	done
	[ $n = 3 ]
}

ktap_print_header
ktap_set_plan 8
t "both modules loaded, router up, floods of probes and responses consumed" setup
t "a congested port sends FCR messages and a CCM notification, which hf takes" fcr_ccm_path
t "rmmod/modprobe hpcc_int $CYCLES times while probes are forwarded and the port sends FCR and CCM" cycles hpcc_int
t "$NNETNS namespaces deleted while they receive and forward probes and take FCR and CCM in" netns_churn
t "hf's flows end (tcp_hpcc in use by no socket)" quiet_path
t "FCR messages and CCM notifications flood hs's FCR port, which takes them in" hs_msgs
t "rmmod/modprobe tcp_hpcc $CYCLES times while probes, responses, FCR and CCM arrive" cycles tcp_hpcc
t "the floods ran throughout; kernel log clean" floods_moved
ktap_finished
