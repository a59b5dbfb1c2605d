#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scale (a benchmark, run in a guest by `make bench-scale`): SCALE_FLOWS
# (100,000) concurrent TCP connections between two namespaces joined by
# veth, hpccd in each, the tc pedit stand-in hop record of
# selftests/guest/daemon.sh on the sender (so responses carry telemetry),
# and build/connhold holding the connections.  In one boot:
#
#   cubic    N cubic connections: the kernel memory charged for them
#            (slab + percpu + sock of the client's fresh memory cgroup)
#   small    SCALE_ACTIVE (100) hpcc connections, all active (1000 B every
#            10 ms each): the sender's hpccd CPU over SCALE_WINDOW_S (20)
#   large    N hpcc connections, the first SCALE_ACTIVE of them active:
#            the kernel's memory (the difference from cubic per flow, and
#            the hpcc_ent slab), hpccd's flows, and its CPU over the same
#            window; hpccd's CPU may grow with the flows it probes, not with
#            the flows it knows: large <= 2 x small + 2 % of a core
#   (SCALE_PHASES names a subset; the module's max-flows is set to N
#   first, as its default, 65536, is below 100,000)
#   limits   N hpcc connections with the module's max-flows at N/2 and
#            hpccd's max-flows at N/4: every connection still comes up; the
#            module holds N/2 flows and counts N/2 table-full; hpccd holds
#            N/4 and counts the rest flows-over-limit
#
# Neither namespace keeps TIME_WAIT sockets (tcp_max_tw_buckets 0), so a
# phase starts from the memory the previous one left.  Results: one "key value"
# line each in $SCALE_OUT (default build/bench/scale-DATE/results.txt),
# and "PASS name" or "FAIL name" lines for the bounds; the exit status is
# 1 if any bound failed.
set -u
exec 2>&1
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
D=$TOP/build/hpccd
CTL=$TOP/build/hpccctl
HOLD=$TOP/build/connhold
N=${SCALE_FLOWS:-100000}
ACTIVE=${SCALE_ACTIVE:-100}
WIN=${SCALE_WINDOW_S:-20}
OUT=${SCALE_OUT:-$TOP/build/bench/scale-$(date +%Y%m%d-%H%M%S)/results.txt}
CLI=198.18.0.1
SRV=198.18.0.2
TMP=$(mktemp -d)
HZ=$(getconf CLK_TCK)
FAILED=0
mkdir -p "$(dirname "$OUT")"
: > "$OUT"

trap 'ns_gone sc ss; rmdir "$CG"/scale-* 2>/dev/null; rm -rf "$TMP"' EXIT

rec() { echo "$1 $2" | tee -a "$OUT"; }
# phase NAME - NAME is one of SCALE_PHASES (default: all four)
phase() { [[ " ${SCALE_PHASES:-cubic small large limits} " == *" $1 "* ]]; }
bound() { # bound NAME CMD... - a PASS or FAIL line
	if "${@:2}"; then echo "PASS $1" | tee -a "$OUT"
	else echo "FAIL $1" | tee -a "$OUT"; FAILED=1; fi
}
CG=/sys/fs/cgroup
# running PID - the process exists and is not a zombie (a client started
# in a command substitution's subshell is nobody's child to reap once that
# subshell has gone)
running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ]
}
# kmem PHASE - kernel memory (slab + percpu + sock, memory.stat) charged
# to the phase's memory cgroup, where its client runs
kmem() {
	awk '$1 == "slab" || $1 == "percpu" || $1 == "sock" { n += $2 } END { print n + 0 }' \
		"$CG/scale-$1/memory.stat"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
mstat() { ip netns exec sc "$CTL" stats | awk -v k="$1" '$1 == k { print $2 }'; }
dstat() { # dstat KEY - a counter of the sender's hpccd
	rm -f "$TMP/sc.stats"
	kill -USR1 "$(cat "$TMP/sc.pid")"
	retry 100 test -s "$TMP/sc.stats" || return 1
	sed -n "s/^$1=//p" "$TMP/sc.stats"
}

start_hpccd() { # start_hpccd NS [CONFIG-LINE]
	echo "${2:-}" > "$TMP/$1.conf"
	ip netns exec "$1" "$D" -c "$TMP/$1.conf" -S "$TMP/$1.stats" \
		> "$TMP/$1.log" 2>&1 &
	echo $! > "$TMP/$1.pid"
	retry 100 grep -q connected: "$TMP/$1.log"
}

stop_hpccd() { # (a child of this shell: wait reaps it)
	kill "$(cat "$TMP/$1.pid")" 2>/dev/null
	wait "$(cat "$TMP/$1.pid")" 2>/dev/null
	! kill -0 "$(cat "$TMP/$1.pid")" 2>/dev/null
}

# hold PHASE CC COUNT ACTIVE PORT... - connhold client in the background,
# in a fresh memory cgroup scale-PHASE, until all COUNT connections are up;
# prints the seconds it took.  (The cgroup is joined outside `ip netns
# exec`, which remounts /sys.)
hold() {
	local phase=$1 cc=$2 n=$3 act=$4 ports=() p
	shift 4
	for p in "$@"; do ports+=(-P "$p"); done
	mkdir -p "$CG/scale-$phase" || return 1
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/scale-$phase" \
		ip netns exec sc "$HOLD" client $SRV "$n" -c "$cc" -a "$act" "${ports[@]}" \
		> "$TMP/client.out" 2>&1 &
	echo $! > "$TMP/client.pid"
	# (up to an hour; a client that died ends the wait)
	local i
	for ((i = 0; i < 18000; i++)); do
		grep -q '^ready' "$TMP/client.out" && break
		running "$(cat "$TMP/client.pid")" || break
		sleep 0.2
	done
	grep -q '^ready' "$TMP/client.out" || { cat "$TMP/client.out"; return 1; }
	awk '/^ready/ { if ($4 != 0) exit 1; print $5 }' "$TMP/client.out" || {
		cat "$TMP/client.out"; return 1; }
}

release() { # close the held connections and wait until both ends forgot them
	kill "$(cat "$TMP/client.pid")"
	local i
	for ((i = 0; i < 3000; i++)); do
		running "$(cat "$TMP/client.pid")" || break
		sleep 0.2
	done
	retry 3000 sh -c "[ \$(ip netns exec ss ss -Htn state established | wc -l) -lt 10 ]"
	retry 3000 sh -c "[ \$(ip netns exec sc ss -Htn | wc -l) -lt 10 ]"
	sleep 2
}

# hpccd_cpu - percent of one core the sender's hpccd used over WIN seconds
hpccd_cpu() {
	local pid c0 c1 p0 p1
	pid=$(cat "$TMP/sc.pid")
	p0=$(dstat probes-sent); c0=$(cpu_ticks "$pid")
	sleep "$WIN"
	c1=$(cpu_ticks "$pid"); p1=$(dstat probes-sent)
	echo "$(awk -v c=$((c1 - c0)) -v hz="$HZ" -v s="$WIN" \
		'BEGIN { printf "%.2f", 100 * c / hz / s }') $(((p1 - p0) / WIN))"
}

echo "scale: $N connections, $ACTIVE active, ${WIN} s windows, kernel $(uname -r), $(nproc) CPUs"
rec kernel "$(uname -r)"
rec flows "$N"
rec active "$ACTIVE"
echo "scale: start" > /dev/kmsg
modprobe tcp_hpcc || { echo "FAIL modprobe tcp_hpcc"; exit 1; }
sysctl -qw net.core.somaxconn=65535
grep -qw memory "$CG/cgroup.subtree_control" || echo +memory > "$CG/cgroup.subtree_control"
ns_pair sc $CLI ss $SRV || { echo "FAIL topology"; exit 1; }
for ns in sc ss; do
	ip netns exec $ns sysctl -qw net.ipv4.tcp_max_syn_backlog=65535 \
		net.ipv4.tcp_max_tw_buckets=0 net.ipv4.ip_local_port_range="1024 65535"
done
ip netns exec ss sysctl -qw net.ipv4.tcp_congestion_control=cubic
stand_in_hop sc v0 || exit 1
# Four server ports per phase, no 4-tuple reused across phases: connect()
# prefers even source ports (32,256 here) and scans them all before an odd
# one once they are taken for a destination port, so at most 25,000
# connections go to each port.
ip netns exec ss "$HOLD" server $(seq 5001 5013) > "$TMP/server.out" 2>&1 &
retry 100 grep -q listening "$TMP/server.out" || { cat "$TMP/server.out"; exit 1; }
start_hpccd ss && start_hpccd sc || { echo "FAIL hpccd start"; exit 1; }
sleep 2

# the module holds up to N flows (its default max-flows is 65536)
ip netns exec sc "$CTL" param set max-flows "$N" || { echo "FAIL param set"; exit 1; }

# cubic: the kernel's memory for N connections without HPCC state
if phase cubic; then
	t=$(hold cubic cubic "$N" 0 5001 5002 5003 5004) || { echo "FAIL cubic connections"; exit 1; }
	sleep 2
	rec cubic-connect-s "$t"
	rec cubic-kmem-per-conn-bytes $(($(kmem cubic) / N))
	release
fi

# small: hpccd's CPU with ACTIVE flows, all active
t=$(hold small hpcc "$ACTIVE" "$ACTIVE" 5005) || { echo "FAIL small connections"; exit 1; }
retry 300 sh -c "[ \"\$(ip netns exec sc '$CTL' stats | awk '\$1 == \"flows\" { print \$2 }')\" = $ACTIVE ]"
sleep 3
read -r small_cpu small_pps <<< "$(hpccd_cpu)"
rec small-hpccd-cpu-pct "$small_cpu"
rec small-probes-per-s "$small_pps"
release

# large: N hpcc flows, ACTIVE of them active
s0=$(mstat flows-created)
t=$(hold large hpcc "$N" "$ACTIVE" 5006 5007 5008 5009) || { echo "FAIL large connections"; exit 1; }
rec hpcc-connect-s "$t"
retry 3000 sh -c "[ \"\$(ip netns exec sc '$CTL' stats | awk '\$1 == \"flows\" { print \$2 }')\" = $N ]"
bound "module holds every flow" [ "$(mstat flows)" = "$N" ]
sleep 2
per_hpcc=$(($(kmem large) / N))
rec hpcc-kmem-per-conn-bytes "$per_hpcc"
phase cubic &&
	rec hpcc-minus-cubic-per-flow-bytes $((per_hpcc - $(awk '$1 == "cubic-kmem-per-conn-bytes" { print $2 }' "$OUT")))
if [ -r /sys/kernel/slab/hpcc_ent/object_size ]; then
	rec hpcc_ent-object-size "$(cat /sys/kernel/slab/hpcc_ent/object_size)"
	rec hpcc_ent-slab-size "$(cat /sys/kernel/slab/hpcc_ent/slab_size)"
	rec hpcc_ent-objects "$(cut -d' ' -f1 /sys/kernel/slab/hpcc_ent/objects 2>/dev/null)"
fi
# hpccd learns every flow (flow-new events, and a dump after each lost
# event burst and every reconcile-s): 30 minutes at most, progress each
# minute (a run that does not converge shows how far it got and why)
t0=$SECONDS
shown=$SECONDS
while f=$(dstat flows) && [ "${f:-0}" -lt "$N" ] &&
      [ $((SECONDS - t0)) -lt 1800 ]; do
	if [ $((SECONDS - shown)) -ge 60 ]; then
		echo "  after $((SECONDS - t0)) s: hpccd flows $f, resyncs $(dstat resyncs), reconciles $(dstat reconciles), events $(dstat events), hpccd CPU $(ps -o times= -p "$(cat "$TMP/sc.pid")") s"
		shown=$SECONDS
	fi
	sleep 5	# each look makes hpccd write a line per flow
done
rec hpccd-flows "$(dstat flows)"
rec hpccd-converge-s $((SECONDS - t0))
rec hpccd-resyncs "$(dstat resyncs)"
rec hpccd-rss-kb "$(awk '/^VmRSS/ { print $2 }' "/proc/$(cat "$TMP/sc.pid")/status")"
bound "hpccd knows every flow" [ "$(dstat flows)" -ge "$N" ]
read -r large_cpu large_pps <<< "$(hpccd_cpu)"
rec large-hpccd-cpu-pct "$large_cpu"
rec large-probes-per-s "$large_pps"
rec module-flows-created $(($(mstat flows-created) - s0))
bound "hpccd CPU with $N known <= 2 x with $ACTIVE known + 2 %" \
	awk -v l="$large_cpu" -v s="$small_cpu" 'BEGIN { exit !(l <= 2 * s + 2) }'
release
bound "flows released" [ "$(mstat flows)" = 0 ]

if phase limits; then
	# limits: module max-flows N/2, hpccd max-flows N/4
	stop_hpccd sc || { echo "FAIL hpccd did not stop"; exit 1; }
	start_hpccd sc "max-flows = $((N / 4))" || { echo "FAIL hpccd restart"; cat "$TMP/sc.log"; exit 1; }
	ip netns exec sc "$CTL" param set max-flows $((N / 2)) || { echo "FAIL param set"; exit 1; }
	f0=$(mstat table-full)
	t=$(hold limits hpcc "$N" 0 5010 5011 5012 5013) || { echo "FAIL limits connections"; exit 1; }
	rec limits-connect-s "$t"
	sleep 5
	rec limits-module-flows "$(mstat flows)"
	rec limits-table-full $(($(mstat table-full) - f0))
	limits_module() {
		[ "$(mstat flows)" = $((N / 2)) ] && [ $(($(mstat table-full) - f0)) = $((N / 2)) ]
	}
	bound "module max-flows: N/2 flows, N/2 table-full" limits_module
	retry 600 sh -c "[ \"\$(kill -USR1 $(cat "$TMP/sc.pid"); sleep 0.3; sed -n 's/^flows-over-limit=//p' '$TMP/sc.stats')\" -gt 0 ]"
	rec limits-hpccd-flows "$(dstat flows)"
	rec limits-hpccd-over-limit "$(dstat flows-over-limit)"
	limits_hpccd() {
		[ "$(dstat flows)" -le $((N / 4)) ] && [ "$(dstat flows-over-limit)" -gt 0 ]
	}
	bound "hpccd max-flows: at most N/4 flows, the rest counted" limits_hpccd
	release

fi

bound "kernel log clean" kernel_clean_since 'scale: start'
echo "results in $OUT"
exit $FAILED
