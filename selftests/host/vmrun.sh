#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vmrun itself: exit status, output streaming, and the failures it
# must not miss (a kernel warning, a timeout).  One kernel is enough: this
# is the runner's logic, not the kernel's.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
cd "$TOP"
K=${HPCC_VMRUN_KERNEL:-6.1}

status_and_output() {
	local out rc
	out=$(tools/vmrun --kernel "$K" --timeout 120 -- sh -c 'echo hello-from-$(uname -r); pwd; exit 7' 2>/dev/null) && rc=0 || rc=$?
	echo "$out"
	[ "$rc" = 7 ] && echo "$out" | grep -q '^hello-from-' &&
		echo "$out" | grep -qx "$TOP"
}

# ... and ends its output with the first report's first lines, up to its
# end marker, so that a tail of it (selftests/run's, CI's) has the call
# trace; 60 long lines after the marker (more than a pipe's 4 KiB block)
# must not turn the status into SIGPIPE's 141
warning_fails_the_run() {
	local rc out after=() i
	for ((i = 0; i < 60; i++)); do
		after+=("after the report $i $(printf '%0150d' 0)")
	done
	out=$(tools/vmrun --kernel "$K" --timeout 120 -- \
		sh -c 'for l; do echo "$l" > /dev/kmsg; done' sh \
		"WARNING: CPU: 0 PID: 1 at injected by host/vmrun.sh" \
		"Call Trace:" " <TASK>" " injected_frame_a+0x1/0x2" \
		" injected_frame_b+0x3/0x4" " </TASK>" \
		"---[ end trace 0000000000000000 ]---" "${after[@]}" \
		2>&1 >/dev/null) && rc=0 || rc=$?
	echo "vmrun status $rc; its last lines:"
	echo "$out" | tail -n 8
	[ "$rc" = 125 ] &&
		echo "$out" | tail -n 1 | grep -q -- '---\[ end trace' &&
		echo "$out" | tail -n 4 | grep -q 'injected_frame_b' &&
		echo "$out" | tail -n 7 | grep -q 'WARNING: CPU: 0 PID: 1 at injected'
}

timeout_fails_the_run() {
	local rc
	tools/vmrun --kernel "$K" --timeout 25 -- sleep 600 >/dev/null 2>&1 && rc=0 || rc=$?
	echo "vmrun status $rc"
	[ "$rc" = 124 ]
}

# --accel picks the emulator mode, --append reaches the guest's command
# line, and in both modes the emulated CPU has neither ERMS nor FSRM (whose
# rep movsb/stosb TCG runs a byte at a time: tools/vmrun)
accel_and_append() {
	local out rc m
	for m in tcg1 mttcg; do
		out=$(tools/vmrun --kernel "$K" --timeout 120 --accel $m \
			--append hpcc.test=$m -- sh -c 'cat /proc/cmdline; echo "cpus with erms or fsrm: $(grep -cw -e erms -e fsrm /proc/cpuinfo)"' \
			2>/dev/null) && rc=0 || rc=$?
		echo "$m: status $rc: $out"
		[ "$rc" = 0 ] && echo "$out" | grep -qw "hpcc.test=$m" &&
			echo "$out" | grep -qx "cpus with erms or fsrm: 0" || return 1
	done
	tools/vmrun --accel bogus -- true 2>/dev/null; rc=$?
	echo "bogus: status $rc"
	[ "$rc" = 126 ]
}

# --which names the image --kernel would boot, without booting: a
# readable image of K's release, whatever a run's options say (a bad
# --accel); an unknown release fails (126)
which_kernel() {
	local out rel img rc
	out=$(HPCC_VM_ACCEL=bogus tools/vmrun --which --kernel "$K") || return 1
	echo "$K: $out"
	read -r rel img <<< "$out"
	case $K in debug) ;; *) case $rel in "$K"*) ;; *) return 1 ;; esac ;; esac
	[ -r "$img" ] || return 1
	rc=$(tools/vmrun --which --kernel 0.0.1 > /dev/null 2>&1; echo $?)
	echo "0.0.1: status $rc"
	[ "$rc" = 126 ]
}

ktap_print_header
ktap_set_plan 5
t "vmrun --which names the kernel image without booting, fails for an unknown release" which_kernel
t "vmrun returns the command's status and streams its output" status_and_output
t "vmrun fails (125) when the guest kernel logs a WARNING, and ends with the report" warning_fails_the_run
t "vmrun --accel tcg1|mttcg runs without ERMS/FSRM, --append reaches /proc/cmdline, a bad mode is refused" accel_and_append
t "vmrun fails (124) when the timeout passes" timeout_fails_the_run
ktap_finished
