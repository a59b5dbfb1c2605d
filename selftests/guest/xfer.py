#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One-shot TCP transfers for the guest tests (recovery.sh).

xfer.py serve ADDR PORT COUNT BYTES
    accept COUNT connections one after another; from each, read BYTES,
    then answer one byte and close.
xfer.py send ADDR PORT CC BYTES [PAUSE_MS]
    connect with congestion control CC (TCP_CONGESTION) and TCP_NODELAY,
    send BYTES (no FIN before the answer: the last data segment is the last
    packet; with PAUSE_MS, all but the last BYTES % 1448, then a pause of
    PAUSE_MS, then the rest) and wait for the one-byte answer; print
    "ms M rtt_us R retrans N": M the milliseconds from the end of the
    handshake to the answer, R the socket's smoothed RTT (tcpi_rtt) and N
    its retransmitted segments (tcpi_total_retrans) at the answer.
"""
import socket
import struct
import sys
import time

# struct tcp_info (include/uapi/linux/tcp.h): 8 one-byte fields, then
# 32-bit ones; tcpi_rtt is the 16th of those, tcpi_total_retrans the 24th
TCPI_RTT = 8 + 15 * 4
TCPI_TOTAL_RETRANS = 8 + 23 * 4


def serve(addr, port, count, nbytes):
    with socket.create_server((addr, port)) as ls:
        for _ in range(count):
            c, _peer = ls.accept()
            with c:
                got = 0
                while got < nbytes:
                    b = c.recv(65536)
                    if not b:
                        break
                    got += len(b)
                c.sendall(b"k")


def send(addr, port, cc, nbytes, pause_ms):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(30)
    s.connect((addr, port))
    t0 = time.monotonic()
    tail = nbytes % 1448 if pause_ms else 0
    s.sendall(b"x" * (nbytes - tail))
    if tail:
        time.sleep(pause_ms / 1000)
        s.sendall(b"x" * tail)
    if s.recv(1) != b"k":
        sys.exit("no answer")
    ms = (time.monotonic() - t0) * 1000
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    rtt = struct.unpack_from("I", info, TCPI_RTT)[0]
    retrans = struct.unpack_from("I", info, TCPI_TOTAL_RETRANS)[0]
    s.close()
    print("ms %d rtt_us %d retrans %d" % (ms, rtt, retrans))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
              int(sys.argv[5]))
    elif len(sys.argv) in (6, 7) and sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]),
             int(sys.argv[6]) if len(sys.argv) == 7 else 0)
    else:
        sys.exit(__doc__)
