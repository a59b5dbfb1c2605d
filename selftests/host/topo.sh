#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The topology library (selftests/topo.sh) and the namespace helpers of
# selftests/lib.sh over the kernel's net/lib.sh, on the host: the guest
# tests' dumbbell carries TCP over both families, the bottleneck and delay
# qdiscs are what the tests and the testbed ask for, a namespace that an
# earlier run left is replaced, and ns_gone removes namespaces with their
# processes.  It runs in a mount namespace of its own with a private
# /run/netns, so that its fixed names (hs, rt, hr) never meet the host's.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null; then
	ktap_print_header
	ktap_skip_all "needs root and unshare"
	exit "$KSFT_SKIP"
fi
if [ -z "${TOPO_PRIVATE:-}" ]; then
	exec unshare -m --propagation private env TOPO_PRIVATE=1 bash "$0" "$@"
fi
mkdir -p /run/netns && mount -t tmpfs topo-test /run/netns || exit 1
trap 'ns_gone hs rt hr fa fb' EXIT

# tcp_to NS ADDR - a TCP connection from NS to ADDR port 7000, where
# tcp_listen made a listener; it reads the listener's "hello"
tcp_to() {
	ip netns exec "$1" python3 -S -c '
import socket, sys
s = socket.create_connection((sys.argv[1], 7000), timeout=5)
d = s.recv(16)
print(d.decode())
sys.exit(0 if d == b"hello" else 1)' "$2"
}

# tcp_listen NS ADDR - a listener on ADDR port 7000 in NS that greets one
# connection and exits; returns once it listens
tcp_listen() {
	ip netns exec "$1" python3 -S -c '
import socket, sys
a = sys.argv[1]
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((a, 7000))
s.listen(1)
s.settimeout(10)
c, _ = s.accept()
c.sendall(b"hello")
c.close()' "$2" &
	retry 25 sh -c "ip netns exec $1 ss -Hltn | grep -q ':7000 '"
}

dumbbell() {
	topo_dumbbell 49 46 || return 1
	ip -n hs -br addr show v0
	ip -n hr -br addr show v3
	[ "$(ip netns exec rt sysctl -n net.ipv4.ip_forward)" = 1 ] &&
		[ "$(ip netns exec rt sysctl -n net.ipv6.conf.all.forwarding)" = 1 ] &&
		ip -n hs -br addr show v0 | grep -q "10.49.1.1/24 fd00:49:1::1/64" &&
		ip -n hr -br addr show v3 | grep -q "10.49.2.1/24 fd00:49:2::1/64" &&
		ip -n hs -br link show lo | grep -q UNKNOWN
}

# over rt: hs reaches hr on both families, a listener in hr answers
dumbbell_tcp() {
	tcp_listen hr 10.49.2.1 && tcp_to hs 10.49.2.1 &&
		tcp_listen hr fd00:49:2::1 && tcp_to hs fd00:49:2::1
}

bottleneck() {
	local out
	topo_tbf rt v2 100mbit 32k 250k && topo_tbf rt v1 50mbit 64kb 250000 bfifo ||
		return 1
	out=$(tc -n rt qdisc show)
	echo "$out"
	echo "$out" | grep -q "qdisc tbf .* dev v2 root .*rate 100Mbit" &&
		echo "$out" | grep -q "qdisc tbf 1: dev v1 root .*rate 50Mbit" &&
		echo "$out" | grep -q "qdisc bfifo 10: dev v1 parent 1:1 limit 250000b"
}

# topo_link's ip-link options reach both ends: 8 transmit queues each
link_args() {
	topo_link hs mq0 hr mq1 numtxqueues 8 numrxqueues 8 || return 1
	ip -n hs -d link show mq0 | grep -o 'numtxqueues [0-9]*'
	ip -n hs -d link show mq0 | grep -q 'numtxqueues 8 ' &&
		ip -n hr -d link show mq1 | grep -q 'numtxqueues 8 ' &&
		ip -n hr -br link show mq1 | grep -q UP
}

delay() {
	topo_delay hr v3 10 && tc -n hr qdisc show dev v3 | grep "netem .*delay 10ms"
}

# netem_ok - the kernel has netem (the guests' kernels do; a host's may not)
netem_ok() {
	local rc
	ip netns add tq || return 1
	ip -n tq link add d0 type veth peer name d1 &&
		tc -n tq qdisc add dev d0 root netem delay 1ms 2> /dev/null
	rc=$?
	ip netns del tq
	return $rc
}

# ns_pair over topo_ns: NS2's namespace of the same name left by an
# earlier run (here with a veth pair in it) is removed and made anew, lo
# up; NS1, which a test may have made before, is kept; a name that is not
# a shell name is refused
stale() {
	ip netns add fa && ip -n fa link add keep0 type veth peer name keep1 &&
		ip netns add fb &&
		ip -n fb link add stale0 type veth peer name stale1 || return 1
	ns_pair fa 10.9.0.1 fb 10.9.0.2 || return 1
	if ip -n fb link show stale0 > /dev/null 2>&1; then
		echo "the stale namespace fb is still there"
		return 1
	fi
	ip -n fa link show keep0 > /dev/null || return 1
	ip -n fa -br addr show v0 | grep -q 10.9.0.1/24 &&
		ip -n fb -br addr show v1 | grep -q 10.9.0.2/24 &&
		ip -n fb -br link show lo | grep -q UNKNOWN &&
		! topo_ns h-s 2> /dev/null && ! ip netns list | grep -q h-s
}

# ns_gone: the processes in the namespaces end, the namespaces go
gone() {
	local p
	ip netns exec fa sleep 300 &
	p=$!
	retry 25 sh -c "ip netns pids fa | grep -qx $p" || return 1
	ns_gone fa fb
	if kill -0 "$p" 2>/dev/null; then
		echo "sleep $p still runs"
		return 1
	fi
	ip netns list
	! ip netns list | grep -Eq '^(fa|fb)( |$)'
}

ktap_print_header
ktap_set_plan 7
t "topo_dumbbell: hs - rt - hr, IPv4 and IPv6 addresses, forwarding" dumbbell
t "topo_dumbbell: TCP from hs to hr over IPv4 and IPv6" dumbbell_tcp
t "topo_tbf: tbf, and tbf with a bfifo child" bottleneck
t "topo_link: ip-link options for both ends (numtxqueues 8)" link_args
if netem_ok; then
	t "topo_delay: netem delay" delay
else
	ktap_test_skip "topo_delay: netem delay (no netem in this kernel)"
fi
t "ns_pair, topo_ns (setup_ns): a stale namespace replaced, a bad name refused" stale
t "ns_gone (cleanup_ns): processes ended, namespaces deleted" gone
ktap_finished
