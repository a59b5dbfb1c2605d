#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Craft Fast Congestion Response messages (struct hpcc_wire_fcr,
include/uapi/linux/hpcc_wire.h) for tests.

  fcr.py send DST PORT SADDR SPORT DADDR DPORT RATE SWITCH HOPPORT ROUND
              INTERVAL SEQ [KIND]
      send one FCR message as a UDP datagram from this namespace to
      DST:PORT for the flow SADDR:SPORT -> DADDR:DPORT (IPv4), rate RATE
      bit/s, hop (SWITCH, HOPPORT), round ROUND, interval INTERVAL us,
      sequence number SEQ; KIND: ok (default) | magic (a wrong magic) |
      short (40 bytes)
  fcr.py sendmany DST PORT
      send one message for each line on stdin, "SADDR SPORT DADDR DPORT
      RATE SWITCH HOPPORT ROUND INTERVAL SEQ [KIND]" as for send (one
      python start for many messages: a start costs about a second in a
      single-threaded guest)
  fcr.py sniffsend DEV SPORT COUNT GAP DST PORT SADDR DADDR DPORT RATE
              SWITCH HOPPORT INTERVAL
      watch DEV (a packet socket) for TCP data (not probes) from port SPORT
      and answer
      each of COUNT segments, GAP seconds apart, with an FCR message whose
      sequence number is that segment's (the flow's path is the only
      place it is known), rounds 1..COUNT; prints "sent N"
  fcr.py burst DEV SADDR DADDR DPORT SPORT COUNT GROUP GAP WAIT [response]
      send COUNT TCP data segments (64 bytes each, raw socket) of COUNT
      new flows SADDR:SPORT+k -> DADDR:DPORT, k = 0..COUNT-1, in groups of
      GROUP back to back, GAP seconds between groups, and watch DEV (a
      packet socket) meanwhile and WAIT seconds after for the FCR messages
      to those flows; prints "k round rate" for each message, in k's
      order, and "sent in MS ms" (the send phase's length) to stderr.
      response: the segments have a probe's or response's TCP
      header instead (sequence and acknowledgment numbers, flags and
      window 0; include/uapi/linux/hpcc_wire.h)
"""
import socket
import struct
import sys
import time

from probe import csum  # the Internet checksum, as probe.py's packets use

MAGIC = 0x48504343
SOL_PACKET = 263
PACKET_IGNORE_OUTGOING = 23


def mapped(a):
    return bytes(10) + b"\xff\xff" + socket.inet_aton(a)


def message(saddr, sport, daddr, dport, rate, switch, port, rnd, interval,
            seq, kind="ok"):
    m = struct.pack(">IBBBBIIQQIIHHI", MAGIC if kind != "magic" else 0,
                    1, 3, 4, 0, switch, port, rate, time.monotonic_ns(),
                    seq, rnd, sport, dport, interval)
    m += mapped(saddr) + mapped(daddr)
    return m[:40] if kind == "short" else m


def send(dst, port, m):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(m, (dst, port))
    s.close()


def sniffsend(dev, sport, count, gap, dst, port, saddr, daddr, dport, rate,
              switch, hport, interval):
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    p.bind((dev, 0))
    p.settimeout(10)
    n = 0
    nxt = 0.0
    try:
        while n < count:
            f = p.recv(65535)
            # TCP, and not a probe (DSCP 60, sequence number 0)
            if len(f) < 54 or f[12:14] != b"\x08\x00" or f[23] != 6 or \
               f[15] >> 2 == 60:
                continue
            ihl = (f[14] & 15) * 4
            tcp = 14 + ihl
            tot = struct.unpack(">H", f[16:18])[0]
            doff = (f[tcp + 12] >> 4) * 4
            if struct.unpack(">H", f[tcp:tcp + 2])[0] != sport or \
               tot <= ihl + doff or time.monotonic() < nxt:
                continue
            seq = struct.unpack(">I", f[tcp + 4:tcp + 8])[0]
            n += 1
            send(dst, port, message(saddr, sport, daddr, dport, rate, switch,
                                    hport, n, interval, seq))
            nxt = time.monotonic() + gap
    except socket.timeout:
        pass
    print("sent", n)
    return 0 if n == count else 1


def segment(saddr, daddr, sport, dport, seq, response=False):
    data = bytes(64)
    h = struct.pack(">HHIIBBHHH", sport, dport, 0 if response else seq, 0,
                    5 << 4, 0 if response else 0x18,
                    0 if response else 65535, 0, 0)
    ph = socket.inet_aton(saddr) + socket.inet_aton(daddr) + \
        struct.pack(">BBH", 0, 6, len(h) + len(data))
    c = csum(ph + h + data)
    return h[:16] + struct.pack(">H", c) + h[18:] + data


def burst(dev, saddr, daddr, dport, sport, count, group, gap, wait,
          response=False):
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    # incoming only (PACKET_IGNORE_OUTGOING): the datagrams this host
    # sends meanwhile would fill the buffer and lose messages
    p.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    p.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    p.bind((dev, 0))
    p.setblocking(False)
    r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    got = {}

    def drain():
        while True:
            try:
                f = p.recv(65535)
            except BlockingIOError:
                return
            # IPv4 UDP to the FCR port carrying an FCR message
            if len(f) < 14 + 20 + 8 + 80 or f[12:14] != b"\x08\x00" or \
               f[23] != 17:
                continue
            u = 14 + (f[14] & 15) * 4
            m = f[u + 8:]
            if struct.unpack(">I", m[:4])[0] != MAGIC or m[5] != 3:
                continue
            rate, = struct.unpack(">Q", m[16:24])
            rnd, fsport = struct.unpack(">IH", m[36:42])
            k = fsport - sport
            if 0 <= k < count and k not in got:
                got[k] = (rnd, rate)

    t0 = time.monotonic()
    for k in range(count):
        r.sendto(segment(saddr, daddr, sport + k, dport, 1000 * (k + 1),
                         response), (daddr, 0))
        if (k + 1) % group:
            continue
        end = time.monotonic() + gap
        while time.monotonic() < end:
            drain()
    print("sent in %.1f ms" % ((time.monotonic() - t0) * 1000),
          file=sys.stderr)
    end = time.monotonic() + wait
    while time.monotonic() < end:
        drain()
        time.sleep(0.001)
    for k in sorted(got):
        print(k, got[k][0], got[k][1])
    return 0


def main(a):
    if a[0] == "send":
        kind = a[13] if len(a) > 13 else "ok"
        send(a[1], int(a[2]),
             message(a[3], int(a[4]), a[5], int(a[6]), int(a[7]), int(a[8]),
                     int(a[9]), int(a[10]), int(a[11]), int(a[12]), kind))
        return 0
    if a[0] == "sendmany":
        for line in sys.stdin:
            f = line.split()
            if not f:
                continue
            kind = f[10] if len(f) > 10 else "ok"
            send(a[1], int(a[2]),
                 message(f[0], int(f[1]), f[2], int(f[3]), int(f[4]),
                         int(f[5]), int(f[6]), int(f[7]), int(f[8]),
                         int(f[9]), kind))
        return 0
    if a[0] == "sniffsend":
        return sniffsend(a[1], int(a[2]), int(a[3]), float(a[4]), a[5],
                         int(a[6]), a[7], a[8], int(a[9]), int(a[10]),
                         int(a[11]), int(a[12]), int(a[13]))
    if a[0] == "burst":
        return burst(a[1], a[2], a[3], int(a[4]), int(a[5]), int(a[6]),
                     int(a[7]), float(a[8]), float(a[9]),
                     len(a) > 10 and a[10] == "response")
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
