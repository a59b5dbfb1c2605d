#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nlfuzz.py - a generic netlink fuzzer driven by a family's YNL spec.

Usage: nlfuzz.py SPEC.yaml SECONDS [--seed N] [--tuples FILE] [--json]

Sends SECONDS worth of requests to the family that SPEC describes, on one
NETLINK_GENERIC socket, and prints what came back.  Each request is, with
equal odds:

  valid    a request the spec allows: an operation of the spec, each of its
           request attributes present or not, values at and around the
           checks' bounds, the type's limits or random, nested and multi
           attributes as the spec declares them; a flow's tuple is taken
           from --tuples (one "saddr daddr sport dport" line each, so that
           telemetry reaches real flows) 4 times in 5;
  mutated  a valid request changed by one to four of: a bit flip, a random
           byte, truncation, trailing garbage, a wrong attribute length, a
           duplicated or unknown attribute type, NLA_F_NESTED toggled, a
           random command, the dump flag on any operation, a wrong nlmsg_len;
  random   random attribute bytes after a random command's genl header.

Every request asks for an ACK.  A request whose netlink header was mangled
may get no answer by design, so it is followed by a sentinel (CTRL_CMD_GETFAMILY
for the family) and the fuzzer reads until the sentinel's answer: a kernel
that stops answering shows as a timeout, which fails the run.

The output (one "key value" line each, or JSON with --json): executions,
the count per errno ("errno-EINVAL"), per operation the requests the kernel
accepted ("accepted-OP"), dumps, timeouts.  Exit status 0 when the socket
kept answering, 1 on a timeout, 2 on bad usage.

Only the standard library and PyYAML (python3-yaml).
"""
import errno
import json
import os
import random
import select
import socket
import struct
import sys
import time

import yaml

NETLINK_GENERIC = 16
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2

INT_TYPES = {"u8": (1, "B"), "u16": (2, "H"), "u32": (4, "I"), "u64": (8, "Q"),
             "s8": (1, "b"), "s16": (2, "h"), "s32": (4, "i"), "s64": (8, "q")}


def nla(atype, payload):
    """One attribute, padded to 4 bytes."""
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def nlmsg(ntype, flags, seq, payload):
    return struct.pack("=IHHII", 16 + len(payload), ntype, flags, seq, 0) + payload


class Spec:
    """The parts of a YNL genetlink spec a fuzzer needs."""

    def __init__(self, path):
        with open(path) as f:
            y = yaml.safe_load(f)
        self.name = y["name"]
        self.consts = {d["name"]: d.get("value") for d in y.get("definitions", [])
                       if d.get("type") == "const"}
        # a flags set's mask (its entries are bits 0, 1, ... unless valued)
        self.flags = {}
        for d in y.get("definitions", []):
            if d.get("type") == "flags":
                bit, mask = 0, 0
                for e in d["entries"]:
                    if isinstance(e, dict) and "value" in e:
                        bit = e["value"]
                    mask |= 1 << bit
                    bit += 1
                self.flags[d["name"]] = mask
        self.sets = {}
        for s in y["attribute-sets"]:
            attrs, val = {}, 1
            for a in s["attributes"]:
                val = a.get("value", val)
                attrs[a["name"]] = dict(a, value=val)
                val += 1
            self.sets[s["name"]] = attrs
        # a subset names attributes of another set
        for s in y["attribute-sets"]:
            if "subset-of" in s:
                full = self.sets[s["subset-of"]]
                self.sets[s["name"]] = {n: dict(full[n], **a) for n, a in
                                        self.sets[s["name"]].items()}
        self.ops, self.names, val = [], {}, 1
        for o in y["operations"]["list"]:
            val = o.get("value", val)
            if "event" not in o:
                self.ops.append(dict(o, value=val))
                self.names[val] = o["name"]
            val += 1

    def bound(self, v):
        """A checks: limit: a number, a const, or u32-max, s32-max, ..."""
        if isinstance(v, int):
            return v
        if v in self.consts:
            return int(self.consts[v] or 0)
        if v[0] in "su" and v.endswith(("-max", "-min")):
            width = int(v[1:-4]) - (v[0] == "s")
            if v.endswith("-min"):
                return -(1 << width) if v[0] == "s" else 0
            return (1 << width) - 1
        return 0


class Fuzzer:
    def __init__(self, spec, rng, tuples):
        self.spec, self.rng, self.tuples = spec, rng, tuples
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.seq = 1
        self.counts = {}
        self.family = self.resolve()

    def count(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n

    # --- sending and receiving -------------------------------------------

    def send(self, msg):
        try:
            self.sock.send(msg)
        except OSError as e:
            self.count("send-" + errno.errorcode.get(e.errno, str(e.errno)))

    def wait_for(self, seq, timeout=5.0):
        """Read until the answer to @seq (an error/ACK or NLMSG_DONE): its
        errno (0 for an ACK), or None after @timeout.  Counts dumps."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, ty, fl, sq, _ = struct.unpack_from("=IHHII", data, off)
                if ln < 16:
                    break
                if sq == seq:
                    if ty == NLMSG_ERROR:
                        return -struct.unpack_from("=i", data, off + 16)[0]
                    if ty == NLMSG_DONE:
                        self.count("dumps")
                        return 0
                off += (ln + 3) & ~3

    def request(self, ntype, flags, payload):
        seq = self.seq = (self.seq + 1) & 0xffffffff or 1
        self.send(nlmsg(ntype, flags | NLM_F_REQUEST | NLM_F_ACK, seq, payload))
        return seq

    def resolve(self):
        payload = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) + \
            nla(CTRL_ATTR_FAMILY_NAME, self.spec.name.encode() + b"\0")
        seq = self.request(GENL_ID_CTRL, 0, payload)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            if not select.select([self.sock], [], [], 1)[0]:
                continue
            data = self.sock.recv(65536)
            ln, ty, fl, sq, _ = struct.unpack_from("=IHHII", data, 0)
            if sq != seq:
                continue
            if ty == NLMSG_ERROR:
                break
            off = 20
            while off + 4 <= ln:
                alen, atype = struct.unpack_from("=HH", data, off)
                if alen < 4:
                    break
                if atype == CTRL_ATTR_FAMILY_ID:
                    return struct.unpack_from("=H", data, off + 4)[0]
                off += (alen + 3) & ~3
        sys.exit("nlfuzz: family %s not found" % self.spec.name)

    def sentinel(self):
        payload = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) + \
            nla(CTRL_ATTR_FAMILY_NAME, self.spec.name.encode() + b"\0")
        return self.request(GENL_ID_CTRL, 0, payload)

    # --- values ------------------------------------------------------------

    def int_value(self, attr, sane, depth):
        """A value of an integer attribute: with @sane, inside the spec's
        checks (or small), always in a nest and 9 times in 10 outside;
        otherwise at and around the
        bounds, the type's limits, or anywhere."""
        size, fmt = INT_TYPES[attr["type"]]
        top = (1 << (8 * size)) - 1
        checks = attr.get("checks", {})
        lo = self.spec.bound(checks.get("min", 0))
        hi = max(lo, min(self.spec.bound(checks.get("max", top)), top))
        mask = self.spec.flags.get(attr.get("enum")) \
            if attr.get("enum-as-flags") else None
        if sane and mask is not None:
            # a flags attribute: none half the time, else some of its bits
            # (NLA_POLICY_MASK refuses the others)
            v = 0 if self.rng.random() < 0.5 else self.rng.randint(0, mask) & mask
        elif sane and (depth > 0 or self.rng.random() < 0.9):
            v = self.rng.randint(lo, hi if "max" in checks else min(hi, 1 << 20))
        else:
            picks = [0, 1, top, top - 1, 1 << (8 * size - 1), self.rng.randrange(top + 1)]
            for b in (lo, hi):
                picks += [b - 1, b, b + 1]
            v = self.rng.choice(picks) & top
        # signed types too are sent as their bits
        return struct.pack("=" + fmt.upper(), v)

    def value(self, attr, depth, sane):
        t = attr["type"]
        if t in INT_TYPES:
            return self.int_value(attr, sane, depth)
        if t == "flag":
            return b""
        if t == "string":
            return bytes(self.rng.randrange(1, 128) for _ in range(self.rng.randrange(40))) + b"\0"
        if t == "binary":
            n = attr.get("checks", {}).get("exact-len")
            if n is None or (not sane and self.rng.random() < 0.2):
                n = self.rng.randrange(0, 40)
            return bytes(self.rng.randrange(256) for _ in range(n))
        if t == "nest":
            return self.attrs(self.spec.sets[attr["nested-attributes"]],
                              None, sane, depth + 1)
        return b""

    def attrs(self, aset, names, sane, depth=0):
        """Attributes of @aset (only @names when given), each present with
        probability 1/2 (@sane: every subset equally likely, so that the
        combinations an operation refuses, such as telemetry-set's rx-u
        beside hop records, do not crowd out the ones it takes; always in
        a nest) or 0.7; a multi-attr one 1 to max-hops times (@sane) or 0
        to 10; a nest flagged NLA_F_NESTED (@sane) or half the time."""
        out = b""
        if depth > 3:
            return out
        most = int(self.spec.consts.get("max-hops") or 4)
        for name, a in aset.items():
            if a["type"] == "pad" or (names is not None and name not in names):
                continue
            if self.rng.random() < (0.3 if not sane else 0.5 if depth == 0 else 0):
                continue
            reps = 1
            if a.get("multi-attr"):
                reps = self.rng.randint(1, most) if sane else self.rng.randrange(0, 11)
            for _ in range(reps):
                # strict parsing wants NLA_F_NESTED on a nest: always in a
                # sane request (without it, most valid telemetry-sets with
                # several hops were refused)
                t = a["value"] | (NLA_F_NESTED if a["type"] == "nest" and
                                  (sane or self.rng.random() < 0.5) else 0)
                out += nla(t, self.value(a, depth, sane))
        return out

    def tuple_attrs(self, aset):
        """A real flow's tuple (family, saddr4, daddr4, sport, dport)."""
        s, d, sp, dp = self.rng.choice(self.tuples)
        val = {k: aset[k]["value"] for k in ("family", "saddr4", "daddr4", "sport", "dport")}
        return (nla(val["family"], struct.pack("=H", socket.AF_INET)) +
                nla(val["saddr4"], socket.inet_aton(s)) +
                nla(val["daddr4"], socket.inet_aton(d)) +
                nla(val["sport"], struct.pack("!H", sp)) +
                nla(val["dport"], struct.pack("!H", dp)))

    # --- messages ------------------------------------------------------------

    def valid(self, sane=True):
        op = self.rng.choice(self.spec.ops)
        aset = self.spec.sets.get(op.get("attribute-set"), {})
        flags = 0
        if "dump" in op and ("do" not in op or self.rng.random() < 0.5):
            flags, req = NLM_F_DUMP, op["dump"].get("request", {})
        else:
            req = op.get("do", {}).get("request", {})
        names = req.get("attributes", [])
        body = b""
        if self.tuples and "sport" in names and self.rng.random() < 0.8:
            body = self.tuple_attrs(aset)
            # an IPv4 tuple: the other family's addresses would not go with it
            names = [n for n in names if n not in
                     ("family", "saddr4", "daddr4", "saddr6", "daddr6",
                      "sport", "dport")]
        body += self.attrs(aset, names, sane)
        return op, flags, struct.pack("=BBH", op["value"], 1, 0) + body

    def mutate(self, flags, payload):
        b = bytearray(payload)
        for _ in range(self.rng.randrange(1, 5)):
            m = self.rng.randrange(10)
            if m == 0 and b:
                i = self.rng.randrange(len(b))
                b[i] ^= 1 << self.rng.randrange(8)
            elif m == 1 and b:
                b[self.rng.randrange(len(b))] = self.rng.randrange(256)
            elif m == 2 and len(b) > 4:
                del b[self.rng.randrange(4, len(b)):]
            elif m == 3:
                b += bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 24)))
            elif m == 4 and len(b) >= 8:
                struct.pack_into("=H", b, 4, self.rng.randrange(0, 0x10000))
            elif m == 5 and len(b) >= 8:
                ln = struct.unpack_from("=H", b, 4)[0]
                b += b[4:4 + max(4, (ln + 3) & ~3)]
            elif m == 6:
                b += nla(self.rng.choice([0, 0x3fff, self.rng.randrange(1, 64)]),
                         bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(0, 20))))
            elif m == 7 and len(b) >= 8:
                t = struct.unpack_from("=H", b, 6)[0]
                struct.pack_into("=H", b, 6, t ^ self.rng.choice([NLA_F_NESTED, NLA_F_NET_BYTEORDER]))
            elif m == 8 and b:
                b[0] = self.rng.randrange(256)
            elif m == 9:
                flags ^= self.rng.choice([NLM_F_DUMP, 0x100, 0x200, 0x800])
        return flags, bytes(b)

    def one(self):
        r = self.rng.random()
        if r < 1 / 3:
            _, flags, payload = self.valid()
            kind = "valid"
        elif r < 2 / 3:
            _, flags, payload = self.valid(sane=False)
            flags, payload = self.mutate(flags, payload)
            kind = "mutated"
        else:
            flags = self.rng.choice([0, NLM_F_DUMP])
            payload = struct.pack("=BBH", self.rng.randrange(256), self.rng.randrange(256), 0) + \
                bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(0, 64)))
            kind = "random"
        self.count("executions")
        self.count("kind-" + kind)
        if self.rng.random() < 0.03:
            # a mangled netlink header: no answer is promised, the
            # sentinel's must come
            msg = bytearray(nlmsg(self.family, flags | NLM_F_REQUEST | NLM_F_ACK, 0, payload))
            struct.pack_into("=I", msg, 0, self.rng.choice(
                [0, 4, 15, 16, len(msg) + 4, len(msg) - 1, 0xffffffff]))
            self.send(bytes(msg))
            self.count("bad-header")
            return self.wait_for(self.sentinel()) is not None
        seq = self.request(self.family, flags, payload)
        err = self.wait_for(seq)
        if err is None:
            self.count("timeouts")
            return False
        self.count("errno-" + (errno.errorcode.get(err, str(err)) if err else "0"))
        name = self.spec.names.get(payload[0] if payload else -1)
        if err == 0 and name:
            self.count("accepted-" + name)
        return True


def main():
    args = sys.argv[1:]
    opts = {"--seed": None, "--tuples": None}
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    pos = []
    while args:
        a = args.pop(0)
        if a in opts and args:
            opts[a] = args.pop(0)
        else:
            pos.append(a)
    if len(pos) != 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        sys.exit(2)
    seed = int(opts["--seed"]) if opts["--seed"] else int.from_bytes(os.urandom(4), "little")
    tuples = []
    if opts["--tuples"]:
        with open(opts["--tuples"]) as f:
            for line in f:
                p = line.split()
                if len(p) == 4:
                    tuples.append((p[0], p[1], int(p[2]), int(p[3])))
    fz = Fuzzer(Spec(pos[0]), random.Random(seed), tuples)
    end = time.monotonic() + float(pos[1])
    alive = True
    while time.monotonic() < end:
        if not fz.one():
            alive = False
            break
    fz.counts["seed"] = seed
    if as_json:
        print(json.dumps(fz.counts, sort_keys=True))
    else:
        for k in sorted(fz.counts):
            print(k, fz.counts[k])
    sys.exit(0 if alive else 1)


if __name__ == "__main__":
    main()
