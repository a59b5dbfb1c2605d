#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/ccm.sh OUT - the ECMP collision benchmark of issue 20 (a
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
#              CCM on tbl1's uplinks (hpcc_int sends type 3s; the probes
#              carry the tag)
#   hpcc-ccms  the same with ccm-share 40: a saturated hop the flow
#              shares counts as congestion too
#   hpcc       hpcc without it (ccm-tries 0, no CCM on the hop)
#   dctcp-plb  dctcp with Linux's PLB (net.ipv4.tcp_plb_enabled 1, its
#              defaults), RED marking ECN at K = CCM_RED_K on the uplinks
#
# For each run, OUT/VARIANT-REP/: flowN.json (iperf3), rates.raw (time,
# bytes sent by u1 and u2 every 100 ms, from sysfs), meta.txt (t_add,
# path changes: hpcc's ccm-reroutes + ccm-ar-reroutes summed over the
# senders, dctcp's TcpExtTCPPLBRehash; own_changes: hpcc's ccm-reroutes,
# the host rule's), and tbl1's hop counters.
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
VARIANTS=${CCM_VARIANTS:-hpcc-ccm hpcc-ccms hpcc dctcp-plb}
CTL=$TB_BIN/hpccctl

mkdir -p "$OUT" || exit 1
# Only the initial netns may make a restricted algorithm (dctcp) another
# netns's default: allow them all (as tools/bench/eval.sh does)
modprobe tcp_dctcp || exit 1
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(sysctl -n net.ipv4.tcp_available_congestion_control)" || exit 1
tb_up leafspine "$FLOWS" || { echo "ccm: testbed failed" >&2; exit 1; }
# the senders' probes carry the coordination tag; they take the hop's
# notifications from tbl1's addresses toward them
for ((i = 1; i <= FLOWS; i++)); do
	echo "ccm = fd00:19::/32" > "$TB_TMP/tbs$i.hpccd.conf"
	kill -HUP "$(cat "$TB_TMP/tbs$i.hpccd.pid")"
	ip netns exec "tbs$i" "$CTL" fcr set port 6862 prefix fd00:18::/32 ||
		exit 1
done
{
	echo "leafspine: $FLOWS senders, 2 spines, uplinks tbf $TB_RATE_MBIT Mbit/s bfifo $TB_LIMIT B, netem $TB_RTT_MS ms"
	echo "hpcc: $TB_HPCC_PARAMS"
	echo "flows $FLOWS x $DUR s, spine 2 added at $ADD s, reps $REPS, red_k $RED_K"
	echo "kernel $(uname -r)"
} > "$OUT/setup.txt"
cat "$OUT/setup.txt"

# senders' sum of hpcc counters KEYs, or of a TcpExt counter (ext:NAME)
sum_senders() {
	local i s=0 v
	for ((i = 1; i <= FLOWS; i++)); do
		case $1 in
		ext:*)
			v=$(ip netns exec "tbs$i" awk -v k="${1#ext:}" '
				/^TcpExt:/ { if (!h) { for (j = 1; j <= NF; j++) n[j] = $j; h = 1 }
				else { for (j = 1; j <= NF; j++) if (n[j] == k) print $j } }' \
				/proc/net/netstat) ;;
		*) v=$(ip netns exec "tbs$i" "$CTL" stats | awk -v k="$1" '$1 == k { print $2 }') ;;
		esac
		s=$((s + ${v:-0}))
	done
	echo $s
}

# setup VARIANT - congestion control, PLB, the hop's CCM and queue
setup() {
	local v=$1 cc=hpcc ecn=2 plb=0 tries=0 ccm=0 share=0 ns k
	case $v in
	hpcc-ccm) tries=3 ccm=$((TB_LIMIT / 5)) ;;
	hpcc-ccms) tries=3 ccm=$((TB_LIMIT / 5)) share=40 ;;
	dctcp-plb) cc=dctcp ecn=1 plb=1 ;;
	esac
	for ns in $(tb_ns_all); do
		case $ns in tbs*|tbd*) ;; *) continue ;; esac
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=$cc \
			net.ipv4.tcp_ecn=$ecn net.ipv4.tcp_plb_enabled=$plb || return 1
		ip netns exec "$ns" "$CTL" param set ccm-tries $tries ccm-samples 2 \
			ccm-gap-rtts 4 ccm-pause 60 ccm-share $share || return 1
	done
	for k in 1 2; do
		ip netns exec tbl1 "$CTL" int change dev "u$k" ccm-qlen-high $ccm ||
			return 1
		if [ "$cc" = dctcp ]; then
			ip netns exec tbl1 tc qdisc replace dev "u$k" parent 1:1 handle 20: \
				red limit "$TB_LIMIT" min "$RED_K" max $((RED_K + 1)) \
				avpkt 1500 burst $((RED_K / 1500 + 1)) probability 1 ecn \
				bandwidth "${TB_RATE_MBIT}mbit"
		else
			ip netns exec tbl1 tc qdisc replace dev "u$k" parent 1:1 handle 10: \
				bfifo limit "$TB_LIMIT"
		fi || return 1
	done
}

# run VARIANT DIR - one collision
run() {
	local v=$1 dir=$2 f pids=() sp t0 tadd c0 c1 o0 key
	mkdir -p "$dir"
	setup "$v" || return 1
	tb_spines 1 || return 1
	# every bucket idle on spine 1 before the flows
	sleep 2
	key="ccm-reroutes ccm-ar-reroutes"
	[ "$v" = dctcp-plb ] && key=ext:TCPPLBRehash
	c0=0
	for k in $key; do c0=$((c0 + $(sum_senders "$k"))); done
	o0=$(sum_senders ccm-reroutes)
	for ((f = 1; f <= FLOWS; f++)); do
		ip netns exec "tbd$f" iperf3 -s -1 -p $((5200 + f)) > /dev/null 2>&1 &
	done
	for ((f = 1; f <= FLOWS; f++)); do
		retry 50 sh -c "ip netns exec tbd$f ss -Hltn | grep -q ':$((5200 + f)) '" ||
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
	t0=$EPOCHREALTIME
	for ((f = 1; f <= FLOWS; f++)); do
		ip netns exec "tbs$f" iperf3 -6 -c "fd00:19:$f::1" -p $((5200 + f)) \
			-t "$DUR" -J > "$dir/flow$f.json" 2>&1 &
		pids+=($!)
	done
	sleep "$ADD"
	tb_spines 2 || return 1
	tadd=$EPOCHREALTIME
	wait "${pids[@]}"
	kill "$sp"
	wait "$sp" 2>/dev/null
	c1=0
	for k in $key; do c1=$((c1 + $(sum_senders "$k"))); done
	{
		echo "variant $v"
		echo "t0 $t0"
		echo "t_add $tadd"
		echo "path_changes $((c1 - c0))"
		[ "$v" = dctcp-plb ] ||
			echo "own_changes $(($(sum_senders ccm-reroutes) - o0))"
	} > "$dir/meta.txt"
	ip netns exec tbl1 "$CTL" int show > "$dir/hop.txt"
	echo "$v $(basename "$dir"): path changes $((c1 - c0))"
}

for ((r = 1; r <= REPS; r++)); do
	for v in $VARIANTS; do
		run "$v" "$OUT/$v-$r" || echo "ccm: $v-$r failed" >&2
	done
done
tb_down
