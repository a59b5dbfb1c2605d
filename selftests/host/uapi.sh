#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink API's two descriptions agree: the YNL spec validates against
# the kernel's genetlink schema, and include/uapi/linux/hpcc.h holds exactly
# what the kernel's ynl-gen-c generates from it, and so does
# include/uapi/linux/hpcc_int.h from hpcc-int.yaml (`make uapi` regenerates).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
cd "$TOP"

uapi_matches_spec() {
	local gen
	gen=$(mktemp)
	sh tools/ynl-uapi hpcc "$gen" || { rm -f "$gen"; return 1; }
	# hpcc.h = the generated header without its last line (#endif), then
	# the hand-written wire format
	if ! head -n -1 "$gen" | cmp -s - <(head -n "$(($(wc -l < "$gen") - 1))" include/uapi/linux/hpcc.h); then
		diff <(head -n -1 "$gen") include/uapi/linux/hpcc.h | head -20
		rm -f "$gen"
		return 1
	fi
	rm -f "$gen"
}

int_uapi_matches_spec() {
	local gen rc=0
	gen=$(mktemp)
	sh tools/ynl-uapi hpcc-int "$gen" &&
		diff -u "$gen" include/uapi/linux/hpcc_int.h || rc=1
	rm -f "$gen"
	return $rc
}

wire_sizes() {
	printf '%s\n' '#include <linux/hpcc.h>' \
		'_Static_assert(sizeof(struct hpcc_wire_hdr) == HPCC_WIRE_HDR_LEN, "hdr");' \
		'_Static_assert(sizeof(struct hpcc_wire_hop) == HPCC_WIRE_HOP_LEN, "hop");' \
		'int main(void) { return 0; }' |
		cc -Wall -Werror -Iinclude/uapi -x c -o /dev/null -
}

ktap_print_header
ktap_set_plan 3
t "include/uapi/linux/hpcc.h is what ynl-gen-c makes of the YNL spec" uapi_matches_spec
t "include/uapi/linux/hpcc_int.h is what ynl-gen-c makes of its YNL spec" int_uapi_matches_spec
t "wire structures have their documented sizes" wire_sizes
ktap_finished
