"""Cisco access lists as edge-rule matches.

Source: Cisco IOS Security Configuration Guide: Access Control Lists (IOS XE
17), "IP Access List Entry Sequence Numbering", "Extended IP access lists"
(permit PROTOCOL SRC [WILDCARD|host A|any] [PORTS] DST [...] [PORTS], ports
`eq`, `range`, `lt`, `gt`) and "IPv6 access lists" (prefixes as A::/n).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from qosc.diagnostics import Location
from qosc.targets.ios.acl import PROTO4, PROTO6

# the policy's protocol name of an ACL keyword, per family: an IPv6 ACL's `icmp` is ICMPv6 (icmp6), `ahp` is ah
_NAMES = {family: {word: name for name, word in table.items() if name != "ip"}
          for family, table in (("inet", PROTO4), ("inet6", PROTO6))}
_PORT_NAMES = {"www": 80, "ftp": 21, "ftp-data": 20, "ssh": 22, "telnet": 23, "smtp": 25, "domain": 53,
               "bgp": 179, "https": 443}


@dataclass
class Match:
    sources: list[str] = field(default_factory=list)
    destinations: list[str] = field(default_factory=list)
    protocols: list[str] = field(default_factory=list)
    source_ports: list[tuple[int, int]] = field(default_factory=list)
    destination_ports: list[tuple[int, int]] = field(default_factory=list)
    dscp: list[int] = field(default_factory=list)
    families: list[str] = field(default_factory=list)
    origin: Location | None = None

    def add(self, other: Match) -> None:
        for name in ("sources", "destinations", "protocols", "source_ports", "destination_ports", "dscp",
                     "families"):
            mine = getattr(self, name)
            mine.extend(x for x in getattr(other, name) if x not in mine)


def _port(words: list[str]) -> tuple[tuple[int, int] | None, list[str]]:
    if not words or words[0] not in ("eq", "range", "lt", "gt"):
        return None, words

    def num(w: str) -> int:
        if w.isdigit():
            return int(w)
        if w not in _PORT_NAMES:
            raise ValueError(f"port {w!r} is not a number qosc knows the name of")
        return _PORT_NAMES[w]
    if words[0] == "range":
        return (num(words[1]), num(words[2])), words[3:]
    if words[0] == "lt":
        return (0, num(words[1]) - 1), words[2:]
    if words[0] == "gt":
        return (num(words[1]) + 1, 65535), words[2:]
    return (num(words[1]), num(words[1])), words[2:]


def _address(words: list[str], v6: bool) -> tuple[str | None, list[str]]:
    if words[0] in ("object-group", "addrgroup", "net-group"):
        raise ValueError(f"{words[0]} {words[1] if len(words) > 1 else ''}: object groups are not read")
    if words[0] in ("any", "any4", "any6"):
        return None, words[1:]
    if words[0] == "host":
        return f"{words[1]}/{128 if v6 else 32}", words[2:]
    if "/" in words[0]:
        return str(ipaddress.ip_network(words[0], strict=False)), words[1:]
    if len(words) < 2:
        raise ValueError(f"address {words[0]!r} without its wildcard")
    wildcard = int(ipaddress.IPv4Address(words[1]))
    length = 32 - wildcard.bit_length()
    if wildcard != (1 << (32 - length)) - 1:
        raise ValueError(f"wildcard {words[1]} is not a prefix")
    return str(ipaddress.ip_network(f"{words[0]}/{length}", strict=False)), words[2:]


def entry(words: list[str], v6: bool, origin: Location | None, standard: bool = False) -> Match | None:
    """One `permit` entry as a match (deny and remark entries: None); a standard list's entries match a source
    only.  ValueError for what qosc cannot read (object groups, a port of an unknown name)."""
    if words and words[0].isdigit():
        words = words[1:]
    if standard and words[:1] == ["permit"] and len(words) >= 2:
        src, _ = _address(words[1:] if words[1] in ("any", "host") or len(words) > 2 else [*words[1:], "0.0.0.0"],
                          v6)
        return Match(sources=[src] if src else [], families=["inet6" if v6 else "inet"], origin=origin)
    if not words or words[0] != "permit" or len(words) < 4:
        return None
    m = Match(families=["inet6" if v6 else "inet"], origin=origin)
    proto = words[1]
    if proto not in ("ip", "ipv6"):
        m.protocols.append(_NAMES[m.families[0]].get(proto, proto))
    rest = words[2:]
    src, rest = _address(rest, v6)
    sport, rest = _port(rest)
    dst, rest = _address(rest, v6)
    dport, rest = _port(rest)
    m.sources += [src] if src else []
    m.destinations += [dst] if dst else []
    m.source_ports += [sport] if sport else []
    m.destination_ports += [dport] if dport else []
    return m
