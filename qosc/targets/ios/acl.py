"""IOS access lists from classifier rules: one extended ACL per IP family a rule covers (IPv4 `ip access-list
extended`, IPv6 `ipv6 access-list`), protocol keywords per family, ports only after tcp, udp (and sctp in IPv6)."""

from __future__ import annotations

import ipaddress
from typing import Any

from qosc.model import Rule
from qosc.names import Names
from qosc.protocols import PROTOCOLS
from qosc.targets.ios.common import Command, Findings, ios_dscp
from qosc.tree import At

PROTO4 = {"ip": "ip", "tcp": "tcp", "udp": "udp", "icmp": "icmp", "igmp": "igmp", "gre": "gre", "esp": "esp",
           "ah": "ahp", "ospf": "ospf", "pim": "pim"}
PROTO6 = {"tcp": "tcp", "udp": "udp", "icmp6": "icmp", "sctp": "sctp", "esp": "esp", "ah": "ahp"}
_PORTED = {"tcp", "udp", "sctp"}


def _address(prefix: str, family: str) -> Command:
    net = ipaddress.ip_network(prefix)
    if net.prefixlen == 0:
        return ["any"]
    if net.prefixlen == net.max_prefixlen:
        return ["host", str(net.network_address)]
    if family == "inet":
        return [str(net.network_address), str(net.hostmask)]
    return [str(net)]


def _ports(ports: tuple[tuple[int, int], ...]) -> list[Command]:
    return [["eq", lo] if lo == hi else ["range", lo, hi] for lo, hi in ports] or [[]]


def _protocol(name: str, family: str) -> str:
    table = PROTO4 if family == "inet" else PROTO6
    return table.get(name) or str(PROTOCOLS.get(name, name))


def acl_entries(rule: Rule, family: str, found: Findings) -> list[Command]:
    """The `permit` lines of one rule for one IP family (empty when the rule cannot match that family: no prefix
    of it, or protocols of the other family only, such as icmp6 in IPv4), with the protocols of that family."""
    def fam(prefix: str) -> bool:
        return (":" in prefix) == (family == "inet6")

    sources = [p for p in rule.sources if fam(p)]
    dests = [p for p in rule.destinations if fam(p)]
    if family not in rule.families:
        return []
    ported = bool(rule.source_ports or rule.destination_ports)
    protocols = list(rule.protocols_in(family)) or (["tcp", "udp"] if ported else
                                                     ["ip" if family == "inet" else "ipv6"])
    if ported and any(p not in _PORTED for p in protocols):
        found.error("QOS121", f"rule '{rule.name}' matches ports with protocol "
                    f"{', '.join(p for p in protocols if p not in _PORTED)}, which has no ports in an IOS ACL",
                    rule.where.at("match.protocol", "match"), "match ports only with tcp, udp or sctp")
        return []
    if ported and family == "inet" and "sctp" in protocols:
        # An IPv4 extended ACL has no sctp keyword: SCTP is protocol 132, and port operators exist only after
        # tcp and udp (Cisco IOS Security Command Reference, permit (IP extended); `permit 132 any any eq 2905`
        # is refused).  IPv6 ACLs have the sctp keyword with ports.
        found.error("QOS121", f"rule '{rule.name}' matches SCTP ports in IPv4, which an IOS IPv4 ACL cannot "
                    "express (ports only after tcp or udp)", rule.where.at("match.protocol", "match"),
                    "match SCTP without ports in IPv4, or restrict the rule to IPv6 prefixes")
        return []
    entries: list[Command] = []
    for proto in protocols:
        word = "ipv6" if proto == "ip" and family == "inet6" else _protocol(proto, family)
        for src in sources or ["any"]:
            for sport in _ports(rule.source_ports):
                for dst in dests or ["any"]:
                    for dport in _ports(rule.destination_ports):
                        base = ["permit", word, *(_address(src, family) if src != "any" else ["any"]), *sport,
                                *(_address(dst, family) if dst != "any" else ["any"]), *dport]
                        if rule.match_dscp:
                            entries.extend(base + ["dscp", ios_dscp(d)] for d in rule.match_dscp)
                        else:
                            entries.append(base)
    return entries


def rule_acls(classifier: str, rule: Rule, found: Findings, names: Names) -> list[dict[str, Any]]:
    """One ACL per IP family the rule covers: {"kind", "name", "entries"}, named by the device's `names`."""
    out = []
    base = f"{classifier}-{rule.name}"
    for family, kind, name in (("inet", "ip access-list extended", base), ("inet6", "ipv6 access-list", f"{base}-v6")):
        entries = acl_entries(rule, family, found)
        if entries:
            given = names.name("acl", name, f"rule {classifier}/{rule.name} {family}")
            out.append({"kind": kind, "name": given, "entries": entries, "origin": At(rule.where, "match")})
    return out
