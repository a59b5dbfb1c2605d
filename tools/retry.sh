# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# retry N CMD... - run CMD up to N times, 0.2 s apart, until it succeeds.
# N is multiplied by RETRY_SCALE (default 1), which selftests/lib.sh sets on
# a slow kernel so that every wait is as long there as the guest needs.
# Sourced by selftests/lib.sh and tools/testbed/testbed.sh.
#
# Not the kernel's slowwait (net/lib.sh), on purpose: slowwait bounds the
# wall time, so a slow CMD gets fewer tries (the tests' budgets count tries
# of CMDs such as flow_json, 0.3 s each in a guest), and it runs CMD in a
# command substitution, which holds CMD's output back and drops what CMD
# sets in the shell.  The testbed also runs where net/lib.sh is not
# extracted (tools/demo).
retry() {
	local n=$(($1 * ${RETRY_SCALE:-1})) i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}
