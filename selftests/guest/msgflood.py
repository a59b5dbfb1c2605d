#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flood a host's FCR port with FCR messages and CCM notifications, for the
guest test that unloads modules and deletes namespaces under traffic
(selftests/guest/unload.sh).

  msgflood.py DST PORT SADDR SPORT DADDR DPORT SECONDS

Sends, as fast as a UDP socket takes them, for SECONDS or until SIGTERM
or SIGINT, from this namespace to DST:PORT, in turn: an FCR message
(fcr.py), a CCM notification of type 1 and one of type 2 (ccm.py), for the
IPv4 flow SADDR:SPORT -> DADDR:DPORT, each with a new sequence number and
FCR round.  Send errors (no route while a namespace goes away, a full
queue) are counted, not fatal.  Prints "first" (flushed) when its first
message has gone out, and "sent N errors N" at the end; exits 0 when at
least one message went out, 1 when none did, 2 on usage errors.
"""
import signal
import socket
import sys
import time

from ccm import message as ccm_message
from fcr import message as fcr_message

stop = False


def on_signal(sig, frame):
    global stop
    stop = True


def main(a):
    if len(a) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    dst, port, saddr, sport, daddr, dport, secs = \
        a[0], int(a[1]), a[2], int(a[3]), a[4], int(a[5]), float(a[6])
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = errors = n = 0
    end = time.monotonic() + secs
    while not stop and time.monotonic() < end:
        n += 1
        if n % 3 == 0:
            m = fcr_message(saddr, sport, daddr, dport, 2000000, 7, 1, n,
                            1000, n * 1000)
        else:
            m = ccm_message(1 + n % 3 // 2, saddr, sport, daddr, dport,
                            n * 1000, 0)
        try:
            u.sendto(m, (dst, port))
        except OSError:
            errors += 1
            time.sleep(0.001)
            continue
        sent += 1
        if sent == 1:
            print("first", flush=True)
    print("sent %d errors %d" % (sent, errors), flush=True)
    return 0 if sent else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
