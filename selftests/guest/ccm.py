#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Play Coordinated Congestion Management notifications (struct
hpcc_wire_ccm, include/uapi/linux/hpcc_wire.h) to a flow's sender, as a
hop on the flow's path would, for tests.

  ccm.py play DEV SPORT DST PORT SADDR DADDR DPORT < SCRIPT
      for each line of SCRIPT:
        sleep S
            wait S seconds
        replay
            send the last notification again, byte for byte
        forge NTYPE
            send at once a notification of type NTYPE for the last
            segment seen, its sequence number 2^31 from the segment's (a
            blind sender's guess), and print "forge NTYPE SEQ"; replay
            still repeats the last notification of an NTYPE line
        NTYPE [label=same|other] [seq=same|far] [kind=ok|magic|short|
              ntype|noflow] [sw=SWITCH_ID] [port=PORT_ID]
            wait on DEV (a packet socket) for the next TCP data segment
            (not a probe) of the flow from port SPORT (IPv4 or IPv6), and
            send a notification of type NTYPE (1, 2 or 3) as a UDP
            datagram from this namespace to DST:PORT for the flow
            SADDR:SPORT -> DADDR:DPORT, with that segment's sequence
            number (seq=far: 2^31 away from it) and flow label
            (label=other: its lowest bit flipped); kind: magic (a wrong
            magic), short (40 bytes), ntype (notification type 9), noflow
            (the flow's source port + 1000); sw, port: the notifying
            hop (default 9 and 9, a hop no telemetry of the tests shows)
      and print "NTYPE SEQ LABEL" for each notification of an NTYPE
      line, "replay" for each replay; exit status
      1 when a segment did not come within 10 s (times HPCC_SLOW, as
      fcr.py's waits)
"""
import socket
import struct
import sys
import time

from fcr import mapped  # an IPv4 address, IPv4-mapped, as FCR's messages
from fcr import drop_queued  # drop a packet socket's queued frames
from fcr import recv_first  # a packet socket's first matching frame, bounded
from fcr import SLOW  # selftests/lib.sh's SLOW
from fcr import MAGIC  # the HPCC header's magic
from fcr import data_segment  # (seq, flow label) of a flow's data frame


def addr(a):
    """An address in the message's form: IPv6, or IPv4-mapped."""
    if ":" in a:
        return 6, socket.inet_pton(socket.AF_INET6, a)
    return 4, mapped(a)


def far(seq):
    """The sequence number 2^31 from SEQ: outside any window the sender
    takes."""
    return (seq + (1 << 31)) % (1 << 32)


def message(ntype, saddr, sport, daddr, dport, seq, label, kind="ok",
            sw=9, port=9):
    """A notification from switch SW's port PORT: by default a switch
    whose hops no telemetry of the tests shows (so the sender takes its
    word; a type 3 from a hop it sees is checked against its U)."""
    fam, s = addr(saddr)
    _, d = addr(daddr)
    if kind == "noflow":
        sport += 1000
    m = struct.pack(">IBBBBIIQIIHHBBH", MAGIC if kind != "magic" else 0,
                    1, 4, fam, 9 if kind == "ntype" else ntype, sw, port,
                    time.monotonic_ns(), seq, label if fam == 6 else 0,
                    sport, dport, 6, 0, 0)
    m += s + d
    return m[:40] if kind == "short" else m


def play(dev, sport, dst, port, saddr, daddr, dport, script):
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    p.bind((dev, 0))
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    u = socket.socket(fam, socket.SOCK_DGRAM)
    last = None
    seg = None
    for line in script:
        w = line.split()
        if not w:
            continue
        if w[0] == "sleep":
            time.sleep(float(w[1]))
            continue
        if w[0] in ("replay", "forge") and seg is None:
            print("%s before any notification" % w[0], file=sys.stderr)
            return 1
        if w[0] == "replay":
            u.sendto(last, (dst, port))
            print("replay")
            continue
        if w[0] == "forge":
            seq = far(seg[0])
            u.sendto(message(int(w[1]), saddr, sport, daddr, dport, seq,
                             seg[1]), (dst, port))
            print("forge", w[1], seq)
            continue
        opt = dict(x.split("=", 1) for x in w[1:])
        # a fresh segment: drop what queued while we slept, then wait
        # for the next one
        drop_queued(p)
        # 10 s (times SLOW) for the segment in all: other frames (probes,
        # the other flows) keep coming without it
        seg = recv_first(p, lambda f: data_segment(f, sport), 10 * SLOW)
        if not seg:
            print("no segment of port %d on %s in %d s" % (sport, dev,
                                                         10 * SLOW),
                  file=sys.stderr)
            return 1
        seq, label = seg
        if opt.get("seq") == "far":
            seq = far(seq)
        if opt.get("label") == "other":
            label ^= 1
        last = message(int(w[0]), saddr, sport, daddr, dport, seq, label,
                       opt.get("kind", "ok"), int(opt.get("sw", 9)),
                       int(opt.get("port", 9)))
        u.sendto(last, (dst, port))
        print(w[0], seq, "0x%05x" % label)
    return 0


def main(a):
    if a and a[0] == "play" and len(a) == 8:
        return play(a[1], int(a[2]), a[3], int(a[4]), a[5], a[6], int(a[7]),
                    sys.stdin)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
