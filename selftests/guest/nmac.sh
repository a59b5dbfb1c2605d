#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The MAC of FCR messages and CCM notifications at the sending host
# (draft-miao-ccwg-hpcc section 9.1; kernel/lib/hpcc_nmac.c):
# tcp_hpcc's keys from a key file (hpccctl fcr set key-file, or hpccd's
# key file, which hpccd sets at its start and reloads), reported
# without their bytes; messages signed in userspace with libsodium
# (selftests/progs/nmac_send.c) verified by the kernel's siphash();
# unsigned, forged and unknown-key messages refused and counted before
# anything else is looked at; a removed key accepted for key-overlap
# seconds; a source no key covers needs no MAC.  The messages name no
# flow, so an authentic one ends as fcr-no-flow or ccm-no-flow.
#
#   hs (10.52.0.1, tcp_hpcc FCR on port 6862 from 10.52.0.0/24) -- v0|v1 --
#   hop (10.52.0.2 and 10.52.0.3)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

CTL=$TOP/build/hpccctl
SEND=$TOP/build/selftests/nmac_send
HS=10.52.0.1
TMP=$(mktemp -d)
MARK="nmac.sh start $$"
echo "$MARK" > /dev/kmsg

trap 'sctl fcr set flush keys-flush key-overlap 60 >/dev/null 2>&1; ns_gone hs hop; rm -rf "$TMP"' EXIT

sctl() { ip netns exec hs "$CTL" "$@"; }

K1=$(printf '11%.0s' $(seq 16))
K3=$(printf '33%.0s' $(seq 16))
KX=$(printf '3a%.0s' $(seq 16))

topology() {
	ns_pair hs $HS hop 10.52.0.2 &&
		ip -n hop addr add 10.52.0.3/24 dev v1 &&
		modprobe tcp_hpcc &&
		sctl fcr set port 6862 prefix 10.52.0.0/24
}

# keyfile NAME LINE... - key_file $TMP/NAME
keyfile() {
	local f=$TMP/$1
	shift
	key_file "$f" "$@"
}

# send fcr|ccm [ID HEX] - one message from the hop to hs's FCR port
send() {
	ip netns exec hop "$SEND" $HS 6862 "$@"
}

# counted STAT... - each STAT's value, "name=value ..."
counted() {
	local s out=""
	for s in "$@"; do
		out="$out $s=$(mstat hs "$s")"
	done
	echo "$out"
}

# delta CMD EXPECT... - run CMD, then check that each "STAT+N" of EXPECT
# grew by exactly N
delta() {
	local cmd=$1 e s n after rc=0
	shift
	declare -A b
	for e in "$@"; do
		s=${e%+*}
		b[$s]=$(mstat hs "$s")
	done
	eval "$cmd" || return 1
	sleep 0.3
	for e in "$@"; do
		s=${e%+*} n=${e##*+}
		after=$(mstat hs "$s")
		echo "$s: ${b[$s]} -> $after (want +$n)"
		[ "$after" = $((${b[$s]} + n)) ] || rc=1
	done
	return $rc
}

# Keys from a key file with notify-key lines: reported without their bytes;
# a file others can read is refused and changes nothing
keys_load() {
	keyfile bad.keys "notify-key = 1 $K1 10.52.0.2/32" && chmod 644 "$TMP/bad.keys" &&
	keyfile k1.keys "notify-key = 1 $K1 10.52.0.2/32" \
		"key = 5 $(printf 'ab%.0s' $(seq 32)) 10.99.0.0/16" || return 1
	sctl fcr set key-file "$TMP/bad.keys" && return 1
	sctl fcr show | grep -q "^keys none" || return 1
	sctl fcr set key-file "$TMP/k1.keys" || return 1
	sctl fcr show
	! sctl -j fcr show | grep -q 11111111 &&
		sctl fcr show | grep -q "^keys 1 10.52.0.2/32 key-overlap 60$"
}

signed_ok() {
	delta "send fcr 1 $K1" notify-auth-ok+1 fcr-no-flow+1 notify-auth-bad+0 &&
	delta "send ccm 1 $K1" notify-auth-ok+1 ccm-no-flow+1
}

refused() {
	delta "send fcr" notify-auth-missing+1 fcr-no-flow+0 &&
	delta "send ccm" notify-auth-missing+1 ccm-no-flow+0 &&
	delta "send fcr 1 $KX" notify-auth-bad+1 fcr-no-flow+0 &&
	delta "send fcr 2 $K1" notify-auth-unknown-key+1 fcr-no-flow+0 &&
	delta "send ccm 1 $KX" notify-auth-bad+1 ccm-no-flow+0 &&
	dmesg | sed -n "/$MARK/,\$p" | grep -q "FCR from .*10.52.0.2 refused: bad MAC"
}

# A source no key covers (the hop's 10.52.0.3) needs no MAC
uncovered() {
	ip -n hop route replace 10.52.0.0/24 dev v1 src 10.52.0.3 || return 1
	delta "send fcr" fcr-no-flow+1 notify-auth-missing+0
	local rc=$?
	ip -n hop route replace 10.52.0.0/24 dev v1 src 10.52.0.2 || return 1
	return $rc
}

# Rotation: key 3 replaces key 1; a message signed with 1 is accepted as
# retired during the overlap, with 3 as configured; with key-overlap 1,
# key 1 is refused once a second has passed
rotation() {
	keyfile k3.keys "notify-key = 3 $K3 10.52.0.0/24" || return 1
	sctl fcr set key-file "$TMP/k3.keys" || return 1
	sctl fcr show
	sctl fcr show | grep -q "^keys 3 10.52.0.0/24 1 10.52.0.2/32 retired key-overlap 60$" &&
	delta "send fcr 1 $K1" notify-auth-retired+1 fcr-no-flow+1 &&
	delta "send fcr 3 $K3" notify-auth-ok+1 fcr-no-flow+1 || return 1
	sctl fcr set key-file "$TMP/k1.keys" key-overlap 1 &&
		sctl fcr set key-file "$TMP/k3.keys" && sleep 1.2 &&
		delta "send fcr 1 $K1" notify-auth-unknown-key+1 fcr-no-flow+0
}

# keys-flush with key-overlap 0: no key left, nothing needs a MAC
flushed() {
	sctl fcr set keys-flush key-overlap 0 &&
		sctl fcr show | grep -q "^keys none key-overlap 0$" &&
		delta "send fcr" fcr-no-flow+1 notify-auth-missing+0
}

# Malformed key attributes are refused with the reason (extack)
bad_attrs() {
	keyfile dup.keys "notify-key = 1 $K1 10.52.0.2/32" \
		"notify-key = 1 $K3 10.52.0.3/32" || return 1
	sctl fcr set key-file "$TMP/dup.keys" 2>&1 | tee "$TMP/err"
	grep -q "used twice" "$TMP/err" || return 1
	sctl fcr set key-file "$TMP/k1.keys" keys-flush 2>&1 | tee "$TMP/err"
	grep -q "key with keys-flush" "$TMP/err"
}

# keys_json EXPR - the Python EXPR on the list k of hs's keys (hpccctl -j
# fcr show: id, prefix, accept, retired)
keys_json() {
	sctl -j fcr show | python3 -S -c '
import json, sys
k = json.load(sys.stdin)["key"]
sys.exit(0 if '"$1"' else 1)'
}

# hpccd sets its key file's notify-key lines in the module: at its start
# (the key verifies a signed message), at a reload (the one it no longer
# names retired), and a reload of a file without them flushes the keys
# it set (both retired, for the overlap); it counts each push
hpccd_keys() {
	sctl fcr set keys-flush key-overlap 60 || return 1
	keyfile hs.keys "notify-key = 1 $K1 10.52.0.2/32" &&
	printf 'auth-key-file = %s\n' "$TMP/hs.keys" > "$TMP/hs.conf" &&
	start_hpccd hs || return 1
	retry 25 keys_json 'k == [{"id": 1, "prefix": "10.52.0.2/32", "accept": False, "retired": False}]' || {
		sctl fcr show; cat "$TMP/hs.log"; return 1; }
	delta "send fcr 1 $K1" notify-auth-ok+1 fcr-no-flow+1 || return 1
	keyfile hs.keys "notify-key = 3 $K3 10.52.0.0/24" &&
	kill -HUP "$(pid_of hs)" &&
	retry 25 keys_json 'sorted((x["id"], x["retired"]) for x in k) == [(1, True), (3, False)]' || {
		sctl fcr show; return 1; }
	delta "send fcr 3 $K3" notify-auth-ok+1 fcr-no-flow+1 || return 1
	keyfile hs.keys "key = 5 $(printf 'ab%.0s' $(seq 32)) 10.99.0.0/16" &&
	kill -HUP "$(pid_of hs)" &&
	retry 25 keys_json 'k and all(x["retired"] for x in k)' || {
		sctl fcr show; return 1; }
	dvars hs h || return 1
	echo "notify-keys-pushed $h_notify_keys_pushed, failed $h_notify_keys_push_failed"
	sctl fcr show
	[ "$h_notify_keys_pushed" = 3 ] && [ "$h_notify_keys_push_failed" = 0 ]
}

ktap_print_header
ktap_set_plan 10
t "hs - hop, tcp_hpcc FCR on from the hop's prefix" topology
t "keys from a key file, reported without their bytes; a readable file refused" keys_load
t "FCR and CCM signed with libsodium's SipHash-2-4: verified by the kernel" signed_ok
t "unsigned, forged, unknown key: refused and counted before the flow lookup" refused
t "a source no key covers needs no MAC" uncovered
t "rotation: the removed key accepted for key-overlap, refused after it" rotation
t "keys-flush with no overlap: no MAC needed" flushed
t "a key file with an id twice, key with keys-flush: refused" bad_attrs
t "hpccd sets its key file's notify keys at its start and reloads, flushes them when gone" hpccd_keys
t "kernel log clean" kernel_clean_since "$MARK"
ktap_finished
