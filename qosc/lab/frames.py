"""Hand-made Ethernet frames for the marking lab: MPLS-labelled and 802.1Q-tagged IPv4/UDP, sent on a raw socket.

The lab's kernel has no MPLS forwarding (CONFIG_MPLS_ROUTING, the lwtunnel ``encap mpls`` of ip-route(8)) and
no VLAN devices (CONFIG_VLAN_8021Q), so the frames an MPLS core or a VLAN trunk carries are written byte by
byte: an AF_PACKET socket (packet(7)) hands them to the interface's egress qdisc like any other frame, with the
network header after the Ethernet header (the label stack for ethertype 0x8847), and a bridge that receives a
tagged frame keeps its tag in the packet's metadata, as for any tagged frame Linux receives.  Addresses are the
benchmarking range (198.18.0.0/15), and the frames only ever leave on interfaces of the lab's own namespaces.

    python -m qosc.lab.frames DEV mpls|vlan VALUE COUNT    # COUNT frames of EXP (PCP) VALUE out of DEV
"""

from __future__ import annotations

import socket
import struct
import sys

DST = bytes.fromhex("020000000002")
SRC = bytes.fromhex("020000000001")
LABEL = 100
VID = 100


def _ipv4_udp(tos: int = 0) -> bytes:
    """A 28-byte IPv4/UDP packet 198.18.0.1 -> 198.18.0.2 (its checksum is not checked on the way)."""
    header = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 28, 0, 0, 64, 17, 0, socket.inet_aton("198.18.0.1"),
                         socket.inet_aton("198.18.0.2"))
    return header + struct.pack("!HHHH", 9, 9, 8, 0)


def mpls(exp: int, tos: int = 0) -> bytes:
    """One label (bottom of stack, TTL 64) with traffic class `exp` (RFC 3032 2.1: label 20, TC 3, S 1, TTL 8)."""
    entry = LABEL << 12 | exp << 9 | 1 << 8 | 64
    return DST + SRC + struct.pack("!HI", 0x8847, entry) + _ipv4_udp(tos)


def tagged(pcp: int, tos: int = 0) -> bytes:
    """An 802.1Q tag (TPID 0x8100) with priority `pcp`, DEI 0, VLAN VID (IEEE 802.1Q-2018 9.6)."""
    return DST + SRC + struct.pack("!HHH", 0x8100, pcp << 13 | VID, 0x0800) + _ipv4_udp(tos)


def send(dev: str, frames: list[bytes]) -> None:
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.bind((dev, 0))
        for frame in frames:
            s.send(frame)


def main(argv: list[str]) -> int:
    dev, kind, value, count = argv[0], argv[1], int(argv[2]), int(argv[3])
    make = mpls if kind == "mpls" else tagged
    send(dev, [make(value)] * count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
