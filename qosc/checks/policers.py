"""QOS060-QOS066: policers whose buckets, rates or markdown cannot work as written.

The Catalyst 6500 tests showed that TCP needs a bucket near CIR x RTT: at CIR
50 Mbit/s one TCP flow needed a 2.5 MB normal burst; smaller buckets gave a
small or negligible throughput.
"""

from __future__ import annotations

from collections.abc import Iterator

from qosc import dscp
from qosc.checks.network import Network
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Policer, Policy, Service
from qosc.rulemarks import rule_mark
from qosc.units import format_rate, format_size, format_time


def _users(policy: Policy, policer: Policer) -> list[Service]:
    """The services whose traffic goes through a policer (directly or through a rule)."""
    names = {s.name for s in policy.services if s.policer == policer.name}
    names |= {r.service for c in policy.classifiers for r in c.rules if r.policer == policer.name}
    return [s for s in policy.services if s.name in names]


def check_buckets(policy: Policy, network: Network) -> Iterator[Diagnostic]:
    mtu = max(policy.mtu, network.mtu)
    for p in policy.policers:
        for key, size in (("cbs", p.cbs), ("pbs", p.pbs), ("ebs", p.ebs)):
            if size is not None and size < mtu:
                yield error("QOS060", f"policer '{p.name}' {key} {format_size(size)} is below one MTU ({mtu} B): "
                            "a full-size packet can never conform", p.where.at(key), f"set {key} to at least {mtu}B")
        if p.pir is not None and p.pir < p.cir:
            yield error("QOS061", f"policer '{p.name}' PIR {format_rate(p.pir)} is below its CIR "
                        f"{format_rate(p.cir)}", p.where.at("pir"), "the peak rate must be at least the committed rate")
        if p.pbs is not None and p.pbs < p.cbs:
            yield error("QOS062", f"policer '{p.name}' PBS {format_size(p.pbs)} is below its CBS "
                        f"{format_size(p.cbs)}", p.where.at("pbs"),
                        "the peak bucket must be at least the committed one")


def check_tcp_bursts(policy: Policy) -> Iterator[Diagnostic]:
    for p in policy.policers:
        for s in _users(policy, p):
            rtt = s.rtt_us or policy.rtt_us
            if not s.carries_tcp or not rtt:
                continue
            bdp = p.cir * rtt // 8_000_000
            if p.cbs < bdp:
                yield warning("QOS063", f"policer '{p.name}' cbs {format_size(p.cbs)} is below CIR x RTT = "
                              f"{format_rate(p.cir)} x {format_time(rtt)} = {format_size(bdp)} for TCP service "
                              f"'{s.name}'; TCP will not reach the committed rate", p.where.at("cbs"),
                              f"raise cbs to at least {format_size(bdp)}: on a Catalyst 6500 one TCP flow at CIR "
                              "50 Mbit/s needed a 2.5 MB normal burst, and smaller buckets gave negligible throughput")
                break


def check_remarks(policy: Policy) -> Iterator[Diagnostic]:
    owned = {code for s in policy.services for code in s.dscp}
    for p in policy.policers:
        for label, action in (("conform", p.conform), ("exceed", p.exceed), ("violate", p.violate)):
            if action is not None and action.kind == "remark" and action.dscp not in owned:
                assert action.dscp is not None
                yield warning("QOS065", f"policer '{p.name}' {label} action remarks to DSCP "
                              f"{dscp.name(action.dscp)} ({action.dscp}), which no service claims",
                              p.where.at(label), "remarked traffic will be treated as the default service")


def _arriving(policy: Policy, policer: Policer) -> list[tuple[int, str]]:
    """(code point, whose) of the traffic a policer meets: every code point of a service that names it (trusted
    DSCP may carry any of them), the mark of a rule that names it."""
    found: dict[int, str] = {}
    for s in policy.services:
        if s.policer == policer.name:
            found.update((c, f" of service '{s.name}'") for c in s.dscp if c not in found)
    for c in policy.classifiers:
        for r in c.rules:
            owner = policy.service_map.get(r.service)
            mark = rule_mark(r, owner)
            if r.policer == policer.name and mark is not None:
                found.setdefault(mark, f" of rule '{r.name}'")
    return list(found.items())


def check_markdown(policy: Policy) -> Iterator[Diagnostic]:
    """QOS066: a colour further out of profile must not leave with a lower AF drop precedence (same class) than a
    colour before it: RFC 2597 section 2 has a congested node discard the higher drop precedence first, so such
    a markdown protects out-of-profile traffic better than in-profile traffic.  A transmitted colour keeps what it
    arrived with (the code points of the traffic the policer meets)."""
    for p in policy.policers:
        arriving = _arriving(policy, p)
        before: list[tuple[int, str]] = []  # (code point, "conforming traffic[ of service 'x']") of earlier colours
        for label, adjective, action in (("conform", "conforming", p.conform), ("exceed", "exceeding", p.exceed),
                                         ("violate", "violating", p.violate)):
            if action is None or action.kind == "drop":
                continue
            if action.kind == "remark" and action.dscp is not None:
                code = action.dscp
                higher = [(e, whose) for e, whose in before if dscp.af_class(e) and dscp.af_class(e) ==
                          dscp.af_class(code) and dscp.drop_precedence(e) > dscp.drop_precedence(code)]
                if higher:
                    top, whose = max(higher, key=lambda found: dscp.drop_precedence(found[0]))
                    yield warning("QOS066", f"policer '{p.name}' {label} re-marks to {dscp.name(code)} (drop "
                                  f"precedence {dscp.drop_precedence(code)}), below {dscp.name(top)} "
                                  f"({dscp.drop_precedence(top)}) that {whose} carries: out-of-profile traffic would "
                                  "be dropped after in-profile traffic", p.where.at(label),
                                  "RFC 2597 section 2: a congested node discards the higher drop precedence first, so "
                                  "a policer's markdown raises it within the AF class (conform af11, exceed af12, "
                                  "violate af13)")
                leaving = [(code, "")]
            else:
                leaving = arriving
            before += [(code, f"{adjective} traffic{whose}") for code, whose in leaving]


RULES = (check_tcp_bursts, check_remarks, check_markdown)
NETWORK_RULES = (check_buckets,)
