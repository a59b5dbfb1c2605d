# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tools/testbed/testbed.sh - the end-to-end testbed, sourced by tools/demo,
# the guest tests and the benchmarks.  Runs as root inside a guest
# (tools/vmrun); Documentation/testbed.rst describes it.
#
#   tb_up dumbbell N | incast N    build the topology (N senders; N or 1
#                                  receivers), load the modules, start hpccd
#   tb_up leafspine N              the IPv6 leaf-spine below (N senders, N
#                                  receivers); tb_spines 1|2 its paths
#   tb_run CC FLOWS SECONDS DIR    FLOWS iperf3 flows with congestion
#                                  control CC, sampling the bottleneck queue;
#                                  raw results in DIR, summary in DIR/summary.json
#   tb_telemetry int|ioam          what the probes ask the bottleneck for
#   tb_down                        remove everything
#
#  sender tbs$i 198.18.$i.1 s0 ── l$i 198.18.$i.254 ┐
#                                   router tbr: br0 198.19.0.254 (tbf + bfifo,
#                                   hpcc_int stamps here) ─ d$j ── r0 198.19.0.$j
#                                                        receiver tbd$j (netem delay)
#
#  leafspine (IPv6 only):
#
#   sender tbs$i ─ h$i tbl1 (leaf) u1 ══ tbp1 (spine) ─┐
#     fd00:18:$i::1      │       u2 ══ tbp2 (spine) ─┴─ u1|u2 tbl2 (leaf)
#                                                      h$j ─ r0 tbd$j
#                                                        fd00:19:$j::1
#
#   The bottlenecks are tbl1's uplinks u1 and u2 (tbf at TB_RATE_MBIT each
#   with a bfifo child of TB_LIMIT bytes, hpcc_int's B), so the fabric
#   carries 2 x TB_RATE_MBIT; every other port is a veth without a
#   shaper.  tbl1 reaches the receivers over a resilient nexthop group
#   (tb_spines: one spine or both), tbl2 the senders over both spines;
#   the multipath hash is policy 0 (L3, the flow label among its fields),
#   so a new flow label may move a flow, as in a fabric that hashes the
#   flow label (RFC 6438).  hpcc_int stamps at every router's egress
#   toward the receivers: tbl1 (switch-id 1) u1 and u2, tbp$k (10 + k)
#   toward tbl2, tbl2 (2) toward each receiver.  Receivers delay what
#   they send by TB_RTT_MS (netem), as in the dumbbell.
#
# TB_FAMILY: 4 (default) IPv4 only; 6 or dual: the same links also carry
# IPv6 (sender fd00:18:$i::1/64, router fd00:18:$i::fe and fd00:19::fe on
# br0, receiver fd00:19::$j/64) and the router forwards it; flows (tb_flow)
# use IPv6 under 6, and alternate under dual: odd flows IPv4, even flows
# IPv6.  TB_FLOW_FAMILY=4|6, when set, puts every flow on that family.
#
# The bottleneck is the root qdisc of the router's bridge br0: tbf at
# TB_RATE_MBIT with a TB_BURST bucket and an explicit bfifo child of
# TB_LIMIT bytes.  Every receiver delays what it sends (ACKs and probe
# responses) by TB_RTT_MS with netem, so the base RTT is TB_RTT_MS.  The
# offloads (TSO, GSO, GRO) of every veth are set to TB_OFFLOADS.

TB_TOP=${TB_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TB_RATE_MBIT=${TB_RATE_MBIT:-50}	# calibrated: Documentation/testbed.rst
TB_RTT_MS=${TB_RTT_MS:-10}		# BDP 62.5 KB, 43 packets of 1448 B
TB_BURST=${TB_BURST:-64kb}
TB_LIMIT=${TB_LIMIT:-250000}		# bfifo, 4 BDP
TB_OFFLOADS=${TB_OFFLOADS:-on}
TB_FAMILY=${TB_FAMILY:-4}
# where the hop's txBytes and qlen come from (hpccctl int ... tx-model;
# Documentation/testbed.rst, "The hop's tx-model")
TB_TX_MODEL=${TB_TX_MODEL:-wire}
# HPCC parameters of the senders (Documentation/testbed.rst has the runs
# behind them): T = the base RTT the hosts really see (netem plus 0.5-3 ms of
# emulated stack), line-rate = the bottleneck, eta 0.98 (a token bucket
# releases bursts, which inflates the per-RTT U of its port by a few
# percent), pacing-gain 150 (software pacing under TCG delivers 70-85 % of
# its rate; the window, not the pacer, must bind).
TB_HPCC_PARAMS=${TB_HPCC_PARAMS:-t $(((TB_RTT_MS + 2) * 1000)) line-rate $TB_RATE_MBIT eta 980 pacing-gain 150}
TB_TMP=${TB_TMP:-/run/tb}
TB_BIN=$TB_TOP/build
TB_S=0
TB_R=0

# shellcheck source=../retry.sh
. "$TB_TOP/tools/retry.sh"
# namespaces, veth pairs, addresses, the tbf bottleneck and netem delays
# shellcheck source=../../selftests/topo.sh
. "$TB_TOP/selftests/topo.sh"

# tb_ns_all - every namespace of the testbed
tb_ns_all() {
	ip netns list | awk '/^tb(s|d|r|l|p)[0-9]*( |$)/ { print $1 }'
}

tb_down() {
	local ns
	for ns in $(tb_ns_all); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	sleep 0.3
	for ns in $(tb_ns_all); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns"
	done
	rm -rf "$TB_TMP"
}

# tb_offloads NS DEV
tb_offloads() {
	ip netns exec "$1" ethtool -K "$2" tso "$TB_OFFLOADS" gso "$TB_OFFLOADS" \
		gro "$TB_OFFLOADS" >/dev/null 2>&1
}

# tb_hpccd NS - start hpccd in NS (configuration, log and stats under
# $TB_TMP; the configuration is what tb_telemetry last wrote, else empty)
tb_hpccd() {
	touch "$TB_TMP/$1.hpccd.conf"
	ip netns exec "$1" "$TB_BIN/hpccd" -c "$TB_TMP/$1.hpccd.conf" \
		-S "$TB_TMP/$1.hpccd.stats" >> "$TB_TMP/$1.hpccd.log" 2>&1 &
	echo $! > "$TB_TMP/$1.hpccd.pid"
}

# tb_telemetry int|ioam - what the senders' probes ask the bottleneck for:
# int (the default), the project's records, which hpcc_int stamps on br0;
# ioam (TB_FAMILY 6 or dual, IPv6 flows only), an IOAM trace, which the
# router fills as a stock Linux IOAM transit node (tb_up configures it:
# node 1, its br0 port 1, namespace 1; queue depth = br0's tbf backlog),
# with B from a capacity line.  Rewrites the senders' hpccd configuration
# and reloads them (SIGHUP); the receivers' hpccd decodes either.
tb_telemetry() {
	case $1 in
	int|ioam) ;;
	*) echo "tb_telemetry: int or ioam" >&2; return 2 ;;
	esac
	[ "$1" = int ] || [ "$TB_FAMILY" != 4 ] || {
		echo "tb_telemetry: ioam needs TB_FAMILY 6 or dual" >&2
		return 2; }
	TB_TELEMETRY=$1
	tb_sender_conf
}

# tb_sender_conf - write the senders' hpccd configuration for TB_TELEMETRY,
# FCR ($TB_TMP/fcr, "on N" or "off": tb_fcr) and receiver-based HPCC
# ($TB_TMP/rx, "on" or "off": tb_rx) and reload them (SIGHUP)
tb_sender_conf() {
	local conf="" i p n fcr fcr_n rx=off
	[ "${TB_TELEMETRY:-int}" = ioam ] && conf="encoding = ioam fd00:19::/64
ioam-namespace = 1
capacity = 1 1 $((TB_RATE_MBIT * 1000000))"
	{ read -r rx < "$TB_TMP/rx"; } 2>/dev/null
	[ "$rx" = on ] && conf="$conf
rx-based = 198.19.0.0/24
rx-based = fd00:19::/64"
	# "on N": the first N senders announce FCR support
	{ read -r fcr fcr_n < "$TB_TMP/fcr"; } 2>/dev/null
	for ((i = 1; i <= TB_S; i++)); do
		if [ "$fcr" = on ] && [ "$i" -le "${fcr_n:-$TB_S}" ]; then
			printf '%s\n' "$conf" "fcr = 198.19.0.0/24" "fcr = fd00:19::/64"
		else
			printf '%s\n' "$conf"
		fi > "$TB_TMP/tbs$i.hpccd.conf"
		tb_hpccd_reload "tbs$i" || return 1
	done
}

# tb_hpccd_reload NS - NS's hpccd re-reads its configuration: SIGHUP once
# it is up (its log says "connected:"; before it blocks the signal a
# SIGHUP kills it, and its flows would run the fallback law unprobed),
# then its log says "reloaded" once more
tb_hpccd_reload() {
	local log=$TB_TMP/$1.hpccd.log n
	retry 50 grep -q "connected:" "$log" || return 1
	n=$(grep -c reloaded "$log")
	kill -HUP "$(cat "$TB_TMP/$1.hpccd.pid")" &&
		retry 50 sh -c "[ \$(grep -c reloaded '$log') -gt $n ]"
}

# tb_fcr on|off [N] - Fast Congestion Response (Documentation/design.rst):
# on, br0's hpcc_int sends FCR messages while its backlog is at or above
# TB_FCR_HIGH (default a fifth of the buffer, 50000 B) until it is at or
# below TB_FCR_LOW (default 15000 B), in rounds TB_FCR_INTERVAL us apart
# (default T, the base RTT plus 2 ms); the first N senders (default all)
# take them from the router's addresses towards them (198.18.0.0/16,
# fd00:18::/32) and their hpccd announces support in the probes; the others
# are senders without FCR, which the hop marks CE.  The senders' rate-min
# is B x 0.1 / 256 (fcr-eta's least over the hop's 256 flows), the least
# rate the hop can send: the default 1 Mbit/s is B x 0.95 / 47.5 here,
# and S7 at 100 % load counts more flows than that (30 192 messages
# refused in one run).  TB_FCR_DRAIN: the hop's fcr-drain, us (default 0:
# the rate does not count the queue).  off: none of it.
tb_fcr() {
	local on=$1 n=${2:-$TB_S} i high=0
	case $on in on|off) ;; *) echo "tb_fcr: on or off" >&2; return 2 ;; esac
	[ "$on" = on ] && high=${TB_FCR_HIGH:-$((TB_LIMIT / 5))}
	ip netns exec tbr "$TB_BIN/hpccctl" int change dev br0 \
		fcr-qlen-high "$high" fcr-qlen-low "${TB_FCR_LOW:-15000}" \
		fcr-interval "${TB_FCR_INTERVAL:-$(((TB_RTT_MS + 2) * 1000))}" \
		fcr-drain "${TB_FCR_DRAIN:-0}" ||
		return 1
	for ((i = 1; i <= TB_S; i++)); do
		if [ "$on" = on ] && [ "$i" -le "$n" ]; then
			ip netns exec "tbs$i" "$TB_BIN/hpccctl" fcr set port 6862 \
				prefix 198.18.0.0/16 prefix fd00:18::/32 \
				rate-min $((TB_RATE_MBIT * 1000000 / 2560))
		else
			ip netns exec "tbs$i" "$TB_BIN/hpccctl" fcr set port 0 flush
		fi || return 1
	done
	if [ "$on" = on ]; then
		echo "on $n"
	else
		echo off
	fi > "$TB_TMP/fcr"
	tb_sender_conf
}

# tb_rx on|off - receiver-based HPCC (Documentation/design.rst): on, the
# senders' probes ask the receivers' hpccd to run the algorithm and send
# W (rx-based lines for the receivers' prefixes); the receivers run with
# their own module's parameters, which bench_cc sets alike everywhere
tb_rx() {
	case $1 in on|off) ;; *) echo "tb_rx: on or off" >&2; return 2 ;; esac
	echo "$1" > "$TB_TMP/rx"
	tb_sender_conf
}

# tb_private on|off - private responses (draft-miao-ccwg-hpcc section 9.1;
# Documentation/admin-guide.rst): on, the receivers' hpccd withhold the
# hop records from the senders' prefixes, so a sender-based flow's
# responses carry only the U the receiver measures (HPCC_WIRE_EXT_U); off,
# they carry the records
tb_private() {
	local j
	case $1 in on|off) ;; *) echo "tb_private: on or off" >&2; return 2 ;; esac
	echo "$1" > "$TB_TMP/private"
	for ((j = 1; j <= TB_R; j++)); do
		if [ "$1" = on ]; then
			printf '%s\n' "private = 198.18.0.0/16" "private = fd00:18::/32"
		fi > "$TB_TMP/tbd$j.hpccd.conf"
		tb_hpccd_reload "tbd$j" || return 1
	done
}

# tb_hpccd_stop NS - stop the hpccd of NS
tb_hpccd_stop() {
	local p
	p=$(cat "$TB_TMP/$1.hpccd.pid" 2>/dev/null) || return 0
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = hpccd ] && kill "$p"
	rm -f "$TB_TMP/$1.hpccd.pid"
}

# tb_up TOPOLOGY N
tb_up() {
	local topo=$1 n=$2 i j
	case "$topo" in
	dumbbell) TB_S=$n TB_R=$n ;;
	incast) TB_S=$n TB_R=1 ;;
	leafspine) TB_S=$n TB_R=$n TB_FAMILY=6 ;;
	*) echo "tb_up: dumbbell, incast or leafspine" >&2; return 2 ;;
	esac
	tb_down
	mkdir -p "$TB_TMP"
	rm -f "$TB_TMP"/*.hpccd.conf
	TB_TELEMETRY=int
	echo off > "$TB_TMP/fcr"
	echo off > "$TB_TMP/rx"
	echo off > "$TB_TMP/private"
	echo "$TB_S $TB_R $topo" > "$TB_TMP/shape"
	[ "$topo" = leafspine ] && { tb_up_leafspine; return; }
	modprobe tcp_hpcc && modprobe hpcc_int || return 1
	# the samplers' sock_diag modules now, not autoloaded by the first
	# run's tcpsample while packets flow: a module load during traffic is
	# one more thing an mttcg guest can trip on (Documentation/testing.rst,
	# "Emulator mode")
	modprobe -a inet_diag tcp_diag || return 1
	case "$TB_FAMILY" in 4|6|dual) ;; *)
		echo "tb_up: TB_FAMILY is 4, 6 or dual" >&2; return 2 ;;
	esac

	topo_ns tbr
	ip netns exec tbr sysctl -qw net.ipv4.ip_forward=1
	ip -n tbr link add br0 type bridge
	ip -n tbr addr add 198.19.0.254/24 dev br0
	ip -n tbr link set br0 up
	[ "$TB_FAMILY" = 4 ] || {
		ip netns exec tbr sysctl -qw net.ipv6.conf.all.forwarding=1
		ip -n tbr addr add fd00:19::fe/64 dev br0 nodad
		# an IOAM transit node too (tb_telemetry ioam): node 1, its
		# bottleneck port 1, namespace 1; the senders' links fill
		ip netns exec tbr sysctl -qw net.ipv6.ioam6_id=1 \
			net.ipv6.conf.br0.ioam6_id=1
		ip -n tbr ioam namespace add 1
	}
	for ((i = 1; i <= TB_S; i++)); do
		topo_ns "tbs$i"
		topo_link "tbs$i" s0 tbr "l$i"
		topo_addr "tbs$i" s0 "198.18.$i.1/24"
		topo_addr tbr "l$i" "198.18.$i.254/24"
		ip -n "tbs$i" route add default via "198.18.$i.254"
		[ "$TB_FAMILY" = 4 ] || {
			topo_addr "tbs$i" s0 "fd00:18:$i::1/64"
			topo_addr tbr "l$i" "fd00:18:$i::fe/64"
			ip -n "tbs$i" -6 route add default via "fd00:18:$i::fe"
			ip netns exec tbr sysctl -qw \
				"net.ipv6.conf.l$i.ioam6_enabled=1"
		}
		tb_offloads "tbs$i" s0
		tb_offloads tbr "l$i"
	done
	for ((j = 1; j <= TB_R; j++)); do
		topo_ns "tbd$j"
		topo_link "tbd$j" r0 tbr "d$j"
		topo_addr "tbd$j" r0 "198.19.0.$j/24"
		ip -n tbr link set "d$j" master br0
		ip -n "tbd$j" route add default via 198.19.0.254
		[ "$TB_FAMILY" = 4 ] || {
			topo_addr "tbd$j" r0 "fd00:19::$j/64"
			ip -n "tbd$j" -6 route add default via fd00:19::fe
		}
		tb_offloads "tbd$j" r0
		tb_offloads tbr "d$j"
		topo_delay "tbd$j" r0 "$TB_RTT_MS"
	done
	# the bottleneck: tbf with an explicit FIFO child, and the INT hop
	topo_tbf tbr br0 "${TB_RATE_MBIT}mbit" "$TB_BURST" "$TB_LIMIT" bfifo
	ip netns exec tbr "$TB_BIN/hpccctl" int add dev br0 \
		rate "${TB_RATE_MBIT}mbit" tx-model "$TB_TX_MODEL" || return 1

	# hosts: HPCC parameters for this network, hpccd everywhere
	for ns in $(tb_ns_all); do
		[ "$ns" = tbr ] && continue
		# shellcheck disable=SC2086
		ip netns exec "$ns" "$TB_BIN/hpccctl" param set $TB_HPCC_PARAMS ||
			return 1
		tb_hpccd "$ns"
	done
	# No ping here: its SO_TIMESTAMP flips the netstamp static key, and
	# patching kernel text while packets flow can trip a TCG guest (an
	# int3 Oops in netif_rx_internal).  Each flow's iperf3 reports its
	# RTTs instead (summary.json: min_rtt_us).
}

# tb_link NS1 DEV1 ADDR1 NS2 DEV2 ADDR2 - a veth pair with IPv6 addresses
# (/64, no DAD), up, offloads TB_OFFLOADS
tb_link() {
	topo_link "$1" "$2" "$4" "$5" &&
		topo_addr "$1" "$2" "$3/64" && topo_addr "$4" "$5" "$6/64" &&
		tb_offloads "$1" "$2" && tb_offloads "$4" "$5"
}

# tb_up_leafspine - tb_up leafspine's body (TB_S = TB_R set); the
# topology is drawn at the top of this file
tb_up_leafspine() {
	local i k ns
	modprobe tcp_hpcc && modprobe hpcc_int && modprobe -a inet_diag tcp_diag ||
		return 1
	for ns in tbl1 tbl2 tbp1 tbp2; do
		topo_ns $ns &&
			ip netns exec $ns sysctl -qw net.ipv6.conf.all.forwarding=1 \
				net.ipv6.fib_multipath_hash_policy=0 || return 1
	done
	for k in 1 2; do
		tb_link tbl1 "u$k" "fd00:20:$k::1" "tbp$k" d1 "fd00:20:$k::2" &&
			tb_link "tbp$k" d2 "fd00:21:$k::1" tbl2 "u$k" "fd00:21:$k::2" &&
			ip -n "tbp$k" -6 route add fd00:19::/32 via "fd00:21:$k::2" &&
			ip -n "tbp$k" -6 route add fd00:18::/32 via "fd00:20:$k::1" &&
			ip -n tbl1 nexthop add id "$k" via "fd00:20:$k::2" dev "u$k" &&
			ip -n tbl2 nexthop add id "$k" via "fd00:21:$k::1" dev "u$k" ||
			return 1
		topo_tbf tbl1 "u$k" "${TB_RATE_MBIT}mbit" "$TB_BURST" "$TB_LIMIT" \
			bfifo || return 1
	done
	ip -n tbl2 nexthop add id 100 group 1/2 &&
		ip -n tbl2 -6 route add fd00:18::/32 nhid 100 &&
		tb_spines 1 || return 1
	for ((i = 1; i <= TB_S; i++)); do
		topo_ns "tbs$i" &&
			tb_link "tbs$i" s0 "fd00:18:$i::1" tbl1 "h$i" "fd00:18:$i::fe" &&
			ip -n "tbs$i" -6 route add default via "fd00:18:$i::fe" ||
			return 1
	done
	for ((i = 1; i <= TB_R; i++)); do
		topo_ns "tbd$i" &&
			tb_link "tbd$i" r0 "fd00:19:$i::1" tbl2 "h$i" "fd00:19:$i::fe" &&
			ip -n "tbd$i" -6 route add default via "fd00:19:$i::fe" &&
			topo_delay "tbd$i" r0 "$TB_RTT_MS" || return 1
	done
	# the INT hops: every router's egress toward the receivers
	ip netns exec tbl1 "$TB_BIN/hpccctl" int set switch-id 1 &&
		ip netns exec tbl2 "$TB_BIN/hpccctl" int set switch-id 2 || return 1
	for k in 1 2; do
		ip netns exec tbl1 "$TB_BIN/hpccctl" int add dev "u$k" \
			rate "${TB_RATE_MBIT}mbit" tx-model "$TB_TX_MODEL" &&
			ip netns exec "tbp$k" "$TB_BIN/hpccctl" int set switch-id $((10 + k)) &&
			ip netns exec "tbp$k" "$TB_BIN/hpccctl" int add dev d2 rate 10gbit ||
			return 1
	done
	for ((i = 1; i <= TB_R; i++)); do
		ip netns exec tbl2 "$TB_BIN/hpccctl" int add dev "h$i" rate 10gbit ||
			return 1
	done
	for ns in $(tb_ns_all); do
		case $ns in tbs*|tbd*) ;; *) continue ;; esac
		# shellcheck disable=SC2086
		ip netns exec "$ns" "$TB_BIN/hpccctl" param set $TB_HPCC_PARAMS ||
			return 1
		tb_hpccd "$ns"
	done
}

# tb_spines 1|2 - (leafspine) tbl1 reaches the receivers over spine 1
# only, or over both: a resilient nexthop group of 64 buckets whose idle
# ones (1 s without a packet) move to a new member, so that flows already
# running keep their spine when the second is added (a collision that
# lasts until a flow changes its label), as flows keep their path in a
# fabric whose hash is bad for them
tb_spines() {
	local g=1
	[ "$1" = 2 ] && g=1/2
	if ip -n tbl1 nexthop show id 100 > /dev/null 2>&1; then
		ip -n tbl1 nexthop replace id 100 group "$g" type resilient \
			buckets 64 idle_timer 1
	else
		ip -n tbl1 nexthop add id 100 group "$g" type resilient \
			buckets 64 idle_timer 1 &&
			ip -n tbl1 -6 route add fd00:19::/32 nhid 100
	fi
}

# tb_describe - one line: the bottleneck, base RTT and HPCC parameters
tb_describe() {
	echo "bottleneck tbf ${TB_RATE_MBIT} Mbit/s burst $TB_BURST, bfifo $TB_LIMIT B;" \
		"netem ${TB_RTT_MS} ms; family $TB_FAMILY;" \
		"telemetry ${TB_TELEMETRY:-int}, tx-model $TB_TX_MODEL;" \
		"offloads $TB_OFFLOADS; hpcc: $TB_HPCC_PARAMS"
}

# tb_flow_family F - 4 or 6: the address family of flow F
tb_flow_family() {
	case "${TB_FLOW_FAMILY:-$TB_FAMILY}" in
	6) echo 6 ;;
	dual) echo $((($1 % 2) ? 4 : 6)) ;;
	*) echo 4 ;;
	esac
}

# tb_flow F - "SENDER-NS RECEIVER-NS RECEIVER-ADDR PORT" of flow F (1-based)
tb_flow() {
	local s r j topo
	read -r s r topo < "$TB_TMP/shape"
	j=$((($1 - 1) % r + 1))
	if [ "$topo" = leafspine ]; then
		echo "tbs$((($1 - 1) % s + 1)) tbd$j fd00:19:$j::1 $((5200 + $1))"
	elif [ "$(tb_flow_family "$1")" = 6 ]; then
		echo "tbs$((($1 - 1) % s + 1)) tbd$j fd00:19::$j $((5200 + $1))"
	else
		echo "tbs$((($1 - 1) % s + 1)) tbd$j 198.19.0.$j $((5200 + $1))"
	fi
}

# tb_qsample DIR / tb_qstop - sample the bottleneck's queue every 2 ms
# (DIR/queue.tsv: t_ms backlog_bytes qlen_pkts drops; DIR/queue.txt: the
# summary line with t0_us) from tb_qsample until tb_qstop
tb_qsample() {
	ip netns exec tbr "$TB_BIN/qsample" -d br0 -i 2000 -o "$1/queue.tsv" \
		> "$1/queue.txt" 2>&1 &
	TB_QPID=$!
}
tb_qstop() {
	kill -INT "$TB_QPID"
	wait "$TB_QPID"
}

# tb_run CC FLOWS SECONDS DIR - FLOWS flows of SECONDS each, started
# together; iperf3 JSON per flow (DIR/flowF.json), queue samples every 2 ms
# (DIR/queue.tsv: t_ms backlog_bytes qlen_pkts drops), and DIR/summary.json
tb_run() {
	local cc=$1 nf=$2 secs=$3 dir=$4 f sns rns addr port pids=()
	mkdir -p "$dir"
	for ((f = 1; f <= nf; f++)); do
		read -r sns rns addr port <<< "$(tb_flow "$f")"
		ip netns exec "$rns" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	done
	for ((f = 1; f <= nf; f++)); do
		read -r sns rns addr port <<< "$(tb_flow "$f")"
		retry 50 sh -c "ip netns exec $rns ss -Hltn | grep -q ':$port '" || return 1
	done
	tb_qsample "$dir"
	for ((f = 1; f <= nf; f++)); do
		read -r sns rns addr port <<< "$(tb_flow "$f")"
		ip netns exec "$sns" iperf3 -c "$addr" -p "$port" -C "$cc" \
			-t "$secs" --cport $((6000 + f)) -J > "$dir/flow$f.json" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	tb_qstop
	python3 "$TB_TOP/tools/testbed/summary.py" --cc "$cc" \
		--rate-mbit "$TB_RATE_MBIT" "$dir" > "$dir/summary.json"
}
