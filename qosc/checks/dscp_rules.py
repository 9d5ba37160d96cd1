"""QOS031-QOS038: code points are unambiguous, exactly one service is the default, and every classifier rule
marks its service's code points (or, with mark: false, classifies without marking) and can match some IP family."""

from __future__ import annotations

from collections.abc import Iterator

from qosc import dscp
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Domain, Kind, Policy
from qosc.protocols import FAMILIES, families_of


def check_claims(policy: Policy) -> Iterator[Diagnostic]:
    owner: dict[int, str] = {}
    for s in policy.services:
        for code in s.dscp:
            if code in owner and owner[code] != s.name:
                yield error("QOS031", f"DSCP {dscp.name(code)} ({code}) is claimed by services '{owner[code]}' "
                            f"and '{s.name}'", s.where.at("dscp"),
                            "a code point selects exactly one service; remove it from one of them")
            owner.setdefault(code, s.name)


def check_default(policy: Policy) -> Iterator[Diagnostic]:
    defaults = [s for s in policy.services if s.default]
    if not defaults:
        yield error("QOS032", "no service is the default (the class for unclassified traffic)",
                    policy.where.at("services"),
                    "add `default: true` to the best-effort service")
    for extra in defaults[1:]:
        yield error("QOS033", f"services '{defaults[0].name}' and '{extra.name}' are both the default",
                    extra.where.at("default"), "exactly one service may have `default: true`")


def check_has_dscp(policy: Policy) -> Iterator[Diagnostic]:
    """QOS034; a service that classifier rules with `mark: false` alone reach needs no code point (they classify
    without marking: what import lifts from a JUNOS unit fixed into a class no code point reaches)."""
    reached: dict[str, bool] = {}
    for c in policy.classifiers:
        for r in c.rules:
            reached[r.service] = reached.get(r.service, True) and not r.mark
    for s in policy.services:
        if not s.dscp and not s.exp and not s.pcp and not s.default and not reached.get(s.name, False):
            yield error("QOS034", f"service '{s.name}' has no DSCP (nor EXP or PCP), so no traffic can reach it",
                        s.where.loc, f"add `dscp: [...]` (kind '{s.kind.value}' has no built-in code point)")


def check_rule_marks(policy: Policy) -> Iterator[Diagnostic]:
    for c in policy.classifiers:
        for r in c.rules:
            service = policy.service_map.get(r.service)
            if service and r.set_dscp is not None and r.set_dscp not in service.dscp:
                yield error("QOS035", f"rule '{r.name}' marks DSCP {dscp.name(r.set_dscp)} ({r.set_dscp}), which "
                            f"does not belong to service '{service.name}'", r.where.at("set-dscp"),
                            f"use one of {', '.join(dscp.name(x) for x in service.dscp) or 'its code points'}")
    for s in policy.services:
        if s.kind is not Kind.LBE and any(dscp.is_scavenger(x) for x in s.dscp):
            yield warning("QOS054", f"service '{s.name}' uses a scavenger code point (cs1 or le) but is not "
                          "declared as LBE, so the LBE protection checks do not apply", s.where.at("kind", "dscp"),
                          "add `kind: lbe` (DSCP 8 is the GÉANT/QBone scavenger code point)")


def check_classify_only(policy: Policy) -> Iterator[Diagnostic]:
    """QOS037: `mark: false` with set-dscp; QOS038: a rule that classifies into a service with DSCP without marking
    it, in a policy where DSCP-trusting interfaces classify by the DSCP the packets keep (not by the service)."""
    trusting = [f"{d.name}:{i.name}" for d in policy.devices for i in d.interfaces if Domain.DSCP in i.trust]
    for c in policy.classifiers:
        for r in c.rules:
            service = policy.service_map.get(r.service)
            if r.mark or service is None:
                continue
            if r.set_dscp is not None:
                yield error("QOS037", f"rule '{r.name}' says mark: false and set-dscp {dscp.name(r.set_dscp)}",
                            r.where.at("set-dscp", "mark"), "keep one: mark: false classifies without marking")
            elif service.dscp and trusting:
                yield warning("QOS038", f"rule '{r.name}' classifies into '{service.name}' without marking "
                              f"(mark: false): the packets keep their DSCP, and interfaces that trust DSCP "
                              f"({', '.join(trusting[:3])}{' ...' if len(trusting) > 3 else ''}) classify them by "
                              f"it, not into '{service.name}' unless they arrive marked "
                              f"{', '.join(dscp.name(x) for x in service.dscp[:4])}",
                              r.where.at("mark"), "let the rule mark the service's code point where the traffic "
                              "crosses DSCP-trusting interfaces, or carry it there in EXP or PCP")


def _family_names(families: set[str]) -> str:
    return " and ".join({"inet": "IPv4", "inet6": "IPv6"}[f] for f in FAMILIES if f in families) or "none"


def check_rule_families(policy: Policy) -> Iterator[Diagnostic]:
    """QOS036: a rule matches only the IP families its sources, its destinations and its protocols all allow
    (Rule.families); none left, and every target would write it nowhere (or, before issue 26, as a dead term)."""
    for c in policy.classifiers:
        for r in c.rules:
            if r.families:
                continue
            lists = [(key, {"inet6" if ":" in p else "inet" for p in prefixes})
                     for key, prefixes in (("source", r.sources), ("destination", r.destinations)) if prefixes]
            if len(lists) == 2 and not lists[0][1] & lists[1][1]:
                yield error("QOS036", f"rule '{r.name}' of classifier '{c.name}' matches no IP family: its sources "
                            f"are {_family_names(lists[0][1])}, its destinations {_family_names(lists[1][1])}",
                            r.where.at("match.destination", "match"),
                            "give the sources and destinations prefixes of one family, or make two rules")
                continue
            prefixed: set[str] = set(FAMILIES)
            for _, fams in lists:
                prefixed &= fams
            protocols = {f for p in r.protocols for f in families_of(p)}
            many = len(r.protocols) > 1
            yield error("QOS036", f"rule '{r.name}' of classifier '{c.name}' matches no IP family: protocol"
                        f"{'s' if many else ''} {', '.join(r.protocols)} exist{'' if many else 's'} in "
                        f"{_family_names(protocols)} only, and its prefixes are "
                        f"{_family_names(prefixed)}", r.where.at("match.protocol", "match"),
                        "use icmp6 with IPv6 prefixes and icmp with IPv4 ones, or make a rule per family")


RULES = (check_claims, check_default, check_has_dscp, check_rule_marks, check_rule_families, check_classify_only)
