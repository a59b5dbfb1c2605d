#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpcc-replay as a user runs it: output format and values on a
# hand-computed trace, defaults, comments, and malformed input (exit 2, the
# line named on stderr).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
R=$TOP/build/hpcc-replay
OPTS="--base-rtt-ns 10000 --eta 0.75 --w-init 100000 --w-min 1000 --w-ai 500 --max-stage 2"

# T = 10 us, B = 1 byte/ns: first sample, MD to 100000*0.75/1.5+500, AI +500.
TRACE='# hand-computed (see selftests/unit/core_test.c)

0 1000 1 7 1 8000000000 0 0 5000
1001 2000 1 7 1 8000000000 10000 10000 5000
   # indented comment
2001 3000 1 7 1 8000000000 20000 15000 0'
EXPECT='1.000000 100000 100000 0
1.500000 50500 50500 0
0.500000 51000 51000 1'

hand_computed() {
	local out
	# shellcheck disable=SC2086
	out=$(printf '%s\n' "$TRACE" | "$R" $OPTS) || return 1
	echo "$out"
	[ "$out" = "$EXPECT" ]
}

defaults() {
	local out
	out=$(echo "1 2 1 1 1 10000000000 0 0 0" | "$R") || return 1
	echo "$out"
	# W_init = 10 Gbit/s * 100 us = 125000 bytes
	[ "$out" = "1.000000 125000 125000 0" ]
}

# The same trace with N = 10 reported in the last two samples: under
# --n-flows-source reported, W_ai = 100000 * 0.25 / 10 = 2500 replaces 500;
# configured (the default) ignores it; max with --n-flows 20 takes 20
# (W_ai 1250).
reported_n() {
	local tr out
	tr=$(printf '%s\n' "$TRACE" | sed -e 's/^1001 .*/& 10/' -e 's/^2001 .*/& 10/')
	# shellcheck disable=SC2086
	out=$(printf '%s\n' "$tr" | "$R" $OPTS --n-flows-source reported) || return 1
	echo "$out"
	[ "$out" = "1.000000 100000 100000 0
1.500000 52500 52500 0
0.500000 55000 55000 1" ] || return 1
	# shellcheck disable=SC2086
	out=$(printf '%s\n' "$tr" | "$R" $OPTS) || return 1
	[ "$out" = "$EXPECT" ] || return 1
	# shellcheck disable=SC2086
	out=$(printf '%s\n' "$tr" | "$R" $OPTS --n-flows 20 --n-flows-source max) || return 1
	echo "$out"
	[ "$out" = "1.000000 100000 100000 0
1.500000 51250 51250 0
0.500000 52500 52500 1" ]
}

# U's EWMA period T_U = 2T (--ewma-period 200): each sample a T apart
# weighs 1/2.  Sample 2: u' = 1.5, U = 1.25, MD to 100000*0.75/1.25+500;
# sample 3: u' = 0.5, U = 0.875, MD to 60500*0.75/0.875+500 (rounded down).
ewma_period() {
	local out
	# shellcheck disable=SC2086
	out=$(printf '%s\n' "$TRACE" | "$R" $OPTS --ewma-period 200) || return 1
	echo "$out"
	[ "$out" = "1.000000 100000 100000 0
1.250000 60500 60500 0
0.875000 52357 52357 0" ] || return 1
	# 100 is the draft's T_U = T
	# shellcheck disable=SC2086
	out=$(printf '%s\n' "$TRACE" | "$R" $OPTS --ewma-period 100) || return 1
	[ "$out" = "$EXPECT" ]
}

# Partial telemetry (Documentation/algorithm.rst): a standing queue without
# txBytes reads as a busy link (u' = 1 + 5000/10000: MD to 50500), Tx
# utilization 50 % with the queue gone (u' = 0 + 0.5: AI to 51000), then an
# empty queue without either (u' = eta / 2: AI to 51500, incStage 2).
partial() {
	local out
	# shellcheck disable=SC2086
	out=$(printf '%s\n' '0 1000 1 7 1 8000000000 0 - 5000' \
		'1001 2000 1 7 1 8000000000 10000 - 5000' \
		'2001 3000 1 7 1 8000000000 20000 u500000 0' \
		'3001 4000 1 7 1 8000000000 30000 - 0' |
		"$R" $OPTS) || return 1
	echo "$out"
	[ "$out" = "1.000000 100000 100000 0
1.500000 50500 50500 0
0.500000 51000 51000 1
0.375000 51500 51500 2" ]
}

rejects() { # rejects EXPECTED-STDERR-PATTERN INPUT [OPTIONS...]
	local pat=$1 in=$2 err rc
	shift 2
	err=$(printf '%s\n' "$in" | "$R" "$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	echo "exit $rc: $err"
	[ "$rc" = 2 ] && echo "$err" | grep -q -- "$pat"
}

ktap_print_header
ktap_set_plan 19
t "hand-computed trace: U W Wc incStage per sample" hand_computed
t "defaults: W_init = 10 Gbit/s x T (100 us)" defaults
t "malformed number: exit 2, line named" \
	rejects 'line 2: ack_seq' $'# ok\nx 2 1 1 1 1 1 1 1'
t "nhop 9: exit 2" rejects 'line 1: nhop' '1 2 9'
t "nhop 0: exit 2" rejects 'line 1: nhop' '1 2 0'
t "missing hop field: exit 2" rejects 'line 1: qlen_bytes: missing' '1 2 1 1 1 1 1 1'
t "reported N sets the flow's W_ai (--n-flows-source)" reported_n
t "extra field: exit 2" rejects 'line 1: extra' '1 2 1 1 1 1 1 1 1 9 9'
t "n_flows beyond 65535: exit 2" rejects 'line 1: n_flows: out of range' '1 2 1 1 1 1 1 1 1 65536'
t "U's EWMA period (--ewma-period)" ewma_period
t "partial telemetry: no txBytes (-), Tx utilization (uPPM)" partial
t "Tx utilization beyond 10x: exit 2" rejects 'line 1: tx_util_ppm: out of range' '1 2 1 1 1 1 1 u10000001 1'
t "tx_bytes '-x': exit 2" rejects 'line 1: tx_bytes' '1 2 1 1 1 1 1 -x 1'
t "--ewma-period 99: exit 2" rejects 'invalid value' '' --ewma-period 99
t "bad --n-flows-source: exit 2" rejects 'invalid value' '' --n-flows-source some
t "ack_seq beyond 32 bits: exit 2" rejects 'line 1: ack_seq: out of range' '4294967296 2 1 1 1 1 1 1 1'
t "64-bit overflow: exit 2" rejects 'line 1: ts_ns: out of range' '1 2 1 1 1 1 18446744073709551616 1 1'
t "bad option value: exit 2" rejects 'invalid value' '' --eta 1.5
t "--help prints usage and exits 0" sh -c "'$R' --help | grep -q '^usage: hpcc-replay'"
ktap_finished
