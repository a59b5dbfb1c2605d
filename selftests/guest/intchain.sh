#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The encodings that grow a probe, through a chain of four software INT
# hops: each hop's hpcc_int pushes its metadata in front of the previous
# hops' (hpcc_int_insert()), so the headroom a forwarded probe has left
# shrinks hop by hop (on veth: 16, 56, 32, 8 bytes at 6.12's third hop for
# hpccd's Hop ML 6) until the hop must make room for the pushed bytes, the
# MAC header it came in with and the egress device's link-layer header.
# Crafted probes at every Hop ML (1 to 31 words), over IPv4 and IPv6, and
# IFA probes cross all four hops and arrive stamped by each, newest first,
# with a valid checksum; hpccd's own INT-MD probes of real flows do the
# same and the flows run HPCC on four hops.  The kernel log stays clean:
# on the debugging kernel (KASAN, CONFIG_DEBUG_NET; make check-debug) a
# write outside the packet's buffer is a report.
#
#   hs -- r1 -- r2 -- r3 -- r4 -- hr     link k: 10.52.k.1 | 10.52.k.2,
#                                        fd00:52:k::1 | fd00:52:k::2
#   each router's device vu (towards hr): hpcc_int, switch-id k, B 1 Gbit/s
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

CTL=$TOP/build/hpccctl
PROBE=$TOP/selftests/guest/probe.py
NS=(hs r1 r2 r3 r4 hr)
SRC4=10.52.0.1
DST4=10.52.4.2
SRC6=fd00:52:0::1
DST6=fd00:52:4::2
TMP=$(mktemp -d)
mkdir -m 1777 "$TMP/run"

trap 'ns_gone "${NS[@]}" bs bx bd; rm -rf "$TMP"' EXIT

# Hop MLs 1 to 31, two probes of each
ALL_ML=$(seq -s, -f 'intmd-ml%g' 1 31)

chain() {
	local k ns l r
	echo "intchain.sh: start" > /dev/kmsg
	topo_ns "${NS[@]}" || return 1
	for ns in "${NS[@]}"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
	done
	for k in 0 1 2 3 4; do
		l=${NS[k]} r=${NS[k + 1]}
		topo_link "$l" vu "$r" vd &&
		topo_addr "$l" vu 10.52.$k.1/24 fd00:52:$k::1/64 &&
		topo_addr "$r" vd 10.52.$k.2/24 fd00:52:$k::2/64 || return 1
	done
	ip -n hs route add default via 10.52.0.2 &&
	ip -n hs -6 route add default via fd00:52:0::2 &&
	ip -n hr route add default via 10.52.4.1 &&
	ip -n hr -6 route add default via fd00:52:4::1 || return 1
	modprobe hpcc_int || return 1
	for k in 1 2 3 4; do
		ns=${NS[k]}
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 || return 1
		if [ $k -gt 1 ]; then
			ip -n "$ns" route add 10.52.0.0/24 via 10.52.$((k - 1)).1 &&
			ip -n "$ns" -6 route add fd00:52:0::/64 via fd00:52:$((k - 1))::1 ||
				return 1
		fi
		if [ $k -lt 4 ]; then
			ip -n "$ns" route add 10.52.4.0/24 via 10.52.$k.2 &&
			ip -n "$ns" -6 route add fd00:52:4::/64 via fd00:52:$k::2 ||
				return 1
		fi
		ip netns exec "$ns" "$CTL" int add dev vu rate 1gbit encoding int-md &&
		ip netns exec "$ns" "$CTL" int set switch-id $k || return 1
	done
	# every neighbour on the path resolved before the probes count
	warm && retry 50 warm_done
}

# warm - a UDP datagram from hs to hr over each family
warm() {
	ip netns exec hs python3 -S -c '
import socket, sys
for fam, dst in ((socket.AF_INET, sys.argv[1]), (socket.AF_INET6, sys.argv[2])):
    socket.socket(fam, socket.SOCK_DGRAM).sendto(b"x", (dst, 9))' $DST4 $DST6
}

# warm_done - the last router knows hr's link-layer address, both
# families (the routers before it learned theirs on the way)
warm_done() {
	[ -n "$(ip -n r4 neigh show 10.52.4.2 nud reachable)" ] &&
	[ -n "$(ip -n r4 -6 neigh show fd00:52:4::2 nud reachable)" ] || {
		warm; return 1; }
}

# stamped_sum - the probes the four hops stamped, and their unwritable
# and malformed counts, summed: "STAMPED UNWRITABLE MALFORMED"
stamped_sum() {
	local k s=0 u=0 m=0 a b c
	for k in 1 2 3 4; do
		read -r a b c <<< "$(int_stat "${NS[k]}" vu stamped unwritable malformed)"
		s=$((s + a)) u=$((u + b)) m=$((m + c))
	done
	echo "$s $u $m"
}

# capture STAMPS EXPECT SENDER... - sniff the probes arriving on hr's vd
# (probe.py STAMPS: stamps or stamps6) while SENDER runs in hs; their
# lines in $TMP/cap
capture() {
	local mode=$1 expect=$2 p
	shift 2
	ip netns exec hr python3 "$PROBE" "$mode" vd 60 $((10 * SLOW)) "$expect" \
		> "$TMP/cap" 2>&1 &
	p=$!
	retry 25 grep -q sniffing "$TMP/cap" || return 1
	ip netns exec hs "$@" || return 1
	wait $p
	sed -i '/^sniffing$/d' "$TMP/cap"
}

# md_ok - the lines of $TMP/cap that carry a four-hop INT-MD stack with a
# valid checksum, Remaining Hop Count 8 - 4, no flag, and the node IDs
# 4, 3, 2, 1 (newest first); one line per probe: its Hop ML
md_ok() {
	awk '/ csum ok / {
		for (i = 1; i <= NF && $i != "int"; i++);
		if (i > NF || $(i + 2) != 0 || $(i + 4) != 4 || $(i + 8) != 4)
			next
		n = 0
		for (j = i + 9; j <= NF; j++)
			if ($j == "md") {
				split($(j + 1), w, ",")
				if (w[1] != 4 - n)
					next
				n++
			}
		if (n == 4)
			print $(i + 6)
	}' "$TMP/cap"
}

# every Hop ML from 1 to 31 words, two probes each: all 62 arrive with
# the four hops' metadata
every_ml() {
	local mode=$1 before after n
	shift
	read -r before _ _ <<< "$(stamped_sum)"
	capture "$mode" 62 "$@" || return 1
	n=$(md_ok | sort -n | uniq -c | awk '$1 == 2' | wc -l)
	read -r after un mal <<< "$(stamped_sum)"
	echo "Hop MLs with both probes stamped by all four hops: $n of 31;" \
		"stamped $before -> $after (4 x 62 = 248 more), unwritable $un," \
		"malformed $mal"
	[ "$n" = 31 ] || {
		echo "captured $(wc -l < "$TMP/cap"); Hop MLs complete (count ML):"
		md_ok | sort -n | uniq -c | tr '\n' ' '
		echo; awk '{ print substr($0, 1, 160) }' "$TMP/cap" | head -70
		return 1
	}
	[ $((after - before)) = 248 ] && [ "$un" = 0 ] && [ "$mal" = 0 ]
}

intmd4() {
	every_ml stamps python3 "$PROBE" send $SRC4 40001 $DST4 5201 60 "$ALL_ML" 2
}

intmd6() {
	local mac
	mac=$(ip -n r1 -j link show vd | python3 -S -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])') &&
	every_ml stamps6 python3 "$PROBE" l2send6 vu "$mac" $SRC6 $DST6 60 "$ALL_ML" none 2
}

# IFA through four ifa hops: 32 bytes a hop, Hop Limit 8 - 4, Current
# Length 32 words, the device IDs 4, 3, 2, 1 (newest first)
ifa4() {
	local k n
	for k in 1 2 3 4; do
		ip netns exec "${NS[k]}" "$CTL" int change dev vu encoding ifa || return 1
	done
	capture stamps 20 python3 "$PROBE" send $SRC4 40002 $DST4 5201 60 ifa-long 20 ||
		return 1
	n=$(awk '/ csum ok / {
		for (i = 1; i <= NF && $i != "ifa"; i++);
		if (i > NF || $(i + 2) != 4 || $(i + 4) != 32 || $(i + 6) != 4)
			next
		n = 0
		for (j = i + 7; j <= NF; j++)
			if ($j == "fa") {
				# LNS 1, the device ID (20 bits), the TTL
				split($(j + 1), w, ",")
				if (length(w[1]) != 8 || substr(w[1], 2, 5) + 0 != 4 - n)
					next
				n++
			}
		if (n == 4)
			print
	}' "$TMP/cap" | wc -l)
	echo "IFA probes with four hops: $n of 20"
	head -1 "$TMP/cap" | cut -c1-300
	for k in 1 2 3 4; do
		ip netns exec "${NS[k]}" "$CTL" int change dev vu encoding int-md || return 1
	done
	[ "$n" = 20 ]
}

# hpccd's own INT-MD probes (Hop ML 6, as hpccd sends them) of an IPv4 and
# an IPv6 hpcc flow: the receiver decodes four hops, the flows run HPCC
# on them
hpccd_flows() {
	local k conf=$TMP/hs.conf rc=0 pid s0 s1
	modprobe tcp_hpcc || return 1
	{
		echo "encoding = int-md 10.52.4.0/24"
		echo "encoding = int-md fd00:52:4::/64"
		for k in 1 2 3 4; do
			echo "capacity = $k $(($(ip -n "${NS[k]}" -o link show vu | cut -d: -f1) & 0xffff)) 1000000000"
		done
	} > "$conf"
	cp "$conf" "$TMP/hr.conf"
	start_hpccd hs && start_hpccd hr || return 1
	ip netns exec hr iperf3 -s -p 5201 > /dev/null 2>&1 &
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5201'" || return 1
	s0=$(dstat hr int-md-stacks)
	for fam in 4 6; do
		local dst=$DST4
		[ $fam = 6 ] && dst=$DST6
		ip netns exec hs iperf3 -$fam -c $dst -p 5201 --cport 620$fam -C hpcc \
			-t $((60 * SLOW)) -b 20M > /dev/null 2>&1 &
		pid=$!
		retry 50 flow_json hs $dst 620$fam 'f["samples"] >= 5 and len(f["hops"]) == 4 and sorted(h["switch-id"] for h in f["hops"]) == [1, 2, 3, 4]' || {
			echo "IPv$fam flow, last read:"; cat "$TMP/flowj.last"; rc=1; }
		end_procs $pid
	done
	s1=$(dstat hr int-md-stacks)
	read -r st un mal <<< "$(stamped_sum)"
	echo "receiver's int-md-stacks $s0 -> $s1; hops: stamped $st, unwritable $un, malformed $mal"
	[ $rc = 0 ] && [ "$un" = 0 ] && [ "$mal" = 0 ] && [ "$s1" -ge $((s0 + 10)) ]
}

# A bridged frame is never grown: with br_netfilter passing bridged IPv4
# through the IP hooks, a bridge device set to encoding int-md sees the
# probes at FORWARD (its own ifindex as the output device) and leaves
# them as they are, counted unwritable; they arrive unchanged
bridged() {
	local n un
	topo_ns bs bx bd &&
	topo_link bs v0 bx p0 && topo_link bd v1 bx p1 &&
	ip -n bx link add br0 type bridge &&
	ip -n bx link set p0 master br0 && ip -n bx link set p1 master br0 &&
	ip netns exec bx sysctl -qw net.bridge.bridge-nf-call-iptables=1 &&
	topo_addr bs v0 10.54.0.1/24 && topo_addr bd v1 10.54.0.2/24 &&
	ip -n bx link set br0 up || return 1
	ip netns exec bx "$CTL" int add dev br0 rate 1gbit encoding int-md || return 1
	ip netns exec bd python3 "$PROBE" stamps v1 60 $((10 * SLOW)) 10 > "$TMP/cap" 2>&1 &
	local p=$!
	retry 25 grep -q sniffing "$TMP/cap" || return 1
	# the first datagram resolves bd's link-layer address
	retry 25 sh -c "ip netns exec bs python3 -S -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"10.54.0.2\", 9))'; ip -n bs neigh show 10.54.0.2 nud reachable | grep -q lladdr" ||
		return 1
	ip netns exec bs python3 "$PROBE" send 10.54.0.1 40003 10.54.0.2 5201 60 intmd-ml6 10
	wait $p
	n=$(awk '/ csum ok / && / int flags 0 rhc 8 ml 6 n 0$/' "$TMP/cap" | wc -l)
	un=$(int_stat bx br0 unwritable)
	echo "bridged probes arrived unchanged: $n of 10; br0 unwritable $un"
	head -2 "$TMP/cap" | cut -c1-160
	ns_gone bs bx bd
	[ "$n" = 10 ] && [ "$un" = 10 ]
}

kernel_clean() { kernel_clean_since 'intchain.sh: start'; }

ktap_print_header
ktap_set_plan 7
t "a chain of four int-md hops" chain
t "INT-MD over IPv4, every Hop ML 1-31: stamped by all four hops, checksum valid" intmd4
t "INT-MD over IPv6, every Hop ML 1-31: stamped by all four hops, checksum valid" intmd6
t "IFA over four ifa hops: stamped by all four, checksum valid" ifa4
t "hpccd's INT-MD probes of IPv4 and IPv6 flows: four hops decoded, HPCC runs on them" hpccd_flows
if modprobe -q br_netfilter 2>/dev/null; then
	t "a bridged frame (br_netfilter) is never grown: counted unwritable, arrives unchanged" bridged
else
	ktap_test_skip "a bridged frame (br_netfilter) is never grown: this kernel has no br_netfilter"
fi
t "kernel log clean" kernel_clean
ktap_finished
