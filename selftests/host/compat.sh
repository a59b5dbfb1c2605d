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
# at once.  A probe that even the matrix's oldest kernel has (5.10, whose
# headers make check fetches with tools/kheaders) is built unset for that
# kernel, all such at once (HPCC_CONFTEST_OFF, conftest.sh), as an older
# stable release without the backport would build it.  Without 5.10's
# headers (this host's kernels alone) a probe that sees one outcome is
# skipped, naming it: a fallback redefines what a newer kernel has, so
# forcing it there tests nothing a host meets.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
cd "$TOP" || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

kdirs=()
rels=()
while read -r r k; do
	kdirs+=("$k")
	rels+=("$r")
done < <(kernel_trees)
probes=()
for c in kernel/conftest/*.c; do
	probes+=("$(basename "$c" .c)")
done

# The builds run at nice 19 with a job per core: in make check a guest
# runs on the other core, and they take its time only when it idles.
#
# build_for KDIR REL - both modules, into $TMP/REL, and no warning
build_for() {
	local k=$1 rel=$2 log=$TMP/$2.log
	nice -n 19 make -s -j"$(nproc)" modules KDIR="$k" BUILD="$TMP" > "$log" 2>&1 ||
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
	[ -n "$has" ] && return 5
	return 4
}

# build_off REL KDIR NAME... - both modules for REL with the probes NAME
# forced unset (and so in its hpcc_conftest.h), into $TMP/off, and no
# warning
build_off() {
	local rel=$1 k=$2 log=$TMP/off.log n
	shift 2
	HPCC_CONFTEST_OFF="$*" nice -n 19 make -s -j"$(nproc)" modules KDIR="$k" BUILD="$TMP/off" \
		> "$log" 2>&1 || { tail -20 "$log"; return 1; }
	for n in "$@"; do
		grep -qx "/\* HPCC_HAVE_$(echo "$n" | tr '[:lower:]' '[:upper:]') is not set: HPCC_CONFTEST_OFF \*/" \
			"$TMP/off/$rel/kernel/hpcc_conftest.h" ||
			{ echo "$n was not forced off"; return 1; }
	done
	! grep -E 'warning|error' "$log" &&
		ls "$TMP/off/$rel/kernel/tcp_hpcc.ko" "$TMP/off/$rel/kernel/hpcc_int.ko" > /dev/null
}

ktap_print_header
ktap_set_plan $((${#kdirs[@]} + ${#probes[@]}))
for i in "${!kdirs[@]}"; do
	t "both modules build without a warning for ${rels[$i]}" \
		build_for "${kdirs[$i]}" "${rels[$i]}"
done
declare -A rcs
everywhere=()
for n in "${probes[@]}"; do
	out=$(outcomes "$n") && rc=0 || rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	rcs[$n]=$rc
	[ "$rc" = 5 ] && everywhere+=("$n")
done
# the oldest kernel here, and whether it is the matrix's oldest
oldest=$(for i in "${!rels[@]}"; do echo "${rels[$i]} $i"; done |
	sort -V | head -n 1 | cut -d' ' -f2)
off_rc=
case "${rels[$oldest]:-}" in 5.10.*)
	if [ "${#everywhere[@]}" -gt 0 ]; then
		echo "# ${rels[$oldest]} with ${everywhere[*]} unset"
		build_off "${rels[$oldest]}" "${kdirs[$oldest]}" "${everywhere[@]}" 2>&1 |
			sed 's/^/# /'
		off_rc=${PIPESTATUS[0]}
	fi ;;
esac
for n in "${probes[@]}"; do
	case ${rcs[$n]}:$off_rc in
	0:*) ktap_test_pass "probe $n: both outcomes build" ;;
	5:0) ktap_test_pass "probe $n: both outcomes build (unset forced on ${rels[$oldest]})" ;;
	5:) ktap_test_skip "probe $n: set on every kernel here, and 5.10's headers missing (tools/kheaders 5.10)" ;;
	4:*) ktap_test_skip "probe $n: no kernel here has it (make check-kernels adds 7.2)" ;;
	*) ktap_test_fail "probe $n: both outcomes build" ;;
	esac
done
ktap_finished
