#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/ccm.sh OUT - the ECMP collision benchmark of CCM (a
# benchmark, not a test; run in a guest by `make bench-ccm`).  On the
# leaf-spine testbed (tools/testbed/testbed.sh, tb_up leafspine) with
# CCM_FLOWS senders (default 4), each sending one long IPv6 flow to its
# receiver: the flows start while tbl1 reaches the receivers over spine 1
# only; CCM_ADD_S seconds later (default 3) spine 2 joins tbl1's resilient
# nexthop group, whose busy buckets keep their spine, so every flow stays
# on spine 1 (a collision, the other spine idle) until it changes its
# flow label.  Per variant, in the same boot, CCM_REPS times (default 3),
# interleaved:
#
#   hpcc-ccm   hpcc with path migration (ccm-tries 3, ccm-samples 2,
#              ccm-gap-rtts 4, ccm-share 0, the defaults but tries) and
#              CCM on tbl1's uplinks (hpcc_int sends type 3s, one per
#              port per CCM_AR_GAP us, default 32000, about 3 x T, the
#              most ccm-ar-gap takes; the probes
#              carry the tag)
#   hpcc-ccms  the same with ccm-share 40: a saturated hop the flow
#              shares counts as congestion too
#   hpcc       hpcc without it (ccm-tries 0, no CCM on the hop)
#   dctcp-plb  dctcp with Linux's PLB (net.ipv4.tcp_plb_enabled 1, its
#              defaults), RED marking ECN at K = CCM_RED_K on the uplinks
#
# CCM_SCENARIOS (default "collision incast flap") picks the scenarios:
#
#   collision  the above (directories VARIANT-REP)
#   incast     the same collision for flows 3 and 4 while flows 1 and 2
#              both go to tbd1, whose port on tbl2 (the last hop) is
#              slowed to CCM_INC_MBIT (default 3) with CCM on it too: the
#              incast flows should change no path, the collided ones
#              should (directories incast-VARIANT-REP).  3, not 10 or 6:
#              the last hop must be what holds the incast flows back; at
#              10 they got 6.7 Mbit/s together through the collided
#              uplink, their last hop's u' 0.5 to 0.8 (hpcc_ccm traces),
#              and at 6 the incast flows' changes still came at u' 0.58
#              to 0.79 with the uplink binding at U 1.2 to 1.8: not
#              incast by any hop's measure
#   flap       flows 1 to 3 over both spines from the start, while
#              CCM_FLAP_MBIT (default 20) of UDP from tbs4 to tbd4 is
#              routed over one spine, then the other, every CCM_FLAP_S
#              (default 2) seconds: path changes per flow per second
#              should stay bounded (directories flap-VARIANT-REP)
#
# incast and flap run CCM_VARIANTS2 (default hpcc-ccm hpcc-ccms hpcc
# dctcp-plb: plain hpcc, which changes no path, is what CCM must beat).
#
# For each run, OUT/VARIANT-REP/: flowN.json (iperf3), rates.raw (time,
# bytes sent by u1 and u2 every 100 ms, from sysfs), meta.txt (t_add,
# path changes: hpcc's ccm-reroutes + ccm-ar-reroutes summed over the
# senders, dctcp's TcpExtTCPPLBRehash; own_changes: hpcc's ccm-reroutes,
# the host rule's; flow_changes: each sender's path changes, its one
# data flow's; t0_mono: t0 on the trace's clock, about; udp_mbit: what
# the flap's UDP delivered to tbd4, Mbit/s), tbl1's hop
# counters, snap.txt (snapshot, mid-run) and ccm_trace.txt (the hpcc_ccm
# tracepoint: each path change with the flow's U and binding hop).
# tools/bench/ccm_report.py OUT makes the report.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
TB_RATE_MBIT=${TB_RATE_MBIT:-25}
TB_LIMIT=${TB_LIMIT:-125000}	# 4 BDP at 25 Mbit/s and 10 ms
TB_RTT_MS=${TB_RTT_MS:-10}
# shellcheck source=../testbed/testbed.sh
. "$TOP/tools/testbed/testbed.sh"
FLOWS=${CCM_FLOWS:-4}
REPS=${CCM_REPS:-3}
DUR=${CCM_DUR_S:-25}
ADD=${CCM_ADD_S:-3}
RED_K=${CCM_RED_K:-20000}
AR_GAP=${CCM_AR_GAP:-32000}
VARIANTS=${CCM_VARIANTS:-hpcc-ccm hpcc-ccms hpcc dctcp-plb}
VARIANTS2=${CCM_VARIANTS2:-hpcc-ccm hpcc-ccms hpcc dctcp-plb}
SCENARIOS=${CCM_SCENARIOS:-collision incast flap}
INC_MBIT=${CCM_INC_MBIT:-3}
FLAP_MBIT=${CCM_FLAP_MBIT:-20}
FLAP_S=${CCM_FLAP_S:-2}
CTL=$TB_BIN/hpccctl

mkdir -p "$OUT" || exit 1
# Only the initial netns may make a restricted algorithm (dctcp, hpcc)
# another netns's default: allow them all, once loaded (as
# tools/bench/eval.sh does)
modprobe tcp_dctcp && modprobe tcp_hpcc || exit 1
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_available_congestion_control)" || exit 1
tb_up leafspine "$FLOWS" || { echo "ccm: testbed failed" >&2; exit 1; }
# the senders' probes carry the coordination tag; they take the hop's
# notifications from tbl1's addresses toward them
for ((i = 1; i <= FLOWS; i++)); do
	echo "ccm = fd00:19::/32" > "$TB_TMP/tbs$i.hpccd.conf"
	tb_hpccd_reload "tbs$i" || { echo "ccm: tbs$i's hpccd did not reload" >&2; exit 1; }
	# tbl1's addresses toward the senders, tbl2's on its uplinks (its
	# type 1 and 2 from the last hop)
	ip netns exec "tbs$i" "$CTL" fcr set port 6862 prefix fd00:18::/32 \
		prefix fd00:21::/32 || exit 1
done
# every path change as it happens (the hpcc_ccm tracepoint: flow, U and
# the binding hop), in each run's ccm_trace.txt.  Enabled once: patching
# text while other vCPUs run it crashed an mttcg guest (tools/bench/
# eval.sh); each run only switches the ring buffer.
TRACEFS=/sys/kernel/tracing
{ mountpoint -q $TRACEFS || mount -t tracefs nodev $TRACEFS; } &&
	echo 0 > $TRACEFS/tracing_on &&
	echo 0 > $TRACEFS/options/record-cmd &&
	echo mono > $TRACEFS/trace_clock &&
	echo > $TRACEFS/trace &&
	echo 1 > $TRACEFS/events/hpcc/hpcc_ccm/enable || exit 1
{
	echo "leafspine: $FLOWS senders, 2 spines, uplinks tbf $TB_RATE_MBIT Mbit/s bfifo $TB_LIMIT B, netem $TB_RTT_MS ms"
	echo "hpcc: $TB_HPCC_PARAMS"
	echo "flows $FLOWS x $DUR s, spine 2 added at $ADD s, reps $REPS, red_k $RED_K, ccm-ar-gap $AR_GAP us"
	echo "scenarios $SCENARIOS; incast: last hop $INC_MBIT Mbit/s; flap: $FLAP_MBIT Mbit/s of UDP, other spine every $FLAP_S s"
	echo "kernel $(uname -r)"
} > "$OUT/setup.txt"
cat "$OUT/setup.txt"

# sender_changes I VARIANT - "ALL OWN", sender tbsI's path changes so far
# from one read of its counters: hpcc's ccm-reroutes + ccm-ar-reroutes
# (OWN: ccm-reroutes, the host rule's), or dctcp-plb's TcpExtTCPPLBRehash
# (OWN 0)
sender_changes() {
	if [ "$2" = dctcp-plb ]; then
		ip netns exec "tbs$1" awk '
			/^TcpExt:/ { if (!h) { for (j = 1; j <= NF; j++) n[j] = $j; h = 1 }
			else { for (j = 1; j <= NF; j++) if (n[j] == "TCPPLBRehash") v = $j } }
			END { print v + 0, 0 }' /proc/net/netstat
	else
		ip netns exec "tbs$1" "$CTL" stats | awk '
			$1 == "ccm-reroutes" { o = $2 } $1 == "ccm-ar-reroutes" { a = $2 }
			END { print o + a, o + 0 }'
	fi
}

# port_queue NS DEV CC RATE - the child queue of NS's DEV under its tbf
# of RATE Mbit/s: RED marking at RED_K for dctcp, else a bfifo
port_queue() {
	if [ "$3" = dctcp ]; then
		ip netns exec "$1" tc qdisc replace dev "$2" parent 1:1 handle 20: \
			red limit "$TB_LIMIT" min "$RED_K" max $((RED_K + 1)) \
			avpkt 1500 burst $((RED_K / 1500 + 1)) probability 1 ecn \
			bandwidth "${4}mbit"
	else
		ip netns exec "$1" tc qdisc replace dev "$2" parent 1:1 handle 10: \
			bfifo limit "$TB_LIMIT"
	fi
}

# setup VARIANT SCENARIO - congestion control, PLB, the hops' CCM and
# queues; for incast, tbl2's port to tbd1 slowed to INC_MBIT (its hop's B
# too) with CCM on it; else that port as tb_up left it
setup() {
	local v=$1 cc=hpcc ecn=2 plb=0 tries=0 ccm=0 share=0 gap=0 ns k
	case $v in
	hpcc-ccm) tries=3 ccm=$((TB_LIMIT / 5)) gap=$AR_GAP ;;
	hpcc-ccms) tries=3 ccm=$((TB_LIMIT / 5)) share=40 gap=$AR_GAP ;;
	dctcp-plb) cc=dctcp ecn=1 plb=1 ;;
	esac
	for ns in $(tb_ns_all); do
		case $ns in tbs*|tbd*) ;; *) continue ;; esac
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=$cc \
			net.ipv4.tcp_ecn=$ecn || return 1
		# PLB came in 6.2: on 6.1 dctcp-plb fails, the others run
		if [ "$plb" = 1 ] || [ -e /proc/sys/net/ipv4/tcp_plb_enabled ]; then
			ip netns exec "$ns" sysctl -qw net.ipv4.tcp_plb_enabled=$plb ||
				return 1
		fi
		ip netns exec "$ns" "$CTL" param set ccm-tries $tries ccm-samples 2 \
			ccm-gap-rtts 4 ccm-pause 60 ccm-share $share || return 1
	done
	for k in 1 2; do
		ip netns exec tbl1 "$CTL" int change dev "u$k" ccm-qlen-high $ccm \
			ccm-ar-gap $gap &&
			port_queue tbl1 "u$k" $cc "$TB_RATE_MBIT" || return 1
	done
	ip netns exec tbl2 tc qdisc del dev h1 root 2>/dev/null
	if [ "$2" = incast ]; then
		ip netns exec tbl2 tc qdisc add dev h1 root handle 1: tbf \
			rate "${INC_MBIT}mbit" burst "$TB_BURST" limit "$TB_LIMIT" &&
			port_queue tbl2 h1 $cc "$INC_MBIT" &&
			ip netns exec tbl2 "$CTL" int change dev h1 \
				rate "${INC_MBIT}mbit" ccm-qlen-high $ccm
	else
		ip netns exec tbl2 "$CTL" int change dev h1 rate 10gbit \
			ccm-qlen-high 0
	fi
}

# snapshot - mid-run, each sender's flows (hpccctl flow show: mode,
# window, U, samples, fallbacks; ss: rtt, minrtt) and its hpccd's counters
# that are not 0
snapshot() {
	local i f
	for ((i = 1; i <= FLOWS; i++)); do
		echo "== tbs$i"
		ip netns exec "tbs$i" "$CTL" flow show
		# the flows' RTT under load, against T
		ip netns exec "tbs$i" ss -Htin state established |
			grep -o 'rtt:[0-9.]*/[0-9.]*\|minrtt:[0-9.]*'
		f=$TB_TMP/tbs$i.hpccd.stats
		rm -f "$f"
		kill -USR1 "$(cat "$TB_TMP/tbs$i.hpccd.pid")" 2>/dev/null || continue
		retry 25 test -s "$f" && grep -v "=0$" "$f" | tr '\n' ' '
		echo
	done
}

# flow_dst SCENARIO F - receiver index of flow F: in incast flows 1 and 2
# both go to tbd1
flow_dst() {
	if [ "$1" = incast ] && [ "$2" = 2 ]; then echo 1; else echo "$2"; fi
}

# flap_udp - tbs4's UDP to tbd4 over spine 1, then 2, every FLAP_S
# seconds (a more specific route on tbl1), until killed
flap_udp() {
	local k=1
	ip netns exec tbs4 iperf3 -6 -c fd00:19:4::1 -p 5204 -u \
		-b "${FLAP_MBIT}M" -t $((DUR + 5)) > /dev/null 2>&1 &
	while :; do
		ip -n tbl1 -6 route replace fd00:19:4::/64 nhid $k
		sleep "$FLAP_S"
		k=$((3 - k))
	done
}

# run SCENARIO VARIANT DIR - one run
run() {
	local sc=$1 v=$2 dir=$3 f pids=() sp fp t0 t0m t1 u0 u1 tadd n a o pc=0 oc=0 fcs=
	local -a fc0 oc0
	mkdir -p "$dir"
	setup "$v" "$sc" || return 1
	if [ "$sc" = flap ]; then tb_spines 2; else tb_spines 1; fi || return 1
	# every bucket idle on spine 1 before the flows
	sleep 2
	n=$FLOWS
	[ "$sc" = flap ] && n=$((FLOWS - 1))
	for ((f = 1; f <= FLOWS; f++)); do
		read -r "fc0[f]" "oc0[f]" <<< "$(sender_changes $f "$v")"
		ip netns exec "tbd$(flow_dst "$sc" $f)" iperf3 -s -1 -p $((5200 + f)) \
			> /dev/null 2>&1 &
	done
	for ((f = 1; f <= FLOWS; f++)); do
		retry 50 sh -c "ip netns exec tbd$(flow_dst "$sc" $f) ss -Hl | grep -q ':$((5200 + f)) '" ||
			return 1
	done
	# tbl1's uplinks' bytes every 100 ms, no process per sample
	ip netns exec tbl1 bash -c '
		exec 3<> <(:)
		while :; do
			read -r a < /sys/class/net/u1/statistics/tx_bytes
			read -r b < /sys/class/net/u2/statistics/tx_bytes
			echo "$EPOCHREALTIME $a $b"
			read -r -t 0.1 -u 3 _
		done' > "$dir/rates.raw" 2>/dev/null &
	sp=$!
	fp=
	if [ "$sc" = flap ]; then
		flap_udp &
		fp=$!
	fi
	echo > $TRACEFS/trace
	echo 1 > $TRACEFS/tracing_on
	# what the flap's UDP delivers: tbd4's received bytes (no TCP flow
	# goes there in the flap)
	[ "$sc" = flap ] &&
		u0=$(ip netns exec tbd4 cat /sys/class/net/r0/statistics/rx_bytes)
	t0=$EPOCHREALTIME
	read -r t0m _ < /proc/uptime
	for ((f = 1; f <= n; f++)); do
		ip netns exec "tbs$f" iperf3 -6 -c "fd00:19:$(flow_dst "$sc" $f)::1" \
			-p $((5200 + f)) -t "$DUR" -J > "$dir/flow$f.json" 2>&1 &
		pids+=($!)
	done
	sleep "$ADD"
	[ "$sc" = flap ] || tb_spines 2 || return 1
	tadd=$EPOCHREALTIME
	sleep $((DUR / 2))
	snapshot > "$dir/snap.txt" 2>&1
	wait "${pids[@]}"
	[ "$sc" = flap ] &&
		u1=$(ip netns exec tbd4 cat /sys/class/net/r0/statistics/rx_bytes)
	t1=$EPOCHREALTIME
	echo 0 > $TRACEFS/tracing_on
	grep -v '^#' $TRACEFS/trace > "$dir/ccm_trace.txt"
	kill "$sp" $fp
	wait "$sp" $fp 2>/dev/null
	[ "$sc" = flap ] && { pkill -f "iperf3 -6 -c fd00:19:4::1"; ip -n tbl1 -6 route del fd00:19:4::/64; }
	# every sender's changes (the flap's UDP sender too), each flow's
	for ((f = 1; f <= FLOWS; f++)); do
		read -r a o <<< "$(sender_changes $f "$v")"
		pc=$((pc + a - fc0[f]))
		oc=$((oc + o - oc0[f]))
		[ $f -le $n ] && fcs="$fcs $((a - fc0[f]))"
	done
	{
		echo "variant $v"
		echo "scenario $sc"
		echo "t0 $t0"
		echo "t0_mono $t0m"
		echo "t_add $tadd"
		echo "path_changes $pc"
		[ "$v" = dctcp-plb ] || echo "own_changes $oc"
		echo "flow_changes$fcs"
		[ "$sc" = flap ] &&
			awk -v b=$((u1 - u0)) -v t0="$t0" -v t1="$t1" \
				'BEGIN { printf "udp_mbit %.2f\n", b * 8 / (t1 - t0) / 1e6 }'
	} > "$dir/meta.txt"
	ip netns exec tbl1 "$CTL" int show > "$dir/hop.txt"
	ip netns exec tbl2 "$CTL" int show >> "$dir/hop.txt"
	echo "$sc $v $(basename "$dir"): path changes $pc, per flow$fcs"
}

for ((r = 1; r <= REPS; r++)); do
	for sc in $SCENARIOS; do
		vs=$VARIANTS
		pre=
		[ "$sc" = collision ] || { vs=$VARIANTS2; pre=$sc-; }
		for v in $vs; do
			run "$sc" "$v" "$OUT/$pre$v-$r" || echo "ccm: $pre$v-$r failed" >&2
		done
	done
done
tb_down
