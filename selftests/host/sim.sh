#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ns-3 model (build/hpcc-sim, Documentation/simulation.rst) on a tiny
# fat tree at 25/100 Gbit/s: what must hold whatever the figures.  Every
# flow of every congestion control completes with its bytes delivered and
# no hop record left behind, and none beats its FCT alone on the empty
# network; the same seed gives the same run, another seed another; with
# long flows into one port, HPCC's standing queue (probes or per-packet
# INT) is below DCTCP's, which is below CUBIC's; hpccd's probes are
# answered and pushed, and long flows never fall back; with FCR the
# congested ports' messages reach their senders and are counted; on a
# leaf-spine, CCM's rule and PLB move flows that ECMP collided, and
# nothing else does; DCTCP's receivers echo CE per packet; an RTO moves a
# flow only with --rto-rehash.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"
SIM=$TOP/build/hpcc-sim
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# our own CDF (../shared/workloads need not be beside a clone): mean
# 186 kB, the largest 2 MB
CDF=$W/test.cdf
printf '%s\n' "# size percent" "0 0" "1000 30" "20000 60" "200000 90" "2000000 100" > "$CDF"
# two ToRs of four hosts, two aggregation switches; 50 % load for 2 ms
# with incasts of 7 x 200 kB on top
MIX="--pods=1 --tors=2 --aggs=2 --cores=2 --hosts=4 --host-rate=25Gbps
	--fabric-rate=100Gbps --cdf=$CDF --load=0.5 --incast-load=0.2
	--incast-senders=7 --incast-bytes=200000 --duration=0.002"
# four senders of 2 MB into one port; queues sampled after 500 us
LONG="--pods=1 --tors=1 --aggs=1 --cores=1 --hosts=5 --host-rate=25Gbps
	--fabric-rate=100Gbps --cdf=$CDF --load=0 --long-flows=4
	--long-bytes=2000000 --duration=0.0001 --queue-from=0.0005"

# run NAME ALGO ARGS... - one run into $W/NAME
run() {
	local name=$1 algo=$2
	shift 2
	mkdir -p "$W/$name"
	# shellcheck disable=SC2068
	"$SIM" --algo="$algo" --out="$W/$name" $@ > "$W/$name/log" 2>&1 ||
		{ cat "$W/$name/log"; return 1; }
}

# val NAME KEY - a summary field
val() {
	/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$W/$1/summary.json" "$2"
}

conserved() {
	local a rc=0 f u b d r low
	for a in hpcc-probe hpcc-int dctcp cubic; do
		run "mix-$a" $a "$MIX" || return 1
		f=$(val "mix-$a" flows) u=$(val "mix-$a" unfinished)
		b=$(val "mix-$a" bytes) d=$(val "mix-$a" delivered)
		r=$(val "mix-$a" records_left)
		low=$(awk -F, 'NR > 1 && $8 < 0.999 { n++ } END { print n + 0 }' \
			"$W/mix-$a/flows.csv")
		echo "$a: $f flows, $u unfinished, $d of $b bytes, $r records left, $low faster than alone"
		[ "$f" -gt 20 ] && [ "$u" = 0 ] && [ "$b" = "$d" ] && [ "$r" = 0 ] &&
			[ "$low" = 0 ] || rc=1
	done
	return $rc
}

repeatable() {
	run seed1 hpcc-probe "$MIX" && run seed1b hpcc-probe "$MIX" &&
		run seed2 hpcc-probe "$MIX" --seed=2 || return 1
	cmp "$W/seed1/flows.csv" "$W/seed1b/flows.csv" || return 1
	cmp -s "$W/seed1/flows.csv" "$W/seed2/flows.csv" &&
		{ echo "seeds 1 and 2 gave the same flows"; return 1; }
	echo "seed 1 twice: the same $(($(wc -l < "$W/seed1/flows.csv") - 1)) flows; seed 2: others"
}

queues() {
	local a q
	declare -A q
	for a in hpcc-probe hpcc-int dctcp cubic; do
		run "long-$a" $a "$LONG" || return 1
		q[$a]=$(val "long-$a" queue_tor_down_p99_bytes)
		q[$a]=${q[$a]%.*}
		[ "$(val "long-$a" unfinished)" = 0 ] || return 1
	done
	echo "queue p99 (bytes): hpcc-probe ${q[hpcc-probe]} hpcc-int ${q[hpcc-int]} dctcp ${q[dctcp]} cubic ${q[cubic]}"
	[ "${q[hpcc-probe]}" -lt "${q[dctcp]}" ] && [ "${q[hpcc-int]}" -lt "${q[dctcp]}" ] &&
		[ "${q[dctcp]}" -lt "${q[cubic]}" ]
}

# fallbacks NAME - HPCC flows' fallbacks in a run
fallbacks() {
	awk -F, 'NR > 1 { n += $13 } END { print n + 0 }' "$W/$1/flows.csv"
}

# In the mix, an incast's probes can wait behind its queue for more than
# stale-rtts RTTs and a flow fall back (Documentation/simulation.rst):
# only the long flows' steady state must never.
probe_path() {
	local p r s fb
	p=$(val mix-hpcc-probe probes) r=$(val mix-hpcc-probe responses)
	s=$(val mix-hpcc-probe samples_pushed)
	fb=$(fallbacks long-hpcc-probe)
	echo "mix: probes $p, responses $r, samples pushed $s; long flows: fallbacks $fb"
	[ "$p" -gt 100 ] && [ "$r" = "$p" ] && [ "$s" -ge $((r * 9 / 10)) ] && [ "$fb" = 0 ] &&
		[ "$(fallbacks long-hpcc-int)" = 0 ]
}

# refused NAME ARGS... - the run fails, naming what is wrong
refused() {
	local want=$1 out
	shift
	out=$("$SIM" --cdf="$CDF" --out="$W" "$@" 2>&1) && { echo "accepted: $*"; return 1; }
	echo "$out" | grep -q -- "$want" || { echo "$out" | tail -3; return 1; }
}

bad_params() {
	refused "unknown --algo" --algo=reno &&
		refused "unknown --start" --start=fast &&
		refused "pacing-gain out of range" --pacing-gain=50 &&
		refused "HPCC parameters out of range" --eta=0.3 &&
		refused "cannot read" --cdf="$W/none.cdf" &&
		run start hpcc-probe "$LONG" --start=slow-start &&
		[ "$(val start start)" = slow-start ] && [ "$(val start unfinished)" = 0 ]
}

# FCR at every switch port (congested from 60 kB, rounds of 20 us) and
# every sender, in the mix, beside INT (the probes still stamped): the
# incasts' ports send messages, each message
# that arrives is counted once by its sender (accepted, ignored, or refused
# for its sequence number: its segment acknowledged, its flow ended), some
# are taken and every flow still completes; without --fcr no message.
# Settings outside hpcc_int's and tcp_hpcc's ranges are refused.
fcr() {
	local s a i b o n m d rc=0
	run fcr hpcc-probe "$MIX" --fcr --fcr-qlen-high=60000 --fcr-qlen-low=20000 \
		--fcr-interval-us=20 || return 1
	read -r s a i b o n m d <<< "$(for k in fcr_sent fcr_accepted fcr_ignored \
		fcr_bad_seq fcr_out_of_range fcr_no_flow fcr_malformed drops; do
		printf '%s ' "$(val fcr $k)"; done)"
	echo "fcr: sent $s; accepted $a, ignored $i, bad-seq $b, out-of-range $o, no-flow $n, malformed $m; drops $d; rounds $(val fcr fcr_rounds) ($(val fcr fcr_early_rounds) early); unfinished $(val fcr unfinished)"
	[ "$s" -gt 0 ] && [ "$a" -gt 0 ] && [ "$o" = 0 ] && [ "$n" = 0 ] &&
		[ "$m" = 0 ] && [ "$(val fcr unfinished)" = 0 ] || rc=1
	# a message lost to a full buffer is a drop; none otherwise
	[ $((a + i + b)) -le "$s" ] && [ $((a + i + b + d)) -ge "$s" ] || rc=1
	[ "$(val mix-hpcc-probe fcr_sent)" = 0 ] || rc=1
	# the hops still stamp the probes: FCR is beside INT, not instead
	echo "stamps: $(val fcr stamps) with FCR, $(val mix-hpcc-probe stamps) without"
	[ "$(val fcr stamps)" -gt $(($(val mix-hpcc-probe stamps) / 2)) ] || rc=1
	refused "needs an HPCC" --algo=dctcp --fcr &&
		refused "fcr-qlen-low must be below" --fcr --fcr-qlen-low=100000 &&
		refused "which must not be 0" --fcr --fcr-qlen-high=0 &&
		refused "fcr-interval-us out of range" --fcr-interval-us=40000 &&
		refused "fcr-eta out of range" --fcr-eta=50 || rc=1
	return $rc
}

# tools/sim/report.py over these runs, named as tools/sim/run names them:
# one table per scenario, a row per algorithm, FCR's messages (and those
# taken) in the FCR run's row and in no other
report() {
	local d=$W/report sc=websearch-50-incast row f
	mkdir -p "$d"
	ln -s "$W/mix-hpcc-probe" "$d/hpcc-probe-ms0-$sc-s1" &&
		ln -s "$W/fcr" "$d/hpcc-probe-fcr-ms0-$sc-s1" &&
		ln -s "$W/mix-dctcp" "$d/dctcp-$sc-s1" || return 1
	/usr/bin/python3 "$TOP/tools/sim/report.py" "$d" > /dev/null || return 1
	# the first table's rows (the second's rows start alike)
	row=$(grep -m1 "^| hpcc-probe-fcr-ms0 |" "$d/report.md") || return 1
	f="$(val fcr fcr_sent) ($(val fcr fcr_accepted))"
	echo "FCR row: $row"
	echo "${row% |}" | grep -q "| $f$" &&
		grep -m1 "^| dctcp |" "$d/report.md" | grep -q -- "| - |$" &&
		grep -m1 "^| hpcc-probe-ms0 |" "$d/report.md" | grep -q -- "| - |$" &&
		grep -q "^## $sc" "$d/report.md"
}

# hpccd's probe budget: at 200,000 probes a second a host the run ends (a
# wait shorter than ns-3's nanosecond once fired at once and waited
# again forever at the same time); at 20,000 the hosts send at most the
# budget over the run plus each host's burst of 2, and flows wait for it
budget() {
	local p w e h rc=0
	mkdir -p "$W/b1"
	# shellcheck disable=SC2086
	timeout 120 "$SIM" --algo=hpcc-probe --budget=200000 --out="$W/b1" $MIX \
		> "$W/b1.log" 2>&1 || { echo "--budget=200000: no end in 120 s"; return 1; }
	run b2 hpcc-probe "$MIX" --budget=20000 || return 1
	p=$(val b2 probes) w=$(val b2 budget_waits) e=$(val b2 sim_end_s)
	h=$(val b2 hosts)
	echo "--budget=20000: $p probes from $h hosts in $e s, $w waits; 200000: $(val b1 probes) probes"
	awk -v p="$p" -v h="$h" -v e="$e" 'BEGIN { exit !(p <= h * (20000 * e + 2)) }' &&
		[ "$w" -gt 0 ] && [ "$(val b2 unfinished)" = 0 ] &&
		[ "$(val b1 unfinished)" = 0 ] || rc=1
	return $rc
}

# DCTCP's receivers run DCTCP, which echoes each CE mark (ECE per
# packet): in the long flows' run (one marking port on every path, an ACK
# a segment) the share of bytes the senders saw acknowledged with ECE is
# the share of packets the port marked, within a tenth.  A receiver
# echoing as RFC 3168 says (ECE on every ACK until the sender's CWR:
# ns-3's default, CUBIC) inflates it (54 % against 44 % marked here).
# Uses case 3's runs.
dctcp_echo() {
	local m d a e
	m=$(val long-dctcp marks) d=$(val long-dctcp delivered)
	a=$(val long-dctcp dctcp_acked_bytes) e=$(val long-dctcp dctcp_ece_bytes)
	echo "dctcp: $m of $((d / 1000)) packets CE-marked; $e of $a bytes acknowledged with ECE"
	[ "$m" -gt 0 ] && [ "$a" -gt 0 ] &&
		awk -v m="$m" -v d="$d" -v a="$a" -v e="$e" \
			'BEGIN { exit !(e / a <= 1.1 * m / (d / 1000) + 0.01) }'
}

# Path changes on a leaf-spine (two leaves of two hosts, two spines, 25
# Gbit/s everywhere), two long flows between the leaves for 2 ms: plain
# HPCC and DCTCP never change a path; in the first seed where ECMP put
# both flows on one spine (its uplinks' second half under 70 %), CCM's
# rule at ccm-share 60 (two flows at eta hold 47.5 % of B x T each) and
# ccm-gap-rtts 2 (HPCC's U swings about eta over some 6 RTTs here, and
# a streak of 4 RTTs at eta or above is rare: Documentation/simulation.rst)
# moves one and both uplinks end above 70 %; PLB at a CE threshold of 1/256
# and 2 rounds rehashes, at its defaults not (DCTCP marks too few
# packets); the report has the scenario's table.  Settings outside the
# module's and PLB's ranges are refused.
LEAF="--pods=1 --tors=2 --aggs=2 --cores=0 --hosts=2 --host-rate=25Gbps
	--fabric-rate=25Gbps --pairs=2 --load=0 --long-bytes=1000000000
	--duration=0.002 --drain=0 --series-us=20"
collision() {
	local seed=0 s u rc=0 d=$W/creport
	for s in 1 2 3 4 5 6 7 8; do
		run "c-hpcc-$s" hpcc-probe "$LEAF" --seed=$s || return 1
		[ "$(val "c-hpcc-$s" path_changes)" = 0 ] || { echo "hpcc moved a flow"; return 1; }
		u=$(val "c-hpcc-$s" uplink_util_last_half)
		awk -v u="$u" 'BEGIN { exit !(u < 0.7) }' && { seed=$s; break; }
	done
	[ $seed != 0 ] || { echo "no collision in 8 seeds"; return 1; }
	run c-ccm hpcc-probe "$LEAF" --seed=$seed --ccm-tries=3 --ccm-share=60 \
		--ccm-gap-rtts=2 &&
		run c-dctcp dctcp "$LEAF" --seed=$seed &&
		run c-plb dctcp "$LEAF" --seed=$seed --plb &&
		run c-plb1 dctcp "$LEAF" --seed=$seed --plb --plb-cong-thresh=1 \
			--plb-rehash-rounds=2 || return 1
	echo "seed $seed: hpcc uplinks $(val "c-hpcc-$seed" uplink_util_last_half), ccm60 $(val c-ccm uplink_util_last_half) after $(val c-ccm path_changes) changes (resolved at $(val c-ccm resolve_s) s); dctcp $(val c-dctcp path_changes), plb $(val c-plb path_changes), plb at 1/256 $(val c-plb1 path_changes) changes"
	[ "$(val c-ccm path_changes)" -ge 1 ] && [ "$(val c-ccm path_changes)" -le 6 ] &&
		awk -v u="$(val c-ccm uplink_util_last_half)" 'BEGIN { exit !(u >= 0.7) }' &&
		awk -v r="$(val c-ccm resolve_s)" 'BEGIN { exit !(r >= 0) }' &&
		[ "$(val c-dctcp path_changes)" = 0 ] && [ "$(val c-plb path_changes)" = 0 ] &&
		[ "$(val c-plb1 path_changes)" -gt 0 ] || rc=1
	# flows.csv counts each flow's changes
	[ "$(awk -F, 'NR > 1 { n += $15 } END { print n + 0 }' "$W/c-ccm/flows.csv")" = \
		"$(val c-ccm path_changes)" ] || rc=1
	mkdir -p "$d"
	ln -s "$W/c-hpcc-$seed" "$d/hpcc-probe-collision-s$seed" &&
		ln -s "$W/c-ccm" "$d/hpcc-probe-ccm60-collision-s$seed" || return 1
	/usr/bin/python3 "$TOP/tools/sim/report.py" "$d" > /dev/null &&
		grep -q "^## collision" "$d/report.md" &&
		grep -q "^| hpcc-probe-ccm60 | 1 |" "$d/report.md" || rc=1
	refused "needs an HPCC" --algo=dctcp --ccm-tries=3 &&
		refused "needs --algo=dctcp" --algo=hpcc-probe --plb &&
		refused "ccm-\* out of range" --ccm-share=101 &&
		refused "plb-\* out of range" --algo=dctcp --plb --plb-rehash-rounds=32 &&
		refused "needs two ToRs" --pairs=9 || rc=1
	return $rc
}

# --rto-rehash: every RTO gives its flow a new label (Linux's
# sk_rethink_txhash() in tcp_write_timeout()), counted apart from CCM's and
# PLB's path changes; without it no RTO does.  Incasts into 30 kB ports
# time out.
rto_rehash() {
	local rc=0 t0 t1 r1
	run rto0 hpcc-probe "$MIX" --buffer=30000 &&
		run rto1 hpcc-probe "$MIX" --buffer=30000 --rto-rehash || return 1
	t0=$(val rto0 rtos) t1=$(val rto1 rtos) r1=$(val rto1 rto_rehashes)
	echo "without: $t0 RTOs, $(val rto0 rto_rehashes) rehashes; with: $t1 RTOs, $r1 rehashes, $(val rto1 path_changes) path changes, $(val rto1 unfinished) unfinished"
	[ "$t0" -gt 0 ] && [ "$(val rto0 rto_rehashes)" = 0 ] &&
		[ "$t1" -gt 0 ] && [ "$r1" = "$t1" ] &&
		[ "$(val rto1 path_changes)" = 0 ] &&
		[ "$(val rto1 unfinished)" = 0 ] || rc=1
	# flows.csv counts each flow's
	[ "$(awk -F, 'NR > 1 { n += $16 } END { print n + 0 }' "$W/rto1/flows.csv")" = "$r1" ] || rc=1
	return $rc
}

ktap_print_header
ktap_set_plan 11
t "every flow completes: bytes delivered, no record left, none faster than alone" conserved
t "the same seed gives the same run, another seed another" repeatable
t "standing queue: HPCC (probes, per-packet INT) < DCTCP < CUBIC" queues
t "hpccd's probes are all answered and pushed; long flows never fall back" probe_path
t "bad parameters are refused; --start slow-start runs" bad_params
t "FCR: congested ports send messages, senders count each and take some, every flow completes" fcr
t "tools/sim/report.py: a table per scenario, FCR's messages in the FCR run's row" report
t "hpccd's probe budget: runs end, the hosts send within it, flows wait for it" budget
t "path changes: CCM's rule and PLB move collided flows, nothing else moves any" collision
t "DCTCP's receivers echo each CE mark: ECE share near the CE share" dctcp_echo
t "--rto-rehash: each RTO gives its flow a new label, and only with it" rto_rehash
ktap_finished
