# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The network topologies of the guest tests and the testbed, built from
# namespaces, veth pairs, addresses and the two qdiscs every path uses: a
# tbf bottleneck and a netem delay.  Sourced by selftests/lib.sh and
# tools/testbed/testbed.sh; iproute2 and tc only.
#
#   topo_ns NS...                    namespaces, lo up
#   topo_link NS1 DEV1 NS2 DEV2 [ARG...]
#                                    a veth pair, both ends up
#   topo_addr NS DEV ADDR/LEN...     addresses (IPv6 without DAD)
#   topo_tbf NS DEV RATE BURST LIMIT [bfifo]
#                                    the bottleneck on DEV's egress
#   topo_delay NS DEV MS             netem delay on DEV's egress
#   topo_dumbbell NET 4|6|46         hs - rt - hr, below
#
# Namespace names are fixed (hs, rt, hr, tbs1...): the tests name them in
# every `ip -n` and `ip netns exec`.  Where the kernel's net/lib.sh is
# loaded (selftests/lib.sh sources it first), topo_ns creates them with its
# setup_ns under those names, so a namespace of the same name that an
# earlier run left is removed first; elsewhere (the testbed in tools/demo)
# with ip netns add.

# topo_ns NS... - network namespaces NS..., each with lo up.  Each NS is
# lower-case letters and digits, a shell name too: net/lib.sh's setup_ns
# reads the namespace's name from the variable NS, which topo_ns sets to
# NS for that call only (a local; the caller's variables are untouched).
topo_ns() {
	local _topo_n
	for _topo_n; do
		[[ $_topo_n =~ ^[a-z][a-z0-9]*$ ]] || {
			echo "topo_ns: bad namespace name '$_topo_n'" >&2
			return 2
		}
	done
	if declare -F setup_ns > /dev/null; then
		for _topo_n; do
			local "$_topo_n=$_topo_n"
		done
		setup_ns "$@" || return 1
	else
		for _topo_n; do
			ip netns add "$_topo_n" &&
				ip -n "$_topo_n" link set lo up || return 1
		done
	fi
}

# topo_link NS1 DEV1 NS2 DEV2 [ARG...] - a veth pair, DEV1 in NS1 and DEV2
# in NS2, both up; ARGs are ip-link options for both ends (numtxqueues 8)
topo_link() {
	local ns1=$1 d1=$2 ns2=$3 d2=$4
	shift 4
	ip link add "$d1" netns "$ns1" "$@" type veth \
		peer name "$d2" netns "$ns2" "$@" &&
		ip -n "$ns1" link set "$d1" up && ip -n "$ns2" link set "$d2" up
}

# topo_addr NS DEV ADDR/LEN... - the addresses on DEV in NS; IPv6 ones
# without duplicate address detection (nodad), so they are usable at once
topo_addr() {
	local ns=$1 dev=$2 a
	shift 2
	for a; do
		case $a in
		*:*) ip -n "$ns" addr add "$a" dev "$dev" nodad ;;
		*) ip -n "$ns" addr add "$a" dev "$dev" ;;
		esac || return 1
	done
}

# topo_tbf NS DEV RATE BURST LIMIT [bfifo] - the bottleneck: a tbf root
# qdisc on DEV in NS at RATE (tc's units: 20mbit), a bucket of BURST and
# LIMIT bytes of queue; bfifo: the tbf as handle 1: with an explicit bfifo
# child 10: of LIMIT bytes (the testbed's; its qsample reads the child)
topo_tbf() {
	local h=()
	[ "${6:-}" = bfifo ] && h=(handle 1:)
	tc -n "$1" qdisc add dev "$2" root "${h[@]}" tbf rate "$3" \
		burst "$4" limit "$5" || return 1
	[ "${6:-}" = bfifo ] || return 0
	tc -n "$1" qdisc add dev "$2" parent 1:1 handle 10: bfifo limit "$5"
}

# topo_delay NS DEV MS - netem delays every packet leaving DEV in NS by MS
# milliseconds (queue of 100000 packets: never the bottleneck)
topo_delay() {
	tc -n "$1" qdisc add dev "$2" root netem delay "${3}ms" limit 100000
}

# topo_dumbbell NET 4|6|46 - the one-sender, one-receiver dumbbell:
#
#   hs  v0 ---- v1  rt  v2 ---- v3  hr
#     .1.1    .1.2    .2.2    .2.1
#
# IPv4 (4) 10.NET.1.0/24 and 10.NET.2.0/24, IPv6 (6) fd00:NET:1::/64 and
# fd00:NET:2::/64, or both (46): hs is 10.NET.1.1 and fd00:NET:1::1, hr
# 10.NET.2.1 and fd00:NET:2::1, rt .2 and ::2 on each side; hs and hr
# route the other's subnet through rt, which forwards; IPv6 duplicate
# address detection off everywhere.  No qdisc: the caller adds the
# bottleneck (topo_tbf rt v2 ...) and what runs on it.
topo_dumbbell() {
	local net=$1 fam=$2 ns
	case $fam in 4|6|46) ;; *)
		echo "topo_dumbbell: 4, 6 or 46" >&2; return 2 ;;
	esac
	topo_ns hs rt hr || return 1
	for ns in hs rt hr; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
	done
	topo_link hs v0 rt v1 && topo_link rt v2 hr v3 || return 1
	if [ "$fam" != 6 ]; then
		topo_addr hs v0 "10.$net.1.1/24" &&
			topo_addr rt v1 "10.$net.1.2/24" &&
			topo_addr rt v2 "10.$net.2.2/24" &&
			topo_addr hr v3 "10.$net.2.1/24" &&
			ip -n hs route add "10.$net.2.0/24" via "10.$net.1.2" &&
			ip -n hr route add "10.$net.1.0/24" via "10.$net.2.2" &&
			ip netns exec rt sysctl -qw net.ipv4.ip_forward=1 ||
			return 1
	fi
	if [ "$fam" != 4 ]; then
		topo_addr hs v0 "fd00:$net:1::1/64" &&
			topo_addr rt v1 "fd00:$net:1::2/64" &&
			topo_addr rt v2 "fd00:$net:2::2/64" &&
			topo_addr hr v3 "fd00:$net:2::1/64" &&
			ip -n hs route add "fd00:$net:2::/64" via "fd00:$net:1::2" &&
			ip -n hr route add "fd00:$net:1::/64" via "fd00:$net:2::2" &&
			ip netns exec rt sysctl -qw net.ipv6.conf.all.forwarding=1 ||
			return 1
	fi
}
