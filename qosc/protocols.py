"""IP protocols a rule may name, and the IP families each exists in.

Names are the builder's (a policy may also give a number 0-255, kept as its decimal string).  Most protocols
exist in IPv4 (protocol field) and IPv6 (next header) alike; three do not:

- icmp, protocol 1: ICMP for IPv4 (RFC 792); IPv6 has ICMPv6 instead;
- igmp, protocol 2: IPv4 group membership (RFC 3376 section 1); IPv6 has MLD, carried in ICMPv6 (RFC 2710);
- icmp6, next header 58: ICMPv6 (RFC 4443), IPv6 only.

A rule written into a family its protocols do not exist in is a dead term (issue 26): qosc.model.Rule.families
and Rule.protocols_in use ``FAMILIES_OF``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

FAMILIES = ("inet", "inet6")

PROTOCOLS: Mapping[str, int] = MappingProxyType({
    "icmp": 1, "igmp": 2, "tcp": 6, "udp": 17, "gre": 47, "esp": 50, "ah": 51, "icmp6": 58, "ospf": 89,
    "pim": 103, "sctp": 132})
"""Protocol names a policy may use, and their IANA numbers."""

FAMILIES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "icmp": ("inet",), "1": ("inet",), "igmp": ("inet",), "2": ("inet",), "icmp6": ("inet6",), "58": ("inet6",)})
"""The families of the protocols that exist in one only, by name and by number; every other is in both."""


def families_of(protocol: str) -> tuple[str, ...]:
    return FAMILIES_OF.get(protocol, FAMILIES)


def match_families(sources: tuple[str, ...], destinations: tuple[str, ...],
                   protocols: tuple[str, ...]) -> tuple[str, ...]:
    """IP families a rule can match: those its sources, its destinations (each list, when given, must hold a
    prefix of the family) and its protocols (icmp IPv4 only, icmp6 IPv6 only) all allow."""
    fams = set(FAMILIES)
    for prefixes in (sources, destinations):
        if prefixes:
            fams &= {"inet6" if ":" in p else "inet" for p in prefixes}
    if protocols:
        fams &= {f for p in protocols for f in families_of(p)}
    return tuple(f for f in FAMILIES if f in fams)
