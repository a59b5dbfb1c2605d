#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bounded libFuzzer runs (clang, ASan + UBSan) over the trace parser and
# the core, over the probe/response parser (daemon/lib/hpcc_wire.c), over
# hpccd's configuration parser (daemon/hpccd/config.c) and over the decoder
# layer (daemon/lib/hpcc_decode.c: INT-MD v2.1 stacks, IOAM trace options),
# over the FCR message decoder and hold set (kernel/lib/hpcc_fcr.c) and over
# the CCM notification decoder and coordination rule (kernel/lib/hpcc_ccm.c).
# HPCC_FUZZ_SECONDS
# (default 30) per target; the targets run side by side (on two cores each
# gets about two thirds of one: at 45 s, over a million inputs each, where
# a run one after another took 140 s of make check for 1.4 times the
# inputs; 30 s keeps make check within 30 minutes).  A
# crash, sanitizer report or invariant failure fails the test; the
# reproducer is kept in build/fuzz/.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
SECS=${HPCC_FUZZ_SECONDS:-30}

fuzz() { # fuzz TARGET SEED-CORPUS
	local bin=$TOP/build/fuzz/$1 work runs rc
	work=$(mktemp -d)
	cp "$TOP/selftests/fuzz/$2"/* "$work/"
	(cd "$TOP/build/fuzz" && "$bin" -max_total_time="$SECS" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=2048 "$work") > "$work.log" 2>&1 && rc=0 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	echo "$1: exit $rc, ${runs:-0} inputs in ${SECS}s, corpus $(ls "$work" | wc -l)"
	[ "$rc" = 0 ] || grep -E 'ERROR|SUMMARY|Test unit written' "$work.log" | head -5
	rm -rf "$work" "$work.log"
	[ "$rc" = 0 ] && [ "${runs:-0}" -gt 10000 ]
}

RES=$(mktemp -d)
trap 'rm -rf "$RES"' EXIT
for target in "fuzz_replay corpus-replay" "fuzz_wire corpus-wire" \
	      "fuzz_config corpus-config" "fuzz_decode corpus-decode" \
	      "fuzz_fcr corpus-fcr" "fuzz_ccm corpus-ccm"; do
	set -- $target
	{ fuzz "$1" "$2" > "$RES/$1.out" 2>&1; echo $? > "$RES/$1.rc"; } &
done
wait

# result TARGET - what the run of TARGET printed, and its status
result() {
	cat "$RES/$1.out"
	return "$(cat "$RES/$1.rc")"
}

ktap_print_header
ktap_set_plan 6
t "fuzz_replay: parser + NewAck/NewINT, ${SECS}s, no finding" result fuzz_replay
t "fuzz_wire: probe/response parser and builder, ${SECS}s, no finding" result fuzz_wire
t "fuzz_config: hpccd's configuration parser, ${SECS}s, no finding" result fuzz_config
t "fuzz_decode: the INT-MD and IOAM decoders, ${SECS}s, no finding" result fuzz_decode
t "fuzz_fcr: the FCR decoder and hold set, ${SECS}s, no finding" result fuzz_fcr
t "fuzz_ccm: the CCM decoder and coordination rule, ${SECS}s, no finding" result fuzz_ccm
ktap_finished
