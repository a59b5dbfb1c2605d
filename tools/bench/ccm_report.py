#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tools/bench/ccm_report.py OUT - the report of tools/bench/ccm.sh's runs.

Per run (OUT/VARIANT-REP/): rates.raw's samples of the two uplinks' byte
counters give each uplink's rate per 100 ms; t_add (meta.txt) is when the
second spine joined.  Figures:

  fabric %      the bytes both uplinks sent from t_add to the flows' end,
                over what 2 x B would have sent (B: the uplinks' tbf rate)
  last-10s %    the same over the flows' last 10 seconds
  resolve s     seconds from t_add until the first 100 ms sample from
                which each uplink averages at least RESOLVED (0.7) x B over
                the next second: the collision is over, both spines carry
                traffic; "never" when no such second exists before the end
  changes       path changes (meta.txt: hpcc's ccm-reroutes and
                ccm-ar-reroutes, or dctcp's TcpExtTCPPLBRehash, summed over
                the senders); own: the host rule's (ccm-reroutes) alone,
                the rest were type 3 notifications
  after t_add   of those, the ones at or after t_add (the hpcc_ccm
                tracepoint's records in ccm_trace.txt, on the trace's
                clock from meta.txt's t0_mono): the ones before answered
                the flows' start on the one spine there was; "-" without
                a trace (dctcp's PLB has no tracepoint)
  goodput %     iperf3's received bits per second summed over the flows
                (the whole run, before t_add included), over 2 x B
  Jain          Jain's fairness index of the flows' goodputs (1: equal;
                1/N: one flow has it all)

The incast scenario (incast-VARIANT-REP: flows 1 and 2 to one receiver
whose last hop is slowed, flows 3 and 4 in the collision) adds: path
changes of the incast flows and of the collided ones (meta.txt's
flow_changes), and each group's goodput in Mbit/s.  The flap scenario
(flap-VARIANT-REP: flows 1 to 3 while UDP loads one spine, then the other)
adds: path changes per flow per second (the flow that changed most),
goodput % of 2 x B, Jain's index, and the UDP's delivered rate in
Mbit/s (meta.txt's udp_mbit: RED drops UDP where dctcp's flows fill the
queue, a bfifo under HPCC's low queue does not).

Each figure is reported as the median over the repetitions with its range
(min-max); the report is OUT/report.md, also printed.
"""
import json
import os
import re
import statistics
import sys

RESOLVED = 0.7
# the variants, in the tables' order
VARIANTS = ("hpcc-ccm", "hpcc-ccms", "hpcc", "dctcp-plb")


def read_meta(d):
    m = {}
    with open(os.path.join(d, "meta.txt")) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            m[k] = v
    return m


def rates(d):
    """[(t_s, bits/s of u1, bits/s of u2)] per sample interval"""
    rows = []
    with open(os.path.join(d, "rates.raw")) as f:
        for line in f:
            p = line.split()
            if len(p) == 3:
                try:
                    rows.append((float(p[0]), int(p[1]), int(p[2])))
                except ValueError:
                    pass
    out = []
    for a, b in zip(rows, rows[1:]):
        dt = b[0] - a[0]
        if dt > 0:
            out.append((b[0], (b[1] - a[1]) * 8 / dt, (b[2] - a[2]) * 8 / dt,
                        dt))
    return rows, out


def flow_rates(d, n):
    """each flow's received bits per second (0 for a flow without result)"""
    r = []
    for i in range(1, n + 1):
        try:
            with open(os.path.join(d, "flow%d.json" % i)) as f:
                j = json.load(f)
            r.append(float(j["end"]["sum_received"]["bits_per_second"]))
        except (OSError, ValueError, KeyError):
            r.append(0.0)
    return r


def goodput(d, n):
    return sum(flow_rates(d, n))


def jain(x):
    """Jain's index of x; None when every value is 0"""
    sq = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * sq) if sq else None


def one(d, b, nflows, dur=None):
    meta = read_meta(d)
    tadd = float(meta["t_add"])
    rows, r = rates(d)
    if not rows:
        return None
    # the flows' end: the sampler runs until every iperf3 has exited,
    # which can be many seconds later (42 s after t0 for 25 s flows in
    # one run, whose "last 10 s" would then read 0 %)
    end = rows[-1][0]
    if dur and "t0" in meta:
        end = min(end, float(meta["t0"]) + dur)

    def util(t_from):
        sel = [x for x in rows if t_from <= x[0] <= end]
        if len(sel) < 2:
            return float("nan")
        dt = sel[-1][0] - sel[0][0]
        bits = ((sel[-1][1] - sel[0][1]) + (sel[-1][2] - sel[0][2])) * 8
        return bits / (2 * b * dt)

    resolve = None
    for i, (t, _, _, _) in enumerate(r):
        if t < tadd:
            continue
        win = [x for x in r[i:] if x[0] <= t + 1.0]
        if not win or win[-1][0] < t + 0.9:
            break
        w = sum(x[3] for x in win)
        u1 = sum(x[1] * x[3] for x in win) / w
        u2 = sum(x[2] * x[3] for x in win) / w
        if u1 >= RESOLVED * b and u2 >= RESOLVED * b:
            resolve = t - tadd
            break
    # the path changes at or after t_add, from the tracepoint's records
    # (hpcc's: a run without own_changes is dctcp's, whose PLB has none)
    after = None
    trace = os.path.join(d, "ccm_trace.txt")
    if "t0_mono" in meta and "t0" in meta and "own_changes" in meta and \
            os.path.exists(trace):
        tm = float(meta["t0_mono"]) + tadd - float(meta["t0"])
        after = 0
        with open(trace) as f:
            for line in f:
                m = re.search(r"\s(\d+\.\d+): hpcc_ccm:", line)
                if m and float(m.group(1)) >= tm:
                    after += 1
    return {
        "fabric": util(tadd),
        "after": after,
        "last10": util(end - 10),
        "resolve": resolve,
        "changes": int(meta.get("path_changes", 0)),
        "own": int(meta["own_changes"]) if "own_changes" in meta else None,
        "goodput": goodput(d, nflows) / (2 * b),
        "jain": jain(flow_rates(d, nflows)),
        "flow_changes": [int(x) for x in meta.get("flow_changes", "").split()],
        "udp": float(meta["udp_mbit"]) if "udp_mbit" in meta else None,
        "flow_rates": flow_rates(d, len(meta.get("flow_changes", "").split())
                                 or nflows),
    }


def fmt(vals, f, never=None):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "never"
    med = statistics.median(vals)
    s = "%s [%s-%s]" % (f(med), f(min(vals)), f(max(vals)))
    if never:
        s += " (never in %d)" % never
    return s


def main():
    out = sys.argv[1]
    setup = open(os.path.join(out, "setup.txt")).read()
    b = float(re.search(r"tbf (\d+) Mbit/s", setup).group(1)) * 1e6
    nflows = int(re.search(r"(\d+) senders", setup).group(1))
    dur = float(re.search(r"x (\d+) s", setup).group(1))
    runs = {}
    for name in sorted(os.listdir(out)):
        d = os.path.join(out, name)
        m = re.match(r"(.*)-(\d+)$", name)
        if not m or not os.path.exists(os.path.join(d, "meta.txt")):
            continue
        res = one(d, b, nflows, dur)
        if res:
            runs.setdefault(m.group(1), []).append(res)
    pct = lambda v: "%.0f" % (100 * v)
    lines = ["# ECMP collision on the leaf-spine testbed", "", "```", setup.rstrip(), "```", "",
             "| variant | runs | fabric % after t_add | last 10 s % | resolve s | path changes | after t_add | goodput % | Jain |",
             "|---|---|---|---|---|---|---|---|---|"]
    for v in VARIANTS:
        rs = runs.get(v)
        if not rs:
            continue
        never = sum(1 for x in rs if x["resolve"] is None)
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            v, len(rs),
            fmt([x["fabric"] for x in rs], pct),
            fmt([x["last10"] for x in rs], pct),
            fmt([x["resolve"] for x in rs], lambda t: "%.1f" % t, never),
            fmt([x["changes"] for x in rs], lambda c: "%d" % c) +
            ("" if any(x["own"] is None for x in rs) else
             " (own %s)" % fmt([x["own"] for x in rs], lambda c: "%d" % c)),
            "-" if any(x["after"] is None for x in rs) else
            fmt([x["after"] for x in rs], lambda c: "%d" % c),
            fmt([x["goodput"] for x in rs], pct),
            fmt([x["jain"] for x in rs], lambda j: "%.2f" % j)))
    lines += ["", "Median [min-max] over the runs; resolve: each uplink at %.0f %% of B "
              "or more for a second, from the second spine's addition." % (100 * RESOLVED)]
    mbit = lambda v: "%.1f" % (v / 1e6)
    cnt = lambda c: "%d" % c
    two = lambda v: "%.2f" % v
    # the other scenarios' tables: title, then per column its heading
    # and its cell (a function of the runs)
    scenarios = (
        ("incast", "Incast at the last hop with the collision", (
            ("incast flows' path changes",
             lambda rs: fmt([sum(x["flow_changes"][:2]) for x in rs], cnt)),
            ("collided flows' path changes",
             lambda rs: fmt([sum(x["flow_changes"][2:]) for x in rs], cnt)),
            ("incast goodput Mbit/s",
             lambda rs: fmt([sum(x["flow_rates"][:2]) for x in rs], mbit)),
            ("collided goodput Mbit/s",
             lambda rs: fmt([sum(x["flow_rates"][2:]) for x in rs], mbit)),
            ("fabric % after t_add",
             lambda rs: fmt([x["fabric"] for x in rs], pct)))),
        ("flap", "Flap: UDP on one spine, then the other, every few seconds", (
            ("path changes per flow per s (most)",
             lambda rs: fmt([max(x["flow_changes"] or [0]) / dur for x in rs], two)),
            ("path changes (all flows)",
             lambda rs: fmt([sum(x["flow_changes"]) for x in rs], cnt)),
            ("goodput %",
             lambda rs: fmt([sum(x["flow_rates"]) / (2 * b) for x in rs], pct)),
            ("Jain", lambda rs: fmt([jain(x["flow_rates"]) for x in rs], two)),
            ("UDP Mbit/s",
             lambda rs: fmt([x["udp"] * 1e6 for x in rs
                             if x["udp"] is not None], mbit)
             if any(x["udp"] is not None for x in rs) else "-"))),
    )
    for sc, title, cols in scenarios:
        vs = [(v, runs[sc + "-" + v]) for v in VARIANTS
              if sc + "-" + v in runs]
        if not vs:
            continue
        lines += ["", "## " + title, "",
                  "| variant | runs | " + " | ".join(h for h, _ in cols) + " |",
                  "|---|---|" + "---|" * len(cols)]
        for v, rs in vs:
            lines.append("| %s | %d | %s |" % (v, len(rs),
                                               " | ".join(c(rs) for _, c in cols)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
