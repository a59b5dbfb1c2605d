#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink fuzzer (nlfuzz.py, driven by the YNL specs) against both
# families, hpcc and hpcc-int, while hpcc flows run and hpccd probes them
# in both namespaces, from three positions:
#
#   admin    root of the initial user namespace, in the flows' namespace
#            fa: every operation allowed; telemetry-set reaches the flows
#   owner    root of a new user namespace that owns a new network namespace:
#            params-set and every hpcc-int write are refused (they need
#            the initial user namespace), the rest is allowed there
#   guest    root of a new user namespace inside fa, which it does not own:
#            every write is refused, telemetry for fa's real flows too
#
# Each run must keep the kernel answering (nlfuzz.py exits 1 on a
# timeout) and return only errnos (hpcc_int once returned an ifindex above
# INT_MAX, negated, as the error code).  Afterwards the kernel log is clean, both hpccd still run and
# answer, the flows completed, and the modules unload.  NLFUZZ_SECS
# (default 8, 40 on the debugging kernel) is the time per family and
# position; the executions are printed for the record.  Runs as root in a guest.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

CTL=$TOP/build/hpccctl
D=$TOP/build/hpccd
FUZZ=$TOP/selftests/guest/nlfuzz.py
SPECS=$TOP/Documentation/netlink/specs
# 8 s a position; 40 on the debugging kernel (SLOW, selftests/lib.sh)
SECS=${NLFUZZ_SECS:-$((SLOW > 1 ? 40 : 8))}
PY=/usr/bin/python3
CLI=10.77.0.1
SRV=10.77.0.2
TMP=$(mktemp -d)
chmod 755 "$TMP"
cp "$FUZZ" "$SPECS/hpcc.yaml" "$SPECS/hpcc-int.yaml" "$TMP/"
chmod 644 "$TMP"/*

trap 'ns_gone fa fb; rm -rf "$TMP"' EXIT

kernel_clean() { kernel_clean_since 'nlfuzz.sh: start'; }

alive() { # alive NS - the hpccd of NS runs and writes its statistics
	local p f=$TMP/$1.stats
	p=$(cat "$TMP/$1.pid") && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hpccd ] || {
		echo "hpccd in $1 is gone"; tail -5 "$TMP/$1.log"; return 1; }
	rm -f "$f"
	kill -USR1 "$p" && retry 25 test -s "$f"
}

setup() {
	echo "nlfuzz.sh: start" > /dev/kmsg
	modprobe tcp_hpcc && modprobe hpcc_int || return 1
	ns_pair fa $CLI fb $SRV || return 1
	local ns
	for ns in fa fb; do
		ip netns exec $ns "$D" -v -S "$TMP/$ns.stats" > "$TMP/$ns.log" 2>&1 &
		echo $! > "$TMP/$ns.pid"
		retry 50 grep -q "connected:" "$TMP/$ns.log" || return 1
	done
	ip netns exec fb iperf3 -s -p 5201 > /dev/null 2>&1 &
	retry 50 sh -c "ip netns exec fb ss -Hltn | grep -q ':5201'" || return 1
	# four paced flows for the whole run, their tuples for the fuzzer
	ip netns exec fa iperf3 -c $SRV -p 5201 -C hpcc -P 4 -b 5M \
		-t $((SECS * 8 + 30)) -J > "$TMP/iperf.json" 2>&1 &
	echo $! > "$TMP/iperf.pid"
	retry 50 sh -c "[ \$(ip netns exec fa '$CTL' -j flow show | \
		$PY -c 'import json,sys; print(len(json.load(sys.stdin)))') -ge 4 ]" || return 1
	ip netns exec fa "$CTL" -j flow show | $PY -c '
import json, sys
for f in json.load(sys.stdin):
    print(f["saddr"], f["daddr"], f["sport"], f["dport"])' > "$TMP/tuples"
	chmod 644 "$TMP/tuples"
	cat "$TMP/tuples"
}

# fuzz WHO FAMILY - one run; its counters in $TMP/WHO-FAMILY.out
fuzz() {
	local who=$1 fam=$2 pre=() rc
	case "$who" in
	admin) pre=(ip netns exec fa) ;;
	owner) pre=(unshare -Urn) ;;
	guest) pre=(ip netns exec fa unshare -Ur) ;;
	esac
	"${pre[@]}" $PY "$TMP/nlfuzz.py" "$TMP/$fam.yaml" "$SECS" \
		--tuples "$TMP/tuples" > "$TMP/$who-$fam.out" 2>&1 && rc=0 || rc=$?
	tr '\n' ' ' < "$TMP/$who-$fam.out" | fold -w 150
	echo
	[ "$rc" = 0 ] && [ "$(count "$who-$fam" executions)" -ge 200 ] &&
		errnos_valid "$who-$fam" && kernel_clean
}

# errnos_valid RUN - every error the kernel returned is an errno (1 to
# 4095), not an attribute's value passed back as a return code
errnos_valid() {
	local bad
	bad=$(sed -n 's/^errno-\([0-9][0-9]*\) .*/\1/p' "$TMP/$1.out" |
		awk '$1 > 4095' | head -3)
	[ -z "$bad" ] || { echo "$1: the kernel returned error codes $bad"; return 1; }
}

count() { # count RUN KEY - a counter of a finished run (0 if absent)
	awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$TMP/$1.out"
}

# none_accepted RUN OP... - the kernel accepted none of these operations
none_accepted() {
	local run=$1 op n
	shift
	for op in "$@"; do
		n=$(count "$run" "accepted-$op")
		[ "$n" = 0 ] || { echo "$run: $op accepted $n times"; return 1; }
	done
}

# the valid messages reach real flows: some telemetry was taken.  A run
# is SECS long; the kernel takes a fifth to a third of its valid
# telemetry-sets (the others combine attributes it refuses, such as rx-u
# beside hop records, or name no flow: 28 of about 90 in a run on 6.12,
# 12 of about 58 on 6.1), and on the debugging kernel a run sends about
# 18.  Up to three runs, each with a seed of its own and each checked
# whole.
admin_hpcc() {
	local i
	for i in 1 2 3; do
		fuzz admin hpcc || return 1
		[ "$(count admin-hpcc accepted-telemetry-set)" -gt 0 ] && return 0
		echo "run $i: no telemetry-set taken"
	done
	return 1
}

admin_int() { fuzz admin hpcc-int; }

owner_hpcc() {
	fuzz owner hpcc && none_accepted owner-hpcc params-set &&
	[ "$(count owner-hpcc errno-EPERM)" -gt 0 ]
}

owner_int() {
	# hpcc_int grows forwarded packets and sends FCR and CCM messages:
	# configuring it needs the initial user namespace
	fuzz owner hpcc-int &&
	none_accepted owner-hpcc-int dev-add dev-del dev-set config-set &&
	[ "$(count owner-hpcc-int errno-EPERM)" -gt 0 ]
}

guest_hpcc() {
	fuzz guest hpcc && none_accepted guest-hpcc telemetry-set params-set &&
	[ "$(count guest-hpcc errno-EPERM)" -gt 0 ]
}

guest_int() {
	fuzz guest hpcc-int && none_accepted guest-hpcc-int dev-add dev-del dev-set config-set
}

survivors() {
	alive fa && alive fb || return 1
	ip netns exec fa "$CTL" stats > /dev/null &&
	ip netns exec fa "$CTL" param show > /dev/null || return 1
	# iperf3 was started by setup's subshell: not a child to wait for
	retry 600 sh -c "! kill -0 $(cat "$TMP/iperf.pid") 2>/dev/null" || return 1
	$PY -c '
import json, sys
e = json.load(open(sys.argv[1]))["end"]
print("iperf3: %.1f Mbit/s" % (e["sum_received"]["bits_per_second"] / 1e6))
sys.exit(0 if e["sum_received"]["bytes"] > 0 else 1)' "$TMP/iperf.json" || {
		tail -5 "$TMP/iperf.json"; return 1; }
	local ns
	for ns in fa fb; do
		kill "$(cat "$TMP/$ns.pid")"
	done
	sleep 0.5
	retry 50 modprobe -r hpcc_int && retry 50 modprobe -r tcp_hpcc &&
		kernel_clean
}

ktap_print_header
ktap_set_plan 8
t "setup: hpccd in two namespaces, four hpcc flows" setup
t "hpcc, admin of the initial namespace: kernel answers, telemetry reached flows" admin_hpcc
t "hpcc-int, admin of the initial namespace" admin_int
t "hpcc, root of an owning user namespace: params-set refused" owner_hpcc
t "hpcc-int, root of an owning user namespace: every write refused" owner_int
t "hpcc, root of a non-owning user namespace: every write refused" guest_hpcc
t "hpcc-int, root of a non-owning user namespace: every write refused" guest_int
t "afterwards: both hpccd answer, the flows completed, the modules unload" survivors
ktap_finished
