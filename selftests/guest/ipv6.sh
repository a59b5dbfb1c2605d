#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 and dual stack: IPv6 connections and IPv4 connections of
# dual-stack (IPv4-mapped) sockets get HPCC state under the right key;
# flow-get, dumps and telemetry-set name IPv6 flows by saddr6/daddr6; the
# tracepoints print them; IPv6 probes and responses addressed to the host
# are consumed before TCP, through the extension headers the hook skips,
# and the ones it refuses are counted.  End to end with hpccd and an
# hpcc_int hop: an IPv6 flow gets telemetry, its probes carry its flow
# label and follow a rehash, and a dual-stack listener's IPv4 client's
# flow runs HPCC.
# Netlink goes through the kernel's YNL CLI with the project's spec
# (Documentation/netlink/specs/hpcc.yaml), so the spec is what is tested.
# Documentation/design.rst, "Per-flow state" and "Probe and response
# consumption".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

CLI4=198.18.0.1
SRV4=198.18.0.2
CLI6=fd00:48::1
SRV6=fd00:48::2
# the same addresses as the YNL CLI's binary attributes take them (hex)
CLI6_HEX=fd000048000000000000000000000001
SRV6_HEX=fd000048000000000000000000000002
YNL=$LINUX_SRC/tools/net/ynl
NL=$BIN/hpcc_nl
PROBE=$TOP/selftests/guest/probe.py
TMP=$(mktemp -d)
MARK="ipv6.sh-start-$$"

cleanup() {
	ns_gone hs hr h6s h6r h6d
	rm -rf "$TMP"
}
trap cleanup EXIT

# ynl NS ARGS... - the kernel's YNL CLI in NS with the hpcc spec, JSON out.
# --no-schema: host/uapi.sh validates the spec against the kernel's
# genetlink schema once; validating it again at every call took most of
# this test's time in the guest (15 s against 2 s per call on the host).
ynl() {
	local ns=$1
	shift
	ip netns exec "$ns" python3 "$YNL/cli.py" \
		--spec "$TOP/Documentation/netlink/specs/hpcc.yaml" \
		--no-schema \
		--output-json "$@"
}

# v6key SADDR_HEX SPORT DADDR_HEX DPORT - flow-get's JSON key of an IPv6 flow
v6key() {
	printf '{"family": 10, "saddr6": "%s", "sport": %d, "daddr6": "%s", "dport": %d' \
		"$1" "$2" "$3" "$4"
}

# v4key SADDR SPORT DADDR DPORT - the same for an IPv4 flow (u32 in host
# order; the CLI puts it big-endian as the spec says)
v4key() {
	python3 -S -c 'import ipaddress, sys
a = sys.argv[1:]
print("{\"family\": 2, \"saddr4\": %d, \"sport\": %s, \"daddr4\": %d, \"dport\": %s" %
      (int(ipaddress.IPv4Address(a[0])), a[1], int(ipaddress.IPv4Address(a[2])), a[3]), end="")' "$@"
}

# field JSON NAME - one top-level field of a CLI reply, empty if absent
field() {
	python3 -S -c 'import json, sys
d = json.loads(sys.argv[1])
v = d.get(sys.argv[2], "")
print(v)' "$1" "$2"
}

stat_of() { ip netns exec "$1" "$NL" stats | sed -n "s/^$2=//p"; }
snmp() { ip netns exec "$1" awk '/^Tcp:/ { if (h) { print $11; exit } h = 1 }' /proc/net/snmp; }

setup() {
	echo "$MARK" > /dev/kmsg
	modprobe tcp_hpcc || return 1
	ns_pair hs $CLI4 hr $SRV4 || return 1
	ip -n hs addr add $CLI6/64 dev v0 nodad &&
	ip -n hr addr add $SRV6/64 dev v1 nodad || return 1
	# the receiver's sockets run hpcc too: its accepted dual-stack
	# sockets are the IPv4-mapped case
	ip netns exec hr sysctl -qw net.ipv4.tcp_congestion_control=hpcc || return 1
	for ns in hs hr; do
		ip netns exec $ns "$NL" params-set stale_rtts=1000 || return 1
	done
	for p in 5301 5302; do
		{ ip netns exec hr iperf3 -s -p $p >/dev/null 2>&1 & }
	done
	{ ip netns exec hr python3 "$PROBE" accept 5303 >/dev/null 2>&1 & }
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5303 '" &&
	retry 50 sh -c "ip -n hs -6 addr show dev v0 | grep -q 'fd00:48::1'" ||
		return 1
	ip netns exec hr ss -Hltn
}

# An IPv6 connection gets state; flow-get by saddr6/daddr6 finds it, a
# dump lists it with family 10 and its IPv6 addresses.
ipv6_flow() {
	local out
	{ ip netns exec hs iperf3 -6 -c $SRV6 -p 5301 -C hpcc --cport 41000 \
		-b 20M -t $((600 * SLOW)) >/dev/null 2>&1 & }
	retry 100 sh -c "ip netns exec hs ss -Htn state established | grep -q ':41000 '" ||
		return 1
	out=$(ynl hs --do flow-get --json "$(v6key $CLI6_HEX 41000 $SRV6_HEX 5301)}") ||
		{ echo "$out"; return 1; }
	echo "flow-get: $(echo "$out" | head -c 300)"
	[ "$(field "$out" family)" = 10 ] && [ "$(field "$out" saddr6)" = $CLI6 ] &&
	[ "$(field "$out" daddr6)" = $SRV6 ] && [ "$(field "$out" cwnd)" -gt 0 ] &&
	[ -z "$(field "$out" saddr4)" ] || return 1
	out=$(ynl hs --dump flow-get) || return 1
	python3 -S -c 'import json, sys
flows = json.loads(sys.argv[1])
v6 = [f for f in flows if f["family"] == 10 and f["saddr6"] == sys.argv[2] and f["sport"] == 41000]
print("dump: %d flows, %d of them this IPv6 flow" % (len(flows), len(v6)))
assert len(v6) == 1, flows' "$out" $CLI6
}

# mapped_is_v4 WHO NS SADDR SPORT DADDR DPORT - NS has the v4-mapped flow
# as an AF_INET one with these IPv4 addresses
mapped_is_v4() {
	local out
	out=$(ynl "$2" --do flow-get --json "$(v4key "$3" "$4" "$5" "$6")}") ||
		{ echo "$1: $out"; return 1; }
	echo "$1's v4-mapped socket: family $(field "$out" family)," \
	     "saddr4 $(field "$out" saddr4), daddr4 $(field "$out" daddr4)"
	[ "$(field "$out" family)" = 2 ] && [ "$(field "$out" saddr4)" = "$3" ] &&
		[ "$(field "$out" daddr4)" = "$5" ]
}

# IPv4 through dual-stack sockets: the receiver's accepted socket of an
# IPv4 connection to its [::] listener, and a sender's AF_INET6 socket
# connected to ::ffff:a.b.c.d, are AF_INET flows keyed by their IPv4
# addresses.
mapped_flows() {
	local nf0 out
	nf0=$(stat_of hr no_state_family)
	{ ip netns exec hs iperf3 -c $SRV4 -p 5302 -C hpcc --cport 41001 \
		-b 5M -t $((600 * SLOW)) >/dev/null 2>&1 & }
	{ ip netns exec hs python3 -S -c '
import socket, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"hpcc")
s.bind(("::", 41002))
s.connect(("::ffff:198.18.0.2", 5303))
print("connected", s.getsockname()[0], flush=True)
time.sleep(600)' > "$TMP/mapped" 2>&1 & }
	retry 100 grep -q connected "$TMP/mapped" &&
	retry 100 sh -c "ip netns exec hr ss -Htn state established | grep -q ':41001'" ||
		{ cat "$TMP/mapped"; return 1; }
	ip netns exec hr ss -Htni state established | grep -E ':4100[12]' | head -4
	# the receiver's end of the iperf3 connection, and the sender's
	# AF_INET6 socket talking to ::ffff:198.18.0.2
	mapped_is_v4 receiver hr $SRV4 5302 $CLI4 41001 || return 1
	# the sender's through hpccctl -j (a YNL CLI call costs about 10 s in
	# a TCG guest; the receiver's above tested the spec's names)
	out=$(ip netns exec hs "$TOP/build/hpccctl" -j flow show sport 41002) || return 1
	python3 -S -c 'import json, sys
f = json.loads(sys.argv[1])
print("sender'"'"'s v4-mapped socket: %s" % [(x["family"], x.get("saddr4"), x.get("daddr4")) for x in f])
assert len(f) == 1 and f[0]["family"] == 2 and f[0]["saddr4"] == sys.argv[2] and f[0]["daddr4"] == sys.argv[3], f' \
		"$out" $CLI4 $SRV4 || return 1
	echo "no-state-family $nf0 -> $(stat_of hr no_state_family)"
	[ "$(stat_of hr no_state_family)" = 0 ] && [ "$(stat_of hs no_state_family)" = 0 ]
}

# hpccctl prints IPv6 flows as [v6]:port, filters by IPv6 address (an
# IPv4-mapped one selects the IPv4 flow), and -j names the addresses as
# the spec does.
hpccctl_ipv6() {
	local ctl=$TOP/build/hpccctl out
	out=$(ip netns exec hs "$ctl" flow show src $CLI6 dport 5301) || return 1
	echo "$out"
	echo "$out" | grep -q "^\[$CLI6\]:41000 *\[$SRV6\]:5301 " || return 1
	out=$(ip netns exec hs "$ctl" -j flow show dst $SRV6) || return 1
	python3 -S -c 'import json, sys
f = json.loads(sys.argv[1])
print("-j dst %s: %s" % (sys.argv[3], [(x["saddr6"], x["sport"], x["family"]) for x in f]))
assert len(f) == 1 and f[0]["saddr6"] == sys.argv[2] and f[0]["saddr"] == sys.argv[2], f
assert f[0]["family"] == 10 and f[0]["sport"] == 41000 and "saddr4" not in f[0], f' \
		"$out" $CLI6 $SRV6 || return 1
	out=$(ip netns exec hs "$ctl" -j flow show dst ::ffff:$SRV4 sport 41002) || return 1
	python3 -S -c 'import json, sys
f = json.loads(sys.argv[1])
print("-j dst ::ffff:%s sport 41002: %s" % (sys.argv[2], [(x["saddr4"], x["daddr4"], x["family"]) for x in f]))
assert len(f) == 1 and f[0]["daddr4"] == sys.argv[2] and f[0]["family"] == 2, f' \
		"$out" $SRV4 || return 1
	# no flow of the other family matches an address filter
	out=$(ip netns exec hs "$ctl" -j flow show src 198.18.0.1 dport 5301) || return 1
	python3 -S -c 'import json, sys; assert json.loads(sys.argv[1]) == [], sys.argv[1]' "$out" ||
		{ echo "IPv4 filter matched: $out"; return 1; }
}

# telemetry-set names an IPv6 flow by saddr6/daddr6; the next ACK applies
# the sample; the tracepoints print the flow as [v6]:port.  The first
# sample goes through the YNL CLI (the spec's attributes), the next two
# through hpcc_nl (each CLI call costs about 10 s in a TCG guest).
ipv6_telemetry() {
	local tr=$TRACEFS out s0 n key
	key=$(v6key $CLI6_HEX 41000 $SRV6_HEX 5301)
	tracefs_mount || return 1
	echo > $tr/trace
	echo 1 > $tr/events/hpcc/hpcc_sample/enable
	# (the namespace's samples counter: only this flow gets telemetry, and
	# hpcc_nl is much quicker than the CLI in a retry loop)
	s0=$(stat_of hs samples)
	for n in 1 2 3; do
		if [ $n = 1 ]; then
			out=$(ynl hs --do telemetry-set --json "$key, \"hop\": [{\"switch-id\": 7, \"port-id\": 3, \"rate\": 1000000000, \"ts\": $((n * 100000000000)), \"tx-bytes\": $((n * 20000)), \"qlen\": 0}]}")
		else
			out=$(ip netns exec hs "$NL" telemetry $CLI6 41000 $SRV6 5301 \
				7,3,1000000000,$((n * 100000000000)),$((n * 20000)),0)
		fi || { echo "telemetry-set: $out"; return 1; }
		retry 100 sh -c "[ \"\$(ip netns exec hs '$NL' stats | sed -n 's/^samples=//p')\" -ge $((s0 + n)) ]" ||
			{ echo "sample $n not applied"; return 1; }
	done
	echo 0 > $tr/events/hpcc/hpcc_sample/enable
	out=$(ynl hs --do flow-get --json "$key}")
	echo "namespace samples $s0 -> $(stat_of hs samples), flow samples $(field "$out" samples)," \
	     "telemetry-in $(field "$out" telemetry-in)," \
	     "hops $(python3 -S -c 'import json, sys; print(len(json.loads(sys.argv[1])["hop"]))' "$out")"
	grep -m2 hpcc_sample $tr/trace
	[ "$(field "$out" telemetry-in)" = 3 ] && [ "$(field "$out" samples)" -ge 3 ] &&
	grep -q "hpcc_sample: \[$CLI6\]:41000 > \[$SRV6\]:5301 step=" $tr/trace
}

# l2send6 EXT KIND COUNT [DSCP] - IPv6 packets from hr to hs's address
l2send6() {
	ip netns exec hr python3 "$PROBE" l2send6 v1 "$(cat "$TMP/mac")" $SRV6 $CLI6 \
		"${4:-60}" "$2" "$1" "$3"
}

# IPv6 probes and responses addressed to this host never reach TCP, with
# or without the extension headers the hook skips; the ones it refuses go
# on to the stack and are counted; a DSCP-marked packet without the HPCC
# header goes to TCP.
ipv6_probes() {
	local in0 in1 p0 r0 x0 d0 ext i
	ip netns pids hs | xargs -r kill 2>/dev/null	# quiet: stop the flows
	ip netns pids hr | xargs -r kill 2>/dev/null
	for ((i = 0; i < 40; i++)); do
		in0=$(snmp hs); sleep 0.5
		[ "$(snmp hs)" = "$in0" ] && break
	done
	ip -n hs link show v0 | awk '/link\/ether/ { print $2 }' > "$TMP/mac"
	in0=$(snmp hs); p0=$(stat_of hs probes_consumed)
	r0=$(stat_of hs responses_consumed); x0=$(stat_of hs exthdr_refused)
	for ext in none hbh dst hbh-dst rh0; do
		l2send6 $ext probe 4 || return 1
	done
	l2send6 none response 3 61 || return 1
	sleep 0.5
	in1=$(snmp hs)
	echo "consumed: TcpInSegs $in0 -> $in1, probes_consumed $p0 -> $(stat_of hs probes_consumed)," \
	     "responses_consumed $r0 -> $(stat_of hs responses_consumed)," \
	     "exthdr_refused $x0 -> $(stat_of hs exthdr_refused)"
	[ "$in1" = "$in0" ] && [ "$(stat_of hs probes_consumed)" = $((p0 + 20)) ] &&
	[ "$(stat_of hs responses_consumed)" = $((r0 + 3)) ] &&
	[ "$(stat_of hs exthdr_refused)" = "$x0" ] || return 1
	# refused: a fragment header, a routing header with a segment left,
	# nine destination options headers
	p0=$(stat_of hs probes_consumed)
	for ext in frag rh1 deep; do
		l2send6 $ext probe 2 || return 1
	done
	sleep 0.5
	echo "refused: exthdr_refused $x0 -> $(stat_of hs exthdr_refused)," \
	     "probes_consumed $p0 -> $(stat_of hs probes_consumed)"
	[ "$(stat_of hs exthdr_refused)" = $((x0 + 6)) ] &&
	[ "$(stat_of hs probes_consumed)" = "$p0" ] || return 1
	# the DSCP without the HPCC header, and a probe whose TCP header has
	# SYN set, go on to TCP
	in0=$(snmp hs); d0=$(stat_of hs dscp_not_hpcc)
	l2send6 none nomagic 1 && l2send6 none syn 1 || return 1
	sleep 0.5
	echo "not ours: TcpInSegs $in0 -> $(snmp hs), dscp_not_hpcc $d0 -> $(stat_of hs dscp_not_hpcc)"
	[ "$(snmp hs)" = $((in0 + 2)) ] && [ "$(stat_of hs dscp_not_hpcc)" = $((d0 + 2)) ]
}

# --- hpccd over IPv6: sender h6s, router h6r (hpcc_int on w1), receiver h6d

CTL=$TOP/build/hpccctl

# flow6 EXPR - the Python EXPR holds for the JSON flow f (hpccctl -j) of
# the sender's data connection from port 41600; the last read stays in
# $TMP/flow6.last
flow6() {
	ip netns exec h6s "$CTL" -j flow show sport 41600 | tee "$TMP/flow6.last" |
	python3 -S -c '
import json, sys
def age(f):
    return f.get("telemetry-age", 1 << 62)
sys.exit(0 if [f for f in json.load(sys.stdin) if '"$1"'] else 1)'
}

# label6 - the sender module's flowlabel of that flow, as 0x%05x
label6() {
	python3 -S -c 'import json, sys
print("0x%05x" % json.load(open(sys.argv[1]))[0]["flowlabel"])' "$TMP/flow6.last"
}

hpccd6_topology() {
	modprobe hpcc_int || return 1
	topo_ns h6s h6r h6d &&
	topo_link h6s v0 h6r v1 && topo_link h6d w0 h6r w1 &&
	topo_addr h6s v0 fd00:61::1/64 && topo_addr h6r v1 fd00:61::fe/64 &&
	topo_addr h6r w1 fd00:62::fe/64 && topo_addr h6d w0 fd00:62::1/64 &&
	ip -n h6s -6 route add default via fd00:61::fe &&
	ip -n h6d -6 route add default via fd00:62::fe &&
	ip netns exec h6r sysctl -qw net.ipv6.conf.all.forwarding=1 &&
	ip netns exec h6r "$CTL" int add dev w1 rate 1gbit || return 1
	# IPv4 on the same links, for dual_stack_listener (the hop stamps
	# probes leaving v1 too: the receiver's flows run towards h6s)
	topo_addr h6s v0 198.18.61.1/24 && topo_addr h6r v1 198.18.61.254/24 &&
	topo_addr h6r w1 198.18.62.254/24 && topo_addr h6d w0 198.18.62.1/24 &&
	ip -n h6s route add default via 198.18.61.254 &&
	ip -n h6d route add default via 198.18.62.254 &&
	ip netns exec h6r sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec h6r "$CTL" int add dev v1 rate 1gbit &&
	start_hpccd h6s && start_hpccd h6d || return 1
	{ ip netns exec h6d iperf3 -s -p 5310 >/dev/null 2>&1 & }
	retry 50 sh -c "ip netns exec h6d ss -Hltn | grep -q ':5310 '"
}

# An IPv6 hpcc flow through an IPv6 INT hop: hpccd probes it with the
# flow's flow label, the receiver's hpccd answers, the hop's record reaches
# the module.  Then 1.5 s of total loss at the hop: the RTOs rehash the
# flow (sk_txhash), its data packets take a new label, the module reports
# it (flows-rehashed, flow-active) and the probes after it carry it too.
hpccd_ipv6() {
	local ifi sniff ip3 l1 l2 r0 rc=0
	hpccd6_topology || return 1
	ifi=$(ip -n h6r -o link show w1 | cut -d: -f1)
	rm -f "$TMP/stop6"
	ip netns exec h6d python3 "$PROBE" labels6 w0 41600 5310 60 "$TMP/stop6" \
		> "$TMP/labels6" 2>&1 &
	sniff=$!
	retry 25 grep -q sniffing "$TMP/labels6" || return 1
	ip netns exec h6s iperf3 -6 -c fd00:62::1 -p 5310 --cport 41600 -C hpcc \
		-b 10M -t $((60 * SLOW)) > /dev/null 2>&1 &
	ip3=$!
	retry 150 flow6 'age(f) < 200000 and len(f["hops"]) == 1 and f["hops"][0]["port-id"] == '"$ifi"' and f["mode-name"] == "hpcc"' ||
		{ echo "no telemetry over IPv6:"; cat "$TMP/flow6.last"; rc=1; }
	if [ $rc = 0 ]; then
		l1=$(label6)
		r0=$(mstat h6s flows-rehashed)
		ip netns exec h6r tc qdisc add dev w1 root netem loss 100% &&
		sleep 1.5 &&
		ip netns exec h6r tc qdisc del dev w1 root || rc=1
		# the new label in the module, and a response since
		retry 150 flow6 '"%05x" % f.get("flowlabel", 0) != "'"${l1#0x}"'" and age(f) < 200000' ||
			{ echo "no new label with fresh telemetry:"; cat "$TMP/flow6.last"; rc=1; }
		l2=$(label6)
		sleep 1
	fi
	touch "$TMP/stop6"
	wait $sniff
	end_procs $ip3
	sed -i '/^sniffing$/d' "$TMP/labels6"
	echo "module: label $l1, then $l2; flows-rehashed ${r0:-?} -> $(mstat h6s flows-rehashed)"
	echo "on the wire at the receiver (data and probes, each label change):"
	cat "$TMP/labels6"
	echo "sender hpccd: probes-sent $(dstat h6s probes-sent) responses-received $(dstat h6s responses-received) telemetry-pushed $(dstat h6s telemetry-pushed) ipv6-ignored $(dstat h6s ipv6-ignored)"
	echo "receiver hpccd: probes-received $(dstat h6d probes-received) responses-sent $(dstat h6d responses-sent)"
	[ $rc = 0 ] || return 1
	# before the rehash, data and probes carried the module's first label;
	# after it, the last label of each is the module's new one, and the
	# probes carried it at least 3 times
	[ "$(awk '$1 == "data" { print $2; exit }' "$TMP/labels6")" = "$l1" ] &&
	[ "$(awk '$1 == "probe" { print $2; exit }' "$TMP/labels6")" = "$l1" ] &&
	grep -qx "count data $l2 [0-9]*" "$TMP/labels6" &&
	[ "$(awk '$1 == "count" && $2 == "probe" && $3 == "'"$l2"'" { print $4 }' "$TMP/labels6")" -ge 3 ] &&
	[ "$l1" != "$l2" ] &&
	[ "$(mstat h6s flows-rehashed)" -gt "$r0" ] &&
	[ "$(dstat h6d responses-sent)" -gt 0 ] &&
	[ "$(dstat h6s telemetry-pushed)" -gt 0 ] &&
	[ "$(dstat h6s ipv6-ignored)" = 0 ]
}

# A dual-stack listener's IPv4 client: iperf3 -R makes the receiver's
# accepted socket (AF_INET6 on [::], talking to an IPv4-mapped peer) the
# hpcc sender; its namespace's hpccd probes it as an IPv4 flow through the
# hop (v1 towards h6s) and the module runs it in HPCC mode with fresh
# telemetry and one record.
dual_ok() { # dual_ok IFINDEX - the receiver's flow to port 41601 is as asked
	ip netns exec h6d "$CTL" -j flow show dport 41601 > "$TMP/dual.last" &&
	python3 -S -c '
import json, sys
f = json.load(open(sys.argv[1]))
sys.exit(0 if [x for x in f if x["family"] == 2 and x["mode-name"] == "hpcc" and
               x.get("telemetry-age", 1 << 62) < 200000 and len(x["hops"]) == 1 and
               x["hops"][0]["port-id"] == int(sys.argv[2])] else 1)' "$TMP/dual.last" "$1"
}

dual_stack_listener() {
	local ifi ip3 rc=0
	ifi=$(ip -n h6r -o link show v1 | cut -d: -f1)
	ip netns exec h6s iperf3 -4 -c 198.18.62.1 -p 5310 -R -C hpcc --cport 41601 \
		-b 10M -t $((60 * SLOW)) > /dev/null 2>&1 &
	ip3=$!
	retry 150 dual_ok "$ifi" || rc=1
	ip netns exec h6d "$CTL" flow show dport 41601
	ip netns exec h6d ss -Htn state established "( sport = :5310 )" | head -2
	end_procs $ip3
	[ $rc = 0 ] || { echo "last read:"; cat "$TMP/dual.last"; }
	return $rc
}

unload() {
	ns_gone hs hr h6s h6r h6d
	retry 100 sh -c '[ "$(cat /sys/module/tcp_hpcc/refcnt)" = 0 ]' &&
	rmmod tcp_hpcc && { [ ! -e /sys/module/hpcc_int ] || rmmod hpcc_int; }
}

ktap_print_header
ktap_set_plan 10
t "setup: two namespaces, IPv4 and IPv6 on one veth" setup
t "an IPv6 connection gets HPCC state, found by saddr6/daddr6 and in dumps" ipv6_flow
t "dual-stack sockets talking IPv4 (IPv4-mapped) are AF_INET flows" mapped_flows
t "hpccctl shows IPv6 flows, filters by IPv6 address, -j names them as the spec" hpccctl_ipv6
t "telemetry-set on an IPv6 flow is applied; hpcc_sample prints [v6]:port" ipv6_telemetry
t "IPv6 probes and responses are consumed before TCP; refused extension headers are counted" ipv6_probes
t "hpccd probes an IPv6 flow through an IPv6 INT hop with its flow label, and follows a rehash" hpccd_ipv6
t "a dual-stack listener's IPv4 client (iperf3 -R): the accepted socket runs HPCC with telemetry" dual_stack_listener
t "the modules unload afterwards" unload
t "no WARNING, BUG or Oops in the kernel log" kernel_clean_since "$MARK"
ktap_finished
