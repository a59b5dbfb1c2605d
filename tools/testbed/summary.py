#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize one testbed run (tools/testbed/testbed.sh tb_run) as JSON.

  summary.py --cc CC --rate-mbit R DIR

reads DIR/flow*.json (iperf3 -J, one per flow) and DIR/queue.tsv (qsample:
t_ms backlog_bytes qlen_pkts drops) and prints one JSON object:
cc, flows, goodput_mbit (sum), goodput_pct (of R), per_flow_mbit, jain
(Jain's fairness index of the per-flow goodputs), retransmits (sum),
queue_p50 / queue_p99 / queue_max (bytes), queue_samples, drops (the
bottleneck's, during the run), min_rtt_us / mean_rtt_us (the
flows' TCP RTTs, as iperf3 reports them), errors (flows whose iperf3 failed).
"""
import argparse
import glob
import json
import math
import os
import sys


def pct(sorted_v, p):
    """Nearest-rank percentile."""
    if not sorted_v:
        return 0
    k = max(1, math.ceil(p / 100.0 * len(sorted_v)))
    return sorted_v[min(k, len(sorted_v)) - 1]


def jain(x):
    if not x or not any(x):
        return 0.0
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--rate-mbit", type=float, required=True)
    ap.add_argument("dir")
    a = ap.parse_args()

    flows, retrans, errors, min_rtt, mean_rtt = [], 0, [], [], []
    files = sorted(glob.glob(os.path.join(a.dir, "flow*.json")),
                   key=lambda f: int(os.path.basename(f)[4:-5]))
    for f in files:
        try:
            with open(f) as fh:
                r = json.load(fh)
            e = r["end"]
            flows.append(e["sum_received"]["bits_per_second"] / 1e6)
            retrans += e["sum_sent"].get("retransmits", 0)
            snd = e["streams"][0]["sender"]
            if snd.get("min_rtt"):
                min_rtt.append(snd["min_rtt"])
                mean_rtt.append(snd.get("mean_rtt", 0))
        except (ValueError, KeyError, OSError) as err:
            errors.append("%s: %s" % (os.path.basename(f), err))
            flows.append(0.0)
    backlog, drops = [], []
    try:
        with open(os.path.join(a.dir, "queue.tsv")) as fh:
            for line in fh:
                t, b, _q, d = (int(x) for x in line.split())
                backlog.append(b)
                drops.append(d)
    except OSError as err:
        errors.append("queue.tsv: %s" % err)
    backlog.sort()
    out = {
        "cc": a.cc,
        "flows": len(flows),
        "goodput_mbit": round(sum(flows), 3),
        "goodput_pct": round(100 * sum(flows) / a.rate_mbit, 1),
        "per_flow_mbit": [round(x, 3) for x in flows],
        "jain": round(jain(flows), 4),
        "retransmits": retrans,
        "queue_p50": pct(backlog, 50),
        "queue_p99": pct(backlog, 99),
        "queue_max": backlog[-1] if backlog else 0,
        "queue_samples": len(backlog),
        "drops": (drops[-1] - drops[0]) if drops else 0,
        "min_rtt_us": min(min_rtt) if min_rtt else 0,
        "mean_rtt_us": round(sum(mean_rtt) / len(mean_rtt)) if mean_rtt else 0,
        "errors": errors,
    }
    json.dump(out, sys.stdout)
    print()
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
