#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-packet forwarding cost of the software INT hop (a benchmark, not a
# test; run in a guest by `make bench-fwd`).  A router namespace forwards
# a TCP flow from s to d; its egress device has 8 transmit queues under
# mq with pfifo_fast children, whose statistics are per CPU, so a hop
# that reads the queue's counters reads 8 x nr_cpu_ids of them (the guest
# boots with 64 possible CPUs, tools/vmrun --maxcpus and possible_cpus=,
# which 6.1 honours: a large host's count).  Three cases, each
# with every hpcc_int module given, in one boot:
#   plain   hpcc_int not loaded: the kernel's own forwarding
#   probes  hpcc_int on the egress device, FCR and CCM off: data segments
#           only pass the probe DSCP test
#   fcr     the same with FCR on (fcr-qlen-high above any backlog the flow
#           builds: every data segment is tracked, nothing is sent), at
#           fcr-interval 32 ms: a port reads the backlog for its data
#           segments at most 16 times per fcr-interval (500 a second
#           here), so that the guest's 18,000 forwarded packets a second
#           outnumber the reads as a datacenter port's millions do the
#           16,000 a second of the default 1 ms
# ftrace's function_graph tracer, hooked on one function at a time, times
# ip_forward() per packet (the forwarding path from the routing decision
# to the egress device's transmit, our FORWARD hook included), then the
# hook itself (hpcc_int_hook()), then the backlog walk (hpcc_int_qdisc(),
# which sums every qdisc's per-CPU counters): its calls per hook call and
# its mean time.  Tracing inflates each call by a similar fixed amount;
# the report gives medians of REPS repetitions with their range, and the
# cases against plain forwarding in the same boot.  The emulator models
# no caches, so a walk's cost on a host (other CPUs' counter lines) is
# not what TCG shows: read the walks per packet.
#
# Environment: FWD_MODULES="NAME=PATH ..." the hpcc_int.ko builds to
# compare (default: the one modprobe finds, as "this"); REPS (3); SECS (3).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
CTL=$TOP/build/hpccctl
T=$TRACEFS
REPS=${REPS:-3}
SECS=${SECS:-3}
S=10.53.0.1
D=10.53.1.2
MODULES=${FWD_MODULES:-this=}
OUT=$(mktemp -d)

tracefs_mount
topo_ns s r d
topo_link s vs r vr
topo_link r vu d vd numtxqueues 8 numrxqueues 8
# s sends wire-size segments (TSO and GSO off on vs): r forwards packets
# as a datacenter switch port does, not 64 KB GSO aggregates, so that
# its packets outnumber its backlog reads
ip netns exec s ethtool -K vs tso off gso off > /dev/null || exit 1
topo_addr s vs $S/24 && topo_addr r vr 10.53.0.2/24 &&
topo_addr r vu 10.53.1.1/24 && topo_addr d vd $D/24
ip -n s route add default via 10.53.0.2
ip -n d route add default via 10.53.1.1
ip netns exec r sysctl -qw net.ipv4.ip_forward=1
tc -n r qdisc replace dev vu root handle 1: mq
for q in 1 2 3 4 5 6 7 8; do
	tc -n r qdisc replace dev vu parent 1:$q pfifo_fast
done
ip netns exec d iperf3 -s -p 5201 > /dev/null 2>&1 &
sleep 1
echo "nr_cpu_ids $(cat /sys/devices/system/cpu/possible); $(tc -n r qdisc show dev vu | grep -c pfifo_fast) pfifo_fast queues under mq"

# timed FUNC - an iperf3 flow of SECS seconds while FUNC is timed; prints
# "calls mean_ns Mbit/s retransmits", the last two iperf3's sender figures
# ("- -" if it printed none).  FUNC is the only function the tracer hooks
# (set_ftrace_filter): under set_graph_function at depth 1, 6.1 also
# traced syscall-exit functions of the tasks that ran ip_forward() in
# their softirqs, up to 32,000 lines in one run, and the ring buffer
# overran and lost most of the calls to be counted.  A run whose ring
# buffer overran says so (its mean is of the calls kept, its count low).
timed() {
	local lost
	echo 0 > $T/tracing_on; echo nop > $T/current_tracer; echo > $T/trace
	# 16 MB a CPU: a 3 s flow of wire-size packets is some 55,000 calls
	echo 16384 > $T/buffer_size_kb
	# a function this build does not have (inlined, renamed): no figures
	if ! echo "$1" > $T/set_ftrace_filter 2> /dev/null; then
		echo "no traceable $1 in this build" >&2
		echo "0 0 - -"
		return 0
	fi
	echo function_graph > $T/current_tracer
	echo 1 > $T/tracing_on
	# a cap: iperf3's control connection has no timeout of its own, and
	# one run hung after 26 of 27 cases (qemu busy, the console silent)
	timeout $((SECS + 30)) ip netns exec s iperf3 -c $D -p 5201 \
		-t "$SECS" -b 200M -f m > "$OUT/iperf3" ||
		echo "iperf3 ended with $? ($1)" >&2
	echo 0 > $T/tracing_on
	lost=$(tracefs_lost)
	[ "$lost" = 0 ] || echo "the trace lost $lost events ($1): too few calls counted" >&2
	awk -v f="$1" '$0 ~ f && /us +\|/ {
		for (i = 1; i <= NF; i++) if ($(i + 1) == "us") { n++; s += $i; break } }
		END { printf "%d %.0f ", n, n ? s * 1000 / n : 0 }' $T/trace
	awk '/sender$/ { for (i = 1; i <= NF; i++) if ($i == "Mbits/sec") r = $(i - 1) " " $(i + 1) }
		END { print r ? r : "- -" }' "$OUT/iperf3"
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
}

# setcase CASE - the router's hpcc_int device for CASE
setcase() {
	[ "$1" = plain ] && return 0
	ip netns exec r "$CTL" int del dev vu > /dev/null 2>&1
	case "$1" in
	probes) ip netns exec r "$CTL" int add dev vu rate 10gbit ;;
	fcr) ip netns exec r "$CTL" int add dev vu rate 10gbit \
		fcr-qlen-high 100000000 fcr-qlen-low 50000000 \
		fcr-interval 32000 ;;
	esac
}

# the modules take turns within each repetition, so that a slower spell of
# the emulator falls on all of them
for rep in $(seq "$REPS"); do
	for m in $MODULES; do
		name=${m%%=*} path=${m#*=}
		modprobe -r hpcc_int 2>/dev/null
		for c in plain probes fcr; do
			# plain: the module is not loaded at all
			if [ $c = probes ]; then
				if [ -n "$path" ]; then insmod "$path"; else modprobe hpcc_int; fi ||
					exit 1
			fi
			setcase $c || exit 1
			read -r n fwd mbps retr <<< "$(timed ip_forward)"
			hook=0 walks=0 walk=0 nh=1
			if [ $c != plain ]; then
				read -r nh hook _ _ <<< "$(timed hpcc_int_hook)"
				read -r walks walk _ _ <<< "$(timed hpcc_int_qdisc)"
			fi
			# walks per hook call (of the pass before, the same
			# 200 Mbit/s flow) and a walk's time
			echo "$name $c $rep $n $fwd $hook $mbps $retr $nh $walks $walk" |
				tee -a "$OUT/raw"
		done
	done
done
modprobe -r hpcc_int
echo 1408 > $T/buffer_size_kb  # the kernel's default

# medians and ranges; each case's ip_forward against plain's
python3 -S - "$OUT/raw" "$SECS" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
def med(v):
    v = sorted(v)
    return v[len(v) // 2]
secs = float(sys.argv[2])
def num(v):
    return [float(x) for x in v if x != "-"] or [0.0]
print("%-8s %-7s %9s %22s %22s %8s %7s %5s %9s %8s" % ("module", "case", "packets/s", "ip_forward ns [range]", "hook ns [range]", "x plain", "Mbit/s", "retr", "walks/pkt", "walk ns"))
for name in dict.fromkeys(r[0] for r in rows):
    base = med([float(r[4]) for r in rows if r[0] == name and r[1] == "plain"])
    for c in ("plain", "probes", "fcr"):
        sel = [r for r in rows if r[0] == name and r[1] == c]
        f = [float(r[4]) for r in sel]
        h = [float(r[5]) for r in sel]
        n = [float(r[3]) for r in sel]
        m = num([r[6] for r in sel])
        t = num([r[7] for r in sel])
        w = [float(r[9]) / max(float(r[8]), 1) for r in sel]
        wn = [float(r[10]) for r in sel]
        print("%-8s %-7s %9.0f %8.0f [%5.0f-%5.0f] %8.0f [%5.0f-%5.0f] %8.2f %7.1f %5.0f %9.3f %8.0f" % (
            name, c, med(n) / secs, med(f), min(f), max(f), med(h), min(h), max(h),
            med(f) / base if base else 0, med(m), med(t), med(w), med(wn)))
EOF
rm -rf "$OUT"
