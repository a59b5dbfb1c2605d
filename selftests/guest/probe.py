#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Craft HPCC probe/response packets (include/uapi/linux/hpcc_wire.h) for tests.

  probe.py send SRC SPORT DST DPORT DSCP KIND COUNT [GAP]
      (GAP: seconds between two packets, 0 by default)
      KIND: probe | response | nomagic (the DSCP, a TCP header, no HPCC header)
            | full (a probe whose HOPS records are all filled already)
            | intmd (a probe with an INT-MD v2.1 shim and header after the
              TCP header, empty stack: instructions 0xd500 as hpccd sends,
              Hop ML 6, Remaining Hop Count 3) | intmd-all (every baseline
              bit 0-8, two domain-specific words and the checksum
              complement: Hop ML 15) | intmd-rhc0 (Remaining Hop Count 0)
            | intmd-mlN (N 1-31: Hop ML N, the node ID only, Remaining Hop
              Count 8)
            | ifa (an IFA 2.0 probe: IP protocol 253, the IFA header, the
              TCP header, the IFA metadata header with Hop Limit 3 and
              Max Length 24 words, empty stack) | ifa-hl0 (Hop Limit 0)
            | ifa-long (Hop Limit 8, Max Length 64 words)
            | syn, seq, window (a probe whose TCP header has SYN set, seq 1
              or window 1: not the wire format's, so not a probe);
      KIND may be a comma-separated list: COUNT of each, in turn
  probe.py l2send DEV MAC SRC DST DSCP COUNT
      send COUNT valid probes (DSCP) from a packet socket on DEV to the
      link-layer address MAC (ff:ff:ff:ff:ff:ff, 01:00:5e:00:00:01, a host's)
  probe.py l2send6 DEV MAC SRC DST DSCP KIND EXT COUNT
      send COUNT IPv6 packets of KIND (as for send, a list too) with DSCP in
      the traffic class from a packet socket on DEV to MAC; EXT, the extension headers
      before TCP: none | hbh (hop-by-hop, PadN) | dst (destination options)
      | hbh-dst | rh0 (a routing header, segments left 0) | rh1 (segments
      left 1) | frag (an atomic fragment header) | deep (9 destination
      options headers)
  probe.py conns SRV PORT N CC
      open N TCP connections with congestion control CC to SRV:PORT, keep
      them open until a line on stdin, then close them all; prints "open N"
  probe.py accept PORT
      accept connections on PORT and keep them open (a sink for conns)
  probe.py garbage DEV SRC DST DSCP COUNT
      send COUNT malformed IPv4 packets with DSCP from a packet socket on
      DEV to the broadcast address: valid probes and responses with random
      bytes changed and random truncation, the IP checksum recomputed for
      half of them (seeded, so a run repeats)
  probe.py sniff DEV DSCP SECONDS [EXPECT]
      count IPv4 packets with DSCP seen by a packet socket on DEV, for
      SECONDS or until 0.5 s after the EXPECT-th; prints "sniffing", then N
  probe.py stamps DEV DSCP SECONDS EXPECT
      like sniff, but prints one line per probe seen: "len L csum ok|bad
      nhop N cap C" and, for each filled record, " hop SWITCH PORT RATE TS
      TXBYTES QLEN", and for a probe with an INT-MD stack " int flags F rhc
      R ml M n N" and per hop on the stack (the newest first) " md W,W,..."
      (its 4-byte words in hex), and for an IFA probe (protocol 253) " ifa
      hl H cur C n N" and per hop " fa W,W,..." (the newest first)
  probe.py stamps6 DEV DSCP SECONDS EXPECT
      stamps for IPv6 (DSCP in the traffic class, extension headers
      skipped, the checksum over the IPv6 pseudo-header), with " hl H" (the
      hop limit) after the length
  probe.py labels6 DEV SPORT DPORT DSCP STOPFILE
      watch the IPv6 TCP packets from port SPORT to port DPORT on DEV until
      STOPFILE exists (at most 120 s times HPCC_SLOW, selftests/lib.sh's
      SLOW: ipv6.sh's case takes 420 s on a debugging kernel): data (DSCP
      0) and probes (DSCP) apart, print a line "KIND LABEL" each time a
      kind's flow label differs from its last one, then "count KIND LABEL
      N" for each kind's last label and "end" ("end: no STOPFILE after N
      s" when the time ran out)
"""
import os
import random
import socket
import struct
import sys
import time

MAGIC, VERSION, HOPS = 0x48504343, 1, 4
# SLOW - selftests/lib.sh's SLOW (HPCC_SLOW, which it exports; the same
# test of the release when run by hand): 10 on the debugging kernel, whose
# guest runs the tests several times slower, and 1 elsewhere.  Waits that
# bound a test rather than measure scale by it (fcr.py and ccm.py take it
# from here).
SLOW = int(os.environ.get("HPCC_SLOW") or
           (10 if "hpccdebug" in os.uname().release else 1))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


# INT-MD kinds: (instruction bitmap, domain-specific instructions, Hop ML,
# Remaining Hop Count); intmd-all's Hop ML: bits 0-8 (48 bytes), two
# domain-specific words, the checksum complement
INTMD = {"intmd": (0xD500, 0, 6, 3), "intmd-all": (0xFF81, 0x8001, 15, 3),
         "intmd-rhc0": (0xD500, 0, 6, 0)}


def intmd_params(kind):
    """(instructions, domain instructions, Hop ML, Remaining Hop Count) of
    the INT-MD KIND, or None for a kind without a shim."""
    if kind.startswith("intmd-ml"):
        return 0x8000, 0, int(kind[8:]), 8
    return INTMD.get(kind)


def intmd_head(kind):
    """The INT shim (type 1, NPT 0, Length 3) and INT-MD header of KIND."""
    ins, ds, ml, rhc = intmd_params(kind)
    return struct.pack("!BBBB", 1 << 4, 3, 0, 0) + \
        struct.pack("!BBBBHHHH", 2 << 4, 0, ml, rhc, ins, 1 if ds else 0, ds, 0)


IFA_PROTO = 253


def packet(src, sport, dst, dport, dscp, kind, pid):
    if kind.startswith("ifa"):
        return packet_ifa(src, sport, dst, dport, dscp, kind, pid)
    if kind == "nomagic":
        payload = b"x" * 64
    else:
        typ = 2 if kind == "response" else 1
        nhop = HOPS if kind == "full" else 0
        payload = struct.pack("!IBBBBQQ", MAGIC, VERSION, typ, nhop, HOPS, pid,
                              time.monotonic_ns()) + b"\0" * (40 * HOPS)
        if intmd_params(kind):
            payload = intmd_head(kind) + payload
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    seq = 1 if kind == "seq" else 0
    flags = 0x02 if kind == "syn" else 0
    window = 1 if kind == "window" else 0
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags,
                      window, 0, 0)
    pseudo = s + d + struct.pack("!BBH", 0, socket.IPPROTO_TCP,
                                 len(tcp) + len(payload))
    c = csum(pseudo + tcp + payload)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    total = 20 + len(tcp) + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2, total, pid & 0xFFFF,
                     0x4000, 64, socket.IPPROTO_TCP, 0, s, d)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + tcp + payload


def packet_ifa(src, sport, dst, dport, dscp, kind, pid):
    """An IFA 2.0 probe of KIND (ifa, ifa-hl0, ifa-long) with HOPS
    records."""
    hl, maxlen = {"ifa-hl0": (0, 24), "ifa-long": (8, 64)}.get(kind, (3, 24))
    payload = struct.pack("!BBBB", 0, 0, hl, 0) + \
        struct.pack("!IBBBBQQ", MAGIC, VERSION, 1, 0, HOPS, pid,
                    time.monotonic_ns()) + b"\0" * (40 * HOPS)
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 0, 0, 5 << 4, 0, 0, 0, 0)
    pseudo = s + d + struct.pack("!BBH", 0, socket.IPPROTO_TCP,
                                 len(tcp) + len(payload))
    c = csum(pseudo + tcp + payload)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ifa = struct.pack("!BBBB", 0x2F, socket.IPPROTO_TCP, 0, maxlen)
    total = 20 + len(ifa) + len(tcp) + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2, total, pid & 0xFFFF,
                     0x4000, 64, IFA_PROTO, 0, s, d)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + ifa + tcp + payload


def exthdr(nexthdr, kind):
    """An IPv6 extension header of KIND (8 bytes) before NEXTHDR."""
    if kind in ("hbh", "dst"):  # a PadN option of 4 bytes fills 8 bytes
        return struct.pack("!BBBB4s", nexthdr, 0, 1, 4, b"\0" * 4)
    if kind in ("rh0", "rh1"):  # type 0 layout, no address (hdrlen 0)
        return struct.pack("!BBBB4s", nexthdr, 0, 0, int(kind[2]), b"\0" * 4)
    if kind == "frag":  # offset 0, M 0: an atomic fragment
        return struct.pack("!BBHI", nexthdr, 0, 0, 0x1234)
    raise ValueError(kind)


EXT_CODE = {"hbh": 0, "dst": 60, "rh0": 43, "rh1": 43, "frag": 44}


def packet6(src, sport, dst, dport, dscp, kind, pid, ext):
    """An IPv6 probe/response like packet(), with extension headers EXT."""
    payload = packet("0.0.0.0", sport, "0.0.0.0", dport, dscp, kind, pid)[40:]
    s, d = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1 if kind == "seq" else 0, 0,
                      5 << 4, 0x02 if kind == "syn" else 0,
                      1 if kind == "window" else 0, 0, 0)
    pseudo = s + d + struct.pack("!IxxxB", len(tcp) + len(payload),
                                 socket.IPPROTO_TCP)
    c = csum(pseudo + tcp + payload)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    kinds = {"none": [], "hbh-dst": ["hbh", "dst"], "deep": ["dst"] * 9}.get(ext, [ext])
    hdrs, nexthdr = b"", socket.IPPROTO_TCP
    for k in reversed(kinds):
        hdrs = exthdr(nexthdr, k) + hdrs
        nexthdr = EXT_CODE[k]
    body = hdrs + tcp + payload
    ip = struct.pack("!IHBB16s16s", 6 << 28 | (dscp << 2) << 20, len(body),
                     nexthdr, 64, s, d)
    return ip + body


def listen(dev, ethertype=0x0800):
    """A packet socket for ETHERTYPE (IPv4 by default) on DEV, 0.2 s
    timeout; prints "sniffing"."""
    sk = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                       socket.htons(ethertype))
    # a burst of probes must not overflow the default 208 KiB while a
    # slow guest's Python reads them (veth's packets cost 2-4 KiB each)
    sk.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
    sk.bind((dev, 0))
    sk.settimeout(0.2)
    print("sniffing", flush=True)
    return sk


def stamp_line(head, ok, seg, ifa=False):
    """stamps' line for the TCP segment SEG (HEAD: "len L ..." before the
    checksum verdict OK; IFA: SEG carries the IFA metadata header and
    stack after the TCP header), or None when SEG holds no HPCC header."""
    off = (seg[12] >> 4) * 4
    tail = ""
    if ifa and len(seg) >= off + 4:
        hl, cur = seg[off + 2], seg[off + 3]
        stack = seg[off + 4:off + 4 + cur * 4]
        n = len(stack) // 32
        tail = " ifa hl %d cur %d n %d" % (hl, cur, n)
        for i in range(n):
            w = struct.unpack("!8I", stack[i * 32:(i + 1) * 32])
            tail += " fa " + ",".join("%x" % x for x in w)
        off += 4 + cur * 4
    elif len(seg) >= off + 16 and seg[off] >> 4 == 1:  # an INT-MD shim
        words, m = seg[off + 1], seg[off + 4:off + 16]
        ml = (m[2] & 0x1F) * 4
        stack = seg[off + 16:off + 4 + words * 4]
        n = len(stack) // ml if ml else 0
        tail = " int flags %d rhc %d ml %d n %d" % ((m[0] >> 1) & 7, m[3],
                                                   ml // 4, n)
        for i in range(n):
            w = struct.unpack("!%dI" % (ml // 4), stack[i * ml:(i + 1) * ml])
            tail += " md " + ",".join("%x" % x for x in w)
        off += 4 + words * 4
    h = seg[off:off + 24]
    if len(h) < 24:
        return None
    magic, _ver, _typ, nhop, cap = struct.unpack("!IBBBB", h[:8])
    if magic != MAGIC:
        return None
    line = "%s csum %s nhop %d cap %d" % (head, "ok" if ok else "bad", nhop, cap)
    for i in range(min(nhop, cap)):
        r = seg[off + 24 + 40 * i:off + 64 + 40 * i]
        if len(r) == 40:
            line += " hop %d %d %d %d %d %d" % struct.unpack("!IIQQQI", r[:36])
    return line + tail


def seg4(pkt, dscp):
    """("len L", TCP checksum ok, TCP segment, IFA) of an IPv4 packet with
    DSCP (TCP, or IFA: protocol 253, the IFA header skipped), or None"""
    if len(pkt) < 40 or pkt[1] >> 2 != dscp or \
            pkt[9] not in (socket.IPPROTO_TCP, IFA_PROTO):
        return None
    ifa = pkt[9] == IFA_PROTO
    ihl = (pkt[0] & 15) * 4 + (4 if ifa else 0)
    total = struct.unpack("!H", pkt[2:4])[0]
    seg = pkt[ihl:total]
    pseudo = pkt[12:20] + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(seg))
    return "len %d" % total, csum(pseudo + seg) == 0, seg, ifa


def seg6(pkt, dscp):
    """seg4 for IPv6: DSCP in the traffic class, extension headers skipped
    (not a fragment header), the hop limit after the length"""
    if len(pkt) < 40 or pkt[0] >> 4 != 6 or \
            (struct.unpack("!I", pkt[:4])[0] >> 20 & 0xFF) >> 2 != dscp:
        return None
    total = 40 + struct.unpack("!H", pkt[4:6])[0]
    nh, off = pkt[6], 40
    while nh in EXT_CODE.values() and nh != 44 and off + 8 <= total:
        nh, off = pkt[off], off + (pkt[off + 1] + 1) * 8
    if nh != socket.IPPROTO_TCP:
        return None
    seg = pkt[off:total]
    pseudo = pkt[8:40] + struct.pack("!IxxxB", len(seg), socket.IPPROTO_TCP)
    return "len %d hl %d" % (total, pkt[7]), csum(pseudo + seg) == 0, seg, False


def stamps(dev, dscp, secs, expect, v6=False):
    sk = listen(dev, 0x86DD if v6 else 0x0800)
    n, end = 0, time.monotonic() + secs
    while time.monotonic() < end and n < expect:
        try:
            pkt = sk.recv(4096)
        except socket.timeout:
            continue
        got = (seg6 if v6 else seg4)(pkt, dscp)
        line = got and stamp_line(*got)
        if line:
            print(line, flush=True)
            n += 1
    return 0


def labels6(dev, sport, dport, dscp, stopfile):
    sk = listen(dev, 0x86DD)
    last, n, why = {}, {}, ""
    end, check = time.monotonic() + 120 * SLOW, 0.0
    while time.monotonic() < end:
        if time.monotonic() >= check:
            if os.path.exists(stopfile):
                break
            check = time.monotonic() + 0.2
        try:
            pkt = sk.recv(128)
        except socket.timeout:
            continue
        if len(pkt) < 44 or pkt[0] >> 4 != 6 or pkt[6] != socket.IPPROTO_TCP:
            continue
        if struct.unpack("!HH", pkt[40:44]) != (sport, dport):
            continue
        word = struct.unpack("!I", pkt[:4])[0]
        d, label = (word >> 20 & 0xFF) >> 2, word & 0xFFFFF
        kind = "probe" if d == dscp else "data" if d == 0 else None
        if kind is None:
            continue
        if last.get(kind) != label:
            print("%s 0x%05x" % (kind, label), flush=True)
            last[kind], n[kind] = label, 0
        n[kind] += 1
    else:
        why = ": no %s after %d s" % (stopfile, 120 * SLOW)
    for kind in sorted(last):
        print("count %s 0x%05x %d" % (kind, last[kind], n[kind]))
    print("end" + why, flush=True)
    return 0


def main(av):
    if av[1] == "send":
        src, sport, dst, dport, dscp, kind, n = av[2:9]
        gap = float(av[9]) if len(av) > 9 else 0
        sk = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        for k in kind.split(","):
            for i in range(int(n)):
                if i and gap:
                    time.sleep(gap)
                sk.sendto(packet(src, int(sport), dst, int(dport), int(dscp),
                                 k, i + 1), (dst, 0))
        return 0
    if av[1] == "l2send":
        dev, mac, src, dst, dscp, n = av[2], av[3], av[4], av[5], int(av[6]), int(av[7])
        sk = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                           socket.htons(0x0800))
        hw = bytes(int(x, 16) for x in mac.split(":"))
        for i in range(n):
            sk.sendto(packet(src, 41000 + i, dst, 5201, dscp, "probe", i + 1),
                      (dev, 0x0800, 0, 0, hw))
        return 0
    if av[1] == "l2send6":
        dev, mac, src, dst = av[2:6]
        dscp, kind, ext, n = int(av[6]), av[7], av[8], int(av[9])
        sk = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                           socket.htons(0x86DD))
        hw = bytes(int(x, 16) for x in mac.split(":"))
        for k in kind.split(","):
            for i in range(n):
                sk.sendto(packet6(src, 42000 + i, dst, 5201, dscp, k, i + 1,
                                  ext), (dev, 0x86DD, 0, 0, hw))
        return 0
    if av[1] == "conns":
        import resource
        srv, port, n, cc = av[2], int(av[3]), int(av[4]), av[5].encode()
        resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, n + 100))
        sks = []
        for _ in range(n):
            c = socket.socket()
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc)
            c.connect((srv, port))
            sks.append(c)
        print("open %d" % len(sks), flush=True)
        sys.stdin.readline()
        for c in sks:
            c.close()
        return 0
    if av[1] == "accept":
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (100000, 100000))
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("0.0.0.0", int(av[2])))
        ls.listen(4096)
        keep = []
        while True:
            keep.append(ls.accept()[0])
    if av[1] == "garbage":
        dev, src, dst, dscp, n = av[2], av[3], av[4], int(av[5]), int(av[6])
        rnd = random.Random(dscp * 1000 + n)
        sk = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                           socket.htons(0x0800))
        for i in range(n):
            kind = "probe" if i % 2 else "response"
            b = bytearray(packet(src, 40000 + i, dst, 5201, dscp, kind, i))
            for _ in range(rnd.randint(1, 6)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            b[1] = dscp << 2 | (b[1] & 3)
            if rnd.random() < 0.3:
                del b[rnd.randrange(1, len(b)):]
            if rnd.random() < 0.5 and len(b) >= 20:
                ihl = max(5, min(b[0] & 15, len(b) // 4))
                b[10:12] = b"\0\0"
                b[10:12] = struct.pack("!H", csum(bytes(b[:ihl * 4])))
            sk.sendto(bytes(b), (dev, 0x0800, 0, 0, b"\xff" * 6))
        return 0
    if av[1] == "sniff":
        dev, dscp, secs = av[2], int(av[3]), float(av[4])
        expect = int(av[5]) if len(av) > 5 else 0
        sk = listen(dev)
        n, end = 0, time.monotonic() + secs
        while time.monotonic() < end:
            try:
                pkt = sk.recv(4096)
            except socket.timeout:
                continue
            if len(pkt) >= 20 and pkt[1] >> 2 == dscp:
                n += 1
                if n == expect:  # a little longer, to see any extra
                    end = min(end, time.monotonic() + 0.5)
        print(n)
        return 0
    if av[1] == "stamps":
        return stamps(av[2], int(av[3]), float(av[4]), int(av[5]))
    if av[1] == "labels6":
        return labels6(av[2], int(av[3]), int(av[4]), int(av[5]), av[6])
    if av[1] == "stamps6":
        return stamps(av[2], int(av[3]), float(av[4]), int(av[5]), v6=True)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
