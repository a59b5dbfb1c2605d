# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the shell selftests: KTAP output through the kernel's own
# ktap_helpers.sh, namespaces through the networking selftests' net/lib.sh
# (setup_ns, cleanup_ns; both from the kernel source package, extracted by
# `make linux-src`), and run_tap, which runs one test program and tallies
# its results.

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
LINUX_SRC=${LINUX_SRC:-$TOP/build/linux-src}
BIN=$TOP/build/selftests
# shellcheck source=/dev/null
. "$LINUX_SRC/tools/testing/selftests/kselftest/ktap_helpers.sh"
# shellcheck source=/dev/null
. "$LINUX_SRC/tools/testing/selftests/net/lib.sh"

# t DESC CMD [ARGS...] - run CMD as one test case; its output becomes
# KTAP diagnostic lines, and its wall time one more ("# N s"), which is
# how the slow cases of make check are found.  HPCC_CASES (a list of case
# numbers, "1 8" or "1,8"; selftests/guest/run's TEST:CASES sets it) runs
# only those and reports the others skipped: a script's first cases set up
# what the later ones use, so name them too.
T_NUM=0
t() {
	local desc=$1 out rc t0=$SECONDS
	shift
	T_NUM=$((T_NUM + 1))
	# shellcheck disable=SC2086
	if [ -n "${HPCC_CASES:-}" ] &&
		! printf '%s\n' ${HPCC_CASES//,/ } | grep -qx "$T_NUM"; then
		ktap_test_skip "$desc (not in HPCC_CASES)"
		return 0
	fi
	out=$("$@" 2>&1) && rc=0 || rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	echo "# $((SECONDS - t0)) s"
	if [ "$rc" = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_print_msg "exit status $rc"
		ktap_test_fail "$desc"
	fi
}

# TRACEFS, tracefs_mount - where the tests and benchmarks read the kernel's
# tracepoints and run its function tracers; tracefs_mount mounts tracefs
# there unless it is mounted (tools/vmrun-init does not mount it)
TRACEFS=/sys/kernel/tracing
tracefs_mount() { mountpoint -q $TRACEFS || mount -t tracefs nodev $TRACEFS; }
# tracefs_lost - the events the ring buffer lost on every CPU since it
# was last cleared (overwritten, commit overruns, dropped)
tracefs_lost() {
	awk '/^(commit )?overrun:|^dropped events:/ { n += $NF } END { print n + 0 }' \
		$TRACEFS/per_cpu/cpu*/stats
}

# shellcheck source=../tools/retry.sh
. "$TOP/tools/retry.sh"
# shellcheck source=topo.sh
. "$TOP/selftests/topo.sh"

# SLOW - how many times longer than on a stock kernel's guest a test's
# waits and flows must be: 10 on the debugging kernel (KASAN, lockdep and
# kmemleak in single-threaded TCG, `make check-debug`; its guest runs the
# same tests several times slower), 1 everywhere else.  retry's counts
# scale by it (RETRY_SCALE); a test scales its own flow durations and
# staleness budgets.  Bounds on what is measured never scale.
# HPCC_RETRY_SCALE overrides the retry scale alone (a diagnosis on the
# debugging kernel: at 2 a failing wait ends, and says why, in minutes).
# Exported as HPCC_SLOW for the Python helpers (probe.py's SLOW).
SLOW=1
case "$(uname -r)" in *hpccdebug*) SLOW=10 ;; esac
export HPCC_SLOW=$SLOW
RETRY_SCALE=${HPCC_RETRY_SCALE:-$SLOW}

# HPCC_TRACE=FILE - every command of the bash scripts that source this
# file, from there on, with its time, file, function and line, appended to
# FILE as it runs (bash's xtrace): a case's output shows only when it ends,
# so this is how a case that never ends is read.  In a guest, FILE goes
# under the project tree, the one writable path the host sees
# (testing.rst, "Debugging kernel").  Opened once per process tree (a
# script run by one that traces writes to the fd it inherits,
# HPCC_TRACE_FD); a FILE that cannot be opened is said and nothing is
# traced.
if [ -n "${HPCC_TRACE:-}" ] && [ -z "${HPCC_TRACE_FD:-}" ]; then
	if exec {HPCC_TRACE_FD}>>"$HPCC_TRACE"; then
		export HPCC_TRACE_FD
	else
		echo "# HPCC_TRACE: cannot open $HPCC_TRACE, not tracing" >&2
	fi
fi
if [ -n "${HPCC_TRACE_FD:-}" ] && [ -e "/proc/self/fd/$HPCC_TRACE_FD" ]; then
	BASH_XTRACEFD=$HPCC_TRACE_FD
	PS4='+ $EPOCHREALTIME ${BASH_SOURCE[0]##*/}:${FUNCNAME[0]:-main}:$LINENO '
	set -x
fi

# late_tries TRY... - run TRY, which plays messages that name a flow's
# newest segment, until it returns other than 2, three times at most.
# TRY returns 2 when the sender refused its genuine message for its
# sequence number (fcr-bad-seq, ccm-bad-seq): the message came after the
# segment's ACK, as when the host stops a guest's vCPU for longer than
# acks_wait's delay between the two, and it is played again.  Returns
# TRY's last status, 1 after the third 2.
late_tries() {
	# names no TRY or CHECK uses: bash's locals are dynamically scoped
	local _late_t _late_rc
	for _late_t in 1 2 3; do
		"$@"
		_late_rc=$?
		[ "$_late_rc" = 2 ] || return "$_late_rc"
		echo "came after its segment's ACK, try $_late_t"
	done
	return 1
}

# acks_wait NS DEV on|off|drop|held [MS] - NS's packets out of DEV wait
# MS ms (100 times SLOW unless given; netem), so that the segment a
# test's FCR or CCM message names is still in flight when the message
# comes: the sender takes only messages that name data in flight, and an
# ACK through an unloaded fabric can beat the message.  drop: from now
# on they are dropped (those already waiting still go), until held
# makes them wait again; both change the qdisc that on added.  With 20 ms, in a
# 6.12 guest beside another, ccm.sh's notes_ipv6 saw its first type 1
# come too late (ccm-bad-seq) and every count after it was off; with an
# unscaled 100 ms on the debugging kernel, so did its type 1 and its
# type 2 (ccm-bad-seq 3, want 1).
acks_wait() {
	local delay=${4:-$((100 * SLOW))}ms
	case "$3" in
	on) tc -n "$1" qdisc add dev "$2" root netem delay "$delay" ;;
	drop) tc -n "$1" qdisc change dev "$2" root netem delay "$delay" loss 100% ;;
	held) tc -n "$1" qdisc change dev "$2" root netem delay "$delay" ;;
	*) tc -n "$1" qdisc del dev "$2" root ;;
	esac
}

# acks_wait_conf - the line the sender's hpccd configuration needs for
# acks_wait's delay, which holds the probes' responses as long: at 1 s
# (the debugging kernel) the default timeout-max-us (1 s) timed every
# probe out (fcr.sh's forged case: one sample in 100 s, with the delay
# in a 6.12 guest; 5 and more with timeout-max-us at 10 s); nothing on
# other kernels
acks_wait_conf() {
	[ "$SLOW" = 1 ] || echo "timeout-max-us = $((1000000 * SLOW))"
}

# kernel_trees [--images] - "RELEASE DIR" for each kernel whose headers
# are here, each release once: the installed kernels' (/lib/modules/*/build),
# then those tools/kheaders finished under build/kheaders/ (with --images,
# only those whose image it unpacked too, the set the Makefile's KDIRS
# builds modules for)
kernel_trees() {
	local k r stamp=.stamp seen=" "
	[ "${1:-}" = --images ] && stamp=.image-stamp
	for k in /lib/modules/*/build "$TOP"/build/kheaders/*/usr/src/linux-headers-*-amd64; do
		[ -e "$k/include/generated/utsrelease.h" ] || continue
		case "$k" in "$TOP"/build/*) [ -e "${k%/usr/src/*}/$stamp" ] || continue ;; esac
		r=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$k/include/generated/utsrelease.h")
		[ -n "$r" ] && [ "${seen/ $r /}" = "$seen" ] || continue
		seen+="$r "
		echo "$r $(cd "$k" && pwd)"
	done
}

# brief LOG - the summary lines of a run_tap log, and each failed result
# with the last 12 diagnostic lines before it (the CI console shows why).
brief() {
	awk '
	/^# (<<<|>>>)/ { if ($2 == "<<<") print; n = 0; next }
	/^#/ { buf[n++ % 12] = $0; next }
	/^not ok/ {
		for (i = (n > 12 ? n - 12 : 0); i < n; i++) print "  " buf[i % 12]
		print; n = 0; next
	}
	/^ok/ { n = 0 }' "$1"
}

# ns_pair NS1 ADDR1 NS2 ADDR2 - network namespaces NS1 (created unless it
# exists) and NS2 (topo_ns) joined by veth, v0 in NS1 and v1 in NS2, with
# ADDR/24, the links and lo up.
ns_pair() {
	{ [ -e "/run/netns/$1" ] || topo_ns "$1"; } &&
	topo_ns "$3" && topo_link "$1" v0 "$3" v1 &&
	topo_addr "$1" v0 "$2/24" && topo_addr "$3" v1 "$4/24"
}

# stand_in_hop NS DEV - a fixed INT hop without hpcc_int.ko: a tc pedit
# action on DEV's egress in NS fills hop record 0 (IP offset 64) and sets
# nhop (offset 46) = 1 on every probe (DSCP 60, TOS 0xf0): switch 7, port
# 3, B = 100 Mbit/s, ts 1000000, txBytes 5000, qlen 1500.  ts and txBytes
# never advance, so the core skips the hop: telemetry flows, W stays put.
stand_in_hop() {
	tc -n "$1" qdisc add dev "$2" clsact &&
	tc -n "$1" filter add dev "$2" egress prio 1 protocol ip u32 \
		match ip dsfield 0xf0 0xfc match ip protocol 6 0xff \
		action pedit munge offset 46 u8 set 1 \
			munge offset 64 u32 set 7 munge offset 68 u32 set 3 \
			munge offset 72 u32 set 0 munge offset 76 u32 set 100000000 \
			munge offset 80 u32 set 0 munge offset 84 u32 set 1000000 \
			munge offset 88 u32 set 0 munge offset 92 u32 set 5000 \
			munge offset 96 u32 set 1500 pipe \
		action csum tcp
}

# key_file PATH LINE... - a key file of LINEs, mode 600 from its creation
# (hpccd and hpccctl refuse one that group or others can read)
key_file() {
	local f=$1 l
	shift
	: > "$f" && chmod 600 "$f" || return 1
	for l in "$@"; do
		echo "$l" >> "$f" || return 1
	done
}

# ns_gone NS... - kill every process in the network namespaces, wait
# 0.3 s for them to exit, then delete the namespaces with net/lib.sh's
# cleanup_ns (a test's cleanup; a missing namespace is no error).  The
# names are given, not taken from net/lib.sh's NS_LIST: t runs each case
# in a subshell, so the namespaces a case makes never reach the NS_LIST
# of the script's EXIT trap.
ns_gone() {
	local ns
	for ns in "$@"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	sleep 0.3
	cleanup_ns "$@" 2>/dev/null
	return 0
}

# --- hpccd and tcp_hpcc counters in a test's namespaces (daemon.sh,
# ipv6.sh, harden.sh); the caller's $TMP holds the files, and $TMP/run
# (mode 1777, made here if missing) the statistics

# start_hpccd NS [caps-only|no-admin] - hpccd in NS with the settings in
# $TMP/NS.conf (none unless a test writes some), pid in $TMP/NS.pid;
# caps-only: as nobody with CAP_NET_ADMIN and CAP_NET_RAW and nothing
# else; no-admin: as nobody with CAP_NET_RAW only (the module refuses its
# telemetry and its events subscription).  NS.log is appended to, so it
# waits for one more "connected:" line than the log held: an earlier
# instance's line would let a caller signal the new process before it has
# blocked SIGHUP, and SIGHUP's default action ends it.
start_hpccd() {
	local ns=$1 pre=() caps= c0
	case "${2:-}" in
	caps-only) caps=+net_admin,+net_raw ;;
	no-admin) caps=+net_raw ;;
	esac
	[ -n "$caps" ] && pre=(setpriv --reuid=65534 --regid=65534
		--clear-groups "--inh-caps=-all,$caps"
		"--ambient-caps=-all,$caps" "--bounding-set=-all,$caps")
	[ -d "$TMP/run" ] || mkdir -m 1777 "$TMP/run" || return 1
	# an hpccd as nobody reads its configuration there
	[ -z "$caps" ] || chmod o+x "$TMP" || return 1
	touch "$TMP/$ns.conf" "$TMP/$ns.log"
	chmod 644 "$TMP/$ns.conf"
	c0=$(grep -c "connected:" "$TMP/$ns.log")
	ip netns exec "$ns" "${pre[@]}" "$TOP/build/hpccd" -c "$TMP/$ns.conf" -v \
		-S "$TMP/run/$ns.stats" >> "$TMP/$ns.log" 2>&1 &
	echo $! > "$TMP/$ns.pid"
	retry 50 sh -c "[ \$(grep -c connected: '$TMP/$ns.log') -gt $c0 ]" || {
		cat "$TMP/$ns.log"; return 1; }
}

# pid_of NS - the pid of the hpccd in NS; fails (and prints nothing) when
# that process is no longer hpccd, so a signal never hits another process
pid_of() {
	local p
	p=$(cat "$TMP/$1.pid") && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hpccd ] &&
		echo "$p"
}

# dstat NS KEY - a counter of the hpccd in NS (SIGUSR1 writes its stats)
dstat() {
	local f=$TMP/run/$1.stats
	rm -f "$f"
	kill -USR1 "$(pid_of "$1")" 2>/dev/null || return 1
	retry 25 test -s "$f" || return 1
	sed -n "s/^$2=//p" "$f"
}

# dvars NS PREFIX - one statistics dump of NS's hpccd (dstat), every
# counter in it as a shell variable PREFIX_KEY, dashes made underscores
# (probes-sent: PREFIX_probes_sent): one dump and one awk for any number
# of counters, where dstat costs a dump and a sed for each
dvars() {
	dstat "$1" probes-sent > /dev/null || return 1
	eval "$(awk -F= -v p="$2" '$1 ~ /^[a-z0-9-]+$/ && $2 ~ /^[0-9]+$/ {
		gsub(/-/, "_", $1); print p "_" $1 "=" $2 }' "$TMP/run/$1.stats")"
}

# flow_json NS DST SPORT EXPR - evaluate the Python EXPR on the JSON flow
# f (hpccctl -j) in NS to DST from local port SPORT; exit 1 when it is
# false or there is no such flow.  age(f) is telemetry-age, microseconds,
# or a huge number before any telemetry.  The last records read stay in
# $TMP/flowj.last for a failure's diagnostics (the flow may be gone when
# it is printed).  python3 -S (no site module: only the standard library)
# starts in 0.29 s in a guest against 0.47 s, and these run in retry loops.
flow_json() {
	ip netns exec "$1" "$TOP/build/hpccctl" -j flow show dst "$2" sport "$3" |
	tee "$TMP/flowj.last" |
	python3 -S -c '
import json, sys
def age(f):
    return f.get("telemetry-age", 1 << 62)
fl = json.load(sys.stdin)
sys.exit(0 if [f for f in fl if '"$4"'] else 1)'
}

# int_stat NS DEV KEY... - hpcc_int's settings and counters of DEV in NS
# (hpccctl -j int show), one read for all of them, space-separated; -1
# for a key the device lacks, and each when DEV has no hop
int_stat() {
	local ns=$1 dev=$2
	shift 2
	ip netns exec "$ns" "$TOP/build/hpccctl" -j int show | python3 -S -c '
import json, sys
d = [x for x in json.load(sys.stdin)["dev"] if x["dev"] == sys.argv[1]]
print(*[d[0].get(k, -1) if d else -1 for k in sys.argv[2:]])' "$dev" "$@"
}

# mstat NS KEY - a tcp_hpcc counter of NS (hpccctl stats)
mstat() {
	ip netns exec "$1" "$TOP/build/hpccctl" stats | awk -v k="$2" '$1 == k { print $2 }'
}

# hpcc_socks - hpcc sockets of namespaces hs and hr not in TIME-WAIT, one
# per line (fcr.sh, ccm.sh: no hpcc socket may outlive a test's path, or
# it keeps tcp_hpcc in use for the scripts after it)
hpcc_socks() {
	local ns
	for ns in hs hr; do
		ip netns exec $ns ss -Htani exclude time-wait | grep -B1 hpcc
	done
}
no_hpcc_socks() { [ -z "$(hpcc_socks)" ]; }

# kernel_clean_since MARK - no WARNING, BUG, Oops, KASAN/UBSAN, lockdep or
# kmemleak report in the kernel log after the line MARK (which the test
# wrote to /dev/kmsg when it started); prints the first ones found
kernel_clean_since() {
	local bad
	bad=$(dmesg | sed -n "/$1/,\$p" |
		grep -E 'BUG|Oops|WARNING|general protection|KASAN|UBSAN|use-after-free|lockdep|possible .*deadlock|kmemleak|RIP:' | head -5)
	[ -z "$bad" ] || { echo "kernel log: $bad"; return 1; }
}

TALLY_PASS=0
TALLY_FAIL=0
TALLY_SKIP=0

# end_procs PID... - end processes a test started in the background
# (iperf3 clients, mostly) and reap them: SIGTERM, then SIGKILL to any
# still there 3 s later.  iperf3 longjmps out of its SIGTERM handler into
# code that calls malloc and stdio, so a SIGTERM that lands inside one of
# those can leave it deadlocked, asleep for good, and a plain kill + wait
# waits with it (the likeliest cause of a guest script that hangs).
end_procs() {
	local p st line end
	[ $# = 0 ] && return 0
	kill "$@" 2>/dev/null
	# 3 s of wall time, not a count of tries: in a loaded guest a try
	# takes longer than its sleep
	end=$(( ${EPOCHREALTIME/./} + 3000000 ))
	while :; do
		st=
		for p; do
			# the state field, after the command's closing
			# parenthesis; read, no fork.  A zombie is ended;
			# wait reaps it below
			line=
			read -r line 2>/dev/null < "/proc/$p/stat"
			st=${line##*) }
			st=${st%% *}
			[ -n "$line" ] && [ "$st" != Z ] && break
			st=
		done
		[ -z "$st" ] && break
		[ "${EPOCHREALTIME/./}" -ge "$end" ] && break
		sleep 0.1
	done
	[ -n "$st" ] && kill -KILL "$@" 2>/dev/null
	wait "$@" 2>/dev/null
	return 0
}

# guard SECS CMD... - CMD in a session of its own.  If it is still running
# after SECS: what every process is doing (state, kernel wait channel, and
# the kernel stack of each process of CMD's session) goes to the log, CMD
# gets SIGTERM (a script's EXIT trap removes its namespaces), and its
# session SIGKILL 20 s later; the status is then 124, like timeout(1).
# So one hung script fails alone and the guest goes on with the next.
guard() {
	local secs=$1 pid w rc flag
	shift
	flag=$(mktemp) || return 1
	# not a process group leader (no job control here): setsid(1) does
	# not fork, so $! is CMD's pid and its session's id
	setsid "$@" &
	pid=$!
	(
		# the sleep must not hold run_tap's pipe open once killed
		sleep "$secs" > /dev/null 2>&1 &
		s=$!
		trap 'kill $s 2>/dev/null; exit 0' TERM
		wait $s
		kill -0 "$pid" 2>/dev/null || exit 0
		echo "# watchdog: $* still running after $secs s; the processes:"
		ps -e -o pid,ppid,sid,stat,wchan:28,etimes,args | sed 's/^/# /'
		for p in $(pgrep -s "$pid"); do
			echo "# kernel stack of $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)):"
			sed 's/^/#   /' "/proc/$p/stack" 2>/dev/null
		done
		echo "# watchdog: SIGTERM to $pid, SIGKILL to its session in 20 s"
		trap - TERM
		echo timeout > "$flag"
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 20); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		kill -KILL -- "-$pid" 2>/dev/null
	) &
	w=$!
	wait "$pid"
	rc=$?
	if [ -s "$flag" ]; then
		# the rest of the session goes too: left behind, it would hold
		# run_tap's pipe open
		wait "$w"
		echo "# watchdog: ended after $secs s"
		rc=124
	else
		kill "$w" 2>/dev/null
		wait "$w" 2>/dev/null
	fi
	rm -f "$flag"
	return $rc
}

# run_tap NAME CMD [ARGS...] - run a test program that prints (K)TAP, echo
# its output, and add its results to the TALLY_* counters.  Results missing
# from its plan count as failures, and so does a non-zero exit status that
# no failed result explains.
run_tap() {
	local name=$1 log pass fail skip plan rc t0=$SECONDS
	shift
	log=$(mktemp)
	echo "# >>> $name"
	"$@" 2>&1 | tee "$log" && rc=0 || rc=${PIPESTATUS[0]}
	pass=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	skip=$(grep -cE '^ok [0-9]+.*# *SKIP' "$log" | head -1)
	fail=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	pass=$((pass - skip))
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | head -1)
	if [ -n "$plan" ] && [ $((pass + fail + skip)) -lt "$plan" ]; then
		echo "# $name: $((plan - pass - fail - skip)) planned results missing (exit status $rc)"
		fail=$((plan - pass - skip))
	fi
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		echo "# $name: exit status $rc with no failed result"
		fail=1
	fi
	if [ -z "$plan" ] && [ $((pass + fail + skip)) = 0 ]; then
		echo "# $name: printed no result"
		fail=1
	fi
	echo "# <<< $name: pass $pass fail $fail skip $skip ($((SECONDS - t0)) s)"
	TALLY_PASS=$((TALLY_PASS + pass))
	TALLY_FAIL=$((TALLY_FAIL + fail))
	TALLY_SKIP=$((TALLY_SKIP + skip))
	rm -f "$log"
}
