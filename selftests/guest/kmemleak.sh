#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak's verdict on a debugging kernel (make check-debug): selftests/guest/run
# clears kmemleak's list before the tests, and this runs after them; any
# object leaked meanwhile fails it (and goes to the kernel log, which
# tools/vmrun scans too).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
KML=/sys/kernel/debug/kmemleak

kmemleak_clean() {
	local n
	# an object is reported once it stayed unreferenced for a full scan
	sleep 5
	echo scan > "$KML" && sleep 5 && echo scan > "$KML" || return 1
	n=$(grep -c '^unreferenced object' "$KML")
	echo "kmemleak: $n unreferenced objects"
	if [ "$n" != 0 ]; then
		head -n 80 "$KML"
		head -n 80 "$KML" > /dev/kmsg
	fi
	[ "$n" = 0 ]
}

ktap_print_header
ktap_set_plan 1
t "kmemleak: nothing leaked while the tests ran" kmemleak_clean
ktap_finished
