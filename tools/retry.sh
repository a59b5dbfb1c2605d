# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# retry N CMD... - run CMD up to N times, 0.2 s apart, until it succeeds.
# Sourced by selftests/lib.sh and tools/testbed/testbed.sh.
retry() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}
