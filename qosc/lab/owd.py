"""One-way delay of marked UDP traffic between network namespaces of one kernel.

    python -m qosc.lab.owd recv --port 7100 --duration 6
    python -m qosc.lab.owd send --host 198.18.12.1 --port 7100 --tos 0xb8 --rate 15000000 --burst 1 --seconds 5

Namespaces share the kernel's clock, so the sender's CLOCK_REALTIME stamp
(taken just before sendto) and the receiver's kernel receive timestamp
(SO_TIMESTAMPNS, taken when the packet reaches the socket, so the receiver's
own scheduling does not count) give the one-way delay directly.  The sender
sends `burst` datagrams back to back, then waits so the average is `rate`.
The receiver prints one JSON object: delays in milliseconds (in arrival
order) and the highest sequence number seen (for loss).
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import time

HEADER = struct.Struct("!IQ")  # sequence, sender CLOCK_REALTIME ns
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def recv(port: int, duration: float) -> dict:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.bind(("0.0.0.0", port))
    sock.settimeout(0.2)
    delays: list[float] = []
    top = -1
    end = time.monotonic() + duration
    while time.monotonic() < end:
        try:
            data, anc, _, _ = sock.recvmsg(2048, socket.CMSG_SPACE(16))
        except TimeoutError:
            continue
        if len(data) < HEADER.size:
            continue
        seq, sent = HEADER.unpack_from(data)
        arrived = time.time_ns()
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                sec, nsec = struct.unpack("qq", payload[:16])
                arrived = sec * 1_000_000_000 + nsec
        delays.append((arrived - sent) / 1e6)
        top = max(top, seq)
    return {"delay_ms": delays, "sent": top + 1}


def send(host: str, port: int, tos: int, rate: int, size: int, burst: int, seconds: float) -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    sock.connect((host, port))
    pad = b"\0" * max(0, size - HEADER.size)
    gap = burst * size * 8 / rate  # seconds between bursts
    seq = 0
    start = time.monotonic()
    next_burst = start
    while time.monotonic() - start < seconds:
        for _ in range(burst):
            sock.send(HEADER.pack(seq, time.time_ns()) + pad)
            seq += 1
        next_burst += gap
        delay = next_burst - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return seq


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="qosc.lab.owd")
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--duration", type=float, required=True)
    s = sub.add_parser("send")
    s.add_argument("--host", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--tos", type=lambda v: int(v, 0), default=0xB8)
    s.add_argument("--rate", type=int, required=True, help="average bit/s")
    s.add_argument("--size", type=int, default=1400, help="UDP payload bytes")
    s.add_argument("--burst", type=int, default=1, help="datagrams sent back to back")
    s.add_argument("--seconds", type=float, required=True)
    args = parser.parse_args(argv)
    if args.cmd == "recv":
        json.dump(recv(args.port, args.duration), sys.stdout)
        return 0
    print(send(args.host, args.port, args.tos, args.rate, args.size, args.burst, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
