#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loss recovery under hpcc's fallback law (Documentation/design.rst,
# "Fallback law"): a flow that loses most of a window must recover at the pace
# of PRR's slow-start bound, not one segment per RTT.  Two namespaces
# joined by veth with 10 ms of netem each way (RTT 20 ms), no TSO/GSO on
# the sender so each segment is one packet.  A 60 000-byte transfer is 41
# full segments, in hpcc's line-rate first window (W_init 125 KB by
# default), then, 50 ms later, a last one of 632 bytes.  The receiver's
# conntrack drops packets 3..43 of the connection (after SYN and ACK: the
# 41 full segments), so only the last one arrives; its SACK makes RACK mark
# the 41 lost at once, and TCP enters Recovery on that ACK with nothing in
# flight.  PRR without its slow-start bound (the bug this guards against)
# then only conserves packets: one segment per RTT, >= 41 RTTs; with it,
# the window doubles per RTT: under 10.  Runs as root inside a guest.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV=198.18.0.2
CLI=198.18.0.1
PORT=7100
BYTES=60000
XFER=$TOP/selftests/guest/xfer.py
MARK="recovery.sh-$$"
RTT_FILE=$(mktemp)	# the no-loss RTT, ms (t runs each case in a subshell)

cleanup() {
	ns_gone hs hr
	rm -f "$RTT_FILE"
}
trap cleanup EXIT

setup() {
	echo "$MARK" > /dev/kmsg
	modprobe tcp_hpcc &&
	ns_pair hs $CLI hr $SRV &&
	ip netns exec hs ethtool -K v0 tso off gso off >/dev/null &&
	tc -n hs qdisc add dev v0 root netem delay 10ms &&
	tc -n hr qdisc add dev v1 root netem delay 10ms
}

# xfer CC [PAUSE_MS] - one transfer from hs to hr; prints xfer.py's line
xfer() {
	local spid out
	ip netns exec hr python3 "$XFER" serve $SRV $PORT 1 $BYTES &
	spid=$!
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':$PORT'" || return 1
	out=$(ip netns exec hs python3 "$XFER" send $SRV $PORT "$1" $BYTES ${2:+"$2"}) ||
		{ kill "$spid"; return 1; }
	wait "$spid"
	echo "$out"
}

field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

no_loss() {
	local out rtt
	out=$(xfer hpcc) || return 1
	echo "no loss: $out"
	rtt=$(($(field "$out" rtt_us) / 1000))
	echo "$rtt" > "$RTT_FILE"
	[ "$(field "$out" retrans)" = 0 ] && [ "$rtt" -ge 15 ]
}

most_of_window_lost() {
	local out ms retrans n rtt
	rtt=$(cat "$RTT_FILE")
	[ -n "$rtt" ] || return 1
	ip netns exec hr iptables -A INPUT -p tcp --dport $PORT \
		-m connbytes --connbytes 3:43 --connbytes-dir original \
		--connbytes-mode packets -j DROP || return 1
	out=$(xfer hpcc 50)
	n=$(ip netns exec hr iptables -L INPUT -v -x -n | awk '/connbytes/ { print $1 }')
	ip netns exec hr iptables -F INPUT
	[ -n "$out" ] || return 1
	echo "41 of 42 segments dropped: $out; dropped $n packets; rtt $rtt ms"
	ms=$(field "$out" ms)
	retrans=$(field "$out" retrans)
	[ "$n" = 41 ] || { echo "the receiver dropped $n packets, not 41"; return 1; }
	[ "$retrans" -ge 41 ] || { echo "only $retrans retransmissions"; return 1; }
	# PRR's slow-start bound: under 10 RTTs; one segment per RTT: >= 41
	[ "$ms" -lt $((20 * rtt)) ] ||
		{ echo "recovery took $ms ms, >= 20 RTTs"; return 1; }
}

ktap_print_header
ktap_set_plan 4
t "two namespaces, 10 ms of netem each way, no TSO on the sender" setup
t "hpcc: $BYTES bytes without loss, RTT measured" no_loss
t "hpcc: 41 of 42 segments lost, recovered in < 20 RTTs" most_of_window_lost
t "no WARNING, BUG or Oops in the kernel log" kernel_clean_since "$MARK"
ktap_finished
