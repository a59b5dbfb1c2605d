#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink API's two descriptions agree: the YNL spec validates against
# the kernel's genetlink schema, and include/uapi/linux/hpcc.h is exactly
# what the kernel's ynl-gen-c generates from it, and so is
# include/uapi/linux/hpcc_int.h from hpcc-int.yaml; the client's tables
# (daemon/lib/hpcc_nl_gen.[ch]) are what tools/ynl-client generates from both
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

# daemon/lib/hpcc_nl_gen.[ch], the client's tables and typed structures, are
# what tools/ynl-client makes of both specs
client_matches_spec() {
	local d rc=0
	d=$(mktemp -d)
	python3 tools/ynl-client "$d/hpcc_nl_gen.h" "$d/hpcc_nl_gen.c" \
		Documentation/netlink/specs/hpcc.yaml Documentation/netlink/specs/hpcc-int.yaml &&
		diff -u "$d/hpcc_nl_gen.h" daemon/lib/hpcc_nl_gen.h &&
		diff -u "$d/hpcc_nl_gen.c" daemon/lib/hpcc_nl_gen.c || rc=1
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

# kernel/tcp_hpcc/nl_policy.h and hpcc_int/nl_policy.h are tools/ynl-policy's
# cut of ynl-gen-c's kernel source, and each module's ops table matches the
# split ops ynl-gen-c generates (ops_vs_spec.py)
policy_and_ops_match_spec() {
	local spec=$1 policy=$2 module=$3 src d rc=0
	d=$(mktemp -d)
	src=${LINUX_SRC:-$TOP/build/linux-src}
	sh tools/ynl-policy "$spec" "$d/policy.h" &&
		diff -u "$d/policy.h" "kernel/$policy" || rc=1
	cp "Documentation/netlink/specs/$spec.yaml" "$src/Documentation/netlink/specs/" &&
	(cd "$src/tools/net/ynl" && python3 ynl-gen-c.py --mode kernel --source \
		--spec "../../../Documentation/netlink/specs/$spec.yaml" -o "$d/gen.c") &&
		python3 selftests/host/ops_vs_spec.py "$d/gen.c" "kernel/$module" || rc=1
	rm -rf "$d"
	return $rc
}

wire_sizes() {
	printf '%s\n' '#include <linux/hpcc_wire.h>' \
		'_Static_assert(sizeof(struct hpcc_wire_hdr) == HPCC_WIRE_HDR_LEN, "hdr");' \
		'_Static_assert(sizeof(struct hpcc_wire_hop) == HPCC_WIRE_HOP_LEN, "hop");' \
		'_Static_assert(sizeof(struct hpcc_wire_fcr) == HPCC_WIRE_FCR_LEN, "fcr");' \
		'_Static_assert(sizeof(struct hpcc_wire_ccm) == HPCC_WIRE_CCM_LEN, "ccm");' \
		'_Static_assert(sizeof(struct hpcc_wire_ext_ar) == HPCC_WIRE_EXT_AR_LEN, "ar");' \
		'_Static_assert(sizeof(struct hpcc_wire_nmac) == HPCC_WIRE_NMAC_LEN, "nmac");' \
		'int main(void) { return 0; }' |
		cc -Wall -Werror -Iinclude/uapi -x c -o /dev/null -
}

ktap_print_header
ktap_set_plan 6
t "include/uapi/linux/hpcc.h is what ynl-gen-c makes of the YNL spec" uapi_matches_spec
t "daemon/lib/hpcc_nl_gen.c and .h are what tools/ynl-client makes of the specs" client_matches_spec
t "include/uapi/linux/hpcc_int.h is what ynl-gen-c makes of its YNL spec" int_uapi_matches_spec
t "tcp_hpcc's policies and ops are what ynl-gen-c makes of hpcc.yaml" \
	policy_and_ops_match_spec hpcc tcp_hpcc/nl_policy.h tcp_hpcc/netlink.c
t "hpcc_int's policies and ops are what ynl-gen-c makes of hpcc-int.yaml" \
	policy_and_ops_match_spec hpcc-int hpcc_int/nl_policy.h hpcc_int/netlink.c
t "wire structures have their documented sizes" wire_sizes
ktap_finished
