#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hpccctl's command line (the host has no module: the kernel side runs in
# guests, selftests/guest/daemon.sh), and what `make install-programs`
# installs: programs, man pages that groff formats without warnings, and a
# systemd unit that systemd-analyze accepts.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
C=$TOP/build/hpccctl
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

exits() { # exits STATUS ARGS... - hpccctl ARGS exits STATUS with a message
	local want=$1 out rc
	shift
	out=$("$C" "$@" 2>&1) && rc=0 || rc=$?
	echo "hpccctl $*: exit $rc: $(echo "$out" | head -1)"
	[ "$rc" = "$want" ] && [ -n "$out" ]
}

usage_errors() {
	exits 2 && exits 2 bogus && exits 2 -x stats &&
	exits 2 param set && exits 2 param set t &&
	exits 2 param set colour 3 && exits 2 param set w-init 100 &&
	exits 2 param set t 12x && exits 2 param set t -1 &&
	exits 2 param set probe_dscp 256 && exits 2 param set t 4294967296 &&
	exits 2 param set start fast && exits 2 param set n-flows-source line-rate &&
	exits 2 flow show src 1.2.3 && exits 2 flow show dport 65536 &&
	exits 2 flow show sport && exits 2 flow show colour blue &&
	exits 2 int bogus && exits 2 int add && exits 2 int add rate 1mbit &&
	exits 2 int add dev lo rate 5zbit && exits 2 int add dev lo rate -1 &&
	exits 2 int del dev lo rate 1mbit && exits 2 int set &&
	exits 2 int change dev lo && exits 2 int change rate 1mbit &&
	exits 2 int change dev lo rate 5zbit &&
	exits 2 int set colour 1 && exits 2 int set switch-id -1 &&
	exits 2 int set probe-dscp 256 && exits 2 int set switch-id 1 switch-id 2 &&
	exits 2 --bogus stats && exits 2 --json
}

# --help, -V/--version and --json are understood (getopt_long), and the man
# page lists them.
long_options() {
	local o v
	v=$(cat "$TOP/VERSION")
	for o in -h --help; do
		"$C" $o | grep -q '^usage: hpccctl' || { echo "$o: no usage"; return 1; }
	done
	for o in -V --version; do
		[ "$("$C" $o)" = "hpccctl $v" ] || { echo "$o: '$("$C" $o)'"; return 1; }
	done
	if [ ! -d /sys/module/tcp_hpcc ]; then
		exits 1 --json stats || return 1
	fi
	for o in --json --help --version; do
		grep -q -- "${o//-/\\\\-}" "$TOP/daemon/hpccctl/hpccctl.8" ||
			{ echo "hpccctl.8 lacks $o"; return 1; }
	done
}

no_module() {
	if [ -d /sys/module/tcp_hpcc ]; then
		echo "tcp_hpcc is loaded here"; return 0
	fi
	exits 1 stats && exits 1 -j flow show && exits 1 param set t 20 &&
	exits 1 param set start slow-start n-flows-source reported &&
	"$C" stats 2>&1 | grep -q "modprobe tcp_hpcc"
}

installed() {
	make -s -C "$TOP" install-programs DESTDIR="$TMP/root" PREFIX=/usr \
		>/dev/null || return 1
	(cd "$TMP/root" && find . -type f | sort)
	for f in usr/sbin/hpccd usr/sbin/hpccctl usr/share/man/man8/hpccd.8 \
		 usr/share/man/man8/hpccctl.8 usr/lib/systemd/system/hpccd.service \
		 etc/hpcc/hpccd.conf; do
		[ -s "$TMP/root/$f" ] || { echo "missing $f"; return 1; }
	done
	grep -qx 'ExecStart=/usr/sbin/hpccd -S /run/hpccd/stats' \
		"$TMP/root/usr/lib/systemd/system/hpccd.service"
}

man_pages() {
	local f w
	for f in "$TOP"/daemon/*/*.8; do
		w=$(LC_ALL=C groff -man -ww -z "$f" 2>&1)
		[ -z "$w" ] || { echo "$f: $w"; return 1; }
		LC_ALL=C MANWIDTH=80 man -l "$f" 2>/dev/null | grep -q '^SYNOPSIS' ||
			{ echo "$f: no SYNOPSIS"; return 1; }
	done
}

unit_file() {
	local u=$TMP/hpccd.service out score
	command -v systemd-analyze >/dev/null || { echo "no systemd-analyze"; return 1; }
	mkdir -p "$TMP/man/man8" && cp "$TOP"/daemon/*/*.8 "$TMP/man/man8/" &&
	sed "s|@SBINDIR@|$TOP/build|" "$TOP/daemon/hpccd/hpccd.service.in" > "$u" ||
		return 1
	out=$(MANPATH=$TMP/man systemd-analyze verify "$u" 2>&1) ||
		{ echo "$out"; return 1; }
	# exactly the two capabilities, and a low exposure score
	grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW' "$u" &&
	grep -qx 'AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW' "$u" || return 1
	score=$(systemd-analyze security --offline=yes "$u" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	echo "systemd-analyze security: exposure $score"
	[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }'
}

# flow show's text and its JSON (-j) give each field in one unit, as
# hpccctl.8 says: U a fraction (1.0 is full), the pacing rate in Mbit/s,
# srtt and the telemetry's age in microseconds.  hpccctl_print prints a
# made-up flow through hpccctl's printer (no module on the host).
flow_units() {
	local p=$TOP/build/selftests/hpccctl_print text
	text=$("$p") || return 1
	echo "$text"
	"$p" -j | python3 -c '
import json, sys
f = json.load(sys.stdin)[0]
t = sys.argv[1].split()
cols = ["local", "peer", "mode-name", "cwnd", "w", "wc", "u", "inc-stage",
        "srtt", "pacing-rate", "telemetry-age", "samples", "fallbacks", "hops"]
c = dict(zip(cols, t))
bad = []
for k in ("cwnd", "w", "wc", "inc-stage", "srtt", "telemetry-age", "samples",
          "fallbacks"):
    if int(c[k]) != f[k]:
        bad.append(k)
if c["mode-name"] != f["mode-name"] or int(c["hops"]) != len(f["hops"]):
    bad.append("mode-name/hops")
if float(c["u"]) != round(f["u"], 3) or not 0.9 < f["u"] < 1.0:
    bad.append("u")
if float(c["pacing-rate"]) != round(f["pacing-rate"], 1) or \
   f["pacing-rate"] != 25000:
    bad.append("pacing-rate")
if c["local"] != "%s:%d" % (f["saddr"], f["sport"]):
    bad.append("local")
print("text and JSON differ in: %s" % " ".join(bad) if bad else
      "u %s, pacing-rate %s Mbit/s, telemetry-age %s us in both" %
      (c["u"], c["pacing-rate"], c["telemetry-age"]))
sys.exit(1 if bad else 0)
' "$text" || return 1
	# and the man page says so
	grep -q 'u (U as a fraction' "$TOP/daemon/hpccctl/hpccctl.8" &&
		grep -q 'pacing-rate (Mbit/s' "$TOP/daemon/hpccctl/hpccctl.8" ||
		{ echo "hpccctl.8 does not give the units of u and pacing-rate"; return 1; }
}

# int show's text and its JSON give each field the same value, in the
# module's units (rates bit/s, intervals us, eta thousandths): hpccctl_print
# int prints a made-up hop namespace (a port with every attribute, a port
# with FCR and CCM off) through hpccctl's printer; every number of the
# first port's JSON is in its text, and the second port has no FCR or CCM
# lines.
int_units() {
	local p=$TOP/build/selftests/hpccctl_print text
	text=$("$p" int) || return 1
	echo "$text"
	"$p" -j int | python3 -c '
import json, sys
j = json.load(sys.stdin)
lines = sys.argv[1].split("\n")
bad, seen = [], set()
def pairs(words, prefix, obj, skip=()):
    for k, v in zip(words[0::2], words[1::2]):
        key = k if k in skip else prefix + k
        seen.add(key)
        if str(obj.get(key)) != v:
            bad.append("%s: text %s, JSON %s" % (key, v, obj.get(key)))
pairs(lines[0].split(), "", j)
pairs(lines[2].split(), "", j)
if lines[1].split()[1:] != " ".join(j["key"]).split():
    bad.append("key")
if lines[3].split()[1:] != j["fcr-dst"]:
    bad.append("fcr-dst")
cols = ["dev", "ifindex", "rate", "encoding", "tx-model", "stamped", "full",
        "malformed", "unwritable", "other-encoding"]
d0, d1 = j["dev"]
dev = None
for l in lines[5:]:
    w = l.split()
    if w[0] == d0["dev"] and len(w) == len(cols) and w[1] == str(d0["ifindex"]):
        dev = "fcr"
        for k, v in zip(cols, w):
            seen.add(k)
            if str(d0[k]) != v:
                bad.append("%s: text %s, JSON %s" % (k, v, d0[k]))
    elif w[0] == d1["dev"]:
        dev = None
    elif w[:2] == [d0["dev"], "ccm"]:
        dev = "ccm"
        pairs(w[2:], "ccm-", d0)
    elif w[0] == d0["dev"]:
        pairs(w[1:], "fcr-", d0)
    elif dev == "fcr":
        pairs(w[1:] if w[0] == "fcr" else w, "fcr-", d0, ("ce-marked", "not-ect"))
    elif dev == "ccm":
        pairs(w, "ccm-", d0)
    else:
        bad.append("a line of no port: " + l)
missing = [k for k in list(j) + list(d0) if k not in seen and k not in ("devs", "key", "fcr-dst")]
if missing:
    bad.append("not in the text: " + " ".join(missing))
if any(l.split()[:1] == [d1["dev"]] for l in lines[7:] if " ccm " in l or "limited" in l):
    bad.append("second port has FCR or CCM lines")
print("text and JSON differ in: %s" % "; ".join(bad) if bad else
      "%d fields of the config and the first port agree" % len(seen))
sys.exit(1 if bad else 0)
' "$text"
}

ktap_print_header
ktap_set_plan 8
t "hpccctl: usage errors exit 2 with a message" usage_errors
t "hpccctl: --help, -V/--version, --json; hpccctl.8 lists them" long_options
t "hpccctl: without the module, exit 1 and say so" no_module
t "make install-programs installs programs, man pages, unit, config" installed
t "man pages hpccd(8) and hpccctl(8) format without warnings" man_pages
t "systemd unit verifies, with only CAP_NET_ADMIN and CAP_NET_RAW" unit_file
t "flow show: text and JSON give U, the pacing rate and every column in one unit" flow_units
t "int show: text and JSON give every field of the hop the same value" int_units
ktap_finished
