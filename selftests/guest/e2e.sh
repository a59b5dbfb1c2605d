#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End to end on real TCP flows: the testbed's dumbbell with one flow
# (tools/testbed/testbed.sh: tbf bottleneck, hpcc_int.ko stamping at the
# router, hpccd in every host).  One hpcc flow against one cubic flow in
# the same boot: hpcc gets at least 75 % of cubic's goodput with a p99
# queue below a third of cubic's; its probes carry the hop's record, over
# IPv4 and, in the same dual-stack testbed, over IPv6; with hpccd stopped,
# hpcc falls back and still moves data.  Runs as root in a
# guest; E2E_SECONDS sets each flow's length (default 8).  Each law runs
# E2E_RUNS times (default 5), alternating, and the test compares the
# median goodputs and the p99 of all queue samples: one 8 s hpcc run on the
# emulated CPUs varies by about 1.5 Mbit/s (sd), and now and then a run
# loses packets outside the bottleneck queue and recovers in the fallback
# law (32 Mbit/s once), which one run, or a mean, would take for the law.
# With three runs, one such run and one low one put the median at 79 % of
# cubic's (6.1: 38.8, 32.8, 37.4 Mbit/s against 47.6).
# The bound is a regression guard, not the target: hpcc's runs are steady
# (36.3-38.4 Mbit/s in one boot) but sit at 80-84 % of cubic's, so a bound
# of 80 % fails on a median of 79.96 % (6.1, 37.9 against 47.4).  That
# shortfall is the control loop's (Documentation/evaluation.rst: S1
# reaches 80 % of the bottleneck, dctcp 94 %); the bound is to rise when
# the loop reaches more.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
. "$TOP/tools/testbed/testbed.sh"

CTL=$TOP/build/hpccctl
SECS=${E2E_SECONDS:-8}
RUNS=${E2E_RUNS:-5}
OUT=$TOP/build/e2e/$(uname -r)
trap tb_down EXIT

# sum DIR KEY - a field of DIR/summary.json
sum() {
	python3 -S -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$1/summary.json" "$2"
}

# flow_json - the sender's flow from port 6001, hpccctl -j, to $OUT/flow.json
flow_json() {
	ip netns exec tbs1 "$CTL" -j flow show sport 6001 > "$OUT/flow.json.tmp" &&
		mv "$OUT/flow.json.tmp" "$OUT/flow.json"
}

setup() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	# what else the guest is running (earlier tests must leave nothing)
	echo "loadavg $(cat /proc/loadavg)"
	ps -eo pid,pcpu,etimes,comm --sort=-pcpu | head -6
	# dual stack: the runs' flow 1 is IPv4, stamped6's is IPv6
	TB_FAMILY=dual
	tb_up dumbbell 1 && tb_describe &&
	# warm-up, not measured: binaries and libraries come over 9p into the
	# page cache, ARP and routes settle (the first measured runs were
	# slower for both laws without it)
	tb_run cubic 1 2 "$OUT/warmup" >/dev/null
}

# drops - every non-zero rx/tx drop counter of the testbed's devices
drops() {
	local ns
	for ns in $(tb_ns_all); do
		ip -n "$ns" -s -j link show | python3 -S -c '
import json, sys
for l in json.load(sys.stdin):
    s = l.get("stats64", {})
    d = {k + "_dropped": s[k]["dropped"] for k in ("rx", "tx") if s.get(k, {}).get("dropped")}
    if d:
        print(sys.argv[1], l["ifname"], d)' "$ns"
	done
}

runs() {
	local r
	for ((r = 1; r <= RUNS; r++)); do
		tb_run cubic 1 "$SECS" "$OUT/cubic$r" || return 1
		# the flow's state halfway through the first hpcc run
		[ $r = 1 ] && { sleep $((SECS / 2)); flow_json; } &
		tb_run hpcc 1 "$SECS" "$OUT/hpcc$r" || return 1
		wait
	done
	cat "$OUT"/cubic?/summary.json "$OUT"/hpcc?/summary.json
	drops
}

# both CC - the summaries of CC's RUNS runs, combined: median goodput,
# p99 and sample count of all queue samples, and any errors, as JSON
both() {
	python3 - "$OUT" "$1" "$RUNS" <<'PY'
import json, math, statistics, sys
out, cc = sys.argv[1], sys.argv[2]
runs = range(1, int(sys.argv[3]) + 1)
s = [json.load(open("%s/%s%d/summary.json" % (out, cc, r))) for r in runs]
q = []
for r in runs:
    with open("%s/%s%d/queue.tsv" % (out, cc, r)) as fh:
        q += [int(line.split()[1]) for line in fh]
q.sort()
p99 = q[max(1, math.ceil(0.99 * len(q))) - 1] if q else 0
print(json.dumps({"goodput_mbit": statistics.median(x["goodput_mbit"] for x in s),
                  "runs_mbit": [x["goodput_mbit"] for x in s],
                  "queue_p99": p99, "queue_samples": len(q),
                  "errors": sum((x["errors"] for x in s), [])}))
PY
}

goodput() {
	both cubic > "$OUT/cubic.json" && both hpcc > "$OUT/hpcc.json" &&
	python3 - "$OUT" <<'PY'
import json, sys
c = json.load(open(sys.argv[1] + "/cubic.json"))
h = json.load(open(sys.argv[1] + "/hpcc.json"))
r = h["goodput_mbit"] / c["goodput_mbit"] if c["goodput_mbit"] else 0
print("hpcc %.1f Mbit/s %s = %.0f%% of cubic's %.1f %s" % (h["goodput_mbit"],
      h["runs_mbit"], 100 * r, c["goodput_mbit"], c["runs_mbit"]))
sys.exit(0 if r >= 0.75 and not h["errors"] and not c["errors"] else 1)
PY
}

queue() {
	python3 - "$OUT" <<'PY'
import json, sys
c = json.load(open(sys.argv[1] + "/cubic.json"))
h = json.load(open(sys.argv[1] + "/hpcc.json"))
print("queue p99: hpcc %d B, cubic %d B (samples %d, %d)" % (
      h["queue_p99"], c["queue_p99"], h["queue_samples"], c["queue_samples"]))
ok = h["queue_samples"] > 100 and c["queue_samples"] > 100 and \
     c["queue_p99"] > 0 and h["queue_p99"] * 3 < c["queue_p99"]
sys.exit(0 if ok else 1)
PY
}

stamped() {
	local ifi
	ifi=$(ip -n tbr -o link show br0 | cut -d: -f1)
	python3 - "$OUT/flow.json" "$ifi" "$(stat -L -c %i /run/netns/tbr)" <<'PY'
import json, sys
fl = json.load(open(sys.argv[1]))
f = fl[0]
h = f["hops"]
print("mode %s, samples %d, hops %s" % (f["mode-name"], f["samples"], h))
ok = (len(fl) == 1 and len(h) == 1 and h[0]["rate"] == 50000000 and
      h[0]["port-id"] == int(sys.argv[2]) and h[0]["switch-id"] == int(sys.argv[3]) and
      f["samples"] > 0 and f["mode-name"] == "hpcc")
sys.exit(0 if ok else 1)
PY
}

# The same through the testbed over IPv6 (TB_FAMILY=dual, this flow on
# IPv6): mid-run the flow is an IPv6 one in HPCC mode with fresh telemetry
# and the one record of br0's hop.
stamped6() {
	local ifi
	ifi=$(ip -n tbr -o link show br0 | cut -d: -f1)
	{ sleep 3; flow_json; } &
	TB_FLOW_FAMILY=6 tb_run hpcc 1 5 "$OUT/hpcc-v6" || return 1
	wait
	python3 - "$OUT/flow.json" "$ifi" "$(stat -L -c %i /run/netns/tbr)" \
		"$OUT/hpcc-v6/summary.json" <<'PY'
import json, sys
fl = json.load(open(sys.argv[1]))
f = fl[0]
h = f["hops"]
g = json.load(open(sys.argv[4]))["goodput_mbit"]
print("IPv6: family %d %s, mode %s, samples %d, telemetry age %s us, hops %s; %.1f Mbit/s" % (
      f["family"], f.get("daddr6"), f["mode-name"], f["samples"],
      f.get("telemetry-age"), h, g))
ok = (len(fl) == 1 and f["family"] == 10 and len(h) == 1 and
      h[0]["port-id"] == int(sys.argv[2]) and h[0]["switch-id"] == int(sys.argv[3]) and
      f["mode-name"] == "hpcc" and f.get("telemetry-age", 1 << 62) < 200000 and g > 0)
sys.exit(0 if ok else 1)
PY
}

fallback() {
	local ns
	for ns in tbs1 tbd1; do tb_hpccd_stop "$ns"; done
	sleep 0.5
	# 5 s: the mode and the goodput floor need no more (make check's time)
	{ sleep 2; flow_json; } &
	tb_run hpcc 1 5 "$OUT/nodaemon" || return 1
	wait
	cat "$OUT/nodaemon/summary.json"
	python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/nodaemon/summary.json"))
f = json.load(open(sys.argv[1] + "/flow.json"))[0]
print("without hpccd: mode %s, samples %d, %.1f Mbit/s" % (
      f["mode-name"], f["samples"], d["goodput_mbit"]))
sys.exit(0 if f["mode-name"] == "fallback" and f["samples"] == 0 and
         d["goodput_mbit"] >= 10 and not d["errors"] else 1)
PY
}

ktap_print_header
ktap_set_plan 7
t "dumbbell with one sender and one receiver" setup
t "cubic, hpcc $RUNS times each: one flow at a time through the bottleneck" runs
t "hpcc median goodput >= 75% of cubic's" goodput
t "hpcc queue p99 < 1/3 of cubic's (all samples of the $RUNS runs)" queue
t "flow-get shows one hop: the router's switch-id, br0's ifindex, B = 50 Mbit/s" stamped
t "over IPv6 (dual-stack testbed): HPCC mode, fresh telemetry, br0's record" stamped6
t "without hpccd, hpcc falls back and still moves data (>= 10 Mbit/s)" fallback
ktap_finished
