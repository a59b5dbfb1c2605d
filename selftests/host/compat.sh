#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel compatibility, without a guest: both modules build with no warning
# for every kernel whose headers are here (/lib/modules/*/build, and the
# other Debian releases that tools/kheaders unpacks into build/kheaders/),
# each into a private build tree; and every conftest probe
# (kernel/conftest/NAME.c) takes both of its outcomes among those kernels,
# so that both sides of each HPCC_HAVE_NAME in hpcc_compat.h and the code
# compile.  A probe that fails must fail in its own file (an error in
# NAME.c), not in the build around it, which would turn every probe off
# at once.  With only this host's kernels some probes see one outcome:
# those cases are skipped, naming the one seen.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
cd "$TOP" || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

kdirs=()
rels=()
for k in /lib/modules/*/build "$TOP"/build/kheaders/*/usr/src/linux-headers-*; do
	[ -e "$k/include/generated/utsrelease.h" ] || continue
	r=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$k/include/generated/utsrelease.h")
	printf '%s\n' "${rels[@]}" | grep -qxF "$r" && continue
	kdirs+=("$k")
	rels+=("$r")
done
probes=()
for c in kernel/conftest/*.c; do
	probes+=("$(basename "$c" .c)")
done

# build_for KDIR REL - both modules, into $TMP/REL, and no warning
build_for() {
	local k=$1 rel=$2 log=$TMP/$2.log
	nice -n 19 make -s modules KDIR="$k" BUILD="$TMP" > "$log" 2>&1 ||
		{ tail -20 "$log"; return 1; }
	if grep -E 'warning|error' "$log"; then
		return 1
	fi
	ls "$TMP/$rel/kernel/tcp_hpcc.ko" "$TMP/$rel/kernel/hpcc_int.ko"
}

# outcomes NAME - which kernels have HPCC_HAVE_NAME and which do not; a
# kernel without it must show the compiler's error in NAME.c
outcomes() {
	local n=$1 N i h has='' hasnt='' bad=''
	N=$(echo "$n" | tr '[:lower:]' '[:upper:]')
	for i in "${!rels[@]}"; do
		h=$TMP/${rels[$i]}/kernel/hpcc_conftest.h
		[ -f "$h" ] || continue
		if grep -qx "#define HPCC_HAVE_$N 1" "$h"; then
			has+=" ${rels[$i]}"
		elif grep -qE "(^|/)$n\.c:[0-9]+:[0-9]+: (fatal )?error" "$h.log"; then
			hasnt+=" ${rels[$i]}"
		else
			bad+=" ${rels[$i]}"
		fi
	done
	echo "set:${has:- none}; not set:${hasnt:- none}"
	if [ -n "$bad" ]; then
		echo "failed without an error in $n.c on:$bad"
		return 1
	fi
	[ -n "$has" ] && [ -n "$hasnt" ] && return 0
	return 4
}

ktap_print_header
ktap_set_plan $((${#kdirs[@]} + ${#probes[@]}))
for i in "${!kdirs[@]}"; do
	t "both modules build without a warning for ${rels[$i]}" \
		build_for "${kdirs[$i]}" "${rels[$i]}"
done
for n in "${probes[@]}"; do
	out=$(outcomes "$n") && rc=0 || rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	case $rc in
	0) ktap_test_pass "probe $n: both outcomes build" ;;
	4) ktap_test_skip "probe $n: one outcome among these kernels (tools/kheaders adds 5.10 and 7.2)" ;;
	*) ktap_test_fail "probe $n: both outcomes build" ;;
	esac
done
ktap_finished
