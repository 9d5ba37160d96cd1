"""QOS031-QOS035: code points are unambiguous and exactly one service is the default."""

from __future__ import annotations

from collections.abc import Iterator

from qosc import dscp
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Kind, Policy


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
    for s in policy.services:
        if not s.dscp and not s.exp and not s.pcp and not s.default:
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


RULES = (check_claims, check_default, check_has_dscp, check_rule_marks)
