"""EF latency probe: a UDP echo server and a client that times round trips with IP_TOS 0xb8.

    python -m qosc.lab.probe serve --port 7007
    python -m qosc.lab.probe ping --host 198.18.0.2 --port 7007 --count 300 --interval 0.01

The client prints one JSON object: the round-trip times in milliseconds of the
probes that came back, and how many were sent and lost.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import time

EF_TOS = 0xB8


def serve(port: int, tos: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    sock.bind(("0.0.0.0", port))
    while True:
        data, peer = sock.recvfrom(2048)
        sock.sendto(data, peer)


def ping(host: str, port: int, count: int, interval: float, tos: int, size: int) -> dict:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    sock.connect((host, port))
    sock.settimeout(0.5)
    pad = b"\0" * max(0, size - 12)
    rtts: list[float] = []
    lost = 0
    next_send = time.perf_counter()
    for seq in range(count):
        sent = time.perf_counter_ns()
        sock.send(struct.pack("!IQ", seq, sent) + pad)
        while True:
            try:
                data = sock.recv(2048)
            except TimeoutError:
                lost += 1
                break
            got, stamp = struct.unpack("!IQ", data[:12])
            if got == seq:
                rtts.append((time.perf_counter_ns() - stamp) / 1e6)
                break
        next_send += interval
        delay = next_send - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    return {"sent": count, "lost": lost, "rtt_ms": rtts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="qosc.lab.probe")
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=7007)
    s.add_argument("--tos", type=lambda v: int(v, 0), default=EF_TOS)
    p = sub.add_parser("ping")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, default=7007)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--interval", type=float, default=0.01)
    p.add_argument("--tos", type=lambda v: int(v, 0), default=EF_TOS)
    p.add_argument("--size", type=int, default=64)
    args = parser.parse_args(argv)
    if args.cmd == "serve":
        serve(args.port, args.tos)
        return 0
    json.dump(ping(args.host, args.port, args.count, args.interval, args.tos, args.size), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
