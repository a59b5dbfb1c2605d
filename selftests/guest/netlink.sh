#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The HPCC++ law from telemetry, through the "hpcc" generic netlink family.
# Runs as root inside a guest (tools/vmrun): an iperf3 flow with hpcc
# between two namespaces, telemetry pushed by selftests/progs/hpcc_nl.c,
# the result compared with build/hpcc-replay on the same samples.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV=198.18.0.2   # RFC 2544 benchmarking range, inside the guest only
CLI=198.18.0.1
CPORT=40000
NL=$BIN/hpcc_nl
TUPLE="$CLI $CPORT $SRV 5201"
TMP=$(mktemp -d)
YNL=$LINUX_SRC/tools/net/ynl
# T: 10 ms, SLOW times that on a slow kernel, where a flow takes more than
# 10 s (1000 RTTs, stale-rtts' maximum) from its start to the first
# flow-get; W_init = 1 Gbit/s x T (1,250,000 bytes at 10 ms)
T_US=$((10000 * SLOW))
W_INIT=$((125 * T_US))
BACKLOG0=$(sysctl -n net.core.netdev_max_backlog)

cleanup() {
	sysctl -qw net.core.netdev_max_backlog="$BACKLOG0"
	ns_gone hs hr hm
	rm -rf "$TMP"
}
trap cleanup EXIT

nls() { ip netns exec hs "$NL" "$@"; }
stat_of() { ip netns exec "$1" "$NL" stats | sed -n "s/^$2=//p"; }
flow_of() { nls flow-get $TUPLE | sed -n "s/^$1=//p"; }

setup() {
	modprobe tcp_hpcc || return 1
	# A line-rate start sends W_init (1.25 MB) at once; veth
	# hands them to the receiving CPU's backlog, whose 1000 packets a
	# one-vCPU-per-core TCG guest under load overflows now and then (6.1:
	# three flows, three loss reductions at the start).  The guest
	# is this test's own: make the path loss-free there.
	sysctl -qw net.core.netdev_max_backlog=30000 || return 1
	ns_pair hs $CLI hr $SRV || return 1
	# T and W_init = 1 Gbit/s * T; stale after 1000 RTTs
	nls params-set t=$T_US line_rate=1000 w_ai=1000 w_min=3000 \
		stale_rtts=1000 || return 1
	nls params-get
	{ ip netns exec hr iperf3 -s -p 5201 >/dev/null 2>&1 & } &&
	{ ip netns exec hr iperf3 -s -p 5202 >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5202'" &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5201'" || return 1
	flow_start $CPORT 5201
}

# flow_start CPORT SPORT [RATE [LEN]] - an iperf3 flow with hpcc from
# CPORT to SPORT, app-limited at RATE (iperf3 -b; default 50M, which an
# idle TCG guest sustains without loss, a loaded one not always) in writes
# of LEN bytes (iperf3 -l; default 128 KB); SPORT gets a one-off server
# (iperf3 -1) unless it has one.
flow_start() {
	if ! ip netns exec hr ss -Hltn | grep -q ":$2 "; then
		{ ip netns exec hr iperf3 -s -1 -p "$2" >/dev/null 2>&1 & } &&
		retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':$2 '" ||
			return 1
	fi
	{ ip netns exec hs iperf3 -c $SRV -p "$2" -C hpcc --cport "$1" \
		-b "${3:-50M}" ${4:+-l $4} -t $((600 * SLOW)) >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hs '$NL' flow-get $CLI $1 $SRV $2 >/dev/null"
}

flow_stop() {
	pkill -f -- "--cport $1 " 2>/dev/null
	retry 50 sh -c "! ip netns exec hs '$NL' flow-get $CLI $1 $SRV $2 >/dev/null 2>&1"
}

# A loss, ECN or RTO reduction (the flow's reductions counter) changes W
# outside the control law; the two tests below then take a new flow, up to
# five times.
line_rate_start() {
	local i port out w mode red
	for i in 1 2 3 4 5; do
		port=4001$i
		flow_start $port 521$i || return 1
		out=$(ip netns exec hs "$NL" flow-get $CLI $port $SRV 521$i)
		flow_stop $port 521$i
		w=$(echo "$out" | sed -n 's/^w=//p')
		mode=$(echo "$out" | sed -n 's/^mode=//p')
		red=$(echo "$out" | sed -n 's/^reductions=//p')
		echo "flow $port: W=$w mode=$mode reductions=$red" \
		     "cwnd=$(echo "$out" | sed -n 's/^cwnd=//p')"
		[ "$red" = 0 ] || continue
		[ "$w" = $W_INIT ] && [ "$mode" = 1 ]
		return
	done
	return 1
}

# The kernel's W, Wc, U and incStage after each sample equal hpcc-replay's
# on the same samples, and cwnd and the pacing rate follow W.
follows_core() {
	local i port rc
	# five flows: under a loaded host the line-rate start overflows the
	# guest's backlog now and then (three tries ran out once on 6.1)
	for i in 1 2 3 4 5; do
		port=4002$i
		flow_start $port 522$i || return 1
		nls predict $CLI $port $SRV 522$i 40 "$TMP/trace" > "$TMP/kernel"
		rc=$?
		flow_stop $port 522$i
		[ $rc = 3 ] && { tail -1 "$TMP/kernel"; continue; }
		[ $rc = 0 ] || { tail -3 "$TMP/kernel"; return 1; }
		compare_with_replay
		return
	done
	return 1
}

compare_with_replay() {
	"$TOP/build/hpcc-replay" --base-rtt-ns $((T_US * 1000)) --eta 0.95 \
		--max-stage 5 --w-init $W_INIT --w-min 3000 --w-ai 1000 \
		< "$TMP/trace" > "$TMP/replay" || return 1
	python3 - "$TMP/kernel" "$TMP/replay" "$T_US" <<'EOF'
import sys
k = [l.split() for l in open(sys.argv[1])]
r = [l.split() for l in open(sys.argv[2])]
assert len(k) == len(r) == 40, (len(k), len(r))
bad, steps = 0, set()
for i, (kl, rl) in enumerate(zip(k, r)):
    u, w, wc, inc, cwnd, mss, pacing, mode = map(int, kl)
    frac = ((u & 0xFFFFFFFF) * 1000000 + (1 << 31)) >> 32
    ip = (u >> 32) + frac // 1000000
    ustr = "%d.%06d" % (ip, frac % 1000000)
    if [ustr, str(w), str(wc), str(inc)] != rl:
        if bad < 5:  # the first differences tell most
            print("sample %d: kernel %s %d %d %d, replay %s" % (i, ustr, w, wc, inc, rl))
        bad += 1
    if cwnd != max(w // mss, 2) or pacing != w * 10**9 // (int(sys.argv[3]) * 1000) or mode != 1:
        if bad < 5:
            print("sample %d: W %d mss %d cwnd %d pacing %d mode %d" %
                  (i, w, mss, cwnd, pacing, mode))
        bad += 1
    steps.add(inc)
ws = [int(x[1]) for x in k]
print("40 samples, %d differences, W from %d to %d bytes, incStage values %s" %
      (bad, min(ws), max(ws), sorted(steps)))
sys.exit(1 if bad or max(ws) == min(ws) else 0)
EOF
}

falls_back_and_resumes() {
	local f0 r0
	# fresh telemetry first: the flow may have gone stale since setup
	nls telemetry $TUPLE 7,3,1000000000,800000000000,0,0 || return 1
	retry 50 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $TUPLE | sed -n 's/^mode=//p')\" = 1 ]" || {
		echo "mode $(flow_of mode) after a sample"; return 1; }
	f0=$(stat_of hs fallbacks); r0=$(stat_of hs resumes)
	nls params-set stale_rtts=1 || return 1	# stale after T = 10 ms
	retry 50 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $TUPLE | sed -n 's/^mode=//p')\" = 2 ]" || {
		echo "mode stayed $(flow_of mode)"; return 1; }
	echo "fallback: mode=2 cwnd=$(flow_of cwnd) fallbacks $f0 -> $(stat_of hs fallbacks)"
	[ "$(stat_of hs fallbacks)" -gt "$f0" ] || return 1
	nls params-set stale_rtts=1000 || return 1
	sleep 0.5
	[ "$(flow_of mode)" = 2 ] || { echo "left fallback without telemetry"; return 1; }
	nls telemetry $TUPLE 7,3,1000000000,900000000000,0,0 || return 1
	retry 50 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $TUPLE | sed -n 's/^mode=//p')\" = 1 ]" || return 1
	echo "resumed: mode=1 resumes $r0 -> $(stat_of hs resumes) step=$(flow_of last_step)"
	# the resume keeps the path's last records: this sample (same hop,
	# ts 100 s later) computes U (step w = 4 or wc = 5), it is not spent
	# recording L (step first = 1)
	[ "$(stat_of hs resumes)" -gt "$r0" ] &&
		[ "$(flow_of last_step)" -ge 4 ]
}

# The receiver-reported N (telemetry-set's n-flows) gives the flow its own
# W_ai = W_init * (1 - eta) / N under n-flows-source reported, max(N,
# n-flows) under max, and nothing under configured or without N; flow-get
# reports the N and the W_ai in use.
reported_n() {
	local ts=1000000000000 src n exp got
	push_n() { # push_n [n=N]: one sample, applied at an ACK
		local before
		before=$(flow_of samples)
		ts=$((ts + 1000000000))
		nls telemetry $TUPLE 7,3,1000000000,$ts,0,0 "$@" >/dev/null || return 1
		retry 100 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $TUPLE | sed -n 's/^samples=//p')\" -gt $before ]" ||
			{ echo "sample not applied"; return 1; }
	}
	[ "$(nls params-get | sed -n 's/^n_flows=//p')" = 16 ] || return 1
	for src in reported max configured; do
		nls params-set n_flows_source=$(case $src in reported) echo 1 ;; max) echo 2 ;; *) echo 0 ;; esac) || return 1
		for n in 4 40; do
			push_n n=$n || return 1
			case $src in
			reported) exp=$n ;;
			max) exp=$((n > 16 ? n : 16)) ;;
			*) exp= ;;
			esac
			got=$(flow_of n_flows)
			echo "$src, reported $n: n_flows=${got:--} w_ai=$(flow_of w_ai)"
			[ "$got" = "$exp" ] || return 1
			if [ -n "$exp" ]; then
				# W_init * 0.05 / N, within a byte of rounding
				python3 -S -c "import sys; sys.exit(abs($(flow_of w_ai) - $W_INIT * 0.05 / $exp) > 1)" || return 1
			else
				[ "$(flow_of w_ai)" = 1000 ] || return 1
			fi
		done
	done
	# a sample without N returns the flow to the namespace's W_ai
	nls params-set n_flows_source=1 || return 1
	push_n n=8 && [ "$(flow_of n_flows)" = 8 ] || return 1
	push_n && [ -z "$(flow_of n_flows)" ] && [ "$(flow_of w_ai)" = 1000 ] || return 1
	nls params-set n_flows_source=0
}

# NETLINK_LOSS - netem's loss argument ("1%", "2% 25%") for the data of
# cases 8 and 9 (only_u, slow_start): their assertions hold on a path that
# drops packets, which a loaded guest's veth may do; unset, no qdisc is
# added.  Documentation/testing.rst, netlink.sh's entry, has what a run
# at 2% showed.
loss_on() {
	[ -n "${NETLINK_LOSS:-}" ] || return 0
	# shellcheck disable=SC2086 # the argument is netem's words
	ip netns exec hs tc qdisc add dev v0 root netem loss $NETLINK_LOSS &&
		echo "netem loss $NETLINK_LOSS on the data path"
}
loss_off() {
	[ -n "${NETLINK_LOSS:-}" ] || return 0
	echo "netem: $(ip netns exec hs tc -s qdisc show dev v0 | grep -o 'dropped [0-9]*')"
	ip netns exec hs tc qdisc del dev v0 root
}
# with_loss CMD... - CMD with NETLINK_LOSS on the path
with_loss() {
	local rc
	loss_on || return 1
	"$@" && rc=0 || rc=$?
	loss_off
	return $rc
}

# kv SNAP KEY - KEY's value in SNAP, one flow-get's output.  One flow-get
# reads what one event published (hpcc_publish()), so a W, a Wc and the
# reductions counter read together belong together; mode there is the law
# of that event: 2 while TCP is in loss recovery, even in HPCC mode.
kv() { printf '%s\n' "$1" | sed -n "s/^$2=//p"; }

# Only the receiver's U (telemetry-set's rx-u: the privacy mode that
# carries only U, draft-miao-ccwg-hpcc section 9.1): the next ACK runs
# NewAck with it instead of MeasureInflight.  A records sample puts the
# flow under HPCC++; the flow's first U sample then updates Wc: U = 1.5
# reads back exactly, W = Wc x 0.95 / 1.5 + W_ai (MD), step wc (5),
# rx-u-applied +1.  The flow holds no record afterwards: the next records
# sample is a first (step 1), so the next U sample is a first again.
#
# A loss reduction between the reading of Wc and the reading of W caps W
# and Wc outside the law (hpcc_ssthresh()), and one in loss recovery at the
# reading of Wc shows the fallback law (mode 2): the reductions counter,
# read with Wc and with W, tells, and the round is taken again (up to
# ten).  A round without a reduction must follow the law.
#
# A round is up to four samples, each applied at the flow's next ACK, and
# takes 10 to 30 s in a TCG guest (every netlink call and poll spawns
# processes).  The case's own flow therefore sends one 1000-byte segment
# a second (8 kbit/s), which is enough ACKs to apply the samples: under
# NETLINK_LOSS=2% it meets a loss about every 50 s.  At 2 Mbit/s it met
# dozens a round: on 6.1 a reduction in each of six rounds, once W had
# fallen to two segments and every loss was a reduction of its own.
only_u() {
	local port=40081 sp=5281 rc
	flow_start $port $sp 8K 1000 || return 1
	only_u_rounds "$CLI $port $SRV $sp" && rc=0 || rc=$?
	flow_stop $port $sp
	return $rc
}

only_u_rounds() {
	local tup=$1 ts=2000000000000 s0 s1 a0 red0 i
	snap() { nls flow-get $tup; }
	push_s() { # push_s ARGS...: one sample, applied at an ACK
		local before
		before=$(kv "$(snap)" samples)
		nls telemetry $tup "$@" >/dev/null || return 1
		retry 100 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $tup | sed -n 's/^samples=//p')\" -gt $before ]" ||
			{ echo "sample not applied"; return 1; }
	}
	for ((i = 1; i <= 10; i++)); do
		ts=$((ts + 10000000000))
		red0=$(kv "$(snap)" reductions)
		push_s 7,3,1000000000,$ts,0,0 &&
		push_s 7,3,1000000000,$((ts + 1000000000)),62500000,0 || return 1
		s0=$(snap)
		a0=$(stat_of hs rx_u_applied)
		# a reduction since the round began: Wc capped, perhaps the
		# fallback law (mode 2) at this reading, perhaps an undo
		# (hpcc_undo_cwnd()) to come; the round again
		if [ "$(kv "$s0" reductions)" != "$red0" ]; then
			echo "round $i: reductions $red0 -> $(kv "$s0" reductions) at the records (mode $(kv "$s0" mode))"
			continue
		fi
		[ "$(kv "$s0" mode)" = 1 ] || { echo "mode $(kv "$s0" mode)"; return 1; }
		push_s u=98304 || return 1
		s1=$(snap)
		echo "round $i: Wc $(kv "$s0" wc) -> U $(kv "$s1" u) W $(kv "$s1" w) Wc $(kv "$s1" wc)" \
		     "step $(kv "$s1" last_step) rx_u_applied $a0 -> $(stat_of hs rx_u_applied)" \
		     "reductions $(kv "$s0" reductions) -> $(kv "$s1" reductions)"
		[ "$(kv "$s1" reductions)" = "$(kv "$s0" reductions)" ] || continue
		[ "$(kv "$s1" u)" = $((3 << 31)) ] && [ "$(kv "$s1" last_step)" = 5 ] &&
		[ "$(stat_of hs rx_u_applied)" = $((a0 + 1)) ] &&
		python3 -S -c "import sys; sys.exit(abs($(kv "$s1" w) - max(3000, min($W_INIT, $(kv "$s0" wc) * 0.95 / 1.5 + 1000))) > 2)" || return 1
		push_s 7,3,1000000000,$((ts + 2000000000)),125000000,0 || return 1
		s1=$(snap)
		echo "records again: step $(kv "$s1" last_step)"
		[ "$(kv "$s1" last_step)" = 1 ]
		return
	done
	echo "a loss reduction in every round"
	return 1
}

# start slow-start: a new flow runs the fallback law from TCP's initial
# window (mode 2, no fallback counted); the first sample only records the
# path; the second, on the same path, hands the flow to HPCC++ from its
# window (Wc = cwnd x mss, then AI at U = 0.5: W = Wc + W_ai, a whole
# number of segments plus W_ai); no resume is counted.
# Flows started before keep their start.  Each flow sends 2 Mbit/s (a
# 128 KB write every 0.5 s): a window far below W_init, where a 50 Mbit/s
# flow in a loaded guest (a long srtt) could grow it to W_init before the
# hand-over.  Its losses are read in the reductions counter, below.
# slow_start_once PORT SP - one flow; exit status 0 pass, 1 fail, 2 a loss
# reduction between the hand-over and the reading changed W outside the
# law (hpcc_ssthresh() caps W and Wc at ssthresh x mss) or the flow was
# in loss recovery at the reading (mode 2, the fallback law): try a new
# flow
slow_start_once() {
	local port=$1 sp=$2 tup f0 r0 s0 mss w mode red0 red fb snap
	tup="$CLI $port $SRV $sp"
	fget() { nls flow-get $tup | sed -n "s/^$1=//p"; }
	push() { # push TS TX: one sample, applied at an ACK
		local before
		before=$(fget samples)
		nls telemetry $tup 7,3,1000000000,$1,$2,0 >/dev/null || return 1
		retry 100 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $tup | sed -n 's/^samples=//p')\" -gt $before ]" ||
			{ echo "sample not applied"; return 1; }
	}
	f0=$(stat_of hs fallbacks); r0=$(stat_of hs resumes)
	flow_start $port $sp 2M || return 1
	echo "started: mode=$(fget mode) cwnd=$(fget cwnd) w=$(fget w)"
	[ "$(fget mode)" = 2 ] || { flow_stop $port $sp; return 1; }
	push 1000000000000 0 && [ "$(fget mode)" = 2 ] && [ "$(fget last_step)" = 1 ] || {
		echo "after the first sample: mode=$(fget mode) step=$(fget last_step)"
		flow_stop $port $sp; return 1; }
	# 1 s later, 62,500,000 bytes at B = 1 Gbit/s: u' = 0.5
	s0=$(fget samples); red0=$(fget reductions)
	push 1001000000000 62500000 || { flow_stop $port $sp; return 1; }
	# W, mss, the law and the reductions of one event (kv)
	snap=$(nls flow-get $tup)
	w=$(kv "$snap" w); mss=$(kv "$snap" mss); mode=$(kv "$snap" mode)
	red=$(kv "$snap" reductions); fb=$(kv "$snap" fallbacks)
	echo "handed over: mode=$mode step=$(kv "$snap" last_step) W=$w Wc=$(kv "$snap" wc) mss=$mss samples $s0 -> $(kv "$snap" samples) reductions $red0 -> $red fallbacks $fb"
	flow_stop $port $sp
	if [ "$mode" != 1 ]; then
		[ "$red" != "$red0" ] && { echo "in loss recovery at the reading: inconclusive"; return 2; }
		return 1
	fi
	# slow start grew cwnd x mss to W_init before the hand-over (a slow
	# guest between the two pushes): Wc is clamped to W_init, which says
	# nothing about where it came from; another flow
	[ "$w" -ge "$W_INIT" ] && { echo "cwnd reached W_init first: inconclusive"; return 2; }
	if [ "$red" = "$red0" ]; then
		# W = Wc + W_ai with Wc a whole number of segments (cwnd x
		# mss), not W_init's 1,250,000 - W_ai
		python3 -S -c "import sys; w, mss, wi = $w, $mss, $W_INIT; sys.exit(not (w < wi and (w - 1000) % mss == 0 and w >= 2 * mss + 1000))" || return 1
	else
		# a loss reduction in between (TCG guests drop bursts at the
		# veth: 5 to 35 reductions per attempt on both kernels): before
		# the hand-over it only shrank cwnd, so W = cwnd x mss + W_ai
		# still; after it, hpcc_ssthresh() capped W at ssthresh x mss.
		# Either way W is whole segments (or,
		# from a window of 2 after a timeout, W_min's 3000 plus W_ai),
		# below W_init: it came from the window, not from W_init
		python3 -S -c "import sys; w, mss, wi = $w, $mss, $W_INIT; sys.exit(not (w < wi and (w >= 2 * mss and (w % mss == 0 or (w - 1000) % mss == 0) or w == 3000 + 1000)))" || return 1
		echo "loss reductions $red0 -> $red in between: W $w is whole segments"
	fi
	# the hand-over is neither a fallback nor a resume: this flow's own
	# fallbacks (the namespace's count also moves when the long-running
	# flow of setup goes stale meanwhile, which it may on a slow guest);
	# a flow in loss recovery takes no telemetry and may go stale, so
	# with reductions a fallback is inconclusive
	[ "$fb" = 0 ] && [ "$(stat_of hs resumes)" = "$r0" ] || {
		echo "flow fallbacks $fb (namespace $f0 -> $(stat_of hs fallbacks)), resumes $r0 -> $(stat_of hs resumes)"
		[ "$red" = "$red0" ] || return 2
		return 1; }
}

slow_start() {
	local i rc=1
	nls params-set start=1 || return 1
	[ "$(nls params-get | sed -n 's/^start=//p')" = 1 ] || return 1
	for i in 1 2 3 4 5; do
		slow_start_once 4004$i 524$i && rc=0 || rc=$?
		[ $rc = 2 ] || break
	done
	nls params-set start=0 || return 1
	return $rc
}

bad_input() {
	local c inv0 hops0 nof0 out rc=0
	inv0=$(stat_of hs rejected_invalid); hops0=$(stat_of hs rejected_hops)
	nof0=$(stat_of hs rejected_no_flow)
	for c in short-addr long-port rate-zero rate-too-high missing-dport \
		 missing-qlen bad-family v4mapped mixed-family v6-no-daddr \
		 unknown-attr hop-not-nested u-with-hop u-with-rx \
		 zero-hops nine-hops; do
		out=$(nls bad $c $TUPLE) || { echo "$c: $out"; rc=1; continue; }
		echo "$c: $out"
		case "$out" in *": "?*) ;; *) echo "$c: no extack message"; rc=1 ;; esac
	done
	out=$(nls telemetry $CLI 1 $SRV 1 1,1,1000,1,1,1) &&
		{ echo "unknown flow accepted"; rc=1; }
	echo "unknown flow: $out"
	# w_min above W_init (which T, and so SLOW, scales) is refused
	for c in eta=400 t=0 max_stage=65 probe_dscp=64 w_min=100 \
		 "w_min=$((W_INIT + 1))" "probe_dscp=61" w_init=5 pacing_gain=99 \
		 pacing_gain=401 ewma_period=99 ewma_period=801 int_dscp=0 \
		 int_dscp=60 int_dscp=61 ifa_protocol=0 ifa_protocol=6 \
		 ifa_protocol=17 ifa_protocol=60 ifa_protocol=255; do
		out=$(nls params-set $c) && { echo "params-set $c accepted"; rc=1; }
		echo "params-set $c: $out"
	done
	echo "rejected_invalid $inv0 -> $(stat_of hs rejected_invalid)," \
	     "rejected_hops $hops0 -> $(stat_of hs rejected_hops)," \
	     "rejected_no_flow $nof0 -> $(stat_of hs rejected_no_flow)," \
	     "params_rejected $(stat_of hs params_rejected)"
	[ "$(stat_of hs rejected_invalid)" = $((inv0 + 14)) ] &&
	[ "$(stat_of hs rejected_hops)" = $((hops0 + 2)) ] &&
	[ "$(stat_of hs rejected_no_flow)" = $((nof0 + 1)) ] &&
	[ "$(stat_of hs params_rejected)" -ge 10 ] &&
	[ "$(nls params-get | sed -n 's/^eta=//p')" = 950 ] &&
	[ "$(nls params-get | sed -n 's/^pacing_gain=//p')" = 100 ] &&
	[ "$(nls params-get | sed -n 's/^ewma_period=//p')" = 100 ] &&
	[ "$(nls params-get | sed -n 's/^int_dscp=//p')" = 23 ] &&
	[ "$(nls params-get | sed -n 's/^ifa_protocol=//p')" = 253 ] || return 1
	# an IFA protocol below IANA's unassigned range, as some devices use
	nls params-set ifa_protocol=131 &&
	[ "$(nls params-get | sed -n 's/^ifa_protocol=//p')" = 131 ] &&
	nls params-set ifa_protocol=253 || return 1
	# U's EWMA period: set, read back, restored to the draft's
	nls params-set ewma_period=250 &&
	[ "$(nls params-get | sed -n 's/^ewma_period=//p')" = 250 ] &&
	nls params-set ewma_period=100 && return $rc
	return 1
}

unprivileged() {
	local np="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
	local out rc=0
	out=$(ip netns exec hs $np "$NL" telemetry $TUPLE 7,3,1000000000,1,1,1) &&
		{ echo "telemetry-set allowed"; rc=1; }
	echo "telemetry-set: $out"
	out=$(ip netns exec hs $np "$NL" params-set eta=900) &&
		{ echo "params-set allowed"; rc=1; }
	echo "params-set: $out"
	out=$(ip netns exec hs $np "$NL" listen 1) &&
		{ echo "events joined"; rc=1; }
	echo "events: $out"
	ip netns exec hs $np "$NL" stats >/dev/null || { echo "stats refused"; rc=1; }
	return $rc
}

# (hr has flows of its own: iperf3's server applies the client's -C to its
# end, a dual-stack socket talking IPv4, which has state too)
namespaces_apart() {
	local out
	ip netns exec hr "$NL" dump || return 1
	ip netns exec hr "$NL" dump | grep "^$CLI:" && { echo "hr lists a flow of hs"; return 1; }
	out=$(ip netns exec hr "$NL" flow-get $TUPLE) &&
		{ echo "hr sees the flow of hs"; return 1; }
	echo "hr flow-get: $out"
	nls dump | tail -1 | grep -q '^flows=[1-9]' &&
	[ "$(ip netns exec hr "$NL" params-get | sed -n 's/^t=//p')" = 100 ]
}

# A 4 MB flow (pacing at 1 Gbit/s: about 30 ms, many round trips) gets all
# three events.  A 1000-byte one (xfer.py: one segment, then the answer)
# ends within its first round trip: flow-new and flow-del, but no
# flow-active, so hpccd never probes it (kernel/tcp_hpcc/flow.c,
# hpcc_announce_active()).
events() {
	local pid
	{ ip netns exec hr python3 "$TOP/selftests/guest/xfer.py" serve \
		$SRV 5300 1 1000 >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5300 '" ||
		return 1
	ip netns exec hs "$NL" listen 1000 > "$TMP/events" 2>&1 &
	pid=$!
	retry 50 grep -q listening "$TMP/events" || return 1
	# at 100 Mbit/s (0.3 s, many round trips, data waiting at every ACK):
	# unpaced, a line-rate start could put all 4 MB in flight at once and
	# finish within about one srtt, never an ACK that finds it outlasting a
	# round trip (seen on 6.1: no flow-active)
	ip netns exec hs iperf3 -c $SRV -p 5202 -C hpcc -n 4M -b 100M \
		--cport 40100 >/dev/null || return 1
	ip netns exec hs python3 "$TOP/selftests/guest/xfer.py" send \
		$SRV 5300 hpcc 1000 || return 1
	sleep 1
	end_procs "$pid"
	grep -v listening "$TMP/events"
	grep -q "event flow-new sport=40100 dport=5202" "$TMP/events" &&
	grep -q "event flow-active sport=40100 dport=5202" "$TMP/events" &&
	grep -q "event flow-del sport=40100 dport=5202" "$TMP/events" &&
	grep -q "event flow-new sport=[0-9]* dport=5300" "$TMP/events" &&
	grep -q "event flow-del sport=[0-9]* dport=5300" "$TMP/events" || return 1
	if grep "event flow-active sport=[0-9]* dport=5300" "$TMP/events"; then
		echo "the 1000-byte flow was announced active"
		return 1
	fi
}

slab_objects() {
	echo 1 > /sys/kernel/slab/hpcc_ent/shrink
	cat /sys/kernel/slab/hpcc_ent/objects | cut -d' ' -f1
}

thousand_sockets() {
	local base flows line n=1000
	topo_ns hm || return 1
	base=$(slab_objects)
	coproc MANY { ip netns exec hm "$BIN/tcp_cc_tool" many $n hpcc; }
	read -r -t $((120 * SLOW)) line <&"${MANY[0]}"
	[ "$line" = ready ] || { echo "tool: $line"; return 1; }
	flows=$(stat_of hm flows)
	echo "slab hpcc_ent objects $base, with $((2 * n)) connections: $(slab_objects), table: $flows"
	eval "exec ${MANY[1]}>&-"
	wait "$MANY_PID"
	[ "$flows" = $((2 * n)) ] || return 1
	retry 50 sh -c "[ \"\$(ip netns exec hm '$NL' stats | sed -n 's/^flows=//p')\" = 0 ]" ||
		return 1
	retry 50 sh -c "[ \"\$(echo 1 > /sys/kernel/slab/hpcc_ent/shrink; cut -d' ' -f1 /sys/kernel/slab/hpcc_ent/objects)\" = $base ]" || {
		echo "slab objects $(slab_objects), baseline $base"; return 1; }
	echo "after close: table 0, slab objects $(slab_objects)"
}

# A flow-get dump resumes each part at (bucket, index in the bucket), so a
# flow added or removed between two parts can make it miss a flow that was
# there all along (hpccd's reconcile then forgot a live flow).  A message
# after such a change carries NLM_F_DUMP_INTR: 100 flows (two parts) and a
# new one after the first part was made.
dump_intr() {
	local line out parts rc=0
	coproc DUMPS { ip netns exec hm "$BIN/tcp_cc_tool" many 50 hpcc; }
	read -r -t $((60 * SLOW)) line <&"${DUMPS[0]}"
	[ "$line" = ready ] || { echo "tool: $line"; return 1; }
	out=$(ip netns exec hm "$NL" dump-change) || rc=1
	echo "with $(stat_of hm flows) flows: $out"
	case $out in *intr=1*) ;; *) rc=1 ;; esac
	parts=$(echo "$out" | sed -n 's/^parts=\([0-9]*\) .*/\1/p')
	[ "${parts:-0}" -ge 2 ] || rc=1
	# an unchanged table: no flag
	out=$(ip netns exec hm "$NL" dump) || rc=1
	echo "$out" | grep -q '^interrupted' && { echo "an unchanged dump was flagged"; rc=1; }
	eval "exec ${DUMPS[1]}>&-"
	wait "$DUMPS_PID"
	retry 50 sh -c "[ \"\$(ip netns exec hm '$NL' stats | sed -n 's/^flows=//p')\" = 0 ]" ||
		rc=1
	return $rc
}

table_full() {
	local line
	ip netns exec hm "$NL" params-set max_flows=100 || return 1
	coproc FULL { ip netns exec hm "$BIN/tcp_cc_tool" many 100 hpcc; }
	read -r -t $((60 * SLOW)) line <&"${FULL[0]}"
	echo "200 connections with max_flows=100: flows $(stat_of hm flows)," \
	     "table_full $(stat_of hm table_full)"
	[ "$line" = ready ] && [ "$(stat_of hm flows)" = 100 ] &&
	[ "$(stat_of hm table_full)" = 100 ] || return 1
	eval "exec ${FULL[1]}>&-"
	wait "$FULL_PID"
}

# (--no-schema: host/uapi.sh validates the spec against the schema)
ynl_dump() {
	local out
	out=$(ip netns exec hs python3 "$YNL/cli.py" \
		--spec "$TOP/Documentation/netlink/specs/hpcc.yaml" \
		--no-schema \
		--dump flow-get) || { echo "$out"; return 1; }
	echo "$out" | head -20
	echo "$out" | grep -q "'sport': $CPORT" && echo "$out" | grep -q "'cwnd'"
}

# A loss halves the window (Reno's ssthresh) and caps W and Wc to it in
# HPCC mode; the flow counts it as a reduction.
loss_caps_w() {
	local out red w rc=1 i
	ip netns exec hs tc qdisc add dev v0 root netem loss 5% || return 1
	flow_start 40031 5231 || rc=2
	for ((i = 0; rc == 1 && i < 50 * SLOW; i++)); do
		out=$(ip netns exec hs "$NL" flow-get $CLI 40031 $SRV 5231)
		red=$(echo "$out" | sed -n 's/^reductions=//p')
		w=$(echo "$out" | sed -n 's/^w=//p')
		[ "${red:-0}" -gt 0 ] && [ "$w" -le $((W_INIT / 2)) ] && rc=0
		sleep 0.2
	done
	echo "with 5% loss: reductions=$red W=$w mode=$(echo "$out" | sed -n 's/^mode=//p')" \
	     "cwnd=$(echo "$out" | sed -n 's/^cwnd=//p')"
	ip netns exec hs tc qdisc del dev v0 root
	flow_stop 40031 5231
	return $rc
}

snmp() { ip netns exec hs awk '/^Tcp:/ { if (h) { print $11; exit } h = 1 }' /proc/net/snmp; }

probes_consumed() {
	local in0 in1 p0 r0 d0 seen sniff i k
	ip netns pids hs | xargs -r kill 2>/dev/null	# quiet: stop iperf3
	# until the connections have closed: TcpInSegs stable for 0.5 s
	for ((i = 0; i < 40; i++)); do
		in0=$(snmp); sleep 0.5
		[ "$(snmp)" = "$in0" ] && break
	done
	ip netns exec hs python3 "$TOP/selftests/guest/probe.py" sniff v0 60 \
		60 20 > "$TMP/sniff" 2>&1 &
	sniff=$!
	retry 150 grep -q sniffing "$TMP/sniff" || return 1
	in0=$(snmp); p0=$(stat_of hs probes_consumed)
	r0=$(stat_of hs responses_consumed); d0=$(stat_of hs dscp_not_hpcc)
	ip netns exec hr python3 "$TOP/selftests/guest/probe.py" send \
		$SRV 5201 $CLI 40999 60 probe 20 &&
	ip netns exec hr python3 "$TOP/selftests/guest/probe.py" send \
		$SRV 5201 $CLI 40999 61 response 5 || return 1
	sleep 0.5
	in1=$(snmp)
	wait $sniff
	seen=$(tail -n 1 "$TMP/sniff")
	echo "TcpInSegs $in0 -> $in1, probes_consumed $p0 -> $(stat_of hs probes_consumed)," \
	     "responses_consumed $r0 -> $(stat_of hs responses_consumed), packet socket saw $seen"
	[ "$in1" = "$in0" ] && [ "$(stat_of hs probes_consumed)" = $((p0 + 20)) ] &&
	[ "$(stat_of hs responses_consumed)" = $((r0 + 5)) ] && [ "$seen" = 20 ] ||
		return 1
	# a probe with the INT DSCP (int-dscp, 23) is consumed as well
	in1=$(snmp); p0=$(stat_of hs probes_consumed)
	ip netns exec hr python3 "$TOP/selftests/guest/probe.py" send \
		$SRV 5201 $CLI 40999 23 probe 3 || return 1
	sleep 0.5
	echo "INT DSCP: TcpInSegs $in1 -> $(snmp)," \
	     "probes_consumed $p0 -> $(stat_of hs probes_consumed)"
	[ "$(snmp)" = "$in1" ] && [ "$(stat_of hs probes_consumed)" = $((p0 + 3)) ] ||
		return 1
	in1=$(snmp)
	# the same DSCP without the HPCC header goes on to TCP
	ip netns exec hr python3 "$TOP/selftests/guest/probe.py" send \
		$SRV 5201 $CLI 40999 60 nomagic 1 || return 1
	sleep 0.5
	echo "without the header: TcpInSegs $in1 -> $(snmp)," \
	     "dscp_not_hpcc $d0 -> $(stat_of hs dscp_not_hpcc)"
	[ "$(snmp)" = $((in1 + 1)) ] && [ "$(stat_of hs dscp_not_hpcc)" = $((d0 + 1)) ] ||
		return 1
	# a valid HPCC payload behind a TCP header that is not the wire
	# format's (SYN, seq or window set) goes on to TCP too
	in1=$(snmp); d0=$(stat_of hs dscp_not_hpcc); p0=$(stat_of hs probes_consumed)
	for k in syn seq window; do
		ip netns exec hr python3 "$TOP/selftests/guest/probe.py" send \
			$SRV 5201 $CLI 40999 60 $k 1 || return 1
	done
	sleep 0.5
	echo "SYN, seq, window set: TcpInSegs $in1 -> $(snmp)," \
	     "dscp_not_hpcc $d0 -> $(stat_of hs dscp_not_hpcc)," \
	     "probes_consumed $p0 -> $(stat_of hs probes_consumed)"
	[ "$(snmp)" = $((in1 + 3)) ] && [ "$(stat_of hs dscp_not_hpcc)" = $((d0 + 3)) ] &&
		[ "$(stat_of hs probes_consumed)" = "$p0" ]
}
# The tracepoints (kernel/tcp_hpcc/trace.h): one hpcc:hpcc_sample per sample
# the flow applies, one hpcc:hpcc_mode per mode change, with the flow's
# tuple, the sample's hop count and sane times.
mode_is() {
	retry 50 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $TUPLE | sed -n 's/^mode=//p')\" = $1 ]"
}

tracepoints() {
	local tr=$TRACEFS flow="$CLI:$CPORT > $SRV:5201" s0 s1 n
	tracefs_mount || return 1
	[ -d $tr/events/hpcc/hpcc_sample ] || { echo "no hpcc events"; return 1; }
	echo > $tr/trace
	echo 1 > $tr/events/hpcc/enable
	s0=$(flow_of samples)
	for n in 1 2 3; do	# each applied before the next arrives
		nls telemetry $TUPLE 7,3,1000000000,$((n * 100000000000)),$((n * 20000)),0 ||
			return 1
		retry 50 sh -c "[ \"\$(ip netns exec hs '$NL' flow-get $TUPLE | sed -n 's/^samples=//p')\" -ge $((s0 + n)) ]" || {
			echo "sample $n not applied"; return 1; }
	done
	nls params-set stale_rtts=1 && mode_is 2 &&
	nls params-set stale_rtts=1000 &&
	nls telemetry $TUPLE 7,3,1000000000,500000000000,0,0 && mode_is 1 ||
		return 1
	s1=$(flow_of samples)
	echo 0 > $tr/events/hpcc/enable
	grep -F "$flow" $tr/trace > "$TMP/tp"
	grep -m2 hpcc_sample "$TMP/tp"; grep hpcc_mode "$TMP/tp"
	python3 - "$TMP/tp" $((s1 - s0)) <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
samples = [l for l in lines if "hpcc_sample:" in l]
modes = [re.search(r"(\w+) -> (\w+) cwnd=(\d+) W=(\d+) since_ns=(\d+)", l).groups()
         for l in lines if "hpcc_mode:" in l]
want = int(sys.argv[2])
print("%d hpcc_sample events for %d samples applied; mode changes %s" %
      (len(samples), want, [m[:2] for m in modes]))
assert want >= 4 and len(samples) == want, "one event per applied sample"
for l in samples:
    f = dict(re.findall(r"(\w+)=(\S+)", l))
    assert f["step"] in ("first", "path-change", "skipped", "w", "wc"), l
    assert f["hop"].split("/")[1] == "1", l     # one record per sample
    assert int(f["W"]) >= 3000 and int(f["Wc"]) >= 3000, l
    assert 0 <= int(f["age_ns"]) < 10**10 and int(f["srtt_us"]) > 0, l
    if f["step"] in ("w", "wc"):
        assert f["hop"] == "1/1", l           # the only hop binds
assert [m[:2] for m in modes] == [("hpcc", "fallback"), ("fallback", "hpcc")], modes
assert all(int(m[4]) > 0 for m in modes), modes
PY
}

# An idle gap is not a telemetry gap (hpccd probes only while data is in
# flight): a flow that had a sample and then sends again after an idle
# period far longer than stale_rtts RTTs keeps the HPCC law and its W; a
# flow that goes on sending without samples still falls back (after
# stale_rtts RTTs with data in flight).  So the restart after idle
# (CA_EVENT_TX_START) does not hand the flow to the fallback law.
idle_holds_w() {
	local out rc
	{ ip netns exec hr python3 -S -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5301)); s.listen(1); c, _ = s.accept()
while c.recv(65536):
    pass' & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5301 '" || return 1
	nls params-set stale_rtts=4 || return 1
	out=$(ip netns exec hs python3 - "$NL" $CLI $SRV $T_US <<'PY'
import socket, subprocess, sys, threading, time
nl, cli, srv, t_us = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tup = [cli, "40030", srv, "5301"]
def flow():
    out = subprocess.run([nl, "flow-get"] + tup, capture_output=True,
                         text=True, check=True).stdout
    return dict(l.split("=", 1) for l in out.split() if "=" in l)
def sample(ts):
    subprocess.run([nl, "telemetry"] + tup + ["7,3,1000000000,%d,0,0" % ts],
                   stdout=subprocess.DEVNULL, check=True)
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"hpcc")
s.bind((cli, 40030))
s.connect((srv, 5301))
for i in range(50):     # a sample, applied at an ACK
    sample(10**12 + i * 10**9)
    s.sendall(b"x" * 20000)
    time.sleep(0.01)
    f = flow()
    if int(f["samples"]) >= 1:
        break
before = flow()
print("before idle: mode=%s samples=%s fallbacks=%s w=%s" %
      (before["mode"], before["samples"], before["fallbacks"], before["w"]))
time.sleep(100 * t_us / 1e6)    # idle for 100 T, 25 stale budgets
s.sendall(b"x" * 20000)
time.sleep(2 * t_us / 1e6)      # its ACKs
after = flow()
print("after idle: mode=%s fallbacks=%s w=%s" %
      (after["mode"], after["fallbacks"], after["w"]))
stop = threading.Event()
def send():                     # sending on without samples
    while not stop.is_set():
        s.sendall(b"x" * 65536)
th = threading.Thread(target=send)
th.start()
end = time.time() + 300 * t_us / 1e6
while time.time() < end and flow()["mode"] == "1":
    time.sleep(t_us / 1e6)
stop.set()
th.join()
last = flow()
print("sending without samples: mode=%s fallbacks=%s" %
      (last["mode"], last["fallbacks"]))
ok = (int(before["samples"]) >= 1 and before["mode"] == "1" and
      after["mode"] == "1" and after["fallbacks"] == before["fallbacks"] and
      after["w"] == before["w"] and last["mode"] == "2")
sys.exit(0 if ok else 1)
PY
)
	rc=$?
	echo "$out"
	nls params-set stale_rtts=1000 || return 1
	return $rc
}

# A flow's sequence numbers (last-ack-seq, last-snd-nxt: what an off-path
# sender needs to get a message or segment into its window) only for
# CAP_NET_ADMIN over the namespace: root gets them from flow-get's do and
# dump, a user without capabilities and the root of a user namespace that
# does not own hs get the flow without them, and neither joins the events.
# (Without this rule anyone would get them.)
seq_numbers_private() {
	local np="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
	local tuple="$CLI 40090 $SRV 5290" who out rc=0
	flow_start 40090 5290 || return 1
	out=$(nls flow-get $tuple) || rc=1
	echo "$out" | grep -q '^last_ack_seq=' &&
		echo "$out" | grep -q '^last_snd_nxt=' ||
		{ echo "root's flow-get: no sequence numbers"; rc=1; }
	out=$(ip netns exec hs "$TOP/build/hpccctl" -j flow show sport 40090) || rc=1
	echo "$out" | grep -q '"last-ack-seq"' &&
		echo "$out" | grep -q '"last-snd-nxt"' ||
		{ echo "root's dump: no sequence numbers"; rc=1; }
	for who in nobody userns; do
		local pre=$np
		[ $who = userns ] && pre="unshare -Ur"
		# shellcheck disable=SC2086
		out=$(ip netns exec hs $pre "$NL" flow-get $tuple) ||
			{ echo "$who: flow-get refused"; rc=1; }
		echo "$out" | grep -q '^cwnd=' || { echo "$who: no cwnd"; rc=1; }
		echo "$out" | grep '^last_\(ack_seq\|snd_nxt\)=' &&
			{ echo "$who: flow-get has them"; rc=1; }
		# shellcheck disable=SC2086
		out=$(ip netns exec hs $pre "$TOP/build/hpccctl" -j flow show sport 40090) ||
			{ echo "$who: dump refused"; rc=1; }
		echo "$out" | grep -q '"cwnd"' || { echo "$who: no cwnd in the dump"; rc=1; }
		echo "$out" | grep '"last-\(ack-seq\|snd-nxt\)"' &&
			{ echo "$who: the dump has them"; rc=1; }
		# shellcheck disable=SC2086
		out=$(ip netns exec hs timeout 10 $pre "$NL" listen 1 2>&1) &&
			{ echo "$who: events joined"; rc=1; }
		echo "$who: flow-get and dump without sequence numbers; events: $out"
	done
	flow_stop 40090 5290 || rc=1
	return $rc
}

# An FCR message and a CCM notification from a managed prefix (hr's address)
# with a sequence number 2^31 away from the flow's are dropped and counted
# (fcr-bad-seq, ccm-bad-seq: the FCR message's 1-s interval holds it until
# the flow's next ACK checks it); what the kernel logs of them, anyone who may
# read the log reads: no sequence number, the flow's or the message's.
# (Without this rule the log would show snd_una, snd_nxt and max_window.)
log_without_seq() {
	local tuple="$CLI 40091 $SRV 5291" mark="netlink.sh: log $$" seq f0 c0 out rc=0
	flow_start 40091 5291 || return 1
	ip netns exec hs "$TOP/build/hpccctl" fcr set port 6862 prefix $SRV/32 ||
		return 1
	f0=$(mstat hs fcr-bad-seq) && c0=$(mstat hs ccm-bad-seq) || rc=1
	seq=$(nls flow-get $tuple | sed -n 's/^last_snd_nxt=//p')
	seq=$(((${seq:-0} + 2147483648) % 4294967296))
	echo "$mark" > /dev/kmsg
	ip netns exec hr python3 -S -c '
import socket, sys
sys.path.insert(0, sys.argv[1])
from fcr import message as fcr
from ccm import message as ccm
cli, srv, seq = sys.argv[2], sys.argv[3], int(sys.argv[4])
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(fcr(cli, 40091, srv, 5291, 2000000, 7, 1, 1, 1000000, seq), (cli, 6862))
u.sendto(ccm(1, cli, 40091, srv, 5291, seq, 0), (cli, 6862))' \
		"$TOP/selftests/guest" $CLI $SRV $seq || rc=1
	retry 100 sh -c "[ \"\$(ip netns exec hs '$TOP/build/hpccctl' stats | awk '\$1 == \"fcr-bad-seq\" { print \$2 }')\" -gt $f0 ]" ||
		{ echo "no fcr-bad-seq"; rc=1; }
	retry 100 sh -c "[ \"\$(ip netns exec hs '$TOP/build/hpccctl' stats | awk '\$1 == \"ccm-bad-seq\" { print \$2 }')\" -gt $c0 ]" ||
		{ echo "no ccm-bad-seq"; rc=1; }
	echo "hs: fcr-bad-seq $f0 -> $(mstat hs fcr-bad-seq), ccm-bad-seq $c0 -> $(mstat hs ccm-bad-seq)"
	out=$(dmesg | sed -n "/$mark/,\$p" | grep -E 'FCR|CCM')
	echo "$out"
	echo "$out" | grep -E 'snd_una|snd_nxt|max_window|sequence number [0-9]' &&
		{ echo "a sequence number in the log"; rc=1; }
	ip netns exec hs "$TOP/build/hpccctl" fcr set port 0 flush || rc=1
	flow_stop 40091 5291 || rc=1
	return $rc
}

# telemetry-push replies only with news for the sender: an idle flow
# (in-flight 0 and srtt the same at every sample), 33 samples on one
# socket with a flow-get after the 20th, gets the reply at its 1st, at the
# 17th (push-reply-every) and at the 21st (the flow-get told its state
# since); the others count telemetry-quiet.  A sample from another socket
# is news to it.  telemetry-set replies to each.
push_quiet() {
	local q0 q1 a0 a1 out got i rc=0 pids=
	ip netns exec hr python3 -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'$SRV'", 5209)); s.listen(1); c, _ = s.accept(); time.sleep(300)' &
	pids=$!
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5209 '" || rc=1
	ip netns exec hs python3 -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"hpcc")
s.bind(("'$CLI'", 40077)); s.connect(("'$SRV'", 5209)); time.sleep(300)' &
	pids="$pids $!"
	[ $rc = 0 ] && retry 50 sh -c "ip netns exec hs '$NL' flow-get $CLI 40077 $SRV 5209 >/dev/null" || rc=1
	q0=$(stat_of hs telemetry_quiet); a0=$(stat_of hs telemetry_accepted)
	out=$(nls telemetry-push $CLI 40077 $SRV 5209 7,3,1000000000,1000,0,0 r=33 g=20) || rc=1
	got=$(echo "$out" | sed -n 's/^\([0-9]*\): in_flight=.*/\1/p' | tr '\n' ' ')
	q1=$(stat_of hs telemetry_quiet); a1=$(stat_of hs telemetry_accepted)
	echo "telemetry-push, one socket: replies at samples ${got:-none}, telemetry-quiet +$((q1 - q0)), telemetry-accepted +$((a1 - a0))"
	[ "$got" = "1 17 21 " ] && [ $((q1 - q0)) = 30 ] && [ $((a1 - a0)) = 33 ] || rc=1
	out=$(nls telemetry-push $CLI 40077 $SRV 5209 7,3,1000000000,2000,0,0 r=2) || rc=1
	got=$(echo "$out" | sed -n 's/^\([0-9]*\): in_flight=.*/\1/p' | tr '\n' ' ')
	echo "telemetry-push, another socket: replies at samples ${got:-none}"
	[ "$got" = "1 " ] || rc=1
	out=$(nls telemetry $CLI 40077 $SRV 5209 7,3,1000000000,3000,0,0) || rc=1
	echo "telemetry-set: $out"
	case "$out" in in_flight=0\ *) ;; *) rc=1 ;; esac
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	return $rc
}

unload() {
	cleanup
	retry 100 sh -c '[ "$(cat /sys/module/tcp_hpcc/refcnt)" = 0 ]' &&
	rmmod tcp_hpcc
}

ktap_print_header
ktap_set_plan 23
t "an iperf3 flow with hpcc gets HPCC state (flow-get)" setup
t "line-rate start: W = W_init = line rate x T" line_rate_start
t "W, Wc, U, incStage follow hpcc-replay; cwnd = W/mss, pacing = W/T" follows_core
t "stale telemetry: fallback; fresh telemetry: back to hpcc" falls_back_and_resumes
t "tracepoints: hpcc_sample per applied sample, hpcc_mode per mode change" tracepoints
t "an idle period holds W and the HPCC law; sending without samples falls back" idle_holds_w
t "a receiver-reported N sets the flow's W_ai by n-flows-source" reported_n
t "only the receiver's U (rx-u): NewAck with it, Wc updated, the records forgotten" with_loss only_u
t "start slow-start: fallback law until a sample measures U, then HPCC++ from cwnd" with_loss slow_start
t "bad netlink input is rejected with extack messages and counted" bad_input
t "an unprivileged user cannot write or join events" unprivileged
t "two namespaces do not see each other's flows or parameters" namespaces_apart
t "flow-new, flow-del and (only for a flow outlasting a round trip) flow-active events reach a listener" events
t "1000 connections (2000 hpcc sockets): no table or slab leak" thousand_sockets
t "a flow-get dump the table changes under is flagged NLM_F_DUMP_INTR" dump_intr
t "max-flows bounds the table and table-full is counted" table_full
t "the kernel's YNL CLI dumps flows with the project's spec" ynl_dump
t "a loss is counted as a reduction and caps W at half of W_init" loss_caps_w
t "probes and responses are consumed before TCP; a packet socket sees them; no header, or SYN/seq/window set, goes to TCP" probes_consumed
t "a flow's sequence numbers only for CAP_NET_ADMIN over the namespace (flow-get, dump); events neither" seq_numbers_private
t "the kernel log of an FCR message or CCM notification outside the window has no sequence number" log_without_seq
t "telemetry-push replies with news only: an idle flow's first sample, every 16th, and the first after a flow-get or from another socket" push_quiet
t "the module unloads afterwards" unload
ktap_finished
