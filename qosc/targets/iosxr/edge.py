"""Ingress classes: edge classifier rules, trusted policed services, the default mark, EXP imposition, and on the
Cisco 8000 the traffic-class (and discard-class) every ingress class sets for the egress queuing policy.

A classifier rule is a `class-map match-all` per IP family it matches: `match source-address` /
`match destination-address` (one prefix each: a rule of several prefixes is one class per source and
destination pair, named <classifier>-<rule>[-N], read back as one rule), `match protocol`, `match source-port`,
`match destination-port` and `match dscp` (values of one match are alternatives).  Its class marks the
service's first code point (`set dscp`, or the policer's conform/exceed/violate actions).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

from qosc.model import Action, Classifier, Domain, Interface, Policer, Rule, Service
from qosc.targets.iosxr.words import dscp_word, kbps_words, label, number, size_words, xr_name
from qosc.tree import At, Statement, address, integer, kw, port, stmt


def rule_matches(rule: Rule) -> Iterator[tuple[str, list[Statement]]]:
    """(family, match statements) of the class-maps of one rule: one per source and destination prefix pair."""
    for family in rule.families:
        version = 4 if family == "inet" else 6
        sources: list[str | None] = [p for p in rule.sources
                                     if ipaddress.ip_network(p, strict=False).version == version] or [None]
        dests: list[str | None] = [p for p in rule.destinations
                                   if ipaddress.ip_network(p, strict=False).version == version] or [None]
        for src in sources:
            for dst in dests:
                out: list[Statement] = []
                for direction, prefix in (("source", src), ("destination", dst)):
                    if prefix is not None:
                        out.append(_address(direction, prefix))
                protocols = rule.protocols_in(family)
                if protocols:
                    out.append(stmt("match", "protocol", *(_protocol(p) for p in protocols)))
                for what, ports in (("source-port", rule.source_ports), ("destination-port", rule.destination_ports)):
                    if ports:
                        out.append(stmt("match", what, *(port(lo, hi, str(lo) if lo == hi else f"{lo}-{hi}")
                                                         for lo, hi in ports)))
                if rule.match_dscp:
                    out.append(stmt("match", "dscp", *(dscp_word(c) for c in rule.match_dscp)))
                yield family, out


_PROTOCOL = {"icmp6": "ipv6icmp"}
"""Policy protocol names the unified model spells otherwise (its protocol-type enumeration)."""


def _protocol(p: str) -> Any:
    return kw(_PROTOCOL.get(p, p)) if not p.isdigit() else integer(int(p))


def _address(direction: str, prefix: str) -> Statement:
    net = ipaddress.ip_network(prefix, strict=False)
    if net.version == 4:
        return stmt("match", f"{direction}-address", "ipv4", address(str(net.network_address)),
                    address(str(net.netmask)))
    return stmt("match", f"{direction}-address", "ipv6", address(str(net.network_address)),
                integer(net.prefixlen))


def action_words(a: Action | None, mark: int | None, extra: list[tuple[str, ...]]) -> list[tuple[Any, ...]]:
    """The words after `<colour>-action` for one policer action (several lines where it sets several fields)."""
    if a is None or a.kind == "drop":
        return [("drop",)]
    lines: list[tuple[Any, ...]] = []
    code = a.dscp if a.kind == "remark" else mark
    if code is not None:
        lines.append(("set", "dscp", dscp_word(code)))
    lines += [("set", *e) for e in extra]
    return lines or [("transmit",)]


def police(p: Policer, mark: int | None, extras: dict[int, list[tuple[str, ...]]]) -> Statement:
    """`police rate ... [peak-rate ...]` with its colour actions; `extras`: further sets per colour (1..3)."""
    words: list[Any] = ["police", "rate", *kbps_words(p.cir), "burst", *size_words(p.cbs)]
    if p.pir is not None:
        words += ["peak-rate", *kbps_words(p.pir)]
    if p.pbs is not None or p.ebs is not None:
        words += ["peak-burst", *size_words(p.pbs or p.ebs or 0)]
    children: list[Statement] = []
    colours = [("conform-action", p.conform, 1), ("exceed-action", p.exceed, 2)]
    if p.colours == 3:
        colours.append(("violate-action", p.violate or Action("drop"), 3))
    for colour, act, n in colours:
        children.extend(stmt(colour, *line) for line in action_words(act, mark, extras.get(n, [])))
    return stmt(*words, children=children, origin=At(p.where, "cir"),
                comment=f"policer {p.name}" + (f": {p.description}" if p.description else ""))


def rule_class_names(classifier: Classifier, rule: Rule, count: int) -> list[str]:
    base = xr_name(f"{classifier.name}-{rule.name}")
    return [base if i == 0 else xr_name(f"{base}-{i + 1}") for i in range(count)]


def marking_sets(service: Service | None, iface: Interface, precedence: int, tc: int | None,
                 discard: int | None) -> list[tuple[str, ...]]:
    """What an ingress class sets beside DSCP: traffic-class and discard-class (Cisco 8000), imposed EXP (edge)."""
    out: list[tuple[str, ...]] = []
    if tc is not None:
        out.append(("traffic-class", str(tc)))
    if discard:
        out.append(("discard-class", str(discard)))
    if iface.impose and service is not None:
        value = service.mark_in(Domain.EXP, precedence)
        value = 0 if value is None and service.default else value
        if value is not None:
            out.append(("mpls", "experimental", "imposition", str(value)))
    return out


def set_lines(sets: list[tuple[str, ...]], where: Any) -> list[Statement]:
    return [stmt("set", *(number(int(w)) if w.isdigit() else w for w in s), origin=where) for s in sets]


__all__ = ["action_words", "label", "marking_sets", "police", "rule_class_names",
           "rule_matches", "set_lines"]
