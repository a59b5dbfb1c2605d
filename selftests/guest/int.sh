#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc_int.ko, the software INT hop, on the testbed's N-to-1 topology with
# one sender (tools/testbed/testbed.sh): configuration over netlink
# (hpccctl int), hand-made probes forwarded through the router and
# captured at the receiver: stamped records, valid checksums, unchanged
# lengths, full and malformed probes counted.  Runs as root in a guest.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
. "$TOP/tools/testbed/testbed.sh"

# the hop's own counters (the qdisc's); the wire case switches in place
TB_TX_MODEL=qdisc
CTL=$TOP/build/hpccctl
PROBE=$TOP/selftests/guest/probe.py
SRC=198.18.1.1
DST=198.19.0.1
TMP=$(mktemp -d)
trap 'tb_down; rm -rf "$TMP"' EXIT

rctl() { ip netns exec tbr "$CTL" "$@"; }

# icount KEY - a counter of br0 (hpccctl -j int show)
icount() {
	rctl -j int show | python3 -S -c '
import json, sys
d = [x for x in json.load(sys.stdin)["dev"] if x["dev"] == "br0"]
print(d[0][sys.argv[1]] if d else -1)' "$1"
}

# icount_is KEY VALUE
icount_is() { [ "$(icount "$1")" = "$2" ]; }

# capture KIND COUNT [DSCP] - send COUNT hand-made probes of KIND from the
# sender to the receiver and capture them on the receiver's r0 into
# $TMP/cap (probe.py stamps lines)
capture() {
	local dscp=${3:-60}
	ip netns exec tbd1 python3 "$PROBE" stamps r0 "$dscp" $((5 * SLOW)) "$2" > "$TMP/cap" 2>&1 &
	local p=$!
	retry 25 grep -q sniffing "$TMP/cap" || return 1
	ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 "$dscp" "$1" "$2"
	wait $p
	sed -i '/^sniffing$/d' "$TMP/cap"
	cat "$TMP/cap"
}

setup() {
	tb_up incast 1 || return 1
	rctl int show
}

defaults() {
	local inum
	inum=$(stat -L -c %i /run/netns/tbr)
	rctl -j int show | python3 -S -c '
import json, sys
d = json.load(sys.stdin)
br = [x for x in d["dev"] if x["dev"] == "br0"][0]
ok = (d["switch-id"] == int(sys.argv[1]) and d["probe-dscp"] == 60 and
      d["int-dscp"] == 23 and
      d["devs"] == 1 and br["rate"] == 50000000 and br["ifindex"] > 0)
sys.exit(0 if ok else 1)' "$inum"
}

# expect_exit RC WHAT... - the command exits RC and prints the message WHAT
expect_exit() {
	local want=$1 msg=$2 out rc
	shift 2
	out=$("$@" 2>&1) && rc=0 || rc=$?
	echo "$* -> $rc: $out"
	[ "$rc" = "$want" ] && grep -q -- "$msg" <<< "$out"
}

# expect_fail WHAT... - the command fails (exit 1) printing WHAT
expect_fail() { expect_exit 1 "$@"; }

# expect_usage WHAT... - the command exits 2 (a usage error) printing WHAT
expect_usage() { expect_exit 2 "$@"; }

config_errors() {
	expect_fail "already stamps" rctl int add dev br0 rate 1gbit &&
	expect_fail "does not stamp" rctl int del dev l1 &&
	expect_fail "link speed is unknown" rctl int add dev lo &&
	expect_fail "Numerical result\|Invalid argument\|out of range" \
		rctl int add dev l1 rate 2tbit &&
	expect_fail "Operation not permitted" ip netns exec tbr \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$CTL" int add dev l1 rate 1mbit &&
	expect_fail "Operation not permitted" ip netns exec tbr \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$CTL" int set switch-id 1 &&
	# a veth reports 10 Gbit/s: the default B
	rctl int add dev l1 && [ "$(rctl -j int show | python3 -S -c '
import json, sys
print([x["rate"] for x in json.load(sys.stdin)["dev"] if x["dev"] == "l1"][0])')" = 10000000000 ] &&
	rctl int del dev l1 && [ "$(rctl -j int show | python3 -S -c '
import json, sys; print(json.load(sys.stdin)["devs"])')" = 1 ]
}

stamped() {
	local before ifi n
	rctl int set switch-id 77 || return 1
	ifi=$(ip -n tbr -o link show br0 | cut -d: -f1)
	before=$(icount stamped)
	capture probe 5 || return 1
	n=$(awk -v ifi="$ifi" '$2 == 224 && $4 == "ok" && $6 == 1 && $8 == 4 &&
		$9 == "hop" && $10 == 77 && $11 == ifi && $12 == 50000000 &&
		$13 > 0 && $14 > 0' "$TMP/cap" | wc -l)
	echo "well-formed stamps: $n of 5; stamped $before -> $(icount stamped)"
	[ "$n" = 5 ] && [ "$(icount stamped)" = $((before + 5)) ]
}

# IPv6: probes forwarded from tbs1 to tbd1 (link-layer sends to the
# router's l1, so the sender needs no IPv6 route) are stamped like IPv4's,
# through hop-by-hop and destination options and a routing header with
# segments left (in transit); a fragment header is counted as malformed
stamped6() {
	local mac ifi n before mal send
	ip netns exec tbr sysctl -qw net.ipv6.conf.all.forwarding=1 &&
	ip -n tbr addr add fd00:19::fe/64 dev br0 nodad &&
	ip -n tbd1 addr add fd00:19::1/64 dev r0 nodad || return 1
	mac=$(ip -n tbr -o link show l1 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	ifi=$(ip -n tbr -o link show br0 | cut -d: -f1)
	before=$(icount stamped)
	mal=$(icount malformed)
	send="ip netns exec tbs1 python3 $PROBE l2send6 s0 $mac fd00:18:1::1 fd00:19::1 60 probe"
	# up to 20 s: it stops at the fourth stamp, and the four senders
	# below (a python each) took more than 5 s in a loaded guest, so the
	# last stamp came after a 5-s window closed (6.1: stamped 4,
	# captured 3)
	ip netns exec tbd1 python3 "$PROBE" stamps6 r0 60 $((20 * SLOW)) 4 > "$TMP/cap6" 2>&1 &
	local p=$!
	retry 25 grep -q sniffing "$TMP/cap6" || return 1
	# neighbour discovery for fd00:19::1 first: the first probe may wait
	# in the router for it
	$send none 2 && $send hbh-dst 1 && $send rh1 1 && $send frag 1 || return 1
	wait $p
	sed -i '/^sniffing$/d' "$TMP/cap6"
	cat "$TMP/cap6"
	n=$(awk -v ifi="$ifi" '$4 == 63 && $6 == "ok" && $8 == 1 && $10 == 4 &&
		$11 == "hop" && $12 == 77 && $13 == ifi && $14 == 50000000 &&
		$15 > 0 && $16 > 0' "$TMP/cap6" | wc -l)
	echo "well-formed IPv6 stamps: $n of 4; stamped $before -> $(icount stamped)," \
	     "malformed $mal -> $(icount malformed)"
	[ "$n" = 4 ] && [ "$(icount stamped)" = $((before + 4)) ] &&
		retry 10 icount_is malformed $((mal + 1))
}

# ifindex DEV - DEV's ifindex in the router
ifindex() { ip -n tbr -o link show "$1" | cut -d: -f1; }

# INT-MD (encoding int-md, dev-set in place): a probe with an INT-MD shim
# grows by one hop of Hop ML words pushed on its stack, in bitmap order:
# switch ID, level 1 ports (ingress l1, egress br0), queue ID 0 +
# occupancy, the egress timestamp, Tx utilization (all ones until the
# device has measured one, else at most 20000, 1/10000 of B); Remaining
# Hop Count 3 -> 2; the TCP checksum stays valid; the project's records
# are left alone
intmd_stamped() {
	local before br l1 n
	rctl int change dev br0 encoding int-md &&
	[ "$(icount encoding)" = int-md ] && [ "$(icount rate)" = 50000000 ] ||
		return 1
	br=$(ifindex br0)
	l1=$(ifindex l1)
	before=$(icount stamped)
	capture intmd 3 || return 1
	n=$(awk -v w1="$(printf '%x' $((l1 << 16 | br)))" '
		$2 == 264 && $4 == "ok" && $6 == 0 && $9 == "int" &&
		$11 == 0 && $13 == 2 && $15 == 6 && $17 == 1 && $18 == "md" {
			split($19, w, ",")
			if (w[1] == "4d" && w[2] == w1 && w[3] !~ /^ff/ &&
			    w[4] w[5] != "00" &&
			    (w[6] == "ffffffff" || length(w[6]) <= 4))
				print
		}' "$TMP/cap" | wc -l)
	echo "INT-MD stamps: $n of 3; stamped $before -> $(icount stamped)"
	[ "$n" = 3 ] && [ "$(icount stamped)" = $((before + 3)) ]
}

# every baseline instruction, domain-specific words and the checksum
# complement: what the hop cannot provide is all ones (hop latency,
# ingress timestamp, buffer, the domain's words, the complement: the TCP
# checksum is updated instead); level 2 ports are the ifindexes; Tx
# utilization measured or all ones
intmd_all() {
	local br l1
	br=$(ifindex br0)
	l1=$(ifindex l1)
	capture intmd-all 2 || return 1
	[ "$(awk -v br="$(printf '%x' "$br")" -v l1="$(printf '%x' "$l1")" '
		$2 == 300 && $4 == "ok" && $15 == 15 && $17 == 1 {
			split($19, w, ",")
			if (w[1] == "4d" && w[3] == "ffffffff" &&
			    w[5] == "ffffffff" && w[6] == "ffffffff" &&
			    w[9] == l1 && w[10] == br &&
			    (w[11] == "ffffffff" || length(w[11]) <= 4) &&
			    w[12] == "ffffffff" && w[13] == "ffffffff" &&
			    w[14] == "ffffffff" && w[15] == "ffffffff")
				print
		}' "$TMP/cap" | wc -l)" = 2 ]
}

# Remaining Hop Count 0 sets E, a probe that the hop's metadata would push
# past the device's MTU sets M (section 5.8): neither grows, both are
# counted full; a probe without an INT-MD shim is not stamped on an
# int-md device (other-encoding)
intmd_limits() {
	local full other mtu rc=0
	full=$(icount full)
	other=$(icount other-encoding)
	capture intmd-rhc0 2 || return 1
	[ "$(awk '$2 == 240 && $4 == "ok" && $11 == 2 && $17 == 0' "$TMP/cap" | wc -l)" = 2 ] || {
		echo "no E flag"; rc=1; }
	mtu=$(cat /sys/class/net/br0/mtu 2>/dev/null || ip netns exec tbr cat /sys/class/net/br0/mtu)
	ip -n tbr link set br0 mtu 250 || return 1
	capture intmd 2 || rc=1
	ip -n tbr link set br0 mtu "$mtu"
	[ "$(awk '$2 == 240 && $4 == "ok" && $11 == 1 && $17 == 0' "$TMP/cap" | wc -l)" = 2 ] || {
		echo "no M flag"; rc=1; }
	capture probe 2 || return 1
	[ "$(awk '$2 == 224 && $6 == 0' "$TMP/cap" | wc -l)" = 2 ] || rc=1
	echo "full $full -> $(icount full), other-encoding $other -> $(icount other-encoding)"
	[ $rc = 0 ] && [ "$(icount full)" = $((full + 4)) ] &&
		[ "$(icount other-encoding)" = $((other + 2)) ]
}

# back to the project's encoding, in place: an INT-MD probe (a path with
# INT-MD hops elsewhere) gets its record stamped after the stack, and
# does not grow
intmd_then_own() {
	local br
	br=$(ifindex br0)
	rctl int change dev br0 encoding own && [ "$(icount encoding)" = own ] &&
	capture intmd 2 || return 1
	[ "$(awk -v br="$br" '$2 == 240 && $4 == "ok" && $6 == 1 &&
		$9 == "hop" && $10 == 77 && $11 == br && $16 == "int" &&
		$24 == 0' "$TMP/cap" | wc -l)" = 2 ] &&
		expect_usage "not own, int-md or ifa" rctl int change dev br0 encoding ioam &&
		expect_usage "usage" rctl int change dev br0
}


# IFA 2.0 (encoding ifa): an IFA probe (IP protocol 253, the namespace's
# ifa-protocol by default) grows by one 32-byte hop pushed after its IFA
# metadata header: LNS 1, device ID 77, TTL 63; speed code 0xf (50 Mbit/s
# is none of the draft's speeds); egress br0 and ingress l1; Rx ns; the
# residence time; opaque 0; Hop Limit 3 -> 2, Current Length 0 -> 8
# words; the TCP checksum stays valid
ifa_stamped() {
	local before br l1 n
	[ "$(rctl -j int show | python3 -S -c 'import json,sys; print(json.load(sys.stdin)["ifa-protocol"])')" = 253 ] &&
	rctl int change dev br0 encoding ifa && [ "$(icount encoding)" = ifa ] ||
		return 1
	br=$(ifindex br0)
	l1=$(ifindex l1)
	before=$(icount stamped)
	capture ifa 3 || return 1
	n=$(awk -v w2="$(printf '%x' $((br << 16 | l1)))" '
		$2 == 264 && $4 == "ok" && $6 == 0 && $9 == "ifa" &&
		$11 == 2 && $13 == 8 && $15 == 1 && $16 == "fa" {
			split($17, w, ",")
			if (w[1] == "10004d3f" && w[2] ~ /^f/ && w[3] == w2 &&
			    w[6] == "0" && w[7] == "0" && w[8] == "0")
				print
		}' "$TMP/cap" | wc -l)
	echo "IFA stamps: $n of 3; stamped $before -> $(icount stamped)"
	[ "$n" = 3 ] && [ "$(icount stamped)" = $((before + 3)) ]
}

# IFA: Hop Limit 0 and a packet the hop would push past the MTU are not
# stamped (counted full); a TCP probe on an ifa device counts
# other-encoding; another ifa-protocol makes 253 not IFA (malformed)
ifa_limits() {
	local full other mal mtu rc=0
	full=$(icount full)
	other=$(icount other-encoding)
	mal=$(icount malformed)
	capture ifa-hl0 1 || return 1
	[ "$(awk '$2 == 232 && $11 == 0 && $15 == 0' "$TMP/cap" | wc -l)" = 1 ] || rc=1
	mtu=$(ip netns exec tbr cat /sys/class/net/br0/mtu)
	ip -n tbr link set br0 mtu 240 || return 1
	capture ifa 1 || rc=1
	ip -n tbr link set br0 mtu "$mtu"
	[ "$(awk '$2 == 232 && $15 == 0' "$TMP/cap" | wc -l)" = 1 ] || rc=1
	capture probe 1 || rc=1
	rctl int set ifa-protocol 200 || rc=1
	capture ifa 1 || rc=1
	rctl int set ifa-protocol 253 || rc=1
	echo "full $full -> $(icount full), other-encoding $other -> $(icount other-encoding), malformed $mal -> $(icount malformed)"
	[ $rc = 0 ] && [ "$(icount full)" = $((full + 2)) ] &&
		[ "$(icount other-encoding)" = $((other + 1)) ] &&
		[ "$(icount malformed)" = $((mal + 1)) ] &&
		expect_usage "not a valid value" rctl int set ifa-protocol 256 &&
		expect_fail "handle themselves" rctl int set ifa-protocol 17 &&
		expect_fail "must differ" rctl int set int-dscp 60 &&
		expect_fail "must differ" rctl int set probe-dscp 23 &&
		rctl int set ifa-protocol 131 && rctl int set ifa-protocol 253
}

# the own encoding on an IFA probe: its record stamped after the stack,
# the packet does not grow
ifa_then_own() {
	local br
	br=$(ifindex br0)
	rctl int change dev br0 encoding own && capture ifa 2 || return 1
	[ "$(awk -v br="$br" '$2 == 232 && $4 == "ok" && $6 == 1 &&
		$9 == "hop" && $10 == 77 && $11 == br && $16 == "ifa" &&
		$22 == 0' "$TMP/cap" | wc -l)" = 2 ]
}

full() {
	local before
	before=$(icount full)
	capture full 3 || return 1
	[ "$(awk '$2 == 224 && $4 == "ok" && $6 == 4 && $10 == 0 && $11 == 0' "$TMP/cap" | wc -l)" = 3 ] &&
		[ "$(icount full)" = $((before + 3)) ]
}

malformed() {
	local before stamped
	before=$(icount malformed)
	stamped=$(icount stamped)
	ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 60 nomagic 3
	ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 60 response 2
	# a TCP header that is not the wire format's: SYN, seq or window set
	ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 60 syn 1
	ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 60 seq 1
	ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 60 window 1
	retry 25 icount_is malformed $((before + 8)) &&
		[ "$(icount stamped)" = "$stamped" ]
}

other_dscp() {
	local before
	rctl int set probe-dscp 59 || return 1
	before=$(icount stamped)
	capture probe 3 60 || return 1
	[ "$(awk '$6 == 0' "$TMP/cap" | wc -l)" = 3 ] &&
		[ "$(icount stamped)" = "$before" ] &&
		capture probe 2 59 && [ "$(awk '$6 == 1' "$TMP/cap" | wc -l)" = 2 ] &&
		rctl int set probe-dscp 60
}

# dev-set (int change): B changes in place; probes forwarded one at a time
# while it changes back and forth are all stamped, with the old or the new B
rate_change() {
	local before n ifi loop sniff i
	expect_fail "does not stamp" rctl int change dev l1 rate 1gbit &&
	expect_fail "Operation not permitted" ip netns exec tbr \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$CTL" int change dev br0 rate 1mbit &&
	rctl int change dev br0 rate 20mbit &&
	[ "$(icount rate)" = 20000000 ] || return 1
	ifi=$(ip -n tbr -o link show br0 | cut -d: -f1)
	capture probe 3 || return 1
	[ "$(awk -v ifi="$ifi" '$6 == 1 && $11 == ifi && $12 == 20000000' "$TMP/cap" | wc -l)" = 3 ] ||
		return 1
	before=$(icount stamped)
	touch "$TMP/flip"
	(
		while [ -e "$TMP/flip" ]; do
			rctl int change dev br0 rate 50mbit
			rctl int change dev br0 rate 20mbit
		done
	) &
	loop=$!
	ip netns exec tbd1 python3 "$PROBE" stamps r0 60 $((60 * SLOW)) 10 > "$TMP/cap" 2>&1 &
	sniff=$!
	retry 25 grep -q sniffing "$TMP/cap" || return 1
	for i in $(seq 10); do
		ip netns exec tbs1 python3 "$PROBE" send $SRC 40001 $DST 5201 60 probe 1
	done
	wait $sniff
	rm -f "$TMP/flip"
	wait $loop
	n=$(awk '$6 == 1 && ($12 == 20000000 || $12 == 50000000)' "$TMP/cap" | wc -l)
	echo "stamped during changes: $n of 10 (B 20 Mbit/s: $(awk '$12 == 20000000' "$TMP/cap" | wc -l));" \
	     "stamped $before -> $(icount stamped)"
	rctl int change dev br0 rate 50mbit &&
	[ "$n" = 10 ] && [ "$(icount stamped)" = $((before + 10)) ] &&
		[ "$(icount rate)" = 50000000 ]
}

# tx-model wire (int change): a burst the tbf's bucket lets through at once
# (about 100 KB of UDP, under its 64 KB burst plus what 50 Mbit/s drains in
# the meantime) enters a wire of B = 20 kbit/s (2.5 KB/s; the two captures
# take 5 s or more): between two probes txBytes moves by at most B x dt,
# the wire's backlog is in qlen, and nothing is lost (txBytes + qlen grew
# by at least the burst); under tx-model qdisc the same burst moves
# txBytes by all of it at once
# udp_burst - 72 UDP datagrams of 1400 bytes (102816 bytes of IP) from the
# sender to the receiver, as fast as python sends them
udp_burst() {
	ip netns exec tbs1 python3 -S -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(72):
    s.sendto(b"x" * 1400, ("'$DST'", 9))'
}

# around_burst - "ts txBytes qlen" of br0's record in a probe before and
# in one after udp_burst, on one line
around_burst() {
	local a b
	capture probe 1 > /dev/null || return 1
	a=$(awk '$6 == 1 {print $13, $14, $15}' "$TMP/cap")
	udp_burst || return 1
	capture probe 1 > /dev/null || return 1
	b=$(awk '$6 == 1 {print $13, $14, $15}' "$TMP/cap")
	echo "$a $b"
}

wire() {
	local v
	expect_usage "is not qdisc or wire" rctl int change dev br0 tx-model fast &&
	rctl int change dev br0 rate 20kbit tx-model wire &&
	[ "$(icount tx-model)" = wire ] || return 1
	v=$(around_burst) || return 1
	echo "wire: ts txBytes qlen before and after: $v"
	# shellcheck disable=SC2086
	python3 -S -c '
import sys
t0, x0, q0, t1, x1, q1 = map(int, sys.argv[1:7])
sent, cap = x1 - x0, 20000 * (t1 - t0) / 8e9
print("sent %d bytes in %.3f s (B x dt %.0f); qlen %d; grown %d" %
      (sent, (t1 - t0) / 1e9, cap, q1, sent + q1 - q0))
sys.exit(0 if sent <= cap + 1 and q1 > 0 and sent + q1 - q0 >= 72 * 1428 else 1)' $v || return 1
	rctl int change dev br0 rate 50mbit tx-model qdisc &&
	[ "$(icount tx-model)" = qdisc ] || return 1
	v=$(around_burst) || return 1
	echo "qdisc: ts txBytes qlen before and after: $v"
	# shellcheck disable=SC2086
	set -- $v
	[ $(($5 - $2)) -ge $((72 * 1428)) ]
}

dev_gone() {
	ip -n tbr link add dum0 type dummy &&
	rctl int add dev dum0 rate 1gbit &&
	[ "$(rctl -j int show | python3 -S -c 'import json,sys; print(json.load(sys.stdin)["devs"])')" = 2 ] &&
	ip -n tbr link del dum0 &&
	[ "$(rctl -j int show | python3 -S -c 'import json,sys; print(json.load(sys.stdin)["devs"])')" = 1 ]
}

gone_and_unload() {
	dev_gone || return 1
	modprobe -r hpcc_int && [ ! -e /sys/module/hpcc_int ] || return 1
	# the family's alias loads the module again on the next request,
	# with a fresh, empty table
	[ "$(rctl -j int show | python3 -S -c 'import json,sys; print(json.load(sys.stdin)["devs"])')" = 0 ] &&
		[ -e /sys/module/hpcc_int ]
}

ktap_print_header
ktap_set_plan 18
t "testbed up (incast 1), hop configured on br0" setup
t "int show: switch-id is the netns inode, probe-dscp 60, int-dscp 23, br0 at 50 Mbit/s" defaults
t "dev-add/del and config-set errors: EEXIST, ENOENT, unknown speed, range, EPERM; default B = link speed" config_errors
t "forwarded probes get one record (switch, port = ifindex, B, ts, txBytes), same length, valid checksum" stamped
t "IPv6: forwarded probes stamped through extension headers (hop limit 63, valid checksum); a fragment counted as malformed" stamped6
t "INT-MD device: one hop pushed (switch, ports, queue, egress ts), Remaining Hop Count 2, valid checksum" intmd_stamped
t "INT-MD: fields the hop cannot provide, domain words and the checksum complement all ones; level 2 ports" intmd_all
t "INT-MD: Remaining Hop Count 0 sets E, the MTU sets M (counted full); a probe without a shim counted other-encoding" intmd_limits
t "back to the own encoding in place: an INT-MD probe's record is stamped after its stack" intmd_then_own
t "IFA device: one 32-byte hop pushed (device ID, TTL, speed code, ports), Hop Limit 2, Current Length 8, valid checksum" ifa_stamped
t "IFA: Hop Limit 0 and the MTU counted full; a TCP probe other-encoding; ifa-protocol set, 253 malformed; 131 allowed, 17 and equal DSCPs refused" ifa_limits
t "back to the own encoding: an IFA probe's record is stamped after its stack" ifa_then_own
t "full probes pass unchanged and are counted" full
t "malformed packets with the probe DSCP (no header, a response, SYN/seq/window set) are counted, not stamped" malformed
t "only the configured probe DSCP is stamped" other_dscp
t "int change (dev-set): B changes in place, no probe unstamped meanwhile; ENOENT, EPERM" rate_change
t "tx-model wire: txBytes moves at most B x dt, a burst waits in qlen, none lost; qdisc: the burst at once" wire
t "a deleted device leaves the table; the module unloads with devices configured and autoloads on request" gone_and_unload
ktap_finished
