#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build artefacts: per-release modules with the right vermagic, version
# consistency, checkpatch, and a DKMS build in private trees (nothing is
# installed into the system; the newest kernel's, or every kernel's under
# make check-kernels).  The releases are the installed kernels'
# and those tools/kheaders --images unpacked (make check-kernels: 5.10
# and 7.2), whose headers DKMS is given as --kernelsourcedir.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
cd "$TOP"

rels=()
declare -A kdir_of
while read -r r k; do
	rels+=("$r")
	kdir_of[$r]=$k
done < <(kernel_trees --images)

vermagic_of() {
	local rel=$1 m ko vm
	for m in tcp_hpcc hpcc_int; do
		ko=build/$rel/kernel/$m.ko
		[ -f "$ko" ] || { echo "$ko missing"; return 1; }
		vm=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
		echo "$ko: vermagic $vm"
		[ "$vm" = "$rel" ] || return 1
	done
}

versions_agree() {
	local v d
	v=$(cat VERSION)
	d=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
	echo "VERSION $v, dkms.conf $d, module $(modinfo -F version "build/${rels[0]}/kernel/tcp_hpcc.ko")"
	[ "$v" = "$d" ] &&
		[ "$(modinfo -F version "build/${rels[0]}/kernel/tcp_hpcc.ko")" = "$v" ]
}

dkms_private_build() {
	local rel=$1 tmp v rc=0
	command -v dkms >/dev/null || { echo "dkms missing"; return 1; }
	v=$(cat VERSION)
	tmp=$(mktemp -d)
	mkdir -p "$tmp/dkms"
	make -s dkms-src DESTDIR="$tmp/root" >/dev/null || return 1
	dkms add -m tcp-hpcc -v "$v" --sourcetree "$tmp/root/usr/src" \
		--dkmstree "$tmp/dkms" > "$tmp/log" 2>&1 &&
	dkms build -m tcp-hpcc -v "$v" -k "$rel" --sourcetree "$tmp/root/usr/src" \
		--kernelsourcedir "${kdir_of[$rel]}" \
		--dkmstree "$tmp/dkms" > "$tmp/log" 2>&1 || rc=1
	[ $rc = 0 ] || tail -20 "$tmp/log"
	local ko m
	for m in tcp_hpcc hpcc_int; do
		ko=$(find "$tmp/dkms" -name "$m.ko*" | head -1)
		echo "dkms built: ${ko#"$tmp"/}"
		[ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$rel" ] || rc=1
	done
	rm -rf "$tmp"
	return $rc
}

# A KDIR that is no kernel build tree (a mistyped or relative path) once
# gave a header with every probe unset, and a build that failed later on
# a header of the wrong branch (asm/unaligned.h on 6.12): conftest.sh now
# refuses it, naming it.
conftest_refuses() {
	local tmp rc=0 err
	tmp=$(mktemp -d)
	err=$(cd "$tmp" && sh "$TOP/kernel/conftest/conftest.sh" build/kdebug/obj out.h 2>&1) &&
		rc=1
	echo "exit status $?: $err"
	echo "$err" | grep -q "build/kdebug/obj: no kernel build tree" || rc=1
	[ ! -e "$tmp/out.h" ] || { echo "out.h written"; rc=1; }
	rm -rf "$tmp"
	return $rc
}

# DKMS's build is the same for every kernel: make check runs it for the
# newest installed kernel (the modules' build for every kernel is
# compat.sh's), make check-kernels (HPCC_ALL_KERNELS=1) for each.
dkms_rels=("${rels[@]}")
if [ "${HPCC_ALL_KERNELS:-0}" != 1 ]; then
	dkms_rels=()
	r=$(kernel_trees | awk '$2 ~ "^/lib/modules/" { print $1 }' | sort -V | tail -n 1)
	[ -z "$r" ] || [ -z "${kdir_of[$r]:-}" ] || dkms_rels=("$r")
fi

ktap_print_header
ktap_set_plan $((${#rels[@]} + ${#dkms_rels[@]} + 3))
for r in "${rels[@]}"; do
	t "tcp_hpcc.ko and hpcc_int.ko for $r have vermagic $r" vermagic_of "$r"
done
t "VERSION, dkms.conf and MODULE_VERSION agree" versions_agree
t "checkpatch.pl --strict is clean on kernel/" make -s checkpatch
t "conftest.sh refuses a KDIR that is no kernel build tree" conftest_refuses
for r in "${dkms_rels[@]}"; do
	t "dkms.conf builds both modules for $r (private dkms tree)" dkms_private_build "$r"
done
ktap_finished
