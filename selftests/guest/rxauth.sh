#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Receiver-based HPCC and authenticated, private feedback, end to end
# (draft-pan-tsvwg-hpccplus-02 section 6.2, draft-miao-ccwg-hpcc section
# 9.1).
#
# The sender's hpccd asks for receiver-based HPCC in its probes (rx-based =
# PREFIX); the receiver's hpccd runs NewINT on each probe's records and
# sends W only when more than T has passed since it last did; the
# sender's module applies that W (rx-w-applied) and computes no U.  T is
# set to 20 ms at both ends, longer than a probe's round trip, so that
# most responses carry no W (rx-kept).  Every response is signed with a
# key both daemons read from their key files (mode 600); the tests rotate
# the key with no response refused and no fallback in the overlap, then
# make the receiver sign with a wrong key and with none (refused and
# counted), have the receiver refuse receiver-based mode (the flow goes
# on sender-based), and withhold the records (private): the flow runs on W
# alone, and, refused receiver-based mode, on the receiver's U alone.
#
#   hs (10.50.1.1, fd00:50:1::1) -- v0|v1 -- rt -- v2|v3 -- hr (10.50.2.1,
#   fd00:50:2::1); rt: hpcc_int on v2 (the project's records), B and tbf
#   100 Mbit/s
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

SRV4=10.50.2.1
SRV6=fd00:50:2::1
CTL=$TOP/build/hpccctl
TMP=$(mktemp -d)
mkdir -m 1777 "$TMP/run"

# the running flow's iperf3 is in $TMP/flow.pid: each test case runs in a
# subshell of its own (t), and a flow outlives the case that started it
trap 'end_procs $(cat "$TMP/flow.pid" 2>/dev/null); ns_gone hs rt hr; rm -rf "$TMP"' EXIT

K1=$(printf '11%.0s' $(seq 32))
K3=$(printf '33%.0s' $(seq 32))
KX=$(printf '3a%.0s' $(seq 32))

rctl() { ip netns exec rt "$CTL" "$@"; }

topology() {
	topo_dumbbell 50 46 || return 1
	topo_tbf rt v2 100mbit 32k 250k &&
	modprobe hpcc_int &&
	rctl int add dev v2 rate 100mbit &&
	rctl int set switch-id 7 &&
	ip netns exec hr sysctl -qw net.ipv4.tcp_congestion_control=cubic &&
	{ ip netns exec hr iperf3 -s -p 5201 >/dev/null 2>&1 & } &&
	retry 50 sh -c "ip netns exec hr ss -Hltn | grep -q ':5201'"
}

# keys NS LINE... - NS's key file, mode 600, one "key = LINE" each
keys() {
	local ns=$1
	shift
	key_file "$TMP/$ns.keys" "${@/#/key = }"
}

# reload NS - SIGHUP NS's hpccd and wait for the reload's log line
reload() {
	local n
	n=$(grep -c reloaded "$TMP/$1.log")
	kill -HUP "$(pid_of "$1")" &&
		retry 25 sh -c "[ \$(grep -c reloaded '$TMP/$1.log') -gt $n ]"
}

daemons_start() {
	modprobe tcp_hpcc || return 1
	# T: 20 ms, so that W goes out in few responses; the receiver runs
	# with its own module's parameters, so both ends have the same
	ip netns exec hr "$CTL" param set t 20000 &&
	ip netns exec hs "$CTL" param set t 20000 || return 1
	keys hs "1 $K1 10.50.0.0/16" "2 $K1 fd00:50::/32" &&
	keys hr "1 $K1 10.50.0.0/16" "2 $K1 fd00:50::/32" || return 1
	cat > "$TMP/hs.conf" <<EOF
rx-based = 10.50.2.0/24
rx-based = fd00:50:2::/64
auth-key-file = $TMP/hs.keys
auth-overlap-s = $((60 * SLOW))
reconcile-s = 1
EOF
	cat > "$TMP/hr.conf" <<EOF
auth-key-file = $TMP/hr.keys
EOF
	start_hpccd hs && start_hpccd hr
}

# A key file group- or world-readable is refused: hpccd does not start.
key_file_mode() {
	local rc
	cp "$TMP/hs.keys" "$TMP/bad.keys" && chmod 644 "$TMP/bad.keys" &&
	printf 'auth-key-file = %s\n' "$TMP/bad.keys" > "$TMP/bad.conf" || return 1
	ip netns exec hs timeout 10 "$TOP/build/hpccd" -c "$TMP/bad.conf" \
		-S "$TMP/run/bad.stats" > "$TMP/bad.log" 2>&1
	rc=$?
	cat "$TMP/bad.log"
	[ $rc = 2 ] && grep -q "not accessible to group or others" "$TMP/bad.log"
}

# start_flow DST FAMILY PORT - a long hpcc flow from hs
start_flow() {
	ip netns exec hs iperf3 "-$2" -c "$1" -p 5201 --cport "$3" -C hpcc \
		-t $((300 * SLOW)) -b 40M > "$TMP/iperf.$3" 2>&1 &
	echo $! > "$TMP/flow.pid"
}

stop_flow() {
	end_procs $(cat "$TMP/flow.pid" 2>/dev/null)
	rm -f "$TMP/flow.pid"
	retry 50 sh -c "[ -z \"\$(ip netns exec hr ss -Htn state established '( sport = :5201 )')\" ]"
}

# snap TAG - every counter of both daemons (TAG_s_*, TAG_r_*) and the
# sender module's rx-w-applied, rx-kept, fallbacks and rx-u-applied
# (TAG_m_*)
snap() {
	dvars hs "${1}_s" && dvars hr "${1}_r" || return 1
	eval "${1}_m_rxw=$(mstat hs rx-w-applied) ${1}_m_kept=$(mstat hs rx-kept) ${1}_m_fb=$(mstat hs fallbacks) ${1}_m_rxu=$(mstat hs rx-u-applied)"
}

# d TAG0 TAG1 NAME - how much counter NAME (a snap variable's suffix)
# grew from snap TAG0 to TAG1
d() {
	local a=${1}_$3 b=${2}_$3
	echo $(( ${!b:-0} - ${!a:-0} ))
}

# rx_flow DST FAMILY PORT - the flow runs receiver-based: 10 W applied,
# the flow marked rx-based; W in fewer than half of the responses (T 20
# ms) and 5 responses without W that only keep the telemetry fresh
# (rx-kept), neither on the debugging kernel, whose probe cycle, a
# response every 0.3 s, is longer than T, so that every response carries
# W (852 of 854 there, rx-kept +1); every response signed and accepted;
# N in the responses
rx_flow() {
	local rc=0
	snap a || return 1
	start_flow "$1" "$2" "$3"
	retry 100 flow_json hs "$1" "$3" 'f.get("rx-based") and f["samples"] >= 10 and f["mode-name"] == "hpcc"' || {
		echo "last read:"; cat "$TMP/flowj.last"; rc=1; }
	sleep 2
	snap b || return 1
	echo "hs: probes-rx +$(d a b s_probes_rx) responses-rx +$(d a b s_responses_rx) responses-rx-w +$(d a b s_responses_rx_w) auth-ok +$(d a b s_auth_ok) auth-bad +$(d a b s_auth_bad) responses-with-n +$(d a b s_responses_with_n)"
	echo "hr: rx-asked +$(d a b r_rx_asked) rx-w-sent +$(d a b r_rx_w_sent) rx-refused +$(d a b r_rx_refused) responses-signed +$(d a b r_responses_signed)"
	echo "hs module: rx-w-applied +$(d a b m_rxw) rx-kept +$(d a b m_kept)"
	[ $rc = 0 ] &&
	[ "$(d a b s_responses_rx)" -ge 20 ] &&
	[ "$(d a b s_responses_rx_w)" -ge 5 ] &&
	{ [ "$SLOW" -gt 1 ] ||
	  [ $(( 2 * $(d a b s_responses_rx_w) )) -lt "$(d a b s_responses_rx)" ]; } &&
	[ "$(d a b r_rx_w_sent)" -ge 5 ] &&
	[ "$(d a b r_rx_refused)" = 0 ] &&
	[ "$(d a b m_rxw)" -ge 5 ] &&
	{ [ "$SLOW" -gt 1 ] || [ "$(d a b m_kept)" -ge 5 ]; } &&
	[ "$(d a b s_auth_ok)" -ge 20 ] &&
	[ "$(d a b r_responses_signed)" -ge 20 ] &&
	[ "$(d a b s_auth_bad)" = 0 ] && [ "$(d a b s_auth_missing)" = 0 ] &&
	[ "$(d a b s_responses_with_n)" -ge 20 ]
}

# The sender drops key 1 for key 3 while the receiver still signs with 1:
# accepted as retired in the overlap; then the receiver moves to key 3.
# No response refused, W applied throughout and no fallback in the
# overlap (responses-unexpected, a response after its probe's timeout, is
# printed: the guest's probe timeouts fire now and then whatever the
# keys).  In a guest a flow also falls back for stale telemetry now and
# then whatever the keys (the probe cycle can be longer than stale-rtts x
# srtt; encodings.sh has the numbers): the case sets stale-rtts to 1000 on
# the sender, so that a fallback could come only from the rotation (a
# refused response, no telemetry), and sets it back to 4 at the end.
rotation() {
	local rc
	ip netns exec hs "$CTL" param set stale-rtts 1000 && sleep 1 &&
	snap a || return 1
	keys hs "3 $K3 10.50.0.0/16" "2 $K1 fd00:50::/32" && reload hs &&
	sleep 2 && snap b || return 1
	keys hr "3 $K3 10.50.0.0/16" "2 $K1 fd00:50::/32" && reload hr &&
	sleep 2 && snap c || return 1
	echo "overlap: auth-ok-retired +$(d a b s_auth_ok_retired) auth-ok +$(d a b s_auth_ok) keys-retired +$(d a b s_keys_retired); after: auth-ok +$(d b c s_auth_ok) auth-ok-retired +$(d b c s_auth_ok_retired)"
	echo "refused: unknown-key +$(d a c s_auth_unknown_key) bad +$(d a c s_auth_bad) missing +$(d a c s_auth_missing) unexpected +$(d a c s_responses_unexpected); module: fallbacks +$(d a c m_fb) rx-w-applied +$(d a c m_rxw)"
	[ "$(d a b s_keys_retired)" = 1 ] &&
	[ "$(d a b s_auth_ok_retired)" -ge 5 ] &&
	[ "$(d b c s_auth_ok)" -ge 5 ] &&
	[ "$(d a c s_auth_unknown_key)" = 0 ] && [ "$(d a c s_auth_bad)" = 0 ] &&
	[ "$(d a c s_auth_missing)" = 0 ] &&
	[ "$(d a c m_rxw)" -ge 5 ] && [ "$(d a c m_fb)" = 0 ]
	rc=$?
	ip netns exec hs "$CTL" param set stale-rtts 4 || return 1
	return $rc
}

# forged KEYLINE COUNTER - the receiver signs with KEYLINE (a key file
# line, or "" for no key): the sender refuses every response (COUNTER
# grows, nothing is pushed)
forged() {
	if [ -n "$1" ]; then
		keys hr "$1" "2 $K1 fd00:50::/32"
	else
		: > "$TMP/hr.keys"
	fi
	reload hr && sleep 1 && snap a && sleep 2 && snap b || return 1
	echo "$2 +$(d a b "s_$2") responses-received +$(d a b s_responses_received) telemetry-pushed +$(d a b s_telemetry_pushed)"
	[ "$(d a b "s_$2")" -ge 3 ] && [ "$(d a b s_telemetry_pushed)" = 0 ]
}

# auth-permissive (a rollout's first phase): the receiver still signs
# nothing (forged ''), the sender checks and counts (auth-missing) but takes
# the responses (auth-permitted, telemetry pushed); without the line again
# it refuses them.
permissive() {
	echo "auth-permissive = 10.50.2.0/24" >> "$TMP/hs.conf" && reload hs &&
	sleep 1 && snap a && sleep 2 && snap b || return 1
	sed -i '/^auth-permissive/d' "$TMP/hs.conf" && reload hs &&
	sleep 1 && snap c && sleep 2 && snap e || return 1
	echo "permissive: auth-missing +$(d a b s_auth_missing) auth-permitted +$(d a b s_auth_permitted) telemetry-pushed +$(d a b s_telemetry_pushed)"
	echo "enforcing again: auth-missing +$(d c e s_auth_missing) auth-permitted +$(d c e s_auth_permitted) telemetry-pushed +$(d c e s_telemetry_pushed)"
	[ "$(d a b s_auth_missing)" -ge 3 ] &&
	[ "$(d a b s_auth_permitted)" = "$(d a b s_auth_missing)" ] &&
	[ "$(d a b s_telemetry_pushed)" -ge 3 ] &&
	[ "$(d c e s_auth_missing)" -ge 3 ] && [ "$(d c e s_auth_permitted)" = 0 ] &&
	[ "$(d c e s_telemetry_pushed)" = 0 ]
}

# The receiver refuses receiver-based mode: the sender counts it and its
# flow goes on sender-based (hop records, samples, no rx-based).
refused() {
	keys hr "3 $K3 10.50.0.0/16" "2 $K1 fd00:50::/32" &&
	echo "rx-answer = 0" >> "$TMP/hr.conf" && reload hr && snap a || return 1
	retry 50 flow_json hs $SRV4 6301 'not f.get("rx-based") and len(f.get("hops", [])) == 1 and f["hops"][0]["switch-id"] == 7' || {
		echo "last read:"; cat "$TMP/flowj.last"; return 1; }
	snap b || return 1
	echo "hs: responses-rx-refused $(eval echo \$b_s_responses_rx_refused) telemetry-pushed +$(d a b s_telemetry_pushed); hr: rx-refused $(eval echo \$b_r_rx_refused)"
	[ "${b_s_responses_rx_refused:-0}" -ge 1 ] && [ "${b_r_rx_refused:-0}" -ge 1 ] &&
	[ "$(d a b s_telemetry_pushed)" -ge 3 ]
}

# private_diag PORT - a private case's diagnostics: the flow's last read
# and iperf3's last lines, the sender's counters and its line for the
# flow from PORT, the receiver's counters
private_diag() {
	echo "last read:"; cat "$TMP/flowj.last"
	echo "iperf3:"; tail -n 3 "$TMP/iperf.$1"
	dstat hs probes-sent >/dev/null
	grep -E "^(probes|responses|auth|telemetry)|$1" "$TMP/run/hs.stats"
	dstat hr probes-sent >/dev/null
	grep -E "^(probes|responses|rx|u-|dropped)" "$TMP/run/hr.stats"
}

# Private to the sender's prefix, receiver-based again (a new flow asks):
# the responses carry W and no record, and the flow runs on W alone.
private() {
	# (a reload keeps a setting the file no longer names: set it back)
	sed -i 's/^rx-answer = 0/rx-answer = 1/' "$TMP/hr.conf" &&
	echo "private = 10.50.1.0/24" >> "$TMP/hr.conf" && reload hr || return 1
	stop_flow
	snap a || return 1
	start_flow $SRV4 4 6302
	retry 100 flow_json hs $SRV4 6302 'f.get("rx-based") and f["samples"] >= 5 and not f.get("hops")' || {
		private_diag 6302; return 1; }
	snap b || return 1
	echo "hr: responses-private +$(d a b r_responses_private) rx-w-sent +$(d a b r_rx_w_sent); hs module: rx-w-applied +$(d a b m_rxw)"
	[ "$(d a b r_responses_private)" -ge 5 ] && [ "$(d a b m_rxw)" -ge 3 ]
}

# Private, and the receiver refuses receiver-based mode (a new flow): the
# first response refuses, and the flow's responses then carry only U,
# which the receiver measures on the records it withholds
# (HPCC_WIRE_EXT_U; draft-miao-ccwg-hpcc section 9.1); the sender's
# module runs NewAck with it (rx-u-applied).  The flow holds no record,
# is not receiver-based, and its U is the receiver's: above 0 and below
# 1.0 (the initial value) for 40 Mbit/s on a 100 Mbit/s hop.
private_u() {
	sed -i 's/^rx-answer = 1/rx-answer = 0/' "$TMP/hr.conf" && reload hr || return 1
	stop_flow
	snap a || return 1
	start_flow $SRV4 4 6303
	retry 100 flow_json hs $SRV4 6303 'not f.get("rx-based") and f["samples"] >= 5 and not f.get("hops") and f["mode-name"] == "hpcc" and 0 < f["u"] < 1' || {
		private_diag 6303; return 1; }
	sleep 2
	snap b || return 1
	echo "hr: u-sent +$(d a b r_u_sent) u-kept +$(d a b r_u_kept) u-unavailable +$(d a b r_u_unavailable) responses-private +$(d a b r_responses_private) rx-refused +$(d a b r_rx_refused)"
	echo "hs: responses-u +$(d a b s_responses_u) responses-u-value +$(d a b s_responses_u_value) responses-rx-refused +$(d a b s_responses_rx_refused); module: rx-u-applied +$(d a b m_rxu) rx-w-applied +$(d a b m_rxw)"
	[ "$(d a b r_u_sent)" -ge 5 ] && [ "$(d a b r_u_unavailable)" = 0 ] &&
	[ "$(d a b s_responses_u_value)" -ge 5 ] &&
	[ "$(d a b s_responses_rx_refused)" -ge 1 ] &&
	[ "$(d a b m_rxu)" -ge 5 ] && [ "$(d a b m_rxw)" = 0 ]
}

ktap_print_header
ktap_set_plan 11
t "hs - rt (hpcc_int v2, tbf 100 Mbit/s) - hr, IPv4 and IPv6" topology
t "hpccd in both, with key files; the sender's probes ask for receiver-based HPCC" daemons_start
t "a key file others can read is refused: hpccd exits 2" key_file_mode
t "IPv6: receiver-based, W applied, sent at most once per T, signed, N reported" rx_flow $SRV6 6 6300
t "IPv4: the same" eval 'stop_flow; rx_flow $SRV4 4 6301'
t "key rotation: the old key accepted in the overlap, nothing refused, W applied throughout" rotation
t "a wrong key (same id, other bytes) is refused, then an unsigned response" eval "forged '3 $KX 10.50.0.0/16' auth_bad && forged '' auth_missing"
t "auth-permissive: unsigned responses counted and taken; without it refused again" permissive
t "the receiver refuses receiver-based mode: counted on both sides, the flow goes on sender-based" refused
t "private: responses carry W and no record; the flow runs on W" private
t "private, sender-based: responses carry only U; the sender's module runs NewAck on it" private_u
ktap_finished
