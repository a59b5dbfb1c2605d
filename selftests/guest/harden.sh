#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hardening of the modules: who may set parameters, what memory is
# charged to whom, flows that share a 4-tuple, and a software INT hop
# whose egress device is a bond (whose ndo_get_stats64 takes a lock that is
# not BH-safe: on a lockdep kernel a hook that called dev_get_stats()
# while forwarding is reported there).
# Runs as root inside a guest (tools/vmrun).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

CTL=$TOP/build/hpccctl
PROBE=$TOP/selftests/guest/probe.py
TMP=$(mktemp -d)
chmod 755 "$TMP"
NSS="ha hb hc hp1 hp2 bs br bd"

cleanup() {
	# shellcheck disable=SC2086
	ns_gone $NSS
	rmdir /sys/fs/cgroup/hpcc-test-cubic /sys/fs/cgroup/hpcc-test-hpcc 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# params-set changes what every new flow may take (W_init, W_max,
# max-flows): root of a user namespace that owns a network namespace may
# not, CAP_NET_ADMIN of the initial user namespace may.  Reading them and
# the flows needs nothing.
params_need_init_admin() {
	local out rc
	modprobe tcp_hpcc || return 1
	out=$(unshare -Urn "$CTL" param set max-flows 5 2>&1) && rc=0 || rc=$?
	echo "userns root: param set -> $rc: $out"
	[ "$rc" = 1 ] && grep -qi "not permitted" <<< "$out" || return 1
	unshare -Urn "$CTL" param show > /dev/null || return 1
	topo_ns ha && ip netns exec ha "$CTL" param set max-flows 5 &&
		[ "$(ip netns exec ha "$CTL" -j param show |
		     python3 -S -c 'import json,sys; print(json.load(sys.stdin)["max-flows"])')" = 5 ]
}

# Per-flow state is charged to the memory cgroup of the task that opens
# the flow: 2000 hpcc connections over loopback from a process in a fresh
# cgroup raise its slab_unreclaimable by at least 2000 x the entry size
# more than 2000 cubic connections raise another fresh cgroup's (one
# cgroup each: under KASAN the first run's objects leave its quarantine,
# and are uncharged, while the second runs).
flows_charged_to_memcg() {
	local cg osz d_hpcc d_cubic cc
	[ -e /sys/fs/cgroup/cgroup.controllers ] || { echo "no cgroup2"; return 1; }
	grep -qw memory /sys/fs/cgroup/cgroup.controllers || {
		echo "no memory controller"; return 1; }
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	osz=$(cat /sys/kernel/slab/hpcc_ent/object_size 2>/dev/null)
	[ -n "$osz" ] || osz=$(awk '$1 == "hpcc_ent" { print $4 }' /proc/slabinfo)
	[ -n "$osz" ] || { echo "no hpcc_ent cache"; return 1; }
	topo_ns hb || return 1
	ip netns exec hb python3 "$PROBE" accept 7000 >/dev/null 2>&1 &
	retry 50 sh -c "ip netns exec hb ss -Hltn | grep -q ':7000'" || return 1
	# ip netns exec mounts a new /sys: join the cgroup and read its
	# memory.stat from outside, in a shell that runs the client there
	for cc in cubic hpcc; do
		cg=/sys/fs/cgroup/hpcc-test-$cc
		mkdir -p "$cg" || return 1
		# shellcheck disable=SC2016
		d=$(sh -c '
			cg=$1 tmp=$2 probe=$3 cc=$4
			echo $$ > "$cg/cgroup.procs" || exit 1
			s0=$(awk "/^slab_unreclaimable / { print \$2 }" "$cg/memory.stat")
			mkfifo "$tmp/in.$cc"
			ip netns exec hb python3 "$probe" conns 127.0.0.1 7000 2000 "$cc" \
				< "$tmp/in.$cc" > "$tmp/out.$cc" 2>&1 &
			exec 3> "$tmp/in.$cc"
			i=0
			# minutes on the debugging kernel
			while ! grep -q "^open" "$tmp/out.$cc" && [ $i -lt 9000 ]; do
				sleep 0.1; i=$((i + 1))
			done
			grep -q "^open 2000" "$tmp/out.$cc" || exit 1
			s1=$(awk "/^slab_unreclaimable / { print \$2 }" "$cg/memory.stat")
			echo >&3; exec 3>&-; wait
			echo $((s1 - s0))' sh "$cg" "$TMP" "$PROBE" "$cc") || return 1
		eval "d_$cc=\$d"
		echo "2000 $cc connections: slab_unreclaimable +$d bytes"
	done
	echo "hpcc_ent object size $osz; difference $((d_hpcc - d_cubic)) bytes, at least $((2000 * osz * 8 / 10)) expected"
	[ $((d_hpcc - d_cubic)) -ge $((2000 * osz * 8 / 10)) ]
}

# Two live sockets with the same 4-tuple, bound to different devices (one
# namespace, the same address on two links): telemetry could not tell
# them apart, so the second runs without HPCC state and is counted.
key_collision_counted() {
	local k0 f0 out
	topo_ns hc hp1 hp2 &&
	topo_link hc va hp1 vb && topo_link hc vc hp2 vd &&
	topo_addr hc va 10.9.0.1/24 && topo_addr hc vc 10.9.0.1/24 &&
	topo_addr hp1 vb 10.9.0.2/24 && topo_addr hp2 vd 10.9.0.2/24 ||
		return 1
	ip netns exec hp1 python3 "$PROBE" accept 80 >/dev/null 2>&1 &
	ip netns exec hp2 python3 "$PROBE" accept 80 >/dev/null 2>&1 &
	retry 50 sh -c "ip netns exec hp1 ss -Hltn | grep -q ':80 '" &&
	retry 50 sh -c "ip netns exec hp2 ss -Hltn | grep -q ':80 '" || return 1
	k0=$(mstat hc key-collisions)
	f0=$(mstat hc flows-created)
	out=$(ip netns exec hc python3 - <<-'EOF'
	import socket, time
	s = []
	for dev in (b"va", b"vc"):
	    c = socket.socket()
	    c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	    c.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev)
	    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"hpcc")
	    c.bind(("10.9.0.1", 7001))
	    c.connect(("10.9.0.2", 80))
	    s.append(c)
	print("connected", len(s), flush=True)
	time.sleep(1)
	EOF
	) || { echo "$out"; return 1; }
	echo "$out; key-collisions ${k0:-none} -> $(mstat hc key-collisions), flows-created $f0 -> $(mstat hc flows-created)"
	[ "$(mstat hc key-collisions)" = $((k0 + 1)) ] &&
		[ "$(mstat hc flows-created)" = $((f0 + 1)) ]
}

# Probes forwarded out of a bond are stamped (txBytes from the bond's
# qdisc, never from the driver) while `ip -s link` reads the bond's
# statistics in process context; the guest's kernel log must stay clean.
int_hop_on_bond() {
	local n
	modprobe bonding 2>/dev/null
	modprobe hpcc_int || return 1
	topo_ns bs br bd && topo_link bs s0 br r0 || return 1
	# r1 is enslaved while down, then comes up with the bond
	ip link add d0 netns bd type veth peer name r1 netns br || return 1
	ip -n br link add bond0 type bond mode active-backup || {
		echo "no bonding"; return 1; }
	ip -n br link set r1 master bond0 || return 1
	topo_addr bs s0 10.10.1.1/24 && topo_addr br r0 10.10.1.2/24 &&
	topo_addr br bond0 10.10.2.2/24 && topo_addr bd d0 10.10.2.1/24 ||
		return 1
	for l in "br bond0" "br r1" "bd d0"; do
		set -- $l
		ip -n "$1" link set "$2" up || return 1
	done
	ip -n bs route add default via 10.10.1.2 && ip -n bd route add default via 10.10.2.2 &&
	ip netns exec br sysctl -qw net.ipv4.ip_forward=1 || return 1
	tc -n br qdisc replace dev bond0 root fq_codel || return 1
	ip netns exec br "$CTL" int add dev bond0 rate 1gbit || return 1
	# until 200 are seen (seconds on a stock kernel, a minute on the
	# debugging one)
	ip netns exec bd python3 "$PROBE" stamps d0 60 300 200 > "$TMP/cap" 2>&1 &
	local sp=$!
	retry 25 grep -q sniffing "$TMP/cap" || return 1
	( for i in $(seq 50); do ip -n br -s link show bond0 >/dev/null; done ) &
	ip netns exec bs python3 "$PROBE" send 10.10.1.1 40001 10.10.2.1 5201 60 probe 200
	wait
	n=$(grep -c ' hop ' "$TMP/cap")
	echo "probes stamped through bond0: $n of 200; $(tail -n 1 "$TMP/cap")"
	# txBytes (field 14) never goes backwards
	awk '/ hop / { if ($14 < last) bad = 1; last = $14 } END { exit bad }' "$TMP/cap" &&
		[ "$n" -ge 150 ]
}

# The same bond without a qdisc (noqueue, a bond's default): txBytes is
# what hpcc_int's POST_ROUTING hook counted, the hook that now skips
# devices with a qdisc.  Each forwarded probe adds its bytes after it was
# stamped, so txBytes grows from one probe to the next.
int_hop_noqueue() {
	local n
	tc -n br qdisc del dev bond0 root 2>/dev/null
	tc -n br qdisc show dev bond0 | grep -q noqueue || {
		tc -n br qdisc show dev bond0; return 1; }
	ip netns exec bd python3 "$PROBE" stamps d0 60 300 50 > "$TMP/cap" 2>&1 &
	retry 25 grep -q sniffing "$TMP/cap" || return 1
	ip netns exec bs python3 "$PROBE" send 10.10.1.1 40002 10.10.2.1 5201 60 probe 50
	wait
	n=$(grep -c ' hop ' "$TMP/cap")
	echo "probes stamped through bond0 (noqueue): $n of 50; $(tail -n 1 "$TMP/cap")"
	awk '/ hop / { if (seen && $14 <= last) bad = 1; last = $14; seen = 1 } END { exit bad }' \
		"$TMP/cap" && [ "$n" -ge 40 ]
}

ktap_print_header
ktap_set_plan 5
t "params-set needs CAP_NET_ADMIN in the initial user namespace" params_need_init_admin
t "flow state is charged to the opener's memory cgroup" flows_charged_to_memcg
t "a second flow with the same 4-tuple on another device: no state, counted" key_collision_counted
t "an INT hop on a bond stamps probes without calling the driver" int_hop_on_bond
t "without a qdisc, txBytes is the hook's count and grows per probe" int_hop_noqueue
ktap_finished
