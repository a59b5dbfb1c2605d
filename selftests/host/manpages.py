#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
manpages.py - the man pages (daemon/hpccd/hpccd.8, daemon/hpccctl/hpccctl.8) and
Documentation/daemon.rst against the code, mechanically: every
configuration key hpccd_cfg_set() takes and no other in hpccd.8's
CONFIGURATION FILE; hpccd's and hpccctl's long options; every counter
hpccd writes in hpccd.8's SIGUSR1 list, and no other there; hpccctl's param show list against the netlink spec's params; the
columns of hpccctl int show against the man page.  Prints each check
and what differs; exit 1 when anything does.
"""
import os
import re
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else "."
bad = 0


def read(path):
    with open("%s/%s" % (TOP, path)) as f:
        return f.read()


def read_dir(path):
    """the C files of one program's directory, one after another"""
    return "".join(read("%s/%s" % (path, f))
                   for f in sorted(os.listdir("%s/%s" % (TOP, path)))
                   if f.endswith(".c"))


def roff_text(s):
    """man source to words: escapes and font requests away"""
    s = re.sub(r"\\f[BIRP]", "", s)
    s = s.replace("\\-", "-").replace("\\(em", " ")
    s = re.sub(r"^\.(BI|BR|IR|RB|RI|IB|B|I)\s", "", s, flags=re.M)
    return s.replace('"', "")


def section(man, name):
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH )" % re.escape(name), man,
                  re.M | re.S)
    return m.group(1) if m else ""


def compare(what, code, doc, code_only_ok=(), doc_only_ok=()):
    global bad
    missing = sorted(set(code) - set(doc) - set(code_only_ok))
    extra = sorted(set(doc) - set(code) - set(doc_only_ok))
    print("%s: %d in the code, %d documented" % (what, len(set(code)),
                                                  len(set(doc))))
    if missing:
        print("  not documented: %s" % " ".join(missing))
    if extra:
        print("  documented, not in the code: %s" % " ".join(extra))
    if missing or extra:
        bad = 1


def c_block(src, start):
    i = src.index(start)
    return src[i:src.index("\n}", i)]


hpccd_c = read_dir("daemon/hpccd")
config_c = read("daemon/hpccd/config.c")
hpccd8 = read("daemon/hpccd/hpccd.8")
ctl_c = read_dir("daemon/hpccctl")
ctl8 = read("daemon/hpccctl/hpccctl.8")

# 1. configuration keys
keys = re.findall(r'strcmp\(k, "([a-z0-9-]+)"\)',
                  c_block(config_c, "int hpccd_cfg_set("))
items = re.findall(r"^\.TP\n\.B[IR]? ([a-z0-9-]+)",
                   section(hpccd8, "CONFIGURATION FILE"), re.M)
# "key" is refused in the file: it belongs to the key file, named in
# auth-key-file's item
compare("hpccd.8 configuration keys", keys, items, code_only_ok=["key"])

# 1b. each numeric key's range and default, as hpccd_cfg_set() and
# hpccd_cfg_defaults() have them, in its item: "MIN to MAX", "default N"
consts = {"HPCC_MAX_HOPS": 8, "1U << 24": 1 << 24, "UINT32_MAX - 1": 2**32 - 2,
          "UINT32_MAX": 2**32 - 1, "HPCC_RATE_MAX": "1.6e12"}
# the numeric #defines of daemon/hpccd/config.h (HPCCD_RP_STRICT ...)
consts.update((k, int(v)) for k, v in re.findall(
    r"^#define (HPCCD_[A-Z0-9_]+)\s+(\d+)$", read("daemon/hpccd/config.h"), re.M))
defaults = dict((k, consts.get(v, v)) for k, v in re.findall(
    r"c->([a-z_]+) = (\d+|HPCCD_[A-Z0-9_]+);",
                           c_block(config_c, "void hpccd_cfg_defaults(")))
body = c_block(config_c, "int hpccd_cfg_set(")
man_cf = roff_text(section(hpccd8, "CONFIGURATION FILE"))
texts = dict(re.findall(r"^([a-z0-9-]+)( .*?\n.*?)(?=^\.TP|\Z)", man_cf,
                        re.M | re.S))
for key, lo_, hi_, field in re.findall(
        r'strcmp\(k, "([a-z0-9-]+)"\)\)\n\t+return parse_u(?:int|64)\(k, v, ([^,]+),\s*([^,]+),\s*&c->([a-z_]+)\)',
        body):
    lo_ = consts.get(lo_, lo_)
    hi_ = consts.get(hi_, hi_)
    t = " ".join(texts.get(key, "").split())
    # a choice of a few values is listed: "0|1", "1|2", "0|1|2"
    few = (str(lo_).isdigit() and str(hi_).isdigit() and
           1 <= int(hi_) - int(lo_) <= 2)
    want = ["|".join(str(v) for v in range(int(lo_), int(hi_) + 1)) if few
            else "%s to %s" % (lo_, hi_)]
    if field in defaults:
        want.append("default %s" % defaults[field])
    elif field != "budget" and field != "max_hops":
        want.append("default 0")
    if key in ("probe-budget", "max-hops"):
        t = " ".join(roff_text(section(hpccd8, "OPTIONS")).split())
    for w in want:
        pat = re.escape(w)
        if w.startswith("default "):
            # "default N", "default: N" or "N (the default)"
            n = re.escape(w[len("default "):])
            pat = r"(?:default:? %s|%s \(the default\))" % (n, n)
        if not re.search(r"%s(?![\w.])" % pat, t):
            print("  hpccd.8 %s: no '%s'" % (key, w))
            bad = 1
print("hpccd.8 ranges and defaults: checked")

# 2. long options
lo = re.findall(r'\{ "([a-z-]+)",', c_block(hpccd_c, "long_opts[] = {"))
doc = re.findall(r"--([a-z][a-z-]*)", roff_text(section(hpccd8, "OPTIONS")))
compare("hpccd.8 long options", lo, doc)
lo = re.findall(r'\{ "([a-z-]+)",', c_block(ctl_c, "long_opts[] = {"))
doc = re.findall(r"--([a-z][a-z-]*)", roff_text(ctl8))
compare("hpccctl.8 long options", lo, doc)

# 3. hpccd's counters: counter_names[] and the lines write_stats() writes
# before them
i = hpccd_c.index("counter_names[C_PARSE_BASE] = {")
names = re.findall(r'"([a-z0-9-]+)"', hpccd_c[i:hpccd_c.index("};", i)])
ws = c_block(hpccd_c, "void write_stats(")
head = re.findall(r'(?:"|\\n)([a-z-]+)=%', ws[:ws.index("flow_lines(out)")])
sig = roff_text(section(hpccd8, "SIGNALS"))
usr1 = sig[sig.index("SIGUSR1"):]
usr1 = usr1[:usr1.index("then one line\nper flow") if "then one line\nper flow" in usr1 else len(usr1)]
words = set(re.findall(r"(?<![\w-])([a-z][a-z0-9]*(?:-[a-z0-9]+)+|connected|flows|queued|shards|resyncs|reconciles|events|reconnects|lookups)(?![\w-])", usr1))
# hyphenated words of the prose that are not counters
prose = {"telemetry-set", "flow-get", "n-flows-source", "auth-permissive",
         "rx-based", "report-n-flows", "receiver-based", "dropped-reason",
         "default-rate", "flow-new", "flow-del", "reconcile-s"}
compare("hpccd.8 SIGUSR1 counters", head + names, words - prose)

# 4. hpccctl param show: the spec's params (pad is no parameter)
spec = read("Documentation/netlink/specs/hpcc.yaml")
i = spec.index("name: params\n")
block = spec[i:spec.index("\n  -\n    name:", i)]
params = re.findall(r"name: ([a-z0-9-]+)", block)[1:]
ps = roff_text(ctl8)
ps = ps[ps.index("param show\nThe parameters"):ps.index("param set\nSet")]
doc = re.findall(r"(?<![\w-])([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?= \(|,| and|\))", ps)
compare("hpccctl.8 param show", [p for p in params if p != "pad"],
        [d for d in doc if d in params or "-" in d],
        doc_only_ok=[])

# 5. hpccctl int show columns
i = ctl_c.index('"dev", "ifindex"')
cols = re.findall(r'"([a-z()/-]+)"', ctl_c[i:ctl_c.index(");", i)])
cols = [c.split("(")[0] for c in cols]
ishow = roff_text(ctl8)
ishow = ishow[ishow.index("int show\nThe namespace"):]
ishow = ishow[:ishow.index(".TP")]
doc = [c for c in cols if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(c), ishow)]
compare("hpccctl.8 int show columns", cols, doc)

# 6. the words int add and int change take: dev, rate, encoding,
# tx-model and the FCR and CCM settings (fcr_attr[], by their spec
# names), each in the man page
i = ctl_c.index("static const int fcr_attr[] = {")
attrs = re.findall(r"HPCC_INT_A_DEV_([A-Z_]+)", ctl_c[i:ctl_c.index("};", i)])
words = [a.lower().replace("_", "-") for a in attrs]
i = ctl_c.index("for (i = 0; i + 1 < ac; i += 2) {\n\t\tk = takes_rate")
words += re.findall(r'strcmp\(av\[i\], "([a-z-]+)"\)', ctl_c[i:ctl_c.index("\n\t}\n", i)])
ctxt = roff_text(ctl8)
doc = [w for w in words if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w), ctxt)]
compare("hpccctl.8 int add/change words", words, doc)

sys.exit(bad)
