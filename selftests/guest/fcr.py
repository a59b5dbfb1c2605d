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
      short (40 bytes) | badlen (a raw socket's datagram whose UDP
      length is 4 bytes short of the datagram's, its checksum over the
      datagram's length, as nf_checksum() computes it)
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
      place it is known), rounds 1..COUNT; prints "sent N"; exit status
      1 when a segment did not come within 10 s (times HPCC_SLOW)
  fcr.py burst DEV SADDR DADDR DPORT SPORT COUNT GROUP GAP WAIT
              [response] [support]
      send COUNT TCP data segments (64 bytes each, raw socket) of COUNT
      new flows SADDR:SPORT+k -> DADDR:DPORT, k = 0..COUNT-1, in groups of
      GROUP back to back, GAP seconds between groups, and watch DEV (a
      packet socket) meanwhile and WAIT seconds after for the FCR messages
      to those flows; prints "k round rate" for each message, in k's
      order, and "sent in MS ms" (the send phase's length) to stderr.
      response: the segments have a probe's or response's TCP
      header instead (sequence and acknowledgment numbers, flags and
      window 0; include/uapi/linux/hpcc_wire.h).  support: first a
      probe announcing FCR support (HPCC_WIRE_EXT_FCR) from SADDR, of
      the flow from port SPORT+COUNT, so that the hops know SADDR for
      the support's lifetime (HPCC_INT_FCR_SENDER_TTL, 10 s) whatever
      its hpccd's probes did last (they time out on a congested port,
      and their timeout grows to timeout-max-us)
  fcr.py script [--hold NS SECONDS] DEV SPORT DST PORT [KEYID HEXKEY]
      watch DEV (a packet socket) for one TCP data segment from port SPORT
      (as sniffsend), then send a message for each line on stdin to
      DST:PORT, "SADDR SPORT DADDR DPORT RATE SWITCH HOPPORT ROUND
      INTERVAL SEQ" as for sendmany, where SEQ is S (that segment's
      sequence number) or S+N ("watching DEV" on stderr once the watch
      began); a line "replay" sends the previous
      datagram again, byte for byte; "sleep SECONDS" waits.  With KEYID
      and HEXKEY (32 hex digits) every message is signed (the MAC trailer,
      kernel/lib/hpcc_nmac.c: SipHash-2-4 here in Python).  Prints "seq S"
      and "at T", T the moment (CLOCK_REALTIME, microseconds) the last
      datagram was sent.  With --hold NS SECONDS (anywhere after
      "script"): for SECONDS after the last datagram, NS's flow from
      SPORT read again and again (flow-get dumps by the kernel's YNL
      library with the project's spec, on a socket opened in NS before
      the watch on DEV began: no process started), "hold T RATE" a
      reading (2 ms apart), T when it began, RATE its fcr-rate
  fcr.py gso DST PORT COUNT SADDR SPORT DADDR DPORT RATE SWITCH HOPPORT
              INTERVAL SEQ
      send COUNT messages (rounds 1..COUNT) in one UDP_SEGMENT send of
      COUNT x 80 bytes: one skb of type SKB_GSO_UDP_L4 across a veth, as
      UDP GRO or fraglist GRO would deliver a burst
  fcr.py spoof DEV PREFIX COUNT DADDR DPORT SPORT ROUNDS GAP WAIT
      from COUNT spoofed sources PREFIX.(k / 250).(k % 250 + 2), k = 0..
      COUNT-1 (PREFIX two octets, such as 10.77), one flow each to
      DADDR:DPORT from port SPORT+k: a probe announcing FCR support
      (HPCC_WIRE_EXT_FCR), then ROUNDS data segments (64 bytes), one per
      flow per round, GAP seconds between rounds (raw IPv4 with the header
      included); watch DEV (a packet socket) meanwhile and WAIT seconds
      after for FCR messages to the spoofed sources, and print
      "dst ADDR N" for each destination that got N, then "total N"; "sent
      in MS ms" to stderr
  fcr.py late DEV SADDR SPORT DADDR DPORT PORT
      until SIGTERM or SIGINT, watch DEV (a packet socket for every
      protocol, incoming only: it sees each frame before the stack
      processes it) for the ACKs of the IPv4 flow SADDR:SPORT ->
      DADDR:DPORT and the FCR messages to UDP port PORT that name that
      flow; a message is late when its sequence number lies before the
      highest ACK seen ahead of it (the sender's snd_una can have passed
      it).  Prints "capturing", then, after reading what is queued, "messages
      N late L acks K drops D" (D: frames the socket dropped, which make L
      a lower bound)
"""
import ctypes
import os
import signal
import socket
import struct
import sys
import time

from probe import csum  # the Internet checksum, as probe.py's packets use
from probe import SLOW  # selftests/lib.sh's SLOW; a flow's segment waits scale by it

MAGIC = 0x48504343
PROBE_DSCP = 60  # the probes' DSCP (hpccd's default): not data
SOL_PACKET = 263
PACKET_STATISTICS = 6
PACKET_IGNORE_OUTGOING = 23
SO_RCVBUFFORCE = 33


def mapped(a):
    return bytes(10) + b"\xff\xff" + socket.inet_aton(a)


def message(saddr, sport, daddr, dport, rate, switch, port, rnd, interval,
            seq, kind="ok"):
    m = struct.pack(">IBBBBIIQQIIHHI", MAGIC if kind != "magic" else 0,
                    1, 3, 4, 0, switch, port, rate, time.monotonic_ns(),
                    seq, rnd, sport, dport, interval)
    m += mapped(saddr) + mapped(daddr)
    return m[:40] if kind == "short" else m


def send(dst, port, m, kind="ok"):
    if kind != "badlen":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(m, (dst, port))
        s.close()
        return
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    s.connect((dst, 0))
    n = 8 + len(m)
    ph = socket.inet_aton(s.getsockname()[0]) + socket.inet_aton(dst) + \
        struct.pack(">BBH", 0, socket.IPPROTO_UDP, n)
    h = struct.pack(">HHHH", 40000, port, n - 4, 0)
    h = h[:6] + struct.pack(">H", csum(ph + h + m) or 0xFFFF)
    s.send(h + m)
    s.close()


def newest(p, match):
    """The last match(frame) that is not None among the frames packet
    socket p holds now, without waiting; None when none."""
    v = None
    p.setblocking(False)
    while True:
        try:
            f = p.recv(65535)
        except BlockingIOError:
            return v
        m = match(f)
        if m is not None:
            v = m


def drop_queued(p):
    """Drop the frames packet socket p holds now, without waiting."""
    newest(p, lambda f: None)


def data_segment(f, sport):
    """(seq, flow label) of a TCP data segment from SPORT in Ethernet
    frame F, IPv4 (label 0) or IPv6; None for any other frame, a probe
    (PROBE_DSCP) or a segment without data among them."""
    et = f[12:14]
    if et == b"\x86\xdd" and len(f) >= 14 + 40 + 20 and f[20] == 6:
        dscp = ((f[14] & 15) << 4 | f[15] >> 4) >> 2
        label = (f[15] & 15) << 16 | f[16] << 8 | f[17]
        plen = struct.unpack(">H", f[18:20])[0]
        tcp = 14 + 40
    elif et == b"\x08\x00" and len(f) >= 14 + 20 + 20 and f[23] == 6:
        dscp = f[15] >> 2
        label = 0
        ihl = (f[14] & 15) * 4
        plen = struct.unpack(">H", f[16:18])[0] - ihl
        tcp = 14 + ihl
    else:
        return None
    doff = (f[tcp + 12] >> 4) * 4
    if dscp == PROBE_DSCP or plen <= doff or \
       struct.unpack(">H", f[tcp:tcp + 2])[0] != sport:
        return None
    return struct.unpack(">I", f[tcp + 4:tcp + 8])[0], label


def data_seq(f, sport):
    """The sequence number of data_segment(F, SPORT), else None."""
    seg = data_segment(f, sport)
    return seg[0] if seg else None


def sniffsend(dev, sport, count, gap, dst, port, saddr, daddr, dport, rate,
              switch, hport, interval):
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    p.bind((dev, 0))
    n = 0
    nxt = 0.0
    while n < count:
        pause = nxt - time.monotonic()
        if pause > 0:
            time.sleep(pause)
            drop_queued(p)  # what came during the gap
        # 10 s (times SLOW) for a segment in all: probes and ACKs keep
        # coming without one
        seq = recv_first(p, lambda f: data_seq(f, sport), 10 * SLOW)
        if seq is None:
            break
        # the newest segment queued: where this process is slower than
        # the flow's packets (the debugging kernel), the socket holds
        # frames whose data the receiver has long acknowledged, and the
        # sender refuses a message that names them
        s = newest(p, lambda f: data_seq(f, sport))
        if s is not None:
            seq = s
        n += 1
        send(dst, port, message(saddr, sport, daddr, dport, rate, switch,
                                hport, n, interval, seq))
        nxt = time.monotonic() + gap
    print("sent", n)
    return 0 if n == count else 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & 0xffffffffffffffff


def siphash24(key, data):
    """SipHash-2-4 of data under a 16-byte key, 8 bytes little-endian."""
    M = 0xffffffffffffffff
    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & M
        v[1] = _rotl(v[1], 13) ^ v[0]
        v[0] = _rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & M
        v[3] = _rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & M
        v[3] = _rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & M
        v[1] = _rotl(v[1], 17) ^ v[2]
        v[2] = _rotl(v[2], 32)

    n = len(data) - len(data) % 8
    for i in range(0, n, 8):
        m, = struct.unpack("<Q", data[i:i + 8])
        v[3] ^= m
        rnd()
        rnd()
        v[0] ^= m
    last = data[n:] + bytes(7 - len(data) % 8) + bytes([len(data) & 0xff])
    m, = struct.unpack("<Q", last)
    v[3] ^= m
    rnd()
    rnd()
    v[0] ^= m
    v[2] ^= 0xff
    for _ in range(4):
        rnd()
    return struct.pack("<Q", v[0] ^ v[1] ^ v[2] ^ v[3])


def sign(m, keyid, key):
    """m with the MAC trailer (struct hpcc_wire_nmac) by key keyid."""
    t = struct.pack(">BBHI", 1, 16, 0, keyid)
    return m + t + siphash24(key, m + t)


def recv_first(p, match, wait):
    """The first match(frame) that is not None among the frames packet
    socket p receives within wait seconds in all; None when none (other
    frames keep coming, so the bound is on the whole wait, not a recv)."""
    end = time.monotonic() + wait
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None
        p.settimeout(left)
        try:
            f = p.recv(65535)
        except socket.timeout:
            return None
        v = match(f)
        if v is not None:
            return v


def sniffseq(dev, sport, wait=30 * SLOW):
    """The sequence number of the next TCP data segment from sport on dev;
    None when none passed in wait seconds (other frames keep coming)."""
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    p.bind((dev, 0))
    print("watching", dev, file=sys.stderr, flush=True)
    return recv_first(p, lambda f: data_seq(f, sport), wait)


def flow_reader(ns):
    """A function that returns NS's flows (a list of dicts, the spec's
    attribute names: a flow-get dump), on a netlink socket opened in NS
    (setns(2) there and back) by the kernel's YNL library (LINUX_SRC, or
    build/linux-src: tools/net/ynl)."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    src = os.environ.get("LINUX_SRC", os.path.join(top, "build/linux-src"))
    sys.path.insert(0, os.path.join(src, "tools/net/ynl"))
    from lib import YnlFamily  # pylint: disable=import-outside-toplevel
    libc = ctypes.CDLL(None, use_errno=True)
    clone_newnet = 0x40000000
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        fd = os.open("/run/netns/" + ns, os.O_RDONLY)
        try:
            if libc.setns(fd, clone_newnet):
                raise OSError(ctypes.get_errno(), "setns " + ns)
        finally:
            os.close(fd)
        try:
            ynl = YnlFamily(os.path.join(
                top, "Documentation/netlink/specs/hpcc.yaml"), "")
        finally:
            back = libc.setns(own, clone_newnet)
        if back:
            raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(own)
    return lambda: ynl.dump("flow-get", {})


def script(dev, sport, dst, port, lines, keyid=None, key=None, hold=None):
    flows = flow_reader(hold[0]) if hold else None
    seq = sniffseq(dev, sport)
    if seq is None:
        print("no data segment from port %d on %s" % (sport, dev),
              file=sys.stderr)
        return 1
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    last = None
    at = 0
    for line in lines:
        f = line.split()
        if not f:
            continue
        if f[0] == "sleep":
            time.sleep(float(f[1]))
            continue
        if f[0] != "replay":
            q = f[9].split("+")
            n = (seq + (int(q[1]) if len(q) > 1 else 0)) % (1 << 32)
            last = message(f[0], int(f[1]), f[2], int(f[3]), int(f[4]),
                           int(f[5]), int(f[6]), int(f[7]), int(f[8]), n)
            if key is not None:
                last = sign(last, keyid, key)
        s.sendto(last, (dst, port))
        at = time.time_ns() // 1000
    s.close()
    print("seq", seq)
    print("at", at)
    if hold:
        end = time.monotonic() + hold[1]
        while time.monotonic() < end:
            t = time.time_ns() // 1000
            for f in flows():
                if f.get("sport") == sport:
                    print("hold", t, f.get("fcr-rate", 0))
            time.sleep(0.002)
    return 0


def gso(dst, port, count, a):
    UDP_SEGMENT = 103
    b = b"".join(message(a[0], int(a[1]), a[2], int(a[3]), int(a[4]),
                         int(a[5]), int(a[6]), k + 1, int(a[7]), int(a[8]))
                 for k in range(count))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, len(b) // count)
    s.sendto(b, (dst, port))
    s.close()
    return 0


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
          response=False, support=False):
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

    if support:
        with socket.socket(socket.AF_INET, socket.SOCK_RAW,
                           socket.IPPROTO_RAW) as s:
            s.sendto(support_probe(saddr, daddr, sport + count, dport,
                                   sport + count), (daddr, 0))
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


def late(dev, saddr, sport, daddr, dport, port):
    # protocol 0 until bound: no frame of another device queued meanwhile
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    p.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    p.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    p.bind((dev, 3))            # ETH_P_ALL: ahead of ip_rcv
    p.settimeout(0.5)
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    s_a, d_a = socket.inet_aton(saddr), socket.inet_aton(daddr)
    flow = struct.pack(">BHH", 4, sport, dport)
    addrs = mapped(saddr) + mapped(daddr)
    una = None
    msgs = nlate = acks = 0
    print("capturing", flush=True)
    while True:
        try:
            f = p.recv(65535)
        except (socket.timeout, InterruptedError, BlockingIOError):
            if not stop:
                continue
            if p.gettimeout() == 0:
                break
            p.setblocking(False)    # read what is queued, then end
            continue
        if len(f) < 34 or f[12:14] != b"\x08\x00":
            continue
        ip = 14 + (f[14] & 15) * 4
        if f[23] == 6 and f[26:30] == d_a and f[30:34] == s_a and \
           len(f) >= ip + 20 and f[ip + 13] & 0x10 and \
           struct.unpack(">HH", f[ip:ip + 4]) == (dport, sport):
            ack = struct.unpack(">I", f[ip + 8:ip + 12])[0]
            acks += 1
            if una is None or (ack - una) & 0xffffffff < 1 << 31:
                una = ack
        elif f[23] == 17 and len(f) >= ip + 8 + 80 and \
                struct.unpack(">H", f[ip + 2:ip + 4])[0] == port:
            m = f[ip + 8:]
            if struct.unpack(">I", m[:4])[0] != MAGIC or m[5] != 3 or \
               m[6:7] + m[40:44] != flow or m[48:80] != addrs:
                continue
            msgs += 1
            seq = struct.unpack(">I", m[32:36])[0]
            if una is not None and (seq - una) & 0xffffffff >= 1 << 31:
                nlate += 1
    _, drops = struct.unpack("II", p.getsockopt(SOL_PACKET,
                                                PACKET_STATISTICS, 8))
    print("messages %d late %d acks %d drops %d" % (msgs, nlate, acks, drops))
    return 0


def ip4(src, dst, dscp, tcp):
    """An IPv4 header from SRC to DST with DSCP before the TCP segment."""
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, dscp << 2, 20 + len(tcp), 0,
                     0x4000, 64, socket.IPPROTO_TCP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    return ip[:10] + struct.pack(">H", csum(ip)) + ip[12:] + tcp


def tcp4(src, dst, sport, dport, seq, flags, window, payload):
    """A TCP segment with a valid checksum over the IPv4 pseudo-header."""
    h = struct.pack(">HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags,
                    window, 0, 0)
    ph = socket.inet_aton(src) + socket.inet_aton(dst) + \
        struct.pack(">BBH", 0, 6, len(h) + len(payload))
    c = csum(ph + h + payload)
    return h[:16] + struct.pack(">H", c) + h[18:] + payload


# a probe (PROBE_DSCP, HOPS empty records) whose HPCC_WIRE_EXT_FCR
# extension (kind 2, 8 bytes, value HPCC_WIRE_FCR_SUPPORT) announces support
HOPS = 4


def support_probe(src, dst, sport, dport, pid):
    payload = struct.pack(">IBBBBQQ", MAGIC, 1, 1, 0, HOPS, pid,
                          time.monotonic_ns()) + bytes(40 * HOPS) + \
        struct.pack(">BBHI", 2, 8, 0, 1)
    return ip4(src, dst, PROBE_DSCP,
               tcp4(src, dst, sport, dport, 0, 0, 0, payload))


def spoof(dev, prefix, count, daddr, dport, sport, rounds, gap, wait):
    p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    p.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    p.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    p.bind((dev, 0))
    p.setblocking(False)
    r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    srcs = ["%s.%d.%d" % (prefix, k // 250, k % 250 + 2)
            for k in range(count)]
    mine = set(srcs)
    got = {}

    def drain():
        while True:
            try:
                f = p.recv(65535)
            except BlockingIOError:
                return
            # IPv4 UDP carrying an FCR message, to a spoofed source
            if len(f) < 14 + 20 + 8 + 80 or f[12:14] != b"\x08\x00" or \
               f[23] != 17:
                continue
            u = 14 + (f[14] & 15) * 4
            m = f[u + 8:]
            if struct.unpack(">I", m[:4])[0] != MAGIC or m[5] != 3:
                continue
            d = socket.inet_ntoa(f[30:34])
            if d in mine:
                got[d] = got.get(d, 0) + 1

    t0 = time.monotonic()
    for k, s in enumerate(srcs):
        r.sendto(support_probe(s, daddr, sport + k, dport, k + 1),
                 (daddr, 0))
    for n in range(rounds):
        for k, s in enumerate(srcs):
            r.sendto(ip4(s, daddr, 0,
                         tcp4(s, daddr, sport + k, dport, 1000 * (n + 1),
                              0x18, 65535, bytes(64))), (daddr, 0))
        end = time.monotonic() + gap
        while time.monotonic() < end:
            drain()
            time.sleep(0.001)
    print("sent in %.1f ms" % ((time.monotonic() - t0) * 1000),
          file=sys.stderr)
    end = time.monotonic() + wait
    while time.monotonic() < end:
        drain()
        time.sleep(0.001)
    for d in sorted(got):
        print("dst", d, got[d])
    print("total", sum(got.values()))
    return 0


def main(a):
    if a[0] == "send":
        kind = a[13] if len(a) > 13 else "ok"
        send(a[1], int(a[2]),
             message(a[3], int(a[4]), a[5], int(a[6]), int(a[7]), int(a[8]),
                     int(a[9]), int(a[10]), int(a[11]), int(a[12]), kind),
             kind)
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
                         int(f[9]), kind), kind)
        return 0
    if a[0] == "sniffsend":
        return sniffsend(a[1], int(a[2]), int(a[3]), float(a[4]), a[5],
                         int(a[6]), a[7], a[8], int(a[9]), int(a[10]),
                         int(a[11]), int(a[12]), int(a[13]))
    if a[0] == "script":
        hold = None
        if "--hold" in a:
            i = a.index("--hold")
            hold = (a[i + 1], float(a[i + 2]))
            a = a[:i] + a[i + 3:]
        k = (int(a[5]), bytes.fromhex(a[6])) if len(a) > 6 else (None, None)
        return script(a[1], int(a[2]), a[3], int(a[4]), sys.stdin, *k,
                      hold=hold)
    if a[0] == "gso":
        return gso(a[1], int(a[2]), int(a[3]), a[4:])
    if a[0] == "burst":
        if set(a[10:]) - {"response", "support"}:
            print("burst: options are response and support", file=sys.stderr)
            return 2
        return burst(a[1], a[2], a[3], int(a[4]), int(a[5]), int(a[6]),
                     int(a[7]), float(a[8]), float(a[9]),
                     "response" in a[10:], "support" in a[10:])
    if a[0] == "late":
        return late(a[1], a[2], int(a[3]), a[4], int(a[5]), int(a[6]))
    if a[0] == "spoof":
        return spoof(a[1], a[2], int(a[3]), a[4], int(a[5]), int(a[6]),
                     int(a[7]), float(a[8]), float(a[9]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
