#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpccd on the host, where no module is loaded: options and configuration
# are checked, it waits for the module, and it handles SIGUSR1, SIGHUP and
# SIGTERM.  (The probe path runs in guests.)  Needs root for its raw
# sockets.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
D=$TOP/build/hpccd
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# term_wait PID TENTHS - SIGTERM to PID, up to TENTHS tenths of a second for
# it to end; returns its exit status (a child of this shell, reaped by
# wait: call it in this shell, not in a command substitution)
term_wait() {
	local i
	kill -TERM "$1"
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	wait "$1"
}

rejects() { # rejects WHAT ARGS... - exit status 2 and a message
	local out rc
	out=$("$D" "$@" 2>&1) && rc=0 || rc=$?
	echo "$*: exit $rc: $(echo "$out" | head -1)"
	[ "$rc" = 2 ] && [ -n "$out" ]
}

bad_config() {
	printf 'probe-budget = 0\n' > "$TMP/zero.conf"
	printf 'colour = blue\n' > "$TMP/unknown.conf"
	printf 'max-hops 3\n' > "$TMP/syntax.conf"
	printf 'timeout-min-us = 5000\ntimeout-max-us = 1000\n' > "$TMP/order.conf"
	rejects -c "$TMP/zero.conf" && rejects -c "$TMP/unknown.conf" &&
	rejects -c "$TMP/syntax.conf" && rejects -c "$TMP/order.conf" &&
	rejects -c "$TMP/missing.conf" && rejects -c /dev/null -H 9 &&
	rejects -c /dev/null -b x && rejects -c /dev/null extra &&
	rejects --bogus && rejects -c /dev/null --max-hops=0 &&
	rejects --config "$TMP/missing.conf"
}

# -h/--help and -V/--version print and exit 0 (getopt_long; the man page
# lists the same).
help_version() {
	local o v
	v=$(cat "$TOP/VERSION")
	for o in -h --help; do
		"$D" $o | grep -q '^usage: hpccd' || { echo "$o: no usage"; return 1; }
		"$D" $o | grep -q -- '--probe-budget' || { echo "$o: no long options"; return 1; }
	done
	for o in -V --version; do
		[ "$("$D" $o)" = "hpccd $v" ] || { echo "$o: '$("$D" $o)'"; return 1; }
	done
	for o in --config --probe-budget --max-hops --stats-file --syslog \
		 --verbose --help --version; do
		grep -q -- "${o//-/\\\\-}" "$TOP/daemon/hpccd/hpccd.8" ||
			{ echo "hpccd.8 lacks $o"; return 1; }
	done
}

# Long options set what their short forms set.
long_options() {
	local pid
	"$D" --config /dev/null --probe-budget=700 --max-hops 2 \
		--stats-file="$TMP/lstats" > "$TMP/long.log" 2>&1 &
	pid=$!
	retry 50 grep -q "hpccd running" "$TMP/long.log" || { cat "$TMP/long.log"; return 1; }
	kill -TERM $pid
	wait $pid
	grep "hpccd running" "$TMP/long.log"
	grep -q "budget 700 probes/s, 2 hops" "$TMP/long.log" && test -s "$TMP/lstats"
}

signals() {
	local pid i
	printf '# comment\nprobe-budget = 500   # per second\nmax-hops=3\n' \
		> "$TMP/ok.conf"
	"$D" -c "$TMP/ok.conf" -S "$TMP/stats" > "$TMP/log" 2>&1 &
	pid=$!
	retry 50 grep -q "module not loaded" "$TMP/log" || { cat "$TMP/log"; return 1; }
	grep -q "budget 500 probes/s, 3 hops" "$TMP/log" || { cat "$TMP/log"; return 1; }
	kill -USR1 $pid
	retry 50 test -s "$TMP/stats" || return 1
	grep -qx connected=0 "$TMP/stats" && grep -qx flows=0 "$TMP/stats" || return 1
	printf 'max-hops = 99\n' > "$TMP/ok.conf"
	kill -HUP $pid
	retry 50 grep -q "reload failed" "$TMP/log" || return 1
	kill -0 $pid || { echo "died on SIGHUP"; return 1; }
	term_wait $pid 20; i=$?
	sed 's/^/log: /' "$TMP/log"
	[ "$i" = 0 ] && grep -q "hpccd exiting" "$TMP/log"
}

# shards 4 without a module: four threads (each its sockets, its module
# link waiting for the family), under an unlimited stack limit (2 MB
# thread stacks), one statistics file with shards=4 and every shard's
# report, a reload in all of them (a new shards value waits for a
# restart; limits that leave a shard nothing are refused, at the start
# and at a reload), SIGTERM ends them all with exit 0.
shards_threads() {
	local pid i
	# a limit that leaves a shard nothing is refused
	printf 'shards = 4\nresponse-rate = 3\n' > "$TMP/sh.conf"
	rejects -c "$TMP/sh.conf" || return 1
	printf 'shards = 4\nprobe-budget = 4000\n' > "$TMP/sh.conf"
	# an unlimited stack limit gives threads 2 MB stacks: D is not there
	(ulimit -s unlimited; exec "$D" -c "$TMP/sh.conf" -S "$TMP/sh.stats") \
		> "$TMP/sh.log" 2>&1 &
	pid=$!
	retry 50 grep -q "4 shards" "$TMP/sh.log" || { cat "$TMP/sh.log"; return 1; }
	i=$(ls "/proc/$pid/task" | wc -l)
	echo "threads: $i"
	[ "$i" = 4 ] || return 1
	kill -USR1 $pid
	retry 50 test -s "$TMP/sh.stats" || return 1
	grep -qx shards=4 "$TMP/sh.stats" && grep -qx shards-late=0 "$TMP/sh.stats" &&
		grep -qx flows=0 "$TMP/sh.stats" || { cat "$TMP/sh.stats"; return 1; }
	printf 'shards = 4\nn-flows-max = 2\n' > "$TMP/sh.conf"
	kill -HUP $pid
	retry 50 grep -q "n-flows-max 2: below 4" "$TMP/sh.log" &&
		retry 50 grep -q "reload failed" "$TMP/sh.log" || return 1
	printf 'shards = 2\nprobe-budget = 6000\n' > "$TMP/sh.conf"
	kill -HUP $pid
	retry 50 grep -q "reloaded.*budget 6000" "$TMP/sh.log" || return 1
	grep -q "shards 2: read at the start only; 4 running" "$TMP/sh.log" || return 1
	rm -f "$TMP/sh.stats"
	kill -USR1 $pid
	retry 50 test -s "$TMP/sh.stats" || return 1
	grep -qx shards=4 "$TMP/sh.stats" || return 1
	term_wait $pid 30; i=$?
	sed 's/^/log: /' "$TMP/sh.log"
	[ "$i" = 0 ] && grep -q "hpccd exiting" "$TMP/sh.log" &&
		[ "$(grep -c "module not loaded" "$TMP/sh.log")" -ge 4 ]
}

# A SIGHUP while hpccd starts is a reload, not its death: its
# configuration is a FIFO, so it waits in the open until the test writes
# it; the SIGHUP comes meanwhile.  It stays pending (signals_block()
# first in main()), and once up hpccd reloads (the FIFO again), rather
# than dying of the signal (as a testbed's reload right after the start
# would make it).
early_sighup() {
	local pid rc
	mkfifo "$TMP/slow.conf" || return 1
	"$D" -c "$TMP/slow.conf" > "$TMP/early.log" 2>&1 &
	pid=$!
	# in its open of the FIFO (no writer yet)
	retry 50 grep -qE "fifo|partner|pipe" "/proc/$pid/wchan" ||
		{ echo "not waiting on the FIFO: $(cat "/proc/$pid/wchan" 2>&1)"; kill -KILL $pid; return 1; }
	kill -HUP $pid
	sleep 0.3
	kill -0 $pid 2>/dev/null || { wait $pid; echo "died: status $?"; return 1; }
	printf 'max-hops = 3\n' > "$TMP/slow.conf"
	retry 50 grep -q "module not loaded" "$TMP/early.log" ||
		{ cat "$TMP/early.log"; kill -KILL $pid; return 1; }
	# the pending SIGHUP's reload opens the FIFO again
	printf 'max-hops = 4\n' > "$TMP/slow.conf"
	retry 50 grep -q "reloaded" "$TMP/early.log" ||
		{ cat "$TMP/early.log"; kill -KILL $pid; return 1; }
	kill -TERM $pid
	wait $pid; rc=$?
	sed 's/^/log: /' "$TMP/early.log"
	[ "$rc" = 0 ]
}

# The shipped example (every setting commented out) gives the defaults.
example_config() {
	local pid
	"$D" -c "$TOP/daemon/hpccd/hpccd.conf" > "$TMP/ex.log" 2>&1 &
	pid=$!
	retry 50 grep -q "hpccd running" "$TMP/ex.log" || { cat "$TMP/ex.log"; return 1; }
	kill -TERM $pid
	wait $pid
	grep "hpccd running" "$TMP/ex.log"
	grep -q "budget 20000 probes/s, 5 hops" "$TMP/ex.log"
}

# stat_of FILE NAME - the counter NAME of a stats file
stat_of() {
	sed -n "s/^$2=//p" "$1"
}

# Without the module hpccd looks its family up again, 1 s after the
# start, then 2 s and 4 s later (at 3 s and 7 s), doubling up to
# reconcile-s: the notification of the module's load can be lost in an
# event overrun, and hpccd must not wait for it for good.  Each lookup is
# a round trip to nlctrl.  Over 7 s from the first snapshot (taken in the
# first 1.5 s) that is 2 or 3 lookups whatever the host's load (with none
# after the start, netlink-round-trips would stay as it was).
lookup_while_away() {
	local pid a b la lb
	"$D" -c /dev/null -S "$TMP/lstat" > "$TMP/lookup.log" 2>&1 &
	pid=$!
	retry 50 grep -q "module not loaded" "$TMP/lookup.log" ||
		{ cat "$TMP/lookup.log"; kill -TERM $pid; return 1; }
	kill -USR1 $pid
	retry 50 test -s "$TMP/lstat" || { kill -TERM $pid; return 1; }
	a=$(stat_of "$TMP/lstat" netlink-round-trips)
	la=$(stat_of "$TMP/lstat" family-lookups)
	rm -f "$TMP/lstat"
	sleep 7
	kill -USR1 $pid
	retry 50 test -s "$TMP/lstat" || { kill -TERM $pid; return 1; }
	b=$(stat_of "$TMP/lstat" netlink-round-trips)
	lb=$(stat_of "$TMP/lstat" family-lookups)
	kill -TERM $pid
	wait $pid
	echo "netlink-round-trips $a -> $b, family-lookups $la -> $lb in 7 s"
	grep -qx connected=0 "$TMP/lstat" &&
	[ "$((b - a))" -ge 2 ] && [ "$((b - a))" -le 3 ] &&
	[ "$((lb - la))" -ge 2 ] && [ "$((lb - la))" -le 3 ]
}

# Every address family the daemon's code opens is one the shipped unit's
# RestrictAddressFamilies= allows (socket(AF_...) in daemon/, and
# AF_NETLINK for libmnl's sockets).
unit_families() {
	local fams f allowed
	allowed=$(sed -n 's/^RestrictAddressFamilies=//p' "$TOP/daemon/hpccd/hpccd.service.in")
	fams=$(grep -ho 'socket(AF_[A-Z0-9]*' "$TOP"/daemon/hpccd/*.c \
		"$TOP"/daemon/lib/hpcc_genl.c | sed 's/socket(//' | sort -u)
	grep -q mnl_socket_open "$TOP"/daemon/hpccd/*.c "$TOP/daemon/lib/hpcc_genl.c" &&
		fams="$fams AF_NETLINK"
	echo "code:" $fams "; unit: $allowed"
	for f in $fams; do
		echo " $allowed " | grep -q " $f " || { echo "the unit lacks $f"; return 1; }
	done
}

# sandboxed UNIT LOG [lo] - hpccd under UNIT's sandbox (unit_sandbox:
# RestrictAddressFamilies= and SystemCallFilter= as seccomp, its user and
# capabilities, ...) in a new network namespace, with its loopback up
# (::1 and 127.0.0.1) when "lo" is given; once it runs, a SIGUSR1 and a
# SIGHUP; prints its exit status once it has run for a second or ended
sandboxed() {
	local unit=$1 log=$2 lo=${3:-} conf=${4:-/dev/null} pid i
	chmod 755 "$TMP" && mkdir -p "$TMP/sb" && chmod 777 "$TMP/sb" &&
		: > "$log" || return 1
	unshare -n sh -c '[ -z "$1" ] || ip link set lo up; shift; exec "$@"' sh "$lo" \
		"$BIN/unit_sandbox" "$unit" "$D" -c "$conf" -S "$TMP/sb/stats" \
		> "$log" 2>&1 &
	pid=$!
	# up to 10 s: a loaded CI machine may start it slowly
	for ((i = 0; i < 100; i++)); do
		grep -q "hpccd running" "$log" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	# statistics and a reload under the system call filter too
	if grep -q "hpccd running" "$log"; then
		kill -USR1 $pid && retry 25 test -s "$TMP/sb/stats" &&
			echo "statistics written"
		kill -HUP $pid && retry 25 grep -q reloaded "$log"
	fi
	kill -TERM $pid 2>/dev/null
	wait $pid
	echo "exit $?"
	grep -v "not applied" "$log"
}

# The shipped unit: IPv4 and IPv6 sockets (a unit without AF_INET6 makes
# hpccd run IPv4 only, saying "no IPv6").
unit_ipv6() {
	local out
	out=$(sandboxed "$TOP/daemon/hpccd/hpccd.service.in" "$TMP/unit.log" lo)
	echo "$out"
	echo "$out" | grep -q "hpccd running: .*, IPv4 and IPv6" &&
		echo "$out" | grep -qx "statistics written" &&
		echo "$out" | grep -q "^reloaded" &&
		echo "$out" | grep -qx "exit 0" || return 1
	# shards: the threads under the same system call filter
	printf 'shards = 2\n' > "$TMP/sb/shards.conf"
	chmod 644 "$TMP/sb/shards.conf"
	out=$(sandboxed "$TOP/daemon/hpccd/hpccd.service.in" "$TMP/unit2.log" lo \
		"$TMP/sb/shards.conf")
	echo "$out"
	echo "$out" | grep -q "hpccd running: .*, 2 shards" &&
		echo "$out" | grep -qx "statistics written" &&
		grep -qx shards=2 "$TMP/sb/stats" &&
		echo "$out" | grep -qx "exit 0"
}

# A unit that refuses AF_INET6 on a host with IPv6 addresses: hpccd does
# not start (exit 1, the reason logged); without IPv6 addresses (a new
# namespace's loopback down) it runs IPv4 only.
unit_no_ipv6() {
	local out
	sed 's/ AF_INET6//' "$TOP/daemon/hpccd/hpccd.service.in" > "$TMP/no6.service"
	out=$(sandboxed "$TMP/no6.service" "$TMP/no6.log" lo)
	echo "$out"
	echo "$out" | grep -qx "exit 1" &&
		echo "$out" | grep -q "a sandbox forbids AF_INET6" || return 1
	out=$(sandboxed "$TMP/no6.service" "$TMP/no6b.log")
	echo "$out"
	echo "$out" | grep -q "hpccd running: .*, IPv4 only" &&
		echo "$out" | grep -qx "exit 0"
}

# The statistics file goes through a fresh temporary file: a symbolic
# link planted at a fixed name such as FILE.tmp is not followed (its
# target would be overwritten), and no temporary file is left.
stats_no_symlink() {
	local pid d=$TMP/st
	mkdir -p "$d" && echo "not hpccd's" > "$TMP/victim" &&
	ln -s "$TMP/victim" "$d/stats.tmp" || return 1
	"$D" -c /dev/null -S "$d/stats" > "$TMP/st.log" 2>&1 &
	pid=$!
	retry 50 grep -q "hpccd running" "$TMP/st.log" || { cat "$TMP/st.log"; return 1; }
	kill -USR1 $pid
	retry 50 test -s "$d/stats"
	kill -TERM $pid
	wait $pid
	ls -l "$d" | sed 's/^/dir: /'
	echo "victim: $(cat "$TMP/victim")"
	[ "$(cat "$TMP/victim")" = "not hpccd's" ] && [ -f "$d/stats" ] &&
	[ ! -L "$d/stats" ] && grep -qx connected=0 "$d/stats" &&
	[ "$(ls "$d" | wc -l)" = 2 ]
}

# The MAC keys (auth-key-file) are in no memory a core dump would hold:
# the key bytes and their hex text appear only in mappings marked
# MADV_DONTDUMP ("dd" in smaps); and the unit sets LimitCORE=0.  Where
# they would otherwise stay: main()'s copy of the settings, the key ring
# in hpccd's data and a line buffer.
keys_not_dumpable() {
	local pid k1 k2 rc=0
	k1=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	k2=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	printf 'key = 7 %s 10.0.0.0/8\nnotify-key = 9 %s 10.0.0.0/8\n' "$k1" "$k2" > "$TMP/keys"
	chmod 600 "$TMP/keys"
	printf 'auth-key-file = %s\n' "$TMP/keys" > "$TMP/keys.conf"
	"$D" -c "$TMP/keys.conf" > "$TMP/keys.log" 2>&1 &
	pid=$!
	retry 50 grep -q "hpccd running" "$TMP/keys.log" || { cat "$TMP/keys.log"; kill $pid; return 1; }
	echo "after the start:"
	key_scan $pid "$k1" "$k2" || rc=1
	# a reload reads the key file again
	kill -HUP $pid
	retry 50 grep -q "reloaded" "$TMP/keys.log" || rc=1
	echo "after a reload:"
	key_scan $pid "$k1" "$k2" || rc=1
	kill -TERM $pid
	wait $pid
	grep -qx 'LimitCORE=0' "$TOP/daemon/hpccd/hpccd.service.in" || { echo "unit: no LimitCORE=0"; return 1; }
	return $rc
}

# key_scan PID HEX... - the keys HEX (raw and as text) are in no readable
# mapping of PID but those marked "dd" (MADV_DONTDUMP); there is one
key_scan() {
	python3 - "$@" <<'PY'
import re, sys
pid, keys = sys.argv[1], sys.argv[2:]
needles = []
for k in keys:
    needles += [("key %s" % k[:8], bytes.fromhex(k)), ("hex %s" % k[:8], k.encode())]
maps, flags, cur = [], {}, None
for line in open("/proc/%s/smaps" % pid):
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+)", line)
    if m:
        cur = (int(m.group(1), 16), int(m.group(2), 16), m.group(3),
               line.split()[-1] if len(line.split()) > 5 else "")
        maps.append(cur)
    elif line.startswith("VmFlags:"):
        flags[cur] = line.split()[1:]
found, dd = [], 0
with open("/proc/%s/mem" % pid, "rb", 0) as mem:
    for m in maps:
        lo, hi, perm, name = m
        if "dd" in flags.get(m, []):
            dd += 1
            continue
        if perm[0] != "r":
            continue
        try:
            mem.seek(lo)
            data = mem.read(hi - lo)
        except OSError:
            continue
        for what, n in needles:
            if n in data:
                found.append("%s in %x-%x %s %s" % (what, lo, hi, perm, name))
print("  mappings marked dd: %d; key bytes elsewhere: %s" % (dd, found or "none"))
sys.exit(1 if found or not dd else 0)
PY
}

# SIGHUP gives what a restart would: the command line (-b 700) wins over
# the file at each reload, and the settings and key file the file no
# longer names are gone (defaults, no key; the removed key retired for
# its overlap).  The reload's log line states them.
reload_is_restart() {
	local pid
	key_file_for_reload || return 1
	printf 'probe-budget = 500\nresponse-rate = 50\nauth-key-file = %s\n' \
		"$TMP/rk.keys" > "$TMP/rk.conf"
	"$D" -c "$TMP/rk.conf" -b 700 > "$TMP/rk.log" 2>&1 &
	pid=$!
	retry 50 grep -q "hpccd running: budget 700 probes/s" "$TMP/rk.log" ||
		{ cat "$TMP/rk.log"; kill $pid; return 1; }
	kill -HUP $pid
	retry 50 grep -q "reloaded" "$TMP/rk.log" || { cat "$TMP/rk.log"; kill $pid; return 1; }
	printf 'max-hops = 3\n' > "$TMP/rk.conf"
	kill -HUP $pid
	retry 50 test "$(grep -c reloaded "$TMP/rk.log")" = 2
	kill -TERM $pid
	wait $pid
	grep -E "running|reloaded" "$TMP/rk.log"
	grep -q "reloaded .*: budget 700 probes/s, 5 hops per probe, response-rate 50, 1 keys, 0 retired" "$TMP/rk.log" &&
	grep -q "reloaded .*: budget 700 probes/s, 3 hops per probe, response-rate 20000, 0 keys, 1 retired" "$TMP/rk.log"
}

key_file_for_reload() {
	printf 'key = 1 %s 10.0.0.0/8\n' "$(printf '01%.0s' $(seq 32))" > "$TMP/rk.keys" &&
	chmod 600 "$TMP/rk.keys"
}

ktap_print_header
ktap_set_plan 15
t "hpccd -h prints usage" sh -c "'$D' -h | grep -q usage"
t "hpccd --help/-V/--version; hpccd.8 lists every long option" help_version
t "bad options and configuration files are refused with exit 2" bad_config
if [ "$(id -u)" = 0 ]; then
	t "no module: waits; SIGUSR1 stats, SIGHUP reload (bad file kept out), SIGTERM exit 0" signals
	t "daemon/hpccd/hpccd.conf, the shipped example, gives the defaults" example_config
	t "a SIGHUP while hpccd starts is kept for a reload, not its death" early_sighup
	t "shards 4: four threads, one statistics file, reload and exit reach all" shards_threads
	t "long options --config, --probe-budget=N, --max-hops N, --stats-file take effect" long_options
	t "no module: the family is looked up again, 1 s, 3 s, 7 s after the start" lookup_while_away
	t "under daemon/hpccd/hpccd.service.in's sandbox hpccd opens IPv4 and IPv6 sockets, with shards too" unit_ipv6
	t "IPv6 refused by the sandbox on a host with IPv6: hpccd does not start" unit_no_ipv6
	t "the statistics file is written through a fresh file, not a planted symlink" stats_no_symlink
	t "the MAC keys are in no dumpable memory; the unit sets LimitCORE=0" keys_not_dumpable
	t "SIGHUP gives a restart's settings: command line over the file, removed lines and keys gone" reload_is_restart
else
	ktap_test_skip "signals: hpccd needs root for its raw sockets"
	ktap_test_skip "example config: hpccd needs root for its raw sockets"
	ktap_test_skip "long options: hpccd needs root for its raw sockets"
	ktap_test_skip "early SIGHUP: hpccd needs root for its raw sockets"
	ktap_test_skip "shards: hpccd needs root for its raw sockets"
	ktap_test_skip "lookups while away: hpccd needs root for its raw sockets"
	ktap_test_skip "unit sandbox IPv6: needs root (namespaces, raw sockets)"
	ktap_test_skip "unit sandbox without IPv6: needs root (namespaces, raw sockets)"
	ktap_test_skip "stats file symlink: hpccd needs root for its raw sockets"
	ktap_test_skip "keys not dumpable: hpccd needs root for its raw sockets"
	ktap_test_skip "reload is restart: hpccd needs root for its raw sockets"
fi
t "every address family hpccd opens is in the unit's RestrictAddressFamilies=" unit_families
ktap_finished
