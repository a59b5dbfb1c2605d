#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink API's two descriptions agree: the YNL spec validates against
# the kernel's genetlink schema, and include/uapi/linux/hpcc.h is exactly
# what the kernel's ynl-gen-c generates from it, and so is
# include/uapi/linux/hpcc_int.h from hpcc-int.yaml; the client's tables
# (daemon/hpcc_nl_gen.[ch]) are what tools/ynl-client generates from both
# (`make uapi` regenerates them all).  The wire format is hand-written, in
# include/uapi/linux/hpcc_wire.h.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
cd "$TOP"

uapi_matches_spec() {
	local gen rc=0
	gen=$(mktemp)
	# the whole header: the wire format has its own, hpcc_wire.h
	sh tools/ynl-uapi hpcc "$gen" &&
		diff -u "$gen" include/uapi/linux/hpcc.h || rc=1
	rm -f "$gen"
	return $rc
}

# daemon/hpcc_nl_gen.[ch], the client's tables and typed structures, are
# what tools/ynl-client makes of both specs
client_matches_spec() {
	local d rc=0
	d=$(mktemp -d)
	python3 tools/ynl-client "$d/hpcc_nl_gen.h" "$d/hpcc_nl_gen.c" \
		Documentation/netlink/specs/hpcc.yaml Documentation/netlink/specs/hpcc-int.yaml &&
		diff -u "$d/hpcc_nl_gen.h" daemon/hpcc_nl_gen.h &&
		diff -u "$d/hpcc_nl_gen.c" daemon/hpcc_nl_gen.c || rc=1
	rm -rf "$d"
	return $rc
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
	printf '%s\n' '#include <linux/hpcc_wire.h>' \
		'_Static_assert(sizeof(struct hpcc_wire_hdr) == HPCC_WIRE_HDR_LEN, "hdr");' \
		'_Static_assert(sizeof(struct hpcc_wire_hop) == HPCC_WIRE_HOP_LEN, "hop");' \
		'int main(void) { return 0; }' |
		cc -Wall -Werror -Iinclude/uapi -x c -o /dev/null -
}

ktap_print_header
ktap_set_plan 4
t "include/uapi/linux/hpcc.h is what ynl-gen-c makes of the YNL spec" uapi_matches_spec
t "daemon/hpcc_nl_gen.c and .h are what tools/ynl-client makes of the specs" client_matches_spec
t "include/uapi/linux/hpcc_int.h is what ynl-gen-c makes of its YNL spec" int_uapi_matches_spec
t "wire structures have their documented sizes" wire_sizes
ktap_finished
