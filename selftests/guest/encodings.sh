#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Telemetry in the switches' standard encodings that hpcc_int can stamp,
# end to end over IPv4 and IPv6.
#
# P4.org INT-MD v2.1 over TCP (INT Dataplane Specification v2.1, sections
# 5.7.2 and 5.8): the sender's hpccd sends INT-MD probes to the prefixes its
# configuration names (encoding = int-md PREFIX/LEN); the forwarder's
# hpcc_int, its egress device set to encoding int-md, pushes one hop of
# metadata (switch ID, ports, queue occupancy, egress timestamp; Tx
# utilization invalid) onto the stack and grows the probe; the receiver's
# module consumes the probe through the stack, its hpccd decodes the stack
# into the response's records, marked without txBytes; the sender fills B
# from its capacity table and the module runs the partial-telemetry rules
# (Documentation/algorithm.rst, "Partial telemetry").
#
# INT-MD probes carry the INT DSCP (int-dscp, 23), the others the probe
# DSCP (60), so that an INT transit switch reads no other probe as INT
# (section 5.7.2): the forwarder counts both.
#
# Broadcom IFA 2.0 (draft-kumar-ippm-ifa-08): the same with encoding = ifa
# and the device's encoding ifa: the probe's IP protocol is IFA's (253),
# the hop pushes 32 bytes (device ID, ports, Rx timestamp, residence
# time; its 100 Mbit/s has no speed code), the receiver takes B from its
# own capacity line and derives the queue from the residence time.
#
#   hs (10.49.1.1, fd00:49:1::1) -- v0|v1 -- rt -- v2|v3 -- hr (10.49.2.1,
#   fd00:49:2::1); rt: hpcc_int on v2, encoding int-md then ifa,
#   switch-id 5, B 100 Mbit/s, tbf 100 Mbit/s on v2
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV4=10.49.2.1
SRV6=fd00:49:2::1
CTL=$TOP/build/hpccctl
TMP=$(mktemp -d)
mkdir -m 1777 "$TMP/run"

trap 'ns_gone hs rt hr; rm -rf "$TMP"' EXIT

rctl() { ip netns exec rt "$CTL" "$@"; }

topology() {
	topo_dumbbell 49 46 || return 1
	topo_tbf rt v2 100mbit 32k 250k &&
	modprobe hpcc_int &&
	rctl int add dev v2 rate 100mbit encoding int-md &&
	rctl int set switch-id 5 &&
	tc -n rt qdisc add dev v2 clsact &&
	dscp_filter 1 ip 'ip dsfield' 0x5c && dscp_filter 2 ip 'ip dsfield' 0xf0 &&
	dscp_filter 3 ipv6 'ip6 priority' 0x5c &&
	dscp_filter 4 ipv6 'ip6 priority' 0xf0 &&
	ip netns exec hr sysctl -qw net.ipv4.tcp_congestion_control=cubic &&
	{ ip netns exec hr iperf3 -s -p 5201 >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5201'"
}

# the egress port ID an INT-MD hop reports for v2: its ifindex, 16 bits
port_id() { echo $(($(ip -n rt -o link show v2 | cut -d: -f1) & 0xffff)); }

daemons_start() {
	modprobe tcp_hpcc || return 1
	cat > "$TMP/hs.conf" <<EOF
encoding = int-md 10.49.2.0/24
encoding = int-md fd00:49:2::/64
capacity = 5 $(port_id) 100000000
reconcile-s = 1
EOF
	# the receiver: B of the IFA hop, whose speed code names no 100M;
	# hpcc_int's INT Tx utilization is in 1/10000
	printf 'capacity = 5 %s 100000000\nint-tx-util-full = 10000\n' \
		"$(port_id)" > "$TMP/hr.conf"
	start_hpccd hs && start_hpccd hr caps-only
}

# to_ifa - the router's device and the sender's prefixes switch to IFA
to_ifa() {
	rctl int change dev v2 encoding ifa &&
	sed -i 's/^encoding = int-md/encoding = ifa/' "$TMP/hs.conf" &&
	kill -HUP "$(pid_of hs)" &&
	retry 25 grep -q reloaded "$TMP/hs.log" &&
	grep '^encoding' "$TMP/hs.conf"
}

# dscp_filter PREF PROTO FIELD TOS - count what leaves rt through v2 with
# the DSCP of TOS (the DS field's value; u32, a pass action's counters)
dscp_filter() {
	# shellcheck disable=SC2086 # FIELD is two words
	tc -n rt filter add dev v2 egress pref "$1" protocol "$2" u32 \
		match $3 "$4" 0xfc action pass
}

# dpkts PREF... - packets the filters PREF... passed, summed
dpkts() {
	local p n=0 c

	for p in "$@"; do
		c=$(tc -n rt -s filter show dev v2 egress pref "$p" |
			awk '/Sent/ { print $4; exit }')
		n=$((n + ${c:-0}))
	done
	echo $n
}

# dscps - packets the router forwarded through v2 with DSCP 23 and with
# DSCP 60, IPv4 and IPv6 together
dscps() { echo "$(dpkts 1 3) $(dpkts 2 4)"; }

# istat KEY... - v2's settings and counters in the router (int_stat)
istat() { int_stat rt v2 "$@"; }

# flow DST FAMILY ENC FLAGS - an hpcc flow from hs to DST runs HPCC on
# the hop in encoding ENC (int-md or ifa): one record, switch 5, the
# egress port's ID, B from a capacity table, no txBytes (flags FLAGS: 1,
# or 3 with the hop's Tx utilization); the counters on the path agree, and
# the probes crossed the router with the encoding's DSCP only (INT-MD: 23;
# IFA: 60).
# "Runs HPCC" is 10 samples applied to the new flow (the module applies a
# sample only in HPCC mode, resuming it first if the flow had fallen
# back), not a snapshot of the mode: in a one-vCPU guest the probe cycle
# is longer than stale_rtts x srtt and the flow moves between the two laws
# several times a second (daemon.sh's hop_gap_mid_flow), so a snapshot
# can wait 92 s and more for "hpcc" (one run: 478 fallbacks in 58 s)
flow() {
	local dst=$1 fam=$2 enc=$3 flags=$4 rc=0 pid s0 p0 st0 c0 i0 o0 i1 o1
	read -r i0 o0 <<< "$(dscps)"
	s0=$(dstat hr "$enc-stacks")
	p0=$(dstat hs "probes-$enc")
	st0=$(istat stamped)
	c0=$(mstat hr probes-consumed)
	ip netns exec hs iperf3 "-$fam" -c "$dst" -p 5201 --cport 6201 -C hpcc \
		-t $((120 * SLOW)) -b 50M -J > "$TMP/iperf" 2>&1 &
	pid=$!
	retry 50 flow_json hs "$dst" 6201 'f["samples"] >= 10 and age(f) < 100000 and len(f["hops"]) == 1 and f["hops"][0]["switch-id"] == 5 and f["hops"][0]["port-id"] == '"$(port_id)"' and f["hops"][0]["rate"] == 100000000 and f["hops"][0].get("flags") == '"$flags"' and ('"$flags"' == 1 or 0 <= f["hops"][0].get("tx-util", -1) <= 131072)' || {
		echo "last read:"; cat "$TMP/flowj.last"; rc=1; }
	# the flow is stopped before the counters are read, and each
	# daemon's are read once (dvars): each process start on a one-vCPU
	# guest beside a 50 Mbit/s flow is slow
	ip netns exec hs "$CTL" flow show sport 6201
	end_procs $pid
	dvars hs s && dvars hr r || return 1
	local e=${enc//-/_} v pe se re st=-1 om=-1 ma=-1 fu=-1 mc
	v=s_probes_$e; pe=${!v:-0}
	v=r_${e}_stacks; se=${!v:-0}
	v=r_${e}_refused; re=${!v:--1}
	# a here-string, not a process substitution: the guest has no /dev/fd
	read -r st om ma fu <<< "$(istat stamped other-encoding malformed full)"
	mc=$(mstat hr probes-consumed)
	read -r i1 o1 <<< "$(dscps)"
	echo "router: forwarded with DSCP 23 $i0 -> $i1, with DSCP 60 $o0 -> $o1"
	if [ "$enc" = int-md ]; then
		[ "$i1" -ge $((i0 + 10)) ] && [ "$o1" = "$o0" ] || rc=1
	else
		[ "$o1" -ge $((o0 + 10)) ] && [ "$i1" = "$i0" ] || rc=1
	fi
	echo "sender: probes-$enc $p0 -> $pe, telemetry-pushed ${s_telemetry_pushed:-}, responses-no-rate ${s_responses_no_rate:-}, telemetry-rejected ${s_telemetry_rejected:-}"
	echo "receiver: $enc-stacks $s0 -> $se, $enc-refused $re, int-md-incomplete ${r_int_md_incomplete:-}, ifa-no-rate ${r_ifa_no_rate:-}, dropped-int-shim ${r_dropped_int_shim:-}, dropped-ifa ${r_dropped_ifa:-}"
	echo "router v2: stamped $st0 -> $st, other-encoding $om, malformed $ma, full $fu"
	echo "receiver module: probes-consumed $c0 -> $mc"
	retry 50 sh -c "[ -z \"\$(ip netns exec hr ss -Htn state established '( sport = :5201 )')\" ]"
	[ $rc = 0 ] && [ "$pe" -ge $((p0 + 10)) ] &&
		[ "$se" -ge $((s0 + 10)) ] &&
		[ "$re" = 0 ] &&
		[ "${r_int_md_incomplete:-}" = 0 ] &&
		[ "${r_ifa_no_rate:-}" = 0 ] &&
		[ "${s_telemetry_rejected:-}" = 0 ] &&
		[ "$st" -ge $((st0 + 10)) ] &&
		[ "$ma" = 0 ] &&
		[ "$mc" -ge $((c0 + 10)) ]
}

ktap_print_header
ktap_set_plan 7
t "hs - rt (hpcc_int v2 encoding int-md, tbf) - hr, IPv4 and IPv6" topology
t "hpccd in both; the sender's probes to both prefixes carry an INT-MD header" daemons_start
t "IPv4: the flow runs HPCC on the forwarder's INT-MD hop (B from the capacity table, its Tx utilization)" flow $SRV4 4 int-md 3
t "IPv6: the flow runs HPCC on the forwarder's INT-MD hop" flow $SRV6 6 int-md 3
t "the hop and the sender's prefixes switch to IFA 2.0 in place (dev-set, SIGHUP)" to_ifa
t "IPv4: the flow runs HPCC on the forwarder's IFA hop (B from the receiver's capacity line, the queue from the residence time)" flow $SRV4 4 ifa 1
t "IPv6: the flow runs HPCC on the forwarder's IFA hop" flow $SRV6 6 ifa 1
ktap_finished
