#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/sim/report.py DIR - tables and plots of tools/sim/run's runs.

Each run directory of DIR (NAME/summary.json and NAME/flows.csv, written
by build/hpcc-sim) is grouped by scenario (workload, load, incast) and
algorithm.  Writes DIR/report.md with, per scenario:

* FCT slowdown (FCT over the flow's FCT alone on the empty network) at
  p50, p95 and p99 in size buckets, all flows and flows under 100 kB;
* switch queue p99 (ToR ports toward hosts, and fabric ports), bytes,
  sampled at every packet's arrival;
* long flows' (1 MB and more) median goodput, Gbit/s;
* drops, retransmission timeouts (incast flows' apart), ECN marks;
* the probe path: probes, samples per host per ms, fallbacks;
* FCR: messages the hops sent, and those the senders took;

and DIR/slowdown-SCENARIO.png, p99 slowdown per size bucket.  Runs
named VARIANT-collision-sSEED (long flows between two leaves, path
changes against ECMP collisions) get their own table: per variant, over
the seeds, the first leaf's uplinks ECMP gave the flows at the start
(fewer than the flows: a collision), their utilization (the run and its
second half), of the collided seeds those in which every uplink ended above 70
% of its rate (and from when), path changes, drops and timeouts; and
DIR/collision.png, the uplinks' mean utilization over time.
"""
import csv
import json
import os
import re
import sys

BUCKETS = [(0, 10e3, "<10K"), (10e3, 100e3, "10K-100K"), (100e3, 1e6, "100K-1M"),
           (1e6, 10e6, "1M-10M"), (10e6, 1e12, ">10M")]


def pct(vals, q):
    """The q-quantile (0..1) of vals by the nearest rank; None if empty."""
    if not vals:
        return None
    s = sorted(vals)
    i = max(0, min(len(s) - 1, int(-(-q * len(s) // 1)) - 1))
    return s[i]


def fmt(v, f="%.2f"):
    return "-" if v is None else f % v


def load(d):
    runs = {}
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if not os.path.isfile(os.path.join(p, "summary.json")):
            continue
        m = re.match(r"(.+?)-((?:websearch|fb_hadoop).*)-s(\d+)$", name)
        if not m:
            continue
        algo, scen, seed = m.group(1), m.group(2), int(m.group(3))
        with open(os.path.join(p, "summary.json")) as f:
            summ = json.load(f)
        with open(os.path.join(p, "flows.csv")) as f:
            flows = list(csv.DictReader(f))
        runs.setdefault(scen, {}).setdefault(algo, []).append((seed, summ, flows))
    return runs


def stats(entries):
    """Merge the seeds of one algorithm in one scenario."""
    sd, short, bucket, good = [], [], {b[2]: [] for b in BUCKETS}, []
    agg = {"drops": 0, "rtos": 0, "incast_rtos": 0, "marks": 0, "probes": 0,
           "samples_pushed": 0, "samples_shareable": 0, "unfinished": 0,
           "flows": 0, "fallbacks": 0,
           "fcr_sent": 0, "fcr_accepted": 0}
    qt, qf, hosts, span = [], [], 0, 0.0
    for _, summ, flows in entries:
        for k in agg:
            if k in summ:
                agg[k] += summ[k]
        # runs of a model without the count show none
        if "samples_shareable" not in summ:
            agg["samples_shareable"] = -1e18
        qt.append(summ["queue_tor_down_p99_bytes"])
        qf.append(summ["queue_fabric_p99_bytes"])
        hosts = summ["hosts"]
        span += summ["sim_end_s"]
        for f in flows:
            agg["fallbacks"] += int(f["fallbacks"])
            s = float(f["slowdown"])
            if s < 0:
                continue
            size = int(f["size"])
            sd.append(s)
            if size < 100e3:
                short.append(s)
            for lo, hi, name in BUCKETS:
                if lo <= size < hi:
                    bucket[name].append(s)
            if size >= 1e6:
                good.append(size * 8 / float(f["fct"]) / 1e9)
    return {"all": sd, "short": short, "bucket": bucket, "good": good, "agg": agg,
            "qtor": max(qt), "qfab": max(qf), "hosts": hosts, "span": span}


def med(vals, f="%.2f"):
    """median [min-max] of vals"""
    if not vals:
        return "-"
    return (f + " [" + f + "-" + f + "]") % (pct(vals, .5), min(vals), max(vals))


def collision(d):
    """The collision scenario's table and plot, as report.md lines."""
    runs = {}
    for name in sorted(os.listdir(d)):
        m = re.match(r"(.+?)-collision-s(\d+)$", name)
        p = os.path.join(d, name)
        if not m or not os.path.isfile(os.path.join(p, "summary.json")):
            continue
        with open(os.path.join(p, "summary.json")) as f:
            summ = json.load(f)
        series = []
        if os.path.isfile(os.path.join(p, "series.csv")):
            with open(os.path.join(p, "series.csv")) as f:
                series = [[float(x) for x in r] for r in list(csv.reader(f))[1:]]
        runs.setdefault(m.group(1), []).append((int(m.group(2)), summ, series))
    if not runs:
        return []
    out = ["## collision", "",
           "| variant | seeds | uplinks used at start | uplink use % | second half % "
           "| collided seeds resolved (median us) | path changes | drops | RTOs |",
           "|" + "---|" * 9]
    for v in sorted(runs):
        e = runs[v]
        start, collided, res = [], 0, []
        for _, s, _ in e:
            # ECMP's placement of the pairs before any path change: the
            # same for every variant of a seed
            used = s["uplinks_at_start"]
            start.append(used)
            if used < min(s["pairs"], s["uplinks"]):
                collided += 1
                if s["resolve_s"] >= 0:
                    res.append(s["resolve_s"] * 1e6)
        out.append("| %s | %d | %s | %s | %s | %d of %d (%s) | %s | %d | %d |" % (
            v, len(e), med(start, "%d"),
            med([s["uplink_util"] * 100 for _, s, _ in e], "%.0f"),
            med([s["uplink_util_last_half"] * 100 for _, s, _ in e], "%.0f"),
            len(res), collided, "%.0f" % pct(res, .5) if res else "-",
            med([s["path_changes"] for _, s, _ in e], "%d"),
            sum(s["drops"] for _, s, _ in e), sum(s["rtos"] for _, s, _ in e)))
    out.append("")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for v in sorted(runs):
            rows = [ser for _, _, ser in runs[v] if ser]
            if not rows:
                continue
            n = min(len(r) for r in rows)
            xs = [rows[0][i][0] * 1e3 for i in range(n)]
            ys = [100 * sum(sum(r[i][1:]) / len(r[i][1:]) for r in rows) / len(rows)
                  for i in range(n)]
            ax.plot(xs, ys, label=v)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("first leaf's uplinks, % of their rate (mean of seeds)")
        ax.set_ylim(0, 105)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(d, "collision.png"), dpi=100)
        plt.close(fig)
        out += ["![uplink use over time](collision.png)", ""]
    except ImportError:
        out += ["(no matplotlib: no plot)", ""]
    return out


def main():
    d = sys.argv[1]
    runs = load(d)
    out = ["# ns-3 model: %s" % os.path.basename(os.path.normpath(d)), ""]
    for scen in sorted(runs):
        algos = sorted(runs[scen])
        st = {a: stats(runs[scen][a]) for a in algos}
        out += ["## %s" % scen, ""]
        out += ["| algorithm | flows | p50 | p95 | p99 | p99 <100K | queue p99 ToR->host KB "
                "| queue p99 fabric KB | long goodput Gb/s | drops | RTOs (incast) | marks "
                "| samples/host/ms | shareable | fallbacks | FCR messages (taken) |",
                "|" + "---|" * 16]
        for a in algos:
            s = st[a]
            g = s["agg"]
            per = g["samples_pushed"] / max(1, s["hosts"]) / max(1e-9, s["span"] * 1e3)
            out.append("| %s | %d%s | %s | %s | %s | %s | %.0f | %.0f | %s | %d | %d (%d) | %d | %s | %s | %d | %s |" % (
                a, len(s["all"]), " (%d unfinished)" % g["unfinished"] if g["unfinished"] else "",
                fmt(pct(s["all"], .5)), fmt(pct(s["all"], .95)), fmt(pct(s["all"], .99)),
                fmt(pct(s["short"], .99)), s["qtor"] / 1e3, s["qfab"] / 1e3,
                fmt(pct(s["good"], .5), "%.1f"), g["drops"], g["rtos"], g["incast_rtos"],
                g["marks"], "%.1f" % per if g["samples_pushed"] else "-",
                "%.2f %%" % (100.0 * g["samples_shareable"] / g["samples_pushed"])
                if g["samples_pushed"] and g["samples_shareable"] >= 0 else "-",
                g["fallbacks"],
                "%d (%d)" % (g["fcr_sent"], g["fcr_accepted"]) if g["fcr_sent"] else "-"))
        out += ["", "FCT slowdown by flow size (p50 / p95 / p99):", "",
                "| algorithm | " + " | ".join(b[2] for b in BUCKETS) + " |",
                "|" + "---|" * (len(BUCKETS) + 1)]
        for a in algos:
            cells = []
            for b in BUCKETS:
                v = st[a]["bucket"][b[2]]
                cells.append("%s / %s / %s (%d)" % (fmt(pct(v, .5)), fmt(pct(v, .95)),
                                                   fmt(pct(v, .99)), len(v)) if v else "-")
            out.append("| %s | %s |" % (a, " | ".join(cells)))
        out.append("")
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(7, 4))
            for a in algos:
                xs, ys = [], []
                for i, b in enumerate(BUCKETS):
                    v = pct(st[a]["bucket"][b[2]], .99)
                    if v is not None:
                        xs.append(i)
                        ys.append(v)
                ax.plot(xs, ys, marker="o", label=a)
            ax.set_xticks(range(len(BUCKETS)))
            ax.set_xticklabels([b[2] for b in BUCKETS])
            ax.set_yscale("log")
            ax.set_xlabel("flow size (bytes)")
            ax.set_ylabel("p99 FCT slowdown")
            ax.set_title(scen)
            ax.legend(fontsize=8)
            fig.tight_layout()
            png = "slowdown-%s.png" % scen
            fig.savefig(os.path.join(d, png), dpi=100)
            plt.close(fig)
            out += ["![p99 slowdown, %s](%s)" % (scen, png), ""]
        except ImportError:
            out += ["(no matplotlib: no plot)", ""]
    out += collision(d)
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
