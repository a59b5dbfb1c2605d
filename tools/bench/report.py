#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The evaluation report: tools/bench/eval.sh's raw results to Markdown + PNG.

  report.py DIR

reads DIR/meta.txt and DIR/SCENARIO/CC/REP/..., writes DIR/report.md,
DIR/results.json (every per-run metric and the medians) and DIR/*.png.
Every figure in the tables is the median over the repetitions, with the
spread (min-max) in brackets when there is more than one.
Documentation/evaluation.rst defines each metric.
"""
import glob
import json
import math
import os
import re
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# hpcc-n: hpcc with n-flows-source reported; hpcc-ss: hpcc with start
# slow-start; hpcc-e: hpcc with ewma-period 200; hpcc-q, hpcc-w: hpcc with
# the hop's tx-model qdisc, wire; hpcc-m0, hpcc-m2: hpcc with max-stage 0, 2
# (eval.sh, bench_cc); hpcc-fcr: hpcc with Fast Congestion Response;
# hpcc-rx: hpcc run receiver-based; hpcc-u: hpcc with private responses
# that carry only the receiver's U
CC_ORDER = ["hpcc", "hpcc-rx", "hpcc-u", "hpcc-fcr", "hpcc-fcrq", "hpcc-fcrmix", "hpcc-n", "hpcc-ss", "hpcc-e", "hpcc-q", "hpcc-w",
            "hpcc-m0", "hpcc-m2", "cubic", "bbr", "dctcp"]
COLORS = {"hpcc": "tab:red", "hpcc-rx": "crimson", "hpcc-u": "orchid", "hpcc-fcr": "darkred", "hpcc-fcrq": "firebrick", "hpcc-fcrmix": "salmon",
          "hpcc-n": "tab:orange", "hpcc-ss": "tab:brown",
          "hpcc-e": "tab:pink", "hpcc-q": "tab:cyan",
          "hpcc-w": "tab:olive", "hpcc-m0": "tab:gray", "hpcc-m2": "gold",
          "cubic": "tab:blue",
          "bbr": "tab:green", "dctcp": "tab:purple"}
# S5 buckets, upper bounds in bytes (scaled sizes): one packet, IW10,
# one BDP (62.5 KB), 100 KB, 250 KB, the rest
BUCKETS = [(1448, "<=1.4K"), (14480, "1.4-14K"), (62500, "14-62K"),
           (100000, "62-100K"), (250000, "100-250K"), (float("inf"), ">250K")]


def fcr_variant(cc):
    """hpcc-fcr and hpcc-fcrmix: the runs with FCR's counters (eval.sh,
    bench_fcr_if)"""
    return cc.startswith("hpcc-fcr")


def pct(v, p):
    """Nearest-rank percentile of the values v."""
    v = sorted(v)
    if not v:
        return float("nan")
    return v[min(len(v), max(1, math.ceil(p / 100.0 * len(v)))) - 1]


def med(v):
    v = [x for x in v if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return statistics.median(v) if v else float("nan")


def fmt(vals, f="%.1f", scale=1.0):
    """median (min-max) of per-repetition values."""
    v = [x * scale for x in vals if x is not None and not
         (isinstance(x, float) and math.isnan(x))]
    if not v:
        return "n/a"
    m = statistics.median(v)
    if len(v) == 1 or min(v) == max(v):
        return f % m
    return (f + " (" + f + "-" + f + ")") % (m, min(v), max(v))


def read_meta(d):
    m = {}
    with open(os.path.join(d, "meta.txt")) as fh:
        for line in fh:
            k, _, v = line.rstrip("\n").partition(" ")
            m[k] = v
    return m


def runs(d, scen):
    """{cc: [rep dirs, by rep]}"""
    out = {}
    for cc in CC_ORDER:
        reps = sorted(glob.glob(os.path.join(d, scen, cc, "*")),
                      key=lambda p: int(os.path.basename(p)))
        if reps:
            out[cc] = reps
    return out


def counters(d, name="counters"):
    """the change of each counter in D/NAME.before -> D/NAME.after"""
    c = {}
    for when in ("before", "after"):
        try:
            with open(os.path.join(d, name + "." + when)) as fh:
                for line in fh:
                    k, v = line.split()
                    c.setdefault(k, [0, 0])[when == "after"] = int(v)
        except OSError:
            pass
    return {k: v[1] - v[0] for k, v in c.items()}


def hpccd_counters(d):
    """eval.sh's bench_hpccd records: {"ROLE COUNTER": change}, ROLE
    "senders" (namespaces tbs*), "receivers" (tbd*, the dumbbell's
    receivers; tbr is the router) or "other"; empty when the run has
    none.  (tbr* is the router, not a receiver: taken for the receivers,
    it would show their daemons as idle.)  The gauges in HPCCD_GAUGES
    are the "after" record's values, not changes."""
    c = {}
    for when in ("before", "after"):
        try:
            with open(os.path.join(d, "hpccd." + when)) as fh:
                for line in fh:
                    ns, k, v = line.split()
                    role = ("senders" if ns.startswith("tbs") else
                            "receivers" if ns.startswith("tbd") else "other")
                    if k in HPCCD_GAUGES and when == "before":
                        continue
                    c.setdefault(role + " " + k, [0, 0])[when == "after"] += int(v)
        except (OSError, ValueError):
            pass
    return {k: v[1] - v[0] for k, v in c.items()}


# Gauges in eval.sh's bench_hpccd records: the flows in hpccd's table and
# the module's, in each namespace when the record was taken.
HPCCD_GAUGES = ("flows", "module-flows")


# An RTO increments TcpExt's TCPTimeouts only when it fires in Open without
# SACKed data; in Recovery, Disorder (or with SACKed data) and Loss it
# increments one of these instead (tcp_retransmit_timer(),
# net/ipv4/tcp_timer.c).  A run that recorded TCPTimeouts only counts that
# one: rtos() sums the counters present.
RTO_COUNTERS = ("TCPTimeouts", "TCPSackRecoveryFail", "TCPSackFailures",
                "TCPLossFailures", "TCPRenoRecoveryFail", "TCPRenoFailures")


def rtos(c):
    """The RTOs in a run's counters: the sum of RTO_COUNTERS present."""
    return sum(c.get(k, 0) for k in RTO_COUNTERS)


def qsample_t0(d):
    """qsample's t0 (CLOCK_MONOTONIC, us), from its summary line, or None"""
    try:
        with open(os.path.join(d, "queue.txt")) as fh:
            m = re.search(r"t0_us (\d+)", fh.read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


def queue(d):
    """[(t_s, backlog_bytes)] on fctgen's clock when flows.txt has t0."""
    q, q_t0 = [], qsample_t0(d)
    try:
        with open(os.path.join(d, "queue.tsv")) as fh:
            for line in fh:
                t, b = line.split()[:2]
                q.append((int(t) / 1e3, int(b)))
    except OSError:
        return []
    f_t0 = flows_t0(d)
    if q_t0 is not None and f_t0 is not None:
        off = (q_t0 - f_t0) / 1e6
        q = [(t + off, b) for t, b in q]
    return q


def flows_t0(d):
    try:
        with open(os.path.join(d, "flows.txt")) as fh:
            m = re.match(r"# t0_us (\d+)", fh.readline())
            return int(m.group(1)) if m else None
    except OSError:
        return None


def flows(d, name="flows.txt"):
    """fctgen results (NAME in D): list of dicts"""
    out = []
    try:
        with open(os.path.join(d, name)) as fh:
            for line in fh:
                if line.startswith("#"):
                    continue
                f = line.split()
                out.append({"id": int(f[0]), "size": int(f[1]), "src": f[2],
                            "start": int(f[3]) / 1e6, "conn": int(f[4]) / 1e6,
                            "done": int(f[5]) / 1e6, "retrans": int(f[6]),
                            "ok": f[7] == "ok"})
    except OSError:
        pass
    return out


def bins(d, bin_s=0.1):
    """{flow id: {bin: Mbit/s}}"""
    out = {}
    try:
        with open(os.path.join(d, "bins.txt")) as fh:
            for line in fh:
                i, b, n = (int(x) for x in line.split())
                out.setdefault(i, {})[b] = n * 8 / bin_s / 1e6
    except OSError:
        pass
    return out


def summary(d):
    try:
        with open(os.path.join(d, "summary.json")) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


# --- S1 ---------------------------------------------------------------------
def tcp_samples(d):
    """[(t_s, cwnd_bytes, pacing_mbit, srtt_ms)] from tcpsample, t on the
    queue samples' clock (qsample's t0)"""
    out, q_t0 = [], qsample_t0(d) or 0
    try:
        with open(os.path.join(d, "tcp.tsv")) as fh:
            for line in fh:
                t, cwnd, pacing, srtt = (int(x) for x in line.split()[:4])
                out.append(((t - q_t0) / 1e6, cwnd, pacing / 1e6, srtt / 1e3))
    except OSError:
        pass
    return out


def window_use(d):
    """(in flight as % of cwnd, % of samples with the window full) over
    tcpsample's samples after the first second (slow start or the first
    telemetry), or (nan, nan) for a record without the in-flight column.
    A sender that keeps less in flight than cwnd while it has data waiting
    is held back by something else: its pacer or its host."""
    rows = []
    try:
        with open(os.path.join(d, "tcp.tsv")) as fh:
            for line in fh:
                f = [int(x) for x in line.split()]
                if len(f) >= 11:
                    rows.append(f)
    except (OSError, ValueError):
        pass
    if rows:
        rows = [f for f in rows if f[0] - rows[0][0] >= 1000000]
    cwnd = sum(f[1] for f in rows)
    if not rows or not cwnd:
        return float("nan"), float("nan")
    # full: in flight within one segment of cwnd (cwnd_bytes = cwnd x mss)
    full = sum(1 for f in rows if f[5] + 1500 >= f[1])
    return (100.0 * sum(f[5] for f in rows) / cwnd,
            100.0 * full / len(rows))


# the variants of S1 and S2 (tools/bench/eval.sh)
SC_TITLE = {"s1v6": " over IPv6", "s2v6": " over IPv6",
            "s1ioam": " over IPv6 with the router's IOAM as telemetry",
            "s2ioam": " over IPv6 with the router's IOAM as telemetry"}


def s1(d, meta, res, rep, sc="s1"):
    """S1's table (sc "s1"), or S1 over IPv6 (sc "s1v6": the table
    without the plot)"""
    r = runs(d, sc)
    if not r:
        return []
    rate = float(meta["rate_mbit"])
    per = {}
    for cc, reps in r.items():
        for p in reps:
            s = summary(p)
            if not s:
                continue
            c = counters(p)
            use, full = window_use(p)
            per.setdefault(cc, []).append({
                "inflight_pct": use, "window_full_pct": full,
                "goodput_mbit": s["goodput_mbit"],
                "goodput_pct": 100 * s["goodput_mbit"] / rate,
                "queue_p50": s["queue_p50"], "queue_p99": s["queue_p99"],
                "srtt_ms": s["mean_rtt_us"] / 1e3,
                "min_rtt_ms": s["min_rtt_us"] / 1e3,
                "inflation_ms": (s["mean_rtt_us"] - s["min_rtt_us"]) / 1e3,
                "retransmits": s["retransmits"],
                "rtos": rtos(c)})
    res[sc] = per
    # the path's base RTT: the least RTT any S1 flow saw (a flow that keeps a
    # standing queue never sees the base RTT itself)
    base = min([x["min_rtt_ms"] for v in per.values() for x in v
                if x["min_rtt_ms"] > 0] or [float(meta["rtt_ms"])])
    for v in per.values():
        for x in v:
            x["inflation_ms"] = x["srtt_ms"] - base
    res[sc + "_base_rtt_ms"] = base
    cubic = med([x["goodput_mbit"] for x in per.get("cubic", [])])
    md = ["## S1%s: one long flow (%s s)" % (
        SC_TITLE.get(sc, ""), meta["long_s"]), "",
          "| cc | goodput Mbit/s | % of bottleneck | % of cubic | queue p50 KB | "
          "queue p99 KB | mean srtt ms | srtt inflation ms | retransmits | RTOs | "
          "in flight % of cwnd | window full % |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for cc, v in per.items():
        g = [x["goodput_mbit"] for x in v]
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            cc, fmt(g), fmt([x["goodput_pct"] for x in v]),
            fmt([100 * x / cubic for x in g]) if cubic == cubic else "n/a",
            fmt([x["queue_p50"] for x in v], scale=1e-3),
            fmt([x["queue_p99"] for x in v], scale=1e-3),
            fmt([x["srtt_ms"] for x in v]),
            fmt([x["inflation_ms"] for x in v]),
            fmt([x["retransmits"] for x in v], "%d"),
            fmt([x["rtos"] for x in v], "%d"),
            fmt([x["inflight_pct"] for x in v], "%.0f"),
            fmt([x["window_full_pct"] for x in v], "%.0f")))
    md += ["", "srtt: iperf3's mean of the sender's smoothed RTT samples; "
           "inflation: srtt over the base RTT, %.1f ms, the least RTT any S1 "
           "flow saw.  In flight: the sender's unacknowledged bytes as a share "
           "of its cwnd (for hpcc, W in whole segments), and the share of the "
           "100-ms samples in which they filled it to within a segment, after "
           "the first second (tcpsample)." % base, ""]
    if sc != "s1":
        return md

    # time series of one repetition
    fig, ax = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    for cc, reps in r.items():
        p = reps[min(rep, len(reps)) - 1]
        ss = tcp_samples(p)
        q = queue(p)
        if ss:
            ax[0].plot([s[0] for s in ss], [s[1] / 1e3 for s in ss],
                       label=cc, color=COLORS[cc])
            ax[1].plot([s[0] for s in ss], [s[2] for s in ss],
                       label=cc, color=COLORS[cc])
        if q:
            ax[2].plot([t for t, _ in q], [b / 1e3 for _, b in q], label=cc,
                       color=COLORS[cc], linewidth=0.6)
    ax[0].set_ylabel("cwnd (W for hpcc), KB")
    ax[1].set_ylabel("pacing rate, Mbit/s")
    ax[2].set_ylabel("bottleneck queue, KB")
    ax[2].set_xlabel("time, s")
    ax[0].legend(ncol=4)
    ax[0].set_title("S1: one long flow, repetition %d" % rep)
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "s1_timeseries.png"), dpi=90)
    plt.close(fig)
    md += ["![S1 time series](s1_timeseries.png)", ""]
    return md


# --- S2 ---------------------------------------------------------------------
def s2(d, meta, res, sc="s2"):
    r = runs(d, sc)
    if not r:
        return []
    md = ["## S2%s: 2 and 8 long flows (%s s)" % (
        SC_TITLE.get(sc, ""), meta["long_s"]), "",
          "Jain's index of the flows' goodputs (each iperf3 flow's own "
          "average; the flows start within a second of each other).", "",
          "FCR sent / CE marked: the bottleneck hop's FCR messages and "
          "CE marks during the run (the FCR variants).", "",
          "| cc | flows | Jain | queue p50 KB | queue p99 KB | retransmits | "
          "FCR sent / CE marked |",
          "|---|---|---|---|---|---|---|"]
    res[sc] = {}
    for n in (2, 8):
        for cc, reps in r.items():
            v = []
            for p in reps:
                x = summary(os.path.join(p, "n%d" % n))
                if x:
                    c = counters(os.path.join(p, "n%d" % n), "fcr")
                    x = dict(x, fcr_sent=c.get("hop_sent"),
                             ce_marked=c.get("hop_ce-marked"))
                    v.append(x)
            res[sc].setdefault(cc, {})[n] = v
            md.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                cc, n, fmt([s["jain"] for s in v], "%.3f"),
                fmt([s["queue_p50"] for s in v], scale=1e-3),
                fmt([s["queue_p99"] for s in v], scale=1e-3),
                fmt([s["retransmits"] for s in v], "%d"),
                "%s / %s" % (fmt([s["fcr_sent"] for s in v], "%d"),
                             fmt([s["ce_marked"] for s in v], "%d"))
                if fcr_variant(cc) else ""))
    return md + [""]


def same_run_pair(res, base, var, title, text, cols):
    """One same-run comparison table: S1 (sc "s1" + @base/@var) goodput
    and queue, S2's 8-flow Jain index, each cc's medians, @var over @base;
    @cols names the two halves in the header.  Nothing unless both halves
    ran."""
    s1b, s1v, s2b, s2v = "s1" + base, "s1" + var, "s2" + base, "s2" + var
    if (s1v not in res and s2v not in res) or \
            (s1b not in res and s2b not in res):
        return []
    b, v = cols
    md = ["## %s (same run)" % title, "", text, "",
          "| cc | S1 goodput %s | S1 goodput %s | %s/%s | S1 queue p99 KB %s | "
          "%s | S2 8-flow Jain %s | %s |" % (b, v, v, b, b, v, b, v),
          "|---|---|---|---|---|---|---|---|"]
    for cc in res.get(s1v, res.get(s2v, {})):
        g4 = med([x["goodput_mbit"] for x in res.get(s1b, {}).get(cc, [])])
        g6 = med([x["goodput_mbit"] for x in res.get(s1v, {}).get(cc, [])])
        q4 = med([x["queue_p99"] for x in res.get(s1b, {}).get(cc, [])])
        q6 = med([x["queue_p99"] for x in res.get(s1v, {}).get(cc, [])])
        j4 = med([x["jain"] for x in res.get(s2b, {}).get(cc, {}).get(8, [])])
        j6 = med([x["jain"] for x in res.get(s2v, {}).get(cc, {}).get(8, [])])
        md.append("| %s | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f | %.3f |" % (
            cc, g4, g6, g6 / g4 if g4 else float("nan"), q4 / 1e3, q6 / 1e3,
            j4, j6))
    return md + [""]


def ipv6_vs_ipv4(res):
    """IPv6 against IPv4, each cc in the same run"""
    return same_run_pair(
        res, "", "v6", "IPv6 against IPv4",
        "Medians; the ratio is IPv6's over IPv4's.  IPv6's 20-byte larger "
        "header leaves an MSS of 1428 bytes against 1448 (1.4 % less "
        "payload per packet).", ("v4", "v6"))


def ioam_vs_own(res):
    """The router's IOAM trace against hpcc_int's records, both over IPv6,
    each cc in the same run.  Only hpcc reads telemetry; the other ccs show
    what the testbed gives in each half."""
    return same_run_pair(
        res, "v6", "ioam", "IOAM against the project's records",
        "Both over IPv6 through the same router.  IOAM: the router is a "
        "stock Linux IOAM transit node (node_id, interface IDs, timestamp, "
        "queue depth = the bottleneck tbf's backlog); hpccd decodes the "
        "trace, B comes from its capacity table, and without txBytes U "
        "comes from the queue alone (Documentation/algorithm.rst, "
        "\"Partial telemetry\").  Own: hpcc_int's full records.  Medians; "
        "the ratio is IOAM's over own's.", ("own", "IOAM"))


def cpu_per_flow(d, nflows, secs):
    """CPU of a run directory with cpu.* and hpccd.* records, per flow and
    second of its @secs-long flows: (senders' hpccd ms/s, receivers' hpccd
    ms/s, the whole guest's ms/s); NaN where a record is missing"""
    nan = float("nan")
    c = counters(d, "cpu")
    h = hpccd_counters(d)
    k = 10.0 / (nflows * float(secs))     # ticks of 10 ms -> ms per flow-second
    return (h["senders ticks"] * k if "senders ticks" in h else nan,
            h["receivers ticks"] * k if "receivers ticks" in h else nan,
            c["cpu_busy_ticks"] * k if "cpu_busy_ticks" in c else nan)


def rx_vs_sender(d, meta, res):
    """Receiver-based hpcc (hpcc-rx) against sender-based (hpcc) in the same
    run: S1 goodput and queue, S2 Jain and queue, S3 time to fair share,
    and the CPU per flow of each mode (S1, S2 8 flows)"""
    if not any(cc in res.get(sc, {}) for sc in ("s1", "s2", "s3")
               for cc in ("hpcc-rx", "hpcc-u")):
        return []
    md = ["## Receiver-based and only-U against sender-based hpcc (same run)", "",
          "hpcc-rx: the senders' probes ask the receivers' hpccd to run the "
          "algorithm (NewINT, draft-pan-tsvwg-hpccplus-02 section 6.2) and "
          "send W at most once per T; the senders apply it.  hpcc-u: the "
          "receivers withhold the records and send only the U they measure "
          "on them (draft-miao-ccwg-hpcc section 9.1); the senders run "
          "ComputeWind with it.  Medians (min-max). "
          "CPU: ms of CPU per flow per second of the run, the senders' hpccd, "
          "the receivers' hpccd, and the whole guest (kernel included: the "
          "senders' modules are not separable from it).", "",
          "| cc | S1 goodput Mbit/s | S1 queue p50 / p99 KB | S2 8-flow Jain | "
          "S2 8-flow queue p99 KB | S3 time to fair s | CPU S1 senders / "
          "receivers / guest | CPU S2 (8) senders / receivers / guest |",
          "|---|---|---|---|---|---|---|---|"]
    for cc in ("hpcc", "hpcc-rx", "hpcc-u", "dctcp"):
        s1v = res.get("s1", {}).get(cc, [])
        s2v = res.get("s2", {}).get(cc, {}).get(8, [])
        s3v = res.get("s3", {}).get(cc, [])
        if not (s1v or s2v or s3v):
            continue
        c1 = [cpu_per_flow(p, 1, meta["long_s"])
              for p in runs(d, "s1").get(cc, [])]
        c2 = [cpu_per_flow(os.path.join(p, "n8"), 8, meta["long_s"])
              for p in runs(d, "s2").get(cc, [])]

        def cf(v):
            return " / ".join(fmt([x[i] for x in v], "%.2f") for i in range(3))
        md.append("| %s | %s | %s / %s | %s | %s | %s | %s | %s |" % (
            cc, fmt([x["goodput_mbit"] for x in s1v]),
            fmt([x["queue_p50"] for x in s1v], scale=1e-3),
            fmt([x["queue_p99"] for x in s1v], scale=1e-3),
            fmt([x["jain"] for x in s2v], "%.3f"),
            fmt([x["queue_p99"] for x in s2v], scale=1e-3),
            fmt([x["t_fair_median"] for x in s3v]), cf(c1), cf(c2)))
    return md + [""]


# --- S3 ---------------------------------------------------------------------
def converge(b, fl, phase, window=5, hold=5):
    """Per event (a join or leave with >= 2 flows active after it): time to
    fair share (s; None if not within the phase) and the queue peak."""
    ev = []
    nf = len(fl)
    for k in range(1, 2 * nf - 2):
        te = k * phase
        # flows 1..n join at k * phase (k < n) and leave in reverse: after
        # event k >= n the active flows are 1..(2n - k)
        active = [f["id"] for f in fl
                  if f["start"] <= te + 1e-3 and (k < nf or
                                                  f["id"] <= 2 * nf - k)]
        if len(active) < 2:
            continue
        b0 = int(round(te / 0.1))
        b1 = int(round((te + phase) / 0.1))
        ok_run, t_fair = 0, None
        for bi in range(b0 + window, b1):
            rates = [sum(b.get(i, {}).get(x, 0.0)
                         for x in range(bi - window, bi)) / window
                     for i in active]
            share = sum(rates) / len(rates)
            if share > 0 and all(abs(x - share) <= 0.1 * share for x in rates):
                ok_run += 1
                if ok_run == 1:
                    first = bi
                if ok_run >= hold:
                    t_fair = (first - b0) * 0.1
                    break
            else:
                ok_run = 0
        ev.append({"t": te, "kind": "join" if k < nf else "leave",
                   "flows": len(active), "t_fair_s": t_fair})
    return ev


def s3(d, meta, res, rep):
    r = runs(d, "s3")
    if not r:
        return []
    phase = float(meta["phase_s"])
    per = {}
    for cc, reps in r.items():
        for p in reps:
            fl = flows(p)
            b = bins(p)
            q = queue(p)
            ev = converge(b, fl, phase)
            for e in ev:
                e["q_peak"] = max([x for t, x in q if e["t"] <= t < e["t"] + phase]
                                  or [0])
            # censored at the phase length when never reached
            tf = [e["t_fair_s"] if e["t_fair_s"] is not None else phase
                  for e in ev]
            per.setdefault(cc, []).append({
                "events": ev, "t_fair_max": max(tf) if tf else None,
                "t_fair_median": med(tf),
                "not_reached": sum(e["t_fair_s"] is None for e in ev),
                "rtos": rtos(counters(p)),
                "ok": all(f["ok"] for f in fl)})
    res["s3"] = per
    md = ["## S3: convergence (4 flows join every %g s, leave in reverse)" % phase,
          "", "Time to fair share: from a join or leave until every active "
          "flow's 500 ms mean goodput is within +-10 %% of the active flows' "
          "mean, held for 500 ms; counted as %g s (the phase) when never "
          "reached.  Queue peak: the bottleneck's maximum during the phase "
          "after each join." % phase, "",
          "| cc | time to fair share, median of events s | worst event s | "
          "events never fair | queue peak at join 2 / 3 / 4 KB | RTOs |",
          "|---|---|---|---|---|---|"]
    for cc, v in per.items():
        peaks = []
        for j in range(3):
            peaks.append(fmt([[e for e in x["events"] if e["kind"] == "join"][j]["q_peak"]
                              for x in v if len([e for e in x["events"]
                                                 if e["kind"] == "join"]) > j],
                             "%.0f", 1e-3))
        md.append("| %s | %s | %s | %s | %s | %s |" % (
            cc, fmt([x["t_fair_median"] for x in v]),
            fmt([x["t_fair_max"] for x in v]),
            fmt([x["not_reached"] for x in v], "%d"), " / ".join(peaks),
            fmt([x["rtos"] for x in v], "%d")))
    md.append("")

    fig, ax = plt.subplots(len(r), 1, figsize=(9, 2.3 * len(r)), sharex=True,
                           squeeze=False)
    for k, (cc, reps) in enumerate(r.items()):
        p = reps[min(rep, len(reps)) - 1]
        b = bins(p)
        a = ax[k][0]
        for i in sorted(b):
            xs = sorted(b[i])
            a.plot([x * 0.1 for x in xs], [b[i][x] for x in xs],
                   label="flow %d" % i, linewidth=0.8)
        a.set_ylabel("%s Mbit/s" % cc)
        a.grid(alpha=0.3)
    ax[0][0].legend(ncol=4, fontsize=8)
    ax[0][0].set_title("S3: per-flow goodput, 100 ms bins, repetition %d" % rep)
    ax[-1][0].set_xlabel("time, s")
    fig.tight_layout()
    fig.savefig(os.path.join(d, "s3_convergence.png"), dpi=90)
    plt.close(fig)
    return md + ["![S3 convergence](s3_convergence.png)", ""]


# --- hpcc's telemetry (tracepoints, S1 and S3) -------------------------------
TRACE_RE = re.compile(r"\s(\d+\.\d+): hpcc_(sample|mode|fcr): (\S+) > (\S+) (.*)$")


def hpcc_trace(d):
    """tcp_hpcc's tracepoint records in d/hpcc_trace.txt (eval.sh's
    bench_trace_off; times on CLOCK_MONOTONIC, s): {flow "src > dst":
    {"sample": [(t, fields)], "mode": [(t, fields)]}}, or None without a
    trace.  Numeric fields become ints; hop=B/N gives bind_hop and nhop."""
    try:
        fh = open(os.path.join(d, "hpcc_trace.txt"))
    except OSError:
        return None
    out = {}
    with fh:
        for line in fh:
            m = TRACE_RE.search(line)
            if not m:
                continue
            t, kind, src, dst, rest = m.groups()
            f = {}
            for k, v in re.findall(r"(\w+)=(\S+)", rest):
                if k == "hop":
                    b, n = v.split("/")
                    f["bind_hop"], f["nhop"] = int(b), int(n)
                elif k == "U":
                    f["U"] = int(v.split("/")[0]) / 1000
                else:
                    f[k] = int(v) if v.isdigit() else v
            if kind == "mode":
                f["to"] = rest.split()[2]
            out.setdefault("%s > %s" % (src, dst),
                           {"sample": [], "mode": [], "fcr": []})[kind].append((float(t), f))
    return out


def trace_stats(fl, eta=0.98, u_without_hops=False):
    """One flow's telemetry figures: applied samples, the median interval
    between them and its ratio to the median srtt, the median age at the
    ACK, the fallbacks (mode changes to fallback), and after the first 20
    samples U's spread, the share of samples with U >= eta and W.  U
    counts only samples with hop records: a receiver-based W (hop=0/0)
    carries no U, the receiver computed it; unless @u_without_hops (hpcc-u:
    a sample without records carries the receiver's U, which the sender
    applied)."""
    s = fl["sample"]
    u = sorted(f["U"] for _, f in s[20:]
               if "U" in f and (u_without_hops or f.get("nhop", 1)))
    w = [f["W"] / 1e3 for _, f in s[20:] if "W" in f]
    iv = [f["interval_ns"] / 1e6 for _, f in s if f.get("interval_ns")]
    srtt = [f["srtt_us"] / 1e3 for _, f in s if f.get("srtt_us")]
    ratio = [f["interval_ns"] / 1e3 / f["srtt_us"] for _, f in s
             if f.get("interval_ns") and f.get("srtt_us")]
    return {"samples": len(s), "interval_ms": med(iv), "srtt_ms": med(srtt),
            "interval_srtt": med(ratio),
            "age_ms": med([f["age_ns"] / 1e6 for _, f in s]),
            # U's spread and W after the first 20 samples (the start)
            "u_p10": pct(u, 10), "u_p50": pct(u, 50), "u_p90": pct(u, 90),
            "u_ge_eta": (sum(1 for x in u if x >= eta) / len(u)
                         if u else float("nan")),
            "w_kb": med(w),
            "fallbacks": sum(1 for _, f in fl["mode"] if f["to"] == "fallback")}


def telemetry(d, meta, res, rep):
    out = {}
    m = re.search(r"\beta (\d+)", meta.get("hpcc_params", ""))
    eta = int(m.group(1)) / 1000 if m else 0.98
    for sc, cc in ((sc, cc) for sc in ("s1", "s3") for cc in CC_ORDER
                   if cc.startswith("hpcc")):
        for p in runs(d, sc).get(cc, []):
            tr = hpcc_trace(p)
            if tr is None:
                continue
            # the data flows: S1's one (the most samples), S3's four
            fls = sorted(tr.values(), key=lambda x: -len(x["sample"]))
            fls = fls[:1] if sc == "s1" else fls[:4]
            st = [trace_stats(f, eta, cc == "hpcc-u") for f in fls
                  if f["sample"]]
            # per repetition: the median over its flows of each figure
            rep_st = {"flows": st}
            rep_st.update({k: med([x[k] for x in st]) for k in (
                "u_p10", "u_p50", "u_p90", "u_ge_eta", "w_kb",
                "interval_srtt", "interval_ms", "age_ms")})
            rep_st.update({
                "samples_per_flow": med([x["samples"] for x in st]),
                "fallbacks_per_flow": (sum(x["fallbacks"] for x in st) / len(st)
                                       if st else float("nan"))})
            out.setdefault(sc if cc == "hpcc" else "%s %s" % (sc, cc),
                           []).append(rep_st)
    if not out:
        return []
    res["telemetry"] = out
    md = ["## hpcc's telemetry (S1, S3)", "",
          "From tcp_hpcc's tracepoints (hpcc:hpcc_sample, hpcc:hpcc_mode), "
          "recorded during hpcc's S1 and S3 runs: the samples each data flow "
          "applied, the interval between consecutive ones (median per flow, "
          "then the median over the flows) and its ratio to the flow's srtt, "
          "the sample's age when an ACK applied it (from its arrival over "
          "netlink), the fallbacks to the conventional law per flow, and "
          "after each flow's first 20 samples U's 10th, 50th and 90th "
          "percentiles, the share of samples with U >= eta (each a "
          "multiplicative decrease) and the median W.  hpcc's variants have "
          "rows of their own; hpcc-rx's senders see W, not U (the receivers "
          "compute it), so its U columns read n/a; hpcc-u's U is the "
          "receivers', which its senders applied.", "",
          "| scenario | samples per flow | interval ms | interval / srtt | "
          "age ms | fallbacks per flow | U p10 / p50 / p90 | U >= eta | "
          "W KB |", "|---|---|---|---|---|---|---|---|---|"]
    for sc, v in out.items():
        md.append("| %s | %s | %s | %s | %s | %s | %s / %s / %s | %s | %s |" % (
            sc.upper(), fmt([x["samples_per_flow"] for x in v], "%.0f"),
            fmt([x["interval_ms"] for x in v], "%.2f"),
            fmt([x["interval_srtt"] for x in v], "%.2f"),
            fmt([x["age_ms"] for x in v], "%.2f"),
            fmt([x["fallbacks_per_flow"] for x in v], "%.1f"),
            fmt([x["u_p10"] for x in v], "%.2f"),
            fmt([x["u_p50"] for x in v], "%.2f"),
            fmt([x["u_p90"] for x in v], "%.2f"),
            fmt([x["u_ge_eta"] * 100 for x in v], "%.0f %%"),
            fmt([x["w_kb"] for x in v], "%.1f")))
    md.append("")
    for sc, t0f in (("s1", qsample_t0), ("s3", flows_t0)):
        reps = runs(d, sc).get("hpcc", [])
        if not reps:
            continue
        p = reps[min(rep, len(reps)) - 1]
        tr = hpcc_trace(p)
        if not tr:
            continue
        t0 = (t0f(p) or 0) / 1e6
        fls = sorted(tr.items(), key=lambda x: -len(x[1]["sample"]))
        fls = fls[:1] if sc == "s1" else fls[:4]
        fig, ax = plt.subplots(3, 1, figsize=(9, 7.5), sharex=True)
        for name, fl in fls:
            s = fl["sample"]
            if not s:
                continue
            ts = [t - t0 for t, _ in s]
            lab = name.split(" > ")[0]
            ax[0].plot(ts, [f["W"] / 1e3 for _, f in s], label=lab, linewidth=0.8)
            ax[1].plot(ts, [f["U"] for _, f in s], linewidth=0.8)
            ax[2].plot(ts, [f["interval_ns"] / 1e6 for _, f in s], ".",
                       markersize=2)
            ax[2].plot(ts, [f["srtt_us"] / 1e3 for _, f in s], linewidth=0.6,
                       color="gray")
            for t, f in fl["mode"]:
                ax[0].axvline(t - t0, color="red" if f["to"] == "fallback"
                              else "green", linewidth=0.5, alpha=0.6)
        ax[0].set_ylabel("W, KB")
        ax[1].set_ylabel("U")
        ax[1].axhline(0.95, color="gray", linewidth=0.5, linestyle="--")
        ax[2].set_ylabel("sample interval, ms\n(gray: srtt)")
        ax[2].set_xlabel("time, s")
        ax[0].legend(ncol=4, fontsize=8)
        ax[0].set_title("%s, hpcc, repetition %d: W, U and the interval between "
                        "samples (red/green lines: fallback/resume)" % (sc.upper(), rep))
        for a in ax:
            a.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(d, "%s_hpcc_trace.png" % sc), dpi=90)
        plt.close(fig)
        md += ["![%s hpcc telemetry](%s_hpcc_trace.png)" % (sc.upper(), sc), ""]
    return md


# --- S4 ---------------------------------------------------------------------
def s4(d, meta, res):
    r = runs(d, "s4")
    if not r:
        return []
    per = {}
    for cc, reps in r.items():
        for p in reps:
            for sub in sorted(glob.glob(os.path.join(p, "n*-s*-bg*"))):
                m = re.search(r"n(\d+)-s(\d+)-bg(\d)$", sub)
                key = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
                fl = [f for f in flows(sub) if f["id"] >= 1000]
                rounds = {}
                for f in fl:
                    rounds.setdefault(f["id"] // 1000, []).append(f)
                qct = [max(f["done"] for f in g) - min(f["conn"] for f in g)
                       for g in rounds.values() if all(f["ok"] for f in g)]
                fct = [f["done"] - f["conn"] for f in fl if f["ok"]]
                q = queue(sub)
                c = counters(sub)
                tr = hpcc_trace(sub) or {}
                # FCR: the delay from the hop's message to the ACK that
                # applied it (the hpcc_fcr tracepoint), every application
                fcr_d = [f["delay_ns"] / 1e9 for x in tr.values()
                         for _, f in x["fcr"]]
                fcr_rx = [f["rx_ns"] / 1e9 for x in tr.values()
                          for _, f in x["fcr"] if "rx_ns" in f]
                fcr_sent = counters(sub, "fcr").get("hop_sent")
                per.setdefault(cc, {}).setdefault(key, []).append({
                    "qct_p50": pct(qct, 50), "qct_p99": pct(qct, 99),
                    "fct_p99": pct(fct, 99),
                    "rtos": rtos(c),
                    "syn": c.get("TCPSynRetrans", None),
                    "drops": counters(sub, "drops").get("bottleneck_drops", None),
                    "q_peak": max([b for _, b in q] or [0]),
                    "fcr_n": len(fcr_d), "fcr_sent": fcr_sent,
                    "fcr_p50": pct(fcr_d, 50), "fcr_p99": pct(fcr_d, 99),
                    "fcr_rx_p50": pct(fcr_rx, 50),
                    "failed": sum(not f["ok"] for f in fl)})
    res["s4"] = {cc: {"%d-%d-%d" % k: v for k, v in x.items()}
                 for cc, x in per.items()}
    rate = float(meta["rate_mbit"])
    md = ["## S4: incast N-to-1 (%s rounds per run)" % meta["incast_rounds"], "",
          "Completion time of a round: from the first connection's handshake "
          "to the last flow's end (ideal: N x size at %g Mbit/s plus one RTT). "
          "RTOs: retransmission timeouts over the senders during the run (TCPTimeouts and the five counters an RTO outside Open increments instead); SYN retrans: "
          "TCPSynRetrans (a lost SYN or SYN-ACK); drops: packets the bottleneck "
          "dropped (n/a: not recorded).  FCR: messages the hop sent and rates "
          "the senders applied (the hpcc_fcr tracepoint), the delay from the hop's "
          "message to its arrival at the sender (p50) and the delay from the hop's message to the ACK that "
          "applied them, p50/p99 ms (the FCR variants only)." % rate, "",
          "| N | size | background | cc | ideal ms | round p50 ms | round p99 ms | "
          "flow p99 ms | RTOs | SYN retrans | drops | peak queue KB | failed flows | "
          "FCR sent / applied | FCR arrival p50 ms | FCR delay p50/p99 ms |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({k for x in per.values() for k in x})
    for k in keys:
        n, size, bg = k
        ideal = n * size * 8 / (rate * 1e6) * 1e3 + float(meta["rtt_ms"])
        for cc in per:
            v = per[cc].get(k, [])
            md.append("| %d | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                n, "%d KB" % (size // 1024) if size % 1024 == 0 else "%d B" % size,
                "yes" if bg else "no", cc, ideal,
                fmt([x["qct_p50"] for x in v], "%.0f", 1e3),
                fmt([x["qct_p99"] for x in v], "%.0f", 1e3),
                fmt([x["fct_p99"] for x in v], "%.0f", 1e3),
                fmt([x["rtos"] for x in v], "%d"),
                fmt([x["syn"] for x in v], "%d"),
                fmt([x["drops"] for x in v], "%d"),
                fmt([x["q_peak"] for x in v], "%.0f", 1e-3),
                fmt([x["failed"] for x in v], "%d"),
                "%s / %s" % (fmt([x["fcr_sent"] for x in v], "%d"),
                             fmt([x["fcr_n"] for x in v], "%d"))
                if fcr_variant(cc) else "",
                fmt([x["fcr_rx_p50"] for x in v], "%.1f", 1e3)
                if fcr_variant(cc) else "",
                "%s / %s" % (fmt([x["fcr_p50"] for x in v], "%.1f", 1e3),
                             fmt([x["fcr_p99"] for x in v], "%.1f", 1e3))
                if fcr_variant(cc) else ""))
    return md + [""]


# --- S7 ---------------------------------------------------------------------
# The FCR draft's own results (draft-even-tsvwg-datacenter-fast-congestion-00,
# section 8.1: six senders, one receiver, one switch, 25 Gbit/s; "NIC CC"
# the senders' own congestion control, "Network CC" the same with FCR):
# load % -> (sender NIC BW Gbit/s, latency average us, p99 us, p99.9 us),
# each (NIC CC, Network CC)
DRAFT_8_1 = {30: ((1.61, 1.61), (5.89, 5.79), (8.89, 7.65), (21.77, 8.79)),
             50: ((2.68, 2.68), (6.04, 6.04), (9.14, 8.46), (24.89, 11.8)),
             80: ((4.23, 4.24), (7.33, 6.67), (12.94, 8.74), (23.45, 9.36)),
             100: ((4.36, 4.51), (7.45, 6.78), (11.6, 8.74), (22.91, 9.19))}
MANY_LAT_ID = 100000    # tools/bench/schedule.py's "many"


def pings(d):
    """fctgen's ping samples (-P): each answered message's round trip, s"""
    out = []
    try:
        with open(os.path.join(d, "pings.txt")) as fh:
            for line in fh:
                f = line.split()
                if len(f) == 4:
                    out.append(int(f[3]) / 1e6)
    except (OSError, ValueError):
        pass
    return out


def s7(d, meta, res):
    r = runs(d, "s7")
    if not r:
        return []
    rate = float(meta["rate_mbit"])
    per = {}
    for cc, reps in r.items():
        for p in reps:
            for sub in sorted(glob.glob(os.path.join(p, "load*"))):
                load = int(re.search(r"load(\d+)$", sub).group(1))
                # the ping flow: in flows-ping.txt (an fctgen of its
                # own), or in flows.txt in runs that have no such file
                fl = flows(sub) + flows(sub, "flows-ping.txt")
                lng = [f for f in fl if f["id"] < MANY_LAT_ID]
                lat = pings(sub)
                ok = [f for f in lng if f["ok"]]
                # the long flows' goodput per sender, as the draft's
                # "sender NIC BW": their bytes over the time from the
                # first start to the last end, over the five senders
                span = (max(f["done"] for f in ok) - min(f["start"] for f in lng)
                        if ok else 0)
                c = counters(sub)
                fc = counters(sub, "fcr")
                q = queue(sub)
                per.setdefault(cc, {}).setdefault(load, []).append({
                    "goodput": (sum(f["size"] for f in ok) * 8 / span / 1e6 / 5
                                if span > 0 else float("nan")),
                    "fct_p50": pct([f["done"] - f["conn"] for f in ok], 50),
                    "lat_avg": (sum(lat) / len(lat) if lat else float("nan")),
                    "lat_p99": pct(lat, 99), "lat_p999": pct(lat, 99.9),
                    "lat_n": len(lat),
                    "q_p99": pct([b for _, b in q], 99),
                    "q_peak": max([b for _, b in q] or [0]),
                    "rtos": rtos(c), "syn": c.get("TCPSynRetrans", None),
                    "fcr_sent": fc.get("hop_sent"), "ce": fc.get("hop_ce-marked"),
                    "fcr_acc": fc.get("fcr-accepted"),
                    "failed": sum(not f["ok"] for f in fl)})
    res["s7"] = {cc: {str(k): v for k, v in x.items()} for cc, x in per.items()}
    md = ["## S7: the FCR draft's many-to-one test (section 8.1), scaled", "",
          "Five senders start %s-byte flows to one receiver with Poisson "
          "arrivals that offer the load named (of %g Mbit/s); a sixth sends an "
          "8-byte message every 5 ms on one connection, and the time to each "
          "one's answer (one round trip of %s ms plus the bottleneck's queue) "
          "is the latency; %s s per load "
          "(tools/bench/schedule.py, \"many\").  Goodput: the long flows' "
          "bytes over the time from the first start to the last end, per "
          "sender (the draft's \"sender NIC BW\").  FCR sent / accepted / CE: "
          "the hop's messages, the senders' accepted ones and the hop's CE "
          "marks (the FCR variants)." % (
              meta.get("many_size", "?"), rate, meta["rtt_ms"], meta["long_s"]),
          "",
          "| load | cc | goodput Mbit/s per sender | long flow p50 ms | "
          "latency samples | latency avg ms | latency p99 ms | latency p99.9 ms | "
          "queue p99 KB | peak queue KB | RTOs | SYN retrans | failed | "
          "FCR sent / accepted / CE |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for load in sorted({k for x in per.values() for k in x}):
        for cc in per:
            v = per[cc].get(load, [])
            if not v:
                continue
            md.append("| %d %% | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                load, cc, fmt([x["goodput"] for x in v], "%.2f"),
                fmt([x["fct_p50"] for x in v], "%.0f", 1e3),
                fmt([x["lat_n"] for x in v], "%d"),
                fmt([x["lat_avg"] for x in v], "%.1f", 1e3),
                fmt([x["lat_p99"] for x in v], "%.1f", 1e3),
                fmt([x["lat_p999"] for x in v], "%.1f", 1e3),
                fmt([x["q_p99"] for x in v], "%.0f", 1e-3),
                fmt([x["q_peak"] for x in v], "%.0f", 1e-3),
                fmt([x["rtos"] for x in v], "%d"),
                fmt([x["syn"] for x in v], "%d"),
                fmt([x["failed"] for x in v], "%d"),
                "%s / %s / %s" % (fmt([x["fcr_sent"] for x in v], "%d"),
                                  fmt([x["fcr_acc"] for x in v], "%d"),
                                  fmt([x["ce"] for x in v], "%d"))
                if fcr_variant(cc) else ""))
    md.append("")
    if "hpcc" in per and "hpcc-fcr" in per:
        md += ["Beside the draft's table: each figure as (without FCR, with FCR, "
               "improvement %%), the draft's at 25 Gbit/s (Gbit/s, us) and ours "
               "on the testbed (hpcc against hpcc-fcr, medians of the "
               "repetitions; Mbit/s, ms).  Improvement: (without - with) / without "
               "for latency, (with - without) / without for bandwidth.", "",
               "| load | draft BW | ours BW | draft latency avg | ours avg | "
               "draft p99 | ours p99 | draft p99.9 | ours p99.9 |",
               "|---|---|---|---|---|---|---|---|---|"]

        def cell(a, b, f, up):
            if not (a == a and b == b) or not a:
                return "n/a"
            imp = 100.0 * ((b - a) if up else (a - b)) / a
            return (f + ", " + f + ", %.1f %%") % (a, b, imp)
        for load in sorted(set(per["hpcc"]) & set(per["hpcc-fcr"])):
            h, f = per["hpcc"][load], per["hpcc-fcr"][load]
            dr = DRAFT_8_1.get(load)
            row = ["%d %%" % load]
            for i, (key, scale, fm, up) in enumerate((
                    ("goodput", 1, "%.2f", True), ("lat_avg", 1e3, "%.1f", False),
                    ("lat_p99", 1e3, "%.1f", False),
                    ("lat_p999", 1e3, "%.1f", False))):
                row.append(cell(dr[i][0], dr[i][1], "%.2f", up) if dr else "")
                row.append(cell(med([x[key] for x in h]) * scale,
                                med([x[key] for x in f]) * scale, fm, up))
            md.append("| " + " | ".join(row) + " |")
        md.append("")
    return md


# --- S5 ---------------------------------------------------------------------
def bucket(size):
    for i, (hi, _) in enumerate(BUCKETS):
        if size <= hi:
            return i
    return len(BUCKETS) - 1


def s5(d, meta, res):
    r = runs(d, "s5")
    if not r:
        return []
    rate = float(meta["rate_mbit"]) * 1e6
    loads = meta["fct_loads"].split()
    # every run's flows, read once: (cc, run dir, load, flows)
    all_runs = [(cc, os.path.join(p, "load" + load), load,
                 flows(os.path.join(p, "load" + load)))
                for cc, reps in r.items() for p in reps for load in loads]
    # the base RTT: the least FCT of a one-packet flow in any run, what an
    # unloaded path gives (larger flows can beat size/rate: the token
    # bucket's burst); the nominal RTT when there is none, or when a path
    # faster than its nominal rate (unshaped, as on the host) makes it
    # negative
    base = [f["done"] - f["conn"] - f["size"] * 8 / rate
            for _, _, _, fl in all_runs for f in fl
            if f["ok"] and f["size"] <= 1448]
    base_rtt = min(base) if base else 0.0
    if base_rtt <= 0:
        base_rtt = float(meta["rtt_ms"]) / 1e3
    res["s5_base_rtt_s"] = base_rtt
    per = {}
    for cc, sub, load, fl in all_runs:
        if not fl:
            continue
        sd = [[] for _ in BUCKETS]
        small = []
        for f in fl:
            if not f["ok"]:
                continue
            s = (f["done"] - f["conn"]) / (f["size"] * 8 / rate + base_rtt)
            sd[bucket(f["size"])].append(s)
            if f["size"] < 100000:
                small.append(s)
        qs = [b for _, b in queue(sub)]
        hs = [f["conn"] - f["start"] for f in fl if f["ok"]]
        cpu = counters(sub, "cpu")   # USER_HZ = 100 ticks per second
        c = counters(sub)
        hd = hpccd_counters(sub)
        nan = float("nan")
        per.setdefault(cc, {}).setdefault(load, []).append({
            "flows": len(fl), "failed": sum(not f["ok"] for f in fl),
            "q_p50": pct(qs, 50), "q_p99": pct(qs, 99),
            "hs_p50": pct(hs, 50), "hs_p99": pct(hs, 99),
            "buckets": [{"n": len(x), "p50": pct(x, 50), "p95": pct(x, 95),
                         "p99": pct(x, 99)} for x in sd],
            "small_p99": pct(small, 99), "small_p50": pct(small, 50),
            "all_p99": pct([x for b in sd for x in b], 99),
            "rtos": rtos(c),
            "syn": c.get("TCPSynRetrans", None),
            "drops": counters(sub, "drops").get("bottleneck_drops", None),
            "cpu_s": cpu["cpu_busy_ticks"] / 100 if "cpu_busy_ticks" in cpu else nan,
            "hpccd_s": cpu["hpccd_ticks"] / 100 if "hpccd_ticks" in cpu else nan,
            "hpccd": hd,
            "active": (sum(f["done"] - f["conn"] for f in fl if f["ok"]) /
                       max(1e-9, max(f["done"] for f in fl) - min(f["start"] for f in fl)))})
    res["s5"] = per
    md = ["## S5: flow completion time (websearch sizes / %s, Poisson arrivals, "
          "%s flows per run)" % (meta["fct_scale"], meta["fct_flows"]), "",
          "Slowdown: FCT over the ideal FCT (size at %g Mbit/s plus the base "
          "RTT, %.1f ms: the least FCT of a one-packet flow in S5, one RTT of "
          "the unloaded emulated path).  FCT: from the "
          "connection's establishment to the receiver's one-byte answer after "
          "the last byte.  Handshake: connect() to established, which no "
          "congestion control shapes: it shows how loaded the emulated hosts "
          "were.  SYN retrans: TCPSynRetrans over the senders; drops: packets the "
          "bottleneck dropped (n/a: not recorded).  CPU: the guest's busy CPU seconds during the run (all vCPUs, "
          "/proc/stat), and hpccd's share of them (every namespace's daemon)."
          % (rate / 1e6, base_rtt * 1e3), ""]
    for load in loads:
        md += ["### load %s %%" % load, "",
               "| cc | flows < 100 KB p50 | < 100 KB p99 | all p99 | " +
               " | ".join("%s p50 / p99" % name for _, name in BUCKETS) +
               " | queue p50 / p99 KB | handshake p50 / p99 ms | RTOs | SYN retrans"
               " | drops | failed | CPU s | hpccd CPU s |",
               "|---|---|---|---|" + "---|" * len(BUCKETS) + "---|---|---|---|---|---|---|---|"]
        for cc in per:
            v = per[cc].get(load, [])
            if not v:
                continue
            cells = []
            for i in range(len(BUCKETS)):
                cells.append("%s / %s" % (
                    fmt([x["buckets"][i]["p50"] for x in v]),
                    fmt([x["buckets"][i]["p99"] for x in v])))
            md.append("| %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s | %s | %s | %s |" % (
                cc, fmt([x["small_p50"] for x in v]), fmt([x["small_p99"] for x in v]),
                fmt([x["all_p99"] for x in v]), " | ".join(cells),
                fmt([x["q_p50"] for x in v], scale=1e-3),
                fmt([x["q_p99"] for x in v], scale=1e-3),
                fmt([x["hs_p50"] for x in v], scale=1e3),
                fmt([x["hs_p99"] for x in v], scale=1e3),
                fmt([x["rtos"] for x in v], "%d"), fmt([x["syn"] for x in v], "%d"),
                fmt([x["drops"] for x in v], "%d"), fmt([x["failed"] for x in v], "%d"),
                fmt([x["cpu_s"] for x in v]), fmt([x["hpccd_s"] for x in v])))
        md += hpccd_table(per, load)
        nb = [med([x["buckets"][i]["n"] for x in per[next(iter(per))].get(load, [])])
              for i in range(len(BUCKETS))]
        md += ["", "Flows per bucket (median run): " + ", ".join(
            "%s %s" % (name, "%.0f" % n if n == n else "-")
            for (_, name), n in zip(BUCKETS, nb)), ""]

        fig, ax = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
        for k, stat in enumerate(("p50", "p95", "p99")):
            for cc in per:
                v = per[cc].get(load, [])
                if not v:
                    continue
                ys = [med([x["buckets"][i][stat] for x in v]) for i in range(len(BUCKETS))]
                lo = [min(x["buckets"][i][stat] for x in v) for i in range(len(BUCKETS))]
                hi = [max(x["buckets"][i][stat] for x in v) for i in range(len(BUCKETS))]
                xs = range(len(BUCKETS))
                ax[k].plot(xs, ys, marker="o", label=cc, color=COLORS[cc])
                ax[k].fill_between(xs, lo, hi, color=COLORS[cc], alpha=0.15)
            ax[k].set_xticks(range(len(BUCKETS)))
            ax[k].set_xticklabels([n for _, n in BUCKETS], rotation=30, fontsize=8)
            ax[k].set_yscale("log")
            ax[k].set_title("%s slowdown, load %s %%" % (stat, load))
            ax[k].set_xlabel("flow size (bytes, scaled)")
            ax[k].grid(alpha=0.3, which="both")
        ax[0].set_ylabel("FCT slowdown")
        ax[0].legend()
        fig.tight_layout()
        fig.savefig(os.path.join(d, "s5_fct_load%s.png" % load), dpi=90)
        plt.close(fig)
        md += ["![S5 FCT slowdown, load %s %%](s5_fct_load%s.png)" % (load, load), ""]
    return md


def hpccd_table(per, load):
    """What hpccd's CPU bought in each S5 run with hpccd records: CPU,
    probes and responses sent, events, pushes, by role, and CPU per probe
    sent; the mean number of flows in progress (FCT-weighted) beside it"""
    rows = []
    for cc in per:
        v = [x for x in per[cc].get(load, []) if x["hpccd"]]
        if not v:
            continue

        def f(role, k, scale=1.0, v=v):
            return fmt([x["hpccd"].get(role + " " + k, 0) * scale for x in v],
                       "%.1f" if scale != 1.0 else "%.0f")

        def per_probe(x):
            p = sum(x["hpccd"].get(r + " probes-sent", 0) for r in ("senders", "receivers"))
            t = sum(x["hpccd"].get(r + " ticks", 0) for r in ("senders", "receivers"))
            return 10.0 * t / p if p else float("nan")   # ticks of 10 ms -> ms
        rows.append("| %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s |" % (
            cc, fmt([x["active"] for x in v], "%.1f"),
            f("senders", "ticks", 0.01), f("receivers", "ticks", 0.01),
            f("senders", "probes-sent"), f("receivers", "probes-sent"),
            f("senders", "responses-sent"), f("receivers", "responses-sent"),
            f("senders", "events"), f("receivers", "events"),
            f("senders", "telemetry-pushed"), f("receivers", "telemetry-pushed"),
            fmt([per_probe(x) for x in v], "%.2f")))
    if not rows:
        return []
    out = ["", "hpccd at %s %% load (every namespace's daemon; senders / "
           "receivers; flows in progress: the mean number with a connection "
           "open and data not yet answered):" % load, "",
           "| cc | flows in progress | CPU s | probes sent | responses sent | "
           "events | telemetry pushed | CPU ms per probe sent |",
           "|---|---|---|---|---|---|---|---|"] + rows
    # Dead flows: runs whose hpccd records have the flow gauges
    dead = []
    for cc in per:
        v = [x for x in per[cc].get(load, [])
             if "senders flows" in x["hpccd"]]
        if not v:
            continue

        def g(k, v=v):
            return fmt([sum(x["hpccd"].get(r + " " + k, 0)
                            for r in ("senders", "receivers")) for x in v], "%.0f")
        dead.append("| %s | %s | %s | %s | %s | %s |" % (
            cc, g("resyncs"), g("flows-reconciled"),
            g("dumps-interrupted"), g("flows"), g("module-flows")))
    if dead:
        out += ["", "Dead flows at %s %% load (all namespaces; resyncs after "
                "lost events, flows-reconciled, the flows a reconcile "
                "found hpccd held and the module no longer had, and the "
                "reconciles whose dump the table changed under (each "
                "unlisted flow then looked up by itself), during the "
                "run; then the flows in hpccd's tables and the module's "
                "when the run had ended):" % load, "",
                "| cc | resyncs | flows reconciled | dumps interrupted | "
                "hpccd flows after | module flows after |",
                "|---|---|---|---|---|---|"] + dead
    return out


# --- S6 ---------------------------------------------------------------------
def s6(d, meta, res, rep):
    r = runs(d, "s6")
    if not r:
        return []
    rate = float(meta["rate_mbit"])
    phase = float(meta["phase_s"])
    per = {}
    series = {}
    for cc, reps in r.items():
        for k, p in enumerate(reps):
            steps = {}
            try:
                with open(os.path.join(p, "steps.txt")) as fh:
                    for line in fh:
                        w, up, _ = line.split()
                        steps[w] = float(up)
            except (OSError, ValueError):
                continue
            t0 = flows_t0(p)
            if t0 is None or len(steps) < 2:
                continue
            t_down = steps["down"] - t0 / 1e6
            t_up = steps["up"] - t0 / 1e6
            b = bins(p).get(1, {})
            g = [(x * 0.1 + 0.05, b[x]) for x in sorted(b)]
            q = queue(p)
            pre = [x for t, x in q if t_down - 2 <= t < t_down]
            post = [(t, x) for t, x in q if t_down <= t < t_up]
            peak_t, peak = max(post, key=lambda y: y[1]) if post else (t_down, 0)
            # recovery after the step up: 3 bins in a row >= 90 % of the rate
            rec, run = None, 0
            for t, v in g:
                if t < t_up:
                    continue
                run = run + 1 if v >= 0.9 * rate else 0
                if run == 3:
                    rec = t - 0.25 - t_up
                    break
            util_up = [v for t, v in g if t_up <= t < t_up + 2]
            low = [v for t, v in g if t_down + 1 <= t < t_up]
            per.setdefault(cc, []).append({
                "reaction_s": max(0.0, peak_t - t_down),
                "overshoot": max(0, peak - (pct(pre, 50) if pre else 0)),
                "peak": peak,
                "low_pct": 100 * med(low) / (rate / 2) if low else float("nan"),
                "recovery_s": rec if rec is not None else phase,
                "util_2s_pct": 100 * (sum(util_up) / len(util_up)) / rate if util_up else float("nan")})
            if k == min(rep, len(reps)) - 1:
                series[cc] = (g, q, t_down, t_up)
    res["s6"] = per
    md = ["## S6: bandwidth step (%g -> %g -> %g Mbit/s, %g s each)" % (
        rate, rate / 2, rate, phase), "",
        "Reaction: time from the step down to the bottleneck queue's peak "
        "(the moment the sender's rate fell to the new capacity).  Overshoot: "
        "that peak over the median queue of the 2 s before the step.  "
        "Recovery: from the step up until goodput is >= 90 %% of %g Mbit/s for "
        "3 bins of 100 ms (the phase, %g s, when never).  The INT hop's B "
        "follows the shaper's rate." % (rate, phase), "",
        "| cc | reaction s | queue overshoot KB | goodput at half rate, % of it | "
        "recovery s | utilization in 2 s after the step up % |",
        "|---|---|---|---|---|---|"]
    for cc, v in per.items():
        md.append("| %s | %s | %s | %s | %s | %s |" % (
            cc, fmt([x["reaction_s"] for x in v], "%.2f"),
            fmt([x["overshoot"] for x in v], "%.0f", 1e-3),
            fmt([x["low_pct"] for x in v]), fmt([x["recovery_s"] for x in v], "%.2f"),
            fmt([x["util_2s_pct"] for x in v])))
    md.append("")
    if series:
        fig, ax = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        for cc, (g, q, td, tu) in series.items():
            ax[0].plot([t for t, _ in g], [v for _, v in g], label=cc,
                       color=COLORS[cc], linewidth=0.8)
            ax[1].plot([t for t, _ in q], [x / 1e3 for _, x in q], label=cc,
                       color=COLORS[cc], linewidth=0.6)
        for a in ax:
            a.axvline(td, color="grey", linestyle=":")
            a.axvline(tu, color="grey", linestyle=":")
            a.grid(alpha=0.3)
        ax[0].set_ylabel("goodput, Mbit/s (100 ms)")
        ax[1].set_ylabel("bottleneck queue, KB")
        ax[1].set_xlabel("time, s")
        ax[0].legend(ncol=4)
        ax[0].set_title("S6: bandwidth step, repetition %d" % rep)
        fig.tight_layout()
        fig.savefig(os.path.join(d, "s6_step.png"), dpi=90)
        plt.close(fig)
        md += ["![S6 bandwidth step](s6_step.png)", ""]
    return md


# --- targets -----------------------------------------------------------------
def targets(res, meta):
    rows = []

    def m(sc, cc, key):
        return med([x[key] for x in res.get(sc, {}).get(cc, [])])

    g_h, g_c = m("s1", "hpcc", "goodput_mbit"), m("s1", "cubic", "goodput_mbit")
    q_h, q_c, q_d = (m("s1", cc, "queue_p99") for cc in ("hpcc", "cubic", "dctcp"))
    rate = float(meta["rate_mbit"])
    if g_h == g_h and g_c == g_c:
        rows.append(("S1 goodput >= 95 % of cubic's", "%.1f %%" % (100 * g_h / g_c),
                     100 * g_h / g_c >= 95))
        rows.append(("S1 goodput >= 90 % of the bottleneck",
                     "%.1f %%" % (100 * g_h / rate), 100 * g_h / rate >= 90))
    if q_h == q_h and q_c == q_c:
        rows.append(("S1 queue p99 <= 10 % of cubic's", "%.0f B vs %.0f B (%.1f %%)" % (
            q_h, q_c, 100 * q_h / q_c if q_c else float("nan")), q_h <= 0.1 * q_c))
    if q_h == q_h and q_d == q_d:
        rows.append(("S1 queue p99 <= 25 % of dctcp's", "%.0f B vs %.0f B" % (q_h, q_d),
                     q_h <= 0.25 * q_d))
    j8 = med([x["jain"] for x in res.get("s2", {}).get("hpcc", {}).get(8, [])])
    if j8 == j8:
        rows.append(("S2 Jain's index of 8 flows >= 0.95", "%.3f" % j8, j8 >= 0.95))
    t = m("s3", "hpcc", "t_fair_max")
    if t == t:
        rows.append(("S3 time to fair share <= 2 s (worst event, median run)",
                     "%.1f s" % t, t <= 2))
    tl = med([x["interval_srtt"] for x in res.get("telemetry", {}).get("s1", [])])
    if tl == tl:
        rows.append(("S1 median interval between applied samples <= 1.5 x srtt",
                     "%.2f x srtt" % tl, tl <= 1.5))
    for sc in ("s1", "s3"):
        fb = med([x["fallbacks_per_flow"] for x in res.get("telemetry", {}).get(sc, [])])
        if fb == fb:
            rows.append(("%s fallbacks per flow (reported)" % sc.upper(), "%.1f" % fb,
                         None))
    s4h = res.get("s4", {}).get("hpcc", {})
    n16 = [x["rtos"] for k, v in s4h.items() if k.startswith("16-") for x in v]
    if n16:
        rows.append(("S4 no RTO for hpcc at N = 16 (all runs)", "%d RTOs" % sum(n16),
                     sum(n16) == 0))
    # FCR's targets: hpcc with FCR, no RTO at N = 16 and 32, peak queue at most
    # half the buffer, round completion p99 at most dctcp's (each case)
    s4f = res.get("s4", {}).get("hpcc-fcr", {})
    s4d = res.get("s4", {}).get("dctcp", {})
    limit = float(meta.get("limit", 250000))
    for n in (16, 32):
        r = [x["rtos"] for k, v in s4f.items() if k.startswith("%d-" % n) for x in v]
        if r:
            rows.append(("S4 hpcc-fcr no RTO at N = %d (all runs)" % n,
                         "%d RTOs" % sum(r), sum(r) == 0))
    if s4f:
        qp = max(x["q_peak"] for v in s4f.values() for x in v)
        rows.append(("S4 hpcc-fcr peak queue <= half the buffer (every case)",
                     "%.0f KB of %.0f" % (qp / 1e3, limit / 1e3), qp <= limit / 2))
        worse = []
        for k, v in sorted(s4f.items()):
            f99 = med([x["qct_p99"] for x in v])
            d99 = med([x["qct_p99"] for x in s4d.get(k, [])])
            if f99 == f99 and d99 == d99 and f99 > d99:
                worse.append("%s: %.0f vs %.0f ms" % (k, f99 * 1e3, d99 * 1e3))
        if s4d:
            rows.append(("S4 hpcc-fcr round p99 <= dctcp's (every case)",
                         "; ".join(worse) if worse else "every case", not worse))
    # FCR: the draft's section 8.1 test (reported, no target), and
    # mixed mode: the link stays fair, the flows without FCR get CE marks
    s7 = res.get("s7", {})
    if s7.get("hpcc") and s7.get("hpcc-fcr"):
        cells = []
        for load in sorted(set(s7["hpcc"]) & set(s7["hpcc-fcr"]), key=int):
            h = med([x["lat_p999"] for x in s7["hpcc"][load]])
            f = med([x["lat_p999"] for x in s7["hpcc-fcr"][load]])
            cells.append("%s %%: %.1f vs %.1f ms" % (load, f * 1e3, h * 1e3))
        rows.append(("S7 hpcc-fcr latency p99.9 against hpcc's (reported)",
                     "; ".join(cells), None))
    j = med([x["jain"] for x in res.get("s2", {}).get("hpcc-fcrmix", {}).get(8, [])])
    if j == j:
        rows.append(("S2 hpcc-fcrmix (FCR on half the senders) Jain's index of "
                     "8 flows >= 0.95", "%.3f" % j, j >= 0.95))
    ce = [x["ce"] for v in s7.get("hpcc-fcrmix", {}).values() for x in v
          if x["ce"] is not None]
    ce += [x["ce_marked"] for x in res.get("s2", {}).get("hpcc-fcrmix", {}).get(8, [])
           if x.get("ce_marked") is not None]
    if ce:
        rows.append(("hpcc-fcrmix: the senders without FCR get CE marks (S2, S7)",
                     "%d marks in %d runs" % (sum(ce), len(ce)), sum(ce) > 0))
    s5 = res.get("s5", {})
    for load in sorted(s5.get("hpcc", {})):
        v = s5["hpcc"][load]
        # a collapse: flows that never finished, or handshakes that waited
        # out SYN retransmission timeouts (1 s and more) at p99
        bad = [x for x in v if x["failed"] or x["hs_p99"] > 1.0]
        rows.append(("S5 no collapse at %s %% load (every run: no failed flow, "
                     "handshake p99 < 1 s)" % load,
                     "%d of %d runs collapsed; handshake p99 %.0f ms (median run, "
                     "worst %.0f ms); %d flows failed in all" % (
                         len(bad), len(v), 1e3 * med([x["hs_p99"] for x in v]),
                         1e3 * max(x["hs_p99"] for x in v),
                         sum(x["failed"] for x in v)), not bad))
        h = med([x["small_p99"] for x in v])
        for cc, f in (("dctcp", 0.5),):
            if load in s5.get(cc, {}):
                o = med([x["small_p99"] for x in s5[cc][load]])
                rows.append(("S5 p99 slowdown < 100 KB at %s %% load <= %g x %s's" % (
                    load, f, cc), "%.2f vs %.2f (%.2f x)" % (h, o, h / o), h <= f * o))
    for load in sorted(s5.get("hpcc", {})):
        h = med([x["cpu_s"] for x in s5["hpcc"][load]])
        c = med([x["cpu_s"] for x in s5.get("cubic", {}).get(load, [])])
        if h == h and c == c and c > 0:
            rows.append(("S5 guest CPU at %s %% load <= 1.1 x cubic's" % load,
                         "%.1f s vs %.1f s (%.2f x)" % (h, c, h / c), h <= 1.1 * c))
    s6 = res.get("s6", {})
    if s6.get("hpcc"):
        rec = med([x["recovery_s"] for x in s6["hpcc"]])
        rows.append(("S6 >= 90 % of the new capacity within 1 s of the step up",
                     "after %.2f s; %.1f %% in the first 2 s" % (
                         rec, med([x["util_2s_pct"] for x in s6["hpcc"]])), rec <= 1.0))
        if s6.get("dctcp"):
            o_h = med([x["overshoot"] for x in s6["hpcc"]])
            o_d = med([x["overshoot"] for x in s6["dctcp"]])
            rows.append(("S6 queue overshoot after the step down <= dctcp's",
                         "%.0f KB vs %.0f KB" % (o_h / 1e3, o_d / 1e3), o_h <= o_d))
    md = ["## Targets", "", "| target | measured (hpcc) | met |", "|---|---|---|"]
    for name, v, ok in rows:
        md.append("| %s | %s | %s |" % (name, v, "reported" if ok is None else
                                          "yes" if ok else "**no**"))
    return md + [""], rows


def md_to_rst(md, img_dir):
    """The report's Markdown as reStructuredText for
    Documentation/evaluation.rst: headings one level down, pipe tables as
    list-tables, images from @img_dir."""
    out, i, lines = [], 0, md.split("\n")
    under = {"#": "=", "##": "-", "###": "~"}
    while i < len(lines):
        line = lines[i]
        m = re.match(r"(#+) (.*)", line)
        if m and m.group(1) in under:
            out += [m.group(2), under[m.group(1)] * len(m.group(2)), ""]
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not re.match(r"^\|[-|]+\|$", lines[i]):
                    rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            out += [".. list-table::", "   :header-rows: 1", ""]
            for r in rows:
                out.append("   * - " + (r[0] or " "))
                out += ["     - " + (c or " ") for c in r[1:]]
            out.append("")
            continue
        elif line.startswith("!["):
            m = re.match(r"!\[(.*)\]\((.*)\)", line)
            out += [".. image:: %s/%s" % (img_dir, m.group(2)),
                    "   :alt: %s" % m.group(1), ""]
        else:
            out.append(line.replace("*", "\\*") if "**" not in line else line)
        i += 1
    return "\n".join(out)


def main():
    d = sys.argv[1]
    meta = read_meta(d)
    res = {}
    rep = 1
    body = []
    body += s1(d, meta, res, rep)
    body += s2(d, meta, res)
    body += s1(d, meta, res, rep, "s1v6")
    body += s2(d, meta, res, "s2v6")
    body += ipv6_vs_ipv4(res)
    body += s1(d, meta, res, rep, "s1ioam")
    body += s2(d, meta, res, "s2ioam")
    body += ioam_vs_own(res)
    body += s3(d, meta, res, rep)
    body += rx_vs_sender(d, meta, res)
    body += telemetry(d, meta, res, rep)
    body += s4(d, meta, res)
    body += s5(d, meta, res)
    body += s6(d, meta, res, rep)
    body += s7(d, meta, res)
    tmd, rows = targets(res, meta)
    head = ["# tcp_hpcc evaluation: hpcc, cubic, bbr, dctcp", "",
            "- run: %s, %s, commit %s, Linux %s, %s vCPUs (QEMU TCG)" % (
                meta.get("date"), "quick" if meta.get("quick") == "1" else "full",
                meta.get("commit"), meta.get("kernel"), meta.get("cpus")),
            "- repetitions: %s, (scenario, cc) pairs in a random order per "
            "repetition (order.txt); figures are medians, (min-max) the spread"
            % meta.get("reps"),
            "- testbed: dumbbell, 8 senders -> router -> 8 receivers; %s" %
            meta.get("bottleneck", ""),
            "- dctcp: RED at the bottleneck with min %s B, max %d B, "
            "probability 1, ecn; net.ipv4.tcp_ecn=1 in every host" % (
                meta.get("red_k"), int(meta.get("red_k", "0")) + 1),
            "- every host's net.ipv4.tcp_congestion_control is the cc under test",
            "- elapsed: %s s%s" % (meta.get("elapsed_s", "?"),
                                   " (the part after the last resume)"
                                   if "resumed" in meta else ""), ""]
    try:
        with open(os.path.join(d, "guest-failures.txt")) as fh:
            gf = [x for x in fh.read().split("\n") if x.startswith("guest ")]
        if gf:
            nto = sum(1 for x in gf if "timeout" in x or "exit 124" in x)
            head[-1:-1] = ["- guests that did not finish: %d (%d crashed, %d reached "
                           "the time limit), each followed by a new guest that "
                           "re-ran the unfinished run (guest-failures.txt): %s" % (
                               len(gf), len(gf) - nto, nto, "; ".join(gf))]
    except OSError:
        pass
    with open(os.path.join(d, "report.md"), "w") as fh:
        fh.write("\n".join(head + tmd + body) + "\n")
    # the same, for Documentation/evaluation.rst (plots in evaluation/)
    with open(os.path.join(d, "report.rst"), "w") as fh:
        fh.write(md_to_rst("\n".join(head + tmd + body), "evaluation") + "\n")
    with open(os.path.join(d, "results.json"), "w") as fh:
        json.dump({"meta": meta, "results": res,
                   "targets": [{"target": a, "measured": b, "met": c}
                               for a, b, c in rows]}, fh, indent=1)
    print("\n".join(tmd))


if __name__ == "__main__":
    main()
