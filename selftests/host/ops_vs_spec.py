#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ops_vs_spec.py GENERATED.c MODULE.c - the module's hand-written genl_ops
table (which 6.1, without genl_split_ops, also builds) against the split
ops ynl-gen-c generates from the spec: the same commands, do and dump where
the spec has them, the same policy and maxattr, and a permission flag
exactly where the spec asks for admin-perm (GENL_ADMIN_PERM, or
GENL_UNS_ADMIN_PERM, which the genetlink schema cannot express).  An
operation may instead leave .policy out when its handler parses with that
same generated policy itself (to count what it rejects), but only below
the family's resv_start_op: for a later command the core rejects every
attribute of an op without a policy (genl_policy_reject_all), whatever the
handler does.  Prints each difference; exit status 1 if any."""
import re
import sys


def blocks(text, start):
    i = text.index(start)
    body = text[text.index("{", i) + 1:text.index("\n};", i)]
    return [dict(re.findall(r"\.(\w+)\s*=\s*([^,\n]+)", b))
            for b in re.findall(r"\{([^{}]*)\}", body)]


gen = open(sys.argv[1]).read()
mod = open(sys.argv[2]).read()
want = {}
for b in blocks(gen, "struct genl_split_ops"):
    w = want.setdefault(b["cmd"].strip(), {"do": False, "dump": False})
    w["do"] |= "doit" in b
    w["dump"] |= "dumpit" in b
    if "doit" in b:
        w["policy"] = b.get("policy", "").strip()
        w["maxattr"] = b.get("maxattr", "").strip()
        w["admin"] = "GENL_ADMIN_PERM" in b.get("flags", "")
have = {b["cmd"].strip(): b for b in blocks(mod, "struct genl_ops")}
# commands from resv_start_op on (the spec's order is the commands' order)
resv = re.search(r"\.resv_start_op\s*=\s*(\w+)\s*\+\s*1", mod)
order = list(want)
strict = set(order[order.index(resv.group(1)) + 1:]) \
    if resv and resv.group(1) in order else set(order)
bad = []
if set(want) != set(have):
    bad.append("commands: spec %s, module %s" % (sorted(want), sorted(have)))
for cmd in sorted(set(want) & set(have)):
    w, h = want[cmd], have[cmd]
    if w["do"] != ("doit" in h) or w["dump"] != ("dumpit" in h):
        bad.append("%s: do/dump differ" % cmd)
    pol = h.get("policy", "").strip()
    if pol != w.get("policy", ""):
        handler_parses = cmd not in strict and not pol and w.get("policy") and \
            re.search(r"nlmsg_parse\([^;]*%s[^;]*\b%s\b" % (w["maxattr"], w["policy"]), mod, re.S)
        if not handler_parses:
            bad.append("%s: policy %r, spec %r" % (cmd, pol, w.get("policy")))
    elif pol and h.get("maxattr", "").strip() != w["maxattr"]:
        bad.append("%s: maxattr %s, spec %s" % (cmd, h.get("maxattr"), w["maxattr"]))
    admin = "ADMIN_PERM" in h.get("flags", "")
    if admin != w.get("admin", False):
        bad.append("%s: permission %r, spec admin-perm %s" % (cmd, h.get("flags"), w.get("admin")))
for b in bad:
    print(b)
print("%d operations checked, %d differences" % (len(want), len(bad)))
sys.exit(1 if bad else 0)
