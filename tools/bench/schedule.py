#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flow schedules for tools/bench/fctgen (see its header for the format).

  schedule.py incast --n N --size BYTES --bg 0|1 --rounds R --hosts H
                     --rate-mbit MBIT --rtt-ms MS
  schedule.py poisson --cdf FILE --scale S --load PCT --flows F --hosts H
                      --rate-mbit MBIT --seed SEED
  schedule.py many --load PCT --duration S --size BYTES --rate-mbit MBIT
                   --seed SEED
  schedule.py plan --dir DIR --n "N..." --rounds R --loads "PCT..." --reps R
                   --cdf FILE --scale S --flows F --hosts H --rate-mbit MBIT
                   --rtt-ms MS --seed SEED [--many-loads "PCT..."
                   --duration S --many-size BYTES]

plan writes every schedule of tools/bench/eval.sh at once (one Python start
instead of dozens, which matters in an emulated guest):
DIR/incast-nN-sSIZE-bgBG.txt for SIZE 65536 and 1048576/N, BG 0 and 1, and
DIR/poisson-loadPCT-repREP.txt with seed SEED * 1000 + REP, and
DIR/many-loadPCT-repREP.txt for each of --many-loads with the same seed.

incast: R rounds of N flows of BYTES each, all to receiver tbd1; flow k of a
round comes from sender tbs((k-1) mod H + 1) and has id 1000*round + k
(rounds from 1).  A round starts 0.5 s + 3 ideal round times (N*BYTES at the
rate, plus one RTT) after the previous one.  With --bg 1, flow 0 is a long
flow tbsH -> tbd1 that starts 2 s before the first round and stops 0.5 s
after the last round's start plus its gap.

poisson: F flows with exponential inter-arrival times whose mean makes the
offered load PCT % of the rate; sizes drawn from the CDF (linear
interpolation, as ../shared/workloads/README.md says) and divided by S
(at least 1 byte); sender and receiver each drawn uniformly from the H
hosts.  The first flow starts 0.2 s after t0.

many: the Fast Congestion Response draft's test of section 8.1
(draft-even-tsvwg-datacenter-fast-congestion-00, "Many senders to one
receiver": five senders of long flows and a sixth of 8-byte messages for
latency, at 30, 50, 80 and 100 % network load), scaled to the testbed.
Senders tbs1..tbs5 each start flows of --size bytes to tbd1 with
exponential inter-arrival times whose mean makes the five together offer
PCT % of the rate (the draft does not say how its load was made; a
Poisson process of long flows keeps it an average, as the draft's
"network average load" says, with the bursts of new flows starting at
line rate that FCR is for); ids 1, 2, ... in start order.  Sender tbs6
keeps one connection to tbd1, flow 100000, a ping flow of fctgen's that
sends an 8-byte message every --period-ms (default 5) and times each
one's answer: one round trip plus the bottleneck's queue, the latency the
draft measures, with no connection set-up in it.  Both run from 0.2 s to
0.2 s + --duration after t0.
"""
import argparse
import os
import random
import sys


def load_cdf(path):
    pts = []
    with open(path) as fh:
        for line in fh:
            line = line.split("#")[0].split()
            if len(line) == 2:
                pts.append((float(line[0]), float(line[1])))
    if len(pts) < 2 or pts[0][1] != 0 or pts[-1][1] != 100:
        sys.exit("schedule.py: %s: a CDF from 0 to 100 %%" % path)
    return pts


def cdf_sample(pts, p):
    for (s0, p0), (s1, p1) in zip(pts, pts[1:]):
        if p < p1:
            return s0 + (s1 - s0) * (p - p0) / (p1 - p0) if p1 > p0 else s1
    return pts[-1][0]


def cdf_mean(pts):
    return sum((p1 - p0) / 100.0 * (s0 + s1) / 2
               for (s0, p0), (s1, p1) in zip(pts, pts[1:]))


def incast(a, out=sys.stdout):
    ideal = a.n * a.size * 8 / (a.rate_mbit * 1e6) + a.rtt_ms / 1e3
    gap = 0.5 + 3 * ideal
    first = 2.0 if a.bg else 0.2
    lines = []
    for r in range(a.rounds):
        t = int((first + r * gap) * 1e6)
        for k in range(1, a.n + 1):
            lines.append("%d %d tbs%d tbd1 198.19.0.1 %d 0" % (
                1000 * (r + 1) + k, t, (k - 1) % a.hosts + 1, a.size))
    if a.bg:
        stop = int((first + a.rounds * gap + 0.5) * 1e6)
        lines.insert(0, "0 0 tbs%d tbd1 198.19.0.1 0 %d" % (a.hosts, stop))
    print("# incast n %d size %d bg %d rounds %d gap_us %d" % (
        a.n, a.size, a.bg, a.rounds, gap * 1e6), file=out)
    print("\n".join(lines), file=out)


def poisson(a, out=sys.stdout):
    rng = random.Random(a.seed)
    pts = [(s / a.scale, p) for s, p in load_cdf(a.cdf)]
    mean = cdf_mean(pts)
    rate = a.load / 100.0 * a.rate_mbit * 1e6 / 8 / mean    # flows/s
    t = 0.2
    print("# poisson load %g%% scale 1/%g mean_bytes %.0f flows_per_s %.2f" % (
        a.load, a.scale, mean, rate), file=out)
    for i in range(1, a.flows + 1):
        size = max(1, int(round(cdf_sample(pts, rng.uniform(0, 100)))))
        s, d = rng.randint(1, a.hosts), rng.randint(1, a.hosts)
        print("%d %d tbs%d tbd%d 198.19.0.%d %d 0" % (i, int(t * 1e6), s, d, d,
                                                      size), file=out)
        t += rng.expovariate(rate)


MANY_LAT_ID = 100000


def many(a, out=sys.stdout):
    rng = random.Random(a.seed)
    senders = 5
    # flows per second per sender
    rate = a.load / 100.0 * a.rate_mbit * 1e6 / 8 / a.size / senders
    start, end = 0.2, 0.2 + a.duration
    fl = []
    for s in range(1, senders + 1):
        t = start + rng.expovariate(rate)
        while t < end:
            fl.append((t, s))
            t += rng.expovariate(rate)
    fl.sort()
    print("# many load %g%% size %d duration_s %g flows %d latency_period_ms %g" % (
        a.load, a.size, a.duration, len(fl), a.period_ms), file=out)
    for i, (t, s) in enumerate(fl, 1):
        print("%d %d tbs%d tbd1 198.19.0.1 %d 0" % (i, int(t * 1e6), s, a.size),
              file=out)
    print("%d %d tbs%d tbd1 198.19.0.1 p%d %d" % (
        MANY_LAT_ID, int(start * 1e6), senders + 1, int(a.period_ms * 1e3),
        int(end * 1e6)), file=out)


def plan(a):
    os.makedirs(a.dir, exist_ok=True)
    for n in (int(x) for x in a.n.split()):
        for size in (65536, 1048576 // n):
            for bg in (0, 1):
                x = argparse.Namespace(n=n, size=size, bg=bg, rounds=a.rounds,
                                       hosts=a.hosts, rate_mbit=a.rate_mbit,
                                       rtt_ms=a.rtt_ms)
                with open(os.path.join(a.dir, "incast-n%d-s%d-bg%d.txt" % (
                        n, size, bg)), "w") as fh:
                    incast(x, fh)
    for load in a.loads.split():
        for rep in range(1, a.reps + 1):
            x = argparse.Namespace(cdf=a.cdf, scale=a.scale, load=float(load),
                                   flows=a.flows, hosts=a.hosts,
                                   rate_mbit=a.rate_mbit,
                                   seed=a.seed * 1000 + rep)
            with open(os.path.join(a.dir, "poisson-load%s-rep%d.txt" % (
                    load, rep)), "w") as fh:
                poisson(x, fh)
    for load in a.many_loads.split():
        for rep in range(1, a.reps + 1):
            x = argparse.Namespace(load=float(load), duration=a.duration,
                                   size=a.many_size, rate_mbit=a.rate_mbit,
                                   period_ms=5.0, seed=a.seed * 1000 + rep)
            with open(os.path.join(a.dir, "many-load%s-rep%d.txt" % (
                    load, rep)), "w") as fh:
                many(x, fh)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="kind", required=True)
    i = sub.add_parser("incast")
    i.add_argument("--n", type=int, required=True)
    i.add_argument("--size", type=int, required=True)
    i.add_argument("--bg", type=int, default=0)
    i.add_argument("--rounds", type=int, default=5)
    i.add_argument("--hosts", type=int, default=8)
    i.add_argument("--rate-mbit", type=float, required=True)
    i.add_argument("--rtt-ms", type=float, required=True)
    p = sub.add_parser("poisson")
    p.add_argument("--cdf", required=True)
    p.add_argument("--scale", type=float, default=1)
    p.add_argument("--load", type=float, required=True)
    p.add_argument("--flows", type=int, required=True)
    p.add_argument("--hosts", type=int, default=8)
    p.add_argument("--rate-mbit", type=float, required=True)
    p.add_argument("--seed", type=int, default=1)
    m = sub.add_parser("many")
    m.add_argument("--load", type=float, required=True)
    m.add_argument("--duration", type=float, required=True)
    m.add_argument("--size", type=int, required=True)
    m.add_argument("--rate-mbit", type=float, required=True)
    m.add_argument("--period-ms", type=float, default=5.0)
    m.add_argument("--seed", type=int, default=1)
    q = sub.add_parser("plan")
    q.add_argument("--dir", required=True)
    q.add_argument("--n", required=True)
    q.add_argument("--rounds", type=int, default=5)
    q.add_argument("--loads", required=True)
    q.add_argument("--reps", type=int, default=3)
    q.add_argument("--cdf", required=True)
    q.add_argument("--scale", type=float, default=1)
    q.add_argument("--flows", type=int, required=True)
    q.add_argument("--hosts", type=int, default=8)
    q.add_argument("--rate-mbit", type=float, required=True)
    q.add_argument("--rtt-ms", type=float, required=True)
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--many-loads", default="")
    q.add_argument("--duration", type=float, default=10)
    q.add_argument("--many-size", type=int, default=262144)
    a = ap.parse_args()
    {"incast": incast, "poisson": poisson, "many": many,
     "plan": plan}[a.kind](a)


if __name__ == "__main__":
    main()
