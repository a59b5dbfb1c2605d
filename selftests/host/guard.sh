#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guard and end_procs (selftests/lib.sh).  guard is the watchdog on each guest script: a script
# that ends keeps its status; one that hangs is reported (its processes,
# their kernel stacks), ended with its EXIT trap run, its session killed so
# that nothing holds the output pipe, and given status 124.  Without it, a
# hung script takes the guest's whole 3600 s and the log shows nothing of
# what hung.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
TMP=$(mktemp -d)
trap 'pkill -f "sleep 31[3-7]"; rm -rf "$TMP"' EXIT

ends_with_status() {
	local out rc t0=$SECONDS
	out=$(guard 10 sh -c 'echo hello; exit 3' | cat; exit "${PIPESTATUS[0]}")
	rc=$?
	echo "status $rc in $((SECONDS - t0)) s: $out"
	[ $rc = 3 ] && [ "$out" = hello ] && [ $((SECONDS - t0)) -lt 5 ]
}

# a hung script whose background child holds the pipe: through a pipe, as
# run_tap reads it, the pipe must close soon after the cap
hung() {
	local out rc t0=$SECONDS
	cat > "$TMP/hang.sh" <<-EOF
	trap 'echo cleaned > "$TMP/cleaned"' EXIT
	sleep 313 &
	sleep 314
	EOF
	out=$(guard 2 bash "$TMP/hang.sh" | cat; exit "${PIPESTATUS[0]}")
	rc=$?
	echo "$out" | grep -E "watchdog|kernel stack of|sleep 31" | head -8
	echo "status $rc in $((SECONDS - t0)) s"
	[ $rc = 124 ] && [ $((SECONDS - t0)) -lt 12 ] &&
		echo "$out" | grep -q "watchdog: bash $TMP/hang.sh still running after 2 s" &&
		echo "$out" | grep -q "kernel stack of" &&
		echo "$out" | grep -q "watchdog: ended after 2 s" &&
		[ -s "$TMP/cleaned" ] && ! pgrep -f "sleep 31[34]" > /dev/null
}

# a script that ignores SIGTERM is killed with its session 20 s later
deaf() {
	local rc t0=$SECONDS
	cat > "$TMP/deaf.sh" <<-EOF
	trap '' TERM
	sleep 315
	EOF
	guard 1 bash "$TMP/deaf.sh" | cat > /dev/null
	rc=${PIPESTATUS[0]}
	echo "status $rc in $((SECONDS - t0)) s"
	[ $rc = 124 ] && [ $((SECONDS - t0)) -ge 20 ] &&
		[ $((SECONDS - t0)) -lt 30 ] && ! pgrep -f "sleep 315" > /dev/null
}

# end_procs: one that ends at SIGTERM and one that ignores it (as an
# iperf3 deadlocked in its handler does), both reaped; the second within
# about 3 s
end_both() {
	local a b t0=$SECONDS
	sleep 316 &
	a=$!
	bash -c "trap '' TERM; sleep 317" &
	b=$!
	sleep 0.3
	end_procs $a $b
	echo "ended in $((SECONDS - t0)) s"
	! kill -0 $a 2>/dev/null && ! kill -0 $b 2>/dev/null &&
		! pgrep -f "sleep 31[67]" > /dev/null && [ $((SECONDS - t0)) -le 6 ]
}

ktap_print_header
ktap_set_plan 4
t "a script that ends keeps its status and output" ends_with_status
t "a hung script: reported, its EXIT trap run, its session killed, status 124" hung
t "a script deaf to SIGTERM: its session killed 20 s later" deaf
t "end_procs: SIGTERM, then SIGKILL 3 s later, and both reaped" end_both
ktap_finished
